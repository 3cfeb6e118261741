//! The typed run API: [`run`] takes a [`RunRequest`] (what to cover and check, resolved) and
//! returns a [`RunOutcome`] (the typed reports, one per target). Every command that runs the
//! gate — `suite`, `adopt`, `selftest` — calls it and reads the outcome as data; none of them
//! parses another command's printed output.

use std::path::{Path, PathBuf};

use super::findings;
use super::select::{choose, empty_selection, in_shard, narrow, Origins};
use super::{plan_all, run_plans, snapshot, ProviderSource, Reporter};
use crate::error::Error;
use crate::outcome::build::BuildAgainstBaseline;
use crate::outcome::findings::Expectations;
use crate::outcome::record::RunRecord;
use crate::outcome::{
    run_verdict, Checks, DataUsed, LaneError, RunVerdict, Selection, Shard, SnapshotPlace,
    SuiteReport,
};
use crate::output::{shell_line, warn};
use crate::scenario::{load_all, Scenario, TargetKind};
use crate::targets::openclaw::{BaselineWhy, BuildSource, NodeMajor};
use crate::targets::{Target, TargetPick};

/// What to do with the committed snapshots.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Snapshots {
    /// Compare with the files there; a changed one fails the run.
    Compare(SnapshotDir),
    /// Compare, and write `.snap.new` files for changed or missing ones.
    Update(SnapshotDir),
    /// Do not compare.
    Off,
}

/// Where the committed snapshots are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotDir {
    /// `--snapshot-dir DIR`: every scenario's, wherever it comes from.
    Given(PathBuf),
    /// Not given: an outside scenario's beside its file (`<its dir>/snapshots/`), a built-in
    /// one's in `snapshots/` of the current directory (the project's root, where `cargo test`
    /// and CI run), so a binary copied anywhere compares the same files.
    Default,
}

impl SnapshotDir {
    /// The folder of `scenario`'s snapshots (a real product's are in its subfolder).
    pub fn of(&self, scenario: &Scenario) -> PathBuf {
        match (self, &scenario.dir) {
            (SnapshotDir::Given(dir), _) => dir.clone(),
            (SnapshotDir::Default, Some(dir)) => dir.join("snapshots"),
            (SnapshotDir::Default, None) => default_snapshot_dir(),
        }
    }

    /// A folder that must exist before the run: a given one, and the default one of the
    /// built-in scenarios when any runs (an outside scenario's may not exist yet: its snapshots
    /// are then missing, and the run says how to write them).
    fn check(&self, scenarios: &[Scenario]) -> Result<(), Error> {
        match self {
            SnapshotDir::Given(dir) if !dir.is_dir() => Err(Error::Usage(format!(
                "snapshot directory {} does not exist: write snapshots into it with \
                 `toolsearch-qa suite --update-snapshots --snapshot-dir {0}`, or pass \
                 --no-snapshots to skip the comparison",
                dir.display()
            ))),
            SnapshotDir::Default
                if scenarios.iter().any(Scenario::is_built_in)
                    && !default_snapshot_dir().is_dir() =>
            {
                Err(Error::Usage(format!(
                    "no {}/ folder, where the built-in scenarios' snapshots are (data root: \
                     {}): run from the project's root, pass --data-dir or --snapshot-dir DIR, \
                     or --no-snapshots to skip the comparison",
                    default_snapshot_dir().display(),
                    crate::data_root::current()
                )))
            }
            _ => Ok(()),
        }
    }
}

/// What a run covers and checks, resolved from a command's flags.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub scenarios: Vec<String>,
    /// Only these lanes of each scenario chosen (empty: every lane), as a product seed names its
    /// lanes (`selftest --packed`).
    pub lanes: Vec<String>,
    /// Run these directories' scenarios (instead of the built-in ones, unless
    /// `with_builtins`).
    pub scenario_dirs: Vec<PathBuf>,
    /// With `scenario_dirs`: the built-in scenarios too.
    pub with_builtins: bool,
    /// The targets, and a real OpenClaw's release and Node major.
    pub target: TargetPick,
    pub filter: Option<String>,
    pub shard: Option<Shard>,
    pub snapshots: Snapshots,
    pub provider: ProviderSource,
    /// Accepted findings for the real target instead of the committed
    /// `expectations/<target>-<version>.toml`.
    pub expectations: Option<PathBuf>,
    /// The profile the embedded gateway shows in every scenario instead of the scenario's own
    /// (a built-in name or a profile file's path).
    pub profile: Option<String>,
}

/// What a run found: one typed report per target, in target order.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub reports: Vec<SuiteReport>,
}

impl RunOutcome {
    /// The verdict over every target.
    pub fn verdict(&self) -> RunVerdict {
        run_verdict(&self.reports)
    }

    /// Every lane that could not start or answer, with its scenario.
    pub fn lane_errors(&self) -> impl Iterator<Item = (&str, &LaneError)> {
        self.reports
            .iter()
            .flat_map(|r| &r.scenarios)
            .flat_map(|s| s.errors.iter().map(move |e| (s.scenario.as_str(), e)))
    }
}

/// Runs the scenarios `request` selects on each target it names, judges them (claims,
/// snapshots, accepted findings) and returns the typed reports.
pub async fn run(request: &RunRequest, reporter: &dyn Reporter) -> Result<RunOutcome, Error> {
    let known = load_all(&request.scenario_dirs)?;
    let origins = Origins::from_flags(!request.scenario_dirs.is_empty(), request.with_builtins);
    let chosen = choose(&known, origins, &request.scenarios)?;
    let count = chosen.len();
    let filtered = narrow(chosen, request.filter.as_deref());
    let filtered_count = filtered.len();
    let selection = Selection {
        scenarios: filtered.iter().map(|s| s.id.clone()).collect(),
        shard: request.shard,
        checks: Checks {
            snapshots: request.snapshots != Snapshots::Off,
            profile: request.profile.clone(),
        },
    };
    let mut scenarios = match request.shard {
        Some(shard) => in_shard(filtered, shard, request.target.kind),
        None => filtered,
    };
    if !request.lanes.is_empty() {
        for scenario in &mut scenarios {
            scenario.lanes.retain(|l| request.lanes.contains(&l.name));
        }
        scenarios.retain(|s| !s.lanes.is_empty());
    }
    if scenarios.is_empty() {
        return Err(Error::Usage(empty_selection(
            count,
            filtered_count,
            request.filter.as_deref(),
            request.shard,
        )));
    }
    if let Snapshots::Compare(place) = &request.snapshots {
        place.check(&scenarios)?;
    }
    if let Some(reference) = &request.profile {
        let profile = crate::profile::resolve(reference)?;
        for scenario in &mut scenarios {
            scenario.set_profile(profile.clone());
        }
    }
    // The expectations file given is read (and must be right) whatever the target.
    let given = request
        .expectations
        .as_deref()
        .map(|path| Expectations::read(path, &known))
        .transpose()?;
    let targets = request.target.targets()?;
    // The real MCP servers are listed once, after the targets are found (a release not
    // installed or a broken release file is said first) and before any gateway starts: a server
    // that does not start or lists a broken schema ends the run now (exit 3), naming it.
    crate::mcp_servers::list_catalogues(&mut scenarios).await?;
    // Every expectations file is read and every scenario is planned on every target before any
    // gateway starts: a scenario a target cannot run (and does not say so) is a usage error
    // now, not a failure halfway through.
    let expectations = targets
        .iter()
        .map(|t| expectations_for(t.as_ref(), given.as_ref(), &known))
        .collect::<Result<Vec<_>, Error>>()?;
    let plans = targets
        .iter()
        .map(|t| plan_all(t.as_ref(), &scenarios))
        .collect::<Result<Vec<_>, Error>>()?;
    let mut reports = Vec::new();
    for ((target, expectations), plans) in targets.iter().zip(&expectations).zip(&plans) {
        let mut report = run_plans(target.as_ref(), plans, &request.provider, reporter).await;
        report.product = target.product();
        report.data = target.product().map(|_| DataUsed {
            root: crate::data_root::current().to_string(),
            release_facts: target.release_facts(),
        });
        report.selection = selection.clone();
        let snapshots = match (target.label(), expectations) {
            // A release never adopted: its claims are reported, nothing is accepted or compared.
            (Some(label), None) => {
                warn(&not_adopted_note(&label));
                &Snapshots::Off
            }
            _ => &request.snapshots,
        };
        report.selection.checks.snapshots = *snapshots != Snapshots::Off;
        record_snapshots(&mut report, snapshots, &scenarios, request, target.as_ref())?;
        if let Some(expectations) = expectations {
            findings::record(&mut report, expectations, &scenarios);
        }
        if let Some(build) = report.product.as_ref().and_then(|p| p.build.clone()) {
            report.build_against_baseline = Some(against_baseline(&report, &build.baseline));
        }
        reports.push(report);
    }
    Ok(RunOutcome { reports })
}

/// The build's section against `baseline` and its committed run (read from the data root; a
/// baseline without one compares no payload, and says so on stderr).
fn against_baseline(report: &SuiteReport, baseline: &str) -> BuildAgainstBaseline {
    let root = crate::data_root::current().path("");
    let record = match RunRecord::read(&root, baseline) {
        Ok(record) => Some(record),
        Err(e) => {
            warn(&format!("note: no payload compared with the baseline: {e}"));
            None
        }
    };
    BuildAgainstBaseline::of(report, baseline, record.as_ref())
}

/// What a run of a release without data says (it runs, and fails on every failing check).
fn not_adopted_note(label: &str) -> String {
    let version = label.split_once('-').map_or(label, |(_, v)| v);
    let root = crate::data_root::current();
    format!(
        "note: {label} has no accepted findings ({}) in the data root, {root}: every failing \
         check counts and no snapshot is compared; adopt it with `toolsearch-qa adopt \
         --openclaw-version {version}`, or run from the tree that adopted it (or pass \
         --data-dir <that tree>)",
        root.path(&format!("expectations/{label}.toml")).display()
    )
}

/// The accepted findings of `target`: the file given (already read and checked), else the
/// committed one for its label; none for the embedded gateway (our own gateway has no accepted
/// deviations: a file given is checked, and applies to the real product only).
fn expectations_for(
    target: &dyn Target,
    given: Option<&Expectations>,
    known: &[Scenario],
) -> Result<Option<Expectations>, Error> {
    let Some(label) = target.label() else {
        return Ok(None);
    };
    match given {
        Some(expectations) => Ok(Some(expectations.clone())),
        None => crate::outcome::findings::built_in(&label, known),
    }
}

/// Compares each scenario's snapshots in its folder ([`SnapshotDir::of`]): the embedded
/// gateway's in the folder itself, a real product's in its own subfolder
/// (`snapshots/openclaw-2026.9.6/`).
fn record_snapshots(
    report: &mut SuiteReport,
    snapshots: &Snapshots,
    scenarios: &[Scenario],
    request: &RunRequest,
    target: &dyn Target,
) -> Result<(), Error> {
    let (place, update) = match snapshots {
        Snapshots::Off => return Ok(()),
        Snapshots::Compare(place) => (place, false),
        Snapshots::Update(place) => (place, true),
    };
    for scenario_report in &mut report.scenarios {
        let Some(scenario) = scenarios.iter().find(|s| s.id == scenario_report.scenario) else {
            continue;
        };
        let dir = match target.label() {
            Some(label) => place.of(scenario).join(label),
            None => place.of(scenario),
        };
        let commands = SnapshotPlace {
            write: update_command(request, target, scenario),
            review: settle_command("review", &dir, &scenario.id),
            accept: settle_command("accept", &dir, &scenario.id),
            dir,
        };
        snapshot::record(scenario_report, &commands.dir, update, &commands.write)
            .map_err(Error::io("snapshots in", &commands.dir))?;
        scenario_report.snapshot_place = Some(commands);
    }
    Ok(())
}

/// The `suite` command that writes `scenario`'s snapshots as this run compares them: pasted
/// where this run was started, it runs that scenario alone, on the same target, release,
/// profile, scenario folder and snapshot folder, with `--update-snapshots`.
fn update_command(request: &RunRequest, target: &dyn Target, scenario: &Scenario) -> String {
    let mut args: Vec<String> = vec!["toolsearch-qa".into(), "suite".into()];
    let mut add = |flag: &str, value: String| args.extend([flag.to_string(), value]);
    if target.kind() == TargetKind::Openclaw {
        add("--target", "openclaw".into());
        if let Some(version) = request.target.openclaw.version() {
            add("--openclaw-version", version.to_string());
        }
        if let Some(build) = request.target.openclaw.build() {
            let path = match &build.used.source {
                BuildSource::Tarball { path, .. } | BuildSource::Directory { path } => path,
            };
            add("--openclaw-build", path.clone());
            if build.used.why == BaselineWhy::Given {
                add("--baseline", build.used.baseline.clone());
            }
        }
        if request.target.openclaw.node != NodeMajor::default() {
            add(
                "--openclaw-node",
                request.target.openclaw.node.number().to_string(),
            );
        }
    }
    if let Some(dir) = &scenario.dir {
        add("--scenario-dir", dir.display().to_string());
    }
    add("--scenario", scenario.id.clone());
    if let Snapshots::Compare(SnapshotDir::Given(dir))
    | Snapshots::Update(SnapshotDir::Given(dir)) = &request.snapshots
    {
        add("--snapshot-dir", dir.display().to_string());
    }
    if let Some(profile) = &request.profile {
        add("--profile", profile.clone());
    }
    args.push("--update-snapshots".into());
    shell_line(&args)
}

/// `toolsearch-qa snapshots <action> --snapshot-dir <dir> --scenario <id>`.
fn settle_command(action: &str, dir: &Path, id: &str) -> String {
    let dir = dir.display().to_string();
    shell_line(&[
        "toolsearch-qa",
        "snapshots",
        action,
        "--snapshot-dir",
        &dir,
        "--scenario",
        id,
    ])
}

/// Where the built-in scenarios' committed snapshots are when `--snapshot-dir` is not given:
/// `snapshots/` of the data root (src/data_root.rs; the working directory outside a checkout).
pub fn default_snapshot_dir() -> PathBuf {
    crate::data_root::current().snapshots()
}
