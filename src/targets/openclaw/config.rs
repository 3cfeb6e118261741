//! Writes the OpenClaw JSON config for one lane: a local loopback gateway with no auth, the
//! mock provider as its only model (`openai-responses`), the fake plugin loaded from disk,
//! everything that would reach beyond loopback switched off, the memory plugin off, and
//! `tools.toolSearch` per lane.

use std::path::Path;

use serde_json::{json, Value};

use super::release::{AgentsShape, ConfigShape};
use super::OpenClawError;

/// The provider id the config gives the mock provider.
pub const PROVIDER_ID: &str = "mock";
/// The model id the mock provider serves.
pub const MODEL_ID: &str = "qa";
/// The agent the config declares; requests name it in the `x-openclaw-agent` header (the gateway
/// answers `Unknown agent` for an undeclared one) and its transcripts live under `agents/qa/`.
pub const AGENT_ID: &str = "qa";

/// The per-lane part of the config.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneConfig {
    /// `tools.toolSearch`: `false` (direct), `true` (code mode) or an object such as `{"mode": "tools"}`.
    /// Always written, because an unset value means `tools` mode in OpenClaw 2026.9.6.
    pub tool_search: Value,
    /// `tools.alsoAllow`: the control tools a Tool Search lane needs, plus anything else to allow.
    pub also_allow: Vec<String>,
    /// `tools.deny`: tools the policy must remove (fail-closed scenarios).
    pub deny: Vec<String>,
    /// The agent the turn names (`agents.entries.<agent>`).
    pub agent: String,
    /// `mcp.servers` (an object of stdio servers), when the lane has MCP servers.
    pub mcp_servers: Option<Value>,
    /// The release's config shape (how the agent is declared, which keys it knows).
    pub shape: ConfigShape,
    /// The lane's config overrides in the product's terms, deep-merged last.
    pub overrides: Option<Value>,
    /// The fake plugin's config (`plugins.entries.<id>.config`: its hook rules).
    pub plugin_config: Option<Value>,
    /// `tools.codeMode` ([`super::release::CodeModeFacts::config_value`]), on a Code Mode lane
    /// only: a Tool Search or direct lane leaves it unset, as a user's config would.
    pub code_mode: Option<Value>,
    /// Mark the mock model `compat.codeMode = "preferred"` (a catalog-preferred model: the
    /// `"auto"` tier engages for it).
    pub catalog_preferred: bool,
}

impl LaneConfig {
    /// Direct exposure: `toolSearch: false`, nothing extra allowed; 2026.9.6's config shape.
    pub fn direct() -> LaneConfig {
        LaneConfig {
            tool_search: Value::Bool(false),
            also_allow: Vec::new(),
            deny: Vec::new(),
            agent: AGENT_ID.to_string(),
            mcp_servers: None,
            shape: ConfigShape::default(),
            overrides: None,
            plugin_config: None,
            code_mode: None,
            catalog_preferred: false,
        }
    }

    /// Code mode: `toolSearch: true` with `tool_search_code` allowed.
    pub fn code() -> LaneConfig {
        LaneConfig {
            tool_search: Value::Bool(true),
            also_allow: vec!["tool_search_code".into()],
            deny: Vec::new(),
            agent: AGENT_ID.to_string(),
            mcp_servers: None,
            shape: ConfigShape::default(),
            overrides: None,
            plugin_config: None,
            code_mode: None,
            catalog_preferred: false,
        }
    }

    /// Structured controls (`{"mode": "tools"}` or `{"mode": "directory"}`) with the three controls allowed.
    pub fn structured(mode: &str) -> LaneConfig {
        LaneConfig {
            tool_search: json!({ "mode": mode }),
            also_allow: ["tool_search", "tool_describe", "tool_call"]
                .map(String::from)
                .to_vec(),
            deny: Vec::new(),
            agent: AGENT_ID.to_string(),
            mcp_servers: None,
            shape: ConfigShape::default(),
            overrides: None,
            plugin_config: None,
            code_mode: None,
            catalog_preferred: false,
        }
    }
}

/// Builds the config for one lane and writes it to `path` as pretty JSON.
pub fn write_config(
    path: &Path,
    provider_base_url: &str,
    plugin_dir: &Path,
    plugin_id: &str,
    lane: &LaneConfig,
    log_file: &Path,
) -> Result<(), OpenClawError> {
    let config = config_value(provider_base_url, plugin_dir, plugin_id, lane, log_file)?;
    super::write_json(path, &config)
}

/// The config as a value (what [`write_config`] writes).
///
/// The memory slot is off (`plugins.slots.memory: "none"`): on 2026.9.6 the bundled
/// `memory-core` plugin's tools (`memory_search`, `memory_get`, `intent`) are not offered on a
/// fresh gateway's turns but are after a config hot reload, so with it a lane would depend on the
/// lanes before it. Without it a fresh gateway's requests are byte for byte what they are with it
/// (the committed snapshots did not change) and a reloaded one's are the same.
///
/// The Control UI is off (`gateway.controlUi.enabled: false`, in every release's schema since
/// 2026.5.12): on, every fresh state dir gets a 54 MB copy of its assets, hashed file by file while
/// the first lanes run (2026.9.6); no lane uses the dashboard, and no request changes.
pub fn config_value(
    provider_base_url: &str,
    plugin_dir: &Path,
    plugin_id: &str,
    lane: &LaneConfig,
    log_file: &Path,
) -> Result<Value, OpenClawError> {
    validate_tool_search(&lane.tool_search)?;
    let base_url = provider_base_url.trim_end_matches('/');
    if !(base_url.starts_with("http://") || base_url.starts_with("https://")) {
        return Err(OpenClawError::Invalid {
            what: "provider base URL",
            reason: format!(
                "{provider_base_url:?} must start with http:// (e.g. http://127.0.0.1:PORT/v1)"
            ),
        });
    }
    let mut tools =
        json!({ "toolSearch": lane.tool_search, "alsoAllow": sorted(&lane.also_allow) });
    if !lane.deny.is_empty() {
        tools["deny"] = json!(sorted(&lane.deny));
    }
    if let Some(code_mode) = &lane.code_mode {
        tools["codeMode"] = code_mode.clone();
    }
    let primary = json!({ "model": { "primary": format!("{PROVIDER_ID}/{MODEL_ID}") } });
    let agents = match lane.shape.agents {
        AgentsShape::Entries => json!({ "defaults": primary, "entries": { &lane.agent: {} } }),
        AgentsShape::List => json!({ "defaults": primary, "list": [{ "id": &lane.agent }] }),
    };
    let mut provider = provider(base_url);
    if lane.catalog_preferred {
        provider["models"][0]["compat"] = json!({ "codeMode": "preferred" });
    }
    let mut models = json!({ "providers": { PROVIDER_ID: provider } });
    if lane.shape.catalog_refresh {
        models["catalogRefresh"] = json!({ "enabled": false });
    }
    let mut config = json!({
        "gateway": {
            "mode": "local",
            "bind": "loopback",
            "auth": { "mode": "none" },
            "http": { "endpoints": { "responses": { "enabled": true } } },
            "controlUi": { "enabled": false }
        },
        "models": models,
        "agents": agents,
        "update": { "checkOnStart": false },
        "discovery": { "mdns": { "mode": "off" } },
        "logging": { "file": path_text(log_file)? },
        "plugins": {
            "load": { "paths": [path_text(plugin_dir)?] },
            "allow": [plugin_id],
            "entries": { plugin_id: { "enabled": true } },
            "slots": { "memory": "none" }
        },
        "tools": tools
    });
    if let Some(plugin_config) = &lane.plugin_config {
        config["plugins"]["entries"][plugin_id]["config"] = plugin_config.clone();
        // A non-bundled plugin's `before_prompt_build` hook is dropped at registration unless
        // the plugin is granted conversation access (the product's documented
        // `plugins.entries.<id>.hooks.allowConversationAccess`).
        if plugin_config.get("toolsAllow").is_some() {
            config["plugins"]["entries"][plugin_id]["hooks"] =
                json!({ "allowConversationAccess": true });
        }
    }
    if let Some(servers) = &lane.mcp_servers {
        let mut servers = servers.clone();
        if !lane.shape.mcp_stdio_transport {
            for server in servers
                .as_object_mut()
                .into_iter()
                .flat_map(|m| m.values_mut())
            {
                if server["transport"] == "stdio" {
                    server.as_object_mut().map(|s| s.remove("transport"));
                }
            }
        }
        config["mcp"] = json!({ "servers": servers });
    }
    if let Some(settings) = &lane.shape.settings {
        crate::config::merge_overrides(&mut config, settings.clone());
    }
    if let Some(overrides) = &lane.overrides {
        crate::config::merge_overrides(&mut config, overrides.clone());
    }
    Ok(config)
}

fn provider(base_url: &str) -> Value {
    json!({
        "baseUrl": base_url,
        "apiKey": "toolsearch-qa-mock-key",
        "api": "openai-responses",
        "models": [{
            "id": MODEL_ID,
            "name": MODEL_ID,
            "reasoning": false,
            "input": ["text"],
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": { "input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0 }
        }]
    })
}

/// `tools.toolSearch` must be a boolean or an object; OpenClaw itself checks the object's keys.
fn validate_tool_search(value: &Value) -> Result<(), OpenClawError> {
    if value.is_boolean() || value.is_object() {
        return Ok(());
    }
    Err(OpenClawError::Invalid {
        what: "tools.toolSearch",
        reason: format!("{value} must be true, false or an object such as {{\"mode\":\"tools\"}}"),
    })
}

fn sorted(names: &[String]) -> Vec<&str> {
    let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
    names.sort_unstable();
    names.dedup();
    names
}

fn path_text(path: &Path) -> Result<&str, OpenClawError> {
    path.to_str().ok_or_else(|| OpenClawError::Invalid {
        what: "path",
        reason: format!("{} is not valid UTF-8", path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A release whose MCP schema has no `stdio` transport gets its servers without the key
    /// (2026.5.12 refuses the whole config otherwise); the others keep it.
    #[test]
    fn a_release_without_a_stdio_transport_gets_no_transport_key() {
        let mut lane = LaneConfig::direct();
        lane.mcp_servers = Some(json!({
            "qa": { "command": "node", "transport": "stdio" },
            "web": { "url": "http://127.0.0.1:1/mcp", "transport": "sse" },
        }));
        let servers = |lane: &LaneConfig| {
            let config = config_value(
                "http://127.0.0.1:9/v1",
                Path::new("/plugins"),
                "p",
                lane,
                Path::new("/log"),
            )
            .unwrap();
            config["mcp"]["servers"].clone()
        };
        assert_eq!(servers(&lane)["qa"]["transport"], "stdio");
        lane.shape.mcp_stdio_transport = false;
        let without = servers(&lane);
        assert_eq!(without["qa"], json!({ "command": "node" }));
        assert_eq!(without["web"]["transport"], "sse");
    }

    fn config(lane: &LaneConfig) -> Value {
        config_value(
            "http://127.0.0.1:9/v1",
            Path::new("/plugins"),
            "p",
            lane,
            Path::new("/log"),
        )
        .unwrap()
    }

    /// A Tool Search or direct lane writes no `tools.codeMode` (an unset value is what a
    /// user's config has, so an auto tier that engages where it should not shows); a Code Mode
    /// lane writes its value, and a catalog-preferred lane marks the mock model.
    #[test]
    fn only_a_code_mode_lane_writes_tools_code_mode() {
        for lane in [
            LaneConfig::direct(),
            LaneConfig::code(),
            LaneConfig::structured("tools"),
        ] {
            let written = config(&lane);
            assert_eq!(written["tools"].get("codeMode"), None, "{lane:?}");
            assert_eq!(
                written["models"]["providers"][PROVIDER_ID]["models"][0].get("compat"),
                None
            );
        }
        let mut lane = LaneConfig::structured("tools");
        lane.code_mode = Some(json!({ "enabled": "auto", "executor": "quickjs" }));
        lane.catalog_preferred = true;
        let written = config(&lane);
        assert_eq!(
            written["tools"]["codeMode"],
            json!({ "enabled": "auto", "executor": "quickjs" })
        );
        assert_eq!(written["tools"]["toolSearch"], json!({ "mode": "tools" }));
        let model = &written["models"]["providers"][PROVIDER_ID]["models"][0];
        assert_eq!(model["compat"], json!({ "codeMode": "preferred" }));
        assert_eq!(model["id"], MODEL_ID);
    }
}
