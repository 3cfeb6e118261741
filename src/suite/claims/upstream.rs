//! Claims for bugs OpenClaw shipped (openclaw/openclaw issues, replayed by the `upstream-*`
//! scenarios; docs/regressions.md is the table per release). Each says what users needed where
//! the bug hit them:
//! - A1: a `tool_call` whose arguments are flattened beside `id`, or sit next to an empty `args`,
//!   still reaches the target with them (#96115, #143729: a missing-parameter loop);
//! - G1: the call bridge refuses a tool the model already has declared directly, with guidance to
//!   call it by name (#126460: models wrapped `read`/`exec` in the bridge and looped);
//! - K1: a call the gateway refuses is an error that says why (running it instead, as OpenClaw
//!   2026.9.3 does for `query` with `queries`, is fine too), the turn still ends with the model's
//!   answer (or, where the model retried the refused call and the gateway stopped it, as a
//!   failure the caller sees), the gateway reports the session idle, and the session takes its
//!   next turn (#135129: a silent turn, a stuck session);
//! - K2: a call that keeps failing ends the turn in a failure the caller sees, before the model's
//!   repeats run out (#141743: repeated unknown ids ran until killed, or ended as a success);
//! - S1: a search that matches nothing answers nothing (#114285: the whole catalogue came back);
//! - M1: once an MCP server has exited, a call of its tool is an error that names the server as
//!   gone, and the turn ends as a failure before the model's repeats run out (#137398: the model
//!   could not tell the outage from a typo and searched again and again).

use serde_json::Value;

use super::fail_closed::contains_word;
use super::ranking::listed;
use super::{check, names, show, Check, ClaimInput};
use crate::scenario::ScriptStep;
use crate::targets::SessionState;

/// The keys of a `tool_call` that select the tool or wrap its arguments.
const WRAPPER_KEYS: [&str; 5] = ["id", "toolId", "name", "args", "input"];

/// The lane's scripted calls of `tool` (a role's name on this surface), with their arguments.
fn scripted_calls(input: &ClaimInput<'_>, tool: &str) -> Vec<Value> {
    let script = input.lane.lane.script(input.scenario).unwrap_or_default();
    script
        .iter()
        .filter(|s| {
            s.tool
                .as_deref()
                .is_some_and(|t| bridge_name(input, t) == tool)
        })
        .map(arguments)
        .collect()
}

/// A script names the controls as the spec does; the lane's surface may name them otherwise.
fn bridge_name<'a>(input: &'a ClaimInput<'_>, scripted: &'a str) -> &'a str {
    let bridge = &input.lane.bridge;
    match scripted {
        "tool_call" => &bridge.call,
        "tool_search" => &bridge.search,
        "tool_describe" => &bridge.describe,
        other => other,
    }
}

fn arguments(step: &ScriptStep) -> Value {
    step.arguments
        .as_ref()
        .and_then(|a| serde_json::to_value(a).ok())
        .unwrap_or(Value::Null)
}

/// The script's final text: what the model answers once its calls are done.
fn final_text(input: &ClaimInput<'_>) -> Option<String> {
    let script = input.lane.lane.script(input.scenario)?;
    script.iter().find_map(|s| s.text.clone())
}

/// The arguments the target must receive from one scripted call: a non-empty `args`, else every
/// field beside the selector and the wrapper (upstream's reading since #114461 and #143729).
fn intended_args(call: &Value) -> Value {
    match call.get("args") {
        Some(Value::Object(o)) if !o.is_empty() => Value::Object(o.clone()),
        _ => Value::Object(
            call.as_object()
                .into_iter()
                .flatten()
                .filter(|(k, _)| !WRAPPER_KEYS.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
    }
}

/// Every leaf value of `args` as the text it has in a JSON result (strings bare).
fn leaf_texts(args: &Value) -> Vec<String> {
    match args {
        Value::Object(o) => o.values().flat_map(leaf_texts).collect(),
        Value::Array(a) => a.iter().flat_map(leaf_texts).collect(),
        Value::String(s) => vec![s.clone()],
        other => vec![other.to_string()],
    }
}

/// The results of the bridge's call tool, in order.
fn call_results(input: &ClaimInput<'_>) -> Vec<(bool, String)> {
    let call = &input.lane.bridge.call;
    input
        .lane
        .tool_results()
        .filter(|r| r.tool_name() == call)
        .map(|r| (r.is_error(), r.output_text()))
        .collect()
}

pub fn a1_arguments_intact(input: &ClaimInput<'_>) -> Vec<Check> {
    let call = input.lane.bridge.call.clone();
    let calls = scripted_calls(input, &call);
    if calls.is_empty() {
        return vec![check(
            "scripted",
            false,
            format!("the lane's script calls {call}"),
            "no scripted call",
        )];
    }
    let results = call_results(input);
    let target = input.tool();
    calls
        .iter()
        .enumerate()
        .map(|(i, scripted)| {
            let n = i + 1;
            let args = intended_args(scripted);
            let want = format!(
                "call {n} ({scripted}) runs {target} with {args}: a result with FAKE_PLUGIN_OK \
                 {target} and every value of it"
            );
            let got = results.get(i);
            let ok = got.is_some_and(|(error, text)| {
                !error
                    && text.contains("FAKE_PLUGIN_OK")
                    && contains_word(text, target)
                    && leaf_texts(&args).iter().all(|v| text.contains(v.as_str()))
            });
            let seen = match got {
                Some((true, text)) => format!("an error: {text}"),
                Some((false, text)) => text.clone(),
                None => format!("no result of {call} {n}"),
            };
            check(format!("call {n} arguments"), ok, want, seen)
        })
        .collect()
}

pub fn g1_direct_only_guided(input: &ClaimInput<'_>) -> Vec<Check> {
    let tool = input.tool();
    let declared = &input.lane.figures.provider_declared_tool_names;
    let mut checks = vec![check(
        "declared directly",
        declared.iter().any(|n| n == tool),
        format!("{tool} is declared in the first request"),
        format!("it declares {}", names(declared)),
    )];
    let call = input.lane.bridge.call.clone();
    let aimed = scripted_calls(input, &call)
        .iter()
        .filter(|c| c.get("id").and_then(Value::as_str) == Some(tool))
        .count();
    let results = call_results(input);
    checks.push(check(
        "bridged",
        aimed > 0 && results.len() == aimed,
        format!("the script's {aimed} {call} of {tool} each have a result"),
        format!("{} results of {call}", results.len()),
    ));
    for (i, (error, text)) in results.iter().enumerate() {
        let n = i + 1;
        let guided = contains_word(text, tool) && text.to_lowercase().contains("directly");
        checks.push(check(
            format!("call {n} refused with guidance"),
            *error && guided,
            format!("an error that names {tool} and says to call it directly"),
            match (error, guided) {
                (true, true) => "an error with guidance".to_string(),
                (true, false) => format!("an error that does not say to call {tool} directly"),
                (false, _) => "no error: the bridge ran it".to_string(),
            },
        ));
    }
    let ran: Vec<String> = input
        .lane
        .tool_results()
        .filter(|r| r.tool_name() == tool && r.parent_tool_call_id().is_some())
        .map(|r| r.output_text())
        .collect();
    checks.push(check(
        "not run through the bridge",
        ran.is_empty(),
        format!("no bridged result of {tool}"),
        format!("{} bridged results", ran.len()),
    ));
    checks
}

/// K1 with `max_result_bytes`: no tool result the model reads (error or not) is longer.
fn bounded_results(input: &ClaimInput<'_>, max: u64) -> Check {
    let sizes: Vec<u64> = input
        .lane
        .tool_results()
        .map(|r| r.output_text().len() as u64)
        .collect();
    let over: Vec<u64> = sizes.iter().copied().filter(|&n| n > max).collect();
    check(
        "bounded results",
        over.is_empty(),
        format!("every tool result the model reads is at most {max} bytes"),
        match over.first() {
            Some(first) => format!(
                "{} of {} results are longer, the first {first} bytes",
                over.len(),
                sizes.len()
            ),
            None => format!(
                "{} results, the longest {} bytes",
                sizes.len(),
                sizes.iter().max().unwrap_or(&0)
            ),
        },
    )
}

pub fn k1_turn_ends_cleanly(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane.observation;
    let error = input.error().unwrap_or("error");
    let refused: Vec<String> = input
        .lane
        .tool_results()
        .filter(|r| r.is_error())
        .map(|r| r.output_text())
        .collect();
    let answer = final_text(input);
    let unclear: Vec<&String> = refused.iter().filter(|t| !t.contains(error)).collect();
    let mut checks = vec![check(
        "clear error",
        unclear.is_empty(),
        format!(
            "every tool error the model reads says {error:?} (a gateway may run the call instead)"
        ),
        match unclear.first() {
            Some(first) => format!(
                "{} of {} errors do not, the first: {first}",
                unclear.len(),
                refused.len()
            ),
            None => format!("{} errors, each says it", refused.len()),
        },
    )];
    // A model that retries a refused call (the script's `retry_on_error`) may be stopped by the
    // gateway: a failed turn the caller sees ends the turn visibly too (K2 judges the loop).
    let retried = input
        .lane
        .lane
        .script(input.scenario)
        .unwrap_or_default()
        .iter()
        .any(|s| s.retry_on_error.is_some());
    let answered = |status: Option<&str>, text: String| {
        let reply = status == Some("completed")
            && answer.as_ref().is_some_and(|a| text.contains(a.as_str()))
            && !text.trim().is_empty();
        reply || retried && status == Some("failed")
    };
    let ended = match retried {
        true => "or a failed turn the caller sees (the gateway stopped the retries)",
        false => "",
    };
    checks.push(check(
        "turn answered",
        answered(o.response.status.as_deref(), o.response.text()),
        format!(
            "status completed with a visible reply, the model's answer {} {ended}",
            show(answer.as_ref())
        ),
        format!(
            "status {} and answer {:?}",
            show(o.response.status.as_ref()),
            o.response.text()
        ),
    ));
    if let Some(max) = input.max_result_bytes() {
        checks.push(bounded_results(input, max));
    }
    checks.push(not_left_running(o.session_state.as_ref()));
    if input.scenario.follow_up.is_some() {
        let next = o.follow_up.as_ref();
        checks.push(check(
            "next turn runs",
            next.is_some_and(|f| answered(f.response.status.as_deref(), f.response.text())),
            format!("the session's next turn completes with the model's answer {ended}"),
            match next {
                Some(f) => format!(
                    "HTTP {}, status {}, answer {:?}",
                    f.status,
                    show(f.response.status.as_ref()),
                    f.response.text()
                ),
                None => "no next turn".to_string(),
            },
        ));
    }
    checks
}

/// K1: once its turns answered, the session has no run in progress, as the gateway reports it.
/// A gateway that cannot say fails the check as unjudged: a stuck session must not pass unseen.
fn not_left_running(state: Option<&SessionState>) -> Check {
    let seen = match state {
        Some(SessionState::Idle) => "idle".to_string(),
        Some(SessionState::Running) => "still running".to_string(),
        Some(SessionState::Unjudged(why)) => format!("unjudged: {why}"),
        None => "unjudged: the session's state was not read".to_string(),
    };
    check(
        "session not left running",
        state == Some(&SessionState::Idle),
        "the gateway reports the session idle once its turns answered",
        seen,
    )
}

pub fn k2_failure_loop_bounded(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane.observation;
    let script = input.lane.lane.script(input.scenario).unwrap_or_default();
    let repeats = script.iter().filter(|s| s.tool.is_some()).count();
    let requests = input.lane.figures.provider_request_count;
    let success = final_text(input);
    let status = o.response.status.clone();
    let answer = o.response.text();
    vec![
        check(
            "stopped",
            repeats > 1 && requests < repeats,
            format!("fewer provider requests than the model's {repeats} repeated calls"),
            format!("{requests} requests"),
        ),
        check(
            "failure reported",
            status.as_deref() == Some("failed")
                && success
                    .as_ref()
                    .is_none_or(|s| !answer.contains(s.as_str())),
            format!(
                "a failed response, not the model's closing answer {}",
                show(success.as_ref())
            ),
            format!("status {} and answer {answer:?}", show(status.as_ref())),
        ),
    ]
}

/// Words that say a server is gone, one of which an outage's error must use (beside its name).
const GONE: [&str; 5] = [
    "unavailable",
    "not available",
    "disconnected",
    "not connected",
    "exited",
];

/// Does `text` name `server` as gone?
fn names_outage(text: &str, server: &str) -> bool {
    let lower = text.to_lowercase();
    contains_word(text, server) && GONE.iter().any(|w| lower.contains(w))
}

pub fn m1_mcp_outage_named(input: &ClaimInput<'_>) -> Vec<Check> {
    let call = input.lane.bridge.call.clone();
    let servers = &input.scenario.catalog.mcp;
    let results = call_results(input);
    let first = results.first();
    let mut checks = vec![check(
        "served before the exit",
        first.is_some_and(|(error, text)| !error && text.contains("FAKE_PLUGIN_OK")),
        format!("{call} 1 runs the MCP tool (FAKE_PLUGIN_OK) before its server exits"),
        match first {
            Some((true, text)) => format!("an error: {text}"),
            Some((false, text)) => text.clone(),
            None => format!("no result of {call}"),
        },
    )];
    let later = results.get(1..).unwrap_or_default();
    let unclear: Vec<&String> = later
        .iter()
        .filter(|(error, text)| !(*error && servers.iter().any(|s| names_outage(text, s))))
        .map(|(_, text)| text)
        .collect();
    checks.push(check(
        "outage named",
        !later.is_empty() && unclear.is_empty(),
        format!(
            "each later {call} is an error naming MCP server {} as {}",
            servers.join(", "),
            GONE.join(" or ")
        ),
        match unclear.first() {
            Some(text) => format!(
                "{} of {} do not, the first: {text}",
                unclear.len(),
                later.len()
            ),
            None => format!("{} later calls, each names it", later.len()),
        },
    ));
    checks.extend(k2_failure_loop_bounded(input));
    checks
}

pub fn s1_no_match_is_empty(input: &ClaimInput<'_>) -> Vec<Check> {
    let search = input.lane.bridge.search.clone();
    let scripted = scripted_calls(input, &search);
    let results: Vec<(bool, String)> = input
        .lane
        .tool_results()
        .filter(|r| r.tool_name() == search)
        .map(|r| (r.is_error(), r.output_text()))
        .collect();
    let mut checks = vec![check(
        "searched",
        !scripted.is_empty() && results.len() == scripted.len(),
        format!(
            "a result for each of the script's {} searches",
            scripted.len()
        ),
        format!("{} results", results.len()),
    )];
    for (i, (error, text)) in results.iter().enumerate() {
        let n = i + 1;
        let query = scripted
            .get(i)
            .and_then(|c| c.get("query"))
            .map_or_else(String::new, Value::to_string);
        let found = listed(text);
        checks.push(check(
            format!("search {n} empty"),
            !error && found.is_empty(),
            format!("search {n} ({query}) answers no tool"),
            match error {
                true => format!("an error: {text}"),
                false => format!("it lists {}", names(&found)),
            },
        ));
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn intended_args_read_upstreams_shapes() {
        let nested = json!({"id": "t", "args": {"marker": "a"}});
        assert_eq!(intended_args(&nested), json!({"marker": "a"}));
        let flat = json!({"id": "t", "marker": "b"});
        assert_eq!(intended_args(&flat), json!({"marker": "b"}));
        let beside = json!({"id": "t", "args": {}, "marker": "c"});
        assert_eq!(intended_args(&beside), json!({"marker": "c"}));
    }

    #[test]
    fn an_outage_is_named_with_its_server() {
        let ours =
            "MCP server qa-exit-after-call is unavailable: its process exited (exit status: 0)";
        assert!(names_outage(ours, "qa-exit-after-call"));
        // The tool's own name carries the server's as a prefix: that is no word of it.
        let unknown = "Unknown tool id: qa-exit-after-call__mcp_qa_echo. Tool unavailable.";
        assert!(!names_outage(unknown, "qa-exit-after-call"));
        assert!(!names_outage(
            "MCP server qa-exit-after-call: boom",
            "qa-exit-after-call"
        ));
    }

    #[test]
    fn leaf_texts_are_bare() {
        let args = json!({"marker": "x", "n": 2, "deep": {"k": ["y"]}});
        assert_eq!(leaf_texts(&args), ["x", "2", "y"]);
    }

    /// K1 holds the session to idle once its turns answered: running fails, and a state the
    /// gateway could not give (or that was not read) fails as unjudged, never passes.
    #[test]
    fn k1_reads_the_sessions_state() {
        use crate::scenario::ClaimId::K1;
        use crate::suite::claims::fixture::{fails, Fixture};
        let idle = "the gateway reports the session idle once its turns answered".to_string();
        let with = |state: Option<SessionState>| {
            let mut f =
                Fixture::tools_lane().scenario_extra("claims = [{ id = 'K1', error = 'x' }]");
            f.lane("tools").session_state = state;
            fails(&f, K1, "tools")
        };
        assert!(!with(Some(SessionState::Idle)).contains(&idle));
        assert!(with(Some(SessionState::Running)).contains(&idle));
        assert!(with(Some(SessionState::Unjudged("no row".into()))).contains(&idle));
        assert!(with(None).contains(&idle));
        let seen = not_left_running(Some(&SessionState::Unjudged("no row".into())));
        assert_eq!((seen.ok, seen.actual.as_str()), (false, "unjudged: no row"));
    }

    #[test]
    fn k1_bounds_every_result_when_asked() {
        use crate::scenario::ClaimId::K1;
        use crate::suite::claims::fixture::{fails, Fixture};
        let output = "tool_search_code child exited with 1: ".to_string() + &"x".repeat(64);
        let lane = |max: u64| {
            Fixture::tools_lane()
                .scenario_extra(&format!(
                    "claims = [{{ id = 'K1', error = 'exited', max_result_bytes = {max} }}]"
                ))
                .record(json!({ "type": "toolResult", "toolCallId": "c1",
                    "toolName": "tool_search_code", "isError": true, "output": output }))
        };
        let bound = |max: u64| format!("every tool result the model reads is at most {max} bytes");
        assert!(fails(&lane(64), K1, "tools").contains(&bound(64)));
        assert!(!fails(&lane(102), K1, "tools").contains(&bound(102)));
        assert!(!fails(&lane(1000), K1, "tools").contains(&bound(1000)));
        // Without the field, K1 bounds nothing.
        let f = Fixture::tools_lane()
            .scenario_extra("claims = [{ id = 'K1', error = 'exited' }]")
            .record(json!({ "type": "toolResult", "toolCallId": "c1",
                "toolName": "tool_search_code", "isError": true, "output": output }));
        assert!(fails(&f, K1, "tools")
            .iter()
            .all(|e| !e.contains("at most")));
    }
}
