//! V1–V3, the claims of a native lane: the catalogue went to the provider deferred and the
//! provider's own tool search (the mock's, over loopback) was to find the target.
//!
//! V1 the search loaded the target and the model called it, the turn answered, and every
//! replayed search result follows its search call · V2 nothing deferred reached the model
//! before a search loaded it: every catalogued fake tool is declared deferred, no request shows
//! a deferred tool's schema anywhere else in the body (the whole request is read, as C4 reads a
//! bridge lane's), every call names a tool that was loaded or never deferred, and the billed
//! input is below the whole body's · V3 each deferred declaration is the same bytes in every
//! request of the turn and the follow-up turn (a byte that moves breaks the provider's prompt
//! cache from there on).
//!
//! Everything is read from the requests the gateway sent: what the provider's search returned
//! comes back in the next request (the provider's own items, carried verbatim), so the journal
//! holds the whole exchange.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::known::KnownTool;
use super::{check, names, Check, ClaimInput};
use crate::provider::JournalRecord;

/// One step of a native turn as a request shows it.
#[derive(Debug, Clone, PartialEq)]
enum Step {
    /// A search result loaded these tools.
    Loaded(Vec<String>),
    /// The model called this tool.
    Called(String),
}

/// A native request as the claims read it.
struct NativeRequest {
    /// The deferred `tools[]` entries: name and exact bytes, in order.
    deferred: Vec<(String, String)>,
    /// The steps of the conversation so far, in order.
    steps: Vec<Step>,
}

#[derive(Deserialize)]
struct RawTools<'a> {
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
}

/// One `tools[]` entry (or a namespace's function), read for its deferral.
#[derive(Deserialize)]
struct ToolHead<'a> {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    defer_loading: Option<bool>,
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
}

fn read(record: &JournalRecord) -> Option<NativeRequest> {
    let RawTools { tools } = serde_json::from_str(&record.raw).ok()?;
    let mut deferred = Vec::new();
    if let Some(tools) = tools {
        deferred_entries(tools, &mut deferred)?;
    }
    Some(NativeRequest {
        deferred,
        steps: steps(&record.body),
    })
}

/// The deferred declarations of a `tools` list, with their exact bytes: the deferred entries,
/// and the deferred functions inside each OpenAI `namespace` (the namespace is never deferred
/// itself).
fn deferred_entries(list: &RawValue, out: &mut Vec<(String, String)>) -> Option<()> {
    let entries: Vec<&RawValue> = serde_json::from_str(list.get()).ok()?;
    for entry in entries {
        let head: ToolHead<'_> = serde_json::from_str(entry.get()).ok()?;
        match (head.kind.as_deref(), head.tools) {
            (Some("namespace"), Some(inner)) => deferred_entries(inner, out)?,
            _ if head.defer_loading == Some(true) => {
                out.push((head.name.unwrap_or_default(), entry.get().to_string()))
            }
            _ => {}
        }
    }
    Some(())
}

/// The function names a search result's `tools` loads: each function, and each function of a
/// namespace it carries.
fn loaded_names(tools: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for tool in tools.as_array().into_iter().flatten() {
        match tool["type"].as_str() {
            Some("namespace") => names.extend(loaded_names(&tool["tools"])),
            _ => names.extend(tool["name"].as_str().map(str::to_string)),
        }
    }
    names
}

/// The steps of a Responses `input` or a Messages `messages` list. A `tool_result` holding
/// `tool_reference` blocks is an Anthropic client-side search's result.
fn steps(body: &Value) -> Vec<Step> {
    let mut steps = Vec::new();
    let names = |list: &Value, key: &str| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter(|t| key != "tool_name" || t["type"] == "tool_reference")
            .filter_map(|t| t[key].as_str().map(str::to_string))
            .collect()
    };
    for item in body["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("tool_search_output") => steps.push(Step::Loaded(loaded_names(&item["tools"]))),
            Some("function_call") => steps.push(Step::Called(
                item["name"].as_str().unwrap_or_default().into(),
            )),
            _ => {}
        }
    }
    let blocks = body["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array().into_iter().flatten());
    for block in blocks {
        match block["type"].as_str() {
            Some("tool_search_tool_result") => steps.push(Step::Loaded(names(
                &block["content"]["tool_references"],
                "tool_name",
            ))),
            Some("tool_result") => {
                let references = names(&block["content"], "tool_name");
                if !references.is_empty() {
                    steps.push(Step::Loaded(references));
                }
            }
            Some("tool_use") => steps.push(Step::Called(
                block["name"].as_str().unwrap_or_default().into(),
            )),
            _ => {}
        }
    }
    steps
}

/// Every request of the lane, turn then follow-up, read; `None` for one that cannot be.
fn all_read(input: &ClaimInput<'_>) -> Vec<Option<NativeRequest>> {
    input
        .lane
        .observation
        .all_requests()
        .map(|r| read(r))
        .collect()
}

fn last_of_turn<'a>(input: &'a ClaimInput<'a>) -> Option<&'a Arc<JournalRecord>> {
    input.lane.observation.requests.last()
}

pub fn v1_target_found_and_called(input: &ClaimInput<'_>) -> Vec<Check> {
    let target = &input.scenario.target_tool;
    let steps = last_of_turn(input)
        .and_then(|r| read(r))
        .map(|r| r.steps)
        .unwrap_or_default();
    let loaded_at = steps
        .iter()
        .position(|s| matches!(s, Step::Loaded(names) if names.contains(target)));
    let called_at = steps
        .iter()
        .position(|s| matches!(s, Step::Called(name) if name == target));
    let shown: Vec<String> = steps.iter().map(show_step).collect();
    // A refusal first: it ended the lane, so it explains every check after it.
    let mut checks = vec![provider_accepted(input)];
    checks.extend(super::regression::reached_target(
        input.scenario,
        &input.lane.figures,
    ));
    checks.push(check(
        "search loaded the target",
        loaded_at.is_some(),
        format!("a search result of the turn loads {target}"),
        format!("steps: {}", shown.join(" → ")),
    ));
    checks.push(check(
        "target called after its search",
        matches!((loaded_at, called_at), (Some(l), Some(c)) if l < c),
        format!("the model calls {target} by name after the search that loaded it"),
        format!("steps: {}", shown.join(" → ")),
    ));
    checks.push(search_calls_carried(input));
    checks
}

/// The provider accepted every request the gateway sent: a refusal ended the lane (the
/// provider's error is the evidence; a malformed replay is the gateway's failure).
fn provider_accepted(input: &ClaimInput<'_>) -> Check {
    let refusal = input.lane.observation.refusal.as_ref();
    check(
        "provider accepted the requests",
        refusal.is_none(),
        "the provider accepts every request of the lane",
        format!(
            "the provider refused {}",
            refusal.map(|r| r.summary()).unwrap_or_default()
        ),
    )
}

/// Every request replays each search result after the search call it answers, as the provider
/// sent them (a result without its call is refused by both APIs). Read from the raw bytes: a
/// request the provider refused is journaled without a parsed body.
fn search_calls_carried(input: &ClaimInput<'_>) -> Check {
    let mut orphans = Vec::new();
    for (i, record) in input.lane.observation.all_requests().enumerate() {
        let body: Value = serde_json::from_str(&record.raw).unwrap_or(Value::Null);
        orphans.extend(
            orphan_results(&body)
                .into_iter()
                .map(|o| format!("request {}: {o}", i + 1)),
        );
    }
    check(
        "search call carried",
        orphans.is_empty(),
        "each replayed search result follows the search call it answers",
        format!("results without their call: {}", orphans.join("; ")),
    )
}

/// The search results of a Responses `input` or a Messages `messages` list that no search call
/// before them answers (OpenAI: a `tool_search_call` with the same `call_id`, or one not yet
/// answered when the output has none; Anthropic: a `server_tool_use` of the same message with
/// the result's `tool_use_id`).
fn orphan_results(body: &Value) -> Vec<String> {
    let mut orphans = Vec::new();
    let mut open: Vec<Option<&str>> = Vec::new();
    for (j, item) in body["input"].as_array().into_iter().flatten().enumerate() {
        let call_id = item["call_id"].as_str();
        match item["type"].as_str() {
            Some("tool_search_call") => open.push(call_id),
            Some("tool_search_output") => {
                let at = open.iter().position(|c| call_id.is_none() || *c == call_id);
                match at {
                    Some(at) => {
                        open.remove(at);
                    }
                    None => orphans.push(format!("input[{j}] tool_search_output")),
                }
            }
            _ => {}
        }
    }
    let messages = body["messages"].as_array().into_iter().flatten();
    for (m, message) in messages.enumerate() {
        let mut calls: Vec<&str> = Vec::new();
        for (c, block) in message["content"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            match block["type"].as_str() {
                Some("server_tool_use") => calls.extend(block["id"].as_str()),
                Some("tool_search_tool_result") => {
                    let id = block["tool_use_id"].as_str().unwrap_or_default();
                    if !calls.contains(&id) {
                        orphans.push(format!(
                            "messages[{m}].content[{c}] tool_search_tool_result {id}"
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    orphans
}

fn show_step(step: &Step) -> String {
    match step {
        Step::Loaded(names) => format!("search loaded [{}]", names.join(", ")),
        Step::Called(name) => format!("call {name}"),
    }
}

pub fn v2_nothing_loaded_before_search(input: &ClaimInput<'_>) -> Vec<Check> {
    let reads = all_read(input);
    let catalog = &input.scenario.catalog;
    let fake: Vec<String> = catalog
        .fake_tools()
        .into_iter()
        .filter(|t| !catalog.direct_only.contains(&t.name))
        .filter(|t| input.scenario.policy.allows(&t.name, &t.id))
        .map(|t| t.name)
        .collect();
    let first = reads.first().and_then(Option::as_ref);
    let deferred: Vec<&str> = first
        .map(|r| r.deferred.iter().map(|(n, _)| n.as_str()).collect())
        .unwrap_or_default();
    let not_deferred: Vec<&String> = fake
        .iter()
        .filter(|n| !deferred.contains(&n.as_str()))
        .collect();
    let mut checks = vec![check(
        "catalogue deferred",
        first.is_some() && not_deferred.is_empty(),
        format!(
            "the first request declares all {} catalogued fake tools with defer_loading",
            fake.len()
        ),
        format!("not deferred: {}", names(&not_deferred)),
    )];
    let mut early = Vec::new();
    for (i, read) in reads.iter().enumerate() {
        let Some(read) = read else { continue };
        let mut loaded: Vec<&str> = Vec::new();
        for step in &read.steps {
            match step {
                Step::Loaded(names) => loaded.extend(names.iter().map(String::as_str)),
                Step::Called(name) => {
                    let deferred = read.deferred.iter().any(|(n, _)| n == name);
                    if deferred && !loaded.contains(&name.as_str()) {
                        early.push(format!("request {}: {name}", i + 1));
                    }
                }
            }
        }
    }
    checks.push(check(
        "no call before its search",
        early.is_empty(),
        "every call names a tool a search loaded before it, or one never deferred",
        format!("called before any search loaded it: {}", early.join("; ")),
    ));
    checks.push(schema_leaks(input));
    checks.extend(billed_checks(input));
    checks
}

/// What the provider billed: each request's `usage.input_tokens` below the whole body's count
/// (o200k_base), so the deferred schemas were held back. Whether the figure is exactly the
/// provider's rule is the mock's own unit tests' business: recounting it here with the mock's
/// function would only compare that function with itself.
fn billed_checks(input: &ClaimInput<'_>) -> Vec<Check> {
    let records: Vec<&Arc<JournalRecord>> = input.lane.observation.all_requests().collect();
    let mut wrong = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let billed = record.input_tokens;
        let whole = crate::protocol::usage::count_tokens(&record.raw)
            .ok()
            .map(|n| n as u64);
        if !matches!((billed, whole), (Some(b), Some(w)) if b < w) {
            wrong.push(format!(
                "request {}: billed {}, whole body {}",
                i + 1,
                super::show(billed),
                super::show(whole)
            ));
        }
    }
    vec![check(
        "billed below the whole body",
        !records.is_empty() && wrong.is_empty(),
        "every request's usage.input_tokens is below the whole body's token count",
        wrong.join("; "),
    )]
}

/// V2's reading of the whole request: no schema of a catalogued tool that is deferred and not
/// yet loaded shows anywhere the model reads — the instructions or system text, a message, a
/// tool output, a non-deferred tool's description or schema. The deferred declarations
/// themselves and what a search result carries (OpenAI's `tool_search_output`) are where a
/// schema belongs; texts a non-deferred known tool shares do not count.
fn schema_leaks(input: &ClaimInput<'_>) -> Check {
    let known = super::known::known_tools(input.scenario, input.lane.target);
    let mut leaks = Vec::new();
    let mut unreadable = Vec::new();
    for (i, record) in input.lane.observation.all_requests().enumerate() {
        let Ok(body) = serde_json::from_str::<Value>(&record.raw) else {
            unreadable.push(format!("request {}: not JSON", i + 1));
            continue;
        };
        let (read, deferred, visible) = what_the_model_reads(&body);
        let loaded: Vec<String> = steps(&body)
            .into_iter()
            .flat_map(|s| match s {
                Step::Loaded(names) => names,
                Step::Called(_) => Vec::new(),
            })
            .collect();
        let kept: Vec<&KnownTool> = known
            .iter()
            .filter(|t| visible.contains(&t.name) || !deferred.contains(&t.name))
            .collect();
        let shared = |mark: &str| {
            kept.iter()
                .any(|k| k.description.contains(mark) || k.parameters.to_string().contains(mark))
        };
        let hidden = known
            .iter()
            .filter(|t| deferred.contains(&t.name))
            .filter(|t| !visible.contains(&t.name) && !loaded.contains(&t.name));
        for tool in hidden {
            let shown = tool
                .schema_marks()
                .into_iter()
                .any(|m| !shared(&m) && shows(&read, &m));
            if shown {
                leaks.push(format!("request {}: {}", i + 1, tool.name));
            }
        }
    }
    leaks.extend(unreadable);
    check(
        "no deferred schema in view",
        leaks.is_empty(),
        "no request shows a deferred, unloaded tool's schema outside its deferred declaration \
         (instructions, system, messages, outputs, other tools)",
        format!("shown: {}", leaks.join("; ")),
    )
}

/// A request as the model reads it before any search: the body as JSON text without its
/// deferred `tools[]` entries and without OpenAI's `tool_search_output` items; the names of the
/// deferred tools, and of the tools declared in full (a tool may be both: in view, then).
fn what_the_model_reads(body: &Value) -> (String, Vec<String>, Vec<String>) {
    let mut body = body.clone();
    let mut deferred = Vec::new();
    let mut visible = Vec::new();
    if let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain_mut(|t| {
            if t["type"] != "namespace" {
                return in_view(t, &mut deferred, &mut visible);
            }
            // A namespace stays in view (its name and description); its deferred functions
            // do not.
            if let Some(inner) = t.get_mut("tools").and_then(Value::as_array_mut) {
                inner.retain(|f| in_view(f, &mut deferred, &mut visible));
            }
            true
        });
    }
    if let Some(items) = body.get_mut("input").and_then(Value::as_array_mut) {
        items.retain(|item| item["type"] != "tool_search_output");
    }
    (body.to_string(), deferred, visible)
}

/// Whether the model sees `tool` before a search (it is not deferred); its name joins
/// `deferred` or `visible`.
fn in_view(tool: &Value, deferred: &mut Vec<String>, visible: &mut Vec<String>) -> bool {
    let is_deferred = tool["defer_loading"] == Value::Bool(true);
    let names = match is_deferred {
        true => deferred,
        false => visible,
    };
    names.extend(tool["name"].as_str().map(str::to_string));
    !is_deferred
}

/// Whether `mark` shows in `text` (as raw JSON, or escaped inside a string).
fn shows(text: &str, mark: &str) -> bool {
    let quoted = Value::from(mark).to_string();
    text.contains(mark) || text.contains(&quoted[1..quoted.len() - 1])
}

pub fn v3_deferred_catalogue_stable(input: &ClaimInput<'_>) -> Vec<Check> {
    let reads = all_read(input);
    let unreadable: Vec<usize> = reads
        .iter()
        .enumerate()
        .filter(|(_, r)| r.is_none())
        .map(|(i, _)| i + 1)
        .collect();
    let mut checks = vec![check(
        "readable",
        !reads.is_empty() && unreadable.is_empty(),
        "every request body is JSON with a readable tools[]",
        format!("{} requests; unreadable: {unreadable:?}", reads.len()),
    )];
    let reads: Vec<&NativeRequest> = reads.iter().flatten().collect();
    let Some((first, rest)) = reads.split_first() else {
        return checks;
    };
    let mut moved = Vec::new();
    for (i, read) in rest.iter().enumerate() {
        if read.deferred.len() != first.deferred.len() {
            moved.push(format!(
                "request {}: {} deferred tools, the first had {}",
                i + 2,
                read.deferred.len(),
                first.deferred.len()
            ));
            continue;
        }
        let differs = read
            .deferred
            .iter()
            .zip(&first.deferred)
            .find(|(a, b)| a != b);
        if let Some(((name, _), _)) = differs {
            moved.push(format!("request {}: {name}", i + 2));
        }
    }
    checks.push(check(
        "deferred bytes",
        moved.is_empty() && !first.deferred.is_empty(),
        format!(
            "requests 2..{} repeat the first request's {} deferred declarations byte for byte, in order",
            reads.len(),
            first.deferred.len()
        ),
        format!("differs: {}", moved.join("; ")),
    ));
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn steps_are_read_from_both_protocols() {
        let openai = json!({"input": [
            {"type": "tool_search_call", "execution": "server"},
            {"type": "tool_search_output", "tools": [{"type": "function", "name": "a"}, {"type": "function", "name": "b"}]},
            {"type": "function_call", "name": "b", "call_id": "c", "arguments": "{}"},
        ]});
        let expected = vec![
            Step::Loaded(vec!["a".into(), "b".into()]),
            Step::Called("b".into()),
        ];
        assert_eq!(steps(&openai), expected);
        let anthropic = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "s", "name": "tool_search_tool_bm25", "input": {}},
                {"type": "tool_search_tool_result", "tool_use_id": "s", "content": {"type": "tool_search_tool_search_result",
                    "tool_references": [{"type": "tool_reference", "tool_name": "a"}, {"type": "tool_reference", "tool_name": "b"}]}},
                {"type": "tool_use", "id": "t", "name": "b", "input": {}},
            ]},
        ]});
        assert_eq!(steps(&anthropic), expected);
        assert_eq!(orphan_results(&openai), Vec::<String>::new());
        assert_eq!(orphan_results(&anthropic), Vec::<String>::new());
    }

    #[test]
    fn namespaces_and_client_references_are_read() {
        let function =
            |name: &str| json!({"type": "function", "name": name, "defer_loading": true});
        let openai = json!({"tools": [
            {"type": "tool_search"},
            {"type": "namespace", "name": "n", "description": "d", "tools": [function("a"), {"type": "function", "name": "v"}]},
        ], "input": [
            {"type": "tool_search_output", "tools": [{"type": "namespace", "name": "n", "description": "d", "tools": [function("a")]}]},
            {"type": "function_call", "name": "a", "namespace": "n", "call_id": "c", "arguments": "{}"},
        ]});
        assert_eq!(
            steps(&openai),
            [Step::Loaded(vec!["a".into()]), Step::Called("a".into())]
        );
        let mut deferred = Vec::new();
        let tools = serde_json::to_string(&openai["tools"]).unwrap();
        let tools: &RawValue = serde_json::from_str(&tools).unwrap();
        deferred_entries(tools, &mut deferred).unwrap();
        assert_eq!(deferred, [("a".to_string(), function("a").to_string())]);
        let (read, hidden, shown) = what_the_model_reads(&openai);
        assert_eq!(
            (hidden, shown),
            (vec!["a".to_string()], vec!["v".to_string()])
        );
        assert!(
            read.contains(r#""description":"d""#) && !read.contains("defer_loading"),
            "{read}"
        );
        let anthropic = json!({"messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "tool_search", "input": {"query": "a"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                "content": [{"type": "tool_reference", "tool_name": "a"}]}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "FAKE_PLUGIN_OK a"}]},
        ]});
        assert_eq!(
            steps(&anthropic),
            [
                Step::Called("tool_search".into()),
                Step::Loaded(vec!["a".into()])
            ]
        );
    }

    #[test]
    fn a_result_without_its_call_is_an_orphan() {
        let openai = json!({"input": [
            {"type": "tool_search_call", "call_id": "c1", "execution": "client"},
            {"type": "tool_search_output", "call_id": "c1", "tools": []},
            {"type": "tool_search_output", "call_id": "c2", "tools": []},
            {"type": "tool_search_output", "call_id": null, "tools": []},
        ]});
        assert_eq!(
            orphan_results(&openai),
            ["input[2] tool_search_output", "input[3] tool_search_output"]
        );
        let anthropic = json!({"messages": [
            {"role": "assistant", "content": [
                {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_bm25", "input": {}},
                {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": {}}]},
            {"role": "assistant", "content": [
                {"type": "tool_search_tool_result", "tool_use_id": "s1", "content": {}}]},
        ]});
        assert_eq!(
            orphan_results(&anthropic),
            ["messages[1].content[0] tool_search_tool_result s1"]
        );
    }
}
