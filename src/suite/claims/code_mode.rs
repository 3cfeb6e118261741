//! Code Mode's own claims (`tools.codeMode`: `exec` + `wait`), beside the regression claims read
//! with Code Mode's meaning: X1 precedence (Code Mode's surface wins wherever it engages, and only
//! there), X2 fail closed (an executor that cannot run fails the cell, declares no schema, runs
//! nothing), X3 the bounded quick index, X4 policy inside the guest (a denied tool can be neither
//! found nor called from a cell). Each reads only the provider journal and the session log.

use serde_json::Value;

use super::known::known_tools;
use super::regression::{declared_exactly, expected_declared};
use super::{check, names, show, Check, ClaimInput};
use crate::catalog::fake::FAKE_OK;
use crate::config::code_mode::{EXEC, WAIT};
use crate::config::Bridge;
use crate::drive::observation::Observed;
use crate::engine::code_mode::{
    INDEX_BOUND, INDEX_FOOTER_ALL, INDEX_FOOTER_OMITTED, INDEX_HEADING,
};
use crate::protocol::responses::declared_tool_names;
use crate::protocol::SessionRecord;

/// Tool Search's controls, by the spec's names (Code Mode drops every one of them).
fn tool_search_controls() -> Vec<String> {
    Bridge::spec()
        .all()
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The `exec` and `wait` results of the lane, parsed (inside an untrusted-content envelope).
fn cell_results(o: &Observed<'_>) -> Vec<(String, Value)> {
    o.tool_results()
        .filter(|r| r.tool_name() == EXEC || r.tool_name() == WAIT)
        .map(|r| {
            let text = r.output_text();
            let inside = crate::protocol::envelope::unwrap(&text).unwrap_or(&text);
            let value = serde_json::from_str(inside).unwrap_or(Value::Null);
            (r.tool_name().to_string(), value)
        })
        .collect()
}

/// The `exec` declaration's description in each request (`None`: not declared there).
fn exec_descriptions(o: &Observed<'_>) -> Vec<Option<String>> {
    o.observation
        .requests
        .iter()
        .map(|r| {
            let tools = r.body.get("tools").and_then(Value::as_array)?;
            let exec = tools
                .iter()
                .find(|t| t["name"] == EXEC || t["function"]["name"] == EXEC)?;
            let description = exec["description"]
                .as_str()
                .or_else(|| exec["function"]["description"].as_str())?;
            Some(description.to_string())
        })
        .collect()
}

/// X1: where Code Mode engages (`true`, or `"auto"` for a catalog-preferred model) every request
/// declares `exec` and `wait` and no Tool Search control; where it does not, no `wait` and the
/// lane's own Tool Search controls. The session log's surface record says the same.
pub fn x1_precedence(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let engaged = o.lane.code_mode_engaged().is_some();
    let ts = tool_search_controls();
    let own = o.lane.controls(&o.bridge);
    let mut checks = Vec::new();
    if o.observation.requests.is_empty() {
        return vec![check(
            "requests",
            false,
            "at least one provider request",
            "none",
        )];
    }
    for (i, request) in o.observation.requests.iter().enumerate() {
        let declared = declared_tool_names(&request.body);
        let has = |n: &str| declared.iter().any(|d| d == n);
        let search_controls: Vec<&String> = declared.iter().filter(|d| ts.contains(d)).collect();
        let (ok, expected) = match engaged {
            true => (
                has(EXEC) && has(WAIT) && search_controls.is_empty(),
                "exec and wait, and no Tool Search control (Code Mode engaged)".to_string(),
            ),
            false => (
                !has(WAIT) && own.iter().all(|c| has(c)),
                format!(
                    "no wait, and the lane's own controls {} (Code Mode not engaged)",
                    names(&own)
                ),
            ),
        };
        checks.push(check(
            format!("request {} surface", i + 1),
            ok,
            format!("request {} declares {expected}", i + 1),
            names(&declared),
        ));
    }
    let logged = o.records().iter().find_map(|r| match r {
        SessionRecord::Surface(s) => Some(s.code_mode),
        _ => None,
    });
    // A translated transcript that does not say is judged by the requests alone.
    if let Some(logged) = logged.filter(|_| o.target == crate::scenario::TargetKind::Embedded) {
        checks.push(check(
            "surface record",
            logged == engaged,
            format!("the session log's surface says codeMode = {engaged}"),
            format!("codeMode = {logged}"),
        ));
    }
    checks
}

/// X2: the executor cannot run, so every `exec` fails with `runtime_unavailable` before any
/// bridge dispatch, the surface is still exactly `exec` + `wait` + the direct-only tools (no
/// fallback to every schema), nothing nested ran and the target did not run.
pub fn x2_fails_closed(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let mut checks = declared_exactly(o, &expected_declared(scenario, o));
    let execs: Vec<Value> = cell_results(o)
        .into_iter()
        .filter(|(name, _)| name == EXEC)
        .map(|(_, v)| v)
        .collect();
    let failed_closed = |v: &Value| {
        v["status"] == "failed"
            && v["code"] == "runtime_unavailable"
            && v["bridgeDispatchStarted"] == Value::Bool(false)
    };
    checks.push(check(
        "exec failed closed",
        !execs.is_empty() && execs.iter().all(failed_closed),
        "at least one exec result, each failed with runtime_unavailable and no bridge dispatch",
        match execs.is_empty() {
            true => "no exec result".to_string(),
            false => execs
                .iter()
                .map(|v| format!("{} {}", v["status"], v["code"]))
                .collect::<Vec<_>>()
                .join("; "),
        },
    ));
    let nested = o
        .records()
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter(|m| m.synthetic)
        .count();
    checks.push(check(
        "nothing nested",
        nested == 0,
        "no nested (bridged) call in the session log",
        format!("{nested} nested call(s)"),
    ));
    let target = &scenario.target_tool;
    let marker = format!("{FAKE_OK} {target}");
    let ran = o
        .tool_results()
        .any(|r| r.tool_name() == target && !r.is_error());
    checks.push(check(
        "target did not run",
        !ran && !o.figures.gateway_output_text.contains(&marker),
        format!("no {target} result and no {marker:?} in the answer"),
        format!("result: {ran}; answer {:?}", o.figures.gateway_output_text),
    ));
    checks
}

/// The quick index in an `exec` description: from its heading to the end.
pub fn index_block(description: &str) -> Option<&str> {
    description.find(INDEX_HEADING).map(|at| &description[at..])
}

/// X3: every request's `exec` description carries the quick index, within its bound, with its
/// footer, holding no catalogued tool's description or schema and no MCP tool.
pub fn x3_bounded_index(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let descriptions = exec_descriptions(o);
    if descriptions.is_empty() {
        return vec![check(
            "requests",
            false,
            "at least one provider request",
            "none",
        )];
    }
    let known = known_tools(scenario, o.target);
    let mcp: Vec<String> = scenario
        .catalog
        .mcp_tool_names()
        .into_iter()
        .map(|(_, tool)| tool)
        .collect();
    let mut checks = Vec::new();
    for (i, description) in descriptions.iter().enumerate() {
        let n = i + 1;
        let Some(block) = description.as_deref().and_then(index_block) else {
            checks.push(check(
                format!("request {n} index"),
                false,
                format!("request {n} declares exec with the quick index ({INDEX_HEADING:?})"),
                match description {
                    Some(_) => "an exec description without it",
                    None => "no exec declared",
                },
            ));
            continue;
        };
        let chars = block.chars().count();
        checks.push(check(
            format!("request {n} bound"),
            chars <= INDEX_BOUND,
            format!("the index is at most {INDEX_BOUND} characters"),
            format!("{chars} characters"),
        ));
        let last = block.lines().last().unwrap_or("");
        let omitted = last.split_once(' ').is_some_and(|(count, rest)| {
            count.parse::<usize>().is_ok() && rest == INDEX_FOOTER_OMITTED
        });
        checks.push(check(
            format!("request {n} footer"),
            last == INDEX_FOOTER_ALL || omitted,
            "the index ends with its footer (all listed, or how many were omitted)",
            format!("{last:?}"),
        ));
        let described: Vec<&str> = known
            .iter()
            .filter(|t| t.description_mark().is_some_and(|d| block.contains(d)))
            .map(|t| t.name.as_str())
            .collect();
        let with_schema: Vec<&str> = known
            .iter()
            .filter(|t| t.schema_marks().iter().any(|m| block.contains(m.as_str())))
            .map(|t| t.name.as_str())
            .collect();
        checks.push(check(
            format!("request {n} no descriptions or schemas"),
            described.is_empty() && with_schema.is_empty(),
            "no catalogued tool's description or schema in the index",
            format!(
                "descriptions of {}; schemas of {}",
                names(&described),
                names(&with_schema)
            ),
        ));
        let listed_mcp: Vec<&String> = mcp
            .iter()
            .filter(|t| block.lines().any(|l| l.starts_with(&format!("- {t} "))))
            .collect();
        checks.push(check(
            format!("request {n} no MCP"),
            listed_mcp.is_empty(),
            "no MCP tool listed in the index",
            names(&listed_mcp),
        ));
    }
    checks
}

/// X4: the denied tool is not in the index, no cell's answer carries a handle of it, nothing
/// nested ran it and it did not run; and a cell did run (it had the chance).
pub fn x4_policy_in_guest(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let cells = cell_results(o);
    let mut checks = vec![check(
        "a cell ran",
        cells
            .iter()
            .any(|(name, v)| name == EXEC && v["status"] == "completed"),
        "at least one exec cell completed",
        format!(
            "{} cell result(s): {}",
            cells.len(),
            cells
                .iter()
                .map(|(_, v)| show(v["status"].as_str()))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )];
    let indexed = exec_descriptions(o).iter().flatten().any(|d| {
        index_block(d).is_some_and(|b| b.lines().any(|l| l.starts_with(&format!("- {tool} "))))
    });
    checks.push(check(
        "not indexed",
        !indexed,
        format!("{tool} is not in the exec quick index"),
        match indexed {
            true => "it is listed",
            false => "not listed",
        },
    ));
    let handle = format!("\"toolName\":\"{tool}\"");
    let found = cells.iter().any(|(_, v)| v.to_string().contains(&handle));
    checks.push(check(
        "not found",
        !found,
        format!("no cell answer carries a handle of {tool}"),
        match found {
            true => "a cell answer carries one",
            false => "none does",
        },
    ));
    let nested = o
        .records()
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter(|m| m.synthetic && m.tool_call.as_ref().is_some_and(|c| c.name == tool))
        .count();
    let succeeded = o
        .tool_results()
        .filter(|r| r.tool_name() == tool && !r.is_error())
        .count();
    checks.push(check(
        "not called",
        nested == 0 && succeeded == 0,
        format!("no nested call and no successful result of {tool}"),
        format!("{nested} nested call(s), {succeeded} successful result(s)"),
    ));
    checks
}
