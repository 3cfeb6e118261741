//! The engine threads of one QuickJS sandbox. A run is handed to an idle thread, whose
//! [`Engine`] already holds a runtime and a fresh context, so the hot path starts neither a
//! thread nor a runtime. When no thread is idle (all busy, or the first run) a new one starts,
//! so runs never queue behind each other. A thread that finishes a run resets its engine and
//! goes idle again unless enough threads already are; dropping the pool ends every idle thread.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, SendError, Sender};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use super::super::SandboxError;
use super::engine::Engine;
use super::job::Job;

/// Stack an engine thread gets; QuickJS's own stack limit sits well below it.
const THREAD_STACK_BYTES: usize = 8 * 1024 * 1024;

/// Idle engine threads, each waiting on its own channel for one run.
struct Idle {
    waiting: Mutex<Vec<Sender<Job>>>,
    keep: usize,
    /// Engine threads alive (running, resetting or idle).
    live: AtomicUsize,
}

impl Idle {
    fn lock(&self) -> MutexGuard<'_, Vec<Sender<Job>>> {
        // A poisoned lock only means a thread panicked mid-push; the list is still valid.
        self.waiting.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The engine threads of one sandbox.
pub(super) struct Pool {
    idle: Arc<Idle>,
}

impl Pool {
    /// A pool that keeps at most `keep` threads idle.
    pub(super) fn new(keep: usize) -> Pool {
        Pool {
            idle: Arc::new(Idle {
                waiting: Mutex::new(Vec::new()),
                keep: keep.max(1),
                live: AtomicUsize::new(0),
            }),
        }
    }

    /// Starts idle threads until the pool keeps its number of engines, so the next run finds
    /// a runtime ready.
    pub(super) fn warm(&self) -> Result<(), SandboxError> {
        while self.idle.live.load(Ordering::SeqCst) < self.idle.keep {
            start(Arc::downgrade(&self.idle), None)?;
        }
        Ok(())
    }

    /// Whether every engine the pool keeps is idle with a fresh context prepared.
    pub(super) fn is_warm(&self) -> bool {
        self.idle.lock().len() >= self.idle.keep
    }

    /// Hands `job` to an idle thread, or to a new one.
    pub(super) fn submit(&self, mut job: Job) -> Result<(), SandboxError> {
        loop {
            let waiting = self.idle.lock().pop();
            let Some(thread) = waiting else {
                return start(Arc::downgrade(&self.idle), Some(job));
            };
            // A thread that is gone (it could not make a fresh runtime) gives the job back.
            match thread.send(job) {
                Ok(()) => return Ok(()),
                Err(SendError(back)) => job = back,
            }
        }
    }
}

fn start(idle: Weak<Idle>, first: Option<Job>) -> Result<(), SandboxError> {
    if let Some(pool) = idle.upgrade() {
        pool.live.fetch_add(1, Ordering::SeqCst);
    }
    // Only a weak handle goes with the thread: dropping the pool ends its idle threads.
    let counted = idle.clone();
    std::thread::Builder::new()
        .name("quickjs-engine".into())
        .stack_size(THREAD_STACK_BYTES)
        .spawn(move || {
            serve(idle, first);
            if let Some(pool) = counted.upgrade() {
                pool.live.fetch_sub(1, Ordering::SeqCst);
            }
        })
        .map(drop)
        .map_err(|e| SandboxError::Unavailable(format!("cannot start a QuickJS thread: {e}")))
}

/// An engine thread: run `first`, then wait idle for the next job until the pool is gone or
/// enough other threads are idle.
fn serve(idle: Weak<Idle>, first: Option<Job>) {
    let mut engine = match Engine::new() {
        Ok(engine) => engine,
        Err(error) => {
            if let Some(job) = first {
                job.fail(error);
            }
            return;
        }
    };
    let mut next = first;
    loop {
        if let Some(job) = next.take() {
            let max_pending = job.limits.max_pending_calls;
            let ending = engine.run(job);
            engine = match engine.reset(ending, max_pending) {
                Ok(engine) => engine,
                Err(_) => return,
            };
        }
        let (sender, receiver) = mpsc::channel();
        {
            let Some(idle) = idle.upgrade() else { return };
            let mut waiting = idle.lock();
            if waiting.len() >= idle.keep {
                return;
            }
            waiting.push(sender);
        }
        match receiver.recv() {
            Ok(job) => next = Some(job),
            Err(_) => return,
        }
    }
}
