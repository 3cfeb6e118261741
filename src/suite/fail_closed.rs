//! The fail-closed claims F1–F6 (spec §10) and T1 (a lane's exact expected figures).
//!
//! They exist because the regression claims only show that the happy path works; these show that
//! every way out is shut: a denied tool never surfaces, a withdrawn or blocked tool never runs, a
//! missing sandbox falls back before compaction, a timeout leaves no late call, and invalid input
//! reaches the model as an error. Each reads only the observation (provider journal, session
//! log, gateway answer), so it holds for any target.

use serde_json::Value;

use super::claims::{check, Check, Observed};
use super::lane::declared_tool_names;
use super::scenario::{ClaimSpec, Scenario};
use crate::catalog::fake::{core_tools, fake_plugin_tools, FAKE_OK};
use crate::catalog::ToolEntry;
use crate::engine::surface::{TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, TOOL_SEARCH_CODE};

/// The claim's one-line statement.
pub fn title(claim: &str) -> Option<&'static str> {
    Some(match claim {
        "F1" => "a policy-denied tool never surfaces anywhere",
        "F2" => "a tool withdrawn after search makes tool_call fail and nothing runs",
        "F3" => "an approval or before_tool_call block is reported and the tool does not run",
        "F4" => "an unavailable sandbox makes code mode fall back to tools before compaction",
        "F5" => "a code timeout is a clear error and leaves no late bridge call",
        "F6" => "denied input reaches the model as an error and nothing runs",
        "T1" => "the lane shows the scenario's exact expected figures",
        _ => return None,
    })
}

/// The checks of fail-closed claim `spec` on one lane.
pub fn checks(scenario: &Scenario, spec: &ClaimSpec, o: &Observed<'_>) -> Vec<Check> {
    let tool = spec.tool.as_deref().unwrap_or(&scenario.target_tool);
    match spec.id.as_str() {
        "F1" => f1_denied_never_surfaces(scenario, tool, o),
        "F2" => f2_withdrawn(tool, spec.error.as_deref(), o),
        "F3" => f3_blocked(tool, spec.error.as_deref(), o),
        "F4" => f4_sandbox_fallback(o),
        "F5" => f5_timeout(tool, spec.error.as_deref(), o),
        "F6" => f6_denied_input(tool, spec.error.as_deref(), o),
        other => vec![check(false, "a known claim id", other.to_string())],
    }
}

fn records_of<'o>(o: &'o Observed<'_>, kind: &'o str) -> impl Iterator<Item = &'o Value> + 'o {
    o.observation
        .session
        .iter()
        .filter(move |r| r["type"] == kind)
}

fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Tool results the model got as errors, with their output text.
fn error_outputs(o: &Observed<'_>) -> Vec<String> {
    records_of(o, "toolResult")
        .filter(|r| r["isError"] == true)
        .map(|r| text_of(&r["output"]))
        .collect()
}

/// No result of `tool` succeeded, nothing bridged ran it, and no provider request carries its
/// success marker: the tool did not run.
fn did_not_run(tool: &str, o: &Observed<'_>) -> Vec<Check> {
    let succeeded = records_of(o, "toolResult")
        .filter(|r| r["toolName"] == tool && r["isError"] == false)
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
            succeeded == 0,
            format!("no successful {tool} result in the session log"),
            format!("{succeeded} successful result(s)"),
        ),
        check(
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
        found,
        format!("an error result containing {needles:?}"),
        format!("error results {errors:?}"),
    )
}

/// The catalogue entry named `tool` in the scenario's catalogue, if it has one.
fn catalogue_entry(scenario: &Scenario, tool: &str) -> Option<ToolEntry> {
    let mut all = fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size);
    all.extend(core_tools());
    all.into_iter().find(|t| t.name == tool)
}

fn f1_denied_never_surfaces(scenario: &Scenario, tool: &str, o: &Observed<'_>) -> Vec<Check> {
    let Some(entry) = catalogue_entry(scenario, tool) else {
        return vec![check(
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
            declared.is_empty(),
            format!("{name} declared in no provider request"),
            format!("declared in requests {declared:?}"),
        ),
        check(
            in_prompt.is_empty(),
            format!("{name} named in no system prompt or directory"),
            format!("named in requests {in_prompt:?}"),
        ),
        check(
            in_payload.is_empty(),
            format!("{} and its description in no provider payload", entry.id),
            format!("found in requests {in_payload:?}"),
        ),
        check(
            in_log.is_empty(),
            format!("{} in no session-log record or declared list", entry.id),
            format!("found in records {in_log:?}"),
        ),
    ];
    checks.extend(did_not_run(name, o));
    checks
}

fn system_text(body: &Value) -> String {
    let mut text = body
        .get("instructions")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    for item in body
        .get("input")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if matches!(
            item.get("role").and_then(Value::as_str),
            Some("system" | "developer")
        ) {
            text.push('\n');
            text.push_str(&crate::gateway::agent::item_text(item));
        }
    }
    text
}

/// `word` occurs in `text` with no identifier character on either side.
fn contains_word(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

fn f2_withdrawn(tool: &str, error: Option<&str>, o: &Observed<'_>) -> Vec<Check> {
    let error = error.unwrap_or("is no longer available in this run");
    let found_at_search = records_of(o, "toolResult").any(|r| {
        r["toolName"] == TOOL_SEARCH
            && r["isError"] == false
            && text_of(&r["output"]).contains(&format!("\"name\": \"{tool}\""))
    });
    let mut checks = vec![
        check(
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
        .observation
        .session
        .iter()
        .filter(|r| r["synthetic"] == true && r["toolCall"]["name"] == tool)
        .count();
    check(
        bridged == 0,
        format!("no bridged call of {tool}"),
        format!("{bridged} bridged call(s)"),
    )
}

fn f3_blocked(tool: &str, reason: Option<&str>, o: &Observed<'_>) -> Vec<Check> {
    let mut needles = vec!["Tool call blocked: "];
    needles.extend(reason);
    let mut checks = vec![error_reported(o, &needles)];
    let attempted = records_of(o, "toolResult").any(|r| r["toolName"] == tool);
    checks.push(check(
        attempted,
        format!("the session log records the attempt on {tool}"),
        format!("{attempted}"),
    ));
    checks.extend(did_not_run(tool, o));
    checks
}

fn f4_sandbox_fallback(o: &Observed<'_>) -> Vec<Check> {
    let surface = records_of(o, "surface").next();
    let mode = surface.map(|s| text_of(&s["mode"])).unwrap_or_default();
    let notes: Vec<String> = surface
        .and_then(|s| s["notes"].as_array())
        .map(|n| n.iter().map(text_of).collect())
        .unwrap_or_default();
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
                .any(|n| n == TOOL_SEARCH_CODE)
        })
        .map(|r| r.cursor as usize)
        .collect();
    let controls = [TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL];
    vec![
        check(
            mode == "tools",
            "surface mode tools",
            format!("mode {mode:?}"),
        ),
        check(
            fell_back,
            "surface notes say the code sandbox is unavailable and code fell back to tools",
            format!("notes {notes:?}"),
        ),
        check(
            controls.iter().all(|c| first.iter().any(|n| n == c)),
            format!("first request declares {controls:?}"),
            format!("{first:?}"),
        ),
        check(
            code_declared.is_empty(),
            "tool_search_code declared in no request",
            format!("declared in requests {code_declared:?}"),
        ),
    ]
}

fn f5_timeout(tool: &str, error: Option<&str>, o: &Observed<'_>) -> Vec<Check> {
    let error = error.unwrap_or("timed out");
    let code_error = records_of(o, "toolResult").any(|r| {
        r["toolName"] == TOOL_SEARCH_CODE
            && r["isError"] == true
            && text_of(&r["output"]).contains(error)
    });
    let late = records_of(o, "toolResult")
        .filter(|r| r.get("parentToolCallId").is_some())
        .count();
    let mut checks = vec![
        check(
            code_error,
            format!("tool_search_code failed with an error containing {error:?}"),
            format!("error results {:?}", error_outputs(o)),
        ),
        check(
            late == 0,
            "no bridged call after the timeout",
            format!("{late} bridged result(s)"),
        ),
    ];
    checks.extend(did_not_run(tool, o));
    checks
}

fn f6_denied_input(tool: &str, error: Option<&str>, o: &Observed<'_>) -> Vec<Check> {
    let invalid = format!("Invalid arguments for {tool}");
    let mut needles = vec![invalid.as_str()];
    needles.extend(error);
    let denied = format!("{} {tool}", crate::provider::model::DENIED_MARKER);
    let text = &o.figures.gateway_output_text;
    let mut checks = vec![
        error_reported(o, &needles),
        check(
            text.starts_with(&denied),
            format!("the model reported {denied:?}"),
            format!("answer {text:?}"),
        ),
        no_bridged_run(tool, o),
    ];
    checks.extend(did_not_run(tool, o));
    checks
}

/// T1: the lane's `expect` figures, exactly.
pub fn expected_figures(o: &Observed<'_>) -> Vec<Check> {
    let s = &o.figures.session_log;
    let e = o.lane.expect_for(o.target);
    let errors = error_outputs(o).len() as u64;
    let pairs: [(&str, Option<u64>, Option<u64>); 7] = [
        (
            "schemas up front",
            e.declared_tools.map(|n| n as u64),
            s.schemas_up_front.map(|n| n as u64),
        ),
        (
            "provider requests",
            e.provider_requests.map(|n| n as u64),
            Some(o.figures.provider_request_count as u64),
        ),
        ("searches", e.searches, Some(s.searches)),
        ("describes", e.describes, Some(s.describes)),
        ("calls", e.calls, Some(s.calls)),
        (
            "catalog size",
            e.catalog_size.map(|n| n as u64),
            s.catalog_size.map(|n| n as u64),
        ),
        ("tool errors", e.tool_errors.map(|n| n as u64), Some(errors)),
    ];
    pairs
        .into_iter()
        .filter_map(|(label, want, got)| {
            want.map(|want| {
                check(
                    got == Some(want),
                    format!("{label} = {want}"),
                    format!("{label} = {got:?}"),
                )
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{JournalRecord, RequestKind};
    use crate::suite::lane::LaneObservation;
    use crate::suite::scenario::parse_scenario;
    use serde_json::json;

    const SCENARIO: &str = "id='f'\ntitle='t'\nprompt='p'\ntarget_tool='fake_plugin_tool_17'\n\
        [catalog]\nplugin_id='tool-search-e2e-fixture'\nsize=36\n[[lanes]]\nname='tools'\n\
        tool_search={mode='tools'}\n";

    fn observation(request_body: Value, session: Vec<Value>) -> LaneObservation {
        let raw = request_body.to_string();
        let record = JournalRecord {
            cursor: 1,
            raw_byte_length: raw.len(),
            raw,
            body: request_body,
            prompt: String::new(),
            all_input_text: String::new(),
            tool_output: None,
            request_kind: RequestKind::AgentInitial,
            planned_tool_name: None,
            planned_wire_tool_name: None,
            planned_tool_args: None,
            outcome: "tool-call".into(),
        };
        LaneObservation {
            lane: "tools".into(),
            session_key: "k".into(),
            status: 200,
            response: json!({ "output": [] }),
            requests: vec![record.into()],
            session,
            elapsed: std::time::Duration::ZERO,
        }
    }

    fn f1_ok(o: &LaneObservation) -> bool {
        let scenario = parse_scenario(SCENARIO, "t.toml").expect("scenario");
        let observed = Observed {
            target: "embedded",
            lane: &scenario.lanes[0],
            observation: o,
            figures: o.figures(),
        };
        let spec = ClaimSpec {
            id: "F1".into(),
            tool: Some("fake_plugin_tool_17".into()),
            error: None,
            lanes: vec![],
        };
        checks(&scenario, &spec, &observed).iter().all(|c| c.ok)
    }

    #[test]
    fn f1_holds_on_a_clean_observation() {
        let clean = observation(
            json!({ "input": [], "tools": [{ "name": "tool_search" }] }),
            vec![],
        );
        assert!(f1_ok(&clean));
    }

    #[test]
    fn f1_fails_when_a_search_result_leaks_the_denied_id() {
        let output = "[{\"id\": \"openclaw:tool-search-e2e-fixture:fake_plugin_tool_17\"}]";
        let leaking = observation(
            json!({ "input": [{ "type": "function_call_output", "call_id": "c", "output": output }] }),
            vec![],
        );
        assert!(!f1_ok(&leaking));
    }

    #[test]
    fn f1_fails_when_the_denied_tool_is_declared_or_logged() {
        let declared = observation(
            json!({ "tools": [{ "name": "fake_plugin_tool_17" }] }),
            vec![],
        );
        assert!(!f1_ok(&declared));
        let logged = observation(
            json!({}),
            vec![json!({ "type": "surface", "declaredTools": ["fake_plugin_tool_17"] })],
        );
        assert!(!f1_ok(&logged));
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
