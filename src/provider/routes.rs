//! Request routing of the mock provider: one responder that serves every route.
//!
//! The HTTP layer ([`super::http`]) hands every request here as plain data; this responder owns
//! the scripted model and the journal. Only `POST /v1/responses` is journaled — including bodies rejected with 400 (outcome
//! `invalid-request`, `body: null`), so payload sizes count every byte a target sent.

use std::sync::Arc;

use super::http::{Incoming, Reply};
use serde_json::{json, Value};

use super::input::{parse_body, ParsedInput};
use super::journal::{Journal, JournalRecord, RequestKind};
use super::model::{decide, Decision, Outcome, ScriptedTurn};
use super::wire::{ids_for, response_json, sse_body};

/// Model id listed by `GET /v1/models` and used when a request names none.
pub const MOCK_MODEL: &str = "mock-openai/qa";

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
            (method, _) => error_reply(
                404,
                "not_found_error",
                &format!("no route for {method} {path}"),
            ),
        }
    }

    fn responses(&self, raw: &[u8]) -> Reply {
        match parse_body(raw) {
            Ok((body, parsed)) => self.answer(raw, body, &parsed),
            Err(err) => {
                let message = err.to_string();
                self.journal.push_with(|cursor| invalid_record(cursor, raw));
                error_reply(400, "invalid_request_error", &message)
            }
        }
    }

    fn answer(&self, raw: &[u8], body: Value, parsed: &ParsedInput) -> Reply {
        // The key that occurs last in the message texts: a gateway may add its own user
        // message after the caller's (OpenClaw appends an internal-context one).
        let by_prompt = self
            .scripts_by_prompt
            .iter()
            .filter_map(|(key, script)| Some((parsed.all_input_text.rfind(key.as_str())?, script)))
            .max_by_key(|(at, _)| *at)
            .map(|(_, script)| script.as_slice());
        let script = by_prompt.or(self.script.as_deref().map(Vec::as_slice));
        let decision = decide(parsed, body.get("tools"), script);
        let ids = ids_for(raw, &decision.reply);
        let model = body
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(MOCK_MODEL)
            .to_string();
        let stream = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
        let reply = decision.reply.clone();
        self.journal
            .push_with(|cursor| record(cursor, raw, body, parsed, decision));
        if stream {
            let events = sse_body(&ids, &model, &reply, raw.len());
            Reply::new(200)
                .no_cache()
                .set_body_raw(events, "text/event-stream")
        } else {
            json_reply(200, &response_json(&ids, &model, &reply, raw.len()))
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
                "invalid_request_error",
                &format!("`after` must be a non-negative integer cursor, got {value:?}"),
            ),
        }
    }
}

fn record(
    cursor: u64,
    raw: &[u8],
    body: Value,
    parsed: &ParsedInput,
    decision: Decision,
) -> JournalRecord {
    let request_kind = if parsed.tool_outputs.is_empty() {
        RequestKind::AgentInitial
    } else {
        RequestKind::ToolContinuation
    };
    JournalRecord {
        cursor,
        raw: String::from_utf8_lossy(raw).into_owned(),
        raw_byte_length: raw.len(),
        body,
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
    }
}

fn invalid_record(cursor: u64, raw: &[u8]) -> JournalRecord {
    JournalRecord {
        cursor,
        raw: String::from_utf8_lossy(raw).into_owned(),
        raw_byte_length: raw.len(),
        body: Value::Null,
        prompt: String::new(),
        all_input_text: String::new(),
        tool_output: None,
        request_kind: RequestKind::AgentInitial,
        planned_tool_name: None,
        planned_wire_tool_name: None,
        planned_tool_args: None,
        outcome: Outcome::InvalidRequest.as_str().to_string(),
    }
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

fn error_reply(status: u16, kind: &str, message: &str) -> Reply {
    json_reply(
        status,
        &json!({"error": {"type": kind, "message": message}}),
    )
}
