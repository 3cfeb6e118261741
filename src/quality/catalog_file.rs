//! A user's own catalogue for `quality --catalog FILE`: JSON, either an array of tools or an
//! object with a `tools` array (the shape of an MCP `tools/list` result), each tool written as
//! a model sees it (`name`, `description`, `parameters` or `inputSchema`).

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::QualityError;
use crate::catalog::{Executor, ToolEntry, ToolSource};

/// Source name of tools that do not give one.
pub const DEFAULT_SOURCE_NAME: &str = "catalog";

/// One tool of a catalogue file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileTool {
    name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    label: Option<String>,
    /// Input schema (OpenAI function-declaration spelling).
    #[serde(default)]
    parameters: Option<Value>,
    /// Input schema (MCP spelling).
    #[serde(default)]
    input_schema: Option<Value>,
    /// `openclaw` (default: parameter text is searched), `mcp` or `client`.
    #[serde(default)]
    source: Option<ToolSource>,
    /// Plugin id or MCP server name (default `catalog`).
    #[serde(default)]
    source_name: Option<String>,
    /// The OpenAI declaration's `"type": "function"`, accepted and ignored.
    #[serde(default, rename = "type")]
    _kind: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum FileShape {
    Tools(Vec<FileTool>),
    Listing { tools: Vec<FileTool> },
}

/// Parses a catalogue file's text into entries (`path` only names the file in errors).
pub fn parse_catalog(text: &str, path: &Path) -> Result<Vec<ToolEntry>, QualityError> {
    let shape: FileShape = serde_json::from_str(text).map_err(|e| {
        QualityError::Catalog(format!(
            "{}: expected a JSON array of tools or {{\"tools\": [...]}}, each with name and \
             description: {e}",
            path.display()
        ))
    })?;
    let tools = match shape {
        FileShape::Tools(t) | FileShape::Listing { tools: t } => t,
    };
    if tools.is_empty() {
        return Err(QualityError::Catalog(format!(
            "{}: the catalogue has no tools",
            path.display()
        )));
    }
    Ok(tools.into_iter().map(entry).collect())
}

/// Reads and parses a catalogue file.
pub fn load_catalog(path: &Path) -> Result<Vec<ToolEntry>, QualityError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| QualityError::Catalog(format!("{}: {e}", path.display())))?;
    parse_catalog(&text, path)
}

fn entry(t: FileTool) -> ToolEntry {
    let source = t.source.unwrap_or(ToolSource::Openclaw);
    let source_name = t
        .source_name
        .unwrap_or_else(|| DEFAULT_SOURCE_NAME.to_string());
    let parameters = t
        .parameters
        .or(t.input_schema)
        .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
    let executor = match source {
        ToolSource::Openclaw => Executor::FakePlugin {
            plugin: source_name.clone(),
        },
        ToolSource::Mcp => Executor::Mcp {
            server: source_name.clone(),
        },
        ToolSource::Client => Executor::Client,
    };
    let entry = ToolEntry::new(
        source,
        source_name,
        t.name,
        t.description,
        parameters,
        executor,
    );
    match t.label {
        Some(label) => entry.with_label(label),
        None => entry,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_and_listing_shapes() {
        let path = Path::new("tools.json");
        let array = r#"[{"type": "function", "name": "send_invoice", "description": "Send an invoice.",
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}}}]"#;
        let entries = parse_catalog(array, path).unwrap_or_default();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].id, "openclaw:catalog:send_invoice");
        assert_eq!(entries[0].parameters["properties"]["id"]["type"], "string");
        let listing = r#"{"tools": [{"name": "get_weather", "description": "Weather now.",
            "inputSchema": {"type": "object"}, "source": "mcp", "sourceName": "wx"}]}"#;
        let entries = parse_catalog(listing, path).unwrap_or_default();
        assert_eq!(entries[0].id, "mcp:wx:get_weather");
        assert_eq!(entries[0].label, "get_weather");
    }

    #[test]
    fn errors_name_the_file() {
        let path = Path::new("mine.json");
        let err = parse_catalog("[]", path).err().map(|e| e.to_string());
        assert_eq!(
            err.as_deref(),
            Some("catalogue file: mine.json: the catalogue has no tools")
        );
        let err = parse_catalog(r#"[{"description": "x"}]"#, path)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.starts_with("catalogue file: mine.json: expected a JSON array"),
            "{err}"
        );
    }
}
