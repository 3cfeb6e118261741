//! The agent loop of one turn: plan the surface, talk to the provider until it answers with a
//! message, execute its function calls in between, and write every step to the session log.

use std::sync::Arc;

use serde_json::{json, Value};
use thiserror::Error;

use super::client::{client_handoff, Handoff};
use super::dispatch::{dispatch, Dispatched};
use super::execute::{BridgedCall, GatewayRunner};
use super::prompt::system_prompt;
use super::session_log::SessionLog;
use super::upstream::{OutputItem, UpstreamError};
use super::GatewayState;
use crate::catalog::ToolEntry;
use crate::engine::directory::turn_declarations;
use crate::engine::{Surface, SurfacePlan};

/// The provider rounds one turn may take before the gateway gives up.
pub const MAX_PROVIDER_ROUNDS: usize = 8;

/// One turn as the HTTP layer hands it over.
pub struct TurnRequest {
    pub agent_id: String,
    pub session_key: String,
    /// Input items to append (user messages, normalised to Responses items).
    pub input: Vec<Value>,
    /// Client tools supplied by the caller.
    pub client_tools: Vec<ToolEntry>,
    /// Tools the caller's `tool_choice` requires (directory mode declares their schemas up front).
    pub required_tools: Vec<String>,
    pub max_output_tokens: Option<u64>,
}

/// What the turn produced for the caller.
pub struct TurnOutcome {
    pub text: String,
    /// `function_call` items handed back to the caller (client tools).
    pub client_calls: Vec<Value>,
}

#[derive(Debug, Error)]
pub enum TurnError {
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    #[error("the model made {MAX_PROVIDER_ROUNDS} provider rounds without a final answer")]
    TooManyRounds,
    #[error("session log: {0}")]
    SessionLog(#[from] std::io::Error),
}

/// Runs one turn. Every record before a failure stays in the session log, and the failure is logged too.
pub async fn run_turn(
    state: &GatewayState,
    log: &SessionLog,
    request: TurnRequest,
) -> Result<TurnOutcome, TurnError> {
    let result = run_turn_inner(state, log, request).await;
    if let Err(error) = &result {
        log.append("turn_error", json!({ "error": error.to_string() }))?;
    }
    result
}

async fn run_turn_inner(
    state: &GatewayState,
    log: &SessionLog,
    request: TurnRequest,
) -> Result<TurnOutcome, TurnError> {
    let mut tools = state.tools.clone();
    tools.extend(request.client_tools);
    let settings = &state.config.tool_search;
    let surface = Surface::plan(SurfacePlan {
        requested: settings.mode,
        tools,
        policy: &state.config.policy,
        limits: crate::engine::SearchLimits {
            default_limit: settings.search_default_limit,
            max_limit: settings.max_search_limit,
        },
        code_runtime: state.code_runtime.clone(),
    });
    log_surface(log, &surface)?;
    for item in &request.input {
        log.append(
            "message",
            json!({ "role": "user", "text": item_text(item) }),
        )?;
    }

    let declarations = turn_declarations(&surface, &request.required_tools);
    let mut input = vec![json!({
        "type": "message",
        "role": "system",
        "content": [{ "type": "input_text", "text": system_prompt(&surface) }]
    })];
    input.extend(state.history(&request.session_key));
    input.extend(request.input.iter().cloned());
    let runner = GatewayRunner::new(
        Arc::new(state.config.policy.clone()),
        Arc::new(surface.eligible.clone()),
    )
    .with_guards(state.guards())
    .with_mcp(state.mcp.clone());
    let mut outcome = None;

    for round in 1..=MAX_PROVIDER_ROUNDS {
        let body = provider_body(
            &state.model,
            &input,
            &declarations,
            request.max_output_tokens,
            state.provider.streams(),
        );
        let bytes = serde_json::to_vec(&body).unwrap_or_default();
        log.append(
            "provider_request",
            request_figures(round, &body, bytes.len()),
        )?;
        let items = state.provider.send(bytes).await?;
        let mut called = false;
        let mut answer = None;
        let mut client_calls = Vec::new();
        for item in items {
            match item {
                OutputItem::FunctionCall {
                    call_id,
                    name,
                    arguments,
                } => {
                    called = true;
                    log.append("message", json!({ "role": "assistant", "toolCall": { "id": call_id, "name": name, "arguments": arguments } }))?;
                    input.push(json!({ "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments }));
                    if let Some(handoff) = client_handoff(&surface, &call_id, &name, &arguments) {
                        log_handoff(log, &call_id, &handoff)?;
                        client_calls.push(handoff.item);
                        continue;
                    }
                    let result = dispatch(
                        &surface,
                        &runner,
                        state.code.as_ref(),
                        &call_id,
                        &name,
                        &arguments,
                    )
                    .await;
                    log_tool_result(log, &call_id, &name, &result)?;
                    log_bridged(log, &call_id, runner.take_bridged())?;
                    input.push(json!({ "type": "function_call_output", "call_id": call_id, "output": result.output }));
                }
                OutputItem::Message { text } => {
                    log.append("message", json!({ "role": "assistant", "text": text }))?;
                    answer = Some(text);
                }
            }
        }
        if !client_calls.is_empty() {
            outcome = Some(TurnOutcome {
                text: answer.unwrap_or_default(),
                client_calls,
            });
            break;
        }
        if let (false, Some(text)) = (called, answer) {
            outcome = Some(TurnOutcome { text, client_calls });
            break;
        }
    }
    if let Some(run) = &surface.run {
        log.append("telemetry", json!({ "telemetry": run.telemetry() }))?;
    }
    let outcome = outcome.ok_or(TurnError::TooManyRounds)?;
    let mut history = request.input;
    if !outcome.text.is_empty() {
        history.push(json!({ "type": "message", "role": "assistant", "content": [{ "type": "output_text", "text": outcome.text }] }));
    }
    state.remember(&request.session_key, history);
    Ok(outcome)
}

/// A client tool handed back to the caller: not run here, so no result, only this record.
fn log_handoff(log: &SessionLog, call_id: &str, handoff: &Handoff) -> std::io::Result<()> {
    let entry = &handoff.entry;
    log.append(
        "clientToolCall",
        json!({
            "toolCallId": call_id, "toolName": entry.name, "toolId": entry.id,
            "source": entry.source, "viaToolCall": handoff.via_tool_call,
        }),
    )
}

/// The Responses API request body: model, input, tools, stream, max_output_tokens, store.
pub fn provider_body(
    model: &str,
    input: &[Value],
    tools: &[Value],
    max_output_tokens: Option<u64>,
    stream: bool,
) -> Value {
    let mut body = json!({ "model": model, "input": input });
    if !tools.is_empty() {
        body["tools"] = Value::from(tools.to_vec());
    }
    body["stream"] = Value::Bool(stream);
    if let Some(max) = max_output_tokens {
        body["max_output_tokens"] = Value::from(max);
    }
    body["store"] = Value::Bool(false);
    body
}

/// The per-request telemetry of spec §9: bytes of the whole request, of the tools and of the prompt.
fn request_figures(round: usize, body: &Value, raw_bytes: usize) -> Value {
    let tools = body
        .get("tools")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let tool_bytes = serde_json::to_vec(&tools).map(|b| b.len()).unwrap_or(0);
    let prompt_chars = body["input"][0]["content"][0]["text"]
        .as_str()
        .map(|t| t.chars().count())
        .unwrap_or(0);
    json!({
        "round": round,
        "rawBytes": raw_bytes,
        "toolsBytes": tool_bytes,
        "systemPromptChars": prompt_chars,
        "declaredToolCount": tools.as_array().map(Vec::len).unwrap_or(0),
    })
}

fn log_surface(log: &SessionLog, surface: &Surface) -> std::io::Result<()> {
    let telemetry = surface.run.as_ref().map(|r| r.telemetry());
    log.append(
        "surface",
        json!({
            "mode": surface.mode,
            "declaredTools": surface.declared_names(),
            "declaredToolCount": surface.declared_names().len(),
            "catalogSize": telemetry.as_ref().map(|t| t.catalog_size).unwrap_or(0),
            "sources": telemetry.map(|t| t.sources),
            "notes": surface.notes,
        }),
    )
}

fn log_tool_result(
    log: &SessionLog,
    call_id: &str,
    name: &str,
    result: &Dispatched,
) -> std::io::Result<()> {
    log.append(
        "toolResult",
        json!({ "toolCallId": call_id, "toolName": name, "isError": result.is_error, "source": result.source, "output": result.output }),
    )
}

/// The synthetic assistant toolCall + toolResult pair of each bridged call (spec §9).
fn log_bridged(log: &SessionLog, parent: &str, bridged: Vec<BridgedCall>) -> std::io::Result<()> {
    for call in bridged {
        let entry = &call.entry;
        log.append(
            "message",
            json!({
                "role": "assistant",
                "synthetic": true,
                "toolCall": {
                    "id": call.call_id, "name": entry.name, "arguments": call.args.to_string(),
                    "parentToolCallId": parent, "toolId": entry.id, "source": entry.source,
                },
            }),
        )?;
        let (is_error, output) = match &call.outcome {
            Ok(result) => (false, result.clone()),
            Err(message) => (true, Value::from(message.as_str())),
        };
        log.append(
            "toolResult",
            json!({
                "toolCallId": call.call_id, "toolName": entry.name, "parentToolCallId": parent,
                "toolId": entry.id, "source": entry.source, "sourceName": entry.source_name,
                "isError": is_error, "output": output,
            }),
        )?;
    }
    Ok(())
}

/// The text of a Responses input item, for the log.
pub fn item_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
