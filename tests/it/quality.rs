//! `toolsearch-qa quality` through the binary: the committed baseline is what a run prints, and
//! the gate fails (exit 1, one `regression:` line) against a baseline better than the build.

use assert_cmd::Command;
use serde_json::{json, Value};

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

fn committed_baseline() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/search-quality-baseline.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn json_report_is_the_committed_baseline_and_passes() {
    let out = bin()
        .args(["quality", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report, committed_baseline());
    assert_eq!(report["exactNameRecall"], json!(1.0));
    assert_eq!(report["exactNameMisses"], json!([]));
}

#[test]
fn table_shows_each_figure_next_to_the_baseline() {
    let base = committed_baseline();
    let (queries, at1, at5) = (&base["queries"], &base["hitsAt1"], &base["hitsAt5"]);
    let out = bin().arg("quality").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let row = |name: &str| {
        stdout
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no {name} row in:\n{stdout}"))
            .split('┆')
            .map(|cell| cell.trim_matches(|c: char| c == '│' || c.is_whitespace()))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row("recall@5"),
        vec![
            "recall@5".to_string(),
            format!(
                "{:.4} ({at5}/{queries})",
                base["recallAt5"].as_f64().unwrap()
            ),
            format!("{at5}/{queries}"),
        ]
    );
    assert_eq!(row("recall@1")[2], format!("{at1}/{queries}"));
    assert_eq!(
        row("MRR@20")[1],
        format!("{:.4}", base["mrr"].as_f64().unwrap())
    );
    let misses = base["misses"].as_array().unwrap().len();
    assert!(
        stdout.contains(&format!("\n{misses} queries not ranked first\n")),
        "{stdout}"
    );
}

#[test]
fn a_baseline_one_hit_better_than_the_build_fails_the_gate() {
    let base = committed_baseline();
    let queries = base["queries"].as_u64().unwrap();
    let at5 = base["hitsAt5"].as_u64().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let better = dir.path().join("better.json");
    let text = json!({ "queries": queries, "hitsAt1": 0, "hitsAt5": at5 + 1, "mrr": 0.0 });
    std::fs::write(&better, text.to_string()).unwrap();
    let out = bin()
        .args(["quality", "--format", "json", "--baseline"])
        .arg(&better)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "regression: recall@5 fell to {at5}/{queries} from the baseline's {}/{queries}\n",
            at5 + 1
        )
    );
    // The report is still printed, so CI logs show what got worse.
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["hitsAt5"], json!(at5));
}

#[test]
fn an_unreadable_baseline_is_a_usage_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let out = bin()
        .args(["quality", "--baseline"])
        .arg(&missing)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("error: --baseline {}: ", missing.display())),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"hitsAt5": 3}"#).unwrap();
    let out = bin()
        .args(["quality", "--baseline"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: --baseline {}: search-quality baseline: missing field `queries` at line 1 column 14\n",
            bad.display()
        )
    );
}
