//! The `suite` command end to end: the flags resolved into a [`RunRequest`], the typed run
//! ([`super::run`]), then the report printed and the CI files written
//! ([`crate::report::conclude`]). `main.rs` only parses flags into [`SuiteOptions`] and turns
//! the result into an exit code.

use std::io::Write;
use std::path::PathBuf;

pub use super::gate::{default_snapshot_dir, SnapshotDir, Snapshots};
use super::gate::{run, RunRequest};
use super::Reporter;
use crate::error::Error;
use crate::output::Format;
use crate::report::conclude;

/// Everything the `suite` command is told: what to run, and how to show it.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    pub run: RunRequest,
    pub format: Format,
    pub junit: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    /// Tables show long values whole instead of cut (`--verbose`).
    pub verbose: bool,
    /// Print where the run's time went on stderr (`--timings`).
    pub timings: bool,
}

/// Runs the suite as `options` say, prints the report to `out`; the exit code.
pub async fn command(
    options: &SuiteOptions,
    reporter: &dyn Reporter,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let outcome = run(&options.run, reporter).await?;
    if options.timings {
        eprint!(
            "{}",
            crate::report::timings::render_timings(&outcome.reports)
        );
    }
    conclude(
        &outcome.reports,
        options.format,
        options.verbose,
        (options.junit.as_deref(), options.report_dir.as_deref()),
        out,
    )
}
