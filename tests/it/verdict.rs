//! One verdict: no red run looks green. Each hole of issue #25 is broken on purpose here — a
//! changed, missing or pending snapshot, an empty selection, a malformed expectations file on
//! the embedded target, a lane that errored under accepted findings — and every report (exit
//! code, count line, JSON summary, JUnit, Markdown) must show the same red.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use toolsearch_qa::error::Exit;
use toolsearch_qa::outcome::findings::Expectations;
use toolsearch_qa::outcome::Outcome;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::{run_suite, run_suite_on, ProviderSource, Quiet};
use toolsearch_qa::targets::EmbeddedTarget;

const REFERENCE: &str = "tool-search-gateway-e2e";

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A copy of the reference scenario's committed snapshots in a temp dir.
fn reference_snapshots() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let committed = Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    for entry in std::fs::read_dir(&committed).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with(&format!("{REFERENCE}__")) && name.ends_with(".snap") {
            std::fs::copy(&path, dir.path().join(&name)).unwrap();
        }
    }
    dir
}

fn snap(dir: &Path, lane: &str) -> PathBuf {
    dir.join(format!("{REFERENCE}__{lane}__provider.snap"))
}

/// One line of a committed snapshot edited, so this run's payload differs from it.
fn change(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let edited = text.replacen("\"model\": ", "\"model\": \"edited\", \"was\": ", 1);
    assert_ne!(text, edited, "{} has no model field", path.display());
    std::fs::write(path, edited).unwrap();
}

/// Runs the reference scenario against `snapshots`; stdout, the exit code, the JSON summary,
/// the JUnit XML and report.md.
fn run_reference(snapshots: &Path, extra: &[&str]) -> (String, Option<i32>, Value, String, String) {
    let out_dir = tempfile::tempdir().unwrap();
    let junit = out_dir.path().join("junit.xml");
    let reports = out_dir.path().join("reports");
    let out = bin()
        .args(["suite", "--scenario", REFERENCE])
        .args(extra)
        .arg("--snapshot-dir")
        .arg(snapshots)
        .arg("--junit")
        .arg(&junit)
        .arg("--report-dir")
        .arg(&reports)
        .output()
        .unwrap();
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
        serde_json::from_str(&read(reports.join("summary.json"))).unwrap(),
        read(junit),
        read(reports.join("report.md")),
    )
}

/// `failures="N"` of the JUnit root element.
fn junit_failures(xml: &str) -> String {
    let root = xml.lines().find(|l| l.starts_with("<testsuites")).unwrap();
    let at = root.find("failures=\"").unwrap() + "failures=\"".len();
    root[at..].split('"').next().unwrap().to_string()
}

#[test]
fn a_changed_snapshot_is_red_in_every_report() {
    let snapshots = reference_snapshots();
    change(&snap(snapshots.path(), "tools"));
    let (stdout, code, summary, junit, markdown) = run_reference(snapshots.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.ends_with("\n68 passed, 0 failed, 1 snapshot changed\n"),
        "{stdout}"
    );
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["outcome"], "failed");
    assert_eq!(summary["verdict"]["snapshots"]["changed"], 1);
    assert_eq!(summary["verdict"]["snapshots"]["same"], 20);
    assert_eq!(summary["scenarios"][0]["ok"], false);
    assert_eq!(junit_failures(&junit), "1", "{junit}");
    assert!(
        junit.contains(&format!(
            "name=\"snapshot {REFERENCE}__tools__provider\" classname=\"{REFERENCE}.snapshots\""
        )),
        "{junit}"
    );
    assert!(junit.contains("message=\"snapshot changed\""), "{junit}");
    assert!(
        markdown.contains("result: **FAIL** · 68 passed, 0 failed, 1 snapshot changed"),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("| {REFERENCE}__tools__provider | **changed** |")),
        "{markdown}"
    );
    assert!(
        markdown.contains(&format!("| {REFERENCE}__direct__provider | same |")),
        "{markdown}"
    );
}

#[test]
fn a_missing_snapshot_is_red_in_every_report() {
    let snapshots = reference_snapshots();
    std::fs::remove_file(snap(snapshots.path(), "code")).unwrap();
    let (stdout, code, summary, junit, markdown) = run_reference(snapshots.path(), &[]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.ends_with("\n68 passed, 0 failed, 1 snapshot missing\n"),
        "{stdout}"
    );
    assert_eq!(summary["verdict"]["snapshots"]["missing"], 1);
    assert_eq!(junit_failures(&junit), "1", "{junit}");
    assert!(markdown.contains("| **missing** |"), "{markdown}");
}

/// As insta: a run that writes `.snap.new` files waits for review and fails; a run where every
/// snapshot matches passes and writes nothing.
#[test]
fn update_snapshots_fails_while_a_snapshot_waits_for_review() {
    let snapshots = reference_snapshots();
    let (stdout, code, _, _, _) = run_reference(snapshots.path(), &["--update-snapshots"]);
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.ends_with("\n68 passed, 0 failed\n"), "{stdout}");
    let pending = |dir: &Path| {
        std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .ends_with(".snap.new")
            })
            .count()
    };
    assert_eq!(pending(snapshots.path()), 0);
    change(&snap(snapshots.path(), "directory"));
    std::fs::remove_file(snap(snapshots.path(), "direct")).unwrap();
    let (stdout, code, summary, junit, markdown) =
        run_reference(snapshots.path(), &["--update-snapshots"]);
    assert_eq!(code, Some(1), "{stdout}");
    assert!(
        stdout.ends_with("\n68 passed, 0 failed, 2 snapshots pending review\n"),
        "{stdout}"
    );
    assert_eq!(pending(snapshots.path()), 2);
    assert_eq!(summary["verdict"]["snapshots"]["pending"], 2);
    assert_eq!(junit_failures(&junit), "2", "{junit}");
    assert!(markdown.contains("**pending review**"), "{markdown}");
}

/// A typo in a CI filter, or more shards than scenarios, must not turn the gate off.
#[test]
fn an_empty_selection_is_a_usage_error() {
    let out = bin()
        .args(["suite", "--filter", "nomatch"])
        .output()
        .unwrap();
    let count = load_all(&[]).unwrap().len();
    assert_eq!(out.status.code(), Some(i32::from(Exit::USAGE)));
    assert_eq!(
        stderr_of(&out),
        format!(
            "error: no scenario id contains \"nomatch\" (--filter; {count} scenarios to choose \
             from): nothing would be checked\n"
        )
    );
    let shards = count + 1;
    let out = bin()
        .args(["suite", "--shard", &format!("{shards}/{shards}")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(i32::from(Exit::USAGE)));
    assert_eq!(
        stderr_of(&out),
        format!(
            "error: shard {shards}/{shards} is empty: {count} scenarios cannot fill {shards} \
             shards (use N <= {count}): nothing would be checked\n"
        )
    );
    assert!(out.stdout.is_empty());
}

/// A selection whose every claim is not applicable judged nothing: exit 2, as an empty selection
/// (issue #41: it was "0 passed, 0 failed, 1 not applicable", exit 0). Code mode is not in the
/// upstream profile, so F5's only lane cannot run under it; F5 with its own profile passes.
#[test]
fn a_run_whose_every_claim_is_not_applicable_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    let out = bin()
        .args(["suite", "--scenario", "fail-closed-f5-code-timeout"])
        .args(["--profile", "openclaw-upstream", "--report-dir"])
        .arg(&reports)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(i32::from(Exit::USAGE)), "{stdout}");
    assert!(
        stdout.ends_with(
            "0 passed, 0 failed, 1 not applicable, nothing judged (every claim not applicable)\n"
        ),
        "{stdout}"
    );
    assert_eq!(
        stderr_of(&out),
        "error: every claim of fail-closed-f5-code-timeout on embedded is not applicable (the \
         target cannot run it): nothing would be checked\n"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["outcome"], "empty");
    assert_eq!(summary["ok"], false);
    // The same scenario under its own profile judges something, and passes.
    let out = bin()
        .args(["suite", "--scenario", "fail-closed-f5-code-timeout"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
}

/// `--expectations FILE` is read and checked whatever the target: a malformed file is exit 2 on
/// the embedded gateway too, before anything runs.
#[test]
fn a_malformed_expectations_file_is_a_usage_error_on_the_embedded_target() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("broken.toml");
    std::fs::write(&file, "[[finding]]\nscenario = \"nope\"\n").unwrap();
    let out = bin()
        .args(["suite", "--scenario", REFERENCE, "--expectations"])
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(i32::from(Exit::USAGE)),
        "{}",
        stderr_of(&out)
    );
    assert!(
        stderr_of(&out).starts_with(&format!(
            "error: expectations file {}: line 1: ",
            file.display()
        )),
        "{}",
        stderr_of(&out)
    );
    assert!(out.stdout.is_empty());
}

const DIRECT_L1: &str = "[[finding]]\nscenario = \"tool-search-gateway-e2e\"\nlane = \"direct\"\n\
    claim = \"L1\"\ncheck = \"schemas up front\"\nexpected = \"x\"\nobserved = \"y\"\n\
    reason = \"r\"\n";

/// A lane that could not run leaves its accepted findings unjudged: the run is an
/// infrastructure error (exit 3), never "no longer reproduces: remove the entry".
#[tokio::test]
async fn findings_of_a_lane_that_errored_are_unjudged() {
    let known = load_all(&[]).unwrap();
    let scenarios = select(known.clone(), &[REFERENCE.into()]).unwrap();
    let expectations = Expectations::parse(DIRECT_L1, "e.toml", &known).unwrap();
    let dead = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let source = ProviderSource::Url(format!("http://127.0.0.1:{dead}/v1"));
    let mut report = run_suite_on(&EmbeddedTarget, &scenarios, &source, &Quiet)
        .await
        .unwrap();
    toolsearch_qa::suite::findings::record(&mut report, &expectations, &scenarios);
    let verdict = report.verdict();
    assert_eq!(
        (
            verdict.findings.stale,
            verdict.findings.unjudged,
            verdict.lane_errors
        ),
        (0, 1, 9)
    );
    assert_eq!(
        (verdict.outcome(), verdict.exit_code()),
        (Outcome::Errored, Exit::INFRA)
    );
    let table = report.to_table();
    assert!(table.contains("accepted findings not judged"), "{table}");
    assert!(!table.contains("remove the entry"), "{table}");
    assert!(
        table.ends_with(
            "0 passed, 0 failed, 1 accepted finding unjudged (its lane errored), 9 lanes errored\n"
        ),
        "{table}"
    );
    assert!(report.to_markdown().contains("**not judged**"));
    assert!(report.to_json().contains("\"unjudgedFindings\""));
}

/// The hole behind "a missing product snapshot passes": applying accepted findings after the
/// snapshot comparison recomputed `ok` from changed snapshots only. Now the findings are only
/// recorded and the verdict is computed from everything, in whichever order.
#[tokio::test]
async fn accepted_findings_never_hide_a_missing_snapshot() {
    let known = load_all(&[]).unwrap();
    let scenarios = select(known.clone(), &[REFERENCE.into()]).unwrap();
    let mut report = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let empty = tempfile::tempdir().unwrap();
    toolsearch_qa::suite::snapshot::record_all(
        &mut report,
        empty.path(),
        false,
        "toolsearch-qa suite --update-snapshots",
    )
    .unwrap();
    let none = Expectations::parse("", "e.toml", &known).unwrap();
    toolsearch_qa::suite::findings::record(&mut report, &none, &scenarios);
    let verdict = report.verdict();
    assert_eq!(verdict.snapshots.missing, 21);
    assert_eq!(verdict.outcome(), Outcome::Failed);
    let summary: Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(
        (summary["ok"].clone(), summary["scenarios"][0]["ok"].clone()),
        (false.into(), false.into())
    );
}

/// A node-backend test that cannot get its jail fails instead of passing: here with a node
/// that does not exist.
#[test]
fn a_missing_jail_fails_a_test_that_needs_it() {
    let nowhere = Some(PathBuf::from("/nonexistent/toolsearch-qa/node"));
    assert!(crate::common::node_jail_missing(nowhere.clone()).is_some());
    let required = std::panic::catch_unwind(|| crate::common::require_node_jail("t", nowhere));
    assert!(required.is_err(), "a missing jail passed");
}

/// Snapshots do not depend on `TMPDIR`: the reference run under another temp root compares
/// equal with the committed snapshots (the product profile carries `/tmp/...` paths of its
/// capture; the lanes' own dirs are below the new root).
#[test]
fn the_reference_run_matches_its_snapshots_under_another_tmpdir() {
    let root = tempfile::Builder::new()
        .prefix("tsqa-tmpdir-")
        .tempdir_in("/tmp")
        .unwrap();
    let out = bin()
        .args(["suite", "--scenario", REFERENCE])
        .env("TMPDIR", root.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}{}", stderr_of(&out));
    assert!(stdout.ends_with("\n68 passed, 0 failed\n"), "{stdout}");
}
