//! The gateway's normal execution path for one tool: policy, then the executor.
//!
//! Every call reaches a tool through here — a direct call by the model and a call bridged through
//! `tool_call` / `tool_search_code` alike — so a block can never be bypassed by going through Tool Search.
//! Bridged calls are recorded so the session log can show them after their parent's result.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use crate::catalog::fake::fake_tool_result;
use crate::catalog::{Executor, ToolEntry, ToolPolicy};
use crate::engine::{CallOutcome, EngineError, ToolRunner};

/// A target call made through a control tool.
#[derive(Debug, Clone, PartialEq)]
pub struct BridgedCall {
    pub call_id: String,
    pub entry: ToolEntry,
    pub args: Value,
    pub outcome: Result<Value, String>,
}

/// Runs tools for one turn and remembers the bridged ones. Cheap to clone: a code-mode bridge
/// holds a clone for as long as the sandbox runs.
#[derive(Clone)]
pub struct GatewayRunner {
    policy: Arc<ToolPolicy>,
    /// The run's policy-allowed tools: what a bridged call may still reach.
    available: Arc<Vec<ToolEntry>>,
    bridged: Arc<Mutex<Vec<BridgedCall>>>,
}

impl GatewayRunner {
    pub fn new(policy: Arc<ToolPolicy>, available: Arc<Vec<ToolEntry>>) -> Self {
        GatewayRunner {
            policy,
            available,
            bridged: Arc::default(),
        }
    }

    /// Takes the bridged calls recorded since the last call of this function.
    pub fn take_bridged(&self) -> Vec<BridgedCall> {
        std::mem::take(&mut *self.bridged.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Executes `entry` with `args` (policy first). Used for direct calls.
    pub async fn execute(
        &self,
        entry: &ToolEntry,
        args: &Value,
    ) -> Result<CallOutcome, EngineError> {
        if !self.policy.allows(&entry.name, &entry.id) {
            return Err(EngineError::Blocked {
                tool: entry.name.clone(),
                reason: "denied by tool policy".into(),
            });
        }
        run_executor(entry, args)
    }
}

impl ToolRunner for GatewayRunner {
    fn is_available(&self, entry: &ToolEntry) -> bool {
        self.available
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
            let outcome = self.execute(entry, &args).await;
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
            outcome
        })
    }
}

fn run_executor(entry: &ToolEntry, args: &Value) -> Result<CallOutcome, EngineError> {
    match &entry.executor {
        Executor::FakePlugin { .. } => {
            let (text, details) = fake_tool_result(&entry.name, args);
            Ok(CallOutcome {
                result: json!({ "content": [{ "type": "text", "text": text }], "details": details }),
            })
        }
        Executor::CoreEcho => Ok(CallOutcome {
            result: json!({
                "content": [{ "type": "text", "text": format!("{} ok", entry.name) }],
                "details": { "status": "ok", "tool": entry.name, "input": args },
            }),
        }),
        Executor::Mcp { server } => Err(EngineError::ExecutionFailed {
            name: entry.name.clone(),
            message: format!("MCP server {server} is not connected to this gateway"),
        }),
        Executor::Client => Err(EngineError::ExecutionFailed {
            name: entry.name.clone(),
            message: "client tools are run by the caller; call it directly by name".into(),
        }),
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
