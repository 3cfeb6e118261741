//! Session-log records: what a gateway says about a session, one record per line.
//!
//! The embedded gateway writes these (its log adds a `ts` after `type`), the openclaw target
//! translates a real OpenClaw transcript into them, and every reader (claims, `load`, `probes`)
//! matches on them instead of poking at JSON. The field names and their order are the wire
//! format of the log: snapshots are taken of the log as written, so changing a field here shows
//! up as a snapshot diff.
//!
//! Fields a real OpenClaw transcript does not record (how many schemas the model saw up front,
//! the source of a direct call) are `Option`s left `None` by its translator, so a claim reports
//! them as missing instead of guessing.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::terms::{SourceCounts, ToolSearchMode, ToolSource};

/// One line of a session log, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SessionRecord {
    /// The surface of the turn: what the model was shown up front.
    #[serde(rename = "surface")]
    Surface(SurfaceRecord),
    /// A user or assistant message: text, a tool call, or a synthetic (bridged) tool call.
    #[serde(rename = "message")]
    Message(MessageRecord),
    /// The size of one provider request (spec §9).
    #[serde(rename = "provider_request")]
    ProviderRequest(ProviderRequestRecord),
    /// The result of a tool call, direct or bridged.
    #[serde(rename = "toolResult")]
    ToolResult(ToolResultRecord),
    /// A client tool handed back to the caller (not run by the gateway).
    #[serde(rename = "clientToolCall")]
    ClientToolCall(ClientToolCallRecord),
    /// The run's Tool Search counters at the end of the turn.
    #[serde(rename = "telemetry")]
    Telemetry { telemetry: TelemetryCounts },
    /// Why the turn failed (after every record written before the failure).
    #[serde(rename = "turn_error")]
    TurnError { error: String },
}

/// `surface`: the mode in force and the tools declared with full schemas.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SurfaceRecord {
    pub mode: Option<ToolSearchMode>,
    pub declared_tools: Option<Vec<String>>,
    pub declared_tool_count: Option<usize>,
    pub catalog_size: Option<usize>,
    pub sources: Option<SourceCounts>,
    pub notes: Option<Vec<String>>,
    /// Why `declaredToolCount` is missing, when a translated transcript knows (e.g. the product
    /// stores its list of visible tools truncated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrecorded: Option<String>,
    /// Code Mode engaged: `exec` + `wait` were the controls (then `mode` is unset: Code Mode
    /// supersedes every Tool Search mode).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub code_mode: bool,
}

/// The surface note a translated transcript carries when its search and describe counts and its
/// catalogue size come from the `tool_search_code` result alone: no other record of the log
/// counts them, so a check of that result against the log would compare it with itself.
pub const COUNTED_FROM_CODE_RESULT: &str =
    "searches, describes and the catalogue size are known only from the tool_search_code result";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Developer,
}

/// `message`: a text, a tool call, or (with `synthetic`) the bridged call a control made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageRecord {
    pub role: Role,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<ToolCallRecord>,
}

impl MessageRecord {
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        MessageRecord {
            role,
            synthetic: false,
            text: Some(text.into()),
            tool_call: None,
        }
    }

    pub fn tool_call(call: ToolCallRecord) -> Self {
        MessageRecord {
            role: Role::Assistant,
            synthetic: false,
            text: None,
            tool_call: Some(call),
        }
    }
}

/// A tool call the model made (or, with `parentToolCallId`, that a control made for it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    pub id: String,
    pub name: String,
    /// The arguments as the JSON text the model sent.
    pub arguments: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<ToolSource>,
}

/// `provider_request`: the sizes of one request the gateway sent (spec §9 telemetry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRequestRecord {
    pub round: usize,
    pub raw_bytes: usize,
    pub tools_bytes: usize,
    pub system_prompt_chars: usize,
    pub declared_tool_count: usize,
}

/// `toolResult`: a bridged call's result (it has a parent) or a direct one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultRecord {
    Bridged(BridgedResult),
    Direct(DirectResult),
}

/// The result of a call the model made itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectResult {
    pub tool_call_id: String,
    pub tool_name: String,
    pub is_error: bool,
    /// Where the called tool came from (`None` for controls and unknown names).
    pub source: Option<ToolSource>,
    /// The `function_call_output.output` text the model got.
    pub output: String,
}

/// The result of a call a control (`tool_call`, `tool_search_code`) made for the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgedResult {
    pub tool_call_id: String,
    pub tool_name: String,
    pub parent_tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_id: Option<String>,
    pub source: Option<ToolSource>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_name: Option<String>,
    pub is_error: bool,
    /// The tool's result (JSON), or the error message.
    pub output: Value,
}

impl ToolResultRecord {
    pub fn tool_call_id(&self) -> &str {
        match self {
            ToolResultRecord::Bridged(r) => &r.tool_call_id,
            ToolResultRecord::Direct(r) => &r.tool_call_id,
        }
    }

    pub fn tool_name(&self) -> &str {
        match self {
            ToolResultRecord::Bridged(r) => &r.tool_name,
            ToolResultRecord::Direct(r) => &r.tool_name,
        }
    }

    pub fn is_error(&self) -> bool {
        match self {
            ToolResultRecord::Bridged(r) => r.is_error,
            ToolResultRecord::Direct(r) => r.is_error,
        }
    }

    pub fn source(&self) -> Option<ToolSource> {
        match self {
            ToolResultRecord::Bridged(r) => r.source,
            ToolResultRecord::Direct(r) => r.source,
        }
    }

    /// The control call that made this call, when it was bridged.
    pub fn parent_tool_call_id(&self) -> Option<&str> {
        match self {
            ToolResultRecord::Bridged(r) => Some(&r.parent_tool_call_id),
            ToolResultRecord::Direct(_) => None,
        }
    }

    /// The output as text: the string itself, or the JSON text of a structured result.
    pub fn output_text(&self) -> String {
        match self {
            ToolResultRecord::Direct(r) => r.output.clone(),
            ToolResultRecord::Bridged(r) => match &r.output {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            },
        }
    }
}

/// `clientToolCall`: a client tool the model called, handed back to the caller.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientToolCallRecord {
    pub tool_call_id: String,
    pub tool_name: String,
    pub tool_id: String,
    pub source: ToolSource,
    /// Whether the model reached it through `tool_call`.
    pub via_tool_call: bool,
    /// In code mode: the `tool_search_code` call whose code called the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_tool_call_id: Option<String>,
}

/// `telemetry`: the run's counters (spec §9). A real OpenClaw's transcript may carry only the
/// counts, without the catalogue figures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TelemetryCounts {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_size: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sources: Option<SourceCounts>,
    pub search_count: u64,
    pub describe_count: u64,
    pub call_count: u64,
}

impl SessionRecord {
    /// The record's `type` tag.
    pub fn kind(&self) -> &'static str {
        match self {
            SessionRecord::Surface(_) => "surface",
            SessionRecord::Message(_) => "message",
            SessionRecord::ProviderRequest(_) => "provider_request",
            SessionRecord::ToolResult(_) => "toolResult",
            SessionRecord::ClientToolCall(_) => "clientToolCall",
            SessionRecord::Telemetry { .. } => "telemetry",
            SessionRecord::TurnError { .. } => "turn_error",
        }
    }

    pub fn as_tool_result(&self) -> Option<&ToolResultRecord> {
        match self {
            SessionRecord::ToolResult(r) => Some(r),
            _ => None,
        }
    }

    pub fn as_message(&self) -> Option<&MessageRecord> {
        match self {
            SessionRecord::Message(m) => Some(m),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round_trip(line: Value) -> SessionRecord {
        let record: SessionRecord = serde_json::from_value(line.clone()).expect("parses");
        let mut again = serde_json::to_value(&record).unwrap();
        // The log's `ts` is the writer's, not the record's.
        let mut line = line;
        line.as_object_mut().unwrap().shift_remove("ts");
        again.as_object_mut().unwrap().shift_remove("ts");
        assert_eq!(
            serde_json::to_string(&again).unwrap(),
            serde_json::to_string(&line).unwrap(),
            "key order and values survive a round trip"
        );
        record
    }

    #[test]
    fn every_kind_the_embedded_gateway_writes_round_trips_byte_for_byte() {
        round_trip(
            json!({"type": "surface", "ts": 1, "mode": "tools", "declaredTools": ["tool_call"],
            "declaredToolCount": 1, "catalogSize": 43, "sources": {"openclaw": 43, "mcp": 0, "client": 0}, "notes": []}),
        );
        round_trip(
            json!({"type": "surface", "ts": 1, "mode": "direct", "declaredTools": [],
            "declaredToolCount": 0, "catalogSize": 0, "sources": null, "notes": ["why"]}),
        );
        round_trip(json!({"type": "message", "ts": 1, "role": "user", "text": "hi"}));
        round_trip(
            json!({"type": "provider_request", "ts": 1, "round": 1, "rawBytes": 10,
            "toolsBytes": 2, "systemPromptChars": 3, "declaredToolCount": 4}),
        );
        round_trip(json!({"type": "message", "ts": 1, "role": "assistant",
            "toolCall": {"id": "call_1", "name": "tool_call", "arguments": "{}"}}));
        let direct = round_trip(
            json!({"type": "toolResult", "ts": 1, "toolCallId": "call_1",
            "toolName": "tool_call", "isError": false, "source": null, "output": "{}"}),
        );
        assert!(matches!(
            direct,
            SessionRecord::ToolResult(ToolResultRecord::Direct(_))
        ));
        round_trip(
            json!({"type": "message", "ts": 1, "role": "assistant", "synthetic": true,
            "toolCall": {"id": "c", "name": "t", "arguments": "{}", "parentToolCallId": "call_1",
            "toolId": "openclaw:p:t", "source": "openclaw"}}),
        );
        let bridged = round_trip(
            json!({"type": "toolResult", "ts": 1, "toolCallId": "c", "toolName": "t",
            "parentToolCallId": "call_1", "toolId": "openclaw:p:t", "source": "openclaw",
            "sourceName": "p", "isError": false, "output": {"details": 1}}),
        );
        assert_eq!(
            bridged.as_tool_result().unwrap().parent_tool_call_id(),
            Some("call_1")
        );
        round_trip(
            json!({"type": "clientToolCall", "ts": 1, "toolCallId": "call_2", "toolName": "pick",
            "toolId": "client:client:pick", "source": "client", "viaToolCall": true}),
        );
        round_trip(
            json!({"type": "clientToolCall", "ts": 1, "toolCallId": "tool_search_code:call_1:pick:1",
            "toolName": "pick", "toolId": "client:client:pick", "source": "client",
            "viaToolCall": false, "parentToolCallId": "call_1"}),
        );
        round_trip(
            json!({"type": "telemetry", "ts": 1, "telemetry": {"catalogSize": 43,
            "sources": {"openclaw": 43, "mcp": 0, "client": 0}, "searchCount": 1, "describeCount": 0, "callCount": 1}}),
        );
        round_trip(json!({"type": "turn_error", "ts": 1, "error": "boom"}));
    }

    #[test]
    fn an_unknown_kind_is_an_error() {
        assert!(serde_json::from_value::<SessionRecord>(json!({"type": "end"})).is_err());
    }
}
