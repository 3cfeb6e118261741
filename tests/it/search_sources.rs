//! Search and describe over a catalogue that mixes sources (spec §3–§5): trusted OpenClaw tools get
//! signatures, output hints and schema text in the index; MCP and client tools are untrusted.

use serde_json::json;
use toolsearch_qa::catalog::fake::{fake_plugin_tools, FIXTURE_PLUGIN_ID};
use toolsearch_qa::catalog::{Executor, ToolEntry, ToolSource};
use toolsearch_qa::engine::{SearchLimits, ToolCatalog};

fn schema() -> serde_json::Value {
    json!({ "type": "object", "properties": { "zanzibarDate": { "type": "string" } },
            "required": ["zanzibarDate"], "additionalProperties": false })
}

fn output() -> serde_json::Value {
    json!({ "type": "object", "properties": { "ok": { "type": "boolean" } },
            "required": ["ok"], "additionalProperties": false })
}

fn mixed() -> ToolCatalog {
    let mut entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 3);
    entries.push(
        ToolEntry::new(
            ToolSource::Openclaw,
            "core",
            "trusted_plan",
            "Plan a day.",
            schema(),
            Executor::CoreEcho,
        )
        .with_output_schema(output()),
    );
    entries.push(
        ToolEntry::new(
            ToolSource::Mcp,
            "calendar",
            "mcp_plan",
            "Plan a day.",
            schema(),
            Executor::Mcp {
                server: "calendar".into(),
            },
        )
        .with_output_schema(output()),
    );
    entries.push(ToolEntry::new(
        ToolSource::Client,
        "client",
        "client_plan",
        "Plan a day.",
        schema(),
        Executor::Client,
    ));
    ToolCatalog::new(entries, SearchLimits::default())
}

#[test]
fn only_trusted_tools_get_signatures_and_output_hints() {
    let catalog = mixed();
    let items = catalog.search("plan a day", 3);
    let mut seen: Vec<(&str, &str, Option<&str>)> = items
        .iter()
        .map(|i| (i.id.as_str(), i.input.as_str(), i.output.as_deref()))
        .collect();
    seen.sort();
    assert_eq!(
        seen,
        [
            ("client:client:client_plan", "unknown", None),
            ("mcp:calendar:mcp_plan", "unknown", None),
            (
                "openclaw:core:trusted_plan",
                "{ zanzibarDate: string }",
                Some("{ ok: boolean }")
            ),
        ]
    );
}

#[test]
fn untrusted_schemas_are_not_indexed() {
    let catalog = mixed();
    let ids: Vec<String> = catalog
        .search("zanzibar date", 5)
        .into_iter()
        .map(|i| i.id)
        .collect();
    assert_eq!(ids, ["openclaw:core:trusted_plan"]);
}

#[test]
fn describe_keeps_untrusted_parameters_but_never_an_output_schema() {
    let catalog = mixed();
    let mcp = catalog
        .describe("mcp_plan", "hint")
        .map(|d| (d.parameters, d.output_schema));
    assert_eq!(mcp, Ok((schema(), None)));
    let trusted = catalog
        .describe("trusted_plan", "hint")
        .map(|d| d.output_schema);
    assert_eq!(trusted, Ok(Some(output())));
    let json = catalog
        .describe("client_plan", "hint")
        .map(|d| serde_json::to_value(d).unwrap_or_default());
    assert_eq!(
        json.map(|j| (j["source"].clone(), j["input"].clone())),
        Ok((json!("client"), json!("unknown")))
    );
}
