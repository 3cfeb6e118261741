//! The project's MCP fixture servers, as real stdio MCP servers: `toolsearch-qa mcp-fixture
//! --server NAME` serves one on its stdin/stdout, and both targets start them as child processes
//! by command — the embedded gateway from its `mcp.servers` config, a real OpenClaw gateway from
//! the same config key — so every MCP call crosses a process boundary as it does in production.
//!
//! - `calendar`: `create_event` and `list_events`; `qa`: `mcp_qa_echo` (see [`server`]).
//! - Fault fixtures, for the error paths: [`EXIT_AT_ONCE`] exits before speaking,
//!   [`GARBAGE`] answers every line with text that is not JSON-RPC, [`HANG_ON_LIST`] answers
//!   `initialize` and never `tools/list`, [`QA_RENAMED`] is `qa` with its tool renamed, and
//!   [`QA_EXIT_AFTER_CALL`] is `qa` until its first `tools/call`: it answers that one and exits,
//!   and stays down (a restart exits at once), as an MCP server that died mid-session;
//!   [`INVALID_SCHEMA`] lists a tool whose input schema is no JSON Schema.
//! - A JSON tool list (`mcp-fixture --tool-list FILE`, [`tool_list`]): someone's own tools, served
//!   as they are written, for `compare --catalog FILE.json`.

pub mod server;
pub mod tool_list;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rmcp::ServiceExt;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

pub use server::{fixture_server, tool_names, FixtureServer, QA_ECHO_TOOL, QA_SERVER};

/// The fixture servers with tools, by name.
pub const SERVERS: [&str; 2] = ["calendar", "qa"];
/// Fault fixture: exits with status 1 before saying anything.
pub const EXIT_AT_ONCE: &str = "fault-exit";
/// Fault fixture: answers every line it reads with a line that is not JSON-RPC.
pub const GARBAGE: &str = "fault-garbage";
/// Fault fixture: answers `initialize`, never `tools/list`.
pub const HANG_ON_LIST: &str = "fault-hang-on-list";
/// Fault fixture: the `qa` server with its tool renamed (`mcp_qa_echo_v2`), as after an
/// upgrade of the server between two runs.
pub const QA_RENAMED: &str = "fault-qa-renamed";
/// Fault fixture: the `qa` server until its first `tools/call`, which it answers and then exits
/// (openclaw/openclaw#137398: a server that went away mid-session). It leaves
/// [`EXITED_MARKER`] in its working directory (the lane's), so a client that starts it again gets
/// a server that exits at once: down for the rest of the lane.
pub const QA_EXIT_AFTER_CALL: &str = "qa-exit-after-call";
/// The file [`QA_EXIT_AFTER_CALL`] leaves in its working directory once it has served its call.
pub const EXITED_MARKER: &str = ".qa-exit-after-call.exited";
/// Fault fixture: lists one tool whose input schema is no JSON Schema (a property of type
/// `"strin"`), as a server with a broken schema generator would.
pub const INVALID_SCHEMA: &str = "fault-invalid-schema";
/// Every name `mcp-fixture --server` accepts.
pub const ALL: [&str; 8] = [
    "calendar",
    "qa",
    EXIT_AT_ONCE,
    GARBAGE,
    HANG_ON_LIST,
    QA_RENAMED,
    QA_EXIT_AFTER_CALL,
    INVALID_SCHEMA,
];

/// Environment variable naming the `toolsearch-qa` binary that serves the fixtures, for a
/// harness embedded in another program (by default: this executable, or the `toolsearch-qa`
/// beside a test binary in cargo's `target/<profile>/deps/`).
pub const PROGRAM_ENV: &str = "TOOLSEARCH_QA_BIN";

#[derive(Debug, thiserror::Error)]
pub enum FixtureError {
    #[error("unknown MCP fixture server {name:?}; known: {}", ALL.join(", "))]
    Unknown { name: String },
    #[error("MCP fixture server {server}: {message}")]
    Serve { server: String, message: String },
    #[error("cannot find the toolsearch-qa binary that serves the MCP fixtures ({0}); set {PROGRAM_ENV}")]
    NoProgram(String),
}

/// How to start a fixture server: the command line both targets put into `mcp.servers.<name>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchSpec {
    pub command: PathBuf,
    pub args: Vec<String>,
}

/// The command line that starts fixture `server` (any name; an unknown one fails when it starts,
/// which is how the error path is exercised).
pub fn launch(server: &str) -> Result<LaunchSpec, FixtureError> {
    Ok(LaunchSpec {
        command: program()?,
        args: vec!["mcp-fixture".into(), "--server".into(), server.into()],
    })
}

/// The executable that said it is the harness ([`serve_from_this_executable`]), whatever its
/// file is named.
static HARNESS: OnceLock<PathBuf> = OnceLock::new();

/// Called by the `toolsearch-qa` binary before it runs a command: this executable serves the
/// fixtures even when its file was copied or renamed (a lookup by name would miss it).
pub fn serve_from_this_executable() {
    if let Ok(exe) = std::env::current_exe() {
        let _ = HARNESS.set(exe);
    }
}

/// The `toolsearch-qa` binary: `$TOOLSEARCH_QA_BIN`, else this executable when it is the
/// harness's own binary (under any name) or named `toolsearch-qa`, else the `toolsearch-qa` next
/// to cargo's `deps/` directory (integration tests and benches run from there).
pub fn program() -> Result<PathBuf, FixtureError> {
    let exe = std::env::current_exe().map_err(|e| FixtureError::NoProgram(e.to_string()));
    resolve_program(
        std::env::var_os(PROGRAM_ENV).filter(|v| !v.is_empty()),
        HARNESS.get().map(PathBuf::as_path),
        exe,
    )
}

fn resolve_program(
    given: Option<std::ffi::OsString>,
    harness: Option<&Path>,
    exe: Result<PathBuf, FixtureError>,
) -> Result<PathBuf, FixtureError> {
    if let Some(path) = given {
        return Ok(PathBuf::from(path));
    }
    if let Some(path) = harness {
        return Ok(path.to_path_buf());
    }
    let exe = exe?;
    if exe.file_stem().is_some_and(|s| s == "toolsearch-qa") {
        return Ok(exe);
    }
    let beside = exe
        .parent()
        .filter(|dir| dir.file_name().is_some_and(|n| n == "deps"))
        .and_then(Path::parent)
        .map(|dir| dir.join("toolsearch-qa"));
    match beside {
        Some(path) if path.is_file() => Ok(path),
        _ => Err(FixtureError::NoProgram(format!(
            "{} is not toolsearch-qa and has none beside it",
            exe.display()
        ))),
    }
}

/// The fixture server (of [`SERVERS`]) that has a tool named `tool`, among `servers`.
pub fn server_of_tool<'a>(servers: &'a [String], tool: &str) -> Option<&'a str> {
    servers
        .iter()
        .find(|s| tool_names(s).iter().any(|t| t == tool))
        .map(String::as_str)
}

/// Serves fixture `name` on stdin/stdout until the client closes stdin.
pub async fn serve_stdio(name: &str) -> Result<(), FixtureError> {
    let serve_error = |e: &dyn std::fmt::Display| FixtureError::Serve {
        server: name.to_string(),
        message: e.to_string(),
    };
    match name {
        EXIT_AT_ONCE => {
            eprintln!("mcp-fixture {EXIT_AT_ONCE}: exiting before the handshake, as asked");
            std::process::exit(1);
        }
        GARBAGE => return answer_garbage().await.map_err(|e| serve_error(&e)),
        QA_EXIT_AFTER_CALL if Path::new(EXITED_MARKER).exists() => {
            eprintln!("mcp-fixture {QA_EXIT_AFTER_CALL}: served its call already, exiting");
            std::process::exit(1);
        }
        _ => {}
    }
    let handler = fixture_server(name).ok_or_else(|| FixtureError::Unknown {
        name: name.to_string(),
    })?;
    if name == QA_EXIT_AFTER_CALL {
        return serve_until_called(handler)
            .await
            .map_err(|e| serve_error(&e));
    }
    serve_on_stdio(handler, name).await
}

/// Serves `handler` on stdin/stdout until the client closes stdin; an error names `server`.
async fn serve_on_stdio<S: rmcp::ServerHandler>(
    handler: S,
    server: &str,
) -> Result<(), FixtureError> {
    let serve_error = |e: &dyn std::fmt::Display| FixtureError::Serve {
        server: server.to_string(),
        message: e.to_string(),
    };
    let running = handler
        .serve(rmcp::transport::io::stdio_pipes())
        .await
        .map_err(|e| serve_error(&e))?;
    running.waiting().await.map_err(|e| serve_error(&e))?;
    Ok(())
}

/// [`QA_EXIT_AFTER_CALL`]: the server writes into a pipe whose lines are copied to stdout, and the
/// process exits as soon as the first call's answer is out, so no later request ever meets a live
/// server (an exit on a timer would race the client's next call).
async fn serve_until_called(handler: FixtureServer) -> std::io::Result<()> {
    let (server_end, relay_end) = tokio::io::duplex(64 * 1024);
    let running = handler
        .serve((tokio::io::stdin(), server_end))
        .await
        .map_err(std::io::Error::other)?;
    let mut lines = BufReader::new(relay_end).lines();
    let mut stdout = tokio::io::stdout();
    while let Some(line) = lines.next_line().await? {
        stdout.write_all(format!("{line}\n").as_bytes()).await?;
        stdout.flush().await?;
        if line.contains(crate::catalog::fake::FAKE_OK) {
            eprintln!("mcp-fixture {QA_EXIT_AFTER_CALL}: served its call, exiting");
            std::process::exit(0);
        }
    }
    drop(running);
    Ok(())
}

/// The [`GARBAGE`] fixture: one line of noise per line read, until stdin closes.
async fn answer_garbage() -> std::io::Result<()> {
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while lines.next_line().await?.is_some() {
        stdout.write_all(b"this is not JSON-RPC\n").await?;
        stdout.flush().await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_are_found_on_their_server() {
        let servers = vec!["calendar".to_string(), "qa".to_string()];
        assert_eq!(server_of_tool(&servers, QA_ECHO_TOOL), Some("qa"));
        assert_eq!(server_of_tool(&servers, "list_events"), Some("calendar"));
        assert_eq!(server_of_tool(&servers, "nope"), None);
        assert_eq!(tool_names(HANG_ON_LIST), Vec::<String>::new());
    }

    #[test]
    fn the_harness_binary_is_found_under_any_name() {
        let renamed = PathBuf::from("/opt/bin/tsq");
        let exe = || Ok(renamed.clone());
        // Renamed, it is found once it said it is the harness, and not by its name.
        assert_eq!(
            resolve_program(None, Some(&renamed), exe()).unwrap(),
            renamed
        );
        let err = resolve_program(None, None, exe()).unwrap_err().to_string();
        assert!(err.contains("/opt/bin/tsq is not toolsearch-qa"), "{err}");
        // The variable wins over both; a binary named toolsearch-qa is itself.
        let given = resolve_program(Some("/x/y".into()), Some(&renamed), exe()).unwrap();
        assert_eq!(given, PathBuf::from("/x/y"));
        let named = PathBuf::from("/opt/bin/toolsearch-qa");
        assert_eq!(
            resolve_program(None, None, Ok(named.clone())).unwrap(),
            named
        );
    }
}
