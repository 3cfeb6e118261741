//! Code mode in the gateway: `tool_search_code` runs the model's JavaScript in the configured
//! sandbox, with a bridge whose search, describe and call go through the same engine run and
//! the same execution path as the structured controls.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::execute::GatewayRunner;
use super::faults::Fault;
use crate::config::ToolSearchSettings;
use crate::engine::{EngineError, ToolSearchRun};
use crate::sandbox::{backend, Bridge, BridgeFuture, CodeLimits, CodeSandbox, SandboxKind};

const CODE_HINT: &str =
    "Use openclaw.tools.search(query) to find the right id, then describe or call it.";

/// The sandbox a gateway runs code in, and its limits.
pub struct CodeRuntime {
    sandbox: Box<dyn CodeSandbox>,
    limits: CodeLimits,
}

impl CodeRuntime {
    /// The configured backend. `Err` says why code cannot run isolated here (fail closed).
    pub fn from_settings(settings: &ToolSearchSettings) -> (CodeRuntime, Result<(), String>) {
        let kind = match settings.sandbox {
            crate::config::SandboxBackend::Quickjs => SandboxKind::Quickjs,
            crate::config::SandboxBackend::Node => SandboxKind::Node,
        };
        let sandbox = backend(kind, settings.node_path.clone().map(Into::into));
        let probe = sandbox
            .probe()
            .map_err(|e| format!("{kind:?} sandbox: {e}").to_lowercase());
        let limits = CodeLimits {
            timeout: Duration::from_millis(settings.code_timeout_ms),
            ..CodeLimits::default()
        };
        (CodeRuntime { sandbox, limits }, probe)
    }

    /// Runs `code` and renders the tool output `{ok, value, logs, telemetry}`.
    pub async fn run(
        &self,
        code: &str,
        run: &ToolSearchRun,
        runner: &GatewayRunner,
        parent: &str,
    ) -> Result<String, EngineError> {
        if code.trim().is_empty() {
            return Err(EngineError::InvalidInput("code must not be empty.".into()));
        }
        let bridge = Arc::new(CodeBridge {
            run: run.clone(),
            runner: runner.clone(),
            parent: parent.to_string(),
        });
        let result = self
            .sandbox
            .run(code.to_string(), bridge, self.limits)
            .await;
        let (value, logs) = match result {
            Ok(finished) => (finished.value, finished.logs),
            // The seeded regression answers a timed-out run as a successful one.
            Err(e)
                if runner.seeded(Fault::TimeoutSwallowed)
                    && e.to_string().contains("timed out") =>
            {
                (Value::Null, Vec::new())
            }
            Err(e) => {
                return Err(EngineError::ExecutionFailed {
                    name: "tool_search_code".into(),
                    message: e.to_string(),
                })
            }
        };
        let output =
            json!({ "ok": true, "value": value, "logs": logs, "telemetry": run.telemetry() });
        Ok(serde_json::to_string_pretty(&output).unwrap_or_default())
    }
}

/// `openclaw.tools.*` for one `tool_search_code` call.
struct CodeBridge {
    run: ToolSearchRun,
    runner: GatewayRunner,
    parent: String,
}

fn to_json(value: impl serde::Serialize) -> Result<Value, String> {
    serde_json::to_value(value).map_err(|e| e.to_string())
}

impl Bridge for CodeBridge {
    fn search(&self, query: String, options: Value) -> BridgeFuture {
        let result = self
            .run
            .search(&query, options.get("limit"))
            .map_err(|e| e.to_string())
            .and_then(to_json);
        Box::pin(async move { result })
    }

    fn describe(&self, id: String) -> BridgeFuture {
        let result = self
            .run
            .describe(&id, CODE_HINT)
            .map_err(|e| e.to_string())
            .and_then(to_json);
        Box::pin(async move { result })
    }

    fn call(&self, id: String, args: Value) -> BridgeFuture {
        let (run, runner, parent) = (self.run.clone(), self.runner.clone(), self.parent.clone());
        Box::pin(async move {
            run.call(&id, args, &parent, &runner)
                .await
                .map_err(|e| e.to_string())
        })
    }
}
