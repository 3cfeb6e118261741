//! The run's verdict: one value, computed in one place ([`SuiteReport::verdict`]) from the claim
//! verdicts, the snapshot comparisons, the accepted findings (matched, stale, unjudged) and the
//! lanes that could not run. The exit code, the count line, the tables, the JSON summary, JUnit
//! and Markdown only render it, so no report can show a pass the exit code does not (the model
//! is nextest's `RunStats`: counts first, the outcome derived from them).

use serde::Serialize;

use super::{SnapshotState, SuiteReport};
use crate::error::Exit;
use crate::outcome::Verdict;

/// What a run (one target, or several summed) counted, and what follows from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunVerdict {
    /// Scenarios the run covered (none: the selection was empty).
    pub scenarios: usize,
    pub claims: ClaimCounts,
    pub snapshots: SnapshotCounts,
    pub findings: FindingCounts,
    /// Lanes that could not start or answer (infrastructure errors).
    pub lane_errors: usize,
    /// One shard of a run (`--shard K/N`): a shard that judged nothing is not yet a run that
    /// judged nothing (`report merge` judges the whole).
    #[serde(skip)]
    pub sharded: bool,
}

/// Claim verdicts by result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimCounts {
    pub passed: usize,
    pub failed: usize,
    /// Failed exactly as an accepted finding says (never a failure).
    pub accepted: usize,
    /// The scenario lacks a lane the claim needs (never a failure).
    pub not_applicable: usize,
}

/// Snapshot comparisons by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotCounts {
    pub same: usize,
    pub changed: usize,
    pub missing: usize,
    /// A `.snap.new` was written and waits for review (`--update-snapshots`).
    pub pending: usize,
}

/// Accepted findings by what became of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingCounts {
    /// Entries a failing check matched exactly.
    pub matched: usize,
    /// Entries whose check holds now, or was not evaluated (each fails the run).
    pub stale: usize,
    /// Entries of a lane that could not run: neither matched nor stale.
    pub unjudged: usize,
}

/// What a run's counts add up to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Every claim holds (or fails exactly as accepted), every snapshot matches, no accepted
    /// finding is stale.
    Passed,
    /// A claim failed, a snapshot changed, is missing or waits for review, or an accepted
    /// finding no longer reproduces.
    Failed,
    /// A lane could not start or answer: the run could not judge it.
    Errored,
    /// No scenario was selected, or every claim of those selected was not applicable: the run
    /// judged nothing.
    Empty,
}

impl Outcome {
    /// The process exit code of this outcome.
    pub fn exit_code(self) -> u8 {
        match self {
            Outcome::Passed => Exit::OK,
            Outcome::Failed => Exit::FAILED,
            Outcome::Errored => Exit::INFRA,
            Outcome::Empty => Exit::USAGE,
        }
    }

    /// `PASS`, `FAIL`, `ERROR` or `EMPTY`, for report headings.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "PASS",
            Outcome::Failed => "FAIL",
            Outcome::Errored => "ERROR",
            Outcome::Empty => "EMPTY",
        }
    }
}

impl RunVerdict {
    /// The outcome: an empty selection, then lane errors, then any failure, then a run that
    /// judged nothing, decide it in that order.
    pub fn outcome(&self) -> Outcome {
        if self.scenarios == 0 {
            Outcome::Empty
        } else if self.lane_errors > 0 {
            Outcome::Errored
        } else if self.fails() {
            Outcome::Failed
        } else if self.judged_nothing() && !self.sharded {
            Outcome::Empty
        } else {
            Outcome::Passed
        }
    }

    /// No claim passed, failed or was accepted, and no snapshot was compared: every claim of
    /// the selection was not applicable (on the product, a scenario it cannot run).
    pub fn judged_nothing(&self) -> bool {
        let (c, s) = (&self.claims, &self.snapshots);
        c.passed + c.failed + c.accepted + s.same + s.changed + s.missing + s.pending == 0
    }

    /// Did anything the run judged fail it?
    fn fails(&self) -> bool {
        let s = &self.snapshots;
        self.claims.failed + s.changed + s.missing + s.pending + self.findings.stale > 0
    }

    /// Passed, and nothing else.
    pub fn passed(&self) -> bool {
        self.outcome() == Outcome::Passed
    }

    pub fn exit_code(&self) -> u8 {
        self.outcome().exit_code()
    }

    /// The verdicts of several targets together.
    pub fn sum(verdicts: impl IntoIterator<Item = RunVerdict>) -> RunVerdict {
        verdicts.into_iter().fold(RunVerdict::default(), |a, b| {
            let (c, d) = (a.claims, b.claims);
            let (s, t) = (a.snapshots, b.snapshots);
            let (f, g) = (a.findings, b.findings);
            RunVerdict {
                scenarios: a.scenarios + b.scenarios,
                claims: ClaimCounts {
                    passed: c.passed + d.passed,
                    failed: c.failed + d.failed,
                    accepted: c.accepted + d.accepted,
                    not_applicable: c.not_applicable + d.not_applicable,
                },
                snapshots: SnapshotCounts {
                    same: s.same + t.same,
                    changed: s.changed + t.changed,
                    missing: s.missing + t.missing,
                    pending: s.pending + t.pending,
                },
                findings: FindingCounts {
                    matched: f.matched + g.matched,
                    stale: f.stale + g.stale,
                    unjudged: f.unjudged + g.unjudged,
                },
                lane_errors: a.lane_errors + b.lane_errors,
                sharded: a.sharded || b.sharded,
            }
        })
    }

    /// `N passed, M failed` (claims), then every other count that is not zero: accepted, not
    /// applicable, snapshots changed / missing / pending review, stale and unjudged findings,
    /// lanes that errored. The line always starts `N passed, M failed`, for CI readers that
    /// parse it; what follows is what else decided the outcome.
    pub fn count_line(&self) -> String {
        let c = &self.claims;
        let mut line = format!("{} passed, {} failed", c.passed, c.failed);
        let mut add = |n: usize, one: &str, many: &str| {
            if n > 0 {
                line.push_str(&format!(", {n} {}", if n == 1 { one } else { many }));
            }
        };
        add(c.accepted, "accepted", "accepted");
        add(c.not_applicable, "not applicable", "not applicable");
        let s = &self.snapshots;
        add(s.changed, "snapshot changed", "snapshots changed");
        add(s.missing, "snapshot missing", "snapshots missing");
        add(
            s.pending,
            "snapshot pending review",
            "snapshots pending review",
        );
        let f = &self.findings;
        add(
            f.stale,
            "accepted finding no longer reproduces",
            "accepted findings no longer reproduce",
        );
        add(
            f.unjudged,
            "accepted finding unjudged (its lane errored)",
            "accepted findings unjudged (their lanes errored)",
        );
        add(self.lane_errors, "lane errored", "lanes errored");
        if self.scenarios == 0 {
            line.push_str(", no scenario selected");
        } else if self.judged_nothing() && self.lane_errors == 0 {
            line.push_str(match self.sharded {
                true => ", nothing judged in this shard (every claim not applicable)",
                false => ", nothing judged (every claim not applicable)",
            });
        }
        line + "\n"
    }
}

impl SuiteReport {
    /// The verdict of this run: the one place its counts and outcome are computed.
    pub fn verdict(&self) -> RunVerdict {
        let claims: Vec<&Verdict> = self.scenarios.iter().flat_map(|s| &s.claims).collect();
        let count = |pick: fn(&Verdict) -> bool| claims.iter().filter(|c| pick(c)).count();
        let snapshots = self.scenarios.iter().flat_map(|s| &s.snapshots);
        let state = |want: SnapshotState| snapshots.clone().filter(|s| s.status == want).count();
        RunVerdict {
            scenarios: self.scenarios.len(),
            claims: ClaimCounts {
                passed: count(|c| c.ok && !c.is_not_applicable()),
                failed: count(|c| !c.passes_gate()),
                accepted: count(Verdict::is_accepted),
                not_applicable: count(Verdict::is_not_applicable),
            },
            snapshots: SnapshotCounts {
                same: state(SnapshotState::Same),
                changed: state(SnapshotState::Changed),
                missing: state(SnapshotState::Missing),
                pending: state(SnapshotState::Pending),
            },
            findings: FindingCounts {
                matched: claims
                    .iter()
                    .filter_map(|c| c.acceptance.as_ref())
                    .map(|a| a.findings.len())
                    .sum(),
                stale: self.stale_findings.len(),
                unjudged: self.unjudged_findings.len(),
            },
            lane_errors: self.scenarios.iter().map(|s| s.errors.len()).sum(),
            sharded: self.selection.shard.is_some(),
        }
    }
}

/// The count line over several reports (one per target).
pub fn count_line(reports: &[SuiteReport]) -> String {
    RunVerdict::sum(reports.iter().map(SuiteReport::verdict)).count_line()
}

/// The verdict over several reports (one per target).
pub fn run_verdict(reports: &[SuiteReport]) -> RunVerdict {
    RunVerdict::sum(reports.iter().map(SuiteReport::verdict))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(edit: impl Fn(&mut RunVerdict)) -> RunVerdict {
        let mut v = RunVerdict {
            scenarios: 1,
            ..RunVerdict::default()
        };
        v.claims.passed = 23;
        edit(&mut v);
        v
    }

    #[test]
    fn every_count_that_fails_the_run_fails_it() {
        assert_eq!(with(|_| {}).outcome(), Outcome::Passed);
        let failing: [fn(&mut RunVerdict); 5] = [
            |v| v.claims.failed = 1,
            |v| v.snapshots.changed = 1,
            |v| v.snapshots.missing = 1,
            |v| v.snapshots.pending = 1,
            |v| v.findings.stale = 1,
        ];
        for edit in failing {
            let v = with(edit);
            assert_eq!(
                (v.outcome(), v.exit_code()),
                (Outcome::Failed, Exit::FAILED)
            );
        }
        for edit in [
            |v: &mut RunVerdict| v.claims.accepted = 2,
            |v: &mut RunVerdict| v.claims.not_applicable = 2,
            |v: &mut RunVerdict| v.findings.matched = 2,
        ] {
            assert_eq!(with(edit).outcome(), Outcome::Passed);
        }
        let errored = with(|v| {
            v.lane_errors = 1;
            v.findings.unjudged = 5;
        });
        assert_eq!(errored.exit_code(), Exit::INFRA);
        let empty = RunVerdict::default();
        assert_eq!(
            (empty.outcome(), empty.exit_code()),
            (Outcome::Empty, Exit::USAGE)
        );
    }

    /// A run whose every claim was not applicable judged nothing: exit 2, as an empty selection;
    /// one shard of a run may (the merge judges the whole), and a run with one claim judged
    /// beside them passes.
    #[test]
    fn a_run_that_judged_nothing_is_empty_unless_it_is_one_shard() {
        let nothing = with(|v| {
            v.claims.passed = 0;
            v.claims.not_applicable = 25;
        });
        assert_eq!(
            (nothing.outcome(), nothing.exit_code()),
            (Outcome::Empty, Exit::USAGE)
        );
        assert_eq!(
            nothing.count_line(),
            "0 passed, 0 failed, 25 not applicable, nothing judged (every claim not applicable)\n"
        );
        let shard = RunVerdict {
            sharded: true,
            ..nothing
        };
        assert_eq!(shard.outcome(), Outcome::Passed);
        assert!(shard.count_line().contains("nothing judged in this shard"));
        let one = RunVerdict::sum([nothing, with(|v| v.claims.passed = 1)]);
        assert_eq!(one.outcome(), Outcome::Passed);
        let snapshot_only = with(|v| {
            v.claims.passed = 0;
            v.snapshots.same = 1;
        });
        assert_eq!(snapshot_only.outcome(), Outcome::Passed);
        let errored = with(|v| {
            v.claims.passed = 0;
            v.lane_errors = 1;
        });
        assert_eq!(errored.outcome(), Outcome::Errored);
        assert!(!errored.count_line().contains("nothing judged"));
    }

    #[test]
    fn the_count_line_starts_with_claims_and_names_every_other_failure() {
        assert_eq!(with(|_| {}).count_line(), "23 passed, 0 failed\n");
        let v = with(|v| {
            v.claims.accepted = 4;
            v.snapshots.changed = 1;
            v.snapshots.missing = 2;
            v.snapshots.pending = 1;
            v.findings.stale = 1;
            v.findings.unjudged = 5;
            v.lane_errors = 1;
        });
        assert_eq!(
            v.count_line(),
            "23 passed, 0 failed, 4 accepted, 1 snapshot changed, 2 snapshots missing, \
             1 snapshot pending review, 1 accepted finding no longer reproduces, \
             5 accepted findings unjudged (their lanes errored), 1 lane errored\n"
        );
        assert_eq!(
            RunVerdict::sum([v, with(|_| {})]).count_line(),
            v.count_line().replacen("23 passed", "46 passed", 1)
        );
    }
}
