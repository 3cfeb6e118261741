//! What the typed reading of a native request lets through and the real APIs refuse: a key the
//! SDK's request type does not declare (a misspelled `deferLoading`, a `mode` on `tool_search`),
//! a search result or tool result that answers no call, more tools than a catalogue may hold.
//!
//! The key sets are the request TypedDicts of the pinned SDKs (OpenAI Python 3.57.0, Anthropic
//! Python 2.15.0, read 2026-12-03; `docs/native-tool-search.md`): the providers' servers refuse
//! an undeclared key, so the mock does too, with each provider's error shape — OpenAI
//! `unknown_parameter` naming the `param`, Anthropic an `invalid_request_error` whose message
//! starts with the field's dotted path. Only objects the mock reads are checked (the request, its
//! tools, the search and tool blocks); a tool type the mock does not speak is refused elsewhere.

use std::collections::{BTreeMap, HashSet};

use serde_json::value::RawValue;

use super::Refusal;
use crate::protocol::messages::{ContentBlock, MessagesRequest, Role};

/// Anthropic: the most tools one request may declare (the tool search guide's catalogue limit).
pub const MAX_ANTHROPIC_TOOLS: usize = 10_000;

/// `MessageCreateParams` (2.15.0), plus `stream`, which the SDK adds per method.
const MESSAGES_REQUEST: &[&str] = &[
    "cache_control",
    "container",
    "diagnostics",
    "inference_geo",
    "max_tokens",
    "messages",
    "metadata",
    "model",
    "output_config",
    "service_tier",
    "speed",
    "stop_sequences",
    "stream",
    "system",
    "thinking",
    "tool_choice",
    "tools",
    "user_profile_id",
    "workspace_id",
];
/// `ToolParam`.
const CUSTOM_TOOL: &[&str] = &[
    "allowed_callers",
    "cache_control",
    "defer_loading",
    "description",
    "eager_input_streaming",
    "input_examples",
    "input_schema",
    "name",
    "strict",
    "type",
];
/// `ToolSearchToolBm25_20251119Param` and `ToolSearchToolRegex20251119Param`.
const SEARCH_TOOL: &[&str] = &[
    "allowed_callers",
    "cache_control",
    "defer_loading",
    "name",
    "strict",
    "type",
];
/// The content block params the mock reads, by `type`.
const BLOCKS: &[(&str, &[&str])] = &[
    ("text", &["cache_control", "citations", "text", "type"]),
    (
        "tool_use",
        &[
            "cache_control",
            "caller",
            "id",
            "input",
            "name",
            "toolset_name",
            "type",
        ],
    ),
    (
        "tool_result",
        &[
            "cache_control",
            "content",
            "is_error",
            "tool_use_id",
            "toolset_name",
            "type",
        ],
    ),
    (
        "server_tool_use",
        &["cache_control", "caller", "id", "input", "name", "type"],
    ),
    (
        "tool_search_tool_result",
        &["cache_control", "content", "tool_use_id", "type"],
    ),
    ("tool_reference", &["cache_control", "tool_name", "type"]),
    (
        "tool_search_tool_search_result",
        &["tool_references", "type"],
    ),
    (
        "tool_search_tool_result_error",
        &["error_code", "error_message", "type"],
    ),
];

/// `ResponseCreateParams` (3.57.0), plus `stream`.
const RESPONSES_REQUEST: &[&str] = &[
    "access_programs",
    "background",
    "background_options",
    "context_management",
    "conversation",
    "image",
    "include",
    "input",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "metadata",
    "model",
    "moderation",
    "parallel_tool_calls",
    "previous_response_id",
    "prompt",
    "prompt_cache_key",
    "prompt_cache_options",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "stream",
    "stream_options",
    "temperature",
    "text",
    "tool_choice",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "user",
];
/// `FunctionToolParam`, and a namespace's `ToolFunction` (the same keys).
const FUNCTION_TOOL: &[&str] = &[
    "allowed_callers",
    "async",
    "defer_loading",
    "description",
    "name",
    "output_schema",
    "parameters",
    "strict",
    "type",
];
/// `ToolSearchToolParam`.
const TOOL_SEARCH: &[&str] = &["description", "execution", "parameters", "type"];
/// `NamespaceToolParam`.
const NAMESPACE: &[&str] = &["description", "name", "tools", "type"];
/// `response_input_param.ToolSearchCall`.
const SEARCH_CALL: &[&str] = &["arguments", "call_id", "execution", "id", "status", "type"];
/// `ResponseToolSearchOutputItemParamParam`.
const SEARCH_OUTPUT: &[&str] = &["call_id", "execution", "id", "status", "tools", "type"];

/// A JSON object's members, values unparsed (a schema stays bytes).
type Object<'a> = BTreeMap<String, &'a RawValue>;

fn object(raw: &RawValue) -> Option<Object<'_>> {
    serde_json::from_str(raw.get()).ok()
}

fn array<'a>(raw: Option<&&'a RawValue>) -> Vec<&'a RawValue> {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or_default()
}

fn kind(object: &Object<'_>) -> Option<String> {
    object
        .get("type")
        .and_then(|t| serde_json::from_str(t.get()).ok())
}

/// The first key of `object` that `allowed` does not declare.
fn undeclared<'a>(object: &'a Object<'_>, allowed: &[&str]) -> Option<&'a str> {
    object
        .keys()
        .map(String::as_str)
        .find(|k| !allowed.contains(k))
}

// ---------------------------------------------------------------------------------------------
// Anthropic Messages

/// An Anthropic refusal: the message starts with the field's dotted path.
fn extra(path: String) -> Refusal {
    Refusal::new(Some(&path), "Extra inputs are not permitted")
}

/// The keys of a Messages body: the request, each tool, each content block (and the blocks a
/// tool result or search result holds); and the catalogue's size.
pub fn messages_keys(raw: &str) -> Result<(), Refusal> {
    let Ok(body) = serde_json::from_str::<Object<'_>>(raw) else {
        return Ok(()); // not an object: the typed reading refuses it
    };
    if let Some(key) = undeclared(&body, MESSAGES_REQUEST) {
        return Err(extra(key.to_string()));
    }
    let tools = array(body.get("tools"));
    if tools.len() > MAX_ANTHROPIC_TOOLS {
        return Err(Refusal::new(
            Some("tools"),
            format!(
                "{} tools declared; at most {MAX_ANTHROPIC_TOOLS} are allowed",
                tools.len()
            ),
        ));
    }
    for (i, tool) in tools.iter().enumerate() {
        let Some(tool) = object(tool) else { continue };
        let (label, allowed) = match kind(&tool).as_deref() {
            None | Some("custom") => ("custom".to_string(), CUSTOM_TOOL),
            Some(other) => (other.to_string(), SEARCH_TOOL),
        };
        if let Some(key) = undeclared(&tool, allowed) {
            return Err(extra(format!("tools.{i}.{label}.{key}")));
        }
    }
    for (m, message) in array(body.get("messages")).iter().enumerate() {
        let Some(message) = object(message) else {
            continue;
        };
        if let Some(key) = undeclared(&message, &["content", "role"]) {
            return Err(extra(format!("messages.{m}.{key}")));
        }
        blocks_keys(&format!("messages.{m}.content"), message.get("content"))?;
    }
    Ok(())
}

/// The keys of a list of content blocks (a string content has none), nested ones included.
fn blocks_keys(path: &str, content: Option<&&RawValue>) -> Result<(), Refusal> {
    for (c, block) in array(content).iter().enumerate() {
        let Some(block) = object(block) else { continue };
        let Some(kind) = kind(&block) else { continue };
        let Some((_, allowed)) = BLOCKS.iter().find(|(k, _)| *k == kind) else {
            continue; // a block type the mock does not read: the typed reading refuses it
        };
        let here = format!("{path}.{c}.{kind}");
        if let Some(key) = undeclared(&block, allowed) {
            return Err(extra(format!("{here}.{key}")));
        }
        match kind.as_str() {
            "tool_result" => blocks_keys(&format!("{here}.content"), block.get("content"))?,
            "tool_search_tool_result" => {
                let inner = block.get("content").and_then(|c| object(c));
                if let Some(inner) = inner {
                    let inner_kind = self::kind(&inner).unwrap_or_default();
                    let allowed = BLOCKS.iter().find(|(k, _)| *k == inner_kind);
                    if let Some(key) = allowed.and_then(|(_, a)| undeclared(&inner, a)) {
                        return Err(extra(format!("{here}.content.{inner_kind}.{key}")));
                    }
                    let path = format!("{here}.content.{inner_kind}.tool_references");
                    blocks_keys(&path, inner.get("tool_references"))?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The pairs the Messages API holds a conversation to: a `tool_search_tool_result` follows its
/// `server_tool_use` in the same message, and every `server_tool_use` gets its result there; a
/// `tool_result` answers a `tool_use` of the message before it, and every `tool_use` followed by
/// a message gets its `tool_result` in that message.
pub fn messages_pairs(request: &MessagesRequest) -> Result<(), Refusal> {
    let blocks: Vec<Vec<ContentBlock>> = request
        .messages
        .iter()
        .map(|m| m.content.blocks())
        .collect();
    for (m, message) in blocks.iter().enumerate() {
        let mut searches: Vec<(usize, &str)> = Vec::new();
        let mut answered: HashSet<&str> = HashSet::new();
        for (c, block) in message.iter().enumerate() {
            match block {
                ContentBlock::ServerToolUse(used) => searches.push((c, used.id.as_str())),
                ContentBlock::ToolSearchToolResult(result) => {
                    let id = result.tool_use_id.as_str();
                    if !searches.iter().any(|(_, s)| *s == id) {
                        return Err(Refusal::new(
                            Some(&format!("messages.{m}.content.{c}")),
                            format!(
                                "`tool_search_tool_result` block answers tool_use_id {id:?}, but no \
                                 `server_tool_use` block with that id comes before it in this message"
                            ),
                        ));
                    }
                    answered.insert(id);
                }
                ContentBlock::ToolResult(result) => {
                    let id = result.tool_use_id.as_str();
                    let asked = m.checked_sub(1).map(|p| &blocks[p]).is_some_and(|p| {
                        p.iter()
                            .any(|b| matches!(b, ContentBlock::ToolUse(u) if u.id == id))
                    });
                    if !asked {
                        return Err(Refusal::new(
                            Some(&format!("messages.{m}.content.{c}")),
                            format!(
                                "unexpected tool_use_id {id:?} in a `tool_result` block: each \
                                 `tool_result` must answer a `tool_use` block of the previous message"
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
        if let Some((c, id)) = searches.iter().find(|(_, id)| !answered.contains(id)) {
            return Err(Refusal::new(
                Some(&format!("messages.{m}.content.{c}")),
                format!(
                    "`server_tool_use` {id:?} has no `tool_search_tool_result` after it in this message"
                ),
            ));
        }
        let Some(next) = blocks.get(m + 1) else {
            continue;
        };
        if request.messages[m].role != Role::Assistant {
            continue;
        }
        for (c, block) in message.iter().enumerate() {
            let ContentBlock::ToolUse(used) = block else {
                continue;
            };
            let result = next
                .iter()
                .any(|b| matches!(b, ContentBlock::ToolResult(r) if r.tool_use_id == used.id));
            if !result {
                return Err(Refusal::new(
                    Some(&format!("messages.{m}.content.{c}")),
                    format!(
                        "`tool_use` {:?} has no `tool_result` block in the next message",
                        used.id
                    ),
                ));
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// OpenAI Responses

/// An OpenAI refusal of an undeclared key.
fn unknown_parameter(param: String) -> Refusal {
    Refusal::new(Some(&param), format!("Unknown parameter: '{param}'."))
        .with_code("unknown_parameter")
}

/// The keys of a native Responses body: the request, each `tool_search` and function tool (a
/// namespace's functions too), and the search items of `input` with the tools they carry.
pub fn responses_keys(raw: &str) -> Result<(), Refusal> {
    let Ok(body) = serde_json::from_str::<Object<'_>>(raw) else {
        return Ok(());
    };
    if let Some(key) = undeclared(&body, RESPONSES_REQUEST) {
        return Err(unknown_parameter(key.to_string()));
    }
    for (i, tool) in array(body.get("tools")).iter().enumerate() {
        tool_keys(&format!("tools[{i}]"), tool)?;
    }
    for (j, item) in array(body.get("input")).iter().enumerate() {
        let Some(item) = object(item) else { continue };
        let allowed = match kind(&item).as_deref() {
            Some("tool_search_call") => SEARCH_CALL,
            Some("tool_search_output") => SEARCH_OUTPUT,
            _ => continue,
        };
        if let Some(key) = undeclared(&item, allowed) {
            return Err(unknown_parameter(format!("input[{j}].{key}")));
        }
        for (k, tool) in array(item.get("tools")).iter().enumerate() {
            tool_keys(&format!("input[{j}].tools[{k}]"), tool)?;
        }
    }
    Ok(())
}

fn tool_keys(path: &str, tool: &RawValue) -> Result<(), Refusal> {
    let Some(tool) = object(tool) else {
        return Ok(());
    };
    let allowed = match kind(&tool).as_deref() {
        Some("tool_search") => TOOL_SEARCH,
        Some("function") => FUNCTION_TOOL,
        Some("namespace") => NAMESPACE,
        _ => return Ok(()),
    };
    if let Some(key) = undeclared(&tool, allowed) {
        return Err(unknown_parameter(format!("{path}.{key}")));
    }
    for (k, inner) in array(tool.get("tools")).iter().enumerate() {
        tool_keys(&format!("{path}.tools[{k}]"), inner)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn messages_refusal(body: serde_json::Value) -> String {
        let raw = body.to_string();
        let request: MessagesRequest = serde_json::from_str(&raw).unwrap();
        let refusal = messages_keys(&raw)
            .and_then(|()| messages_pairs(&request))
            .unwrap_err();
        format!("{}: {}", refusal.param.unwrap_or_default(), refusal.message)
    }

    fn search_turn(blocks: serde_json::Value) -> serde_json::Value {
        json!({"model": "m", "max_tokens": 9, "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": blocks},
        ], "tools": [
            {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
            {"name": "a", "input_schema": {"type": "object"}, "defer_loading": true},
        ]})
    }

    fn result() -> serde_json::Value {
        json!({"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content":
            {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference", "tool_name": "a"}]}})
    }

    #[test]
    fn anthropic_refuses_undeclared_keys_with_their_path() {
        let mut body = search_turn(json!([]));
        body["tools"][1]["deferLoading"] = json!(true);
        assert_eq!(
            messages_refusal(body),
            "tools.1.custom.deferLoading: Extra inputs are not permitted"
        );
        let mut body = search_turn(json!([]));
        body["tools"][0]["mode"] = json!("x");
        assert_eq!(
            messages_refusal(body),
            "tools.0.tool_search_tool_bm25_20251119.mode: Extra inputs are not permitted"
        );
        let mut body = search_turn(json!([]));
        body["temperatur"] = json!(1);
        assert_eq!(
            messages_refusal(body),
            "temperatur: Extra inputs are not permitted"
        );
        let mut inner = result();
        inner["content"]["tool_references"][0]["name"] = json!("a");
        let used = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}});
        assert_eq!(
            messages_refusal(search_turn(json!([used, inner]))),
            "messages.1.content.1.tool_search_tool_result.content.tool_search_tool_search_result\
             .tool_references.0.tool_reference.name: Extra inputs are not permitted"
        );
    }

    #[test]
    fn anthropic_refuses_unpaired_blocks() {
        let used = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {}});
        let call = json!({"type": "tool_use", "id": "toolu_1", "name": "a", "input": {}});
        assert_eq!(
            messages_refusal(search_turn(json!([result(), call]))),
            "messages.1.content.0: `tool_search_tool_result` block answers tool_use_id \
             \"srvtoolu_1\", but no `server_tool_use` block with that id comes before it in this message"
        );
        assert_eq!(
            messages_refusal(search_turn(json!([used, call]))),
            "messages.1.content.0: `server_tool_use` \"srvtoolu_1\" has no \
             `tool_search_tool_result` after it in this message"
        );
        let mut body = search_turn(json!([used, result(), call]));
        body["messages"]
            .as_array_mut()
            .unwrap()
            .push(json!({"role": "user", "content": [{"type": "text", "text": "next"}]}));
        assert_eq!(
            messages_refusal(body.clone()),
            "messages.1.content.2: `tool_use` \"toolu_1\" has no `tool_result` block in the next message"
        );
        let mut stray = search_turn(json!([used, result()]));
        stray["messages"].as_array_mut().unwrap().push(
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "ok"}]}),
        );
        assert_eq!(
            messages_refusal(stray),
            "messages.2.content.0: unexpected tool_use_id \"toolu_2\" in a `tool_result` block: \
             each `tool_result` must answer a `tool_use` block of the previous message"
        );
        body["messages"][2]["content"] =
            json!([{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]);
        let raw = body.to_string();
        assert_eq!(messages_keys(&raw), Ok(()));
        assert_eq!(messages_pairs(&serde_json::from_str(&raw).unwrap()), Ok(()));
    }

    #[test]
    fn anthropic_refuses_more_than_ten_thousand_tools() {
        let tool = json!({"name": "t", "input_schema": {"type": "object"}});
        let body = json!({"model": "m", "max_tokens": 1, "messages": [],
            "tools": vec![tool; MAX_ANTHROPIC_TOOLS + 1]});
        let refusal = messages_keys(&body.to_string()).unwrap_err();
        assert_eq!(
            refusal.message,
            "10001 tools declared; at most 10000 are allowed"
        );
    }

    #[test]
    fn openai_refuses_unknown_parameters() {
        let refusal = |body: serde_json::Value| responses_keys(&body.to_string()).unwrap_err();
        let body =
            json!({"model": "m", "input": "hi", "tools": [{"type": "tool_search", "mode": "x"}]});
        let mode = refusal(body);
        assert_eq!(mode.param.as_deref(), Some("tools[0].mode"));
        assert_eq!(mode.message, "Unknown parameter: 'tools[0].mode'.");
        assert_eq!(mode.code.as_deref(), Some("unknown_parameter"));
        let body = json!({"model": "m", "input": "hi", "tools": [{"type": "tool_search"},
            {"type": "function", "name": "a", "parameters": {}, "strict": false, "deferLoading": true}]});
        assert_eq!(
            refusal(body).param.as_deref(),
            Some("tools[1].deferLoading")
        );
        let body = json!({"model": "m", "tools": [{"type": "tool_search"}], "input": [
            {"type": "tool_search_output", "tools": [{"type": "function", "name": "a", "parameters": {}, "strict": false, "x": 1}]}]});
        assert_eq!(refusal(body).param.as_deref(), Some("input[0].tools[0].x"));
        let body = json!({"model": "m", "input": "hi", "tools": [{"type": "namespace", "name": "n", "description": "d",
            "tools": [{"type": "function", "name": "a", "defer_loading": true, "deferLoading": true}]}]});
        assert_eq!(
            refusal(body).param.as_deref(),
            Some("tools[0].tools[0].deferLoading")
        );
        // OpenAI's guide: in a namespace, deferral belongs to the functions inside, not to the
        // namespace object (`NamespaceToolParam` has no `defer_loading`).
        let body = json!({"model": "m", "input": "hi", "tools": [{"type": "namespace", "name": "n", "description": "d",
            "defer_loading": true, "tools": [{"type": "function", "name": "a", "defer_loading": true}]}]});
        let namespace = refusal(body);
        assert_eq!(namespace.param.as_deref(), Some("tools[0].defer_loading"));
        assert_eq!(namespace.code.as_deref(), Some("unknown_parameter"));
        let fine = json!({"model": "m", "input": "hi", "stream": false, "store": false,
            "tools": [{"type": "tool_search", "execution": "server"},
                {"type": "function", "name": "a", "parameters": {}, "strict": false, "defer_loading": true}]});
        assert_eq!(responses_keys(&fine.to_string()), Ok(()));
    }
}
