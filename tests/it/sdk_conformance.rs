//! Conformance with the official OpenAI Python SDK: `sdk_conformance.py` drives the mock
//! provider and one embedded gateway per lane (direct, tools, directory, code) through the SDK —
//! JSON and streaming, tool calls, text answers, the client-tool loop both ways, errors — and
//! validates every body it receives against the SDK's strict models.
//!
//! The interpreter is the one `scripts/install-openai-sdk.sh` installs (`.ci/run` runs it and
//! exports `TOOLSEARCH_QA_OPENAI_SDK`). Without that variable the test uses the install's default
//! path when it exists and otherwise says it did not run; with the variable set, a missing
//! interpreter is a failure.

use std::path::PathBuf;
use std::process::Command;

use serde_json::{json, Value};
use toolsearch_qa::provider::MockProvider;

use crate::common::start_gateway;

const SDK_ENV: &str = "TOOLSEARCH_QA_OPENAI_SDK";
const SDK_VERSION: &str = "3.57.0";

fn interpreter() -> Option<PathBuf> {
    if let Ok(path) = std::env::var(SDK_ENV) {
        let path = PathBuf::from(path);
        assert!(
            path.exists(),
            "{SDK_ENV}={} does not exist; run scripts/install-openai-sdk.sh",
            path.display()
        );
        return Some(path);
    }
    let cache = std::env::var("TOOLSEARCH_QA_CACHE")
        .map(PathBuf::from)
        .or_else(|_| std::env::var("HOME").map(|h| PathBuf::from(h).join(".cache/toolsearch-qa")))
        .ok()?;
    let path = cache.join(format!("openai-sdk-{SDK_VERSION}/bin/python"));
    path.exists().then_some(path)
}

/// A gateway config with the client-target scenario's catalogue, for one lane.
fn config(provider: &MockProvider, tool_search: Value) -> Value {
    json!({
        "models": { "providers": { "mock": { "baseUrl": provider.base_url() } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": "qa" }] },
        "tools": { "toolSearch": tool_search },
        "catalog": { "fakePlugin": { "id": "tool-search-e2e-fixture", "size": 36 }, "coreTools": true },
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_body_is_valid_for_the_official_sdk() {
    let Some(python) = interpreter() else {
        eprintln!(
            "sdk_conformance: not run — no OpenAI SDK; run scripts/install-openai-sdk.sh or set {SDK_ENV}"
        );
        return;
    };
    let provider = MockProvider::start().await.unwrap();
    let lanes = [
        ("direct", json!(false)),
        ("tools", json!({ "mode": "tools" })),
        ("directory", json!({ "mode": "directory" })),
        ("code", json!({ "mode": "code" })),
    ];
    let mut gateways = Vec::new();
    for (lane, tool_search) in lanes {
        let (gateway, state) = start_gateway(&config(&provider, tool_search)).await;
        gateways.push((lane, gateway, state));
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it/sdk_conformance.py");
    let mut command = Command::new(&python);
    command
        .arg(script)
        .arg("--provider")
        .arg(provider.base_url());
    for (lane, gateway, _) in &gateways {
        command
            .arg("--gateway")
            .arg(format!("{lane}={}/v1", gateway.base_url()));
    }
    let output = tokio::task::spawn_blocking(move || command.output())
        .await
        .unwrap()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|line| serde_json::from_str(line).ok())
        .unwrap_or_else(|| {
            panic!("no summary from the SDK script\nstdout: {stdout}\nstderr: {stderr}")
        });
    let report = serde_json::to_string_pretty(&summary).unwrap();
    // The measure the issue asks for, visible with --nocapture: bodies checked, invalid ones.
    eprintln!(
        "sdk_conformance: openai {} strict: {} bodies ({}), {} invalid",
        summary["openai"],
        summary["bodies"],
        summary["kinds"],
        summary["invalid"].as_array().map_or(0, Vec::len)
    );
    assert_eq!(summary["invalid"], json!([]), "invalid bodies:\n{report}");
    assert_eq!(
        summary["failures"],
        json!([]),
        "failed flows:\n{report}\n{stderr}"
    );
    assert!(output.status.success(), "{report}\n{stderr}");
    assert_eq!(summary["openai"], SDK_VERSION);
    // Every kind of body was seen: response objects, event streams, errors and the model list.
    let kinds = &summary["kinds"];
    for kind in ["response", "stream", "error", "models"] {
        assert!(
            kinds[kind].as_u64().unwrap_or(0) > 0,
            "no {kind} body checked: {report}"
        );
    }
    // 9 provider bodies (models, text, call, answer, two streams, three errors), then per lane 7
    // (hand-off and answer both ways, the refused repeat, text, a gateway-run tool), then 9
    // gateway errors.
    assert_eq!(summary["bodies"], 9 + 4 * 7 + 9, "{report}");
}
