//! Running one lane: start the target's gateway, send the scenario's turn, and collect what the
//! provider received and what the session log says. Only data leaves this module.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use super::scenario::{Lane, Scenario};
use super::HarnessError;
use crate::gateway::http::{AGENT_HEADER, SESSION_HEADER};
use crate::provider::{Journal, JournalRecord};
use crate::targets::{LaneSetup, Target};

/// How long the harness waits for one gateway turn.
pub const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// Everything observed of one lane.
#[derive(Debug, Clone)]
pub struct LaneObservation {
    pub lane: String,
    pub session_key: String,
    pub status: u16,
    pub response: Value,
    pub requests: Vec<Arc<JournalRecord>>,
    pub session: Vec<Value>,
    pub elapsed: Duration,
}

/// The session key of a lane, as the reference run names it.
pub fn session_key(lane: &Lane) -> String {
    format!("tool-search-gateway-{}", lane.name)
}

/// Runs one lane on `target` against the provider whose journal is `journal`.
pub async fn run_lane(
    target: &dyn Target,
    scenario: &Scenario,
    lane: &Lane,
    provider_base_url: &str,
    journal: &Journal,
) -> Result<LaneObservation, HarnessError> {
    let work = tempfile::Builder::new()
        .prefix(&format!("tsqa-{}-", lane.name))
        .tempdir()
        .map_err(|e| HarnessError::infra(format!("cannot create a temp dir: {e}")))?;
    let setup = LaneSetup {
        scenario,
        lane,
        provider_base_url: provider_base_url.to_string(),
        work_dir: work.path().to_path_buf(),
        env: Vec::new(),
    };
    let started = Instant::now();
    let gateway = target.start(&setup).await?;
    let cursor = journal.cursor();
    let key = session_key(lane);
    let sent = send_turn(
        &gateway.base_url(),
        scenario,
        lane,
        &key,
        target.turn_timeout(),
    )
    .await;
    let sent = sent.map_err(|e| match gateway.diagnostics() {
        d if d.is_empty() => e,
        d => HarnessError::infra(format!(
            "{e}\n--- {} gateway log (tail) ---\n{d}",
            target.name()
        )),
    });
    let session = gateway.session_records(&scenario.agent, &key);
    gateway.stop().await;
    let (status, response) = sent?;
    if !(200..300).contains(&status) {
        return Err(HarnessError::infra(format!(
            "scenario {} lane {}: the gateway answered HTTP {status}: {}",
            scenario.id,
            lane.name,
            error_message(&response)
        )));
    }
    Ok(LaneObservation {
        lane: lane.name.clone(),
        session_key: key,
        status,
        response,
        requests: journal.since(cursor),
        session: session?,
        elapsed: started.elapsed(),
    })
}

/// The gateway's `{error: {message}}`, or the whole body when it has none.
fn error_message(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| response.to_string())
}

/// The reference turn: one user message, the scenario's client tools; `stream` as the lane says.
pub fn turn_body(scenario: &Scenario, stream: bool) -> Value {
    let mut body = json!({
        "model": "openclaw/qa",
        "input": [{ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": scenario.prompt }] }],
        "stream": stream,
    });
    if let Some(max) = scenario.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if !scenario.catalog.client.is_empty() {
        let tools: Vec<Value> = scenario
            .catalog
            .client
            .iter()
            .map(|name| super::client_handoff::client_tool_declaration(name))
            .collect();
        body["tools"] = json!(tools);
    }
    body
}

/// Sends the scenario's turn to a gateway; the status and the (decoded) body.
pub(crate) async fn send_turn(
    base_url: &str,
    scenario: &Scenario,
    lane: &Lane,
    session_key: &str,
    timeout: Duration,
) -> Result<(u16, Value), HarnessError> {
    let url = format!("{base_url}/v1/responses");
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| HarnessError::infra(format!("http client: {e}")))?;
    let response = client
        .post(&url)
        .header(AGENT_HEADER, &scenario.agent)
        .header(SESSION_HEADER, session_key)
        .json(&turn_body(scenario, lane.stream))
        .send()
        .await
        .map_err(|e| match e.is_timeout() {
            true => HarnessError::infra(format!(
                "POST {url}: no answer within {} s",
                timeout.as_secs()
            )),
            false => HarnessError::infra(format!("POST {url}: {e}")),
        })?;
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response
        .text()
        .await
        .map_err(|e| HarnessError::infra(format!("POST {url}: reading body: {e}")))?;
    let is_stream = response_is_stream(&headers);
    if is_stream && (200..300).contains(&status) {
        let body = crate::gateway::sse::decode_stream(&text).map_err(|e| {
            HarnessError::infra(format!(
                "POST {url} answered HTTP {status} with a broken stream: {e}"
            ))
        })?;
        return Ok((status, body));
    }
    let body = serde_json::from_str(&text).map_err(|e| {
        HarnessError::infra(format!(
            "POST {url} answered HTTP {status} with a non-JSON body ({e}): {text}"
        ))
    })?;
    Ok((status, body))
}

fn response_is_stream(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}

/// The per-lane figures of the reference run (qa-lab-reference §1), plus the session-log answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaneFigures {
    pub status: u16,
    pub provider_request_count: usize,
    pub first_request_bytes: usize,
    pub provider_raw_bytes: usize,
    pub provider_system_prompt_chars: usize,
    pub provider_declared_tool_count: usize,
    pub provider_declared_tool_names: Vec<String>,
    pub provider_planned_tools: Vec<Option<String>>,
    pub gateway_output_tool_names: Vec<String>,
    pub gateway_output_text: String,
    pub session_log: SessionAnswers,
}

/// The four questions of spec §9, answered from the session log.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswers {
    pub schemas_up_front: Option<usize>,
    pub catalog_size: Option<usize>,
    pub searches: u64,
    pub describes: u64,
    pub calls: u64,
    pub final_tool: Option<String>,
    pub final_tool_source: Option<String>,
    pub bridged_calls: usize,
}

impl LaneObservation {
    pub fn figures(&self) -> LaneFigures {
        let first = self.requests.first();
        let declared = first
            .map(|r| declared_tool_names(&r.body))
            .unwrap_or_default();
        LaneFigures {
            status: self.status,
            provider_request_count: self.requests.len(),
            first_request_bytes: first.map(|r| r.raw_byte_length).unwrap_or(0),
            provider_raw_bytes: self.requests.last().map(|r| r.raw_byte_length).unwrap_or(0),
            provider_system_prompt_chars: first.map(|r| system_prompt_chars(&r.body)).unwrap_or(0),
            provider_declared_tool_count: declared.len(),
            provider_declared_tool_names: declared,
            provider_planned_tools: self.requests.iter().map(|r| planned_wire_tool(r)).collect(),
            gateway_output_tool_names: output_tool_names(&self.response),
            gateway_output_text: output_text(&self.response),
            session_log: session_answers(&self.session),
        }
    }
}

/// What the mock planned on the wire for one request (`plannedWireToolName ?? plannedToolName`).
pub fn planned_wire_tool(record: &JournalRecord) -> Option<String> {
    record
        .planned_wire_tool_name
        .clone()
        .or_else(|| record.planned_tool_name.clone())
}

/// Names in a request's `tools[]`, in order.
pub fn declared_tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// `instructions` plus the text of every system/developer input item.
pub fn system_prompt_chars(body: &Value) -> usize {
    let instructions = body
        .get("instructions")
        .and_then(Value::as_str)
        .map(|s| s.chars().count())
        .unwrap_or(0);
    let items = body
        .get("input")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let system: usize = items
        .iter()
        .filter(|i| {
            matches!(
                i.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        })
        .map(|i| crate::gateway::agent::item_text(i).chars().count())
        .sum();
    instructions + system
}

fn output_items(response: &Value) -> &[Value] {
    response
        .get("output")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// Names of `function_call` items in the gateway's answer.
pub fn output_tool_names(response: &Value) -> Vec<String> {
    output_items(response)
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call"))
        .filter_map(|i| i.get("name").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// The text of every message item in the gateway's answer.
pub fn output_text(response: &Value) -> String {
    output_items(response)
        .iter()
        .filter(|i| i.get("type").and_then(Value::as_str) == Some("message"))
        .map(crate::gateway::agent::item_text)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Answers spec §9's questions from our session-log records.
pub fn session_answers(records: &[Value]) -> SessionAnswers {
    let mut answers = SessionAnswers::default();
    for record in records {
        match record.get("type").and_then(Value::as_str) {
            Some("surface") => {
                answers.schemas_up_front = record
                    .get("declaredToolCount")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize);
                answers.catalog_size = record
                    .get("catalogSize")
                    .and_then(Value::as_u64)
                    .map(|n| n as usize);
            }
            Some("telemetry") => {
                let t = &record["telemetry"];
                answers.searches = t["searchCount"].as_u64().unwrap_or(0);
                answers.describes = t["describeCount"].as_u64().unwrap_or(0);
                answers.calls = t["callCount"].as_u64().unwrap_or(0);
            }
            Some("toolResult") => {
                let name = record
                    .get("toolName")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                let ok = record.get("isError").and_then(Value::as_bool) == Some(false);
                if record.get("parentToolCallId").is_some() {
                    answers.bridged_calls += 1;
                }
                if ok && !crate::engine::surface::CONTROL_TOOLS.contains(&name) {
                    answers.final_tool = Some(name.to_string());
                    answers.final_tool_source = record
                        .get("source")
                        .and_then(Value::as_str)
                        .map(str::to_string);
                }
            }
            _ => {}
        }
    }
    answers
}
