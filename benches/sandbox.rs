//! Cold start plus one bridge call, per backend: a fresh runtime (QuickJS) or a fresh jailed
//! child (node) runs code that awaits one `openclaw.tools.call` and returns its result.
//! Targets: quickjs ≤ 200 µs, node ≤ 30 ms.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::{json, Value};
use toolsearch_qa::sandbox::{backend, Bridge, BridgeFuture, CodeLimits, CodeSandbox, SandboxKind};

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

fn bench_backend(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    sandbox: &dyn CodeSandbox,
    name: &str,
) {
    if let Err(why) = sandbox.probe() {
        eprintln!("skipping {name}: {why}");
        return;
    }
    let bridge: Arc<dyn Bridge> = Arc::new(Echo);
    c.bench_function(&format!("sandbox/{name}/cold_start_plus_one_call"), |b| {
        b.iter(|| {
            let run = runtime.block_on(sandbox.run(
                CODE.to_string(),
                bridge.clone(),
                CodeLimits::default(),
            ));
            assert!(run.is_ok(), "{name}: {run:?}");
        })
    });
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
    bench_backend(
        c,
        &runtime,
        &*backend(SandboxKind::Quickjs, None),
        "quickjs",
    );
    bench_backend(c, &runtime, &*backend(SandboxKind::Node, None), "node");
}

criterion_group!(benches, sandbox_benches);
criterion_main!(benches);
