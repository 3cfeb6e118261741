//! The gateway's MCP source (spec §3): the servers of `mcp.servers` (OpenClaw's config key)
//! started as child processes by their command and spoken to over stdio, their tools listed
//! with `tools/list` into catalogue entries `mcp:<server>:<tool>`, and run with `tools/call`.
//!
//! The project's own servers are the fixtures of [`crate::mcp_fixture`]. MCP schemas are
//! untrusted: they are kept as sent and never validated by the gateway (the server checks its
//! input). A server that cannot be started, answers something other than MCP, or does not
//! answer in time is an error that names it: the gateway does not start without it. One that
//! exits later makes each call of its tools an error that names it as unavailable.

mod hub;

use std::path::PathBuf;

use thiserror::Error;

pub use hub::{McpHub, CONNECT_TIMEOUT, REQUEST_TIMEOUT};

#[derive(Debug, Error, PartialEq)]
pub enum McpError {
    #[error("MCP server {server}: cannot start {}: {message}", command.display())]
    Spawn {
        server: String,
        command: PathBuf,
        message: String,
    },
    #[error("MCP server {server}: {message}")]
    Protocol { server: String, message: String },
    #[error("MCP server {server}: no answer to {step} within {millis} ms")]
    Timeout {
        server: String,
        step: &'static str,
        millis: u64,
    },
    /// The server's process is gone (it exited mid-session): its tools cannot run until it is
    /// back, and the model is told so by name (openclaw/openclaw#137398: an outage the model
    /// could not tell from a typo kept it searching).
    #[error("MCP server {server} is unavailable: its process exited ({status}); its tools cannot run until the server is back")]
    Exited { server: String, status: String },
    #[error("MCP server {server} is not attached to this gateway")]
    NotAttached { server: String },
    #[error("MCP tool arguments must be a JSON object, got {0}")]
    NotAnObject(String),
    #[error("{0}")]
    ToolError(String),
}
