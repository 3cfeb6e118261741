//! The signals that end a command early: SIGINT (Ctrl-C), SIGTERM and SIGHUP.
//!
//! Without a handler each of them ends the process where it stands: no destructor runs, so a
//! real OpenClaw gateway (in its own process group, which a terminal's Ctrl-C does not reach)
//! keeps running and every temp dir stays. With [`Signals`] installed before a command starts,
//! the command's future is dropped instead — which kills the gateways it started and removes its
//! temp dirs — and the process exits with `128 + the signal's number` ([`Interrupt::exit_code`]).

use tokio::signal::unix::{signal, Signal, SignalKind};

use crate::error::Exit;

/// Which signal ended the command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Interrupt {
    /// SIGINT: Ctrl-C.
    Int,
    /// SIGTERM: a supervisor or `kill`.
    Term,
    /// SIGHUP: the terminal went away.
    Hup,
}

impl Interrupt {
    /// `SIGINT`, `SIGTERM`, `SIGHUP`.
    pub fn name(self) -> &'static str {
        match self {
            Interrupt::Int => "SIGINT",
            Interrupt::Term => "SIGTERM",
            Interrupt::Hup => "SIGHUP",
        }
    }

    /// What the process exits with when this signal ended it: 130, 143 or 129.
    pub fn exit_code(self) -> u8 {
        match self {
            Interrupt::Int => Exit::INTERRUPTED,
            Interrupt::Term => Exit::TERMINATED,
            Interrupt::Hup => Exit::HUNG_UP,
        }
    }
}

/// The three signals, caught from the moment this is made.
pub struct Signals {
    int: Signal,
    term: Signal,
    hup: Signal,
}

impl Signals {
    /// Installs the handlers (inside a tokio runtime).
    pub fn install() -> std::io::Result<Signals> {
        Ok(Signals {
            int: signal(SignalKind::interrupt())?,
            term: signal(SignalKind::terminate())?,
            hup: signal(SignalKind::hangup())?,
        })
    }

    /// The next of the three signals to arrive.
    pub async fn next(&mut self) -> Interrupt {
        tokio::select! {
            _ = self.int.recv() => Interrupt::Int,
            _ = self.term.recv() => Interrupt::Term,
            _ = self.hup.recv() => Interrupt::Hup,
        }
    }
}
