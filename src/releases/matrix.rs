//! `matrix`: a set of built-in scenarios on a set of adopted releases (by default every one), in
//! one command, each release on the newest Node major it accepts, against its own accepted
//! findings and snapshots. `--shard K/N` takes the same shard of the scenarios on every release
//! (`suite --shard`, balanced by measured cost), so N machines together run every scenario on
//! every release once and `report merge` puts them back into the one verdict an unsharded run
//! has. `--record` writes what ran into each release's run record (the scenarios of this shard
//! replace theirs), which `regressions` and `payload-table` read.

use std::path::PathBuf;

use crate::error::Error;
use crate::outcome::record::RunRecord;
use crate::outcome::{Shard, SuiteReport};
use crate::output::Format;
use crate::report::conclude;
use crate::suite::command::{SnapshotDir, Snapshots};
use crate::suite::{ProviderSource, Reporter, RunRequest};
use crate::targets::openclaw::{NodeMajor, Pick, ReleaseCatalogue, Version};
use crate::targets::TargetPick;

/// Everything `matrix` is told.
#[derive(Debug, Clone)]
pub struct MatrixOptions {
    /// The releases (none: every adopted one), oldest first once resolved.
    pub versions: Vec<Version>,
    /// The built-in scenarios (none: every one).
    pub scenarios: Vec<String>,
    pub shard: Option<Shard>,
    /// Every release on this Node major instead of the newest it accepts.
    pub node: Option<NodeMajor>,
    pub format: Format,
    pub verbose: bool,
    pub junit: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    /// Write each release's run record under this checkout.
    pub record: Option<PathBuf>,
}

/// One release of the matrix and the Node major it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    pub version: Version,
    pub node: NodeMajor,
}

/// The Node major CI gates a release on: the newest of its `node` list this harness installs.
pub fn gated_node(accepted: &[u32]) -> Option<NodeMajor> {
    NodeMajor::ALL
        .into_iter()
        .rev()
        .find(|n| accepted.contains(&n.number()))
}

/// The releases `options` name (each must be adopted), oldest first, each with its Node major:
/// the one given, which the release must accept, else the newest it accepts.
pub fn cells(options: &MatrixOptions) -> Result<Vec<Cell>, Error> {
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    let mut versions: Vec<Version> = if options.versions.is_empty() {
        catalogue.versions().cloned().collect()
    } else {
        options.versions.clone()
    };
    versions.sort();
    versions.dedup();
    let mut cells = Vec::new();
    for version in versions {
        let Some(adopted) = catalogue
            .releases()
            .iter()
            .find(|a| a.release.version == version)
        else {
            return Err(Error::Usage(format!(
                "matrix: openclaw {version} is not adopted (no {}/openclaw-{version}.toml); adopt it first: toolsearch-qa adopt --openclaw-version {version}",
                catalogue.dir()
            )));
        };
        let accepted = &adopted.release.node;
        let node = match options.node {
            Some(node) if accepted.contains(&node.number()) => node,
            Some(node) => {
                return Err(Error::Usage(format!(
                    "matrix: openclaw {version} does not run on Node {} ({}: node = {accepted:?})",
                    node.number(),
                    adopted.origin
                )))
            }
            None => gated_node(accepted).ok_or_else(|| {
                    Error::Usage(format!(
                        "matrix: openclaw {version} accepts no Node major this harness installs ({}: node = {accepted:?})",
                        adopted.origin
                    ))
                })?,
        };
        cells.push(Cell { version, node });
    }
    Ok(cells)
}

/// Runs the matrix, prints one report over every release, writes the CI files (and the run
/// records with `record`); the exit code an unsharded `suite` of each release would add up to.
pub async fn command(
    options: &MatrixOptions,
    reporter: &dyn Reporter,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let cells = cells(options)?;
    let mut reports: Vec<SuiteReport> = Vec::new();
    for cell in &cells {
        eprintln!(
            "matrix: openclaw {} on Node {}{}",
            cell.version,
            cell.node.number(),
            options
                .shard
                .map(|s| format!(", shard {s}"))
                .unwrap_or_default()
        );
        let request = RunRequest {
            scenarios: options.scenarios.clone(),
            lanes: Vec::new(),
            scenario_dirs: Vec::new(),
            with_builtins: false,
            target: TargetPick::openclaw(Pick::release(Some(cell.version.clone()), cell.node)),
            filter: None,
            shard: options.shard,
            snapshots: Snapshots::Compare(SnapshotDir::Default),
            provider: ProviderSource::Mock,
            expectations: None,
            profile: None,
        };
        let outcome = crate::suite::run(&request, reporter).await?;
        if let Some(root) = &options.record {
            for report in &outcome.reports {
                record(root, &cell.version, report)?;
            }
        }
        reports.extend(outcome.reports);
    }
    conclude(
        &reports,
        options.format,
        options.verbose,
        (options.junit.as_deref(), options.report_dir.as_deref()),
        out,
    )
}

/// `report records`: each real OpenClaw run of each directory's summary.json written into its
/// release's run record under `root`.
pub fn records_command(
    dirs: &[PathBuf],
    root: &std::path::Path,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let mut text = String::new();
    for dir in dirs {
        for part in crate::suite::merge::read_dir(dir)? {
            let Some(product) = &part.report.product else {
                continue;
            };
            let version: Version = product.version.parse().map_err(|e| {
                Error::Usage(format!(
                    "{}: release {:?}: {e}",
                    dir.display(),
                    product.version
                ))
            })?;
            record(root, &version, &part.report)?;
            text.push_str(&format!(
                "{} written ({} scenarios of {})\n",
                RunRecord::path(root, &version.to_string()).display(),
                part.report.scenarios.len(),
                dir.display()
            ));
        }
    }
    if text.is_empty() {
        return Err(Error::Usage(
            "report records: no real OpenClaw run in the directories given".into(),
        ));
    }
    crate::output::emit(out, &text)?;
    Ok(crate::error::Exit::OK)
}

/// Writes what `report` ran into the release's run record under `root`: the scenarios it ran
/// replace theirs in the committed record (a new one when none is committed).
fn record(root: &std::path::Path, version: &Version, report: &SuiteReport) -> Result<(), Error> {
    let fresh = RunRecord::from_report(report);
    let path = RunRecord::path(root, &version.to_string());
    let ran: Vec<String> = report
        .scenarios
        .iter()
        .map(|s| s.scenario.clone())
        .collect();
    let order: Vec<String> = crate::scenario::load_all(&[])?
        .into_iter()
        .map(|s| s.id)
        .collect();
    let record = RunRecord::merged(root, &version.to_string(), fresh, &ran, &order)?;
    record.write(&path)
}
