//! A catalogue of one's own as a JSON tool list, for `quality --catalog FILE` and
//! `compare --catalog FILE.json`: either an array of tools or an object with a `tools` array
//! (the shape of an MCP `tools/list` result), each tool written as a model sees it (`name`,
//! `description`, `parameters` or `inputSchema`). A mistake is said with the file, the line and
//! column, and the field (`tools[2].name`), so a list of a thousand tools is fixed at once.

use std::collections::HashMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{Map, Value};

use thiserror::Error;

use super::{Executor, ToolEntry, ToolSource};

/// A catalogue file that does not load: the file, the line and column or the field at fault.
#[derive(Debug, Error)]
#[error("catalogue file: {0}")]
pub struct CatalogFileError(pub String);

/// Source name of tools that do not give one.
pub const DEFAULT_SOURCE_NAME: &str = "catalog";

/// One tool of a catalogue file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct FileTool {
    name: String,
    #[serde(default)]
    description: String,
    /// A display name (`title` is the MCP spelling).
    #[serde(default, alias = "title")]
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
    /// An MCP listing's annotations and output schema, accepted and ignored (no mode declares
    /// them to the model).
    #[serde(default, rename = "annotations")]
    _annotations: Option<Value>,
    #[serde(default, rename = "outputSchema")]
    _output_schema: Option<Value>,
}

/// `{"tools": [...]}`, as an MCP `tools/list` result (its `nextCursor` ignored).
#[derive(Debug, Deserialize)]
struct Listing {
    tools: Vec<FileTool>,
}

/// One tool of a JSON tool list as an MCP server lists it (`compare --catalog FILE.json` serves
/// the list as one MCP server).
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    /// The input schema exactly as the file has it (key order kept).
    pub input_schema: Map<String, Value>,
}

/// `path:line:column: field: what`, from a typed parse's error.
fn located(path: &Path, e: serde_path_to_error::Error<serde_json::Error>, prefix: &str) -> String {
    let inner = e.inner();
    let (line, column) = (inner.line(), inner.column());
    let what = inner.to_string();
    let what = what
        .strip_suffix(&format!(" at line {line} column {column}"))
        .unwrap_or(&what)
        .to_string();
    let field = e.path().to_string();
    let field = match field.as_str() {
        "." => prefix.trim_end_matches('.').to_string(),
        f => format!("{prefix}{f}"),
    };
    let at = format!("{}:{line}:{column}", path.display());
    match field.is_empty() {
        true => format!("{at}: {what}"),
        false => format!("{at}: {field}: {what}"),
    }
}

/// The file's tools, in file order, each with the field path it was read from (`[2]` or
/// `tools[2]`): a typed parse whose error names the line, column and field.
fn file_tools(text: &str, path: &Path) -> Result<Vec<(String, FileTool)>, CatalogFileError> {
    let error = |message: String| CatalogFileError(message);
    let (tools, prefix) = match text.trim_start().chars().next() {
        Some('[') => {
            let mut de = serde_json::Deserializer::from_str(text);
            let tools: Vec<FileTool> = serde_path_to_error::deserialize(&mut de)
                .map_err(|e| error(located(path, e, "")))?;
            (tools, "")
        }
        Some('{') => {
            let mut de = serde_json::Deserializer::from_str(text);
            let listing: Listing = serde_path_to_error::deserialize(&mut de)
                .map_err(|e| error(located(path, e, "")))?;
            (listing.tools, "tools")
        }
        _ => {
            return Err(error(format!(
                "{}: expected a JSON array of tools or {{\"tools\": [...]}}, each with name and \
                 description",
                path.display()
            )))
        }
    };
    if tools.is_empty() {
        return Err(error(format!(
            "{}: the catalogue has no tools",
            path.display()
        )));
    }
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, tool) in tools.iter().enumerate() {
        if let Some(j) = first.insert(tool.name.clone(), i) {
            return Err(error(format!(
                "{}: {prefix}[{i}].name: {:?} is listed twice (also {prefix}[{j}])",
                path.display(),
                tool.name
            )));
        }
    }
    Ok(tools
        .into_iter()
        .enumerate()
        .map(|(i, t)| (format!("{prefix}[{i}]"), t))
        .collect())
}

/// Parses a catalogue file's text into entries (`path` only names the file in errors).
pub fn parse_catalog(text: &str, path: &Path) -> Result<Vec<ToolEntry>, CatalogFileError> {
    Ok(file_tools(text, path)?
        .into_iter()
        .map(|(_, t)| entry(t))
        .collect())
}

/// Reads and parses a catalogue file.
pub fn load_catalog(path: &Path) -> Result<Vec<ToolEntry>, CatalogFileError> {
    parse_catalog(&read(path)?, path)
}

fn read(path: &Path) -> Result<String, CatalogFileError> {
    std::fs::read_to_string(path).map_err(|e| CatalogFileError(format!("{}: {e}", path.display())))
}

/// Parses a JSON tool list served as one MCP server: every tool is that server's, so `source`
/// and `sourceName` (which `quality` reads) are refused, and the input schema must be an object.
pub fn parse_tool_list(text: &str, path: &Path) -> Result<Vec<ListedTool>, CatalogFileError> {
    file_tools(text, path)?
        .into_iter()
        .map(|(at, t)| {
            let refuse = |field: &str| {
                CatalogFileError(format!(
                    "{}: {at}.{field}: a tool list is served as one MCP server; drop {field}",
                    path.display()
                ))
            };
            if t.source.is_some() {
                return Err(refuse("source"));
            }
            if t.source_name.is_some() {
                return Err(refuse("sourceName"));
            }
            let (field, schema) = match (t.input_schema, t.parameters) {
                (Some(s), None) => ("inputSchema", s),
                (None, Some(s)) => ("parameters", s),
                (None, None) => ("inputSchema", serde_json::json!({"type": "object"})),
                (Some(_), Some(_)) => {
                    return Err(CatalogFileError(format!(
                        "{}: {at}: both inputSchema and parameters: give one",
                        path.display()
                    )))
                }
            };
            let Value::Object(input_schema) = schema else {
                return Err(CatalogFileError(format!(
                    "{}: {at}.{field}: not a JSON object",
                    path.display()
                )));
            };
            Ok(ListedTool {
                name: t.name,
                title: t.label,
                description: t.description,
                input_schema,
            })
        })
        .collect()
}

/// Reads and parses a JSON tool list ([`parse_tool_list`]).
pub fn load_tool_list(path: &Path) -> Result<Vec<ListedTool>, CatalogFileError> {
    parse_tool_list(&read(path)?, path)
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
        let err = |text: &str| {
            parse_catalog(text, path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            err("[{\"description\": \"x\"}]"),
            "catalogue file: mine.json:1:21: [0]: missing field `name`"
        );
        assert_eq!(
            err("{\"tools\": [\n  {\"name\": \"a\"},\n  {\"name\": 7}\n]}"),
            "catalogue file: mine.json:3:12: tools[1].name: invalid type: integer `7`, expected a string"
        );
        assert_eq!(
            err("[{\"name\": \"a\", \"descripton\": \"x\"}]"),
            "catalogue file: mine.json:1:27: [0].descripton: unknown field `descripton`, expected one \
             of `name`, `description`, `label`, `title`, `parameters`, `inputSchema`, `source`, \
             `sourceName`, `type`, `annotations`, `outputSchema`"
        );
        assert_eq!(
            err("[{\"name\": \"a\"}, {\"name\": \"a\"}]"),
            "catalogue file: mine.json: [1].name: \"a\" is listed twice (also [0])"
        );
        assert_eq!(
            err("tools"),
            "catalogue file: mine.json: expected a JSON array of tools or {\"tools\": [...]}, each \
             with name and description"
        );
    }

    #[test]
    fn a_tool_list_keeps_each_schema_as_written_and_refuses_what_one_server_cannot_be() {
        let path = Path::new("list.json");
        let text = r#"{"tools": [{"name": "get_weather", "title": "Weather",
            "description": "Weather now.",
            "inputSchema": {"$schema": "x", "type": "object", "properties": {}},
            "annotations": {"readOnlyHint": true}}]}"#;
        let tools = parse_tool_list(text, path).unwrap_or_default();
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].title.as_deref(), Some("Weather"));
        let keys: Vec<&String> = tools[0].input_schema.keys().collect();
        assert_eq!(keys, ["$schema", "type", "properties"]);
        let err = |text: &str| {
            parse_tool_list(text, path)
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default()
        };
        assert_eq!(
            err(r#"[{"name": "a", "source": "mcp"}]"#),
            "catalogue file: list.json: [0].source: a tool list is served as one MCP server; drop source"
        );
        assert_eq!(
            err(r#"[{"name": "a", "parameters": [1]}]"#),
            "catalogue file: list.json: [0].parameters: not a JSON object"
        );
        assert_eq!(
            err(r#"[{"name": "a", "parameters": {}, "inputSchema": {}}]"#),
            "catalogue file: list.json: [0]: both inputSchema and parameters: give one"
        );
    }
}
