//! Writing a captured surface as a profile file (`data/profiles/*.toml`): sizes only for a
//! profile that may be committed, the gateway's own texts for a local one.

use std::fmt::Write as _;

use crate::config::{BatchRules, LimitRules, QueryBound, ToolSearchRules};
use crate::profile::model::{Captured, Section};
use crate::profile::render::{marker, marker_size, outline_schema};
use crate::profile::{Size, Text};

/// What the file says about itself.
pub struct Header<'a> {
    pub name: &'a str,
    pub about: &'a str,
    /// Comment lines at the top (without `# `).
    pub comment: &'a [String],
    /// How the captured target reads `tools.toolSearch` and names its bridge (a release's
    /// from its data, the embedded gateway's from the profile it showed).
    pub tool_search: &'a ToolSearchRules,
}

/// The profile file for `captured`; `keep_text` keeps the gateway's texts, else only sizes.
pub fn profile_toml(header: &Header<'_>, captured: &Captured, keep_text: bool) -> String {
    let text = |t: &Text| match keep_text {
        true => value(&t.render()),
        false => size(t.size()),
    };
    let schema = |s: &serde_json::Value| {
        let kept = match keep_text {
            true => s.clone(),
            false => sized_schema(s),
        };
        value(&kept.to_string())
    };
    let mut out = String::new();
    for line in header.comment {
        let _ = writeln!(out, "# {line}");
    }
    let _ = writeln!(out, "name = {}", value(header.name));
    let _ = writeln!(out, "about = {}", value(header.about));
    out.push_str("surface = \"captured\"\n");

    let s = &captured.source;
    out.push_str("\n[source]\n");
    let _ = writeln!(out, "product = {}", value(&s.product));
    if let Some(node) = &s.node {
        let _ = writeln!(out, "node = {}", value(node));
    }
    let _ = writeln!(out, "scenario = {}", value(&s.scenario));
    let _ = writeln!(out, "catalog_size = {}", s.catalog_size);
    let _ = writeln!(out, "captured_on = {}", value(&s.captured_on));
    if let Some(fixture) = &s.fixture_description {
        let _ = writeln!(out, "fixture_description = {}", value(fixture));
    }

    let r = &captured.request;
    out.push_str("\n[request]\n");
    let _ = writeln!(out, "stream = {}", r.stream);
    let _ = writeln!(out, "user_prefix = {}", text(&r.user_prefix));
    for extra in &r.extra_input {
        out.push_str("\n[[request.extra_input]]\n");
        let _ = writeln!(out, "role = {}", value(&extra.role));
        let _ = writeln!(out, "text = {}", text(&extra.text));
    }

    for t in &captured.core_tools {
        out.push_str("\n[[core_tools]]\n");
        let _ = writeln!(out, "name = {}", value(&t.name));
        let _ = writeln!(out, "owner = {}", value(&t.owner));
        let exposure = match t.exposure {
            crate::profile::Exposure::Catalogued => "catalogued",
            crate::profile::Exposure::Visible => "visible",
            crate::profile::Exposure::DirectOnly => "direct-only",
        };
        let _ = writeln!(out, "exposure = \"{exposure}\"");
        let _ = writeln!(out, "description = {}", text(&t.description));
        if let Some(summary) = &t.summary {
            let _ = writeln!(out, "summary = {}", text(summary));
        }
        let _ = writeln!(out, "parameters = {}", schema(&t.parameters.0));
    }
    write_rules(&mut out, header.tool_search);
    for c in &captured.controls {
        out.push_str("\n[[controls]]\n");
        let _ = writeln!(out, "name = {}", value(&c.name));
        let modes: Vec<String> = c.modes.iter().map(|m| value(m.as_str())).collect();
        let _ = writeln!(out, "modes = [{}]", modes.join(", "));
        let _ = writeln!(out, "description = {}", text(&c.description));
        if let Some(summary) = &c.summary {
            let _ = writeln!(out, "summary = {}", text(summary));
        }
        let _ = writeln!(out, "parameters = {}", schema(&c.parameters.0));
    }

    let d = &captured.directory;
    out.push_str("\n[directory]\n");
    let modes: Vec<String> = d.modes.iter().map(|m| value(m.as_str())).collect();
    let _ = writeln!(out, "modes = [{}]", modes.join(", "));
    let cuts: Vec<String> = d.description_cuts.iter().map(|c| c.to_string()).collect();
    let _ = writeln!(out, "description_cuts = [{}]", cuts.join(", "));
    let _ = writeln!(out, "ellipsis = {}", value(&d.ellipsis));
    let _ = writeln!(out, "max_chars = {}", d.max_chars);
    let _ = writeln!(out, "omitted = {}", text(&d.omitted));
    if let Some(scale) = &d.context_scale {
        let _ = writeln!(
            out,
            "context_scale = {{ tokens_per_char = {}, min_chars = {} }}",
            scale.tokens_per_char, scale.min_chars
        );
    }

    for mode in crate::config::ToolSearchMode::ALL {
        for section in captured.prompt.of(mode) {
            write_section(&mut out, mode.as_str(), section, &text);
        }
    }
    out
}

/// The `[tool_search]` table.
fn write_rules(out: &mut String, rules: &ToolSearchRules) {
    let modes: Vec<String> = rules.modes.iter().map(|m| value(m.as_str())).collect();
    out.push_str("\n[tool_search]\n");
    let _ = writeln!(out, "modes = [{}]", modes.join(", "));
    let _ = writeln!(out, "when_unset = {}", value(rules.when_unset.as_str()));
    let _ = writeln!(out, "when_enabled = {}", value(rules.when_enabled.as_str()));
    let b = &rules.bridge;
    let code = b
        .code
        .as_ref()
        .map(|c| format!(", code = {}", value(c)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "bridge = {{ search = {}, describe = {}, call = {}{code} }}",
        value(&b.search),
        value(&b.describe),
        value(&b.call)
    );
    if rules.limits != LimitRules::SPEC {
        let l = rules.limits;
        let _ = writeln!(
            out,
            "limits = {{ default = {}, max = {}, max_clamp = {} }}",
            l.default, l.max, l.max_clamp
        );
    }
    if rules.batch != BatchRules::SPEC {
        let b = rules.batch;
        let query = match b.max_query {
            QueryBound::JsonBytes(n) => format!("{{ json_bytes = {n} }}"),
            QueryBound::Chars(n) => format!("{{ chars = {n} }}"),
        };
        let together = b
            .queries_json_bytes
            .map(|n| format!(", queries_json_bytes = {n}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "batch = {{ max_queries = {}, max_query = {query}{together}, max_candidates = {}, \
             answer_chars = {} }}",
            b.max_queries, b.max_candidates, b.answer_chars
        );
    }
}

fn write_section(out: &mut String, mode: &str, s: &Section, text: &dyn Fn(&Text) -> String) {
    let _ = writeln!(out, "\n[[prompt.{mode}]]");
    if let Some(heading) = &s.heading {
        let _ = writeln!(out, "heading = {}", value(heading));
    }
    let _ = writeln!(out, "text = {}", text(&s.text));
    if let Some(list) = s.list {
        let list = match list {
            crate::profile::model::ListKind::Tools => "tools",
            crate::profile::model::ListKind::Directory => "directory",
        };
        let _ = writeln!(out, "list = \"{list}\"");
    }
    if let Some(after) = &s.after {
        let _ = writeln!(out, "after = {}", text(after));
    }
}

/// A TOML string.
fn value(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

/// A sized text as an inline table.
fn size(size: Size) -> String {
    format!(
        "{{ chars = {}, bytes = {}, lines = {} }}",
        size.chars, size.bytes, size.lines
    )
}

/// A schema whose descriptions are markers already stays so; the others become markers.
fn sized_schema(schema: &serde_json::Value) -> serde_json::Value {
    let outlined = outline_schema(schema, true);
    reduce(&outlined)
}

fn reduce(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("description", Value::String(text)) if marker_size(text).is_none() => {
                        (k.clone(), Value::from(marker(Size::of(text))))
                    }
                    _ => (k.clone(), reduce(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(reduce).collect()),
        other => other.clone(),
    }
}
