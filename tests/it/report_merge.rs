//! `report merge`: a CI matrix's shards, merged, are the unsharded run — the same table, count
//! line, summary.json, JUnit and report.md byte for byte apart from lane times, and the same exit
//! code — and a shard that is missing, repeated or red can never make the merge green.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The fail-closed scenarios: six scenarios, seconds on the embedded gateway.
const FILTER: &str = "fail-closed";

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// What one run left behind: stdout, exit code, and its JUnit file and report directory.
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    junit: PathBuf,
    dir: PathBuf,
}

impl Run {
    fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap()
    }

    fn junit(&self) -> String {
        std::fs::read_to_string(&self.junit).unwrap()
    }
}

/// `suite --filter fail-closed` (with `extra`), writing its reports under `root/name`.
fn suite(root: &Path, name: &str, extra: &[&str]) -> Run {
    let mut args: Vec<OsString> = ["suite", "--filter", FILTER].map(OsString::from).to_vec();
    args.extend(extra.iter().map(OsString::from));
    with_reports(root, name, args)
}

/// `report merge DIR…`, writing the merged reports under `root/name`.
fn merge(root: &Path, name: &str, dirs: &[&Run]) -> Run {
    let mut args: Vec<OsString> = ["report", "merge"].map(OsString::from).to_vec();
    args.extend(dirs.iter().map(|r| r.dir.clone().into_os_string()));
    with_reports(root, name, args)
}

/// The binary with `args`, its JUnit file and report directory under `root/name`.
fn with_reports(root: &Path, name: &str, args: Vec<OsString>) -> Run {
    let dir = root.join(name);
    let junit = root.join(format!("{name}.xml"));
    let out = bin()
        .args(args)
        .arg("--report-dir")
        .arg(&dir)
        .arg("--junit")
        .arg(&junit)
        .output()
        .unwrap();
    finish(out, junit, dir)
}

fn finish(out: std::process::Output, junit: PathBuf, dir: PathBuf) -> Run {
    Run {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code(),
        junit,
        dir,
    }
}

/// summary.json with the lane times (`laneMillis` and the steps' `millis`, the only values that
/// vary) set to 0, and
/// JUnit's `time` attributes to `0`.
fn without_times(text: &str) -> String {
    let mut out = String::new();
    let mut in_millis = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("\"laneMillis\": {") {
            in_millis = !trimmed.ends_with('}') && !trimmed.ends_with("},");
        } else if in_millis && trimmed.starts_with('}') {
            in_millis = false;
        } else if in_millis {
            let (name, value) = line.rsplit_once(": ").unwrap();
            let comma = if value.ends_with(',') { "," } else { "" };
            out.push_str(&format!("{name}: 0{comma}\n"));
            continue;
        }
        if let Some((name, _)) = line.split_once("\"millis\": ") {
            // A lane step's time (`laneSteps`).
            let comma = if line.ends_with(',') { "," } else { "" };
            out.push_str(&format!("{name}\"millis\": 0{comma}\n"));
            continue;
        }
        out.push_str(&junit_times_zeroed(line));
        out.push('\n');
    }
    out
}

fn junit_times_zeroed(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(" time=\"") {
        let start = at + " time=\"".len();
        out.push_str(&rest[..start]);
        let end = start + rest[start..].find('"').unwrap();
        out.push('0');
        rest = &rest[end..];
    }
    out + rest
}

#[test]
fn shards_merged_are_the_unsharded_run_and_a_missing_or_red_shard_is_never_green() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let whole = suite(root, "whole", &[]);
    assert_eq!(whole.code, Some(0), "{}{}", whole.stdout, whole.stderr);
    let shards: Vec<Run> = (1..=3)
        .map(|k| suite(root, &format!("shard{k}"), &["--shard", &format!("{k}/3")]))
        .collect();
    for shard in &shards {
        assert_eq!(shard.code, Some(0), "{}{}", shard.stdout, shard.stderr);
        assert_ne!(shard.stdout, whole.stdout, "a shard ran everything");
    }
    // Given in any order, the shards make the unsharded run.
    let merged = merge(root, "merged", &[&shards[2], &shards[0], &shards[1]]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    assert_eq!(merged.stdout, whole.stdout);
    assert!(
        whole.stdout.ends_with(" passed, 0 failed\n"),
        "{}",
        whole.stdout
    );
    assert_eq!(merged.file("report.md"), whole.file("report.md"));
    assert_eq!(
        without_times(&merged.junit()),
        without_times(&whole.junit())
    );
    assert_eq!(
        without_times(&merged.file("summary.json")),
        without_times(&whole.file("summary.json"))
    );
    assert_ne!(merged.file("summary.json"), "", "nothing merged");

    // A missing shard is an error, not a pass: nothing is written.
    let partial = merge(root, "partial", &[&shards[0], &shards[1]]);
    assert_eq!(partial.code, Some(2), "{}", partial.stdout);
    assert!(
        partial
            .stderr
            .contains("error: run embedded: shard 3/3 missing (found 1/3, 2/3)"),
        "{}",
        partial.stderr
    );
    assert!(!partial.junit.exists() && !partial.dir.exists());
    // So is a shard given twice, and the whole run mixed with its shards.
    let twice = merge(
        root,
        "twice",
        &[&shards[0], &shards[1], &shards[1], &shards[2]],
    );
    assert_eq!(twice.code, Some(2));
    assert!(
        twice.stderr.contains("shard 2/3 is there twice"),
        "{}",
        twice.stderr
    );
    let mixed = merge(root, "mixed", &[&whole, &shards[0]]);
    assert_eq!(mixed.code, Some(2));
    assert!(
        mixed
            .stderr
            .contains("run embedded is in the directories more than once"),
        "{}",
        mixed.stderr
    );
    // A run that left no directory at all is noticed only by the count of runs expected.
    let counted = bin()
        .args(["report", "merge", "--runs", "2"])
        .args(shards.iter().map(|r| &r.dir))
        .output()
        .unwrap();
    assert_eq!(counted.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&counted.stderr);
    assert!(
        stderr.contains("error: --runs 2: the directories hold 1 run (embedded)"),
        "{stderr}"
    );
    let one = bin()
        .args(["report", "merge", "--runs", "1"])
        .args(shards.iter().map(|r| &r.dir))
        .output()
        .unwrap();
    assert_eq!(one.status.code(), Some(0));
    // Shards of another selection are not shards of this run.
    let other = suite(
        root,
        "other",
        &["--scenario", "fail-closed-f1-policy-denied"],
    );
    let foreign = merge(root, "foreign", &[&shards[0], &other]);
    assert_eq!(foreign.code, Some(2));
    assert!(
        foreign.stderr.contains("ran different selections"),
        "{}",
        foreign.stderr
    );

    // A red shard (its snapshots missing) makes the merge red in every report.
    let empty = root.join("no-snapshots");
    std::fs::create_dir(&empty).unwrap();
    let red = suite(
        root,
        "red",
        &["--shard", "2/3", "--snapshot-dir", empty.to_str().unwrap()],
    );
    assert_eq!(red.code, Some(1), "{}", red.stdout);
    let missing = red.stdout.lines().last().unwrap().to_string();
    let merged_red = merge(root, "merged-red", &[&shards[0], &red, &shards[2]]);
    assert_eq!(merged_red.code, Some(1), "{}", merged_red.stderr);
    let count = merged_red.stdout.lines().last().unwrap();
    assert!(
        count.contains(" snapshots missing") && count.contains(", 0 failed"),
        "{count} (the red shard: {missing})"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&merged_red.file("summary.json")).unwrap();
    assert_eq!(summary["ok"], false);
    assert_eq!(summary["outcome"], "failed");
    let junit = merged_red.junit();
    let root_element = junit
        .lines()
        .find(|l| l.starts_with("<testsuites"))
        .unwrap();
    assert!(!root_element.contains(" failures=\"0\""), "{root_element}");
    assert!(
        merged_red.file("report.md").contains("result: **FAIL**"),
        "{}",
        merged_red.file("report.md")
    );
}

/// `report merge DIR`: its exit code and stderr.
fn merge_one(dir: &Path) -> (Option<i32>, String) {
    let out = bin().args(["report", "merge"]).arg(dir).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_directory_without_a_summary_is_named() {
    let root = tempfile::tempdir().unwrap();
    let (code, stderr) = merge_one(root.path());
    assert_eq!(code, Some(2));
    let named = format!("error: {} has no summary.json", root.path().display());
    assert!(stderr.contains(&named), "{stderr}");
    std::fs::write(root.path().join("summary.json"), "{\"target\": 3}").unwrap();
    let (code, stderr) = merge_one(root.path());
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("not a summary.json that `suite --report-dir` writes"),
        "{stderr}"
    );
}

/// Shards of one run that checked different things do not merge (issue #41: a shard run with
/// `--no-snapshots` merged green beside two that compared snapshots).
#[test]
fn shards_that_checked_different_things_do_not_merge() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let first = suite(root, "s1", &["--shard", "1/2"]);
    let second = suite(root, "s2", &["--shard", "2/2", "--no-snapshots"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    let merged = merge(root, "merged", &[&first, &second]);
    assert_eq!(merged.code, Some(2), "{}", merged.stdout);
    assert_eq!(
        merged.stderr,
        format!(
            "error: run embedded: {} compared snapshots, each scenario under its own profile but \
             {} did not compare snapshots (--no-snapshots, or a release without data), each \
             scenario under its own profile: the shards of one run must check the same (the \
             same --no-snapshots and --profile), or the merge would pass what a shard did not \
             check\n",
            first.dir.display(),
            second.dir.display()
        )
    );
    assert!(merged.stdout.is_empty());
    assert!(!merged.dir.exists());
    // Both without snapshots: one run without snapshots, as the unsharded run would be.
    let second_on = suite(root, "s2b", &["--shard", "2/2"]);
    let merged = merge(root, "merged-ok", &[&first, &second_on]);
    assert_eq!(merged.code, Some(0), "{}", merged.stderr);
    let summary: serde_json::Value = serde_json::from_str(&merged.file("summary.json")).unwrap();
    assert_eq!(summary["selection"]["checks"]["snapshots"], true);
}

/// The merged fix-it hints are the commands the shards printed, flags and all (issue #41: the
/// merge dropped `--snapshot-dir`).
#[test]
fn the_merge_prints_the_commands_the_shards_printed() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let empty = root.join("no-snapshots-yet");
    std::fs::create_dir(&empty).unwrap();
    let at = empty.display().to_string();
    let shards: Vec<Run> = (1..=2)
        .map(|k| {
            let shard = format!("{k}/2");
            suite(
                root,
                &format!("m{k}"),
                &["--shard", &shard, "--snapshot-dir", &at],
            )
        })
        .collect();
    let hints = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.trim_start().starts_with("write them for review:"))
            .map(str::to_string)
            .collect()
    };
    let mut printed: Vec<String> = shards.iter().flat_map(|s| hints(&s.stdout)).collect();
    assert!(!printed.is_empty());
    assert!(printed
        .iter()
        .all(|l| l.contains(&format!("--snapshot-dir {at}"))));
    let merged = merge(root, "merged", &[&shards[0], &shards[1]]);
    assert_eq!(merged.code, Some(1), "{}", merged.stderr);
    let mut got = hints(&merged.stdout);
    printed.sort();
    got.sort();
    assert_eq!(got, printed);
}
