//! Targets: what the suite drives. It reaches a target only over HTTP and observes it only
//! through the provider journal and the session log (as [`crate::protocol`] records), so the
//! embedded gateway and a real OpenClaw gateway are interchangeable behind [`Target`].
//!
//! Adding a target: a [`TargetKind`] variant (the compiler then points at every place that
//! names targets), a type implementing [`Target`] in its own module, and its [`TargetChoice`].

pub mod embedded;
pub mod openclaw;
mod pick;
pub mod timing;

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::time::Duration;

use crate::config::ToolSearchMode;
use crate::error::Error;
use crate::protocol::invoke::EffectiveTools;
use crate::protocol::session::SessionLog;
pub use crate::scenario::TargetKind;
use crate::scenario::{Lane, Scenario};

pub use embedded::{EmbeddedTarget, SeededTarget};
pub use openclaw::OpenClawTarget;
pub use pick::{TargetChoice, TargetPick};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Environment variable every fixture server is started with: which harness process, scenario
/// and lane it serves, so a test can tell that none outlives its gateway.
pub const MCP_OWNER_ENV: &str = "TOOLSEARCH_QA_MCP_OWNER";

/// The [`MCP_OWNER_ENV`] value of a lane's fixture servers.
pub fn mcp_owner(scenario: &Scenario, lane: &Lane) -> String {
    format!("{}/{}/{}", std::process::id(), scenario.id, lane.name)
}

/// `mcp.servers` for the lane's MCP servers, in OpenClaw's shape (both targets start them by
/// this command): `{<name>: {command, args, env, cwd, transport: "stdio"}}`, each run in the
/// lane's work directory — the fixtures, then the real servers with their placeholders resolved
/// on this machine (`{work}` is the lane's work directory).
pub fn mcp_servers(setup: &LaneSetup<'_>) -> Result<serde_json::Value, Error> {
    let mut map = serde_json::Map::new();
    let owner = mcp_owner(setup.scenario, setup.lane);
    for server in &setup.scenario.catalog.mcp {
        let spec = crate::mcp_fixture::launch(server).map_err(|e| Error::Machine(e.to_string()))?;
        map.insert(
            server.clone(),
            serde_json::json!({
                "command": spec.command,
                "args": spec.args,
                "env": { MCP_OWNER_ENV: owner },
                "cwd": setup.work_dir,
                "transport": "stdio",
            }),
        );
    }
    if !setup.scenario.catalog.mcp_servers.is_empty() {
        let machine = crate::mcp_servers::Machine::here(&setup.work_dir)?;
        let env = [(MCP_OWNER_ENV.to_string(), owner.clone())];
        for spec in &setup.scenario.catalog.mcp_servers {
            let config = crate::mcp_servers::launch::launch(spec, &machine, &env)?;
            let json = crate::mcp_servers::launch::launch_json(&config);
            map.insert(spec.name.clone(), json);
        }
    }
    Ok(serde_json::Value::Object(map))
}

/// How long the harness waits for one gateway turn unless the target says otherwise.
pub const TURN_TIMEOUT: Duration = Duration::from_secs(120);

/// A real product a target runs: its version and the Node it runs on.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub version: String,
    pub node: String,
    /// The product seed its install was patched with (`crate::product_seeds`): the run is not
    /// of the release as published.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeded: Option<String>,
    /// The build it is, when not a release (`--openclaw-build`): where it came from and the
    /// baseline release that judged it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<openclaw::BuildUsed>,
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
    /// The session the lane's turn runs in ([`Target::session_key`]).
    pub session_key: String,
    /// Extra environment variables for a gateway that runs as its own process (the openclaw
    /// target); the in-process embedded gateway shares the harness's environment instead.
    pub env: Vec<(String, String)>,
}

/// A scenario as one target runs it: the lanes it runs (in the form the target needs, with the
/// target tool named as the target names it) and the lanes it cannot run, each with the reason.
#[derive(Debug, Clone)]
pub struct TargetPlan {
    pub scenario: Scenario,
    pub not_applicable: Vec<NotApplicable>,
}

/// A lane a target cannot run, and why (from the scenario file: never a silent skip).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NotApplicable {
    pub lane: String,
    pub reason: String,
    /// The lane is a native one (the provider's own search): its claims (V1–V3) say the target
    /// cannot run it rather than that the scenario has none.
    #[serde(skip)]
    pub native: bool,
}

impl NotApplicable {
    /// `lane` is not run here, for `reason`.
    pub fn new(lane: &crate::scenario::Lane, reason: String) -> NotApplicable {
        NotApplicable {
            lane: lane.name.clone(),
            reason,
            native: lane.is_native(),
        }
    }
}

impl TargetPlan {
    /// Every lane runs as written.
    pub fn as_written(scenario: &Scenario) -> TargetPlan {
        TargetPlan {
            scenario: scenario.clone(),
            not_applicable: Vec::new(),
        }
    }

    /// No lane runs here, each for `reason` (a catalogue this machine cannot start).
    pub fn none_applicable(scenario: &Scenario, reason: &str) -> TargetPlan {
        let mut resolved = scenario.clone();
        let not_applicable = resolved
            .lanes
            .drain(..)
            .map(|lane| NotApplicable::new(&lane, reason.to_string()))
            .collect();
        TargetPlan {
            scenario: resolved,
            not_applicable,
        }
    }
}

/// A target that can give each lane a gateway (its own, or a running one set to the lane's config).
pub trait Target: Send + Sync {
    fn kind(&self) -> TargetKind;
    fn name(&self) -> &'static str {
        self.kind().as_str()
    }
    /// How this target runs `scenario`; an error (exit 2) when the scenario asks for something
    /// the target cannot do and does not say so. Checked for every scenario before any gateway
    /// starts.
    fn plan(&self, scenario: &Scenario) -> Result<TargetPlan, Error> {
        Ok(TargetPlan::as_written(scenario))
    }
    /// The order in which the run executes `plans` (indices into it; reports keep the given
    /// order). By default as given; a target that keeps a gateway while consecutive scenarios
    /// can share it runs those scenarios together.
    fn run_order(&self, plans: &[TargetPlan]) -> Vec<usize> {
        (0..plans.len()).collect()
    }
    /// Called once after the last lane of a run: stops whatever the target kept running.
    fn finish(&self) -> BoxFuture<'_, ()> {
        Box::pin(async {})
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
    /// The release facts file this target drives its product by (`None`: no product), and
    /// whether it is the release's own.
    fn release_facts(&self) -> Option<String> {
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
    /// The Tool Search surface lanes of `scenario` meet on this target (by default the
    /// scenario's profile, as the embedded gateway shows it).
    fn surface(&self, scenario: &Scenario) -> Surface {
        Surface {
            directory: self.directory(scenario),
            ..Surface::of_profile(scenario)
        }
    }
    /// The surface a lane of `scenario` meets where Code Mode engages: `exec` + `wait` and the
    /// direct-only tools beside them (by default the scenario's profile's, as the embedded
    /// gateway shows them; a product's release says its own).
    fn code_mode_surface(&self, scenario: &Scenario) -> Surface {
        self.surface(scenario).code_mode(scenario)
    }

    /// The session key a lane's turn uses (`x-openclaw-session-key`); by default the reference
    /// run's `tool-search-gateway-<lane>`.
    fn session_key(&self, _scenario: &Scenario, lane: &Lane) -> String {
        format!("tool-search-gateway-{}", lane.name)
    }
    /// The capability directory this target's surface shows the model (D1 checks it): the
    /// embedded gateway's comes from the scenario's profile.
    fn directory(&self, scenario: &Scenario) -> Option<DirectorySurface> {
        DirectorySurface::of_profile(&scenario.profile)
    }
    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>>;
    /// What the run cost this target as a whole so far (`None`: it starts no processes).
    fn costs(&self) -> BoxFuture<'_, Option<crate::targets::timing::RunCosts>> {
        Box::pin(async { None })
    }
}

/// Whether a session still has a run in progress once its turns have answered, as the gateway
/// reports it (openclaw/openclaw#135129: a session left running after its turn ended).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionState {
    /// No run in progress.
    Idle,
    /// A run still in progress.
    Running,
    /// The gateway could not say; why.
    Unjudged(String),
}

/// A gateway started for one lane.
pub trait LaneGateway: Send {
    /// Base URL without a path (`http://127.0.0.1:PORT`).
    fn base_url(&self) -> String;
    /// The session log of one session: as written, and typed.
    fn session_log(&self, agent: &str, session_key: &str) -> Result<SessionLog, Error>;
    /// The session's effective tools as the gateway reports them (the product's
    /// `tools.effective`); `Err` says why there are none (the gateway's error, or why it could
    /// not be asked).
    fn effective_tools<'a>(
        &'a self,
        agent: &'a str,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<EffectiveTools, String>>;
    /// Whether the session still has a run in progress.
    fn session_state<'a>(
        &'a self,
        _agent: &'a str,
        _session_key: &'a str,
    ) -> BoxFuture<'a, SessionState> {
        Box::pin(async {
            SessionState::Unjudged("this target does not report a session's state".into())
        })
    }
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()>;
    /// Stops a gateway whose turn failed; a target that keeps gateways across lanes drops this
    /// one, so nothing the failed turn left behind reaches the next lane.
    fn discard(self: Box<Self>) -> BoxFuture<'static, ()> {
        self.stop()
    }
    /// What giving the lane its gateway took (a start, a config reload), for the timings.
    fn setup_steps(&self) -> Vec<crate::targets::timing::Timed> {
        Vec::new()
    }
    /// What to show when a turn fails (e.g. the tail of the gateway's own log).
    fn diagnostics(&self) -> String {
        String::new()
    }
}

/// The Tool Search surface a lane of one scenario meets on a target: how the target reads
/// `tools.toolSearch` and names its bridge tools, and which tools it keeps declared in every
/// Tool Search mode, and its capability directory. The embedded gateway shows the scenario's profile ([`Surface::of_profile`]); a real OpenClaw has its own,
/// from its release's data (`data/releases/openclaw-<v>.toml`), whatever the profile says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Surface {
    /// Modes, defaults and bridge names (a profile's `[tool_search]`).
    pub rules: crate::config::ToolSearchRules,
    /// The target's own core tools that stay declared plus the scenario's direct-only fake
    /// tools (besides the controls).
    pub direct_only: Vec<String>,
    /// The capability directory it renders (D1 looks for it), when it has one.
    pub directory: Option<DirectorySurface>,
    /// The modes that also declare up to so many catalogued tools picked from the prompt
    /// (a release's `prompt_chosen`; the embedded gateway has none).
    pub prompt_chosen: std::collections::BTreeMap<ToolSearchMode, usize>,
}

impl Surface {
    /// The surface the scenario's profile describes (the embedded gateway's): its bridge, and
    /// its always-declared core tools when the scenario's catalogue has core tools.
    pub fn of_profile(scenario: &Scenario) -> Surface {
        let own = match scenario.catalog.core_tools {
            true => scenario.profile.always_declared(),
            false => Vec::new(),
        };
        Surface {
            directory: DirectorySurface::of_profile(&scenario.profile),
            ..Surface::new(scenario.profile.tool_search.clone(), own, scenario)
        }
    }

    /// The same target's surface on a lane where Code Mode engages: `exec` (the code role) and
    /// `wait`, and only the direct-only tools beside them (the scenario's and the profile's); its
    /// directory's heading stays known, so D1 can say it is absent.
    pub fn code_mode(mut self, scenario: &Scenario) -> Surface {
        self.rules.bridge = crate::config::Bridge::code_mode();
        let own = match scenario.catalog.core_tools {
            true => scenario.profile.direct_only_declared(),
            false => Vec::new(),
        };
        self.direct_only = own
            .into_iter()
            .chain(scenario.catalog.direct_only.iter().cloned())
            .collect();
        self.prompt_chosen.clear();
        self
    }

    /// The names of its bridge tools.
    pub fn bridge(&self) -> &crate::config::Bridge {
        &self.rules.bridge
    }

    /// A surface with the target's own `core` tools kept declared, plus the scenario's
    /// direct-only fakes, and no directory yet.
    pub fn new(
        rules: crate::config::ToolSearchRules,
        core: Vec<String>,
        scenario: &Scenario,
    ) -> Surface {
        let direct_only = core
            .into_iter()
            .chain(scenario.catalog.direct_only.iter().cloned())
            .collect();
        Surface {
            rules,
            direct_only,
            directory: None,
            prompt_chosen: Default::default(),
        }
    }
}

/// A surface's capability directory: the heading it sits under in the system prompt and the
/// modes whose prompt has it. Read from the profile (embedded) or the release's data (OpenClaw),
/// never assumed, so D1 looks for what the surface says it renders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirectorySurface {
    pub heading: String,
    pub modes: Vec<ToolSearchMode>,
}

impl DirectorySurface {
    /// The directory a profile renders: the spec's (the engine's heading, directory mode only)
    /// or a captured one's (its `[directory]` modes, under the heading of its directory section).
    pub fn of_profile(profile: &crate::profile::Profile) -> Option<DirectorySurface> {
        use crate::profile::model::ListKind;
        let Some(captured) = profile.captured() else {
            return Some(DirectorySurface {
                heading: crate::engine::directory::DIRECTORY_HEADING.to_string(),
                modes: vec![ToolSearchMode::Directory],
            });
        };
        let modes = captured.directory.modes.clone();
        let heading = modes.iter().find_map(|mode| {
            captured
                .prompt
                .of(*mode)
                .iter()
                .find(|s| s.list == Some(ListKind::Directory))
                .and_then(|s| s.heading.clone())
        })?;
        Some(DirectorySurface { heading, modes })
    }

    /// Whether a lane in `mode` is shown the directory.
    pub fn shown_in(&self, mode: ToolSearchMode) -> bool {
        mode.is_tool_search() && self.modes.contains(&mode)
    }
}
