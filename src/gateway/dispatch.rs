//! Turns one function call from the model into a tool output: a control tool (search, describe,
//! call, code), a directly visible tool, or (directory mode) a hidden tool called by its exact name.

use serde_json::{json, Value};

use super::code_mode::{CellRuntime, CodeRuntime};
use super::execute::{result_text, GatewayRunner};
use super::faults::Fault;
use crate::catalog::ToolSource;
use crate::engine::directory::exact_name_entry;
use crate::engine::surface::{Bridge, ControlRole};
use crate::engine::{EngineError, Surface};

/// What a function call produced for the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Dispatched {
    /// The `function_call_output.output` string.
    pub output: String,
    pub is_error: bool,
    /// Where the directly called tool came from (`None` for controls and unknown names).
    pub source: Option<ToolSource>,
    /// The call the nested calls it ran are recorded under, when not this one: a Code Mode
    /// `wait` resumes a cell whose calls belong to the `exec` that started it.
    pub nested_parent: Option<String>,
}

impl Dispatched {
    fn ok(output: String) -> Self {
        Dispatched {
            output,
            is_error: false,
            source: None,
            nested_parent: None,
        }
    }

    fn error(tool: &str, error: &EngineError) -> Self {
        let output =
            json!({ "status": "error", "tool": tool, "error": error.to_string() }).to_string();
        Dispatched {
            output,
            is_error: true,
            source: None,
            nested_parent: None,
        }
    }
}

/// What an unknown id's error suggests, in the surface's own names.
fn structured_hint(bridge: &Bridge) -> String {
    format!(
        "Use {} to find the right id, then {} or {} with it.",
        bridge.search, bridge.describe, bridge.call
    )
}

/// Runs one function call of the model against the run's surface.
pub async fn dispatch(
    surface: &Surface,
    runner: &GatewayRunner,
    code: Option<&CodeRuntime>,
    cells: Option<&CellRuntime>,
    call_id: &str,
    name: &str,
    arguments: &str,
) -> Dispatched {
    let args: Value = match serde_json::from_str(arguments) {
        Ok(v) => v,
        Err(e) => {
            return Dispatched::error(
                name,
                &EngineError::InvalidInput(format!("arguments are not valid JSON: {e}")),
            )
        }
    };
    if let (Some(_), Some(run)) = (&surface.code_mode, &surface.run) {
        if crate::engine::code_mode::CONTROLS.contains(&name) {
            return cell(cells, run, runner, call_id, name, &args).await;
        }
    }
    let result = match (surface.role(name), &surface.run) {
        (Some(role), Some(run)) => match role {
            ControlRole::Search => search(run, runner, &args).inspect(|_| {
                runner.after_search();
            }),
            ControlRole::Describe => describe(run, &args, &surface.bridge),
            ControlRole::Call => match declared_directly(surface, runner, &args) {
                Some(refusal) => Err(refusal),
                None => call(run, runner, call_id, &args).await,
            },
            ControlRole::Code => match code {
                Some(code) => match string_arg(&args, "code") {
                    Ok(source) => code.run(source, run, runner, call_id).await,
                    Err(e) => Err(e),
                },
                None => Err(EngineError::InvalidInput(format!(
                    "{name} has no sandbox on this gateway"
                ))),
            },
        },
        _ => return direct(surface, runner, name, &args).await,
    };
    match result {
        Ok(output) => Dispatched::ok(output),
        Err(e) => Dispatched::error(name, &e),
    }
}

fn pretty(value: &impl serde::Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

fn search(
    run: &crate::engine::ToolSearchRun,
    runner: &GatewayRunner,
    args: &Value,
) -> Result<String, EngineError> {
    let queries = args.get("queries").filter(|q| !q.is_null());
    if queries.is_some() && args.get("query").is_some_and(|q| !q.is_null()) {
        return Err(EngineError::InvalidInput(
            "pass exactly one of `query` (one search) or `queries` (a batch), not both".into(),
        ));
    }
    if let Some(queries) = queries {
        let mut result = run.search_batch(queries)?;
        if runner.seeded(Fault::BatchGroupsReversed) {
            if let Some(groups) = result["results"].as_array_mut() {
                groups.reverse();
            }
        }
        return Ok(pretty(&result));
    }
    let query = match args.get("query") {
        None | Some(Value::Null) => "",
        Some(Value::String(s)) => s.as_str(),
        Some(other) => {
            return Err(EngineError::InvalidInput(format!(
                "query must be a string, got {other}"
            )))
        }
    };
    if runner.seeded(Fault::WorstFirstRanker) {
        return worst_first(run, query, args.get("limit")).map(|items| pretty(&items));
    }
    let items = run.search(query, args.get("limit"))?;
    if items.is_empty() && runner.seeded(Fault::NoMatchReturnsAll) {
        let limit = run.catalog().resolve_limit(args.get("limit"))?;
        let all = run.catalog().entries().iter().take(limit);
        let names: Vec<Value> = all.map(|e| json!({ "id": e.id, "name": e.name })).collect();
        return Ok(pretty(&names));
    }
    Ok(pretty(&items))
}

/// The [`Fault::WorstFirstRanker`] seed: every match ranked, the worst `limit` returned first.
fn worst_first(
    run: &crate::engine::ToolSearchRun,
    query: &str,
    limit: Option<&Value>,
) -> Result<Vec<crate::engine::SearchItem>, EngineError> {
    let limit = run.catalog().resolve_limit(limit)?;
    let all = Value::from(run.catalog().limits().max_limit);
    let mut items = run.search(query, Some(&all))?;
    items.reverse();
    items.truncate(limit);
    Ok(items)
}

fn describe(
    run: &crate::engine::ToolSearchRun,
    args: &Value,
    bridge: &Bridge,
) -> Result<String, EngineError> {
    let id = string_arg(args, "id")?;
    run.describe(id, &structured_hint(bridge))
        .map(|item| pretty(&item))
}

async fn call(
    run: &crate::engine::ToolSearchRun,
    runner: &GatewayRunner,
    parent: &str,
    args: &Value,
) -> Result<String, EngineError> {
    let mut id = string_arg(args, "id")?;
    let mut target_args = target_args(args, runner.seeded(Fault::FlatArgsDropped))?;
    if runner.seeded(Fault::BridgeCallsNeighbour) {
        id = neighbour_id(run, id);
    }
    if runner.seeded(Fault::InputRepaired) {
        if let Ok(entry) = run.catalog().lookup(id) {
            if run.catalog().validate_input(entry, &target_args).is_err() {
                target_args = json!({ "marker": "repaired" });
            }
        }
    }
    run.call(id, target_args, parent, runner)
        .await
        .map(|envelope| pretty(&envelope))
}

/// The keys of a `tool_call` that select the tool or wrap its arguments, never its arguments.
const WRAPPER_KEYS: [&str; 5] = ["id", "toolId", "name", "args", "input"];

/// The target's arguments of a `tool_call`: a non-empty `args` object (the canonical shape);
/// else the call's other top-level fields, for a model that flattened them beside `id` or next
/// to an empty `args` (openclaw/openclaw#96115, #143729: dropping them made the target fail for
/// a missing parameter, again and again). `args_only` is the [`Fault::FlatArgsDropped`] seed.
fn target_args(args: &Value, args_only: bool) -> Result<Value, EngineError> {
    let nested = match args.get("args") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(o),
        Some(other) => {
            return Err(EngineError::InvalidInput(format!(
                "args must be an object, got {other}"
            )))
        }
    };
    if let Some(nested) = nested.filter(|o| !o.is_empty() || args_only) {
        return Ok(Value::Object(nested.clone()));
    }
    if args_only {
        return Ok(json!({}));
    }
    let flat = args.as_object().into_iter().flatten();
    let flat = flat.filter(|(key, _)| !WRAPPER_KEYS.contains(&key.as_str()));
    Ok(Value::Object(
        flat.map(|(k, v)| (k.clone(), v.clone())).collect(),
    ))
}

/// A `tool_call` of a tool the model already has declared directly (a direct-only or visible
/// core tool) is refused with guidance to call it by its name: wrapping such tools in the bridge
/// made models loop (openclaw/openclaw#126460). [`Fault::DirectOnlyBridged`] runs it instead.
fn declared_directly(
    surface: &Surface,
    runner: &GatewayRunner,
    args: &Value,
) -> Option<EngineError> {
    let id = args.get("id").and_then(Value::as_str)?;
    let visible = surface
        .visible
        .iter()
        .find(|t| t.name == id || t.id == id)?;
    (!runner.seeded(Fault::DirectOnlyBridged)).then(|| {
        EngineError::InvalidInput(format!(
            "{} is declared to you directly: call {} directly instead of through {}.",
            visible.name, visible.name, surface.bridge.call
        ))
    })
}

/// The id of the catalogue entry after the one `id` names (the [`Fault::BridgeCallsNeighbour`]
/// seed); `id` itself when it names none.
fn neighbour_id<'r>(run: &'r crate::engine::ToolSearchRun, id: &'r str) -> &'r str {
    let entries = run.catalog().entries();
    let Ok(entry) = run.catalog().lookup(id) else {
        return id;
    };
    let at = entries.iter().position(|e| e.id == entry.id).unwrap_or(0);
    entries
        .get((at + 1) % entries.len().max(1))
        .map_or(id, |e| e.id.as_str())
}

async fn direct(surface: &Surface, runner: &GatewayRunner, name: &str, args: &Value) -> Dispatched {
    let visible = surface.visible.iter().find(|t| t.name == name);
    let Some(entry) = visible.or_else(|| exact_name_entry(surface, name)) else {
        let error = EngineError::InvalidInput(format!("Tool {name} is not available to this run."));
        return Dispatched::error(name, &error);
    };
    let checked = match (visible, &surface.run) {
        (None, Some(run)) => resolved_by_name(run, runner, entry, args),
        _ => Ok(()),
    };
    let unguarded = visible.is_none() && runner.seeded(Fault::ExactNameSkipsGuards);
    let executed = match (checked, unguarded) {
        (Ok(()), false) => runner.execute(entry, args).await,
        (Ok(()), true) => runner.run_unguarded(entry, args).await,
        (Err(e), _) => Err(e),
    };
    match executed {
        Ok(outcome) => Dispatched {
            output: result_text(&outcome.result),
            is_error: false,
            source: Some(entry.source),
            nested_parent: None,
        },
        Err(e) => Dispatched {
            source: Some(entry.source),
            ..Dispatched::error(name, &e)
        },
    }
}

/// A hidden entry reached by exact name gets the checks a `tool_call` would: still available,
/// and (trusted tools only) arguments valid for its schema.
fn resolved_by_name(
    run: &crate::engine::ToolSearchRun,
    runner: &GatewayRunner,
    entry: &crate::catalog::ToolEntry,
    args: &Value,
) -> Result<(), EngineError> {
    use crate::engine::ToolRunner;
    if !runner.is_available(entry) && !runner.seeded(Fault::ExactNameSkipsAvailability) {
        return Err(EngineError::Unavailable {
            id: entry.id.clone(),
        });
    }
    match runner.seeded(Fault::ExactNameSkipsSchema) {
        true => Ok(()),
        false => run.catalog().validate_input(entry, args),
    }
}

fn string_arg<'v>(args: &'v Value, key: &str) -> Result<&'v str, EngineError> {
    args.get(key).and_then(Value::as_str).ok_or_else(|| {
        EngineError::InvalidInput(format!("`{key}` is required and must be a string."))
    })
}

/// Code Mode's `exec` (a cell; `command` is an alias of `code`) or `wait` (`runId`, alias
/// `run_id`): the result is the cell's compact JSON, an error when the cell failed.
async fn cell(
    cells: Option<&CellRuntime>,
    run: &crate::engine::ToolSearchRun,
    runner: &GatewayRunner,
    call_id: &str,
    name: &str,
    args: &Value,
) -> Dispatched {
    use super::code_mode::{CellResult, FailureCode, FailurePhase};
    let text = |key: &str| {
        args.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.trim().is_empty())
    };
    let mut nested_parent = None;
    let result = match (cells, name) {
        (None, _) => CellResult::Failed {
            error: "Code Mode has no executor on this gateway".into(),
            code: FailureCode::RuntimeUnavailable,
            phase: FailurePhase::Host,
            dispatched: false,
        },
        (Some(cells), crate::engine::code_mode::EXEC) => match (text("code"), text("command")) {
            (Some(a), Some(b)) if a != b => CellResult::Failed {
                error: "code and command must match when both are provided.".into(),
                code: FailureCode::InvalidInput,
                phase: FailurePhase::Input,
                dispatched: false,
            },
            (Some(code), _) | (None, Some(code)) => cells.exec(code, run, runner, call_id).await,
            (None, None) => CellResult::Failed {
                error: "code or command must be a non-empty string.".into(),
                code: FailureCode::InvalidInput,
                phase: FailurePhase::Input,
                dispatched: false,
            },
        },
        (Some(cells), _) => match text("runId").or_else(|| text("run_id")) {
            Some(id) => {
                let (result, parent) = cells.wait(id).await;
                nested_parent = parent;
                result
            }
            None => CellResult::Failed {
                error: "runId must be a non-empty string.".into(),
                code: FailureCode::InvalidInput,
                phase: FailurePhase::Input,
                dispatched: false,
            },
        },
    };
    Dispatched {
        output: result.render(run),
        is_error: result.is_error(),
        source: None,
        nested_parent,
    }
}
