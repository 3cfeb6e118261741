//! `adopt --openclaw-version X`: makes a release the harness has no data for into one it gates,
//! in one command. It runs every built-in scenario and the probes on X, captures its profile,
//! writes its snapshots and release facts, and drafts `expectations/openclaw-X.toml` with every
//! failing check as an entry whose reason is `TODO` — a file the suite refuses (exit 2) until a
//! person has written each reason. Nothing is judged here: adopting records what X does.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::capture::CaptureOptions;
use crate::error::{Error, Exit};
use crate::outcome::findings::{self, Expectations};
use crate::outcome::SuiteReport;
use crate::output::{emit, Format};
use crate::scenario::load_all;
use crate::suite::gate::{SnapshotDir, Snapshots};
use crate::suite::RunRequest;
use crate::suite::{ProviderSource, Quiet};
use crate::targets::openclaw::release::{Found, Version};
use crate::targets::openclaw::ReleaseCatalogue;
use crate::targets::openclaw::{NodeMajor, OpenClawTarget, Pick};
use crate::targets::TargetPick;

use crate::outcome::record::RunRecord;

pub use crate::outcome::findings::TODO_REASON;

/// What `adopt` is told.
#[derive(Debug, Clone)]
pub struct AdoptOptions {
    /// The release to adopt (given on the command line) and the Node major it runs on.
    pub openclaw: Pick,
    /// The source tree whose `expectations/`, `snapshots/` and `data/` get the release's files.
    pub root: PathBuf,
    /// Redraft a release that already has an expectations file.
    pub force: bool,
    /// Only (re)write the run record (`data/releases/openclaw-<v>.run.json`) of a release that
    /// is adopted already: its scenarios run against its committed data, nothing else is written.
    pub record_only: bool,
    /// Run nothing: carry reasons again into the drafted expectations' `TODO` entries.
    pub carry_only: bool,
    /// With `record_only`: the scenarios to run again; their entries replace the committed
    /// record's, the others stay (none: every built-in scenario, a new record).
    pub scenarios: Vec<String>,
}

/// One failing check, drafted as an accepted finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Draft {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub check: String,
    pub expected: String,
    pub observed: String,
    /// The reason of the base release's identical accepted finding, when it has one.
    pub carried: Option<Carried>,
}

/// A reason carried over from another release's accepted finding of the same failure.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Carried {
    pub reason: String,
    /// The release it was accepted in (`2026.9.6`).
    pub from: String,
}

/// A probe that escaped on the release, drafted as an accepted escape.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct EscapeDraft {
    pub probe: String,
    /// The probe's evidence, exactly (an entry accepts that escape only).
    pub observed: String,
    pub node: u32,
    pub carried: Option<Carried>,
}

/// Where a release's files go under `root`.
pub struct ReleaseFiles {
    pub expectations: PathBuf,
    pub snapshots: PathBuf,
    pub profile: PathBuf,
    pub release: PathBuf,
}

impl ReleaseFiles {
    pub fn of(root: &Path, version: &Version) -> ReleaseFiles {
        let label = format!("openclaw-{version}");
        ReleaseFiles {
            expectations: root.join("expectations").join(format!("{label}.toml")),
            snapshots: root.join("snapshots").join(&label),
            profile: root
                .join("data")
                .join("profiles")
                .join(format!("{label}.toml")),
            release: root
                .join("data")
                .join("releases")
                .join(format!("{label}.toml")),
        }
    }
}

/// The `adopt` command.
pub async fn command(
    options: &AdoptOptions,
    probe_secret: String,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let version = &options
        .openclaw
        .release_version()
        .map_err(Error::openclaw("adopt"))?;
    let files = ReleaseFiles::of(&options.root, version);
    if options.record_only {
        return record_only(options, version, out).await;
    }
    if options.carry_only {
        return carry_only(options, version, &files, out);
    }
    if files.expectations.exists() && !options.force {
        return Err(Error::Usage(format!(
            "openclaw {version} is adopted already ({} exists); pass --force to draft it again",
            files.expectations.display()
        )));
    }
    // Located first: a release or Node that is not installed is one error line, nothing written.
    let target = OpenClawTarget::locate_version(options.openclaw.node, Some(version))?;
    let node = target.install().node_major();
    let target_package = target.install().package.clone();
    // The release's own facts, or the nearest release's fitted to its own config schema.
    let facts = target.release().clone();
    drop(target);
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    // The draft is written before anything runs, so a run that fails still leaves it.
    let release_note = write_release_facts(version, &facts, &files.release, &target_package)?;
    let bases = Bases::all(catalogue, version)?;
    crate::output::warn(&format!(
        "adopt: release facts from {}; reasons carried from {}",
        facts.why(version),
        bases.describe()
    ));

    let summary = run_suite(
        version,
        options.openclaw.node,
        Snapshots::Update(SnapshotDir::Given(options.root.join("snapshots"))),
    )
    .await?;
    accept_pending_snapshots(&files.snapshots)?;
    let recheck = crate::releases::reasons::Recheck::open(&target_package)?;
    let drafts = carry(failing_checks(&summary), &bases, &recheck)?;
    let record = RunRecord::from_report(&summary);
    let record_path = RunRecord::path(&options.root, &version.to_string());
    record.write(&record_path)?;
    let escapes = carry_escapes(
        run_probes(options, node, probe_secret).await?,
        &bases,
        &recheck,
    )?;
    // The profile only feeds the embedded gateway's prediction: a release whose surface the
    // capture cannot read yet is adopted without one, and the summary says why.
    let profile_note = match capture_profile(options, &files.profile).await {
        Ok(()) => format!("{} written", files.profile.display()),
        Err(e) => format!("no profile captured ({e})"),
    };
    let text = expectations_text(version, node, &drafts, &escapes);
    let todo = drafts.iter().filter(|d| d.carried.is_none()).count()
        + escapes.iter().filter(|e| e.carried.is_none()).count();
    let carried = drafts.len() + escapes.len() - todo;
    std::fs::create_dir_all(files.expectations.parent().unwrap_or(Path::new(".")))
        .map_err(Error::io("create", &files.expectations))?;
    std::fs::write(&files.expectations, text).map_err(Error::io("write", &files.expectations))?;

    let from = match bases.0.len() {
        0 => "no adopted release".to_string(),
        n => format!("{n} adopted releases, checked again in {version}'s dist/"),
    };
    let mut summary = format!(
        "adopted openclaw {version} (Node {node}):\n  {} written: {} failing checks and {} probe escapes; {carried} reasons carried from {from} (same check, expected and observed), {todo} left {TODO_REASON}\n  {} written\n  {profile_note}\n  {} written\n  {release_note}\n",
        files.expectations.display(),
        drafts.len(),
        escapes.len(),
        files.snapshots.display(),
        record_path.display(),
    );
    let data_dir = crate::output::shell_line(&[options.root.display().to_string()]);
    let gate = if options.root.as_os_str().is_empty() {
        format!("toolsearch-qa suite --target openclaw --openclaw-version {version}")
    } else {
        format!(
            "toolsearch-qa suite --target openclaw --openclaw-version {version} --data-dir {data_dir}"
        )
    };
    if todo == 0 {
        let _ = writeln!(
            summary,
            "next (no rebuild needed: release data is read at run time):\n  {gate}"
        );
    } else {
        let _ = writeln!(
            summary,
            "next: write the {todo} {TODO_REASON} reasons (each verified in the release's own \
             dist/; the suite lists every one left with its line and refuses the file, exit 2), \
             then (no rebuild needed):\n  {gate}"
        );
    }
    emit(out, &summary)?;
    Ok(Exit::OK)
}

/// `adopt --carry-only`: each `TODO` entry of the drafted expectations given the reason of an
/// adopted release that accepted exactly the same failure, once its citations hold in this
/// release's dist/; nothing runs, and every other line of the file stays as written.
fn carry_only(
    options: &AdoptOptions,
    version: &Version,
    files: &ReleaseFiles,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let path = &files.expectations;
    let text = std::fs::read_to_string(path).map_err(Error::io("read", path))?;
    let table: toml::Table =
        toml::from_str(&text).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))?;
    let field = |entry: &toml::Value, key: &str| {
        entry
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let findings = table
        .get("finding")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let drafts: Vec<Draft> = findings
        .iter()
        .map(|f| Draft {
            scenario: field(f, "scenario"),
            lane: field(f, "lane"),
            claim: field(f, "claim"),
            check: field(f, "check"),
            expected: field(f, "expected"),
            observed: field(f, "observed"),
            carried: None,
        })
        .collect();
    let todo: Vec<bool> = findings
        .iter()
        .map(|f| field(f, "reason") == TODO_REASON)
        .collect();
    let target = OpenClawTarget::locate_version(options.openclaw.node, Some(version))?;
    let recheck = crate::releases::reasons::Recheck::open(&target.install().package)?;
    drop(target);
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    let bases = Bases::all(catalogue, version)?;
    let carried = carry(drafts, &bases, &recheck)?;
    let fill: Vec<Option<&Carried>> = carried
        .iter()
        .zip(&todo)
        .map(|(d, is_todo)| d.carried.as_ref().filter(|_| *is_todo))
        .collect();
    let (text, filled) = fill_todo(&text, &fill);
    std::fs::write(path, &text).map_err(Error::io("write", path))?;
    let left = todo.iter().filter(|t| **t).count() - filled;
    emit(
        out,
        &format!(
            "{}: {filled} TODO reasons carried from {} ({} left {TODO_REASON})\n",
            path.display(),
            bases.describe(),
            left
        ),
    )?;
    Ok(Exit::OK)
}

/// `text` (an expectations file) with the `TODO` reason of the n-th `[[finding]]` replaced by
/// `fill[n]`'s, where it has one; every other line as written. With how many were filled.
fn fill_todo(text: &str, fill: &[Option<&Carried>]) -> (String, usize) {
    let todo_line = format!("reason = {}\n", quote(TODO_REASON));
    let mut blocks: Vec<String> = text.split("\n[[").map(str::to_string).collect();
    let (mut filled, mut n) = (0, 0);
    for block in blocks.iter_mut().skip(1) {
        if !block.starts_with("finding]]") {
            continue;
        }
        if let Some(Some(c)) = fill.get(n) {
            if block.contains(&todo_line) {
                *block = block.replacen(&todo_line, &reason_lines(Some(c)), 1);
                filled += 1;
            }
        }
        n += 1;
    }
    (blocks.join("\n[["), filled)
}

/// `adopt --record-only`: the run record of an adopted release, from a run of its scenarios.
async fn record_only(
    options: &AdoptOptions,
    version: &Version,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let summary = run_scenarios(
        version,
        options.openclaw.node,
        Snapshots::Off,
        options.scenarios.clone(),
    )
    .await?;
    let path = RunRecord::path(&options.root, &version.to_string());
    let fresh = RunRecord::from_report(&summary);
    let record = if options.scenarios.is_empty() {
        fresh
    } else {
        RunRecord::merged(
            &options.root,
            &version.to_string(),
            fresh,
            &options.scenarios,
            &scenario_order()?,
        )?
    };
    record.write(&path)?;
    emit(out, &format!("{} written\n", path.display()))?;
    Ok(Exit::OK)
}

/// Runs every built-in scenario on `version` with nothing accepted, and returns the run's
/// report of the release; a lane that could not run is an error (nothing half-adopted is
/// drafted).
pub async fn run_suite(
    version: &Version,
    node: NodeMajor,
    snapshots: Snapshots,
) -> Result<SuiteReport, Error> {
    run_pick(
        Pick::release(Some(version.clone()), node),
        snapshots,
        Vec::new(),
    )
    .await
}

/// The built-in scenario ids in the order a run takes them.
fn scenario_order() -> Result<Vec<String>, Error> {
    Ok(crate::scenario::load_all(&[])?
        .into_iter()
        .map(|s| s.id)
        .collect())
}

/// [`run_suite`] on the given built-in scenarios only (none: every one).
async fn run_scenarios(
    version: &Version,
    node: NodeMajor,
    snapshots: Snapshots,
    scenarios: Vec<String>,
) -> Result<SuiteReport, Error> {
    run_pick(
        Pick::release(Some(version.clone()), node),
        snapshots,
        scenarios,
    )
    .await
}

/// [`run_scenarios`] of whatever `pick` picks (a release, or a build).
pub async fn run_pick(
    pick: Pick,
    snapshots: Snapshots,
    scenarios: Vec<String>,
) -> Result<SuiteReport, Error> {
    let version = match pick.build() {
        Some(build) => format!("build {}", build.used.source),
        None => pick
            .release_version()
            .map_err(Error::openclaw("adopt"))?
            .to_string(),
    };
    let dir = crate::error::temp_dir("toolsearch-qa-adopt-")?;
    let request = RunRequest {
        scenarios,
        lanes: Vec::new(),
        scenario_dirs: Vec::new(),
        with_builtins: false,
        target: TargetPick::openclaw(pick),
        filter: None,
        shard: None,
        snapshots,
        provider: ProviderSource::Mock,
        expectations: Some(empty_expectations(dir.path())?),
        profile: None,
    };
    let outcome = crate::suite::run(&request, &Quiet).await?;
    // Concluded as `suite` concludes (the same `error:` lines on stderr); the printed report
    // itself is not wanted: the outcome is read as data.
    let code = crate::report::conclude(
        &outcome.reports,
        Format::Json,
        true,
        (None, None),
        &mut std::io::sink(),
    )?;
    if code == Exit::INFRA {
        let errors: Vec<String> = outcome
            .lane_errors()
            .map(|(scenario, e)| {
                let first = e.error.lines().next().unwrap_or_default();
                format!("{scenario} {}: {first}", e.lane)
            })
            .collect();
        return Err(Error::Machine(format!(
            "openclaw {version}: a lane could not run, so nothing is drafted: {}",
            errors.join("; ")
        )));
    }
    outcome
        .reports
        .into_iter()
        .next()
        .ok_or_else(|| Error::Machine(format!("openclaw {version}: the run reported no target")))
}

/// An expectations file with no entries, so no committed file of another release applies.
fn empty_expectations(dir: &Path) -> Result<PathBuf, Error> {
    let path = dir.join("none.toml");
    std::fs::write(&path, "# nothing accepted yet\n").map_err(Error::io("write", &path))?;
    Ok(path)
}

/// Every failing check of the report, sorted.
pub fn failing_checks(report: &SuiteReport) -> Vec<Draft> {
    let mut drafts = Vec::new();
    for scenario in &report.scenarios {
        for verdict in &scenario.claims {
            for failure in &verdict.failures {
                drafts.push(Draft {
                    scenario: scenario.scenario.clone(),
                    lane: verdict.lane.clone(),
                    claim: verdict.claim.as_str().to_string(),
                    check: failure.check.clone(),
                    expected: failure.expected.clone(),
                    observed: failure.actual.clone(),
                    carried: None,
                });
            }
        }
    }
    drafts.sort();
    drafts.dedup();
    drafts
}

/// Renames every `*.snap.new` the run wrote in `dir` to `*.snap`: the release's snapshots.
fn accept_pending_snapshots(dir: &Path) -> Result<(), Error> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if let Some(stem) = name.strip_suffix(".new") {
            let to = dir.join(stem);
            std::fs::rename(&path, &to).map_err(Error::io("rename", &path))?;
        }
    }
    Ok(())
}

/// Runs every probe on the release; the escapes, for the draft.
async fn run_probes(
    options: &AdoptOptions,
    node: u32,
    probe_secret: String,
) -> Result<Vec<EscapeDraft>, Error> {
    let dir = crate::error::temp_dir("toolsearch-qa-adopt-probes-")?;
    let request = crate::probes::ProbesRequest {
        target: TargetPick::openclaw(options.openclaw.clone()),
        names: Vec::new(),
        expectations: Some(empty_expectations(dir.path())?),
        env_secret: probe_secret,
    };
    let reports = crate::probes::run(&request).await?;
    if let Some(error) = crate::probes::inconclusive(&reports) {
        return Err(error);
    }
    let mut escapes: Vec<EscapeDraft> = reports
        .iter()
        .flat_map(|r| &r.probes)
        .filter(|p| p.outcome == crate::probes::ProbeOutcome::Escaped)
        .map(|p| EscapeDraft {
            probe: p.name.clone(),
            observed: p.evidence.clone(),
            node,
            carried: None,
        })
        .collect();
    escapes.sort();
    Ok(escapes)
}

async fn capture_profile(options: &AdoptOptions, path: &Path) -> Result<(), Error> {
    let capture = CaptureOptions {
        target: TargetPick::openclaw(options.openclaw.clone()),
        out: Some(path.to_path_buf()),
        with_text: false,
        bound_size: crate::capture::DEFAULT_BOUND_SIZE,
        profile: None,
    };
    let mut sink = Vec::new();
    crate::capture::command(&capture, &mut sink).await?;
    Ok(())
}

/// Writes the release's surface facts when it has none, from the nearest release's (a person
/// checks them against the snapshots); the line that says which.
fn write_release_facts(
    version: &Version,
    found: &Found,
    path: &Path,
    package: &Path,
) -> Result<String, Error> {
    if found.exact {
        return Ok(format!("{} kept (the release's own)", found.origin));
    }
    let header = format!(
        "# OpenClaw {version}'s Tool Search surface, drafted by `toolsearch-qa adopt` from\n\
         # {}, fitted to its own config schema (dist/zod-schema*): check each fact against\n\
         # snapshots/openclaw-{version}/ and the release's own dist/ before committing.\n",
        found.why(version)
    );
    let text = match same_as_file(found)? {
        // The nearest file as written, comments and all, its chunk names renamed to this
        // release's (check-reasons then reads its [code_mode] comments against this dist/).
        Some(text) => {
            let recheck = crate::releases::reasons::Recheck::open(package)?;
            let from = format!("version = \"{}\"", found.release.version);
            let text = text.replacen(&from, &format!("version = \"{version}\""), 1);
            format!("{header}{}", recheck.renamed(&text))
        }
        None => {
            let mut release = found.release.clone();
            release.version = version.clone();
            let body = toml::to_string(&release)
                .map_err(|e| Error::Machine(format!("cannot write release facts: {e}")))?;
            format!("{header}{body}")
        }
    };
    std::fs::write(path, text).map_err(Error::io("write", path))?;
    Ok(format!(
        "{} drafted from {}: check it",
        path.display(),
        found.why(version)
    ))
}

/// The text of the release file `found` came from, when fitting changed none of its facts.
fn same_as_file(found: &Found) -> Result<Option<String>, Error> {
    let name = format!("openclaw-{}.toml", found.release.version);
    let file = crate::data_root::current()
        .file(crate::data_root::DataKind::Releases, &name)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    let unchanged = catalogue
        .releases()
        .iter()
        .any(|a| a.release == found.release);
    Ok(file.filter(|_| unchanged).map(|f| f.text.into_owned()))
}

/// The drafted expectations file: every failing check and escape, reason `TODO`.
pub fn expectations_text(
    version: &Version,
    node: u32,
    drafts: &[Draft],
    escapes: &[EscapeDraft],
) -> String {
    let mut text = format!(
        "# Accepted findings of OpenClaw {version}, drafted by `toolsearch-qa adopt` on Node {node}:\n\
         # every check that failed, with the value observed. Replace each reason {TODO_REASON:?} with the\n\
         # true one (verified in the release's own docs, changelog or dist), or delete the entry and\n\
         # fix the harness. The suite refuses a {TODO_REASON} reason (exit 2).\n"
    );
    for d in drafts {
        let _ = write!(
            text,
            "\n[[finding]]\nscenario = {}\nlane = {}\nclaim = {}\ncheck = {}\nexpected = {}\n\
             observed = {}\n{}",
            quote(&d.scenario),
            quote(&d.lane),
            quote(&d.claim),
            quote(&d.check),
            quote(&d.expected),
            quote(&d.observed),
            reason_lines(d.carried.as_ref())
        );
    }
    for e in escapes {
        let _ = write!(
            text,
            "\n[[probe]]\nprobe = {}\nobserved = {}\nnode = [{}]\n{}",
            quote(&e.probe),
            quote(&e.observed),
            e.node,
            reason_lines(e.carried.as_ref())
        );
    }
    text
}

/// `reason = …` (and `carried_from = …` when the reason is another release's), or `TODO`.
fn reason_lines(carried: Option<&Carried>) -> String {
    match carried {
        Some(c) => format!(
            "reason = {}\ncarried_from = {}\n",
            quote(&c.reason),
            quote(&c.from)
        ),
        None => format!("reason = {}\n", quote(TODO_REASON)),
    }
}

/// An adopted release whose accepted findings an adoption carries reasons from.
pub struct Base {
    pub version: Version,
    pub expectations: Expectations,
}

/// Every adopted release with accepted findings that load, nearest to the release being
/// adopted first ([`Version::distance`]; on a tie the newer): a reason is carried from any of
/// them, the nearest that holds first.
pub struct Bases(pub Vec<Base>);

impl Bases {
    pub fn all(catalogue: &ReleaseCatalogue, version: &Version) -> Result<Bases, Error> {
        let known = load_all(&[])?;
        let mut bases = Vec::new();
        for candidate in catalogue.nearest_first(version) {
            if candidate == version {
                continue;
            }
            let label = format!("openclaw-{candidate}");
            // A file with unwritten reasons carries nothing.
            if let Ok(Some(expectations)) = findings::built_in(&label, &known) {
                bases.push(Base {
                    version: candidate.clone(),
                    expectations,
                });
            }
        }
        Ok(Bases(bases))
    }

    pub fn describe(&self) -> String {
        match self.0.as_slice() {
            [] => "no release (none has accepted findings)".into(),
            bases => {
                let names: Vec<String> = bases.iter().map(|b| b.version.to_string()).collect();
                format!(
                    "any of {} adopted releases, nearest first ({}), each reason checked again in this release's dist/",
                    bases.len(),
                    names.join(", ")
                )
            }
        }
    }
}

/// What a carried reason must meet before it is carried: the adopted release's own `dist/`
/// ([`crate::releases::reasons::Recheck`]; a test stands in its own).
pub trait Recheck {
    /// The reason with cited chunk files renamed to this release's.
    fn renamed(&self, reason: &str) -> String;
    /// For each reason, whether this release has everything it cites.
    fn holds(&self, reasons: &[String]) -> Result<Vec<bool>, Error>;
}

impl Recheck for crate::releases::reasons::Recheck {
    fn renamed(&self, reason: &str) -> String {
        crate::releases::reasons::Recheck::renamed(self, reason)
    }
    fn holds(&self, reasons: &[String]) -> Result<Vec<bool>, Error> {
        crate::releases::reasons::Recheck::holds(self, reasons)
    }
}

/// For each item, its candidates (reason, release) nearest first; the first whose renamed text
/// holds in `recheck` is carried. Every candidate is checked in one pass over the dist.
fn first_holding(
    candidates: Vec<Vec<(String, String)>>,
    recheck: &dyn Recheck,
) -> Result<Vec<Option<Carried>>, Error> {
    let renamed: Vec<Vec<(String, String)>> = candidates
        .into_iter()
        .map(|list| {
            list.into_iter()
                .map(|(reason, from)| (recheck.renamed(&reason), from))
                .collect()
        })
        .collect();
    let mut texts: Vec<String> = renamed
        .iter()
        .flatten()
        .map(|(reason, _)| reason.clone())
        .collect();
    texts.sort();
    texts.dedup();
    let held: std::collections::BTreeSet<&String> = texts
        .iter()
        .zip(recheck.holds(&texts)?)
        .filter_map(|(text, ok)| ok.then_some(text))
        .collect();
    Ok(renamed
        .into_iter()
        .map(|list| {
            list.into_iter()
                .find(|(reason, _)| held.contains(reason))
                .map(|(reason, from)| Carried { reason, from })
        })
        .collect())
}

/// Each draft with a reason carried from the nearest adopted release that accepted exactly the
/// same failure (same scenario, lane, claim, check, expected and observed) and whose reason,
/// renamed to this release's chunks, cites only what this release's dist/ has.
pub fn carry(
    mut drafts: Vec<Draft>,
    bases: &Bases,
    recheck: &dyn Recheck,
) -> Result<Vec<Draft>, Error> {
    let candidates = drafts
        .iter()
        .map(|d| {
            bases
                .0
                .iter()
                .flat_map(|base| {
                    base.expectations
                        .findings
                        .iter()
                        .filter(|f| {
                            f.scenario == d.scenario
                                && f.lane == d.lane
                                && f.claim.as_str() == d.claim
                                && f.check == d.check
                                && f.expected == d.expected
                                && f.observed == d.observed
                        })
                        .map(|f| (f.reason.clone(), base.version.to_string()))
                })
                .collect()
        })
        .collect();
    for (d, carried) in drafts.iter_mut().zip(first_holding(candidates, recheck)?) {
        d.carried = carried;
    }
    Ok(drafts)
}

/// Each escape with a reason carried, as [`carry`], from a release that accepted the same probe
/// escaping the same way.
fn carry_escapes(
    mut escapes: Vec<EscapeDraft>,
    bases: &Bases,
    recheck: &dyn Recheck,
) -> Result<Vec<EscapeDraft>, Error> {
    let candidates = escapes
        .iter()
        .map(|e| {
            bases
                .0
                .iter()
                .flat_map(|base| {
                    base.expectations
                        .probes
                        .iter()
                        .filter(|p| p.probe == e.probe && p.observed == e.observed)
                        .map(|p| (p.reason.clone(), base.version.to_string()))
                })
                .collect()
        })
        .collect();
    for (e, carried) in escapes.iter_mut().zip(first_holding(candidates, recheck)?) {
        e.carried = carried;
    }
    Ok(escapes)
}

/// A TOML string: literal (`'…'`) when that keeps it as written, basic otherwise.
fn quote(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failing_checks_become_drafts() {
        use crate::outcome::{Check, Verdict};
        use crate::scenario::ClaimId;
        let failing = Check {
            check: "schemas up front".into(),
            ok: false,
            expected: "a".into(),
            actual: "not \"recorded\"".into(),
        };
        let mut summary =
            crate::suite::claims::fixture::Fixture::passing_reference().suite_report();
        summary.scenarios[0].scenario = "s".into();
        summary.scenarios[0].claims = vec![
            Verdict::new(ClaimId::L1, "direct", vec![failing]),
            Verdict::new(ClaimId::C1, "direct", Vec::new()),
        ];
        let drafts = failing_checks(&summary);
        assert_eq!(
            drafts,
            vec![Draft {
                scenario: "s".into(),
                lane: "direct".into(),
                claim: "L1".into(),
                check: "schemas up front".into(),
                expected: "a".into(),
                observed: "not \"recorded\"".into(),
                carried: None,
            }]
        );
        let version: Version = "2026.9.5".parse().unwrap();
        let escapes = [EscapeDraft {
            probe: "import_error_constructor".into(),
            observed: "returned \"object\"".into(),
            node: 26,
            carried: None,
        }];
        let text = expectations_text(&version, 26, &drafts, &escapes);
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let finding = &parsed["finding"].as_array().unwrap()[0];
        assert_eq!(finding["observed"].as_str(), Some("not \"recorded\""));
        assert_eq!(finding["reason"].as_str(), Some(TODO_REASON));
        assert_eq!(
            parsed["probe"].as_array().unwrap()[0]["node"][0].as_integer(),
            Some(26)
        );
    }

    /// A release's dist/ as the test says: the reasons it holds, renames as given.
    struct FakeDist {
        holds: Vec<&'static str>,
        rename: (&'static str, &'static str),
    }

    impl Recheck for FakeDist {
        fn renamed(&self, reason: &str) -> String {
            reason.replace(self.rename.0, self.rename.1)
        }
        fn holds(&self, reasons: &[String]) -> Result<Vec<bool>, Error> {
            Ok(reasons
                .iter()
                .map(|r| self.holds.contains(&r.as_str()))
                .collect())
        }
    }

    fn base(version: &str, observed: &str, reason: &str) -> Base {
        let known = load_all(&[]).unwrap();
        let text = format!(
            "[[finding]]\nscenario = \"tool-search-gateway-e2e\"\nlane = \"direct\"\n\
             claim = \"L1\"\ncheck = \"c\"\nexpected = \"e\"\nobserved = \"{observed}\"\n\
             reason = \"{reason}\"\n"
        );
        Base {
            version: version.parse().unwrap(),
            expectations: Expectations::parse(&text, "x.toml", &known).unwrap(),
        }
    }

    fn draft(observed: &str) -> Draft {
        Draft {
            scenario: "tool-search-gateway-e2e".into(),
            lane: "direct".into(),
            claim: "L1".into(),
            check: "c".into(),
            expected: "e".into(),
            observed: observed.into(),
            carried: None,
        }
    }

    #[test]
    fn a_reason_is_carried_only_for_the_same_failure() {
        let known = load_all(&[]).unwrap();
        let bases = Bases(vec![base("2026.9.6", "o", "known since 2026.9.6")]);
        let dist = FakeDist {
            holds: vec!["known since 2026.9.6"],
            rename: ("", ""),
        };
        let drafts = carry(vec![draft("o"), draft("other")], &bases, &dist).unwrap();
        assert_eq!(
            drafts[0].carried,
            Some(Carried {
                reason: "known since 2026.9.6".into(),
                from: "2026.9.6".into()
            })
        );
        assert_eq!(drafts[1].carried, None);
        let version: Version = "2026.9.5".parse().unwrap();
        let text = expectations_text(&version, 24, &drafts, &[]);
        assert!(
            text.contains("reason = \"known since 2026.9.6\"\ncarried_from = \"2026.9.6\"\n"),
            "{text}"
        );
        // The drafted file still refuses to load while one reason is TODO, and names its line.
        let error = Expectations::parse(&text, "d.toml", &known)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("line 16: finding[1].reason: TODO"),
            "{error}"
        );
    }

    #[test]
    fn a_reason_is_carried_from_any_release_whose_citations_hold_here() {
        // The nearest release's reason cites what this dist lacks; a farther one's, renamed to
        // this release's chunk, holds: that one is carried, as renamed.
        let bases = Bases(vec![
            base("2026.8.1", "o", "nearest, cites gone-AAAAAAAA.js"),
            base("2026.5.12", "o", "farther, cites pi-tools-BkxVpbv8.js"),
        ]);
        let dist = FakeDist {
            holds: vec!["farther, cites pi-tools-Zz9_aB-1.js"],
            rename: ("pi-tools-BkxVpbv8.js", "pi-tools-Zz9_aB-1.js"),
        };
        let drafts = carry(vec![draft("o")], &bases, &dist).unwrap();
        assert_eq!(
            drafts[0].carried,
            Some(Carried {
                reason: "farther, cites pi-tools-Zz9_aB-1.js".into(),
                from: "2026.5.12".into()
            })
        );
        // None holds: TODO.
        let none = FakeDist {
            holds: vec![],
            rename: ("", ""),
        };
        let drafts = carry(vec![draft("o")], &bases, &none).unwrap();
        assert_eq!(drafts[0].carried, None);
    }

    #[test]
    fn carry_only_fills_the_todo_reasons_it_carries_and_leaves_every_other_line() {
        let text = "# header\n\n[[finding]]\nclaim = \"C1\"\nreason = \"TODO\"\n\n\
                    [[finding]]\nclaim = \"C2\"\nreason = \"written\"\n\n\
                    [[probe]]\nprobe = \"p\"\nreason = \"TODO\"\n\n\
                    [[finding]]\nclaim = \"C3\"\nreason = \"TODO\"\n";
        let c = Carried {
            reason: "the cause".into(),
            from: "2026.7.35".into(),
        };
        let (out, filled) = fill_todo(text, &[None, None, Some(&c)]);
        assert_eq!(filled, 1);
        assert_eq!(
            out,
            text.replacen(
                "claim = \"C3\"\nreason = \"TODO\"\n",
                "claim = \"C3\"\nreason = \"the cause\"\ncarried_from = \"2026.7.35\"\n",
                1
            )
        );
    }

    #[test]
    fn every_todo_of_a_file_is_reported_at_once() {
        let known = load_all(&[]).unwrap();
        let entry = "[[finding]]\nscenario = \"tool-search-gateway-e2e\"\nlane = \"direct\"\n\
                     claim = \"L1\"\ncheck = \"c\"\nexpected = \"e\"\nobserved = \"o\"\n\
                     reason = \"TODO\"\n";
        let text = format!("{entry}\n{entry}\n{}", entry.replace("L1", "Q9"));
        let error = Expectations::parse(&text, "d.toml", &known)
            .unwrap_err()
            .to_string();
        let lines: Vec<&str> = error.lines().collect();
        assert_eq!(lines.len(), 4, "{error}");
        assert!(
            lines[0].starts_with("expectations file d.toml: line 1: finding[0].reason: TODO"),
            "{error}"
        );
        assert!(
            lines[1].starts_with("expectations file d.toml: line 10: finding[1].reason: TODO"),
            "{error}"
        );
        assert!(
            lines[2].starts_with(
                "expectations file d.toml: line 19: finding[2].claim: unknown claim \"Q9\""
            ),
            "{error}"
        );
        assert_eq!(lines[3], "3 problems in d.toml");
    }
}
