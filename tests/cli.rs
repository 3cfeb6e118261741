//! The binary as CI uses it: exit codes, JSON on stdout, one-line errors on stderr.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

#[test]
fn suite_json_passes_with_exit_zero() {
    let out = bin()
        .args([
            "suite",
            "--provider-mode",
            "mock-openai",
            "--scenario",
            "tool-search-gateway-e2e",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], true);
    assert_eq!(json["target"], "embedded");
    let scenario = &json["scenarios"][0];
    assert_eq!(scenario["scenario"], "tool-search-gateway-e2e");
    assert_eq!(scenario["targetTool"], "fake_plugin_tool_17");
    assert_eq!(scenario["claims"].as_array().unwrap().len(), 11);
    assert!(scenario["claims"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["ok"] == true));
}

#[test]
fn table_output_ends_with_the_count_line() {
    bin()
        .args(["suite", "--scenario", "tool-search-gateway-e2e"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "FAKE_PLUGIN_OK fake_plugin_tool_17",
        ))
        .stdout(predicate::str::ends_with("11 passed, 0 failed\n"));
}

#[test]
fn unknown_scenario_is_a_usage_error() {
    bin()
        .args(["suite", "--scenario", "no-such-scenario"])
        .assert()
        .code(2)
        .stderr("error: unknown scenario \"no-such-scenario\"; known: tool-search-gateway-e2e\n");
}

#[test]
fn list_names_the_reference_scenario() {
    bin()
        .arg("list")
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "tool-search-gateway-e2e\tTool Search gateway end to end\tlanes: direct, tools, code",
        ));
}

#[test]
fn malformed_gateway_config_is_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json5");
    std::fs::write(&path, "{ tools: { toolSearch: { mode: \"sideways\" } } }").unwrap();
    let out = bin()
        .args(["gateway", "--config"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("bad.json5") && stderr.contains("tools.toolSearch.mode"),
        "{stderr}"
    );
}

#[test]
fn bad_scenario_file_in_a_scenario_dir_names_file_and_field() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.toml"),
        "id = \"b\"\ntitle = \"t\"\nprompt = 3\n",
    )
    .unwrap();
    let out = bin()
        .args(["list", "--scenario-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("broken.toml") && stderr.contains("prompt"),
        "{stderr}"
    );
}
