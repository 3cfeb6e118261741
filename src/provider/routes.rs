//! Request routing of the mock provider: one responder that serves every route.
//!
//! The HTTP layer ([`super::http`]) hands every request here as plain data; this responder owns
//! the scripted model and the journal. Only `POST /v1/responses` and `POST /v1/messages` are
//! journaled — including bodies rejected with 400 (outcome `invalid-request`, `body: null`), so
//! payload sizes count every byte a target sent — each with its protocol and the reply as sent.
//! Every error is the Responses error shape `{"error": {"message", "type", "param", "code"}}`,
//! except on `/v1/messages`, whose errors are Anthropic's `{"type": "error", "error": {…}}`.

use std::sync::Arc;

use serde_json::{json, Value};

use super::http::{Incoming, Reply};

use super::declared::DeclaredNames;
use super::input::{read_body, ParsedInput, RequestView};
use super::journal::{Journal, JournalRecord, ParsedBody, RawText, RequestKind};
use super::model::{decide, Decision, Outcome, ScriptedTurn};
use super::native::{anthropic, openai, Protocol, Refusal};
use super::wire::response_for;
use crate::protocol::messages::{self, MessagesError};
use crate::protocol::response_object::{ErrorBody, RequestEcho, ResponseObject};
use crate::protocol::sse::encode_response;

/// Model id listed by `GET /v1/models` and used when a request names none.
pub const MOCK_MODEL: &str = "mock-openai/qa";

/// Every path the mock answers (with one method each).
const ROUTES: [&str; 7] = [
    "/v1/responses",
    "/v1/messages",
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
            ("POST", "/v1/messages") => self.messages(request.body),
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
        let reply = error_reply(400, error);
        self.journal.push_with(|cursor| {
            invalid_record(cursor, raw, Protocol::OpenaiResponses, reply.body())
        });
        reply
    }

    /// The scripted model's decision: the script chosen by the request's texts, or the one
    /// script, or the directives.
    fn decide(&self, parsed: &ParsedInput, declared: &DeclaredNames) -> Decision {
        // The key that occurs last in the message texts: a gateway may add its own user
        // message after the caller's (OpenClaw appends an internal-context one).
        let by_prompt = self
            .scripts_by_prompt
            .iter()
            .filter_map(|(key, script)| Some((parsed.all_input_text.rfind(key.as_str())?, script)))
            .max_by_key(|(at, _)| *at)
            .map(|(_, script)| script.as_slice());
        let script = by_prompt.or(self.script.as_deref().map(Vec::as_slice));
        decide(parsed, declared, script)
    }

    fn answer(&self, raw: &[u8], view: RequestView) -> Reply {
        let echo = match echo_of(raw) {
            Ok(echo) => echo,
            Err(error) => return self.invalid(raw, error),
        };
        let text = String::from_utf8_lossy(raw);
        match openai::read(&text) {
            Err(refusal) => return self.invalid(raw, refusal_body(refusal)),
            Ok(Some(native)) => return self.answer_native(raw, &view, &native, echo),
            Ok(None) => {}
        }
        let parsed = &view.parsed;
        let decision = self.decide(parsed, &view.declared);
        let model = view.model.as_deref().unwrap_or(MOCK_MODEL).to_string();
        let stream = view.stream;
        let reply = decision.reply.clone();
        let response = response_for(&text, &model, echo, &reply);
        // A plain answer's reply is not kept: nobody reads it back, and at 10,000 tools it
        // echoes megabytes of declarations (compare's memory bound).
        self.send_response(raw, parsed, decision, response, stream, false)
    }

    /// A Responses request with provider-native tool search.
    fn answer_native(
        &self,
        raw: &[u8],
        view: &RequestView,
        native: &openai::NativeRequest<'_>,
        echo: RequestEcho,
    ) -> Reply {
        let decision = self.decide(&view.parsed, &view.declared);
        let model = view.model.as_deref().unwrap_or(MOCK_MODEL);
        let text = String::from_utf8_lossy(raw);
        match openai::respond(native, &text, model, echo, decision) {
            Ok((response, decision)) => self.send_response(
                raw,
                &view.parsed,
                decision,
                Ok::<_, std::convert::Infallible>(response),
                view.stream,
                true,
            ),
            Err(e) => error_reply(500, ErrorBody::new("server_error", e.to_string())),
        }
    }

    /// Journals the request (with its reply when `keep_reply`: the native answers the strict SDK
    /// check reads back) and sends the reply (JSON, or the event stream).
    fn send_response<E: std::fmt::Display>(
        &self,
        raw: &[u8],
        parsed: &ParsedInput,
        decision: Decision,
        response: Result<ResponseObject, E>,
        stream: bool,
        keep_reply: bool,
    ) -> Reply {
        let reply = match &response {
            Ok(response) if stream => Reply::new(200)
                .no_cache()
                .set_body_raw(encode_response(response), "text/event-stream"),
            Ok(response) => Reply::new(200).set_body_raw(
                serde_json::to_string(response).unwrap_or_default(),
                "application/json",
            ),
            Err(e) => error_reply(500, ErrorBody::new("server_error", e.to_string())),
        };
        let input_tokens = response
            .as_ref()
            .ok()
            .and_then(|r| r.usage.as_ref())
            .map(|u| u.input_tokens);
        let answered = Answered {
            protocol: Protocol::OpenaiResponses,
            input_tokens,
            reply: keep_reply.then(|| reply.body()),
        };
        self.journal
            .push_with(|cursor| record(cursor, raw, parsed, decision, answered));
        reply
    }

    /// `POST /v1/messages`: Anthropic's Messages API, errors in its own shape.
    fn messages(&self, raw: &[u8]) -> Reply {
        let text = String::from_utf8_lossy(raw);
        let view = match anthropic::read(&text) {
            Ok(view) => view,
            Err(refusal) => {
                let reply = messages_error(400, "invalid_request_error", &refusal);
                self.journal.push_with(|cursor| {
                    invalid_record(cursor, raw, Protocol::AnthropicMessages, reply.body())
                });
                return reply;
            }
        };
        let decision = self.decide(&view.parsed, &view.declared);
        let (message, decision) = match anthropic::respond(&view, &text, decision) {
            Ok(answer) => answer,
            Err(e) => {
                let refusal = Refusal::new(None, e.to_string());
                return messages_error(500, "api_error", &refusal);
            }
        };
        let reply = if view.request.streams() {
            Reply::new(200)
                .no_cache()
                .set_body_raw(messages::encode_stream(&message), "text/event-stream")
        } else {
            Reply::new(200).set_body_raw(
                serde_json::to_string(&message).unwrap_or_default(),
                "application/json",
            )
        };
        let answered = Answered {
            protocol: Protocol::AnthropicMessages,
            input_tokens: Some(message.usage.input_tokens),
            reply: Some(reply.body()),
        };
        self.journal
            .push_with(|cursor| record(cursor, raw, &view.parsed, decision, answered));
        reply
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

/// What the journal keeps of an answer.
struct Answered {
    protocol: Protocol,
    input_tokens: Option<u64>,
    reply: Option<std::sync::Arc<str>>,
}

fn record(
    cursor: u64,
    raw: &[u8],
    parsed: &ParsedInput,
    decision: Decision,
    answered: Answered,
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
        input_tokens: answered.input_tokens,
        protocol: answered.protocol,
        reply: answered.reply.map(RawText::from),
    }
}

fn invalid_record(
    cursor: u64,
    raw: &[u8],
    protocol: Protocol,
    reply: std::sync::Arc<str>,
) -> JournalRecord {
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
        protocol,
        reply: Some(RawText::from(reply)),
    }
}

/// A refusal as a Responses error.
fn refusal_body(refusal: Refusal) -> ErrorBody {
    let mut error = ErrorBody::new("invalid_request_error", refusal.message);
    error.error.param = refusal.param;
    error.error.code = refusal.code;
    error
}

/// An error in the Messages API's shape (`param`, when known, is named in the message).
fn messages_error(status: u16, kind: &str, refusal: &Refusal) -> Reply {
    let message = match &refusal.param {
        Some(param) => format!("{param}: {}", refusal.message),
        None => refusal.message.clone(),
    };
    let body = MessagesError::new(kind, message);
    Reply::new(status).set_body_raw(
        serde_json::to_string(&body).unwrap_or_default(),
        "application/json",
    )
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
