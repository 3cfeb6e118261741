//! The node backend: each run gets a fresh `node` child inside the [`Jail`] (no network, no
//! files, no children, no workers, empty environment), talking JSON lines on stdio. Children
//! are started ahead of the runs by a [`WarmPool`] and each serves exactly one run. The child
//! is untrusted: the parent-side driver enforces the deadline and the caps, every line it
//! reads is bounded, and the child is killed when the run ends or is dropped. The child's
//! runner also stops the code itself once its output passes the cap, before anything piles up.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStdin;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::driver::{self, Event, Reply};
use super::jail::Jail;
use super::warm::{Launcher, Warm, WarmPool};
use super::{
    check_code, Bridge, CodeLimits, CodeSandbox, RunFuture, SandboxError, SandboxKind, WarmFuture,
    PRELUDE,
};

const RUNNER: &str = include_str!("node_runner.js");
/// Room for JSON framing around a message whose text is capped by the output limit.
const LINE_SLACK: usize = 64 * 1024;
/// How much of the child's stderr is kept to explain a crash.
const STDERR_CAP: u64 = 64 * 1024;
/// Children kept started and waiting for a run.
const WARM_CHILDREN: usize = 2;
/// The longest line a starting child may print before it reports ready.
const READY_LINE_CAP: usize = 1024;

/// The jailed node executor. The jail is verified once, on first use; the warm pool starts
/// with it.
pub struct NodeSandbox {
    node: Option<PathBuf>,
    jail: OnceLock<Result<(Jail, WarmPool), String>>,
}

impl std::fmt::Debug for NodeSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NodeSandbox")
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl NodeSandbox {
    /// `node`: the binary to use (default: `node` on `PATH`).
    pub fn new(node: Option<PathBuf>) -> Self {
        NodeSandbox {
            node,
            jail: OnceLock::new(),
        }
    }

    fn pool(&self) -> Result<&WarmPool, SandboxError> {
        self.jail
            .get_or_init(|| {
                let jail = Jail::prepare(self.node.clone())?;
                let pool = WarmPool::new(
                    launcher(jail.clone()),
                    WARM_CHILDREN,
                    heap_mib(&CodeLimits::default()),
                )
                .map_err(|e| e.to_string())?;
                Ok((jail, pool))
            })
            .as_ref()
            .map(|(_, pool)| pool)
            .map_err(|why| SandboxError::Unavailable(why.clone()))
    }
}

/// Node's heap limit for a run's memory limit.
fn heap_mib(limits: &CodeLimits) -> usize {
    (limits.memory_bytes / (1024 * 1024)).max(8)
}

/// The runner with the prelude's source ahead of it, as `PRELUDE_SOURCE`.
fn runner_script() -> String {
    let prelude = serde_json::to_string(PRELUDE).unwrap_or_default();
    format!("\"use strict\";\nconst PRELUDE_SOURCE = {prelude};\n{RUNNER}")
}

/// Starts node with the runner in `jail`, for a heap size.
fn launcher(jail: Jail) -> Launcher {
    Arc::new(move |heap_mib: usize| {
        let node_args = [
            "--experimental-vm-modules".to_string(),
            format!("--max-old-space-size={heap_mib}"),
            "-e".to_string(),
            runner_script(),
        ];
        (jail.program().to_path_buf(), jail.args(&node_args))
    })
}

impl CodeSandbox for NodeSandbox {
    fn kind(&self) -> SandboxKind {
        SandboxKind::Node
    }

    /// Verifies the jail, then starts warming children when a tokio runtime is at hand.
    fn probe(&self) -> Result<(), SandboxError> {
        self.pool().map(WarmPool::fill)
    }

    fn warm(&self) -> WarmFuture<'_> {
        Box::pin(async move {
            if let Ok(pool) = self.pool() {
                pool.ready().await;
            }
        })
    }

    fn run(&self, code: String, bridge: Arc<dyn Bridge>, limits: CodeLimits) -> RunFuture<'_> {
        Box::pin(async move {
            check_code(&code)?;
            let deadline = Instant::now() + limits.timeout;
            let Warm {
                mut child,
                stdin,
                stdout,
                stderr,
                ready,
                ..
            } = self.pool()?.take(heap_mib(&limits)).await?;
            let (reply_tx, reply_rx) = mpsc::unbounded_channel::<Reply>();
            let (event_tx, event_rx) = mpsc::channel(64);
            let run = serde_json::json!({
                "t": "run", "code": code, "maxPending": limits.max_pending_calls,
                "maxOutput": limits.output_bytes,
            });
            let tasks = Tasks(vec![
                tokio::spawn(write_messages(stdin, run, reply_rx)),
                tokio::spawn(read_events(stdout, stderr, event_tx, limits, ready)),
            ]);
            let send_reply = move |reply: Reply| reply_tx.send(reply).is_ok();
            let result = driver::drive(event_rx, send_reply, bridge, &limits, deadline).await;
            drop(tasks);
            let _killed = child.start_kill();
            result
        })
    }
}

/// Reads a starting child's first line: true when its runner reported ready.
pub(crate) async fn await_ready(warm: &mut Warm) -> bool {
    let ready = match read_line(&mut warm.stdout, READY_LINE_CAP).await {
        Line::Message(bytes) => matches!(
            serde_json::from_slice::<FromChild>(&bytes),
            Ok(FromChild::Ready)
        ),
        Line::TooLong | Line::End => false,
    };
    warm.ready = ready;
    ready
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
    /// The runner is up and waits for its run.
    Ready,
    Call {
        id: u64,
        op: String,
        args: String,
    },
    Log {
        level: String,
        text: String,
    },
    Done {
        kind: String,
        payload: String,
    },
}

impl FromChild {
    /// The event for the driver; `None` for the ready line.
    fn into_event(self, limits: &CodeLimits) -> Option<Event> {
        Some(match self {
            FromChild::Ready => return None,
            FromChild::Call { id, op, args } => Event::call(id, &op, &args),
            FromChild::Log { level, text } => Event::log(&level, &text),
            FromChild::Done { kind, payload } => Event::done(&kind, &payload, limits),
        })
    }
}

/// Reads the child's messages into events until its end. A child that has not reported ready
/// yet (`ready` false) may do so once, first.
async fn read_events<R, E>(
    mut reader: R,
    mut stderr: E,
    events: mpsc::Sender<Event>,
    limits: CodeLimits,
    mut ready: bool,
) where
    R: tokio::io::AsyncBufRead + Unpin,
    E: AsyncRead + Unpin,
{
    let cap = limits.output_bytes.saturating_add(LINE_SLACK);
    loop {
        let event = match read_line(&mut reader, cap).await {
            Line::Message(bytes) => match serde_json::from_slice::<FromChild>(&bytes) {
                Ok(FromChild::Ready) if !ready => {
                    ready = true;
                    continue;
                }
                Ok(message) => match message.into_event(&limits) {
                    Some(event) => event,
                    None => Event::Done(Err(SandboxError::Crashed(
                        "node reported ready twice".into(),
                    ))),
                },
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
