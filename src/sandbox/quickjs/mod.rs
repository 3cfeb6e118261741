//! The default backend: QuickJS (rquickjs) embedded in the gateway process. A run goes to an
//! engine thread of the sandbox's [`pool`] (rquickjs values are not `Send`) whose runtime is
//! reused, each run in a fresh context under its own memory limit and an interrupt handler on
//! its wall-clock deadline ([`engine`] says why that keeps runs apart); bridge calls cross to
//! the caller's tokio runtime through channels and the parent-side driver. QuickJS has no
//! ambient I/O at all: no modules loader, no timers, no files, no sockets.

mod engine;
mod job;
mod pool;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::{Context, Runtime};
use tokio::sync::mpsc;

use super::driver::{self, Reply};
use super::{check_code, Bridge, CodeLimits, CodeSandbox, RunFuture, SandboxError, SandboxKind};
use job::Job;
use pool::Pool;

/// Engine threads kept idle between runs: one can take the next run while another resets.
const IDLE_ENGINES: usize = 2;
/// How long [`CodeSandbox::warm`] waits for the engines to be idle.
const WARM_WAIT: Duration = Duration::from_secs(2);

/// The embedded QuickJS executor.
pub struct QuickjsSandbox {
    pool: Pool,
}

impl std::fmt::Debug for QuickjsSandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("QuickjsSandbox")
    }
}

impl Default for QuickjsSandbox {
    fn default() -> Self {
        QuickjsSandbox::new()
    }
}

impl QuickjsSandbox {
    pub fn new() -> Self {
        QuickjsSandbox {
            pool: Pool::new(IDLE_ENGINES),
        }
    }
}

impl CodeSandbox for QuickjsSandbox {
    fn kind(&self) -> SandboxKind {
        SandboxKind::Quickjs
    }

    fn probe(&self) -> Result<(), SandboxError> {
        let rt = Runtime::new()
            .map_err(|e| SandboxError::Unavailable(format!("QuickJS runtime: {e}")))?;
        Context::full(&rt)
            .map_err(|e| SandboxError::Unavailable(format!("QuickJS context: {e}")))?;
        self.pool.warm()
    }

    /// Resolves once every engine the pool keeps is idle with a fresh context (after a run,
    /// its engine first resets: limits lifted, heap collected, the next context prepared).
    fn warm(&self) -> super::WarmFuture<'_> {
        Box::pin(async move {
            if self.pool.warm().is_err() {
                return;
            }
            let give_up = Instant::now() + WARM_WAIT;
            while !self.pool.is_warm() && Instant::now() < give_up {
                tokio::time::sleep(Duration::from_micros(100)).await;
            }
        })
    }

    fn run(&self, code: String, bridge: Arc<dyn Bridge>, limits: CodeLimits) -> RunFuture<'_> {
        Box::pin(async move {
            check_code(&code)?;
            let deadline = Instant::now() + limits.timeout;
            let (event_tx, event_rx) = mpsc::channel(64);
            let (reply_tx, reply_rx) = std::sync::mpsc::channel::<Reply>();
            let stop = Arc::new(AtomicBool::new(false));
            let _stop_on_drop = StopOnDrop(stop.clone());
            self.pool.submit(Job {
                code,
                limits,
                deadline,
                events: event_tx,
                replies: reply_rx,
                stop,
            })?;
            let send_reply = move |reply: Reply| reply_tx.send(reply).is_ok();
            let deadline = tokio::time::Instant::from_std(deadline);
            driver::drive(event_rx, send_reply, bridge, &limits, deadline).await
        })
    }
}

/// Tells the engine thread to stop when the parent gives up (timeout, cap, cancellation).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}
