//! Helpers shared by the integration tests that drive the embedded gateway directly.

use serde_json::{json, Value};
use toolsearch_qa::gateway::RunningGateway;

/// A `tools`-mode gateway config for agent `qa` with a 5-tool fake plugin; `provider` holds the
/// `models.providers.mock` object (baseUrl and any extension keys).
pub fn tools_config(provider: Value) -> Value {
    json!({
        "models": { "providers": { "mock": provider } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": "qa" }] },
        "tools": { "toolSearch": { "mode": "tools" } },
        "catalog": { "fakePlugin": { "id": "fixture", "size": 5 } },
    })
}

/// The event types of a streamed text reply, in order (a tool call's stream has its own).
/// The reference scenario's lanes, in file order (the last four native).
pub const REFERENCE_LANES: [&str; 9] = [
    "direct",
    "tools",
    "code",
    "directory",
    "batch",
    "native-openai",
    "native-openai-client",
    "native-anthropic",
    "native-anthropic-regex",
];

pub const TEXT_REPLY_EVENTS: [&str; 9] = [
    "response.created",
    "response.in_progress",
    "response.output_item.added",
    "response.content_part.added",
    "response.output_text.delta",
    "response.output_text.done",
    "response.content_part.done",
    "response.output_item.done",
    "response.completed",
];

/// Starts the embedded gateway on a loopback port with `config` and a fresh state directory.
pub async fn start_gateway(config: &Value) -> (RunningGateway, tempfile::TempDir) {
    let loaded = toolsearch_qa::config::parse(&config.to_string(), "test config").unwrap();
    let state = tempfile::tempdir().unwrap();
    let gateway = toolsearch_qa::gateway::serve(
        loaded,
        state.path().to_path_buf(),
        ([127, 0, 0, 1], 0).into(),
    )
    .await
    .unwrap();
    (gateway, state)
}

/// The Rust-side shape check: `body` deserialises as async-openai's Responses `Response` (a
/// second, independent model of the wire; the strict check is the official SDK's).
pub fn assert_openai_response(body: &Value) {
    if let Err(e) = serde_json::from_value::<async_openai::types::responses::Response>(body.clone())
    {
        panic!("not an async-openai Response ({e}): {body:#}");
    }
}

/// Every `data:` event of a stream deserialises as async-openai's `ResponseStreamEvent`.
pub fn assert_openai_stream(stream: &str) {
    for data in stream.lines().filter_map(|l| l.strip_prefix("data: ")) {
        if let Err(e) =
            serde_json::from_str::<async_openai::types::responses::ResponseStreamEvent>(data)
        {
            panic!("not an async-openai ResponseStreamEvent ({e}): {data}");
        }
    }
}

/// Every file below `dir` (at any depth), in no particular order.
pub fn files_below(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// Why the node backend (the jailed node sandbox: root, node 20-25, util-linux) cannot run
/// here with the node at `node` (the one on `PATH` when `None`), or `None` when it can.
pub fn node_jail_missing(node: Option<std::path::PathBuf>) -> Option<String> {
    use toolsearch_qa::sandbox::{backend, SandboxKind};
    backend(SandboxKind::Node, node)
        .probe()
        .err()
        .map(|why| why.to_string())
}

/// Fails `test` (an `#[ignore]`d one, asked for) when the node backend cannot run here.
pub fn require_node_jail(test: &str, node: Option<std::path::PathBuf>) {
    if let Some(why) = node_jail_missing(node) {
        panic!("{test}: the node backend cannot run here: {why}");
    }
}

/// Whether the node backend can run here, for the tests that run it beside QuickJS; `false`
/// with the reason printed. Its own `#[ignore]`d test fails then (`sandbox_hostile.rs`), so
/// the node half missing is reported as a test not run, and fails CI.
pub fn node_jail_available(test: &str) -> bool {
    match node_jail_missing(None) {
        None => true,
        Some(why) => {
            eprintln!("{test}: node backend not run (the node backend cannot run here: {why})");
            false
        }
    }
}

/// Processes whose environment holds `mark`, zombies aside.
pub fn marked_processes(mark: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'));
            !zombie && String::from_utf8_lossy(&environ).contains(mark)
        })
        .collect()
}
