//! Runs a real OpenClaw gateway as a child process: `node openclaw.mjs gateway run` on a loopback
//! port with no auth, an environment that keeps it inside a temp dir and away from the network, its
//! output captured in a log file, readiness taken from the log, and its whole process group killed
//! when the handle is dropped.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rustix::process::{kill_process_group, Pid, Signal};
use tokio::process::{Child, Command};

use super::{Installation, OpenClawError};
use crate::targets::timing::peak_kib;

/// The log line OpenClaw prints once its HTTP server accepts connections.
pub const READY_LINE: &str = "http server listening";
/// How long [`OpenClawGateway::start`] waits for [`READY_LINE`]. Generous: a start takes about
/// 8 s on an idle 2-core machine but took over 200 s on one busy with parallel builds.
pub const DEFAULT_START_TIMEOUT: Duration = Duration::from_secs(300);
/// How long [`OpenClawGateway::stop`] waits after SIGTERM before it sends SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(15);
/// Log lines that say a config change took effect without a restart.
const RELOAD_APPLIED: [&str; 2] = ["config hot reload applied", "config change applied"];
/// Log lines that say a config change did not take effect.
const RELOAD_FAILED: [&str; 4] = [
    "config reload skipped",
    "config reload failed",
    "config restart failed",
    "config hot-reload disabled",
];
/// Lines of log an error carries.
const LOG_TAIL_LINES: usize = 40;
/// How often a gateway start is tried when the product exits during start-up.
const START_ATTEMPTS: usize = 2;
const POLL_INTERVAL: Duration = Duration::from_millis(100);

/// The switches that keep a gateway from updating itself, advertising itself or starting
/// channels, the canvas host, the cron scheduler, the Gmail watcher, the browser control server
/// and the start-up model prewarm — the set the product's own headless update rehearsal uses
/// (without `OPENCLAW_SKIP_PROVIDERS`). None of them changes what a turn sends (the committed
/// snapshots did not change); together they leave the CPU to the start and the first turn.
pub(super) const QUIET_ENV: [(&str, &str); 8] = [
    ("OPENCLAW_NO_AUTO_UPDATE", "1"),
    ("OPENCLAW_DISABLE_BONJOUR", "1"),
    ("OPENCLAW_SKIP_CHANNELS", "1"),
    ("OPENCLAW_SKIP_CANVAS_HOST", "1"),
    ("OPENCLAW_SKIP_CRON", "1"),
    ("OPENCLAW_SKIP_GMAIL_WATCHER", "1"),
    ("OPENCLAW_SKIP_BROWSER_CONTROL_SERVER", "1"),
    ("OPENCLAW_SKIP_STARTUP_MODEL_PREWARM", "1"),
];

/// A running OpenClaw gateway. Dropping it kills the gateway and everything it spawned.
#[derive(Debug)]
pub struct OpenClawGateway {
    child: Child,
    pid: Option<Pid>,
    port: u16,
    log_path: PathBuf,
    ready_after: Duration,
}

impl OpenClawGateway {
    /// Starts a gateway on `127.0.0.1:port` with the config at `config_path` and its state in
    /// `state_dir` (created if needed; `HOME` is `state_dir/home`, the output log
    /// `state_dir/gateway.log`), and waits up to [`DEFAULT_START_TIMEOUT`] until it listens.
    pub async fn start(
        install: &Installation,
        config_path: &Path,
        state_dir: &Path,
        port: u16,
    ) -> Result<OpenClawGateway, OpenClawError> {
        OpenClawGateway::start_with_timeout(
            install,
            config_path,
            state_dir,
            port,
            DEFAULT_START_TIMEOUT,
        )
        .await
    }

    /// [`OpenClawGateway::start`] with an explicit readiness bound.
    pub async fn start_with_timeout(
        install: &Installation,
        config_path: &Path,
        state_dir: &Path,
        port: u16,
        timeout: Duration,
    ) -> Result<OpenClawGateway, OpenClawError> {
        OpenClawGateway::start_with_env(install, config_path, state_dir, port, timeout, &[]).await
    }

    /// [`OpenClawGateway::start_with_env`], tried once more when the product exits during its
    /// start-up: under heavy load its start-up migrations can time out (status 78, "state lease
    /// heartbeat did not become ready", a 5 s bound the product does not let a user set). Each try
    /// gets a fresh state directory under `state_root` (`state`, then `state-2`); `on_retry` hears
    /// of the failure before the second try, so the run says why it was slow. Returns the gateway
    /// and its state directory.
    pub async fn start_retrying(
        install: &Installation,
        config_path: &Path,
        state_root: &Path,
        timeout: Duration,
        env: &[(String, String)],
        mut on_retry: impl FnMut(&OpenClawError),
    ) -> Result<(OpenClawGateway, PathBuf), OpenClawError> {
        let mut attempt = 1;
        loop {
            let state_dir = match attempt {
                1 => state_root.join("state"),
                n => state_root.join(format!("state-{n}")),
            };
            let port = free_loopback_port()?;
            match OpenClawGateway::start_with_env(
                install,
                config_path,
                &state_dir,
                port,
                timeout,
                env,
            )
            .await
            {
                Err(e @ OpenClawError::EarlyExit { .. }) if attempt < START_ATTEMPTS => {
                    on_retry(&e);
                    attempt += 1;
                }
                started => return started.map(|gateway| (gateway, state_dir)),
            }
        }
    }

    /// [`OpenClawGateway::start_with_timeout`] with extra environment variables for the gateway
    /// (on top of the cleared environment it always gets).
    pub async fn start_with_env(
        install: &Installation,
        config_path: &Path,
        state_dir: &Path,
        port: u16,
        timeout: Duration,
        env: &[(String, String)],
    ) -> Result<OpenClawGateway, OpenClawError> {
        let home = state_dir.join("home");
        std::fs::create_dir_all(&home).map_err(OpenClawError::io("create directory", &home))?;
        let tmp = gateway_tmp(install, state_dir)?;
        let log_path = state_dir.join("gateway.log");
        let started = Instant::now();
        let dirs = GatewayDirs {
            state: state_dir,
            home: &home,
            tmp: &tmp,
        };
        let child = spawn(install, config_path, &dirs, port, &log_path, env)?;
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .and_then(Pid::from_raw);
        let mut gateway = OpenClawGateway {
            child,
            pid,
            port,
            log_path,
            ready_after: Duration::ZERO,
        };
        gateway.wait_ready(started, timeout).await?;
        gateway.ready_after = started.elapsed();
        Ok(gateway)
    }

    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The file holding the gateway's stdout and stderr.
    pub fn log_path(&self) -> &Path {
        &self.log_path
    }

    /// Time from spawn to [`READY_LINE`].
    pub fn ready_after(&self) -> Duration {
        self.ready_after
    }

    /// Peak resident memory in KiB of the gateway's main process and the sum over its process
    /// group (its helper processes included), read from `/proc` while it runs.
    pub fn peak_kib(&self) -> (u64, u64) {
        let Some(pid) = self.pid else {
            return (0, 0);
        };
        let main = pid.as_raw_nonzero().get();
        let peak = |p: i32| u32::try_from(p).ok().and_then(peak_kib).unwrap_or(0);
        let group: u64 = group_members(main).into_iter().map(peak).sum();
        (peak(main), group.max(peak(main)))
    }

    /// The last lines of the gateway's output.
    pub fn log_tail(&self) -> String {
        log_tail(&self.log_path)
    }

    /// The length of the gateway's log so far: a mark to wait for later lines from.
    pub fn log_mark(&self) -> u64 {
        std::fs::metadata(&self.log_path).map_or(0, |m| m.len())
    }

    /// Waits until the log, after `mark`, says a config change was applied (hot, or as a
    /// change read dynamically), and fails when it says the reload was skipped or failed, when the
    /// gateway exits, or after `timeout`.
    pub async fn wait_for_reload(
        &mut self,
        mark: u64,
        timeout: Duration,
    ) -> Result<(), OpenClawError> {
        let started = Instant::now();
        loop {
            let text = log_since(&self.log_path, mark);
            if let Some(line) = text
                .lines()
                .find(|l| RELOAD_FAILED.iter().any(|f| l.contains(f)))
            {
                return Err(OpenClawError::Reload {
                    message: line.to_string(),
                    log_tail: self.log_tail(),
                });
            }
            if text
                .lines()
                .any(|l| RELOAD_APPLIED.iter().any(|a| l.contains(a)))
            {
                return Ok(());
            }
            self.check_running()?;
            if started.elapsed() >= timeout {
                return Err(OpenClawError::Reload {
                    message: format!(
                        "no `{}` in the log within {} s of the config change",
                        RELOAD_APPLIED[0],
                        timeout.as_secs()
                    ),
                    log_tail: self.log_tail(),
                });
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// An error when the gateway process has exited.
    fn check_running(&mut self) -> Result<(), OpenClawError> {
        let exited = self
            .child
            .try_wait()
            .map_err(OpenClawError::io("wait for the gateway", &self.log_path))?;
        match exited {
            Some(status) => {
                self.pid = None;
                Err(self.early_exit(status.to_string()))
            }
            None => Ok(()),
        }
    }

    /// Kills the gateway and everything in its process group at once and waits for it: for a
    /// run that has read all it needs (its state is a temp dir, nothing to flush).
    pub async fn kill(mut self) {
        self.signal(Signal::KILL);
        let _ = self.child.wait().await;
        self.pid = None;
    }

    /// Stops the gateway: SIGTERM to its process group, then SIGKILL after [`STOP_GRACE`].
    pub async fn stop(mut self) -> Result<(), OpenClawError> {
        self.signal(Signal::TERM);
        if tokio::time::timeout(STOP_GRACE, self.child.wait())
            .await
            .is_err()
        {
            self.signal(Signal::KILL);
            self.child
                .wait()
                .await
                .map_err(OpenClawError::io("wait for the gateway", &self.log_path))?;
        }
        // The group may still hold helpers the gateway spawned; they must not outlive it.
        self.signal(Signal::KILL);
        self.pid = None;
        Ok(())
    }

    async fn wait_ready(
        &mut self,
        started: Instant,
        timeout: Duration,
    ) -> Result<(), OpenClawError> {
        loop {
            if log_contains(&self.log_path, READY_LINE) {
                return Ok(());
            }
            let exited = self
                .child
                .try_wait()
                .map_err(OpenClawError::io("wait for the gateway", &self.log_path))?;
            if let Some(status) = exited {
                self.pid = None;
                return Err(self.early_exit(status.to_string()));
            }
            if started.elapsed() >= timeout {
                return Err(OpenClawError::StartTimeout {
                    seconds: timeout.as_secs(),
                    log_tail: self.log_tail(),
                });
            }
            tokio::time::sleep(POLL_INTERVAL).await;
        }
    }

    /// The error of a gateway that exited with `status`: the product's own reason from its
    /// output (stdout and stderr both go to the log) on the first line, the log's tail after.
    fn early_exit(&self, status: String) -> OpenClawError {
        let text = std::fs::read(&self.log_path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        OpenClawError::EarlyExit {
            status,
            reason: product_reason(&text),
            log_tail: self.log_tail(),
        }
    }

    /// Signals the whole process group; a group that is already gone is not an error.
    fn signal(&self, signal: Signal) {
        if let Some(pid) = self.pid {
            let _ = kill_process_group(pid, signal);
        }
    }
}

impl Drop for OpenClawGateway {
    fn drop(&mut self) {
        self.signal(Signal::KILL);
    }
}

/// Where a gateway keeps its files: all inside its run's directory, so they go with it.
struct GatewayDirs<'a> {
    state: &'a Path,
    home: &'a Path,
    /// Its `TMPDIR`: the product writes a build directory per plugin load and a lock file per
    /// state directory into the temp dir and leaves them there (in `/tmp`, 30 plugin builds of
    /// 6.7 MB and 673 lock files after a day of runs).
    tmp: &'a Path,
}

/// The gateway's own temp dir, `<state>/tmp`, holding a link to the release's compile cache.
/// The product keeps its V8 compile cache in `<tmp>/node-compile-cache` (the launcher's own
/// choice; given `NODE_COMPILE_CACHE` instead it starts itself a second time to move there), so
/// the link keeps that cache across runs, beside the install, while everything else the
/// product writes to its temp dir goes with the run.
fn gateway_tmp(install: &Installation, state_dir: &Path) -> Result<PathBuf, OpenClawError> {
    let tmp = state_dir.join("tmp");
    std::fs::create_dir_all(&tmp).map_err(OpenClawError::io("create directory", &tmp))?;
    let cache = install.prefix.join("node-compile-cache");
    std::fs::create_dir_all(&cache).map_err(OpenClawError::io("create directory", &cache))?;
    let link = tmp.join("node-compile-cache");
    std::os::unix::fs::symlink(&cache, &link).map_err(OpenClawError::io("link", &link))?;
    Ok(tmp)
}

fn spawn(
    install: &Installation,
    config_path: &Path,
    dirs: &GatewayDirs<'_>,
    port: u16,
    log_path: &Path,
    env: &[(String, String)],
) -> Result<Child, OpenClawError> {
    let log = std::fs::File::create(log_path).map_err(OpenClawError::io("create", log_path))?;
    let log_err = log
        .try_clone()
        .map_err(OpenClawError::io("reopen", log_path))?;
    let mut command = Command::new(&install.node);
    command
        .arg(&install.openclaw_mjs)
        .args([
            "gateway",
            "run",
            "--port",
            &port.to_string(),
            "--bind",
            "loopback",
            "--auth",
            "none",
        ])
        .current_dir(dirs.state)
        .env_clear()
        .env("PATH", search_path(&install.node))
        .env("HOME", dirs.home)
        .env("TMPDIR", dirs.tmp)
        .env("OPENCLAW_CONFIG_PATH", config_path)
        .env("OPENCLAW_STATE_DIR", dirs.state)
        .envs(QUIET_ENV)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .process_group(0)
        .kill_on_drop(true);
    command.spawn().map_err(|source| OpenClawError::Spawn {
        program: install.node.clone(),
        source,
    })
}

/// `PATH` with the install's Node first, so anything the gateway runs as `node` is a version
/// OpenClaw accepts (the system one may be too old).
pub(super) fn search_path(node: &Path) -> std::ffi::OsString {
    let inherited = std::env::var_os("PATH").unwrap_or_default();
    let dirs = node
        .parent()
        .map(Path::to_path_buf)
        .into_iter()
        .chain(std::env::split_paths(&inherited));
    std::env::join_paths(dirs).unwrap_or(inherited)
}

/// A free loopback port, for a gateway to be started on. (Another process may take it before
/// the gateway binds; a start then fails with the gateway's own error in the log tail.)
pub fn free_loopback_port() -> Result<u16, OpenClawError> {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0))
        .map_err(OpenClawError::io("bind a loopback port", "127.0.0.1:0"))?;
    let port = listener
        .local_addr()
        .map_err(OpenClawError::io("read the address of", "127.0.0.1:0"))?
        .port();
    Ok(port)
}

/// The processes of process group `group` (from `/proc/<pid>/stat`: field 5 is the group).
fn group_members(group: i32) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            // The command name (field 2) is in parentheses and may hold spaces.
            let fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
            fields.split_whitespace().nth(2) == Some(&group.to_string())
        })
        .collect()
}

/// The log's text after byte `mark` (empty when it cannot be read).
fn log_since(path: &Path, mark: u64) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let start = usize::try_from(mark).unwrap_or(usize::MAX).min(bytes.len());
    String::from_utf8_lossy(&bytes[start..]).into_owned()
}

fn log_contains(path: &Path, needle: &str) -> bool {
    std::fs::read(path).is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(needle))
}

/// Why the product says it stopped, in one line: its last line that reports a failure or an
/// error, with the lines that follow it up to the first blank line or its advice to run a
/// command (at most four), each without its timestamp; else its last line; else that it printed
/// nothing.
pub fn product_reason(log: &str) -> String {
    let lines: Vec<&str> = log.lines().map(strip_timestamp).collect();
    let failing = |line: &str| {
        let lower = line.to_ascii_lowercase();
        ["fail", "error", "invalid", "refus", "cannot", "unsupported"]
            .iter()
            .any(|w| lower.contains(w))
    };
    let Some(start) = lines.iter().rposition(|l| failing(l)) else {
        return match lines.iter().rev().find(|l| !l.trim().is_empty()) {
            Some(last) => last.trim().to_string(),
            None => "it printed nothing on stdout or stderr".into(),
        };
    };
    // The reason may span lines (`Invalid config at …:` then one line per key).
    let first = lines[..=start]
        .iter()
        .rposition(|l| l.to_ascii_lowercase().contains("failed to start"))
        .filter(|&i| start - i < 4)
        .unwrap_or(start);
    lines[first..]
        .iter()
        .take_while(|l| !l.trim().is_empty() && !l.trim_start().starts_with("Run "))
        .take(5)
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A log line without OpenClaw's leading ISO timestamp.
fn strip_timestamp(line: &str) -> &str {
    let stamped = line.len() > 20
        && line.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && line.as_bytes()[4] == b'-'
        && line.as_bytes()[10] == b'T';
    match stamped {
        true => line.split_once(' ').map_or(line, |(_, rest)| rest),
        false => line,
    }
}

/// The last [`LOG_TAIL_LINES`] lines of a log file (empty when it cannot be read).
pub fn log_tail(path: &Path) -> String {
    let Ok(bytes) = std::fs::read(path) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
}

#[cfg(test)]
mod tests {
    use super::product_reason;

    #[test]
    fn the_products_reason_is_one_line() {
        // What OpenClaw 2026.7.35 prints when the harness's config has keys it does not know.
        let log = "2026-12-01T16:24:24.542+00:00 [gateway] starting...\n\
            2026-12-01T16:24:27.929+00:00 [gateway] wrote stability bundle: /tmp/x.json\n\
            2026-12-01T16:24:27.929+00:00 Gateway failed to start: Invalid config at /tmp/c.json:\n\
            models: Invalid input\n\
            agents: Invalid input\n\
            Run \"openclaw doctor --fix\" to repair, then retry.\n";
        assert_eq!(
            product_reason(log),
            "Gateway failed to start: Invalid config at /tmp/c.json: models: Invalid input agents: Invalid input"
        );
        assert_eq!(product_reason("a\nlast words\n\n"), "last words");
        assert_eq!(product_reason(""), "it printed nothing on stdout or stderr");
    }
}
