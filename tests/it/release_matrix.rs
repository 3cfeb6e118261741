//! `matrix`: scenarios on a set of adopted releases. Its shards, merged by `report merge`, are
//! the unsharded matrix: the same verdict per release, scenario, lane and claim as each release's
//! committed run record (a full run, recorded), and exit 0; `report records` writes each
//! release's run record from the merged run.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use toolsearch_qa::outcome::summary::SummaryFile;

const RELEASES: [&str; 2] = ["2026.9.5", "2026.9.6"];
/// Two one-lane scenarios of one plugin, which two shards split one each.
const SCENARIOS: [&str; 2] = [
    "upstream-code-redeclares-openclaw",
    "upstream-code-stderr-flood",
];

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// `matrix` over [`RELEASES`] and [`SCENARIOS`] with `extra`, its reports in `dir`: (exit code,
/// stdout, stderr).
fn matrix(dir: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut command = bin();
    command.arg("matrix");
    for release in RELEASES {
        command.args(["--openclaw-version", release]);
    }
    for scenario in SCENARIOS {
        command.args(["--scenario", scenario]);
    }
    let out = command
        .args(extra)
        .arg("--report-dir")
        .arg(dir)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every verdict of a report directory's summary.json: (release, scenario, lane, claim, ok).
fn verdicts(dir: &Path) -> Vec<(String, String, String, String, bool)> {
    let text = std::fs::read_to_string(dir.join("summary.json")).unwrap();
    let mut all = Vec::new();
    for report in SummaryFile::parse(&text).unwrap().into_reports() {
        let release = report.product.as_ref().unwrap().version.clone();
        for scenario in &report.scenarios {
            for v in &scenario.claims {
                all.push((
                    release.clone(),
                    scenario.scenario.clone(),
                    v.lane.clone(),
                    v.claim.as_str().to_string(),
                    v.ok,
                ));
            }
        }
    }
    all
}

fn last_line(text: &str) -> &str {
    text.lines().last().unwrap_or_default()
}

/// Each release's committed run record's verdicts of [`SCENARIOS`], as [`verdicts`] lists them.
fn recorded(checkout: &Path) -> Vec<(String, String, String, String, bool)> {
    let mut all = Vec::new();
    for release in RELEASES {
        let record = toolsearch_qa::outcome::record::RunRecord::read(checkout, release).unwrap();
        for v in record
            .verdicts
            .iter()
            .filter(|v| SCENARIOS.contains(&v.scenario.as_str()))
        {
            all.push((
                release.to_string(),
                v.scenario.clone(),
                v.lane.clone(),
                v.claim.clone(),
                v.ok,
            ));
        }
    }
    all
}

#[test]
#[ignore = "needs OpenClaw (bash scripts/install-openclaw.sh)"]
fn matrix_shards_merge_into_the_unsharded_verdict() {
    let _one = crate::openclaw_real::ONE_GATEWAY.blocking_lock();
    let root = tempfile::tempdir().unwrap();
    let dir = |name: &str| -> PathBuf { root.path().join(name) };
    let checkout = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut shard_verdicts = Vec::new();
    for k in 1..=2 {
        let (code, out, err) = matrix(&dir(&format!("shard{k}")), &["--shard", &format!("{k}/2")]);
        assert_eq!(code, Some(0), "{out}{err}");
        for release in RELEASES {
            assert!(
                err.contains(&format!("matrix: openclaw {release} on Node ")),
                "{err}"
            );
        }
        let ran = verdicts(&dir(&format!("shard{k}")));
        assert!(!ran.is_empty(), "shard {k} ran nothing");
        shard_verdicts.push(ran);
    }
    assert_ne!(shard_verdicts[0], shard_verdicts[1]);
    let merged = bin()
        .args(["report", "merge"])
        .arg(dir("shard2"))
        .arg(dir("shard1"))
        .args(["--runs", "2", "--report-dir"])
        .arg(dir("merged"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&merged.stdout);
    assert_eq!(
        merged.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    // The unsharded verdict is each release's committed run of the two scenarios (a full run of
    // every scenario, recorded): the merged shards give exactly it, release by release, and
    // each shard's verdicts are a part of it, the two together all of it.
    let mut expected = recorded(checkout);
    expected.sort();
    assert!(!expected.is_empty());
    let mut got = verdicts(&dir("merged"));
    got.sort();
    assert_eq!(got, expected);
    let mut together: Vec<_> = shard_verdicts.concat();
    together.sort();
    assert_eq!(together, expected);
    let passed = expected.iter().filter(|v| v.4).count();
    assert!(
        last_line(&stdout).starts_with(&format!("{passed} passed, 0 failed")),
        "{stdout}"
    );

    // One shard missing is exit 2, never a pass.
    let partial = bin()
        .args(["report", "merge"])
        .arg(dir("shard1"))
        .output()
        .unwrap();
    assert_eq!(partial.status.code(), Some(2));

    // The merged run writes each release's record: the two scenarios' verdicts replace theirs.
    let data = tempfile::tempdir().unwrap();
    for sub in ["data", "expectations", "scenarios", "snapshots"] {
        copy_tree(&checkout.join(sub), &data.path().join(sub));
    }
    let records = bin()
        .current_dir(data.path())
        .args(["report", "records"])
        .arg(dir("merged"))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&records.stdout);
    assert_eq!(
        records.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&records.stderr)
    );
    assert_eq!(out.lines().count(), 2, "{out}");
    for release in RELEASES {
        let record = toolsearch_qa::outcome::record::RunRecord::read(data.path(), release).unwrap();
        for scenario in SCENARIOS {
            assert!(
                record.verdicts.iter().any(|v| v.scenario == scenario),
                "{release} {scenario}"
            );
        }
    }
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
