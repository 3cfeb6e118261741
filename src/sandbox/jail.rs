//! Isolation for the node backend. Node 20–25's permission model blocks files, child
//! processes and workers but not the network (nor Unix sockets, nor signals to other
//! processes), so the child also runs in fresh network, mount and PID namespaces
//! (`unshare`, root only), chrooted into an empty tmpfs that holds only read-only `/usr`
//! (plus the `lib*` links), `/dev/null` and the node binary, as user `nobody` with no
//! capabilities and an empty environment. [`Jail::prepare`] checks all of that from inside
//! before the backend reports itself available: it never runs code with network access.
//! The jail dies with the thread that started it: `unshare` runs under
//! `setpriv --pdeathsig=KILL`, and `unshare --kill-child` takes everything inside along.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Builds the jail inside the new namespaces, then executes node in it.
/// `$1` is the node binary; the remaining arguments go to node.
const JAIL_SCRIPT: &str = r#"set -eu
PATH=/usr/sbin:/usr/bin:/sbin:/bin
node="$1"; shift
mount -t tmpfs -o size=1m,mode=755,nosuid,nodev tmpfs /tmp
r=/tmp/root
mkdir "$r" "$r/dev"
for d in usr lib lib32 lib64; do
  if [ -L "/$d" ]; then ln -s "$(readlink "/$d")" "$r/$d"
  elif [ -d "/$d" ]; then mkdir "$r/$d"; mount --rbind "/$d" "$r/$d"; mount -o remount,bind,ro,nosuid,nodev "$r/$d"
  fi
done
touch "$r/dev/null" "$r/node"
mount --bind /dev/null "$r/dev/null"
mount --bind "$node" "$r/node"
cd /
exec chroot "$r" /usr/bin/env -i /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups \
  --inh-caps=-all --bounding-set=-all --no-new-privs --pdeathsig=KILL /node "$@"
"#;

/// Checked from inside the jail by [`Jail::prepare`]; prints `isolated` or what is wrong.
const CHECK_SCRIPT: &str = r#"const f = []; const p = process.permission;
if (!p || p.has("fs.read") || p.has("fs.write") || p.has("child") || p.has("worker")) f.push("the permission model is not enforced");
if (Object.keys(process.env).length !== 0) f.push("the environment is not empty");
if (Object.keys(require("os").networkInterfaces()).length !== 0) f.push("network interfaces are visible");
if (process.getuid() !== 65534) f.push("node does not run as nobody");
process.stdout.write(f.length ? f.join("; ") : "isolated");"#;

/// How long the availability check may take.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// A verified way to start node isolated on this host.
#[derive(Debug, Clone)]
pub(crate) struct Jail {
    setpriv: PathBuf,
    unshare: PathBuf,
    node: PathBuf,
    permission_flag: &'static str,
}

impl Jail {
    /// Find node and the jail tools, check node's version, then run a check inside the jail.
    /// `Err` says why node cannot run isolated here.
    pub(crate) fn prepare(node: Option<PathBuf>) -> Result<Jail, String> {
        let node = match node {
            Some(path) => path,
            None => find_on_path("node").ok_or("node was not found on PATH")?,
        };
        let node = node
            .canonicalize()
            .map_err(|e| format!("node at {}: {e}", node.display()))?;
        let permission_flag = permission_flag(node_major(&node)?)?;
        let unshare =
            find_on_path("unshare").ok_or("`unshare` was not found on PATH (util-linux)")?;
        let setpriv =
            find_on_path("setpriv").ok_or("`setpriv` was not found on PATH (util-linux)")?;
        for tool in ["chroot", "mount"] {
            find_on_path(tool).ok_or(format!(
                "`{tool}` was not found on PATH (util-linux / coreutils)"
            ))?;
        }
        let jail = Jail {
            setpriv,
            unshare,
            node,
            permission_flag,
        };
        jail.check()?;
        Ok(jail)
    }

    /// The arguments of [`Jail::program`] that start node in the jail with `node_args`.
    pub(crate) fn args(&self, node_args: &[String]) -> Vec<String> {
        let mut args = vec![
            "--pdeathsig=KILL".to_string(),
            "--".to_string(),
            self.unshare.display().to_string(),
        ];
        args.extend(
            [
                "--net",
                "--mount",
                "--pid",
                "--fork",
                "--kill-child",
                "--",
                "/bin/sh",
                "-c",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        args.push(JAIL_SCRIPT.to_string());
        args.push("jail".to_string());
        args.push(self.node.display().to_string());
        args.push(self.permission_flag.to_string());
        args.push("--no-warnings".to_string());
        args.extend(node_args.iter().cloned());
        args
    }

    /// The program that starts the jail (`setpriv`, which then runs `unshare`).
    pub(crate) fn program(&self) -> &Path {
        &self.setpriv
    }

    fn check(&self) -> Result<(), String> {
        let mut child = Command::new(self.program())
            .args(self.args(&["-e".to_string(), CHECK_SCRIPT.to_string()]))
            .env_clear()
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.setpriv.display()))?;
        let started = Instant::now();
        while child.try_wait().map_err(|e| e.to_string())?.is_none() {
            if started.elapsed() > CHECK_TIMEOUT {
                let _killed = child.kill();
                let _reaped = child.wait();
                return Err("the jail check did not finish in time".into());
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let output = child.wait_with_output().map_err(|e| e.to_string())?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        if stdout == "isolated" {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = if stdout.is_empty() {
            last_line(&stderr)
        } else {
            stdout.to_string()
        };
        Err(format!(
            "node cannot run isolated here (needs root for namespaces): {why}"
        ))
    }
}

fn last_line(text: &str) -> String {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("no output")
        .trim()
        .to_string()
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

fn node_major(node: &Path) -> Result<u32, String> {
    let output = Command::new(node)
        .arg("--version")
        .env_clear()
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", node.display()))?;
    let version = String::from_utf8_lossy(&output.stdout);
    parse_major(&version).ok_or(format!(
        "unexpected `node --version` output: {}",
        version.trim()
    ))
}

fn parse_major(version: &str) -> Option<u32> {
    version
        .trim()
        .strip_prefix('v')?
        .split('.')
        .next()?
        .parse()
        .ok()
}

/// Node 20–21 call the permission model experimental; 22+ has `--permission`.
fn permission_flag(major: u32) -> Result<&'static str, String> {
    match major {
        0..=19 => Err(format!(
            "node {major} has no permission model (need 20 or newer)"
        )),
        20 | 21 => Ok("--experimental-permission"),
        _ => Ok("--permission"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_node_versions() {
        assert_eq!(parse_major("v20.20.2\n"), Some(20));
        assert_eq!(parse_major("v26.1.0"), Some(26));
        assert_eq!(parse_major("20.1"), None);
    }

    #[test]
    fn picks_the_permission_flag() {
        assert_eq!(permission_flag(20), Ok("--experimental-permission"));
        assert_eq!(permission_flag(24), Ok("--permission"));
        assert!(permission_flag(18).is_err());
    }

    #[test]
    fn missing_node_is_unavailable() {
        let err = Jail::prepare(Some(PathBuf::from("/nonexistent/node"))).err();
        assert_eq!(
            err.map(|e| e.starts_with("node at /nonexistent/node")),
            Some(true)
        );
    }
}
