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
        }
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
