//! Provider-native tool search in the mock (issue #31): requests that declare deferred tools
//! beside the provider's own search tool, in OpenAI's Responses API ([`openai`]: a
//! `tool_search` tool, hosted or client-executed) or Anthropic's Messages API ([`anthropic`]:
//! the BM25 and regex tool search tools, or the caller's own search tool answered with tool
//! references). The wire shapes are `docs/native-tool-search.md`'s.
//!
//! The scripted model ([`super::model::decide`]) decides as for any request; when it means to
//! call a deferred tool that no search of the turn loaded, the mock searches first
//! ([`plan`]) — with its own ranker ([`search`]), which stands in for the provider's. A search
//! that misses the target ends the turn in text (`TOOL_SEARCH_QA_NOT_FOUND <target>`), so a
//! ranking miss shows instead of being papered over.
//!
//! What the provider bills ([`billed_view`]): the request as the model reads it — a deferred
//! tool's schema is held back until a search loads it (OpenAI keeps its name and description in
//! view; Anthropic keeps nothing of it until a search result references it).

pub mod anthropic;
pub mod openai;
pub mod search;
pub mod strict;

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::Value;

use super::model::{Decision, Outcome, Reply};
use crate::protocol::messages::{BlockContent, ContentBlock, MessageParam};
use crate::protocol::usage::{count_tokens, TokenizerError};

/// Prefix of the text answer when the mock's search did not load the target.
pub const NOT_FOUND_MARKER: &str = "TOOL_SEARCH_QA_NOT_FOUND";

/// Which API a request spoke.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Protocol {
    /// `POST /v1/responses`.
    #[default]
    OpenaiResponses,
    /// `POST /v1/messages`.
    AnthropicMessages,
}

impl Protocol {
    /// The spelling of the journal and of the conformance script's `--protocol`.
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::OpenaiResponses => "openai-responses",
            Protocol::AnthropicMessages => "anthropic-messages",
        }
    }
}

/// Which search a native request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NativeSearch {
    /// OpenAI `tool_search`, `execution: "server"` (or absent): the mock searches.
    OpenaiServer,
    /// OpenAI `tool_search`, `execution: "client"`: the caller searches.
    OpenaiClient,
    /// Anthropic `tool_search_tool_bm25_20251119`.
    Bm25,
    /// Anthropic `tool_search_tool_regex_20251119`.
    Regex,
    /// Anthropic without a search tool: the caller's own (non-deferred) tool of this name,
    /// answered with `tool_reference` blocks.
    AnthropicClient(String),
}

/// A native request the mock refuses (400, in the protocol's own error shape).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The request field at fault.
    pub param: Option<String>,
    pub message: String,
    /// OpenAI's machine-readable `code` (`unknown_parameter`, …), when the refusal has one.
    pub code: Option<String>,
}

impl Refusal {
    pub fn new(param: Option<&str>, message: impl Into<String>) -> Refusal {
        Refusal {
            param: param.map(str::to_string),
            message: message.into(),
            code: None,
        }
    }

    /// The refusal with OpenAI's error `code`.
    pub fn with_code(self, code: &str) -> Refusal {
        Refusal {
            code: Some(code.to_string()),
            ..self
        }
    }
}

/// The rules every native request obeys (the mock's, modelled on the providers'): the search
/// tool is not deferred, some tool is not deferred, and deferred tools come with a way to load
/// them (`searchable`: a search tool, or a client search the protocol allows).
pub fn check_declarations(
    search_deferred: bool,
    all_deferred: bool,
    any_deferred: bool,
    searchable: bool,
) -> Result<(), Refusal> {
    if search_deferred {
        return Err(Refusal::new(
            Some("tools"),
            "the tool search tool itself cannot be deferred (defer_loading: true)",
        ));
    }
    if all_deferred {
        return Err(Refusal::new(
            Some("tools"),
            "every tool is deferred (defer_loading: true); at least one tool must be loaded",
        ));
    }
    if any_deferred && !searchable {
        return Err(Refusal::new(
            Some("tools"),
            "deferred tools (defer_loading: true) need a tool search tool to load them",
        ));
    }
    Ok(())
}

/// What the mock answers a native request with.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// The model's decision as it stands (nothing to search).
    Answer(Decision),
    /// Search for `target` (a deferred tool not loaded yet), then go on with `decision`.
    Search { target: String, decision: Decision },
    /// The turn's search did not load `target`: say so in text.
    NotFound { target: String },
}

/// The plan for `decision`: a call of a deferred tool that no search of the turn loaded is a
/// search first — or, when the turn already searched, the target was not found.
pub fn plan(
    decision: Decision,
    deferred: &HashSet<String>,
    loaded: &HashSet<String>,
    searched: bool,
) -> Plan {
    let target = match &decision.reply {
        Reply::ToolCall { name, .. } if deferred.contains(name) && !loaded.contains(name) => {
            name.clone()
        }
        _ => return Plan::Answer(decision),
    };
    if searched {
        Plan::NotFound { target }
    } else {
        Plan::Search { target, decision }
    }
}

/// The journal's view of a not-found answer.
pub fn not_found_decision(target: &str) -> Decision {
    Decision {
        reply: Reply::Text(format!("{NOT_FOUND_MARKER} {target}")),
        planned_tool_name: Some(target.to_string()),
        planned_wire_tool_name: None,
        planned_tool_args: None,
        outcome: Outcome::NotFound,
    }
}

/// Why a billed view could not be made.
#[derive(Debug, thiserror::Error)]
pub enum BilledError {
    #[error("request body cannot be read: {0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
}

/// One `tools[]` entry, read for what billing needs.
#[derive(Deserialize)]
struct BilledHead<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    defer_loading: Option<bool>,
    /// A namespace's functions.
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
}

/// What the model sees of an OpenAI namespace holding deferred functions before a search: its
/// name and description, and the functions inside that are not deferred.
#[derive(Serialize)]
struct VisibleNamespace<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    tools: Vec<&'a RawValue>,
}

/// An OpenAI namespace entry as billed: as sent when nothing inside is deferred, else
/// [`VisibleNamespace`].
fn billed_namespace(entry: &RawValue, head: &BilledHead<'_>) -> Result<String, BilledError> {
    let inner: Vec<&RawValue> = match head.tools {
        Some(tools) => serde_json::from_str(tools.get())?,
        None => Vec::new(),
    };
    let mut shown = Vec::with_capacity(inner.len());
    for function in &inner {
        let function_head: BilledHead<'_> = serde_json::from_str(function.get())?;
        if function_head.defer_loading != Some(true) {
            shown.push(*function);
        }
    }
    if shown.len() == inner.len() {
        return Ok(entry.get().to_string());
    }
    Ok(serde_json::to_string(&VisibleNamespace {
        kind: "namespace",
        name: head.name.as_deref().unwrap_or_default(),
        description: head.description.as_deref().unwrap_or_default(),
        tools: shown,
    })?)
}

/// What the model sees of a deferred OpenAI function before a search.
#[derive(Serialize)]
struct VisibleFunction<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
}

#[derive(Deserialize)]
struct BodySlices<'a> {
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

/// The request body as the provider's model reads it (the text its usage counts): `raw` with
/// each deferred `tools[]` entry reduced — OpenAI: to `{"type", "name", "description"}` (its
/// parameters wait for a search, whose output then carries the whole definition in the input),
/// and a namespace to its name, description and the functions inside that are not deferred;
/// Anthropic: removed from `tools[]`, and a definition a search result references is read where
/// the reference is (the provider expands it there, in the conversation: `tools[]`, the head of
/// the cached prefix, stays the same), as a `loaded` list beside the reference. Everything else
/// is the bytes as sent. `tools` is cut into slices, never parsed into a tree (a 10,000-tool
/// body is megabytes); only `messages` is, when a search result in it needs expanding.
pub fn billed_view(protocol: Protocol, raw: &str) -> Result<String, BilledError> {
    let slices: BodySlices<'_> = serde_json::from_str(raw)?;
    let Some(tools) = slices.tools else {
        return Ok(raw.to_string());
    };
    let loaded = match (protocol, slices.messages) {
        (Protocol::AnthropicMessages, Some(messages)) => {
            let messages: Vec<MessageParam> = serde_json::from_str(messages.get())?;
            referenced_tools(&messages)
        }
        _ => HashSet::new(),
    };
    let entries: Vec<&RawValue> = match serde_json::from_str(tools.get()) {
        Ok(entries) => entries,
        Err(_) => return Ok(raw.to_string()),
    };
    let mut kept = Vec::with_capacity(entries.len());
    let mut definitions: HashMap<String, Value> = HashMap::new();
    for entry in entries {
        let head: BilledHead<'_> = serde_json::from_str(entry.get())?;
        let name = head.name.as_deref().unwrap_or_default();
        let namespace = head.kind.as_deref() == Some("namespace");
        if protocol == Protocol::OpenaiResponses && namespace {
            kept.push(billed_namespace(entry, &head)?);
            continue;
        }
        if head.defer_loading != Some(true) {
            kept.push(entry.get().to_string());
            continue;
        }
        match protocol {
            Protocol::OpenaiResponses => kept.push(serde_json::to_string(&VisibleFunction {
                kind: "function",
                name,
                description: head.description.as_deref(),
            })?),
            Protocol::AnthropicMessages if loaded.contains(name) => {
                definitions.insert(name.to_string(), serde_json::from_str(entry.get())?);
            }
            Protocol::AnthropicMessages => {}
        }
    }
    let mut pieces = vec![(slice_range(raw, tools), format!("[{}]", kept.join(",")))];
    if let (Some(messages), false) = (slices.messages, definitions.is_empty()) {
        pieces.push((
            slice_range(raw, messages),
            expanded(messages, &definitions)?,
        ));
    }
    Ok(splice(raw, pieces))
}

/// Where `part` (a slice of `raw`) sits in `raw`.
fn slice_range(raw: &str, part: &RawValue) -> std::ops::Range<usize> {
    let start = part.get().as_ptr() as usize - raw.as_ptr() as usize;
    start..start + part.get().len()
}

/// `raw` with each range replaced by its text (ranges do not overlap).
fn splice(raw: &str, mut pieces: Vec<(std::ops::Range<usize>, String)>) -> String {
    pieces.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(raw.len());
    let mut at = 0;
    for (range, text) in pieces {
        out.push_str(&raw[at..range.start]);
        out.push_str(&text);
        at = range.end;
    }
    out.push_str(&raw[at..]);
    out
}

/// `messages` with the definitions of the tools each search result references beside it, as
/// `loaded` (a `tool_search_tool_result` block, or a `tool_result` holding `tool_reference`s).
fn expanded(
    messages: &RawValue,
    definitions: &HashMap<String, Value>,
) -> Result<String, BilledError> {
    let mut messages: Vec<Value> = serde_json::from_str(messages.get())?;
    let blocks = messages
        .iter_mut()
        .filter_map(|m| m.get_mut("content").and_then(Value::as_array_mut))
        .flatten();
    for block in blocks {
        let references = match block["type"].as_str() {
            Some("tool_search_tool_result") => block["content"]["tool_references"].clone(),
            Some("tool_result") => block["content"].clone(),
            _ => continue,
        };
        let loaded: Vec<Value> = references
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["type"] == "tool_reference")
            .filter_map(|r| r["tool_name"].as_str())
            .filter_map(|name| definitions.get(name).cloned())
            .collect();
        if !loaded.is_empty() {
            block["loaded"] = Value::Array(loaded);
        }
    }
    Ok(serde_json::to_string(&messages)?)
}

/// o200k_base tokens of [`billed_view`]: the `input_tokens` the mock reports for a native request.
pub fn billed_input_tokens(protocol: Protocol, raw: &str) -> Result<u64, BilledError> {
    Ok(count_tokens(&billed_view(protocol, raw)?)? as u64)
}

/// The tools the conversation's search results reference: `tool_search_tool_result` blocks and
/// `tool_reference` blocks inside tool results.
pub fn referenced_tools(messages: &[MessageParam]) -> HashSet<String> {
    let mut names = HashSet::new();
    for message in messages {
        let BlockContent::Blocks(blocks) = &message.content else {
            continue;
        };
        for block in blocks {
            match block {
                ContentBlock::ToolSearchToolResult(result) => {
                    names.extend(result.content.names().into_iter().map(str::to_string))
                }
                ContentBlock::ToolResult(result) => {
                    names.extend(result.references().into_iter().map(str::to_string))
                }
                _ => {}
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_bills_a_deferred_function_by_name_and_description() {
        let raw = r#"{"model":"m","input":"hi","tools":[{"type":"tool_search"}, {"type":"function","name":"a","description":"d","parameters":{"type":"object","properties":{"x":{}}},"strict":false,"defer_loading":true},{"type":"function","name":"b","parameters":{},"strict":false}],"store":false}"#;
        assert_eq!(
            billed_view(Protocol::OpenaiResponses, raw).unwrap(),
            r#"{"model":"m","input":"hi","tools":[{"type":"tool_search"},{"type":"function","name":"a","description":"d"},{"type":"function","name":"b","parameters":{},"strict":false}],"store":false}"#
        );
        let plain = r#"{"input":"hi"}"#;
        assert_eq!(
            billed_view(Protocol::OpenaiResponses, plain).unwrap(),
            plain
        );
        assert!(billed_view(Protocol::OpenaiResponses, "{").is_err());
        assert_eq!(
            billed_input_tokens(Protocol::OpenaiResponses, raw).unwrap(),
            count_tokens(&billed_view(Protocol::OpenaiResponses, raw).unwrap()).unwrap() as u64
        );
    }

    #[test]
    fn openai_bills_a_namespace_by_name_description_and_its_loaded_functions() {
        let raw = r#"{"input":"hi","tools":[{"type":"tool_search"},{"type":"namespace","name":"n","description":"d","tools":[{"type":"function","name":"a","parameters":{"type":"object"},"defer_loading":true},{"type":"function","name":"b","parameters":{}}]},{"type":"namespace","name":"m","description":"e","tools":[{"type":"function","name":"c"}]}]}"#;
        assert_eq!(
            billed_view(Protocol::OpenaiResponses, raw).unwrap(),
            r#"{"input":"hi","tools":[{"type":"tool_search"},{"type":"namespace","name":"n","description":"d","tools":[{"type":"function","name":"b","parameters":{}}]},{"type":"namespace","name":"m","description":"e","tools":[{"type":"function","name":"c"}]}]}"#
        );
    }

    #[test]
    fn anthropic_bills_a_deferred_tool_only_once_referenced() {
        let tool = |name: &str| json!({"name": name, "description": "d", "input_schema": {"type": "object"}, "defer_loading": true});
        let search =
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"});
        let first = json!({"model": "m", "max_tokens": 9,
            "messages": [{"role": "user", "content": "hi"}],
            "tools": [search, tool("a"), tool("b")]});
        assert_eq!(
            billed_view(Protocol::AnthropicMessages, &first.to_string()).unwrap(),
            json!({"model": "m", "max_tokens": 9,
                "messages": [{"role": "user", "content": "hi"}], "tools": [search]})
            .to_string()
        );
        let later = json!({"model": "m", "max_tokens": 9, "messages": [
            {"role": "user", "content": "hi"},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "s", "name": "tool_search_tool_bm25", "input": {"query": "b"}},
                {"type": "tool_search_tool_result", "tool_use_id": "s", "content":
                    {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "b"}]}}]}],
            "tools": [search, tool("a"), tool("b")]});
        let view: serde_json::Value = serde_json::from_str(
            &billed_view(Protocol::AnthropicMessages, &later.to_string()).unwrap(),
        )
        .unwrap();
        // tools[] (the cached head) stays the same; b is read where its reference is.
        assert_eq!(view["tools"], json!([search]));
        assert_eq!(
            view["messages"][1]["content"][1]["loaded"],
            json!([tool("b")])
        );
        assert_eq!(view["messages"][0], later["messages"][0]);
    }

    fn call(name: &str) -> Decision {
        Decision {
            reply: Reply::ToolCall {
                name: name.into(),
                arguments: json!({}),
            },
            planned_tool_name: Some(name.into()),
            planned_wire_tool_name: None,
            planned_tool_args: None,
            outcome: Outcome::ToolCall,
        }
    }

    #[test]
    fn a_deferred_call_searches_first_and_misses_once() {
        let deferred: HashSet<String> = ["t".to_string()].into();
        let none = HashSet::new();
        assert_eq!(
            plan(call("t"), &deferred, &none, false),
            Plan::Search {
                target: "t".into(),
                decision: call("t")
            }
        );
        assert_eq!(
            plan(call("t"), &deferred, &none, true),
            Plan::NotFound { target: "t".into() }
        );
        assert_eq!(
            plan(call("t"), &deferred, &deferred, true),
            Plan::Answer(call("t"))
        );
        assert_eq!(
            plan(call("u"), &deferred, &none, false),
            Plan::Answer(call("u"))
        );
    }

    #[test]
    fn declarations_are_refused_by_the_rules() {
        let err = |a, b, c, d| check_declarations(a, b, c, d).unwrap_err().message;
        assert!(err(true, false, true, true).contains("search tool itself"));
        assert!(err(false, true, true, true).contains("every tool is deferred"));
        assert!(err(false, false, true, false).contains("need a tool search tool"));
        assert_eq!(check_declarations(false, false, true, true), Ok(()));
        assert_eq!(check_declarations(false, false, false, false), Ok(()));
    }
}
