//! Native tool search on `POST /v1/responses`: a request with a `tool_search` tool and
//! deferred function tools. Hosted (`execution: "server"`): one response holds the search call,
//! its output (the hits exactly as the request declared them) and the call of the target.
//! Client (`execution: "client"`): the response is only the search call; the caller answers with
//! the call and a `tool_search_output`, whose tools are then loaded.
//!
//! Deferred functions may sit in `namespace` tools (OpenAI's guide: deferral applies to the
//! functions inside, never to the namespace object). A search loads the hits inside their
//! namespace (`{"type": "namespace", name, description, tools: [the hits]}`) and the call of a
//! namespaced function names its `namespace`.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
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
    /// A namespace's functions.
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
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

/// A loaded tool: a function, or a namespace holding functions.
#[derive(Deserialize)]
struct NameHead {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    tools: Option<Vec<NameHead>>,
}

impl NameHead {
    /// The function names it loads (a namespace's members, not its own name).
    fn functions(&self) -> Vec<String> {
        match &self.tools {
            Some(inner) => inner.iter().flat_map(NameHead::functions).collect(),
            None => self.name.clone().into_iter().collect(),
        }
    }
}

/// A `namespace` tool of the request: what the model sees of it before a search.
#[derive(Debug, Clone, Serialize)]
struct Namespace {
    #[serde(rename = "type")]
    kind: &'static str,
    name: String,
    description: String,
}

/// A namespace as a search output carries it: the hits inside it, as declared.
#[derive(Serialize)]
struct LoadedNamespace<'a> {
    #[serde(flatten)]
    namespace: &'a Namespace,
    tools: Vec<&'a RawValue>,
}

#[derive(Deserialize)]
struct Slices<'a> {
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
}

/// A deferred function tool: what the search ranks, the exact bytes it loads, and the
/// namespace it sits in (an index into [`NativeRequest::namespaces`]).
struct Deferred<'a> {
    candidate: Candidate,
    raw: &'a RawValue,
    namespace: Option<usize>,
}

/// What a native Responses request declares and what its turn has loaded so far.
pub struct NativeRequest<'a> {
    pub search: NativeSearch,
    deferred: Vec<Deferred<'a>>,
    deferred_names: HashSet<String>,
    namespaces: Vec<Namespace>,
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
    let mut namespaces = Vec::new();
    // Top-level entries nothing of which is in view before a search (a deferred function, a
    // namespace of deferred functions).
    let mut hidden = 0;
    for (i, entry) in entries.iter().enumerate() {
        let at = format!("tools[{i}]");
        let head: ToolHead<'_> = serde_json::from_str(entry.get())
            .map_err(|e| Refusal::new(Some(&at), e.to_string()))?;
        let is_deferred = head.defer_loading == Some(true);
        match head.kind.as_deref() {
            Some("tool_search") => {
                if search.is_some() {
                    return Err(Refusal::new(
                        Some(&at),
                        "only one tool_search tool may be declared",
                    ));
                }
                search_deferred |= is_deferred;
                search = Some(head.execution.unwrap_or(SearchExecution::Server));
            }
            Some("namespace") => {
                let members = namespace_members(&at, &head, namespaces.len(), &mut deferred)?;
                hidden += usize::from(members.all_deferred);
                namespaces.push(Namespace {
                    kind: "namespace",
                    name: head.name.clone().unwrap_or_default(),
                    description: head.description.clone().unwrap_or_default(),
                });
            }
            _ if is_deferred => {
                hidden += 1;
                deferred.push(deferred_function(&head, entry, None));
            }
            _ => {}
        }
    }
    if search.is_none() && deferred.is_empty() && !search_deferred {
        return Ok(None);
    }
    super::strict::responses_keys(raw)?;
    let all_deferred =
        !entries.is_empty() && hidden + usize::from(search_deferred) == entries.len();
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
        namespaces,
        loaded,
        searched,
    }))
}

/// A deferred function as the search ranks and loads it.
fn deferred_function<'a>(
    head: &ToolHead<'_>,
    raw: &'a RawValue,
    namespace: Option<usize>,
) -> Deferred<'a> {
    let name = head.name.clone().unwrap_or_default();
    let description = head.description.clone().unwrap_or_default();
    let schema = head.parameters.map(RawValue::get);
    Deferred {
        candidate: Candidate::new(&name, &description, schema),
        raw,
        namespace,
    }
}

/// What a namespace holds.
struct Members {
    /// Every function inside is deferred (nothing of it is in view before a search).
    all_deferred: bool,
}

/// Reads the functions of namespace `index` (at `at`): its deferred ones join `deferred`.
fn namespace_members<'a>(
    at: &str,
    head: &ToolHead<'a>,
    index: usize,
    deferred: &mut Vec<Deferred<'a>>,
) -> Result<Members, Refusal> {
    let inner: Vec<&'a RawValue> = match head.tools {
        Some(tools) => serde_json::from_str(tools.get()).map_err(|e| {
            Refusal::new(
                Some(&format!("{at}.tools")),
                format!("must be an array: {e}"),
            )
        })?,
        None => Vec::new(),
    };
    let mut all_deferred = !inner.is_empty();
    for (j, raw) in inner.into_iter().enumerate() {
        let function: ToolHead<'_> = serde_json::from_str(raw.get())
            .map_err(|e| Refusal::new(Some(&format!("{at}.tools[{j}]")), e.to_string()))?;
        if function.defer_loading == Some(true) {
            deferred.push(deferred_function(&function, raw, Some(index)));
        } else {
            all_deferred = false;
        }
    }
    Ok(Members { all_deferred })
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
            let names = head.tools.iter().flatten().flat_map(NameHead::functions);
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
    let items = items
        .into_iter()
        .map(|item| request.in_namespace(item))
        .collect::<Vec<_>>();
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
    let tools = request.loaded_definitions(&hits);
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

impl NativeRequest<'_> {
    /// The definitions a search with `hits` loads, as declared: a loose function as it is, the
    /// hits of a namespace inside that namespace (one entry per namespace, where its first hit
    /// ranks).
    fn loaded_definitions(&self, hits: &[usize]) -> Vec<RawJson> {
        let mut groups: Vec<(Option<usize>, Vec<&RawValue>)> = Vec::new();
        for &i in hits {
            let hit = &self.deferred[i];
            let group = hit
                .namespace
                .and_then(|n| groups.iter().position(|g| g.0 == Some(n)));
            match group {
                Some(g) => groups[g].1.push(hit.raw),
                None => groups.push((hit.namespace, vec![hit.raw])),
            }
        }
        let text = |(namespace, tools): (Option<usize>, Vec<&RawValue>)| match namespace {
            Some(n) => serde_json::to_string(&LoadedNamespace {
                namespace: &self.namespaces[n],
                tools,
            })
            .unwrap_or_default(),
            None => tools
                .first()
                .map(|t| t.get().to_string())
                .unwrap_or_default(),
        };
        groups
            .into_iter()
            .map(text)
            .filter_map(|t| RawJson::from_text(t).ok())
            .collect()
    }

    /// `item` with the `namespace` of the function it calls, when that function sits in one.
    fn in_namespace(&self, item: ResponseItem) -> ResponseItem {
        let mut call = match item {
            ResponseItem::FunctionCall(call) => call,
            other => return other,
        };
        let namespace = self
            .deferred
            .iter()
            .find(|d| d.candidate.name == call.name)
            .and_then(|d| d.namespace);
        call.namespace = namespace.map(|n| self.namespaces[n].name.clone());
        ResponseItem::FunctionCall(call)
    }
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

    #[test]
    fn a_namespace_s_deferred_functions_are_searched_and_loaded_inside_it() {
        let function = |name: &str, deferred: bool| {
            let mut f = json!({"type": "function", "name": name, "description": format!("Tool {name}."),
                "parameters": {"type": "object"}, "strict": false});
            if deferred {
                f["defer_loading"] = json!(true);
            }
            f
        };
        let body = json!({"model": "m", "input": "tool search qa check target=fake_b", "tools": [
            {"type": "tool_search", "execution": "server"},
            {"type": "namespace", "name": "fixture", "description": "The fixture's tools.",
             "tools": [function("fake_a", true), function("fake_b", true)]},
            {"type": "namespace", "name": "core", "description": "Core tools.",
             "tools": [function("read", false)]},
        ]})
        .to_string();
        let request = read(&body).unwrap().unwrap();
        assert_eq!(request.deferred.len(), 2);
        assert_eq!(request.namespaces.len(), 2);
        let (response, _) = respond(
            &request,
            &body,
            "m",
            RequestEcho::default(),
            decision("fake_b"),
        )
        .unwrap();
        let ResponseItem::ToolSearchOutput(output) = &response.output[1] else {
            panic!("{response:?}")
        };
        assert_eq!(
            output.tools.len(),
            1,
            "both hits inside the one namespace: {output:?}"
        );
        let loaded: Value = serde_json::from_str(output.tools[0].get()).unwrap();
        assert_eq!(loaded["type"], "namespace");
        assert_eq!(loaded["name"], "fixture");
        assert_eq!(
            loaded["tools"][0],
            function("fake_b", true),
            "the hit first"
        );
        assert_eq!(loaded["tools"].as_array().unwrap().len(), 2);
        let ResponseItem::FunctionCall(call) = &response.output[2] else {
            panic!("{response:?}")
        };
        assert_eq!(
            (call.name.as_str(), call.namespace.as_deref()),
            ("fake_b", Some("fixture"))
        );
        // The answer of the next request reads the namespace's members as loaded.
        let answered = json!({"model": "m", "tools": [{"type": "tool_search"},
            {"type": "namespace", "name": "fixture", "description": "d", "tools": [function("fake_b", true)]}],
            "input": [{"role": "user", "content": "go"},
                {"type": "tool_search_call", "execution": "server", "arguments": {}},
                {"type": "tool_search_output", "execution": "server", "tools": [loaded]}]})
        .to_string();
        let request = read(&answered).unwrap().unwrap();
        assert!(request.searched);
        assert!(request.loaded.contains("fake_b"), "{:?}", request.loaded);
        // A namespace whose every function is deferred, and nothing else: every tool deferred.
        let hidden = json!({"model": "m", "input": "hi", "tools": [
            {"type": "namespace", "name": "n", "description": "d", "tools": [function("a", true)]}]});
        assert!(read(&hidden.to_string())
            .err()
            .unwrap()
            .message
            .contains("every tool is deferred"));
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
