//! The small commands that are only glue between a room and the terminal: `list`, `check`,
//! `new-scenario`, `provider` and `gateway`. (The suite, compare, quality, load and probes have
//! their rooms and their own `command` functions.)

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use crate::catalog::fake::size_problem;
use crate::error::{temp_dir, Error, Exit};
use crate::output::shell_line;
use crate::output::{emit, warn};
use crate::provider::{MockProvider, ProviderOptions, ScriptedTurn};
use crate::scenario::load::{id_problem, toml_files};
use crate::scenario::template::new_scenario as template;
use crate::scenario::{check_file, load_all, Scenario, ScriptStep};
use crate::signals::Signals;
use crate::suite::select::{choose, Origins};

/// `list`: one line per scenario (id, title, lanes, origin): the built-in ones, or those of
/// `dirs` (both with `with_builtins`), as `suite` would choose from.
pub fn list(dirs: &[PathBuf], with_builtins: bool, out: &mut dyn Write) -> Result<u8, Error> {
    let mut text = String::new();
    let origins = Origins::from_flags(!dirs.is_empty(), with_builtins);
    for s in choose(&load_all(dirs)?, origins, &[])? {
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

/// `check`: loads every scenario file given (a directory: its `*.toml` files) without running
/// anything. One `ok` line per good file on `out`, one error line per bad one on `err` (with
/// the offending line and a caret when `excerpts`); exit 0 when all load, 2 when any does not.
pub fn check(
    paths: &[PathBuf],
    excerpts: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<u8, Error> {
    let built_in = load_all(&[])?;
    let mut files = Vec::new();
    for path in paths {
        match path.is_dir() {
            true => files.extend(toml_files(path)?),
            false => files.push(path.clone()),
        }
    }
    let mut loaded: Vec<Scenario> = Vec::new();
    let mut bad = 0;
    for file in &files {
        let checked = check_file(file)
            .map_err(Error::from)
            .and_then(|s| unique(s, file, &built_in, &loaded));
        match checked {
            Ok(scenario) => {
                let lanes: Vec<&str> = scenario.lanes.iter().map(|l| l.name.as_str()).collect();
                emit(
                    out,
                    &format!(
                        "ok {} (scenario {}: lanes {})\n",
                        file.display(),
                        scenario.id,
                        lanes.join(", ")
                    ),
                )?;
                loaded.push(scenario);
            }
            Err(error) => {
                bad += 1;
                emit(err, &error.report(excerpts))?;
            }
        }
    }
    if files.is_empty() {
        return Err(Error::Usage("check: no scenario files given".into()));
    }
    Ok(if bad == 0 { Exit::OK } else { Exit::USAGE })
}

/// `scenario`, unless its id is taken by a built-in scenario (other than this very file) or by
/// a file checked before it.
fn unique(
    scenario: Scenario,
    file: &Path,
    built_in: &[Scenario],
    before: &[Scenario],
) -> Result<Scenario, Error> {
    let taken = built_in
        .iter()
        .filter(|b| !file.ends_with(&b.origin))
        .chain(before)
        .find(|o| o.id == scenario.id);
    match taken {
        Some(other) => Err(Error::from(crate::scenario::ScenarioError::Duplicate {
            id: scenario.id,
            first: other.origin.clone(),
            second: file.display().to_string(),
        })),
        None => Ok(scenario),
    }
}

/// `new-scenario`: writes `<dir>/<id>.toml` — every lane mode with exact expectations, passing
/// as written — and prints the commands of the author's loop, from checking it to accepted
/// snapshots.
pub fn new_scenario(id: &str, dir: &Path, size: usize, out: &mut dyn Write) -> Result<u8, Error> {
    if let Some(problem) = id_problem(id) {
        return Err(Error::Usage(format!("new-scenario: scenario id {problem}")));
    }
    if let Some(problem) = size_problem(size as u64) {
        return Err(Error::Usage(format!("new-scenario: --size: {problem}")));
    }
    if load_all(&[])?.iter().any(|s| s.id == id) {
        return Err(Error::Usage(format!(
            "new-scenario: {id:?} is the id of a built-in scenario; choose another"
        )));
    }
    let path = dir.join(format!("{id}.toml"));
    if path.exists() {
        return Err(Error::Usage(format!(
            "new-scenario: {} exists; not overwriting it",
            path.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create", dir))?;
    let text = template(id, &path.display().to_string(), size);
    std::fs::write(&path, text).map_err(Error::io("cannot write", &path))?;
    let scenario = check_file(&path)?;
    let lanes: Vec<&str> = scenario.lanes.iter().map(|l| l.name.as_str()).collect();
    let mut text = format!(
        "wrote {} (scenario {id}: lanes {}); next:\n",
        path.display(),
        lanes.join(", ")
    );
    text.push_str(&next_steps(&path, dir, id));
    emit(out, &text)?;
    Ok(Exit::OK)
}

/// The author's loop for a new scenario file `path` in `dir`, one command a line with what it
/// does: each pasted as printed, in the directory `new-scenario` ran in, does its step (its
/// snapshots live beside it, in `dir/snapshots/`).
fn next_steps(path: &Path, dir: &Path, id: &str) -> String {
    let dir_text = dir.display().to_string();
    let path_text = path.display().to_string();
    let snapshots = dir.join("snapshots").display().to_string();
    let suite = |extra: &[&str]| {
        let mut words = vec!["toolsearch-qa", "suite", "--scenario-dir", &dir_text];
        words.extend(["--scenario", id]);
        words.extend_from_slice(extra);
        shell_line(&words)
    };
    let settle = |action: &str| {
        shell_line(&[
            "toolsearch-qa",
            "snapshots",
            action,
            "--snapshot-dir",
            &snapshots,
            "--scenario",
            id,
        ])
    };
    let steps = [
        (
            shell_line(&["toolsearch-qa", "check", &path_text]),
            "check it (runs nothing)".to_string(),
        ),
        (suite(&["--no-snapshots"]), "run it".to_string()),
        (
            suite(&["--update-snapshots"]),
            format!("write its snapshots for review (into {snapshots}/; exit 1 until accepted)"),
        ),
        (settle("review"), "see them as diffs".to_string()),
        (
            settle("accept"),
            "accept them (then commit them with the file)".to_string(),
        ),
        (
            suite(&[]),
            "from then on, any drift fails it (exit 1)".to_string(),
        ),
    ];
    steps
        .iter()
        .map(|(command, what)| format!("  # {what}\n  {command}\n"))
        .collect()
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
    let text = crate::error::read_given("script", path)?;
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
