//! The tool catalogue: what a tool *is* before any mode decides how the model sees it.
//!
//! A [`ToolEntry`] carries the id, source and schemas the spec (§3) asks for, plus an
//! [`Executor`] that says, as data, what running it means. The gateway owns execution;
//! the engine only indexes and looks entries up.

pub mod fake;
pub mod file;
pub mod policy;
pub mod realistic;

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::protocol::terms::ToolSource;
pub use policy::{matches as glob_matches, ToolPolicy};

/// Whether a tool may be hidden behind Tool Search.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CatalogMode {
    /// Catalogued (hidden) when Tool Search is on.
    #[default]
    Default,
    /// Always visible to the model, never catalogued.
    DirectOnly,
    /// Always visible to the model and catalogued too (searchable, never in the capability
    /// directory): OpenClaw's core coding primitives.
    Visible,
}

/// What executing a tool means in the embedded gateway. Data, so entries stay comparable:
/// "the same executor" (spec §6) is `==` on this value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Executor {
    /// The fake plugin: returns `FAKE_PLUGIN_OK <name> <input JSON>` and details `{status, tool, input}`.
    FakePlugin { plugin: String },
    /// A fake plugin tool broken on purpose: executing it fails. Scenarios use it to show that
    /// the gate catches a product whose tool stops working.
    BrokenFake { plugin: String },
    /// A core tool stand-in: echoes its input back as details.
    CoreEcho,
    /// An MCP server's tool, run with `tools/call` on that server.
    Mcp { server: String },
    /// A client tool: never executed by the gateway; the call is handed back to the caller.
    Client,
}

/// One tool, as the gateway lists it before policy and mode are applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolEntry {
    /// `<source>:<sourceName>:<name>`.
    pub id: String,
    pub source: ToolSource,
    /// `core` for core tools, the plugin id for plugin tools, the server name for MCP, `client` for client tools.
    pub source_name: String,
    pub name: String,
    pub label: String,
    pub description: String,
    /// The raw JSON schema of the input, exactly as the tool declared it. Shared: cloning an
    /// entry (each turn plans from copies) or declaring it never copies the schema.
    pub parameters: Arc<Value>,
    /// Declared output schema; only kept for trusted (`openclaw`) tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default)]
    pub catalog_mode: CatalogMode,
    pub executor: Executor,
}

impl ToolEntry {
    /// Builds an entry and derives its id from source, source name and tool name.
    pub fn new(
        source: ToolSource,
        source_name: impl Into<String>,
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: impl Into<Arc<Value>>,
        executor: Executor,
    ) -> Self {
        let source_name = source_name.into();
        let name = name.into();
        ToolEntry {
            id: entry_id(source, &source_name, &name),
            source,
            label: name.clone(),
            source_name,
            name,
            description: description.into(),
            parameters: parameters.into(),
            output_schema: None,
            catalog_mode: CatalogMode::Default,
            executor,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = label.into();
        self
    }

    /// Output schemas of untrusted sources are dropped (spec §3).
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        self.output_schema = self.source.is_trusted().then_some(schema);
        self
    }

    pub fn direct_only(mut self) -> Self {
        self.catalog_mode = CatalogMode::DirectOnly;
        self
    }

    /// The OpenAI Responses `tools[]` entry for direct exposure.
    pub fn function_declaration(&self) -> FunctionDeclaration {
        FunctionDeclaration::new(&self.name, &self.description, self.parameters.clone())
    }
}

/// One entry of a provider request's `tools[]`: an OpenAI Responses function tool. It
/// serialises exactly as `{"type": "function", "name", "description", "parameters"}` does,
/// straight from its parts: a request declaring ten thousand tools never builds a JSON tree
/// for them, and the schema is the catalogue entry's own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FunctionDeclaration {
    #[serde(rename = "type")]
    kind: FunctionKind,
    pub name: String,
    pub description: String,
    pub parameters: Arc<Value>,
}

/// The only `type` a declaration has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum FunctionKind {
    Function,
}

impl FunctionDeclaration {
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: impl Into<Arc<Value>>,
    ) -> Self {
        FunctionDeclaration {
            kind: FunctionKind::Function,
            name: name.into(),
            description: description.into(),
            parameters: parameters.into(),
        }
    }
}

/// `<source>:<sourceName>:<toolName>` (spec §3).
pub fn entry_id(source: ToolSource, source_name: &str, name: &str) -> String {
    format!("{}:{}:{}", source.as_str(), source_name, name)
}
