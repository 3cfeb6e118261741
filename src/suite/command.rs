//! The `suite` command end to end: pick the scenarios, run them on each target, compare
//! snapshots, print the report and write the CI files. `main.rs` only parses flags into
//! [`SuiteOptions`] and turns the result into an exit code.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::findings::{self, Expectations};
use super::report::junit::junit_xml;
use super::report::table::Detail;
use super::report::{
    render_json, render_markdown, render_table, run_verdict, Checks, DataUsed, Outcome, Selection,
    SnapshotPlace, SuiteReport,
};
use super::select::{choose, empty_selection, in_shard, narrow, Origins, Shard};
use super::{plan_all, run_plans, ProviderSource, Reporter};
use crate::error::Error;
use crate::output::{emit, warn, Format};
use crate::scenario::{load_all, Scenario, TargetKind};
use crate::targets::openclaw::NodeMajor;
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

/// Everything the `suite` command is told.
#[derive(Debug, Clone)]
pub struct SuiteOptions {
    pub scenarios: Vec<String>,
    /// Run these directories' scenarios (instead of the built-in ones, unless
    /// `with_builtins`).
    pub scenario_dirs: Vec<PathBuf>,
    /// With `scenario_dirs`: the built-in scenarios too.
    pub with_builtins: bool,
    /// What to drive: the kind, and a real OpenClaw's release and Node major.
    pub target: TargetPick,
    pub format: Format,
    pub filter: Option<String>,
    pub shard: Option<Shard>,
    pub junit: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    pub snapshots: Snapshots,
    pub provider: ProviderSource,
    /// Accepted findings for the real target instead of the committed
    /// `expectations/<target>-<version>.toml`.
    pub expectations: Option<PathBuf>,
    /// Tables show long values whole instead of cut (`--verbose`).
    pub verbose: bool,
    /// Print where the run's time went on stderr (`--timings`).
    pub timings: bool,
    /// The profile the embedded gateway shows in every scenario instead of the scenario's own
    /// (a built-in name or a profile file's path).
    pub profile: Option<String>,
}

/// Runs the suite as `options` say, prints the report to `out`; the exit code.
pub async fn run(
    options: &SuiteOptions,
    reporter: &dyn Reporter,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let known = load_all(&options.scenario_dirs)?;
    let origins = Origins::from_flags(!options.scenario_dirs.is_empty(), options.with_builtins);
    let chosen = choose(&known, origins, &options.scenarios)?;
    let count = chosen.len();
    let filtered = narrow(chosen, options.filter.as_deref());
    let filtered_count = filtered.len();
    let selection = Selection {
        scenarios: filtered.iter().map(|s| s.id.clone()).collect(),
        shard: options.shard,
        checks: Checks {
            snapshots: options.snapshots != Snapshots::Off,
            profile: options.profile.clone(),
        },
    };
    let mut scenarios = match options.shard {
        Some(shard) => in_shard(filtered, shard, options.target.kind),
        None => filtered,
    };
    if scenarios.is_empty() {
        return Err(Error::Usage(empty_selection(
            count,
            filtered_count,
            options.filter.as_deref(),
            options.shard,
        )));
    }
    if let Snapshots::Compare(place) = &options.snapshots {
        place.check(&scenarios)?;
    }
    if let Some(reference) = &options.profile {
        let profile = crate::profile::resolve(reference)?;
        for scenario in &mut scenarios {
            scenario.set_profile(profile.clone());
        }
    }
    // The expectations file given is read (and must be right) whatever the target.
    let given = options
        .expectations
        .as_deref()
        .map(|path| Expectations::read(path, &known))
        .transpose()?;
    let targets = options.target.targets()?;
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
        let mut report = run_plans(target.as_ref(), plans, &options.provider, reporter).await;
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
            _ => &options.snapshots,
        };
        report.selection.checks.snapshots = *snapshots != Snapshots::Off;
        record_snapshots(&mut report, snapshots, &scenarios, options, target.as_ref())?;
        if let Some(expectations) = expectations {
            report.record_findings(expectations, &scenarios);
        }
        reports.push(report);
    }
    if options.timings {
        eprint!("{}", super::report::timings::render_timings(&reports));
    }
    conclude(
        &reports,
        options.format,
        options.verbose,
        (options.junit.as_deref(), options.report_dir.as_deref()),
        out,
    )
}

/// Ends a run (or a merge of runs): prints the reports, writes the JUnit file and report
/// directory (`files`: where, each when given), and returns the verdict's exit code.
pub fn conclude(
    reports: &[SuiteReport],
    format: Format,
    verbose: bool,
    (junit, report_dir): (Option<&Path>, Option<&Path>),
    out: &mut dyn Write,
) -> Result<u8, Error> {
    render(reports, format, verbose, out)?;
    write_reports(reports, junit, report_dir)?;
    let verdict = run_verdict(reports);
    if verdict.scenarios > 0 && verdict.outcome() == Outcome::Empty {
        eprintln!("error: {}", judged_nothing(reports));
    }
    Ok(verdict.exit_code())
}

/// Why a run that selected scenarios judged nothing (exit 2, as an empty selection is).
fn judged_nothing(reports: &[SuiteReport]) -> String {
    let ids: Vec<&str> = reports
        .iter()
        .flat_map(|r| &r.scenarios)
        .map(|s| s.scenario.as_str())
        .collect();
    let targets: Vec<&str> = reports.iter().map(|r| r.target.as_str()).collect();
    format!(
        "every claim of {} on {} is not applicable (the target cannot run {}): nothing would \
         be checked",
        ids.join(", "),
        targets.join(" and "),
        if ids.len() == 1 { "it" } else { "them" }
    )
}

/// Prints the run's reports to `out` as `format` says (long values whole with `verbose`), and
/// one `error:` line on stderr per lane that could not run.
pub fn render(
    reports: &[SuiteReport],
    format: Format,
    verbose: bool,
    out: &mut dyn Write,
) -> Result<(), Error> {
    let shown = match verbose {
        true => Detail::Full,
        false => Detail::Cut,
    };
    let text = match format {
        Format::Table => render_table(reports, shown),
        Format::Json => render_json(reports) + "\n",
    };
    emit(out, &text)?;
    for report in reports {
        for line in error_lines(report) {
            eprintln!("{line}");
        }
    }
    Ok(())
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

/// One `error: …` line per lane that could not run (the report on stdout has the whole error).
fn error_lines(report: &SuiteReport) -> Vec<String> {
    let mut lines = Vec::new();
    for scenario in &report.scenarios {
        for e in &scenario.errors {
            let first = e.error.lines().next().unwrap_or_default();
            let lane = format!("scenario {} lane {}", scenario.scenario, e.lane);
            match first.starts_with(&lane) {
                true => lines.push(format!("error: {first}")),
                false => lines.push(format!("error: {lane}: {first}")),
            }
        }
    }
    lines
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
        None => findings::built_in(&label, known),
    }
}

/// Compares each scenario's snapshots in its folder ([`SnapshotDir::of`]): the embedded
/// gateway's in the folder itself, a real product's in its own subfolder
/// (`snapshots/openclaw-2026.9.6/`).
fn record_snapshots(
    report: &mut SuiteReport,
    snapshots: &Snapshots,
    scenarios: &[Scenario],
    options: &SuiteOptions,
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
            write: update_command(options, target, scenario),
            review: settle_command("review", &dir, &scenario.id),
            accept: settle_command("accept", &dir, &scenario.id),
            dir,
        };
        scenario_report
            .record_snapshots(&commands.dir, update, &commands.write)
            .map_err(Error::io("snapshots in", &commands.dir))?;
        scenario_report.snapshot_place = Some(commands);
    }
    Ok(())
}

/// The `suite` command that writes `scenario`'s snapshots as this run compares them: pasted
/// where this run was started, it runs that scenario alone, on the same target, release,
/// profile, scenario folder and snapshot folder, with `--update-snapshots`.
fn update_command(options: &SuiteOptions, target: &dyn Target, scenario: &Scenario) -> String {
    let mut args: Vec<String> = vec!["toolsearch-qa".into(), "suite".into()];
    let mut add = |flag: &str, value: String| args.extend([flag.to_string(), value]);
    if target.kind() == TargetKind::Openclaw {
        add("--target", "openclaw".into());
        if let Some(version) = &options.target.openclaw.version {
            add("--openclaw-version", version.to_string());
        }
        if options.target.openclaw.node != NodeMajor::default() {
            add(
                "--openclaw-node",
                options.target.openclaw.node.number().to_string(),
            );
        }
    }
    if let Some(dir) = &scenario.dir {
        add("--scenario-dir", dir.display().to_string());
    }
    add("--scenario", scenario.id.clone());
    if let Snapshots::Compare(SnapshotDir::Given(dir))
    | Snapshots::Update(SnapshotDir::Given(dir)) = &options.snapshots
    {
        add("--snapshot-dir", dir.display().to_string());
    }
    if let Some(profile) = &options.profile {
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

/// Words as one shell line, each quoted where a shell would split or expand it.
pub fn shell_line<S: AsRef<str>>(words: &[S]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| match shlex::try_quote(w.as_ref()) {
            Ok(word) => word.into_owned(),
            // A NUL byte cannot be in a path or id that got this far; shown as written.
            Err(_) => w.as_ref().to_string(),
        })
        .collect();
    quoted.join(" ")
}

/// Where the built-in scenarios' committed snapshots are when `--snapshot-dir` is not given:
/// `snapshots/` of the data root (src/data_root.rs; the working directory outside a checkout).
pub fn default_snapshot_dir() -> PathBuf {
    crate::data_root::current().snapshots()
}

/// Writes the JUnit file and the report directory (`summary.json`, `report.md`) for every
/// target of the run. Each is attempted whatever became of the other; the first failure is
/// the error.
pub fn write_reports(
    reports: &[SuiteReport],
    junit: Option<&Path>,
    report_dir: Option<&Path>,
) -> Result<(), Error> {
    let junit = junit.map_or(Ok(()), |path| write_junit(reports, path));
    let report_dir = report_dir.map_or(Ok(()), |dir| write_report_dir(reports, dir));
    junit.and(report_dir)
}

fn write_file(path: &Path, text: String) -> Result<(), Error> {
    std::fs::write(path, text).map_err(Error::io("cannot write", path))
}

fn write_junit(reports: &[SuiteReport], path: &Path) -> Result<(), Error> {
    let xml =
        junit_xml(reports).map_err(|e| Error::Machine(format!("cannot render JUnit XML: {e}")))?;
    // Its folder is created, as `--report-dir` is.
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(Error::io("cannot create", parent))?;
    }
    write_file(path, xml)
}

fn write_report_dir(reports: &[SuiteReport], dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create", dir))?;
    write_file(&dir.join("summary.json"), render_json(reports) + "\n")?;
    write_file(&dir.join("report.md"), render_markdown(reports))
}
