//! HTTP surface of the embedded gateway: routes, request parsing and JSON errors.
//!
//! Every failure is a JSON body `{error: {type, message}}` with a 4xx/5xx status that says what
//! was wrong; a bad request never takes the server down. With `stream: true` a finished turn is
//! sent as Server-Sent Events (see [`super::sse`]); a turn that fails is still a JSON error with
//! its status, because the gateway answers only once the turn is over.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::agent::{run_turn, TurnError, TurnRequest};
use super::session_log::SessionWriter;
use super::GatewayState;
use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::protocol::session::session_id_for_key;
use crate::server::read_body;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// Most client tools one request may declare (each is catalogued, indexed and searched per turn).
pub const MAX_CLIENT_TOOLS: usize = 4096;
pub use crate::protocol::{AGENT_HEADER, SESSION_HEADER};

pub fn router(state: Arc<GatewayState>) -> Router {
    Router::new()
        .route("/v1/responses", post(responses))
        .route("/healthz", get(|| async { Json(json!({ "ok": true })) }))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "not_found", "no such route") })
        .with_state(state)
}

/// A failed request as a value: its status and `{error: {type, message}}`. It turns itself into
/// the response (axum's error-handling pattern), so parsing returns it like any other error.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
}

impl ApiError {
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            kind,
            message: message.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(json!({ "error": { "type": self.kind, "message": self.message } })),
        )
            .into_response()
    }
}

/// `{error: {type, message}}` with a status.
pub fn error(status: StatusCode, kind: &'static str, message: impl Into<String>) -> Response {
    ApiError::new(status, kind, message).into_response()
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
}

async fn responses(
    State(state): State<Arc<GatewayState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = match read_body(&headers, body, MAX_BODY_BYTES).await {
        Ok(body) => body,
        Err((status, message)) => return error(status, "invalid_request_error", message),
    };
    let request = match parse_request(&state, &headers, &body) {
        Ok(r) => r,
        Err(error) => return error.into_response(),
    };
    let (request, model, stream) = request;
    let session_id = session_id_for_key(&request.session_key);
    let lock = state.session_lock(&request.session_key);
    let _turn = lock.lock().await;
    let log = match SessionWriter::open(&state.state_dir, &request.agent_id, &session_id) {
        Ok(log) => log,
        Err(e) => {
            return error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                format!("cannot open session log: {e}"),
            )
        }
    };
    let turn_number = state.history(&request.session_key).len() + 1;
    match run_turn(&state, &log, request).await {
        Ok(outcome) => {
            let mut output = outcome.client_calls;
            if !outcome.text.is_empty() || output.is_empty() {
                output.insert(
                    0,
                    message_item(&format!("msg_{session_id}_{turn_number}"), &outcome.text),
                );
            }
            let response = json!({
                "id": format!("resp_{session_id}_{turn_number}"),
                "object": "response",
                "status": "completed",
                "model": model,
                "output": output,
                "usage": { "input_tokens": 0, "output_tokens": 0, "total_tokens": 0 },
            });
            if stream {
                event_stream(&response)
            } else {
                Json(response).into_response()
            }
        }
        Err(TurnError::Upstream(e)) => {
            error(StatusCode::BAD_GATEWAY, "upstream_error", e.to_string())
        }
        Err(TurnError::TooManyRounds) => error(
            StatusCode::BAD_GATEWAY,
            "upstream_error",
            TurnError::TooManyRounds.to_string(),
        ),
        Err(e @ TurnError::SessionLog(_)) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            e.to_string(),
        ),
    }
}

fn event_stream(response: &Value) -> Response {
    (
        [
            (axum::http::header::CONTENT_TYPE, "text/event-stream"),
            (axum::http::header::CACHE_CONTROL, "no-cache"),
        ],
        crate::protocol::sse::encode_response(response),
    )
        .into_response()
}

fn message_item(id: &str, text: &str) -> Value {
    json!({
        "type": "message", "id": id, "role": "assistant", "status": "completed",
        "content": [{ "type": "output_text", "text": text, "annotations": [] }]
    })
}

/// Validates a `/v1/responses` body; returns the turn, the model name to echo and whether to stream.
fn parse_request(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(TurnRequest, String, bool), ApiError> {
    let body: Value = serde_json::from_slice(body)
        .map_err(|e| bad_request(format!("body is not valid JSON: {e}")))?;
    let Value::Object(fields) = &body else {
        return Err(bad_request("body must be a JSON object"));
    };
    let stream = match fields.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad_request("stream must be true or false")),
    };
    let input = parse_input(fields.get("input"))?;
    let client_tools = parse_client_tools(state, fields.get("tools"))?;
    let max_output_tokens = match fields.get("max_output_tokens") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_u64()
                .ok_or_else(|| bad_request("max_output_tokens must be a non-negative integer"))?,
        ),
    };
    let model = match fields.get("model") {
        None => "openclaw".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(bad_request("model must be a string")),
    };
    let agent_id = header_text(headers, AGENT_HEADER)?.unwrap_or_else(|| "main".into());
    if !state.knows_agent(&agent_id) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("unknown agent {agent_id:?} (header {AGENT_HEADER})"),
        ));
    }
    let session_key = header_text(headers, SESSION_HEADER)?.unwrap_or_else(|| "main".into());
    Ok((
        TurnRequest {
            agent_id,
            session_key,
            input,
            client_tools,
            required_tools: required_tools(fields.get("tool_choice")),
            max_output_tokens,
        },
        model,
        stream,
    ))
}

/// A header as text: its bytes as UTF-8 (so `josé` is `josé`, never a lossy stand-in that could
/// be another user's value); `None` when absent. Empty or not UTF-8 is a 400 naming the header.
fn header_text(headers: &HeaderMap, name: &str) -> Result<Option<String>, ApiError> {
    let Some(value) = headers.get(name) else {
        return Ok(None);
    };
    let text = std::str::from_utf8(value.as_bytes())
        .map_err(|_| bad_request(format!("header {name} must be UTF-8 text")))?;
    if text.is_empty() {
        return Err(bad_request(format!("header {name} must not be empty")));
    }
    Ok(Some(text.to_string()))
}

/// `input`: a string, or an array of message items (content a string or text parts).
fn parse_input(input: Option<&Value>) -> Result<Vec<Value>, ApiError> {
    let user = |text: &str| json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }] });
    match input {
        Some(Value::String(text)) => Ok(vec![user(text)]),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let role = item.get("role").and_then(Value::as_str);
                if !matches!(role, Some("user" | "assistant" | "developer" | "system")) {
                    return Err(bad_request(format!(
                        "input[{i}] must be a message item with a role"
                    )));
                }
                match item.get("content") {
                    Some(Value::String(_)) | Some(Value::Array(_)) => Ok(item.clone()),
                    _ => Err(bad_request(format!(
                        "input[{i}].content must be a string or an array of parts"
                    ))),
                }
            })
            .collect(),
        Some(Value::Array(_)) => Err(bad_request("input must not be empty")),
        Some(_) => Err(bad_request("input must be a string or an array of items")),
        None => Err(bad_request("input is required")),
    }
}

/// The tool a `tool_choice` of `{"type": "function", "name": N}` requires; nothing otherwise.
fn required_tools(tool_choice: Option<&Value>) -> Vec<String> {
    let Some(choice) = tool_choice.filter(|c| c["type"] == "function") else {
        return Vec::new();
    };
    choice["name"]
        .as_str()
        .map(|n| vec![n.to_string()])
        .unwrap_or_default()
}

/// Client tools in the request (`tools[]` of type function). Their names must not collide with the gateway's.
fn parse_client_tools(
    state: &GatewayState,
    tools: Option<&Value>,
) -> Result<Vec<ToolEntry>, ApiError> {
    let items = match tools {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad_request("tools must be an array")),
    };
    if items.len() > MAX_CLIENT_TOOLS {
        return Err(bad_request(format!(
            "tools: {} client tools, at most {MAX_CLIENT_TOOLS} are accepted",
            items.len()
        )));
    }
    // Names seen so far, and the gateway's own: every check below is a hash lookup, so a request
    // costs time linear in its tools.
    let gateway_tools: HashMap<&str, &ToolEntry> =
        state.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    let mut parsed: Vec<ToolEntry> = Vec::with_capacity(items.len());
    for (i, tool) in items.iter().enumerate() {
        let Some(name) = tool
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            return Err(bad_request(format!(
                "tools[{i}].name must be a non-empty string"
            )));
        };
        if tool.get("type").and_then(Value::as_str) != Some("function") {
            return Err(bad_request(format!(
                "tools[{i}] ({name}) must have type \"function\""
            )));
        }
        if let Some(taken) = gateway_tools.get(name) {
            return Err(bad_request(format!(
                "tools[{i}]: client tool name {name:?} collides with the {} tool {}; rename the client tool",
                taken.source.as_str(),
                taken.id
            )));
        }
        if crate::engine::surface::CONTROL_TOOLS.contains(&name) {
            return Err(bad_request(format!(
                "tools[{i}]: client tool name {name:?} collides with a Tool Search control; rename the client tool"
            )));
        }
        if !seen.insert(name) {
            return Err(bad_request(format!(
                "tools[{i}]: client tool {name:?} is declared twice"
            )));
        }
        let description = tool
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let parameters = tool
            .get("parameters")
            .cloned()
            .unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
        parsed.push(ToolEntry::new(
            ToolSource::Client,
            "client",
            name,
            description,
            parameters,
            Executor::Client,
        ));
    }
    Ok(parsed)
}
