//! Native tool search on `POST /v1/responses`: a request with a `tool_search` tool and
//! deferred function tools. Hosted (`execution: "server"`): one response holds the search call,
//! its output (the hits exactly as the request declared them) and the call of the target.
//! Client (`execution: "client"`): the response is only the search call; the caller answers with
//! the call and a `tool_search_output`, whose tools are then loaded.

use std::collections::HashSet;

use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

use super::search::{bm25, Candidate, SEARCH_LIMIT};
use super::{billed_input_tokens, check_declarations, not_found_decision, plan};
use super::{BilledError, NativeSearch, Plan, Protocol, Refusal};
use crate::protocol::raw::RawJson;
use crate::protocol::response_object::{
    fresh_id, RequestEcho, ResponseItem, ResponseObject, SearchExecution,
};
use crate::protocol::usage::{count_tokens, Usage};
use crate::provider::model::{Decision, Outcome};
use crate::provider::wire::output_item;

/// One `tools[]` entry, read for what the search needs.
#[derive(Deserialize)]
struct ToolHead<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    defer_loading: Option<bool>,
    #[serde(default)]
    execution: Option<SearchExecution>,
    #[serde(borrow, default)]
    parameters: Option<&'a RawValue>,
}

/// One `input` item, read for tool search.
#[derive(Deserialize)]
struct ItemHead {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    role: Option<String>,
    #[serde(default)]
    call_id: Option<String>,
    #[serde(default)]
    tools: Option<Vec<NameHead>>,
}

#[derive(Deserialize)]
struct NameHead {
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
struct Slices<'a> {
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// A deferred function tool: what the search ranks and the exact bytes it loads.
struct Deferred<'a> {
    candidate: Candidate,
    raw: &'a RawValue,
}

/// What a native Responses request declares and what its turn has loaded so far.
pub struct NativeRequest<'a> {
    pub search: NativeSearch,
    deferred: Vec<Deferred<'a>>,
    deferred_names: HashSet<String>,
    /// Tools named by a `tool_search_output` after the last user message.
    loaded: HashSet<String>,
    /// Whether a `tool_search_output` came after the last user message.
    searched: bool,
}

/// The native part of a Responses body (`raw`): `None` when it declares neither a
/// `tool_search` tool nor a deferred function (today's path answers it), a refusal when it
/// breaks the rules.
pub fn read(raw: &str) -> Result<Option<NativeRequest<'_>>, Refusal> {
    // A body that names neither can declare neither: a plain request (megabytes at 10,000
    // tools) is not read a second time for its tools.
    if !raw.contains("\"tool_search\"") && !raw.contains("\"defer_loading\"") {
        return Ok(None);
    }
    let malformed = |e: serde_json::Error| Refusal::new(None, format!("malformed request: {e}"));
    let slices: Slices<'_> = serde_json::from_str(raw).map_err(malformed)?;
    let entries: Vec<&RawValue> = match slices.tools {
        Some(tools) => serde_json::from_str(tools.get())
            .map_err(|e| Refusal::new(Some("tools"), format!("tools must be an array: {e}")))?,
        None => Vec::new(),
    };
    let mut search = None;
    let mut search_deferred = false;
    let mut deferred = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let head: ToolHead<'_> = serde_json::from_str(entry.get())
            .map_err(|e| Refusal::new(Some(&format!("tools[{i}]")), e.to_string()))?;
        let is_deferred = head.defer_loading == Some(true);
        if head.kind.as_deref() == Some("tool_search") {
            if search.is_some() {
                return Err(Refusal::new(
                    Some(&format!("tools[{i}]")),
                    "only one tool_search tool may be declared",
                ));
            }
            search_deferred |= is_deferred;
            search = Some(head.execution.unwrap_or(SearchExecution::Server));
        } else if is_deferred {
            let name = head.name.clone().unwrap_or_default();
            let description = head.description.clone().unwrap_or_default();
            let schema = head.parameters.map(RawValue::get);
            deferred.push(Deferred {
                candidate: Candidate::new(&name, &description, schema),
                raw: entry,
            });
        }
    }
    if search.is_none() && deferred.is_empty() && !search_deferred {
        return Ok(None);
    }
    super::strict::responses_keys(raw)?;
    let all_deferred =
        !entries.is_empty() && deferred.len() + usize::from(search_deferred) == entries.len();
    check_declarations(
        search_deferred,
        all_deferred,
        !deferred.is_empty(),
        search.is_some(),
    )?;
    let (loaded, searched) = loaded_tools(slices.input)?;
    Ok(Some(NativeRequest {
        search: match search {
            Some(SearchExecution::Client) => NativeSearch::OpenaiClient,
            _ => NativeSearch::OpenaiServer,
        },
        deferred_names: deferred.iter().map(|d| d.candidate.name.clone()).collect(),
        deferred,
        loaded,
        searched,
    }))
}

/// The tools loaded after the last user message, and whether a search output came there. A
/// client `tool_search_output` must answer a `tool_search_call` of the input (same `call_id`).
fn loaded_tools(input: Option<&RawValue>) -> Result<(HashSet<String>, bool), Refusal> {
    let Some(input) = input else {
        return Ok((HashSet::new(), false));
    };
    let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(input.get()) else {
        return Ok((HashSet::new(), false)); // a string input: one user message
    };
    let heads: Vec<ItemHead> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_str(item.get())
                .map_err(|e| Refusal::new(Some(&format!("input[{i}]")), e.to_string()))
        })
        .collect::<Result<_, _>>()?;
    let calls: HashSet<&str> = heads
        .iter()
        .filter(|h| h.kind.as_deref() == Some("tool_search_call"))
        .filter_map(|h| h.call_id.as_deref())
        .collect();
    let last_user = heads.iter().rposition(|h| {
        matches!(h.kind.as_deref(), Some("message") | None) && h.role.as_deref() == Some("user")
    });
    let mut loaded = HashSet::new();
    let mut searched = false;
    for (i, head) in heads.iter().enumerate() {
        if head.kind.as_deref() != Some("tool_search_output") {
            continue;
        }
        if let Some(call_id) = head.call_id.as_deref() {
            if !calls.contains(call_id) {
                return Err(Refusal::new(
                    Some(&format!("input[{i}]")),
                    format!("tool_search_output answers no tool_search_call (call_id {call_id:?} is not in the input)"),
                ));
            }
        }
        if last_user.is_none_or(|user| i > user) {
            searched = true;
            let names = head.tools.iter().flatten().filter_map(|t| t.name.clone());
            loaded.extend(names);
        }
    }
    Ok((loaded, searched))
}

/// The response to a native request, and the decision the journal records.
pub fn respond(
    request: &NativeRequest<'_>,
    raw: &str,
    model: &str,
    echo: RequestEcho,
    decision: Decision,
) -> Result<(ResponseObject, Decision), BilledError> {
    let (items, decision) = match plan(
        decision,
        &request.deferred_names,
        &request.loaded,
        request.searched,
    ) {
        Plan::Answer(decision) => (vec![output_item(&decision.reply)], decision),
        Plan::NotFound { target } => {
            let decision = not_found_decision(&target);
            (vec![output_item(&decision.reply)], decision)
        }
        Plan::Search { target, decision } => search_items(request, &target, decision),
    };
    let input = billed_input_tokens(Protocol::OpenaiResponses, raw)?;
    let output = items.iter().map(generated_tokens).sum::<Result<u64, _>>()?;
    let response = ResponseObject::completed(model, echo, items, Usage::of(input, output));
    Ok((response, decision))
}

/// The items of a search for `target`: hosted, the call, its output and then the call of the
/// target (or the not-found text); client, the call alone.
fn search_items(
    request: &NativeRequest<'_>,
    target: &str,
    decision: Decision,
) -> (Vec<ResponseItem>, Decision) {
    let arguments = json!({ "query": target });
    if request.search == NativeSearch::OpenaiClient {
        let call = ResponseItem::tool_search_call(
            SearchExecution::Client,
            Some(fresh_id("call")),
            arguments,
        );
        return (vec![call], searching(decision));
    }
    let candidates: Vec<Candidate> = request
        .deferred
        .iter()
        .map(|d| d.candidate.clone())
        .collect();
    let hits = bm25(&candidates, target, SEARCH_LIMIT);
    let tools = hits
        .iter()
        .map(|&i| RawJson::from_text(request.deferred[i].raw.get().to_string()))
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_default();
    let found = hits.iter().any(|&i| candidates[i].name == target);
    let mut items = vec![
        ResponseItem::tool_search_call(SearchExecution::Server, None, arguments),
        ResponseItem::tool_search_output(SearchExecution::Server, None, tools),
    ];
    let decision = if found {
        items.push(output_item(&decision.reply));
        searching(decision)
    } else {
        let decision = not_found_decision(target);
        items.push(output_item(&decision.reply));
        decision
    };
    (items, decision)
}

/// The decision, journaled as a native search on its way to the target.
fn searching(decision: Decision) -> Decision {
    Decision {
        outcome: Outcome::NativeSearch,
        ..decision
    }
}

/// Output tokens of an item: a message's text, a call's name and arguments, a search call's
/// arguments (a search output is the provider's, not the model's).
fn generated_tokens(item: &ResponseItem) -> Result<u64, crate::protocol::usage::TokenizerError> {
    let texts: Vec<String> = match item {
        ResponseItem::Message(m) => m.content.iter().map(|p| p.text.clone()).collect(),
        ResponseItem::FunctionCall(c) => vec![c.name.clone(), c.arguments.clone()],
        ResponseItem::ToolSearchCall(c) => vec![c.arguments.to_string()],
        ResponseItem::ToolSearchOutput(_) => Vec::new(),
    };
    texts
        .iter()
        .map(|t| count_tokens(t).map(|n| n as u64))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::model::Reply;
    use serde_json::Value;

    fn is_call_of(item: &ResponseItem, name: &str) -> bool {
        matches!(item, ResponseItem::FunctionCall(c) if c.name == name)
    }

    fn fixture_body(name: &str) -> String {
        let path = format!(
            "{}/tests/it/fixtures/native/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        let value: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        value["body"].to_string()
    }

    #[test]
    fn reads_the_fixture_requests() {
        let hosted = fixture_body("openai-request-hosted.json");
        let request = read(&hosted).unwrap().unwrap();
        assert_eq!(request.search, NativeSearch::OpenaiServer);
        assert_eq!(request.deferred.len(), 2);
        assert!(!request.searched);
        let answered = fixture_body("openai-request-client-result.json");
        let request = read(&answered).unwrap().unwrap();
        assert_eq!(request.search, NativeSearch::OpenaiClient);
        assert!(request.searched);
        assert!(request.loaded.contains("fake_plugin_tool_17"));
        assert!(
            read(r#"{"input":"hi","tools":[{"type":"function","name":"a"}]}"#)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn refuses_what_the_rules_forbid() {
        let refused = |body: Value| read(&body.to_string()).err().map(|r| r.message);
        let deferred = json!({"type": "function", "name": "a", "parameters": {}, "strict": false, "defer_loading": true});
        let plain = json!({"type": "function", "name": "b", "parameters": {}, "strict": false});
        let no_search = refused(json!({"input": "hi", "tools": [deferred, plain]})).unwrap();
        assert!(no_search.contains("need a tool search tool"), "{no_search}");
        let all = refused(json!({"input": "hi", "tools": [{"type": "tool_search"}, deferred]}));
        assert_eq!(all, None, "the search tool is not deferred");
        let search_deferred = refused(json!({"input": "hi",
            "tools": [{"type": "tool_search", "defer_loading": true}, deferred, plain]}))
        .unwrap();
        // `ToolSearchToolParam` declares no `defer_loading`: the key itself is refused.
        assert_eq!(
            search_deferred,
            "Unknown parameter: 'tools[0].defer_loading'."
        );
        let stray = refused(json!({"input": [
            {"role": "user", "content": "hi"},
            {"type": "tool_search_output", "call_id": "call_x", "execution": "client", "status": "completed", "tools": []}],
            "tools": [{"type": "tool_search", "execution": "client"}, deferred, plain]}))
        .unwrap();
        assert!(stray.contains("answers no tool_search_call"), "{stray}");
    }

    fn decision(name: &str) -> Decision {
        Decision {
            reply: Reply::ToolCall {
                name: name.into(),
                arguments: json!({"marker": "normal"}),
            },
            planned_tool_name: Some(name.into()),
            planned_wire_tool_name: None,
            planned_tool_args: Some(json!({"marker": "normal"})),
            outcome: Outcome::ToolCall,
        }
    }

    #[test]
    fn hosted_search_loads_the_declared_bytes_then_calls() {
        let body = fixture_body("openai-request-hosted.json");
        let request = read(&body).unwrap().unwrap();
        let (response, journaled) = respond(
            &request,
            &body,
            "m",
            RequestEcho::default(),
            decision("fake_plugin_tool_17"),
        )
        .unwrap();
        assert_eq!(journaled.outcome, Outcome::NativeSearch);
        assert_eq!(response.output.len(), 3);
        let ResponseItem::ToolSearchOutput(output) = &response.output[1] else {
            panic!("{response:?}")
        };
        let value: Value = serde_json::from_str(&body).unwrap();
        let declared17 = value["tools"][2].to_string();
        assert_eq!(
            output.tools[0].get(),
            declared17,
            "the hit, first, as declared"
        );
        assert_eq!(
            output.tools.len(),
            2,
            "both deferred tools are among the top 5"
        );
        assert!(is_call_of(&response.output[2], "fake_plugin_tool_17"));
        assert_eq!(
            response.usage.unwrap().input_tokens,
            billed_input_tokens(Protocol::OpenaiResponses, &body).unwrap()
        );
        let missing = respond(
            &request,
            &body,
            "m",
            RequestEcho::default(),
            decision("fake_plugin_tool_99"),
        );
        let output = missing.unwrap().0.output;
        assert_eq!(output.len(), 1);
        assert!(
            is_call_of(&output[0], "fake_plugin_tool_99"),
            "a tool that is not deferred is called as is (the gateway's business)"
        );
    }
}
