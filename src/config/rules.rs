//! How a surface reads `tools.toolSearch` and names its bridge tools. The project's own surface
//! (spec §2): unset is off, `true` is code mode, the bridge is `tool_search`/`tool_describe`/
//! `tool_call` plus `tool_search_code`. OpenClaw 2026.9.6 has the same names but is on (tools)
//! when unset; upstream calls `tool_call` `dispatch_action` and has no code mode. So a profile
//! carries these rules as data ([`ToolSearchRules`]) and whatever names a bridge tool asks them.

use serde::{Deserialize, Serialize};

use super::tool_search::{ToolSearchMode, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, TOOL_SEARCH_CODE};

/// What a bridge tool does, whatever a surface calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ControlRole {
    /// Searches the catalogue (`tool_search`).
    Search,
    /// Shows one entry's schema (`tool_describe`).
    Describe,
    /// Calls a catalogue entry by id with `{id, args}`; answers `{tool, result}` (`tool_call`).
    Call,
    /// Runs code against the catalogue (`tool_search_code`, code mode only).
    Code,
}

/// The names of a surface's bridge tools. `code` is unset when the surface has no code mode.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bridge {
    pub search: String,
    pub describe: String,
    pub call: String,
    #[serde(default)]
    pub code: Option<String>,
}

impl Bridge {
    /// The spec's names (and OpenClaw 2026.9.6's).
    pub fn spec() -> Bridge {
        Bridge {
            search: TOOL_SEARCH.into(),
            describe: TOOL_DESCRIBE.into(),
            call: TOOL_CALL.into(),
            code: Some(TOOL_SEARCH_CODE.into()),
        }
    }

    /// Code Mode's roles: `exec` is the code role (on a Code Mode surface only: elsewhere `exec`
    /// is the shell), and the guest's `catalog.search`, `describe()` and tool globals stand for
    /// search, describe and call (names no tool on the wire has).
    pub fn code_mode() -> Bridge {
        Bridge {
            search: "catalog.search".into(),
            describe: "handle.describe".into(),
            call: "handle()".into(),
            code: Some(crate::config::code_mode::EXEC.into()),
        }
    }

    /// Is this Code Mode's bridge ([`Bridge::code_mode`])?
    pub fn is_code_mode(&self) -> bool {
        *self == Bridge::code_mode()
    }

    /// The name of `role`'s tool (`None`: code on a surface without code mode).
    pub fn name(&self, role: ControlRole) -> Option<&str> {
        match role {
            ControlRole::Search => Some(&self.search),
            ControlRole::Describe => Some(&self.describe),
            ControlRole::Call => Some(&self.call),
            ControlRole::Code => self.code.as_deref(),
        }
    }

    /// The role of the bridge tool named `name`, if it is one.
    pub fn role(&self, name: &str) -> Option<ControlRole> {
        [
            ControlRole::Search,
            ControlRole::Describe,
            ControlRole::Call,
            ControlRole::Code,
        ]
        .into_iter()
        .find(|role| self.name(*role) == Some(name))
    }

    /// Is `name` one of this surface's bridge tools? Bridge tools are never catalogued.
    pub fn is_control(&self, name: &str) -> bool {
        self.role(name).is_some()
    }

    /// Every bridge tool name, code's first when there is one (the spec's order).
    pub fn all(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.code.as_deref().into_iter().collect();
        names.extend([
            self.search.as_str(),
            self.describe.as_str(),
            self.call.as_str(),
        ]);
        names
    }

    /// The bridge tools `mode` declares (none when direct), unsorted.
    pub fn controls(&self, mode: ToolSearchMode) -> Vec<&str> {
        match mode {
            ToolSearchMode::Direct => Vec::new(),
            ToolSearchMode::Code => self.code.as_deref().into_iter().collect(),
            ToolSearchMode::Tools | ToolSearchMode::Directory => {
                vec![&self.search, &self.describe, &self.call]
            }
        }
    }
}

/// How a surface reads `tools.toolSearch` and what its modes and bridge are.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSearchRules {
    /// The Tool Search modes the surface has (direct, Tool Search off, always exists).
    pub modes: Vec<ToolSearchMode>,
    /// The mode an unset `tools.toolSearch` means (an empty object configures nothing: off).
    pub when_unset: ToolSearchMode,
    /// The mode `true`, or an object without `mode`, means.
    pub when_enabled: ToolSearchMode,
    pub bridge: Bridge,
    /// Search result limits (unset: the spec's, which are OpenClaw's too).
    #[serde(default, skip_serializing_if = "LimitRules::is_spec")]
    pub limits: LimitRules,
    /// Bounds of a batch `tool_search` (unset: the spec's).
    #[serde(default, skip_serializing_if = "BatchRules::is_spec")]
    pub batch: BatchRules,
}

/// How many results a search returns: `searchDefaultLimit` and `maxSearchLimit` when the config
/// leaves them unset, and the range `maxSearchLimit` is clamped to (`searchDefaultLimit` is
/// clamped to 1..`maxSearchLimit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitRules {
    pub default: usize,
    pub max: usize,
    /// `maxSearchLimit` is clamped to 1..=this.
    pub max_clamp: usize,
}

impl LimitRules {
    /// The spec's (§2) and OpenClaw's: 8 results, at most 20, `maxSearchLimit` within 1–50.
    pub const SPEC: LimitRules = LimitRules {
        default: 8,
        max: 20,
        max_clamp: 50,
    };

    fn is_spec(&self) -> bool {
        *self == LimitRules::SPEC
    }
}

impl Default for LimitRules {
    fn default() -> Self {
        LimitRules::SPEC
    }
}

/// How long one query of a batch may be, and how it is measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryBound {
    /// The query as a JSON string, in UTF-8 bytes (the spec's measure, §4).
    JsonBytes(usize),
    /// The query's characters (upstream OpenClaw's measure).
    Chars(usize),
}

impl QueryBound {
    /// The query's size by this measure, and the bound.
    pub fn measure(self, query: &str) -> (usize, usize) {
        match self {
            QueryBound::JsonBytes(max) => (serde_json::Value::from(query).to_string().len(), max),
            QueryBound::Chars(max) => (query.chars().count(), max),
        }
    }

    /// `bytes as JSON` or `characters`: the unit in error messages.
    pub fn unit(self) -> &'static str {
        match self {
            QueryBound::JsonBytes(_) => "bytes as JSON",
            QueryBound::Chars(_) => "characters",
        }
    }
}

/// The bounds of a batch search `{ queries: [{ query, limit? }] }`: how many queries, how long
/// each, how many candidates all limits may add up to, and the answer's character budget (lower
/// ranked candidates are dropped past it, their group marked `truncated`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchRules {
    pub max_queries: usize,
    pub max_query: QueryBound,
    /// The query texts together, as a JSON array of strings, in UTF-8 bytes (OpenClaw bounds
    /// this as well as each query; the spec does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queries_json_bytes: Option<usize>,
    pub max_candidates: usize,
    pub answer_chars: usize,
}

impl BatchRules {
    /// The spec's (§4): 16 queries of at most 512 bytes as JSON, 50 candidates, 4,000 characters.
    pub const SPEC: BatchRules = BatchRules {
        max_queries: 16,
        max_query: QueryBound::JsonBytes(512),
        queries_json_bytes: None,
        max_candidates: 50,
        answer_chars: 4000,
    };

    fn is_spec(&self) -> bool {
        *self == BatchRules::SPEC
    }
}

impl Default for BatchRules {
    fn default() -> Self {
        BatchRules::SPEC
    }
}

impl Default for ToolSearchRules {
    fn default() -> Self {
        ToolSearchRules::spec()
    }
}

impl ToolSearchRules {
    /// The spec's rules (§2): unset is off, `true` is code, every mode, the spec's names.
    pub fn spec() -> ToolSearchRules {
        ToolSearchRules {
            modes: vec![
                ToolSearchMode::Code,
                ToolSearchMode::Tools,
                ToolSearchMode::Directory,
            ],
            when_unset: ToolSearchMode::Direct,
            when_enabled: ToolSearchMode::Code,
            bridge: Bridge::spec(),
            limits: LimitRules::SPEC,
            batch: BatchRules::SPEC,
        }
    }

    /// Does the surface have `mode`? Direct always exists.
    pub fn has(&self, mode: ToolSearchMode) -> bool {
        mode == ToolSearchMode::Direct || self.modes.contains(&mode)
    }

    /// What is wrong with these rules, as `(field, message)` (field relative to the table).
    pub fn problem(&self) -> Option<(String, String)> {
        let named = |m: &ToolSearchMode| format!("{:?}", m.as_str());
        if let Some(m) = self.modes.iter().find(|m| !m.is_tool_search()) {
            return Some((
                "modes".into(),
                format!("{} is Tool Search off, not a mode to list", named(m)),
            ));
        }
        if self.modes.is_empty() {
            return Some(("modes".into(), "list at least one Tool Search mode".into()));
        }
        if !self.has(self.when_unset) {
            return Some((
                "when_unset".into(),
                format!("{} is not in modes", named(&self.when_unset)),
            ));
        }
        if !self.when_enabled.is_tool_search() || !self.has(self.when_enabled) {
            return Some((
                "when_enabled".into(),
                format!(
                    "{} is not a Tool Search mode in modes",
                    named(&self.when_enabled)
                ),
            ));
        }
        let has_code = self.has(ToolSearchMode::Code);
        if has_code != self.bridge.code.is_some() {
            return Some((
                "bridge.code".into(),
                match has_code {
                    true => "code mode is in modes and needs its tool's name".into(),
                    false => "names a code tool but modes has no code mode".into(),
                },
            ));
        }
        let mut names = self.bridge.all();
        names.sort_unstable();
        if let Some(twice) = names.windows(2).find(|w| w[0] == w[1]) {
            return Some(("bridge".into(), format!("{:?} names two tools", twice[0])));
        }
        if names.iter().any(|n| n.is_empty()) {
            return Some(("bridge".into(), "a name is empty".into()));
        }
        self.limits_problem()
    }

    /// What is wrong with the limits and batch bounds: each at least 1, the default within the
    /// maximum, the maximum within its clamp.
    fn limits_problem(&self) -> Option<(String, String)> {
        let LimitRules {
            default,
            max,
            max_clamp,
        } = self.limits;
        let (_, query) = self.batch.max_query.measure("");
        let zero = [
            ("limits.default", default),
            ("limits.max", max),
            ("limits.max_clamp", max_clamp),
            ("batch.max_queries", self.batch.max_queries),
            ("batch.max_query", query),
            (
                "batch.queries_json_bytes",
                self.batch.queries_json_bytes.unwrap_or(1),
            ),
            ("batch.max_candidates", self.batch.max_candidates),
            ("batch.answer_chars", self.batch.answer_chars),
        ]
        .into_iter()
        .find(|(_, n)| *n == 0);
        if let Some((field, _)) = zero {
            return Some((field.into(), "must be at least 1".into()));
        }
        if max > max_clamp {
            return Some((
                "limits.max".into(),
                format!("{max} is above limits.max_clamp ({max_clamp})"),
            ));
        }
        if default > max {
            return Some((
                "limits.default".into(),
                format!("{default} is above limits.max ({max})"),
            ));
        }
        None
    }

    /// `"code", "tools" or "directory"`: the modes a config may name, for error messages.
    pub fn mode_names(&self) -> String {
        let names: Vec<String> = self
            .modes
            .iter()
            .map(|m| format!("{:?}", m.as_str()))
            .collect();
        match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn upstream() -> ToolSearchRules {
        ToolSearchRules {
            modes: vec![ToolSearchMode::Tools, ToolSearchMode::Directory],
            when_unset: ToolSearchMode::Tools,
            when_enabled: ToolSearchMode::Tools,
            bridge: Bridge {
                call: "dispatch_action".into(),
                code: None,
                ..Bridge::spec()
            },
            ..ToolSearchRules::spec()
        }
    }

    #[test]
    fn limits_and_batch_bounds_are_checked_and_default_to_the_spec() {
        let table: ToolSearchRules = toml::from_str(
            "modes = [\"tools\"]\nwhen_unset = \"tools\"\nwhen_enabled = \"tools\"\n\
             bridge = { search = \"s\", describe = \"d\", call = \"c\" }\n",
        )
        .unwrap();
        assert_eq!(
            (table.limits, table.batch),
            (LimitRules::SPEC, BatchRules::SPEC)
        );
        let with = |limits: LimitRules, batch: BatchRules| {
            ToolSearchRules {
                limits,
                batch,
                ..upstream()
            }
            .problem()
        };
        let spec = BatchRules::SPEC;
        assert_eq!(with(LimitRules::SPEC, spec), None);
        let limits = |default, max, max_clamp| LimitRules {
            default,
            max,
            max_clamp,
        };
        assert_eq!(
            with(limits(21, 20, 50), spec),
            Some((
                "limits.default".into(),
                "21 is above limits.max (20)".into()
            ))
        );
        assert_eq!(
            with(limits(8, 60, 50), spec),
            Some((
                "limits.max".into(),
                "60 is above limits.max_clamp (50)".into()
            ))
        );
        let no_query = BatchRules {
            max_query: QueryBound::Chars(0),
            ..spec
        };
        assert_eq!(
            with(LimitRules::SPEC, no_query),
            Some(("batch.max_query".into(), "must be at least 1".into()))
        );
        let no_list = BatchRules {
            queries_json_bytes: Some(0),
            ..spec
        };
        assert_eq!(
            with(LimitRules::SPEC, no_list),
            Some((
                "batch.queries_json_bytes".into(),
                "must be at least 1".into()
            ))
        );
    }

    #[test]
    fn roles_and_names_follow_the_bridge() {
        let spec = Bridge::spec();
        assert_eq!(
            spec.all(),
            [
                "tool_search_code",
                "tool_search",
                "tool_describe",
                "tool_call"
            ]
        );
        assert_eq!(spec.role("tool_call"), Some(ControlRole::Call));
        let up = upstream().bridge;
        assert_eq!(up.role("dispatch_action"), Some(ControlRole::Call));
        assert_eq!(up.role("tool_call"), None);
        assert_eq!(up.role("tool_search_code"), None);
        assert_eq!(up.controls(ToolSearchMode::Code), Vec::<&str>::new());
        assert_eq!(
            up.controls(ToolSearchMode::Directory),
            ["tool_search", "tool_describe", "dispatch_action"]
        );
    }

    #[test]
    fn rules_are_checked() {
        assert_eq!(ToolSearchRules::spec().problem(), None);
        assert_eq!(upstream().problem(), None);
        assert_eq!(
            ToolSearchRules::spec().mode_names(),
            r#""code", "tools" or "directory""#
        );
        assert_eq!(upstream().mode_names(), r#""tools" or "directory""#);
        let mut r = upstream();
        r.bridge.code = Some("run_code".into());
        assert_eq!(r.problem().unwrap().0, "bridge.code");
        let mut r = upstream();
        r.when_enabled = ToolSearchMode::Code;
        assert_eq!(r.problem().unwrap().0, "when_enabled");
        let mut r = upstream();
        r.bridge.call = "tool_search".into();
        assert_eq!(
            r.problem(),
            Some(("bridge".into(), "\"tool_search\" names two tools".into()))
        );
        let mut r = upstream();
        r.modes.push(ToolSearchMode::Direct);
        assert_eq!(r.problem().unwrap().0, "modes");
    }
}
