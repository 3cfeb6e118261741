//! The `openclaw` target: a real OpenClaw gateway per lane, installed by
//! `scripts/install-openclaw.sh`. The fake catalogue becomes a real plugin, the lane becomes an
//! OpenClaw config, and the gateway's SQLite transcript is translated ([`super::translate`])
//! into the session records the claims read — adding nothing the transcript does not say.

use std::path::PathBuf;

use super::transcript::read_compiled_tools;
use super::translate::translate_transcript;
use super::{
    free_loopback_port, read_transcript, write_config, write_plugin, Installation, LaneConfig,
    OpenClawGateway, DEFAULT_START_TIMEOUT,
};
use crate::catalog::fake::{broken, fake_plugin_tools};
use crate::error::Error;
use crate::protocol::session::SessionLog;
use crate::targets::{BoxFuture, LaneGateway, LaneSetup, Product, Redaction, Target, TargetKind};

/// A real OpenClaw gateway, found in the install cache.
pub struct OpenClawTarget {
    install: Installation,
}

impl OpenClawTarget {
    /// Finds the install; the error says how to install it.
    pub fn locate() -> Result<Self, Error> {
        let install = Installation::locate(None).map_err(Error::openclaw("target"))?;
        Ok(OpenClawTarget { install })
    }

    pub fn version(&self) -> &str {
        &self.install.version
    }
}

impl Target for OpenClawTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Openclaw
    }

    fn product(&self) -> Option<Product> {
        Some(Product {
            version: self.install.version.clone(),
            node: self.install.node_version.clone(),
        })
    }

    /// What differs between machines and runs in OpenClaw's prompts and transcripts: the install
    /// and home paths, the Node and kernel versions, the host name, session ids, dates and times.
    fn redactions(&self) -> Vec<Redaction> {
        let literal = |text: &str, with: &str| (regex::escape(text), with.to_string());
        let mut redactions = vec![
            literal(&self.install.prefix.display().to_string(), "[openclaw]"),
            literal(&format!("v{}", self.install.node_version), "v[node]"),
            literal(&self.install.node_version, "[node]"),
        ];
        if let Some(home) = std::env::var_os("HOME").filter(|h| h.len() > 1) {
            redactions.push(literal(&home.to_string_lossy(), "[home]"));
        }
        redactions.extend(
            [
                (r"Linux [^ ]+ \(", "Linux [kernel] ("),
                // The mock's ids hash the request, which holds machine-specific paths.
                (r"(call|fc|msg|resp)_[0-9a-f]{16}", "${1}_[id]"),
                (r"host=[^ |]+", "host=[host]"),
                (r"Time zone: [^\\ \n]+", "Time zone: [tz]"),
                // The time a message was sent, as OpenClaw stamps it on the user's text.
                (
                    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:\d{4}-\d{2}-\d{2}|\[date\]) \d{2}:\d{2}(?: [A-Za-z_/+-]+)?\]",
                    "[sent at]",
                ),
                // A fresh id per run in tool_search_code's telemetry.
                (r#"(counterScope\\*": \\*")[0-9a-f]{8,}"#, "${1}[scope]"),
                (
                    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                    "[uuid]",
                ),
                (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[time]"),
                (r"\b\d{4}-\d{2}-\d{2}\b", "[date]"),
                (r"\b1[6-9]\d{11}\b", "[epoch-ms]"),
            ]
            .map(|(p, r)| (p.to_string(), r.to_string())),
        );
        redactions
    }

    /// A real gateway plans for seconds before its first provider request, and far longer on a
    /// loaded machine.
    fn turn_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs(600)
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>> {
        Box::pin(async move {
            let scenario = setup.scenario;
            let infra = |e| Error::openclaw(format!("lane {}", setup.lane.name))(e);
            let tools: Vec<_> =
                fake_plugin_tools(&scenario.catalog.plugin_id, scenario.catalog.size)
                    .into_iter()
                    .map(|t| match scenario.catalog.broken.contains(&t.name) {
                        true => broken(t),
                        false => t,
                    })
                    .collect();
            let plugin_dir = write_plugin(
                &setup.work_dir.join("plugins"),
                &scenario.catalog.plugin_id,
                &tools,
                &self.install,
            )
            .map_err(infra)?;
            let tool_search = setup.lane.tool_search.clone();
            let mut also_allow = setup.lane.controls();
            also_allow.extend(scenario.policy.also_allow.iter().cloned());
            let lane = LaneConfig {
                tool_search,
                also_allow,
                deny: scenario.policy.deny.clone(),
            };
            let config_path = setup.work_dir.join("openclaw.json");
            let state_dir = setup.work_dir.join("state");
            std::fs::create_dir_all(&state_dir).map_err(Error::io("cannot create", &state_dir))?;
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

    /// The product's own transcript as written (what snapshots and leak checks read), and its
    /// translation into session records; where the product lists the tools it sent is read too.
    fn session_log(&self, agent: &str, _session_key: &str) -> Result<SessionLog, Error> {
        let events =
            read_transcript(&self.state_dir, agent).map_err(Error::openclaw("transcript"))?;
        let compiled =
            read_compiled_tools(&self.state_dir, agent).map_err(Error::openclaw("trajectory"))?;
        let records = translate_transcript(&events, compiled.as_ref());
        Ok(SessionLog {
            raw: events,
            records,
        })
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
