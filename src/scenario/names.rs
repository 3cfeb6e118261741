//! The tool names a scenario's catalogue holds, known before any gateway starts, so a name the
//! file gets wrong (`fake_plugin_tool_900` in a catalogue of 1,000, whose names are zero-padded
//! to `fake_plugin_tool_0900`) is a load error with the closest names, not a run that fails.

use crate::catalog::fake::{core_tools, fake_tool_name};
use crate::catalog::policy::matches;
use crate::catalog::{entry_id, ToolSource};
use crate::config::{Bridge, ControlRole};

use super::CatalogSpec;

/// Every tool of the catalogue with its source, in catalogue order: the fake plugin's, the core
/// tools (when on), the MCP servers' (the fixtures', then the real servers' once listed), the
/// client tools.
pub fn catalogue(catalog: &CatalogSpec) -> Vec<(String, ToolSource)> {
    let mut names: Vec<(String, ToolSource)> = (1..=catalog.size)
        .map(|i| (fake_tool_name(i, catalog.size), ToolSource::Openclaw))
        .collect();
    if catalog.core_tools {
        names.extend(
            core_tools()
                .into_iter()
                .map(|t| (t.name, ToolSource::Openclaw)),
        );
    }
    let mcp = catalog.mcp_tool_names().into_iter();
    names.extend(mcp.map(|(_, t)| (t, ToolSource::Mcp)));
    names.extend(
        catalog
            .client
            .iter()
            .map(|c| (c.clone(), ToolSource::Client)),
    );
    names
}

/// Up to three names of `known` nearest to `name` (the smallest edit distance found, ties in
/// catalogue order), only when close enough to be a slip.
pub fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let most = (name.chars().count() / 3).max(2);
    let scored: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (strsim::levenshtein(name, k), k))
        .filter(|(d, _)| *d <= most)
        .collect();
    let Some(best) = scored.iter().map(|(d, _)| *d).min() else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|(d, _)| *d == best)
        .take(3)
        .map(|(_, k)| k)
        .collect()
}

/// `; did you mean a, b?` or nothing.
pub fn suggestion(closest: &[&str]) -> String {
    match closest {
        [] => String::new(),
        names => format!("; did you mean {}?", names.join(", ")),
    }
}

/// Why `name` is not a tool of `source` in this catalogue, with the closest names. An MCP name
/// of a catalogue whose real servers are not listed yet is checked when the run lists them.
pub fn not_in_catalogue(name: &str, source: ToolSource, catalog: &CatalogSpec) -> Option<String> {
    let all = catalogue(catalog);
    if all.iter().any(|(n, s)| n == name && *s == source)
        || (source == ToolSource::Mcp && catalog.lists_later())
    {
        return None;
    }
    if let Some((_, other)) = all.iter().find(|(n, _)| n == name) {
        return Some(format!(
            "{name:?} is a tool of source {}, not {}; set target_source = {:?}",
            other.as_str(),
            source.as_str(),
            other.as_str()
        ));
    }
    let same_source = all
        .iter()
        .filter(|(_, s)| *s == source)
        .map(|(n, _)| n.as_str());
    Some(format!(
        "{name:?} is not a{} tool of this catalogue ({}){}",
        match source {
            ToolSource::Openclaw => "n openclaw",
            ToolSource::Mcp => "n MCP",
            ToolSource::Client => " client",
        },
        summary(catalog, source),
        suggestion(&closest(name, same_source))
    ))
}

/// Why `name` is not a tool of this catalogue at all, with the closest names (not known yet
/// while real servers are unlisted: any name may be theirs).
pub fn unknown_tool(name: &str, catalog: &CatalogSpec) -> Option<String> {
    let all = catalogue(catalog);
    if all.iter().any(|(n, _)| n == name) || catalog.lists_later() {
        return None;
    }
    Some(format!(
        "{name:?} is not a tool of this catalogue{}",
        suggestion(&closest(name, all.iter().map(|(n, _)| n.as_str())))
    ))
}

/// The bridge tools a surface with these names may declare (the code tool only where it has one).
fn bridge_names(bridge: &Bridge) -> Vec<&str> {
    [
        ControlRole::Search,
        ControlRole::Describe,
        ControlRole::Call,
        ControlRole::Code,
    ]
    .into_iter()
    .filter_map(|role| bridge.name(role))
    .collect()
}

/// Why a script step cannot call `name`, if it cannot: a model calls what some lane declares —
/// a tool of the catalogue (a denied one too: calling it is how F1 is checked) or a bridge tool.
pub fn unknown_script_tool(name: &str, catalog: &CatalogSpec, bridge: &Bridge) -> Option<String> {
    let all = catalogue(catalog);
    let bridges = bridge_names(bridge);
    if all.iter().any(|(n, _)| n == name) || bridges.contains(&name) || catalog.lists_later() {
        return None;
    }
    let known = all
        .iter()
        .map(|(n, _)| n.as_str())
        .chain(bridges.iter().copied());
    Some(format!(
        "{name:?} is neither a tool of this catalogue nor a bridge tool ({}), so no lane \
         declares it{}",
        bridges.join(", "),
        suggestion(&closest(name, known))
    ))
}

/// Every tool a policy pattern can name, as `(name, id)`: the catalogue's tools and the
/// bridge tools (policy treats them as core tools), with the ids the gateway gives them.
fn policy_targets(catalog: &CatalogSpec, bridge: &Bridge) -> Vec<(String, String)> {
    let openclaw = |source_name: &str, name: String| {
        let id = entry_id(ToolSource::Openclaw, source_name, &name);
        (name, id)
    };
    let mut targets: Vec<(String, String)> = (1..=catalog.size)
        .map(|i| openclaw(&catalog.plugin_id, fake_tool_name(i, catalog.size)))
        .collect();
    let core = catalog.core_tools.then(core_tools).unwrap_or_default();
    targets.extend(core.into_iter().map(|t| openclaw("core", t.name)));
    targets.extend(
        bridge_names(bridge)
            .into_iter()
            .map(|b| openclaw("core", b.to_string())),
    );
    targets.extend(catalog.mcp_tool_names().into_iter().map(|(server, t)| {
        let id = entry_id(ToolSource::Mcp, &server, &t);
        (t, id)
    }));
    targets.extend(catalog.client.iter().map(|c| {
        let id = entry_id(ToolSource::Client, "client", c);
        (c.clone(), id)
    }));
    targets
}

/// Why a deny `pattern` is a mistake, if it is: it matches no tool of the catalogue and no
/// bridge tool, by name or by id (`openclaw:<plugin_id>:<name>`, `openclaw:core:<name>`,
/// `mcp:<server>:<name>`, `client:client:<name>`), so a claim about a denied tool would pass
/// with nothing denied.
pub fn unmatched_deny(pattern: &str, catalog: &CatalogSpec, bridge: &Bridge) -> Option<String> {
    let targets = policy_targets(catalog, bridge);
    if catalog.lists_later() {
        return None;
    }
    if targets
        .iter()
        .any(|(name, id)| matches(pattern, name) || matches(pattern, id))
    {
        return None;
    }
    Some(format!(
        "{pattern:?} matches no tool of this catalogue (by name or id), so it denies nothing{}",
        suggestion(&closest(pattern, targets.iter().map(|(n, _)| n.as_str())))
    ))
}

/// What the catalogue holds of one source, in a few words.
fn summary(catalog: &CatalogSpec, source: ToolSource) -> String {
    match source {
        ToolSource::Openclaw => {
            let fake = format!(
                "fake tools {} … {}",
                fake_tool_name(1, catalog.size),
                fake_tool_name(catalog.size, catalog.size)
            );
            match catalog.core_tools {
                true => format!("{fake} and the core tools"),
                false => fake,
            }
        }
        ToolSource::Mcp if catalog.mcp_server_names().is_empty() => {
            "no MCP server in catalog.mcp or catalog.mcp_servers".into()
        }
        ToolSource::Mcp => format!(
            "the tools of MCP servers {}",
            catalog.mcp_server_names().join(", ")
        ),
        ToolSource::Client if catalog.client.is_empty() => "catalog.client is empty".into(),
        ToolSource::Client => format!("catalog.client: {}", catalog.client.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(size: usize) -> CatalogSpec {
        toml::from_str(&format!("plugin_id = \"p\"\nsize = {size}\nmcp = [\"qa\"]")).unwrap()
    }

    #[test]
    fn an_unpadded_fake_name_suggests_the_padded_one() {
        let message =
            not_in_catalogue("fake_plugin_tool_900", ToolSource::Openclaw, &catalog(1000)).unwrap();
        assert!(
            message.starts_with(
                "\"fake_plugin_tool_900\" is not an openclaw tool of this catalogue (fake tools \
                 fake_plugin_tool_0001 … fake_plugin_tool_1000 and the core tools); did you mean \
                 fake_plugin_tool_0900?"
            ),
            "{message}"
        );
    }

    #[test]
    fn a_tool_of_another_source_says_which_source() {
        assert_eq!(
            not_in_catalogue("mcp_qa_echo", ToolSource::Openclaw, &catalog(3)).unwrap(),
            "\"mcp_qa_echo\" is a tool of source mcp, not openclaw; set target_source = \"mcp\""
        );
        assert_eq!(
            not_in_catalogue("mcp_qa_echo", ToolSource::Mcp, &catalog(3)),
            None
        );
        assert_eq!(
            not_in_catalogue("exec", ToolSource::Openclaw, &catalog(3)),
            None
        );
    }

    #[test]
    fn far_names_are_not_suggested() {
        assert_eq!(
            unknown_tool("send_invoice", &catalog(3)).unwrap(),
            "\"send_invoice\" is not a tool of this catalogue"
        );
    }
}
