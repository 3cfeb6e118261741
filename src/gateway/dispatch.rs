//! Turns one function call from the model into a tool output: a control tool (search, describe,
//! call, code), a directly visible tool, or (directory mode) a hidden tool called by its exact name.

use serde_json::{json, Value};

use super::code_mode::CodeRuntime;
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
}

impl Dispatched {
    fn ok(output: String) -> Self {
        Dispatched {
            output,
            is_error: false,
            source: None,
        }
    }

    fn error(tool: &str, error: &EngineError) -> Self {
        let output =
            json!({ "status": "error", "tool": tool, "error": error.to_string() }).to_string();
        Dispatched {
            output,
            is_error: true,
            source: None,
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
    let result = match (surface.role(name), &surface.run) {
        (Some(role), Some(run)) => match role {
            ControlRole::Search => search(run, runner, &args).inspect(|_| {
                runner.after_search();
            }),
            ControlRole::Describe => describe(run, &args, &surface.bridge),
            ControlRole::Call => call(run, runner, call_id, &args).await,
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
    if let Some(queries) = args.get("queries").filter(|q| !q.is_null()) {
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
    run.search(query, args.get("limit"))
        .map(|items| pretty(&items))
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
    let mut target_args = match args.get("args") {
        None | Some(Value::Null) => json!({}),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            return Err(EngineError::InvalidInput(format!(
                "args must be an object, got {other}"
            )))
        }
    };
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
