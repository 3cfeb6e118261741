//! `POST /v1/messages`: Anthropic's Messages API, answered by the same scripted model. A
//! request may declare deferred tools beside a BM25 or regex tool search tool (the mock searches
//! inside the turn: `server_tool_use`, `tool_search_tool_result`, then the `tool_use` of the
//! target), or beside the caller's own search tool (the model calls it; a later `tool_result`
//! with `tool_reference` blocks loads the tools it names).
//!
//! The model reads a Messages request as it reads a Responses one ([`ParsedInput`]): the prompt
//! is the last user text, the input text is the system prompt and every text, and the tool
//! outputs are the `tool_result`s after the last user text (a client search's results excluded:
//! they load tools, they are not the target's output).

use std::collections::{HashMap, HashSet};

use serde_json::json;

use super::search::{bm25, pattern_for, regex, Candidate, SEARCH_LIMIT};
use super::strict;
use super::{billed_input_tokens, check_declarations, not_found_decision, plan};
use super::{BilledError, NativeSearch, Plan, Protocol, Refusal};
use crate::protocol::messages::{
    BlockContent, ContentBlock, Message, MessagesRequest, MessagesUsage, Role, SearchErrorCode,
    SearchToolType, StopReason, ToolDefinition,
};
use crate::protocol::usage::{count_tokens, TokenizerError};
use crate::provider::declared::DeclaredNames;
use crate::provider::input::{ParsedInput, ToolOutput};
use crate::provider::model::{Decision, Outcome, Reply};

/// A Messages request as the mock reads it.
pub struct MessagesView {
    pub request: MessagesRequest,
    pub parsed: ParsedInput,
    pub declared: DeclaredNames,
    /// The search the request asks for (`None`: no deferred tools, nothing to search).
    pub search: Option<NativeSearch>,
    deferred: HashSet<String>,
    loaded: HashSet<String>,
    searched: bool,
}

/// Reads and checks a Messages body.
pub fn read(raw: &str) -> Result<MessagesView, Refusal> {
    strict::messages_keys(raw)?;
    let request: MessagesRequest = serde_json::from_str(raw)
        .map_err(|e| Refusal::new(None, format!("malformed request: {e}")))?;
    strict::messages_pairs(&request)?;
    let search = search_of(&request)?;
    let names: HashSet<&str> = request.tools.iter().map(ToolDefinition::name).collect();
    let client_tool = match &search {
        Some(NativeSearch::AnthropicClient(name)) => Some(name.as_str()),
        _ => None,
    };
    let turn = Turn::read(&request, client_tool);
    if let Some(unknown) = turn.referenced.iter().find(|n| !names.contains(n.as_str())) {
        // The guide's wording for this 400 ("Tool search tool", error handling).
        return Err(Refusal::new(
            None,
            format!("Tool reference '{unknown}' has no corresponding tool definition"),
        ));
    }
    let deferred = request
        .tools
        .iter()
        .filter(|t| t.deferred())
        .map(|t| t.name().to_string())
        .collect();
    Ok(MessagesView {
        declared: DeclaredNames::from_names(names.iter().copied()),
        parsed: turn.parsed,
        search,
        deferred,
        loaded: turn.loaded,
        searched: turn.searched,
        request,
    })
}

/// The search a request's tools ask for, after the rules: the search tool not deferred, some
/// tool not deferred, and deferred tools only beside a search tool or a client search tool
/// (a non-deferred custom tool whose name has `search` in it).
fn search_of(request: &MessagesRequest) -> Result<Option<NativeSearch>, Refusal> {
    let mut server = None;
    let mut search_deferred = false;
    let mut client = None;
    for tool in &request.tools {
        match tool {
            ToolDefinition::Search(search) => {
                if search.name != search.kind.tool_name() {
                    return Err(Refusal::new(
                        Some("tools"),
                        format!(
                            "the {} tool must be named {:?}, not {:?}",
                            search.kind.tool_name(),
                            search.kind.tool_name(),
                            search.name
                        ),
                    ));
                }
                search_deferred |= tool.deferred();
                server = Some(match search.kind {
                    SearchToolType::Bm25 => NativeSearch::Bm25,
                    SearchToolType::Regex => NativeSearch::Regex,
                });
            }
            ToolDefinition::Custom(custom)
                if !tool.deferred() && custom.name.contains("search") =>
            {
                client.get_or_insert_with(|| custom.name.clone());
            }
            ToolDefinition::Custom(_) => {}
        }
    }
    let deferred = request.tools.iter().filter(|t| t.deferred()).count();
    let all_deferred = deferred > 0 && deferred == request.tools.len();
    let searchable = server.is_some() || client.is_some();
    if all_deferred {
        // The guide's wording for this 400 ("Tool search tool", error handling).
        return Err(Refusal::new(
            None,
            "All tools have defer_loading set. At least one tool must be non-deferred.",
        ));
    }
    check_declarations(search_deferred, all_deferred, deferred > 0, searchable)?;
    if deferred == 0 {
        return Ok(server);
    }
    Ok(server.or(client.map(NativeSearch::AnthropicClient)))
}

/// What the conversation holds for the scripted model and the search.
struct Turn {
    parsed: ParsedInput,
    /// Tools loaded by search results after the last user text.
    loaded: HashSet<String>,
    /// Whether a search result came after the last user text.
    searched: bool,
    /// Every tool any search result references.
    referenced: Vec<String>,
}

impl Turn {
    fn read(request: &MessagesRequest, client_tool: Option<&str>) -> Turn {
        let system = request
            .system
            .as_ref()
            .map(|s| s.text())
            .unwrap_or_default();
        let messages: Vec<(Role, Vec<ContentBlock>)> = request
            .messages
            .iter()
            .map(|m| (m.role, m.content.blocks()))
            .collect();
        let has_text =
            |blocks: &[ContentBlock]| blocks.iter().any(|b| matches!(b, ContentBlock::Text(_)));
        let last_user = messages
            .iter()
            .rposition(|(role, blocks)| *role == Role::User && has_text(blocks));
        let prompt = last_user
            .map(|i| BlockContent::Blocks(messages[i].1.clone()).text())
            .unwrap_or_default();
        let mut texts: Vec<String> = Vec::new();
        if !system.is_empty() {
            texts.push(system.clone());
        }
        let mut tool_names: HashMap<String, String> = HashMap::new();
        let mut turn = Turn {
            parsed: ParsedInput::default(),
            loaded: HashSet::new(),
            searched: false,
            referenced: Vec::new(),
        };
        for (index, (_, blocks)) in messages.iter().enumerate() {
            let in_turn = last_user.is_none_or(|user| index > user);
            for block in blocks {
                match block {
                    ContentBlock::Text(t) if !t.text.is_empty() => texts.push(t.text.clone()),
                    ContentBlock::ToolUse(used) => {
                        tool_names.insert(used.id.clone(), used.name.clone());
                    }
                    ContentBlock::ToolSearchToolResult(result) => {
                        let names = result.content.names();
                        turn.referenced.extend(names.iter().map(|n| n.to_string()));
                        if in_turn {
                            turn.searched = true;
                            turn.loaded.extend(names.iter().map(|n| n.to_string()));
                        }
                    }
                    ContentBlock::ToolResult(result) => {
                        let tool = tool_names.get(&result.tool_use_id).cloned();
                        let references = result.references();
                        turn.referenced
                            .extend(references.iter().map(|n| n.to_string()));
                        let from_search = tool.is_some() && tool.as_deref() == client_tool;
                        if from_search && in_turn {
                            turn.searched = true;
                            turn.loaded.extend(references.iter().map(|n| n.to_string()));
                        } else if in_turn {
                            turn.parsed.tool_outputs.push(ToolOutput {
                                call_id: Some(result.tool_use_id.clone()),
                                tool_name: tool,
                                text: result.text(),
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        turn.parsed.instructions = system;
        turn.parsed.prompt = prompt;
        turn.parsed.all_input_text = texts.join("\n");
        turn
    }
}

/// The message answering `view`, and the decision the journal records.
pub fn respond(
    view: &MessagesView,
    raw: &str,
    decision: Decision,
) -> Result<(Message, Decision), BilledError> {
    let (content, decision) = match plan(decision, &view.deferred, &view.loaded, view.searched) {
        Plan::Answer(decision) => (vec![block_of(&decision.reply)], decision),
        Plan::NotFound { target } => {
            let decision = not_found_decision(&target);
            (vec![block_of(&decision.reply)], decision)
        }
        Plan::Search { target, decision } => search_blocks(view, &target, decision),
    };
    let stop = if content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolUse(_)))
    {
        StopReason::ToolUse
    } else {
        StopReason::EndTurn
    };
    let input = billed_input_tokens(Protocol::AnthropicMessages, raw)?;
    let output = content
        .iter()
        .map(generated_tokens)
        .sum::<Result<u64, _>>()?;
    let message = Message::new(
        &view.request.model,
        content,
        stop,
        MessagesUsage::of(input, output),
    );
    Ok((message, decision))
}

fn block_of(reply: &Reply) -> ContentBlock {
    match reply {
        Reply::ToolCall { name, arguments } => ContentBlock::tool_use(name, arguments.clone()),
        Reply::Text(text) => ContentBlock::text(text.clone()),
    }
}

/// A search for `target`: server-side, the search use, its result and the target's use (or the
/// not-found text); client-side, a use of the caller's search tool.
fn search_blocks(
    view: &MessagesView,
    target: &str,
    decision: Decision,
) -> (Vec<ContentBlock>, Decision) {
    let kind = match &view.search {
        Some(NativeSearch::Regex) => SearchToolType::Regex,
        Some(NativeSearch::AnthropicClient(tool)) => {
            let used = ContentBlock::tool_use(tool, json!({ "query": target }));
            return (vec![used], searching(decision));
        }
        _ => SearchToolType::Bm25,
    };
    let candidates = candidates(&view.request);
    let (input, hits) = match kind {
        SearchToolType::Bm25 => (
            json!({ "query": target }),
            Ok(bm25(&candidates, target, SEARCH_LIMIT)),
        ),
        SearchToolType::Regex => {
            let pattern = pattern_for(target);
            let hits = regex(&candidates, &pattern, SEARCH_LIMIT);
            (json!({ "pattern": pattern }), hits)
        }
    };
    let call = ContentBlock::server_tool_use(kind, input);
    let ContentBlock::ServerToolUse(used) = &call else {
        unreachable!("server_tool_use builds a server tool use")
    };
    let id = used.id.clone();
    let (result, names) = match hits {
        Ok(hits) => {
            let names: Vec<String> = hits.iter().map(|&i| candidates[i].name.clone()).collect();
            (ContentBlock::search_result(id, &names), names)
        }
        Err(e) => (
            ContentBlock::search_error(id, SearchErrorCode::InvalidToolInput, e.to_string()),
            Vec::new(),
        ),
    };
    let mut content = vec![call, result];
    if names.iter().any(|n| n == target) {
        content.push(block_of(&decision.reply));
        (content, searching(decision))
    } else {
        let decision = not_found_decision(target);
        content.push(block_of(&decision.reply));
        (content, decision)
    }
}

fn searching(decision: Decision) -> Decision {
    Decision {
        outcome: Outcome::NativeSearch,
        ..decision
    }
}

/// The deferred custom tools, in declaration order.
fn candidates(request: &MessagesRequest) -> Vec<Candidate> {
    request
        .tools
        .iter()
        .filter_map(|t| match t {
            ToolDefinition::Custom(c) if t.deferred() => Some(Candidate::new(
                &c.name,
                c.description.as_deref().unwrap_or_default(),
                Some(c.input_schema.get()),
            )),
            _ => None,
        })
        .collect()
}

/// Output tokens of a block the model wrote: text, a tool's name and input (a search result is
/// the provider's, not the model's).
fn generated_tokens(block: &ContentBlock) -> Result<u64, TokenizerError> {
    let texts = match block {
        ContentBlock::Text(t) => vec![t.text.clone()],
        ContentBlock::ToolUse(u) | ContentBlock::ServerToolUse(u) => {
            vec![u.name.clone(), u.input.to_string()]
        }
        _ => Vec::new(),
    };
    texts
        .iter()
        .map(|t| count_tokens(t).map(|n| n as u64))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::model::decide;
    use serde_json::Value;

    fn fixture_body(name: &str) -> String {
        let path = format!(
            "{}/tests/it/fixtures/native/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        value["body"].to_string()
    }

    fn answer(body: &str) -> (Message, Decision) {
        let view = read(body).unwrap();
        let decision = decide(&view.parsed, &view.declared, None);
        respond(&view, body, decision).unwrap()
    }

    #[test]
    fn bm25_searches_then_calls_the_target() {
        let body = fixture_body("anthropic-request-bm25.json");
        let (message, decision) = answer(&body);
        assert_eq!(decision.outcome, Outcome::NativeSearch);
        assert_eq!(message.stop_reason, Some(StopReason::ToolUse));
        let kinds: Vec<String> = message
            .content
            .iter()
            .map(|b| {
                serde_json::to_value(b).unwrap()["type"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            ["server_tool_use", "tool_search_tool_result", "tool_use"]
        );
        let ContentBlock::ToolSearchToolResult(result) = &message.content[1] else {
            unreachable!()
        };
        assert_eq!(
            result.content.names(),
            ["fake_plugin_tool_17", "fake_plugin_tool_16"]
        );
        assert_eq!(
            message.usage.input_tokens,
            billed_input_tokens(Protocol::AnthropicMessages, &body).unwrap()
        );
    }

    #[test]
    fn regex_continuation_answers_the_marker() {
        let body = fixture_body("anthropic-request-regex-continue.json");
        let (message, decision) = answer(&body);
        assert_eq!(decision.outcome, Outcome::FinalText);
        assert_eq!(message.text(), "FAKE_PLUGIN_OK fake_plugin_tool_17");
        assert_eq!(message.stop_reason, Some(StopReason::EndTurn));
    }

    #[test]
    fn client_search_references_load_the_target() {
        let body = fixture_body("anthropic-request-client-search.json");
        let view = read(&body).unwrap();
        assert_eq!(
            view.search,
            Some(NativeSearch::AnthropicClient("tool_search".into()))
        );
        assert!(
            view.parsed.tool_outputs.is_empty(),
            "the search's result is not a tool output"
        );
        let (message, _) = answer(&body);
        let ContentBlock::ToolUse(used) = &message.content[0] else {
            panic!("{message:?}")
        };
        assert_eq!(used.name, "fake_plugin_tool_17");
    }

    #[test]
    fn refusals_and_misses() {
        let mut body: Value =
            serde_json::from_str(&fixture_body("anthropic-request-bm25.json")).unwrap();
        body["tools"][0]["defer_loading"] = json!(true);
        let refusal = read(&body.to_string()).err().unwrap();
        assert!(
            refusal.message.contains("cannot be deferred"),
            "{refusal:?}"
        );
        body["tools"].as_array_mut().unwrap().remove(0);
        let refusal = read(&body.to_string()).err().unwrap();
        assert!(
            refusal.message.contains("need a tool search tool"),
            "{refusal:?}"
        );
        let mut body: Value =
            serde_json::from_str(&fixture_body("anthropic-request-regex-continue.json")).unwrap();
        body["messages"][1]["content"][1]["content"]["tool_references"][0]["tool_name"] =
            json!("nope");
        let refusal = read(&body.to_string()).err().unwrap();
        assert_eq!(
            refusal,
            Refusal::new(
                None,
                "Tool reference 'nope' has no corresponding tool definition"
            )
        );
        // Every tool deferred, the search tool too: the guide's own 400.
        let mut body: Value =
            serde_json::from_str(&fixture_body("anthropic-request-bm25.json")).unwrap();
        for tool in body["tools"].as_array_mut().unwrap() {
            tool["defer_loading"] = json!(true);
        }
        assert_eq!(
            read(&body.to_string()).err().unwrap(),
            Refusal::new(
                None,
                "All tools have defer_loading set. At least one tool must be non-deferred."
            )
        );
        assert!(read("{").is_err());
        let misnamed = fixture_body("anthropic-invalid-request-tools.json");
        let refusal = read(&misnamed).err().unwrap();
        assert!(
            refusal
                .message
                .contains("must be named \"tool_search_tool_bm25\""),
            "{refusal:?}"
        );
        // Five tools whose text names the target come first: the regex's first five hits miss it.
        let mut body: Value =
            serde_json::from_str(&fixture_body("anthropic-request-regex-continue.json")).unwrap();
        body["messages"] =
            json!([{"role": "user", "content": "tool search qa check target=fake_plugin_tool_17"}]);
        let tools = body["tools"].as_array_mut().unwrap();
        for i in 0..5 {
            let decoy = json!({"name": format!("decoy_{i}"), "description": "Like fake_plugin_tool_17.",
                "input_schema": {"type": "object"}, "defer_loading": true});
            tools.insert(1, decoy);
        }
        let (message, decision) = answer(&body.to_string());
        assert_eq!(decision.outcome, Outcome::NotFound);
        assert_eq!(
            message.text(),
            "TOOL_SEARCH_QA_NOT_FOUND fake_plugin_tool_17"
        );
        assert_eq!(message.stop_reason, Some(StopReason::EndTurn));
        let ContentBlock::ServerToolUse(used) = &message.content[0] else {
            panic!("{message:?}")
        };
        assert_eq!(used.input, json!({"pattern": r"\bfake_plugin_tool_17\b"}));
    }
}
