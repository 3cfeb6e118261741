//! The `openclaw` target's groundwork: drive a real OpenClaw gateway installed from npm.
//!
//! One job per file: [`catalogue`] holds the adopted releases' facts ([`release`]), read once,
//! [`schema`] reads what a release's own config schema accepts, [`refused`] names the release-file field behind a key it refuses, [`install`] finds and checks the cached install, [`build`] a build not released yet (`--openclaw-build`), [`plan`] decides how a
//! scenario runs on the product, [`plugin`] writes the fake catalogue as a real plugin, [`config`]
//! writes a lane's OpenClaw config, [`gateway`] runs the gateway process, [`target`] shares one
//! gateway across a run's lanes (a fresh one per plugin and environment), [`transcript`] reads the session events it recorded. The harness reaches the
//! gateway only over HTTP and reads only these files, as for the embedded target.

pub mod build;
pub mod catalogue;
pub mod config;
pub mod error;
pub mod gateway;
pub mod install;
pub mod plan;
pub mod plugin;
pub mod refused;
pub mod release;
pub mod rpc;
pub mod schema;
pub mod target;
pub mod transcript;
pub mod translate;

use std::path::Path;

use serde_json::Value;

pub use build::{BaselineWhy, Build, BuildSource, BuildUsed};
pub use catalogue::{Adopted, ReleaseCatalogue};
pub use config::{config_value, write_config, LaneConfig, AGENT_ID, MODEL_ID, PROVIDER_ID};
pub use error::OpenClawError;
pub use gateway::{free_loopback_port, OpenClawGateway, DEFAULT_START_TIMEOUT, READY_LINE};
pub use install::{Installation, NodeMajor, Pick, Source, CACHE_ENV, NODE_ENV, VERSION_ENV};
pub use plugin::write_plugin;
pub use release::{Release, Version};
pub use target::{OpenClawTarget, RELOAD_TIMEOUT};
pub use transcript::{
    read_session_transcript, read_transcript, read_transcript_events, TranscriptEvent,
};

/// Writes `value` as pretty JSON with a final newline.
pub(crate) fn write_json(path: &Path, value: &Value) -> Result<(), OpenClawError> {
    let mut text = serde_json::to_string_pretty(value).map_err(OpenClawError::json(path))?;
    text.push('\n');
    std::fs::write(path, text).map_err(OpenClawError::io("write", path))
}
