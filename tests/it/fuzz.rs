//! Structured junk (proptest) against the three front doors: the gateway's HTTP request parsing,
//! the scenario loader and the gateway-config loader. The property is the same for all three: an
//! error value, never a panic, a hang or a file written outside its directory.
//!
//! Each runs `TOOLSEARCH_QA_FUZZ_CASES` cases (default 256; CI runs the default, which takes a
//! few seconds per target); every case is bounded (20 s), so a hang fails the test.

use std::path::{Component, Path};
use std::sync::OnceLock;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{json, Map, Value};
use toolsearch_qa::catalog::fake::MAX_FAKE_TOOLS;
use toolsearch_qa::protocol::session::{session_id_for_key, session_log_path, MAX_FILE_NAME_BYTES};
use toolsearch_qa::provider::MockProvider;
use toolsearch_qa::suite::snapshot::snapshot_path;

use crate::common::{files_below, tools_config};

/// Cases per fuzz target.
fn cases() -> u32 {
    static CASES: OnceLock<u32> = OnceLock::new();
    *CASES.get_or_init(|| {
        std::env::var("TOOLSEARCH_QA_FUZZ_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(256)
    })
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// How many cases of a property got past parsing to its assertions, of how many ran: a property
/// that returns early on a parse error checks nothing when the junk never parses, so each such
/// property reports its share and requires at least half.
#[derive(Default)]
struct Reach {
    ran: std::sync::atomic::AtomicUsize,
    reached: std::sync::atomic::AtomicUsize,
}

impl Reach {
    /// Counts one case; `parsed` is whether it reached the assertions.
    fn count(&self, parsed: bool) {
        use std::sync::atomic::Ordering::Relaxed;
        self.ran.fetch_add(1, Relaxed);
        if parsed {
            self.reached.fetch_add(1, Relaxed);
        }
    }

    /// Prints the share and fails when it is below half.
    fn require_half(&self, property: &str) {
        use std::sync::atomic::Ordering::Relaxed;
        let (reached, ran) = (self.reached.load(Relaxed), self.ran.load(Relaxed));
        let share = reached as f64 / ran.max(1) as f64;
        eprintln!(
            "{property}: {reached} of {ran} cases reached the assertions ({:.0}%)",
            share * 100.0
        );
        assert!(
            ran > 0 && reached * 2 >= ran,
            "{property}: only {reached} of {ran} cases parsed; the property checked too little"
        );
    }
}

/// Bound on one case: past it the case is a hang, and fails. (The HTTP cases are bounded by
/// their client's timeouts; the loaders run on a thread of their own.)
const HANG: Duration = Duration::from_secs(20);

/// `f` on its own thread; its value, or a failure when it panics or takes longer than [`HANG`].
fn bounded<T: Send + 'static>(
    what: &str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, TestCaseError> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    match rx.recv_timeout(HANG) {
        Ok(value) => Ok(value),
        Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
            Err(TestCaseError::fail(format!("{what} hung for {HANG:?}")))
        }
        Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
            Err(TestCaseError::fail(format!("{what} panicked")))
        }
    }
}

/// Text a careless or hostile user would type: paths, escapes, non-ASCII, control characters,
/// brackets, very long runs.
fn junk_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("../../X".to_string()),
        Just("..".to_string()),
        Just("/etc/passwd".to_string()),
        Just("josé".to_string()),
        Just("a%2Fb".to_string()),
        Just("a~b".to_string()),
        "[a-z0-9_.-]{1,12}",
        "\\PC{0,24}",
        "[\\[\\]{}\"'\\\\/*]{0,40}",
        (1usize..600).prop_map(|n| "é".repeat(n)),
    ]
}

/// A JSON value: scalars of every kind, nested up to `depth`.
fn junk_json(depth: u32) -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        junk_text().prop_map(Value::from),
    ];
    leaf.prop_recursive(depth, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((junk_text(), inner), 0..6)
                .prop_map(|pairs| Value::Object(pairs.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// An object whose keys are mostly the ones the reader knows, with junk values.
fn known_keys(keys: &'static [&'static str], depth: u32) -> impl Strategy<Value = Value> {
    prop::collection::vec(
        (
            prop_oneof![4 => prop::sample::select(keys).prop_map(String::from), 1 => junk_text()],
            junk_json(depth),
        ),
        0..keys.len() + 2,
    )
    .prop_map(|pairs| Value::Object(pairs.into_iter().collect()))
}

// ---- the gateway's HTTP request parsing -------------------------------------------------------

/// A `/v1/responses` request body: a structured one (known fields, junk values, sometimes a
/// valid turn underneath) or raw bytes.
fn request_body() -> impl Strategy<Value = Vec<u8>> {
    const FIELDS: &[&str] = &[
        "input",
        "tools",
        "model",
        "stream",
        "max_output_tokens",
        "tool_choice",
        "previous_response_id",
    ];
    prop_oneof![
        3 => known_keys(FIELDS, 3).prop_map(|v| v.to_string().into_bytes()),
        2 => (known_keys(FIELDS, 2), 1usize..6).prop_map(|(mut v, n)| {
            v["input"] = json!(format!("tool search qa check target=fake_plugin_tool_{n:02}"));
            v.to_string().into_bytes()
        }),
        1 => prop::collection::vec(any::<u8>(), 0..256),
    ]
}

fn header_value() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        Just(None),
        Just(Some(b"qa".to_vec())),
        junk_text().prop_map(|t| Some(t.into_bytes())),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(Some),
    ]
}

#[test]
fn fuzz_gateway_requests_get_an_answer_and_write_only_below_the_state_dir() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let parent = tempfile::tempdir().unwrap();
    let state = parent.path().join("state");
    let (provider, gateway) = runtime.block_on(async {
        let provider = MockProvider::start().await.unwrap();
        let config = tools_config(json!({ "baseUrl": provider.base_url() }));
        let loaded = toolsearch_qa::config::parse(&config.to_string(), "fuzz").unwrap();
        let gateway =
            toolsearch_qa::gateway::serve(loaded, state.clone(), ([127, 0, 0, 1], 0).into())
                .await
                .unwrap();
        (provider, gateway)
    });
    let http = reqwest::Client::builder().timeout(HANG).build().unwrap();
    let url = format!("{}/v1/responses", gateway.base_url());
    let strategy = (request_body(), header_value(), header_value());
    runner()
        .run(&strategy, |(body, agent, key)| {
            let (status, text) = runtime.block_on(async {
                let mut request = http.post(&url).body(body.clone());
                for (name, value) in [
                    ("x-openclaw-agent", &agent),
                    ("x-openclaw-session-key", &key),
                ] {
                    if let Some(value) = value {
                        if let Ok(value) = reqwest::header::HeaderValue::from_bytes(value) {
                            request = request.header(name, value);
                        }
                    }
                }
                let response = request.send().await.expect("the gateway answers");
                let status = response.status().as_u16();
                (status, response.text().await.expect("a whole body"))
            });
            let json: Value = serde_json::from_str(&text).map_err(|e| {
                TestCaseError::fail(format!("HTTP {status}, not JSON ({e}): {text}"))
            })?;
            match status {
                200 => prop_assert!(json["output"].is_array(), "{}", text),
                400 | 404 | 413 | 502 => {
                    prop_assert!(json["error"]["message"].is_string(), "{}", text)
                }
                other => prop_assert!(false, "HTTP {}: {}", other, text),
            }
            Ok(())
        })
        .unwrap();
    // Nothing but session logs, each one file directly in a sessions folder of a known agent.
    for file in files_below(parent.path()) {
        let relative = file.strip_prefix(&state).expect("below the state dir");
        let parts: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        assert_eq!(parts.len(), 4, "{}", file.display());
        assert_eq!(parts[0], "agents");
        assert!(
            ["qa", "main"].contains(&parts[1].as_str()),
            "{}",
            file.display()
        );
        assert_eq!(parts[2], "sessions");
        assert!(parts[3].ends_with(".jsonl") && parts[3].len() <= MAX_FILE_NAME_BYTES + 6);
    }
    runtime.block_on(async {
        let health = http
            .get(format!("{}/healthz", gateway.base_url()))
            .send()
            .await;
        assert_eq!(health.unwrap().status().as_u16(), 200);
        gateway.stop().await;
        provider.stop().await;
    });
}

#[test]
fn fuzz_raw_bytes_on_the_gateway_socket_never_stop_it() {
    use std::io::{Read, Write};
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let state = tempfile::tempdir().unwrap();
    let gateway = runtime.block_on(async {
        let config = tools_config(json!({ "baseUrl": "http://127.0.0.1:9/v1" }));
        let loaded = toolsearch_qa::config::parse(&config.to_string(), "fuzz").unwrap();
        toolsearch_qa::gateway::serve(
            loaded,
            state.path().to_path_buf(),
            ([127, 0, 0, 1], 0).into(),
        )
        .await
        .unwrap()
    });
    let addr = gateway.addr;
    let heads = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..512),
        (junk_text(), junk_text(), junk_text()).prop_map(|(method, path, header)| {
            format!("{method} /{path} HTTP/1.1\r\nhost: x\r\n{header}: {header}\r\ncontent-length: 3\r\n\r\n{{}}\r\n")
                .into_bytes()
        }),
    ];
    runner()
        .run(&heads, |bytes| {
            let mut stream = std::net::TcpStream::connect(addr).unwrap();
            stream.set_read_timeout(Some(HANG)).unwrap();
            let _ = stream.write_all(&bytes);
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut answer = Vec::new();
            // The server answers or closes; either way it does not hold the connection.
            let read = stream.read_to_end(&mut answer);
            prop_assert!(
                !matches!(&read, Err(e) if e.kind() == std::io::ErrorKind::WouldBlock || e.kind() == std::io::ErrorKind::TimedOut),
                "the gateway held a junk connection open"
            );
            Ok(())
        })
        .unwrap();
    runtime.block_on(async {
        let health = reqwest::get(format!("{}/healthz", gateway.base_url())).await;
        assert_eq!(health.unwrap().status().as_u16(), 200);
        gateway.stop().await;
    });
}

// ---- the scenario loader ----------------------------------------------------------------------

/// A name a file, folder or session key is built from: mostly a plain one, sometimes junk
/// (`../../X`, non-ASCII, separators), so the inputs that load carry hostile names too.
fn name_text() -> impl Strategy<Value = String> {
    prop_oneof![19 => "[a-z][a-z0-9-]{0,20}", 1 => junk_text()]
}

/// A scenario file: three times in four a valid one whose names (id, agent, lanes) and sizes
/// vary, so most cases reach the property's assertions; else the real fields with junk in them.
fn scenario_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => named_scenario(), 1 => junk_scenario()]
}

/// A valid scenario but for its names, which are [`name_text`].
fn named_scenario() -> impl Strategy<Value = String> {
    (
        name_text(),
        name_text(),
        prop::collection::vec(name_text(), 1..3),
        3usize..=64,
    )
        .prop_map(|(id, agent, lanes, size)| {
            let lanes: Vec<Value> = lanes
                .iter()
                .map(|name| json!({ "name": name, "tool_search": { "mode": "tools" } }))
                .collect();
            let file = json!({
                "id": id, "title": "t", "agent": agent,
                "prompt": "tool search qa check target=fake_plugin_tool_03",
                "target_tool": "fake_plugin_tool_03",
                "catalog": { "plugin_id": "p", "size": size },
                "claims": [{ "id": "P1" }],
                "lanes": lanes,
            });
            toml::to_string(&file).unwrap_or_else(|_| file.to_string())
        })
}

/// A scenario file: mostly the real fields (some valid, some junk), as TOML text, sometimes cut
/// or spliced.
fn junk_scenario() -> impl Strategy<Value = String> {
    const TOP: &[&str] = &[
        "id",
        "title",
        "objective",
        "agent",
        "prompt",
        "target_tool",
        "target_source",
        "max_output_tokens",
        "catalog",
        "policy",
        "script",
        "claims",
        "pending",
        "lanes",
    ];
    const CATALOG: &[&str] = &[
        "plugin_id",
        "size",
        "core_tools",
        "description_template",
        "direct_only",
        "broken",
        "mcp",
        "client",
    ];
    const LANE: &[&str] = &[
        "name",
        "tool_search",
        "config",
        "script",
        "stream",
        "provider_timeout_ms",
        "expect",
    ];
    let valid_base = json!({
        "id": "fuzz", "title": "t", "prompt": "tool search qa check target=fake_plugin_tool_03",
        "target_tool": "fake_plugin_tool_03",
        "catalog": { "plugin_id": "p", "size": 5 },
        "lanes": [{ "name": "tools", "tool_search": { "mode": "tools" } }],
    });
    (
        known_keys(TOP, 2),
        known_keys(CATALOG, 1),
        prop::collection::vec(known_keys(LANE, 2), 0..3),
        any::<bool>(),
        prop::option::of((any::<prop::sample::Index>(), junk_text())),
    )
        .prop_map(move |(top, catalog, lanes, keep_valid, splice)| {
            let mut file = valid_base.clone();
            // The catalogue's junk first, then the top level's (which may replace the catalogue).
            for (slot, values) in [("catalog", catalog), ("", top)] {
                let slot = if slot.is_empty() {
                    &mut file
                } else {
                    &mut file[slot]
                };
                let Some(slot) = slot.as_object_mut() else {
                    continue;
                };
                for (k, v) in values.as_object().cloned().unwrap_or_default() {
                    if !keep_valid || !slot.contains_key(&k) {
                        slot.insert(k, v);
                    }
                }
            }
            if !lanes.is_empty() {
                file["lanes"] = Value::Array(lanes);
            }
            let mut text = toml::to_string(&file).unwrap_or_else(|_| file.to_string());
            if let Some((at, junk)) = splice {
                let cut = text.floor_char_boundary(at.index(text.len() + 1));
                text.insert_str(cut, &junk);
            }
            text
        })
}

/// One normal path component: what a file name built from it stays inside its folder with.
fn is_one_component(name: &str) -> bool {
    let mut components = Path::new(name).components();
    matches!(components.next(), Some(Component::Normal(_))) && components.next().is_none()
}

#[test]
fn fuzz_scenario_files_load_or_fail_and_never_name_a_file_outside_its_folder() {
    let reach = Reach::default();
    runner()
        .run(&scenario_text(), |text| {
            let parsed = bounded("the scenario loader", move || {
                toolsearch_qa::scenario::parse_scenario(&text, "fuzz.toml")
            })?;
            reach.count(parsed.is_ok());
            let Ok(scenario) = parsed else {
                return Ok(());
            };
            prop_assert!(scenario.catalog.size <= MAX_FAKE_TOOLS);
            let dir = Path::new("/snapshots");
            for lane in &scenario.lanes {
                for kind in ["provider", "session"] {
                    let name = format!("{}__{}__{kind}", scenario.id, lane.name);
                    prop_assert!(is_one_component(&name), "{}", name);
                    let path = snapshot_path(dir, &format!("{name}.new"));
                    prop_assert_eq!(path.parent(), Some(dir));
                    prop_assert!(name.len() + ".snap.new".len() <= 255, "{}", name);
                }
                let key = format!("tool-search-gateway-{}", lane.name);
                prop_assert!(is_one_component(&session_id_for_key(&key)));
            }
            let log = session_log_path(Path::new("/state"), &scenario.agent, "s");
            prop_assert_eq!(
                log.parent().and_then(Path::parent).and_then(Path::parent),
                Some(Path::new("/state/agents"))
            );
            Ok(())
        })
        .unwrap();
    reach.require_half("scenario files");
}

// ---- the gateway-config loader ----------------------------------------------------------------

/// A gateway config: three times in four a valid one whose agent ids and catalogue size vary
/// (so most cases reach the property's assertions), else the real structure with junk in it.
fn config_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => named_config(), 1 => junk_config()]
}

/// A valid gateway config but for its agent ids, which are [`name_text`].
fn named_config() -> impl Strategy<Value = String> {
    (prop::collection::vec(name_text(), 1..3), 1usize..=64).prop_map(|(agents, size)| {
        let mut config = tools_config(json!({ "baseUrl": "http://127.0.0.1:9/v1" }));
        config["agents"]["list"] = agents.iter().map(|id| json!({ "id": id })).collect();
        config["catalog"]["fakePlugin"]["size"] = json!(size);
        config.to_string()
    })
}

/// A gateway config: the real structure with junk in it, as JSON5 text (comments, single quotes,
/// deep nesting sometimes).
fn junk_config() -> impl Strategy<Value = String> {
    const TOP: &[&str] = &["models", "agents", "tools", "catalog", "hooks", "gateway"];
    const PROVIDER: &[&str] = &["baseUrl", "apiKey", "api", "stream", "timeoutMs"];
    const CATALOG: &[&str] = &[
        "fakePlugin",
        "coreTools",
        "mcpServers",
        "withdrawAfterSearch",
    ];
    const PLUGIN: &[&str] = &["id", "size", "descriptionTemplate", "directOnly", "broken"];
    (
        known_keys(TOP, 2),
        known_keys(PROVIDER, 1),
        known_keys(CATALOG, 1),
        known_keys(PLUGIN, 1),
        prop::collection::vec(junk_text(), 0..3),
        0usize..400,
        any::<bool>(),
    )
        .prop_map(|(mut top, provider, mut catalog, plugin, agents, nesting, comment)| {
            let base = json!({ "baseUrl": "http://127.0.0.1:9/v1" });
            let mut provider_obj = base.as_object().cloned().unwrap_or_default();
            provider_obj.extend(provider.as_object().cloned().unwrap_or_default());
            top["models"] = json!({ "providers": { "mock": provider_obj } });
            catalog["fakePlugin"] = plugin;
            top["catalog"] = catalog;
            top["agents"] = json!({ "list": agents.iter().map(|id| json!({ "id": id })).collect::<Vec<_>>() });
            let mut text = top.to_string();
            if nesting > 0 {
                let deep = format!("{}'{{[\"'{}", "[".repeat(nesting), "]".repeat(nesting));
                text = text.replacen('{', &format!("{{ deep: {deep}, "), 1);
            }
            if comment {
                text = format!("// a comment with {{ and [\n{text} /* and ] */");
            }
            text
        })
}

#[test]
fn fuzz_gateway_configs_load_or_fail_and_never_name_a_dir_outside_the_state_dir() {
    let reach = Reach::default();
    runner()
        .run(&config_text(), |text| {
            let parsed = bounded("the config loader", move || {
                toolsearch_qa::config::parse(&text, "fuzz.json5")
            })?;
            reach.count(parsed.is_ok());
            let Ok(config) = parsed else {
                return Ok(());
            };
            prop_assert!(config.primary_model().is_some());
            if let Some(plugin) = &config.raw.catalog.fake_plugin {
                prop_assert!(plugin.size >= 1 && plugin.size <= MAX_FAKE_TOOLS);
            }
            for agent in &config.raw.agents.list {
                let log = session_log_path(Path::new("/state"), &agent.id, "s");
                prop_assert_eq!(
                    log.parent().and_then(Path::parent).and_then(Path::parent),
                    Some(Path::new("/state/agents"))
                );
            }
            Ok(())
        })
        .unwrap();
    reach.require_half("gateway configs");
}
