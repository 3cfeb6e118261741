//! The one schema of `summary.json`, in both directions: the suite writes it from its reports
//! and `report merge` (or any caller) reads it back into the same types. Verdicts are never
//! read: each is computed again from the report it heads ([`SuiteReport::verdict`]), so a file
//! cannot claim a pass its contents do not hold.
//!
//! Three shapes, by what the run covered: one target's run, several targets side by side
//! (`--target both`: an object per target under `targets`), several runs of one target (a
//! merged CI matrix over releases: `runs`).

use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer, Serialize};

use super::{LaneMap, Outcome, RunVerdict, SuiteReport};
use crate::targets::TargetKind;

/// A whole `summary.json`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum SummaryFile {
    /// One target's run.
    One(Box<RunSummary>),
    /// Several targets side by side, each under its name.
    Targets(Headed<TargetRuns>),
    /// Several runs of one target.
    Runs(Headed<Runs>),
}

/// One run's summary: the verdict's `ok`, outcome and counts, then the report itself.
#[derive(Debug, Clone, Serialize)]
pub struct RunSummary {
    ok: bool,
    outcome: Outcome,
    verdict: RunVerdict,
    #[serde(flatten)]
    report: SuiteReport,
}

/// A verdict over several runs, heading them.
#[derive(Debug, Clone, Serialize)]
pub struct Headed<T> {
    ok: bool,
    outcome: Outcome,
    verdict: RunVerdict,
    #[serde(flatten)]
    body: T,
}

/// The runs of several targets, by target name, in run order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TargetRuns {
    targets: LaneMap<RunSummary>,
}

/// Several runs of one target, in order.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Runs {
    runs: Vec<RunSummary>,
}

impl RunSummary {
    pub fn of(report: SuiteReport) -> RunSummary {
        let verdict = report.verdict();
        RunSummary {
            ok: verdict.passed(),
            outcome: verdict.outcome(),
            verdict,
            report,
        }
    }
}

impl<'de> Deserialize<'de> for RunSummary {
    /// The report; `ok`, `outcome` and `verdict` are computed from it, not read.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        SuiteReport::deserialize(deserializer).map(RunSummary::of)
    }
}

impl<T> Headed<T> {
    fn over(reports: &[SuiteReport], body: T) -> Headed<T> {
        let verdict = super::run_verdict(reports);
        Headed {
            ok: verdict.passed(),
            outcome: verdict.outcome(),
            verdict,
            body,
        }
    }
}

/// Whether every report is of another target (then they read side by side, one each).
pub fn distinct_targets(reports: &[SuiteReport]) -> bool {
    let mut kinds: Vec<TargetKind> = reports.iter().map(|r| r.target).collect();
    kinds.sort();
    kinds.dedup();
    kinds.len() == reports.len()
}

impl SummaryFile {
    /// The summary of a run's reports, in the shape their targets call for.
    pub fn of(reports: &[SuiteReport]) -> SummaryFile {
        match reports {
            [one] => SummaryFile::One(Box::new(RunSummary::of(one.clone()))),
            all if distinct_targets(all) => {
                let targets = all
                    .iter()
                    .map(|r| (r.target.as_str().to_string(), RunSummary::of(r.clone())))
                    .collect();
                SummaryFile::Targets(Headed::over(
                    all,
                    TargetRuns {
                        targets: LaneMap(targets),
                    },
                ))
            }
            all => {
                let runs = all.iter().cloned().map(RunSummary::of).collect();
                SummaryFile::Runs(Headed::over(all, Runs { runs }))
            }
        }
    }

    /// As written to `summary.json` (pretty JSON, without the final newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a `summary.json`; the shape is told by its `targets` or `runs` key.
    pub fn parse(text: &str) -> Result<SummaryFile, serde_json::Error> {
        #[derive(Deserialize)]
        struct Shape {
            targets: Option<IgnoredAny>,
            runs: Option<IgnoredAny>,
        }
        let shape: Shape = serde_json::from_str(text)?;
        Ok(match (shape.targets, shape.runs) {
            (Some(_), _) => {
                let body: TargetRuns = serde_json::from_str(text)?;
                let reports: Vec<SuiteReport> = body
                    .targets
                    .0
                    .iter()
                    .map(|(_, r)| r.report.clone())
                    .collect();
                SummaryFile::Targets(Headed::over(&reports, body))
            }
            (None, Some(_)) => {
                let body: Runs = serde_json::from_str(text)?;
                let reports: Vec<SuiteReport> =
                    body.runs.iter().map(|r| r.report.clone()).collect();
                SummaryFile::Runs(Headed::over(&reports, body))
            }
            (None, None) => SummaryFile::One(Box::new(serde_json::from_str(text)?)),
        })
    }

    /// The reports, in the file's order.
    pub fn into_reports(self) -> Vec<SuiteReport> {
        match self {
            SummaryFile::One(one) => vec![one.report],
            SummaryFile::Targets(all) => all
                .body
                .targets
                .0
                .into_iter()
                .map(|(_, r)| r.report)
                .collect(),
            SummaryFile::Runs(all) => all.body.runs.into_iter().map(|r| r.report).collect(),
        }
    }
}
