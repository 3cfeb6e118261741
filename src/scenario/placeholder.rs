//! The placeholders a `[[catalog.mcp_servers]]` string may hold, so a scenario file names what
//! the install scripts put into the cache and never a machine path: `{node}`,
//! `{npm:NAME@VERSION}`, `{cache}`, `{work}`, `{toolsearch-qa}`. This is their grammar (the
//! loader checks it); `crate::mcp_servers::launch` resolves them on a machine.

/// One placeholder as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placeholder {
    Node,
    Cache,
    Work,
    Harness,
    Npm { name: String, version: String },
}

/// Every `{…}` of `text` that looks like a placeholder (a lower-case word, `npm:` specs too),
/// with its byte range, parsed or with what is wrong with it.
pub fn placeholders(text: &str) -> Vec<(std::ops::Range<usize>, Result<Placeholder, String>)> {
    let pattern = regex::Regex::new(r"\{([a-z][a-z0-9-]*)(:[^{}]*)?\}").expect("valid pattern");
    pattern
        .captures_iter(text)
        .map(|c| {
            let whole = c.get(0).expect("match").range();
            let word = &c[1];
            let spec = c.get(2).map(|m| &m.as_str()[1..]);
            (whole, parse(word, spec))
        })
        .collect()
}

fn parse(word: &str, spec: Option<&str>) -> Result<Placeholder, String> {
    match (word, spec) {
        ("node", None) => Ok(Placeholder::Node),
        ("cache", None) => Ok(Placeholder::Cache),
        ("work", None) => Ok(Placeholder::Work),
        ("toolsearch-qa", None) => Ok(Placeholder::Harness),
        ("npm", Some(spec)) => npm_spec(spec),
        _ => Err(format!(
            "unknown placeholder {{{word}{}}}; known: {{node}}, {{npm:NAME@VERSION}}, {{cache}}, \
             {{work}}, {{toolsearch-qa}}",
            spec.map(|s| format!(":{s}")).unwrap_or_default()
        )),
    }
}

/// `NAME@VERSION` with an exact version (`@scope/name@1.2.3`): the pin is the point.
fn npm_spec(spec: &str) -> Result<Placeholder, String> {
    let exact = regex::Regex::new(
        r"^((?:@[a-z0-9._~-]+/)?[a-z0-9._~-]+)@([0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.-]+)?)$",
    )
    .expect("valid pattern");
    let c = exact.captures(spec).ok_or_else(|| {
        format!(
            "{{npm:{spec}}} is not NAME@VERSION with an exact version (e.g. \
             {{npm:@modelcontextprotocol/server-memory@2026.8.31}})"
        )
    })?;
    Ok(Placeholder::Npm {
        name: c[1].to_string(),
        version: c[2].to_string(),
    })
}

/// What is wrong with the placeholders of `text`, if anything (the loader's check).
pub fn problem(text: &str) -> Option<String> {
    placeholders(text).into_iter().find_map(|(_, p)| p.err())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_checked_by_name_and_npm_specs_must_pin() {
        assert_eq!(problem("{cache}/x {work} plain {braces} too"), Some(
            "unknown placeholder {braces}; known: {node}, {npm:NAME@VERSION}, {cache}, {work}, {toolsearch-qa}".into()
        ));
        assert_eq!(
            problem("{npm:@modelcontextprotocol/server-memory@2026.8.31}"),
            None
        );
        assert!(problem("{npm:@modelcontextprotocol/server-memory@latest}")
            .unwrap()
            .contains("exact version"));
        assert!(problem("{npm:server-memory}")
            .unwrap()
            .contains("exact version"));
        assert_eq!(
            problem(r#"{"json": 1}"#),
            None,
            "a JSON argument is no placeholder"
        );
    }
}
