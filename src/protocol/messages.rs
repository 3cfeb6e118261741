//! The Anthropic Messages API (`POST /v1/messages`) as typed wire shapes, both ways: the request
//! a gateway sends (with deferred tools and a tool search tool), the `Message` the mock answers,
//! its event stream, and the error body. The shapes are those of the official Python SDK 2.15.0
//! (`anthropic.types`, GA types), as `docs/native-tool-search.md` records them; the conformance
//! test checks every body the mock sends against that SDK.
//!
//! Tool definitions keep their input schema as the exact bytes sent ([`RawJson`]): the deferred
//! catalogue must go out byte-identical request after request, or a prompt cache breaks.
//! Everything the SDK leaves open (a tool's `input`, a schema) is any JSON; the rest is typed.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::raw::{type_tag, RawJson};
use super::response_object::fresh_id;

// ---------------------------------------------------------------------------------------------
// The request

/// A `POST /v1/messages` body (`MessageCreateParams`), as far as the mock and the gateway use it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    pub model: String,
    pub max_tokens: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<SystemPrompt>,
    pub messages: Vec<MessageParam>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// `true` asks for the event stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
}

impl MessagesRequest {
    /// Whether the caller asked for the event stream.
    pub fn streams(&self) -> bool {
        self.stream.unwrap_or(false)
    }
}

/// `system`: a string or text blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SystemPrompt {
    Text(String),
    Blocks(Vec<TextBlock>),
}

impl SystemPrompt {
    /// The prompt as one text (blocks joined by newlines).
    pub fn text(&self) -> String {
        match self {
            SystemPrompt::Text(text) => text.clone(),
            SystemPrompt::Blocks(blocks) => blocks
                .iter()
                .map(|b| b.text.as_str())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Who speaks a message of `messages`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
}

/// One message of `messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageParam {
    pub role: Role,
    pub content: BlockContent,
}

/// A message's (or a tool result's) `content`: a plain string or content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BlockContent {
    Text(String),
    Blocks(Vec<ContentBlock>),
}

impl BlockContent {
    /// The blocks (a string is one text block).
    pub fn blocks(&self) -> Vec<ContentBlock> {
        match self {
            BlockContent::Text(text) => vec![ContentBlock::text(text.clone())],
            BlockContent::Blocks(blocks) => blocks.clone(),
        }
    }

    /// The text of the string, or of every text block joined by newlines.
    pub fn text(&self) -> String {
        match self {
            BlockContent::Text(text) => text.clone(),
            BlockContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// A tool of `tools`: one of the two tool search tools, or a custom tool. Read from JSON text
/// only (a custom tool keeps its schema raw, see [`super::raw`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ToolDefinition {
    Search(SearchTool),
    Custom(CustomTool),
}

impl<'de> Deserialize<'de> for ToolDefinition {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        ToolDefinition::from_json(raw.get()).map_err(serde::de::Error::custom)
    }
}

impl ToolDefinition {
    /// Reads one tool from its JSON text, by its `type` (absent or `custom`: a custom tool).
    pub fn from_json(text: &str) -> Result<ToolDefinition, serde_json::Error> {
        match type_tag(text)?.as_deref() {
            None | Some("custom") => Ok(ToolDefinition::Custom(serde_json::from_str(text)?)),
            Some(kind) if SearchToolType::from_type(kind).is_some() => {
                Ok(ToolDefinition::Search(serde_json::from_str(text)?))
            }
            Some(other) => Err(serde::de::Error::custom(format!(
                "unsupported tool type {other:?} (the mock knows custom tools, \
                 tool_search_tool_bm25_20251119 and tool_search_tool_regex_20251119)"
            ))),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            ToolDefinition::Search(tool) => &tool.name,
            ToolDefinition::Custom(tool) => &tool.name,
        }
    }

    /// Whether the tool is declared with `"defer_loading": true`.
    pub fn deferred(&self) -> bool {
        match self {
            ToolDefinition::Search(tool) => tool.defer_loading == Some(true),
            ToolDefinition::Custom(tool) => tool.defer_loading == Some(true),
        }
    }
}

/// Which tool search tool: BM25 (a natural-language `query`) or regex (a `pattern`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SearchToolType {
    #[serde(
        rename = "tool_search_tool_bm25_20251119",
        alias = "tool_search_tool_bm25"
    )]
    Bm25,
    #[serde(
        rename = "tool_search_tool_regex_20251119",
        alias = "tool_search_tool_regex"
    )]
    Regex,
}

impl SearchToolType {
    /// The kind a tool `type` names (the dated name or its alias).
    pub fn from_type(kind: &str) -> Option<SearchToolType> {
        match kind {
            "tool_search_tool_bm25_20251119" | "tool_search_tool_bm25" => {
                Some(SearchToolType::Bm25)
            }
            "tool_search_tool_regex_20251119" | "tool_search_tool_regex" => {
                Some(SearchToolType::Regex)
            }
            _ => None,
        }
    }

    /// The `name` the SDK requires for this tool (and that its `server_tool_use` blocks carry).
    pub fn tool_name(self) -> &'static str {
        match self {
            SearchToolType::Bm25 => "tool_search_tool_bm25",
            SearchToolType::Regex => "tool_search_tool_regex",
        }
    }
}

/// `{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"}` (or regex).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SearchTool {
    #[serde(rename = "type")]
    pub kind: SearchToolType,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

impl SearchTool {
    /// The search tool of `kind` with the name the SDK requires.
    pub fn new(kind: SearchToolType) -> SearchTool {
        SearchTool {
            kind,
            name: kind.tool_name().to_string(),
            defer_loading: None,
        }
    }
}

/// The single-valued optional `type` of a custom tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CustomToolType {
    Custom,
}

/// A custom tool (`ToolParam`): `name`, `input_schema` (kept as sent), and `defer_loading`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CustomTool {
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<CustomToolType>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: RawJson,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

/// `tool_choice`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolChoice {
    Auto {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Any {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    Tool {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        disable_parallel_tool_use: Option<bool>,
    },
    None,
}

// ---------------------------------------------------------------------------------------------
// Content blocks (the same shapes go out in a `Message` and come back as params)

/// A content block, tagged by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    Text(TextBlock),
    ToolUse(ToolUseBlock),
    ToolResult(ToolResultBlock),
    ServerToolUse(ToolUseBlock),
    ToolSearchToolResult(ToolSearchToolResultBlock),
    /// Inside a `tool_result`'s content: a client search's reference to a deferred tool.
    ToolReference(ReferencedTool),
}

impl ContentBlock {
    pub fn text(text: impl Into<String>) -> ContentBlock {
        ContentBlock::Text(TextBlock { text: text.into() })
    }

    /// A `tool_use` of `name` with a fresh `toolu_` id.
    pub fn tool_use(name: impl Into<String>, input: Value) -> ContentBlock {
        ContentBlock::ToolUse(ToolUseBlock {
            id: fresh_id("toolu"),
            name: name.into(),
            input,
        })
    }

    /// A `server_tool_use` of the search tool `kind` with a fresh `srvtoolu_` id.
    pub fn server_tool_use(kind: SearchToolType, input: Value) -> ContentBlock {
        ContentBlock::ServerToolUse(ToolUseBlock {
            id: fresh_id("srvtoolu"),
            name: kind.tool_name().to_string(),
            input,
        })
    }

    /// A `tool_search_tool_result` answering `tool_use_id` with references to `names`.
    pub fn search_result(tool_use_id: impl Into<String>, names: &[String]) -> ContentBlock {
        ContentBlock::ToolSearchToolResult(ToolSearchToolResultBlock {
            tool_use_id: tool_use_id.into(),
            content: ToolSearchContent::ToolSearchToolSearchResult {
                tool_references: names
                    .iter()
                    .map(String::as_str)
                    .map(ToolReference::to)
                    .collect(),
            },
        })
    }

    /// A `tool_search_tool_result` reporting that the search failed.
    pub fn search_error(
        tool_use_id: impl Into<String>,
        error_code: SearchErrorCode,
        message: impl Into<String>,
    ) -> ContentBlock {
        ContentBlock::ToolSearchToolResult(ToolSearchToolResultBlock {
            tool_use_id: tool_use_id.into(),
            content: ToolSearchContent::ToolSearchToolResultError {
                error_code,
                error_message: Some(message.into()),
            },
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    pub text: String,
}

/// A `tool_use` or `server_tool_use` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    pub id: String,
    pub name: String,
    /// Any JSON object.
    pub input: Value,
}

/// A `tool_result` block of a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    pub tool_use_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BlockContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
}

impl ToolResultBlock {
    /// The result's text (its string, or its text blocks).
    pub fn text(&self) -> String {
        self.content
            .as_ref()
            .map(BlockContent::text)
            .unwrap_or_default()
    }

    /// The tools its `tool_reference` blocks name, in order.
    pub fn references(&self) -> Vec<&str> {
        match &self.content {
            Some(BlockContent::Blocks(blocks)) => blocks
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolReference(r) => Some(r.tool_name.as_str()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// A `tool_reference` block inside a tool result (its `type` is the block's tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReferencedTool {
    pub tool_name: String,
}

/// A `tool_search_tool_result` block: what a server-side search found, or why it failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSearchToolResultBlock {
    pub tool_use_id: String,
    pub content: ToolSearchContent,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolSearchContent {
    ToolSearchToolSearchResult {
        tool_references: Vec<ToolReference>,
    },
    ToolSearchToolResultError {
        error_code: SearchErrorCode,
        #[serde(default)]
        error_message: Option<String>,
    },
}

impl ToolSearchContent {
    /// The names a search result references (none for an error).
    pub fn names(&self) -> Vec<&str> {
        match self {
            ToolSearchContent::ToolSearchToolSearchResult { tool_references } => tool_references
                .iter()
                .map(|r| r.tool_name.as_str())
                .collect(),
            ToolSearchContent::ToolSearchToolResultError { .. } => Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolReferenceType {
    ToolReference,
}

/// `{"type": "tool_reference", "tool_name": …}` in a search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolReference {
    #[serde(rename = "type")]
    pub kind: ToolReferenceType,
    pub tool_name: String,
}

impl ToolReference {
    pub fn to(name: &str) -> ToolReference {
        ToolReference {
            kind: ToolReferenceType::ToolReference,
            tool_name: name.to_string(),
        }
    }
}

/// Why a server-side search failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchErrorCode {
    InvalidToolInput,
    Unavailable,
    TooManyRequests,
    ExecutionTimeExceeded,
}

// ---------------------------------------------------------------------------------------------
// The response

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageType {
    Message,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssistantRole {
    Assistant,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EndTurn,
    MaxTokens,
    StopSequence,
    ToolUse,
    PauseTurn,
    Refusal,
}

/// `usage` of a `Message`. The mock has no prompt cache: both cache counts are real zeros. No
/// tool-search counter exists in the SDK, so none is sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessagesUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

impl MessagesUsage {
    pub fn of(input: u64, output: u64) -> MessagesUsage {
        MessagesUsage {
            input_tokens: input,
            output_tokens: output,
            ..MessagesUsage::default()
        }
    }
}

/// The answer to `POST /v1/messages` (`Message`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: MessageType,
    pub role: AssistantRole,
    pub model: String,
    pub content: Vec<ContentBlock>,
    /// `null` only in a stream's `message_start`.
    pub stop_reason: Option<StopReason>,
    pub stop_sequence: Option<String>,
    pub usage: MessagesUsage,
}

impl Message {
    /// A finished message with a fresh `msg_` id.
    pub fn new(
        model: &str,
        content: Vec<ContentBlock>,
        stop_reason: StopReason,
        usage: MessagesUsage,
    ) -> Message {
        Message {
            id: fresh_id("msg"),
            kind: MessageType::Message,
            role: AssistantRole::Assistant,
            model: model.to_string(),
            content,
            stop_reason: Some(stop_reason),
            stop_sequence: None,
            usage,
        }
    }

    /// The text of every text block, joined by newlines.
    pub fn text(&self) -> String {
        BlockContent::Blocks(self.content.clone()).text()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorType {
    Error,
}

/// `{"type": "error", "error": {"type", "message"}}` (`ErrorResponse`): every 4xx/5xx answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesError {
    #[serde(rename = "type")]
    pub kind: ErrorType,
    pub error: MessagesErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesErrorDetail {
    /// `invalid_request_error`, `authentication_error`, `not_found_error`, `api_error`, …
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
}

impl MessagesError {
    pub fn new(kind: &str, message: impl Into<String>) -> MessagesError {
        MessagesError {
            kind: ErrorType::Error,
            error: MessagesErrorDetail {
                kind: kind.to_string(),
                message: message.into(),
            },
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The event stream

/// One event of the stream (`RawMessageStreamEvent`, plus `ping` and `error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    MessageStart {
        message: Message,
    },
    ContentBlockStart {
        index: usize,
        content_block: ContentBlock,
    },
    ContentBlockDelta {
        index: usize,
        delta: BlockDelta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDeltaBody,
        usage: DeltaUsage,
    },
    MessageStop,
    Ping,
    Error {
        error: MessagesErrorDetail,
    },
}

impl StreamEvent {
    /// The event's `type` (what its `event:` line says).
    pub fn kind(&self) -> &'static str {
        match self {
            StreamEvent::MessageStart { .. } => "message_start",
            StreamEvent::ContentBlockStart { .. } => "content_block_start",
            StreamEvent::ContentBlockDelta { .. } => "content_block_delta",
            StreamEvent::ContentBlockStop { .. } => "content_block_stop",
            StreamEvent::MessageDelta { .. } => "message_delta",
            StreamEvent::MessageStop => "message_stop",
            StreamEvent::Ping => "ping",
            StreamEvent::Error { .. } => "error",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockDelta {
    TextDelta { text: String },
    InputJsonDelta { partial_json: String },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageDeltaBody {
    pub stop_reason: Option<StopReason>,
    pub stop_sequence: Option<String>,
}

/// `message_delta.usage`: cumulative output tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeltaUsage {
    pub output_tokens: u64,
}

/// The events of a finished message, in the API's order: `message_start` (empty content, no
/// stop reason, no output yet), `ping`, per block `content_block_start` / deltas /
/// `content_block_stop`, `message_delta`, `message_stop`. A `server_tool_use` or `tool_use`
/// starts with `input: {}` and sends its input as `input_json_delta` parts (two, to exercise
/// the caller's concatenation); a `tool_search_tool_result` arrives whole in its start.
pub fn stream_events(message: &Message) -> Vec<StreamEvent> {
    let opening = Message {
        content: Vec::new(),
        stop_reason: None,
        stop_sequence: None,
        usage: MessagesUsage {
            output_tokens: 0,
            ..message.usage
        },
        ..message.clone()
    };
    let mut events = vec![
        StreamEvent::MessageStart { message: opening },
        StreamEvent::Ping,
    ];
    for (index, block) in message.content.iter().enumerate() {
        events.extend(block_events(index, block));
    }
    events.push(StreamEvent::MessageDelta {
        delta: MessageDeltaBody {
            stop_reason: message.stop_reason,
            stop_sequence: message.stop_sequence.clone(),
        },
        usage: DeltaUsage {
            output_tokens: message.usage.output_tokens,
        },
    });
    events.push(StreamEvent::MessageStop);
    events
}

fn block_events(index: usize, block: &ContentBlock) -> Vec<StreamEvent> {
    let start = |content_block| StreamEvent::ContentBlockStart {
        index,
        content_block,
    };
    let delta = |delta| StreamEvent::ContentBlockDelta { index, delta };
    let mut events = match block {
        ContentBlock::Text(text) => vec![
            start(ContentBlock::text("")),
            delta(BlockDelta::TextDelta {
                text: text.text.clone(),
            }),
        ],
        ContentBlock::ToolUse(used) | ContentBlock::ServerToolUse(used) => {
            let opening = ToolUseBlock {
                input: Value::Object(Default::default()),
                ..used.clone()
            };
            let opening = match block {
                ContentBlock::ToolUse(_) => ContentBlock::ToolUse(opening),
                _ => ContentBlock::ServerToolUse(opening),
            };
            let json = used.input.to_string();
            let cut = json.char_indices().nth(json.chars().count() / 2);
            let (first, second) = json.split_at(cut.map_or(json.len(), |(at, _)| at));
            let mut events = vec![start(opening)];
            for part in [first, second].into_iter().filter(|p| !p.is_empty()) {
                events.push(delta(BlockDelta::InputJsonDelta {
                    partial_json: part.to_string(),
                }));
            }
            events
        }
        other => vec![start(other.clone())],
    };
    events.push(StreamEvent::ContentBlockStop { index });
    events
}

/// The event-stream text of a finished message: every frame `event: <type>` + `data: <json>`
/// (the SDK drops a frame without an `event:` line).
pub fn encode_stream(message: &Message) -> String {
    stream_events(message)
        .iter()
        .map(|event| {
            let data = serde_json::to_string(event).unwrap_or_default();
            format!("event: {}\ndata: {data}\n\n", event.kind())
        })
        .collect()
}

/// Reads a stream back into the final `Message`: blocks from their starts, inputs from the
/// concatenated `input_json_delta`s, text from the `text_delta`s, stop reason and output tokens
/// from `message_delta`. Errors name what was wrong (a frame that is not an event, an `error`
/// event, a delta for no block, input that is not JSON, a stream without `message_stop`).
pub fn decode_stream(text: &str) -> Result<Message, String> {
    let mut message: Option<Message> = None;
    let mut inputs: Vec<String> = Vec::new();
    for (line_number, line) in text.lines().enumerate() {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue;
        };
        let event: StreamEvent = serde_json::from_str(data)
            .map_err(|e| format!("stream line {} is not an event: {e}", line_number + 1))?;
        match event {
            StreamEvent::MessageStart { message: start } => message = Some(start),
            StreamEvent::Error { error } => {
                return Err(format!("stream reported {}: {}", error.kind, error.message))
            }
            StreamEvent::MessageStop => {
                let mut message = message.ok_or("message_stop before message_start")?;
                for (block, input) in message.content.iter_mut().zip(&inputs) {
                    if let ContentBlock::ToolUse(used) | ContentBlock::ServerToolUse(used) = block {
                        if !input.is_empty() {
                            used.input = serde_json::from_str(input).map_err(|e| {
                                format!("the input of block {} is not JSON: {e}", used.id)
                            })?;
                        }
                    }
                }
                return Ok(message);
            }
            other => apply(&mut message, &mut inputs, other)?,
        }
    }
    Err("stream ended without message_stop".to_string())
}

fn apply(
    message: &mut Option<Message>,
    inputs: &mut Vec<String>,
    event: StreamEvent,
) -> Result<(), String> {
    let kind = event.kind();
    let message = message
        .as_mut()
        .ok_or_else(|| format!("{kind} before message_start"))?;
    match event {
        StreamEvent::ContentBlockStart {
            index,
            content_block,
        } if index == message.content.len() => {
            message.content.push(content_block);
            inputs.push(String::new());
        }
        StreamEvent::ContentBlockStart { index, .. } => {
            return Err(format!(
                "content_block_start {index} out of order (expected {})",
                message.content.len()
            ))
        }
        StreamEvent::ContentBlockDelta { index, delta } => {
            match (message.content.get_mut(index), delta) {
                (Some(ContentBlock::Text(block)), BlockDelta::TextDelta { text }) => {
                    block.text.push_str(&text)
                }
                (
                    Some(ContentBlock::ToolUse(_) | ContentBlock::ServerToolUse(_)),
                    BlockDelta::InputJsonDelta { partial_json },
                ) => inputs[index].push_str(&partial_json),
                _ => {
                    return Err(format!(
                        "content_block_delta {index} does not fit its block"
                    ))
                }
            }
        }
        StreamEvent::MessageDelta { delta, usage } => {
            message.stop_reason = delta.stop_reason;
            message.stop_sequence = delta.stop_sequence;
            message.usage.output_tokens = usage.output_tokens;
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(name: &str) -> Value {
        let path = format!(
            "{}/tests/it/fixtures/native/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    #[test]
    fn the_fixture_requests_read_and_write_back_unchanged() {
        for name in [
            "anthropic-request-bm25.json",
            "anthropic-request-regex-continue.json",
            "anthropic-request-client-search.json",
        ] {
            let body = fixture(name)["body"].clone();
            let request: MessagesRequest = serde_json::from_str(&body.to_string()).unwrap();
            assert_eq!(serde_json::to_value(&request).unwrap(), body, "{name}");
        }
        let body = fixture("anthropic-request-bm25.json")["body"].to_string();
        let request: MessagesRequest = serde_json::from_str(&body).unwrap();
        let deferred: Vec<&str> = request
            .tools
            .iter()
            .filter(|t| t.deferred())
            .map(ToolDefinition::name)
            .collect();
        assert_eq!(deferred, ["fake_plugin_tool_16", "fake_plugin_tool_17"]);
        assert!(matches!(
            &request.tools[0],
            ToolDefinition::Search(SearchTool {
                kind: SearchToolType::Bm25,
                ..
            })
        ));
    }

    #[test]
    fn the_fixture_responses_read_and_write_back_unchanged() {
        let body = fixture("anthropic-response-bm25.json")["body"].clone();
        let message: Message = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(serde_json::to_value(&message).unwrap(), body);
        // Its usage has no cache counts; the mock always sends them (zeros).
        let body = fixture("anthropic-response-search-error.json")["body"].clone();
        let message: Message = serde_json::from_value(body.clone()).unwrap();
        assert_eq!(
            serde_json::to_value(&message.content).unwrap(),
            body["content"]
        );
        assert_eq!(message.usage, MessagesUsage::of(480, 20));
        let error = fixture("anthropic-error.json")["body"].clone();
        let parsed: MessagesError = serde_json::from_value(error.clone()).unwrap();
        assert_eq!(serde_json::to_value(parsed).unwrap(), error);
    }

    #[test]
    fn unknown_tool_types_are_named() {
        let err = ToolDefinition::from_json(r#"{"type":"web_search_20250305","name":"w"}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unsupported tool type \"web_search_20250305\""),
            "{err}"
        );
        let alias =
            ToolDefinition::from_json(r#"{"type":"tool_search_tool_regex","name":"x"}"#).unwrap();
        assert!(matches!(
            alias,
            ToolDefinition::Search(SearchTool {
                kind: SearchToolType::Regex,
                ..
            })
        ));
    }

    fn searched() -> Message {
        let call = ContentBlock::server_tool_use(SearchToolType::Bm25, json!({"query": "tool 17"}));
        let ContentBlock::ServerToolUse(used) = &call else {
            unreachable!()
        };
        let result = ContentBlock::search_result(used.id.clone(), &["t17".to_string()]);
        let content = vec![
            call,
            result,
            ContentBlock::tool_use("t17", json!({"marker": "normal"})),
        ];
        Message::new("m", content, StopReason::ToolUse, MessagesUsage::of(9, 4))
    }

    #[test]
    fn the_stream_has_the_api_order_and_decodes_back() {
        let message = searched();
        let stream = encode_stream(&message);
        let kinds: Vec<&str> = stream
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            kinds,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
            ]
        );
        assert_eq!(decode_stream(&stream).unwrap(), message);
        let first = stream
            .lines()
            .nth(1)
            .unwrap()
            .strip_prefix("data: ")
            .unwrap();
        let first: Value = serde_json::from_str(first).unwrap();
        assert_eq!(first["message"]["content"], json!([]));
        assert_eq!(first["message"]["stop_reason"], Value::Null);
        let cut = &stream[..stream.find("event: message_stop").unwrap()];
        assert_eq!(
            decode_stream(cut).unwrap_err(),
            "stream ended without message_stop"
        );
    }

    #[test]
    fn the_fixture_stream_decodes() {
        let sse = fixture("anthropic-stream-bm25.json")["sse"]
            .as_str()
            .unwrap()
            .to_string();
        let message = decode_stream(&sse).unwrap();
        assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
        let ContentBlock::ServerToolUse(used) = &message.content[0] else {
            panic!("{message:?}")
        };
        assert_eq!(used.input, json!({"query": "fake plugin tool 17"}));
        let ContentBlock::ToolSearchToolResult(result) = &message.content[1] else {
            panic!("{message:?}")
        };
        assert_eq!(result.content.names(), ["fake_plugin_tool_17"]);
    }
}
