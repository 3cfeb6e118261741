//! The six regression claims (spec §11) with the reference run's meaning, checked exactly on the
//! observations of a scenario, and L1, the stricter question spec §9 also asks.
//!
//! C1 direct calls the target · C2 Tool Search calls the same target · C3 direct declares every
//! fake schema byte-for-byte · C4 Tool Search declares exactly its controls and the direct-only
//! tools, and hides every catalogued schema and full description · C5 Tool Search's request is
//! smaller · C6 the session log shows the expected searches, describes, calls, final tool and
//! bridged-call telemetry · L1 the session log alone tells how many schemas the model saw up
//! front and where the final tool came from.
//!
//! Expected lists come from the scenario and the target's known surface ([`expected_declared`]),
//! never from the observation, so an extra tool on the wire is always caught.

use serde_json::Value;

use super::{check, names, show, Check, ClaimInput};
use crate::catalog::fake::{fake_plugin_tools, FAKE_OK};
use crate::catalog::ToolEntry;
use crate::config::{Bridge, ToolSearchMode};
use crate::protocol::responses::{declared_tool_names, request_prefix};
use crate::protocol::ToolResultRecord;
use crate::scenario::Scenario;
use crate::suite::observation::{planned_wire_tool, LaneFigures, Observed};

/// The scenario's fake plugin tools.
fn fake_tools(scenario: &Scenario) -> Vec<ToolEntry> {
    fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size)
}

fn reached_target(scenario: &Scenario, figures: &LaneFigures) -> Vec<Check> {
    let text = &figures.gateway_output_text;
    let want = format!("{FAKE_OK} {}", scenario.target_tool);
    vec![
        check(
            "status",
            figures.status == 200,
            "gateway HTTP 200",
            format!("HTTP {}", figures.status),
        ),
        check(
            "answer",
            text.contains(&want),
            format!("output text contains {want:?}"),
            format!("output text {text:?}"),
        ),
    ]
}

fn planned(figures: &LaneFigures) -> String {
    let planned: Vec<&str> = figures
        .provider_planned_tools
        .iter()
        .map(|t| t.as_deref().unwrap_or("-"))
        .collect();
    planned.join(" → ")
}

pub fn c1_direct_calls_target(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let f = &o.figures;
    let target = &scenario.target_tool;
    let mut checks = reached_target(scenario, f);
    let was_planned = f
        .provider_planned_tools
        .iter()
        .flatten()
        .any(|t| t == target);
    checks.push(check(
        "planned",
        was_planned,
        format!("mock planned {target}"),
        format!("planned {}", planned(f)),
    ));
    let logged = o
        .tool_results()
        .any(|r| matches!(r, ToolResultRecord::Direct(d) if d.tool_name == *target && !d.is_error));
    checks.push(check(
        "logged",
        logged,
        format!("session log has a direct, successful {target} result"),
        if logged { "it has" } else { "it has none" },
    ));
    checks
}

pub fn c2_tool_search_calls_target(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o, direct) = (input.scenario, input.lane, input.direct());
    let f = &o.figures;
    let target = &scenario.target_tool;
    let mut checks = reached_target(scenario, f);
    let wire: Vec<String> = o
        .observation
        .requests
        .iter()
        .filter_map(|r| planned_wire_tool(r))
        .collect();
    // The bridge the lane really used (code mode may have fallen back to the tools).
    let bridge = &o.bridge;
    let code = bridge
        .code
        .as_ref()
        .filter(|code| f.provider_declared_tool_names.contains(code));
    let expected_path: Vec<String> = match code {
        Some(code) => vec![code.clone()],
        None => vec![bridge.search.clone(), bridge.call.clone()],
    };
    checks.push(check(
        "bridge path",
        wire == expected_path,
        format!("planned on the wire {}", expected_path.join(" → ")),
        if wire.is_empty() {
            "nothing".to_string()
        } else {
            wire.join(" → ")
        },
    ));
    let bridged = o.tool_results().any(
        |r| matches!(r, ToolResultRecord::Bridged(b) if b.tool_name == *target && !b.is_error),
    );
    checks.push(check(
        "bridged",
        bridged,
        format!("session log has a bridged {target} result with parentToolCallId"),
        if bridged { "it has" } else { "it has none" },
    ));
    if let Some(direct) = direct {
        let same = f.gateway_output_text == direct.figures.gateway_output_text;
        checks.push(check(
            "same answer",
            same,
            format!(
                "same output text as lane {}: {:?}",
                direct.lane.name, direct.figures.gateway_output_text
            ),
            format!("{:?}", f.gateway_output_text),
        ));
    }
    checks
}

/// Serialises a schema the way it travels (key order kept).
fn schema_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

pub fn c3_direct_declares_fake_schemas(input: &ClaimInput<'_>) -> Vec<Check> {
    let (fake, o) = (fake_tools(input.scenario), input.lane);
    let Some(first) = o.observation.requests.first() else {
        return vec![no_request()];
    };
    let declared: Vec<&Value> = first
        .body
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    let mut missing = Vec::new();
    let mut differing = Vec::new();
    for tool in &fake {
        match declared.iter().find(|d| d["name"] == tool.name.as_str()) {
            None => missing.push(tool.name.clone()),
            Some(d)
                if schema_text(&d["parameters"]) != schema_text(&tool.parameters)
                    || d["description"] != tool.description.as_str() =>
            {
                differing.push(tool.name.clone())
            }
            Some(_) => {}
        }
    }
    vec![
        check(
            "fake tools declared",
            missing.is_empty(),
            format!("all {} fake tools declared", fake.len()),
            format!("missing {}", names(&missing)),
        ),
        check(
            "fake schemas",
            differing.is_empty(),
            "fake schemas byte-identical to the catalogue",
            format!("differing {}", names(&differing)),
        ),
    ]
}

fn no_request() -> Check {
    check("requests", false, "at least one provider request", "none")
}

pub fn c4_only_bridge_declared(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let fake = fake_tools(scenario);
    if o.observation.requests.is_empty() {
        return vec![no_request()];
    }
    let expected = expected_declared(scenario, o);
    let mut checks = Vec::new();
    for (i, request) in o.observation.requests.iter().enumerate() {
        let mut declared = declared_tool_names(&request.body);
        declared.sort();
        checks.push(check(
            format!("request {} declared", i + 1),
            declared == expected,
            format!("request {} declares exactly {}", i + 1, names(&expected)),
            names(&declared),
        ));
    }
    // What the gateway puts up front (instructions, system items, tools) in any request: never a
    // catalogued tool's schema or full description. (Tool outputs the model asked for may name
    // and describe them: that is the point of search.)
    let up_front: Vec<String> = o
        .observation
        .requests
        .iter()
        .map(|r| request_prefix(&r.raw).text())
        .collect();
    let schema_marker = fake
        .first()
        .and_then(|t| t.parameters["properties"]["marker"]["description"].as_str())
        .unwrap_or("");
    let with_schema: Vec<usize> = positions(&up_front, |text| {
        !schema_marker.is_empty() && text.contains(schema_marker)
    });
    checks.push(check(
        "hidden schemas",
        with_schema.is_empty(),
        "no request puts a catalogued tool's schema up front",
        format!("requests {with_schema:?} do"),
    ));
    let described: Vec<&str> = fake
        .iter()
        .filter(|t| {
            let full = json_text(&t.description);
            up_front.iter().any(|text| text.contains(&full))
        })
        .map(|t| t.name.as_str())
        .collect();
    checks.push(check(
        "hidden descriptions",
        described.is_empty(),
        "no request puts a catalogued tool's full description up front",
        format!("full descriptions of {}", names(&described)),
    ));
    checks
}

/// 1-based positions of the texts that match.
fn positions(texts: &[String], matches: impl Fn(&str) -> bool) -> Vec<usize> {
    texts
        .iter()
        .enumerate()
        .filter(|(_, t)| matches(t))
        .map(|(i, _)| i + 1)
        .collect()
}

/// The names a Tool Search lane must declare, sorted: the controls of its configured mode, the
/// direct-only tools (the target's own and the scenario's), and in directory mode the client
/// tools the turn sends.
pub fn expected_declared(scenario: &Scenario, o: &Observed<'_>) -> Vec<String> {
    let mut names = o.lane.controls(&o.bridge);
    if o.lane.mode() == ToolSearchMode::Directory {
        names.extend(scenario.catalog.client.iter().cloned());
    }
    names.extend(crate::targets::direct_only_tools(o.target, scenario));
    names.sort();
    names.dedup();
    names
}

/// A string as it appears inside raw JSON (quotes stripped, escapes kept).
fn json_text(text: &str) -> String {
    let quoted = Value::from(text).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

pub fn c5_smaller(input: &ClaimInput<'_>) -> Vec<Check> {
    let (o, direct) = (input.lane, input.direct());
    let Some(direct) = direct else {
        return vec![check(
            "smaller",
            false,
            "a direct lane to compare with",
            "none in this scenario",
        )];
    };
    let (ours, theirs) = (
        o.figures.first_request_bytes,
        direct.figures.first_request_bytes,
    );
    let ratio = if theirs == 0 {
        0.0
    } else {
        ours as f64 / theirs as f64
    };
    vec![check(
        "smaller",
        ours > 0 && ours < theirs,
        format!("first request smaller than direct's {theirs} bytes"),
        format!("{ours} bytes (ratio {ratio:.3})"),
    )]
}

/// C6 as the reference states it: the session log shows the expected number of searches,
/// describes and calls, the final tool, and the telemetry of bridged calls (`parentToolCallId`,
/// the bridged tool's source, a code result's counters).
pub fn c6_session_log(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let s = &o.figures.session_log;
    let e = o.lane.expect_for(o.target);
    let mut checks = Vec::new();
    for (label, want, got) in [
        ("searches", e.searches, s.searches),
        ("describes", e.describes, s.describes),
        ("calls", e.calls, s.calls),
    ] {
        if let Some(want) = want {
            checks.push(check(
                label,
                got == want,
                format!("{label} = {want}"),
                format!("{label} = {got}"),
            ));
        }
    }
    let target = &scenario.target_tool;
    checks.push(check(
        "final tool",
        s.final_tool.as_deref() == Some(target),
        format!("final tool {target}"),
        format!("final tool {}", show(s.final_tool.as_deref())),
    ));
    let want_bridged = usize::from(!o.lane.is_direct());
    checks.push(check(
        "bridged calls",
        s.bridged_calls == want_bridged,
        format!("{want_bridged} bridged call(s) with parentToolCallId"),
        format!("{} bridged call(s)", s.bridged_calls),
    ));
    if want_bridged > 0 {
        let bridged_source = o.tool_results().find_map(|r| match r {
            ToolResultRecord::Bridged(b) if b.tool_name == *target => Some(b.source),
            _ => None,
        });
        let source = scenario.target_source;
        checks.push(check(
            "bridged source",
            bridged_source == Some(Some(source)),
            format!("the bridged call's source is {}", source.as_str()),
            format!(
                "source {}",
                show(bridged_source.flatten().map(|s| s.as_str()))
            ),
        ));
    }
    checks.extend(code_result_telemetry(o, &o.bridge));
    checks
}

/// In code mode, the `tool_search_code` result itself carries telemetry (spec §9): it must say
/// `ok: true` and count exactly what the session log's telemetry record counts.
fn code_result_telemetry(o: &Observed<'_>, bridge: &Bridge) -> Vec<Check> {
    let s = &o.figures.session_log;
    o.tool_results()
        .filter(|r| bridge.code.as_deref() == Some(r.tool_name()))
        .map(|r| {
            let output: Value = serde_json::from_str(&r.output_text()).unwrap_or(Value::Null);
            let t = &output["telemetry"];
            let seen = [
                output["ok"].as_bool().map(u64::from),
                t["searchCount"].as_u64(),
                t["describeCount"].as_u64(),
                t["callCount"].as_u64(),
                t["catalogSize"].as_u64(),
            ];
            let want = [
                Some(1),
                Some(s.searches),
                Some(s.describes),
                Some(s.calls),
                s.catalog_size.map(|n| n as u64),
            ];
            let text = |v: [Option<u64>; 5]| {
                format!(
                    "ok {}, searches {}, describes {}, calls {}, catalogSize {}",
                    show(v[0].map(|ok| ok == 1)),
                    show(v[1]),
                    show(v[2]),
                    show(v[3]),
                    show(v[4])
                )
            };
            check(
                "code telemetry",
                seen == want,
                format!("tool_search_code result: {}", text(want)),
                text(seen),
            )
        })
        .collect()
}

/// L1: the stricter question of spec §9 — from the session log alone, how many tool schemas did
/// the model see up front (the first request's `tools[]`), and where did the final tool come from
/// (OpenClaw, MCP or a client), even for a direct call.
pub fn l1_log_tells_the_surface(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let s = &o.figures.session_log;
    let sent = o.figures.provider_declared_tool_count;
    let source = scenario.target_source;
    let unrecorded = |what: &str| match &s.surface_note {
        Some(note) => format!("{what} not recorded ({note})"),
        None => format!("{what} not recorded"),
    };
    vec![
        check(
            "schemas up front",
            s.schemas_up_front == Some(sent),
            format!("schemas up front = {sent} (as the provider received)"),
            match s.schemas_up_front {
                Some(n) => format!("schemas up front = {n}"),
                None => unrecorded("schemas up front"),
            },
        ),
        check(
            "final tool source",
            s.final_tool_source == Some(source),
            format!("final tool source {}", source.as_str()),
            match s.final_tool_source {
                Some(found) => format!("final tool source {}", found.as_str()),
                None => "final tool source not recorded".to_string(),
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::{self, *};
    use serde_json::json;

    fn fails(fixture: &Fixture, claim: ClaimId, lane: &str) -> Vec<String> {
        let v = verdict(fixture, claim, lane);
        assert!(!v.ok, "{claim} on {lane} should fail");
        v.failures.iter().map(|c| c.expected.clone()).collect()
    }

    #[test]
    fn c1_to_c5_hold_on_the_passing_fixture() {
        let f = Fixture::passing_reference();
        for (claim, lane) in [
            (C1, "direct"),
            (C3, "direct"),
            (C2, "tools"),
            (C4, "tools"),
            (C5, "tools"),
        ] {
            assert!(
                holds(&f, claim, lane),
                "{claim} on {lane}: {:?}",
                verdict(&f, claim, lane)
            );
        }
    }

    #[test]
    fn c1_fails_without_the_direct_result_and_the_marker_and_lists_both() {
        let mut f = Fixture::passing_reference();
        f.lane("direct").records.clear();
        f.lane("direct").answer = "no marker".into();
        let failed = fails(&f, C1, "direct");
        assert_eq!(
            failed,
            [
                format!("output text contains \"FAKE_PLUGIN_OK {TARGET}\""),
                format!("session log has a direct, successful {TARGET} result"),
            ]
        );
    }

    #[test]
    fn c2_fails_when_the_target_is_not_reached_through_the_bridge() {
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[1].1 = Some(TARGET.into());
        f.lane("tools").records.clear();
        let failed = fails(&f, C2, "tools");
        assert_eq!(
            failed,
            [
                "planned on the wire tool_search → tool_call".to_string(),
                format!("session log has a bridged {TARGET} result with parentToolCallId"),
            ]
        );
    }

    #[test]
    fn c3_fails_when_a_fake_schema_is_missing_or_differs() {
        let mut f = Fixture::passing_reference();
        let body = &mut f.lane("direct").requests[0].0;
        let tools = body["tools"].as_array_mut().unwrap();
        tools.remove(0);
        tools[0]["description"] = json!("changed");
        let failed = fails(&f, C3, "direct");
        assert_eq!(
            failed,
            [
                "all 36 fake tools declared",
                "fake schemas byte-identical to the catalogue"
            ]
        );
    }

    #[test]
    fn c4_fails_when_a_fake_tool_is_declared_or_its_schema_or_description_is_up_front() {
        let mut f = Fixture::passing_reference();
        let fake = crate::catalog::fake::fake_plugin_tools("tool-search-e2e-fixture", 36);
        let body = &mut f.lane("tools").requests[1].0;
        body["tools"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!(fake[2].function_declaration()));
        let failed = fails(&f, C4, "tools");
        assert_eq!(
            failed,
            [
                "request 2 declares exactly 3 names: tool_call, tool_describe, tool_search",
                "no request puts a catalogued tool's schema up front",
                "no request puts a catalogued tool's full description up front",
            ]
        );
        // A name in the prompt is no leak: the product's capability directory lists names.
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[0].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(0, json!({ "role": "system", "content": "- fake_plugin_tool_03 (p): Fake plugin tool 3." }));
        assert!(holds(&f, C4, "tools"));
        // A full description in the prompt is.
        f.lane("tools").requests[0].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(
                0,
                json!({ "role": "system", "content": fake[5].description }),
            );
        assert_eq!(
            fails(&f, C4, "tools"),
            ["no request puts a catalogued tool's full description up front"]
        );
        // A full description in a tool output the model asked for is not up front.
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[1].0["input"].as_array_mut().unwrap().push(
            json!({ "type": "function_call_output", "call_id": "c", "output": fake[16].description }),
        );
        assert!(holds(&f, C4, "tools"));
        assert_eq!(TARGET, fake[16].name);
    }

    #[test]
    fn c5_fails_when_the_tool_search_request_is_not_smaller() {
        let mut f = Fixture::passing_reference();
        let padding = "x".repeat(40_000);
        f.lane("tools").requests[0].0["metadata"] = json!(padding);
        assert_eq!(fails(&f, C5, "tools").len(), 1);
    }

    #[test]
    fn claims_that_need_a_missing_lane_are_not_applicable_never_failures() {
        let mut f = Fixture::passing_reference();
        f.lanes.remove(0);
        let verdicts = f.verdicts();
        let na: Vec<(ClaimId, &str, Option<&str>)> = verdicts
            .iter()
            .filter(|v| v.is_not_applicable())
            .map(|v| (v.claim, v.lane.as_str(), v.not_applicable.as_deref()))
            .collect();
        assert_eq!(
            na,
            [
                (
                    C1,
                    "-",
                    Some("no lane with Tool Search off (tool_search = false)")
                ),
                (
                    C3,
                    "-",
                    Some("no lane with Tool Search off (tool_search = false)")
                ),
                (
                    C5,
                    "-",
                    Some("no direct lane (tool_search = false) to compare with")
                ),
            ]
        );
        assert!(verdicts
            .iter()
            .filter(|v| v.is_not_applicable())
            .all(|v| v.ok && v.passes_gate() && v.failures.is_empty()));
    }
}
