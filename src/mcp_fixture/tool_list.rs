//! A JSON tool list served as an MCP server (`toolsearch-qa mcp-fixture --tool-list FILE`), so
//! `compare --catalog FILE.json` weighs someone's own tools exactly as it weighs a real server's:
//! both targets start it by command and list it over stdio. It lists the file's tools as written
//! (name, title, description, input schema, key order kept); a call answers with one line of text
//! naming the tool and its arguments (compare's turns call the fake plugin's target, not these).

use std::path::Path;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::catalog::file::{load_tool_list, ListedTool};

/// The MCP server name a tool list is served under (its tools are `catalog__<name>` on the
/// product).
pub const SERVER_NAME: &str = "catalog";
/// What a call's answer starts with.
pub const CALLED: &str = "TOOL_LIST_OK";

/// The tools of one JSON tool list, as an MCP server.
#[derive(Debug, Clone)]
pub struct ToolListServer {
    tools: Vec<Tool>,
}

impl ToolListServer {
    pub fn new(listed: Vec<ListedTool>) -> ToolListServer {
        let tools = listed
            .into_iter()
            .map(|t| {
                let mut tool = Tool::new(t.name, t.description, Arc::new(t.input_schema));
                tool.title = t.title;
                tool
            })
            .collect();
        ToolListServer { tools }
    }
}

impl ServerHandler for ToolListServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        if !self.tools.iter().any(|t| t.name == name) {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {name}"),
                None,
            ));
        }
        let args = Value::Object(request.arguments.unwrap_or_default());
        let text = format!("{CALLED} {name} {args}");
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
    }
}

/// Serves the tool list in `path` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(path: &Path) -> Result<(), super::FixtureError> {
    let server = format!("{SERVER_NAME} ({})", path.display());
    let tools = load_tool_list(path).map_err(|e| super::FixtureError::Serve {
        server: server.clone(),
        message: e.to_string(),
    })?;
    super::serve_on_stdio(ToolListServer::new(tools), &server).await
}
