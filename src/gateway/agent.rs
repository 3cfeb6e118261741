//! The agent loop of one turn: plan the surface, talk to the provider until it answers with a
//! message, execute its function calls in between, and write every step to the session log.

use std::sync::Arc;

use serde_json::{json, Value};
use thiserror::Error;

use super::client::{client_handoff, Handoff};
use super::dispatch::{dispatch, Dispatched};
use super::execute::{BridgedCall, GatewayRunner};
use super::prompt::{turn_declarations, turn_input, turn_system_prompt};
use super::session_log::SessionWriter;
use super::upstream::{OutputItem, UpstreamError};
use super::GatewayState;
use crate::catalog::ToolEntry;
use crate::engine::{Surface, SurfacePlan};
use crate::protocol::item_text;
use crate::protocol::record::{
    BridgedResult, ClientToolCallRecord, DirectResult, MessageRecord, ProviderRequestRecord, Role,
    SessionRecord, SurfaceRecord, ToolCallRecord, ToolResultRecord,
};

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
    log: &SessionWriter,
    request: TurnRequest,
) -> Result<TurnOutcome, TurnError> {
    let result = run_turn_inner(state, log, request).await;
    if let Err(error) = &result {
        log.append(SessionRecord::TurnError {
            error: error.to_string(),
        })?;
    }
    result
}

async fn run_turn_inner(
    state: &GatewayState,
    log: &SessionWriter,
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
        log.append(SessionRecord::Message(MessageRecord::text(
            Role::User,
            item_text(item),
        )))?;
    }

    let declarations = turn_declarations(&state.profile, &surface, &request.required_tools);
    let mut input = vec![json!({
        "type": "message",
        "role": "system",
        "content": [{ "type": "input_text", "text": turn_system_prompt(&state.profile, &surface, &declarations) }]
    })];
    input.extend(state.history(&request.session_key));
    input.extend(turn_input(&state.profile, &request.input));
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
        log.append(SessionRecord::ProviderRequest(request_figures(
            round,
            &body,
            bytes.len(),
        )))?;
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
                    log.append(SessionRecord::Message(MessageRecord::tool_call(
                        ToolCallRecord {
                            id: call_id.clone(),
                            name: name.clone(),
                            arguments: arguments.clone(),
                            parent_tool_call_id: None,
                            tool_id: None,
                            source: None,
                        },
                    )))?;
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
                    log.append(SessionRecord::Message(MessageRecord::text(
                        Role::Assistant,
                        text.clone(),
                    )))?;
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
        log.append(SessionRecord::Telemetry {
            telemetry: run.telemetry().into(),
        })?;
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
fn log_handoff(log: &SessionWriter, call_id: &str, handoff: &Handoff) -> std::io::Result<()> {
    let entry = &handoff.entry;
    log.append(SessionRecord::ClientToolCall(ClientToolCallRecord {
        tool_call_id: call_id.to_string(),
        tool_name: entry.name.clone(),
        tool_id: entry.id.clone(),
        source: entry.source,
        via_tool_call: handoff.via_tool_call,
    }))
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
fn request_figures(round: usize, body: &Value, raw_bytes: usize) -> ProviderRequestRecord {
    let tools = body
        .get("tools")
        .cloned()
        .unwrap_or(Value::Array(Vec::new()));
    let tool_bytes = serde_json::to_vec(&tools).map(|b| b.len()).unwrap_or(0);
    let prompt_chars = body["input"][0]["content"][0]["text"]
        .as_str()
        .map(|t| t.chars().count())
        .unwrap_or(0);
    ProviderRequestRecord {
        round,
        raw_bytes,
        tools_bytes: tool_bytes,
        system_prompt_chars: prompt_chars,
        declared_tool_count: tools.as_array().map(Vec::len).unwrap_or(0),
    }
}

fn log_surface(log: &SessionWriter, surface: &Surface) -> std::io::Result<()> {
    let telemetry = surface.run.as_ref().map(|r| r.telemetry());
    let declared = surface.declared_names();
    log.append(SessionRecord::Surface(SurfaceRecord {
        mode: Some(surface.mode),
        declared_tool_count: Some(declared.len()),
        declared_tools: Some(declared),
        catalog_size: Some(telemetry.as_ref().map(|t| t.catalog_size).unwrap_or(0)),
        sources: telemetry.map(|t| t.sources),
        notes: Some(surface.notes.clone()),
        unrecorded: None,
    }))
}

fn log_tool_result(
    log: &SessionWriter,
    call_id: &str,
    name: &str,
    result: &Dispatched,
) -> std::io::Result<()> {
    log.append(SessionRecord::ToolResult(ToolResultRecord::Direct(
        DirectResult {
            tool_call_id: call_id.to_string(),
            tool_name: name.to_string(),
            is_error: result.is_error,
            source: result.source,
            output: result.output.clone(),
        },
    )))
}

/// The synthetic assistant toolCall + toolResult pair of each bridged call (spec §9).
fn log_bridged(
    log: &SessionWriter,
    parent: &str,
    bridged: Vec<BridgedCall>,
) -> std::io::Result<()> {
    for call in bridged {
        let entry = call.entry;
        log.append(SessionRecord::Message(MessageRecord {
            role: Role::Assistant,
            synthetic: true,
            text: None,
            tool_call: Some(ToolCallRecord {
                id: call.call_id.clone(),
                name: entry.name.clone(),
                arguments: call.args.to_string(),
                parent_tool_call_id: Some(parent.to_string()),
                tool_id: Some(entry.id.clone()),
                source: Some(entry.source),
            }),
        }))?;
        let (is_error, output) = match call.outcome {
            Ok(result) => (false, result),
            Err(message) => (true, Value::from(message)),
        };
        log.append(SessionRecord::ToolResult(ToolResultRecord::Bridged(
            BridgedResult {
                tool_call_id: call.call_id,
                tool_name: entry.name,
                parent_tool_call_id: parent.to_string(),
                tool_id: Some(entry.id),
                source: Some(entry.source),
                source_name: Some(entry.source_name),
                is_error,
                output,
            },
        )))?;
    }
    Ok(())
}
