//! Errors of the OpenClaw target, as values: each names the file, process or table at fault
//! and, where it helps, what to do about it.

use std::path::PathBuf;

/// Everything that can go wrong while locating, configuring, running or reading a real
/// OpenClaw gateway.
#[derive(Debug, thiserror::Error)]
pub enum OpenClawError {
    /// The cached install is missing or incomplete.
    #[error("OpenClaw is not installed at {path}: {reason}; run scripts/install-openclaw.sh")]
    NotInstalled { path: PathBuf, reason: String },

    /// The release asked for is not in the cache.
    #[error("OpenClaw {version} is not installed (no {path}/node_modules/openclaw); run scripts/install-openclaw.sh --version {version} --node {node}")]
    VersionNotInstalled {
        version: String,
        path: PathBuf,
        node: u32,
    },

    /// The Node runtime the run asks for is not in the cache.
    #[error("OpenClaw {version}: Node {node} is not installed ({path} is missing); run scripts/install-openclaw.sh --version {version} --node {node}")]
    NodeMissing {
        version: String,
        node: u32,
        path: PathBuf,
    },

    /// The release does not accept the Node runtime the run asks for.
    #[error("OpenClaw {version} does not run on Node {node} (its engines: {engines:?}; the run asked for Node {major}); pick another with --openclaw-node")]
    NodeRefused {
        version: String,
        node: String,
        major: u32,
        engines: String,
    },

    /// Neither the given cache directory, `TOOLSEARCH_QA_CACHE` nor `HOME` says where the cache is.
    #[error("no cache directory: pass one, or set TOOLSEARCH_QA_CACHE or HOME")]
    NoCacheDir,

    /// Reading or writing a file or directory failed.
    #[error("{action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A JSON file could not be parsed or serialised.
    #[error("JSON in {path}: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },

    /// An argument cannot be turned into a valid plugin or config.
    #[error("invalid {what}: {reason}")]
    Invalid { what: &'static str, reason: String },

    /// The gateway process could not be spawned.
    #[error("cannot spawn the OpenClaw gateway ({program}): {source}")]
    Spawn {
        program: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// The gateway exited before it was ready.
    #[error("the OpenClaw gateway exited before it was ready ({status}): {reason}{}; log tail:\n{log_tail}", super::refused::refused_note(reason))]
    EarlyExit {
        status: String,
        /// The product's own reason, from its stdout and stderr ([`super::gateway::product_reason`]).
        reason: String,
        log_tail: String,
    },

    /// The gateway did not become ready in time.
    #[error("the OpenClaw gateway was not ready after {seconds} s; log tail:\n{log_tail}")]
    StartTimeout { seconds: u64, log_tail: String },

    /// A config change was not applied by the running gateway.
    #[error(
        "the OpenClaw gateway did not apply the lane's config: {message}; log tail:\n{log_tail}"
    )]
    Reload { message: String, log_tail: String },

    /// The transcript database could not be read.
    #[error("transcript database {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    /// A transcript row or line is not what OpenClaw writes.
    #[error("transcript {location}: {reason}")]
    BadTranscript { location: String, reason: String },

    /// Neither a transcript database nor JSONL session files exist for the agent.
    #[error("no transcript for agent {agent_id} under {state_dir} (looked for {sqlite} and {sessions_dir}/*.jsonl)")]
    NoTranscript {
        agent_id: String,
        state_dir: PathBuf,
        sqlite: PathBuf,
        sessions_dir: PathBuf,
    },
}

impl OpenClawError {
    pub(crate) fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.into();
        move |source| OpenClawError::Io {
            action,
            path,
            source,
        }
    }

    pub(crate) fn json(path: impl Into<PathBuf>) -> impl FnOnce(serde_json::Error) -> Self {
        let path = path.into();
        move |source| OpenClawError::Json { path, source }
    }
}
