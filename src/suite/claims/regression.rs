//! The six regression claims (spec §11), checked exactly on the observations of a scenario.
//!
//! C1 direct calls the target · C2 Tool Search calls the same target · C3 direct declares every
//! fake schema byte-for-byte · C4 Tool Search declares only its controls and direct-only tools ·
//! C5 Tool Search's request is smaller · C6 the session log answers spec §9 with the exact counts.

use serde_json::Value;

use super::fail_closed::expected_figures;
use super::{check, Check, ClaimInput};
use crate::catalog::fake::{core_tools, fake_plugin_tools, FAKE_OK};
use crate::catalog::{CatalogMode, ToolEntry};
use crate::config::{ToolSearchMode, TOOL_CALL, TOOL_SEARCH, TOOL_SEARCH_CODE};
use crate::protocol::responses::declared_tool_names;
use crate::protocol::ToolResultRecord;
use crate::scenario::Scenario;
use crate::suite::observation::{planned_wire_tool, LaneFigures, Observed};
use crate::targets::TargetKind;

/// The scenario's fake plugin tools.
fn fake_tools(scenario: &Scenario) -> Vec<ToolEntry> {
    fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size)
}

fn reached_target(scenario: &Scenario, figures: &LaneFigures) -> Vec<Check> {
    let text = &figures.gateway_output_text;
    let want = format!("{FAKE_OK} {}", scenario.target_tool);
    vec![
        check(
            figures.status == 200,
            "gateway HTTP 200",
            format!("HTTP {}", figures.status),
        ),
        check(
            text.contains(&want),
            format!("output text contains {want:?}"),
            format!("output text {text:?}"),
        ),
    ]
}

pub fn c1_direct_calls_target(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let f = &o.figures;
    let target = &scenario.target_tool;
    let mut checks = reached_target(scenario, f);
    let planned = f
        .provider_planned_tools
        .iter()
        .flatten()
        .any(|t| t == target);
    checks.push(check(
        planned,
        format!("mock planned {target}"),
        format!("planned {:?}", f.provider_planned_tools),
    ));
    let logged = o
        .tool_results()
        .any(|r| matches!(r, ToolResultRecord::Direct(d) if d.tool_name == *target && !d.is_error));
    checks.push(check(
        logged,
        format!("session log has a direct, successful {target} result"),
        format!("{logged}"),
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
    let expected_path: Vec<String> = if f
        .provider_declared_tool_names
        .iter()
        .any(|n| n == TOOL_SEARCH_CODE)
    {
        vec![TOOL_SEARCH_CODE.into()]
    } else {
        vec![TOOL_SEARCH.into(), TOOL_CALL.into()]
    };
    checks.push(check(
        wire == expected_path,
        format!("planned on the wire {expected_path:?}"),
        format!("{wire:?}"),
    ));
    let bridged = o.tool_results().any(
        |r| matches!(r, ToolResultRecord::Bridged(b) if b.tool_name == *target && !b.is_error),
    );
    checks.push(check(
        bridged,
        format!("session log has a bridged {target} result with parentToolCallId"),
        format!("{bridged}"),
    ));
    if let Some(direct) = direct {
        let same = f.gateway_output_text == direct.figures.gateway_output_text;
        checks.push(check(
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
        return vec![check(false, "at least one provider request", "none")];
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
            missing.is_empty(),
            format!("all {} fake tools declared", fake.len()),
            format!("missing {missing:?}"),
        ),
        check(
            differing.is_empty(),
            "fake schemas byte-identical to the catalogue",
            format!("differing {differing:?}"),
        ),
    ]
}

pub fn c4_only_bridge_declared(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let fake = fake_tools(scenario);
    let expected = match o.target {
        TargetKind::Embedded => expected_bridge_names(scenario, o),
        // The real gateway's own direct-only tools are its business: expect the mode's controls
        // plus whatever non-catalogue tools its first request declares, and no fake tool at all.
        TargetKind::Openclaw => {
            let mut names = o.lane.controls();
            let first = o
                .observation
                .requests
                .first()
                .map(|r| declared_tool_names(&r.body))
                .unwrap_or_default();
            names.extend(
                first
                    .into_iter()
                    .filter(|n| !n.starts_with("tool_") && !fake.iter().any(|t| &t.name == n)),
            );
            names.sort();
            names.dedup();
            names
        }
    };
    let mut checks = Vec::new();
    for (i, request) in o.observation.requests.iter().enumerate() {
        let mut names = declared_tool_names(&request.body);
        names.sort();
        checks.push(check(
            names == expected,
            format!("request {} declares exactly {expected:?}", i + 1),
            format!("{names:?}"),
        ));
    }
    if let Some(first) = o.observation.requests.first() {
        let without_user = strip_user_items(&first.body);
        if is_directory_lane(o) {
            // Directory mode lists names (and cut descriptions) in the prompt, never a full description.
            let leaked: Vec<&str> = fake
                .iter()
                .filter(|t| first.raw.contains(&json_text(&t.description)))
                .map(|t| t.name.as_str())
                .collect();
            checks.push(check(
                leaked.is_empty(),
                "first request carries no fake tool's full description",
                format!("full descriptions of {leaked:?}"),
            ));
        } else {
            let leaked: Vec<&str> = fake
                .iter()
                .map(|t| t.name.as_str())
                .filter(|n| without_user.contains(n))
                .collect();
            checks.push(check(
                leaked.is_empty(),
                "first request names no fake tool outside the user's message",
                format!("names {leaked:?}"),
            ));
        }
        let schema_marker = fake
            .first()
            .and_then(|t| t.parameters["properties"]["marker"]["description"].as_str())
            .unwrap_or("");
        let description_marker = "deliberately non-trivial";
        let leaked_schema =
            first.raw.contains(schema_marker) || first.raw.contains(description_marker);
        checks.push(check(
            !leaked_schema,
            "first request carries no fake schema or description",
            format!("leaked: {leaked_schema}"),
        ));
    } else {
        checks.push(check(false, "at least one provider request", "none"));
    }
    checks
}

/// The declared names a Tool Search lane must show: the controls of its configured mode plus the
/// direct-only tools of the scenario's catalogue (and, in directory mode, the client tools the
/// turn sends), sorted.
fn expected_bridge_names(scenario: &Scenario, o: &Observed<'_>) -> Vec<String> {
    let mut names = o.lane.controls();
    if is_directory_lane(o) {
        names.extend(scenario.catalog.client.iter().cloned());
    }
    if scenario.catalog.core_tools {
        names.extend(
            core_tools()
                .into_iter()
                .filter(|t| t.catalog_mode == CatalogMode::DirectOnly)
                .map(|t| t.name),
        );
    }
    names.sort();
    names
}

fn is_directory_lane(o: &Observed<'_>) -> bool {
    o.lane.mode() == ToolSearchMode::Directory
}

/// A string as it appears inside raw JSON (quotes stripped, escapes kept).
fn json_text(text: &str) -> String {
    let quoted = Value::from(text).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

fn strip_user_items(body: &Value) -> String {
    let mut body = body.clone();
    if let Some(items) = body.get_mut("input").and_then(Value::as_array_mut) {
        items.retain(|i| i.get("role").and_then(Value::as_str) != Some("user"));
    }
    body.to_string()
}

pub fn c5_smaller(input: &ClaimInput<'_>) -> Vec<Check> {
    let (o, direct) = (input.lane, input.direct());
    let Some(direct) = direct else {
        return vec![check(
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
        ours > 0 && ours < theirs,
        format!("first request smaller than direct's {theirs} bytes"),
        format!("{ours} bytes (ratio {ratio:.3})"),
    )]
}

pub fn c6_session_log(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let s = &o.figures.session_log;
    let mut checks = expected_figures(o);
    let target = &scenario.target_tool;
    checks.push(check(
        s.final_tool.as_deref() == Some(target),
        format!("final tool {target}"),
        format!("{:?}", s.final_tool),
    ));
    let source = scenario.target_source;
    checks.push(check(
        s.final_tool_source == Some(source),
        format!("final tool source {}", source.as_str()),
        format!("{:?}", s.final_tool_source.map(|s| s.as_str())),
    ));
    let want_bridged = usize::from(!o.lane.is_direct());
    checks.push(check(
        s.bridged_calls == want_bridged,
        format!("{want_bridged} bridged call(s)"),
        format!("{}", s.bridged_calls),
    ));
    checks.extend(code_result_telemetry(o));
    checks
}

/// In code mode, the `tool_search_code` result itself carries telemetry (spec §9): it must say
/// `ok: true` and count exactly what the session log's telemetry record counts.
fn code_result_telemetry(o: &Observed<'_>) -> Vec<Check> {
    let results: Vec<&ToolResultRecord> = o
        .tool_results()
        .filter(|r| r.tool_name() == TOOL_SEARCH_CODE)
        .collect();
    let s = &o.figures.session_log;
    results
        .into_iter()
        .map(|r| {
            let output: Value = match r {
                ToolResultRecord::Direct(d) => serde_json::from_str(&d.output).ok(),
                ToolResultRecord::Bridged(b) => {
                    b.output.as_str().and_then(|t| serde_json::from_str(t).ok())
                }
            }
            .unwrap_or(Value::Null);
            let t = &output["telemetry"];
            let seen = (
                output["ok"].as_bool(),
                t["searchCount"].as_u64(),
                t["describeCount"].as_u64(),
                t["callCount"].as_u64(),
            );
            let want = (
                Some(true),
                Some(s.searches),
                Some(s.describes),
                Some(s.calls),
            );
            check(
                seen == want && t["catalogSize"].as_u64() == s.catalog_size.map(|n| n as u64),
                format!(
                    "tool_search_code result ok with telemetry {want:?} and catalogSize {:?}",
                    s.catalog_size
                ),
                format!("{seen:?}, catalogSize {:?}", t["catalogSize"].as_u64()),
            )
        })
        .collect()
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
                "planned on the wire [\"tool_search\", \"tool_call\"]".to_string(),
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
    fn c4_fails_when_a_fake_tool_is_declared_or_named_in_the_prompt() {
        let mut f = Fixture::passing_reference();
        let body = &mut f.lane("tools").requests[0].0;
        body["tools"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "name": TARGET }));
        body["input"].as_array_mut().unwrap().insert(
            0,
            json!({ "role": "system", "content": "you may call fake_plugin_tool_03" }),
        );
        let failed = fails(&f, C4, "tools");
        assert_eq!(
            failed,
            [
                "request 1 declares exactly [\"tool_call\", \"tool_describe\", \"tool_search\"]",
                "first request names no fake tool outside the user's message",
            ]
        );
    }

    #[test]
    fn c5_fails_when_the_tool_search_request_is_not_smaller() {
        let mut f = Fixture::passing_reference();
        let padding = "x".repeat(40_000);
        f.lane("tools").requests[0].0["metadata"] = json!(padding);
        assert_eq!(fails(&f, C5, "tools").len(), 1);
        f.lanes.remove(0);
        let v = verdict(&f, C5, "tools");
        assert!(!v.ok);
        assert_eq!(v.expected, "a direct lane to compare with");
    }
}
