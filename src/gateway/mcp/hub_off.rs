//! The hub when the `mcp` cargo feature is off: no server can be attached, so a config that
//! names one is an error at start, and there is never an MCP tool to call.

use std::collections::BTreeMap;

use serde_json::Value;

use super::McpError;
use crate::catalog::ToolEntry;
use crate::config::McpServerConfig;

#[derive(Default)]
pub struct McpHub;

impl McpHub {
    pub async fn connect(configs: &BTreeMap<String, McpServerConfig>) -> Result<Self, McpError> {
        match configs.keys().next() {
            Some(server) => Err(McpError::Disabled {
                server: server.clone(),
            }),
            None => Ok(McpHub),
        }
    }

    pub fn entries(&self) -> Vec<ToolEntry> {
        Vec::new()
    }

    pub async fn call(&self, server: &str, _tool: &str, _args: &Value) -> Result<Value, McpError> {
        Err(McpError::NotAttached {
            server: server.to_string(),
        })
    }
}
