//! The product's gateway methods (its WebSocket RPC) through its own CLI, `openclaw gateway call
//! <method> --port P --params <json> --json`: the product's client does the handshake, so the
//! harness needs no WebSocket client of its own. One call costs a Node start (about 2–4 s on an
//! idle 2-core machine), so a lane makes one only when a claim named on it needs the answer.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::process::Command;

use super::gateway::{search_path, QUIET_ENV};
use super::Installation;

/// How long one call may take (the CLI's own `--timeout` is set to the same bound).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(90);

/// Where a running gateway is and the environment it runs in (the CLI reads the same config and
/// state).
pub struct GatewayAt<'a> {
    pub install: &'a Installation,
    pub config_path: &'a Path,
    pub state_dir: &'a Path,
    pub port: u16,
}

/// Calls `method` with `params` on the gateway; its JSON answer, or the CLI's reason for none
/// (its exit status and the last lines it printed).
pub async fn gateway_call(
    at: &GatewayAt<'_>,
    method: &str,
    params: &Value,
) -> Result<Value, String> {
    let timeout_ms = CALL_TIMEOUT.as_millis().to_string();
    let mut command = Command::new(&at.install.node);
    command
        .arg(&at.install.openclaw_mjs)
        .args(["gateway", "call", method, "--json", "--port"])
        .arg(at.port.to_string())
        .arg("--params")
        .arg(params.to_string())
        .args(["--timeout", &timeout_ms])
        .current_dir(at.state_dir)
        .env_clear()
        .env("PATH", search_path(&at.install.node))
        .env("HOME", at.state_dir.join("home"))
        .env("OPENCLAW_CONFIG_PATH", at.config_path)
        .env("OPENCLAW_STATE_DIR", at.state_dir)
        .envs(QUIET_ENV)
        .stdin(Stdio::null())
        .kill_on_drop(true);
    let run = tokio::time::timeout(CALL_TIMEOUT + Duration::from_secs(10), command.output());
    let output = match run.await {
        Err(_) => {
            return Err(format!(
                "openclaw gateway call {method}: no answer within {} s",
                CALL_TIMEOUT.as_secs()
            ))
        }
        Ok(Err(e)) => {
            return Err(format!(
                "openclaw gateway call {method}: cannot run {}: {e}",
                at.install.node.display()
            ))
        }
        Ok(Ok(output)) => output,
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().chain(stdout.lines()).rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(format!(
            "openclaw gateway call {method} exited with {}: {}",
            output.status,
            tail.join(" | ")
        ));
    }
    json_of(&stdout)
        .ok_or_else(|| format!("openclaw gateway call {method} printed no JSON: {stdout}"))
}

/// The JSON the CLI printed: the whole output, else from its first line that opens an object.
fn json_of(stdout: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str(stdout.trim()) {
        return Some(value);
    }
    let start = stdout.find("\n{").map(|i| i + 1)?;
    serde_json::from_str(stdout[start..].trim()).ok()
}
