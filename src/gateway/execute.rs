//! The gateway's normal execution path for one tool: policy, approval rules, `before_tool_call`
//! hook rules, then the executor.
//!
//! MCP tools run with `tools/call` on their server (see [`super::mcp`]).
//! Every call reaches a tool through here — a direct call by the model and a call bridged through
//! `tool_call` / `tool_search_code` alike — so a block can never be bypassed by going through Tool Search.
//! Bridged calls are recorded so the session log can show them after their parent's result.
//! A client tool reached from code is not run: once its guards pass, the call is recorded as a
//! hand-off and the code gets the "pending" result OpenClaw gives (`{status: "pending", tool,
//! message}`); the turn then ends with the call handed back to the caller.

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::faults::{seeded, Fault};
use super::mcp::{McpError, McpHub};
use crate::catalog::fake::fake_tool_result;
use crate::catalog::{glob_matches, Executor, ToolEntry, ToolPolicy};
use crate::config::Guard;
use crate::engine::{CallOutcome, EngineError, ToolRunner};

/// A target call made through a control tool.
#[derive(Debug, Clone, PartialEq)]
pub struct BridgedCall {
    pub call_id: String,
    pub entry: ToolEntry,
    pub args: Value,
    pub outcome: Result<Value, String>,
}

/// A client tool that code called: handed back to the caller when the code has finished.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeHandoff {
    /// The derived call id (`tool_search_code:<parent>:<name>:<seq>`), the caller's `call_id`.
    pub call_id: String,
    pub entry: ToolEntry,
    pub args: Value,
}

/// The message a code-mode client call gets instead of a result.
pub const DELEGATED: &str = "Tool execution delegated to client";

/// Runs tools for one turn and remembers the bridged ones. Cheap to clone: a code-mode bridge
/// holds a clone for as long as the sandbox runs.
#[derive(Clone)]
pub struct GatewayRunner {
    policy: Arc<ToolPolicy>,
    /// The run's tool registry: the policy-allowed tools a bridged call may reach (shared by
    /// the turns of a gateway), less the ids withdrawn during this run.
    available: Arc<[ToolEntry]>,
    withdrawn: Arc<Mutex<HashSet<String>>>,
    guards: Arc<Guards>,
    bridged: Arc<Mutex<Vec<BridgedCall>>>,
    handoffs: Arc<Mutex<Vec<CodeHandoff>>>,
    /// The MCP servers `Executor::Mcp` tools run on.
    mcp: Arc<McpHub>,
    /// The gateway's seeded regression (`selftest` only).
    fault: Option<Fault>,
}

/// What a call must pass after policy, and the registry's test knob.
#[derive(Debug, Clone, Default)]
pub struct Guards {
    pub approvals: Guard,
    pub before_tool_call: Guard,
    /// Names or ids the registry drops after the first search (`catalog.withdrawAfterSearch`).
    pub withdraw_after_search: Vec<String>,
}

impl GatewayRunner {
    pub fn new(policy: Arc<ToolPolicy>, available: Arc<[ToolEntry]>) -> Self {
        GatewayRunner {
            policy,
            available,
            withdrawn: Arc::default(),
            guards: Arc::default(),
            bridged: Arc::default(),
            handoffs: Arc::default(),
            mcp: Arc::default(),
            fault: None,
        }
    }

    /// The same runner with the gateway's seeded regression (see [`super::faults`]).
    pub fn with_fault(mut self, fault: Option<Fault>) -> Self {
        self.fault = fault;
        self
    }

    /// Is `fault` the seeded regression?
    pub fn seeded(&self, fault: Fault) -> bool {
        seeded(self.fault, fault)
    }

    /// Runs `Executor::Mcp` tools on `hub`.
    pub fn with_mcp(mut self, hub: Arc<McpHub>) -> Self {
        self.mcp = hub;
        self
    }

    /// The same runner, applying `guards` to every call.
    pub fn with_guards(mut self, guards: Guards) -> Self {
        self.guards = Arc::new(guards);
        self
    }

    /// Called after a search ran: the registry drops the tools `catalog.withdrawAfterSearch`
    /// names (they became unavailable between search and call). Returns the ids dropped now.
    pub fn after_search(&self) -> Vec<String> {
        let names = &self.guards.withdraw_after_search;
        if names.is_empty() {
            return Vec::new();
        }
        let mut withdrawn = self.withdrawn.lock().unwrap_or_else(|p| p.into_inner());
        let gone = |e: &ToolEntry| {
            names
                .iter()
                .any(|n| glob_matches(n, &e.name) || glob_matches(n, &e.id))
        };
        let dropped: Vec<String> = self
            .available
            .iter()
            .filter(|e| !withdrawn.contains(&e.id) && gone(e))
            .map(|e| e.id.clone())
            .collect();
        withdrawn.extend(dropped.iter().cloned());
        dropped
    }

    /// Takes the bridged calls recorded since the last call of this function.
    pub fn take_bridged(&self) -> Vec<BridgedCall> {
        std::mem::take(&mut *self.bridged.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Takes the client tools code called since the last call of this function.
    pub fn take_handoffs(&self) -> Vec<CodeHandoff> {
        std::mem::take(&mut *self.handoffs.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Executes `entry` with `args`: policy, approval rules and `before_tool_call` hook rules
    /// first, in that order; the first that blocks is reported and nothing runs.
    pub async fn execute(
        &self,
        entry: &ToolEntry,
        args: &Value,
    ) -> Result<CallOutcome, EngineError> {
        self.check_guards(entry, args)?;
        self.run_unguarded(entry, args).await
    }

    /// Runs `entry` with no policy, approval or hook check: only for a caller that made them.
    pub async fn run_unguarded(
        &self,
        entry: &ToolEntry,
        args: &Value,
    ) -> Result<CallOutcome, EngineError> {
        if let Executor::Mcp { server } = &entry.executor {
            return self.run_mcp(server, entry, args).await;
        }
        run_executor(entry, args, self.fault)
    }

    /// Policy, approval rules and `before_tool_call` hook rules, in that order.
    fn check_guards(&self, entry: &ToolEntry, args: &Value) -> Result<(), EngineError> {
        let blocked = |reason: String| EngineError::Blocked {
            tool: entry.name.clone(),
            reason,
        };
        if !self.policy.allows(&entry.name, &entry.id) {
            return Err(blocked("denied by tool policy".into()));
        }
        if self.seeded(Fault::DenySwallowed) {
            return Ok(());
        }
        self.guards
            .approvals
            .check(&entry.name, &entry.id, args)
            .map_err(blocked)?;
        self.guards
            .before_tool_call
            .check(&entry.name, &entry.id, args)
            .map_err(blocked)
    }

    /// A client tool called from code: guarded like any call, then recorded as a hand-off.
    fn hand_off(
        &self,
        entry: &ToolEntry,
        args: Value,
        call_id: String,
    ) -> Result<CallOutcome, EngineError> {
        self.check_guards(entry, &args)?;
        let details = json!({ "status": "pending", "tool": entry.name, "message": DELEGATED });
        self.handoffs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(CodeHandoff {
                call_id,
                entry: entry.clone(),
                args,
            });
        Ok(CallOutcome {
            result: json!({ "content": [{ "type": "text", "text": details.to_string() }], "details": details }),
        })
    }

    /// `tools/call` on the entry's MCP server; its failure is the tool's execution error.
    async fn run_mcp(
        &self,
        server: &str,
        entry: &ToolEntry,
        args: &Value,
    ) -> Result<CallOutcome, EngineError> {
        self.mcp
            .call(server, &entry.name, args)
            .await
            .map(|result| CallOutcome { result })
            .map_err(|e| match e {
                McpError::Exited { .. } if self.seeded(Fault::McpOutageHidden) => {
                    EngineError::UnknownTool {
                        id: entry.name.clone(),
                        suggestions: Vec::new(),
                        hint: String::new(),
                    }
                }
                e => EngineError::ExecutionFailed {
                    name: entry.name.clone(),
                    message: e.to_string(),
                },
            })
    }
}

impl ToolRunner for GatewayRunner {
    fn is_available(&self, entry: &ToolEntry) -> bool {
        let withdrawn = self.withdrawn.lock().unwrap_or_else(|p| p.into_inner());
        let ignored = self.seeded(Fault::WithdrawIgnored);
        (ignored || !withdrawn.contains(&entry.id))
            && self
                .available
                .iter()
                .any(|e| e.id == entry.id && e.executor == entry.executor)
    }

    fn run<'b>(
        &'b self,
        entry: &'b ToolEntry,
        args: Value,
        call_id: String,
    ) -> Pin<Box<dyn Future<Output = Result<CallOutcome, EngineError>> + Send + 'b>> {
        Box::pin(async move {
            let hands_off =
                entry.executor == Executor::Client && !self.seeded(Fault::ClientToolRun);
            let outcome = match hands_off {
                true => self.hand_off(entry, args.clone(), call_id.clone()),
                false => self.execute(entry, &args).await,
            };
            // A hand-off has no result yet: the caller's output answers it in a later request.
            let handed_off = hands_off && outcome.is_ok();
            if !handed_off {
                self.record(call_id, entry, args, &outcome);
            }
            outcome
        })
    }
}

impl GatewayRunner {
    /// Remembers a bridged call for the session log.
    fn record(
        &self,
        call_id: String,
        entry: &ToolEntry,
        args: Value,
        outcome: &Result<CallOutcome, EngineError>,
    ) {
        let record = BridgedCall {
            call_id,
            entry: entry.clone(),
            args,
            outcome: outcome
                .as_ref()
                .map(|o| o.result.clone())
                .map_err(|e| e.to_string()),
        };
        self.bridged
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(record);
    }
}

fn run_executor(
    entry: &ToolEntry,
    args: &Value,
    fault: Option<Fault>,
) -> Result<CallOutcome, EngineError> {
    match &entry.executor {
        Executor::FakePlugin { .. } => {
            let name = match seeded(fault, Fault::WrongMarker) {
                true => neighbour_name(&entry.name),
                false => entry.name.clone(),
            };
            let (text, details) = fake_tool_result(&name, args);
            Ok(CallOutcome {
                result: json!({ "content": [{ "type": "text", "text": text }], "details": details }),
            })
        }
        Executor::BrokenFake { .. } => Err(EngineError::ExecutionFailed {
            name: entry.name.clone(),
            message: crate::catalog::fake::BROKEN_MESSAGE.to_string(),
        }),
        Executor::Client if seeded(fault, Fault::ClientToolRun) => Ok(echo(entry, args)),
        Executor::CoreEcho => Ok(echo(entry, args)),
        Executor::Mcp { server } => Err(EngineError::ExecutionFailed {
            name: entry.name.clone(),
            message: format!("MCP server {server} is run through the gateway's MCP hub"),
        }),
        Executor::Client => Err(EngineError::ExecutionFailed {
            name: entry.name.clone(),
            message: "client tools are run by the caller, never by the gateway".into(),
        }),
    }
}

/// What a core tool stand-in answers.
fn echo(entry: &ToolEntry, args: &Value) -> CallOutcome {
    CallOutcome {
        result: json!({
            "content": [{ "type": "text", "text": format!("{} ok", entry.name) }],
            "details": { "status": "ok", "tool": entry.name, "input": args },
        }),
    }
}

/// `fake_plugin_tool_18` for `fake_plugin_tool_17` (the [`Fault::WrongMarker`] seed).
fn neighbour_name(name: &str) -> String {
    match name.rsplit_once('_') {
        Some((stem, n)) => match n.parse::<u32>() {
            Ok(n) => format!("{stem}_{}", n + 1),
            Err(_) => format!("{name}_neighbour"),
        },
        None => format!("{name}_neighbour"),
    }
}

/// The text a tool result gives the model: its text content, else its details as JSON.
pub fn result_text(result: &Value) -> String {
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect()
        })
        .unwrap_or_default();
    if texts.is_empty() {
        result
            .get("details")
            .map(Value::to_string)
            .unwrap_or_else(|| result.to_string())
    } else {
        texts.join("\n")
    }
}
