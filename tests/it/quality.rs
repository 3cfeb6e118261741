//! `toolsearch-qa quality` through the binary: the committed baselines are what a run prints,
//! the gate fails (exit 1, one `regression:` line) against a baseline better than the build,
//! users' own sets and catalogues are measured, and the hybrid ranker without its model is a
//! usage error naming the install command.
//!
//! The hybrid tests need the model (`bash scripts/install-model.sh`), the BFCL tests the data
//! (`bash scripts/install-bfcl.sh`): they are `#[ignore]`d with that reason, so a plain
//! `cargo test` lists them as not run; run with `--ignored` (CI: `--run-ignored all`) a missing
//! install fails them.

use assert_cmd::Command;
use serde_json::{json, Value};
use toolsearch_qa::engine::embed::model_installed;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

fn committed(file: &str) -> Value {
    let path = format!("{}/data/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Fails `test` (an `#[ignore]`d one, asked for) when the model is not installed, naming the
/// install command.
pub fn hybrid_model(test: &str) {
    assert!(
        model_installed(),
        "{test}: the all-MiniLM-L6-v2 model is not installed: run bash scripts/install-model.sh"
    );
}

fn run_json(args: &[&str]) -> Value {
    let out = bin().args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn lexical_json_report_is_the_committed_baseline_and_passes() {
    let report = run_json(&["quality", "--format", "json"]);
    assert_eq!(report, committed("search-quality-baseline.json"));
    assert_eq!(report["ranker"], "lexical");
    assert_eq!(report["exactNameRecall"], json!(1.0));
    assert_eq!(report["exactNameMisses"], json!([]));
    let (tuning, test) = (&report["tuning"]["queries"], &report["test"]["queries"]);
    assert_eq!(
        tuning.as_u64().unwrap() + test.as_u64().unwrap(),
        report["queries"].as_u64().unwrap()
    );
    assert!(report["queries"].as_u64().unwrap() >= 300);
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model (bash scripts/install-model.sh)"]
fn hybrid_json_report_is_the_committed_baseline_and_beats_lexical() {
    hybrid_model("hybrid_json_report_is_the_committed_baseline_and_beats_lexical");
    let report = run_json(&["quality", "--ranker", "hybrid", "--format", "json"]);
    assert_eq!(report, committed("search-quality-baseline-hybrid.json"));
    assert_eq!(report["ranker"], "hybrid");
    assert_eq!(report["exactNameRecall"], json!(1.0));
    // On both halves, and on the test half above all (never tuned on), the hybrid ranker
    // finds more right tools than the lexical one, first and in the top five.
    let lexical = committed("search-quality-baseline.json");
    for half in ["tuning", "test"] {
        for key in ["hitsAt1", "hitsAt5"] {
            assert!(
                report[half][key].as_u64() > lexical[half][key].as_u64(),
                "{half} {key}: hybrid {} vs lexical {}",
                report[half][key],
                lexical[half][key]
            );
        }
    }
}

/// `--tune` measures the grid on the tuning half only and prints its ceiling: each tuning query
/// at its best point. The ceiling bounds every point, and with the committed model it is the
/// figure docs/search-quality.md cites (recall@5 197/211 = 0.9336 < the 0.95 target: no fusion
/// weight of these two rankings reaches it).
#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model (bash scripts/install-model.sh)"]
fn tune_prints_the_grid_and_its_ceiling_on_the_tuning_half() {
    hybrid_model("tune_prints_the_grid_and_its_ceiling_on_the_tuning_half");
    let tuning = run_json(&[
        "quality", "--ranker", "hybrid", "--tune", "--format", "json",
    ]);
    let points = tuning["points"].as_array().unwrap();
    assert_eq!(points.len(), 11 * 6);
    let ceiling = &tuning["ceiling"];
    let tuning_half = committed("search-quality-baseline-hybrid.json")["tuning"]["queries"].clone();
    assert_eq!(ceiling["queries"], tuning_half);
    for key in ["hitsAt1", "hitsAt5"] {
        let best = points
            .iter()
            .map(|p| p["tuning"][key].as_u64().unwrap())
            .max();
        assert!(
            ceiling[key].as_u64() >= best,
            "{key}: ceiling {} vs best point {best:?}",
            ceiling[key]
        );
    }
    // The chosen fusion (0.4, 0.5) is the best point and gives the committed tuning figures.
    let first = &points[0];
    assert_eq!(
        (
            first["lexicalWeight"].as_f64(),
            first["operationBoost"].as_f64()
        ),
        (Some(0.4), Some(0.5))
    );
    assert_eq!(
        first["tuning"],
        committed("search-quality-baseline-hybrid.json")["tuning"]
    );
    assert_eq!(
        (ceiling["hitsAt1"].as_u64(), ceiling["hitsAt5"].as_u64()),
        (Some(170), Some(197))
    );
}

#[test]
fn table_shows_each_half_next_to_the_baseline() {
    let base = committed("search-quality-baseline.json");
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
    let half = |h: &str, key: &str| base[h][key].clone();
    let cell = |h: &str, rate: &str, hits: &str| {
        format!(
            "{:.4} ({}/{})",
            half(h, rate).as_f64().unwrap(),
            half(h, hits),
            half(h, "queries")
        )
    };
    assert_eq!(
        row("recall@5"),
        vec![
            "recall@5".to_string(),
            cell("tuning", "recallAt5", "hitsAt5"),
            format!(
                "{}/{}",
                half("tuning", "hitsAt5"),
                half("tuning", "queries")
            ),
            cell("test", "recallAt5", "hitsAt5"),
            format!("{}/{}", half("test", "hitsAt5"), half("test", "queries")),
            cell("all", "recallAt5", "hitsAt5"),
        ]
    );
    assert_eq!(
        row("recall@1")[4],
        format!("{}/{}", half("test", "hitsAt1"), half("test", "queries"))
    );
    assert_eq!(
        row("MRR@20")[3],
        format!("{:.4}", half("test", "mrr").as_f64().unwrap())
    );
    let misses = base["misses"].as_array().unwrap().len();
    assert!(
        stdout.contains(&format!("\n{misses} queries not ranked first\n")),
        "{stdout}"
    );
    assert!(stdout.starts_with("search quality: ranker lexical, 1009 tools, "));
}

#[test]
fn a_baseline_one_hit_better_on_the_test_half_fails_the_gate() {
    let mut better = committed("search-quality-baseline.json");
    let at5 = better["test"]["hitsAt5"].as_u64().unwrap();
    let queries = better["test"]["queries"].as_u64().unwrap();
    better["test"]["hitsAt5"] = json!(at5 + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("better.json");
    std::fs::write(&path, better.to_string()).unwrap();
    let out = bin()
        .args(["quality", "--format", "json", "--baseline"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "regression: test half: recall@5 fell to {at5}/{queries} from the baseline's {}/{queries}\n",
            at5 + 1
        )
    );
    // The report is still printed, so CI logs show what got worse.
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["test"]["hitsAt5"], json!(at5));
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
    std::fs::write(&bad, r#"{"test": 3}"#).unwrap();
    let out = bin()
        .args(["quality", "--baseline"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "error: --baseline {}: search-quality baseline: ",
            bad.display()
        )),
        "{stderr}"
    );
}

/// A team's own catalogue and labelled set: the figures are exact.
#[test]
fn a_users_own_set_and_catalogue() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("tools.json");
    std::fs::write(
        &catalog,
        json!({ "tools": [
            { "name": "invoice_send", "description": "Email an invoice to the customer.",
              "inputSchema": { "type": "object", "properties": { "invoice_id": { "type": "string" } } } },
            { "name": "invoice_void", "description": "Cancel an invoice that was issued by mistake." },
            { "name": "customer_lookup", "description": "Find a customer by name or email." },
        ]})
        .to_string(),
    )
    .unwrap();
    let set = dir.path().join("set.toml");
    std::fs::write(
        &set,
        "[[query]]\ntext = \"email the invoice to Acme\"\ntool = \"invoice_send\"\n\n\
         [[query]]\ntext = \"cancel the wrong invoice\"\ntool = \"invoice_void\"\n\n\
         [[query]]\ntext = \"who is the customer with bob@example.com\"\ntool = \"customer_lookup\"\n\n\
         [[query]]\ntext = \"bake a cake\"\ntool = \"invoice_send\"\n",
    )
    .unwrap();
    let args = |extra: &[&str]| {
        let mut a = vec!["quality".to_string(), "--set".into()];
        a.push(set.display().to_string());
        a.push("--catalog".into());
        a.push(catalog.display().to_string());
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let out = bin().args(args(&["--format", "json"])).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["catalogSize"], 3);
    assert_eq!(report["queries"], 4);
    // Tuning: queries 1 and 3, both first; test: query 2 first, query 4 shares no word.
    assert_eq!(
        report["tuning"],
        json!({"queries": 2, "hitsAt1": 2, "hitsAt5": 2, "recallAt1": 1.0, "recallAt5": 1.0, "mrr": 1.0})
    );
    assert_eq!(
        report["test"],
        json!({"queries": 2, "hitsAt1": 1, "hitsAt5": 1, "recallAt1": 0.5, "recallAt5": 0.5, "mrr": 0.5})
    );
    assert_eq!(report["misses"][0]["query"], "bake a cake");
    assert_eq!(report["misses"][0]["half"], "test");
    assert_eq!(report["misses"][0]["rank"], Value::Null);
    // The table says which ranker and catalogue it measured.
    let table = bin().args(args(&[])).output().unwrap();
    let stdout = String::from_utf8(table.stdout).unwrap();
    assert!(
        stdout.starts_with("search quality: ranker lexical, 3 tools, 4 queries\n"),
        "{stdout}"
    );
    // A label the catalogue lacks names the query.
    std::fs::write(&set, "[[query]]\ntext = \"x\"\ntool = \"nope\"\n").unwrap();
    let out = bin().args(args(&[])).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with("error: search-quality set: query 1 (\"x\") names tool \"nope\""),
        "{stderr}"
    );
}

#[test]
fn hybrid_without_the_model_is_an_error_naming_the_install_command() {
    let empty = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["quality", "--ranker", "hybrid"])
        .env("TOOLSEARCH_QA_MODEL_DIR", empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: the hybrid ranker needs the all-MiniLM-L6-v2 model, not found in "
        ),
        "{stderr}"
    );
    assert!(stderr.contains("bash scripts/install-model.sh"), "{stderr}");
    let out = bin().args(["quality", "--tune"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        "error: --tune tunes the hybrid fusion: add --ranker hybrid\n"
    );
}

/// Flags that do not go together are usage errors before anything starts: the product ranks
/// with its own search, `--half` is for BFCL on the product, BFCL measures one search at a
/// time, `--tune` tunes the embedded fusion, one `--baseline` fits one target.
#[test]
fn target_flags_that_do_not_fit_are_usage_errors() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["--target", "openclaw", "--ranker", "hybrid"],
            "OpenClaw ranks with its own",
        ),
        (
            &["--bfcl", "--half", "test"],
            "--half measures one half of BFCL on the product: add --bfcl --target openclaw",
        ),
        (
            &["--bfcl", "--target", "both"],
            "--bfcl measures one search at a time",
        ),
        (
            &["--target", "openclaw", "--ranker", "hybrid", "--tune"],
            "--tune tunes the embedded hybrid fusion: use --target embedded",
        ),
        (
            &[
                "--target",
                "both",
                "--baseline",
                "data/search-quality-baseline.json",
            ],
            "--baseline compares one target's report",
        ),
    ];
    for (args, said) in cases {
        let out = bin().arg("quality").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(said), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// The product's own search, measured on a real OpenClaw gateway (ignored unless asked for,
/// like the other real tests): the report is the committed baseline exactly (the product's
/// ranking is deterministic), every loaded tool comes first for its own name, and the one query
/// whose right tool the product does not have (`cron`) is reported as unmeasured, not as a miss.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs OpenClaw (bash scripts/install-openclaw.sh)"]
async fn the_products_own_search_is_measured_and_gated() {
    let _install =
        crate::openclaw_real::real_install("the_products_own_search_is_measured_and_gated");
    let _one_gateway = crate::openclaw_real::ONE_GATEWAY.lock().await;
    let out = tokio::task::spawn_blocking(|| {
        bin()
            .args(["quality", "--target", "openclaw", "--format", "json"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let baseline = committed("search-quality-baseline-openclaw-2026.9.6.json");
    for key in [
        "tuning",
        "test",
        "all",
        "misses",
        "unmeasured",
        "queries",
        "catalogSize",
    ] {
        assert_eq!(report[key], baseline[key], "{key}");
    }
    assert_eq!(report["ranker"], "openclaw");
    assert_eq!(report["product"]["version"], "2026.9.6");
    assert_eq!(report["exactNameRecall"], json!(1.0));
    assert_eq!(report["catalogSize"], json!(1003));
    assert_eq!(
        report["unmeasured"],
        json!([{ "text": "remind me at 5pm to stretch", "tool": "cron" }])
    );
}

/// Fails `test` (an `#[ignore]`d one, asked for) when BFCL is not installed, naming the
/// install command.
fn bfcl(test: &str) {
    assert!(
        toolsearch_qa::quality::bfcl::installed(),
        "{test}: BFCL is not installed: run bash scripts/install-bfcl.sh"
    );
}

/// The pooled BFCL figures of both rankers are the committed baselines, subset by subset;
/// the pool is what the issue counted (1,911 questions, 1,096 names over 1,980 definitions).
#[test]
#[ignore = "needs BFCL and the all-MiniLM-L6-v2 model (bash scripts/install-bfcl.sh; bash scripts/install-model.sh)"]
fn bfcl_reports_are_the_committed_baselines() {
    bfcl("bfcl_reports_are_the_committed_baselines");
    let lexical = run_json(&["quality", "--bfcl", "--format", "json"]);
    assert_eq!(lexical, committed("search-quality-baseline-bfcl.json"));
    assert_eq!(lexical["questions"], json!(1911));
    assert_eq!(lexical["catalogSize"], json!(1980));
    assert_eq!(lexical["distinctNames"], json!(1096));
    let subsets: Vec<&str> = lexical["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["subset"].as_str().unwrap())
        .collect();
    assert_eq!(
        subsets,
        [
            "simple_python",
            "multiple",
            "live_simple",
            "live_multiple",
            "pooled"
        ]
    );
    let counts: Vec<u64> = lexical["figures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["all"]["queries"].as_u64().unwrap())
        .collect();
    assert_eq!(counts, [400, 200, 258, 1053, 1911]);
    // Every tool comes first for its own name, dotted and `__<k>` names included.
    assert_eq!(lexical["exactNameMisses"], json!([]));
    hybrid_model("bfcl_reports_are_the_committed_baselines (hybrid)");
    let hybrid = run_json(&[
        "quality", "--bfcl", "--ranker", "hybrid", "--format", "json",
    ]);
    assert_eq!(
        hybrid,
        committed("search-quality-baseline-bfcl-hybrid.json")
    );
    assert_eq!(hybrid["ranker"], "hybrid");
}

/// One hit more in one subset's test half than this build finds fails the gate, naming it.
#[test]
#[ignore = "needs BFCL (bash scripts/install-bfcl.sh)"]
fn bfcl_gate_bites_per_subset() {
    bfcl("bfcl_gate_bites_per_subset");
    let mut better = committed("search-quality-baseline-bfcl.json");
    let live = &mut better["figures"][2];
    assert_eq!(live["subset"], "live_simple");
    let at1 = live["test"]["hitsAt1"].as_u64().unwrap();
    let queries = live["test"]["queries"].as_u64().unwrap();
    live["test"]["hitsAt1"] = json!(at1 + 1);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("better.json");
    std::fs::write(&path, better.to_string()).unwrap();
    let out = bin()
        .args(["quality", "--bfcl", "--baseline"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "regression: live_simple: test half: recall@1 fell to {at1}/{queries} from the \
             baseline's {}/{queries}\n",
            at1 + 1
        )
    );
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
}

/// The product's own search on BFCL (ignored unless asked for, like the other real tests): the pooled catalogue
/// loaded as its plugin, the test half's questions searched by the product (`--half test`: 946
/// of 3,891 searches; the full run, exact names included, made the committed baseline and is
/// for a release's adoption, not for every CI run). The half is its release's committed
/// baseline exactly, figure by figure and miss by miss (the product's ranking is deterministic,
/// and does not depend on what else was searched: the two runs agree).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs OpenClaw and BFCL (bash scripts/install-openclaw.sh; bash scripts/install-bfcl.sh)"]
async fn the_products_own_search_is_gated_on_bfcls_test_half() {
    let test = "the_products_own_search_is_gated_on_bfcls_test_half";
    let _install = crate::openclaw_real::real_install(test);
    bfcl(test);
    let _one_gateway = crate::openclaw_real::ONE_GATEWAY.lock().await;
    let out = tokio::task::spawn_blocking(|| {
        bin()
            .args([
                "quality", "--bfcl", "--target", "openclaw", "--half", "test",
            ])
            .args(["--format", "json"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let baseline = committed("search-quality-baseline-openclaw-2026.9.6-bfcl.json");
    assert_eq!(report["ranker"], "openclaw");
    assert_eq!(report["half"], "test");
    assert_eq!(report["product"]["version"], "2026.9.6");
    for key in ["catalogSize", "productCatalogSize"] {
        assert_eq!(report[key], baseline[key], "{key}");
    }
    assert_eq!(report["questions"], json!(946), "the test half's questions");
    // The pool and the product's own tools, less the three it refuses: two names that differ
    // from another only in case, and `web_search`, one of its own.
    assert_eq!(report["productCatalogSize"], json!(2017));
    let figures = |r: &Value| -> Vec<(Value, Value)> {
        r["figures"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["subset"].clone(), f["test"].clone()))
            .collect()
    };
    assert_eq!(figures(&report), figures(&baseline));
    let test_misses: Vec<&Value> = baseline["misses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["half"] == "test")
        .collect();
    let misses: Vec<&Value> = report["misses"].as_array().unwrap().iter().collect();
    assert_eq!(misses, test_misses);
    // Exact names are not searched in a half run: not measured, not shown as hits.
    assert_eq!(report["exactNameMisses"], json!([]));
    assert_eq!(report["figures"][4]["exactNameTools"], json!(0));
}

/// Without the data, `--bfcl` is a usage error naming the install script.
#[test]
fn bfcl_without_the_data_names_the_install_script() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["quality", "--bfcl"])
        .env("TOOLSEARCH_QA_BFCL_DIR", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "error: search-quality set: BFCL 2026.3.23 is not installed in {}: run `bash \
             scripts/install-bfcl.sh` (or set TOOLSEARCH_QA_BFCL_DIR to a directory holding \
             bfcl_eval/data/)\n",
            dir.path().display()
        )
    );
    let out = bin()
        .args(["quality", "--bfcl", "--set", "x.toml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
