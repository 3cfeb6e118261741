//! The catalogued tools whose words the harness knows, per target: what C4 looks for up front.
//!
//! A Tool Search lane must keep every catalogued tool's schema and full description out of what
//! it puts before the conversation, not only the fake plugin's. The harness knows the texts of
//! the fake tools (as the catalogue configures them), the MCP fixture tools, the real MCP servers'
//! tools as the harness listed them, the client tools the
//! turn sends, and — on the embedded gateway — the core tools of the scenario's profile. A real
//! product's own core tools are its words, not the harness's: they are not in this list. Texts
//! that are synthetic filler (a captured profile's stand-in prose) say nothing about a tool and
//! are left out, as are texts a tool the lane must declare shares.

use serde_json::Value;

use crate::catalog::fake::core_tools;
use crate::mcp_fixture::server::tool_texts;
use crate::profile::text::is_filler;
use crate::scenario::{client_tool_declaration, Scenario};
use crate::targets::TargetKind;

/// Shorter texts could be anyone's words.
const MIN_MARK: usize = 12;

/// Where a known tool comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Fake,
    Core,
    Mcp,
    Client,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Fake => "fake",
            Kind::Core => "core",
            Kind::Mcp => "MCP",
            Kind::Client => "client",
        }
    }
}

/// One catalogued tool with the words that give it away.
#[derive(Debug, Clone, PartialEq)]
pub struct KnownTool {
    pub kind: Kind,
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl KnownTool {
    fn new(kind: Kind, name: &str, description: &str, parameters: &Value) -> KnownTool {
        KnownTool {
            kind,
            name: name.to_string(),
            description: description.to_string(),
            parameters: parameters.clone(),
        }
    }

    /// Texts that would show its schema: the schema as compact JSON and every property
    /// description, each long enough to mean something.
    pub fn schema_marks(&self) -> Vec<String> {
        let mut marks = vec![self.parameters.to_string()];
        if let Some(properties) = self.parameters["properties"].as_object() {
            let described = properties
                .values()
                .filter_map(|p| p["description"].as_str());
            marks.extend(described.map(str::to_string));
        }
        marks.retain(|m| m.len() >= MIN_MARK && !is_filler(m));
        marks
    }

    /// The full description, when it is the tool's own words.
    pub fn description_mark(&self) -> Option<&str> {
        Some(self.description.as_str()).filter(|d| !d.is_empty() && !is_filler(d))
    }
}

/// Every catalogued tool of `scenario` on `target` whose texts the harness knows.
pub fn known_tools(scenario: &Scenario, target: TargetKind) -> Vec<KnownTool> {
    let catalog = &scenario.catalog;
    let mut known: Vec<KnownTool> = catalog
        .fake_tools()
        .iter()
        .map(|t| KnownTool::new(Kind::Fake, &t.name, &t.description, &t.parameters))
        .collect();
    if target == TargetKind::Embedded && catalog.core_tools {
        let core = match scenario.profile.captured() {
            Some(captured) => captured.core_entries(),
            None => core_tools(),
        };
        known.extend(
            core.iter()
                .map(|t| KnownTool::new(Kind::Core, &t.name, &t.description, &t.parameters)),
        );
    }
    for server in &catalog.mcp {
        for (name, description, schema) in tool_texts(server) {
            known.push(KnownTool::new(Kind::Mcp, &name, &description, &schema));
        }
    }
    for tool in catalog.listed.values().flatten() {
        known.push(KnownTool::new(
            Kind::Mcp,
            &tool.name,
            &tool.description,
            &tool.parameters,
        ));
    }
    for name in &catalog.client {
        let declaration = client_tool_declaration(name);
        let description = declaration["description"].as_str().unwrap_or_default();
        known.push(KnownTool::new(
            Kind::Client,
            name,
            description,
            &declaration["parameters"],
        ));
    }
    known
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_scenario;

    fn scenario(extra: &str) -> Scenario {
        let text = format!(
            "id='k'\ntitle='t'\nprompt='p'\ntarget_tool='fake_plugin_tool_02'\n\
             [catalog]\nplugin_id='p'\nsize=3\n{extra}\n[[lanes]]\nname='tools'\ntool_search={{ mode = 'tools' }}\n"
        );
        parse_scenario(&text, "k.toml").expect("a scenario")
    }

    #[test]
    fn every_kind_the_catalogue_has_is_known() {
        let s = scenario("mcp = ['qa']\nclient = ['pick_file']");
        let kinds = |target| {
            let mut counts = std::collections::BTreeMap::new();
            for t in known_tools(&s, target) {
                *counts.entry(t.kind.as_str()).or_insert(0) += 1;
            }
            counts.into_iter().collect::<Vec<_>>()
        };
        assert_eq!(
            kinds(TargetKind::Embedded),
            [("MCP", 1), ("client", 1), ("core", 7), ("fake", 3)]
        );
        // The product's own core tools are its words.
        assert_eq!(
            kinds(TargetKind::Openclaw),
            [("MCP", 1), ("client", 1), ("fake", 3)]
        );
        let client = known_tools(&s, TargetKind::Embedded)
            .into_iter()
            .find(|t| t.kind == Kind::Client)
            .unwrap();
        assert_eq!(
            client.schema_marks()[1..],
            ["Marker echoed by the caller.".to_string()]
        );
    }

    #[test]
    fn filler_is_no_mark() {
        let filler = crate::profile::text::filler(crate::profile::Size::of(
            "some forty characters of a description.",
        ));
        let t = KnownTool::new(Kind::Core, "x", &filler, &serde_json::json!({}));
        assert_eq!(t.description_mark(), None);
        assert!(t.schema_marks().is_empty());
    }
}
