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

/// Code Mode's guest API, put before each cell ([`CellRuntime::exec`]).
const GUEST_API: &str = include_str!("code_mode_guest.js");
/// The reserved call id the guest's `yield_control()` sends over the bridge.
const YIELD_ID: &str = "__code_mode_yield__";

/// How a Code Mode `exec` or `wait` ended, as the model reads it (compact JSON).
#[derive(Debug, Clone, PartialEq)]
pub enum CellResult {
    Completed {
        value: Value,
        logs: Vec<String>,
    },
    Waiting {
        run_id: String,
    },
    Failed {
        error: String,
        code: FailureCode,
        phase: FailurePhase,
        dispatched: bool,
    },
}

/// Why a cell failed (the product's codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureCode {
    InvalidInput,
    RuntimeUnavailable,
    Timeout,
    OutputLimitExceeded,
    InternalError,
    ToolError,
}

impl FailureCode {
    pub fn as_str(self) -> &'static str {
        match self {
            FailureCode::InvalidInput => "invalid_input",
            FailureCode::RuntimeUnavailable => "runtime_unavailable",
            FailureCode::Timeout => "timeout",
            FailureCode::OutputLimitExceeded => "output_limit_exceeded",
            FailureCode::InternalError => "internal_error",
            FailureCode::ToolError => "tool_error",
        }
    }
}

/// Where a cell failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailurePhase {
    Input,
    Host,
    Bridge,
}

impl FailurePhase {
    pub fn as_str(self) -> &'static str {
        match self {
            FailurePhase::Input => "input",
            FailurePhase::Host => "host",
            FailurePhase::Bridge => "bridge",
        }
    }
}

impl CellResult {
    fn failed(code: FailureCode, phase: FailurePhase, error: impl Into<String>) -> Self {
        CellResult::Failed {
            error: error.into(),
            code,
            phase,
            dispatched: false,
        }
    }

    /// Is this an error result for the model?
    pub fn is_error(&self) -> bool {
        matches!(self, CellResult::Failed { .. })
    }

    /// The model-facing compact JSON, with the run's telemetry.
    pub fn render(&self, run: &ToolSearchRun) -> String {
        let t = run.telemetry();
        let telemetry = json!({
            "catalogSize": t.catalog_size,
            "sources": t.sources,
            "searchCount": t.search_count,
            "describeCount": t.describe_count,
            "callCount": t.call_count,
            "visibleTools": crate::engine::code_mode::CONTROLS,
        });
        let out = match self {
            CellResult::Completed { value, logs } => {
                let mut out =
                    json!({ "status": "completed", "value": value, "telemetry": telemetry });
                if !logs.is_empty() {
                    out["output"] = json!(logs.join("\n"));
                }
                out
            }
            CellResult::Waiting { run_id } => json!({
                "status": "waiting", "runId": run_id, "reason": "yield", "telemetry": telemetry,
            }),
            CellResult::Failed {
                error,
                code,
                phase,
                dispatched,
            } => json!({
                "status": "failed", "error": error, "code": code.as_str(),
                "failurePhase": phase.as_str(), "bridgeDispatchStarted": dispatched,
                "telemetry": telemetry,
            }),
        };
        out.to_string()
    }
}

/// A cell that yielded: its run goes on in its own task until `wait` resumes it.
struct Suspended {
    /// The `exec` call that started the cell: its nested calls are recorded under it.
    parent: String,
    resume: tokio::sync::oneshot::Sender<()>,
    finished: tokio::sync::oneshot::Receiver<
        Result<crate::sandbox::CodeRun, crate::sandbox::SandboxError>,
    >,
}

/// Code Mode's executor on this gateway: the project's sandbox (QuickJS in-process, or the
/// jailed node) with the guest API, and the runs suspended until `wait`.
pub struct CellRuntime {
    sandbox: Arc<dyn CodeSandbox>,
    limits: CodeLimits,
    /// Why no cell can run isolated here (fail closed: every `exec` fails).
    pub unavailable: Option<String>,
    suspended: std::sync::Mutex<std::collections::HashMap<String, Suspended>>,
    next_run: std::sync::atomic::AtomicU64,
}

impl CellRuntime {
    /// The configured executor; `unavailable` says why it cannot run here (its plugin denied,
    /// or the sandbox's probe failed).
    pub fn new(mode: &crate::config::GatewayCodeMode, denied: Option<String>) -> CellRuntime {
        let kind = match mode.executor {
            crate::config::CodeModeExecutor::Quickjs => SandboxKind::Quickjs,
            crate::config::CodeModeExecutor::Node => SandboxKind::Node,
        };
        let sandbox: Arc<dyn CodeSandbox> =
            Arc::from(backend(kind, mode.node_path.clone().map(Into::into)));
        let unavailable = denied.or_else(|| {
            sandbox.probe().err().map(|e| {
                format!(
                    "Code Mode executor \"{}\" is unavailable: {e}",
                    mode.executor.as_str()
                )
            })
        });
        let limits = CodeLimits {
            timeout: Duration::from_millis(mode.timeout_ms),
            ..CodeLimits::default()
        };
        CellRuntime {
            sandbox,
            limits,
            unavailable,
            suspended: std::sync::Mutex::default(),
            next_run: std::sync::atomic::AtomicU64::new(1),
        }
    }

    /// Runs one `exec` cell: the guest API over `run`'s catalogue, nested calls through
    /// `runner` under `parent`.
    pub async fn exec(
        &self,
        code: &str,
        run: &ToolSearchRun,
        runner: &GatewayRunner,
        parent: &str,
    ) -> CellResult {
        let falls_back = runner.seeded(Fault::ExecutorFallsBack);
        if let Some(why) = self.unavailable.as_ref().filter(|_| !falls_back) {
            return CellResult::failed(FailureCode::RuntimeUnavailable, FailurePhase::Host, why);
        }
        if code.trim().is_empty() {
            return CellResult::failed(
                FailureCode::InvalidInput,
                FailurePhase::Input,
                "code or command must be a non-empty string.",
            );
        }
        if looks_like_shell(code) {
            return CellResult::failed(
                FailureCode::InvalidInput,
                FailurePhase::Input,
                "code-mode exec runs JavaScript, not shell commands.",
            );
        }
        let source = format!("{}\n{code}", guest_prefix(run));
        let (yielded_tx, yielded_rx) = tokio::sync::oneshot::channel();
        let (resume_tx, resume_rx) = tokio::sync::oneshot::channel();
        let bridge = Arc::new(CellBridge {
            inner: CodeBridge {
                run: run.clone(),
                runner: runner.clone(),
                parent: parent.to_string(),
            },
            yielded: std::sync::Mutex::new(Some(yielded_tx)),
            resume: std::sync::Mutex::new(Some(resume_rx)),
        });
        let (done_tx, done_rx) = tokio::sync::oneshot::channel();
        let sandbox = self.sandbox.clone();
        let limits = self.limits;
        tokio::spawn(async move {
            let result = sandbox.run(source, bridge, limits).await;
            let _ = done_tx.send(result);
        });
        let mut done_rx = done_rx;
        tokio::select! {
            finished = &mut done_rx => settle(finished),
            yielded = yielded_rx => match yielded {
                Ok(()) => {
                    let n = self.next_run.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let run_id = format!("cm-run-{n}");
                    let mut suspended = self.suspended.lock().unwrap_or_else(|p| p.into_inner());
                    suspended.insert(
                        run_id.clone(),
                        Suspended { parent: parent.to_string(), resume: resume_tx, finished: done_rx },
                    );
                    CellResult::Waiting { run_id }
                }
                // The bridge went away without yielding: the run ended.
                Err(_) => settle(done_rx.await),
            },
        }
    }

    /// Resumes a suspended run and waits for it to end; with the `exec` call that started it.
    pub async fn wait(&self, run_id: &str) -> (CellResult, Option<String>) {
        let taken = self
            .suspended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(run_id);
        let Some(suspended) = taken else {
            let expired = CellResult::failed(
                FailureCode::InvalidInput,
                FailurePhase::Input,
                "code mode run is unavailable or expired.",
            );
            return (expired, None);
        };
        let _ = suspended.resume.send(());
        (settle(suspended.finished.await), Some(suspended.parent))
    }
}

type Finished = Result<
    Result<crate::sandbox::CodeRun, crate::sandbox::SandboxError>,
    tokio::sync::oneshot::error::RecvError,
>;

fn settle(finished: Finished) -> CellResult {
    use crate::sandbox::SandboxError as E;
    match finished {
        Ok(Ok(run)) => CellResult::Completed {
            value: run.value,
            logs: run.logs,
        },
        Ok(Err(e)) => {
            let (code, phase) = match &e {
                E::EmptyCode | E::Syntax(_) => (FailureCode::InvalidInput, FailurePhase::Input),
                E::Timeout { .. } | E::Stalled => (FailureCode::Timeout, FailurePhase::Host),
                E::OutputTooLarge { .. } => (FailureCode::OutputLimitExceeded, FailurePhase::Host),
                E::Unavailable(_) => (FailureCode::RuntimeUnavailable, FailurePhase::Host),
                E::Thrown(_) | E::BadValue(_) => (FailureCode::ToolError, FailurePhase::Bridge),
                _ => (FailureCode::InternalError, FailurePhase::Host),
            };
            CellResult::Failed {
                error: e.to_string(),
                code,
                phase,
                dispatched: phase == FailurePhase::Bridge,
            }
        }
        Err(_) => CellResult::failed(
            FailureCode::InternalError,
            FailurePhase::Host,
            "the cell's task ended without an answer",
        ),
    }
}

/// Shell-looking source, refused before any cell runs (a few of the product's signs: a
/// shebang, or a first word that is a common command followed by a flag or a path).
fn looks_like_shell(code: &str) -> bool {
    let first = code.trim_start();
    if first.starts_with("#!") {
        return true;
    }
    let mut words = first.split_whitespace();
    let (Some(cmd), next) = (words.next(), words.next()) else {
        return false;
    };
    const COMMANDS: [&str; 12] = [
        "ls", "cat", "git", "cd", "pwd", "echo", "grep", "rm", "mkdir", "npm", "curl", "sed",
    ];
    COMMANDS.contains(&cmd)
        && next.is_none_or(|n| n.starts_with('-') || n.starts_with('/') || n.starts_with('.'))
}

/// The guest API for `run`'s catalogue: the catalogue table, then one `const` per callable.
fn guest_prefix(run: &ToolSearchRun) -> String {
    use crate::engine::code_mode::callables;
    let catalog = run.catalog();
    let mut table: Vec<Value> = callables(catalog)
        .into_iter()
        .map(|c| {
            json!([
                c.callable_name,
                c.entry.name,
                c.entry.id,
                c.entry.source,
                c.entry.source_name
            ])
        })
        .collect();
    table.extend(
        catalog
            .entries()
            .iter()
            .filter(|e| e.source == crate::catalog::ToolSource::Mcp)
            .map(|e| json!([e.name, e.name, e.id, e.source, e.source_name])),
    );
    let mut prefix = GUEST_API.replace("__CATALOG__", &Value::Array(table).to_string());
    for c in callables(catalog) {
        let name = &c.callable_name;
        prefix.push_str(&format!("const {name} = __cm.globals[{}];\n", json!(name)));
    }
    prefix
}

/// The bridge of one cell: the gateway's search, describe and call, and `yield_control()`.
struct CellBridge {
    inner: CodeBridge,
    yielded: std::sync::Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    resume: std::sync::Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl Bridge for CellBridge {
    fn search(&self, query: String, options: Value) -> BridgeFuture {
        self.inner.search(query, options)
    }

    fn describe(&self, id: String) -> BridgeFuture {
        self.inner.describe(id)
    }

    fn call(&self, id: String, args: Value) -> BridgeFuture {
        if id != YIELD_ID {
            return self.inner.call(id, args);
        }
        let yielded = self
            .yielded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let resume = self.resume.lock().unwrap_or_else(|p| p.into_inner()).take();
        Box::pin(async move {
            let (Some(yielded), Some(resume)) = (yielded, resume) else {
                return Err("a cell yields at most once".to_string());
            };
            let _ = yielded.send(());
            resume
                .await
                .map_err(|_| "the run was not resumed".to_string())?;
            Ok(Value::Null)
        })
    }
}
