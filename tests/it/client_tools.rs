//! Client tools in scenarios: the built-in client-target scenario hands the call back on every
//! lane, and claim H1 fails when the gateway does not hand it back.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{json, Value};
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

const CLIENT_TARGET: &str = "tool-search-client-target";

#[tokio::test]
async fn the_client_target_is_handed_back_on_every_lane() {
    let scenarios = select(load_all(&[]).unwrap(), &[CLIENT_TARGET.into()]).unwrap();
    let report = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let scenario = &report.scenarios[0];
    let failed: Vec<_> = scenario.claims.iter().filter(|c| !c.ok).collect();
    assert!(failed.is_empty(), "failed claims: {failed:#?}");
    let h1_lanes: Vec<&str> = scenario
        .claims
        .iter()
        .filter(|c| c.claim == "H1")
        .map(|c| c.lane.as_str())
        .collect();
    assert_eq!(h1_lanes, ["direct", "tools", "directory", "code"]);
    let json = serde_json::to_value(scenario).unwrap();
    let planned = |lane: &str| json["lanes"][lane]["providerPlannedTools"].clone();
    assert_eq!(planned("direct"), json!(["pick_file"]));
    assert_eq!(planned("tools"), json!(["tool_search", "tool_call"]));
    assert_eq!(planned("directory"), json!(["pick_file"]));
    assert_eq!(planned("code"), json!(["tool_search_code"]));
    for lane in ["direct", "tools", "directory", "code"] {
        assert_eq!(json["lanes"][lane]["gatewayOutputText"], "", "{lane}");
        assert_eq!(
            json["lanes"][lane]["gatewayOutputToolNames"],
            json!(["pick_file"]),
            "{lane}"
        );
    }
}

/// The built-in client scenario under a new id with `edit` applied, written into `dir`.
fn write_variant(dir: &Path, id: &str, edit: impl Fn(String) -> String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("scenarios")
        .join(format!("{CLIENT_TARGET}.toml"));
    let text = std::fs::read_to_string(path).unwrap();
    let text = text.replace(
        &format!("id = \"{CLIENT_TARGET}\""),
        &format!("id = \"{id}\""),
    );
    std::fs::write(dir.join(format!("{id}.toml")), edit(text)).unwrap();
}

fn suite_json(dir: &Path, id: &str) -> (i32, Value) {
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args([
            "suite",
            "--no-snapshots",
            "--format",
            "json",
            "--scenario",
            id,
        ])
        .arg("--scenario-dir")
        .arg(dir)
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    (out.status.code().unwrap(), json)
}

#[test]
fn h1_fails_when_policy_keeps_the_client_tool_from_the_model() {
    let dir = tempfile::tempdir().unwrap();
    write_variant(dir.path(), "client-denied", |t| {
        t.replace(
            "[[claims]]\nid = \"H1\"",
            "[policy]\ndeny = [\"pick_file\"]\n\n[[claims]]\nid = \"H1\"\nlanes = [\"direct\"]",
        )
        .replace("[[claims]]\nid = \"C4\"\n\n[[claims]]\nid = \"C5\"\n", "")
        .replace(
            ", provider_requests = 1, searches = 0",
            ", provider_requests = 2, searches = 0",
        )
    });
    let (code, json) = suite_json(dir.path(), "client-denied");
    assert_eq!(code, 1, "{json:#}");
    let h1: Vec<&Value> = json["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["claim"] == "H1")
        .collect();
    assert_eq!(h1.len(), 1);
    assert_eq!(h1[0]["ok"], false);
    assert_eq!(
        h1[0]["expected"],
        "the answer carries one function_call item for pick_file"
    );
}

#[test]
fn a_client_target_missing_from_catalog_client_is_a_scenario_error() {
    let dir = tempfile::tempdir().unwrap();
    write_variant(dir.path(), "client-missing", |t| {
        t.replace("client = [\"pick_file\"]", "client = [\"open_url\"]")
    });
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["list", "--scenario-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("client-missing.toml")
            && stderr.contains(
                ":12:15: target_tool: \"pick_file\" is not a client tool of this catalogue \
                 (catalog.client: open_url)"
            ),
        "{stderr}"
    );
}
