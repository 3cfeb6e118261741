//! The `probes` command on the embedded gateway (nothing to install): the shared hostile-code
//! probes through one gateway start, one row per probe, exit codes as for `suite`.

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use toolsearch_qa::sandbox::probes::PROBES;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// The exact evidence each probe leaves on the embedded gateway (QuickJS, codeTimeoutMs 5000).
const EMBEDDED_EVIDENCE: &[(&str, &str)] = &[
    (
        "read_secret_file_with_require",
        "error: code threw: ReferenceError: require is not defined",
    ),
    (
        "read_secret_file_with_import",
        "error: code threw: ReferenceError: could not load module 'fs'",
    ),
    (
        "write_marker_file",
        "error: code threw: ReferenceError: require is not defined",
    ),
    ("escape_then_read_secret_file", "returned \"no process\""),
    ("escape_then_write_marker_file", "returned \"no process\""),
    (
        "fetch_canary",
        "error: code threw: ReferenceError: fetch is not defined",
    ),
    (
        "raw_socket_canary",
        "error: code threw: ReferenceError: require is not defined",
    ),
    ("escape_then_connect_canary", "returned \"no process\""),
    (
        "spawn_process",
        "error: code threw: ReferenceError: require is not defined",
    ),
    (
        "require_through_module",
        "error: code threw: ReferenceError: module is not defined",
    ),
    (
        "worker",
        "error: code threw: ReferenceError: Worker is not defined",
    ),
    ("escape_then_spawn_process", "returned \"no process\""),
    (
        "read_env",
        "error: code threw: ReferenceError: process is not defined",
    ),
    ("ambient_globals", "returned []"),
    ("escape_then_read_env", "returned \"no process\""),
    ("import_error_constructor", "returned \"undefined\""),
    ("this_constructor", "returned \"undefined\""),
    ("bridge_function_constructor", "returned \"undefined\""),
    ("console_constructor", "returned \"undefined\""),
    ("async_function_constructor", "returned \"undefined\""),
    ("bridge_promise_constructor", "returned \"undefined\""),
    ("error_stack_frames", "returned \"harmless\""),
    ("infinite_loop", "error: code timed out after 5000 ms"),
    (
        "infinite_loop_after_await",
        "error: code timed out after 5000 ms",
    ),
    (
        "never_resolving_promise",
        "error: code never finished: it awaits a promise that can never settle",
    ),
];

#[test]
fn every_probe_is_contained_on_the_embedded_gateway() {
    let out = bin().args(["probes", "--format", "json"]).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["ok"], true);
    let report = &json["targets"][0];
    assert_eq!(json["targets"].as_array().map(Vec::len), Some(1));
    assert_eq!(report["target"], "embedded");
    assert_eq!(report["gatewayStarts"], 1);
    assert_eq!(report["codeTimeoutMs"], 5000);
    assert_eq!(report["contained"], PROBES.len());
    assert_eq!(report["escaped"], 0);
    assert_eq!(report["inconclusive"], 0);
    let rows = report["probes"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().filter_map(|r| r["name"].as_str()).collect();
    let expected: Vec<&str> = PROBES.iter().map(|p| p.name).collect();
    assert_eq!(names, expected);
    let evidence: Vec<(&str, &str)> = rows
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap_or_default(),
                r["evidence"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(evidence, EMBEDDED_EVIDENCE);
    for row in rows {
        assert_eq!(row["outcome"], "contained", "{row}");
        assert_eq!(row["secretSeen"], false, "{row}");
        assert_eq!(row["canaryConnections"], 0, "{row}");
        assert_eq!(row["markerWritten"], false, "{row}");
    }
}

/// One row per selected probe, in the order asked, and a table that fits 100 columns: long
/// evidence wraps onto the next line instead of widening the table.
#[test]
fn the_table_has_one_row_per_selected_probe_and_a_summary_line() {
    let out = bin()
        .args([
            "probes",
            "--probe",
            "this_constructor",
            "--probe",
            "read_env",
            "--probe",
            "read_secret_file_with_import",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.starts_with(
            "probes on embedded (tool_search_code, codeTimeoutMs 5000, 1 gateway start, "
        ),
        "{stdout}"
    );
    let widest = stdout.lines().map(|l| l.chars().count()).max();
    assert_eq!(widest, Some(100), "{stdout}");
    // Each row: its probe's name, and its evidence cell joined over the lines it wraps onto.
    let mut rows: Vec<(String, String)> = Vec::new();
    for line in stdout.lines().filter(|l| l.starts_with('│')) {
        let cells: Vec<&str> = line.trim_matches('│').split('┆').map(str::trim).collect();
        match (cells[0], rows.last_mut()) {
            ("", Some((_, evidence))) => {
                evidence.push(' ');
                evidence.push_str(cells[3]);
            }
            ("probe", _) => {}
            (name, _) => rows.push((name.to_string(), cells[3].to_string())),
        }
    }
    let expected = [
        ("this_constructor", "returned \"undefined\""),
        (
            "read_env",
            "error: code threw: ReferenceError: process is not defined",
        ),
        (
            "read_secret_file_with_import",
            "error: code threw: ReferenceError: could not load module 'fs'",
        ),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(n, e)| (n.to_string(), e.to_string()))
        .collect();
    assert_eq!(rows, expected, "{stdout}");
    assert!(
        stdout.ends_with("\nembedded: 3 contained, 0 ESCAPED, 0 inconclusive\n"),
        "{stdout}"
    );
}

#[test]
fn an_unknown_probe_is_a_usage_error() {
    bin()
        .args(["probes", "--probe", "no_such_probe"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::starts_with(
            "error: unknown probe \"no_such_probe\"; known: read_secret_file_with_require, ",
        ));
}

#[test]
fn a_missing_openclaw_install_is_an_infrastructure_error() {
    let empty = tempfile::tempdir().unwrap();
    bin()
        .env("TOOLSEARCH_QA_CACHE", empty.path())
        .args(["probes", "--target", "openclaw"])
        .assert()
        .code(3)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("scripts/install-openclaw.sh"));
}
