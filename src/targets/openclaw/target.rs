//! The `openclaw` target: a real OpenClaw gateway per lane, installed by
//! `scripts/install-openclaw.sh`. The fake catalogue becomes a real plugin, the lane becomes an
//! OpenClaw config, and the gateway's SQLite transcript is translated into the session-log
//! vocabulary the claims read — adding nothing the transcript does not say.

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{
    free_loopback_port, read_transcript, write_config, write_plugin, Installation, LaneConfig,
    OpenClawGateway, DEFAULT_START_TIMEOUT,
};
use crate::catalog::fake::fake_plugin_tools;
use crate::engine::surface::{TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, TOOL_SEARCH_CODE};
use crate::suite::HarnessError;
use crate::targets::{BoxFuture, LaneGateway, LaneSetup, Target};

/// A real OpenClaw gateway, found in the install cache.
pub struct OpenClawTarget {
    install: Installation,
}

impl OpenClawTarget {
    /// Finds the install; the error says how to install it.
    pub fn locate() -> Result<Self, HarnessError> {
        let install = Installation::locate(None)
            .map_err(|e| HarnessError::infra(format!("openclaw target: {e}")))?;
        Ok(OpenClawTarget { install })
    }

    pub fn version(&self) -> &str {
        &self.install.version
    }
}

impl Target for OpenClawTarget {
    fn name(&self) -> &'static str {
        "openclaw"
    }

    /// A real gateway plans for seconds before its first provider request, and far longer on a
    /// loaded machine.
    fn turn_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(600)
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, HarnessError>> {
        Box::pin(async move {
            let scenario = setup.scenario;
            let infra = |e: super::OpenClawError| {
                HarnessError::infra(format!("openclaw lane {}: {e}", setup.lane.name))
            };
            let tools = fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size);
            let plugin_dir = write_plugin(
                &setup.work_dir.join("plugins"),
                &scenario.catalog.plugin_id,
                &tools,
                &self.install,
            )
            .map_err(infra)?;
            let tool_search = setup.lane.tool_search_json();
            let mut also_allow = setup.lane.controls();
            also_allow.extend(scenario.policy.also_allow.iter().cloned());
            let lane = LaneConfig {
                tool_search,
                also_allow,
                deny: scenario.policy.deny.clone(),
            };
            let config_path = setup.work_dir.join("openclaw.json");
            let state_dir = setup.work_dir.join("state");
            std::fs::create_dir_all(&state_dir)
                .map_err(|e| HarnessError::infra(format!("{}: {e}", state_dir.display())))?;
            write_config(
                &config_path,
                &setup.provider_base_url,
                &plugin_dir,
                &scenario.catalog.plugin_id,
                &lane,
                &setup.work_dir.join("openclaw.log"),
            )
            .map_err(infra)?;
            let port = free_loopback_port().map_err(infra)?;
            let gateway = OpenClawGateway::start_with_env(
                &self.install,
                &config_path,
                &state_dir,
                port,
                DEFAULT_START_TIMEOUT,
                &setup.env,
            )
            .await
            .map_err(infra)?;
            Ok(Box::new(OpenClawLane { gateway, state_dir }) as Box<dyn LaneGateway>)
        })
    }
}

struct OpenClawLane {
    gateway: OpenClawGateway,
    state_dir: PathBuf,
}

impl LaneGateway for OpenClawLane {
    fn base_url(&self) -> String {
        self.gateway.base_url()
    }

    fn session_records(&self, agent: &str, _session_key: &str) -> Result<Vec<Value>, HarnessError> {
        let events = read_transcript(&self.state_dir, agent)
            .map_err(|e| HarnessError::infra(format!("openclaw transcript: {e}")))?;
        Ok(translate_transcript(&events))
    }

    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move {
            let _ = self.gateway.stop().await;
        })
    }

    fn diagnostics(&self) -> String {
        self.gateway.log_tail()
    }
}

/// Text of a content array (`[{type: "text", text}]`) or a plain string.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// OpenClaw transcript events → our session-log records (`message`, `toolResult`, `telemetry`).
/// What the transcript does not record (declared tool count, the source of a direct call) stays
/// absent, so the claims report it as missing rather than guessing it.
pub fn translate_transcript(events: &[Value]) -> Vec<Value> {
    let mut records = Vec::new();
    let mut counts = (0u64, 0u64, 0u64);
    let mut code_telemetry = None;
    let mut bridged_source = None;
    for event in events {
        if event["type"] != "message" {
            continue;
        }
        let message = &event["message"];
        match message["role"].as_str() {
            Some("user") => records.push(json!({ "type": "message", "role": "user", "text": content_text(&message["content"]) })),
            Some("assistant") => {
                for part in message["content"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                    match part["type"].as_str() {
                        Some("toolCall") => records.push(json!({ "type": "message", "role": "assistant", "toolCall": {
                            "id": part["id"], "name": part["name"], "arguments": part["arguments"] } })),
                        Some("text") => records.push(json!({ "type": "message", "role": "assistant", "text": part["text"] })),
                        _ => {}
                    }
                }
            }
            Some("toolResult") => {
                let name = message["toolName"].as_str().unwrap_or_default();
                let output = content_text(&message["content"]);
                let parsed: Value = serde_json::from_str(&output).unwrap_or(Value::Null);
                match name {
                    TOOL_SEARCH => counts.0 += 1,
                    TOOL_DESCRIBE => counts.1 += 1,
                    TOOL_CALL => {
                        counts.2 += 1;
                        bridged_source = parsed["tool"]["source"].as_str().map(str::to_string);
                    }
                    TOOL_SEARCH_CODE => {
                        code_telemetry = Some(parsed["telemetry"].clone());
                        bridged_source = parsed["value"]["tool"]["source"].as_str().map(str::to_string);
                    }
                    _ => {}
                }
                records.push(json!({ "type": "toolResult", "toolCallId": message["toolCallId"], "toolName": name,
                    "isError": message["isError"].as_bool().unwrap_or(false), "source": null, "output": output }));
            }
            Some("custom") if message["customType"] == "openclaw.nested-tool.v1" => {
                let d = &message["details"];
                records.push(json!({ "type": "toolResult", "toolCallId": d["toolCallId"], "toolName": d["toolName"],
                    "parentToolCallId": d["parentToolCallId"], "isError": d["isError"].as_bool().unwrap_or(false),
                    "source": null, "output": d["result"] }));
            }
            _ => {}
        }
    }
    // A structured `tool_call` result names the target's source in its envelope; so does a
    // `tool_search_code` value. Attach it to the bridged result it describes.
    if let Some(source) = bridged_source {
        if let Some(last) = records
            .iter_mut()
            .rev()
            .find(|r| r["type"] == "toolResult" && r.get("parentToolCallId").is_some())
        {
            last["source"] = Value::from(source);
        }
    }
    if let Some(size) = code_telemetry
        .as_ref()
        .and_then(|t| t["catalogSize"].as_u64())
    {
        records.insert(0, json!({ "type": "surface", "catalogSize": size }));
    }
    let telemetry = code_telemetry.unwrap_or_else(
        || json!({ "searchCount": counts.0, "describeCount": counts.1, "callCount": counts.2 }),
    );
    records.push(json!({ "type": "telemetry", "telemetry": telemetry }));
    records
}
