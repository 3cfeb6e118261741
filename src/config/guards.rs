//! Declarative call guards: `tools.approvals` and `hooks.beforeToolCall` rules.
//!
//! OpenClaw decides approvals interactively and runs `before_tool_call` hooks as plugin code; the
//! embedded gateway needs both as data so a scenario can make a call be blocked (spec §6, §10,
//! fail-closed F3). A rule matches a tool (glob on its name or id, `*` wildcard) and optionally a
//! regular expression on the call's arguments as compact JSON; the first matching rule of a list
//! decides `allow` or `deny`, and no match means allow.

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use crate::catalog::glob_matches;

/// What a matching rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleAction {
    Allow,
    Deny,
}

/// One rule as written in the config.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GuardRule {
    /// Glob on the tool name or id; unset matches every tool.
    #[serde(default)]
    pub tool: Option<String>,
    /// Regular expression searched in the arguments as compact JSON; unset matches any arguments.
    #[serde(default)]
    pub args_pattern: Option<String>,
    pub action: RuleAction,
    /// Why, reported in the call result when the rule denies.
    #[serde(default)]
    pub reason: Option<String>,
}

/// `hooks` (our declarative stand-in for plugin hooks).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HooksConfig {
    #[serde(default)]
    pub before_tool_call: Vec<GuardRule>,
    /// What a `before_prompt_build` hook returns as `toolsAllow`: the turn's tools capped to
    /// these names or globs, catalogue included (it becomes the policy's `hook_allow`).
    #[serde(default)]
    pub tools_allow: Option<Vec<String>>,
}

/// A rule list ready to apply: patterns compiled once at load.
#[derive(Debug, Clone, Default)]
pub struct Guard {
    /// Names the stage in block reasons (`approval`, `before_tool_call hook`).
    stage: &'static str,
    rules: Vec<(GuardRule, Option<Regex>)>,
}

impl Guard {
    /// Compiles `rules`; an invalid pattern is `(field path, message)` with `field` as the list's path.
    pub fn compile(
        stage: &'static str,
        field: &str,
        rules: &[GuardRule],
    ) -> Result<Guard, (String, String)> {
        let mut compiled = Vec::with_capacity(rules.len());
        for (i, rule) in rules.iter().enumerate() {
            let regex = match &rule.args_pattern {
                None => None,
                Some(p) => Some(Regex::new(p).map_err(|e| {
                    (
                        format!("{field}[{i}].argsPattern"),
                        format!("expected a regular expression: {e}"),
                    )
                })?),
            };
            compiled.push((rule.clone(), regex));
        }
        Ok(Guard {
            stage,
            rules: compiled,
        })
    }

    /// `Err(reason)` when the first matching rule denies the call.
    pub fn check(&self, name: &str, id: &str, args: &Value) -> Result<(), String> {
        let args_text = args.to_string();
        let hit = self.rules.iter().find(|(rule, regex)| {
            let tool_hit = rule
                .tool
                .as_deref()
                .is_none_or(|p| glob_matches(p, name) || glob_matches(p, id));
            tool_hit && regex.as_ref().is_none_or(|r| r.is_match(&args_text))
        });
        match hit {
            Some((rule, _)) if rule.action == RuleAction::Deny => {
                let why = rule.reason.as_deref().unwrap_or("no reason given");
                Err(format!("denied by {}: {why}", self.stage))
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rule(tool: Option<&str>, pattern: Option<&str>, action: RuleAction) -> GuardRule {
        GuardRule {
            tool: tool.map(str::to_string),
            args_pattern: pattern.map(str::to_string),
            action,
            reason: Some("qa".into()),
        }
    }

    #[test]
    fn first_matching_rule_decides() {
        let rules = [
            rule(Some("fake_*"), Some("\"marker\":\"ok\""), RuleAction::Allow),
            rule(Some("fake_*"), None, RuleAction::Deny),
        ];
        let guard = Guard::compile("approval", "tools.approvals", &rules).unwrap();
        assert_eq!(
            guard.check("fake_1", "x:y:fake_1", &json!({"marker": "ok"})),
            Ok(())
        );
        assert_eq!(
            guard.check("fake_1", "x:y:fake_1", &json!({"marker": "no"})),
            Err("denied by approval: qa".to_string())
        );
        assert_eq!(
            guard.check("exec", "openclaw:core:exec", &json!({})),
            Ok(())
        );
    }

    #[test]
    fn id_glob_matches_too() {
        let rules = [rule(Some("openclaw:core:*"), None, RuleAction::Deny)];
        let guard =
            Guard::compile("before_tool_call hook", "hooks.beforeToolCall", &rules).unwrap();
        assert_eq!(
            guard.check("exec", "openclaw:core:exec", &json!({})),
            Err("denied by before_tool_call hook: qa".to_string())
        );
    }

    #[test]
    fn bad_pattern_names_the_field() {
        let rules = [rule(None, Some("("), RuleAction::Deny)];
        let err = Guard::compile("approval", "tools.approvals", &rules).unwrap_err();
        assert_eq!(err.0, "tools.approvals[0].argsPattern");
    }
}
