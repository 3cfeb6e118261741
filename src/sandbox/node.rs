//! The node backend: each run is a fresh `node` child inside the [`Jail`] (no network, no
//! files, no children, no workers, empty environment), talking JSON lines on stdio. The child
//! is untrusted: the parent-side driver enforces the deadline and the caps, every line it
//! reads is bounded, and the child is killed when the run ends or is dropped.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::driver::{self, Event, Reply};
use super::jail::Jail;
use super::{
    check_code, Bridge, CodeLimits, CodeSandbox, RunFuture, SandboxError, SandboxKind, PRELUDE,
};

const RUNNER: &str = include_str!("node_runner.js");
/// Room for JSON framing around a message whose text is capped by the output limit.
const LINE_SLACK: usize = 64 * 1024;
/// How much of the child's stderr is kept to explain a crash.
const STDERR_CAP: u64 = 64 * 1024;

/// The jailed node executor. The jail is verified once, on first use.
#[derive(Debug)]
pub struct NodeSandbox {
    node: Option<PathBuf>,
    jail: OnceLock<Result<Jail, String>>,
}

impl NodeSandbox {
    /// `node`: the binary to use (default: `node` on `PATH`).
    pub fn new(node: Option<PathBuf>) -> Self {
        NodeSandbox {
            node,
            jail: OnceLock::new(),
        }
    }

    fn jail(&self) -> Result<&Jail, SandboxError> {
        self.jail
            .get_or_init(|| Jail::prepare(self.node.clone()))
            .as_ref()
            .map_err(|why| SandboxError::Unavailable(why.clone()))
    }

    fn spawn(&self, limits: &CodeLimits) -> Result<Child, SandboxError> {
        let jail = self.jail()?;
        let heap_mib = (limits.memory_bytes / (1024 * 1024)).max(8);
        let node_args = [
            "--experimental-vm-modules".to_string(),
            format!("--max-old-space-size={heap_mib}"),
            "-e".to_string(),
            RUNNER.to_string(),
        ];
        Command::new(jail.program())
            .args(jail.args(&node_args))
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| SandboxError::Unavailable(format!("cannot start node: {e}")))
    }
}

impl CodeSandbox for NodeSandbox {
    fn kind(&self) -> SandboxKind {
        SandboxKind::Node
    }

    fn probe(&self) -> Result<(), SandboxError> {
        self.jail().map(|_| ())
    }

    fn run(&self, code: String, bridge: Arc<dyn Bridge>, limits: CodeLimits) -> RunFuture<'_> {
        Box::pin(async move {
            check_code(&code)?;
            let deadline = Instant::now() + limits.timeout;
            let mut child = self.spawn(&limits)?;
            let io = ChildIo::take(&mut child)?;
            let (reply_tx, reply_rx) = mpsc::unbounded_channel::<Reply>();
            let (event_tx, event_rx) = mpsc::channel(64);
            let run = serde_json::json!({
                "t": "run", "prelude": PRELUDE, "code": code, "maxPending": limits.max_pending_calls,
            });
            let tasks = Tasks(vec![
                tokio::spawn(write_messages(io.stdin, run, reply_rx)),
                tokio::spawn(read_events(io.stdout, io.stderr, event_tx, limits)),
            ]);
            let send_reply = move |reply: Reply| reply_tx.send(reply).is_ok();
            let result = driver::drive(event_rx, send_reply, bridge, &limits, deadline).await;
            drop(tasks);
            let _killed = child.start_kill();
            result
        })
    }
}

/// The child's pipes.
struct ChildIo {
    stdin: ChildStdin,
    stdout: tokio::process::ChildStdout,
    stderr: tokio::process::ChildStderr,
}

impl ChildIo {
    fn take(child: &mut Child) -> Result<ChildIo, SandboxError> {
        let missing = || SandboxError::Crashed("node started without its pipes".into());
        Ok(ChildIo {
            stdin: child.stdin.take().ok_or_else(missing)?,
            stdout: child.stdout.take().ok_or_else(missing)?,
            stderr: child.stderr.take().ok_or_else(missing)?,
        })
    }
}

/// Aborts the pipe tasks when the run ends or is dropped.
struct Tasks(Vec<JoinHandle<()>>);

impl Drop for Tasks {
    fn drop(&mut self) {
        for task in &self.0 {
            task.abort();
        }
    }
}

async fn write_messages(
    mut stdin: ChildStdin,
    run: serde_json::Value,
    mut replies: mpsc::UnboundedReceiver<Reply>,
) {
    if write_line(&mut stdin, &run).await.is_err() {
        return;
    }
    while let Some(reply) = replies.recv().await {
        let message = serde_json::json!({ "t": "result", "id": reply.id, "ok": reply.ok, "payload": reply.payload });
        if write_line(&mut stdin, &message).await.is_err() {
            return;
        }
    }
}

async fn write_line(stdin: &mut ChildStdin, message: &serde_json::Value) -> std::io::Result<()> {
    let mut line = message.to_string();
    line.push('\n');
    stdin.write_all(line.as_bytes()).await?;
    stdin.flush().await
}

/// A message from the child (see `node_runner.js`).
#[derive(Debug, Deserialize)]
#[serde(tag = "t", rename_all = "lowercase")]
enum FromChild {
    Call { id: u64, op: String, args: String },
    Log { level: String, text: String },
    Done { kind: String, payload: String },
}

impl FromChild {
    fn into_event(self, limits: &CodeLimits) -> Event {
        match self {
            FromChild::Call { id, op, args } => Event::call(id, &op, &args),
            FromChild::Log { level, text } => Event::log(&level, &text),
            FromChild::Done { kind, payload } => Event::done(&kind, &payload, limits),
        }
    }
}

async fn read_events<R, E>(
    stdout: R,
    mut stderr: E,
    events: mpsc::Sender<Event>,
    limits: CodeLimits,
) where
    R: AsyncRead + Unpin,
    E: AsyncRead + Unpin,
{
    let mut reader = BufReader::new(stdout);
    let cap = limits.output_bytes.saturating_add(LINE_SLACK);
    loop {
        let event = match read_line(&mut reader, cap).await {
            Line::Message(bytes) => match serde_json::from_slice::<FromChild>(&bytes) {
                Ok(message) => message.into_event(&limits),
                Err(e) => Event::Done(Err(SandboxError::Crashed(format!(
                    "bad message from node: {e}"
                )))),
            },
            Line::TooLong => Event::Done(Err(SandboxError::OutputTooLarge {
                limit: limits.output_bytes,
            })),
            Line::End => Event::Done(Err(exit_reason(&mut stderr, &limits).await)),
        };
        let last = matches!(event, Event::Done(_));
        if events.send(event).await.is_err() || last {
            return;
        }
    }
}

enum Line {
    Message(Vec<u8>),
    TooLong,
    End,
}

async fn read_line<R: tokio::io::AsyncBufRead + Unpin>(reader: &mut R, cap: usize) -> Line {
    let mut buf = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX);
    match reader.take(limit).read_until(b'\n', &mut buf).await {
        Ok(0) | Err(_) => Line::End,
        Ok(_) if buf.last() == Some(&b'\n') => Line::Message(buf),
        Ok(n) if n >= cap => Line::TooLong,
        Ok(_) => Line::End,
    }
}

/// Why the child ended without a result, from its stderr.
async fn exit_reason<E: AsyncRead + Unpin>(stderr: &mut E, limits: &CodeLimits) -> SandboxError {
    let mut text = String::new();
    let _read = stderr.take(STDERR_CAP).read_to_string(&mut text).await;
    if text.contains("heap out of memory") || text.contains("Reached heap limit") {
        return SandboxError::OutOfMemory {
            limit: limits.memory_bytes,
        };
    }
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
        .trim();
    SandboxError::Crashed(format!("node exited without a result: {last}"))
}
