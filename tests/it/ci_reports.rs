//! The binary as a CI gate: JUnit XML, the report dir, shards, and exit codes 1, 2 and 3.

use std::path::Path;

use assert_cmd::Command;
use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::Value;

const REFERENCE: &str = "tool-search-gateway-e2e";

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// The reference scenario's text under a new id, with `edit` applied.
fn scenario_copy(id: &str, edit: impl Fn(String) -> String) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/tool-search-gateway-e2e.toml");
    let text = std::fs::read_to_string(path).unwrap();
    edit(text.replace(&format!("id = \"{REFERENCE}\""), &format!("id = \"{id}\"")))
}

fn stderr_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `(name, classname, failure message)` of every test case; panics when the XML is not well-formed.
fn junit_cases(xml: &str) -> Vec<(String, String, Option<String>)> {
    let mut reader = Reader::from_str(xml);
    let mut cases = Vec::new();
    loop {
        match reader.read_event().expect("well-formed JUnit XML") {
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"testcase" => {
                let attr = |key: &[u8]| {
                    e.try_get_attribute(key)
                        .unwrap()
                        .map(|a| {
                            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                                .unwrap()
                                .into_owned()
                        })
                        .unwrap_or_default()
                };
                cases.push((attr(b"name"), attr(b"classname"), None));
            }
            Event::Start(e) | Event::Empty(e) if e.name().as_ref() == b"failure" => {
                let message = e.try_get_attribute("message").unwrap().map(|a| {
                    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .into_owned()
                });
                if let Some(last) = cases.last_mut() {
                    last.2 = message;
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    cases
}

#[test]
fn junit_has_one_case_per_scenario_lane_and_claim_and_the_report_dir_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let reports = dir.path().join("reports");
    let out = bin()
        .args(["suite", "--scenario", REFERENCE, "--junit"])
        .arg(&junit)
        .arg("--report-dir")
        .arg(&reports)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let cases = junit_cases(&std::fs::read_to_string(&junit).unwrap());
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("summary.json")).unwrap())
            .unwrap();
    let claims = summary["scenarios"][0]["claims"].as_array().unwrap();
    let from_summary: Vec<(String, String, Option<String>)> = claims
        .iter()
        .map(|c| {
            (
                format!(
                    "{} {} ({})",
                    c["claim"].as_str().unwrap(),
                    c["lane"].as_str().unwrap(),
                    c["title"].as_str().unwrap()
                ),
                format!("{REFERENCE}.{}", c["lane"].as_str().unwrap()),
                None,
            )
        })
        .collect();
    assert_eq!(cases, from_summary);
    assert_eq!(cases.len(), 27);
    let per_lane = |lane: &str| {
        cases
            .iter()
            .filter(|c| c.1 == format!("{REFERENCE}.{lane}"))
            .count()
    };
    assert_eq!(
        (
            per_lane("direct"),
            per_lane("tools"),
            per_lane("code"),
            per_lane("directory")
        ),
        (6, 7, 7, 7)
    );
    let markdown = std::fs::read_to_string(reports.join("report.md")).unwrap();
    assert!(markdown.contains(REFERENCE), "{markdown}");
}

#[test]
fn a_wrong_expectation_fails_with_exit_1_and_junit_carries_expected_and_actual() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("wrong.toml"),
        scenario_copy("wrong-expect", |t| {
            t.replace("declared_tools = 43", "declared_tools = 44")
        }),
    )
    .unwrap();
    let junit = dir.path().join("junit.xml");
    let out = bin()
        .args([
            "suite",
            "--scenario",
            "wrong-expect",
            "--no-snapshots",
            "--scenario-dir",
        ])
        .arg(dir.path())
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("26 passed, 1 failed\n"));
    let cases = junit_cases(&std::fs::read_to_string(&junit).unwrap());
    let failed: Vec<_> = cases.iter().filter(|c| c.2.is_some()).collect();
    assert_eq!(failed.len(), 1, "{cases:?}");
    assert_eq!(failed[0].1, "wrong-expect.direct");
    assert!(failed[0].0.starts_with("T1 direct"), "{:?}", failed[0]);
    assert_eq!(
        failed[0].2.as_deref(),
        Some("expected declared tools = 44; got declared tools = 43")
    );
}

/// Scenario ids of one shard's JSON summary.
fn shard_ids(dir: &Path, shard: &str) -> Vec<String> {
    let out = bin()
        .args([
            "suite",
            "--no-snapshots",
            "--format",
            "json",
            "--shard",
            shard,
            "--scenario-dir",
        ])
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr_of(&out));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    json["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["scenario"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn shards_split_deterministically_and_completely() {
    let dir = tempfile::tempdir().unwrap();
    for id in ["a-copy", "m-copy", "z-copy"] {
        std::fs::write(
            dir.path().join(format!("{id}.toml")),
            scenario_copy(id, |t| t),
        )
        .unwrap();
    }
    let all = shard_ids(dir.path(), "1/1");
    let built_in = toolsearch_qa::scenario::load_all(&[]).unwrap().len();
    assert_eq!(all.len(), built_in + 3);
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(all, sorted, "a shard lists scenarios sorted by id");
    let first = shard_ids(dir.path(), "1/2");
    let second = shard_ids(dir.path(), "2/2");
    assert_eq!(first, all.iter().step_by(2).cloned().collect::<Vec<_>>());
    assert_eq!(
        second,
        all.iter().skip(1).step_by(2).cloned().collect::<Vec<_>>()
    );
    assert_eq!(shard_ids(dir.path(), "1/2"), first);
}

#[test]
fn usage_errors_exit_2() {
    let out = bin().args(["suite", "--shard", "3/2"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_of(&out).contains("must have 1 <= K <= N"),
        "{}",
        stderr_of(&out)
    );
    let out = bin().args(["suite", "--format", "yaml"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_provider_that_is_not_there_exits_3_with_one_line() {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let out = bin()
        .args(["suite", "--scenario", REFERENCE, "--provider-url"])
        .arg(format!("http://127.0.0.1:{port}/v1"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    let stderr = stderr_of(&out);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: scenario {REFERENCE} lane direct: the gateway answered HTTP 502: provider request to http://127.0.0.1:{port}/v1/responses failed"
        )),
        "{stderr}"
    );
}

#[test]
fn a_gateway_that_cannot_start_exits_3() {
    let out = bin()
        .args(["suite", "--scenario", REFERENCE])
        .env("TMPDIR", "/nonexistent/toolsearch-qa")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3), "{}", stderr_of(&out));
    assert!(
        stderr_of(&out).starts_with("error: cannot create a temp dir: "),
        "{}",
        stderr_of(&out)
    );
}
