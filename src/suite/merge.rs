//! `report merge`: the one verdict of a CI matrix. Each job of the matrix (release × Node major ×
//! `--shard K/N`) writes its `--report-dir`; this reads every one, checks that the shards of each
//! run add up to the selection the run was asked for (a missing, repeated or foreign shard is an
//! error, never a pass), puts each run back together in its unsharded order and renders it as
//! one `suite` run would have: the same table, count line, `summary.json`, JUnit, `report.md`
//! and exit code.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::outcome::summary::SummaryFile;
use crate::outcome::{Selection, Shard, SuiteReport};
use crate::output::Format;
use crate::report::conclude;
use crate::targets::{Product, TargetKind};

/// Everything `report merge` is told.
#[derive(Debug, Clone)]
pub struct MergeOptions {
    /// The jobs' report directories (each holds the `summary.json` its `suite` wrote).
    pub dirs: Vec<PathBuf>,
    pub format: Format,
    pub verbose: bool,
    pub junit: Option<PathBuf>,
    pub report_dir: Option<PathBuf>,
    /// How many runs (target × release × Node major) the matrix has: a run whose every job died
    /// leaves no directory at all, which only this count can notice.
    pub runs: Option<usize>,
}

/// One job's report of one target, and the directory it came from (named in errors).
#[derive(Debug, Clone)]
pub struct Part {
    pub dir: PathBuf,
    pub report: SuiteReport,
}

/// Merges the report directories, prints the merged report to `out`, writes the CI files; the
/// exit code the single run would have had.
pub fn run(options: &MergeOptions, out: &mut dyn Write) -> Result<u8, Error> {
    if options.dirs.is_empty() {
        return Err(Error::Usage(
            "report merge needs at least one report directory (each job's --report-dir)".into(),
        ));
    }
    let mut parts = Vec::new();
    for dir in &options.dirs {
        parts.extend(read_dir(dir)?);
    }
    let merged = merge(parts)?;
    if let Some(expected) = options.runs {
        if merged.len() != expected {
            return Err(Error::Usage(format!(
                "--runs {expected}: the directories hold {} run{} ({}): a run whose every job \
                 failed has not been checked",
                merged.len(),
                if merged.len() == 1 { "" } else { "s" },
                merged
                    .iter()
                    .map(|r| run_name(&run_key(r)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    conclude(
        &merged,
        options.format,
        options.verbose,
        (options.junit.as_deref(), options.report_dir.as_deref()),
        out,
    )
}

/// The reports in `dir/summary.json`: one target's, or each target of a `--target both` run.
pub fn read_dir(dir: &Path) -> Result<Vec<Part>, Error> {
    let path = dir.join("summary.json");
    let text = match std::fs::read_to_string(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Usage(format!(
                "{} has no summary.json: not a report directory of `suite --report-dir`, or its \
                 job did not finish",
                dir.display()
            )))
        }
        read => read.map_err(Error::io("cannot read", &path))?,
    };
    let bad = |e: serde_json::Error| {
        Error::Usage(format!(
            "{}: not a summary.json that `suite --report-dir` writes: {e}",
            path.display()
        ))
    };
    let reports = SummaryFile::parse(&text).map_err(bad)?.into_reports();
    Ok(reports
        .into_iter()
        .map(|report| Part {
            dir: dir.to_path_buf(),
            report,
        })
        .collect())
}

/// Which run a part belongs to: the target, and the release and Node of a real product.
type RunKey = (
    TargetKind,
    Option<(String, String, Option<String>, Option<String>)>,
);

fn run_key(report: &SuiteReport) -> RunKey {
    let product = report.product.as_ref().map(
        |Product {
             version,
             node,
             seeded,
             build,
         }| {
            let build = build
                .as_ref()
                .map(|b| format!("{} {}", b.source, b.baseline));
            (version.clone(), node.clone(), seeded.clone(), build)
        },
    );
    (report.target, product)
}

/// Puts each run's shards back together; the runs in a fixed order (target, release, Node),
/// whatever order the directories were given in.
pub fn merge(parts: Vec<Part>) -> Result<Vec<SuiteReport>, Error> {
    let mut runs: BTreeMap<RunKey, Vec<Part>> = BTreeMap::new();
    for part in parts {
        runs.entry(run_key(&part.report)).or_default().push(part);
    }
    runs.into_iter()
        .map(|(key, parts)| merge_run(&key, parts))
        .collect()
}

/// What a run is called in errors: `openclaw 2026.9.6 on Node v24.1.0`, `embedded`.
fn run_name((target, product): &RunKey) -> String {
    match product {
        Some((version, node, seeded, build)) => format!(
            "{} {version} on Node {node}{}{}",
            target.as_str(),
            seeded
                .as_ref()
                .map(|s| format!(" seeded with {s}"))
                .unwrap_or_default(),
            build
                .as_ref()
                .map(|b| format!(" (build {b})"))
                .unwrap_or_default()
        ),
        None => target.as_str().to_string(),
    }
}

fn dirs(parts: &[&Part]) -> String {
    parts
        .iter()
        .map(|p| p.dir.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// One run from its parts: the whole run alone, or shards 1..=N of it, each exactly once, that
/// together ran every scenario of the selection once.
fn merge_run(key: &RunKey, mut parts: Vec<Part>) -> Result<SuiteReport, Error> {
    let name = run_name(key);
    let first = &parts[0];
    let selection = first.report.selection.scenarios.clone();
    if selection.is_empty() {
        return Err(Error::Usage(format!(
            "run {name}: {}/summary.json does not say which scenarios the run was asked for \
             (written by an older toolsearch-qa): run the jobs again with this version",
            first.dir.display()
        )));
    }
    if let Some(other) = parts
        .iter()
        .find(|p| p.report.selection.scenarios != selection)
    {
        return Err(Error::Usage(format!(
            "run {name}: {} and {} ran different selections of scenarios (a different \
             --scenario or --filter): they are not shards of one run",
            first.dir.display(),
            other.dir.display()
        )));
    }
    let checks = first.report.selection.checks.clone();
    if let Some(other) = parts.iter().find(|p| p.report.selection.checks != checks) {
        return Err(Error::Usage(format!(
            "run {name}: {} {} but {} {}: the shards of one run must check the same (the same \
             --no-snapshots and --profile), or the merge would pass what a shard did not check",
            first.dir.display(),
            checks.describe(),
            other.dir.display(),
            other.report.selection.checks.describe()
        )));
    }
    check_shards(&name, &parts)?;
    parts.sort_by_key(|p| p.report.selection.shard.map(|s| s.index));
    let mut reports = parts.into_iter().map(|p| (p.dir, p.report));
    let (_, mut merged) = reports.next().expect("a run has at least one part");
    for (dir, report) in reports {
        if report.expectations != merged.expectations {
            return Err(Error::Usage(format!(
                "run {name}: {} was judged against other accepted findings ({}) than the \
                 other shards ({})",
                dir.display(),
                report.expectations.as_deref().unwrap_or("none"),
                merged.expectations.as_deref().unwrap_or("none")
            )));
        }
        merged.scenarios.extend(report.scenarios);
        merged.stale_findings.extend(report.stale_findings);
        merged.unjudged_findings.extend(report.unjudged_findings);
        match (
            &mut merged.build_against_baseline,
            report.build_against_baseline,
        ) {
            (Some(section), Some(other)) => section.absorb(other),
            (slot @ None, other) => *slot = other,
            (Some(_), None) => {}
        }
    }
    put_in_selection_order(&name, &mut merged, &selection)?;
    merged.selection = Selection {
        scenarios: selection,
        shard: None,
        checks,
    };
    Ok(merged)
}

/// A run is either one unsharded part or shards 1..=N of the same N, each once.
fn check_shards(name: &str, parts: &[Part]) -> Result<(), Error> {
    let whole: Vec<&Part> = parts
        .iter()
        .filter(|p| p.report.selection.shard.is_none())
        .collect();
    match (whole.len(), parts.len()) {
        (0, _) => {}
        (1, 1) => return Ok(()),
        _ => {
            return Err(Error::Usage(format!(
                "run {name} is in the directories more than once ({}): merge one run, or its \
                 shards",
                dirs(&parts.iter().collect::<Vec<_>>())
            )))
        }
    }
    let count = parts[0].report.selection.shard.map_or(0, |s| s.count);
    let mut seen: BTreeMap<usize, Vec<&Part>> = BTreeMap::new();
    for part in parts {
        let Some(Shard { index, count: n }) = part.report.selection.shard else {
            unreachable!("checked above: every part is a shard")
        };
        if n != count {
            return Err(Error::Usage(format!(
                "run {name}: {} is a shard of {n} but others are shards of {count}",
                part.dir.display()
            )));
        }
        seen.entry(index).or_default().push(part);
    }
    if let Some((index, twice)) = seen.iter().find(|(_, p)| p.len() > 1) {
        return Err(Error::Usage(format!(
            "run {name}: shard {index}/{count} is there twice ({})",
            dirs(twice)
        )));
    }
    let missing: Vec<String> = (1..=count)
        .filter(|i| !seen.contains_key(i))
        .map(|i| format!("{i}/{count}"))
        .collect();
    if !missing.is_empty() {
        return Err(Error::Usage(format!(
            "run {name}: shard{} {} missing (found {}): a run with a missing shard has not \
             checked every scenario",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            seen.keys()
                .map(|i| format!("{i}/{count}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// Orders the scenarios (and their stale and unjudged findings) as the unsharded run would have;
/// every selected scenario must be there exactly once.
fn put_in_selection_order(
    name: &str,
    report: &mut SuiteReport,
    selection: &[String],
) -> Result<(), Error> {
    let position = |id: &str| selection.iter().position(|s| s == id);
    let mut ids: Vec<&str> = report
        .scenarios
        .iter()
        .map(|s| s.scenario.as_str())
        .collect();
    ids.sort_unstable();
    if let Some(twice) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(Error::Usage(format!(
            "run {name}: scenario {} is in two shards (the shards were cut differently)",
            twice[0]
        )));
    }
    if let Some(extra) = ids.iter().find(|id| position(id).is_none()) {
        return Err(Error::Usage(format!(
            "run {name}: scenario {extra} is not in the run's selection"
        )));
    }
    if let Some(missing) = selection
        .iter()
        .find(|id| ids.binary_search(&id.as_str()).is_err())
    {
        return Err(Error::Usage(format!(
            "run {name}: scenario {missing} was selected but no shard ran it"
        )));
    }
    report.scenarios.sort_by_key(|s| position(&s.scenario));
    report
        .stale_findings
        .sort_by_key(|f| position(&f.finding.scenario));
    report
        .unjudged_findings
        .sort_by_key(|f| position(&f.finding.scenario));
    Ok(())
}
