//! Renders what a run found ([`crate::outcome`]) in every format a reader needs: readable tables
//! ([`table`]), the JSON summary ([`crate::outcome::summary`]), Markdown for CI summaries
//! ([`markdown`]), JUnit XML ([`junit`]), several targets side by side ([`both`]), where the
//! time went ([`timings`]), a build against its baseline ([`baseline`]). It judges nothing: every verdict it shows was computed in
//! `crate::outcome`. All are deterministic for a given run; lane timings are the only values
//! that vary.

pub mod baseline;
pub mod both;
pub mod junit;
pub mod markdown;
pub mod not_run;
pub mod table;
pub mod timings;

use std::io::Write;
use std::path::Path;

use crate::error::Error;
use crate::outcome::summary::{distinct_targets, SummaryFile};
use crate::outcome::{count_line, run_verdict, Outcome, SuiteReport};
use crate::output::{emit, Format};
use junit::junit_xml;
use table::Detail;

/// The table of a run's reports: one target's, several targets side by side, or (several runs
/// of one target) each run's table, then the count line over all.
pub fn render_table(reports: &[SuiteReport], shown: table::Detail) -> String {
    match reports {
        [one] => one.to_table_with(shown),
        all if distinct_targets(all) => both::side_by_side_with(all, shown),
        all => {
            let mut out = String::new();
            for report in all {
                out.push_str(&report.to_table_with(shown));
                out.push('\n');
            }
            out + &count_line(all)
        }
    }
}

/// `summary.json` of a run's reports, in the same three shapes as [`render_table`].
pub fn render_json(reports: &[SuiteReport]) -> String {
    SummaryFile::of(reports).to_json()
}

/// `report.md` of a run's reports: each report's Markdown, one after another.
pub fn render_markdown(reports: &[SuiteReport]) -> String {
    reports
        .iter()
        .map(SuiteReport::to_markdown)
        .collect::<Vec<_>>()
        .join("\n")
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

/// Judged reports for the renderers' tests, read through `summary.json`'s schema: the claims'
/// test fixture's reference scenario (lanes direct and tools) and a scenario with
/// a `tools` lane alone, as `suite` wrote them.
#[cfg(test)]
pub(crate) mod testdata {
    use crate::outcome::summary::SummaryFile;
    use crate::outcome::SuiteReport;

    fn read(text: &str) -> SuiteReport {
        let mut reports = SummaryFile::parse(text).expect("a summary").into_reports();
        reports.remove(0)
    }

    pub fn reference() -> SuiteReport {
        read(include_str!("testdata/reference.summary.json"))
    }

    pub fn tools_lane() -> SuiteReport {
        read(include_str!("testdata/tools-lane.summary.json"))
    }
}
