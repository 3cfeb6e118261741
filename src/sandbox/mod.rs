//! Code mode's executors (spec §7–§8, design "Sandbox backends"): `tool_search_code` runs
//! model-written JavaScript — the body of an async function — in an isolated runtime where only
//! `console.{log,warn,error}` and the bridge `openclaw.tools.{search, describe, call}` exist.
//! Two backends: [`SandboxKind::Quickjs`] (embedded, the default) and [`SandboxKind::Node`]
//! (a jailed child process). Both share the in-realm prelude and the parent-side driver, so
//! they behave the same: lazy bridge promises, drain on return, deadline, output and
//! pending-call caps.

mod driver;
mod error;
mod jail;
mod node;
pub mod probes;
mod quickjs;
mod warm;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub use error::SandboxError;
pub use node::NodeSandbox;
pub use quickjs::QuickjsSandbox;

/// The future of one bridge operation; `Err` is the message the code's promise rejects with.
pub type BridgeFuture =
    Pin<Box<dyn Future<Output = Result<serde_json::Value, String>> + Send + 'static>>;

/// What `openclaw.tools.*` reaches: the gateway's search, describe and call.
pub trait Bridge: Send + Sync {
    /// `options` is `{limit?}` or null.
    fn search(&self, query: String, options: serde_json::Value) -> BridgeFuture;
    fn describe(&self, id: String) -> BridgeFuture;
    fn call(&self, id: String, args: serde_json::Value) -> BridgeFuture;
}

/// Which executor runs the code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum SandboxKind {
    #[default]
    Quickjs,
    Node,
}

/// Limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLimits {
    /// Wall-clock limit, also while the code awaits.
    pub timeout: Duration,
    /// Heap limit of the runtime.
    pub memory_bytes: usize,
    /// Cap on the bytes of all log lines plus the returned value's JSON.
    pub output_bytes: usize,
    /// Cap on bridge calls started and not yet settled.
    pub max_pending_calls: usize,
}

impl Default for CodeLimits {
    fn default() -> Self {
        CodeLimits {
            timeout: Duration::from_millis(10_000),
            memory_bytes: 64 * 1024 * 1024,
            output_bytes: 10 * 1024 * 1024,
            max_pending_calls: 128,
        }
    }
}

/// A finished run: the returned value (JSON-safe, `undefined` → null) and one line per
/// `console.*` call.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeRun {
    pub value: serde_json::Value,
    pub logs: Vec<String>,
}

/// The future of one run.
pub type RunFuture<'a> = Pin<Box<dyn Future<Output = Result<CodeRun, SandboxError>> + Send + 'a>>;

/// The future of [`CodeSandbox::warm`].
pub type WarmFuture<'a> = Pin<Box<dyn Future<Output = ()> + Send + 'a>>;

/// An executor of model-written code.
pub trait CodeSandbox: Send + Sync {
    fn kind(&self) -> SandboxKind;
    /// Can this backend run isolated code on this host? Err says why not (fail closed).
    /// A backend that prepares runs ahead (a pool) starts preparing here.
    fn probe(&self) -> Result<(), SandboxError>;
    /// Resolves once what the backend prepares ahead is ready, so the next run pays only for
    /// itself (benches measure a warm backend this way). Nothing to wait for by default.
    fn warm(&self) -> WarmFuture<'_> {
        Box::pin(std::future::ready(()))
    }
    fn run(&self, code: String, bridge: Arc<dyn Bridge>, limits: CodeLimits) -> RunFuture<'_>;
}

/// The executor for `kind`. `node_path` picks the node binary (default: `node` on `PATH`).
pub fn backend(kind: SandboxKind, node_path: Option<PathBuf>) -> Box<dyn CodeSandbox> {
    match kind {
        SandboxKind::Quickjs => Box::new(QuickjsSandbox::new()),
        SandboxKind::Node => Box::new(NodeSandbox::new(node_path)),
    }
}

/// The in-realm half shared by both backends (see the file's header).
pub(crate) const PRELUDE: &str = include_str!("prelude.js");

/// Blank code is an input error, before any runtime starts.
pub(crate) fn check_code(code: &str) -> Result<(), SandboxError> {
    if code.trim().is_empty() {
        Err(SandboxError::EmptyCode)
    } else {
        Ok(())
    }
}
