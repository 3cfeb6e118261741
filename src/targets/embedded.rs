//! The `embedded` target: the project's own gateway, in-process, on a loopback port, configured
//! per lane with an OpenClaw-style config written into the lane's work directory.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{mcp_servers, BoxFuture, LaneGateway, LaneSetup, Target, TargetKind};
use crate::config::{merge_overrides, CONTROL_TOOLS};
use crate::error::Error;
use crate::gateway::RunningGateway;
use crate::protocol::session::{session_id_for_key, session_log_path, SessionLog};
use crate::scenario::CatalogSpec;

/// The project's own gateway.
pub struct EmbeddedTarget;

impl Target for EmbeddedTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Embedded
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>> {
        Box::pin(async move {
            let config_path = setup.work_dir.join("gateway.json5");
            let text = serde_json::to_string_pretty(&embedded_config(setup)?)
                .map_err(|e| Error::Machine(format!("config: {e}")))?;
            std::fs::write(&config_path, text).map_err(Error::io("cannot write", &config_path))?;
            let loaded = crate::config::load_file(&config_path)?;
            let state_dir = setup.work_dir.join("state");
            let addr = ([127, 0, 0, 1], 0).into();
            let gateway = crate::gateway::serve(loaded, state_dir.clone(), addr).await?;
            Ok(Box::new(EmbeddedLane { gateway, state_dir }) as Box<dyn LaneGateway>)
        })
    }
}

/// The JSON5 (here: JSON) config the embedded gateway gets for a lane.
pub fn embedded_config(setup: &LaneSetup<'_>) -> Result<Value, Error> {
    let scenario = setup.scenario;
    let policy = &scenario.policy;
    let mut also_allow = policy.also_allow.clone();
    if policy.allow.is_some() {
        also_allow.extend(CONTROL_TOOLS.iter().map(|c| c.to_string()));
    }
    let mut tools = json!({ "toolSearch": setup.lane.tool_search, "deny": policy.deny, "alsoAllow": also_allow });
    if let Some(allow) = &policy.allow {
        tools["allow"] = json!(allow);
    }
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
            "profile": scenario.profile.reference,
        },
    });
    if !scenario.catalog.mcp.is_empty() {
        config["mcp"] = json!({ "servers": mcp_servers(setup)? });
    }
    if let Some(overrides) = &setup.lane.config {
        merge_overrides(&mut config, overrides.clone());
    }
    Ok(config)
}

fn fake_plugin_config(catalog: &CatalogSpec) -> Value {
    let mut plugin = json!({ "id": catalog.plugin_id, "size": catalog.size });
    if let Some(template) = &catalog.description_template {
        plugin["descriptionTemplate"] = json!(template);
    }
    if !catalog.direct_only.is_empty() {
        plugin["directOnly"] = json!(catalog.direct_only);
    }
    if !catalog.broken.is_empty() {
        plugin["broken"] = json!(catalog.broken);
    }
    plugin
}

struct EmbeddedLane {
    gateway: RunningGateway,
    state_dir: PathBuf,
}

impl LaneGateway for EmbeddedLane {
    fn base_url(&self) -> String {
        self.gateway.base_url()
    }

    fn session_log(&self, agent: &str, session_key: &str) -> Result<SessionLog, Error> {
        read_jsonl_session(&self.state_dir, agent, session_key)
    }

    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(self.gateway.stop())
    }
}

/// Reads and types `<state>/agents/<agent>/sessions/<session>.jsonl`.
pub fn read_jsonl_session(
    state_dir: &Path,
    agent: &str,
    session_key: &str,
) -> Result<SessionLog, Error> {
    let path = session_log_path(state_dir, agent, &session_id_for_key(session_key));
    SessionLog::read(&path).map_err(Error::SessionLog)
}
