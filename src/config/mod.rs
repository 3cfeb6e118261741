//! The gateway config: an OpenClaw-compatible JSON5 file, of which the embedded gateway reads
//! the parts it needs. `tools.toolSearch` is resolved here with the clamps of spec §2.
//!
//! Unknown keys inside `tools` and `tools.toolSearch` are errors that name the key, because a
//! typo there silently changes what the model sees.

mod agent_id;
pub mod code_mode;
mod guards;
mod native;
mod rules;
mod tool_search;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;

use crate::catalog::fake::{plugin_id_problem, size_problem};
use crate::catalog::ToolPolicy;
pub use agent_id::agent_id_problem;
pub use code_mode::{
    CodeModeEnabled, CodeModeExecutor, CodeModeSettings, GatewayCodeMode, QUICKJS_PLUGIN,
};
pub use guards::{Guard, GuardRule, HooksConfig, RuleAction};
pub use native::{NativeProvider, NativeSearch, NativeSearchConfig, NativeSettings};
pub use rules::{BatchRules, Bridge, ControlRole, LimitRules, QueryBound, ToolSearchRules};
pub use tool_search::{
    Ranker, SandboxBackend, ToolSearchMode, ToolSearchSettings, CONTROL_TOOLS, TOOL_CALL,
    TOOL_DESCRIBE, TOOL_SEARCH, TOOL_SEARCH_CODE,
};

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read gateway config {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("gateway config {origin}: {message}")]
    Parse { origin: String, message: String },
    #[error("gateway config {origin}: {field}: {message}")]
    Invalid {
        origin: String,
        field: String,
        message: String,
    },
}

impl crate::error::Owned for ConfigError {
    fn exit_code(&self) -> u8 {
        crate::error::Exit::USAGE
    }
}

impl From<ConfigError> for crate::error::Error {
    fn from(e: ConfigError) -> Self {
        crate::error::Error::Config(crate::error::Cause::new(e))
    }
}

/// The subset of an OpenClaw config the embedded gateway understands.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GatewayConfig {
    #[serde(default)]
    pub models: ModelsConfig,
    #[serde(default)]
    pub agents: AgentsConfig,
    #[serde(default)]
    pub tools: ToolsConfig,
    /// Our extension: which tools the embedded gateway loads (OpenClaw loads plugins instead).
    #[serde(default)]
    pub catalog: CatalogConfig,
    /// Our extension: declarative `before_tool_call` hook rules.
    #[serde(default)]
    pub hooks: HooksConfig,
    /// `mcp.servers`: MCP servers started by command, as OpenClaw configures them.
    #[serde(default)]
    pub mcp: McpConfig,
    /// Everything else an OpenClaw config may carry (gateway, plugins, logging, …); kept, not used.
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsConfig {
    #[serde(default)]
    pub providers: BTreeMap<String, ProviderConfig>,
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    pub base_url: String,
    #[serde(default)]
    pub api_key: Option<String>,
    #[serde(default)]
    pub api: Option<String>,
    /// Request the provider with `stream: true` and read its Server-Sent Events (a real OpenClaw
    /// gateway always streams).
    #[serde(default)]
    pub stream: bool,
    /// Our extension: how long the gateway waits for one provider response (default 30 s).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentsConfig {
    #[serde(default)]
    pub defaults: AgentDefaults,
    /// Agent ids the gateway accepts besides `main`.
    #[serde(default)]
    pub list: Vec<AgentEntry>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefaults {
    #[serde(default)]
    pub model: Option<ModelRef>,
    #[serde(flatten)]
    pub other: BTreeMap<String, serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelRef {
    pub primary: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct AgentEntry {
    pub id: String,
}

/// `tools`: policy plus Tool Search.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolsConfig {
    #[serde(default)]
    pub tool_search: Option<serde_json::Value>,
    /// Our extension: the catalogue goes to the provider deferred, and the provider's own tool
    /// search finds it ([`native`]). The catalogue is planned as in directory mode.
    #[serde(default)]
    pub native_search: Option<NativeSearchConfig>,
    /// `tools.codeMode`: `exec` + `wait` in place of every hidden tool ([`GatewayCodeMode`]).
    #[serde(default)]
    pub code_mode: Option<serde_json::Value>,
    #[serde(default)]
    pub allow: Option<Vec<String>>,
    #[serde(default)]
    pub deny: Vec<String>,
    #[serde(default)]
    pub also_allow: Vec<String>,
    /// Our extension: declarative approval rules, applied to direct and bridged calls alike.
    #[serde(default)]
    pub approvals: Vec<GuardRule>,
}

/// `catalog` (our extension): the fake plugin and the stand-in core tools.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CatalogConfig {
    #[serde(default)]
    pub fake_plugin: Option<FakePluginConfig>,
    #[serde(default = "yes")]
    pub core_tools: bool,
    /// Test knob (fail-closed F2): tool names or ids the gateway's live registry drops right after
    /// the first search of a run, so a call that follows the search finds them gone.
    #[serde(default)]
    pub withdraw_after_search: Vec<String>,
    /// The profile of the surface the gateway shows (a built-in name or a profile file's path;
    /// unset: `spec`): its core tools, control declarations, system prompt and directory.
    #[serde(default)]
    pub profile: Option<String>,
    /// The order the fake plugin registers its tools in (discovery order); what the provider
    /// receives must not depend on it (upstream #140698).
    #[serde(default)]
    pub registration: Registration,
}

impl Default for CatalogConfig {
    fn default() -> Self {
        CatalogConfig {
            fake_plugin: None,
            core_tools: true,
            withdraw_after_search: Vec::new(),
            profile: None,
            registration: Registration::Sorted,
        }
    }
}

/// `catalog.registration`: the order the fake plugin registers its tools in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Registration {
    /// By name (as the plugin's tool table is written).
    #[default]
    Sorted,
    /// Last name first: the same tools discovered in another order.
    Reversed,
}

/// `mcp`: the MCP servers the gateway attaches, by server name (the name becomes the entries'
/// `sourceName`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    #[serde(default)]
    pub servers: BTreeMap<String, McpServerConfig>,
}

/// One stdio MCP server, in OpenClaw's shape (`mcp.servers.<name>`): the command that starts
/// it, and the keys of OpenClaw's schema the embedded gateway honours. Remote transports are
/// not supported here, so `url` or another `transport` is an error that names the key.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpServerConfig {
    pub command: PathBuf,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub cwd: Option<PathBuf>,
    #[serde(default)]
    pub transport: Option<McpTransport>,
    #[serde(default)]
    pub enabled: Option<bool>,
    /// How long `initialize` may take (default [`crate::gateway::mcp::CONNECT_TIMEOUT`]).
    #[serde(default)]
    pub connection_timeout_ms: Option<u64>,
    /// How long `tools/list` or one `tools/call` may take (default
    /// [`crate::gateway::mcp::REQUEST_TIMEOUT`]).
    #[serde(default)]
    pub request_timeout_ms: Option<u64>,
}

/// `mcp.servers.<name>.transport`: only `stdio` here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum McpTransport {
    Stdio,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FakePluginConfig {
    pub id: String,
    /// Checked against [`crate::catalog::fake::MAX_FAKE_TOOLS`] at load.
    pub size: usize,
    /// Description of every fake tool; `{n}` is its number, `{name}` its name.
    #[serde(default)]
    pub description_template: Option<String>,
    /// Fake tool names kept out of the catalogue and visible to the model.
    #[serde(default)]
    pub direct_only: Vec<String>,
    /// Fake tool names whose execution fails, on purpose.
    #[serde(default)]
    pub broken: Vec<String>,
}

/// A loaded config with its Tool Search settings resolved.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    pub raw: GatewayConfig,
    pub tool_search: ToolSearchSettings,
    /// `tools.nativeSearch`, resolved: the provider searches the deferred catalogue.
    pub native: Option<NativeSettings>,
    /// `tools.codeMode`, resolved; `None` when absent or off.
    pub code_mode: Option<GatewayCodeMode>,
    pub policy: ToolPolicy,
    /// `tools.approvals`, compiled.
    pub approvals: Guard,
    /// `hooks.beforeToolCall`, compiled.
    pub before_tool_call: Guard,
}

impl LoadedConfig {
    /// `tools.toolSearch` read again as a surface with `rules` reads it (the gateway's profile:
    /// what unset and `true` mean, which modes exist). The error is `(field path, message)`.
    pub fn resolve_tool_search(&mut self, rules: &ToolSearchRules) -> Result<(), (String, String)> {
        self.tool_search =
            ToolSearchSettings::resolve_under(self.raw.tools.tool_search.as_ref(), rules)?;
        self.plan_native_as_directory();
        Ok(())
    }

    /// A native lane's catalogue is planned as directory mode plans one ([`native_settings`]).
    fn plan_native_as_directory(&mut self) {
        if self.native.is_some() {
            self.tool_search.mode = ToolSearchMode::Directory;
        }
    }

    /// Code Mode when it engages for the primary model: `true` always, `"auto"` only when the
    /// model's catalogue entry says `compat.codeMode = "preferred"`.
    pub fn code_mode_engaged(&self) -> Option<&GatewayCodeMode> {
        let mode = self.code_mode.as_ref()?;
        match mode.enabled {
            CodeModeEnabled::On => Some(mode),
            CodeModeEnabled::Auto => self.model_is_catalog_preferred().then_some(mode),
        }
    }

    /// Does the primary model's entry in `models.providers.<id>.models` say
    /// `compat.codeMode = "preferred"`?
    pub fn model_is_catalog_preferred(&self) -> bool {
        let Some((provider, model)) = self.primary_model() else {
            return false;
        };
        let models = provider.other.get("models").and_then(|m| m.as_array());
        models.into_iter().flatten().any(|m| {
            m["id"].as_str() == Some(&model)
                && m["compat"]["codeMode"].as_str() == Some("preferred")
        })
    }

    /// Is the QuickJS executor's plugin denied (`plugins.deny`, or its entry disabled)? Code Mode
    /// on QuickJS then cannot run a cell and fails closed.
    pub fn quickjs_plugin_denied(&self) -> bool {
        let plugins = self.raw.other.get("plugins");
        let denied = plugins
            .and_then(|p| p["deny"].as_array())
            .is_some_and(|d| d.iter().any(|n| n.as_str() == Some(QUICKJS_PLUGIN)));
        let disabled = plugins.is_some_and(|p| {
            p["entries"][QUICKJS_PLUGIN]["enabled"] == serde_json::Value::Bool(false)
        });
        denied || disabled
    }

    /// The primary model's context window in tokens: `contextWindow` of its entry in
    /// `models.providers.<provider>.models` (OpenClaw's shape), when the config gives one.
    pub fn context_window(&self) -> Option<u64> {
        let (provider, model) = self.primary_model()?;
        let models = provider.other.get("models")?.as_array()?;
        let entry = models.iter().find(|m| m["id"].as_str() == Some(&model))?;
        entry["contextWindow"].as_u64().filter(|n| *n > 0)
    }

    /// The provider and model named by `agents.defaults.model.primary` (`<provider>/<model>`).
    /// Without one, the only configured provider and the model `qa`.
    pub fn primary_model(&self) -> Option<(&ProviderConfig, String)> {
        match &self.raw.agents.defaults.model {
            Some(ModelRef { primary }) => {
                let (provider, model) = primary.split_once('/')?;
                Some((self.raw.models.providers.get(provider)?, model.to_string()))
            }
            None => {
                let mut providers = self.raw.models.providers.values();
                let only = providers.next()?;
                providers.next().is_none().then(|| (only, "qa".to_string()))
            }
        }
    }
}

/// Reads and resolves a JSON5 gateway config file.
pub fn load_file(path: &Path) -> Result<LoadedConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse(&text, &path.display().to_string())
}

/// Parses and resolves a JSON5 gateway config; `origin` names it in errors.
pub fn parse(text: &str, origin: &str) -> Result<LoadedConfig, ConfigError> {
    if let Some(line) = nested_too_deep(text, MAX_NESTING) {
        return Err(ConfigError::Parse {
            origin: origin.to_string(),
            message: format!("line {line}: nested deeper than {MAX_NESTING} levels"),
        });
    }
    let raw: GatewayConfig = json5::from_str(text).map_err(|e| ConfigError::Parse {
        origin: origin.to_string(),
        message: e.to_string(),
    })?;
    resolve(raw, origin)
}

/// Checks a scenario lane's `config` overrides as a gateway would read them, before any gateway
/// starts: merged onto a minimal valid config (provider, model, a fake plugin) and resolved.
/// The error is `(field path, message)`, the path in the config's own key names.
pub fn check_overrides(overrides: &serde_json::Value) -> Result<(), (String, String)> {
    let mut config = serde_json::json!({
        "models": { "providers": { "mock": { "baseUrl": "http://127.0.0.1:9/v1" } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } } },
        "catalog": { "fakePlugin": { "id": "p", "size": 1 } },
    });
    merge_overrides(&mut config, overrides.clone());
    let raw: GatewayConfig = serde_path_to_error::deserialize(config).map_err(|e| {
        let path = e.path().to_string();
        let message = e.into_inner().to_string();
        (if path == "." { String::new() } else { path }, message)
    })?;
    match resolve(raw, "") {
        Ok(_) => Ok(()),
        Err(ConfigError::Invalid { field, message, .. }) => Err((field, message)),
        Err(other) => Err((String::new(), other.to_string())),
    }
}

/// Deep-merges config `overrides` into `base`: tables merge key by key, `null` keeps the base's
/// value, anything else replaces it.
pub fn merge_overrides(base: &mut serde_json::Value, overrides: serde_json::Value) {
    use serde_json::Value;
    match (base, overrides) {
        (Value::Object(base), Value::Object(overrides)) => {
            for (key, value) in overrides {
                match base.get_mut(&key) {
                    Some(slot) => merge_overrides(slot, value),
                    None => {
                        base.insert(key, value);
                    }
                }
            }
        }
        (_, Value::Null) => {}
        (slot, value) => *slot = value,
    }
}

/// Resolves a deserialised config: Tool Search settings, model reference, policy, rules.
fn resolve(raw: GatewayConfig, origin: &str) -> Result<LoadedConfig, ConfigError> {
    let tool_search = ToolSearchSettings::resolve(raw.tools.tool_search.as_ref()).map_err(
        |(field, message)| ConfigError::Invalid {
            origin: origin.to_string(),
            field,
            message,
        },
    )?;
    if raw.agents.defaults.model.is_some() || !raw.models.providers.is_empty() {
        validate_model_ref(&raw, origin)?;
    }
    let policy = ToolPolicy {
        allow: raw.tools.allow.clone(),
        deny: raw.tools.deny.clone(),
        also_allow: raw.tools.also_allow.clone(),
        hook_allow: raw.hooks.tools_allow.clone(),
    };
    let invalid = |(field, message)| ConfigError::Invalid {
        origin: origin.to_string(),
        field,
        message,
    };
    let approvals =
        Guard::compile("approval", "tools.approvals", &raw.tools.approvals).map_err(invalid)?;
    let before_tool_call = Guard::compile(
        "before_tool_call hook",
        "hooks.beforeToolCall",
        &raw.hooks.before_tool_call,
    )
    .map_err(invalid)?;
    check_values(&raw).map_err(invalid)?;
    let native = native_settings(&raw.tools, &tool_search).map_err(invalid)?;
    let code_mode = GatewayCodeMode::resolve(raw.tools.code_mode.as_ref()).map_err(invalid)?;
    if code_mode.is_some() && native.is_some() {
        return Err(invalid((
            "tools.codeMode".into(),
            "a native lane's provider searches: leave tools.codeMode unset beside tools.nativeSearch"
                .into(),
        )));
    }
    let mut loaded = LoadedConfig {
        raw,
        tool_search,
        native,
        code_mode,
        policy,
        approvals,
        before_tool_call,
    };
    loaded.plan_native_as_directory();
    if loaded.primary_model().is_none() {
        return Err(invalid((
            "models.providers".into(),
            "no provider to talk to: define one (with baseUrl) and name it in \
             agents.defaults.model.primary as \"<provider>/<model>\""
                .into(),
        )));
    }
    Ok(loaded)
}

/// `tools.nativeSearch`, resolved. Its catalogue is planned as directory mode plans one (a loaded
/// tool is then run by its exact name, with the checks a `tool_call` gets), so `tools.toolSearch`
/// may only say `directory` beside it.
fn native_settings(
    tools: &ToolsConfig,
    tool_search: &ToolSearchSettings,
) -> Result<Option<NativeSettings>, (String, String)> {
    let Some(config) = tools.native_search else {
        return Ok(None);
    };
    if tools.tool_search.is_some() && tool_search.mode != ToolSearchMode::Directory {
        return Err((
            "tools.toolSearch".into(),
            "with tools.nativeSearch the provider searches: leave tools.toolSearch unset or \
             { mode: \"directory\" }"
                .into(),
        ));
    }
    config.resolve().map(Some)
}

/// Deepest `{`/`[` nesting a config may have. The JSON5 parser recurses once per level, so a
/// deeper text is refused before it is parsed rather than overflowing the stack.
pub const MAX_NESTING: usize = 128;

/// The 1-based line where `text` first nests deeper than `max` objects and arrays, if it does.
/// Brackets inside JSON5 strings (`"…"`, `'…'`, with `\` escapes) and comments (`//`, `/* */`)
/// do not count, as the parser would not read them as structure either.
fn nested_too_deep(text: &str, max: usize) -> Option<usize> {
    let (mut depth, mut line) = (0usize, 1usize);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            '{' | '[' => {
                depth += 1;
                if depth > max {
                    return Some(line);
                }
            }
            '}' | ']' => depth = depth.saturating_sub(1),
            '"' | '\'' => {
                while let Some(s) = chars.next() {
                    match s {
                        '\\' if chars.next() == Some('\n') => line += 1,
                        '\n' => line += 1,
                        s if s == c => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for s in chars.by_ref() {
                    if s == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut star = false;
                for s in chars.by_ref() {
                    if s == '\n' {
                        line += 1;
                    }
                    if star && s == '/' {
                        break;
                    }
                    star = s == '*';
                }
            }
            _ => {}
        }
    }
    None
}

/// Values that become file names, sizes that become allocations and URLs the gateway will call:
/// checked here, so a bad one is a config error naming its field, not a crash or a failed turn.
fn check_values(raw: &GatewayConfig) -> Result<(), (String, String)> {
    for (i, agent) in raw.agents.list.iter().enumerate() {
        if let Some(problem) = agent_id_problem(&agent.id) {
            return Err((format!("agents.list[{i}].id"), problem));
        }
    }
    if let Some(plugin) = &raw.catalog.fake_plugin {
        if let Some(problem) = plugin_id_problem(&plugin.id) {
            return Err(("catalog.fakePlugin.id".into(), problem));
        }
        if let Some(problem) = size_problem(plugin.size as u64) {
            return Err(("catalog.fakePlugin.size".into(), problem));
        }
    }
    for (id, provider) in &raw.models.providers {
        if let Err(problem) = check_base_url(&provider.base_url) {
            return Err((format!("models.providers.{id}.baseUrl"), problem));
        }
    }
    Ok(())
}

/// A provider base URL the gateway can call: absolute `http` or `https` with a host.
fn check_base_url(url: &str) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        format!("{url:?} is not a URL ({e}); expected e.g. \"http://127.0.0.1:8080/v1\"")
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none_or(str::is_empty) {
        return Err(format!(
            "{url:?} is not an http(s) URL with a host; expected e.g. \"http://127.0.0.1:8080/v1\""
        ));
    }
    Ok(())
}

fn validate_model_ref(raw: &GatewayConfig, origin: &str) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        origin: origin.to_string(),
        field: "agents.defaults.model.primary".into(),
        message,
    };
    match &raw.agents.defaults.model {
        Some(ModelRef { primary }) => {
            let Some((provider, _)) = primary.split_once('/') else {
                return Err(invalid(format!(
                    "expected \"<provider>/<model>\", got {primary:?}"
                )));
            };
            if !raw.models.providers.contains_key(provider) {
                return Err(invalid(format!(
                    "names provider {provider:?}, which models.providers does not define"
                )));
            }
            Ok(())
        }
        None if raw.models.providers.len() > 1 => Err(invalid(
            "several providers are configured; say which one to use".into(),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_mode_engages_per_model_and_its_executor_plugin_can_be_denied() {
        let config = |code_mode: &str, models: &str, plugins: &str| {
            parse(
                &format!(
                    r#"{{ models: {{ providers: {{ mock: {{ baseUrl: "http://127.0.0.1:1/v1"{models} }} }} }},
                         agents: {{ defaults: {{ model: {{ primary: "mock/qa" }} }} }},
                         tools: {{ codeMode: {code_mode} }}{plugins} }}"#
                ),
                "t",
            )
            .unwrap()
        };
        let preferred = r#", models: [{ id: "qa", compat: { codeMode: "preferred" } }]"#;
        assert!(config("true", "", "").code_mode_engaged().is_some());
        assert!(config("'auto'", "", "").code_mode_engaged().is_none());
        assert!(config("'auto'", preferred, "")
            .code_mode_engaged()
            .is_some());
        assert!(config("false", preferred, "").code_mode_engaged().is_none());
        assert!(!config("true", "", "").quickjs_plugin_denied());
        assert!(
            config("true", "", r#", plugins: { deny: ["code-mode-quickjs"] }"#)
                .quickjs_plugin_denied()
        );
        assert!(config(
            "true",
            "",
            r#", plugins: { entries: { "code-mode-quickjs": { enabled: false } } }"#
        )
        .quickjs_plugin_denied());
    }

    #[test]
    fn minimal_config_loads() {
        let cfg = parse(
            r#"{ models: { providers: { mock: { baseUrl: "http://127.0.0.1:1/v1" } } },
                 agents: { defaults: { model: { primary: "mock/qa" } } },
                 tools: { toolSearch: { mode: "tools" }, alsoAllow: ["tool_search"] },
                 gateway: { mode: "local" } }"#,
            "test.json5",
        )
        .unwrap();
        assert_eq!(cfg.tool_search.mode, ToolSearchMode::Tools);
        let (provider, model) = cfg.primary_model().unwrap();
        assert_eq!(provider.base_url, "http://127.0.0.1:1/v1");
        assert_eq!(model, "qa");
        assert_eq!(cfg.policy.also_allow, vec!["tool_search".to_string()]);
    }

    #[test]
    fn malformed_json5_names_the_origin() {
        let err = parse("{ tools: ", "lane.json5").unwrap_err().to_string();
        assert!(err.starts_with("gateway config lane.json5: "), "{err}");
    }

    #[test]
    fn unknown_tools_key_is_an_error() {
        let err = parse("{ tools: { toolSerch: true } }", "x.json5")
            .unwrap_err()
            .to_string();
        assert!(err.contains("toolSerch"), "{err}");
    }

    #[test]
    fn unknown_tool_search_key_names_the_field() {
        let err = parse(
            "{ tools: { toolSearch: { mode: \"code\", limit: 3 } } }",
            "x.json5",
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "gateway config x.json5: tools.toolSearch.limit: unknown key; expected one of enabled, mode, \
             codeTimeoutMs, searchDefaultLimit, maxSearchLimit, sandbox, nodePath, ranker"
        );
    }

    #[test]
    fn approval_and_hook_rules_load_and_apply() {
        let cfg = parse(
            r#"{ models: { providers: { mock: { baseUrl: "http://127.0.0.1:1/v1" } } },
                 tools: { approvals: [{ tool: "fake_*", action: "deny", reason: "needs a human" }] },
                 hooks: { beforeToolCall: [{ argsPattern: "secret", action: "deny" }] },
                 catalog: { withdrawAfterSearch: ["fake_plugin_tool_17"] } }"#,
            "x.json5",
        )
        .unwrap();
        let args = serde_json::json!({ "marker": "secret" });
        assert_eq!(
            cfg.approvals.check("fake_1", "a:b:fake_1", &args),
            Err("denied by approval: needs a human".to_string())
        );
        assert_eq!(
            cfg.before_tool_call
                .check("exec", "openclaw:core:exec", &args),
            Err("denied by before_tool_call hook: no reason given".to_string())
        );
        assert_eq!(
            cfg.raw.catalog.withdraw_after_search,
            ["fake_plugin_tool_17"]
        );
    }

    #[test]
    fn bad_hook_pattern_names_the_field() {
        let err = parse(
            r#"{ hooks: { beforeToolCall: [{ argsPattern: "[", action: "deny" }] } }"#,
            "x.json5",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("gateway config x.json5: hooks.beforeToolCall[0].argsPattern: expected a regular expression"),
            "{err}"
        );
    }

    const PROVIDER: &str =
        r#"models: { providers: { mock: { baseUrl: "http://127.0.0.1:1/v1" } } }"#;

    fn invalid_field(text: &str) -> (String, String) {
        match parse(text, "x.json5") {
            Err(ConfigError::Invalid { field, message, .. }) => (field, message),
            other => panic!("expected an invalid field, got {other:?}"),
        }
    }

    #[test]
    fn a_config_without_a_provider_is_a_config_error() {
        let (field, message) = invalid_field("{ tools: { toolSearch: true } }");
        assert_eq!(field, "models.providers");
        assert!(message.starts_with("no provider to talk to"), "{message}");
    }

    #[test]
    fn a_base_url_that_is_not_a_url_is_a_config_error() {
        for url in ["not a url", "ftp://127.0.0.1/v1", "http://", "/v1"] {
            let (field, message) = invalid_field(&format!(
                r#"{{ models: {{ providers: {{ mock: {{ baseUrl: "{url}" }} }} }} }}"#
            ));
            assert_eq!(field, "models.providers.mock.baseUrl", "{url}");
            assert!(message.starts_with(&format!("{url:?} is not")), "{message}");
        }
    }

    #[test]
    fn agent_ids_that_leave_the_state_dir_are_config_errors() {
        for id in ["../../../../X", "a/b", "..", "", "jos\u{e9}"] {
            let (field, _) = invalid_field(&format!(
                r#"{{ {PROVIDER}, agents: {{ list: [{{ id: "qa" }}, {{ id: "{id}" }}] }} }}"#
            ));
            assert_eq!(field, "agents.list[1].id", "{id}");
        }
    }

    #[test]
    fn catalogue_sizes_beyond_the_bound_are_config_errors_not_crashes() {
        for size in ["18446744073709551615", "10000000", "0"] {
            let (field, _) = invalid_field(&format!(
                r#"{{ {PROVIDER}, catalog: {{ fakePlugin: {{ id: "p", size: {size} }} }} }}"#
            ));
            assert_eq!(field, "catalog.fakePlugin.size", "{size}");
        }
        let (field, _) = invalid_field(&format!(
            r#"{{ {PROVIDER}, catalog: {{ fakePlugin: {{ id: "../p", size: 3 }} }} }}"#
        ));
        assert_eq!(field, "catalog.fakePlugin.id");
    }

    #[test]
    fn deeply_nested_json5_is_an_error_not_a_stack_overflow() {
        let deep = format!(
            "{{ other: {}{} }}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let err = parse(&deep, "deep.json5").unwrap_err().to_string();
        assert_eq!(
            err,
            "gateway config deep.json5: line 1: nested deeper than 128 levels"
        );
        // Brackets in strings and comments are not structure.
        let quoted = format!(
            "{{ {PROVIDER}, // {}\n other: {{ a: \"{}\", b: '{}' }} /* {} */ }}",
            "[".repeat(500),
            "{".repeat(500),
            "[\\'".repeat(500),
            "[".repeat(500)
        );
        parse(&quoted, "quoted.json5").unwrap();
        assert_eq!(nested_too_deep("{\n[\n[", 2), Some(3));
    }

    #[test]
    fn model_ref_to_a_missing_provider_is_an_error() {
        let err = parse(
            r#"{ models: { providers: { mock: { baseUrl: "x" } } }, agents: { defaults: { model: { primary: "other/qa" } } } }"#,
            "x.json5",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("agents.defaults.model.primary"), "{err}");
    }
}
