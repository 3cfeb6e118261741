//! Hostile and ordinary model code on every code-mode backend. Each hostile case must end
//! with a clear error or a harmless value, reach nothing outside the sandbox (a loopback
//! canary must see zero connections), and leave the backend able to run the next call.
//! The node backend runs only where its jail can (root, node 20-25, util-linux); where it
//! cannot, each test runs QuickJS alone and says so, and the `#[ignore]`d
//! `the_node_backend_runs_here` reports the node half as not run (with `--ignored`, as in CI,
//! it fails).
//! The file, network, process, env, realm and timeout cases are the shared probes of
//! `src/sandbox/probes.rs`, which the `probes` command also runs through whole gateways.

use std::net::TcpListener;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use toolsearch_qa::sandbox::probes::{Area, Probe, ProbeSite, SandboxExpect, PROBES};
use toolsearch_qa::sandbox::{
    backend, Bridge, BridgeFuture, CodeLimits, CodeRun, CodeSandbox, SandboxError, SandboxKind,
};

/// A bridge that answers at once and records every operation in order.
#[derive(Default)]
struct Recorder {
    calls: Mutex<Vec<String>>,
}

impl Recorder {
    fn record(&self, entry: String) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.push(entry);
        }
    }

    fn calls(&self) -> Vec<String> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }
}

impl Bridge for Recorder {
    fn search(&self, query: String, options: Value) -> BridgeFuture {
        self.record(format!("search {query} {options}"));
        let hit = json!({
            "id": format!("openclaw:tool-search-e2e-fixture:{query}"),
            "source": "openclaw", "sourceName": "tool-search-e2e-fixture",
            "name": query, "input": "{ marker: string }",
        });
        Box::pin(async move { Ok(json!([hit])) })
    }

    fn describe(&self, id: String) -> BridgeFuture {
        self.record(format!("describe {id}"));
        Box::pin(async move { Ok(json!({ "id": id, "parameters": {} })) })
    }

    fn call(&self, id: String, args: Value) -> BridgeFuture {
        self.record(format!("call {id} {args}"));
        if id == "missing" {
            return Box::pin(async move { Err(format!("Unknown tool id: {id}.")) });
        }
        let name = id.rsplit(':').next().unwrap_or_default().to_string();
        Box::pin(async move {
            Ok(json!({
                "tool": { "id": id, "name": name },
                "result": { "details": { "status": "ok", "tool": name, "input": args } },
            }))
        })
    }
}

/// A bridge whose calls never resolve.
#[derive(Default)]
struct Never {
    started: AtomicUsize,
}

impl Never {
    fn pending(&self) -> BridgeFuture {
        self.started.fetch_add(1, Ordering::SeqCst);
        Box::pin(futures::future::pending())
    }
}

impl Bridge for Never {
    fn search(&self, _query: String, _options: Value) -> BridgeFuture {
        self.pending()
    }
    fn describe(&self, _id: String) -> BridgeFuture {
        self.pending()
    }
    fn call(&self, _id: String, _args: Value) -> BridgeFuture {
        self.pending()
    }
}

/// A loopback TCP listener that counts connections; the code must never reach it.
struct Canary {
    port: u16,
    hits: Arc<AtomicUsize>,
}

impl Canary {
    fn start() -> Canary {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback canary");
        let port = listener.local_addr().expect("canary address").port();
        let hits = Arc::new(AtomicUsize::new(0));
        let seen = hits.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stream.is_ok() {
                    seen.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        Canary { port, hits }
    }

    fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// The node half of this file needs the jail: not run (ignored) on a fresh machine, a failure
/// in CI where it cannot run.
#[test]
#[ignore = "needs the jailed node sandbox (root, node 20-25 on PATH, util-linux)"]
fn the_node_backend_runs_here() {
    crate::common::require_node_jail("the_node_backend_runs_here", None);
}

fn backends() -> Vec<Box<dyn CodeSandbox>> {
    let mut all = vec![backend(SandboxKind::Quickjs, None)];
    if crate::common::node_jail_available("sandbox_hostile") {
        all.push(backend(SandboxKind::Node, None));
    }
    all
}

fn limits(timeout_ms: u64) -> CodeLimits {
    CodeLimits {
        timeout: Duration::from_millis(timeout_ms),
        ..CodeLimits::default()
    }
}

async fn run_on(
    sandbox: &dyn CodeSandbox,
    code: &str,
    bridge: Arc<dyn Bridge>,
    limits: CodeLimits,
) -> Result<CodeRun, SandboxError> {
    sandbox.run(code.to_string(), bridge, limits).await
}

async fn run(sandbox: &dyn CodeSandbox, code: &str) -> Result<CodeRun, SandboxError> {
    run_on(sandbox, code, Arc::new(Recorder::default()), limits(5_000)).await
}

/// The backend still works after a hostile run.
async fn still_works(sandbox: &dyn CodeSandbox) {
    let next = run(sandbox, "return 1 + 1;").await;
    assert_eq!(
        next.map(|r| r.value),
        Ok(json!(2)),
        "{:?} broke after a hostile run",
        sandbox.kind()
    );
}

fn thrown_text(result: &Result<CodeRun, SandboxError>) -> String {
    match result {
        Err(SandboxError::Thrown(text)) => text.clone(),
        other => panic!("expected a thrown error, got {other:?}"),
    }
}

/// Runs `code` on every backend, expects a thrown error mentioning `needle`.
async fn expect_thrown(code: &str, needle: &str) {
    for sandbox in backends() {
        let result = run(&*sandbox, code).await;
        let text = thrown_text(&result);
        assert!(
            text.contains(needle),
            "{:?}: `{text}` lacks `{needle}`",
            sandbox.kind()
        );
        still_works(&*sandbox).await;
    }
}

/// Runs `code` on every backend, expects exactly `value`.
async fn expect_value(code: &str, value: Value) {
    for sandbox in backends() {
        let result = run(&*sandbox, code).await.map(|r| r.value);
        assert_eq!(result, Ok(value.clone()), "{:?}", sandbox.kind());
        still_works(&*sandbox).await;
    }
}

// ---- ordinary code -------------------------------------------------------------------------

const SCRIPTED_MODEL_CODE: &str = r#"
const hits = await openclaw.tools.search("fake_plugin_tool_17", { limit: 1 });
const hit = hits.find((h) => h.name === "fake_plugin_tool_17");
if (!hit) throw new Error("target tool not found");
return await openclaw.tools.call(hit.id, { marker: "normal" });
"#;

#[tokio::test]
async fn search_then_call_like_the_scripted_model() {
    for sandbox in backends() {
        let bridge = Arc::new(Recorder::default());
        let result = run_on(
            &*sandbox,
            SCRIPTED_MODEL_CODE,
            bridge.clone(),
            limits(5_000),
        )
        .await;
        let id = "openclaw:tool-search-e2e-fixture:fake_plugin_tool_17";
        let expected = json!({
            "tool": { "id": id, "name": "fake_plugin_tool_17" },
            "result": { "details": { "status": "ok", "tool": "fake_plugin_tool_17", "input": { "marker": "normal" } } },
        });
        assert_eq!(
            result,
            Ok(CodeRun {
                value: expected,
                logs: vec![]
            }),
            "{:?}",
            sandbox.kind()
        );
        assert_eq!(
            bridge.calls(),
            vec![
                r#"search fake_plugin_tool_17 {"limit":1}"#.to_string(),
                format!(r#"call {id} {{"marker":"normal"}}"#),
            ]
        );
    }
}

#[tokio::test]
async fn bridge_promises_are_lazy() {
    let code = r#"
        const never = openclaw.tools.call("a", {});
        const later = openclaw.tools.describe("b");
        await openclaw.tools.search("c");
        const d = await later;
        return d.id;
    "#;
    for sandbox in backends() {
        let bridge = Arc::new(Recorder::default());
        let result = run_on(&*sandbox, code, bridge.clone(), limits(5_000)).await;
        assert_eq!(
            result.map(|r| r.value),
            Ok(json!("b")),
            "{:?}",
            sandbox.kind()
        );
        assert_eq!(
            bridge.calls(),
            vec!["search c null".to_string(), "describe b".to_string()]
        );
    }
}

#[tokio::test]
async fn started_calls_are_drained_before_the_result() {
    let code = r#"
        openclaw.tools.call("x:y:first", { n: 1 }).then(() => console.log("first settled"));
        openclaw.tools.call("x:y:second", { n: 2 }).then(() => console.log("second settled"));
        return "returned";
    "#;
    for sandbox in backends() {
        let bridge = Arc::new(Recorder::default());
        let result = run_on(&*sandbox, code, bridge.clone(), limits(5_000)).await;
        let run = result.expect("drain run");
        assert_eq!(run.value, json!("returned"), "{:?}", sandbox.kind());
        assert_eq!(
            bridge.calls(),
            vec![
                r#"call x:y:first {"n":1}"#.to_string(),
                r#"call x:y:second {"n":2}"#.to_string()
            ]
        );
        let mut logs = run.logs.clone();
        logs.sort();
        assert_eq!(
            logs,
            vec!["first settled".to_string(), "second settled".to_string()],
            "{:?}",
            sandbox.kind()
        );
    }
}

#[tokio::test]
async fn console_lines_are_logged_in_order() {
    let code = r#"console.log("a", 1, { b: true }); console.warn("careful"); console.error(new Error("x").message); return null;"#;
    for sandbox in backends() {
        let result = run(&*sandbox, code).await;
        let logs = vec![
            r#"a 1 {"b":true}"#.to_string(),
            "[warn] careful".to_string(),
            "[error] x".to_string(),
        ];
        assert_eq!(
            result,
            Ok(CodeRun {
                value: Value::Null,
                logs
            }),
            "{:?}",
            sandbox.kind()
        );
    }
}

#[tokio::test]
async fn undefined_becomes_null() {
    expect_value("const x = 1;", Value::Null).await;
    expect_value("return undefined;", Value::Null).await;
    expect_value(
        "return [undefined, () => 1, { f() {} }];",
        json!([null, null, {}]),
    )
    .await;
}

#[tokio::test]
async fn empty_code_is_rejected() {
    for sandbox in backends() {
        assert_eq!(
            run(&*sandbox, "  \n\t ").await,
            Err(SandboxError::EmptyCode)
        );
    }
}

#[tokio::test]
async fn syntax_errors_are_reported() {
    for sandbox in backends() {
        let result = run(&*sandbox, "return (;").await;
        assert!(
            matches!(result, Err(SandboxError::Syntax(_))),
            "{:?}: {result:?}",
            sandbox.kind()
        );
        let breakout = run(&*sandbox, "}); (function () {").await;
        // V8 rejects a body that closes the wrapper; QuickJS compiles only the wrapper's own
        // (empty) body. Either way nothing outside the realm runs.
        assert!(
            matches!(&breakout, Err(SandboxError::Syntax(_)))
                || breakout
                    == Ok(CodeRun {
                        value: Value::Null,
                        logs: vec![]
                    }),
            "{:?}: {breakout:?}",
            sandbox.kind()
        );
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn thrown_errors_and_bridge_rejections_are_reported() {
    expect_thrown(r#"throw new Error("boom");"#, "Error: boom").await;
    expect_thrown(
        r#"await openclaw.tools.call("missing", {});"#,
        "Unknown tool id: missing.",
    )
    .await;
    expect_thrown(
        r#"await openclaw.tools.describe(42);"#,
        "describe(id): id must be a string",
    )
    .await;
    expect_value(
        r#"try { await openclaw.tools.call("missing", {}); } catch (e) { return e.message; }"#,
        json!("Unknown tool id: missing."),
    )
    .await;
}

#[tokio::test]
async fn non_json_values_are_rejected() {
    for sandbox in backends() {
        let result = run(&*sandbox, "const a = {}; a.self = a; return a;").await;
        assert!(
            matches!(result, Err(SandboxError::BadValue(_))),
            "{:?}: {result:?}",
            sandbox.kind()
        );
        let big = run(&*sandbox, "return 10n;").await;
        assert!(
            matches!(big, Err(SandboxError::BadValue(_))),
            "{:?}: {big:?}",
            sandbox.kind()
        );
    }
}

#[tokio::test]
async fn sequential_thousands_of_bridge_calls_work() {
    let code = r#"let n = 0; for (let i = 0; i < 2000; i++) { const r = await openclaw.tools.call("t", { i }); n += r.result.details.input.i === i ? 1 : 0; } return n;"#;
    expect_value(code, json!(2000)).await;
}

// ---- hostile code: the shared probes (src/sandbox/probes.rs) -------------------------------

/// A planted secret file, a marker path and a canary for one probe run.
struct Site {
    dir: tempfile::TempDir,
    secret: String,
    canary: Canary,
}

impl Site {
    fn new() -> Site {
        let dir = tempfile::tempdir().expect("temp dir");
        let secret = "TSQA-SANDBOX-SECRET-7f3a91".to_string();
        std::fs::write(dir.path().join("secret.txt"), &secret).expect("plant the secret");
        Site {
            dir,
            secret,
            canary: Canary::start(),
        }
    }

    fn marker(&self) -> std::path::PathBuf {
        self.dir.path().join("marker")
    }

    fn render(&self, probe: &Probe) -> String {
        let secret_file = self.dir.path().join("secret.txt");
        let marker = self.marker();
        probe.render(&ProbeSite {
            secret_file: &secret_file,
            secret_env: "TSQA_SANDBOX_SECRET",
            marker_file: &marker,
            canary_port: self.canary.port,
        })
    }
}

/// Runs every shared probe of `area` on every backend: the exact result the probe expects,
/// no canary connection, no marker file, no secret in the result, and a backend that still works.
async fn expect_probes(area: Area) {
    let probes: Vec<&Probe> = PROBES.iter().filter(|p| p.area == area).collect();
    assert!(!probes.is_empty(), "no probe in {area}");
    for sandbox in backends() {
        for probe in &probes {
            let site = Site::new();
            let timeout_ms = match probe.expect {
                SandboxExpect::Timeout | SandboxExpect::TimeoutOrStalled => 300,
                _ => 5_000,
            };
            let code = site.render(probe);
            let result = run_on(
                &*sandbox,
                &code,
                Arc::new(Recorder::default()),
                limits(timeout_ms),
            )
            .await;
            let at = format!("{:?} {}", sandbox.kind(), probe.name);
            match probe.expect {
                SandboxExpect::Thrown(needle) => {
                    let text = thrown_text(&result);
                    assert!(text.contains(needle), "{at}: `{text}` lacks `{needle}`");
                }
                SandboxExpect::AnyThrown => {
                    assert!(
                        matches!(result, Err(SandboxError::Thrown(_))),
                        "{at}: {result:?}"
                    );
                }
                SandboxExpect::Value(text) => {
                    let value: Value = serde_json::from_str(text).expect("probe value is JSON");
                    assert_eq!(result.clone().map(|r| r.value), Ok(value), "{at}");
                }
                SandboxExpect::Timeout => {
                    assert_eq!(result, Err(SandboxError::Timeout { ms: 300 }), "{at}");
                }
                SandboxExpect::TimeoutOrStalled => assert!(
                    matches!(
                        result,
                        Err(SandboxError::Timeout { ms: 300 }) | Err(SandboxError::Stalled)
                    ),
                    "{at}: {result:?}"
                ),
            }
            assert!(
                !format!("{result:?}").contains(&site.secret),
                "{at}: the secret leaked: {result:?}"
            );
            assert_eq!(site.canary.hits(), 0, "{at}: the canary saw a connection");
            assert!(!site.marker().exists(), "{at}: the marker file was written");
            still_works(&*sandbox).await;
        }
    }
}

#[tokio::test]
async fn hostile_files() {
    expect_probes(Area::Files).await;
}

#[tokio::test]
async fn hostile_network() {
    expect_probes(Area::Network).await;
}

#[tokio::test]
async fn hostile_process() {
    expect_probes(Area::Process).await;
}

#[tokio::test]
async fn hostile_env() {
    expect_probes(Area::Env).await;
}

#[tokio::test]
async fn hostile_realm_escapes() {
    expect_probes(Area::Realm).await;
}

#[tokio::test]
async fn hostile_timeouts() {
    expect_probes(Area::Timeout).await;
}

#[tokio::test]
async fn hostile_never_resolving_bridge_call_times_out() {
    for sandbox in backends() {
        let bridge = Arc::new(Never::default());
        // Long enough for a cold node child to start and reach the call.
        let result = run_on(
            &*sandbox,
            r#"return await openclaw.tools.call("t", {});"#,
            bridge.clone(),
            limits(3_000),
        )
        .await;
        assert_eq!(
            result,
            Err(SandboxError::Timeout { ms: 3_000 }),
            "{:?}",
            sandbox.kind()
        );
        assert_eq!(bridge.started.load(Ordering::SeqCst), 1);
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_bridge_call_after_the_deadline_never_starts() {
    let code = r#"const t = Date.now(); while (Date.now() - t < 600) {} return await openclaw.tools.call("late", {});"#;
    for sandbox in backends() {
        let bridge = Arc::new(Recorder::default());
        let result = run_on(&*sandbox, code, bridge.clone(), limits(300)).await;
        assert_eq!(
            result,
            Err(SandboxError::Timeout { ms: 300 }),
            "{:?}",
            sandbox.kind()
        );
        // Give a runaway runtime time to try anyway; nothing may reach the bridge.
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(bridge.calls(), Vec::<String>::new(), "{:?}", sandbox.kind());
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_memory_bomb() {
    let code = r#"const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length);"#;
    for sandbox in backends() {
        let small = CodeLimits {
            memory_bytes: 32 * 1024 * 1024,
            ..limits(10_000)
        };
        let result = run_on(&*sandbox, code, Arc::new(Recorder::default()), small).await;
        assert_eq!(
            result,
            Err(SandboxError::OutOfMemory {
                limit: 32 * 1024 * 1024
            }),
            "{:?}",
            sandbox.kind()
        );
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_output_flood() {
    for sandbox in backends() {
        let small = CodeLimits {
            output_bytes: 64 * 1024,
            ..limits(5_000)
        };
        let result = run_on(
            &*sandbox,
            r#"for (;;) console.log("flood flood flood");"#,
            Arc::new(Recorder::default()),
            small,
        )
        .await;
        assert_eq!(
            result,
            Err(SandboxError::OutputTooLarge { limit: 64 * 1024 }),
            "{:?}",
            sandbox.kind()
        );
        let value = run_on(
            &*sandbox,
            r#"return "x".repeat(100000);"#,
            Arc::new(Recorder::default()),
            small,
        )
        .await;
        assert_eq!(
            value,
            Err(SandboxError::OutputTooLarge { limit: 64 * 1024 }),
            "{:?}",
            sandbox.kind()
        );
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_thousands_of_parallel_bridge_calls() {
    let code = r#"return (await Promise.all(Array.from({ length: 5000 }, (_, i) => openclaw.tools.call("t", { i })))).length;"#;
    for sandbox in backends() {
        let bridge = Arc::new(Recorder::default());
        let result = run_on(&*sandbox, code, bridge.clone(), limits(5_000)).await;
        assert_eq!(
            result,
            Err(SandboxError::TooManyPendingCalls { limit: 128 }),
            "{:?}",
            sandbox.kind()
        );
        assert!(
            bridge.calls().len() <= 128,
            "{:?}: {} calls",
            sandbox.kind(),
            bridge.calls().len()
        );
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_bridge_prototype_tampering() {
    let code = r#"
        Promise.prototype.then = function () { throw new Error("hijacked"); };
        Object.prototype.then = undefined;
        JSON.stringify = () => "{}"; JSON.parse = () => ({ owned: true });
        try { openclaw.tools.call = () => "replaced"; } catch (e) {}
        try { Object.setPrototypeOf(openclaw.tools, { call: () => "proto" }); } catch (e) {}
        const r = await openclaw.tools.search("fake_plugin_tool_17");
        return [typeof openclaw.tools.call("x", {}), r.length];
    "#;
    for sandbox in backends() {
        let result = run(&*sandbox, code).await;
        // Tampering may break the code's own run, never the host: an error or a harmless value.
        match &result {
            Ok(run) => assert_eq!(run.value, json!(["object", 1]), "{:?}", sandbox.kind()),
            Err(SandboxError::Thrown(text)) => {
                assert!(text.contains("hijacked"), "{:?}: {text}", sandbox.kind())
            }
            Err(other) => panic!("{:?}: unexpected {other:?}", sandbox.kind()),
        }
        still_works(&*sandbox).await;
    }
}

#[tokio::test]
async fn hostile_bridge_functions_are_frozen() {
    let code = r#"
        "use strict";
        const out = [];
        try { openclaw.tools.search = null; out.push("writable"); } catch (e) { out.push(e.name); }
        try { delete openclaw.tools; out.push("deleted"); } catch (e) { out.push(e.name); }
        return out;
    "#;
    expect_value(code, json!(["TypeError", "TypeError"])).await;
}

// ---- hostile code: nothing a call leaves behind reaches the next call ----------------------
//
// QuickJS runs every call in a fresh context on a reused runtime, node in a fresh child. Each
// case runs a polluting call, then a checking call, several times over on one backend, so the
// checking calls land on runtimes that served a polluting call (the pool keeps two).

/// How many times each polluting/checking pair runs on one backend.
const ROUNDS: usize = 6;

/// Runs `pollute` then `check` ROUNDS times on every backend; every check must give exactly
/// `value` with no log line (a leftover would log or change the value).
async fn expect_clean_after(pollute: &str, pollute_limits: CodeLimits, check: &str, value: Value) {
    for sandbox in backends() {
        for round in 0..ROUNDS {
            let polluted = run_on(
                &*sandbox,
                pollute,
                Arc::new(Recorder::default()),
                pollute_limits,
            )
            .await;
            let bridge = Arc::new(Recorder::default());
            let checked = run_on(&*sandbox, check, bridge.clone(), limits(5_000)).await;
            assert_eq!(
                checked,
                Ok(CodeRun {
                    value: value.clone(),
                    logs: Vec::new()
                }),
                "{:?} round {round}, after {polluted:?}",
                sandbox.kind()
            );
            assert_eq!(bridge.calls(), Vec::<String>::new(), "{:?}", sandbox.kind());
        }
    }
}

#[tokio::test]
async fn hostile_globals_and_prototypes_do_not_carry_over() {
    let pollute = r#"
        globalThis.leak = "secret"; var leakVar = 1;
        Object.prototype.polluted = "yes";
        Array.prototype.map = function () { return "hijacked"; };
        JSON.stringify = () => "\"owned\"";
        Function.prototype.call = function () { return "hijacked"; };
        Object.defineProperty(globalThis, "openclawCache", { value: 42, configurable: false });
        return 1;
    "#;
    let check = r#"
        return [typeof leak, typeof leakVar, ({}).polluted === undefined, [1].map((x) => x + 1),
                JSON.stringify({ a: 1 }), Math.max.call(null, 2, 3), typeof openclawCache];
    "#;
    expect_clean_after(
        pollute,
        limits(5_000),
        check,
        json!([
            "undefined",
            "undefined",
            true,
            [2],
            "{\"a\":1}",
            3,
            "undefined"
        ]),
    )
    .await;
}

#[tokio::test]
async fn hostile_pending_jobs_do_not_run_in_the_next_call() {
    // An endless promise chain that logs and calls the bridge; the call times out with it running.
    let pollute = r#"
        (async () => { for (;;) { console.log("ghost"); globalThis.ticks = (globalThis.ticks || 0) + 1; await null; } })();
        (async () => { for (;;) { await null; try { openclaw.tools.call("ghost", {}); } catch (e) {} } })();
        await new Promise(() => {});
    "#;
    expect_clean_after(
        pollute,
        limits(200),
        "return typeof ticks;",
        json!("undefined"),
    )
    .await;
}

#[tokio::test]
async fn hostile_timers_and_finalizers_do_not_fire_in_the_next_call() {
    let pollute = r#"
        globalThis.setTimeout = (f) => Promise.resolve().then(f);
        setTimeout(() => console.log("late timer"));
        const registry = new FinalizationRegistry(() => console.log("finalized"));
        for (let i = 0; i < 100; i++) registry.register({ i }, i);
        globalThis.keep = registry;
        return typeof setTimeout;
    "#;
    expect_clean_after(
        pollute,
        limits(5_000),
        "return [typeof setTimeout, typeof keep];",
        json!(["undefined", "undefined"]),
    )
    .await;
}

#[tokio::test]
async fn hostile_memory_kept_by_a_call_is_not_charged_to_the_next() {
    // 40 MiB kept reachable from the global; the next call needs 40 MiB of its own under the
    // same 64 MiB limit, so it only fits when the first call's memory is gone.
    let fill = |name: &str| {
        format!(
            r#"globalThis.{name} = []; for (let i = 0; i < 40; i++) {name}.push("x".repeat(1 << 20) + i); return {name}.length;"#
        )
    };
    for sandbox in backends() {
        for round in 0..ROUNDS {
            for name in ["keep", "again"] {
                let run = run(&*sandbox, &fill(name)).await.map(|r| r.value);
                assert_eq!(
                    run,
                    Ok(json!(40)),
                    "{:?} round {round} {name}",
                    sandbox.kind()
                );
            }
        }
    }
}
