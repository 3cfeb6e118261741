//! The default backend: QuickJS (rquickjs) embedded in the gateway process. Each run gets a
//! fresh runtime and context on a dedicated thread (rquickjs values are not `Send`), with a
//! memory limit and an interrupt handler on the wall-clock deadline; bridge calls cross to the
//! caller's tokio runtime through channels and the parent-side driver. QuickJS has no ambient
//! I/O at all: no modules loader, no timers, no files, no sockets.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;

use rquickjs::{Array, Context, Ctx, Function, Runtime, Value};
use tokio::sync::mpsc;

use super::driver::{self, Event, Reply};
use super::{
    check_code, Bridge, CodeLimits, CodeSandbox, RunFuture, SandboxError, SandboxKind, PRELUDE,
};

/// Stack the engine thread gets; QuickJS's own stack limit sits well below it.
const THREAD_STACK_BYTES: usize = 8 * 1024 * 1024;
/// QuickJS stack limit (deep recursion becomes a catchable RangeError, not a crash).
const JS_STACK_BYTES: usize = 1024 * 1024;

/// The embedded QuickJS executor.
#[derive(Debug, Default, Clone, Copy)]
pub struct QuickjsSandbox;

impl QuickjsSandbox {
    pub fn new() -> Self {
        QuickjsSandbox
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
        Ok(())
    }

    fn run(&self, code: String, bridge: Arc<dyn Bridge>, limits: CodeLimits) -> RunFuture<'_> {
        Box::pin(async move {
            check_code(&code)?;
            let deadline = Instant::now() + limits.timeout;
            let (event_tx, event_rx) = mpsc::channel(64);
            let (reply_tx, reply_rx) = std::sync::mpsc::channel::<Reply>();
            let stop = Arc::new(AtomicBool::new(false));
            let _stop_on_drop = StopOnDrop(stop.clone());
            let job = Job {
                code,
                limits,
                deadline,
                events: event_tx,
                replies: reply_rx,
                stop,
            };
            std::thread::Builder::new()
                .name("quickjs-sandbox".into())
                .stack_size(THREAD_STACK_BYTES)
                .spawn(move || job.run())
                .map_err(|e| {
                    SandboxError::Unavailable(format!("cannot start the QuickJS thread: {e}"))
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

/// One run on the engine thread.
struct Job {
    code: String,
    limits: CodeLimits,
    deadline: Instant,
    events: mpsc::Sender<Event>,
    replies: Receiver<Reply>,
    stop: Arc<AtomicBool>,
}

impl Job {
    fn run(self) {
        let events = self.events.clone();
        let end = match self.execute() {
            Ok(event) => event,
            Err(error) => Event::Done(Err(error)),
        };
        // The parent may already have returned (timeout, cap): then nobody listens.
        let _ignored = events.blocking_send(end);
    }

    fn over(&self) -> bool {
        self.stop.load(Ordering::Relaxed) || Instant::now() >= self.deadline
    }

    fn timeout(&self) -> SandboxError {
        SandboxError::Timeout {
            ms: driver::millis(&self.limits),
        }
    }

    fn execute(self) -> Result<Event, SandboxError> {
        let rt = Runtime::new()
            .map_err(|e| SandboxError::Unavailable(format!("QuickJS runtime: {e}")))?;
        rt.set_memory_limit(self.limits.memory_bytes);
        rt.set_max_stack_size(JS_STACK_BYTES);
        let stop = self.stop.clone();
        let deadline = self.deadline;
        rt.set_interrupt_handler(Some(Box::new(move || {
            stop.load(Ordering::Relaxed) || Instant::now() >= deadline
        })));
        let context = Context::full(&rt)
            .map_err(|e| SandboxError::Unavailable(format!("QuickJS context: {e}")))?;
        context.with(|ctx| self.in_context(&ctx))
    }

    fn in_context<'js>(&self, ctx: &Ctx<'js>) -> Result<Event, SandboxError> {
        let ended: Rc<RefCell<Option<Event>>> = Rc::new(RefCell::new(None));
        let started = Rc::new(Cell::new(0u64));
        let host = self
            .host_functions(ctx, &ended, &started)
            .map_err(|e| self.js_failure(ctx, e))?;
        let prelude: Function = ctx.eval(PRELUDE).map_err(|e| self.js_failure(ctx, e))?;
        let pair: Array = prelude.call(host).map_err(|e| self.js_failure(ctx, e))?;
        let run: Function = pair.get(0).map_err(|e| self.js_failure(ctx, e))?;
        let settle: Function = pair.get(1).map_err(|e| self.js_failure(ctx, e))?;
        let first: rquickjs::Result<()> = run.call((self.code.as_str(),));
        first.map_err(|e| self.js_failure(ctx, e))?;
        self.event_loop(ctx, &settle, &ended, &started)
    }

    /// Runs jobs and delivers bridge replies until the prelude reports the end.
    fn event_loop<'js>(
        &self,
        ctx: &Ctx<'js>,
        settle: &Function<'js>,
        ended: &Rc<RefCell<Option<Event>>>,
        started: &Rc<Cell<u64>>,
    ) -> Result<Event, SandboxError> {
        let mut answered = 0u64;
        loop {
            while ctx.execute_pending_job() {}
            if self.over() {
                return Err(self.timeout());
            }
            if let Some(end) = ended.borrow_mut().take() {
                return Ok(end);
            }
            if started.get() == answered {
                return Err(SandboxError::Stalled);
            }
            let wait = self.deadline.saturating_duration_since(Instant::now());
            let reply = match self.replies.recv_timeout(wait) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => return Err(self.timeout()),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(SandboxError::Crashed("the parent stopped listening".into()))
                }
            };
            answered += 1;
            // Reply ids are the engine's own counter, far below 2^53.
            let delivered: rquickjs::Result<()> =
                settle.call((reply.id as f64, reply.ok, reply.payload));
            delivered.map_err(|e| self.js_failure(ctx, e))?;
        }
    }

    /// `send`, `emit`, `finish` and the pending cap, as the prelude expects them.
    fn host_functions<'js>(
        &self,
        ctx: &Ctx<'js>,
        ended: &Rc<RefCell<Option<Event>>>,
        started: &Rc<Cell<u64>>,
    ) -> rquickjs::Result<(Function<'js>, Function<'js>, Function<'js>, f64)> {
        let (events, stop, deadline, counter) = (
            self.events.clone(),
            self.stop.clone(),
            self.deadline,
            started.clone(),
        );
        let send = Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, op: String, args: String| {
                if stop.load(Ordering::Relaxed) || Instant::now() >= deadline {
                    return over_message(&ctx);
                }
                let id = counter.get() + 1;
                if events.blocking_send(Event::call(id, &op, &args)).is_err() {
                    stop.store(true, Ordering::Relaxed);
                    return over_message(&ctx);
                }
                counter.set(id);
                Ok(Value::new_number(ctx, id as f64))
            },
        )?;
        let (events, stop) = (self.events.clone(), self.stop.clone());
        let emit = Function::new(ctx.clone(), move |level: String, text: String| {
            if events.blocking_send(Event::log(&level, &text)).is_err() {
                stop.store(true, Ordering::Relaxed);
            }
        })?;
        let (slot, limits) = (ended.clone(), self.limits);
        let finish = Function::new(ctx.clone(), move |kind: String, payload: String| {
            slot.borrow_mut()
                .get_or_insert_with(|| Event::done(&kind, &payload, &limits));
        })?;
        Ok((send, emit, finish, self.limits.max_pending_calls as f64))
    }

    /// An exception that escaped the prelude: the interrupt (deadline), memory, or a bug.
    fn js_failure(&self, ctx: &Ctx<'_>, error: rquickjs::Error) -> SandboxError {
        if self.over() {
            return self.timeout();
        }
        let allocation = matches!(error, rquickjs::Error::Allocation);
        let detail = match error {
            rquickjs::Error::Exception => describe_exception(ctx),
            other => other.to_string(),
        };
        if allocation || detail.to_ascii_lowercase().contains("out of memory") {
            return SandboxError::OutOfMemory {
                limit: self.limits.memory_bytes,
            };
        }
        SandboxError::Crashed(detail)
    }
}

fn describe_exception(ctx: &Ctx<'_>) -> String {
    let caught = ctx.catch();
    if let Some(exception) = caught.as_exception() {
        return exception
            .message()
            .unwrap_or_else(|| "exception without a message".into());
    }
    match caught.as_string().map(|s| s.to_string()) {
        Some(Ok(text)) => text,
        _ => format!("uncaught {}", caught.type_name()),
    }
}

fn over_message<'js>(ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
    Ok(rquickjs::String::from_str(ctx.clone(), "the run is over")?.into_value())
}
