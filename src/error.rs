//! The project's errors as values, and the one place that turns them into exit codes.
//!
//! A claim that fails is not an error: it is a verdict (exit 1, [`Exit::FAILED`]). An error means a
//! command could not produce its verdicts: either what it was given is wrong (exit 2,
//! [`Exit::USAGE`]: a flag, a scenario, a gateway config) or something it depends on would not do
//! its part (exit 3, [`Exit::INFRA`]: the provider, a gateway, the file system, the network).
//!
//! This module is the ground floor: it imports no other room. The errors the rooms above own
//! (a scenario, a config, a profile, the provider, the gateway) come in as an [`Owned`], each
//! room converting its own error and saying its exit code.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

/// The exit codes of `toolsearch-qa`, named once (the README's table is checked against them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Exit;

impl Exit {
    /// Every claim holds, every snapshot matches, every probe is contained.
    pub const OK: u8 = 0;
    /// A claim failed, a snapshot changed, a probe escaped, search quality regressed.
    pub const FAILED: u8 = 1;
    /// Usage, scenario or config error: what the command was given is wrong.
    pub const USAGE: u8 = 2;
    /// Infrastructure error: the provider, a gateway or the machine would not do its part.
    pub const INFRA: u8 = 3;
    /// Ended by SIGHUP (128 + 1) before its verdict; what it started is cleaned up.
    pub const HUNG_UP: u8 = 129;
    /// Ended by SIGINT, Ctrl-C (128 + 2), before its verdict; what it started is cleaned up.
    pub const INTERRUPTED: u8 = 130;
    /// Ended by SIGTERM (128 + 15) before its verdict; what it started is cleaned up.
    pub const TERMINATED: u8 = 143;

    /// Every code with its one-line meaning, in order (for `--help` and the README).
    pub const TABLE: [(u8, &'static str); 7] = [
        (Exit::OK, "every claim holds (and every snapshot matches)"),
        (
            Exit::FAILED,
            "a claim failed, a snapshot changed, is missing or waits for review",
        ),
        (Exit::USAGE, "usage, scenario or config error"),
        (
            Exit::INFRA,
            "infrastructure error: the provider, a gateway or the machine would not do its part",
        ),
        (Exit::HUNG_UP, "ended by SIGHUP before the verdict"),
        (
            Exit::INTERRUPTED,
            "ended by SIGINT (Ctrl-C) before the verdict",
        ),
        (Exit::TERMINATED, "ended by SIGTERM before the verdict"),
    ];
}

/// An error a room above this one owns, as [`Error`] holds it: the room says which exit code it
/// ends the command with and, when it has several problems to list, how it is written to stderr.
pub trait Owned: std::error::Error + Send + Sync + 'static {
    /// The exit code this error ends the command with.
    fn exit_code(&self) -> u8;
    /// The `error: …` lines written to stderr, when they are not the one line of its message.
    fn report(&self, _excerpts: bool) -> Option<String> {
        None
    }
}

/// A room's own error inside an [`Error`]: displays and chains as the error it holds.
pub struct Cause(Box<dyn Owned>);

impl Cause {
    pub fn new(error: impl Owned) -> Cause {
        Cause(Box::new(error))
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// Why a command could not produce its result.
#[derive(Debug, Error)]
pub enum Error {
    /// A flag or argument that cannot be used as given.
    #[error("{0}")]
    Usage(String),
    /// A scenario file that does not load.
    #[error(transparent)]
    Scenario(Cause),
    /// A gateway config that does not load.
    #[error(transparent)]
    Config(Cause),
    /// A profile that is unknown or does not load.
    #[error(transparent)]
    Profile(Cause),
    /// The mock provider would not start.
    #[error("mock provider did not start: {0}")]
    Provider(#[source] Cause),
    /// The embedded gateway would not start.
    #[error("embedded gateway did not start: {0}")]
    Gateway(#[source] Cause),
    /// A real OpenClaw gateway could not be found, configured, started or read.
    #[error("openclaw {context}: {source}")]
    OpenClaw {
        /// What was being done (`target`, `lane direct`, `transcript`).
        context: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A file or directory the command needs.
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The HTTP exchange with a gateway failed (no answer, a broken body or stream).
    #[error("{0}")]
    Http(String),
    /// A gateway answered a turn with an HTTP error.
    #[error("scenario {scenario} lane {lane}: the gateway answered HTTP {status}: {message}")]
    TurnFailed {
        scenario: String,
        lane: String,
        status: u16,
        message: String,
    },
    /// A failed turn, with the tail of the gateway's own log.
    #[error("{error}\n--- {target} gateway log (tail) ---\n{log}")]
    WithGatewayLog {
        error: Box<Error>,
        target: &'static str,
        log: String,
    },
    /// An expectations file (accepted findings) that does not load.
    #[error("expectations file {origin}: {}{message}", line.map(|l| format!("line {l}: ")).unwrap_or_default())]
    Expectations {
        origin: String,
        line: Option<usize>,
        message: String,
    },
    /// A session log that cannot be read or is not made of session records.
    #[error("{0}")]
    SessionLog(String),
    /// Anything else the machine would not do (a loopback port, a temp dir's contents, …).
    #[error("{0}")]
    Machine(String),
}

impl Error {
    /// The exit code this error ends the command with.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) | Error::Expectations { .. } => Exit::USAGE,
            Error::Scenario(e)
            | Error::Config(e)
            | Error::Profile(e)
            | Error::Provider(e)
            | Error::Gateway(e) => e.0.exit_code(),
            Error::OpenClaw { .. }
            | Error::Io { .. }
            | Error::Http(_)
            | Error::TurnFailed { .. }
            | Error::WithGatewayLog { .. }
            | Error::SessionLog(_)
            | Error::Machine(_) => Exit::INFRA,
        }
    }

    /// The error as written to stderr: `error: …` lines (one per problem of a scenario file),
    /// each followed by its excerpt when `excerpts` (stderr is a terminal).
    pub fn report(&self, excerpts: bool) -> String {
        match self {
            Error::Scenario(e) => match e.0.report(excerpts) {
                Some(report) => report,
                None => format!("error: {self}\n"),
            },
            other => format!("error: {other}\n"),
        }
    }

    /// An [`Error::Io`] maker for `map_err`.
    pub fn io(
        action: &'static str,
        path: impl Into<PathBuf>,
    ) -> impl FnOnce(std::io::Error) -> Error {
        let path = path.into();
        move |source| Error::Io {
            action,
            path,
            source,
        }
    }

    /// An [`Error::OpenClaw`] maker for `map_err`.
    pub fn openclaw<E: std::error::Error + Send + Sync + 'static>(
        context: impl Into<String>,
    ) -> impl FnOnce(E) -> Error {
        let context = context.into();
        move |source| Error::OpenClaw {
            context,
            source: Box::new(source),
        }
    }
}

/// Reads a file the user named on the command line (`what`: `expectations file`, `price file`,
/// `script`). One that is not there, is a directory or is not text is what the command was
/// given, a usage error (exit 2), as a file that does not parse is; any other failure to read
/// it is the machine's (exit 3).
pub fn read_given(what: &str, path: &std::path::Path) -> Result<String, Error> {
    use std::io::ErrorKind::{InvalidData, IsADirectory, NotADirectory, NotFound};
    std::fs::read_to_string(path).map_err(|source| match source.kind() {
        NotFound => Error::Usage(format!("{what} {}: no such file", path.display())),
        IsADirectory | NotADirectory | InvalidData => {
            Error::Usage(format!("{what} {}: {source}", path.display()))
        }
        _ => Error::Io {
            action: "cannot read",
            path: path.to_path_buf(),
            source,
        },
    })
}

/// A fresh temporary directory named `prefix…`.
pub fn temp_dir(prefix: &str) -> Result<tempfile::TempDir, Error> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| Error::Machine(format!("cannot create a temp dir: {e}")))
}
