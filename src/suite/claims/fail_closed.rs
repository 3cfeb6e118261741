//! The fail-closed claims F1–F6 (spec §10) and T1 (a lane's exact expected figures).
//!
//! They exist because the regression claims only show that the happy path works; these show that
//! every way out is shut: a denied tool never surfaces, a withdrawn or blocked tool never runs, a
//! missing sandbox falls back before compaction, a timeout leaves no late call, and invalid input
//! reaches the model as an error. Each reads only the observation (provider journal, session
//! log, gateway answer), so it holds for any target.

use serde_json::Value;

use super::{check, show, Check, ClaimInput};
use crate::catalog::fake::{core_tools, FAKE_OK};
use crate::catalog::ToolEntry;
use crate::config::ToolSearchMode;
use crate::drive::observation::Observed;
use crate::protocol::responses::{declared_tool_names, system_text};
use crate::protocol::{SessionRecord, ToolResultRecord};
use crate::scenario::{Scenario, TargetKind};

/// Tool results the model got as errors, with their output text.
fn error_outputs(o: &Observed<'_>) -> Vec<String> {
    o.tool_results()
        .filter(|r| r.is_error())
        .map(ToolResultRecord::output_text)
        .collect()
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// No result of `tool` succeeded, nothing bridged ran it, and no provider request carries its
/// success marker: the tool did not run.
fn did_not_run(tool: &str, o: &Observed<'_>) -> Vec<Check> {
    let succeeded = o
        .tool_results()
        .filter(|r| r.tool_name() == tool && !r.is_error())
        .count();
    let marker = format!("{FAKE_OK} {tool}");
    let leaked: Vec<usize> = o
        .observation
        .requests
        .iter()
        .filter(|r| r.raw.contains(&marker))
        .map(|r| r.cursor as usize)
        .collect();
    vec![
        check(
            "no result",
            succeeded == 0,
            format!("no successful {tool} result in the session log"),
            format!("{succeeded} successful result(s)"),
        ),
        check(
            "no success marker",
            leaked.is_empty() && !o.figures.gateway_output_text.contains(&marker),
            format!("{marker:?} in no provider request and not in the answer"),
            format!(
                "in requests {leaked:?}; answer {:?}",
                o.figures.gateway_output_text
            ),
        ),
    ]
}

/// Some error result reported to the model contains every one of `needles`.
fn error_reported(o: &Observed<'_>, needles: &[&str]) -> Check {
    let errors = error_outputs(o);
    let found = errors.iter().any(|e| needles.iter().all(|n| e.contains(n)));
    check(
        "error reported",
        found,
        format!("an error result containing {needles:?}"),
        format!("error results {errors:?}"),
    )
}

/// The catalogue entry named `tool` in the scenario's catalogue, if it has one.
fn catalogue_entry(scenario: &Scenario, tool: &str) -> Option<ToolEntry> {
    let mut all = scenario.catalog.fake_tools();
    all.extend(core_tools());
    all.into_iter().find(|t| t.name == tool)
}

pub fn f1_denied_never_surfaces(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, tool, o) = (input.scenario, input.tool(), input.lane);
    let Some(entry) = catalogue_entry(scenario, tool) else {
        return vec![check(
            "in the catalogue",
            false,
            format!("{tool} is a tool of the scenario's catalogue"),
            "not in the catalogue",
        )];
    };
    f1_checks(&entry, o)
}

/// F1 for a known entry: its name is declared nowhere, and its id and description reach neither
/// the provider nor the session log (search, describe, call, directory and telemetry all pass
/// through those two).
pub fn f1_checks(entry: &ToolEntry, o: &Observed<'_>) -> Vec<Check> {
    let name = entry.name.as_str();
    let declared: Vec<usize> = o
        .observation
        .requests
        .iter()
        .filter(|r| declared_tool_names(&r.body).iter().any(|n| n == name))
        .map(|r| r.cursor as usize)
        .collect();
    let in_prompt: Vec<usize> = o
        .observation
        .requests
        .iter()
        .filter(|r| contains_word(&system_text(&r.body), name))
        .map(|r| r.cursor as usize)
        .collect();
    let marks = [entry.id.as_str(), entry.description.as_str()];
    let in_payload: Vec<usize> = o
        .observation
        .requests
        .iter()
        .filter(|r| {
            marks
                .iter()
                .any(|m| r.raw.contains(m) || r.body.to_string().contains(m))
        })
        .map(|r| r.cursor as usize)
        .collect();
    let in_log: Vec<String> = o
        .observation
        .session
        .raw
        .iter()
        .filter(|r| {
            let text = r.to_string();
            marks.iter().any(|m| text.contains(m))
                || r["declaredTools"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|n| n == name))
        })
        .map(|r| text_of(&r["type"]))
        .collect();
    let mut checks = vec![
        check(
            "not declared",
            declared.is_empty(),
            format!("{name} declared in no provider request"),
            format!("declared in requests {declared:?}"),
        ),
        check(
            "not in the prompt",
            in_prompt.is_empty(),
            format!("{name} named in no system prompt or directory"),
            format!("named in requests {in_prompt:?}"),
        ),
        check(
            "not in any payload",
            in_payload.is_empty(),
            format!("{} and its description in no provider payload", entry.id),
            format!("found in requests {in_payload:?}"),
        ),
        check(
            "not in the log",
            in_log.is_empty(),
            format!("{} in no session-log record or declared list", entry.id),
            format!("found in records {in_log:?}"),
        ),
    ];
    checks.extend(did_not_run(name, o));
    checks
}

/// `word` occurs in `text` with no identifier character on either side.
pub fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

pub fn f2_withdrawn(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let error = input
        .error()
        .unwrap_or("is no longer available in this run");
    let search = &input.lane.bridge.search;
    let found_at_search = o.tool_results().any(|r| {
        r.tool_name() == search
            && !r.is_error()
            && r.output_text().contains(&format!("\"name\": \"{tool}\""))
    });
    let mut checks = vec![
        check(
            "found by search",
            found_at_search,
            format!("a successful tool_search result listed {tool}"),
            format!("{found_at_search}"),
        ),
        error_reported(o, &[error]),
    ];
    checks.push(no_bridged_run(tool, o));
    checks.extend(did_not_run(tool, o));
    checks
}

/// No synthetic (bridged) call of `tool` was made at all.
fn no_bridged_run(tool: &str, o: &Observed<'_>) -> Check {
    let bridged = o
        .records()
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter(|m| m.synthetic && m.tool_call.as_ref().is_some_and(|c| c.name == tool))
        .count();
    check(
        "no bridged run",
        bridged == 0,
        format!("no bridged call of {tool}"),
        format!("{bridged} bridged call(s)"),
    )
}

pub fn f3_blocked(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let mut needles = vec!["Tool call blocked: "];
    needles.extend(input.error());
    let mut checks = vec![error_reported(o, &needles)];
    let attempted = o.tool_results().any(|r| r.tool_name() == tool);
    checks.push(check(
        "attempt logged",
        attempted,
        format!("the session log records the attempt on {tool}"),
        format!("{attempted}"),
    ));
    checks.extend(did_not_run(tool, o));
    checks
}

pub fn f4_sandbox_fallback(input: &ClaimInput<'_>) -> Vec<Check> {
    let (o, bridge) = (input.lane, &input.lane.bridge);
    let surface = o.records().iter().find_map(|r| match r {
        SessionRecord::Surface(s) => Some(s),
        _ => None,
    });
    let mode = surface
        .map(|s| s.mode.map_or("null", |m| m.as_str()).to_string())
        .unwrap_or_default();
    let notes: Vec<String> = surface.and_then(|s| s.notes.clone()).unwrap_or_default();
    let fell_back = notes
        .iter()
        .any(|n| n.contains("code sandbox unavailable") && n.contains("fell back to tools"));
    let first = o
        .observation
        .requests
        .first()
        .map(|r| declared_tool_names(&r.body))
        .unwrap_or_default();
    let code_declared: Vec<usize> = o
        .observation
        .requests
        .iter()
        .filter(|r| {
            declared_tool_names(&r.body)
                .iter()
                .any(|n| Some(n.as_str()) == bridge.code.as_deref())
        })
        .map(|r| r.cursor as usize)
        .collect();
    let controls = bridge.controls(ToolSearchMode::Tools);
    vec![
        check(
            "surface mode",
            mode == "tools",
            "surface mode tools",
            format!("mode {mode:?}"),
        ),
        check(
            "fallback noted",
            fell_back,
            "surface notes say the code sandbox is unavailable and code fell back to tools",
            format!("notes {notes:?}"),
        ),
        check(
            "controls declared",
            controls.iter().all(|c| first.iter().any(|n| n == c)),
            format!("first request declares {controls:?}"),
            format!("{first:?}"),
        ),
        check(
            "no code control",
            code_declared.is_empty(),
            "tool_search_code declared in no request",
            format!("declared in requests {code_declared:?}"),
        ),
    ]
}

pub fn f5_timeout(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let error = input.error().unwrap_or("timed out");
    let code = input.lane.bridge.code.as_deref();
    let code_error = o
        .tool_results()
        .any(|r| Some(r.tool_name()) == code && r.is_error() && r.output_text().contains(error));
    let late = o
        .tool_results()
        .filter(|r| r.parent_tool_call_id().is_some())
        .count();
    let mut checks = vec![
        check(
            "code error",
            code_error,
            format!("tool_search_code failed with an error containing {error:?}"),
            format!("error results {:?}", error_outputs(o)),
        ),
        check(
            "no late call",
            late == 0,
            "no bridged call after the timeout",
            format!("{late} bridged result(s)"),
        ),
    ];
    checks.extend(did_not_run(tool, o));
    checks
}

pub fn f6_denied_input(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let invalid = format!("Invalid arguments for {tool}");
    let mut needles = vec![invalid.as_str()];
    needles.extend(input.error());
    let denied = format!("{} {tool}", crate::provider::model::DENIED_MARKER);
    let text = &o.figures.gateway_output_text;
    let mut checks = vec![
        error_reported(o, &needles),
        check(
            "model reported",
            text.starts_with(&denied),
            format!("the model reported {denied:?}"),
            format!("answer {text:?}"),
        ),
        no_bridged_run(tool, o),
    ];
    checks.extend(did_not_run(tool, o));
    checks
}

/// T1: the lane's `expect` figures (for its target), exactly.
pub fn t1_expected_figures(input: &ClaimInput<'_>) -> Vec<Check> {
    expected_figures(input.lane)
}

/// The lane's `expect` figures (for its target) as checks, each named and printed by its field
/// in the scenario file (`expect.declared_tools = 43`; `openclaw_expect.…` on a real OpenClaw).
pub fn expected_figures(o: &Observed<'_>) -> Vec<Check> {
    let (f, s) = (&o.figures, &o.figures.session_log);
    let e = o.lane.expect_for(o.target);
    let table = match o.target {
        TargetKind::Embedded => "expect",
        TargetKind::Openclaw => "openclaw_expect",
    };
    let count = |n: usize| Some(n as u64);
    let pairs: [(&str, Option<u64>, Option<u64>); 7] = [
        (
            "declared_tools",
            e.declared_tools.map(|n| n as u64),
            count(f.provider_declared_tool_count),
        ),
        (
            "provider_requests",
            e.provider_requests.map(|n| n as u64),
            count(f.provider_request_count),
        ),
        ("searches", e.searches, Some(s.searches)),
        ("describes", e.describes, Some(s.describes)),
        ("calls", e.calls, Some(s.calls)),
        (
            "catalog_size",
            e.catalog_size.map(|n| n as u64),
            s.catalog_size.map(|n| n as u64),
        ),
        (
            "tool_errors",
            e.tool_errors.map(|n| n as u64),
            count(error_outputs(o).len()),
        ),
    ];
    let mut checks: Vec<Check> = pairs
        .into_iter()
        .filter_map(|(field, want, got)| {
            want.map(|want| {
                check(
                    format!("{table}.{field}"),
                    got == Some(want),
                    format!("{field} = {want}"),
                    format!("{field} = {}", show(got)),
                )
            })
        })
        .collect();
    if let Some(want) = e.directory {
        let seen = f.directory.as_ref();
        let describe = |present: bool| if present { "present" } else { "absent" };
        checks.push(check(
            format!("{table}.directory"),
            seen.is_some() == want,
            format!(
                "directory = {want} (capability directory {})",
                describe(want)
            ),
            match seen {
                Some(d) => format!(
                    "directory = true (present: {} lines, {} the target)",
                    d.lines,
                    if d.names_target {
                        "names"
                    } else {
                        "does not name"
                    }
                ),
                None => "directory = false (absent)".to_string(),
            },
        ));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{holds, Fixture};
    use super::*;
    use crate::suite::claims::ClaimId;
    use serde_json::json;

    const F1: &str = "[[claims]]\nid='F1'\ntool='fake_plugin_tool_17'\n";

    fn f1_holds(fixture: Fixture) -> bool {
        holds(&fixture.scenario_extra(F1), ClaimId::F1, "tools")
    }

    #[test]
    fn f1_holds_on_a_clean_observation() {
        let clean = Fixture::tools_lane()
            .request(json!({ "input": [], "tools": [{ "name": "tool_search" }] }));
        assert!(f1_holds(clean));
    }

    #[test]
    fn f1_fails_when_a_search_result_leaks_the_denied_id() {
        let output = "[{\"id\": \"openclaw:tool-search-e2e-fixture:fake_plugin_tool_17\"}]";
        let leaking = Fixture::tools_lane().request(
            json!({ "input": [{ "type": "function_call_output", "call_id": "c", "output": output }] }),
        );
        assert!(!f1_holds(leaking));
    }

    #[test]
    fn f1_fails_when_the_denied_tool_is_declared_or_logged() {
        let declared =
            Fixture::tools_lane().request(json!({ "tools": [{ "name": "fake_plugin_tool_17" }] }));
        assert!(!f1_holds(declared));
        let logged = Fixture::tools_lane()
            .request(json!({}))
            .record(json!({ "type": "surface", "declaredTools": ["fake_plugin_tool_17"] }));
        assert!(!f1_holds(logged));
    }

    #[test]
    fn contains_word_needs_word_boundaries() {
        assert!(contains_word(
            "- fake_plugin_tool_17: x",
            "fake_plugin_tool_17"
        ));
        assert!(!contains_word(
            "fake_plugin_tool_170",
            "fake_plugin_tool_17"
        ));
    }
}
