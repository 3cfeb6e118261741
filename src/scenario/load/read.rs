//! Reading: a scenario file as written (the serde mirror of
//! [`Scenario`](crate::scenario::Scenario)), the built-in files and a folder's `*.toml` files.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::ScenarioError;
use crate::catalog::ToolPolicy;
use crate::scenario::{CatalogSpec, Entry, LaneExpect, LaneOnOpenclaw, OnOpenclaw, ScriptStep};

/// A scenario file as written (the serde mirror of [`Scenario`](crate::scenario::Scenario)).
/// Every field is in the field table of `docs/scenarios.md` (a test holds the two together).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::scenario) struct ScenarioFile {
    pub(super) id: String,
    pub(super) title: String,
    #[serde(default)]
    pub(super) objective: String,
    #[serde(default = "default_agent")]
    pub(super) agent: String,
    pub(super) prompt: String,
    pub(super) target_tool: String,
    #[serde(default = "openclaw_source")]
    pub(super) target_source: String,
    #[serde(default)]
    pub(super) max_output_tokens: Option<u64>,
    #[serde(default)]
    pub(super) follow_up: Option<String>,
    #[serde(default)]
    pub(super) follow_up_entry: Option<Entry>,
    pub(super) catalog: CatalogSpec,
    #[serde(default)]
    pub(super) policy: ToolPolicy,
    #[serde(default)]
    pub(super) script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    pub(super) claims: Vec<ClaimFile>,
    #[serde(default)]
    pub(super) pending: Option<String>,
    #[serde(default)]
    pub(super) profile: Option<String>,
    #[serde(default)]
    pub(super) openclaw: OnOpenclaw,
    pub(super) lanes: Vec<LaneFile>,
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
pub(in crate::scenario) struct ClaimFile {
    pub(super) id: String,
    #[serde(default)]
    pub(super) tool: Option<String>,
    #[serde(default)]
    pub(super) error: Option<String>,
    #[serde(default)]
    pub(super) max_result_bytes: Option<u64>,
    #[serde(default)]
    pub(super) args: Option<Value>,
    #[serde(default)]
    pub(super) lanes: Vec<String>,
}

/// A `[[lanes]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::scenario) struct LaneFile {
    pub(super) name: String,
    /// Required, except on a native lane (whose catalogue the gateway plans).
    #[serde(default)]
    pub(super) tool_search: Option<Value>,
    /// `{ provider = "openai" | "anthropic", search = … }`: a native lane.
    #[serde(default)]
    pub(super) native: Option<crate::config::NativeSearchConfig>,
    /// `{ executor = "quickjs" | "node", enabled = true | "auto" }`: a Code Mode lane.
    #[serde(default)]
    pub(super) code_mode: Option<crate::config::CodeModeSettings>,
    /// The lane's model is catalog-preferred (`compat.codeMode = "preferred"`).
    #[serde(default)]
    pub(super) catalog_preferred: bool,
    #[serde(default)]
    pub(super) config: Option<Value>,
    #[serde(default)]
    pub(super) script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    pub(super) stream: bool,
    #[serde(default)]
    pub(super) provider_timeout_ms: Option<u64>,
    /// An earlier lane whose first request's `tools[]` this lane's must repeat byte for byte (P1).
    #[serde(default)]
    pub(super) twin: Option<String>,
    #[serde(default)]
    pub(super) expect: LaneExpect,
    #[serde(default)]
    pub(super) openclaw_expect: LaneExpect,
    #[serde(default)]
    pub(super) openclaw: LaneOnOpenclaw,
}

/// The scenarios that ship with the binary: every `scenarios/*.toml`, by file name (found by
/// `build.rs`; adding a scenario needs no Rust edit).
pub(super) const BUILT_IN: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// The folder a scenario file is in (`.` for a bare file name).
pub(super) fn load_file_dir(path: &Path) -> Option<PathBuf> {
    path.parent().map(|dir| match dir.as_os_str().is_empty() {
        true => PathBuf::from("."),
        false => dir.to_path_buf(),
    })
}

/// The `*.toml` files of `dir`, sorted by name.
pub fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
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
