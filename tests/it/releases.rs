//! Every OpenClaw release as a parameter: bad input is one `error:` line naming the version and
//! the fix, with the README's exit code, and nothing of the cache is touched.

use assert_cmd::Command;
use predicates::prelude::*;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

#[test]
fn a_version_that_is_not_one_is_a_usage_error() {
    bin()
        .args([
            "suite",
            "--target",
            "openclaw",
            "--openclaw-version",
            "latest",
        ])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "\"latest\" is not an OpenClaw version (expected YEAR.MONTH.PATCH, e.g. 2026.9.6)",
        ));
}

#[test]
fn a_release_not_in_the_cache_is_one_line_and_the_cache_is_untouched() {
    let cache = tempfile::tempdir().unwrap();
    for command in [
        vec!["suite", "--target", "openclaw"],
        vec!["probes", "--target", "openclaw"],
        vec!["quality", "--target", "openclaw"],
        vec!["profile", "capture", "--target", "openclaw"],
        vec!["adopt"],
    ] {
        let output = bin()
            .env("TOOLSEARCH_QA_CACHE", cache.path())
            .env("TOOLSEARCH_QA_OPENCLAW_VERSION", "2026.7.35")
            .env("TOOLSEARCH_QA_OPENCLAW_NODE", "26")
            .args(&command)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(3), "{command:?}");
        assert!(output.stdout.is_empty(), "{command:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{command:?}: {stderr}");
        assert!(
            stderr.starts_with("error: openclaw ")
                && stderr.trim_end().ends_with(
                    "OpenClaw 2026.7.35 is not installed (no {}/openclaw-2026.7.35/node_modules/openclaw); run scripts/install-openclaw.sh --version 2026.7.35 --node 26"
                        .replace("{}", &cache.path().display().to_string())
                        .as_str()
                ),
            "{command:?}: {stderr}"
        );
    }
    assert_eq!(std::fs::read_dir(cache.path()).unwrap().count(), 0);
}

#[test]
fn diff_releases_without_a_committed_run_says_how_to_make_one() {
    bin()
        .args(["diff-releases", "2099.1.1", "2099.1.2"])
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "openclaw 2099.1.1 has no committed run",
        ))
        .stderr(predicate::str::contains(
            "adopt it with `toolsearch-qa adopt --openclaw-version 2099.1.1`, or pass --live",
        ));
}
