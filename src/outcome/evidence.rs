//! Failure evidence made safe to print and store. Every check's expected/observed text and every
//! lane error passes through [`evidence`] before any report (table, JSON, JUnit, Markdown) sees
//! it: secrets are redacted (auth headers, bearer tokens, token/secret/password/key fields, API
//! keys, and the gateway token of this process's environment) and the text is bounded to
//! [`MAX_EVIDENCE_CHARS`] characters with a marker, as upstream's reference bounds its own.
//! A gateway's answer or log can echo a request whole; this is where it stops.

use std::sync::LazyLock;

use regex::Regex;

use crate::output::thousands;

/// The most characters one evidence string keeps, marker included (upstream's bound).
pub const MAX_EVIDENCE_CHARS: usize = 6_000;
/// What a redacted secret becomes.
pub const REDACTED: &str = "[redacted]";
/// Environment variables whose values are gateway secrets, redacted wherever they appear.
pub const SECRET_ENV: [&str; 3] = [
    "OPENCLAW_GATEWAY_TOKEN",
    "OPENCLAW_GATEWAY_PASSWORD",
    "OPENAI_API_KEY",
];

/// Patterns of secrets, each with what keeps its context (`$1`) and drops the value.
static SECRETS: LazyLock<Vec<(Regex, String)>> = LazyLock::new(|| {
    let keep = |pattern: &str| {
        (
            Regex::new(pattern).expect("a valid secret pattern (unit-tested)"),
            format!("${{1}}{REDACTED}"),
        )
    };
    vec![
        // An auth header or field, quoted or not: `authorization: Bearer x`, `"x-api-key":"k"`.
        keep(
            r#"(?i)((?:\\*")?(?:proxy-)?(?:authorization|x-api-key|api-key|cookie|set-cookie)(?:\\*")?\s*[:=]\s*(?:\\*")?)[^"\\\r\n]+"#,
        ),
        // A bearer or basic credential anywhere.
        keep(r"(?i)(\b(?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{4,}"),
        // A field or variable named like a secret: `token=…`, `"gatewayToken": "…"`, `PASSWORD=…`.
        keep(
            r#"(?i)((?:\\*")?\b[a-z0-9_.-]*(?:token|secret|password|passwd|api_?key)(?:\\*")?\s*[:=]\s*(?:\\*")?)[^"\\\s,;&}\]]+"#,
        ),
        // Provider API keys by their shape.
        keep(r"(\b)sk-[A-Za-z0-9_-]{16,}"),
    ]
});

/// `text` redacted, then bounded.
pub fn evidence(text: &str) -> String {
    bound(&redact(text))
}

/// `text` with every secret pattern's value and every [`SECRET_ENV`] value replaced.
pub fn redact(text: &str) -> String {
    let mut out = text.to_string();
    for name in SECRET_ENV {
        if let Some(value) = std::env::var(name).ok().filter(|v| v.len() >= 4) {
            out = out.replace(&value, REDACTED);
        }
    }
    for (pattern, with) in SECRETS.iter() {
        out = pattern.replace_all(&out, with.as_str()).into_owned();
    }
    out
}

/// `text` cut to at most [`MAX_EVIDENCE_CHARS`] characters, the marker included, saying how
/// long it was.
pub fn bound(text: &str) -> String {
    let total = text.chars().count();
    if total <= MAX_EVIDENCE_CHARS {
        return text.to_string();
    }
    let marker = format!(
        " … [cut: {} of {} characters]",
        thousands(MAX_EVIDENCE_CHARS),
        thousands(total)
    );
    let keep = MAX_EVIDENCE_CHARS - marker.chars().count();
    let cut: String = text.chars().take(keep).collect();
    format!("{cut}{marker}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_auth_headers_bearer_tokens_secret_fields_and_keys() {
        let cases = [
            (
                "authorization: Bearer abc.def-123",
                "authorization: [redacted]",
            ),
            (
                r#"{"Authorization":"Bearer abcdef","x":1}"#,
                r#"{"Authorization":"[redacted]","x":1}"#,
            ),
            ("x-api-key=k1234567", "x-api-key=[redacted]"),
            ("sent Bearer abcdefgh to it", "sent Bearer [redacted] to it"),
            (
                r#"{"gatewayToken": "s3cr3t-value", "n": 2}"#,
                r#"{"gatewayToken": "[redacted]", "n": 2}"#,
            ),
            (
                "OPENCLAW_GATEWAY_TOKEN=abc123 next",
                "OPENCLAW_GATEWAY_TOKEN=[redacted] next",
            ),
            ("url ?token=abcd&x=1", "url ?token=[redacted]&x=1"),
            ("password: hunter22", "password: [redacted]"),
            // Inside a quoted (Debug or JSON-in-JSON) string, quotes come escaped.
            (
                r#"text "{\"gatewayToken\": \"abc-123\", \"n\": 1}""#,
                r#"text "{\"gatewayToken\": \"[redacted]\", \"n\": 1}""#,
            ),
            (
                r#"\"authorization\":\"Bearer abc\""#,
                r#"\"authorization\":\"[redacted]\""#,
            ),
            ("key sk-proj-ABCDEFGHIJKLMNOPQRST end", "key [redacted] end"),
        ];
        for (text, want) in cases {
            assert_eq!(redact(text), want, "{text}");
        }
    }

    #[test]
    fn leaves_counts_and_names_alone() {
        for text in [
            "max_output_tokens: 256",
            "input_tokens=12, cached tokens 4",
            "searches = 1; planned tool_search → tool_call",
            "requests 1, 2 do not",
            "the tool search token budget",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn bounds_to_six_thousand_characters_with_a_marker() {
        let short = "é".repeat(MAX_EVIDENCE_CHARS);
        assert_eq!(bound(&short), short);
        let long = "é".repeat(20_000);
        let cut = bound(&long);
        assert_eq!(cut.chars().count(), MAX_EVIDENCE_CHARS);
        assert!(
            cut.ends_with(" … [cut: 6,000 of 20,000 characters]"),
            "{}",
            &cut[cut.len() - 60..]
        );
    }

    #[test]
    fn evidence_redacts_before_it_cuts() {
        let text = format!(
            "{} authorization: Bearer {}",
            "x".repeat(5_990),
            "y".repeat(50)
        );
        let out = evidence(&text);
        assert!(!out.contains("yyyy"));
        assert!(out.chars().count() <= MAX_EVIDENCE_CHARS);
    }
}
