//! Loading scenario files: TOML (or JSON for scenarios built in code) into the typed
//! [`Scenario`]. Every error names the file, the line and the field, and says what was expected.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

use super::{
    CatalogSpec, ClaimId, ClaimSpec, Lane, LaneExpect, LaneOnOpenclaw, OnOpenclaw, Scenario,
    ScriptStep, REFERENCE_SCENARIO,
};
use crate::catalog::fake::fake_tool_name;
use crate::catalog::{ToolPolicy, ToolSource};
use crate::config::ToolSearchSettings;

#[derive(Debug, Error)]
pub enum ScenarioError {
    #[error("cannot read scenario file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("scenario file {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("scenario file {origin}: {}{message}", line_prefix(*.line))]
    Invalid {
        origin: String,
        /// 1-based line of the offending table, when known.
        line: Option<usize>,
        message: String,
    },
    #[error("unknown scenario {id:?}; known: {}", .known.join(", "))]
    Unknown { id: String, known: Vec<String> },
    #[error("scenario id {id:?} is defined twice: {first} and {second}")]
    Duplicate {
        id: String,
        first: String,
        second: String,
    },
}

fn line_prefix(line: Option<usize>) -> String {
    line.map(|l| format!("line {l}: ")).unwrap_or_default()
}

/// A scenario file as written (the serde mirror of [`Scenario`]).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioFile {
    id: String,
    title: String,
    #[serde(default)]
    objective: String,
    #[serde(default = "default_agent")]
    agent: String,
    prompt: String,
    target_tool: String,
    #[serde(default = "openclaw_source")]
    target_source: String,
    #[serde(default)]
    max_output_tokens: Option<u64>,
    catalog: CatalogSpec,
    #[serde(default)]
    policy: ToolPolicy,
    #[serde(default)]
    script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    claims: Vec<ClaimFile>,
    #[serde(default)]
    pending: Option<String>,
    #[serde(default)]
    openclaw: OnOpenclaw,
    lanes: Vec<LaneFile>,
}

fn openclaw_source() -> String {
    "openclaw".into()
}

fn default_agent() -> String {
    "main".into()
}

/// A `[[claims]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ClaimFile {
    id: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    lanes: Vec<String>,
}

/// A `[[lanes]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct LaneFile {
    name: String,
    tool_search: Value,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    provider_timeout_ms: Option<u64>,
    #[serde(default)]
    expect: LaneExpect,
    #[serde(default)]
    openclaw_expect: LaneExpect,
    #[serde(default)]
    openclaw: LaneOnOpenclaw,
}

/// The scenarios that ship with the binary/// The scenarios that ship with the binary: every `scenarios/*.toml`, by file name (found by
/// `build.rs`; adding a scenario needs no Rust edit).
const BUILT_IN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// Where the tables of a scenario file start, for errors that toml itself cannot place.
#[derive(Debug, Default, Deserialize)]
struct Spans {
    #[serde(default)]
    lanes: Vec<toml::Spanned<toml::Value>>,
    #[serde(default)]
    script: Vec<toml::Spanned<toml::Value>>,
    #[serde(default)]
    claims: Vec<toml::Spanned<toml::Value>>,
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()
        .iter()
        .take(offset)
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

/// Parses one scenario text; `origin` names it in errors.
pub fn parse_scenario(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let file: ScenarioFile = toml::from_str(text).map_err(|e| ScenarioError::Parse {
        origin: origin.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let spans: Spans = toml::from_str(text).unwrap_or_default();
    let line = |list: &[toml::Spanned<toml::Value>], i: usize| {
        list.get(i).map(|s| line_of(text, s.span().start))
    };
    resolve(file, origin).map_err(|(at, message)| ScenarioError::Invalid {
        origin: origin.to_string(),
        line: match at {
            At::Lane(i) => line(&spans.lanes, i),
            At::Script(i) => line(&spans.script, i),
            At::Claim(i) => line(&spans.claims, i),
            At::File => None,
        },
        message,
    })
}

/// A scenario given as JSON (same fields as the TOML file), for scenarios built in code.
pub fn scenario_from_json(value: Value, origin: &str) -> Result<Scenario, ScenarioError> {
    let file: ScenarioFile = serde_json::from_value(value).map_err(|e| ScenarioError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    resolve(file, origin).map_err(|(_, message)| ScenarioError::Invalid {
        origin: origin.to_string(),
        line: None,
        message,
    })
}

/// Which table a validation error is about.
enum At {
    File,
    Lane(usize),
    Script(usize),
    Claim(usize),
}

type Invalid = (At, String);

/// Checks every value of a file and types it.
fn resolve(file: ScenarioFile, origin: &str) -> Result<Scenario, Invalid> {
    if file.lanes.is_empty() && file.pending.is_none() {
        return Err((
            At::File,
            "`lanes` must list at least one lane (or say why not with `pending`)".into(),
        ));
    }
    if file
        .openclaw
        .not_applicable
        .as_ref()
        .is_some_and(|r| r.trim().is_empty())
    {
        return Err((
            At::File,
            "openclaw.not_applicable: say why the product cannot run this scenario".into(),
        ));
    }
    let mut lanes: Vec<Lane> = Vec::new();
    for (i, lane) in file.lanes.into_iter().enumerate() {
        lanes.push(resolve_lane(&lanes, i, lane).map_err(|m| (At::Lane(i), m))?);
    }
    if let Some(script) = &file.script {
        validate_script("script", script).map_err(|(i, m)| (At::Script(i), m))?;
    }
    let claims = file
        .claims
        .into_iter()
        .enumerate()
        .map(|(i, claim)| {
            resolve_claim(&lanes, claim).map_err(|m| (At::Claim(i), format!("claims[{i}]: {m}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let target_source = match file.target_source.as_str() {
        "openclaw" => ToolSource::Openclaw,
        "mcp" => ToolSource::Mcp,
        "client" => ToolSource::Client,
        other => {
            return Err((
                At::File,
                format!("target_source: expected openclaw, mcp or client, got {other:?}"),
            ))
        }
    };
    validate_client_tools(&file.catalog, &file.target_tool, target_source)
        .map_err(|m| (At::File, m))?;
    if let Some(unknown) = file
        .catalog
        .mcp
        .iter()
        .find(|s| !crate::mcp_fixture::ALL.contains(&s.as_str()))
    {
        return Err((
            At::File,
            format!(
                "catalog.mcp: unknown MCP fixture server {unknown:?}; expected one of {}",
                crate::mcp_fixture::ALL.join(", ")
            ),
        ));
    }
    if file.catalog.size == 0 {
        return Err((At::File, "catalog.size: expected at least 1".into()));
    }
    for (field, names) in [
        ("catalog.direct_only", &file.catalog.direct_only),
        ("catalog.broken", &file.catalog.broken),
    ] {
        if let Some(unknown) = names.iter().find(|n| !is_fake_tool(n, file.catalog.size)) {
            return Err((
                At::File,
                format!(
                    "{field}: {unknown:?} is not a tool of the fake plugin (its tools are {} … {})",
                    fake_tool_name(1, file.catalog.size),
                    fake_tool_name(file.catalog.size, file.catalog.size)
                ),
            ));
        }
    }
    Ok(Scenario {
        id: file.id,
        title: file.title,
        objective: file.objective,
        agent: file.agent,
        prompt: file.prompt,
        target_tool: file.target_tool,
        target_source,
        max_output_tokens: file.max_output_tokens,
        catalog: file.catalog,
        policy: file.policy,
        script: file.script,
        claims,
        pending: file.pending,
        openclaw: file.openclaw,
        lanes,
        origin: origin.to_string(),
    })
}

fn validate_client_tools(
    catalog: &CatalogSpec,
    target_tool: &str,
    target_source: ToolSource,
) -> Result<(), String> {
    let client = &catalog.client;
    if let Some(bad) = client.iter().find(|n| {
        n.is_empty()
            || !n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }) {
        return Err(format!(
            "catalog.client: {bad:?} is not a tool name (letters, digits, `_` and `-` only)"
        ));
    }
    if target_source == ToolSource::Client && !client.iter().any(|c| c == target_tool) {
        return Err(format!(
            "target_tool: {target_tool:?} has target_source client but is not in catalog.client"
        ));
    }
    Ok(())
}

/// Is `name` one of the `size` fake plugin tools (spelled at the catalogue's width)?
fn is_fake_tool(name: &str, size: usize) -> bool {
    name.strip_prefix("fake_plugin_tool_")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| (1..=size).contains(&n) && fake_tool_name(n, size) == name)
}

/// Lane `i`, checked against the lanes before it.
fn resolve_lane(before: &[Lane], i: usize, lane: LaneFile) -> Result<Lane, String> {
    let at = format!("lanes[{i}] ({})", lane.name);
    if before.iter().any(|l| l.name == lane.name) {
        return Err(format!("{at}: name {:?} is used twice", lane.name));
    }
    let settings = ToolSearchSettings::resolve(Some(&lane.tool_search))
        .map_err(|(field, message)| format!("{at}: {field}: {message}"))?;
    if lane.config.as_ref().is_some_and(|c| !c.is_object()) {
        return Err(format!(
            "{at}: config: expected a table of gateway config keys"
        ));
    }
    if let Some(script) = &lane.script {
        validate_script(&format!("{at}: script"), script).map_err(|(_, m)| m)?;
    }
    validate_on_openclaw(&at, &lane.openclaw)?;
    Ok(Lane {
        name: lane.name,
        tool_search: lane.tool_search,
        settings,
        config: lane.config,
        script: lane.script,
        stream: lane.stream,
        provider_timeout_ms: lane.provider_timeout_ms,
        expect: lane.expect,
        openclaw_expect: lane.openclaw_expect,
        openclaw: lane.openclaw,
    })
}

/// A lane's `openclaw` table: a reason, or what to run instead — not both, nothing empty.
fn validate_on_openclaw(at: &str, on: &LaneOnOpenclaw) -> Result<(), String> {
    let replaces = on.tool_search.is_some() || on.config.is_some();
    match &on.not_applicable {
        Some(reason) if reason.trim().is_empty() => Err(format!(
            "{at}: openclaw.not_applicable: say why the product cannot run this lane"
        )),
        Some(_) if replaces => Err(format!(
            "{at}: openclaw: not_applicable excludes tool_search and config"
        )),
        _ if on.config.as_ref().is_some_and(|c| !c.is_object()) => Err(format!(
            "{at}: openclaw.config: expected a table of gateway config keys"
        )),
        _ => Ok(()),
    }
}

fn validate_script(at: &str, script: &[ScriptStep]) -> Result<(), (usize, String)> {
    match script.iter().position(|step| step.to_turn().is_none()) {
        Some(i) => Err((
            i,
            format!("{at}[{i}]: expected either `tool` (with optional `arguments`) or `text`"),
        )),
        None => Ok(()),
    }
}

fn resolve_claim(lanes: &[Lane], claim: ClaimFile) -> Result<ClaimSpec, String> {
    let Some(id) = ClaimId::from_name(&claim.id).filter(|id| id.def().nameable) else {
        let known: Vec<&str> = ClaimId::ALL
            .iter()
            .filter(|id| id.def().nameable)
            .map(|id| id.as_str())
            .collect();
        return Err(format!(
            "id: unknown claim {:?}; expected one of {}",
            claim.id,
            known.join(", ")
        ));
    };
    if id.def().needs_tool && claim.tool.is_none() {
        return Err(format!("tool: claim {id} needs the tool it is about"));
    }
    if let Some(unknown) = claim
        .lanes
        .iter()
        .find(|l| !lanes.iter().any(|x| &&x.name == l))
    {
        return Err(format!("lanes: no lane named {unknown:?} in this scenario"));
    }
    Ok(ClaimSpec {
        id,
        tool: claim.tool,
        error: claim.error,
        lanes: claim.lanes,
    })
}

/// Loads the built-in scenarios (the reference first, then by file name) plus every `*.toml`
/// in `extra_dirs` (sorted by file name).
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Scenario>, ScenarioError> {
    let mut scenarios = Vec::new();
    for (origin, text) in BUILT_IN {
        scenarios.push(parse_scenario(text, origin)?);
    }
    // A stable sort: the reference moves to the front, the others keep file-name order.
    scenarios.sort_by_key(|s| s.id != REFERENCE_SCENARIO);
    for dir in extra_dirs {
        for path in toml_files(dir)? {
            let text = std::fs::read_to_string(&path).map_err(|source| ScenarioError::Read {
                path: path.clone(),
                source,
            })?;
            scenarios.push(parse_scenario(&text, &path.display().to_string())?);
        }
    }
    for (i, s) in scenarios.iter().enumerate() {
        if let Some(first) = scenarios[..i].iter().find(|o| o.id == s.id) {
            return Err(ScenarioError::Duplicate {
                id: s.id.clone(),
                first: first.origin.clone(),
                second: s.origin.clone(),
            });
        }
    }
    Ok(scenarios)
}

fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ScenarioError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Picks scenarios by id (all when `ids` is empty), in the order given.
pub fn select(all: Vec<Scenario>, ids: &[String]) -> Result<Vec<Scenario>, ScenarioError> {
    if ids.is_empty() {
        return Ok(all);
    }
    ids.iter()
        .map(|id| {
            all.iter()
                .find(|s| &s.id == id)
                .cloned()
                .ok_or_else(|| ScenarioError::Unknown {
                    id: id.clone(),
                    known: all.iter().map(|s| s.id.clone()).collect(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolSearchMode;

    #[test]
    fn built_in_scenarios_load() {
        let all = load_all(&[]).unwrap();
        let reference = all
            .iter()
            .find(|s| s.id == "tool-search-gateway-e2e")
            .unwrap();
        assert_eq!(reference.catalog.size, 36);
        assert_eq!(
            reference
                .lanes
                .iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>(),
            ["direct", "tools", "code", "directory"]
        );
        assert!(reference.lanes[0].is_direct());
        assert!(!reference.lanes[1].is_direct());
        assert_eq!(reference.lanes[2].mode(), ToolSearchMode::Code);
    }

    #[test]
    fn unknown_field_names_file_and_field() {
        let err = parse_scenario(
            "id = \"x\"\ntitle = \"t\"\nprompt = \"p\"\ntarget_tool = \"t\"\nbogus = 1\n",
            "s.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("scenario file s.toml: "), "{err}");
        assert!(err.contains("bogus"), "{err}");
    }

    #[test]
    fn bad_lane_mode_is_named() {
        let text =
            "id='x'\ntitle='t'\nprompt='p'\ntarget_tool='t'\n[catalog]\nplugin_id='p'\nsize=3\n\
                    [[lanes]]\nname='a'\ntool_search={mode='magic'}\n";
        let err = parse_scenario(text, "s.toml").unwrap_err().to_string();
        assert!(err.contains("lanes[0] (a): tools.toolSearch.mode"), "{err}");
    }

    #[test]
    fn unknown_scenario_lists_known_ones() {
        let err = select(load_all(&[]).unwrap(), &["nope".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown scenario \"nope\"; known: tool-search-gateway-e2e"),
            "{err}"
        );
    }
}
