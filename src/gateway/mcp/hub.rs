//! The rmcp-backed hub: fixture servers served in-process over a duplex pipe, reached through an
//! rmcp client.

use std::collections::BTreeMap;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};

use super::{fixture, McpError};
use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::config::McpServerConfig;

/// Bytes buffered in each direction of an in-process MCP pipe.
const PIPE_BYTES: usize = 64 * 1024;

struct Attached {
    client: RunningService<RoleClient, ()>,
    tools: Vec<ToolEntry>,
}

/// Every MCP server of one gateway, by name.
#[derive(Default)]
pub struct McpHub {
    servers: BTreeMap<String, Attached>,
}

impl McpHub {
    /// Starts and connects every configured server and lists its tools.
    pub async fn connect(configs: &BTreeMap<String, McpServerConfig>) -> Result<Self, McpError> {
        let mut servers = BTreeMap::new();
        for (name, config) in configs {
            servers.insert(name.clone(), attach(name, config).await?);
        }
        Ok(McpHub { servers })
    }

    /// The catalogue entries of every attached server, sorted by id.
    pub fn entries(&self) -> Vec<ToolEntry> {
        let mut entries: Vec<ToolEntry> = self
            .servers
            .values()
            .flat_map(|s| s.tools.iter().cloned())
            .collect();
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        entries
    }

    /// `tools/call` on `server`; the result as `{content, details?}` (details = structured content).
    pub async fn call(&self, server: &str, tool: &str, args: &Value) -> Result<Value, McpError> {
        let attached = self
            .servers
            .get(server)
            .ok_or_else(|| McpError::NotAttached {
                server: server.to_string(),
            })?;
        let arguments = match args {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            other => return Err(McpError::NotAnObject(other.to_string())),
        };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let result = attached
            .client
            .call_tool(params)
            .await
            .map_err(|e| protocol(server, e))?;
        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
        if result.is_error == Some(true) {
            return Err(McpError::ToolError(crate::gateway::execute::result_text(
                &json!({ "content": content }),
            )));
        }
        let mut out = json!({ "content": content });
        if let Some(details) = result.structured_content {
            out["details"] = details;
        }
        Ok(out)
    }
}

fn protocol(server: &str, error: impl std::fmt::Display) -> McpError {
    McpError::Protocol {
        server: server.to_string(),
        message: error.to_string(),
    }
}

async fn attach(name: &str, config: &McpServerConfig) -> Result<Attached, McpError> {
    let server =
        fixture::fixture_server(&config.fixture).ok_or_else(|| McpError::UnknownFixture {
            server: name.to_string(),
            fixture: config.fixture.clone(),
        })?;
    let (server_end, client_end) = tokio::io::duplex(PIPE_BYTES);
    let serving = tokio::spawn(async move {
        if let Ok(running) = server.serve(server_end).await {
            let _ = running.waiting().await;
        }
    });
    let client = match ().serve(client_end).await {
        Ok(client) => client,
        Err(e) => {
            serving.abort();
            return Err(protocol(name, e));
        }
    };
    let listed = client
        .list_all_tools()
        .await
        .map_err(|e| protocol(name, e))?;
    let tools = listed
        .into_iter()
        .map(|tool| {
            let parameters = Value::Object((*tool.input_schema).clone());
            ToolEntry::new(
                ToolSource::Mcp,
                name,
                tool.name.to_string(),
                tool.description.map(|d| d.to_string()).unwrap_or_default(),
                parameters,
                Executor::Mcp {
                    server: name.to_string(),
                },
            )
        })
        .collect();
    Ok(Attached { client, tools })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calendar() -> BTreeMap<String, McpServerConfig> {
        BTreeMap::from([(
            "calendar".to_string(),
            McpServerConfig {
                fixture: "calendar".into(),
            },
        )])
    }

    #[tokio::test]
    async fn lists_and_calls_the_calendar_fixture() {
        let hub = McpHub::connect(&calendar())
            .await
            .expect("fixture attaches");
        let ids: Vec<String> = hub.entries().into_iter().map(|e| e.id).collect();
        assert_eq!(
            ids,
            ["mcp:calendar:create_event", "mcp:calendar:list_events"]
        );
        let entry = &hub.entries()[0];
        assert_eq!(entry.source, ToolSource::Mcp);
        assert_eq!(entry.parameters["required"], json!(["title", "start"]));
        assert_eq!(entry.output_schema, None);

        let created = hub
            .call(
                "calendar",
                "create_event",
                &json!({"title": "Standup", "start": "2026-12-01T09:00"}),
            )
            .await;
        assert_eq!(
            created,
            Ok(json!({
                "content": [{"type": "text", "text": "MCP_CALENDAR_OK created evt_1 \"Standup\" at 2026-12-01T09:00"}],
                "details": {"status": "created", "event": {"id": "evt_1", "title": "Standup", "start": "2026-12-01T09:00", "durationMinutes": 30}}
            }))
        );
        let listed = hub
            .call("calendar", "list_events", &json!({"day": "2026-12-01"}))
            .await;
        assert_eq!(
            listed.map(|v| v["details"]["events"][0]["id"].clone()),
            Ok(json!("evt_1"))
        );
    }

    #[tokio::test]
    async fn server_side_errors_and_bad_input_are_values() {
        let hub = McpHub::connect(&calendar())
            .await
            .expect("fixture attaches");
        assert_eq!(
            hub.call("calendar", "create_event", &json!({"title": 3}))
                .await,
            Err(McpError::ToolError(
                "create_event needs string fields title and start".into()
            ))
        );
        assert_eq!(
            hub.call("calendar", "create_event", &json!([1])).await,
            Err(McpError::NotAnObject("[1]".into()))
        );
        assert_eq!(
            hub.call("nope", "x", &json!({})).await,
            Err(McpError::NotAttached {
                server: "nope".into()
            })
        );
        let unknown = hub.call("calendar", "nope", &json!({})).await;
        assert!(
            matches!(unknown, Err(McpError::Protocol { .. })),
            "{unknown:?}"
        );
    }

    #[tokio::test]
    async fn unknown_fixture_is_named() {
        let configs = BTreeMap::from([(
            "x".to_string(),
            McpServerConfig {
                fixture: "weather".into(),
            },
        )]);
        let err = McpHub::connect(&configs).await.err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("catalog.mcpServers.x: unknown fixture \"weather\"; known: calendar, qa")
        );
    }
}
