//! The harness's own `tools/list` of every real server a run's scenarios name, before any
//! gateway starts: what C3 compares the gateway's declarations with, what C4 looks for up front,
//! and where a scenario's MCP target must be. Each server is started once per run with the same
//! client the embedded gateway uses ([`McpHub`]) in a scratch directory, listed, and stopped.
//!
//! A server that does not start, exits, answers something other than MCP, or lists a tool whose
//! input schema is not a JSON Schema object is an error of the run that names the server and what
//! it answered (exit 3); the hub kills every server it started when it goes, so none is left.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::launch::{launch, Machine};
use crate::catalog::ToolEntry;
use crate::catalog::ToolSource;
use crate::error::Error;
use crate::gateway::mcp::McpHub;
use crate::scenario::names::{closest, suggestion};
use crate::scenario::{McpServerSpec, Scenario};

/// Lists the real servers of every scenario and keeps their tools in the scenario's catalogue
/// ([`crate::scenario::CatalogSpec::listed`]); a server named alike by several scenarios is
/// listed once, a scenario's new servers all at once. Then every scenario's MCP target must be
/// one of its servers' tools (exit 2).
pub async fn list_catalogues(scenarios: &mut [Scenario]) -> Result<(), Error> {
    if scenarios.iter().all(|s| s.catalog.mcp_servers.is_empty()) {
        return Ok(());
    }
    let scratch = crate::error::temp_dir("toolsearch-qa-mcp-list-")?;
    let machine = Machine::here(scratch.path())?;
    let mut seen: Vec<(McpServerSpec, Vec<ToolEntry>)> = Vec::new();
    for scenario in scenarios.iter_mut() {
        if let Some(missing) = missing(&scenario.catalog.mcp_servers, &machine)? {
            scenario.catalog.unavailable = Some(missing);
            continue;
        }
        let new: Vec<&McpServerSpec> = scenario
            .catalog
            .mcp_servers
            .iter()
            .filter(|spec| !seen.iter().any(|(s, _)| s == *spec))
            .collect();
        let mut fresh = list_servers(&new, &machine).await?;
        for spec in new {
            let tools = fresh.remove(&spec.name).unwrap_or_default();
            seen.push((spec.clone(), tools));
        }
        let listed = scenario.catalog.mcp_servers.iter().map(|spec| {
            let tools = seen.iter().find(|(s, _)| s == spec).map(|(_, t)| t.clone());
            (spec.name.clone(), tools.unwrap_or_default())
        });
        scenario.catalog.listed = Arc::new(listed.collect());
        check_listed(scenario)?;
    }
    Ok(())
}

/// Environment variable that makes a missing install of a catalogue's servers an error (exit 3)
/// instead of lanes reported not applicable: CI sets it, so the gate never passes without them.
pub const REQUIRE_ENV: &str = "TOOLSEARCH_QA_REQUIRE_MCP_SERVERS";

/// Why `specs` cannot start on this machine, when an install is missing: `Ok(Some(reason))`,
/// or the error itself when [`REQUIRE_ENV`] is `1`.
fn missing(specs: &[McpServerSpec], machine: &Machine) -> Result<Option<String>, Error> {
    let Some(reason) = specs
        .iter()
        .find_map(|spec| super::launch::missing_install(spec, machine))
    else {
        return Ok(None);
    };
    match std::env::var(REQUIRE_ENV).is_ok_and(|v| v == "1") {
        true => Err(Error::Machine(format!("{reason} ({REQUIRE_ENV}=1)"))),
        false => Ok(Some(format!("not installed here: {reason}"))),
    }
}

/// Starts `specs` on `machine` together, lists their tools and stops them: each server's tools,
/// by name, every input schema checked.
pub async fn list_servers(
    specs: &[&McpServerSpec],
    machine: &Machine,
) -> Result<BTreeMap<String, Vec<ToolEntry>>, Error> {
    if specs.is_empty() {
        return Ok(BTreeMap::new());
    }
    let configs = specs
        .iter()
        .map(|spec| Ok((spec.name.clone(), launch(spec, machine, &[])?)))
        .collect::<Result<BTreeMap<_, _>, Error>>()?;
    let hub = McpHub::connect(&configs)
        .await
        .map_err(|e| Error::Machine(e.to_string()))?;
    let entries = hub.entries();
    hub.shutdown();
    let mut by_server: BTreeMap<String, Vec<ToolEntry>> = BTreeMap::new();
    for tool in entries {
        if let Some(problem) = schema_problem(&tool.parameters) {
            return Err(Error::Machine(format!(
                "MCP server {}: tools/list answered an invalid input schema for tool {:?}: {problem}",
                tool.source_name, tool.name
            )));
        }
        by_server
            .entry(tool.source_name.clone())
            .or_default()
            .push(tool);
    }
    if let Some(empty) = specs.iter().find(|s| !by_server.contains_key(&s.name)) {
        return Err(Error::Machine(format!(
            "MCP server {}: tools/list answered no tools",
            empty.name
        )));
    }
    Ok(by_server)
}

/// What makes `schema` no tool input schema: not a JSON Schema (its draft's meta-schema says
/// so), or not `"type": "object"` (MCP asks for an object schema).
pub fn schema_problem(schema: &Value) -> Option<String> {
    if let Err(e) = jsonschema::meta::validate(schema) {
        return Some(format!(
            "{e} at {}",
            pointer(&e.instance_path().to_string())
        ));
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => None,
        other => Some(format!(
            "its type is {}, not \"object\"",
            other.map_or("unset".to_string(), Value::to_string)
        )),
    }
}

fn pointer(path: &str) -> String {
    match path {
        "" => "the root".to_string(),
        p => p.to_string(),
    }
}

/// A scenario's target of source `mcp` is a tool of its servers, and no two servers list a
/// tool of the same name (the model could not tell them apart).
fn check_listed(scenario: &Scenario) -> Result<(), Error> {
    let tools = scenario.catalog.mcp_tool_names();
    for (i, (server, tool)) in tools.iter().enumerate() {
        if let Some((other, _)) = tools[..i].iter().find(|(_, t)| t == tool) {
            return Err(Error::Usage(format!(
                "scenario {} ({}): MCP servers {other} and {server} both list a tool {tool:?}",
                scenario.id, scenario.origin
            )));
        }
    }
    if scenario.target_source != ToolSource::Mcp
        || tools.iter().any(|(_, t)| *t == scenario.target_tool)
    {
        return Ok(());
    }
    Err(Error::Usage(format!(
        "scenario {} ({}): target_tool {:?} is not a tool of its MCP servers {} (they list {} \
         tools){}",
        scenario.id,
        scenario.origin,
        scenario.target_tool,
        scenario.catalog.mcp_server_names().join(", "),
        tools.len(),
        suggestion(&closest(
            &scenario.target_tool,
            tools.iter().map(|(_, t)| t.as_str())
        ))
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_schema_must_be_a_json_schema_object() {
        let ok = json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"m": {"type": "string"}}, "required": ["m"]});
        assert_eq!(schema_problem(&ok), None);
        assert_eq!(
            schema_problem(&json!({"type": "object", "properties": {"m": {"type": "strin"}}})),
            Some("\"strin\" is not valid under any of the schemas listed in the 'anyOf' keyword at /properties/m/type".into())
        );
        assert_eq!(
            schema_problem(&json!({"type": "array"})),
            Some("its type is \"array\", not \"object\"".into())
        );
        assert_eq!(
            schema_problem(&json!({})),
            Some("its type is unset, not \"object\"".into())
        );
    }
}
