//! The binary as a CI gate: JUnit XML, the report dir, shards, and exit codes 1, 2 and 3.

use std::path::Path;

use assert_cmd::Command;
use quick_xml::events::Event;
use quick_xml::Reader;
use serde_json::Value;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

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
    // The readable report on stdout keeps to 100 columns, its scenario heading included.
    let stdout = String::from_utf8_lossy(&out.stdout);
    let widest = stdout.lines().map(|l| l.chars().count()).max();
    assert!(
        widest <= Some(100),
        "a line of {widest:?} columns:\n{stdout}"
    );
    assert!(
        stdout.starts_with(&format!(
            "scenario {REFERENCE}\n  target embedded, profile "
        )),
        "{stdout}"
    );
    let (snapshot_cases, cases): (Vec<_>, Vec<_>) =
        junit_cases(&std::fs::read_to_string(&junit).unwrap())
            .into_iter()
            .partition(|c| c.1 == format!("{REFERENCE}.snapshots"));
    // One passing case per snapshot compared (nine lanes, provider and session each, and the
    // non-model views of the three lanes I1 and E1 are named on).
    assert_eq!(snapshot_cases.len(), 21, "{snapshot_cases:?}");
    assert!(
        snapshot_cases.iter().all(|c| c.2.is_none()),
        "{snapshot_cases:?}"
    );
    let written = std::fs::read_to_string(reports.join("summary.json")).unwrap();
    assert_reads_back_byte_for_byte(&written);
    let summary: Value = serde_json::from_str(&written).unwrap();
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
    assert_eq!(cases.len(), 68);
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
            per_lane("directory"),
            per_lane("batch"),
            per_lane("native-openai"),
            per_lane("native-anthropic-regex")
        ),
        // A native lane: V1, V2, V3, P1 and T1.
        (9, 10, 9, 9, 11, 5, 5)
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
            t.replace("declared_tools = 79", "declared_tools = 80")
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
    assert!(String::from_utf8_lossy(&out.stdout).ends_with("67 passed, 1 failed\n"));
    let cases = junit_cases(&std::fs::read_to_string(&junit).unwrap());
    let failed: Vec<_> = cases.iter().filter(|c| c.2.is_some()).collect();
    assert_eq!(failed.len(), 1, "{cases:?}");
    assert_eq!(failed[0].1, "wrong-expect.direct");
    assert!(failed[0].0.starts_with("T1 direct"), "{:?}", failed[0]);
    assert_eq!(
        failed[0].2.as_deref(),
        Some("expected declared_tools = 80; got declared_tools = 79")
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
            "--with-builtins",
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
    let first = shard_ids(dir.path(), "1/2");
    let second = shard_ids(dir.path(), "2/2");
    // Each shard keeps the run's order; together they are the run, each scenario once.
    let in_order = |shard: &[String]| {
        all.iter()
            .filter(|id| shard.contains(id))
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(first, in_order(&first));
    assert_eq!(second, in_order(&second));
    let mut both = [first.clone(), second].concat();
    both.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(both, sorted);
    // The expected-time model (data/expected-times.toml) puts the 1 s code timeout, the short
    // fail-closed scenarios, the Code Mode index bound, the ranking, the MCP target and six upstream
    // scenarios in the first shard: together about half the run on the embedded gateway. The same
    // split every time.
    assert_eq!(
        first,
        [
            "code-mode-fail-closed",
            "code-mode-index-bound",
            "fail-closed-f2-withdrawn",
            "fail-closed-f4-sandbox-unavailable",
            "fail-closed-f5-code-timeout",
            "tool-search-mcp-target",
            "tool-search-ranking",
            "upstream-code-stderr-flood",
            "upstream-entry-point-tools",
            "upstream-product-words",
            "upstream-prompt-hook-tools-allow",
            "upstream-search-no-match"
        ]
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
    // One line per lane; every lane still appears in the report on stdout.
    assert_eq!(stderr.lines().count(), 9, "{stderr}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    for lane in crate::common::REFERENCE_LANES {
        assert!(stdout.contains(&format!("ERROR lane {lane}: ")), "{stdout}");
    }
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
        stderr_of(&out).starts_with(&format!(
            "error: scenario {REFERENCE} lane direct: cannot create a temp dir: "
        )),
        "{}",
        stderr_of(&out)
    );
}

/// `--target both` writes every format for both targets: one side-by-side table per scenario
/// that fits 100 columns, the count line over both, JUnit suites and a summary for each target.
/// (The second report is the same embedded run labelled as the other target: what is checked
/// here is the rendering, not the product.)
#[tokio::test]
async fn both_targets_side_by_side_fit_the_terminal_and_every_report_file_covers_both() {
    use toolsearch_qa::report::both::side_by_side;
    use toolsearch_qa::report::write_reports;
    use toolsearch_qa::targets::TargetKind;
    let scenarios = select(load_all(&[]).unwrap(), &[REFERENCE.into()]).unwrap();
    let embedded = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let mut other = embedded.clone();
    other.target = TargetKind::Openclaw;
    let reports = [embedded, other];
    let text = side_by_side(&reports);
    let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
    assert!(widest <= 100, "a line of {widest} columns:\n{text}");
    assert!(text.ends_with("136 passed, 0 failed\n"), "{text}");
    // The direct lane's claims, all passing (the cell wraps, the long native lane names making
    // the lane column wider: they are never cut, issue #41).
    let claims = text
        .find("C1 C3 C6 D1 N1 E1")
        .unwrap_or_else(|| panic!("the direct lane's claims:\n{text}"));
    let next_line = text[claims..].lines().nth(1).unwrap();
    assert!(next_line.contains(" L1 P1 T1 pass "), "{text}");
    assert!(text.contains("│ native-anthropic-regex "), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("junit.xml");
    let report_dir = dir.path().join("reports");
    write_reports(&reports, Some(&junit), Some(&report_dir)).unwrap();
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(
        xml.contains(&format!("name=\"embedded/{REFERENCE}\"")),
        "{xml}"
    );
    assert!(
        xml.contains(&format!("name=\"openclaw/{REFERENCE}\"")),
        "{xml}"
    );
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(report_dir.join("summary.json")).unwrap())
            .unwrap();
    assert_eq!(summary["ok"], true);
    assert_eq!(summary["targets"]["openclaw"]["target"], "openclaw");
    assert_eq!(
        summary["targets"]["embedded"]["scenarios"][0]["claims"]
            .as_array()
            .unwrap()
            .len(),
        68
    );
    let markdown = std::fs::read_to_string(report_dir.join("report.md")).unwrap();
    assert_eq!(markdown.matches("# toolsearch-qa report").count(), 2);
}

/// The gate catches a product whose target tool breaks: the same scenario with
/// `catalog.broken = [target]` fails C1 and C2 on every lane (exit 1), and says why.
#[test]
fn a_product_with_a_broken_target_tool_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.toml"),
        scenario_copy("broken-target", |t| {
            t.replace(
                "core_tools = true",
                "core_tools = true\nbroken = [\"fake_plugin_tool_17\"]",
            )
        }),
    )
    .unwrap();
    let out = bin()
        .args([
            "suite",
            "--scenario",
            "broken-target",
            "--no-snapshots",
            "--format",
            "json",
        ])
        .args(["--scenario-dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr_of(&out));
    let summary: Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<(String, String)> = summary["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| {
            (
                c["claim"].as_str().unwrap().to_string(),
                c["lane"].as_str().unwrap().to_string(),
            )
        })
        .filter(|(claim, _)| claim == "C1" || claim == "C2")
        .collect();
    assert_eq!(
        failed,
        [
            ("C1", "direct"),
            ("C2", "tools"),
            ("C2", "code"),
            ("C2", "directory"),
            ("C2", "batch")
        ]
        .map(|(c, l)| (c.to_string(), l.to_string()))
    );
}

/// `summary.json` read back as the typed outcome ([`SummaryFile`]) and written out again is the
/// same file, byte for byte: the one schema goes both ways, and nothing is lost on the way.
fn assert_reads_back_byte_for_byte(written: &str) {
    use toolsearch_qa::outcome::summary::SummaryFile;
    let typed = SummaryFile::parse(written).expect("summary.json reads as the typed outcome");
    assert_eq!(typed.to_json() + "\n", written);
    let again = SummaryFile::of(&typed.into_reports()).to_json() + "\n";
    assert_eq!(again, written, "the reports it holds render the same file");
}

/// Every shape the suite and `report merge` write — one target, several targets side by side,
/// several runs of one target — reads back as the typed outcome and writes out byte for byte.
#[tokio::test]
async fn every_shape_of_summary_json_reads_back_and_writes_out_byte_for_byte() {
    use toolsearch_qa::report::write_reports;
    use toolsearch_qa::targets::{Product, TargetKind};
    let scenarios = select(load_all(&[]).unwrap(), &[REFERENCE.into()]).unwrap();
    let embedded = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let mut product = embedded.clone();
    product.target = TargetKind::Openclaw;
    product.product = Some(Product {
        version: "2026.9.6".into(),
        node: "v24.16.0".into(),
        seeded: None,
        build: None,
    });
    let mut older = product.clone();
    older.product = Some(Product {
        version: "2026.9.5".into(),
        node: "v24.16.0".into(),
        seeded: None,
        build: None,
    });
    for (shape, reports) in [
        ("one", vec![embedded.clone()]),
        ("targets", vec![embedded, product.clone()]),
        ("runs", vec![product, older]),
    ] {
        let dir = tempfile::tempdir().unwrap();
        write_reports(&reports, None, Some(dir.path())).unwrap();
        let written = std::fs::read_to_string(dir.path().join("summary.json")).unwrap();
        assert!(
            shape == "one" || written.contains(&format!("\"{shape}\": ")),
            "{shape}: {written}"
        );
        assert_reads_back_byte_for_byte(&written);
    }
}
