//! I1, upstream's non-model invoke batch: `POST /tools/invoke` runs the surface's search control
//! with the lane's scripted batch (no model in between) and answers `{ok: true, result}`; the
//! result has one group per query, in query order, each with exactly one candidate naming the
//! query's tool, and so finds the target. The queries are the request the lane sent (made from
//! the scenario's script, never from the answer). With a `tool` (openclaw/openclaw#93400:
//! `read` answered 404 although allowed), the invoke runs that tool with the claim's `args`:
//! it is found (no 404 `not_found`) and answers HTTP 200 `{ok: true, result}` with text.

use serde_json::Value;

use super::batch::{candidate_name, groups_check, parsed};
use super::{check, show, Check, ClaimInput};
use crate::drive::invoke::Invoked;

pub fn i1_invoke_batch(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let Some(invoked) = &o.observation.invoke else {
        return vec![check(
            "invoke batch",
            false,
            format!(
                "the lane's script runs a batch {} (`queries`) for the invoke to send",
                o.bridge.search
            ),
            "it runs none, so nothing was invoked",
        )];
    };
    if let Some(tool) = input.spec.and_then(|s| s.tool.as_deref()) {
        return vec![
            tool_found_check(tool, invoked),
            answered_check(invoked),
            text_check(invoked),
        ];
    }
    let queries = queries_of(invoked);
    let result = search_result(invoked);
    let target = &input.scenario.target_tool;
    vec![
        answered_check(invoked),
        groups_check(&queries, result.as_deref()),
        found_check(target, result.as_deref()),
    ]
}

/// The query strings the invoke sent.
fn queries_of(invoked: &Invoked) -> Vec<String> {
    invoked.request.args["queries"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|q| q["query"].as_str().map(str::to_string))
        .collect()
}

/// The search result the answer carries, as JSON text: the tool result's `details` when they
/// hold the groups, else its text (read inside an untrusted-content envelope).
fn search_result(invoked: &Invoked) -> Option<String> {
    let result = invoked.answer.as_ref().ok()?.result.as_ref()?;
    if result["details"]["results"].is_array() {
        return Some(result["details"].to_string());
    }
    result["content"]
        .as_array()?
        .iter()
        .find_map(|part| part["text"].as_str().map(str::to_string))
}

fn answered_check(invoked: &Invoked) -> Check {
    let expected = format!(
        "POST /tools/invoke {} answers HTTP 200 {{ok: true, result}}",
        invoked.request.name
    );
    let actual = match &invoked.answer {
        Err(e) => e.clone(),
        Ok(answer) => format!(
            "HTTP {} ok {} error {}",
            invoked.status,
            answer.ok,
            show(
                answer
                    .error
                    .as_ref()
                    .map(|e| format!("{}: {}", e.kind, e.message))
            )
        ),
    };
    let ok = invoked.status == 200
        && invoked
            .answer
            .as_ref()
            .is_ok_and(|a| a.ok && a.result.is_some());
    check("invoke answered", ok, expected, actual)
}

/// The named tool is found: no HTTP 404 and no `not_found` error (any other answer, even a
/// refusal of the arguments, means the gateway has the tool).
fn tool_found_check(tool: &str, invoked: &Invoked) -> Check {
    let kind = invoked
        .answer
        .as_ref()
        .ok()
        .and_then(|a| a.error.as_ref())
        .map(|e| e.kind.as_str());
    let found = invoked.status != 0 && invoked.status != 404 && kind != Some("not_found");
    let actual = match &invoked.answer {
        Err(e) => e.clone(),
        Ok(_) => format!("HTTP {} error type {}", invoked.status, show(kind)),
    };
    check(
        "tool found",
        found,
        format!("POST /tools/invoke finds {tool} (not HTTP 404 not_found)"),
        actual,
    )
}

/// The answer carries the tool's text: a text part of the result's `content`, not empty.
fn text_check(invoked: &Invoked) -> Check {
    let texts: Vec<&str> = invoked
        .answer
        .as_ref()
        .ok()
        .and_then(|a| a.result.as_ref())
        .and_then(|r| r["content"].as_array())
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|part| part["text"].as_str())
        .collect();
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    check(
        "tool answered",
        bytes > 0,
        format!("the result of {} has text content", invoked.request.name),
        format!("{} text parts, {bytes} bytes", texts.len()),
    )
}

fn found_check(target: &str, result: Option<&str>) -> Check {
    let names: Vec<String> = result
        .and_then(parsed)
        .map(|value| candidate_names(&value))
        .unwrap_or_default();
    check(
        "target found",
        names.iter().any(|n| n == target),
        format!("a candidate of the invoke batch names {target}"),
        format!("candidates: {}", super::names(&names)),
    )
}

fn candidate_names(value: &Value) -> Vec<String> {
    value["results"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .flat_map(|g| g["candidates"].as_array().map_or(&[][..], Vec::as_slice))
        .filter_map(|c| candidate_name(c).map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::super::fixture::{fails, holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::I1;
    use crate::drive::invoke::Invoked;
    use crate::protocol::invoke::{InvokeAnswer, InvokeRequest};

    const SECONDARY: &str = "fake_plugin_tool_03";

    fn group(query: &str, names: &[&str]) -> Value {
        let candidates: Vec<_> = names
            .iter()
            .map(|n| json!({ "id": format!("openclaw:p:{n}"), "name": n }))
            .collect();
        json!({ "query": query, "candidates": candidates })
    }

    /// The tools lane with I1 named and an invoke answered `status`, `answer`.
    fn invoked(status: u16, answer: Result<InvokeAnswer, String>) -> Fixture {
        let mut f = Fixture::passing_reference()
            .scenario_extra("[[claims]]\nid = 'I1'\nlanes = ['tools']\n");
        let queries = json!([{ "query": TARGET, "limit": 1 }, { "query": SECONDARY, "limit": 1 }]);
        f.lane("tools").invoke = Some(Invoked {
            request: InvokeRequest {
                name: "tool_search".into(),
                args: json!({ "queries": queries }),
                session_key: "k-tools".into(),
            },
            status,
            answer,
        });
        f
    }

    /// The product's result of a batch search: its text and its details.
    fn result(groups: Value) -> InvokeAnswer {
        let details = json!({ "results": groups });
        InvokeAnswer::success(json!({
            "content": [{ "type": "text", "text": details.to_string() }],
            "details": details,
        }))
    }

    fn ok_groups() -> Value {
        json!([group(TARGET, &[TARGET]), group(SECONDARY, &[SECONDARY])])
    }

    #[test]
    fn holds_on_two_groups_in_query_order_that_find_the_target() {
        let f = invoked(200, Ok(result(ok_groups())));
        assert!(holds(&f, I1, "tools"), "{:?}", verdict(&f, I1, "tools"));
        assert_eq!(verdict(&f, I1, "tools").checks, 3);
    }

    #[test]
    fn reads_the_groups_from_the_text_when_the_details_lack_them() {
        let text = json!({ "results": ok_groups() }).to_string();
        let answer =
            InvokeAnswer::success(json!({ "content": [{ "type": "text", "text": text }] }));
        assert!(holds(&invoked(200, Ok(answer)), I1, "tools"));
    }

    #[test]
    fn fails_on_a_lost_group_or_a_missing_target() {
        let one = json!([group(TARGET, &[TARGET])]);
        let f = invoked(200, Ok(result(one)));
        let v = verdict(&f, I1, "tools");
        assert_eq!(v.failures.len(), 1, "{v:?}");
        assert_eq!(
            v.failures[0].actual,
            format!("1 groups: {TARGET} [{TARGET}]")
        );
        let wrong = json!([
            group(TARGET, &["fake_plugin_tool_18"]),
            group(SECONDARY, &[SECONDARY])
        ]);
        let v = verdict(&invoked(200, Ok(result(wrong))), I1, "tools");
        let checks: Vec<&str> = v.failures.iter().map(|c| c.check.as_str()).collect();
        assert_eq!(checks, ["groups", "target found"]);
    }

    #[test]
    fn fails_on_the_products_not_found_answer_and_on_no_answer() {
        let not_found = InvokeAnswer::failure("not_found", "Tool not available: tool_search");
        let v = verdict(&invoked(404, Ok(not_found)), I1, "tools");
        assert_eq!(
            v.failures[0].actual,
            "HTTP 404 ok false error not_found: Tool not available: tool_search"
        );
        assert_eq!(v.failures.len(), 3);
        let gone = invoked(0, Err("POST http://x/tools/invoke: refused".into()));
        assert_eq!(
            verdict(&gone, I1, "tools").failures[0].actual,
            "POST http://x/tools/invoke: refused"
        );
    }

    /// The tools lane with I1 naming a tool (the fixture's catalogue has no core tools) and an
    /// invoke of it answered `status`, `answer`.
    fn invoked_read(status: u16, answer: Result<InvokeAnswer, String>) -> Fixture {
        let mut f = Fixture::passing_reference().scenario_extra(
            "[[claims]]\nid = 'I1'\ntool = 'fake_plugin_tool_03'\nargs = { marker = 'm' }\nlanes = ['tools']\n",
        );
        f.lane("tools").invoke = Some(Invoked {
            request: InvokeRequest {
                name: SECONDARY.into(),
                args: json!({ "marker": "m" }),
                session_key: "k-tools".into(),
            },
            status,
            answer,
        });
        f
    }

    #[test]
    fn a_named_tool_holds_when_found_and_answering_with_text() {
        let answer = InvokeAnswer::success(json!({
            "content": [{ "type": "text", "text": "FAKE_PLUGIN_OK" }],
        }));
        let f = invoked_read(200, Ok(answer));
        assert!(holds(&f, I1, "tools"), "{:?}", verdict(&f, I1, "tools"));
        assert_eq!(verdict(&f, I1, "tools").checks, 3);
    }

    #[test]
    fn a_named_tool_fails_on_not_found_and_on_an_empty_answer() {
        let not_found = InvokeAnswer::failure("not_found", "Tool not available: x");
        let v = verdict(&invoked_read(404, Ok(not_found)), I1, "tools");
        let checks: Vec<&str> = v.failures.iter().map(|c| c.check.as_str()).collect();
        assert_eq!(checks, ["tool found", "invoke answered", "tool answered"]);
        assert_eq!(v.failures[0].actual, "HTTP 404 error type not_found");
        let empty = InvokeAnswer::success(json!({ "content": [{ "type": "text", "text": "" }] }));
        let v = verdict(&invoked_read(200, Ok(empty)), I1, "tools");
        let checks: Vec<&str> = v.failures.iter().map(|c| c.check.as_str()).collect();
        assert_eq!(checks, ["tool answered"]);
        assert_eq!(v.failures[0].actual, "1 text parts, 0 bytes");
        let refused = InvokeAnswer::failure("tool_error", "path required");
        let v = verdict(&invoked_read(400, Ok(refused)), I1, "tools");
        let checks: Vec<&str> = v.failures.iter().map(|c| c.check.as_str()).collect();
        assert_eq!(checks, ["invoke answered", "tool answered"]);
    }

    #[test]
    fn a_lane_that_ran_no_invoke_fails() {
        let f = Fixture::passing_reference()
            .scenario_extra("[[claims]]\nid = 'I1'\nlanes = ['tools']\n");
        assert_eq!(fails(&f, I1, "tools").len(), 1);
    }
}
