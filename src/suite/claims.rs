//! The six regression claims (spec §11), checked exactly on the observations of a scenario.
//!
//! C1 direct calls the target · C2 Tool Search calls the same target · C3 direct declares every
//! fake schema byte-for-byte · C4 Tool Search declares only its controls and direct-only tools ·
//! C5 Tool Search's request is smaller · C6 the session log answers spec §9 with the exact counts.
//! A scenario that lists `claims` gets exactly those (with the fail-closed ones of
//! [`super::fail_closed`]) plus T1, its lanes' exact expected figures.

use serde::Serialize;
use serde_json::Value;

use super::fail_closed;
use super::lane::{declared_tool_names, planned_wire_tool, LaneFigures, LaneObservation};
use super::scenario::{Lane, Scenario};
use crate::catalog::fake::{core_tools, fake_plugin_tools, FAKE_OK};
use crate::catalog::{CatalogMode, ToolEntry};
use crate::engine::surface::{TOOL_CALL, TOOL_SEARCH, TOOL_SEARCH_CODE};

/// One claim on one lane, with what was expected and what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    pub claim: String,
    pub title: String,
    pub lane: String,
    pub ok: bool,
    /// The first failing check's expectation, or every check joined when all hold.
    pub expected: String,
    /// What the first failing check saw, or `as expected`.
    pub actual: String,
    /// How many checks the claim made.
    pub checks: usize,
}

/// The claim's one-line statement (spec §11).
pub fn claim_title(claim: &str) -> &'static str {
    match claim {
        "C1" => "direct mode calls the fake plugin tool",
        "C2" => "Tool Search calls the same fake plugin tool",
        "C3" => "direct mode exposes the fake tool schemas to the provider",
        "C4" => "Tool Search exposes only the compact bridge and direct-only tools",
        "C5" => "Tool Search's request payload is smaller",
        "C6" => "session log shows the expected counts and bridged-call telemetry",
        "H1" => "a client tool call is handed back to the caller and not run",
        other => fail_closed::title(other).unwrap_or(""),
    }
}

/// One observed lane with its scenario lane and figures.
pub struct Observed<'a> {
    /// The target's name (`embedded`, `openclaw`): exact expectations are per target.
    pub target: &'a str,
    pub lane: &'a Lane,
    pub observation: &'a LaneObservation,
    pub figures: LaneFigures,
}

/// One check of a claim.
pub struct Check {
    pub ok: bool,
    expected: String,
    actual: String,
}

pub fn check(ok: bool, expected: impl Into<String>, actual: impl Into<String>) -> Check {
    Check {
        ok,
        expected: expected.into(),
        actual: actual.into(),
    }
}

fn verdict(claim: &str, lane: &str, checks: Vec<Check>) -> Verdict {
    let failed: Vec<&Check> = checks.iter().filter(|c| !c.ok).collect();
    let (expected, actual) = match failed.first() {
        Some(first) => (first.expected.clone(), first.actual.clone()),
        None => (
            checks
                .iter()
                .map(|c| c.expected.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            "as expected".to_string(),
        ),
    };
    Verdict {
        claim: claim.into(),
        title: claim_title(claim).into(),
        lane: lane.into(),
        ok: failed.is_empty(),
        expected,
        actual,
        checks: checks.len(),
    }
}

/// Evaluates every claim that applies to the scenario's lanes, in a stable order.
pub fn evaluate(scenario: &Scenario, lanes: &[Observed<'_>]) -> Vec<Verdict> {
    if scenario.claims.is_empty() {
        return regression_claims(scenario, lanes);
    }
    let regression = regression_claims(scenario, lanes);
    let mut verdicts = Vec::new();
    for spec in &scenario.claims {
        let applies = |lane: &str| spec.lanes.is_empty() || spec.lanes.iter().any(|l| l == lane);
        if spec.id.starts_with('C') {
            verdicts.extend(
                regression
                    .iter()
                    .filter(|v| v.claim == spec.id && applies(&v.lane))
                    .cloned(),
            );
            continue;
        }
        for observed in lanes.iter().filter(|o| applies(&o.lane.name)) {
            let checks = match spec.id.as_str() {
                "H1" => super::client_handoff::h1_handed_back(scenario, observed),
                _ => fail_closed::checks(scenario, spec, observed),
            };
            verdicts.push(verdict(&spec.id, &observed.lane.name, checks));
        }
    }
    for observed in lanes.iter().filter(|o| o.lane.expect.is_set()) {
        let checks = fail_closed::expected_figures(observed);
        verdicts.push(verdict("T1", &observed.lane.name, checks));
    }
    sort_verdicts(&mut verdicts, lanes);
    verdicts
}

fn sort_verdicts(verdicts: &mut [Verdict], lanes: &[Observed<'_>]) {
    verdicts.sort_by(|a, b| {
        a.claim
            .cmp(&b.claim)
            .then_with(|| lane_index(lanes, &a.lane).cmp(&lane_index(lanes, &b.lane)))
    });
}

/// The regression claims C1–C6 on every lane they apply to.
fn regression_claims(scenario: &Scenario, lanes: &[Observed<'_>]) -> Vec<Verdict> {
    let fake = fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size);
    let direct = lanes.iter().find(|l| l.lane.is_direct());
    let mut verdicts = Vec::new();
    for observed in lanes {
        let name = observed.lane.name.as_str();
        if observed.lane.is_direct() {
            verdicts.push(verdict(
                "C1",
                name,
                c1_direct_calls_target(scenario, observed),
            ));
            verdicts.push(verdict(
                "C3",
                name,
                c3_direct_declares_fake_schemas(&fake, observed),
            ));
        } else {
            verdicts.push(verdict(
                "C2",
                name,
                c2_tool_search_calls_target(scenario, observed, direct),
            ));
            verdicts.push(verdict(
                "C4",
                name,
                c4_only_bridge_declared(scenario, &fake, observed),
            ));
            verdicts.push(verdict("C5", name, c5_smaller(observed, direct)));
        }
        verdicts.push(verdict("C6", name, c6_session_log(scenario, observed)));
    }
    sort_verdicts(&mut verdicts, lanes);
    verdicts
}

fn lane_index(lanes: &[Observed<'_>], name: &str) -> usize {
    lanes
        .iter()
        .position(|l| l.lane.name == name)
        .unwrap_or(usize::MAX)
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

fn c1_direct_calls_target(scenario: &Scenario, o: &Observed<'_>) -> Vec<Check> {
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
    let logged = o.observation.session.iter().any(|r| {
        r["type"] == "toolResult"
            && r["toolName"] == target.as_str()
            && r["isError"] == false
            && r.get("parentToolCallId").is_none()
    });
    checks.push(check(
        logged,
        format!("session log has a direct, successful {target} result"),
        format!("{logged}"),
    ));
    checks
}

fn c2_tool_search_calls_target(
    scenario: &Scenario,
    o: &Observed<'_>,
    direct: Option<&Observed<'_>>,
) -> Vec<Check> {
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
    let bridged = o.observation.session.iter().any(|r| {
        r["type"] == "toolResult"
            && r["toolName"] == target.as_str()
            && r["isError"] == false
            && r.get("parentToolCallId").is_some()
    });
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

fn c3_direct_declares_fake_schemas(fake: &[ToolEntry], o: &Observed<'_>) -> Vec<Check> {
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
    for tool in fake {
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

fn c4_only_bridge_declared(
    scenario: &Scenario,
    fake: &[ToolEntry],
    o: &Observed<'_>,
) -> Vec<Check> {
    let expected = match o.target {
        "embedded" => expected_bridge_names(scenario, o),
        // The real gateway's own direct-only tools are its business: expect the mode's controls
        // plus whatever non-catalogue tools its first request declares, and no fake tool at all.
        _ => {
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
    o.lane.surface_mode() == crate::config::ToolSearchMode::Directory
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

fn c5_smaller(o: &Observed<'_>, direct: Option<&Observed<'_>>) -> Vec<Check> {
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

fn c6_session_log(scenario: &Scenario, o: &Observed<'_>) -> Vec<Check> {
    let s = &o.figures.session_log;
    let mut checks = fail_closed::expected_figures(o);
    let target = &scenario.target_tool;
    checks.push(check(
        s.final_tool.as_deref() == Some(target),
        format!("final tool {target}"),
        format!("{:?}", s.final_tool),
    ));
    let source = scenario.target_source.as_str();
    checks.push(check(
        s.final_tool_source.as_deref() == Some(source),
        format!("final tool source {source}"),
        format!("{:?}", s.final_tool_source),
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
    let results: Vec<&Value> = o
        .observation
        .session
        .iter()
        .filter(|r| r["type"] == "toolResult" && r["toolName"] == TOOL_SEARCH_CODE)
        .collect();
    let s = &o.figures.session_log;
    results
        .into_iter()
        .map(|r| {
            let output: Value = r["output"]
                .as_str()
                .and_then(|t| serde_json::from_str(t).ok())
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
