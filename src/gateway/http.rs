//! HTTP surface of the embedded gateway: routes, request parsing and JSON errors.
//!
//! Every failure — a bad request, an unknown route (404), a wrong method (405), a body over
//! [`MAX_BODY_BYTES`] (413, after reading the body to its end so that the client sees it), a
//! head over [`MAX_HEADER_FIELDS`] / [`MAX_HEADER_BYTES`] (431), a
//! provider failure (502) — is the Responses error shape `{"error": {"message", "type", "param",
//! "code"}}` with its status; a bad request never takes the server down. (A head beyond hyper's
//! own parser limits — 100 fields or about 400 KB — is refused by hyper itself with a bare 431
//! before any of this code runs; the limits here are far below those.)
//!
//! A turn's answer is a response object valid for the official SDK's strict models (see
//! [`crate::protocol::response_object`]); with `stream: true` the finished turn is sent as
//! Server-Sent Events (see [`crate::protocol::sse`]). A turn that fails is still a JSON error
//! with its status, because the gateway answers only once the turn is over.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde_json::{json, Map, Value};

use super::agent::{run_turn, TurnError, TurnRequest};
use super::conversation::InputItem;
use super::session_log::SessionWriter;
use super::GatewayState;
use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::protocol::invoke::{EFFECTIVE_PATH, INVOKE_PATH};
use crate::protocol::response_object::{
    ErrorBody, RequestEcho, ResponseItem, ResponseObject, ResponseStatus,
};
use crate::protocol::session::session_id_for_key;
use crate::protocol::{CHAT_COMPLETIONS_PATH, RESPONSES_PATH};

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
/// How much of an oversized body is still read (and dropped) so that the client, which sends
/// the whole body before it reads the answer, gets the 413 instead of a reset connection.
pub const DRAIN_BYTES: usize = 64 * 1024 * 1024;
/// How long a body refused by its `content-length` is still drained.
pub const DRAIN_TIME: std::time::Duration = std::time::Duration::from_secs(2);
/// Most header fields a request may have.
pub const MAX_HEADER_FIELDS: usize = 64;
/// Most bytes of header names and values a request may have.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;
/// Most client tools one request may declare (each is catalogued, indexed and searched per turn).
pub const MAX_CLIENT_TOOLS: usize = 4096;
pub use crate::protocol::{AGENT_HEADER, SESSION_HEADER};

pub fn router(state: Arc<GatewayState>) -> Router {
    Router::new()
        .route(RESPONSES_PATH, post(responses))
        .route(CHAT_COMPLETIONS_PATH, post(chat_completions))
        .route(INVOKE_PATH, post(super::invoke::tools_invoke))
        .route(EFFECTIVE_PATH, post(super::invoke::tools_effective))
        .route("/healthz", get(|| async { Json(json!({ "ok": true })) }))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn(json_errors))
        .with_state(state)
}

/// A failed request as a value: its status and the error body. It turns itself into the
/// response (axum's error-handling pattern), so parsing returns it like any other error.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    body: ErrorBody,
}

impl ApiError {
    pub fn new(status: StatusCode, kind: &str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            body: ErrorBody::new(kind, message),
        }
    }

    /// The request field at fault.
    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.body = self.body.param(param);
        self
    }

    /// A short machine-readable code.
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.body = self.body.code(code);
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, "invalid_request_error", message)
}

async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "invalid_request_error",
        format!("no route for {method} {}", uri.path()),
    )
    .code("not_found")
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "invalid_request_error",
        format!("{method} is not allowed on {}", uri.path()),
    )
    .code("method_not_allowed")
}

/// Refuses an oversized head with a JSON 431, and turns any error response that is not JSON
/// yet (an extractor's plain-text rejection) into the error body.
async fn json_errors(request: Request, next: Next) -> Response {
    let headers = request.headers();
    let header_bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if headers.len() > MAX_HEADER_FIELDS || header_bytes > MAX_HEADER_BYTES {
        let message = format!(
            "request has {} header fields in {header_bytes} bytes; at most {MAX_HEADER_FIELDS} fields and {MAX_HEADER_BYTES} bytes are accepted",
            headers.len()
        );
        return ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            "invalid_request_error",
            message,
        )
        .code("request_header_fields_too_large")
        .into_response();
    }
    let response = next.run(request).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    let text = to_bytes(response.into_body(), 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let kind = if status.is_server_error() {
        "server_error"
    } else {
        "invalid_request_error"
    };
    let reason = status.canonical_reason().unwrap_or("error");
    let message = if text.is_empty() {
        reason.to_string()
    } else {
        format!("{reason}: {text}")
    };
    ApiError::new(status, kind, message).into_response()
}

/// Reads a request body of at most [`MAX_BODY_BYTES`]. A larger one is refused with 413 without
/// keeping a byte: one that says so in its `content-length` before any of it is read (what
/// arrives within [`DRAIN_TIME`] is drained, so a client that sends the whole body before it
/// reads the answer gets the 413 instead of a reset connection), one that grows past the limit
/// as it arrives once it has (drained up to [`DRAIN_BYTES`]).
pub(super) async fn read_body(headers: &HeaderMap, body: Body) -> Result<Vec<u8>, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "invalid_request_error",
            format!("request body is larger than {MAX_BODY_BYTES} bytes"),
        )
        .code("request_too_large")
    };
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    let mut stream = body.into_data_stream();
    if declared.is_some_and(|length| length > MAX_BODY_BYTES as u64) {
        let drain = async {
            let mut drained = 0usize;
            while let Some(Ok(chunk)) = stream.next().await {
                drained += chunk.len();
                if drained > DRAIN_BYTES {
                    break;
                }
            }
        };
        let _ = tokio::time::timeout(DRAIN_TIME, drain).await;
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    let mut total = 0usize;
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(body_error)?;
        total += chunk.len();
        if total <= MAX_BODY_BYTES {
            bytes.extend_from_slice(&chunk);
        } else if total > DRAIN_BYTES {
            break;
        }
    }
    if total > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// A body that could not be read: 408 when it missed its deadline (see [`crate::server`]),
/// else 400.
fn body_error(error: axum::Error) -> ApiError {
    let mut causes = std::iter::successors(std::error::Error::source(&error), |e| e.source());
    if causes.any(|e| e.is::<tower_http::timeout::TimeoutError>()) {
        ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "invalid_request_error",
            "request body did not arrive in time",
        )
    } else {
        bad_request(format!("cannot read the request body: {error}"))
    }
}

async fn responses(
    State(state): State<Arc<GatewayState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let answered = match read_body(&headers, body).await {
        Ok(body) => answer(&state, &headers, &body).await,
        Err(error) => Err(error),
    };
    answered.unwrap_or_else(IntoResponse::into_response)
}

/// `POST /v1/chat/completions`: the product's second HTTP entry point, kept minimal. The last
/// user message becomes a Responses turn in the session the `x-openclaw-session-key` header
/// names, run by the same agent loop ([`respond`]); the answer is a `chat.completion` with the
/// turn's text. Only what a follow-up turn sends is read: `model`, `messages`, `max_tokens`;
/// no streaming, no client tools.
async fn chat_completions(
    State(state): State<Arc<GatewayState>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let answered = match read_body(&headers, body).await {
        Ok(body) => chat_answer(&state, &headers, &body).await,
        Err(error) => Err(error),
    };
    answered.unwrap_or_else(IntoResponse::into_response)
}

async fn chat_answer(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let body: Value = serde_json::from_slice(body)
        .map_err(|e| bad_request(format!("body is not valid JSON: {e}")))?;
    if body["stream"] == json!(true) {
        return Err(bad_request("stream is not served here").param("stream"));
    }
    let text = body["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "user"))
        .and_then(|m| m["content"].as_str())
        .ok_or_else(|| bad_request("messages needs a user message with text").param("messages"))?;
    let mut turn = json!({
        "model": body["model"].as_str().unwrap_or("openclaw"),
        "input": [{ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }] }],
    });
    if let Some(max) = body["max_tokens"].as_u64() {
        turn["max_output_tokens"] = json!(max);
    }
    let (response, _) = respond(state, headers, turn.to_string().as_bytes()).await?;
    let output = serde_json::to_value(&response.output).unwrap_or_default();
    let reply: String = output
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().map_or(&[][..], Vec::as_slice))
        .filter_map(|part| part["text"].as_str())
        .collect();
    let finish = match response.status {
        ResponseStatus::Completed => "stop",
        _ => "length",
    };
    Ok(Json(json!({
        "id": format!("chatcmpl_{}", response.id),
        "object": "chat.completion",
        "created": response.created_at,
        "model": response.model,
        "choices": [{
            "index": 0,
            "message": { "role": "assistant", "content": reply },
            "finish_reason": finish,
        }],
        "usage": response.usage,
    }))
    .into_response())
}

/// One `/v1/responses` request: parse, continue the session, run the turn, answer.
async fn answer(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Response, ApiError> {
    let (response, stream) = respond(state, headers, body).await?;
    Ok(if stream {
        event_stream(&response)
    } else {
        Json(response).into_response()
    })
}

/// Runs one Responses turn: parse, continue the session, run the turn; the response and
/// whether the caller asked for a stream.
async fn respond(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<(ResponseObject, bool), ApiError> {
    let parsed = parse_request(state, headers, body)?;
    let key = parsed.turn.session_key.clone();
    let lock = state.session_lock(&key);
    let _turn = lock.lock().await;
    let conversation = state.conversation(&key);
    let start = conversation
        .start(&parsed.input, parsed.echo.previous_response_id.as_deref())
        .map_err(|e| bad_request(e.to_string()).param(e.param()))?;
    let log = SessionWriter::open(
        &state.state_dir,
        &parsed.turn.agent_id,
        &session_id_for_key(&key),
    )
    .map_err(|e| {
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            format!("cannot open session log: {e}"),
        )
    })?;
    let outcome = run_turn(state, &log, parsed.turn, conversation, start)
        .await
        .map_err(turn_error)?;
    let mut output = outcome.client_calls;
    if !outcome.text.is_empty() || output.is_empty() {
        output.insert(0, ResponseItem::message(outcome.text));
    }
    let response = match &outcome.stopped {
        Some(why) => ResponseObject::failed(&parsed.model, parsed.echo, output, outcome.usage, why),
        None => ResponseObject::completed(&parsed.model, parsed.echo, output, outcome.usage),
    };
    let mut conversation = outcome.conversation;
    conversation.last_response_id = Some(response.id.clone());
    state.set_conversation(&key, conversation);
    Ok((response, parsed.stream))
}

fn turn_error(error: TurnError) -> ApiError {
    match error {
        TurnError::Upstream(_) | TurnError::TooManyRounds => {
            ApiError::new(StatusCode::BAD_GATEWAY, "upstream_error", error.to_string())
        }
        TurnError::SessionLog(_) | TurnError::Usage(_) => ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "server_error",
            error.to_string(),
        ),
    }
}

fn event_stream(response: &ResponseObject) -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from(crate::protocol::sse::encode_response(response)),
    )
        .into_response()
}

/// A `/v1/responses` body, checked.
struct ParsedRequest {
    turn: TurnRequest,
    input: Vec<InputItem>,
    /// What the response echoes (`tools`, `tool_choice`, `previous_response_id`, …).
    echo: RequestEcho,
    model: String,
    stream: bool,
}

/// Validates a `/v1/responses` body.
fn parse_request(
    state: &GatewayState,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<ParsedRequest, ApiError> {
    let body: Value = serde_json::from_slice(body)
        .map_err(|e| bad_request(format!("body is not valid JSON: {e}")))?;
    let Value::Object(fields) = &body else {
        return Err(bad_request("body must be a JSON object"));
    };
    let stream = match fields.get("stream") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(bad_request("stream must be true or false").param("stream")),
    };
    let input = parse_input(fields.get("input"))?;
    let client_tools = parse_client_tools(state, fields.get("tools"))?;
    let echo = echo_of(fields)?;
    let model = match fields.get("model") {
        None => "openclaw".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => return Err(bad_request("model must be a string").param("model")),
    };
    let agent_id = header_text(headers, AGENT_HEADER)?.unwrap_or_else(|| "main".into());
    if !state.knows_agent(&agent_id) {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "invalid_request_error",
            format!("unknown agent {agent_id:?} (header {AGENT_HEADER})"),
        )
        .code("unknown_agent"));
    }
    let session_key = header_text(headers, SESSION_HEADER)?.unwrap_or_else(|| "main".into());
    let required_tools = echo
        .tool_choice
        .required_function()
        .map(|name| vec![name.to_string()])
        .unwrap_or_default();
    Ok(ParsedRequest {
        turn: TurnRequest {
            agent_id,
            session_key,
            client_tools,
            required_tools,
            max_output_tokens: echo.max_output_tokens,
        },
        input,
        echo,
        model,
        stream,
    })
}

fn echo_of(fields: &Map<String, Value>) -> Result<RequestEcho, ApiError> {
    RequestEcho::from_request(fields).map_err(|e| bad_request(e.message).param(e.param))
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

/// `input`: a string (one user message), or an array of `message`, `function_call` and
/// `function_call_output` items.
fn parse_input(input: Option<&Value>) -> Result<Vec<InputItem>, ApiError> {
    let user = |text: &str| json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }] });
    match input {
        Some(Value::String(text)) => Ok(vec![InputItem::Message(user(text))]),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .enumerate()
            .map(|(i, item)| parse_item(i, item))
            .collect(),
        Some(Value::Array(_)) => Err(bad_request("input must not be empty").param("input")),
        Some(_) => Err(bad_request("input must be a string or an array of items").param("input")),
        None => Err(bad_request("input is required").param("input")),
    }
}

fn parse_item(i: usize, item: &Value) -> Result<InputItem, ApiError> {
    let at = format!("input[{i}]");
    let text = |key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| {
                bad_request(format!("{at}.{key} must be a string")).param(format!("{at}.{key}"))
            })
    };
    match item.get("type").and_then(Value::as_str) {
        Some("function_call") => Ok(InputItem::FunctionCall {
            call_id: text("call_id")?,
            name: text("name")?,
        }),
        Some("function_call_output") => {
            let call_id = text("call_id")?;
            match item.get("output") {
                Some(output @ (Value::String(_) | Value::Array(_))) => {
                    Ok(InputItem::FunctionCallOutput {
                        call_id,
                        output: output.clone(),
                    })
                }
                _ => Err(bad_request(format!(
                    "{at}.output must be a string or an array of content parts"
                ))
                .param(format!("{at}.output"))),
            }
        }
        Some("message") | None => {
            let role = item.get("role").and_then(Value::as_str);
            if !matches!(role, Some("user" | "assistant" | "developer" | "system")) {
                return Err(bad_request(format!(
                    "{at} must be a message item with a role (user, assistant, developer or system), a function_call or a function_call_output"
                ))
                .param(at));
            }
            match item.get("content") {
                Some(Value::String(_)) | Some(Value::Array(_)) => Ok(InputItem::Message(item.clone())),
                _ => Err(bad_request(format!(
                    "{at}.content must be a string or an array of parts"
                ))
                .param(format!("{at}.content"))),
            }
        }
        Some(other) => Err(bad_request(format!(
            "{at}: items of type {other:?} are not supported (message, function_call, function_call_output)"
        ))
        .param(at)),
    }
}

/// Client tools in the request (`tools[]` of type function). Their names must not collide with the gateway's.
fn parse_client_tools(
    state: &GatewayState,
    tools: Option<&Value>,
) -> Result<Vec<ToolEntry>, ApiError> {
    let items = match tools {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(bad_request("tools must be an array").param("tools")),
    };
    if items.len() > MAX_CLIENT_TOOLS {
        return Err(bad_request(format!(
            "tools: {} client tools, at most {MAX_CLIENT_TOOLS} are accepted",
            items.len()
        ))
        .param("tools"));
    }
    // Names seen so far, and the gateway's own: every check below is a hash lookup, so a request
    // costs time linear in its tools.
    let gateway_tools: HashMap<&str, &ToolEntry> =
        state.tools.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    let mut parsed: Vec<ToolEntry> = Vec::with_capacity(items.len());
    for (i, tool) in items.iter().enumerate() {
        let at = format!("tools[{i}]");
        let Some(name) = tool
            .get("name")
            .and_then(Value::as_str)
            .filter(|n| !n.is_empty())
        else {
            return Err(bad_request(format!("{at}.name must be a non-empty string")).param(at));
        };
        if tool.get("type").and_then(Value::as_str) != Some("function") {
            return Err(
                bad_request(format!("{at} ({name}) must have type \"function\"")).param(at),
            );
        }
        if let Some(taken) = gateway_tools.get(name) {
            return Err(bad_request(format!(
                "{at}: client tool name {name:?} collides with the {} tool {}; rename the client tool",
                taken.source.as_str(),
                taken.id
            ))
            .param(at));
        }
        if state.profile.bridge().is_control(name) {
            return Err(bad_request(format!(
                "{at}: client tool name {name:?} collides with a Tool Search control; rename the client tool"
            ))
            .param(at));
        }
        if !seen.insert(name) {
            return Err(
                bad_request(format!("{at}: client tool {name:?} is declared twice")).param(at),
            );
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
