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

/// 2026.5.7 is published but has no Tool Search, so it is never adopted (adopt would refuse an
/// adopted release before looking for its install).
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
            .env("TOOLSEARCH_QA_OPENCLAW_VERSION", "2026.5.7")
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
                    "OpenClaw 2026.5.7 is not installed (no {}/openclaw-2026.5.7/node_modules/openclaw); run scripts/install-openclaw.sh --version 2026.5.7 --node 26"
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

/// A tree with the project's release data (data/releases, data/profiles, expectations).
fn data_tree() -> tempfile::TempDir {
    let tree = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in ["data/releases", "data/profiles", "expectations"] {
        std::fs::create_dir_all(tree.path().join(dir)).unwrap();
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            // Files only (data/profiles/code-mode/ is not read as a profile).
            if !path.is_file() {
                continue;
            }
            std::fs::copy(&path, tree.path().join(dir).join(path.file_name().unwrap())).unwrap();
        }
    }
    tree
}

/// Release data is read at run time from the data root: a file changed after the build is
/// what the run sees (here: a profile the binary was never built with runs the reference
/// scenario; a broken release file is one `error:` line naming it, exit 2).
#[test]
fn release_data_is_read_at_run_time_from_the_data_root() {
    let tree = data_tree();
    let profiles = tree.path().join("data/profiles");
    let text = std::fs::read_to_string(profiles.join("openclaw-2026.9.6.toml")).unwrap();
    std::fs::write(
        profiles.join("openclaw-2099.1.1.toml"),
        text.replace(
            "name = \"openclaw-2026.9.6\"",
            "name = \"openclaw-2099.1.1\"",
        ),
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |root: &std::path::Path| {
        bin()
            .current_dir(elsewhere.path())
            .args([
                "suite",
                "--scenario",
                "tool-search-gateway-e2e",
                "--no-snapshots",
            ])
            .args([
                "--profile",
                "openclaw-2099.1.1",
                "--format",
                "json",
                "--data-dir",
            ])
            .arg(root)
            .output()
            .unwrap()
    };
    let output = run(tree.path());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    // Without the tree the binary's own copy has no such profile.
    let output = bin()
        .current_dir(elsewhere.path())
        .args([
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--no-snapshots",
        ])
        .args(["--profile", "openclaw-2099.1.1"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("unknown profile \"openclaw-2099.1.1\""),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );

    let release = tree.path().join("data/releases/openclaw-2026.9.6.toml");
    std::fs::write(&release, "version = 3\n").unwrap();
    let output = bin()
        .current_dir(elsewhere.path())
        .env("TOOLSEARCH_QA_CACHE", elsewhere.path())
        .args([
            "suite",
            "--target",
            "openclaw",
            "--no-snapshots",
            "--data-dir",
        ])
        .arg(tree.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "error: release data: {}:1: version: invalid type",
            release.display()
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_dir(elsewhere.path()).unwrap().count(), 0);
}

#[test]
fn a_data_dir_that_is_not_a_data_root_is_a_usage_error() {
    let empty = tempfile::tempdir().unwrap();
    for args in [
        vec!["suite", "--data-dir"],
        vec!["adopt", "--openclaw-version", "2026.9.4", "--root"],
    ] {
        let output = bin().args(&args).arg(empty.path()).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(
            stderr,
            format!(
                "error: --data-dir {}: it has no data/releases/; point it at a checkout of \
                 toolsearch-qa (or a tree with its data/releases/, data/profiles/, expectations/ \
                 and snapshots/)\n",
                empty.path().display()
            )
        );
    }
}

/// A committed run record (`data/releases/openclaw-<v>.run.json`, which `payload-table`,
/// `diff-releases` and `regressions` read) holds no failing verdict that the release's accepted
/// findings do not cover: a failing claim in a record is one the gate accepts, with the value
/// the record shows, on the Node major the record ran on. A record that predates a fix of the
/// harness is run again (`adopt --record-only`), not left to tell an old story.
#[test]
fn no_committed_run_record_holds_a_failing_verdict_no_accepted_finding_covers() {
    use toolsearch_qa::outcome::findings::Expectations;
    use toolsearch_qa::outcome::record::RunRecord;
    use toolsearch_qa::scenario::load_all;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let known = load_all(&[]).unwrap();
    let mut versions: Vec<String> = std::fs::read_dir(root.join("data/releases"))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            Some(
                name.strip_prefix("openclaw-")?
                    .strip_suffix(".run.json")?
                    .to_string(),
            )
        })
        .collect();
    versions.sort();
    assert!(versions.len() >= 9, "{versions:?}");
    let mut uncovered = Vec::new();
    for version in &versions {
        let record = RunRecord::read(root, version).unwrap();
        let path = root.join(format!("expectations/openclaw-{version}.toml"));
        let expectations = Expectations::read(&path, &known).unwrap();
        let node: Option<u32> = record
            .node
            .trim_start_matches('v')
            .split('.')
            .next()
            .and_then(|n| n.parse().ok());
        for verdict in record.verdicts.iter().filter(|v| !v.ok) {
            let covered = expectations.findings.iter().any(|f| {
                f.scenario == verdict.scenario
                    && f.lane == verdict.lane
                    && f.claim.as_str() == verdict.claim
                    && f.observed == verdict.actual
                    && f.applies_to_node(node)
            });
            if !covered {
                uncovered.push(format!(
                    "{version}: {} / {} {}: {:?}",
                    verdict.scenario, verdict.lane, verdict.claim, verdict.actual
                ));
            }
        }
    }
    assert!(
        uncovered.is_empty(),
        "{} failing verdicts in committed run records that no accepted finding covers:\n{}",
        uncovered.len(),
        uncovered.join("\n")
    );
}

/// A release whose accepted findings still hold a `TODO` reason is refused by the suite (exit
/// 2), so CI cannot gate it; it may stay committed only when its release file says why it is
/// not gated (`not_gated = "…"`). One without that fails here, and `.ci/run` fails on it too.
#[test]
fn a_release_whose_findings_hold_a_todo_says_why_it_is_not_gated() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut checked = 0;
    let mut silent = Vec::new();
    for entry in std::fs::read_dir(root.join("expectations")).unwrap() {
        let path = entry.unwrap().path();
        let Some(label) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let file: toml::Value = toml::from_str(&text).unwrap();
        let todo = ["finding", "probe"]
            .iter()
            .flat_map(|kind| {
                file.get(kind)
                    .and_then(|v| v.as_array())
                    .into_iter()
                    .flatten()
            })
            .filter(|entry| {
                entry.get("reason").and_then(|r| r.as_str()).map(str::trim) == Some("TODO")
            })
            .count();
        checked += 1;
        if todo == 0 {
            continue;
        }
        let release = root.join(format!("data/releases/{label}.toml"));
        let facts: toml::Value =
            toml::from_str(&std::fs::read_to_string(&release).unwrap()).unwrap();
        if facts
            .get("not_gated")
            .and_then(|v| v.as_str())
            .is_none_or(|why| why.trim().is_empty())
        {
            silent.push(format!(
                "{}: {todo} reasons TODO, and {} does not say why it is not gated (not_gated = \"…\")",
                path.display(),
                release.display()
            ));
        }
    }
    assert!(checked >= 9, "{checked} expectations files");
    assert!(silent.is_empty(), "{}", silent.join("\n"));
}

/// `check-reasons` holds each reason to its own release's install: a dist file or identifier the
/// fake install lacks is one line naming it (exit 1), the same tree once the file exists passes
/// (exit 0), and a release with expectations but no install is named with its install command
/// (exit 3, or passed over with --skip-missing).
#[test]
fn check_reasons_names_what_the_release_install_lacks() {
    let tree = data_tree();
    // The release file's [code_mode] comments are checked too: here the fake dist has none of
    // their files, so the table goes (its own check is at the end).
    let facts = tree.path().join("data/releases/openclaw-2026.9.6.toml");
    let text = std::fs::read_to_string(&facts).unwrap();
    let without = &text[..text.find("\n# Code Mode").expect("a [code_mode] table")];
    std::fs::write(&facts, format!("{without}\n")).unwrap();
    let expectations = tree.path().join("expectations");
    std::fs::remove_dir_all(&expectations).unwrap();
    std::fs::create_dir(&expectations).unwrap();
    let finding =
        "[[finding]]\nscenario = \"fail-closed-f3-blocked\"\nlane = \"directory-approval\"\n\
                   claim = \"F3\"\ncheck = \"error reported\"\nexpected = \"x\"\nobserved = \"y\"\n\
                   reason = \"the refusal is a successful result (`tools` stay); the fallback is \
                   buildFakeFallback in dist/agent-tools.before-tool-call-Fake1234.js\"\n";
    std::fs::write(
        expectations.join("openclaw-2026.9.6.toml"),
        format!("# one finding\n\n{finding}"),
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let dist = cache
        .path()
        .join("openclaw-2026.9.6/node_modules/openclaw/dist");
    std::fs::create_dir_all(&dist).unwrap();
    std::fs::write(dist.join("other-Abcd1234.js"), "export {};\n").unwrap();
    let run = |extra: &[&str]| {
        let output = bin()
            .env("TOOLSEARCH_QA_CACHE", cache.path())
            .arg("--data-dir")
            .arg(tree.path())
            .arg("check-reasons")
            .args(extra)
            .output()
            .unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    let (code, stdout) = run(&[]);
    assert_eq!(code, Some(1), "{stdout}");
    let file = expectations
        .join("openclaw-2026.9.6.toml")
        .display()
        .to_string();
    assert_eq!(
        stdout,
        format!(
            "red cells not checked: the data root has no data/upstream-regressions.toml\n\
             {file}:10: reason cites dist/agent-tools.before-tool-call-Fake1234.js, which 2026.9.6's dist/ does not have\n\
             {file}:10: reason cites buildFakeFallback, which 2026.9.6's dist/ does not have\n\
             1 reasons checked on 1 releases, 2 problems\n"
        )
    );

    std::fs::write(
        dist.join("agent-tools.before-tool-call-Fake1234.js"),
        "function buildFakeFallback() {}\n",
    )
    .unwrap();
    let (code, stdout) = run(&[]);
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(
        stdout,
        "red cells not checked: the data root has no data/upstream-regressions.toml\n1 reasons checked on 1 releases, 0 problems\n"
    );

    std::fs::write(expectations.join("openclaw-2026.9.5.toml"), finding).unwrap();
    let (code, stdout) = run(&[]);
    assert_eq!(code, Some(3), "{stdout}");
    let missing = expectations
        .join("openclaw-2026.9.5.toml")
        .display()
        .to_string();
    assert!(
        stdout.starts_with(&format!(
            "red cells not checked: the data root has no data/upstream-regressions.toml\n{missing}: not checked: not installed (bash scripts/install-openclaw.sh --version 2026.9.5)\n"
        )),
        "{stdout}"
    );
    let (code, _) = run(&["--skip-missing"]);
    assert_eq!(code, Some(0));
    let (code, stdout) = run(&["--openclaw-version", "2026.9.6"]);
    assert_eq!(
        (code, stdout.as_str()),
        (
            Some(0),
            "red cells not checked: the data root has no data/upstream-regressions.toml\n1 reasons checked on 1 releases, 0 problems\n"
        )
    );
    let (code, _) = run(&["--openclaw-version", "2026.9.4"]);
    assert_eq!(code, Some(2));

    // A [code_mode] comment is looked up as a reason is: a file the dist has passes, one it
    // lacks is named with the release file's line.
    std::fs::write(
        &facts,
        format!(
            "{without}\n[code_mode]\n# dist/other-Abcd1234.js:1: ok\nunset_means = \"auto\"\n\
             # dist/missing-Zz9.js:2: not there\nexecutor_key = \"executor\"\n\
             executors = [\"node\"]\ndefault_executor = \"node\"\n\
             keys = [\"enabled\", \"executor\"]\ncontrols = [\"exec\", \"wait\"]\n\
             direct_only = []\n"
        ),
    )
    .unwrap();
    let line = without.lines().count() + 5;
    let (code, stdout) = run(&["--openclaw-version", "2026.9.6"]);
    assert_eq!(
        (code, stdout),
        (
            Some(1),
            format!(
                "red cells not checked: the data root has no data/upstream-regressions.toml\n\
                 {}:{line}: [code_mode] cites dist/missing-Zz9.js, which 2026.9.6's dist/ does not \
                 have\n3 reasons checked on 1 releases, 1 problems\n",
                facts.display()
            )
        )
    );
}

/// Every adopted release's own config schema (its dist/zod-schema*) agrees with what its release
/// file says about the keys the harness writes: the reader that fits a never-adopted release's
/// borrowed facts reads each adopted release right.
#[test]
#[ignore = "needs every adopted OpenClaw release installed (bash scripts/install-openclaw.sh --version V)"]
fn every_adopted_release_s_schema_agrees_with_its_release_facts() {
    use toolsearch_qa::targets::openclaw::install::{default_cache_root, install_prefix};
    use toolsearch_qa::targets::openclaw::schema::SchemaFacts;
    use toolsearch_qa::targets::openclaw::ReleaseCatalogue;
    let catalogue = ReleaseCatalogue::current().unwrap();
    let cache = default_cache_root().unwrap();
    let mut checked = 0;
    for adopted in catalogue.releases() {
        let release = &adopted.release;
        let package = install_prefix(&cache, &release.version).join("node_modules/openclaw");
        let facts = SchemaFacts::read(&package)
            .unwrap_or_else(|e| panic!("openclaw {} not installed: {e}", release.version));
        let v = &release.version;
        assert_eq!(facts.agents, Some(release.config.agents), "{v}: agents");
        assert_eq!(
            facts.catalog_refresh, release.config.catalog_refresh,
            "{v}: catalog_refresh"
        );
        assert_eq!(
            facts.mcp_stdio_transport, release.config.mcp_stdio_transport,
            "{v}: mcp stdio"
        );
        assert_eq!(
            facts.tool_search_keys.as_ref(),
            Some(&release.tool_search_keys),
            "{v}: toolSearch keys"
        );
        assert_eq!(
            facts.code_mode_keys.as_ref(),
            release.code_mode.as_ref().map(|c| &c.keys),
            "{v}: codeMode keys"
        );
        if let Some(code_mode) = &release.code_mode {
            assert_eq!(facts.code_mode_auto, code_mode.auto_tier, "{v}: auto tier");
        }
        let (fitted, notes) = facts.fit(release.clone());
        assert!(
            notes.is_empty(),
            "{v}: its own facts need no fitting: {notes:?}"
        );
        assert_eq!(&fitted, release, "{v}");
        checked += 1;
    }
    assert!(checked >= 10, "{checked} releases");
}
