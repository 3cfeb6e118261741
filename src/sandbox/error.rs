//! Why a code-mode run failed. The gateway turns each of these into a tool error, so every
//! `Display` text says what went wrong in words a model (or an operator) can act on.

use thiserror::Error;

/// A failed `tool_search_code` run, or a sandbox that cannot run code on this host.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SandboxError {
    /// Blank code.
    #[error("code is empty: pass the body of an async JavaScript function")]
    EmptyCode,
    /// The code does not parse.
    #[error("syntax error in code: {0}")]
    Syntax(String),
    /// The code threw (or its promise rejected) and nothing caught it.
    #[error("code threw: {0}")]
    Thrown(String),
    /// The code returned something JSON cannot represent (a BigInt, a cycle, …).
    #[error("the value returned by the code is not JSON-safe: {0}")]
    BadValue(String),
    /// The wall-clock limit passed; the runtime was stopped and in-flight bridge calls dropped.
    #[error("code timed out after {ms} ms")]
    Timeout { ms: u64 },
    /// The code waits on a promise that can never settle (no bridge call is in flight).
    #[error("code never finished: it awaits a promise that can never settle")]
    Stalled,
    /// Logs plus the returned value exceeded the output cap.
    #[error("code output (logs plus value) exceeded {limit} bytes")]
    OutputTooLarge { limit: usize },
    /// More bridge calls were started than may be pending at once.
    #[error("code started more than {limit} bridge calls that were pending at once")]
    TooManyPendingCalls { limit: usize },
    /// The code exceeded the memory limit.
    #[error("code ran out of memory (limit {limit} bytes)")]
    OutOfMemory { limit: usize },
    /// This backend cannot run isolated code on this host (fail closed: never run it unsandboxed).
    #[error("code sandbox unavailable: {0}")]
    Unavailable(String),
    /// The isolated runtime died or broke its protocol.
    #[error("code sandbox failed: {0}")]
    Crashed(String),
}
