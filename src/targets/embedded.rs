//! The `embedded` target: the project's own gateway, in-process, on a loopback port, configured
//! per lane with an OpenClaw-style config written into the lane's work directory.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::{
    mcp_servers, BoxFuture, LaneGateway, LaneSetup, NotApplicable, SessionState, Target,
    TargetKind, TargetPlan,
};
use crate::config::{merge_overrides, ToolSearchSettings};
use crate::error::Error;
use crate::gateway::faults::Fault;
use crate::gateway::RunningGateway;
use crate::protocol::invoke::{EffectiveRequest, EffectiveTools, EFFECTIVE_PATH};
use crate::protocol::session::{session_id_for_key, session_log_path, SessionLog};
use crate::scenario::{CatalogSpec, Lane, Scenario};

/// The project's own gateway.
pub struct EmbeddedTarget;

impl Target for EmbeddedTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Embedded
    }

    /// Lanes in a mode the scenario's profile lacks are not applicable, with the reason; a
    /// lane whose `tool_search` means another mode under the profile is a usage error.
    fn plan(&self, scenario: &Scenario) -> Result<TargetPlan, Error> {
        let mut resolved = scenario.clone();
        resolved.lanes.clear();
        let mut not_applicable = Vec::new();
        for lane in &scenario.lanes {
            match lane_under_profile(scenario, lane)? {
                Some(reason) => not_applicable.push(NotApplicable::new(lane, reason)),
                None => resolved.lanes.push(lane.clone()),
            }
        }
        Ok(TargetPlan {
            scenario: resolved,
            not_applicable,
        })
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>> {
        Box::pin(start_lane(setup, None))
    }
}

/// Whether `lane` runs on the scenario's profile: `Some(reason)` when its mode (the scenario's
/// `tool_search`, read by the spec's rules) is one the profile's surface lacks; an error when
/// the profile reads the value as another mode (e.g. `{}`: off in the spec, on where Tool Search
/// is on by default), so a lane never silently runs a mode it does not expect.
fn lane_under_profile(scenario: &Scenario, lane: &Lane) -> Result<Option<String>, Error> {
    let profile = &scenario.profile;
    let rules = &profile.tool_search;
    let wanted = lane.mode();
    if !rules.has(wanted) {
        return Ok(Some(format!(
            "profile {} has no {} mode (its modes: {})",
            profile.name,
            wanted.as_str(),
            rules
                .modes
                .iter()
                .map(|m| m.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let read = ToolSearchSettings::resolve_under(Some(&lane.tool_search), rules)
        .map(|s| s.mode)
        .map_err(|(field, message)| format!("{field}: {message}"));
    match read {
        Ok(mode) if mode == wanted => Ok(None),
        other => Err(Error::Usage(format!(
            "scenario {} lane {}: tool_search = {} is {} mode in the scenario but {} under profile {}; \
             write the mode out (`false` for Tool Search off, `{{ mode = \"…\" }}`) ({})",
            scenario.id,
            lane.name,
            lane.tool_search,
            wanted.as_str(),
            match other {
                Ok(mode) => format!("{} mode", mode.as_str()),
                Err(why) => format!("refused ({why})"),
            },
            profile.name,
            scenario.origin
        ))),
    }
}

/// The embedded gateway started with one seeded regression (see [`crate::gateway::faults`]):
/// what `selftest` runs scenarios on to prove each claim catches its regression. It reports as
/// the embedded target, so the claims judge it exactly as they judge the real one.
pub struct SeededTarget(pub Fault);

impl Target for SeededTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Embedded
    }

    fn plan(&self, scenario: &Scenario) -> Result<TargetPlan, Error> {
        EmbeddedTarget.plan(scenario)
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>> {
        Box::pin(start_lane(setup, Some(self.0)))
    }
}

/// Writes the lane's config and starts a gateway on it, seeded with `fault` when there is one.
async fn start_lane(
    setup: &LaneSetup<'_>,
    fault: Option<Fault>,
) -> Result<Box<dyn LaneGateway>, Error> {
    let config_path = setup.work_dir.join("gateway.json5");
    let text = serde_json::to_string_pretty(&embedded_config(setup)?)
        .map_err(|e| Error::Machine(format!("config: {e}")))?;
    std::fs::write(&config_path, text).map_err(Error::io("cannot write", &config_path))?;
    let loaded = crate::config::load_file(&config_path)?;
    let state_dir = setup.work_dir.join("state");
    let addr = ([127, 0, 0, 1], 0).into();
    let gateway = match fault {
        None => crate::gateway::serve(loaded, state_dir.clone(), addr).await?,
        Some(fault) => crate::gateway::serve_seeded(loaded, state_dir.clone(), addr, fault).await?,
    };
    Ok(Box::new(EmbeddedLane { gateway, state_dir }) as Box<dyn LaneGateway>)
}

/// The JSON5 (here: JSON) config the embedded gateway gets for a lane.
pub fn embedded_config(setup: &LaneSetup<'_>) -> Result<Value, Error> {
    let scenario = setup.scenario;
    let policy = &scenario.policy;
    let mut also_allow = policy.also_allow.clone();
    if policy.allow.is_some() {
        let bridge = scenario.profile.bridge();
        also_allow.extend(bridge.all().into_iter().map(str::to_string));
    }
    let mut tools = json!({ "toolSearch": setup.lane.tool_search, "deny": policy.deny, "alsoAllow": also_allow });
    if let Some(allow) = &policy.allow {
        tools["allow"] = json!(allow);
    }
    if let Some(code_mode) = setup.lane.code_mode {
        tools["codeMode"] = json!({ "enabled": code_mode.enabled.to_json() });
        if let Some(executor) = code_mode.executor {
            tools["codeMode"]["executor"] = json!(executor.as_str());
        }
    }
    if let Some(native) = setup.lane.native {
        tools["nativeSearch"] = json!({ "provider": native.provider, "search": native.search });
        if native.namespaces {
            tools["nativeSearch"]["namespaces"] = json!(true);
        }
    }
    let api = match setup.lane.native.map(|n| n.provider) {
        Some(crate::config::NativeProvider::Anthropic) => "anthropic-messages",
        _ => "openai-responses",
    };
    let mut provider =
        json!({ "baseUrl": setup.provider_base_url, "apiKey": "qa-key", "api": api });
    if setup.lane.stream {
        provider["stream"] = json!(true);
    }
    if let Some(ms) = setup.lane.provider_timeout_ms {
        provider["timeoutMs"] = json!(ms);
    }
    if setup.lane.catalog_preferred {
        provider["models"] = json!([{ "id": "qa", "compat": { "codeMode": "preferred" } }]);
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
    if !scenario.catalog.mcp_server_names().is_empty() {
        config["mcp"] = json!({ "servers": mcp_servers(setup)? });
    }
    if let Some(overrides) = &setup.lane.config {
        merge_overrides(&mut config, overrides.clone());
    }
    Ok(config)
}

fn fake_plugin_config(catalog: &CatalogSpec) -> Value {
    let mut plugin = json!({ "id": catalog.plugin_id, "size": catalog.size });
    if let Some(template) = catalog.description() {
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

    /// The session store's view: a turn of the session holds its lock while it runs.
    fn session_state<'a>(
        &'a self,
        _agent: &'a str,
        session_key: &'a str,
    ) -> BoxFuture<'a, SessionState> {
        let running = self.gateway.state.sessions.running(session_key);
        Box::pin(async move {
            match running {
                true => SessionState::Running,
                false => SessionState::Idle,
            }
        })
    }

    /// `POST /tools/effective`, the embedded gateway's HTTP view of `tools.effective`.
    fn effective_tools<'a>(
        &'a self,
        agent: &'a str,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<EffectiveTools, String>> {
        let url = format!("{}{EFFECTIVE_PATH}", self.gateway.base_url());
        let request = EffectiveRequest {
            session_key: session_key.to_string(),
            agent_id: Some(agent.to_string()),
        };
        Box::pin(async move {
            let response = reqwest::Client::new()
                .post(&url)
                .json(&request)
                .send()
                .await
                .map_err(|e| format!("POST {url}: {e}"))?;
            let status = response.status();
            let text = response
                .text()
                .await
                .map_err(|e| format!("POST {url}: reading body: {e}"))?;
            if !status.is_success() {
                return Err(format!(
                    "POST {url} answered HTTP {}: {text}",
                    status.as_u16()
                ));
            }
            serde_json::from_str(&text)
                .map_err(|e| format!("POST {url}: not tools.effective's shape ({e}): {text}"))
        })
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
