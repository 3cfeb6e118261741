//! Client tools in scenarios, and claim H1: a client tool the model calls is handed back to the
//! caller, never run by the gateway.
//!
//! A scenario's `catalog.client` names become tools of the turn request (as a caller of
//! `/v1/responses` sends them). When the target is one of them, the turn must end with exactly one
//! `function_call` item for it — with the model's arguments — and nothing may run it: no tool
//! result for it, no later provider request. That is what OpenResponses callers rely on.

use serde_json::{json, Value};

use super::claims::{check, Check, Observed};
use super::scenario::Scenario;

/// The declaration a scenario's client tool `name` is sent with in the turn request.
pub fn client_tool_declaration(name: &str) -> Value {
    json!({
        "type": "function",
        "name": name,
        "description": format!("Client tool {name}: the caller runs it and sends the result back."),
        "parameters": {
            "type": "object",
            "properties": { "marker": { "type": "string", "description": "Marker echoed by the caller." } },
            "required": ["marker"],
            "additionalProperties": false,
        },
    })
}

/// The model's arguments for the target call, as the provider journal recorded them: the direct
/// call's arguments, or `args` of the `tool_call` that reached it.
fn planned_arguments(o: &Observed<'_>, target: &str) -> Option<Value> {
    let call = o.observation.session.iter().find_map(|r| {
        let call = r.get("toolCall").filter(|_| r["type"] == "message")?;
        let name = call.get("name")?.as_str()?;
        let arguments: Value = serde_json::from_str(call.get("arguments")?.as_str()?).ok()?;
        match name {
            n if n == target => Some(arguments),
            crate::engine::surface::TOOL_CALL => arguments.get("args").cloned(),
            _ => None,
        }
    })?;
    Some(call)
}

/// Claim H1's checks on one lane.
pub fn h1_handed_back(scenario: &Scenario, o: &Observed<'_>) -> Vec<Check> {
    let target = scenario.target_tool.as_str();
    let items: Vec<&Value> = o
        .observation
        .response
        .get("output")
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter(|i| i["type"] == "function_call")
                .collect()
        })
        .unwrap_or_default();
    let mut checks = vec![check(
        items.len() == 1 && items[0]["name"] == target,
        format!("the answer carries one function_call item for {target}"),
        format!("{:?}", items.iter().map(|i| &i["name"]).collect::<Vec<_>>()),
    )];
    if let Some(item) = items.first() {
        let planned = planned_arguments(o, target);
        let sent: Option<Value> = item["arguments"]
            .as_str()
            .and_then(|a| serde_json::from_str(a).ok());
        checks.push(check(
            planned.is_some() && sent == planned,
            format!(
                "its arguments are the model's {}",
                planned.map_or("(no call seen in the session log)".into(), |p| p
                    .to_string())
            ),
            item["arguments"].to_string(),
        ));
        checks.push(check(
            item["status"] == "completed"
                && item["call_id"].as_str().is_some_and(|c| !c.is_empty()),
            "it is completed and has a call_id",
            format!("status {} call_id {}", item["status"], item["call_id"]),
        ));
    }
    let handoffs: Vec<&Value> = o
        .observation
        .session
        .iter()
        .filter(|r| r["type"] == "clientToolCall" && r["toolName"] == target)
        .collect();
    checks.push(check(
        handoffs.len() == 1 && handoffs[0]["source"] == "client",
        "the session log has one clientToolCall record with source client",
        format!("{handoffs:?}"),
    ));
    let ran = o
        .observation
        .session
        .iter()
        .any(|r| r["type"] == "toolResult" && r["toolName"] == target);
    checks.push(check(
        !ran,
        format!("no tool result for {target}"),
        format!("ran: {ran}"),
    ));
    if let Some(call_id) = items.first().and_then(|i| i["call_id"].as_str()) {
        let answered = o.observation.requests.iter().any(|r| {
            r.body["input"].as_array().is_some_and(|input| {
                input
                    .iter()
                    .any(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
            })
        });
        checks.push(check(
            !answered,
            "the turn ended at the hand-off: no provider request carries a result for it",
            format!("a request answers call {call_id}: {answered}"),
        ));
    }
    checks
}
