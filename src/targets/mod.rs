//! Targets: what the harness drives. It reaches a target only over HTTP and observes it only
//! through the provider journal and the session log, so the embedded gateway and a real
//! OpenClaw gateway are interchangeable behind [`Target`].

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;

use serde_json::{json, Value};

pub mod openclaw;

use crate::engine::surface::CONTROL_TOOLS;
use crate::gateway::session_log::{read_session_log, session_id_for_key, session_log_path};
use crate::gateway::RunningGateway;
use crate::suite::scenario::{CatalogSpec, Lane, Scenario};
use crate::suite::HarnessError;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Everything a target needs to start one lane.
pub struct LaneSetup<'a> {
    pub scenario: &'a Scenario,
    pub lane: &'a Lane,
    /// `http://127.0.0.1:PORT/v1` of the mock provider.
    pub provider_base_url: String,
    /// A fresh directory for this lane (config, state, logs).
    pub work_dir: PathBuf,
    /// Extra environment variables for a gateway that runs as its own process (the openclaw
    /// target); the in-process embedded gateway shares the harness's environment instead.
    pub env: Vec<(String, String)>,
}

/// A target that can start a gateway per lane.
pub trait Target: Send + Sync {
    fn name(&self) -> &'static str;
    /// How long one turn may take on this target.
    fn turn_timeout(&self) -> std::time::Duration {
        crate::suite::lane::TURN_TIMEOUT
    }
    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, HarnessError>>;
}

/// A gateway started for one lane.
pub trait LaneGateway: Send {
    /// Base URL without a path (`http://127.0.0.1:PORT`).
    fn base_url(&self) -> String;
    /// The session log records of one session, in order.
    fn session_records(&self, agent: &str, session_key: &str) -> Result<Vec<Value>, HarnessError>;
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()>;
    /// What to show when a turn fails (e.g. the tail of the gateway's own log).
    fn diagnostics(&self) -> String {
        String::new()
    }
}

/// The project's own gateway, in-process, on a loopback port.
pub struct EmbeddedTarget;

impl Target for EmbeddedTarget {
    fn name(&self) -> &'static str {
        "embedded"
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, HarnessError>> {
        Box::pin(async move {
            let config_path = setup.work_dir.join("gateway.json5");
            let config = embedded_config(setup);
            let text = serde_json::to_string_pretty(&config)
                .map_err(|e| HarnessError::infra(format!("config: {e}")))?;
            std::fs::write(&config_path, text).map_err(|e| {
                HarnessError::infra(format!("cannot write {}: {e}", config_path.display()))
            })?;
            let loaded = crate::config::load_file(&config_path)
                .map_err(|e| HarnessError::Config(e.to_string()))?;
            let state_dir = setup.work_dir.join("state");
            let addr = ([127, 0, 0, 1], 0).into();
            let gateway = crate::gateway::serve(loaded, state_dir.clone(), addr)
                .await
                .map_err(|e| HarnessError::infra(format!("embedded gateway did not start: {e}")))?;
            Ok(Box::new(EmbeddedLane { gateway, state_dir }) as Box<dyn LaneGateway>)
        })
    }
}

/// The JSON5 (here: JSON) config the embedded gateway gets for a lane.
pub fn embedded_config(setup: &LaneSetup<'_>) -> Value {
    let scenario = setup.scenario;
    let policy = &scenario.policy;
    let mut also_allow = policy.also_allow.clone();
    if policy.allow.is_some() {
        also_allow.extend(CONTROL_TOOLS.iter().map(|c| c.to_string()));
    }
    let mut tools = json!({ "toolSearch": setup.lane.tool_search_json(), "deny": policy.deny, "alsoAllow": also_allow });
    if let Some(allow) = &policy.allow {
        tools["allow"] = json!(allow);
    }
    let mcp_servers: serde_json::Map<String, Value> = scenario
        .catalog
        .mcp
        .iter()
        .map(|f| (f.clone(), json!({ "fixture": f })))
        .collect();
    let mut provider = json!({ "baseUrl": setup.provider_base_url, "apiKey": "qa-key", "api": "openai-responses" });
    if setup.lane.stream {
        provider["stream"] = json!(true);
    }
    if let Some(ms) = setup.lane.provider_timeout_ms {
        provider["timeoutMs"] = json!(ms);
    }
    let mut config = json!({
        "gateway": { "mode": "local", "bind": "loopback" },
        "models": { "providers": { "mock": provider } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": scenario.agent }] },
        "tools": tools,
        "catalog": {
            "fakePlugin": fake_plugin_config(&scenario.catalog),
            "coreTools": scenario.catalog.core_tools,
            "mcpServers": mcp_servers,
        },
    });
    merge_overrides(&mut config, setup.lane.config_json());
    config
}

fn fake_plugin_config(catalog: &CatalogSpec) -> Value {
    let mut plugin = json!({ "id": catalog.plugin_id, "size": catalog.size });
    if let Some(template) = &catalog.description_template {
        plugin["descriptionTemplate"] = json!(template);
    }
    if !catalog.direct_only.is_empty() {
        plugin["directOnly"] = json!(catalog.direct_only);
    }
    plugin
}

/// Deep-merges a lane's `config` overrides into its gateway config: tables merge key by key,
/// anything else replaces.
pub fn merge_overrides(base: &mut Value, overrides: Value) {
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

struct EmbeddedLane {
    gateway: RunningGateway,
    state_dir: PathBuf,
}

impl LaneGateway for EmbeddedLane {
    fn base_url(&self) -> String {
        self.gateway.base_url()
    }

    fn session_records(&self, agent: &str, session_key: &str) -> Result<Vec<Value>, HarnessError> {
        read_jsonl_session(&self.state_dir, agent, session_key)
    }

    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(self.gateway.stop())
    }
}

/// Reads `<state>/agents/<agent>/sessions/<session>.jsonl`.
pub fn read_jsonl_session(
    state_dir: &Path,
    agent: &str,
    session_key: &str,
) -> Result<Vec<Value>, HarnessError> {
    let path = session_log_path(state_dir, agent, &session_id_for_key(session_key));
    read_session_log(&path).map_err(HarnessError::infra)
}
