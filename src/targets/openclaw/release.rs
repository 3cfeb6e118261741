//! One OpenClaw release's Tool Search surface as data (`data/releases/openclaw-<v>.toml`): which
//! modes exist and what a lane writes to get each, the `tools.toolSearch` keys it accepts, the
//! bridge tool per mode, the tools declared in every mode, the directory's heading, the id forms
//! its snapshots redact, the transcript table's shape, and its Code Mode (`[code_mode]`: how
//! `tools.codeMode` is read, its executors, controls and direct-only tools; absent before
//! 2026.8.1). Claims, the config writer and the
//! transcript reader take these facts from here, found by version in the
//! [`super::catalogue::ReleaseCatalogue`], so adopting a release is writing its files, not
//! changing code.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::config::{Bridge, CodeModeExecutor, CodeModeSettings, ToolSearchMode, ToolSearchRules};
use crate::scenario::place::{deserialize_toml, Field, Places};

/// An OpenClaw version as npm publishes it: `2026.9.6`, or with a suffix (`2026.7.1-beta.2`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Version {
    /// year, month, patch.
    numbers: [u32; 3],
    /// What follows the numbers (`-beta.2`), empty for a release; compared after them.
    suffix: String,
}

impl Version {
    /// The version's numbers (`[2026, 9, 6]`).
    pub fn numbers(&self) -> [u32; 3] {
        self.numbers
    }

    /// True for a prerelease or rebuild (`2026.7.1-beta.2`, `2026.3.23-1`).
    pub fn has_suffix(&self) -> bool {
        !self.suffix.is_empty()
    }
}

/// A text that is not an OpenClaw version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not an OpenClaw version (expected YEAR.MONTH.PATCH, e.g. 2026.9.6)")]
pub struct BadVersion {
    pub text: String,
}

impl FromStr for Version {
    type Err = BadVersion;

    fn from_str(text: &str) -> Result<Version, BadVersion> {
        let bad = || BadVersion {
            text: text.to_string(),
        };
        let (core, suffix) = match text.find('-') {
            Some(at) => (&text[..at], &text[at..]),
            None => (text, ""),
        };
        let suffix_ok = suffix
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.');
        let mut numbers = [0u32; 3];
        let mut parts = core.split('.');
        for slot in &mut numbers {
            let part = parts.next().ok_or_else(bad)?;
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            *slot = part.parse().map_err(|_| bad())?;
        }
        if parts.next().is_some() || !suffix_ok || suffix == "-" {
            return Err(bad());
        }
        Ok(Version {
            numbers,
            suffix: suffix.to_string(),
        })
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [y, m, p] = self.numbers;
        write!(f, "{y}.{m}.{p}{}", self.suffix)
    }
}

/// As its text (`"2026.9.6"`).
impl Serialize for Version {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Version {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Version, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One mode of a release: what a lane writes to get it (the tools it adds are the release's
/// [`Release::bridge`] tools of that mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeFacts {
    /// The `tools.toolSearch` value that selects this mode (`false`, `true`, `{ mode = "tools" }`).
    pub tool_search: toml::Value,
    /// Whether this mode's prompt shows the capability directory (2026.7.x: directory mode only;
    /// D1 then looks for it there and for its absence elsewhere).
    #[serde(default = "yes")]
    pub directory: bool,
    /// The most catalogued tools this mode declares besides its controls, picked per turn from
    /// the prompt by the release's own keyword rules (2026.7.x directory mode: 4,
    /// `estimateToolSchemaDirectoryToolNames`, never an MCP server's tool); none: it declares no
    /// catalogued tool. C4 judges what was declared by it.
    #[serde(default)]
    pub prompt_chosen: Option<usize>,
}

impl ModeFacts {
    /// [`Self::tool_search`] as the JSON the config file gets.
    pub fn tool_search_json(&self) -> Value {
        serde_json::to_value(&self.tool_search).unwrap_or(Value::Null)
    }
}

/// Where the release records a session's events (SQLite).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranscriptShape {
    /// The table of events (`transcript_events`).
    pub table: String,
    /// The column holding zstd-compressed events, when the release has one (`event_zstd`).
    #[serde(default)]
    pub compressed_column: Option<String>,
    /// How the transcript records a call the bridge made for the model.
    #[serde(default)]
    pub bridged_call: BridgedCallShape,
}

/// How a release's transcript records the call its bridge (`tool_call`) made for the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BridgedCallShape {
    /// A message of its own (`custom`, `customType: "openclaw.nested-tool.v1"`, with the
    /// target's result and `parentToolCallId`): 2026.8 and later.
    #[default]
    NestedTool,
    /// Only inside the bridge's result: its `{ tool, result }` envelope names the target and
    /// carries what it answered (2026.5.12: no record of its own).
    Envelope,
}

/// How the release's config declares the run's agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AgentsShape {
    /// `agents.entries.<id> = {}` (2026.8 and later).
    Entries,
    /// `agents.list = [{ id = "<id>" }]` (2026.7 and earlier refuse `entries`).
    List,
}

/// The config keys the harness writes that differ between releases (both must be given).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigShape {
    /// How the agent is declared.
    pub agents: AgentsShape,
    /// The release knows `models.catalogRefresh` (the harness switches it off); a release that
    /// does not refuses the key.
    pub catalog_refresh: bool,
    /// The release's MCP server schema knows `transport = "stdio"`; one that does not (2026.5.12
    /// accepts only `sse` and `streamable-http`, a server with a `command` being stdio) refuses
    /// the key, so it is left out.
    #[serde(default = "yes")]
    pub mcp_stdio_transport: bool,
    /// Keys every lane's config gets besides the harness's own, merged before a scenario's
    /// overrides: what this release must be told so that nothing but the lane's turn reaches
    /// the mock provider (2026.8.2's background Skill Workshop review, say).
    #[serde(default)]
    pub settings: Option<Value>,
}

fn yes() -> bool {
    true
}

/// The shape of 2026.8 and later (what a config built without a release gets).
impl Default for ConfigShape {
    fn default() -> Self {
        ConfigShape {
            agents: AgentsShape::Entries,
            catalog_refresh: true,
            mcp_stdio_transport: true,
            settings: None,
        }
    }
}

/// One id form a release's prompts or transcripts carry that differs per run, and what its
/// snapshots show instead (a regex and its replacement, `${1}` naming a group).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RedactionFacts {
    pub pattern: String,
    pub with: String,
}

/// What an absent `tools.codeMode` means to a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeModeUnset {
    /// Code Mode stays off (2026.8.1–2026.9.5: `normalizeCodeModeRawConfig(...) ?? {}`).
    Off,
    /// The `"auto"` tier: on for a catalog-preferred model only (2026.9.6).
    Auto,
}

/// The `tools.codeMode` key that picks the executor, and how it spells one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExecutorKey {
    /// `runtime: "quickjs-wasi"`, its only value (2026.8.1–2026.9.5).
    Runtime,
    /// `executor: "node" | "quickjs"` (2026.9.6).
    Executor,
}

impl ExecutorKey {
    /// The key's name in `tools.codeMode`.
    pub fn key(self) -> &'static str {
        match self {
            ExecutorKey::Runtime => "runtime",
            ExecutorKey::Executor => "executor",
        }
    }

    /// The value that picks `executor` under this key.
    pub fn value(self, executor: CodeModeExecutor) -> &'static str {
        match (self, executor) {
            (ExecutorKey::Runtime, _) => "quickjs-wasi",
            (ExecutorKey::Executor, e) => e.as_str(),
        }
    }
}

/// The wall clock one `exec` or `wait` gets on the product (its default is 10 s; worker start-up
/// and QuickJS's WASM compilation count against it, which a loaded two-core machine can use up).
pub const CODE_MODE_TIMEOUT_MS: u64 = 30_000;

/// A release's Code Mode (`[code_mode]`), read from its own dist: how `tools.codeMode` is read
/// and what the model is shown when it is on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeModeFacts {
    /// What an absent `tools.codeMode` means.
    pub unset_means: CodeModeUnset,
    /// The key that picks the executor.
    pub executor_key: ExecutorKey,
    /// The executors a lane may pick.
    pub executors: Vec<CodeModeExecutor>,
    /// The executor an object without the key gets.
    pub default_executor: CodeModeExecutor,
    /// The keys of a `tools.codeMode` object it accepts (its zod schema is strict).
    pub keys: Vec<String>,
    /// Whether it has the `"auto"` tier (`enabled: "auto"`, on for a model whose catalogue
    /// entry says `compat.codeMode = "preferred"`); 2026.7.35's `enabled` is boolean only and
    /// its model schema has no `compat.codeMode`, so a lane of the auto tier is not applicable.
    #[serde(default = "yes")]
    pub auto_tier: bool,
    /// The control tools' names: the code cell first, then the resume tool.
    pub controls: Vec<String>,
    /// The tools declared beside the controls when Code Mode is on (catalogue mode
    /// `direct-only`, as the harness's gateway offers them).
    pub direct_only: Vec<String>,
    /// The plugin that provides an executor, by executor name (2026.9.6: `quickjs` is the
    /// bundled `code-mode-quickjs`); an executor not named is built in, so no `plugins.deny`
    /// can make it unavailable (before 2026.9.6 QuickJS-WASI is a dependency of the package).
    #[serde(default)]
    pub executor_plugins: BTreeMap<String, String>,
}

impl CodeModeFacts {
    /// The code cell's tool (`exec`).
    pub fn exec(&self) -> &str {
        &self.controls[0]
    }

    /// The resume tool (`wait`).
    pub fn wait(&self) -> &str {
        &self.controls[1]
    }

    /// Every tool a Code Mode request declares: the controls and the direct-only tools, sorted.
    pub fn declared(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .controls
            .iter()
            .chain(&self.direct_only)
            .cloned()
            .collect();
        names.sort();
        names
    }

    /// The executor a lane gets: its own pick, else the release's default; a pick the release
    /// does not have is the reason it is not applicable.
    pub fn executor(&self, pick: Option<CodeModeExecutor>) -> Result<CodeModeExecutor, String> {
        let executor = pick.unwrap_or(self.default_executor);
        match self.executors.contains(&executor) {
            true => Ok(executor),
            false => Err(format!(
                "has no `{}` Code Mode executor (executors = {:?})",
                executor.as_str(),
                self.executors
                    .iter()
                    .map(|e| e.as_str())
                    .collect::<Vec<_>>()
            )),
        }
    }

    /// The `tools.codeMode` object a Code Mode lane writes: `enabled` (`true`, or `"auto"` for
    /// the auto tier), the executor under this release's key, and the harness's wall-clock
    /// budget ([`CODE_MODE_TIMEOUT_MS`]). `Err`: the release has not the executor picked.
    pub fn config_value(&self, lane: &CodeModeSettings) -> Result<Value, String> {
        let executor = self.executor(lane.executor)?;
        let mut value = serde_json::json!({ "enabled": lane.enabled.to_json() });
        value[self.executor_key.key()] = Value::String(self.executor_key.value(executor).into());
        if self.keys.iter().any(|k| k == "timeoutMs") {
            value["timeoutMs"] = Value::from(CODE_MODE_TIMEOUT_MS);
        }
        Ok(value)
    }

    /// Does Code Mode engage on this release for a lane with `code_mode` (its own setting, or
    /// none: `tools.codeMode` unset) and a model that is or is not `catalog_preferred`? An
    /// unset value is the release's [`Self::unset_means`]: off, or the auto tier.
    pub fn engages(&self, code_mode: Option<&CodeModeSettings>, catalog_preferred: bool) -> bool {
        match code_mode {
            Some(settings) => settings.engages(catalog_preferred),
            None => self.unset_means == CodeModeUnset::Auto && catalog_preferred,
        }
    }

    /// The bridge-role table of a lane where Code Mode engages: the code role is the cell tool
    /// (`exec`), so its result's telemetry counts and nested calls are read as the code
    /// bridge's (and `wait`'s, which resumes it). Only there: elsewhere `exec` is the shell tool.
    /// Code Mode's own table ([`Bridge::code_mode`]) when the release names its controls so,
    /// else the release's with `exec` as the code role.
    pub fn bridge(&self, release: &Bridge) -> Bridge {
        let own = Bridge::code_mode();
        match own.code.as_deref() == Some(self.exec())
            && self.wait() == crate::config::code_mode::WAIT
        {
            true => own,
            false => Bridge {
                code: Some(self.exec().to_string()),
                ..release.clone()
            },
        }
    }

    /// The plugin that provides `executor`, when it is one ([`Self::executor_plugins`]).
    pub fn executor_plugin(&self, executor: CodeModeExecutor) -> Option<&str> {
        self.executor_plugins
            .get(executor.as_str())
            .map(String::as_str)
    }

    /// The first problem with the facts: the field and what is wrong.
    fn problem(&self) -> Option<(&'static str, String)> {
        if self.executors.is_empty() {
            return Some(("executors", "at least one executor".into()));
        }
        if !self.executors.contains(&self.default_executor) {
            return Some((
                "default_executor",
                format!(
                    "{:?} is not one of executors",
                    self.default_executor.as_str()
                ),
            ));
        }
        if self.executor_key == ExecutorKey::Runtime
            && self.executors != [CodeModeExecutor::Quickjs]
        {
            return Some((
                "executors",
                "executor_key = \"runtime\" picks only QuickJS-WASI: executors = [\"quickjs\"]"
                    .into(),
            ));
        }
        for key in ["enabled", self.executor_key.key()] {
            if !self.keys.iter().any(|k| k == key) {
                return Some((
                    "keys",
                    format!("{key:?} is missing (the harness writes it)"),
                ));
            }
        }
        let mut controls = self.controls.clone();
        controls.dedup();
        if controls.len() != 2 || controls.iter().any(|c| c.trim().is_empty()) {
            return Some((
                "controls",
                "two distinct names: the code cell's tool, then the resume tool".into(),
            ));
        }
        if let Some(name) = self
            .executor_plugins
            .keys()
            .find(|k| !self.executors.iter().any(|e| e.as_str() == k.as_str()))
        {
            return Some((
                "executor_plugins",
                format!("{name:?} is not one of executors"),
            ));
        }
        if let Some(name) = self.direct_only.iter().find(|n| self.controls.contains(n)) {
            return Some((
                "direct_only",
                format!("{name:?} is a control tool, not a direct-only one"),
            ));
        }
        None
    }
}

/// The surface facts of one release: the file `data/releases/openclaw-<v>.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Release {
    /// The release (`2026.9.6`).
    pub version: Version,
    /// The Node majors the release accepts that the install script provides, oldest first (CI
    /// gates the last one, and 2026.9.6 on both).
    pub node: Vec<u32>,
    /// The mode an unset `tools.toolSearch` means (`tools` on 2026.9.6; unset: Tool Search off).
    #[serde(default)]
    pub unset_means: Option<ToolSearchMode>,
    /// Core tools declared in every Tool Search mode besides the controls.
    pub direct_only: Vec<String>,
    /// The system-prompt heading the capability directory sits under.
    pub directory_heading: String,
    /// The keys of a `tools.toolSearch` object the release accepts: a lane that writes another
    /// is refused before the product sees it (one only the embedded gateway knows).
    pub tool_search_keys: Vec<String>,
    /// Id forms of this release's own that its snapshots redact (after the machine's values and
    /// the mock's ids, before the common ones).
    pub redactions: Vec<RedactionFacts>,
    /// The modes the release has; a lane in a mode not listed is not applicable.
    pub modes: BTreeMap<ToolSearchMode, ModeFacts>,
    /// The mode `tools.toolSearch = true` means (unset: the mode whose `tool_search` is `true`).
    #[serde(default)]
    pub enabled_means: Option<ToolSearchMode>,
    /// The names of the bridge tools by role; a mode declares its own ([`Bridge::controls`]).
    pub bridge: Bridge,
    /// The gateway logs a config hot reload it applied (`config hot reload applied`), so lanes
    /// can share one gateway; `false` (2026.7 and older log none for `tools.*`): a gateway per
    /// lane.
    #[serde(default = "logged")]
    pub hot_reload: bool,
    /// Config keys (dotted paths) whose change this release applies only on a restart, never by
    /// hot reload (its config reload plan marks them `restart`): a lane whose value differs from
    /// the running gateway's gets a gateway of its own.
    #[serde(default)]
    pub restart_keys: Vec<String>,
    /// What the gateway's WebSocket connect request must say (`[gateway_rpc]`).
    pub gateway_rpc: super::rpc::GatewayRpc,
    pub config: ConfigShape,
    pub transcript: TranscriptShape,
    /// Why CI does not gate this release yet (its accepted findings still hold a `TODO`
    /// reason, say); unset: it is gated. A release whose findings hold a `TODO` and that does
    /// not say why here fails CI (`tests/it/releases.rs`, `.ci/run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_gated: Option<String>,
    /// The release's Code Mode; unset: it has none (2026.5.12), so its Code Mode lanes are not
    /// applicable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_mode: Option<CodeModeFacts>,
}

fn logged() -> bool {
    true
}

/// Why a release's surface facts are not available.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReleaseError {
    /// A release file does not load (a build with a broken committed file fails its tests):
    /// `file:line: field: what is wrong`.
    #[error("{origin}{}: {reason}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Invalid {
        origin: String,
        /// Where the field at fault is written (1-based), when it is.
        line: Option<usize>,
        reason: String,
    },
    /// No release data at all in the data root.
    #[error("no release data in {0}")]
    Empty(String),
    /// The data root cannot be read.
    #[error(transparent)]
    Root(#[from] crate::data_root::DataRootError),
}

/// A release's facts and where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub release: Release,
    /// `data/releases/openclaw-<v>.toml`.
    pub origin: String,
    /// True when the file is the asked version's own; false when the version has no data yet and
    /// these are the nearest release's ([`super::ReleaseCatalogue::find`]).
    pub exact: bool,
}

impl Release {
    /// The facts of a mode, when the release has it.
    pub fn mode(&self, mode: ToolSearchMode) -> Option<&ModeFacts> {
        self.modes.get(&mode)
    }

    /// The tool through which `mode` calls a found tool (`tool_call`, `tool_search_code`), when
    /// the release has the mode and it is Tool Search.
    pub fn bridged_by(&self, mode: ToolSearchMode) -> Option<&str> {
        self.mode(mode)?;
        match mode {
            ToolSearchMode::Direct => None,
            ToolSearchMode::Code => self.bridge.code.as_deref(),
            ToolSearchMode::Tools | ToolSearchMode::Directory => Some(&self.bridge.call),
        }
    }

    /// How this release reads `tools.toolSearch` and names its bridge: the `[tool_search]`
    /// rules a profile of the release carries (profile capture writes them from here; a test
    /// holds every committed profile of a release to them).
    pub fn rules(&self) -> ToolSearchRules {
        let modes: Vec<ToolSearchMode> = ToolSearchMode::ALL
            .into_iter()
            .filter(|m| m.is_tool_search() && self.modes.contains_key(m))
            .collect();
        let enabled = self.enabled_means.or_else(|| {
            self.modes
                .iter()
                .find(|(_, facts)| facts.tool_search == toml::Value::Boolean(true))
                .map(|(mode, _)| *mode)
        });
        ToolSearchRules {
            when_unset: self.unset_means.unwrap_or(ToolSearchMode::Direct),
            when_enabled: enabled.unwrap_or(ToolSearchMode::Direct),
            modes,
            bridge: self.bridge.clone(),
            // Release files state no search or batch bounds: the spec's (2026.9.6's dist also
            // bounds a batch's query texts together; the upstream profile states that).
            ..ToolSearchRules::spec()
        }
    }

    /// The core tools declared in every Tool Search mode besides the controls, sorted.
    /// The modes whose prompt shows the capability directory.
    pub fn directory_modes(&self) -> Vec<ToolSearchMode> {
        self.modes
            .iter()
            .filter(|(_, facts)| facts.directory)
            .map(|(mode, _)| *mode)
            .collect()
    }

    /// The modes that declare catalogued tools picked from the prompt, and how many at most.
    pub fn prompt_chosen(&self) -> std::collections::BTreeMap<ToolSearchMode, usize> {
        self.modes
            .iter()
            .filter_map(|(mode, facts)| facts.prompt_chosen.map(|max| (*mode, max)))
            .collect()
    }

    pub fn direct_only(&self) -> Vec<String> {
        let mut names = self.direct_only.clone();
        names.sort();
        names
    }

    /// The newest Node major the release accepts (what CI gates it on).
    pub fn newest_node(&self) -> Option<u32> {
        self.node.iter().copied().max()
    }

    /// Parses one release file; `origin` names it in errors, with the line and the field at
    /// fault.
    pub fn parse(text: &str, origin: &str) -> Result<Release, ReleaseError> {
        let places = Places::new(text);
        let at = |field: &str| places.of(&Field::of(field)).map(|p| p.line);
        let invalid = |line: Option<usize>, reason: String| ReleaseError::Invalid {
            origin: origin.to_string(),
            line,
            reason,
        };
        let field_invalid = |field: &str, message: String| {
            invalid(
                at(field.split(' ').next().unwrap_or(field)),
                format!("{field}: {message}"),
            )
        };
        // A value of the wrong kind names its field (`version`, `redactions[0].with`).
        let release: Release = deserialize_toml(text, &places).map_err(|p| {
            let line = p.line.or_else(|| at(&p.field));
            match p.field.as_str() {
                "." => invalid(line, p.message),
                _ => invalid(line, format!("{}: {}", p.field, p.message)),
            }
        })?;
        let expected = format!("openclaw-{}.toml", release.version);
        if !origin.ends_with(&expected) {
            return Err(field_invalid(
                "version",
                format!(
                    "{:?}, so the file must be named {expected}",
                    release.version.to_string()
                ),
            ));
        }
        if release.node.is_empty() {
            return Err(field_invalid("node", "at least one Node major".into()));
        }
        if !release.modes.contains_key(&ToolSearchMode::Direct) {
            return Err(field_invalid("modes", "every release has `direct`".into()));
        }
        if release.tool_search_keys.is_empty() {
            return Err(field_invalid(
                "tool_search_keys",
                "at least one key (`mode`, say)".into(),
            ));
        }
        for (index, redaction) in release.redactions.iter().enumerate() {
            if let Err(e) = regex::Regex::new(&redaction.pattern) {
                // The regex crate's message spans lines (the pattern, a caret, the problem).
                let e = e.to_string();
                let e: Vec<&str> = e.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                return Err(field_invalid(
                    &format!("redactions[{index}].pattern"),
                    e.join(" "),
                ));
            }
        }
        if let Some((field, message)) = release.rules().problem() {
            let field = match field.as_str() {
                "when_enabled" => "enabled_means (or a mode whose tool_search is true)".into(),
                "when_unset" => "unset_means".into(),
                "modes" => "modes".into(),
                other => other.to_string(),
            };
            return Err(field_invalid(&field, message));
        }
        if let Some((field, message)) = release.code_mode.as_ref().and_then(|c| c.problem()) {
            return Err(field_invalid(&format!("code_mode.{field}"), message));
        }
        Ok(release)
    }

    /// Why a Code Mode lane cannot run on this release (it has no Code Mode, or not the
    /// executor the lane picks), naming the release file; `None`: it can.
    pub fn code_mode_not_applicable(
        &self,
        origin: &str,
        pick: Option<CodeModeExecutor>,
    ) -> Option<String> {
        let Some(facts) = &self.code_mode else {
            return Some(format!(
                "OpenClaw {} has no Code Mode: no `tools.codeMode` in its config schema ({origin} \
                 has no [code_mode])",
                self.version
            ));
        };
        facts
            .executor(pick)
            .err()
            .map(|why| format!("OpenClaw {} {why} ({origin})", self.version))
    }
}

impl Found {
    /// Why these facts serve `version`: its own file, or the nearest release's and how near.
    pub fn why(&self, version: &Version) -> String {
        if self.exact {
            return format!("{} (its own)", self.origin);
        }
        let from = &self.release.version;
        let side = match from > version {
            true => "newer",
            false => "older",
        };
        format!(
            "{} (openclaw {from}: the adopted release nearest to {version} by version, {side})",
            self.origin
        )
    }
}

impl Version {
    /// How far apart two releases are, on one line of releases: a month on the calendar
    /// outweighs any number of patches (2026.9.4 is nearer 2026.9.5 than 2026.8.2, and
    /// 2027.1.1 nearer 2026.9.6 than 2026.9.5); a different suffix breaks a tie.
    pub fn distance(&self, other: &Version) -> (u64, bool) {
        let place =
            |n: [u32; 3]| (u64::from(n[0]) * 12 + u64::from(n[1])) * 100_000 + u64::from(n[2]);
        (
            place(self.numbers).abs_diff(place(other.numbers)),
            self.suffix != other.suffix,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    #[test]
    fn versions_parse_and_order() {
        assert_eq!(v("2026.9.6").numbers(), [2026, 9, 6]);
        assert_eq!(v("2026.7.1-beta.2").to_string(), "2026.7.1-beta.2");
        assert!(v("2026.7.1-beta.2").has_suffix());
        assert!(v("2026.8.2") < v("2026.9.1"));
        assert!(v("2026.9.10") > v("2026.9.6"));
        for bad in [
            "",
            "2026.9",
            "2026.9.6.1",
            "v2026.9.6",
            "2026.9.x",
            "2026.9.6-",
            "latest",
        ] {
            let error = bad.parse::<Version>().unwrap_err();
            assert_eq!(error.text, bad);
        }
    }

    #[test]
    fn a_file_must_be_named_by_its_version() {
        let files = crate::data_root::current()
            .files(crate::data_root::DataKind::Releases)
            .unwrap();
        let text = &files[0].text;
        let error = Release::parse(text, "data/releases/openclaw-1.2.3.toml").unwrap_err();
        assert!(error.to_string().contains("must be named"), "{error}");
        let error = Release::parse("version = 3", "x.toml").unwrap_err();
        assert!(
            error.to_string().starts_with("x.toml:1: version: "),
            "{error}"
        );
        let error = Release::parse("version = \"latest\"", "x.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.toml:1: version: \"latest\" is not an OpenClaw version"),
            "{error}"
        );
        let broken = text.replace(
            "redactions = []",
            "redactions = [{ pattern = \"(\", with = \"x\" }]",
        );
        let broken = broken.replace(
            "{ pattern = '\\bcall[0-9a-f]{16}\\b', with = \"call[id]\" },",
            "{ pattern = \"(\", with = \"x\" },",
        );
        let error = Release::parse(&broken, &files[0].origin).unwrap_err();
        let line = broken
            .lines()
            .position(|l| l.contains("pattern = \"(\""))
            .unwrap()
            + 1;
        assert!(
            error.to_string().starts_with(&format!(
                "{}:{line}: redactions[0].pattern: ",
                files[0].origin
            )),
            "{error}"
        );
        let error = Release::parse(
            &text.replace("tool_search_keys = [", "tool_search_keys = 3 #"),
            "x",
        )
        .unwrap_err();
        assert!(
            error.to_string().starts_with(&format!(
                "x:{}: tool_search_keys: invalid type",
                text.lines()
                    .position(|l| l.starts_with("tool_search_keys"))
                    .unwrap()
                    + 1
            )),
            "{error}"
        );
        let error = Release::parse("version = 3", "x.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.toml:1: version: invalid type"),
            "{error}"
        );
    }

    #[test]
    fn a_version_reads_and_writes_as_its_text() {
        #[derive(Serialize, Deserialize)]
        struct One {
            version: Version,
        }
        let one: One = toml::from_str("version = \"2026.7.1-beta.2\"").unwrap();
        assert_eq!(one.version, v("2026.7.1-beta.2"));
        assert_eq!(
            toml::to_string(&one).unwrap(),
            "version = \"2026.7.1-beta.2\"\n"
        );
    }

    fn release(version: &str) -> (Release, String) {
        let files = crate::data_root::current()
            .files(crate::data_root::DataKind::Releases)
            .unwrap();
        let file = files
            .iter()
            .find(|f| f.origin.ends_with(&format!("openclaw-{version}.toml")))
            .unwrap();
        (
            Release::parse(&file.text, &file.origin).unwrap(),
            file.text.to_string(),
        )
    }

    /// Each release's Code Mode as its dist has it: 8.1–9.5 off when unset, QuickJS-WASI under
    /// `runtime`; 9.6 the auto tier, `executor` with Node by default; 5.12 none.
    #[test]
    fn code_mode_facts_per_release() {
        let (old, _) = release("2026.5.12");
        assert_eq!(old.code_mode, None);
        let why = old
            .code_mode_not_applicable("data/releases/openclaw-2026.5.12.toml", None)
            .unwrap();
        assert_eq!(
            why,
            "OpenClaw 2026.5.12 has no Code Mode: no `tools.codeMode` in its config schema \
             (data/releases/openclaw-2026.5.12.toml has no [code_mode])"
        );
        let (first, _) = release("2026.8.1");
        let facts = first.code_mode.as_ref().unwrap();
        assert_eq!(facts.unset_means, CodeModeUnset::Off);
        assert_eq!(facts.executor_key, ExecutorKey::Runtime);
        assert_eq!(facts.executors, [CodeModeExecutor::Quickjs]);
        assert_eq!(
            facts.config_value(&CodeModeSettings::default()).unwrap(),
            serde_json::json!({ "enabled": true, "runtime": "quickjs-wasi", "timeoutMs": 30000 })
        );
        assert_eq!(
            first.code_mode_not_applicable("o", Some(CodeModeExecutor::Node)),
            Some(
                "OpenClaw 2026.8.1 has no `node` Code Mode executor (executors = [\"quickjs\"]) (o)"
                    .into()
            )
        );
        assert_eq!(facts.exec(), "exec");
        assert_eq!(facts.wait(), "wait");
        // Unset means off here: a catalog-preferred model alone does not engage it.
        assert!(!facts.engages(None, true));
        assert!(facts.engages(Some(&CodeModeSettings::default()), false));
        let (newest, _) = release("2026.9.6");
        let auto_quickjs = CodeModeSettings {
            executor: Some(CodeModeExecutor::Quickjs),
            enabled: crate::config::CodeModeEnabled::Auto,
        };
        let facts = newest.code_mode.as_ref().unwrap();
        assert_eq!(facts.unset_means, CodeModeUnset::Auto);
        assert_eq!(facts.default_executor, CodeModeExecutor::Node);
        assert!(!facts
            .keys
            .iter()
            .any(|k| k == "runtime" || k == "languages"));
        assert_eq!(
            facts.config_value(&auto_quickjs).unwrap(),
            serde_json::json!({ "enabled": "auto", "executor": "quickjs", "timeoutMs": 30000 })
        );
        assert_eq!(
            facts.config_value(&CodeModeSettings::default()).unwrap()["executor"],
            "node"
        );
        // The auto tier: unset engages for a catalog-preferred model only; "auto" likewise.
        assert!(facts.engages(None, true));
        assert!(!facts.engages(None, false));
        assert!(!facts.engages(Some(&auto_quickjs), false));
        assert!(facts.engages(Some(&auto_quickjs), true));
        let bridge = facts.bridge(&newest.bridge);
        assert_eq!(bridge.code.as_deref(), Some("exec"));
        assert!(bridge.is_code_mode());
        assert_eq!(newest.bridge.code.as_deref(), Some("tool_search_code"));
        assert_eq!(newest.code_mode_not_applicable("o", None), None);
        assert_eq!(
            facts.declared(),
            ["exec", "openclaw", "sessions_yield", "wait"]
        );
    }

    /// A bad `[code_mode]` field is refused naming the file, the line it is written on and the
    /// field, whether the type is wrong or our own checks find it.
    #[test]
    fn a_bad_code_mode_field_names_file_line_and_field() {
        let (_, text) = release("2026.9.6");
        let origin = "data/releases/openclaw-2026.9.6.toml";
        // The line of the first `needle` line inside [code_mode] (1-based).
        let line_of = |text: &str, needle: &str| {
            let table = text.lines().position(|l| l == "[code_mode]").unwrap();
            let within = text.lines().skip(table).position(|l| l.starts_with(needle));
            table + within.unwrap() + 1
        };
        let cases = [
            (
                "default_executor = \"node\"",
                "default_executor = \"deno\"",
                "default_executor",
                "code_mode.default_executor: unknown variant `deno`",
            ),
            (
                "executors = [\"node\", \"quickjs\"]",
                "executors = [\"quickjs\"]",
                "default_executor",
                "code_mode.default_executor: \"node\" is not one of executors",
            ),
            (
                "executor_key = \"executor\"",
                "executor_key = \"runtime\"",
                "executors",
                "code_mode.executors: executor_key = \"runtime\" picks only QuickJS-WASI",
            ),
            (
                "controls = [\"exec\", \"wait\"]",
                "controls = [\"exec\", \"exec\"]",
                "controls",
                "code_mode.controls: two distinct names",
            ),
            (
                "unset_means = \"auto\"",
                "unset_means = 3",
                "unset_means = 3",
                "code_mode.unset_means: wanted string or table",
            ),
        ];
        for (from, to, at, message) in cases {
            assert!(text.contains(from), "{from}");
            // The 9.6 file has two `unset_means` lines (Tool Search's, Code Mode's): replace
            // the last.
            let at_byte = text.rfind(from).unwrap();
            let broken = format!("{}{to}{}", &text[..at_byte], &text[at_byte + from.len()..]);
            let line = line_of(&broken, at);
            let error = Release::parse(&broken, origin).unwrap_err().to_string();
            let expected = format!("{origin}:{line}: {message}");
            assert!(error.starts_with(&expected), "{error}\nexpected {expected}");
        }
    }
}
