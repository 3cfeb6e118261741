//! Hostile and careless files and flags through the binary (issue #16): path traversal by ids,
//! sizes that used to crash, configs that used to start and then fail every turn, snapshot
//! gates that used to be skipped silently, output that used to panic. Each test is named after
//! the defect it pins down and asserts the exit code of the README's table.

use std::io::Read;
use std::path::Path;
use std::process::{Command as Std, Stdio};

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// A one-lane scenario, with `extra` lines added at the top level (before `[catalog]`) and
/// `catalog` lines in the catalogue table.
fn scenario(id: &str, extra: &str, catalog: &str, lane: &str) -> String {
    format!(
        "id = \"{id}\"\ntitle = \"t\"\nprompt = \"tool search qa check target=fake_plugin_tool_03\"\n\
         target_tool = \"fake_plugin_tool_03\"\n{extra}\n[catalog]\nplugin_id = \"p\"\nsize = 5\n\
         {catalog}\n[[lanes]]\nname = \"{lane}\"\ntool_search = {{ mode = \"tools\" }}\n"
    )
}

/// Runs the binary with `args`; (exit code, stdout, stderr).
fn run(args: &[&str], dir: Option<&Path>) -> (Option<i32>, String, String) {
    let mut command = bin();
    command.args(args);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let out = command.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `suite` on the one scenario file `text` in a fresh `--scenario-dir`, plus `args`.
fn suite_on(text: &str, args: &[&str]) -> (Option<i32>, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("scenarios")).unwrap();
    std::fs::write(dir.path().join("scenarios/s.toml"), text).unwrap();
    let scenarios = dir.path().join("scenarios");
    let mut all = vec!["suite", "--scenario-dir", scenarios.to_str().unwrap()];
    all.extend_from_slice(args);
    let (code, out, err) = run(&all, None);
    (code, out, err, dir)
}

/// Every file below `dir`, relative to it, sorted.
fn relative_files_below(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = crate::common::files_below(dir)
        .iter()
        .map(|path| path.strip_prefix(dir).unwrap().display().to_string())
        .collect();
    found.sort();
    found
}

#[test]
fn a_scenario_id_with_dot_dots_cannot_write_outside_the_snapshot_dir() {
    let text = scenario("../../X", "", "", "tools");
    let dir = tempfile::tempdir().unwrap();
    let snaps = dir.path().join("a/b/snapshots");
    std::fs::create_dir_all(&snaps).unwrap();
    let (code, _, err, scenarios) = suite_on(
        &text,
        &[
            "--update-snapshots",
            "--snapshot-dir",
            snaps.to_str().unwrap(),
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.toml:1:6: id: \"../../X\" cannot name files"),
        "{err}"
    );
    assert_eq!(relative_files_below(dir.path()), Vec::<String>::new());
    assert_eq!(relative_files_below(scenarios.path()), ["scenarios/s.toml"]);
}

#[test]
fn a_scenario_agent_with_dot_dots_cannot_write_session_logs_outside_the_state_dir() {
    let text = scenario("x", "agent = \"../../../../X\"", "", "tools");
    let (code, _, err, _) = suite_on(&text, &["--no-snapshots"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.toml:5:9: agent: \"../../../../X\" is not an agent id"),
        "{err}"
    );
}

#[test]
fn a_non_ascii_lane_name_is_a_scenario_error_not_an_infrastructure_error() {
    let text = scenario("x", "", "", "voilà");
    let (code, _, err, _) = suite_on(&text, &["--no-snapshots"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("s.toml:11:8: lane \"voilà\": name: \"voilà\" cannot name files"),
        "{err}"
    );
}

#[test]
fn an_invalid_plugin_id_is_a_scenario_error_on_every_target() {
    let text =
        scenario("x", "", "", "tools").replace("plugin_id = \"p\"", "plugin_id = \"My Plugin\"");
    let (code, _, err, _) = suite_on(&text, &["--no-snapshots"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("catalog.plugin_id: \"My Plugin\" is not a plugin id"),
        "{err}"
    );
}

#[test]
fn a_huge_catalogue_size_is_a_usage_error_not_a_panic_or_an_oom() {
    for size in ["18446744073709551615", "10000000"] {
        let text = scenario("x", "", "", "tools").replace("size = 5", &format!("size = {size}"));
        let (code, _, err, _) = suite_on(&text, &["--no-snapshots"]);
        assert_eq!(code, Some(2), "{size}: {err}");
        assert!(
            err.contains(&format!(
                "catalog.size: expected a whole number from 1 to 100,000, got {size}"
            )),
            "{err}"
        );
        let (code, _, err) = run(&["compare", "--sizes", size, "--modes", "tools"], None);
        assert_eq!(code, Some(2), "{size}: {err}");
        assert!(
            err.contains(&format!(
                "--sizes: expected a whole number from 1 to 100,000, got {size}"
            )),
            "{err}"
        );
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("gateway.json5");
        std::fs::write(
            &config,
            format!(
                r#"{{ models: {{ providers: {{ mock: {{ baseUrl: "http://127.0.0.1:9/v1" }} }} }},
                     catalog: {{ fakePlugin: {{ id: "p", size: {size} }} }} }}"#
            ),
        )
        .unwrap();
        let (code, _, err) = run(&["gateway", "--config", config.to_str().unwrap()], None);
        assert_eq!(code, Some(2), "{size}: {err}");
        assert!(err.contains("catalog.fakePlugin.size"), "{err}");
    }
}

/// Writes `text` as a gateway config and runs `gateway` on it; (code, stderr).
fn gateway_on(text: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gateway.json5");
    std::fs::write(&config, text).unwrap();
    let (code, _, err) = run(&["gateway", "--config", config.to_str().unwrap()], None);
    (code, err)
}

#[test]
fn a_json5_config_nested_100000_deep_is_a_config_error_not_a_stack_overflow() {
    let text = format!("{{ a: {}{} }}", "[".repeat(100_000), "]".repeat(100_000));
    let (code, err) = gateway_on(&text);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.ends_with("gateway.json5: line 1: nested deeper than 128 levels\n"),
        "{err}"
    );
}

#[test]
fn configs_that_started_and_failed_later_are_config_errors() {
    let provider = r#"models: { providers: { mock: { baseUrl: "http://127.0.0.1:9/v1" } } }"#;
    let cases = [
        (
            "{ tools: { toolSearch: true } }".to_string(),
            "models.providers: no provider to talk to",
        ),
        (
            r#"{ models: { providers: { mock: { baseUrl: "not a url" } } } }"#.to_string(),
            "models.providers.mock.baseUrl: \"not a url\" is not a URL",
        ),
        (
            format!(
                "{{ {provider}, catalog: {{ mcpServers: {{ x: {{ fixture: \"weather\" }} }} }} }}"
            ),
            // MCP servers are `mcp.servers.<name> = { command, … }` now (started by command, as
            // OpenClaw does); the old fixture-by-name key is refused at load.
            "unknown field `mcpServers`",
        ),
        (
            format!("{{ {provider}, agents: {{ list: [{{ id: \"../../../../X\" }}] }} }}"),
            "agents.list[0].id: \"../../../../X\" is not an agent id",
        ),
    ];
    for (text, want) in cases {
        let (code, err) = gateway_on(&text);
        assert_eq!(code, Some(2), "{text}: {err}");
        assert!(err.contains(want), "{text}: {err}");
    }
}

#[test]
fn a_missing_snapshot_dir_fails_instead_of_skipping_the_comparison() {
    let (code, _, err) = run(
        &[
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--snapshot-dir",
            "/nonexistent",
        ],
        None,
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("snapshot directory /nonexistent does not exist")
            && err.contains("--no-snapshots"),
        "{err}"
    );
}

/// Claims that hold on one `tools` lane (C5 needs a direct lane to compare with): the only
/// failure left is the missing snapshot.
const ONE_LANE_CLAIMS: &str = "[[claims]]\nid = \"C4\"\n[[claims]]\nid = \"C6\"\n";

#[test]
fn a_scenario_without_committed_snapshots_fails_with_the_command_that_writes_them() {
    // C6 needs the lane's counts to check (a lane without them fails C6).
    let no_snaps = scenario("no-snaps", ONE_LANE_CLAIMS, "", "tools")
        + "expect = { searches = 1, describes = 0, calls = 1 }\n";
    let snaps = tempfile::tempdir().unwrap();
    let dir = snaps.path().to_str().unwrap();
    let (code, out, err, home) = suite_on(&no_snaps, &["--snapshot-dir", dir]);
    assert_eq!(code, Some(1), "{out}{err}");
    let scenarios = home.path().join("scenarios");
    let scenarios = scenarios.to_str().unwrap();
    // Said once for the scenario (not once per snapshot), with a command that, pasted, runs it.
    let want = format!(
        "2 snapshots of no-snaps missing in {dir}:\n  write them for review: toolsearch-qa suite \
         --scenario-dir {scenarios} --scenario no-snaps --snapshot-dir {dir} --update-snapshots\n"
    );
    assert!(out.contains(&want), "{out}");
    assert_eq!(out.matches("toolsearch-qa suite").count(), 1, "{out}");
    let write = out
        .lines()
        .find_map(|l| l.strip_prefix("  write them for review: toolsearch-qa "))
        .unwrap();
    let write = shlex::split(write).unwrap();
    let (code, out, _) = run(&write.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert_eq!(code, Some(1), "{out}");
    assert_eq!(relative_files_below(snaps.path()).len(), 2, "{out}");
    // With --no-snapshots it passes: that is the only way to skip the gate.
    let (code, out, err, _) = suite_on(&no_snaps, &["--no-snapshots"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(!out.contains("FAIL"), "{out}");
}

/// The reference scenario's committed snapshots, copied into `dir/snapshots/`, the first one's
/// content changed; its name.
fn changed_reference_snapshots(dir: &Path) -> String {
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let copy = dir.join("snapshots");
    std::fs::create_dir(&copy).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&committed)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("tool-search-gateway-e2e__") && n.ends_with(".snap"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 21);
    for name in &names {
        std::fs::copy(committed.join(name), copy.join(name)).unwrap();
    }
    let first = copy.join(&names[0]);
    let text = std::fs::read_to_string(&first).unwrap() + "drift\n";
    std::fs::write(first, text).unwrap();
    names[0].trim_end_matches(".snap").to_string()
}

/// The default snapshot folder of the built-in scenarios is `snapshots/` of the working
/// directory, not a path baked in at build time: a binary copied elsewhere compares the files
/// of the checkout it runs in, and where there are none it says so (exit 2).
#[test]
fn the_default_snapshot_dir_is_the_working_directory_s_and_a_copied_binary_works() {
    let place = tempfile::tempdir().unwrap();
    let binary = place.path().join("toolsearch-qa");
    std::fs::copy(assert_cmd::cargo::cargo_bin("toolsearch-qa"), &binary).unwrap();
    let checkout = place.path().join("checkout");
    std::fs::create_dir(&checkout).unwrap();
    let changed = changed_reference_snapshots(&checkout);
    let suite = |cwd: &Path| {
        let out = Std::new(&binary)
            .args([
                "suite",
                "--scenario",
                "tool-search-gateway-e2e",
                "--format",
                "json",
            ])
            .current_dir(cwd)
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let statuses = |out: &str| -> Vec<(String, String)> {
        let json: Value = serde_json::from_str(out).unwrap();
        json["scenarios"][0]["snapshots"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["status"] != "same")
            .map(|s| {
                (
                    s["name"].as_str().unwrap().into(),
                    s["status"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    // In the copy's checkout: its (changed) snapshot is the one compared.
    let (code, out, err) = suite(&checkout);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(statuses(&out), [(changed, "changed".to_string())]);
    // In the project's root: the committed ones, all the same.
    let (code, out, err) = suite(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(statuses(&out), []);
    // Where there are none: exit 2, saying where it looked and what to do.
    let (code, _, err) = suite(place.path());
    assert_eq!(code, Some(2));
    assert_eq!(
        err,
        "error: no snapshots/ folder, where the built-in scenarios' snapshots are (data root: \
         built into the binary (the working directory has no data/releases/; --data-dir names a \
         checkout)): run from the project's root, pass --data-dir or --snapshot-dir DIR, or \
         --no-snapshots to skip the comparison\n"
    );
}

#[test]
fn a_failed_junit_write_still_writes_the_report_dir() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    // A directory where the file should go: nothing can write it.
    let junit = dir.path().join("taken");
    std::fs::create_dir(&junit).unwrap();
    let (code, _, err) = run(
        &[
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--no-snapshots",
            "--junit",
            junit.to_str().unwrap(),
            "--report-dir",
            reports.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(code, Some(3), "{err}");
    assert!(
        err.starts_with(&format!("error: cannot write {}", junit.display())),
        "{err}"
    );
    assert_eq!(
        relative_files_below(&reports),
        ["report.md", "summary.json"]
    );
}

#[test]
fn junit_creates_its_folder_as_the_report_dir_does_and_carries_the_lane_times() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, err) = run(
        &[
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--no-snapshots",
            "--junit",
            "a/b/junit.xml",
            "--report-dir",
            "a/c",
        ],
        Some(dir.path()),
    );
    assert_eq!(code, Some(0), "{err}");
    let xml = std::fs::read_to_string(dir.path().join("a/b/junit.xml")).unwrap();
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("a/c/summary.json")).unwrap(),
    )
    .unwrap();
    let millis = summary["scenarios"][0]["laneMillis"].as_object().unwrap();
    let seconds = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
    let total: u64 = millis.values().map(|m| m.as_u64().unwrap()).sum();
    // The report and the scenario's suite: the lanes' times added.
    let suite_times: Vec<&str> = xml
        .match_indices("<testsuite ")
        .map(|(i, _)| &xml[i..i + xml[i..].find('>').unwrap()])
        .collect();
    assert_eq!(suite_times.len(), 1, "{xml}");
    assert!(
        suite_times[0].contains(&format!("time=\"{}\"", seconds(total))),
        "{xml}"
    );
    assert!(
        xml.contains("<testsuites name=\"toolsearch-qa\" tests=\"68\"")
            && xml[..xml.find("<testsuite ").unwrap()]
                .contains(&format!("time=\"{}\"", seconds(total))),
        "{xml}"
    );
    // Every claim's case: its lane's time.
    for (lane, ms) in millis {
        let classname = format!("classname=\"tool-search-gateway-e2e.{lane}\"");
        let time = format!("time=\"{}\"/>", seconds(ms.as_u64().unwrap()));
        let cases: Vec<&str> = xml.lines().filter(|l| l.contains(&classname)).collect();
        assert!(!cases.is_empty(), "{lane}: {xml}");
        assert!(
            cases.iter().all(|c| c.ends_with(&time)),
            "{time}: {cases:?}"
        );
    }
}

#[test]
fn stdout_closed_early_ends_quietly_instead_of_panicking() {
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("toolsearch-qa"))
        .args(["quality", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}

#[test]
fn a_full_stdout_is_an_infrastructure_error_not_a_panic() {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Std::new(assert_cmd::cargo::cargo_bin("toolsearch-qa"))
        .args(["list"])
        .stdout(full)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert_eq!(
        stderr,
        "error: cannot write the output: No space left on device (os error 28)\n"
    );
}
