//! Tool policy: allow / deny / alsoAllow, applied before anything is catalogued (spec §3, §10).
//!
//! Patterns match a tool's name or its full id; `*` matches any run of characters.
//! Deny always wins. With no `allow` list every tool is allowed; with one, a tool must
//! match `allow` or `alsoAllow`. A prompt hook's `toolsAllow` (`hook_allow`) caps what is left,
//! catalogue included: a tool it does not name is neither offered nor reachable by a call.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolPolicy {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also_allow: Vec<String>,
    /// A `before_prompt_build` hook's `toolsAllow` for the turn (`hooks.toolsAllow`): only the
    /// tools it names stay, on the surface and in the catalogue. Control tools are not capped
    /// (the product keeps them while the catalogue has an entry left).
    /// Set from the gateway config only (a scenario's `[policy]` has no such key).
    #[serde(skip)]
    pub hook_allow: Option<Vec<String>>,
}

impl ToolPolicy {
    /// Is the tool with this name and id allowed?
    pub fn allows(&self, name: &str, id: &str) -> bool {
        let hit = |patterns: &[String]| patterns.iter().any(|p| matches(p, name) || matches(p, id));
        let capped = self.hook_allow.as_ref().is_some_and(|cap| !hit(cap));
        !capped && self.allows_control(name, id)
    }

    /// Is the control tool with this name and id allowed? The policy without the hook's cap.
    pub fn allows_control(&self, name: &str, id: &str) -> bool {
        let hit = |patterns: &[String]| patterns.iter().any(|p| matches(p, name) || matches(p, id));
        if hit(&self.deny) {
            return false;
        }
        match &self.allow {
            None => true,
            Some(allow) => hit(allow) || hit(&self.also_allow),
        }
    }
}

/// Glob match where `*` is the only wildcard.
pub fn matches(pattern: &str, text: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = text.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: Option<&[&str]>, deny: &[&str], also: &[&str]) -> ToolPolicy {
        let owned = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        ToolPolicy {
            allow: allow.map(owned),
            deny: owned(deny),
            also_allow: owned(also),
            hook_allow: None,
        }
    }

    #[test]
    fn glob_matching() {
        assert!(matches("fake_*", "fake_plugin_tool_01"));
        assert!(matches("*_17", "fake_plugin_tool_17"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("a*b*c", "axxbyy"));
        assert!(matches("exact", "exact"));
        assert!(!matches("exact", "exactly"));
        assert!(matches("*", ""));
    }

    #[test]
    fn no_allow_list_allows_everything_but_denied() {
        let p = policy(None, &["fake_plugin_tool_03"], &[]);
        assert!(p.allows("fake_plugin_tool_01", "openclaw:x:fake_plugin_tool_01"));
        assert!(!p.allows("fake_plugin_tool_03", "openclaw:x:fake_plugin_tool_03"));
    }

    #[test]
    fn allow_list_needs_a_match_and_also_allow_extends_it() {
        let p = policy(Some(&["openclaw:core:*"]), &[], &["tool_search"]);
        assert!(p.allows("exec", "openclaw:core:exec"));
        assert!(p.allows("tool_search", "openclaw:core:tool_search"));
        assert!(!p.allows(
            "fake_plugin_tool_01",
            "openclaw:fixture:fake_plugin_tool_01"
        ));
    }

    #[test]
    fn deny_beats_allow_and_also_allow() {
        let p = policy(Some(&["*"]), &["exec"], &["exec"]);
        assert!(!p.allows("exec", "openclaw:core:exec"));
    }

    #[test]
    fn a_hook_cap_hides_what_it_does_not_name_but_not_the_controls() {
        let mut p = policy(None, &["fake_plugin_tool_02"], &[]);
        p.hook_allow = Some(vec![
            "fake_plugin_tool_01".into(),
            "fake_plugin_tool_02".into(),
        ]);
        assert!(p.allows("fake_plugin_tool_01", "openclaw:x:fake_plugin_tool_01"));
        assert!(!p.allows("fake_plugin_tool_02", "openclaw:x:fake_plugin_tool_02"));
        assert!(!p.allows("fake_plugin_tool_17", "openclaw:x:fake_plugin_tool_17"));
        assert!(!p.allows("tool_call", "openclaw:core:tool_call"));
        assert!(p.allows_control("tool_call", "openclaw:core:tool_call"));
        assert!(!p.allows_control("fake_plugin_tool_02", "openclaw:x:fake_plugin_tool_02"));
    }
}
