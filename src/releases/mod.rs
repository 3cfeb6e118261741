//! Every OpenClaw release as data: [`adopt`] turns a release the harness has never seen into one
//! it gates (its snapshots, profile, surface facts, run record and drafted accepted findings);
//! [`diff`] says what changed in Tool Search from one release to another, read from the run
//! records (`crate::outcome::record`: what one release did on the built-in scenarios);
//! [`payload`] prints BENCHMARKS.md's payload per mode of every adopted release from them;
//! [`matrix`] runs scenarios on a set of releases, sharded across machines; [`reasons`] checks that every file and
//! identifier an accepted finding's reason names exists in that release's own install.

pub mod adopt;
pub mod diff;
pub mod matrix;
pub mod payload;
pub mod reasons;

use std::collections::BTreeMap;
use std::path::Path;

use crate::error::{Error, Exit};
use crate::outcome::findings;
use crate::output::emit;
use crate::scenario::load_all;
use crate::suite::gate::Snapshots;
use crate::targets::openclaw::{NodeMajor, Version};

use crate::outcome::record::RunRecord;
use diff::{DiffFormat, FindingKey, FindingValue, ReleaseDiff};

/// The `diff-releases` command: `before` against `after`, from committed data or (`live`) from
/// a run of every built-in scenario on each.
pub async fn diff_command(
    before: &Version,
    after: &Version,
    live: Option<NodeMajor>,
    root: &Path,
    format: DiffFormat,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    diff_with(before, After::Release(after), live, root, format, out).await
}

/// What `diff-releases` compares the earlier release with.
pub enum After<'a> {
    /// A later release (its committed run, or run live).
    Release(&'a Version),
    /// A build (`--openclaw-build`), always run live, its findings those of its baseline.
    Build(&'a crate::targets::openclaw::Pick),
}

/// [`diff_command`] against a release or a build.
pub async fn diff_with(
    before: &Version,
    after: After<'_>,
    live: Option<NodeMajor>,
    root: &Path,
    format: DiffFormat,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let after = match after {
        After::Release(after) => after,
        After::Build(pick) => {
            let build = pick
                .build()
                .ok_or_else(|| Error::Usage("diff-releases: no build picked".into()))?;
            let a = match live {
                None => RunRecord::read(root, &before.to_string())?,
                Some(node) => live_record(before, node).await?,
            };
            let b = RunRecord::from_report(
                &adopt::run_pick(pick.clone(), Snapshots::Off, Vec::new()).await?,
            );
            let lanes = current_lanes(&a, &b)?;
            let diff = ReleaseDiff::new(
                &a,
                &b,
                &accepted(before)?,
                &accepted(&build.baseline)?,
                "live",
            )
            .with_current_lanes(&lanes);
            emit(out, &diff.render(format))?;
            return Ok(Exit::OK);
        }
    };
    let (a, b, source) = match live {
        None => (
            RunRecord::read(root, &before.to_string())?,
            RunRecord::read(root, &after.to_string())?,
            "committed",
        ),
        Some(node) => (
            live_record(before, node).await?,
            live_record(after, node).await?,
            "live",
        ),
    };
    let lanes = current_lanes(&a, &b)?;
    let diff = ReleaseDiff::new(&a, &b, &accepted(before)?, &accepted(after)?, source)
        .with_current_lanes(&lanes);
    emit(out, &diff.render(format))?;
    Ok(Exit::OK)
}

/// Today's lanes that neither record says is not applicable.
fn current_lanes(a: &RunRecord, b: &RunRecord) -> Result<Vec<(String, String)>, Error> {
    let skipped = |s: &str, l: &str| {
        [a, b].iter().any(|r| {
            r.not_applicable
                .iter()
                .any(|n| n.scenario == s && n.lane == l)
        })
    };
    Ok(load_all(&[])?
        .iter()
        .flat_map(|s| s.lanes.iter().map(|l| (s.id.clone(), l.name.clone())))
        .filter(|(s, l)| !skipped(s, l))
        .collect())
}

async fn live_record(version: &Version, node: NodeMajor) -> Result<RunRecord, Error> {
    let summary = adopt::run_suite(version, node, Snapshots::Off).await?;
    Ok(RunRecord::from_report(&summary))
}

/// The committed accepted findings of `version` (none when it has no expectations file).
fn accepted(version: &Version) -> Result<BTreeMap<FindingKey, FindingValue>, Error> {
    let known = load_all(&[])?;
    let Some(expectations) = findings::built_in(&format!("openclaw-{version}"), &known)? else {
        return Ok(BTreeMap::new());
    };
    Ok(expectations
        .findings
        .into_iter()
        .map(|f| {
            (
                FindingKey {
                    scenario: f.scenario,
                    lane: f.lane,
                    claim: f.claim.as_str().to_string(),
                    check: f.check,
                },
                FindingValue {
                    observed: f.observed,
                    reason: f.reason,
                },
            )
        })
        .collect())
}
