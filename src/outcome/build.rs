//! A build judged against its baseline release (`--openclaw-build`), as one typed section every
//! report format renders: what fails that the baseline accepts no failure for, which of the
//! baseline's accepted findings the build no longer reproduces, which snapshots differ, and how
//! each lane's payload moved from the baseline's committed run. It judges nothing new: the
//! run's verdict already counts each of these; this says them together, against the baseline.

use serde::{Deserialize, Serialize};

use super::record::RunRecord;
use super::{SnapshotState, SuiteReport};

/// The "build against baseline" section.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BuildAgainstBaseline {
    /// The baseline release (`2026.9.6`).
    pub baseline: String,
    /// Failing checks the baseline accepts no failure for (each fails the run).
    pub new_failures: Vec<NewFailure>,
    /// The baseline's accepted findings the build no longer reproduces (each fails the run).
    pub fixed: Vec<Fixed>,
    /// Snapshots that differ from the baseline's (each fails the run).
    pub snapshot_diffs: Vec<SnapshotDiff>,
    /// Lanes whose payload differs from the baseline's committed run
    /// (`data/releases/openclaw-<baseline>.run.json`).
    pub payload_changes: Vec<PayloadChange>,
    /// How many lanes were compared with the committed run (lanes it lacks are not).
    pub lanes_compared: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewFailure {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub title: String,
    pub expected: String,
    pub actual: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fixed {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub check: String,
    /// Why it no longer counts.
    pub why: String,
    /// How to accept the change: the entry to remove and where.
    pub accept: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotDiff {
    pub scenario: String,
    pub snapshot: String,
    pub status: SnapshotState,
    /// The command that settles it, when the run knows one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
}

/// One lane's payload in the baseline's committed run and in the build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadChange {
    pub scenario: String,
    pub lane: String,
    pub baseline: Payload,
    pub build: Payload,
    /// The tools declared or the directory's lines changed, not only the bytes (which move
    /// with the install's path: a build's is not the release's).
    #[serde(default)]
    pub surface_changed: bool,
}

impl PayloadChange {
    /// Build bytes − baseline bytes.
    pub fn bytes_delta(&self) -> i64 {
        self.build.first_request_bytes as i64 - self.baseline.first_request_bytes as i64
    }
}

/// What a lane sent the model first: bytes (which include the install's path, so a build's
/// differ by its path's length), tools declared, directory lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload {
    pub first_request_bytes: usize,
    pub tools_declared: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub directory_lines: Option<usize>,
}

impl BuildAgainstBaseline {
    /// The section of `report` (judged already: accepted findings recorded, snapshots
    /// compared) against `baseline` and its committed run `record` (when it has one).
    pub fn of(report: &SuiteReport, baseline: &str, record: Option<&RunRecord>) -> Self {
        let expectations = format!("expectations/openclaw-{baseline}.toml");
        let mut section = BuildAgainstBaseline {
            baseline: baseline.to_string(),
            new_failures: Vec::new(),
            fixed: Vec::new(),
            snapshot_diffs: Vec::new(),
            payload_changes: Vec::new(),
            lanes_compared: 0,
        };
        for scenario in &report.scenarios {
            for verdict in scenario.claims.iter().filter(|v| !v.passes_gate()) {
                section.new_failures.push(NewFailure {
                    scenario: scenario.scenario.clone(),
                    lane: verdict.lane.clone(),
                    claim: verdict.claim.to_string(),
                    title: verdict.title.clone(),
                    expected: verdict.expected.clone(),
                    actual: verdict.actual.clone(),
                });
            }
            for snapshot in scenario
                .snapshots
                .iter()
                .filter(|s| s.status != SnapshotState::Same)
            {
                section.snapshot_diffs.push(SnapshotDiff {
                    scenario: scenario.scenario.clone(),
                    snapshot: snapshot.name.clone(),
                    status: snapshot.status,
                    review: scenario.snapshot_place.as_ref().map(|p| p.write.clone()),
                });
            }
            let Some(record) = record else { continue };
            for (lane, figures) in scenario.lanes.iter() {
                let Some(was) = record
                    .lanes
                    .iter()
                    .find(|l| l.scenario == scenario.scenario && l.lane == *lane)
                else {
                    continue;
                };
                section.lanes_compared += 1;
                let mut tools = figures.provider_declared_tool_names.clone();
                tools.sort();
                let now = Payload {
                    first_request_bytes: figures.first_request_bytes,
                    tools_declared: tools,
                    directory_lines: figures.directory.as_ref().map(|d| d.lines),
                };
                let then = Payload {
                    first_request_bytes: was.first_request_bytes,
                    tools_declared: was.declared_tools.clone(),
                    directory_lines: was.directory_lines,
                };
                if now != then {
                    let surface_changed = now.tools_declared != then.tools_declared
                        || now.directory_lines != then.directory_lines;
                    section.payload_changes.push(PayloadChange {
                        scenario: scenario.scenario.clone(),
                        lane: lane.to_string(),
                        baseline: then,
                        build: now,
                        surface_changed,
                    });
                }
            }
        }
        for stale in &report.stale_findings {
            let f = &stale.finding;
            section.fixed.push(Fixed {
                scenario: f.scenario.clone(),
                lane: f.lane.clone(),
                claim: f.claim.to_string(),
                check: f.check.clone(),
                why: stale.why.clone(),
                accept: format!(
                    "remove the [[finding]] of line {} from {expectations} (scenario {}, lane {}, claim {}, check {}), or run with --expectations FILE without it",
                    f.line, f.scenario, f.lane, f.claim, f.check
                ),
            });
        }
        section
    }

    /// Adds another shard's section of the same run (`report merge`).
    pub fn absorb(&mut self, other: BuildAgainstBaseline) {
        self.new_failures.extend(other.new_failures);
        self.fixed.extend(other.fixed);
        self.snapshot_diffs.extend(other.snapshot_diffs);
        self.payload_changes.extend(other.payload_changes);
        self.lanes_compared += other.lanes_compared;
    }

    /// Whether the build holds everything the baseline does (payload changes aside).
    pub fn holds(&self) -> bool {
        self.new_failures.is_empty() && self.fixed.is_empty() && self.snapshot_diffs.is_empty()
    }
}
