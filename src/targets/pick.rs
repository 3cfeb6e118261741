//! What a command drives, as its flags chose it (`--target`, `--openclaw-version` or
//! `--openclaw-build`, `--openclaw-node`): parsed once by the command line and handed down whole, so no command
//! re-derives the release or the Node major.

use super::openclaw::{OpenClawTarget, Pick, Source};
use super::{EmbeddedTarget, Target};
use crate::error::Error;

/// Which targets a run drives (the `--target` flag).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum TargetChoice {
    /// The project's own gateway, in-process (nothing to install).
    #[default]
    Embedded,
    /// A real OpenClaw gateway, its config reloaded per lane (install it first: scripts/install-openclaw.sh).
    Openclaw,
    /// Both, reported side by side.
    Both,
}

/// The targets a command drives: which kinds, and for a real OpenClaw which release on which
/// Node major (not used when `kind` is embedded).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TargetPick {
    pub kind: TargetChoice,
    pub openclaw: Pick,
}

impl TargetPick {
    /// A real OpenClaw only: the release and Node major `openclaw` picks.
    pub fn openclaw(openclaw: Pick) -> TargetPick {
        TargetPick {
            kind: TargetChoice::Openclaw,
            openclaw,
        }
    }

    /// The targets chosen; the openclaw one must be installed.
    pub fn targets(&self) -> Result<Vec<Box<dyn Target>>, Error> {
        Ok(match self.kind {
            TargetChoice::Embedded => vec![Box::new(EmbeddedTarget)],
            TargetChoice::Openclaw => vec![Box::new(self.openclaw_target()?)],
            TargetChoice::Both => vec![Box::new(EmbeddedTarget), Box::new(self.openclaw_target()?)],
        })
    }

    /// The real OpenClaw picked (installed, its release facts loaded), whatever `kind` says.
    pub fn openclaw_target(&self) -> Result<OpenClawTarget, Error> {
        match &self.openclaw.source {
            Source::Release(version) => {
                OpenClawTarget::locate_version(self.openclaw.node, version.as_ref())
            }
            Source::Build(build) => OpenClawTarget::of_build(build.clone()),
        }
    }
}
