//! `tools.toolSearch` resolution (spec §2): boolean or object, positive-integer rule, clamps.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::rules::{BatchRules, ToolSearchRules};
pub use crate::protocol::terms::ToolSearchMode;

pub const TOOL_SEARCH_CODE: &str = "tool_search_code";
pub const TOOL_SEARCH: &str = "tool_search";
pub const TOOL_DESCRIBE: &str = "tool_describe";
pub const TOOL_CALL: &str = "tool_call";

/// Every control tool name; control tools are never catalogued.
pub const CONTROL_TOOLS: [&str; 4] = [TOOL_SEARCH_CODE, TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL];

/// Which isolated runtime runs `tool_search_code` (our extension to the config).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxBackend {
    #[default]
    Quickjs,
    Node,
}

/// Which ranking orders search results after the exact name-or-id matches (our extension to
/// the config: `tools.toolSearch.ranker`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ranker {
    /// BM25 over tool text with stemming, field weights, operation awareness, compounds and typos.
    #[default]
    Lexical,
    /// The lexical ranking fused with sentence embeddings (all-MiniLM-L6-v2, installed by
    /// scripts/install-model.sh).
    Hybrid,
}

impl Ranker {
    pub fn as_str(self) -> &'static str {
        match self {
            Ranker::Lexical => "lexical",
            Ranker::Hybrid => "hybrid",
        }
    }
}

/// The resolved settings. `mode == Direct` means Tool Search is off (direct exposure).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSearchSettings {
    pub mode: ToolSearchMode,
    pub code_timeout_ms: u64,
    pub search_default_limit: usize,
    pub max_search_limit: usize,
    pub sandbox: SandboxBackend,
    pub node_path: Option<String>,
    pub ranker: Ranker,
    /// The surface's batch search bounds ([`ToolSearchRules::batch`]).
    pub batch: BatchRules,
}

pub const DEFAULT_MAX_SEARCH_LIMIT: u64 = 20;
pub const DEFAULT_SEARCH_LIMIT: u64 = 8;
pub const DEFAULT_CODE_TIMEOUT_MS: u64 = 10_000;

const KEYS: [&str; 8] = [
    "enabled",
    "mode",
    "codeTimeoutMs",
    "searchDefaultLimit",
    "maxSearchLimit",
    "sandbox",
    "nodePath",
    "ranker",
];

impl Default for ToolSearchSettings {
    fn default() -> Self {
        ToolSearchSettings {
            mode: ToolSearchMode::Direct,
            code_timeout_ms: DEFAULT_CODE_TIMEOUT_MS,
            search_default_limit: DEFAULT_SEARCH_LIMIT as usize,
            max_search_limit: DEFAULT_MAX_SEARCH_LIMIT as usize,
            sandbox: SandboxBackend::Quickjs,
            node_path: None,
            ranker: Ranker::Lexical,
            batch: BatchRules::SPEC,
        }
    }
}

type FieldError = (String, String);

fn field_error(key: &str, message: impl Into<String>) -> FieldError {
    (format!("tools.toolSearch.{key}"), message.into())
}

impl ToolSearchSettings {
    /// Resolves the raw `tools.toolSearch` value by the spec's rules: unset and `false` mean off,
    /// `true` means code mode. Errors are `(field path, message)`.
    pub fn resolve(raw: Option<&Value>) -> Result<Self, FieldError> {
        ToolSearchSettings::resolve_under(raw, &ToolSearchRules::spec())
    }

    /// Resolves the raw `tools.toolSearch` value by a surface's `rules`: what unset and `true`
    /// mean, and which modes exist (a mode the surface lacks is an error naming the key).
    pub fn resolve_under(raw: Option<&Value>, rules: &ToolSearchRules) -> Result<Self, FieldError> {
        let mut settings = ToolSearchSettings {
            search_default_limit: rules.limits.default,
            max_search_limit: rules.limits.max,
            batch: rules.batch,
            ..ToolSearchSettings::default()
        };
        let object = match raw {
            None | Some(Value::Null) => {
                settings.mode = rules.when_unset;
                return Ok(settings);
            }
            Some(Value::Bool(false)) => return Ok(settings),
            Some(Value::Bool(true)) => {
                settings.mode = rules.when_enabled;
                return Ok(settings);
            }
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Err((
                    "tools.toolSearch".into(),
                    format!("expected true, false or an object, got {other}"),
                ))
            }
        };
        if let Some(key) = object.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(field_error(
                key,
                format!("unknown key; expected one of {}", KEYS.join(", ")),
            ));
        }
        let enabled = match object.get("enabled") {
            None => !object.is_empty(),
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(field_error(
                    "enabled",
                    format!("expected true or false, got {other}"),
                ))
            }
        };
        let mode = match object.get("mode") {
            None => rules.when_enabled,
            Some(v) => v
                .as_str()
                .and_then(ToolSearchMode::from_name)
                .filter(|m| m.is_tool_search() && rules.has(*m))
                .ok_or_else(|| {
                    field_error("mode", format!("expected {}, got {v}", rules.mode_names()))
                })?,
        };
        if object.contains_key("codeTimeoutMs") && !rules.has(ToolSearchMode::Code) {
            return Err(field_error(
                "codeTimeoutMs",
                "this surface has no code mode (its modes: ".to_string()
                    + &rules.mode_names()
                    + ")",
            ));
        }
        settings.sandbox = match object.get("sandbox") {
            None => SandboxBackend::Quickjs,
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                field_error(
                    "sandbox",
                    format!("expected \"quickjs\" or \"node\", got {v}"),
                )
            })?,
        };
        settings.ranker = match object.get("ranker") {
            None => Ranker::Lexical,
            Some(v) => serde_json::from_value(v.clone()).map_err(|_| {
                field_error(
                    "ranker",
                    format!("expected \"lexical\" or \"hybrid\", got {v}"),
                )
            })?,
        };
        settings.node_path = match object.get("nodePath") {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                return Err(field_error(
                    "nodePath",
                    format!("expected a path string, got {other}"),
                ))
            }
        };
        let limits = rules.limits;
        let max = positive(object.get("maxSearchLimit"))
            .unwrap_or(limits.max as u64)
            .clamp(1, limits.max_clamp as u64);
        let default_limit = positive(object.get("searchDefaultLimit"))
            .unwrap_or(limits.default as u64)
            .clamp(1, max);
        let timeout = positive(object.get("codeTimeoutMs"))
            .unwrap_or(DEFAULT_CODE_TIMEOUT_MS)
            .clamp(1_000, 60_000);
        settings.mode = if enabled {
            mode
        } else {
            ToolSearchMode::Direct
        };
        settings.max_search_limit = max as usize;
        settings.search_default_limit = default_limit as usize;
        settings.code_timeout_ms = timeout;
        Ok(settings)
    }
}

/// A value counts only when it is a positive integer (spec §2); anything else means "use the default".
fn positive(value: Option<&Value>) -> Option<u64> {
    value.and_then(Value::as_u64).filter(|n| *n >= 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn resolve(v: Value) -> ToolSearchSettings {
        ToolSearchSettings::resolve(Some(&v)).unwrap()
    }

    #[test]
    fn booleans_and_empty_object() {
        use ToolSearchMode::*;
        assert_eq!(ToolSearchSettings::resolve(None).unwrap().mode, Direct);
        assert_eq!(resolve(json!(false)).mode, Direct);
        assert_eq!(resolve(json!(true)).mode, Code);
        assert_eq!(resolve(json!({})).mode, Direct);
        assert_eq!(resolve(json!({"mode": "tools"})).mode, Tools);
        assert_eq!(
            resolve(json!({"enabled": false, "mode": "tools"})).mode,
            Direct
        );
        assert_eq!(resolve(json!({"codeTimeoutMs": 5000})).mode, Code);
        // `direct` is how Tool Search being off is named in reports, not a config mode.
        assert!(ToolSearchSettings::resolve(Some(&json!({"mode": "direct"}))).is_err());
    }

    #[test]
    fn a_surface_without_code_mode_reads_unset_and_true_as_tools() {
        use ToolSearchMode::*;
        let rules = ToolSearchRules {
            modes: vec![Tools, Directory],
            when_unset: Tools,
            when_enabled: Tools,
            bridge: crate::config::Bridge {
                call: "dispatch_action".into(),
                code: None,
                ..crate::config::Bridge::spec()
            },
            ..ToolSearchRules::spec()
        };
        let under = |v: Option<Value>| ToolSearchSettings::resolve_under(v.as_ref(), &rules);
        assert_eq!(under(None).unwrap().mode, Tools);
        assert_eq!(under(Some(json!(true))).unwrap().mode, Tools);
        // As in the product: an empty object configures nothing, so Tool Search is off.
        assert_eq!(under(Some(json!({}))).unwrap().mode, Direct);
        assert_eq!(
            under(Some(json!({"maxSearchLimit": 5}))).unwrap().mode,
            Tools
        );
        assert_eq!(under(Some(json!(false))).unwrap().mode, Direct);
        assert_eq!(under(Some(json!({"enabled": false}))).unwrap().mode, Direct);
        assert_eq!(
            under(Some(json!({"mode": "directory"}))).unwrap().mode,
            Directory
        );
        assert_eq!(
            under(Some(json!({"mode": "code"}))),
            Err((
                "tools.toolSearch.mode".to_string(),
                "expected \"tools\" or \"directory\", got \"code\"".to_string()
            ))
        );
        assert_eq!(
            under(Some(json!({"codeTimeoutMs": 5000}))).unwrap_err().0,
            "tools.toolSearch.codeTimeoutMs"
        );
    }

    #[test]
    fn clamps_and_defaults() {
        let s =
            resolve(json!({"maxSearchLimit": 500, "searchDefaultLimit": 70, "codeTimeoutMs": 5}));
        assert_eq!(
            (
                s.max_search_limit,
                s.search_default_limit,
                s.code_timeout_ms
            ),
            (50, 50, 1_000)
        );
        let s =
            resolve(json!({"maxSearchLimit": 5, "searchDefaultLimit": 9, "codeTimeoutMs": 120000}));
        assert_eq!(
            (
                s.max_search_limit,
                s.search_default_limit,
                s.code_timeout_ms
            ),
            (5, 5, 60_000)
        );
        let s =
            resolve(json!({"maxSearchLimit": 0, "searchDefaultLimit": -3, "codeTimeoutMs": 1.5}));
        assert_eq!(
            (
                s.max_search_limit,
                s.search_default_limit,
                s.code_timeout_ms
            ),
            (20, 8, 10_000)
        );
        let s = resolve(json!({"maxSearchLimit": "30", "searchDefaultLimit": 3}));
        assert_eq!((s.max_search_limit, s.search_default_limit), (20, 3));
    }

    /// A surface's limits are the defaults and the clamp (a local model's 5 and 10, say).
    #[test]
    fn a_surface_s_limits_are_its_defaults_and_clamp() {
        let rules = ToolSearchRules {
            limits: crate::config::LimitRules {
                default: 5,
                max: 10,
                max_clamp: 10,
            },
            ..ToolSearchRules::spec()
        };
        let under = |v: Value| ToolSearchSettings::resolve_under(Some(&v), &rules).unwrap();
        let limits = |s: ToolSearchSettings| (s.search_default_limit, s.max_search_limit);
        assert_eq!(limits(under(json!({"mode": "tools"}))), (5, 10));
        assert_eq!(limits(under(json!(true))), (5, 10));
        assert_eq!(limits(under(json!({"maxSearchLimit": 30}))), (5, 10));
        assert_eq!(
            limits(under(json!({"maxSearchLimit": 4, "searchDefaultLimit": 9}))),
            (4, 4)
        );
        assert_eq!(limits(resolve(json!({"maxSearchLimit": 30}))), (8, 30));
    }

    #[test]
    fn unknown_mode_and_bad_types_are_errors() {
        let err = ToolSearchSettings::resolve(Some(&json!({"mode": "magic"}))).unwrap_err();
        assert_eq!(err.0, "tools.toolSearch.mode");
        assert!(err.1.contains("\"magic\""));
        let err = ToolSearchSettings::resolve(Some(&json!("yes"))).unwrap_err();
        assert_eq!(err.0, "tools.toolSearch");
        let err = ToolSearchSettings::resolve(Some(&json!({"sandbox": "v8"}))).unwrap_err();
        assert_eq!(err.0, "tools.toolSearch.sandbox");
    }

    #[test]
    fn ranker_is_lexical_by_default_and_unknown_values_name_the_key() {
        assert_eq!(resolve(json!({"mode": "tools"})).ranker, Ranker::Lexical);
        assert_eq!(
            resolve(json!({"mode": "tools", "ranker": "hybrid"})).ranker,
            Ranker::Hybrid
        );
        assert_eq!(
            ToolSearchSettings::resolve(Some(&json!({"ranker": "semantic"}))),
            Err((
                "tools.toolSearch.ranker".to_string(),
                "expected \"lexical\" or \"hybrid\", got \"semantic\"".to_string()
            ))
        );
    }
}
