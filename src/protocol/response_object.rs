//! The Responses API objects the mock provider and the embedded gateway *emit*: the response
//! object, its output items, and the error body. Each type carries every field the official
//! SDK's strict models require (`created_at`, the echoed `tools` / `tool_choice` /
//! `parallel_tool_calls`, `usage` with its details, `logprobs` on text), so both emitters are
//! valid by construction and the conformance test (`tests/it/sdk_conformance.rs`) checks it.
//!
//! Reading someone else's answer is lenient and lives in [`super::responses`]; writing ours is
//! exact and lives here.

use std::hash::{BuildHasher, RandomState};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::raw::{type_tag, RawJson};
use super::usage::Usage;

/// The per-process seed of [`fresh_id`].
static SEED: OnceLock<u64> = OnceLock::new();
/// How many ids [`fresh_id`] made (since the last [`restart_reproducible_ids`]).
static COUNTER: AtomicU64 = AtomicU64::new(0);
/// Set by [`reproducible_ids`]: the seed is fixed and the counter may be restarted.
static REPRODUCIBLE: AtomicBool = AtomicBool::new(false);

/// A fresh id `<prefix>_<16 hex digits>`, unique in this process and unpredictable across
/// processes (a per-process random seed plus a counter, through a bijective mix) unless the
/// command asked for [`reproducible_ids`]. Never derived from anything a caller sent.
pub fn fresh_id(prefix: &str) -> String {
    let seed = *SEED.get_or_init(|| RandomState::new().hash_one(std::process::id()));
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{prefix}_{:016x}", mix(seed, n))
}

/// Makes this process's ids the same in every run (a fixed seed), for a command whose figures
/// must repeat run to run: ids are part of every later request of a turn, and 16 random hex
/// digits take a varying number of tokens. Returns false (and changes nothing) when an id was
/// already made.
pub fn reproducible_ids() -> bool {
    let fixed = SEED.set(0).is_ok();
    if fixed {
        REPRODUCIBLE.store(true, Ordering::Relaxed);
    }
    fixed
}

/// Starts the reproducible ids over from the first, so a unit measured after others (one
/// `compare` cell) gets the ids it would get alone: its figures do not depend on its neighbours.
/// Only for a command that measures one unit at a time, whose units share no gateway or
/// provider (ids repeat across units). Returns false (and changes nothing) unless
/// [`reproducible_ids`] fixed the seed.
pub fn restart_reproducible_ids() -> bool {
    let on = REPRODUCIBLE.load(Ordering::Relaxed);
    if on {
        COUNTER.store(0, Ordering::Relaxed);
    }
    on
}

/// splitmix64: distinct `n` give distinct outputs (an odd multiplier, then a bijective finaliser).
fn mix(seed: u64, n: u64) -> u64 {
    let mut z = seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seconds since the epoch, for `created_at`.
pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// `status` of a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseStatus {
    InProgress,
    Completed,
    /// The gateway stopped the turn (a call that kept failing); `error` says why.
    Failed,
}

/// `status` of an output item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemStatus {
    InProgress,
    Completed,
}

/// The single-valued `type` of a function tool or a function `tool_choice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FunctionType {
    Function,
}

/// A function tool of a request, echoed in the response's `tools`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionTool {
    #[serde(rename = "type")]
    pub kind: FunctionType,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub parameters: Option<Value>,
    #[serde(default)]
    pub strict: Option<bool>,
    /// `true` for a deferred tool (provider-native tool search loads it when a search finds it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

/// The single-valued `type` of a `tool_search` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolSearchType {
    ToolSearch,
}

/// Who runs a provider-native tool search: the provider (`server`) or the caller (`client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchExecution {
    Server,
    Client,
}

/// The `{"type": "tool_search"}` tool of a request (`ToolSearchToolParam`), echoed as declared.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSearchTool {
    #[serde(rename = "type")]
    pub kind: ToolSearchType,
    /// Absent means `server`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<SearchExecution>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The argument schema of a client search (any JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Value>,
}

impl ToolSearchTool {
    /// Who runs the search (`server` when `execution` is absent).
    pub fn execution(&self) -> SearchExecution {
        self.execution.unwrap_or(SearchExecution::Server)
    }
}

/// The single-valued `type` of a `namespace` tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NamespaceType {
    Namespace,
}

/// A `namespace` tool (`NamespaceToolParam`): functions grouped under a name the model sees
/// with its description; deferral is per function inside, never on the namespace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NamespaceTool {
    #[serde(rename = "type")]
    pub kind: NamespaceType,
    pub name: String,
    pub description: String,
    pub tools: Vec<FunctionTool>,
}

/// A tool of a request, as a response echoes it: a function, the `tool_search` tool, or a
/// namespace of functions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EchoTool {
    Function(FunctionTool),
    ToolSearch(ToolSearchTool),
    Namespace(NamespaceTool),
}

/// `tool_choice`: a mode, or one function by name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolChoice {
    Mode(ToolChoiceMode),
    Function { r#type: FunctionType, name: String },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoiceMode {
    None,
    Auto,
    Required,
}

impl ToolChoice {
    /// The function a `{"type": "function", "name": N}` choice requires.
    pub fn required_function(&self) -> Option<&str> {
        match self {
            ToolChoice::Function { name, .. } => Some(name),
            ToolChoice::Mode(_) => None,
        }
    }
}

/// What a response echoes of its request (the SDK's `Response` requires `tools`, `tool_choice`
/// and `parallel_tool_calls`; the rest is echoed when the request set it).
#[derive(Debug, Clone, PartialEq)]
pub struct RequestEcho {
    pub instructions: Option<String>,
    pub max_output_tokens: Option<u64>,
    pub previous_response_id: Option<String>,
    pub tools: Vec<EchoTool>,
    pub tool_choice: ToolChoice,
    pub parallel_tool_calls: bool,
}

impl Default for RequestEcho {
    fn default() -> Self {
        RequestEcho {
            instructions: None,
            max_output_tokens: None,
            previous_response_id: None,
            tools: Vec::new(),
            tool_choice: ToolChoice::Mode(ToolChoiceMode::Auto),
            parallel_tool_calls: true,
        }
    }
}

/// A request field that cannot be echoed: its name (the error's `param`) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EchoError {
    pub param: String,
    pub message: String,
}

impl RequestEcho {
    /// Reads the echoed fields of a request body (a JSON object). Absent fields take the API's
    /// defaults (`tool_choice: "auto"`, `parallel_tool_calls: true`, no tools).
    pub fn from_request(body: &Map<String, Value>) -> Result<RequestEcho, EchoError> {
        let bad = |param: &str, message: String| EchoError {
            param: param.to_string(),
            message,
        };
        let field = |name: &str| body.get(name).filter(|v| !v.is_null());
        let mut echo = RequestEcho {
            instructions: field("instructions")
                .and_then(Value::as_str)
                .map(str::to_string),
            ..RequestEcho::default()
        };
        if let Some(value) = field("max_output_tokens") {
            echo.max_output_tokens = Some(value.as_u64().ok_or_else(|| {
                bad(
                    "max_output_tokens",
                    "max_output_tokens must be a non-negative integer".into(),
                )
            })?);
        }
        if let Some(value) = field("previous_response_id") {
            let id = value.as_str().ok_or_else(|| {
                bad(
                    "previous_response_id",
                    "previous_response_id must be a string".into(),
                )
            })?;
            echo.previous_response_id = Some(id.to_string());
        }
        if let Some(value) = field("tools") {
            let items = value
                .as_array()
                .ok_or_else(|| bad("tools", "tools must be an array".into()))?;
            echo.tools = items
                .iter()
                .enumerate()
                .map(|(i, tool)| {
                    serde_json::from_value(tool.clone()).map_err(|e| {
                        bad(
                            &format!("tools[{i}]"),
                            format!("tools[{i}] must be a function tool {{type: \"function\", name, description?, parameters?, strict?, defer_loading?}}, {{type: \"tool_search\", execution?, description?, parameters?}} or {{type: \"namespace\", name, description, tools}}: {e}"),
                        )
                    })
                })
                .collect::<Result<_, _>>()?;
        }
        if let Some(value) = field("tool_choice") {
            echo.tool_choice = serde_json::from_value(value.clone()).map_err(|_| {
                bad(
                    "tool_choice",
                    format!("tool_choice must be \"none\", \"auto\", \"required\" or {{\"type\": \"function\", \"name\": …}}, got {value}"),
                )
            })?;
        }
        if let Some(value) = field("parallel_tool_calls") {
            echo.parallel_tool_calls = value.as_bool().ok_or_else(|| {
                bad(
                    "parallel_tool_calls",
                    "parallel_tool_calls must be true or false".into(),
                )
            })?;
        }
        Ok(echo)
    }
}

/// A text part of an assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputText {
    #[serde(rename = "type")]
    pub kind: OutputTextType,
    pub text: String,
    /// Always empty: the mock model cites nothing.
    pub annotations: Vec<Value>,
    /// Always empty: no log probabilities are computed.
    pub logprobs: Vec<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputTextType {
    OutputText,
}

impl OutputText {
    pub fn new(text: impl Into<String>) -> Self {
        OutputText {
            kind: OutputTextType::OutputText,
            text: text.into(),
            annotations: Vec::new(),
            logprobs: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssistantRole {
    Assistant,
}

/// An assistant `message` output item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputMessage {
    pub id: String,
    pub role: AssistantRole,
    pub status: ItemStatus,
    pub content: Vec<OutputText>,
}

/// A `function_call` output item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputFunctionCall {
    pub id: String,
    pub call_id: String,
    pub name: String,
    /// The arguments as JSON text.
    pub arguments: String,
    pub status: ItemStatus,
    /// The namespace of a function declared inside a `namespace` tool (`name` is the
    /// function's own name there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// A `tool_search_call` output item: what the model searched with (`ResponseToolSearchCall`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputToolSearchCall {
    pub id: String,
    /// `null` for a hosted search; the id a client search's output answers.
    pub call_id: Option<String>,
    pub execution: SearchExecution,
    pub status: ItemStatus,
    /// The search's arguments (any JSON object; the mock sends `{"query": …}`).
    pub arguments: Value,
}

/// A `tool_search_output` item: the tool definitions a search loaded
/// (`ResponseToolSearchOutputItem`), each kept as the exact JSON the request declared it with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OutputToolSearchOutput {
    pub id: String,
    pub call_id: Option<String>,
    pub execution: SearchExecution,
    pub status: ItemStatus,
    pub tools: Vec<RawJson>,
}

/// One item of `output`, tagged by `type`. Read from JSON text only (a search output keeps its
/// tools as raw JSON, see [`super::raw`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum ResponseItem {
    #[serde(rename = "message")]
    Message(OutputMessage),
    #[serde(rename = "function_call")]
    FunctionCall(OutputFunctionCall),
    #[serde(rename = "tool_search_call")]
    ToolSearchCall(OutputToolSearchCall),
    #[serde(rename = "tool_search_output")]
    ToolSearchOutput(OutputToolSearchOutput),
}

impl<'de> Deserialize<'de> for ResponseItem {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(deserializer)?;
        ResponseItem::from_json(raw.get()).map_err(serde::de::Error::custom)
    }
}

impl ResponseItem {
    /// Reads one output item from its JSON text, by its `type`.
    pub fn from_json(text: &str) -> Result<ResponseItem, serde_json::Error> {
        let kind = type_tag(text)?;
        Ok(match kind.as_deref() {
            Some("message") => ResponseItem::Message(serde_json::from_str(text)?),
            Some("function_call") => ResponseItem::FunctionCall(serde_json::from_str(text)?),
            Some("tool_search_call") => ResponseItem::ToolSearchCall(serde_json::from_str(text)?),
            Some("tool_search_output") => {
                ResponseItem::ToolSearchOutput(serde_json::from_str(text)?)
            }
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown output item type {other:?}"
                )))
            }
        })
    }

    /// A completed `tool_search_call` with a fresh `tsc_` id.
    pub fn tool_search_call(
        execution: SearchExecution,
        call_id: Option<String>,
        arguments: Value,
    ) -> Self {
        ResponseItem::ToolSearchCall(OutputToolSearchCall {
            id: fresh_id("tsc"),
            call_id,
            execution,
            status: ItemStatus::Completed,
            arguments,
        })
    }

    /// A completed `tool_search_output` with a fresh `tso_` id.
    pub fn tool_search_output(
        execution: SearchExecution,
        call_id: Option<String>,
        tools: Vec<RawJson>,
    ) -> Self {
        ResponseItem::ToolSearchOutput(OutputToolSearchOutput {
            id: fresh_id("tso"),
            call_id,
            execution,
            status: ItemStatus::Completed,
            tools,
        })
    }

    /// A completed assistant message with one text part and a fresh `msg_` id.
    pub fn message(text: impl Into<String>) -> Self {
        ResponseItem::Message(OutputMessage {
            id: fresh_id("msg"),
            role: AssistantRole::Assistant,
            status: ItemStatus::Completed,
            content: vec![OutputText::new(text)],
        })
    }

    /// A completed function call with a fresh `fc_` item id.
    pub fn function_call(call_id: &str, name: &str, arguments: impl Into<String>) -> Self {
        ResponseItem::FunctionCall(OutputFunctionCall {
            id: fresh_id("fc"),
            call_id: call_id.to_string(),
            name: name.to_string(),
            arguments: arguments.into(),
            status: ItemStatus::Completed,
            namespace: None,
        })
    }

    pub fn id(&self) -> &str {
        match self {
            ResponseItem::Message(m) => &m.id,
            ResponseItem::FunctionCall(c) => &c.id,
            ResponseItem::ToolSearchCall(c) => &c.id,
            ResponseItem::ToolSearchOutput(o) => &o.id,
        }
    }

    /// The item as `output_item.added` shows it: in progress, no content, no arguments yet.
    pub fn opening(&self) -> ResponseItem {
        match self {
            ResponseItem::Message(m) => ResponseItem::Message(OutputMessage {
                status: ItemStatus::InProgress,
                content: Vec::new(),
                ..m.clone()
            }),
            ResponseItem::FunctionCall(c) => ResponseItem::FunctionCall(OutputFunctionCall {
                status: ItemStatus::InProgress,
                arguments: String::new(),
                ..c.clone()
            }),
            ResponseItem::ToolSearchCall(c) => ResponseItem::ToolSearchCall(OutputToolSearchCall {
                status: ItemStatus::InProgress,
                ..c.clone()
            }),
            ResponseItem::ToolSearchOutput(o) => {
                ResponseItem::ToolSearchOutput(OutputToolSearchOutput {
                    status: ItemStatus::InProgress,
                    ..o.clone()
                })
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseType {
    Response,
}

/// The `response` object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResponseObject {
    pub id: String,
    pub object: ResponseType,
    pub created_at: u64,
    pub status: ResponseStatus,
    /// `null`, but in a `failed` response: a turn the gateway stopped because one call kept
    /// failing (a model that loops). Any other failed turn is an HTTP error.
    pub error: Option<Value>,
    /// Always `null`: responses are never cut short.
    pub incomplete_details: Option<Value>,
    pub instructions: Option<String>,
    pub max_output_tokens: Option<u64>,
    pub model: String,
    pub output: Vec<ResponseItem>,
    pub parallel_tool_calls: bool,
    pub previous_response_id: Option<String>,
    pub tool_choice: ToolChoice,
    pub tools: Vec<EchoTool>,
    pub usage: Option<Usage>,
}

impl ResponseObject {
    /// A completed response with a fresh `resp_` id, created now.
    pub fn completed(
        model: &str,
        echo: RequestEcho,
        output: Vec<ResponseItem>,
        usage: Usage,
    ) -> Self {
        ResponseObject {
            id: fresh_id("resp"),
            object: ResponseType::Response,
            created_at: unix_now(),
            status: ResponseStatus::Completed,
            error: None,
            incomplete_details: None,
            instructions: echo.instructions,
            max_output_tokens: echo.max_output_tokens,
            model: model.to_string(),
            output,
            parallel_tool_calls: echo.parallel_tool_calls,
            previous_response_id: echo.previous_response_id,
            tool_choice: echo.tool_choice,
            tools: echo.tools,
            usage: Some(usage),
        }
    }

    /// A response the gateway gave up on: status `failed`, `error` `{code: "server_error",
    /// message}` (the Responses API's shape), whatever output the turn had.
    pub fn failed(
        model: &str,
        echo: RequestEcho,
        output: Vec<ResponseItem>,
        usage: Usage,
        message: &str,
    ) -> Self {
        ResponseObject {
            status: ResponseStatus::Failed,
            error: Some(serde_json::json!({ "code": "server_error", "message": message })),
            ..ResponseObject::completed(model, echo, output, usage)
        }
    }

    /// The same response as `response.created` shows it: in progress, no output, no usage yet.
    pub fn opening(&self) -> ResponseObject {
        ResponseObject {
            status: ResponseStatus::InProgress,
            output: Vec::new(),
            usage: None,
            ..self.clone()
        }
    }
}

/// `{"error": {"message", "type", "param", "code"}}`: the body of every 4xx/5xx answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub message: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub param: Option<String>,
    pub code: Option<String>,
}

impl ErrorBody {
    pub fn new(kind: &str, message: impl Into<String>) -> Self {
        ErrorBody {
            error: ErrorDetail {
                message: message.into(),
                kind: kind.to_string(),
                param: None,
                code: None,
            },
        }
    }

    /// The request field at fault.
    pub fn param(mut self, param: impl Into<String>) -> Self {
        self.error.param = Some(param.into());
        self
    }

    /// A short machine-readable code.
    pub fn code(mut self, code: impl Into<String>) -> Self {
        self.error.code = Some(code.into());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_unique_and_look_like_api_ids() {
        let ids: std::collections::BTreeSet<String> = (0..1000).map(|_| fresh_id("resp")).collect();
        assert_eq!(ids.len(), 1000);
        let re = regex::Regex::new(r"^resp_[0-9a-f]{16}$").unwrap();
        assert!(ids.iter().all(|id| re.is_match(id)));
    }

    #[test]
    fn echo_reads_defaults_and_rejects_bad_fields() {
        let echo = RequestEcho::from_request(&Map::new()).unwrap();
        assert_eq!(echo, RequestEcho::default());
        let body = json!({"tools": [{"type": "function", "name": "pick", "parameters": {"type": "object"}}],
            "tool_choice": {"type": "function", "name": "pick"}, "parallel_tool_calls": false,
            "instructions": "be brief", "max_output_tokens": 9});
        let echo = RequestEcho::from_request(body.as_object().unwrap()).unwrap();
        assert_eq!(echo.tool_choice.required_function(), Some("pick"));
        assert!(!echo.parallel_tool_calls);
        let response = ResponseObject::completed("m", echo, vec![], Usage::of(1, 2));
        let value = serde_json::to_value(&response).unwrap();
        assert_eq!(
            value["tools"],
            json!([{"type": "function", "name": "pick", "parameters": {"type": "object"}, "strict": null}])
        );
        assert_eq!(
            value["tool_choice"],
            json!({"type": "function", "name": "pick"})
        );
        assert_eq!(value["instructions"], "be brief");
        for (body, param) in [
            (json!({"tool_choice": "sometimes"}), "tool_choice"),
            (json!({"tools": [{"type": "web_search"}]}), "tools[0]"),
            (json!({"parallel_tool_calls": 1}), "parallel_tool_calls"),
            (json!({"max_output_tokens": -1}), "max_output_tokens"),
        ] {
            let err = RequestEcho::from_request(body.as_object().unwrap()).unwrap_err();
            assert_eq!(err.param, param, "{body}");
        }
    }

    #[test]
    fn echo_keeps_the_search_tool_and_deferred_functions() {
        let tools = json!([
            {"type": "tool_search", "execution": "client", "description": "find",
             "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}},
            {"type": "tool_search"},
            {"type": "function", "name": "t17", "description": "d", "parameters": {"type": "object"},
             "strict": false, "defer_loading": true}
        ]);
        let body = json!({ "tools": tools });
        let echo = RequestEcho::from_request(body.as_object().unwrap()).unwrap();
        let EchoTool::ToolSearch(search) = &echo.tools[1] else {
            panic!("{echo:?}")
        };
        assert_eq!(search.execution(), SearchExecution::Server);
        let response = ResponseObject::completed("m", echo, vec![], Usage::of(1, 2));
        assert_eq!(serde_json::to_value(&response).unwrap()["tools"], tools);
        let bad = json!({"tools": [{"type": "tool_search", "execution": "elsewhere"}]});
        let err = RequestEcho::from_request(bad.as_object().unwrap()).unwrap_err();
        assert_eq!(err.param, "tools[0]");
    }

    #[test]
    fn search_items_keep_the_tools_byte_for_byte_and_read_back() {
        let declared = r#"{"type":"function","name":"t17","parameters":{"x":1.50},"strict":null}"#;
        let output = ResponseItem::tool_search_output(
            SearchExecution::Server,
            None,
            vec![RawJson::from_text(declared.to_string()).unwrap()],
        );
        let text = serde_json::to_string(&output).unwrap();
        assert!(text.contains(&format!(r#""tools":[{declared}]"#)), "{text}");
        assert!(
            text.starts_with(r#"{"type":"tool_search_output","id":"tso_"#),
            "{text}"
        );
        assert_eq!(ResponseItem::from_json(&text).unwrap(), output);
        let call = ResponseItem::tool_search_call(
            SearchExecution::Client,
            Some("call_1".into()),
            json!({"query": "q"}),
        );
        let read: Vec<ResponseItem> =
            serde_json::from_str(&serde_json::to_string(&[&call, &output]).unwrap()).unwrap();
        assert_eq!(read, [call.clone(), output]);
        let opening = serde_json::to_value(call.opening()).unwrap();
        assert_eq!(
            (opening["status"].clone(), opening["arguments"].clone()),
            (json!("in_progress"), json!({"query": "q"}))
        );
        let err = ResponseItem::from_json(r#"{"type":"reasoning"}"#).unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown output item type Some(\"reasoning\")"
        );
    }

    #[test]
    fn items_serialise_with_their_type_and_open_empty() {
        let message = ResponseItem::message("hi");
        let value = serde_json::to_value(&message).unwrap();
        assert_eq!(value["type"], "message");
        assert_eq!(
            value["content"],
            json!([{"type": "output_text", "text": "hi", "annotations": [], "logprobs": []}])
        );
        let opening = serde_json::to_value(message.opening()).unwrap();
        assert_eq!(
            (opening["status"].clone(), opening["content"].clone()),
            (json!("in_progress"), json!([]))
        );
        let call =
            serde_json::to_value(ResponseItem::function_call("call_1", "pick", "{}").opening())
                .unwrap();
        assert_eq!(call["arguments"], "");
        assert_eq!(
            serde_json::to_value(ErrorBody::new("invalid_request_error", "bad").param("input"))
                .unwrap(),
            json!({"error": {"message": "bad", "type": "invalid_request_error", "param": "input", "code": null}})
        );
    }
}
