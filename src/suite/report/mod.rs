//! Reports: what a run found, as data ([`SuiteReport`] per target) and in every format a reader
//! needs — the JSON summary (the reference run's shape, per scenario), readable tables
//! ([`table`]), Markdown for CI summaries ([`markdown`]), JUnit XML ([`junit`]), several targets
//! side by side ([`both`]) — plus the snapshots of each lane ([`snapshot`]). All are
//! deterministic for a given run; lane timings are the only values that vary.

pub mod both;
pub mod junit;
pub mod markdown;
pub mod snapshot;
pub mod table;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::claims::Verdict;
use super::observation::{LaneFigures, Observed};
use crate::scenario::Scenario;
use crate::targets::TargetKind;

/// Lane name → value, serialised as a JSON object in lane order.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneMap<T>(pub Vec<(String, T)>);

impl<T> LaneMap<T> {
    pub fn get(&self, lane: &str) -> Option<&T> {
        self.0.iter().find(|(name, _)| name == lane).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &T)> {
        self.0.iter().map(|(name, v)| (name, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &String> {
        self.0.iter().map(|(name, _)| name)
    }
}

impl<T: Serialize> Serialize for LaneMap<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// All scenarios of one run on one target.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    pub ok: bool,
    pub target: TargetKind,
    pub scenarios: Vec<ScenarioReport>,
}

/// One scenario: figures per lane, reductions against the direct lane, verdicts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioReport {
    pub ok: bool,
    pub scenario: String,
    pub target_tool: String,
    /// Lane name → figures, in the scenario's lane order.
    pub lanes: LaneMap<LaneFigures>,
    /// Tool Search lane name → reduction against the direct lane.
    pub reduction: LaneMap<Reduction>,
    pub claims: Vec<Verdict>,
    /// Wall time per lane in milliseconds (not deterministic; left out of snapshots).
    pub lane_millis: LaneMap<u64>,
    /// Snapshot comparison per lane snapshot (empty when snapshots were not checked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<SnapshotStatus>,
    /// The redacted snapshot contents `(name, content)` of this run.
    #[serde(skip)]
    pub snapshot_contents: Vec<(String, String)>,
}

/// How one snapshot compared with the committed file.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotStatus {
    pub name: String,
    pub status: SnapshotState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// The outcome of one snapshot comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotState {
    Same,
    Changed,
    Missing,
    /// A `.snap.new` was written for review.
    Written,
}

/// direct − lane for the figures the reference run reduces, plus the byte ratio.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reduction {
    pub raw_bytes: i64,
    pub first_request_bytes: i64,
    pub declared_tools: i64,
    pub system_prompt_chars: i64,
    pub first_request_ratio: f64,
}

impl Reduction {
    pub fn between(direct: &LaneFigures, lane: &LaneFigures) -> Self {
        let diff = |a: usize, b: usize| a as i64 - b as i64;
        Reduction {
            raw_bytes: diff(direct.provider_raw_bytes, lane.provider_raw_bytes),
            first_request_bytes: diff(direct.first_request_bytes, lane.first_request_bytes),
            declared_tools: diff(
                direct.provider_declared_tool_count,
                lane.provider_declared_tool_count,
            ),
            system_prompt_chars: diff(
                direct.provider_system_prompt_chars,
                lane.provider_system_prompt_chars,
            ),
            first_request_ratio: if direct.first_request_bytes == 0 {
                0.0
            } else {
                (lane.first_request_bytes as f64 / direct.first_request_bytes as f64 * 1000.0)
                    .round()
                    / 1000.0
            },
        }
    }
}

impl ScenarioReport {
    pub fn new(
        scenario: &Scenario,
        observed: &[Observed<'_>],
        claims: Vec<Verdict>,
        snapshot_contents: Vec<(String, String)>,
    ) -> Self {
        let direct = observed.iter().find(|o| o.lane.is_direct());
        let lanes = observed
            .iter()
            .map(|o| (o.lane.name.clone(), o.figures.clone()))
            .collect();
        let lane_millis = observed
            .iter()
            .map(|o| {
                let millis = o.observation.elapsed.as_millis() as u64;
                (o.lane.name.clone(), millis)
            })
            .collect();
        let reduction = observed
            .iter()
            .filter(|o| !o.lane.is_direct())
            .filter_map(|o| {
                let d = direct?;
                Some((
                    o.lane.name.clone(),
                    Reduction::between(&d.figures, &o.figures),
                ))
            })
            .collect();
        ScenarioReport {
            ok: claims.iter().all(|c| c.ok),
            scenario: scenario.id.clone(),
            target_tool: scenario.target_tool.clone(),
            lanes: LaneMap(lanes),
            reduction: LaneMap(reduction),
            claims,
            lane_millis: LaneMap(lane_millis),
            snapshots: Vec::new(),
            snapshot_contents,
        }
    }

    /// The first-request ratio of a lane against direct (1 for direct itself).
    pub fn ratio(&self, lane: &str) -> Option<f64> {
        self.reduction.get(lane).map(|r| r.first_request_ratio)
    }
}

impl SuiteReport {
    pub fn new(target: TargetKind, scenarios: Vec<ScenarioReport>) -> Self {
        SuiteReport {
            ok: scenarios.iter().all(|s| s.ok),
            target,
            scenarios,
        }
    }

    /// Compares every lane snapshot with `dir`; with `update`, writes `.snap.new` files for the
    /// changed and missing ones. A changed snapshot fails the scenario.
    pub fn check_snapshots(&mut self, dir: &std::path::Path, update: bool) -> std::io::Result<()> {
        use snapshot::{compare, write_pending, SnapshotCheck};
        for scenario in &mut self.scenarios {
            let mut statuses = Vec::new();
            for (name, content) in &scenario.snapshot_contents {
                let check = compare(dir, name, content);
                let pending = !matches!(check, SnapshotCheck::Same) && update;
                if pending {
                    write_pending(dir, name, content)?;
                }
                let (status, diff) = match check {
                    SnapshotCheck::Same => (SnapshotState::Same, None),
                    _ if pending => (SnapshotState::Written, None),
                    SnapshotCheck::Missing { .. } => (SnapshotState::Missing, None),
                    SnapshotCheck::Changed { diff, .. } => (SnapshotState::Changed, Some(diff)),
                };
                statuses.push(SnapshotStatus {
                    name: name.clone(),
                    status,
                    diff,
                });
            }
            if statuses.iter().any(|s| s.status == SnapshotState::Changed) {
                scenario.ok = false;
            }
            scenario.snapshots = statuses;
        }
        self.ok = self.scenarios.iter().all(|s| s.ok);
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// `(passed, failed)` over every claim of every scenario.
    pub fn counts(&self) -> (usize, usize) {
        let claims = self.scenarios.iter().flat_map(|s| &s.claims);
        let failed = claims.clone().filter(|c| !c.ok).count();
        (claims.count() - failed, failed)
    }
}

/// `N passed, M failed` over several reports.
pub fn count_line(reports: &[SuiteReport]) -> String {
    let (passed, failed) = reports
        .iter()
        .map(SuiteReport::counts)
        .fold((0, 0), |(p, f), (pp, ff)| (p + pp, f + ff));
    format!("{passed} passed, {failed} failed\n")
}
