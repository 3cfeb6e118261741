//! Scenarios: what one regression check runs, as data. Loaded from TOML files in `scenarios/`
//! (the built-in ones are compiled in) or from `--scenario-dir`.
//!
//! A scenario author never writes Rust: the file names the catalogue, the policy, the lanes (each a
//! gateway config: Tool Search mode, sandbox, config overrides), the prompt, an optional model
//! script, and the exact expectations (claims with parameters, counts). Every error names the file,
//! the line and the field, and says what was expected. `docs/authoring-scenarios.md` is the guide.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

use super::claims::ClaimId;
use crate::catalog::{ToolPolicy, ToolSource};
use crate::config::{ToolSearchMode, ToolSearchSettings};
use crate::provider::ScriptedTurn;
use crate::targets::TargetKind;

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

/// One scenario, resolved: every value checked and typed when the file loaded.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub objective: String,
    /// Agent id sent as `x-openclaw-agent`.
    pub agent: String,
    /// The user message of the turn.
    pub prompt: String,
    /// The fake tool the turn must reach.
    pub target_tool: String,
    /// Where the target comes from; C6 checks the session log says so.
    pub target_source: ToolSource,
    pub max_output_tokens: Option<u64>,
    pub catalog: CatalogSpec,
    pub policy: ToolPolicy,
    /// An explicit model script for every lane (a lane's own `script` wins). Unset: the mock
    /// follows the directive in the prompt.
    pub script: Option<Vec<ScriptStep>>,
    /// The claims to evaluate, with their parameters. Empty: the regression claims C1–C6.
    pub claims: Vec<ClaimSpec>,
    /// Why the scenario has no runnable lane yet (e.g. it needs a sandbox this build lacks).
    pub pending: Option<String>,
    pub lanes: Vec<Lane>,
    /// Where the scenario was loaded from.
    pub origin: String,
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
    lanes: Vec<LaneFile>,
}

fn openclaw_source() -> String {
    "openclaw".into()
}

fn default_agent() -> String {
    "main".into()
}

/// The catalogue the gateway loads.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogSpec {
    pub plugin_id: String,
    pub size: usize,
    #[serde(default = "yes")]
    pub core_tools: bool,
    /// Description of every fake tool; `{n}` is its number and `{name}` its name. Unset: the
    /// reference run's three sentences.
    #[serde(default)]
    pub description_template: Option<String>,
    /// Fake tool names kept visible to the model (`catalogMode: "direct-only"`).
    #[serde(default)]
    pub direct_only: Vec<String>,
    /// MCP fixture servers to attach, each under its own name (e.g. `["calendar", "qa"]`): the
    /// project's own MCP servers, listed with `tools/list` and run with `tools/call`.
    #[serde(default)]
    pub mcp: Vec<String>,
    /// Client tools the caller sends with the turn (`tools` of the `/v1/responses` request), by
    /// name; the gateway catalogues them as `client:client:<name>` and never runs them.
    #[serde(default)]
    pub client: Vec<String>,
}

fn yes() -> bool {
    true
}

/// One turn of an explicit model script: a tool call (`tool` + `arguments`) or a text answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub arguments: Option<toml::Value>,
    #[serde(default)]
    pub text: Option<String>,
}

impl ScriptStep {
    /// The mock provider's form of this turn; `None` when the step is neither a call nor a text.
    pub fn to_turn(&self) -> Option<ScriptedTurn> {
        match (&self.tool, &self.text) {
            (Some(name), None) => Some(ScriptedTurn::ToolCall {
                name: name.clone(),
                arguments: self
                    .arguments
                    .as_ref()
                    .and_then(|a| serde_json::to_value(a).ok())
                    .unwrap_or_else(|| serde_json::json!({})),
            }),
            (None, Some(text)) if self.arguments.is_none() => {
                Some(ScriptedTurn::Text(text.clone()))
            }
            _ => None,
        }
    }
}

/// A claim to evaluate, with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSpec {
    pub id: ClaimId,
    /// The tool the claim is about (F1 denied, F2 withdrawn, F3 blocked, F5/F6 targeted).
    pub tool: Option<String>,
    /// Text the error or block reported to the model must contain.
    pub error: Option<String>,
    /// Lanes the claim applies to; empty: every lane.
    pub lanes: Vec<String>,
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

/// One gateway configuration the scenario runs under.
#[derive(Debug, Clone)]
pub struct Lane {
    pub name: String,
    /// The `tools.toolSearch` value as written (`false`, `true`, or a table such as
    /// `{ mode = "tools" }`), for the gateway configs of every target.
    pub tool_search: Value,
    /// The same value resolved (spec §2): every decision about the lane reads this.
    pub settings: ToolSearchSettings,
    /// Overrides deep-merged into the lane's gateway config (JSON5 key names), e.g.
    /// `{ tools = { approvals = [...] } }` or `{ catalog = { withdrawAfterSearch = [...] } }`.
    pub config: Option<Value>,
    /// This lane's own model script (wins over the scenario's).
    pub script: Option<Vec<ScriptStep>>,
    /// Stream both ways: the gateway requests the provider with `stream: true`, and the harness
    /// asks the gateway for Server-Sent Events. Claims and snapshots are the same as without.
    pub stream: bool,
    /// How long the gateway waits for one provider response (`models.providers.<id>.timeoutMs`).
    pub provider_timeout_ms: Option<u64>,
    /// Exact figures the lane must show on the embedded target.
    pub expect: LaneExpect,
    /// Exact figures the lane must show on a real OpenClaw gateway (its own core tools differ).
    pub openclaw_expect: LaneExpect,
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
}

/// Exact expectations for one lane; unset ones are not checked.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneExpect {
    pub declared_tools: Option<usize>,
    pub provider_requests: Option<usize>,
    pub searches: Option<u64>,
    pub describes: Option<u64>,
    pub calls: Option<u64>,
    pub catalog_size: Option<usize>,
    /// Tool results reported to the model as errors (blocks, validation, unavailability).
    pub tool_errors: Option<usize>,
}

impl LaneExpect {
    /// Is any figure set?
    pub fn is_set(&self) -> bool {
        self.declared_tools.is_some()
            || self.provider_requests.is_some()
            || self.searches.is_some()
            || self.describes.is_some()
            || self.calls.is_some()
            || self.catalog_size.is_some()
            || self.tool_errors.is_some()
    }
}

impl Lane {
    /// A lane with `tools.toolSearch = tool_search` and nothing else set; the value must resolve.
    pub fn new(name: &str, tool_search: Value) -> Result<Lane, String> {
        let settings = ToolSearchSettings::resolve(Some(&tool_search))
            .map_err(|(field, message)| format!("{field}: {message}"))?;
        Ok(Lane {
            name: name.to_string(),
            tool_search,
            settings,
            config: None,
            script: None,
            stream: false,
            provider_timeout_ms: None,
            expect: LaneExpect::default(),
            openclaw_expect: LaneExpect::default(),
        })
    }

    /// The expectations for a target.
    pub fn expect_for(&self, target: TargetKind) -> &LaneExpect {
        match target {
            TargetKind::Openclaw => &self.openclaw_expect,
            TargetKind::Embedded => &self.expect,
        }
    }

    /// The mode the lane's configured `tools.toolSearch` asks for (`Direct` when off).
    pub fn mode(&self) -> ToolSearchMode {
        self.settings.mode
    }

    /// The control tools the lane's configured mode needs (none when Tool Search is off).
    pub fn controls(&self) -> Vec<String> {
        let controls = self.mode().controls();
        controls.iter().map(|c| c.to_string()).collect()
    }

    /// The model script this lane runs under, if any.
    pub fn script<'a>(&'a self, scenario: &'a Scenario) -> Option<&'a [ScriptStep]> {
        self.script.as_deref().or(scenario.script.as_deref())
    }

    /// Is Tool Search off in this lane?
    pub fn is_direct(&self) -> bool {
        !self.mode().is_tool_search()
    }
}

/// The scenarios that ship with the binary: every `scenarios/*.toml`, by file name (found by
/// `build.rs`; adding a scenario needs no Rust edit).
const BUILT_IN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// The reference run's scenario; listed and run first.
pub const REFERENCE_SCENARIO: &str = "tool-search-gateway-e2e";

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
    if file.catalog.size == 0 {
        return Err((At::File, "catalog.size: expected at least 1".into()));
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
    })
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

/// The `list` command: one line per scenario (id, title, lanes, origin).
pub fn list(dirs: &[PathBuf], out: &mut dyn std::io::Write) -> Result<u8, crate::error::Error> {
    let mut text = String::new();
    for s in load_all(dirs)? {
        let lanes: Vec<&str> = s.lanes.iter().map(|l| l.name.as_str()).collect();
        text.push_str(&format!(
            "{}\t{}\tlanes: {}\t({})\n",
            s.id,
            s.title,
            lanes.join(", "),
            s.origin
        ));
    }
    crate::output::emit(out, &text)?;
    Ok(crate::error::Exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

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
