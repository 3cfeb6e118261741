//! Claim H1: a client tool the model calls is handed back to the caller, never run by the
//! gateway.
//!
//! A scenario's `catalog.client` names become tools of the turn request (as a caller of
//! `/v1/responses` sends them, see [`crate::scenario::client_tool_declaration`]). When the target is one of them,
//! the turn must end with exactly one `function_call` item for it — with the model's arguments —
//! and nothing may run it: no tool result for it, no later provider request. That is what
//! OpenResponses callers rely on.

use serde_json::Value;

use super::{check, Check, ClaimInput};
use crate::config::Bridge;
use crate::drive::observation::Observed;
use crate::protocol::{SessionRecord, ToolResultRecord};

/// The model's arguments for the target call, as the session log recorded them: the direct
/// call's arguments, or `args` of the `tool_call` that reached it.
fn planned_arguments(o: &Observed<'_>, target: &str, bridge: &Bridge) -> Option<Value> {
    o.records()
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter_map(|m| m.tool_call.as_ref())
        .find_map(|call| {
            let arguments: Value = serde_json::from_str(&call.arguments).ok()?;
            match call.name.as_str() {
                n if n == target => Some(arguments),
                n if n == bridge.call => arguments.get("args").cloned(),
                _ => None,
            }
        })
}

/// Claim H1's checks on one lane.
pub fn h1_handed_back(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let target = input.scenario.target_tool.as_str();
    let items: Vec<_> = o.observation.response.function_calls().collect();
    let names: Vec<&str> = items.iter().filter_map(|i| i.name.as_deref()).collect();
    let mut checks = vec![check(
        "one hand-off item",
        items.len() == 1 && items[0].name.as_deref() == Some(target),
        format!("the answer carries one function_call item for {target}"),
        format!("{names:?}"),
    )];
    if let Some(item) = items.first() {
        let planned = planned_arguments(o, target, &o.bridge);
        let sent: Option<Value> = item
            .arguments
            .as_deref()
            .and_then(|a| serde_json::from_str(a).ok());
        checks.push(check(
            "model's arguments",
            planned.is_some() && sent == planned,
            format!(
                "its arguments are the model's {}",
                planned.map_or("(no call seen in the session log)".into(), |p| p
                    .to_string())
            ),
            item.arguments.clone().unwrap_or_else(|| "none".into()),
        ));
        checks.push(check(
            "completed with call_id",
            item.status.as_deref() == Some("completed")
                && item.call_id.as_deref().is_some_and(|c| !c.is_empty()),
            "it is completed and has a call_id",
            // The call id is fresh per run: say whether it is there, not what it is.
            format!(
                "status {} call_id {}",
                item.status.as_deref().unwrap_or("none"),
                match item.call_id.as_deref() {
                    Some(c) if !c.is_empty() => "present",
                    Some(_) => "empty",
                    None => "none",
                }
            ),
        ));
    }
    let handoffs: Vec<_> = o
        .records()
        .iter()
        .filter_map(|r| match r {
            SessionRecord::ClientToolCall(c) if c.tool_name == target => Some(c),
            _ => None,
        })
        .collect();
    checks.push(check(
        "hand-off logged",
        handoffs.len() == 1 && handoffs[0].source == crate::catalog::ToolSource::Client,
        "the session log has one clientToolCall record with source client",
        format!("{handoffs:?}"),
    ));
    let ran = o
        .tool_results()
        .any(|r: &ToolResultRecord| r.tool_name() == target);
    checks.push(check(
        "not run",
        !ran,
        format!("no tool result for {target}"),
        format!("ran: {ran}"),
    ));
    if let Some(call_id) = items.first().and_then(|i| i.call_id.as_deref()) {
        let answered = o.observation.requests.iter().any(|r| {
            r.body["input"].as_array().is_some_and(|input| {
                input
                    .iter()
                    .any(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
            })
        });
        checks.push(check(
            "turn ended",
            !answered,
            "the turn ended at the hand-off: no provider request carries a result for it",
            format!("a request answers call {call_id}: {answered}"),
        ));
    }
    checks
}
