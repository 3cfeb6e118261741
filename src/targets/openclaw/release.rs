//! One OpenClaw release's Tool Search surface as data (`data/releases/openclaw-<v>.toml`): which
//! modes exist and what a lane writes to get each, the `tools.toolSearch` keys it accepts, the
//! bridge tool per mode, the tools declared in every mode, the directory's heading, the id forms
//! its snapshots redact and the transcript table's shape. Claims, the config writer and the
//! transcript reader take these facts from here, found by version in the
//! [`super::catalogue::ReleaseCatalogue`], so adopting a release is writing its files, not
//! changing code.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::config::{Bridge, ToolSearchMode, ToolSearchRules};

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
    /// What the gateway's WebSocket connect request must say (`[gateway_rpc]`).
    pub gateway_rpc: super::rpc::GatewayRpc,
    pub config: ConfigShape,
    pub transcript: TranscriptShape,
    /// Why CI does not gate this release yet (its accepted findings still hold a `TODO`
    /// reason, say); unset: it is gated. A release whose findings hold a `TODO` and that does
    /// not say why here fails CI (`tests/it/releases.rs`, `.ci/run`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_gated: Option<String>,
}

fn logged() -> bool {
    true
}

/// Why a release's surface facts are not available.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReleaseError {
    /// A committed release file does not load (a build with a broken file fails its tests).
    #[error("{origin}: {reason}")]
    Invalid { origin: String, reason: String },
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
    pub fn direct_only(&self) -> Vec<String> {
        let mut names = self.direct_only.clone();
        names.sort();
        names
    }

    /// The newest Node major the release accepts (what CI gates it on).
    pub fn newest_node(&self) -> Option<u32> {
        self.node.iter().copied().max()
    }

    /// Parses one release file; `origin` names it in errors, with the field at fault.
    pub fn parse(text: &str, origin: &str) -> Result<Release, ReleaseError> {
        let invalid = |reason: String| ReleaseError::Invalid {
            origin: origin.to_string(),
            reason,
        };
        let deserializer = toml::Deserializer::parse(text).map_err(|e| invalid(e.to_string()))?;
        // A value of the wrong kind names its field (`version`, `redactions[0].with`).
        let release: Release = serde_path_to_error::deserialize(deserializer).map_err(|e| {
            let field = e.path().to_string();
            let message = e.into_inner().message().trim_end().to_string();
            match field.as_str() {
                "." => invalid(message),
                _ => invalid(format!("{field}: {message}")),
            }
        })?;
        let expected = format!("openclaw-{}.toml", release.version);
        if !origin.ends_with(&expected) {
            return Err(invalid(format!(
                "version = {:?}, so the file must be named {expected}",
                release.version.to_string()
            )));
        }
        if release.node.is_empty() {
            return Err(invalid("node: at least one Node major".into()));
        }
        if !release.modes.contains_key(&ToolSearchMode::Direct) {
            return Err(invalid("modes: every release has `direct`".into()));
        }
        if release.tool_search_keys.is_empty() {
            return Err(invalid(
                "tool_search_keys: at least one key (`mode`, say)".into(),
            ));
        }
        for (index, redaction) in release.redactions.iter().enumerate() {
            if let Err(e) = regex::Regex::new(&redaction.pattern) {
                // The regex crate's message spans lines (the pattern, a caret, the problem).
                let e = e.to_string();
                let e: Vec<&str> = e.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                return Err(invalid(format!(
                    "redactions[{index}].pattern: {}",
                    e.join(" ")
                )));
            }
        }
        if let Some((field, message)) = release.rules().problem() {
            let field = match field.as_str() {
                "when_enabled" => "enabled_means (or a mode whose tool_search is true)".into(),
                "when_unset" => "unset_means".into(),
                "modes" => "modes".into(),
                other => other.to_string(),
            };
            return Err(invalid(format!("{field}: {message}")));
        }
        Ok(release)
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
        assert!(error.to_string().starts_with("x.toml: "), "{error}");
        let error = Release::parse("version = \"latest\"", "x.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.toml: version: \"latest\" is not an OpenClaw version"),
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
        assert!(
            error
                .to_string()
                .starts_with(&format!("{}: redactions[0].pattern: ", files[0].origin)),
            "{error}"
        );
        let error = Release::parse(
            &text.replace("tool_search_keys = [", "tool_search_keys = 3 #"),
            "x",
        )
        .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x: tool_search_keys: invalid type"),
            "{error}"
        );
        let error = Release::parse("version = 3", "x.toml").unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("x.toml: version: invalid type"),
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
}
