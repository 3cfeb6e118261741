//! The two non-model views of a gateway the reference run reads besides a turn, in the product's
//! shapes: `POST /tools/invoke` (one tool run directly, no model: OpenClaw's
//! docs/gateway/tools-invoke-http-api.md) and `tools.effective` (which tools a session has and
//! where each comes from: the product's gateway method of that name). Both gateways answer
//! these shapes; the suite reads only them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The path of the direct tool invocation.
pub const INVOKE_PATH: &str = "/tools/invoke";
/// The embedded gateway's HTTP view of `tools.effective` (the product serves it only as a
/// gateway WebSocket method).
pub const EFFECTIVE_PATH: &str = "/tools/effective";

/// A `POST /tools/invoke` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvokeRequest {
    /// The tool to run (the product also reads `tool` when `name` is absent).
    pub name: String,
    pub args: Value,
    pub session_key: String,
}

/// A `POST /tools/invoke` answer: `{ok: true, result}` or `{ok: false, error: {type, message}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvokeAnswer {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<InvokeError>,
}

/// Why an invocation failed, as the product says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvokeError {
    /// `invalid_request`, `not_found`, `tool_call_blocked` or `tool_error`.
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
}

impl InvokeAnswer {
    pub fn success(result: Value) -> Self {
        InvokeAnswer {
            ok: true,
            result: Some(result),
            error: None,
        }
    }

    pub fn failure(kind: &str, message: impl Into<String>) -> Self {
        InvokeAnswer {
            ok: false,
            result: None,
            error: Some(InvokeError {
                kind: kind.to_string(),
                message: message.into(),
            }),
        }
    }
}

/// `tools.effective` params.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveRequest {
    pub session_key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
}

/// `tools.effective`'s answer: the session's tools grouped by where they come from (core,
/// plugin, channel, mcp; in that order).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveTools {
    pub agent_id: String,
    pub profile: String,
    pub groups: Vec<EffectiveGroup>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EffectiveGroup {
    pub id: String,
    pub label: String,
    pub source: String,
    pub tools: Vec<EffectiveTool>,
}

/// One effective tool: its name (`id`), where it comes from and, for plugin and MCP tools, the
/// owning plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EffectiveTool {
    pub id: String,
    pub label: String,
    #[serde(default)]
    pub description: String,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_id: Option<String>,
}

impl EffectiveTools {
    /// The tool named `id`, in whichever group it is.
    pub fn tool(&self, id: &str) -> Option<&EffectiveTool> {
        self.groups
            .iter()
            .flat_map(|g| g.tools.iter())
            .find(|t| t.id == id)
    }

    /// How many tools the answer lists.
    pub fn count(&self) -> usize {
        self.groups.iter().map(|g| g.tools.len()).sum()
    }
}
