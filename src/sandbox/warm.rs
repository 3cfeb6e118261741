//! Jailed node children started before a run asks for one. Setting up the jail and starting
//! node take tens of milliseconds; a warm child has done both and waits, its runner loaded,
//! for the one run it will ever serve. Handing one out starts its replacement, so the pool
//! stays full while runs come no faster than children start.
//!
//! No child outlives what it belongs to. The jail asks the kernel to kill it when the thread
//! that started it ends (`--pdeathsig`, see [`super::jail`]), and every child is started by
//! the pool's own spawner thread, which ends exactly when the pool is dropped — or with the
//! process, however it exits. Dropping the pool also kills the idle children at once
//! (`kill_on_drop`), and an idle child whose stdin closes exits by itself.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use tokio::io::BufReader;
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};
use tokio::runtime::Handle;
use tokio::sync::{oneshot, Notify};

use super::SandboxError;

/// How a child is started: the program and its arguments for a heap size in MiB.
pub(crate) type Launcher = Arc<dyn Fn(usize) -> (PathBuf, Vec<String>) + Send + Sync>;

/// A started child and its pipes. `ready` says whether its runner has reported in.
pub(crate) struct Warm {
    pub(crate) child: Child,
    pub(crate) stdin: ChildStdin,
    pub(crate) stdout: BufReader<ChildStdout>,
    pub(crate) stderr: ChildStderr,
    pub(crate) ready: bool,
    heap_mib: usize,
}

/// One order for the spawner thread.
struct Order {
    program: PathBuf,
    args: Vec<String>,
    /// The runtime of whoever asked: the child's pipes belong to it.
    runtime: Handle,
    reply: oneshot::Sender<std::io::Result<Child>>,
}

struct Shared {
    launcher: Launcher,
    /// How many children the pool keeps ready.
    size: usize,
    state: Mutex<State>,
    /// Woken when a child becomes ready.
    filled: Notify,
    orders: Sender<Order>,
}

#[derive(Default)]
struct State {
    ready: Vec<Warm>,
    starting: usize,
    /// The heap size the pool's children are started with (the latest run's).
    heap_mib: usize,
}

/// The warm children of one node sandbox.
pub(crate) struct WarmPool {
    shared: Arc<Shared>,
}

impl WarmPool {
    /// A pool keeping `size` children of `heap_mib` ready; nothing starts until [`WarmPool::fill`].
    pub(crate) fn new(
        launcher: Launcher,
        size: usize,
        heap_mib: usize,
    ) -> Result<Self, SandboxError> {
        let (orders, inbox) = mpsc::channel();
        std::thread::Builder::new()
            .name("node-spawner".into())
            .spawn(move || spawner(inbox))
            .map_err(|e| {
                SandboxError::Unavailable(format!("cannot start the node spawner: {e}"))
            })?;
        Ok(WarmPool {
            shared: Arc::new(Shared {
                launcher,
                size,
                state: Mutex::new(State {
                    heap_mib,
                    ..State::default()
                }),
                filled: Notify::new(),
                orders,
            }),
        })
    }

    /// Starts children until the pool holds its size (ready or starting). Needs a tokio runtime.
    pub(crate) fn fill(&self) {
        let Ok(runtime) = Handle::try_current() else {
            return;
        };
        let (missing, heap_mib) = {
            let mut state = self.shared.lock();
            let have = state.ready.len() + state.starting;
            let missing = self.shared.size.saturating_sub(have);
            state.starting += missing;
            (missing, state.heap_mib)
        };
        for _ in 0..missing {
            let shared = Arc::downgrade(&self.shared);
            runtime.spawn(refill(shared, heap_mib));
        }
    }

    /// Resolves once every child of the pool is ready (or the pool cannot fill).
    pub(crate) async fn ready(&self) {
        self.fill();
        loop {
            let notified = self.shared.filled.notified();
            {
                let state = self.shared.lock();
                if state.ready.len() >= self.shared.size || state.starting == 0 {
                    return;
                }
            }
            notified.await;
        }
    }

    /// A ready child started for `heap_mib`, else a child started now (it reports ready on
    /// its own stdout). Either way the pool starts a replacement.
    pub(crate) async fn take(&self, heap_mib: usize) -> Result<Warm, SandboxError> {
        let warm = self.shared.lock().pop_live(heap_mib);
        self.fill();
        match warm {
            Some(warm) => Ok(warm),
            None => start(&self.shared, heap_mib).await,
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a task panicked mid-update; the state is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl State {
    /// A ready child of `heap_mib` that is still running. A run with another heap size
    /// switches the pool to it: the children of the old size are dropped (killed).
    fn pop_live(&mut self, heap_mib: usize) -> Option<Warm> {
        if heap_mib != self.heap_mib {
            self.heap_mib = heap_mib;
            self.ready.clear();
            return None;
        }
        while let Some(mut warm) = self.ready.pop() {
            if matches!(warm.child.try_wait(), Ok(None)) {
                return Some(warm);
            }
        }
        None
    }
}

/// Starts one child for the pool and puts it in once its runner reports ready.
async fn refill(shared: Weak<Shared>, heap_mib: usize) {
    let started = match shared.upgrade() {
        Some(strong) => start(&strong, heap_mib).await.ok(),
        None => return,
    };
    let warm = match started {
        Some(mut warm) => super::node::await_ready(&mut warm).await.then_some(warm),
        None => None,
    };
    let Some(shared) = shared.upgrade() else {
        return;
    };
    {
        let mut state = shared.lock();
        state.starting = state.starting.saturating_sub(1);
        if let Some(warm) = warm {
            if warm.heap_mib == state.heap_mib && state.ready.len() < shared.size {
                state.ready.push(warm);
            }
        }
    }
    shared.filled.notify_waiters();
}

/// Asks the spawner thread for a child.
async fn start(shared: &Shared, heap_mib: usize) -> Result<Warm, SandboxError> {
    let (program, args) = (shared.launcher)(heap_mib);
    let (reply, answer) = oneshot::channel();
    let order = Order {
        program,
        args,
        runtime: Handle::current(),
        reply,
    };
    let gone = || SandboxError::Unavailable("the node spawner is gone".into());
    shared.orders.send(order).map_err(|_| gone())?;
    let mut child = answer
        .await
        .map_err(|_| gone())?
        .map_err(|e| SandboxError::Unavailable(format!("cannot start node: {e}")))?;
    let missing = || SandboxError::Crashed("node started without its pipes".into());
    Ok(Warm {
        stdin: child.stdin.take().ok_or_else(missing)?,
        stdout: BufReader::new(child.stdout.take().ok_or_else(missing)?),
        stderr: child.stderr.take().ok_or_else(missing)?,
        child,
        ready: false,
        heap_mib,
    })
}

/// The spawner thread: the parent of every child of its pool, alive exactly as long as the
/// pool (its inbox closes when the pool is dropped).
fn spawner(inbox: Receiver<Order>) {
    for order in inbox {
        let _entered = order.runtime.enter();
        let mut command = Command::new(&order.program);
        command
            .args(&order.args)
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let _asker_gone = order.reply.send(command.spawn());
    }
}
