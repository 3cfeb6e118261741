//! The embedded gateway: an axum server on loopback that runs the Tool Search engine behind
//! OpenClaw's HTTP surface (`POST /v1/responses`, `/healthz`). It knows nothing of scenarios;
//! everything it does is decided by its JSON5 config.

pub mod agent;
pub mod client;
pub mod code_mode;
pub mod conversation;
pub mod dispatch;
pub mod execute;
pub mod faults;
pub mod http;
pub mod invoke;
pub mod mcp;
pub mod native;
pub mod prompt;
pub mod session_log;
pub mod sessions;
pub mod upstream;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::catalog::fake::{core_tools, described_fake_tools};
use crate::catalog::ToolEntry;
use crate::config::{LoadedConfig, Ranker, ToolSearchMode};
use crate::engine::embed::Embedder;
use crate::profile::Profile;
use crate::server::Limits;
use code_mode::CodeRuntime;
use conversation::Conversation;
use upstream::ProviderClient;

/// How long the gateway waits for one provider response unless `models.providers.<id>.timeoutMs` says otherwise.
pub const PROVIDER_TIMEOUT: Duration = Duration::from_secs(30);

#[derive(Debug, Error)]
pub enum GatewayError {
    #[error("gateway config has no usable provider: set models.providers.<id>.baseUrl and agents.defaults.model.primary")]
    NoProvider,
    #[error("cannot bind gateway on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Upstream(#[from] upstream::UpstreamError),
    #[error(transparent)]
    Mcp(#[from] mcp::McpError),
    /// `tools.toolSearch.ranker = "hybrid"` and the embedding model cannot be loaded.
    #[error("tools.toolSearch.ranker \"hybrid\": {0}")]
    Model(#[from] crate::engine::embed::EmbedError),
    #[error("cannot create the state dir {path}: {source}")]
    StateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("gateway config catalog.profile: {0}")]
    Profile(#[from] crate::profile::ProfileError),
    /// `tools.toolSearch` asks for what the profile's surface does not have (e.g. code mode).
    #[error("gateway config {field}: {message} (profile {profile})")]
    ToolSearch {
        field: String,
        message: String,
        profile: String,
    },
}

impl crate::error::Owned for GatewayError {
    fn exit_code(&self) -> u8 {
        match self {
            // What the gateway was configured with, found wrong only when it starts.
            GatewayError::Profile(_) | GatewayError::NoProvider => crate::error::Exit::USAGE,
            _ => crate::error::Exit::INFRA,
        }
    }
}

impl From<GatewayError> for crate::error::Error {
    fn from(e: GatewayError) -> Self {
        crate::error::Error::Gateway(crate::error::Cause::new(e))
    }
}

/// Shared state of a running gateway.
pub struct GatewayState {
    pub config: LoadedConfig,
    pub state_dir: PathBuf,
    /// Every tool the gateway offers (before policy), sorted by id.
    pub tools: Vec<ToolEntry>,
    pub provider: ProviderClient,
    pub model: String,
    /// Whether code mode can run here; `Err` says why not.
    pub code_runtime: Result<(), String>,
    /// The sandbox `tool_search_code` runs in; only when code mode is configured and it can start.
    pub code: Option<CodeRuntime>,
    /// Code Mode's executor, when `tools.codeMode` is configured (it engages per model).
    pub cells: Option<code_mode::CellRuntime>,
    /// The profile's captured `exec` and `wait` (`data/profiles/code-mode/<profile>.toml`), when
    /// it has a capture and Code Mode is configured.
    pub code_mode_capture: Option<Arc<crate::profile::code_mode::CodeModeCapture>>,
    /// The attached MCP servers (empty until [`GatewayState::attach_mcp`]).
    pub mcp: Arc<mcp::McpHub>,
    /// The embedding model, loaded once at start when the hybrid ranker is configured.
    pub embedder: Option<Arc<Embedder>>,
    /// The tool policy, shared with every turn's runner.
    pub policy: Arc<crate::catalog::ToolPolicy>,
    /// The surface of turns without client tools, planned on the first such turn.
    pub planned: OnceLock<crate::engine::Surface>,
    /// The surface the gateway shows besides the catalogue (`catalog.profile`).
    pub profile: Arc<Profile>,
    agents: Vec<String>,
    /// Conversations and turn locks per session key, bounded (see [`sessions`]).
    pub sessions: sessions::Sessions,
    /// The seeded regression, only ever set by [`serve_seeded`] (see [`faults`]).
    pub fault: Option<faults::Fault>,
}

impl GatewayState {
    pub fn new(mut config: LoadedConfig, state_dir: PathBuf) -> Result<Self, GatewayError> {
        let profile = match &config.raw.catalog.profile {
            Some(reference) => crate::profile::resolve(reference)?,
            None => Profile::spec(),
        };
        config
            .resolve_tool_search(&profile.tool_search)
            .map_err(|(field, message)| GatewayError::ToolSearch {
                field,
                message,
                profile: profile.name.clone(),
            })?;
        let (provider, model) = config.primary_model().ok_or(GatewayError::NoProvider)?;
        let timeout = provider
            .timeout_ms
            .filter(|ms| *ms > 0)
            .map_or(PROVIDER_TIMEOUT, Duration::from_millis);
        let streams = provider.stream;
        let protocol = match config.native.map(|n| n.provider) {
            Some(crate::config::NativeProvider::Anthropic) => upstream::WireProtocol::Messages,
            _ => upstream::WireProtocol::Responses,
        };
        let provider = ProviderClient::new(&provider.base_url, provider.api_key.clone(), timeout)?
            .streaming(streams)
            .speaking(protocol);
        let tools = catalog_tools(&config, &profile);
        let mut agents = vec!["main".to_string()];
        agents.extend(config.raw.agents.list.iter().map(|a| a.id.clone()));
        let (code, code_runtime) = match config.tool_search.mode {
            ToolSearchMode::Code => {
                let (runtime, probe) = CodeRuntime::from_settings(&config.tool_search);
                (probe.is_ok().then_some(runtime), probe)
            }
            _ => (None, Ok(())),
        };
        let cells = config.code_mode.as_ref().map(|mode| {
            let denied = (mode.executor == crate::config::CodeModeExecutor::Quickjs
                && config.quickjs_plugin_denied())
            .then(|| {
                format!(
                    "Code Mode executor \"quickjs\" is unavailable or disabled: its plugin {} is \
                     denied. Enable its plugin or select another executor.",
                    crate::config::QUICKJS_PLUGIN
                )
            });
            code_mode::CellRuntime::new(mode, denied)
        });
        let code_mode_capture = match &cells {
            Some(_) => crate::profile::code_mode::capture(&profile.name)
                .map_err(crate::profile::ProfileError::CodeMode)?,
            None => None,
        };
        let embedder = match (config.tool_search.mode, config.tool_search.ranker) {
            (ToolSearchMode::Direct, _) | (_, Ranker::Lexical) => None,
            (_, Ranker::Hybrid) => Some(Arc::new(Embedder::load_installed()?)),
        };
        let policy = Arc::new(config.policy.clone());
        Ok(GatewayState {
            config,
            state_dir,
            tools,
            provider,
            model,
            code_runtime,
            code,
            cells,
            code_mode_capture,
            mcp: Arc::default(),
            embedder,
            policy,
            planned: OnceLock::new(),
            profile,
            agents,
            sessions: sessions::Sessions::default(),
            fault: None,
        })
    }

    /// Adds the MCP servers' tools to the gateway's tools (kept sorted by id).
    pub fn attach_mcp(&mut self, hub: mcp::McpHub) {
        self.planned = OnceLock::new();
        self.tools.extend(hub.entries());
        self.tools.sort_by(|a, b| a.id.cmp(&b.id));
        self.mcp = Arc::new(hub);
    }

    /// The config's call guards and registry knob, for a run's [`execute::GatewayRunner`].
    pub fn guards(&self) -> execute::Guards {
        execute::Guards {
            approvals: self.config.approvals.clone(),
            before_tool_call: self.config.before_tool_call.clone(),
            withdraw_after_search: self.config.raw.catalog.withdraw_after_search.clone(),
        }
    }

    /// Is `fault` this gateway's seeded regression?
    pub fn seeded(&self, fault: faults::Fault) -> bool {
        faults::seeded(self.fault, fault)
    }

    pub fn knows_agent(&self, agent: &str) -> bool {
        self.agents.iter().any(|a| a == agent)
    }

    /// A session's conversation so far (empty for a new or expired session).
    pub fn conversation(&self, session_key: &str) -> Conversation {
        self.sessions.conversation(session_key)
    }

    /// Stores a session's conversation after a turn finished (or handed a call back).
    pub fn set_conversation(&self, session_key: &str, conversation: Conversation) {
        self.sessions.set_conversation(session_key, conversation);
    }

    /// One turn at a time per session: the lock for a session key.
    pub fn session_lock(&self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        self.sessions.turn_lock(key)
    }
}

/// The tools the config asks for: the profile's core tools (the stand-ins under `spec`) and
/// the fake plugin.
pub fn catalog_tools(config: &LoadedConfig, profile: &Profile) -> Vec<ToolEntry> {
    let catalog = &config.raw.catalog;
    let mut tools = match (catalog.core_tools, profile.captured()) {
        (false, _) => Vec::new(),
        (true, None) => core_tools(),
        (true, Some(captured)) => captured.core_entries(),
    };
    let fixture_description = profile
        .captured()
        .and_then(|c| c.source.fixture_description.as_deref());
    if let Some(plugin) = &catalog.fake_plugin {
        let start = tools.len();
        tools.extend(
            described_fake_tools(
                &plugin.id,
                plugin.size,
                plugin
                    .description_template
                    .as_deref()
                    .or(fixture_description),
            )
            .into_iter()
            .map(|mut tool| {
                if plugin.direct_only.contains(&tool.name) {
                    tool = tool.direct_only();
                }
                if plugin.broken.contains(&tool.name) {
                    tool = crate::catalog::fake::broken(tool);
                }
                tool
            }),
        );
        if catalog.registration == crate::config::Registration::Reversed {
            tools[start..].reverse();
        }
    }
    // The gateway's own order, whatever order the plugin registered in (upstream #140698).
    tools.sort_by(|a, b| a.id.cmp(&b.id));
    tools
}

/// A gateway serving on a loopback port until stopped (or dropped).
pub struct RunningGateway {
    pub addr: SocketAddr,
    pub state: Arc<GatewayState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl RunningGateway {
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting requests, waits for the turns in flight (at most [`Limits::drain`]) and
    /// stops the MCP servers.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
        self.state.mcp.shutdown();
    }
}

impl Drop for RunningGateway {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        self.state.mcp.shutdown();
    }
}

/// Starts the gateway on `addr` (port 0 picks a free one).
pub async fn serve(
    config: LoadedConfig,
    state_dir: PathBuf,
    addr: SocketAddr,
) -> Result<RunningGateway, GatewayError> {
    serve_with_limits(config, state_dir, addr, Limits::default()).await
}

/// [`serve`] with explicit header and body read limits.
pub async fn serve_with_limits(
    config: LoadedConfig,
    state_dir: PathBuf,
    addr: SocketAddr,
    limits: Limits,
) -> Result<RunningGateway, GatewayError> {
    start(config, state_dir, addr, limits, None).await
}

/// [`serve`] with one seeded regression: for `selftest` only, which proves each claim catches
/// the regression it exists for. Nothing a user configures reaches this.
pub async fn serve_seeded(
    config: LoadedConfig,
    state_dir: PathBuf,
    addr: SocketAddr,
    fault: faults::Fault,
) -> Result<RunningGateway, GatewayError> {
    start(config, state_dir, addr, Limits::default(), Some(fault)).await
}

async fn start(
    config: LoadedConfig,
    state_dir: PathBuf,
    addr: SocketAddr,
    limits: Limits,
    fault: Option<faults::Fault>,
) -> Result<RunningGateway, GatewayError> {
    std::fs::create_dir_all(&state_dir).map_err(|source| GatewayError::StateDir {
        path: state_dir.clone(),
        source,
    })?;
    let hub = mcp::McpHub::connect(&config.raw.mcp.servers).await?;
    let mut state = GatewayState::new(config, state_dir)?;
    state.fault = fault;
    state.attach_mcp(hub);
    let state = Arc::new(state);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| GatewayError::Bind { addr, source })?;
    let addr = listener
        .local_addr()
        .map_err(|source| GatewayError::Bind { addr, source })?;
    let app = http::router(state.clone());
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(crate::server::serve(listener, app, limits, async {
        let _ = rx.await;
    }));
    Ok(RunningGateway {
        addr,
        state,
        shutdown: Some(tx),
        task,
    })
}
