//! Start plus one bridge call, per backend: request to result of code that awaits one
//! `openclaw.tools.call` and returns its result. Targets: quickjs ≤ 200 µs, node ≤ 30 ms.
//!
//! - `sandbox/quickjs/start_plus_one_call`: the sandbox's engine threads are warm (a runtime
//!   and a fresh context waiting; waiting for that is not timed), as in a gateway whose code
//!   calls come a model turn apart.
//! - `sandbox/quickjs/back_to_back_calls`: the same, calls back to back, so each competes with
//!   the previous call's engine resetting (a new context and a garbage collection).
//! - `sandbox/quickjs/fresh_sandbox_plus_one_call`: a new sandbox per call, so a thread and a
//!   runtime start on the hot path (what every call paid before the pool).
//! - `sandbox/node/start_plus_one_call`: the pool's warm children are up before each timed
//!   call (waiting for them is not timed); each call uses one child, which is then killed.
//!
//! Before the node bench the file prints the warm pool's idle cost: the processes it keeps
//! and their resident memory.

use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use serde_json::{json, Value};
use toolsearch_qa::load::process::{command_line, descendants, of as resident};
use toolsearch_qa::sandbox::{
    backend, Bridge, BridgeFuture, CodeLimits, CodeSandbox, QuickjsSandbox, SandboxKind,
};

/// Answers every operation at once.
struct Echo;

impl Bridge for Echo {
    fn search(&self, query: String, _options: Value) -> BridgeFuture {
        Box::pin(async move { Ok(json!([{ "id": query }])) })
    }
    fn describe(&self, id: String) -> BridgeFuture {
        Box::pin(async move { Ok(json!({ "id": id })) })
    }
    fn call(&self, id: String, args: Value) -> BridgeFuture {
        Box::pin(async move { Ok(json!({ "tool": { "id": id }, "result": { "details": args } })) })
    }
}

const CODE: &str = r#"return await openclaw.tools.call("openclaw:fixture:fake_plugin_tool_17", { marker: "bench" });"#;

fn one_call(
    runtime: &tokio::runtime::Runtime,
    sandbox: &dyn CodeSandbox,
    bridge: &Arc<dyn Bridge>,
) {
    let run =
        runtime.block_on(sandbox.run(CODE.to_string(), bridge.clone(), CodeLimits::default()));
    assert!(run.is_ok(), "{:?}: {run:?}", sandbox.kind());
}

/// `iterations` calls, each timed from request to result after the backend is warm again
/// (waiting for that is not timed).
fn warm_calls(
    runtime: &tokio::runtime::Runtime,
    sandbox: &dyn CodeSandbox,
    bridge: &Arc<dyn Bridge>,
    iterations: u64,
) -> Duration {
    let mut timed = Duration::ZERO;
    for _ in 0..iterations {
        runtime.block_on(sandbox.warm());
        let started = Instant::now();
        one_call(runtime, sandbox, bridge);
        timed += started.elapsed();
    }
    timed
}

fn bench_quickjs(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let bridge: Arc<dyn Bridge> = Arc::new(Echo);
    let sandbox = backend(SandboxKind::Quickjs, None);
    if let Err(why) = sandbox.probe() {
        eprintln!("skipping quickjs: {why}");
        return;
    }
    // Request to result with the pool warm (its engines idle, each with a fresh context
    // prepared; waiting for that is not timed), as a gateway's code calls arrive a model turn
    // apart.
    c.bench_function("sandbox/quickjs/start_plus_one_call", |b| {
        b.iter_custom(|iterations| warm_calls(runtime, &*sandbox, &bridge, iterations))
    });
    // Calls back to back: each also competes with the previous call's engine resetting.
    c.bench_function("sandbox/quickjs/back_to_back_calls", |b| {
        b.iter(|| one_call(runtime, &*sandbox, &bridge))
    });
    c.bench_function("sandbox/quickjs/fresh_sandbox_plus_one_call", |b| {
        b.iter(|| one_call(runtime, &QuickjsSandbox::new(), &bridge))
    });
}

/// The warm pool's processes (the jail wrappers and node) and their resident memory.
fn print_idle_cost(runtime: &tokio::runtime::Runtime, sandbox: &dyn CodeSandbox) {
    runtime.block_on(sandbox.warm());
    let below = descendants(std::process::id());
    let nodes = below
        .iter()
        .filter(|pid| command_line(**pid).starts_with("/node "))
        .count();
    let kib: u64 = below
        .iter()
        .filter_map(|pid| resident(*pid))
        .map(|r| r.now_kib)
        .sum();
    println!(
        "sandbox/node idle pool: {nodes} warm children, {} processes, {:.1} MB resident",
        below.len(),
        kib as f64 / 1024.0
    );
}

fn bench_node(c: &mut Criterion, runtime: &tokio::runtime::Runtime) {
    let bridge: Arc<dyn Bridge> = Arc::new(Echo);
    let sandbox = backend(SandboxKind::Node, None);
    if let Err(why) = runtime.block_on(async { sandbox.probe() }) {
        eprintln!("skipping node: {why}");
        return;
    }
    print_idle_cost(runtime, &*sandbox);
    // Criterion sizes its runs by the timed part (milliseconds), but every call also waits
    // untimed for a child to boot (hundreds of milliseconds here): keep the count small.
    let mut group = c.benchmark_group("sandbox/node");
    group
        .sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(20))
        .measurement_time(Duration::from_millis(100));
    group.bench_function("start_plus_one_call", |b| {
        b.iter_custom(|iterations| warm_calls(runtime, &*sandbox, &bridge, iterations))
    });
    group.finish();
}

fn sandbox_benches(c: &mut Criterion) {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("no tokio runtime: {e}");
            return;
        }
    };
    bench_quickjs(c, &runtime);
    bench_node(c, &runtime);
}

criterion_group!(benches, sandbox_benches);
criterion_main!(benches);
