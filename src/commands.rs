//! The small commands that are only glue between a room and the terminal: `list`, `provider`
//! and `gateway`. (The suite, compare, quality, load and probes have their rooms and their own
//! `command` functions.)

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::error::{temp_dir, Error, Exit};
use crate::output::{emit, warn};
use crate::provider::{MockProvider, ProviderOptions, ScriptedTurn};
use crate::scenario::{load_all, ScriptStep};
use crate::signals::Signals;

/// `list`: one line per scenario (id, title, lanes, origin).
pub fn list(dirs: &[PathBuf], out: &mut dyn Write) -> Result<u8, Error> {
    let mut text = String::new();
    for s in load_all(dirs)? {
        let lanes: Vec<&str> = s.lanes.iter().map(|l| l.name.as_str()).collect();
        text.push_str(&format!(
            "{}\t{}\tlanes: {}\t({})\n",
            s.id,
            s.title,
            lanes.join(", "),
            s.origin
        ));
    }
    emit(out, &text)?;
    Ok(Exit::OK)
}

/// `provider`: the mock provider on loopback until SIGINT, SIGTERM or SIGHUP; with `script`,
/// following that model script instead of the prompt's directive.
pub async fn provider(
    port: u16,
    script: Option<&Path>,
    signals: &mut Signals,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let script = script.map(load_script).transpose()?;
    let turns = script.as_ref().map_or(0, Vec::len);
    let provider = MockProvider::start_with(ProviderOptions {
        port: Some(port),
        script,
        ..ProviderOptions::default()
    })
    .await?;
    let scripted = match turns {
        0 => String::new(),
        n => format!(" (scripted, {n} turns)"),
    };
    emit(
        out,
        &format!(
            "mock provider listening: {}{scripted}\n",
            provider.base_url()
        ),
    )?;
    stop_on_signals(provider.stop(), signals).await;
    Ok(Exit::OK)
}

/// The `[[script]]` tables of a TOML file (a scenario file's, or a file of only those).
#[derive(serde::Deserialize)]
struct ScriptFile {
    #[serde(default)]
    script: Vec<ScriptStep>,
}

/// Reads a model script file; errors name the file and the step.
pub fn load_script(path: &Path) -> Result<Vec<ScriptedTurn>, Error> {
    let text = std::fs::read_to_string(path).map_err(Error::io("cannot read script", path))?;
    let origin = path.display();
    let file: ScriptFile = toml::from_str(&text)
        .map_err(|e| Error::Usage(format!("script {origin}: {}", e.to_string().trim_end())))?;
    if file.script.is_empty() {
        return Err(Error::Usage(format!(
            "script {origin}: no [[script]] tables; each needs `tool` (+ `arguments`) or `text`"
        )));
    }
    file.script
        .iter()
        .enumerate()
        .map(|(i, step)| {
            step.to_turn().ok_or_else(|| {
                Error::Usage(format!(
                    "script {origin}: step {}: needs either `tool` (with optional `arguments`) or `text`",
                    i + 1
                ))
            })
        })
        .collect()
}

/// `gateway`: the embedded gateway with the config at `config` on loopback until SIGINT,
/// SIGTERM or SIGHUP; session logs go to `state_dir` (a fresh temporary directory when not
/// given, removed at the end).
pub async fn gateway(
    config: &Path,
    state_dir: Option<PathBuf>,
    port: u16,
    signals: &mut Signals,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let loaded = crate::config::load_file(config)?;
    let (state_dir, _keep) = match state_dir {
        Some(dir) => (dir, None),
        None => {
            let temp = temp_dir("tsqa-gateway-")?;
            (temp.path().to_path_buf(), Some(temp))
        }
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let gateway = crate::gateway::serve(loaded, state_dir.clone(), addr).await?;
    emit(
        out,
        &format!(
            "gateway listening: {} (state dir {})\n",
            gateway.base_url(),
            state_dir.display()
        ),
    )?;
    stop_on_signals(gateway.stop(), signals).await;
    Ok(Exit::OK)
}

/// Waits for a signal, then runs `stop` (which lets requests in flight finish, for a bounded
/// time); a second signal ends the wait at once.
async fn stop_on_signals(stop: impl std::future::Future<Output = ()>, signals: &mut Signals) {
    let first = signals.next().await;
    warn(&format!(
        "{}: stopping (requests in flight may finish; a second signal stops at once)",
        first.name()
    ));
    tokio::select! {
        () = stop => {}
        second = signals.next() => warn(&format!("{}: stopped at once", second.name())),
    }
}
