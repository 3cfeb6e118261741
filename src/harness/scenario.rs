//! Scenarios: what one regression check runs, as data. Loaded from TOML files in `scenarios/`
//! (the built-in ones are compiled in) or from `--scenario-dir`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::catalog::ToolPolicy;

#[derive(Debug, Error)]
pub enum ScenarioError {
    #[error("cannot read scenario file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("scenario file {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("scenario file {origin}: {message}")]
    Invalid { origin: String, message: String },
    #[error("unknown scenario {id:?}; known: {}", .known.join(", "))]
    Unknown { id: String, known: Vec<String> },
    #[error("scenario id {id:?} is defined twice: {first} and {second}")]
    Duplicate {
        id: String,
        first: String,
        second: String,
    },
}

/// One scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub objective: String,
    /// Agent id sent as `x-openclaw-agent`.
    #[serde(default = "default_agent")]
    pub agent: String,
    /// The user message of the turn.
    pub prompt: String,
    /// The fake tool the turn must reach.
    pub target_tool: String,
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
    pub catalog: CatalogSpec,
    #[serde(default)]
    pub policy: ToolPolicy,
    pub lanes: Vec<Lane>,
    /// Where the scenario was loaded from (filled by the loader).
    #[serde(skip)]
    pub origin: String,
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
}

fn yes() -> bool {
    true
}

/// One gateway configuration the scenario runs under.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lane {
    pub name: String,
    /// The `tools.toolSearch` value: `false`, `true`, or a table such as `{ mode = "tools" }`.
    pub tool_search: toml::Value,
    /// Stream both ways: the gateway requests the provider with `stream: true`, and the harness
    /// asks the gateway for Server-Sent Events. Claims and snapshots are the same as without.
    #[serde(default)]
    pub stream: bool,
    /// How long the gateway waits for one provider response (`models.providers.<id>.timeoutMs`).
    #[serde(default)]
    pub provider_timeout_ms: Option<u64>,
    /// Exact figures the lane must show.
    #[serde(default)]
    pub expect: LaneExpect,
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
}

impl Lane {
    /// The lane's `tools.toolSearch` as JSON.
    pub fn tool_search_json(&self) -> serde_json::Value {
        serde_json::to_value(&self.tool_search).unwrap_or(serde_json::Value::Null)
    }

    /// Is Tool Search off in this lane?
    pub fn is_direct(&self) -> bool {
        crate::config::ToolSearchSettings::resolve(Some(&self.tool_search_json()))
            .map(|s| s.mode.is_none())
            .unwrap_or(false)
    }
}

/// The scenarios that ship with the binary.
const BUILT_IN: &[(&str, &str)] = &[(
    "scenarios/tool-search-gateway-e2e.toml",
    include_str!("../../scenarios/tool-search-gateway-e2e.toml"),
)];

/// Parses one scenario text; `origin` names it in errors.
pub fn parse_scenario(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    let mut scenario: Scenario = toml::from_str(text).map_err(|e| ScenarioError::Parse {
        origin: origin.to_string(),
        message: e.to_string().trim_end().to_string(),
    })?;
    scenario.origin = origin.to_string();
    validate(&scenario)?;
    Ok(scenario)
}

fn validate(s: &Scenario) -> Result<(), ScenarioError> {
    let invalid = |message: String| ScenarioError::Invalid {
        origin: s.origin.clone(),
        message,
    };
    if s.lanes.is_empty() {
        return Err(invalid("`lanes` must list at least one lane".into()));
    }
    for (i, lane) in s.lanes.iter().enumerate() {
        if s.lanes[..i].iter().any(|l| l.name == lane.name) {
            return Err(invalid(format!("lane name {:?} is used twice", lane.name)));
        }
        crate::config::ToolSearchSettings::resolve(Some(&lane.tool_search_json())).map_err(
            |(field, message)| invalid(format!("lanes[{i}] ({}): {field}: {message}", lane.name)),
        )?;
    }
    if s.catalog.size == 0 {
        return Err(invalid("catalog.size must be at least 1".into()));
    }
    Ok(())
}

/// Loads the built-in scenarios plus every `*.toml` in `extra_dirs` (sorted by file name).
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Scenario>, ScenarioError> {
    let mut scenarios = Vec::new();
    for (origin, text) in BUILT_IN {
        scenarios.push(parse_scenario(text, origin)?);
    }
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
            ["direct", "tools"]
        );
        assert!(reference.lanes[0].is_direct());
        assert!(!reference.lanes[1].is_direct());
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
