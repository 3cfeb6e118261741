//! One run of model code in a fresh QuickJS context: the host functions the prelude expects,
//! the first call, then the event loop that runs jobs and delivers bridge replies until the
//! prelude reports the end. Everything here lives on an engine thread (rquickjs values are not
//! `Send`); the parent side talks to it only through the two channels.
//!
//! The host functions are made when the context is prepared, before any run: they reach the run
//! they serve through a [`Link`] the run puts in place when it starts and takes away when it
//! ends, so a host function called outside a run (there is none: the context serves one run)
//! only answers that the run is over.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Instant;

use rquickjs::{Array, Ctx, Function, Value};
use tokio::sync::mpsc;

use super::super::driver::{self, Event, Reply};
use super::super::{CodeLimits, SandboxError};

/// One run, as the parent hands it to an engine thread.
pub(super) struct Job {
    pub(super) code: String,
    pub(super) limits: CodeLimits,
    pub(super) deadline: Instant,
    pub(super) events: mpsc::Sender<Event>,
    pub(super) replies: Receiver<Reply>,
    pub(super) stop: Arc<AtomicBool>,
}

/// How a run ended, for the engine deciding whether its runtime may serve another run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// The prelude reported the end (a value or the code's own error): nothing is running.
    Reported,
    /// Stopped from outside or by a failure (deadline, memory, a crash): the runtime may hold
    /// anything the code left behind.
    Broken,
}

impl Job {
    /// Tells the parent that the run could not start.
    pub(super) fn fail(self, error: SandboxError) {
        // The parent may already have returned (timeout, cap): then nobody listens.
        let _ignored = self.events.blocking_send(Event::Done(Err(error)));
    }

    /// Runs the code with `prepared` (the prelude of this fresh context, already called with
    /// the host functions of `link`) and sends the end to the parent.
    pub(super) fn run<'js>(
        self,
        ctx: &Ctx<'js>,
        prepared: Prelude<'js>,
        link: &LinkSlot,
    ) -> Ending {
        let ended: Rc<RefCell<Option<Event>>> = Rc::new(RefCell::new(None));
        let started = Rc::new(Cell::new(0u64));
        *link.borrow_mut() = Some(Link {
            events: self.events.clone(),
            stop: self.stop.clone(),
            deadline: self.deadline,
            limits: self.limits,
            started: started.clone(),
            ended: ended.clone(),
        });
        let outcome = self.execute(ctx, &prepared, &ended, &started);
        *link.borrow_mut() = None;
        let (end, ending) = match outcome {
            Ok(event) => (event, Ending::Reported),
            Err(error) => (Event::Done(Err(error)), Ending::Broken),
        };
        let _ignored = self.events.blocking_send(end);
        ending
    }

    fn over(&self) -> bool {
        over(&self.stop, self.deadline)
    }

    fn timeout(&self) -> SandboxError {
        SandboxError::Timeout {
            ms: driver::millis(&self.limits),
        }
    }

    fn execute<'js>(
        &self,
        ctx: &Ctx<'js>,
        prepared: &Prelude<'js>,
        ended: &Rc<RefCell<Option<Event>>>,
        started: &Rc<Cell<u64>>,
    ) -> Result<Event, SandboxError> {
        let first: rquickjs::Result<()> = prepared.run.call((self.code.as_str(),));
        first.map_err(|e| self.js_failure(ctx, e))?;
        self.event_loop(ctx, &prepared.settle, ended, started)
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

/// What the host functions of a prepared context reach: the run it serves, while it runs.
pub(super) type LinkSlot = Rc<RefCell<Option<Link>>>;

/// The run a context's host functions serve.
pub(super) struct Link {
    events: mpsc::Sender<Event>,
    stop: Arc<AtomicBool>,
    deadline: Instant,
    limits: CodeLimits,
    /// Bridge calls started so far (the last call id).
    started: Rc<Cell<u64>>,
    /// The end the prelude reported.
    ended: Rc<RefCell<Option<Event>>>,
}

impl Link {
    /// Sends `event` to the parent; false (and the run stopped) when the parent is gone.
    fn deliver(&self, event: Event) -> bool {
        let sent = self.events.blocking_send(event).is_ok();
        if !sent {
            self.stop.store(true, Ordering::Relaxed);
        }
        sent
    }
}

/// The prelude of a context, called: `run(code)` and `settle(id, ok, payload)`.
pub(super) struct Prelude<'js> {
    pub(super) run: Function<'js>,
    pub(super) settle: Function<'js>,
}

/// Calls the evaluated `prelude` of a fresh context with host functions bound to `link` and the
/// pending-call cap `max_pending`; its `run` and `settle`.
pub(super) fn call_prelude<'js>(
    ctx: &Ctx<'js>,
    prelude: Function<'js>,
    link: &LinkSlot,
    max_pending: usize,
) -> rquickjs::Result<Prelude<'js>> {
    let slot = link.clone();
    let send = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, op: String, args: String| {
            let slot = slot.borrow();
            let Some(link) = slot.as_ref() else {
                return over_message(&ctx);
            };
            if over(&link.stop, link.deadline) {
                return over_message(&ctx);
            }
            let id = link.started.get() + 1;
            if !link.deliver(Event::call(id, &op, &args)) {
                return over_message(&ctx);
            }
            link.started.set(id);
            Ok(Value::new_number(ctx, id as f64))
        },
    )?;
    let slot = link.clone();
    let emit = Function::new(ctx.clone(), move |level: String, text: String| {
        if let Some(link) = slot.borrow().as_ref() {
            link.deliver(Event::log(&level, &text));
        }
    })?;
    let slot = link.clone();
    let finish = Function::new(ctx.clone(), move |kind: String, payload: String| {
        if let Some(link) = slot.borrow().as_ref() {
            link.ended
                .borrow_mut()
                .get_or_insert_with(|| Event::done(&kind, &payload, &link.limits));
        }
    })?;
    let pair: Array = prelude.call((send, emit, finish, max_pending as f64))?;
    Ok(Prelude {
        run: pair.get(0)?,
        settle: pair.get(1)?,
    })
}

/// The interrupt handler's test: the parent gave up or the deadline passed.
pub(super) fn over(stop: &AtomicBool, deadline: Instant) -> bool {
    stop.load(Ordering::Relaxed) || Instant::now() >= deadline
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
