//! A profile as data: what a gateway shows the model besides the catalogue, per mode. The field
//! names are the file's (`data/profiles/*.toml`); `docs/profiles.md` explains each.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::text::Text;
use crate::config::ToolSearchMode;

/// The surface a profile describes.
#[derive(Debug, Clone, PartialEq)]
pub enum ProfileSurface {
    /// The project's own surface, as `tool-search-spec.md` describes it: the stand-in core
    /// tools, our control declarations, our prompt and directory (the engine's code).
    Spec,
    /// A surface captured from a gateway (`profile capture`).
    Captured(Box<Captured>),
}

/// Which surface a profile file describes (`surface = "spec" | "captured"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SurfaceKind {
    Spec,
    Captured,
}

/// A captured surface: every part a captured profile must have.
#[derive(Debug, Clone, PartialEq)]
pub struct Captured {
    pub source: Source,
    pub request: RequestShape,
    pub core_tools: Vec<CoreTool>,
    pub controls: Vec<Control>,
    pub directory: DirectoryFormat,
    pub prompt: Prompts,
}

/// Where and how a captured profile was taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// `openclaw 2026.9.6`.
    pub product: String,
    /// The Node version it ran on, when it runs on Node.
    #[serde(default)]
    pub node: Option<String>,
    /// The scenario whose lanes were captured.
    pub scenario: String,
    /// Fake plugin tools in the captured lanes.
    pub catalog_size: usize,
    /// The day of the capture (`YYYY-MM-DD`).
    pub captured_on: String,
    /// The fake tools' description as the surface's reference scenario words it (`{n}` the
    /// tool's number, `{name}` its name): what a gateway under this profile gives the fake
    /// plugin when its config sets no `descriptionTemplate`. Unset: our three sentences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture_description: Option<String>,
}

/// What the gateway adds to every provider request besides tools and system prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RequestShape {
    /// The gateway asks the provider to stream.
    pub stream: bool,
    /// Put before the user's own text (e.g. a timestamp).
    pub user_prefix: Text,
    /// Input items after the user's message (e.g. runtime context), in order.
    #[serde(default)]
    pub extra_input: Vec<ExtraInput>,
}

/// One extra input item: a message of `role` with one `input_text`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtraInput {
    pub role: String,
    pub text: Text,
}

/// How a core tool is shown when Tool Search is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exposure {
    /// Hidden behind Tool Search: searchable, listed in the capability directory.
    Catalogued,
    /// Declared in every mode and still searchable; left out of the directory (OpenClaw's core
    /// coding primitives).
    Visible,
    /// Declared in every mode, never catalogued.
    DirectOnly,
}

/// One of the gateway's own tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CoreTool {
    pub name: String,
    /// The tool's `sourceName` (`core`, or the plugin that owns it).
    pub owner: String,
    pub exposure: Exposure,
    pub description: Text,
    /// The text after `- name: ` in the prompt's tool list; unset: the line is `- name`.
    #[serde(default)]
    pub summary: Option<Text>,
    /// The input schema as JSON; each `description` is its text or its size, `"[N chars]"`
    /// (`"[N chars, M bytes]"`, `"[N chars, M bytes, L lines]"` when those differ).
    pub parameters: Schema,
}

/// A control tool of one or more Tool Search modes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Control {
    pub name: String,
    pub modes: Vec<ToolSearchMode>,
    pub description: Text,
    #[serde(default)]
    pub summary: Option<Text>,
    pub parameters: Schema,
}

/// A JSON schema kept as JSON text in the file (TOML has no `null`, schemas may).
#[derive(Debug, Clone, PartialEq)]
pub struct Schema(pub Value);

impl Serialize for Schema {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0.to_string())
    }
}

impl<'de> Deserialize<'de> for Schema {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Schema, D::Error> {
        let text = String::deserialize(deserializer)?;
        match serde_json::from_str::<Value>(&text) {
            Ok(value @ Value::Object(_)) => Ok(Schema(value)),
            Ok(_) => Err(serde::de::Error::custom(
                "expected a JSON object (a schema)",
            )),
            Err(e) => Err(serde::de::Error::custom(format!("not JSON: {e}"))),
        }
    }
}

/// How the capability directory is rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DirectoryFormat {
    /// The modes whose prompt has the directory.
    pub modes: Vec<ToolSearchMode>,
    /// Description lengths tried in order until the directory fits in `max_chars`; 0 lists
    /// names only. When even that does not fit, lines are dropped from the end and counted.
    pub description_cuts: Vec<usize>,
    /// Ends a cut description (within the cut length).
    pub ellipsis: String,
    /// The directory section (its body, the heading line not counted) stays within this; with
    /// `context_scale`, the cap of the bound the model's context window gives.
    pub max_chars: usize,
    /// Follows the count of tools left out, when some are.
    pub omitted: Text,
    /// The bound follows the model's context window (unset: it is `max_chars` whatever the
    /// model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_scale: Option<ContextScale>,
}

/// How the directory's bound follows the model's context window: the window's tokens divided
/// by `tokens_per_char`, at least `min_chars`, at most the format's `max_chars`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextScale {
    pub tokens_per_char: u64,
    pub min_chars: usize,
}

impl DirectoryFormat {
    /// The bound of the directory's body for a model of `context_window` tokens (unknown:
    /// `max_chars`).
    pub fn bound(&self, context_window: Option<u64>) -> usize {
        match (self.context_scale, context_window) {
            (Some(scale), Some(tokens)) if tokens > 0 && scale.tokens_per_char > 0 => {
                let scaled = usize::try_from(tokens / scale.tokens_per_char).unwrap_or(usize::MAX);
                scaled.max(scale.min_chars).min(self.max_chars)
            }
            _ => self.max_chars,
        }
    }
}

/// The system prompt per mode: its sections in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Prompts {
    pub direct: Vec<Section>,
    /// A mode the surface lacks (`tool_search.modes`) has no sections.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Section>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code: Vec<Section>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directory: Vec<Section>,
}

impl Prompts {
    pub fn of(&self, mode: ToolSearchMode) -> &[Section] {
        match mode {
            ToolSearchMode::Direct => &self.direct,
            ToolSearchMode::Tools => &self.tools,
            ToolSearchMode::Code => &self.code,
            ToolSearchMode::Directory => &self.directory,
        }
    }
}

/// A section of the system prompt: its heading line, its text, and optionally a list that
/// grows with the tools followed by more text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Section {
    /// The heading line without its line break (`## Tooling`); unset before the first heading.
    #[serde(default)]
    pub heading: Option<String>,
    pub text: Text,
    #[serde(default)]
    pub list: Option<ListKind>,
    /// Text after the list.
    #[serde(default)]
    pub after: Option<Text>,
}

/// The lists a prompt section can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ListKind {
    /// One line per declared tool: `- name: summary` or `- name`.
    Tools,
    /// The capability directory: one line per catalogued tool.
    Directory,
}
