//! The fixture servers' MCP handlers (built on the official Rust SDK): small and deterministic,
//! so MCP tools are listed with `tools/list` and run with `tools/call` over the real protocol.
//!
//! - `calendar`: `create_event {title, start, durationMinutes?}` and `list_events {day?}`. Events live
//!   in memory for the life of the server and get ids `evt_1`, `evt_2`, … in creation order.
//! - `qa`: `mcp_qa_echo {marker}`, which answers like a fake plugin tool (`FAKE_PLUGIN_OK
//!   qa__mcp_qa_echo <input>`), so the scripted QA model can take an MCP tool as a scenario's target.
//! - `qa-exit-after-call`: `qa` that answers its first `tools/call`, then exits (a fault fixture).

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};

use crate::catalog::fake::FAKE_OK;

/// The QA fixture's one tool.
pub const QA_ECHO_TOOL: &str = "mcp_qa_echo";
/// The QA fixture server's name.
pub const QA_SERVER: &str = "qa";
/// What [`super::QA_RENAMED`] calls the echo tool.
pub const RENAMED_ECHO_TOOL: &str = "mcp_qa_echo_v2";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fixture {
    Calendar,
    Qa,
    /// The QA server after an upgrade that renamed its tool to [`RENAMED_ECHO_TOOL`] (a fault
    /// fixture: the selftest points a lane's `qa` server at it).
    QaRenamed,
    /// Answers `initialize` but never `tools/list` (a fault fixture).
    HangOnList,
    /// The QA server until its first `tools/call`, then gone (a fault fixture).
    QaExitAfterCall,
    /// Lists a tool with an input schema that is no JSON Schema (a fault fixture).
    InvalidSchema,
}

/// The handler of the fixture server called `name`, if there is one.
pub fn fixture_server(name: &str) -> Option<FixtureServer> {
    let fixture = match name {
        "calendar" => Fixture::Calendar,
        QA_SERVER => Fixture::Qa,
        super::QA_RENAMED => Fixture::QaRenamed,
        super::HANG_ON_LIST => Fixture::HangOnList,
        super::QA_EXIT_AFTER_CALL => Fixture::QaExitAfterCall,
        super::INVALID_SCHEMA => Fixture::InvalidSchema,
        _ => return None,
    };
    Some(FixtureServer {
        fixture,
        events: Arc::default(),
    })
}

/// The tool names of the fixture server called `name` (empty for an unknown or faulty one).
pub fn tool_names(name: &str) -> Vec<String> {
    let tools = match name {
        "calendar" => calendar_tools(),
        "qa" | super::QA_EXIT_AFTER_CALL => qa_tools(),
        _ => Vec::new(),
    };
    tools.into_iter().map(|t| t.name.to_string()).collect()
}

/// The tools of the fixture server called `name` as it lists them: `(name, description, input
/// schema)` (empty for an unknown or faulty one).
pub fn tool_texts(name: &str) -> Vec<(String, String, Value)> {
    let tools = match name {
        "calendar" => calendar_tools(),
        "qa" | super::QA_EXIT_AFTER_CALL => qa_tools(),
        _ => Vec::new(),
    };
    tools
        .into_iter()
        .map(|t| {
            let description = t.description.as_deref().unwrap_or_default().to_string();
            let schema = Value::Object((*t.input_schema).clone());
            (t.name.to_string(), description, schema)
        })
        .collect()
}

/// One fixture MCP server.
#[derive(Debug, Clone)]
pub struct FixtureServer {
    fixture: Fixture,
    events: Arc<Mutex<Vec<Value>>>,
}

fn schema(value: Value) -> Arc<Map<String, Value>> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::default(),
    }
}

fn calendar_tools() -> Vec<Tool> {
    vec![
        Tool::new(
            "create_event",
            "Create a calendar event with a title and a start time.",
            schema(json!({
                "type": "object",
                "properties": {
                    "title": { "type": "string", "description": "Event title." },
                    "start": { "type": "string", "description": "Start time, ISO 8601." },
                    "durationMinutes": { "type": "integer", "minimum": 1 }
                },
                "required": ["title", "start"]
            })),
        ),
        Tool::new(
            "list_events",
            "List calendar events, optionally for one day (YYYY-MM-DD).",
            schema(json!({
                "type": "object",
                "properties": { "day": { "type": "string" } }
            })),
        ),
    ]
}

fn qa_tools() -> Vec<Tool> {
    vec![Tool::new(
        QA_ECHO_TOOL,
        "QA echo tool served over MCP. Answers like a fake plugin tool so a scenario can target it.",
        schema(json!({
            "type": "object",
            "properties": { "marker": { "type": "string" } },
            "required": ["marker"]
        })),
    )]
}

fn text_result(text: String, structured: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

fn error_result(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_string())])
}

impl FixtureServer {
    fn tools(&self) -> Vec<Tool> {
        match self.fixture {
            Fixture::Calendar => calendar_tools(),
            Fixture::Qa | Fixture::QaExitAfterCall => qa_tools(),
            Fixture::QaRenamed => qa_tools()
                .into_iter()
                .map(|mut t| {
                    t.name = RENAMED_ECHO_TOOL.into();
                    t
                })
                .collect(),
            Fixture::HangOnList => Vec::new(),
            Fixture::InvalidSchema => vec![Tool::new(
                "broken_schema",
                "A tool whose input schema names a type JSON Schema does not have.",
                schema(json!({
                    "type": "object",
                    "properties": { "marker": { "type": "strin" } }
                })),
            )],
        }
    }

    /// Text only, like a fake plugin tool's text: a gateway that prefers structured content
    /// (OpenClaw shows a direct MCP call's `structuredContent` instead of its text) would hide
    /// the marker. The tool names itself by its server-qualified name, `qa__mcp_qa_echo`,
    /// which contains the plain name: the scripted model finds its target in the result whichever
    /// name the gateway gave the tool (`mcp_qa_echo` here, `qa__mcp_qa_echo` in OpenClaw).
    fn qa_echo(&self, args: &Map<String, Value>) -> CallToolResult {
        let input = Value::Object(args.clone());
        let text = format!("{FAKE_OK} {QA_SERVER}__{QA_ECHO_TOOL} {input}");
        CallToolResult::success(vec![ContentBlock::text(text)])
    }

    /// The one call [`Fixture::QaExitAfterCall`] serves: the marker left, then the answer (the
    /// process exits once the answer is on its stdout: [`super::serve_stdio`]).
    fn qa_echo_then_exit(&self, args: &Map<String, Value>) -> CallToolResult {
        if let Err(e) = std::fs::write(super::EXITED_MARKER, b"served its call\n") {
            eprintln!("mcp-fixture: cannot leave {}: {e}", super::EXITED_MARKER);
        }
        self.qa_echo(args)
    }

    fn create_event(&self, args: &Map<String, Value>) -> CallToolResult {
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        let (Some(title), Some(start)) = (text("title"), text("start")) else {
            return error_result("create_event needs string fields title and start");
        };
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        let id = format!("evt_{}", events.len() + 1);
        let minutes = args
            .get("durationMinutes")
            .and_then(Value::as_u64)
            .unwrap_or(30);
        let event = json!({ "id": id, "title": title, "start": start, "durationMinutes": minutes });
        events.push(event.clone());
        text_result(
            format!("MCP_CALENDAR_OK created {id} {title:?} at {start}"),
            json!({ "status": "created", "event": event }),
        )
    }

    fn list_events(&self, args: &Map<String, Value>) -> CallToolResult {
        let day = args.get("day").and_then(Value::as_str).unwrap_or("");
        let events: Vec<Value> = self
            .events
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|e| e["start"].as_str().is_some_and(|s| s.starts_with(day)))
            .cloned()
            .collect();
        let structured = json!({ "events": events });
        text_result(structured.to_string(), structured)
    }
}

impl ServerHandler for FixtureServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.fixture == Fixture::HangOnList {
            std::future::pending::<()>().await;
        }
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let result = match (self.fixture, request.name.as_ref()) {
            (Fixture::Calendar, "create_event") => self.create_event(&args),
            (Fixture::Calendar, "list_events") => self.list_events(&args),
            (Fixture::Qa, QA_ECHO_TOOL) | (Fixture::QaRenamed, RENAMED_ECHO_TOOL) => {
                self.qa_echo(&args)
            }
            (Fixture::QaExitAfterCall, QA_ECHO_TOOL) => self.qa_echo_then_exit(&args),
            (_, other) => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool {other}"),
                    None,
                ))
            }
        };
        Ok(result.into())
    }
}
