//! Request routing of the mock provider: one responder that serves every route.
//!
//! The HTTP layer ([`super::http`]) hands every request here as plain data; this responder owns
//! the scripted model and the journal. Only `POST /v1/responses` is journaled — including bodies rejected with 400 (outcome
//! `invalid-request`, `body: null`), so payload sizes count every byte a target sent. Every
//! error is the Responses error shape `{"error": {"message", "type", "param", "code"}}`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::http::{Incoming, Reply};

use super::input::{read_body, ParsedInput, RequestView};
use super::journal::{Journal, JournalRecord, ParsedBody, RawText, RequestKind};
use super::model::{decide, Decision, Outcome, ScriptedTurn};
use super::wire::response_for;
use crate::protocol::response_object::{ErrorBody, RequestEcho};
use crate::protocol::sse::encode_response;

/// Model id listed by `GET /v1/models` and used when a request names none.
pub const MOCK_MODEL: &str = "mock-openai/qa";

/// Every path the mock answers (with one method each).
const ROUTES: [&str; 6] = [
    "/v1/responses",
    "/v1/models",
    "/healthz",
    "/debug/requests",
    "/debug/request-cursor",
    "/debug/last-request",
];

/// The responder mounted on every route.
pub(crate) struct Router {
    pub(crate) journal: Journal,
    pub(crate) script: Option<Arc<Vec<ScriptedTurn>>>,
    pub(crate) scripts_by_prompt: Arc<Vec<(String, Vec<ScriptedTurn>)>>,
}

impl Router {
    pub(crate) fn respond(&self, request: &Incoming<'_>) -> Reply {
        let path = request.path;
        match (request.method, path) {
            ("POST", "/v1/responses") => self.responses(request.body),
            ("GET", "/v1/models") => models(),
            ("GET", "/healthz") => json_reply(200, &json!({"ok": true, "status": "ok"})),
            ("GET", "/debug/requests") => self.requests(request),
            ("GET", "/debug/request-cursor") => {
                json_reply(200, &json!({"cursor": self.journal.cursor()}))
            }
            ("GET", "/debug/last-request") => json_reply(200, &json!(self.journal.last())),
            (method, path) if ROUTES.contains(&path) => error_reply(
                405,
                ErrorBody::new(
                    "invalid_request_error",
                    format!("{method} is not allowed on {path}"),
                )
                .code("method_not_allowed"),
            ),
            (method, _) => error_reply(
                404,
                ErrorBody::new(
                    "invalid_request_error",
                    format!("no route for {method} {path}"),
                )
                .code("not_found"),
            ),
        }
    }

    fn responses(&self, raw: &[u8]) -> Reply {
        match read_body(raw) {
            Ok(view) => self.answer(raw, view),
            Err(err) => {
                let mut error = ErrorBody::new("invalid_request_error", err.to_string());
                error.error.param = err.param();
                self.invalid(raw, error)
            }
        }
    }

    /// A 400 for a body the mock cannot answer; the bytes are journaled all the same.
    fn invalid(&self, raw: &[u8], error: ErrorBody) -> Reply {
        self.journal.push_with(|cursor| invalid_record(cursor, raw));
        error_reply(400, error)
    }

    fn answer(&self, raw: &[u8], view: RequestView) -> Reply {
        let echo = match echo_of(raw) {
            Ok(echo) => echo,
            Err(error) => return self.invalid(raw, error),
        };
        let parsed = &view.parsed;
        // The key that occurs last in the message texts: a gateway may add its own user
        // message after the caller's (OpenClaw appends an internal-context one).
        let by_prompt = self
            .scripts_by_prompt
            .iter()
            .filter_map(|(key, script)| Some((parsed.all_input_text.rfind(key.as_str())?, script)))
            .max_by_key(|(at, _)| *at)
            .map(|(_, script)| script.as_slice());
        let script = by_prompt.or(self.script.as_deref().map(Vec::as_slice));
        let decision = decide(parsed, &view.declared, script);
        let model = view.model.as_deref().unwrap_or(MOCK_MODEL).to_string();
        let stream = view.stream;
        let reply = decision.reply.clone();
        let text = String::from_utf8_lossy(raw);
        let response = response_for(&text, &model, echo, &reply);
        let input_tokens = response
            .as_ref()
            .ok()
            .and_then(|r| r.usage.as_ref())
            .map(|u| u.input_tokens);
        self.journal
            .push_with(|cursor| record(cursor, raw, parsed, decision, input_tokens));
        let response = match response {
            Ok(response) => response,
            Err(e) => return error_reply(500, ErrorBody::new("server_error", e.to_string())),
        };
        if stream {
            Reply::new(200)
                .no_cache()
                .set_body_raw(encode_response(&response), "text/event-stream")
        } else {
            json_reply(200, &json!(response))
        }
    }

    fn requests(&self, request: &Incoming<'_>) -> Reply {
        let after = form_urlencoded::parse(request.query.unwrap_or_default().as_bytes())
            .find(|(key, _)| key == "after")
            .map(|(_, value)| value.parse::<u64>().map_err(|_| value.into_owned()));
        match after {
            None => json_reply(200, &json!(self.journal.all())),
            Some(Ok(cursor)) => json_reply(200, &json!(self.journal.since(cursor))),
            Some(Err(value)) => error_reply(
                400,
                ErrorBody::new(
                    "invalid_request_error",
                    format!("`after` must be a non-negative integer cursor, got {value:?}"),
                )
                .param("after"),
            ),
        }
    }
}

/// What a response echoes of its request (tools, tool_choice, instructions, …). Only this reads
/// the body as a JSON tree, and only while the response is built: the journal keeps the text.
fn echo_of(raw: &[u8]) -> Result<RequestEcho, ErrorBody> {
    let body: serde_json::Map<String, Value> = serde_json::from_slice(raw).map_err(|_| {
        ErrorBody::new(
            "invalid_request_error",
            "request body must be a JSON object",
        )
    })?;
    RequestEcho::from_request(&body)
        .map_err(|e| ErrorBody::new("invalid_request_error", e.message).param(e.param))
}

fn record(
    cursor: u64,
    raw: &[u8],
    parsed: &ParsedInput,
    decision: Decision,
    input_tokens: Option<u64>,
) -> JournalRecord {
    let request_kind = if parsed.tool_outputs.is_empty() {
        RequestKind::AgentInitial
    } else {
        RequestKind::ToolContinuation
    };
    let text = raw_text(raw);
    JournalRecord {
        cursor,
        body: ParsedBody::of(&text),
        raw: text,
        raw_byte_length: raw.len(),
        prompt: parsed.prompt.clone(),
        all_input_text: parsed.all_input_text.clone(),
        tool_output: parsed
            .latest_tool_output()
            .map(|output| output.text.clone()),
        request_kind,
        planned_tool_name: decision.planned_tool_name,
        planned_wire_tool_name: decision.planned_wire_tool_name,
        planned_tool_args: decision.planned_tool_args,
        outcome: decision.outcome.as_str().to_string(),
        input_tokens,
    }
}

fn invalid_record(cursor: u64, raw: &[u8]) -> JournalRecord {
    JournalRecord {
        cursor,
        raw: raw_text(raw),
        raw_byte_length: raw.len(),
        body: ParsedBody::from(Value::Null),
        prompt: String::new(),
        all_input_text: String::new(),
        tool_output: None,
        request_kind: RequestKind::AgentInitial,
        planned_tool_name: None,
        planned_wire_tool_name: None,
        planned_tool_args: None,
        outcome: Outcome::InvalidRequest.as_str().to_string(),
        input_tokens: None,
    }
}

/// The body as text: one copy of the bytes, shared by the record's raw text and parsed body.
fn raw_text(raw: &[u8]) -> RawText {
    RawText::from(String::from_utf8_lossy(raw).into_owned())
}

fn models() -> Reply {
    json_reply(
        200,
        &json!({"object": "list", "data": [
            {"id": MOCK_MODEL, "object": "model", "created": 0, "owned_by": "toolsearch-qa"}
        ]}),
    )
}

fn json_reply(status: u16, body: &Value) -> Reply {
    Reply::new(status).set_body_raw(body.to_string(), "application/json")
}

fn error_reply(status: u16, error: ErrorBody) -> Reply {
    json_reply(status, &json!(error))
}
