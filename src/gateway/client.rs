//! Client tools (spec §3, as OpenResponses does it): tools the caller sent with its request are
//! never run by the gateway. When the model calls one — by name when it is visible, through
//! `tool_call` with its id or name, or from `tool_search_code`'s bridge (see
//! [`super::execute`]) — the turn ends and the `function_call` item goes back to the caller, who
//! runs the tool and answers with a `function_call_output` for its `call_id`; the gateway then
//! resumes the same turn (see [`super::conversation`]).
//!
//! The `call_id` the caller gets is the model's own call id (by name, or the `tool_call` that
//! reached the tool) or, from code, the derived bridged id `tool_search_code:<parent>:<name>:<n>`.

use serde_json::Value;

use crate::catalog::{Executor, ToolEntry};
use crate::engine::surface::ControlRole;
use crate::engine::Surface;
use crate::protocol::response_object::ResponseItem;

/// A model call that hands a client tool back to the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct Handoff {
    pub entry: ToolEntry,
    /// The `function_call` item for the caller's response.
    pub item: ResponseItem,
    /// The client tool's arguments as JSON text.
    pub arguments: String,
    /// Whether the model reached the tool through `tool_call`.
    pub via_tool_call: bool,
}

/// The hand-off for this call, when it targets a client tool of the run.
pub fn client_handoff(
    surface: &Surface,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Option<Handoff> {
    if let Some(entry) = visible_client(surface, name) {
        return Some(handoff(entry, call_id, arguments.to_string(), false));
    }
    if surface.role(name) != Some(ControlRole::Call) {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).ok()?;
    let id = args.get("id").and_then(Value::as_str)?;
    let entry = surface.run.as_ref()?.catalog().lookup(id).ok()?;
    if entry.executor != Executor::Client || !surface.eligible.iter().any(|e| e.id == entry.id) {
        return None;
    }
    let target_args = match args.get("args") {
        None | Some(Value::Null) => "{}".to_string(),
        Some(v) => v.to_string(),
    };
    Some(handoff(entry, call_id, target_args, true))
}

fn visible_client<'s>(surface: &'s Surface, name: &str) -> Option<&'s ToolEntry> {
    surface
        .visible
        .iter()
        .find(|t| t.name == name && t.executor == Executor::Client)
}

fn handoff(entry: &ToolEntry, call_id: &str, arguments: String, via_tool_call: bool) -> Handoff {
    Handoff {
        entry: entry.clone(),
        item: ResponseItem::function_call(call_id, &entry.name, arguments.clone()),
        arguments,
        via_tool_call,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{ToolPolicy, ToolSource};
    use crate::config::ToolSearchMode;
    use crate::engine::{SearchLimits, SurfacePlan};
    use serde_json::json;

    fn surface(mode: ToolSearchMode) -> Surface {
        let mut tools = crate::catalog::fake::core_tools();
        tools.push(ToolEntry::new(
            ToolSource::Client,
            "client",
            "pick_file",
            "Let the user pick a file.",
            json!({"type": "object"}),
            Executor::Client,
        ));
        Surface::plan(SurfacePlan {
            requested: mode,
            tools,
            policy: &ToolPolicy::default(),
            limits: SearchLimits::default(),
            code_runtime: Ok(()),
            embedder: None,
            bridge: std::sync::Arc::new(crate::engine::surface::Bridge::spec()),
        })
    }

    #[test]
    fn tool_call_to_a_client_tool_is_handed_back() {
        let s = surface(ToolSearchMode::Tools);
        let args = r#"{"id": "client:client:pick_file", "args": {"kind": "pdf"}}"#;
        let handoff = client_handoff(&s, "call_7", "tool_call", args).unwrap();
        assert!(handoff.via_tool_call);
        let mut item = serde_json::to_value(&handoff.item).unwrap();
        assert!(item["id"].as_str().unwrap().starts_with("fc_"));
        item["id"] = json!("fc");
        assert_eq!(
            item,
            json!({"type": "function_call", "id": "fc", "call_id": "call_7",
                   "name": "pick_file", "arguments": "{\"kind\":\"pdf\"}", "status": "completed"})
        );
        // Hidden in tools mode: not callable by name.
        assert_eq!(client_handoff(&s, "c", "pick_file", "{}"), None);
        // A gateway tool through tool_call is not a hand-off.
        assert_eq!(
            client_handoff(&s, "c", "tool_call", r#"{"id": "exec"}"#),
            None
        );
    }

    #[test]
    fn visible_client_tool_in_directory_mode() {
        let s = surface(ToolSearchMode::Directory);
        let handoff = client_handoff(&s, "call_1", "pick_file", "{\"a\":1}");
        assert_eq!(
            handoff.map(|h| (h.arguments, h.via_tool_call)),
            Some(("{\"a\":1}".to_string(), false))
        );
    }
}
