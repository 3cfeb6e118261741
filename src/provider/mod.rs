//! The mock provider: a loopback Responses API (and Messages API) whose "model" is a
//! deterministic script.
//!
//! Targets (the embedded gateway or a real OpenClaw gateway) are pointed at [`MockProvider::base_url`];
//! every `POST /v1/responses` is answered by the scripted model ([`model`]) and recorded in the
//! [`Journal`], which is how the harness observes what a target sent. One responder serves all
//! routes (see [`routes`]), behind an axum app with a body limit and read timeouts ([`http`]).
//!
//! Routes: `POST /v1/responses` (JSON, or Server-Sent Events when `"stream": true`; the answer
//! is valid for the official SDK's strict models, see [`wire`]; with a `tool_search` tool and
//! deferred tools, provider-native tool search, see [`native`]), `POST /v1/messages` (Anthropic's
//! Messages API, JSON or SSE, with its tool search tools; errors in Anthropic's shape),
//! `GET /v1/models`, `GET /healthz`,
//! `GET /debug/requests[?after=N]`, `GET /debug/request-cursor`, `GET /debug/last-request`
//! (`null` when nothing was recorded). A known path with another method → 405, anything else →
//! 404; a body that is not a JSON object with a readable `input` (or with a `tools`,
//! `tool_choice`, … that cannot be echoed) → 400 `invalid_request_error`, journaled with outcome
//! `invalid-request`. Every error is `{"error": {"message", "type", "param", "code"}}`.

pub mod declared;
mod http;
pub mod input;
pub mod journal;
pub mod model;
pub mod native;
mod routes;
pub mod wire;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;

use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::server::Limits;
pub use http::MAX_BODY_BYTES;

pub use journal::{Journal, JournalRecord, ParsedBody, Protocol, RawText, RequestKind};
pub use model::{Outcome, ScriptedTurn};
pub use routes::MOCK_MODEL;

/// Why the mock provider could not start.
#[derive(Debug, Error)]
pub enum ProviderError {
    /// The loopback port could not be bound or prepared.
    #[error("mock provider: cannot listen on 127.0.0.1:{port} ({source}); pick another port or use port 0")]
    Bind {
        port: u16,
        #[source]
        source: std::io::Error,
    },
}

impl crate::error::Owned for ProviderError {
    fn exit_code(&self) -> u8 {
        crate::error::Exit::INFRA
    }
}

impl From<ProviderError> for crate::error::Error {
    fn from(e: ProviderError) -> Self {
        crate::error::Error::Provider(crate::error::Cause::new(e))
    }
}

/// How to start the mock provider.
#[derive(Debug, Clone, Default)]
pub struct ProviderOptions {
    /// Loopback port; `None` (or 0) picks a free one.
    pub port: Option<u16>,
    /// Explicit turns replacing the directive logic. Rule: the request with n tool outputs after the
    /// last user message (the n-th request since the user last spoke, 0-based) gets turn n; past the
    /// end the reply is the text `SCRIPT_EXHAUSTED`.
    pub script: Option<Vec<ScriptedTurn>>,
    /// Scripts chosen by a key in the request's message texts: of the keys that occur, the one
    /// that occurs last wins, and its script is followed (same rule as `script`) instead of
    /// `script`. Lets one gateway run several scripted turns, in one session or in several (the
    /// `probes` command batches its probes this way).
    pub scripts_by_prompt: Vec<(String, Vec<ScriptedTurn>)>,
    /// How long a client may take to send its headers and body.
    pub limits: Limits,
}

/// A running mock provider; it stops when dropped.
pub struct MockProvider {
    address: SocketAddr,
    journal: Journal,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl MockProvider {
    /// Starts on 127.0.0.1 with a free port.
    pub async fn start() -> Result<MockProvider, ProviderError> {
        Self::start_with(ProviderOptions::default()).await
    }

    /// Starts on 127.0.0.1:`port` (the CLI `provider` command).
    pub async fn start_on(port: u16) -> Result<MockProvider, ProviderError> {
        Self::start_with(ProviderOptions {
            port: Some(port),
            ..ProviderOptions::default()
        })
        .await
    }

    /// Starts with explicit options.
    pub async fn start_with(options: ProviderOptions) -> Result<MockProvider, ProviderError> {
        let port = options.port.unwrap_or(0);
        let bind_error = |source| ProviderError::Bind { port, source };
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
            .await
            .map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        let journal = Journal::new();
        let router = routes::Router {
            journal: journal.clone(),
            script: options.script.map(Arc::new),
            scripts_by_prompt: Arc::new(options.scripts_by_prompt),
        };
        let (shutdown, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(crate::server::serve(
            listener,
            http::app(Arc::new(router)),
            options.limits,
            async {
                let _ = stopped.await;
            },
        ));
        Ok(MockProvider {
            address,
            journal,
            shutdown: Some(shutdown),
            task,
        })
    }

    /// Stops accepting requests and waits (at most the drain time) for those in flight.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }

    /// `http://127.0.0.1:PORT/v1`: the base URL a Responses client is configured with.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.address())
    }

    /// The bound loopback address.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The shared request journal (a cheap clone).
    pub fn journal(&self) -> Journal {
        self.journal.clone()
    }
}

impl Drop for MockProvider {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}
