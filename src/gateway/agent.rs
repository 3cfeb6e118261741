//! The agent loop of one turn: plan the surface, talk to the provider until it answers with a
//! message, execute its function calls in between, and write every step to the session log.
//!
//! A turn may also end by handing client tool calls back to the caller (see [`super::client`]);
//! the next request answers them and this loop resumes the same turn where it stopped (see
//! [`super::conversation`]). The turn's usage adds up what the provider reported for every
//! round; a round whose response had no usage is counted here with the same tokenizer.

use serde::Serialize;

use serde_json::{json, Value};
use thiserror::Error;

use super::client::{client_handoff, Handoff};
use super::conversation::{Answer, Conversation, HandedBack, PendingTurn, TurnStart};
use super::dispatch::{dispatch, Dispatched};
use super::execute::{BridgedCall, CodeHandoff, GatewayRunner};
use super::faults::Fault;
use super::native::NativeTools;
use super::prompt::{turn_declarations, turn_input, turn_system_prompt};
use super::session_log::SessionWriter;
use super::upstream::{OutputItem, UpstreamError};
use super::GatewayState;
use crate::catalog::{FunctionDeclaration, ToolEntry, ToolSource};
use crate::engine::{Surface, SurfacePlan};
use crate::protocol::item_text;
use crate::protocol::record::{
    BridgedResult, ClientToolCallRecord, DirectResult, MessageRecord, ProviderRequestRecord, Role,
    SessionRecord, SurfaceRecord, ToolCallRecord, ToolResultRecord,
};
use crate::protocol::response_object::ResponseItem;
use crate::protocol::usage::{TokenizerError, Usage};

/// The provider rounds one turn may take before the gateway gives up.
pub const MAX_PROVIDER_ROUNDS: usize = 8;

/// How often one call (the same tool with the same arguments) may fail in a turn before the
/// gateway stops the turn: a model that repeats a failing call does not learn from the error, and
/// without a bound the turn runs until something outside kills it (openclaw/openclaw#141743).
pub const REPEATED_FAILURE_LIMIT: usize = 3;

/// Failing calls of one turn, counted per tool and arguments.
#[derive(Default)]
struct RepeatedFailures(std::collections::BTreeMap<(String, String), usize>);

impl RepeatedFailures {
    /// Counts one failure; why the turn stops, once the same call has failed
    /// [`REPEATED_FAILURE_LIMIT`] times.
    fn fail(&mut self, name: &str, arguments: &str, output: &str) -> Option<String> {
        let count = self.0.entry((name.into(), arguments.into())).or_default();
        *count += 1;
        (*count >= REPEATED_FAILURE_LIMIT).then(|| {
            format!(
                "turn stopped: {name} failed {count} times with the same arguments {arguments}; \
                 the last error: {output}"
            )
        })
    }
}

/// The rounds of the [`Fault::FailureLoopUnbounded`] seed: more than any scripted loop takes.
const UNBOUNDED_ROUNDS: usize = 64;

/// One turn as the HTTP layer hands it over.
pub struct TurnRequest {
    pub agent_id: String,
    pub session_key: String,
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
    pub client_calls: Vec<ResponseItem>,
    /// The provider's usage, summed over the turn's rounds.
    pub usage: Usage,
    /// The session's conversation after this turn (the caller stores it with the response id).
    pub conversation: Conversation,
    /// Why the gateway stopped the turn before the model answered (a call that kept failing):
    /// the caller gets a failed response saying so.
    pub stopped: Option<String>,
}

#[derive(Debug, Error)]
pub enum TurnError {
    #[error(transparent)]
    Upstream(#[from] UpstreamError),
    #[error("the model made {MAX_PROVIDER_ROUNDS} provider rounds without a final answer")]
    TooManyRounds,
    #[error("session log: {0}")]
    SessionLog(#[from] std::io::Error),
    #[error("usage: {0}")]
    Usage(#[from] TokenizerError),
}

/// Runs one turn of a session whose conversation was `conversation`, started (or resumed) as
/// `start` says. Every record before a failure stays in the session log, and the failure is
/// logged too; a failed turn leaves the conversation as it was.
pub async fn run_turn(
    state: &GatewayState,
    log: &SessionWriter,
    request: TurnRequest,
    conversation: Conversation,
    start: TurnStart,
) -> Result<TurnOutcome, TurnError> {
    let result = run_turn_inner(state, log, request, conversation, start).await;
    if let Err(error) = &result {
        log.append(SessionRecord::TurnError {
            error: error.to_string(),
        })?;
    }
    result
}

/// What one turn hands back: the items for the caller and the calls it now waits for.
#[derive(Default)]
struct HandedBackCalls {
    items: Vec<ResponseItem>,
    calls: Vec<HandedBack>,
}

async fn run_turn_inner(
    state: &GatewayState,
    log: &SessionWriter,
    request: TurnRequest,
    mut conversation: Conversation,
    start: TurnStart,
) -> Result<TurnOutcome, TurnError> {
    let surface = planned_surface(state, request.client_tools);
    let native = state.config.native.map(|settings| {
        native_tools(
            settings,
            &surface,
            state.seeded(Fault::CatalogueNotDeferred),
        )
    });
    log_surface(
        log,
        &surface,
        native.as_ref(),
        state.seeded(Fault::SurfaceMiscount),
    )?;
    for message in &start.messages {
        log.append(SessionRecord::Message(MessageRecord::text(
            role_of(message),
            item_text(message),
        )))?;
    }
    for answer in &start.answers {
        log_answer(log, answer)?;
    }

    let declarations = match &native {
        Some(native) => native.visible.clone(),
        None => turn_declarations(&state.profile, &surface, &request.required_tools),
    };
    let window = state.config.context_window();
    let prompt = match &native {
        Some(_) => turn_system_prompt(
            &state.profile,
            &without_bridge(&surface),
            &declarations,
            window,
        ),
        None => turn_system_prompt(&state.profile, &surface, &declarations, window),
    };
    let prompt = seeded_prompt(state, &surface, prompt);
    let mut input = vec![system_item(&prompt)];
    input.extend(conversation.history.iter().cloned());
    let turn_from = input.len();
    // A profile shapes a fresh turn's messages once; a resumed turn's items were shaped then.
    let items = start.provider_items();
    match start.resumed {
        Some(_) => input.extend(items),
        None => input.extend(turn_input(&state.profile, &items)),
    }
    let runner = GatewayRunner::new(state.policy.clone(), surface.eligible.clone())
        .with_fault(state.fault)
        .with_guards(state.guards())
        .with_mcp(state.mcp.clone());
    let mut usage = Usage::default();
    let mut finished = None;
    let mut saw_tool_error = false;
    let unbounded = state.seeded(Fault::FailureLoopUnbounded);
    let rounds = match unbounded {
        true => UNBOUNDED_ROUNDS,
        false => MAX_PROVIDER_ROUNDS,
    };
    let mut failures = RepeatedFailures::default();
    let mut stopped = None;

    for round in 1..=rounds {
        if state.seeded(Fault::NonceInPrompt) {
            input[0] = system_item(&format!("{prompt}\nrequest id: {}", nonce(round)));
        }
        let reordered: Vec<FunctionDeclaration>;
        let tools = match round > 1 && state.seeded(Fault::ToolOrderVaries) {
            true => {
                reordered = declarations.iter().rev().cloned().collect();
                &reordered
            }
            false => &declarations,
        };
        let (bytes, figures) = match &native {
            Some(native) => {
                let reversed = round > 1 && state.seeded(Fault::ToolOrderVaries);
                let native = match reversed {
                    true => &native.reversed(),
                    false => native,
                };
                native_request(native, state, &input, round, request.max_output_tokens)
            }
            None => {
                let body = provider_body(
                    &state.model,
                    &input,
                    tools,
                    request.max_output_tokens,
                    state.provider.streams(),
                );
                let bytes = body.to_bytes();
                let figures = request_figures(round, &body, bytes.len());
                (bytes, figures)
            }
        };
        log.append(SessionRecord::ProviderRequest(figures))?;
        let sent = String::from_utf8_lossy(&bytes).into_owned();
        let reply = state.provider.send(bytes).await?;
        usage = usage + round_usage(&sent, &reply.items, reply.usage)?;
        let mut called = false;
        let mut answer = None;
        let mut handed = HandedBackCalls::default();
        let items = match &native {
            Some(native) => native.client_searches(reply.items),
            None => reply.items,
        };
        for item in items {
            match item {
                OutputItem::FunctionCall {
                    call_id,
                    name,
                    arguments,
                    namespace,
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
                    let mut call = json!({ "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments });
                    if let Some(namespace) = namespace {
                        call["namespace"] = Value::String(namespace);
                    }
                    input.push(call);
                    let handoff = match state.seeded(Fault::ClientToolRun) {
                        true => None,
                        false => client_handoff(&surface, &call_id, &name, &arguments),
                    };
                    if let Some(handoff) = handoff {
                        log_handoff(log, &call_id, &handoff)?;
                        handed.items.push(handoff.item);
                        handed.calls.push(HandedBack {
                            call_id: call_id.clone(),
                            name: handoff.entry.name.clone(),
                            tool_id: handoff.entry.id.clone(),
                            arguments: handoff.arguments,
                            parent: None,
                        });
                        continue;
                    }
                    let result = dispatch(
                        &surface,
                        &runner,
                        state.code.as_ref(),
                        state.cells.as_ref(),
                        &call_id,
                        &name,
                        &arguments,
                    )
                    .await;
                    saw_tool_error |= result.is_error;
                    if result.is_error && !unbounded && stopped.is_none() {
                        stopped = failures.fail(&name, &arguments, &result.output);
                    }
                    let unsourced = state.seeded(Fault::SourceUnrecorded);
                    log_tool_result(log, &call_id, &name, &result, unsourced)?;
                    let bridged = runner.take_bridged();
                    if !state.seeded(Fault::BridgedRecordSkipped) {
                        let parent = result.nested_parent.as_deref().unwrap_or(&call_id);
                        log_bridged(log, parent, bridged, unsourced)?;
                    }
                    for code_handoff in runner.take_handoffs() {
                        log_code_handoff(log, &call_id, &code_handoff)?;
                        handed.push_code(&call_id, code_handoff);
                    }
                    input.push(json!({ "type": "function_call_output", "call_id": call_id, "output": result.output }));
                }
                OutputItem::Message { text } => {
                    log.append(SessionRecord::Message(MessageRecord::text(
                        Role::Assistant,
                        text.clone(),
                    )))?;
                    answer = Some(text);
                }
                OutputItem::Carried { item } => {
                    let dropped = state.seeded(Fault::SearchResultDropped)
                        || (state.seeded(Fault::SearchCallDropped)
                            && crate::gateway::native::is_search_call(&item))
                        || (state.seeded(Fault::ServerToolUseDropped)
                            && crate::gateway::native::is_server_tool_use(&item));
                    if !dropped {
                        input.push(item);
                    }
                }
                OutputItem::SearchCall {
                    call_id,
                    arguments,
                    item,
                } => {
                    called = true;
                    // The seed drops a client search's call too: its answer is then an orphan.
                    if !state.seeded(Fault::SearchCallDropped) {
                        input.push(item);
                    }
                    let output =
                        client_search(log, &surface, native.as_ref(), &call_id, &arguments)?;
                    input.push(output);
                }
            }
        }
        if let Some(reason) = &stopped {
            log.append(SessionRecord::TurnError {
                error: reason.clone(),
            })?;
            conversation
                .history
                .extend(input[turn_from..].iter().cloned());
            conversation.pending = None;
            finished = Some((String::new(), Vec::new()));
            break;
        }
        if !handed.items.is_empty() {
            conversation.pending = Some(PendingTurn {
                caller_items: start.caller_items(),
                provider_items: input[turn_from..].to_vec(),
                calls: handed.calls,
            });
            finished = Some((answer.unwrap_or_default(), handed.items));
            break;
        }
        if let (false, Some(mut text)) = (called, answer) {
            if saw_tool_error && state.seeded(Fault::SilentAfterToolError) {
                text.clear();
            }
            // The turn as the provider saw it (the profile's shaping, every call and output),
            // so the next turn's requests start with this one's bytes: a prompt cache holds.
            conversation
                .history
                .extend(input[turn_from..].iter().cloned());
            if !text.is_empty() {
                // The answer as an input message (the SDK's `EasyInputMessageParam`: an
                // assistant's `output_text` parts would need the output item's id and status).
                conversation
                    .history
                    .push(json!({ "type": "message", "role": "assistant", "content": text }));
            }
            conversation.pending = None;
            finished = Some((text, Vec::new()));
            break;
        }
    }
    if let Some(run) = &surface.run {
        let mut telemetry = run.telemetry();
        if state.seeded(Fault::TelemetryMiscount) {
            telemetry.search_count += 1;
        }
        log.append(SessionRecord::Telemetry {
            telemetry: telemetry.into(),
        })?;
    }
    let (text, client_calls) = finished.ok_or(TurnError::TooManyRounds)?;
    Ok(TurnOutcome {
        text,
        client_calls,
        usage,
        conversation,
        // Seeded, a turn stopped on a call that kept failing ends as a silent success: the
        // model's retries of a refused call leave no reply (openclaw/openclaw#135129 as filed).
        stopped: stopped.filter(|_| !state.seeded(Fault::SilentAfterToolError)),
    })
}

impl HandedBackCalls {
    /// A client tool the code of `parent` called.
    fn push_code(&mut self, parent: &str, handoff: CodeHandoff) {
        let arguments = handoff.args.to_string();
        self.items.push(ResponseItem::function_call(
            &handoff.call_id,
            &handoff.entry.name,
            arguments.clone(),
        ));
        self.calls.push(HandedBack {
            call_id: handoff.call_id,
            name: handoff.entry.name,
            tool_id: handoff.entry.id,
            arguments,
            parent: Some(parent.to_string()),
        });
    }
}

/// The system prompt as the first input item.
fn system_item(prompt: &str) -> Value {
    json!({
        "type": "message",
        "role": "system",
        "content": [{ "type": "input_text", "text": prompt }]
    })
}

/// The system prompt with the seeded regression's change, if it has one: a catalogued tool's
/// schema ([`Fault::SchemaInPrompt`]) or filler ([`Fault::PaddedPrompt`]) in a Tool Search turn.
fn seeded_prompt(state: &GatewayState, surface: &Surface, prompt: String) -> String {
    let Some(run) = &surface.run else {
        return prompt;
    };
    if state.seeded(Fault::SchemaInPrompt) {
        let entries = run.catalog().entries();
        let fake = entries
            .iter()
            .find(|e| matches!(e.executor, crate::catalog::Executor::FakePlugin { .. }));
        if let Some(entry) = fake.or(entries.first()) {
            return format!("{prompt}\n{}: {}", entry.name, entry.parameters);
        }
    }
    if state.seeded(Fault::PaddedPrompt) {
        return format!("{prompt}\n{}", ".".repeat(256 * 1024));
    }
    if state.seeded(Fault::DirectoryDropsPlugin) {
        return without_plugin_lines(run.catalog().entries(), &prompt);
    }
    prompt
}

/// The prompt without a `- <name>` line for any fake plugin tool ([`Fault::DirectoryDropsPlugin`]).
fn without_plugin_lines(entries: &[ToolEntry], prompt: &str) -> String {
    let plugin: Vec<&str> = entries
        .iter()
        .filter(|e| matches!(e.executor, crate::catalog::Executor::FakePlugin { .. }))
        .map(|e| e.name.as_str())
        .collect();
    let listed = |line: &str| {
        line.strip_prefix("- ")
            .and_then(|rest| rest.split([' ', '(', ':']).next())
            .is_some_and(|name| plugin.contains(&name))
    };
    let kept: Vec<&str> = prompt
        .split_inclusive('\n')
        .filter(|l| !listed(l))
        .collect();
    kept.concat()
}

/// A fresh id per request ([`Fault::NonceInPrompt`]).
fn nonce(round: usize) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{round}")
}

/// The provider's usage for a round, or — when it reported none — the round counted here: the
/// request body as sent, and the text and calls it answered with.
fn round_usage(
    sent: &str,
    items: &[OutputItem],
    reported: Option<Usage>,
) -> Result<Usage, TokenizerError> {
    if let Some(usage) = reported {
        return Ok(usage);
    }
    let generated: Vec<&str> = items
        .iter()
        .flat_map(|item| match item {
            OutputItem::Message { text } => vec![text.as_str()],
            OutputItem::FunctionCall {
                name, arguments, ..
            } => vec![name.as_str(), arguments.as_str()],
            OutputItem::Carried { .. } | OutputItem::SearchCall { .. } => Vec::new(),
        })
        .collect();
    Usage::count(sent, &generated)
}

/// The tools of a native turn: the surface's visible tools in full, its catalogue deferred
/// (`in_full`: the [`Fault::CatalogueNotDeferred`] seed, the catalogue declared in full too).
fn native_tools(
    settings: crate::config::NativeSettings,
    surface: &Surface,
    in_full: bool,
) -> NativeTools {
    let mut entries: Vec<&ToolEntry> = surface
        .run
        .as_ref()
        .map(|run| run.catalog().entries().iter().collect())
        .unwrap_or_default();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let mut deferred: Vec<FunctionDeclaration> =
        entries.iter().map(|e| e.function_declaration()).collect();
    let sources: Vec<&str> = entries.iter().map(|e| e.source_name.as_str()).collect();
    let mut namespaces = match settings.namespaces {
        true => crate::gateway::native::NamespaceGroup::by_source(&sources),
        false => Vec::new(),
    };
    let mut visible: Vec<FunctionDeclaration> = surface
        .visible
        .iter()
        .map(ToolEntry::function_declaration)
        .collect();
    if in_full {
        visible.append(&mut deferred);
        namespaces.clear();
    }
    NativeTools {
        settings,
        visible,
        deferred,
        namespaces,
    }
}

/// The surface a native turn's system prompt describes: the visible tools only, no bridge and
/// no directory (the provider shows the deferred tools its own way).
fn without_bridge(surface: &Surface) -> Surface {
    Surface {
        mode: crate::config::ToolSearchMode::Direct,
        controls: Vec::new(),
        run: None,
        ..surface.clone()
    }
}

/// A native round's body and its figures (spec §9's, over the native `tools[]`).
fn native_request(
    native: &NativeTools,
    state: &GatewayState,
    input: &[Value],
    round: usize,
    max_output_tokens: Option<u64>,
) -> (Vec<u8>, ProviderRequestRecord) {
    let bytes = native.body(
        &state.model,
        input,
        max_output_tokens,
        state.provider.streams(),
    );
    let prompt_chars = input
        .first()
        .map(|system| item_text(system).chars().count())
        .unwrap_or(0);
    let figures = ProviderRequestRecord {
        round,
        raw_bytes: bytes.len(),
        tools_bytes: native.tools_bytes(),
        system_prompt_chars: prompt_chars,
        declared_tool_count: native.declared_count(),
    };
    (bytes, figures)
}

/// Answers a client-executed native search with the engine's search over the catalogue; the
/// call and what it loaded go to the session log as a `tool_search` call and its result.
fn client_search(
    log: &SessionWriter,
    surface: &Surface,
    native: Option<&NativeTools>,
    call_id: &str,
    arguments: &Value,
) -> Result<Value, TurnError> {
    log.append(SessionRecord::Message(MessageRecord::tool_call(
        ToolCallRecord {
            id: call_id.to_string(),
            name: crate::config::TOOL_SEARCH.to_string(),
            arguments: arguments.to_string(),
            parent_tool_call_id: None,
            tool_id: None,
            source: None,
        },
    )))?;
    let answered = match (native, &surface.run) {
        (Some(native), Some(run)) => native.client_search_output(run, call_id, arguments),
        _ => Err(crate::engine::EngineError::InvalidInput(
            "a client search on a lane without a native catalogue".into(),
        )),
    };
    let (output, text, is_error) = match answered {
        Ok((output, names)) => (output, names.join(", "), false),
        Err(error) => {
            let nothing = match native {
                Some(native) => native.search_answer(call_id, &[]),
                None => json!({ "type": "tool_search_output", "call_id": call_id,
                    "execution": "client", "status": "completed", "tools": [] }),
            };
            (nothing, error.to_string(), true)
        }
    };
    log.append(SessionRecord::ToolResult(ToolResultRecord::Direct(
        DirectResult {
            tool_call_id: call_id.to_string(),
            tool_name: crate::config::TOOL_SEARCH.to_string(),
            is_error,
            source: None,
            output: text,
        },
    )))?;
    Ok(output)
}

/// The role of a caller's message item (`user` unless it says otherwise).
fn role_of(message: &Value) -> Role {
    match message["role"].as_str() {
        Some("assistant") => Role::Assistant,
        Some("system") => Role::System,
        Some("developer") => Role::Developer,
        _ => Role::User,
    }
}

/// The turn's surface. A turn that brings no client tools gets the gateway's planned surface
/// (the same for every such turn: its catalogue is indexed once) with counters of its own.
pub(super) fn planned_surface(state: &GatewayState, client_tools: Vec<ToolEntry>) -> Surface {
    if client_tools.is_empty() {
        return state
            .planned
            .get_or_init(|| plan(state, Vec::new()))
            .for_new_run();
    }
    plan(state, client_tools)
}

fn plan(state: &GatewayState, client_tools: Vec<ToolEntry>) -> Surface {
    let mut tools = state.tools.clone();
    if state.seeded(Fault::CatalogueDropsOne) {
        tools.pop();
    }
    let direct = state.config.tool_search.mode == crate::config::ToolSearchMode::Direct;
    if direct && state.seeded(Fault::DirectSchemaDrift) {
        let fake =
            |t: &&mut ToolEntry| matches!(t.executor, crate::catalog::Executor::FakePlugin { .. });
        if let Some(tool) = tools.iter_mut().find(fake) {
            tool.description.push_str(" (changed)");
        }
    }
    tools.extend(client_tools);
    let settings = &state.config.tool_search;
    let open = crate::catalog::ToolPolicy::default();
    let mut requested = settings.mode;
    if state.seeded(Fault::BridgeDropped) {
        requested = crate::config::ToolSearchMode::Direct;
    }
    let code_mode = match state.seeded(Fault::AutoTierIgnoresModel) {
        true => state.config.code_mode.as_ref(),
        false => state.config.code_mode_engaged(),
    };
    if code_mode.is_some() {
        // Code Mode supersedes Tool Search: its catalogue is planned as the tools mode plans one.
        requested = crate::config::ToolSearchMode::Tools;
    }
    let surface = Surface::plan(SurfacePlan {
        requested,
        tools,
        policy: match state.seeded(Fault::DeniedSurfaces) {
            true => &open,
            false => &state.config.policy,
        },
        limits: crate::engine::SearchLimits {
            default_limit: settings.search_default_limit,
            max_limit: settings.max_search_limit,
            batch: settings.batch,
        },
        code_runtime: match state.seeded(Fault::NoSandboxFallback) {
            true => Ok(()),
            false => state.code_runtime.clone(),
        },
        embedder: state.embedder.clone(),
        bridge: std::sync::Arc::new(state.profile.bridge().clone()),
    });
    let surface = match (code_mode, &state.cells) {
        (Some(mode), Some(cells)) => {
            let mut surface = surface.into_code_mode(mode.timeout_ms, cells.unavailable.clone());
            if let (Some(captured), Some(code_mode)) =
                (&state.code_mode_capture, &surface.code_mode)
            {
                let mut with = (**code_mode).clone();
                with.captured = Some(crate::engine::code_mode::CapturedControls {
                    exec_prose: captured.exec_prose.clone(),
                    exec_parameters: captured.exec_parameters.clone(),
                    wait: captured.wait.clone(),
                });
                surface.code_mode = Some(std::sync::Arc::new(with));
            }
            surface
        }
        _ => surface,
    };
    let surface = match state.seeded(Fault::IndexCarriesDescriptions) {
        true => with_described_index(surface),
        false => surface,
    };
    match state.seeded(Fault::CatalogueToolDeclared) {
        true => with_one_catalogued_declared(surface),
        false => surface,
    }
}

/// The [`Fault::IndexCarriesDescriptions`] seed: every quick-index line ends with its tool's
/// description.
fn with_described_index(mut surface: Surface) -> Surface {
    let (Some(code_mode), Some(run)) = (&surface.code_mode, &surface.run) else {
        return surface;
    };
    let lines: Vec<String> = code_mode
        .index
        .lines()
        .map(|line| {
            let name = line.strip_prefix("- ").and_then(|l| l.split(' ').next());
            let entry = name.and_then(|n| run.catalog().entries().iter().find(|e| e.name == n));
            match entry {
                Some(entry) => format!("{line} {}", entry.description),
                None => line.to_string(),
            }
        })
        .collect();
    let mut described = (**code_mode).clone();
    described.index = lines.join("\n");
    surface.code_mode = Some(std::sync::Arc::new(described));
    surface
}

/// The [`Fault::CatalogueToolDeclared`] seed: the first catalogued tool declared as well.
fn with_one_catalogued_declared(mut surface: Surface) -> Surface {
    let Some(first) = surface
        .run
        .as_ref()
        .and_then(|r| r.catalog().entries().first())
    else {
        return surface;
    };
    let mut visible = surface.visible.to_vec();
    visible.push(first.clone());
    visible.sort_by(|a, b| a.name.cmp(&b.name));
    surface.visible = visible.into();
    surface
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
        parent_tool_call_id: None,
    }))
}

/// A client tool that code called: the synthetic call (as for every bridged call, spec §9)
/// and the hand-off record; its result comes from the caller.
fn log_code_handoff(
    log: &SessionWriter,
    parent: &str,
    handoff: &CodeHandoff,
) -> std::io::Result<()> {
    let entry = &handoff.entry;
    log.append(synthetic_call(
        &handoff.call_id,
        entry,
        &handoff.args,
        parent,
    ))?;
    log.append(SessionRecord::ClientToolCall(ClientToolCallRecord {
        tool_call_id: handoff.call_id.clone(),
        tool_name: entry.name.clone(),
        tool_id: entry.id.clone(),
        source: entry.source,
        via_tool_call: false,
        parent_tool_call_id: Some(parent.to_string()),
    }))
}

/// The caller's output for a handed-back call: the client tool's result (bridged when code
/// called it).
fn log_answer(log: &SessionWriter, answer: &Answer) -> std::io::Result<()> {
    let call = &answer.call;
    let text = match &answer.output {
        Value::String(text) => text.clone(),
        parts => item_text(&json!({ "content": parts })),
    };
    let record = match &call.parent {
        Some(parent) => ToolResultRecord::Bridged(BridgedResult {
            tool_call_id: call.call_id.clone(),
            tool_name: call.name.clone(),
            parent_tool_call_id: parent.clone(),
            tool_id: Some(call.tool_id.clone()),
            source: Some(ToolSource::Client),
            source_name: Some("client".into()),
            is_error: false,
            output: Value::String(text),
        }),
        None => ToolResultRecord::Direct(DirectResult {
            tool_call_id: call.call_id.clone(),
            tool_name: call.name.clone(),
            is_error: false,
            source: Some(ToolSource::Client),
            output: text,
        }),
    };
    log.append(SessionRecord::ToolResult(record))
}

/// The Responses API request body: model, input, tools (left out when empty), stream,
/// max_output_tokens (when set), store — in that order. It is serialised straight from the
/// turn's parts, so a request is built once, as its bytes, and never as a JSON tree.
#[derive(Debug, Serialize)]
pub struct ProviderBody<'a> {
    model: &'a str,
    input: &'a [Value],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tools: &'a [FunctionDeclaration],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u64>,
    store: bool,
}

/// The body of one provider request.
pub fn provider_body<'a>(
    model: &'a str,
    input: &'a [Value],
    tools: &'a [FunctionDeclaration],
    max_output_tokens: Option<u64>,
    stream: bool,
) -> ProviderBody<'a> {
    ProviderBody {
        model,
        input,
        tools,
        stream,
        max_output_tokens,
        store: false,
    }
}

impl ProviderBody<'_> {
    /// The exact bytes sent.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_default()
    }
}

/// The body as JSON text (the same bytes as [`ProviderBody::to_bytes`]).
impl std::fmt::Display for ProviderBody<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.to_bytes()))
    }
}

/// Counts the bytes serialised into it.
#[derive(Default)]
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The per-request telemetry of spec §9: bytes of the whole request, of the tools and of the prompt.
fn request_figures(
    round: usize,
    body: &ProviderBody<'_>,
    raw_bytes: usize,
) -> ProviderRequestRecord {
    let mut tool_bytes = ByteCount::default();
    let _counted = serde_json::to_writer(&mut tool_bytes, body.tools);
    let prompt_chars = body
        .input
        .first()
        .and_then(|system| system["content"][0]["text"].as_str())
        .map(|t| t.chars().count())
        .unwrap_or(0);
    ProviderRequestRecord {
        round,
        raw_bytes,
        tools_bytes: tool_bytes.0,
        system_prompt_chars: prompt_chars,
        declared_tool_count: body.tools.len(),
    }
}

/// The `surface` record; `miscount` is the [`Fault::SurfaceMiscount`] seed.
/// A native turn logs what it declares in full (the visible tools; its catalogue goes deferred,
/// beside the provider's search tool, which a note names) instead of the planned bridge.
fn log_surface(
    log: &SessionWriter,
    surface: &Surface,
    native: Option<&NativeTools>,
    miscount: bool,
) -> std::io::Result<()> {
    let telemetry = surface.run.as_ref().map(|r| r.telemetry());
    let (declared, notes) = match native {
        Some(native) => (
            native.visible.iter().map(|d| d.name.clone()).collect(),
            vec![format!(
                "native search: {} {} search over the catalogue, sent deferred{}",
                native.settings.provider.as_str(),
                native.settings.search.as_str(),
                match native.settings.namespaces {
                    true => " in namespaces by source",
                    false => "",
                }
            )],
        ),
        None => (surface.declared_names(), surface.notes.clone()),
    };
    log.append(SessionRecord::Surface(SurfaceRecord {
        mode: Some(surface.mode).filter(|_| !surface.is_code_mode()),
        declared_tool_count: Some(declared.len() + usize::from(miscount)),
        declared_tools: Some(declared),
        catalog_size: Some(telemetry.as_ref().map(|t| t.catalog_size).unwrap_or(0)),
        sources: telemetry.map(|t| t.sources),
        notes: Some(notes),
        unrecorded: None,
        code_mode: surface.is_code_mode(),
    }))
}

/// A direct call's result; `unsourced` is the [`Fault::SourceUnrecorded`] seed.
fn log_tool_result(
    log: &SessionWriter,
    call_id: &str,
    name: &str,
    result: &Dispatched,
    unsourced: bool,
) -> std::io::Result<()> {
    log.append(SessionRecord::ToolResult(ToolResultRecord::Direct(
        DirectResult {
            tool_call_id: call_id.to_string(),
            tool_name: name.to_string(),
            is_error: result.is_error,
            source: result.source.filter(|_| !unsourced),
            output: result.output.clone(),
        },
    )))
}

/// The synthetic assistant `toolCall` a control made for the model (spec §9).
fn synthetic_call(call_id: &str, entry: &ToolEntry, args: &Value, parent: &str) -> SessionRecord {
    SessionRecord::Message(MessageRecord {
        role: Role::Assistant,
        synthetic: true,
        text: None,
        tool_call: Some(ToolCallRecord {
            id: call_id.to_string(),
            name: entry.name.clone(),
            arguments: args.to_string(),
            parent_tool_call_id: Some(parent.to_string()),
            tool_id: Some(entry.id.clone()),
            source: Some(entry.source),
        }),
    })
}

/// The synthetic assistant toolCall + toolResult pair of each bridged call (spec §9);
/// `unsourced` is the [`Fault::SourceUnrecorded`] seed.
fn log_bridged(
    log: &SessionWriter,
    parent: &str,
    bridged: Vec<BridgedCall>,
    unsourced: bool,
) -> std::io::Result<()> {
    for call in bridged {
        let entry = call.entry;
        log.append(synthetic_call(&call.call_id, &entry, &call.args, parent))?;
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
                source: Some(entry.source).filter(|_| !unsourced),
                source_name: Some(entry.source_name),
                is_error,
                output,
            },
        )))?;
    }
    Ok(())
}
