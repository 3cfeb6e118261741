//! One QuickJS runtime serving run after run on its engine thread, so that a run pays for
//! neither a thread nor a runtime. What keeps runs apart:
//!
//! - every run gets a context of its own, made (with the prelude evaluated and called in it:
//!   the `openclaw` and `console` objects in place) before the run is asked for and used once:
//!   globals, prototypes and every object live in a context, so nothing a run changes is
//!   reachable from the next one;
//! - the limits are set per run: memory limit, and an interrupt handler on that run's own
//!   deadline and stop flag;
//! - after a run its context is dropped and the garbage collector runs; the runtime serves
//!   again only when the run ended as the prelude reported it, no job is left in the
//!   runtime-wide job queue (promise reactions, finalizers) and the heap is back at its size
//!   before any context existed. Otherwise the runtime is thrown away and a fresh one made.

use rquickjs::{Context, Function, Persistent, Runtime};

use super::super::{CodeLimits, SandboxError, PRELUDE};
use super::job::{call_prelude, Ending, Job, LinkSlot, Prelude};

/// QuickJS stack limit (deep recursion becomes a catchable RangeError, not a crash).
const JS_STACK_BYTES: usize = 1024 * 1024;
/// Heap a runtime may keep above its empty size between runs (interned names, the shape
/// table's growth); more means something of the last run survived, and the runtime goes.
const HEAP_SLACK_BYTES: i64 = 64 * 1024;

/// A fresh context with the prelude called in it, not yet used by any run.
struct Prepared {
    // Declared first: dropped before the context they point into.
    run: Persistent<Function<'static>>,
    settle: Persistent<Function<'static>>,
    context: Context,
    /// What the context's host functions reach: the run, while it runs.
    link: LinkSlot,
    /// The pending-call cap the prelude was called with.
    max_pending: usize,
}

/// A runtime and the context its next run will use.
pub(super) struct Engine {
    // Declared first: the prepared context goes before its runtime.
    next: Option<Prepared>,
    runtime: Runtime,
    /// Heap bytes of the runtime with no context.
    empty_heap: i64,
}

fn unavailable(what: &str, error: rquickjs::Error) -> SandboxError {
    SandboxError::Unavailable(format!("QuickJS {what}: {error}"))
}

impl Engine {
    /// A fresh runtime with its first context prepared.
    pub(super) fn new() -> Result<Engine, SandboxError> {
        let runtime = Runtime::new().map_err(|e| unavailable("runtime", e))?;
        runtime.set_max_stack_size(JS_STACK_BYTES);
        let empty_heap = runtime.memory_usage().malloc_size;
        let mut engine = Engine {
            next: None,
            runtime,
            empty_heap,
        };
        engine.prepare(CodeLimits::default().max_pending_calls)?;
        Ok(engine)
    }

    /// Makes the context the next run will use, its prelude called with host functions that
    /// serve no run yet (no limit, no handler: nothing of a run happens here).
    fn prepare(&mut self, max_pending: usize) -> Result<(), SandboxError> {
        let context = Context::full(&self.runtime).map_err(|e| unavailable("context", e))?;
        let link = LinkSlot::default();
        let (run, settle) = context
            .with(|ctx| {
                let prelude: Function = ctx.eval(PRELUDE)?;
                let Prelude { run, settle } = call_prelude(&ctx, prelude, &link, max_pending)?;
                Ok::<_, rquickjs::Error>((
                    Persistent::save(&ctx, run),
                    Persistent::save(&ctx, settle),
                ))
            })
            .map_err(|e| unavailable("prelude", e))?;
        self.next = Some(Prepared {
            run,
            settle,
            context,
            link,
            max_pending,
        });
        Ok(())
    }

    /// Runs `job` in the prepared context under the job's own limits; the job reports its
    /// end to the parent before this returns. A job with another pending-call cap than the
    /// prepared context's gets a context prepared for it first.
    pub(super) fn run(&mut self, job: Job) -> Ending {
        let wanted = job.limits.max_pending_calls;
        if self.next.as_ref().is_some_and(|p| p.max_pending != wanted) {
            self.next = None;
            if let Err(error) = self.prepare(wanted) {
                job.fail(error);
                return Ending::Broken;
            }
        }
        let Some(Prepared {
            run,
            settle,
            context,
            link,
            ..
        }) = self.next.take()
        else {
            job.fail(SandboxError::Crashed("no fresh QuickJS context".into()));
            return Ending::Broken;
        };
        self.runtime.set_memory_limit(job.limits.memory_bytes);
        let (stop, deadline) = (job.stop.clone(), job.deadline);
        self.runtime
            .set_interrupt_handler(Some(Box::new(move || super::job::over(&stop, deadline))));
        context.with(|ctx| match (run.restore(&ctx), settle.restore(&ctx)) {
            (Ok(run), Ok(settle)) => job.run(&ctx, Prelude { run, settle }, &link),
            (Err(e), _) | (_, Err(e)) => {
                job.fail(SandboxError::Crashed(format!("QuickJS prelude: {e}")));
                Ending::Broken
            }
        })
    }

    /// After a run: lift its limits, collect what it left, and prepare the next context; a
    /// runtime that cannot be shown clean is replaced by a fresh one.
    pub(super) fn reset(
        mut self,
        ending: Ending,
        max_pending: usize,
    ) -> Result<Engine, SandboxError> {
        self.runtime.set_interrupt_handler(None);
        self.runtime.set_memory_limit(0);
        self.runtime.run_gc();
        if ending == Ending::Reported && self.is_clean() {
            self.prepare(max_pending)?;
            return Ok(self);
        }
        drop(self);
        Engine::new()
    }

    /// No job waits in the runtime's queue and the heap is back to its empty size.
    fn is_clean(&self) -> bool {
        !self.runtime.is_job_pending()
            && self.runtime.memory_usage().malloc_size <= self.empty_heap + HEAP_SLACK_BYTES
    }
}
