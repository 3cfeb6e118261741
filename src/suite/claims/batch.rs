//! B1, upstream's batch lane: one `tool_search` with several queries, then exactly one bridge
//! call. The queries are the lane's script's (the scenario's, never the observation's); the
//! search result the model was given has one group per query, in query order, each with exactly
//! one candidate naming the query's tool; the call's result names the target and carries
//! details `{status: "ok", tool: <target>}`; the session log has the search's and the call's
//! results. What the model saw is read from the provider's side (the tool output each request
//! carried), so it is the same evidence on every target.

use serde_json::Value;

use super::{check, Check, ClaimInput};
use crate::config::Bridge;
use crate::drive::observation::planned_wire_tool;
use crate::protocol::envelope;
use crate::protocol::ToolResultRecord;
use crate::scenario::{Lane, Scenario};

pub fn b1_batch_search(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let bridge = &o.bridge;
    let Some(queries) = scripted_queries(input.scenario, o.lane, bridge) else {
        return vec![check(
            "batch scripted",
            false,
            format!(
                "the lane's script runs a batch {} (`queries`)",
                bridge.search
            ),
            "it runs none",
        )];
    };
    let target = &input.scenario.target_tool;
    let wire = o.planned_on_wire();
    let path = [bridge.search.clone(), bridge.call.clone()];
    // The request that carries the search's result is the one that planned the call; the next
    // tool output after it is the call's result.
    let requests = &o.observation.requests;
    let call_at = requests
        .iter()
        .position(|r| planned_wire_tool(r).as_deref() == Some(bridge.call.as_str()));
    let search_output = call_at.and_then(|i| requests[i].tool_output.clone());
    let call_output =
        call_at.and_then(|i| requests[i + 1..].iter().find_map(|r| r.tool_output.clone()));
    vec![
        check(
            "one search, one call",
            wire == path,
            format!("planned on the wire exactly {} → {}", path[0], path[1]),
            wire.join(" → "),
        ),
        groups_check(&queries, search_output.as_deref()),
        call_check(target, call_output.as_deref()),
        log_check(input, bridge),
    ]
}

/// The query strings of the first batch search the lane's script runs.
fn scripted_queries(scenario: &Scenario, lane: &Lane, bridge: &Bridge) -> Option<Vec<String>> {
    let steps = lane.script(scenario)?;
    let arguments = steps
        .iter()
        .filter(|s| s.tool.as_deref() == Some(bridge.search.as_str()))
        .find_map(|s| s.arguments.as_ref()?.get("queries")?.as_array().cloned())?;
    arguments
        .iter()
        .map(|q| q.get("query")?.as_str().map(str::to_string))
        .collect()
}

/// A tool output as JSON, read inside an untrusted-content envelope when it has one.
pub(super) fn parsed(output: &str) -> Option<Value> {
    serde_json::from_str(envelope::unwrap(output).unwrap_or(output)).ok()
}

/// A candidate's tool name: its `name`, else the last part of its `id`.
pub(super) fn candidate_name(candidate: &Value) -> Option<&str> {
    candidate["name"]
        .as_str()
        .or_else(|| candidate["id"].as_str()?.rsplit(':').next())
}

pub(super) fn groups_check(queries: &[String], output: Option<&str>) -> Check {
    let expected = format!(
        "the search result has {} groups in query order ({}), each with exactly one candidate, \
         the query's tool",
        queries.len(),
        queries.join(", ")
    );
    let Some(value) = output.and_then(parsed) else {
        return check(
            "groups",
            false,
            expected,
            format!("no JSON search result: {}", output.unwrap_or("none")),
        );
    };
    let groups: &[Value] = value["results"].as_array().map_or(&[], Vec::as_slice);
    let seen: Vec<String> = groups
        .iter()
        .map(|g| {
            let names: Vec<&str> = g["candidates"]
                .as_array()
                .map_or(&[][..], Vec::as_slice)
                .iter()
                .map(|c| candidate_name(c).unwrap_or("?"))
                .collect();
            format!(
                "{} [{}]",
                g["query"].as_str().unwrap_or("?"),
                names.join(", ")
            )
        })
        .collect();
    let want: Vec<String> = queries.iter().map(|q| format!("{q} [{q}]")).collect();
    check(
        "groups",
        seen == want,
        expected,
        format!("{} groups: {}", seen.len(), seen.join("; ")),
    )
}

fn call_check(target: &str, output: Option<&str>) -> Check {
    let expected = format!(
        "the call's result names {target} and has details {{status: \"ok\", tool: {target:?}}}"
    );
    let Some(value) = output.and_then(parsed) else {
        return check(
            "call result",
            false,
            expected,
            format!("no JSON call result: {}", output.unwrap_or("none")),
        );
    };
    let tool = value["tool"]
        .as_str()
        .or_else(|| value["tool"]["name"].as_str());
    let details = &value["result"]["details"];
    let ok = tool == Some(target) && details["status"] == "ok" && details["tool"] == target;
    check(
        "call result",
        ok,
        expected,
        format!(
            "tool {}, details {}",
            tool.unwrap_or("none"),
            serde_json::json!({ "status": details["status"], "tool": details["tool"] })
        ),
    )
}

/// The session log has the search's result, the call's, and the target's bridged result.
fn log_check(input: &ClaimInput<'_>, bridge: &Bridge) -> Check {
    let target = &input.scenario.target_tool;
    let results: Vec<&ToolResultRecord> = input.lane.tool_results().collect();
    let has = |name: &str| results.iter().any(|r| r.tool_name() == name);
    let bridged = results
        .iter()
        .any(|r| matches!(r, ToolResultRecord::Bridged(b) if b.tool_name == *target));
    let mut missing: Vec<&str> = [bridge.search.as_str(), bridge.call.as_str()]
        .into_iter()
        .filter(|n| !has(n))
        .collect();
    if !bridged {
        missing.push(target);
    }
    check(
        "log",
        missing.is_empty(),
        format!(
            "the session log has results of {}, {} and the bridged {target}",
            bridge.search, bridge.call
        ),
        format!("none of {}", missing.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixture::{fails, holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::B1;

    const SECONDARY: &str = "fake_plugin_tool_03";

    fn group(query: &str, names: &[&str]) -> serde_json::Value {
        let candidates: Vec<_> = names
            .iter()
            .map(|n| json!({ "id": format!("openclaw:p:{n}"), "name": n }))
            .collect();
        json!({ "query": query, "candidates": candidates })
    }

    /// A batch lane that holds: the script's two queries, their groups, the call's envelope.
    fn batch(groups: serde_json::Value, call: serde_json::Value) -> Fixture {
        let script = format!(
            "[[lanes.script]]\ntool = 'tool_search'\narguments = {{ queries = [{{ query = '{TARGET}', limit = 1 }}, {{ query = '{SECONDARY}', limit = 1 }}] }}\n\
             [[lanes.script]]\ntool = 'tool_call'\narguments = {{ id = '{TARGET}', args = {{ marker = 'b' }} }}\n\
             [[lanes.script]]\ntext = 'done'\n"
        );
        let mut f = Fixture::passing_reference()
            .lane_extra("tools", &script)
            .scenario_extra("[[claims]]\nid = 'B1'\nlanes = ['tools']\n");
        let lane = f.lane("tools");
        lane.tool_outputs = vec![
            (1, json!({ "results": groups }).to_string()),
            (2, call.to_string()),
        ];
        lane.records.extend([
            json!({ "type": "toolResult", "toolCallId": "c1", "toolName": "tool_search",
                "source": "openclaw", "isError": false, "output": "{}" }),
            json!({ "type": "toolResult", "toolCallId": "call_2", "toolName": "tool_call",
                "source": "openclaw", "isError": false, "output": "{}" }),
        ]);
        f
    }

    fn ok_call() -> serde_json::Value {
        json!({ "tool": { "name": TARGET }, "result": { "details": { "status": "ok", "tool": TARGET } } })
    }

    fn ok_groups() -> serde_json::Value {
        json!([group(TARGET, &[TARGET]), group(SECONDARY, &[SECONDARY])])
    }

    #[test]
    fn holds_on_a_batch_search_and_one_call() {
        let f = batch(ok_groups(), ok_call());
        assert!(holds(&f, B1, "tools"), "{:?}", verdict(&f, B1, "tools"));
        assert_eq!(verdict(&f, B1, "tools").checks, 4);
    }

    #[test]
    fn fails_on_groups_out_of_order_or_with_more_candidates() {
        let swapped = json!([group(SECONDARY, &[SECONDARY]), group(TARGET, &[TARGET])]);
        let f = batch(swapped, ok_call());
        let v = verdict(&f, B1, "tools");
        assert_eq!(v.failures.len(), 1);
        assert_eq!(
            v.failures[0].actual,
            format!("2 groups: {SECONDARY} [{SECONDARY}]; {TARGET} [{TARGET}]")
        );
        let two = json!([
            group(TARGET, &[TARGET, "fake_plugin_tool_18"]),
            group(SECONDARY, &[SECONDARY])
        ]);
        assert_eq!(
            verdict(&batch(two, ok_call()), B1, "tools").failures[0].check,
            "groups"
        );
        let one = json!([group(TARGET, &[TARGET])]);
        assert_eq!(
            verdict(&batch(one, ok_call()), B1, "tools").failures[0].check,
            "groups"
        );
    }

    #[test]
    fn fails_on_a_call_result_without_the_targets_ok_details() {
        let wrong = json!({ "tool": { "name": TARGET }, "result": { "details": { "status": "error", "tool": TARGET } } });
        let f = batch(ok_groups(), wrong);
        assert_eq!(
            fails(&f, B1, "tools"),
            [format!(
                "the call's result names {TARGET} and has details {{status: \"ok\", tool: \"{TARGET}\"}}"
            )]
        );
    }

    #[test]
    fn fails_on_a_second_search_or_a_missing_log_record() {
        let mut f = batch(ok_groups(), ok_call());
        let body = f.lane("tools").requests[0].0.clone();
        f.lane("tools")
            .requests
            .insert(1, (body, Some("tool_search".into())));
        assert_eq!(
            verdict(&f, B1, "tools").failures[0].check,
            "one search, one call"
        );
        let mut f = batch(ok_groups(), ok_call());
        f.lane("tools").records.remove(1);
        let v = verdict(&f, B1, "tools");
        assert_eq!(v.failures.len(), 1);
        assert_eq!(v.failures[0].actual, "none of tool_search");
    }

    #[test]
    fn a_lane_without_a_batch_script_fails() {
        let f = Fixture::passing_reference()
            .scenario_extra("[[claims]]\nid = 'B1'\nlanes = ['tools']\n");
        assert_eq!(
            fails(&f, B1, "tools"),
            ["the lane's script runs a batch tool_search (`queries`)"]
        );
    }
}
