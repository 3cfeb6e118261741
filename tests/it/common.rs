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
