//! The rmcp-backed hub: every configured server started as a child process by its command (as
//! OpenClaw does), spoken to over its stdin/stdout, listed once, called per tool call; every
//! step bounded by the server's timeouts, and every child killed when the hub goes.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdout, Command};

use super::McpError;
use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::config::McpServerConfig;

/// How long a server may take to answer `initialize` unless `connectionTimeoutMs` says otherwise.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long one request (`tools/list`, `tools/call`) may take unless `requestTimeoutMs` says otherwise.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a call whose connection broke waits to learn whether the server's process exited.
const EXIT_GRACE: Duration = Duration::from_secs(2);

struct Attached {
    client: RunningService<RoleClient, ()>,
    /// Killed on drop (`kill_on_drop`) or by [`McpHub::shutdown`], so no server outlives its
    /// gateway.
    child: Mutex<Option<Child>>,
    tools: Vec<ToolEntry>,
    request_timeout: Duration,
}

/// Every MCP server of one gateway, by name.
#[derive(Default)]
pub struct McpHub {
    servers: BTreeMap<String, Attached>,
}

impl McpHub {
    /// Starts and connects every configured server and lists its tools, all at once (a Node
    /// server takes most of a second to start: four in a row were most of a lane's time); the
    /// first that fails stops the others (each started one is killed) and names itself.
    pub async fn connect(configs: &BTreeMap<String, McpServerConfig>) -> Result<Self, McpError> {
        let enabled = configs.iter().filter(|(_, c)| c.enabled.unwrap_or(true));
        let attaching = enabled.map(|(name, config)| async move {
            attach(name, config).await.map(|a| (name.clone(), a))
        });
        let attached = futures::future::try_join_all(attaching).await?;
        Ok(McpHub {
            servers: attached.into_iter().collect(),
        })
    }

    /// The catalogue entries of every attached server, sorted by id.
    pub fn entries(&self) -> Vec<ToolEntry> {
        let mut entries: Vec<ToolEntry> = self
            .servers
            .values()
            .flat_map(|s| s.tools.iter().cloned())
            .collect();
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        entries
    }

    /// The process ids of the attached servers (to check that none outlives the gateway).
    pub fn pids(&self) -> Vec<u32> {
        self.servers
            .values()
            .filter_map(|s| lock(&s.child).as_ref().and_then(Child::id))
            .collect()
    }

    /// `tools/call` on `server`; the result as `{content, details?}` (details = structured content).
    pub async fn call(&self, server: &str, tool: &str, args: &Value) -> Result<Value, McpError> {
        let attached = self
            .servers
            .get(server)
            .ok_or_else(|| McpError::NotAttached {
                server: server.to_string(),
            })?;
        let arguments = match args {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            other => return Err(McpError::NotAnObject(other.to_string())),
        };
        if let Some(status) = attached.exit_status() {
            return Err(exited(server, status));
        }
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(arguments);
        let call = attached.client.call_tool(params);
        let called = tokio::time::timeout(attached.request_timeout, call).await;
        let result = match called {
            Ok(Ok(result)) => result,
            Ok(Err(e)) => return Err(attached.broken(server, protocol(server, e)).await),
            Err(_) => {
                let late = timed_out(server, "tools/call", attached.request_timeout);
                return Err(attached.broken(server, late).await);
            }
        };
        let content = serde_json::to_value(&result.content).unwrap_or(Value::Null);
        if result.is_error == Some(true) {
            return Err(McpError::ToolError(crate::gateway::execute::result_text(
                &json!({ "content": content }),
            )));
        }
        let mut out = json!({ "content": content });
        if let Some(details) = result.structured_content {
            out["details"] = details;
        }
        Ok(out)
    }

    /// Ends every server's session and kills its process (the gateway is stopping).
    pub fn shutdown(&self) {
        for attached in self.servers.values() {
            attached.client.cancellation_token().cancel();
            if let Some(mut child) = lock(&attached.child).take() {
                let _ = child.start_kill();
            }
        }
    }
}

impl Attached {
    /// How the server's process ended, if it has.
    fn exit_status(&self) -> Option<String> {
        let mut child = lock(&self.child);
        let status = child.as_mut()?.try_wait().ok()??;
        Some(status.to_string())
    }

    /// The error of a call that got no answer: [`McpError::Exited`] when the process is gone
    /// within [`EXIT_GRACE`] (a closed connection comes a moment before the exit is reaped),
    /// else `error`.
    async fn broken(&self, server: &str, error: McpError) -> McpError {
        let deadline = tokio::time::Instant::now() + EXIT_GRACE;
        loop {
            if let Some(status) = self.exit_status() {
                return exited(server, status);
            }
            if tokio::time::Instant::now() >= deadline {
                return error;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

fn exited(server: &str, status: String) -> McpError {
    McpError::Exited {
        server: server.to_string(),
        status,
    }
}

fn lock(child: &Mutex<Option<Child>>) -> std::sync::MutexGuard<'_, Option<Child>> {
    child.lock().unwrap_or_else(|p| p.into_inner())
}

fn protocol(server: &str, error: impl std::fmt::Display) -> McpError {
    McpError::Protocol {
        server: server.to_string(),
        message: error.to_string(),
    }
}

fn timed_out(server: &str, step: &'static str, after: Duration) -> McpError {
    McpError::Timeout {
        server: server.to_string(),
        step,
        millis: after.as_millis() as u64,
    }
}

fn millis_or(value: Option<u64>, default: Duration) -> Duration {
    value
        .filter(|ms| *ms > 0)
        .map_or(default, Duration::from_millis)
}

fn spawn(name: &str, config: &McpServerConfig) -> Result<Child, McpError> {
    let mut command = Command::new(&config.command);
    command
        .args(&config.args)
        .envs(&config.env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    if let Some(cwd) = &config.cwd {
        command.current_dir(cwd);
    }
    command.spawn().map_err(|source| McpError::Spawn {
        server: name.to_string(),
        command: config.command.clone(),
        message: source.to_string(),
    })
}

/// The first line a server wrote that is not JSON, once [`guard_stdout`] has seen one.
type Garbage = Arc<Mutex<Option<String>>>;

/// Bytes buffered between a server's stdout and the MCP client.
const PIPE_BYTES: usize = 64 * 1024;

/// The server's stdout as the client reads it, line by line: the first line that is not JSON
/// ends the stream (so the handshake fails at once instead of waiting out its timeout) and is
/// kept for the error.
fn guard_stdout(stdout: ChildStdout) -> (DuplexStream, Garbage) {
    let (client_end, mut relay) = tokio::io::duplex(PIPE_BYTES);
    let garbage = Garbage::default();
    let seen = garbage.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(stdout).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let is_json = serde_json::from_str::<serde::de::IgnoredAny>(&line).is_ok();
            if !is_json && !line.trim().is_empty() {
                *seen.lock().unwrap_or_else(|p| p.into_inner()) = Some(line);
                break;
            }
            let line = line + "\n";
            if relay.write_all(line.as_bytes()).await.is_err() {
                break;
            }
        }
    });
    (client_end, garbage)
}

/// A handshake error, or what the server wrote instead of JSON-RPC when it did.
fn failed(name: &str, step: &str, error: String, garbage: &Garbage) -> McpError {
    match garbage.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
        Some(line) => protocol(
            name,
            format!("{step} failed: it answered something that is not JSON-RPC: {line:?}"),
        ),
        None => protocol(name, format!("{step} failed: {error}")),
    }
}

async fn attach(name: &str, config: &McpServerConfig) -> Result<Attached, McpError> {
    let mut child = spawn(name, config)?;
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(protocol(name, "its stdin or stdout is not a pipe"));
    };
    let (stdout, garbage) = guard_stdout(stdout);
    let connect_timeout = millis_or(config.connection_timeout_ms, CONNECT_TIMEOUT);
    let request_timeout = millis_or(config.request_timeout_ms, REQUEST_TIMEOUT);
    // A child that exits or answers garbage ends the handshake with an error; one that says
    // nothing is cut off by the timeout. Either way `child` is dropped and so killed.
    let client = tokio::time::timeout(connect_timeout, ().serve((stdout, stdin)))
        .await
        .map_err(|_| timed_out(name, "initialize", connect_timeout))?
        .map_err(|e| failed(name, "initialize", e.to_string(), &garbage))?;
    let listed = tokio::time::timeout(request_timeout, client.list_all_tools())
        .await
        .map_err(|_| timed_out(name, "tools/list", request_timeout))?
        .map_err(|e| failed(name, "tools/list", e.to_string(), &garbage))?;
    let tools = listed
        .into_iter()
        .map(|tool| {
            let parameters = Value::Object((*tool.input_schema).clone());
            ToolEntry::new(
                ToolSource::Mcp,
                name,
                tool.name.to_string(),
                tool.description.map(|d| d.to_string()).unwrap_or_default(),
                parameters,
                Executor::Mcp {
                    server: name.to_string(),
                },
            )
        })
        .collect();
    Ok(Attached {
        client,
        child: Mutex::new(Some(child)),
        tools,
        request_timeout,
    })
}
