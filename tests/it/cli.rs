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
    assert_eq!(scenario["claims"].as_array().unwrap().len(), 68);
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
        .stdout(predicate::str::ends_with("68 passed, 0 failed\n"));
}

#[test]
fn unknown_scenario_is_a_usage_error() {
    bin()
        .args(["suite", "--scenario", "no-such-scenario"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "error: unknown scenario \"no-such-scenario\"; known: tool-search-gateway-e2e, code-mode-fail-closed, code-mode-gateway-e2e, code-mode-index-bound, fail-closed-f1-policy-denied",
        ));
}

#[test]
fn list_names_the_reference_scenario() {
    bin()
        .arg("list")
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "tool-search-gateway-e2e\tTool Search gateway end to end\tlanes: direct, tools, code, directory",
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
    let stderr = list_fails_on("broken.toml", "id = \"b\"\ntitle = \"t\"\nprompt = 3\n");
    assert!(
        stderr.contains("broken.toml") && stderr.contains("prompt"),
        "{stderr}"
    );
}

#[test]
fn a_scenario_file_dropped_in_a_dir_runs_through_the_binary() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("mine.toml"),
        r#"id = "my-approval-check"
title = "An author's own scenario"
prompt = "tool search qa check target=fake_plugin_tool_03"
target_tool = "fake_plugin_tool_03"

[catalog]
plugin_id = "my-plugin"
size = 5
core_tools = false
description_template = "Tool {n} of my plugin ({name})."

[[claims]]
id = "F3"
tool = "fake_plugin_tool_03"
error = "needs sign-off"

[[lanes]]
name = "tools"
tool_search = { mode = "tools" }
config = { tools = { approvals = [{ tool = "fake_plugin_tool_03", action = "deny", reason = "needs sign-off" }] } }
expect = { declared_tools = 3, provider_requests = 3, searches = 1, calls = 1, catalog_size = 5, tool_errors = 2 }
"#,
    )
    .unwrap();
    let out = bin()
        .args([
            "suite",
            "--scenario",
            "my-approval-check",
            "--format",
            "json",
            // A new scenario has no committed snapshots yet: without this it fails (exit 1).
            "--no-snapshots",
            "--scenario-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let claims: Vec<(String, bool)> = json["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["claim"].as_str().unwrap().to_string(), c["ok"] == true))
        .collect();
    assert_eq!(claims, [("F3".to_string(), true), ("T1".to_string(), true)]);
}

#[test]
fn scenario_validation_error_names_file_line_and_field() {
    let stderr = list_fails_on(
        "bad.toml",
        "id = \"b\"\ntitle = \"t\"\nprompt = \"p\"\ntarget_tool = \"fake_plugin_tool_01\"\n[catalog]\nplugin_id = \"p\"\nsize = 3\n\n[[claims]]\nid = \"F9\"\n\n[[lanes]]\nname = \"a\"\ntool_search = false\n",
    );
    assert!(
        stderr.contains("bad.toml:10:6: claims[0].id: unknown claim \"F9\"; expected one of C1"),
        "{stderr}"
    );
}

/// Runs `list` with one scenario file in a temp `--scenario-dir`; expects exit 2 and returns stderr.
fn list_fails_on(file: &str, text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file), text).unwrap();
    let out = bin()
        .args(["list", "--scenario-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    String::from_utf8(out.stderr).unwrap()
}

/// A file the user names that is not there is what the command was given: exit 2, one `error:`
/// line naming the file, on every command that reads one (issue #41: 3 for three of them).
#[test]
fn a_missing_input_file_is_a_usage_error_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.toml");
    let m = missing.display().to_string();
    let cases: [(Vec<&str>, String); 4] = [
        (
            vec![
                "suite",
                "--scenario",
                "fail-closed-f1-policy-denied",
                "--expectations",
                &m,
            ],
            format!("error: expectations file {m}: no such file\n"),
        ),
        (
            vec!["compare", "--price-file", &m],
            format!("error: price file {m}: no such file\n"),
        ),
        (
            vec!["provider", "--script", &m],
            format!("error: script {m}: no such file\n"),
        ),
        (
            vec!["gateway", "--config", &m],
            format!(
                "error: cannot read gateway config {m}: No such file or directory (os error 2)\n"
            ),
        ),
    ];
    for (args, want) in cases {
        let out = bin().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), want, "{args:?}");
    }
}

/// A scenario with a native lane and no `claims` list gets the native lanes' claims V1–V3 on it
/// (issue #41: only P1 ran there, silently).
#[test]
fn a_native_lane_gets_its_own_claims_by_default() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("native-defaults.toml"),
        "id = \"native-defaults\"\ntitle = \"t\"\n\
         prompt = \"tool search qa check target=fake_plugin_tool_03\"\n\
         target_tool = \"fake_plugin_tool_03\"\n\
         [catalog]\nplugin_id = \"my-plugin\"\nsize = 12\n\
         [[lanes]]\nname = \"direct\"\ntool_search = false\n\
         expect = { searches = 0, describes = 0, calls = 0 }\n\
         [[lanes]]\nname = \"native\"\nnative = { provider = \"openai\", search = \"server\" }\n",
    )
    .unwrap();
    let out = bin()
        .args([
            "suite",
            "--no-snapshots",
            "--format",
            "json",
            "--scenario-dir",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let on_native: Vec<&str> = report["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["lane"] == "native")
        .map(|c| c["claim"].as_str().unwrap())
        .collect();
    assert_eq!(on_native, ["P1", "V1", "V2", "V3"]);
}

/// `check` says what would fail whatever the gateway does: a lane C6 judges without the counts
/// it needs (issue #41: it passed `check` and failed at run time, "searches = 0 is unchecked").
#[test]
fn check_says_a_lane_lacks_the_counts_c6_needs() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("counts.toml");
    let scenario = |expect: &str| {
        format!(
            "id = \"counts\"\ntitle = \"t\"\n\
             prompt = \"tool search qa check target=fake_plugin_tool_03\"\n\
             target_tool = \"fake_plugin_tool_03\"\n\
             [catalog]\nplugin_id = \"my-plugin\"\nsize = 12\n\
             [[lanes]]\nname = \"direct\"\ntool_search = false\n{expect}"
        )
    };
    std::fs::write(&file, scenario("expect = { searches = 0 }\n")).unwrap();
    let out = bin().arg("check").arg(&file).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: {}:11:10: lane \"direct\": expect: C6 judges this lane and needs the session \
             log's counts, but `expect` does not set describes, calls: the run would fail \
             (\"describes = 0 is unchecked\"); set them, or list `claims` without C6\n",
            file.display()
        )
    );
    std::fs::write(
        &file,
        scenario("expect = { searches = 0, describes = 0, calls = 0 }\n"),
    )
    .unwrap();
    let out = bin().arg("check").arg(&file).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
}

/// `new-scenario --help` says how many commands it prints, and the file's first comment names
/// the file with its directory (issue #41: "two commands" for six, and a bare file name).
#[test]
fn new_scenario_says_what_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .current_dir(dir.path())
        .args(["new-scenario", "my-check", "--dir", "sub/dir"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let commands = stdout
        .lines()
        .filter(|l| l.starts_with("  toolsearch-qa "))
        .count();
    let help = bin().args(["new-scenario", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let words = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
    ];
    assert!(
        help.contains(&format!(
            "Prints the {} commands that follow",
            words[commands]
        )),
        "{commands} commands printed; help: {help}"
    );
    let text = std::fs::read_to_string(dir.path().join("sub/dir/my-check.toml")).unwrap();
    assert!(
        text.contains("# `toolsearch-qa check sub/dir/my-check.toml`"),
        "{}",
        &text[..300]
    );
}

/// A copied or renamed binary still serves the MCP fixtures its gateways start: it does not find
/// itself by its file name (a copy named otherwise used to fail every MCP lane, exit 3).
#[test]
fn a_renamed_binary_serves_its_own_mcp_fixtures() {
    let dir = tempfile::tempdir().unwrap();
    let renamed = dir.path().join("tsq-renamed");
    std::fs::copy(env!("CARGO_BIN_EXE_toolsearch-qa"), &renamed).unwrap();
    let out = std::process::Command::new(&renamed)
        .env_remove("TOOLSEARCH_QA_BIN")
        .args([
            "suite",
            "--scenario",
            "tool-search-mcp-target",
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
    assert_eq!(json["scenarios"][0]["scenario"], "tool-search-mcp-target");
}
