//! The untrusted-content envelope a real OpenClaw gateway wraps some tool results in (e.g. a
//! `tool_search` result that lists client tools): a security notice, then
//! `<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>`, metadata lines, `---`, the content, and
//! `<<<END_EXTERNAL_UNTRUSTED_CONTENT id="…">>>` with the same id.
//!
//! The scripted model reads the content inside, and so does the transcript translation (an MCP
//! tool's `tool_call` result is wrapped): only a well-formed envelope, exactly one start and one
//! end marker, the same id on both, the `---` line before the content. Anything else is not
//! unwrapped, so a result that only looks wrapped is read as the plain text it is.

const START: &str = "<<<EXTERNAL_UNTRUSTED_CONTENT id=\"";
const END: &str = "<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"";
const CLOSE: &str = "\">>>";

/// The content of the one well-formed envelope in `text`; `None` when there is none.
pub fn unwrap(text: &str) -> Option<&str> {
    if text.matches(START).count() != 1 || text.matches(END).count() != 1 {
        return None;
    }
    let (_, after_start) = text.split_once(START)?;
    let (start_id, body) = after_start.split_once(CLOSE)?;
    let (inside, after_end) = body.split_once(END)?;
    let (end_id, _) = after_end.split_once(CLOSE)?;
    if start_id.is_empty() || start_id != end_id {
        return None;
    }
    // Metadata lines (`Source: …`), then a line `---`, then the content up to the end marker.
    let (_, content) = inside.split_once("\n---\n")?;
    Some(content.strip_suffix('\n').unwrap_or(content))
}

#[cfg(test)]
mod tests {
    use super::unwrap;

    const WRAPPED: &str = "SECURITY NOTICE: external.\n\n<<<EXTERNAL_UNTRUSTED_CONTENT id=\"9d1d45f72a76c35b\">>>\nSource: API\n---\n[\n  {\"id\": \"client:client:pick_file\"}\n]\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"9d1d45f72a76c35b\">>>";

    #[test]
    fn reads_the_content_of_a_well_formed_envelope() {
        assert_eq!(
            unwrap(WRAPPED),
            Some("[\n  {\"id\": \"client:client:pick_file\"}\n]")
        );
    }

    #[test]
    fn rejects_what_only_looks_wrapped() {
        assert_eq!(unwrap("[]"), None);
        let other_id = WRAPPED.replace(
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"9d1d",
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"0000",
        );
        assert_eq!(unwrap(&other_id), None);
        let twice = format!("{WRAPPED}\n{WRAPPED}");
        assert_eq!(unwrap(&twice), None);
        let no_separator = WRAPPED.replace("\n---\n", "\n");
        assert_eq!(unwrap(&no_separator), None);
        let no_end = WRAPPED
            .split("<<<END")
            .next()
            .unwrap_or_default()
            .to_string();
        assert_eq!(unwrap(&no_end), None);
    }
}
