//! The gateway's MCP source (spec §3): MCP servers attached by config, their tools listed with
//! `tools/list` into catalogue entries `mcp:<server>:<tool>`, and run with `tools/call`.
//!
//! Servers are the project's own fixtures (module `fixture`), each served in-process over a duplex pipe
//! and reached through an rmcp client, so every call crosses the real MCP protocol. MCP schemas are
//! untrusted: they are kept as sent and never validated by the gateway (the server checks its input).

pub mod fixture;
mod hub;

use thiserror::Error;

pub use hub::McpHub;

/// Names of the fixture servers this build can attach.
pub const FIXTURES: [&str; 2] = ["calendar", "qa"];

#[derive(Debug, Error, PartialEq)]
pub enum McpError {
    #[error("catalog.mcpServers.{server}: unknown fixture {fixture:?}; known: {}", FIXTURES.join(", "))]
    UnknownFixture { server: String, fixture: String },
    #[error("MCP server {server}: {message}")]
    Protocol { server: String, message: String },
    #[error("MCP server {server} is not attached to this gateway")]
    NotAttached { server: String },
    #[error("MCP tool arguments must be a JSON object, got {0}")]
    NotAnObject(String),
    #[error("{0}")]
    ToolError(String),
}
