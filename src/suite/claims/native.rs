//! V1–V3, the claims of a native lane: the catalogue went to the provider deferred and the
//! provider's own tool search (the mock's, over loopback) was to find the target.
//!
//! V1 the search loaded the target and the model called it, the turn answered · V2 nothing
//! deferred reached the model before a search loaded it: every catalogued fake tool is declared
//! deferred, every call names a tool that was loaded or never deferred, and the provider billed
//! the request without the deferred schemas · V3 each deferred declaration is the same bytes in
//! every request of the turn and the follow-up turn (a byte that moves breaks the provider's
//! prompt cache from there on).
//!
//! Everything is read from the requests the gateway sent: what the provider's search returned
//! comes back in the next request (the provider's own items, carried verbatim), so the journal
//! holds the whole exchange.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{check, names, Check, ClaimInput};
use crate::provider::native::billed_input_tokens;
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

fn read(record: &JournalRecord) -> Option<NativeRequest> {
    let RawTools { tools } = serde_json::from_str(&record.raw).ok()?;
    let entries: Vec<&RawValue> = match tools {
        Some(tools) => serde_json::from_str(tools.get()).ok()?,
        None => Vec::new(),
    };
    let mut deferred = Vec::new();
    for entry in entries {
        let value: Value = serde_json::from_str(entry.get()).ok()?;
        if value["defer_loading"] == Value::Bool(true) {
            let name = value["name"].as_str().unwrap_or_default().to_string();
            deferred.push((name, entry.get().to_string()));
        }
    }
    Some(NativeRequest {
        deferred,
        steps: steps(&record.body),
    })
}

/// The steps of a Responses `input` or a Messages `messages` list.
fn steps(body: &Value) -> Vec<Step> {
    let mut steps = Vec::new();
    let names = |list: &Value, key: &str| -> Vec<String> {
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t[key].as_str().map(str::to_string))
            .collect()
    };
    for item in body["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("tool_search_output") => steps.push(Step::Loaded(names(&item["tools"], "name"))),
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
    let mut checks = super::regression::reached_target(input.scenario, &input.lane.figures);
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
    checks
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
    checks.extend(billed_checks(input));
    checks
}

/// The provider's usage view: each request billed without the deferred schemas (the mock's
/// `usage.input_tokens`, against the same view counted again, and below the whole body).
fn billed_checks(input: &ClaimInput<'_>) -> Vec<Check> {
    let records: Vec<&Arc<JournalRecord>> = input.lane.observation.all_requests().collect();
    let mut wrong = Vec::new();
    for (i, record) in records.iter().enumerate() {
        let billed = record.input_tokens;
        let view = billed_input_tokens(record.protocol, &record.raw).ok();
        let whole = crate::protocol::usage::count_tokens(&record.raw)
            .ok()
            .map(|n| n as u64);
        let fine = matches!((billed, view, whole), (Some(b), Some(v), Some(w)) if b == v && b < w);
        if !fine {
            wrong.push(format!(
                "request {}: billed {}, view {}, whole body {}",
                i + 1,
                super::show(billed),
                super::show(view),
                super::show(whole)
            ));
        }
    }
    vec![check(
        "billed without deferred schemas",
        !records.is_empty() && wrong.is_empty(),
        "every request's usage.input_tokens is its count without the deferred schemas, below the whole body's",
        wrong.join("; "),
    )]
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
    }
}
