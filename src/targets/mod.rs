//! Targets: what the suite drives. It reaches a target only over HTTP and observes it only
//! through the provider journal and the session log (as [`crate::protocol`] records), so the
//! embedded gateway and a real OpenClaw gateway are interchangeable behind [`Target`].
//!
//! Adding a target: a [`TargetKind`] variant (the compiler then points at every place that
//! names targets), a type implementing [`Target`] in its own module, and its [`TargetChoice`].

pub mod embedded;
pub mod openclaw;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use crate::error::Error;
use crate::protocol::session::SessionLog;
pub use crate::scenario::TargetKind;
use crate::scenario::{Lane, Scenario};

pub use embedded::EmbeddedTarget;
pub use openclaw::OpenClawTarget;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// How long the harness waits for one gateway turn unless the target says otherwise.
pub const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// A real product a target runs: its version and the Node it runs on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub version: String,
    pub node: String,
}

impl Product {
    /// The Node major (`24` of `24.22.3`).
    pub fn node_major(&self) -> Option<u32> {
        self.node
            .trim_start_matches('v')
            .split('.')
            .next()?
            .parse()
            .ok()
    }
}

/// One snapshot redaction: a regular expression and what its matches become.
pub type Redaction = (String, String);

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
    fn kind(&self) -> TargetKind;
    fn name(&self) -> &'static str {
        self.kind().as_str()
    }
    /// How long one turn may take on this target.
    fn turn_timeout(&self) -> Duration {
        TURN_TIMEOUT
    }
    /// The product this target runs, for reports, accepted findings and snapshots (`None`: the
    /// project's own gateway).
    fn product(&self) -> Option<Product> {
        None
    }
    /// The name of the target's accepted findings and snapshot folder (`openclaw-2026.9.6`;
    /// `None` for the embedded gateway, whose snapshots are the top-level ones).
    fn label(&self) -> Option<String> {
        self.product()
            .map(|p| format!("{}-{}", self.name(), p.version))
    }
    /// Redactions this target's snapshots need beyond the common ones (machine-specific values
    /// the product puts in its prompts and transcripts), applied first.
    fn redactions(&self) -> Vec<Redaction> {
        Vec::new()
    }
    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>>;
}

/// A gateway started for one lane.
pub trait LaneGateway: Send {
    /// Base URL without a path (`http://127.0.0.1:PORT`).
    fn base_url(&self) -> String;
    /// The session log of one session: as written, and typed.
    fn session_log(&self, agent: &str, session_key: &str) -> Result<SessionLog, Error>;
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()>;
    /// What to show when a turn fails (e.g. the tail of the gateway's own log).
    fn diagnostics(&self) -> String {
        String::new()
    }
}

/// The tools a target keeps visible in every Tool Search mode: the target's own core tools that
/// stay declared (the embedded gateway's come from the scenario's profile) plus the scenario's
/// direct-only fake tools.
pub fn direct_only_tools(target: TargetKind, scenario: &Scenario) -> Vec<String> {
    let catalog = &scenario.catalog;
    let own: Vec<String> = match target {
        TargetKind::Embedded if catalog.core_tools => scenario.profile.always_declared(),
        TargetKind::Embedded => Vec::new(),
        TargetKind::Openclaw => openclaw::DIRECT_ONLY_TOOLS
            .iter()
            .map(|t| t.to_string())
            .collect(),
    };
    own.into_iter()
        .chain(catalog.direct_only.iter().cloned())
        .collect()
}

/// Which targets a run drives (the `--target` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TargetChoice {
    /// The project's own gateway, in-process (nothing to install).
    #[default]
    Embedded,
    /// A real OpenClaw gateway per lane (install it first: scripts/install-openclaw.sh).
    Openclaw,
    /// Both, reported side by side.
    Both,
}

impl TargetChoice {
    /// The targets chosen; the openclaw one must be installed.
    pub fn targets(self) -> Result<Vec<Box<dyn Target>>, Error> {
        Ok(match self {
            TargetChoice::Embedded => vec![Box::new(EmbeddedTarget)],
            TargetChoice::Openclaw => vec![Box::new(OpenClawTarget::locate()?)],
            TargetChoice::Both => vec![
                Box::new(EmbeddedTarget),
                Box::new(OpenClawTarget::locate()?),
            ],
        })
    }
}
