//! The embedded gateway's non-model views, in the product's shapes ([`crate::protocol::invoke`]):
//! `POST /tools/invoke` runs one tool with no model and no session log, and `POST
//! /tools/effective` (the product serves this only as its `tools.effective` gateway method)
//! lists a session's tools grouped by where they come from.
//!
//! Both are per session: an invocation plans a fresh run of the gateway's surface (no search or
//! withdrawal of another session's turn reaches it), and `tools/effective` answers only for a
//! session the agent has (its session log exists), as the product answers only for a stored
//! session. Statuses follow the product: 400 `invalid_request` (no name, a bad body, an unknown
//! agent), 404 `not_found` (a tool the session does not have), 400 `tool_error` (arguments the
//! tool refuses), 403 `tool_call_blocked` (policy, approval, hook), 500 `tool_error` (it failed).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

use super::agent::planned_surface;
use super::dispatch::dispatch;
use super::execute::GatewayRunner;
use super::faults::Fault;
use super::http::{read_body, ApiError};
use super::GatewayState;
use crate::catalog::{ToolEntry, ToolSource};
use crate::engine::{EngineError, Surface};
use crate::protocol::invoke::{
    EffectiveGroup, EffectiveRequest, EffectiveTool, EffectiveTools, InvokeAnswer,
};
use crate::protocol::session::{session_id_for_key, session_log_path};

/// The plugin id the product gives every MCP tool in `tools.effective`.
pub const MCP_PLUGIN_ID: &str = "bundle-mcp";

/// `POST /tools/invoke`.
pub async fn tools_invoke(
    State(state): State<Arc<GatewayState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    match read_body(&headers, body).await {
        Ok(bytes) => {
            let (status, answer) = invoke(&state, &bytes).await;
            (status, Json(answer)).into_response()
        }
        Err(error) => error.into_response(),
    }
}

fn invalid(message: impl Into<String>) -> (StatusCode, InvokeAnswer) {
    (
        StatusCode::BAD_REQUEST,
        InvokeAnswer::failure("invalid_request", message),
    )
}

/// One invocation: parse, find the tool on a fresh run of the surface, run it.
async fn invoke(state: &GatewayState, body: &[u8]) -> (StatusCode, InvokeAnswer) {
    let fields = match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return invalid("body must be a JSON object"),
        Err(e) => return invalid(format!("body is not valid JSON: {e}")),
    };
    let text = |key: &str| fields.get(key).and_then(Value::as_str).map(str::trim);
    let Some(name) = text("name").or(text("tool")).filter(|n| !n.is_empty()) else {
        return invalid("tools.invoke requires name");
    };
    let agent = text("agentId").unwrap_or("main");
    if !state.knows_agent(agent) {
        return invalid(format!("unknown agent id {agent:?}"));
    }
    let args = match fields.get("args") {
        Some(Value::Object(args)) => Value::Object(args.clone()),
        _ => Value::Object(Map::new()),
    };
    let surface = planned_surface(state, Vec::new());
    let runner = GatewayRunner::new(state.policy.clone(), surface.eligible.clone())
        .with_fault(state.fault)
        .with_guards(state.guards())
        .with_mcp(state.mcp.clone());
    // The product derives an invocation's call id from the surface and the caller's origin.
    let call_id = format!("http-direct-operator-{name}");
    if surface.role(name).is_some() && surface.run.is_some() {
        return control(state, &surface, &runner, &call_id, name, &args).await;
    }
    let Some(entry) = surface.eligible.iter().find(|t| t.name == name) else {
        return (
            StatusCode::NOT_FOUND,
            InvokeAnswer::failure("not_found", format!("Tool not available: {name}")),
        );
    };
    let checked = match &surface.run {
        Some(run) => run.catalog().validate_input(entry, &args),
        None => Ok(()),
    };
    let ran = match checked {
        Ok(()) => runner.execute(entry, &args).await,
        Err(e) => Err(e),
    };
    match ran {
        Ok(outcome) => (StatusCode::OK, InvokeAnswer::success(outcome.result)),
        Err(e) => engine_failure(&e),
    }
}

/// A Tool Search control run directly: its text as the product's tool result
/// (`{content: [{type: "text", text}], details}`, the details being the text's JSON).
async fn control(
    state: &GatewayState,
    surface: &Surface,
    runner: &GatewayRunner,
    call_id: &str,
    name: &str,
    args: &Value,
) -> (StatusCode, InvokeAnswer) {
    let arguments = args.to_string();
    let code = state.code.as_ref();
    let cells = state.cells.as_ref();
    let done = dispatch(surface, runner, code, cells, call_id, name, &arguments).await;
    let details: Value = serde_json::from_str(&done.output).unwrap_or(Value::Null);
    if done.is_error {
        let message = details["error"].as_str().unwrap_or(&done.output);
        return (
            StatusCode::BAD_REQUEST,
            InvokeAnswer::failure("tool_error", message),
        );
    }
    let details = seeded_groups(state, details);
    let result =
        json!({ "content": [{ "type": "text", "text": done.output }], "details": details });
    (StatusCode::OK, InvokeAnswer::success(result))
}

/// The [`Fault::InvokeBatchLosesGroup`] seed: a batch search run over `/tools/invoke` answers
/// only its first group.
fn seeded_groups(state: &GatewayState, mut details: Value) -> Value {
    if state.seeded(Fault::InvokeBatchLosesGroup) {
        if let Some(groups) = details["results"].as_array_mut() {
            groups.truncate(1);
        }
    }
    details
}

/// An engine error as the product's status and error type.
fn engine_failure(error: &EngineError) -> (StatusCode, InvokeAnswer) {
    let (status, kind) = match error {
        EngineError::Blocked { .. } => (StatusCode::FORBIDDEN, "tool_call_blocked"),
        EngineError::ExecutionFailed { .. } | EngineError::InvalidOutput { .. } => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                InvokeAnswer::failure("tool_error", "tool execution failed"),
            )
        }
        _ => (StatusCode::BAD_REQUEST, "tool_error"),
    };
    (status, InvokeAnswer::failure(kind, error.to_string()))
}

/// `POST /tools/effective`: `{sessionKey, agentId?}` → [`EffectiveTools`].
pub async fn tools_effective(
    State(state): State<Arc<GatewayState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let answered = match read_body(&headers, body).await {
        Ok(bytes) => effective(&state, &bytes).map(|tools| Json(tools).into_response()),
        Err(error) => Err(error),
    };
    answered.unwrap_or_else(IntoResponse::into_response)
}

fn bad(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
}

fn effective(state: &GatewayState, body: &[u8]) -> Result<EffectiveTools, ApiError> {
    let request: EffectiveRequest =
        serde_json::from_slice(body).map_err(|e| bad(format!("tools.effective params: {e}")))?;
    let agent = request.agent_id.as_deref().unwrap_or("main");
    if !state.knows_agent(agent) {
        return Err(bad(format!("unknown agent id {agent:?}")).code("unknown_agent"));
    }
    let key = &request.session_key;
    let log = session_log_path(&state.state_dir, agent, &session_id_for_key(key));
    if !log.is_file() {
        return Err(bad(format!("unknown session key {key:?}")).code("unknown_session"));
    }
    let surface = planned_surface(state, Vec::new());
    let unattributed = state.seeded(Fault::EffectiveLosesPlugin);
    let tools: Vec<EffectiveTool> = surface
        .eligible
        .iter()
        .filter_map(|entry| effective_tool(entry, unattributed))
        .collect();
    Ok(EffectiveTools {
        agent_id: agent.to_string(),
        profile: "full".to_string(),
        groups: grouped(tools),
    })
}

/// One tool as `tools.effective` lists it; client tools are the caller's, never the session's.
fn effective_tool(entry: &ToolEntry, unattributed: bool) -> Option<EffectiveTool> {
    let (source, plugin_id) = match entry.source {
        ToolSource::Client => return None,
        ToolSource::Mcp => ("mcp", Some(MCP_PLUGIN_ID.to_string())),
        ToolSource::Openclaw if entry.source_name == "core" || unattributed => ("core", None),
        ToolSource::Openclaw => ("plugin", Some(entry.source_name.clone())),
    };
    Some(EffectiveTool {
        id: entry.name.clone(),
        label: entry.label.clone(),
        description: entry.description.clone(),
        source: source.to_string(),
        plugin_id,
    })
}

/// The product's groups: core, plugin, channel, mcp (those that have tools), each sorted by
/// label.
fn grouped(tools: Vec<EffectiveTool>) -> Vec<EffectiveGroup> {
    let label = |source: &str| match source {
        "plugin" => "Connected tools",
        "channel" => "Channel tools",
        "mcp" => "MCP server tools",
        _ => "Built-in tools",
    };
    ["core", "plugin", "channel", "mcp"]
        .into_iter()
        .filter_map(|source| {
            let mut group: Vec<EffectiveTool> = tools
                .iter()
                .filter(|t| t.source == source)
                .cloned()
                .collect();
            group.sort_by(|a, b| a.label.cmp(&b.label));
            (!group.is_empty()).then(|| EffectiveGroup {
                id: source.to_string(),
                label: label(source).to_string(),
                source: source.to_string(),
                tools: group,
            })
        })
        .collect()
}
