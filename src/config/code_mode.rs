//! A lane's Code Mode (`tools.codeMode` on the product): the product's other compact surface,
//! `exec` + `wait`, which supersedes Tool Search for a run where it activates. Typed here so a
//! scenario file's value is checked once, when it loads.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use super::SandboxBackend;

/// Code Mode's control that runs a cell (the guest-facing name of the code role).
pub const EXEC: &str = "exec";
/// Code Mode's control that resumes a waiting cell.
pub const WAIT: &str = "wait";
/// Both controls, sorted.
pub const CONTROLS: [&str; 2] = [EXEC, WAIT];

/// Which executor runs a Code Mode cell (`tools.codeMode.executor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CodeModeExecutor {
    /// QuickJS (on the product, the `code-mode-quickjs` plugin's WASI build).
    Quickjs,
    /// Node (on the product, `node:vm` in a worker; "not a security boundary").
    Node,
}

impl CodeModeExecutor {
    pub fn as_str(self) -> &'static str {
        match self {
            CodeModeExecutor::Quickjs => "quickjs",
            CodeModeExecutor::Node => "node",
        }
    }

    /// The project's sandbox that runs this executor's cells on the embedded gateway.
    pub fn sandbox(self) -> SandboxBackend {
        match self {
            CodeModeExecutor::Quickjs => SandboxBackend::Quickjs,
            CodeModeExecutor::Node => SandboxBackend::Node,
        }
    }
}

/// `tools.codeMode.enabled`: on, or the `"auto"` tier (on only for a catalog-preferred model).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum CodeModeEnabled {
    #[default]
    On,
    Auto,
}

impl CodeModeEnabled {
    /// The value as the product's config writes it.
    pub fn to_json(self) -> serde_json::Value {
        match self {
            CodeModeEnabled::On => serde_json::Value::Bool(true),
            CodeModeEnabled::Auto => serde_json::Value::String("auto".into()),
        }
    }
}

impl<'de> Deserialize<'de> for CodeModeEnabled {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Enabled;
        impl Visitor<'_> for Enabled {
            type Value = CodeModeEnabled;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("true or \"auto\"")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<CodeModeEnabled, E> {
                match v {
                    true => Ok(CodeModeEnabled::On),
                    false => Err(E::invalid_value(
                        de::Unexpected::Bool(false),
                        &"true or \"auto\" (a lane without Code Mode has no code_mode table)",
                    )),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CodeModeEnabled, E> {
                match v {
                    "auto" => Ok(CodeModeEnabled::Auto),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        deserializer.deserialize_any(Enabled)
    }
}

/// A lane's `code_mode = { executor, enabled }` as written and checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CodeModeSettings {
    /// Absent: the target's default executor.
    #[serde(default)]
    pub executor: Option<CodeModeExecutor>,
    /// Default `true` when the table is present.
    #[serde(default)]
    pub enabled: CodeModeEnabled,
}

impl CodeModeSettings {
    /// Does Code Mode engage for a model that is (or is not) catalog-preferred? `true` is
    /// absolute; `"auto"` engages only for a catalog-preferred model.
    pub fn engages(&self, catalog_preferred: bool) -> bool {
        match self.enabled {
            CodeModeEnabled::On => true,
            CodeModeEnabled::Auto => catalog_preferred,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<CodeModeSettings, String> {
        #[derive(Deserialize)]
        struct Holder {
            code_mode: CodeModeSettings,
        }
        toml::from_str::<Holder>(text)
            .map(|h| h.code_mode)
            .map_err(|e| e.message().to_string())
    }

    #[test]
    fn values_read_as_written() {
        assert_eq!(
            read("code_mode = {}").unwrap(),
            CodeModeSettings {
                executor: None,
                enabled: CodeModeEnabled::On
            }
        );
        assert_eq!(
            read("code_mode = { executor = 'node', enabled = 'auto' }").unwrap(),
            CodeModeSettings {
                executor: Some(CodeModeExecutor::Node),
                enabled: CodeModeEnabled::Auto
            }
        );
        assert_eq!(
            read("code_mode = { enabled = true, executor = 'quickjs' }").unwrap(),
            CodeModeSettings {
                executor: Some(CodeModeExecutor::Quickjs),
                enabled: CodeModeEnabled::On
            }
        );
    }

    #[test]
    fn bad_values_are_refused_with_what_is_expected() {
        assert_eq!(
            read("code_mode = { executor = 'v8' }").unwrap_err(),
            "unknown variant `v8`, expected `quickjs` or `node`"
        );
        assert_eq!(
            read("code_mode = { enabled = 'yes' }").unwrap_err(),
            "invalid value: string \"yes\", expected true or \"auto\""
        );
        assert_eq!(
            read("code_mode = { enabled = false }").unwrap_err(),
            "invalid value: boolean `false`, expected true or \"auto\" (a lane without Code \
             Mode has no code_mode table)"
        );
        assert_eq!(
            read("code_mode = { runtime = 'quickjs' }").unwrap_err(),
            "unknown field `runtime`, expected `executor` or `enabled`"
        );
    }

    #[test]
    fn the_gateway_reads_tools_code_mode_as_the_product_does() {
        use serde_json::json;
        let read = |v: serde_json::Value| GatewayCodeMode::resolve(Some(&v));
        assert_eq!(GatewayCodeMode::resolve(None), Ok(None));
        assert_eq!(read(json!(false)), Ok(None));
        // An authored object without `enabled` is off.
        assert_eq!(read(json!({ "executor": "node" })), Ok(None));
        let on = read(json!({ "enabled": true, "executor": "node", "timeoutMs": 5 }))
            .unwrap()
            .unwrap();
        assert_eq!(
            (on.enabled, on.executor, on.timeout_ms),
            (CodeModeEnabled::On, CodeModeExecutor::Node, 100)
        );
        let auto = read(json!("auto")).unwrap().unwrap();
        assert_eq!(
            (auto.enabled, auto.executor),
            (CodeModeEnabled::Auto, DEFAULT_EXECUTOR)
        );
        assert_eq!(
            read(json!({ "enabled": true, "executor": "v8" })),
            Err((
                "tools.codeMode.executor".to_string(),
                "expected \"quickjs\" or \"node\", got \"v8\"".to_string()
            ))
        );
        assert_eq!(
            read(json!({ "enabled": true, "runtime": "quickjs-wasi" }))
                .unwrap_err()
                .0,
            "tools.codeMode.runtime"
        );
        assert_eq!(read(json!(3)).unwrap_err().0, "tools.codeMode");
    }

    #[test]
    fn auto_engages_only_for_a_catalog_preferred_model() {
        let auto = CodeModeSettings {
            executor: None,
            enabled: CodeModeEnabled::Auto,
        };
        assert!(auto.engages(true));
        assert!(!auto.engages(false));
        assert!(CodeModeSettings::default().engages(false));
    }
}

/// `tools.codeMode` as the embedded gateway reads it: `true`, `false`, `"auto"`, or
/// `{ enabled, executor, timeoutMs, nodePath }` (`nodePath` is our extension, as in
/// `tools.toolSearch`). Absent means off here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewayCodeMode {
    pub enabled: CodeModeEnabled,
    pub executor: CodeModeExecutor,
    pub timeout_ms: u64,
    pub node_path: Option<String>,
}

/// The embedded gateway's executor when `executor` is unset: the in-process QuickJS.
pub const DEFAULT_EXECUTOR: CodeModeExecutor = CodeModeExecutor::Quickjs;
/// A cell's wall clock when `timeoutMs` is unset, and its clamps.
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
const TIMEOUT_CLAMP: (u64, u64) = (100, 60_000);

/// The plugin that owns the QuickJS executor on the product; denying it makes that executor
/// unavailable (Code Mode then fails closed).
pub const QUICKJS_PLUGIN: &str = "code-mode-quickjs";

impl GatewayCodeMode {
    /// Reads `tools.codeMode`; `None` when absent or off. The error is `(field path, message)`.
    pub fn resolve(value: Option<&serde_json::Value>) -> Result<Option<Self>, (String, String)> {
        use serde_json::Value;
        let field = |key: &str| match key {
            "" => "tools.codeMode".to_string(),
            key => format!("tools.codeMode.{key}"),
        };
        let mut mode = GatewayCodeMode {
            enabled: CodeModeEnabled::On,
            executor: DEFAULT_EXECUTOR,
            timeout_ms: DEFAULT_TIMEOUT_MS,
            node_path: None,
        };
        let enabled = |v: &Value, key: &str| match v {
            Value::Bool(true) => Ok(Some(CodeModeEnabled::On)),
            Value::Bool(false) => Ok(None),
            Value::String(s) if s == "auto" => Ok(Some(CodeModeEnabled::Auto)),
            other => Err((
                field(key),
                format!("expected true, false or \"auto\", got {other}"),
            )),
        };
        let object = match value {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::Object(object)) => object,
            Some(other) => {
                return Ok(enabled(other, "")?.map(|e| GatewayCodeMode { enabled: e, ..mode }))
            }
        };
        // An authored object without `enabled` is off, as on the product.
        let Some(on) = object
            .get("enabled")
            .map(|v| enabled(v, "enabled"))
            .transpose()?
        else {
            return Ok(None);
        };
        for (key, value) in object {
            match key.as_str() {
                "enabled" => {}
                "executor" => {
                    mode.executor = serde_json::from_value(value.clone()).map_err(|_| {
                        (
                            field(key),
                            format!("expected \"quickjs\" or \"node\", got {value}"),
                        )
                    })?
                }
                "timeoutMs" => match value.as_u64().filter(|n| *n > 0) {
                    Some(ms) => mode.timeout_ms = ms.clamp(TIMEOUT_CLAMP.0, TIMEOUT_CLAMP.1),
                    None => {
                        return Err((
                            field(key),
                            format!("expected a positive integer, got {value}"),
                        ))
                    }
                },
                "nodePath" => match value.as_str() {
                    Some(path) => mode.node_path = Some(path.to_string()),
                    None => return Err((field(key), format!("expected a path, got {value}"))),
                },
                other => {
                    return Err((
                        field(other),
                        "unknown key; expected enabled, executor, timeoutMs or nodePath".into(),
                    ))
                }
            }
        }
        Ok(on.map(|enabled| GatewayCodeMode { enabled, ..mode }))
    }
}
