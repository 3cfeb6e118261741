//! Reports: what a run found, as data ([`SuiteReport`] per target) and in every format a reader
//! needs — the JSON summary (the reference run's shape, per scenario), readable tables
//! ([`table`]), Markdown for CI summaries ([`markdown`]), JUnit XML ([`junit`]), several targets
//! side by side ([`both`]) — plus the snapshots of each lane ([`snapshot`]). All are
//! deterministic for a given run; lane timings are the only values that vary.

pub mod both;
pub mod junit;
pub mod markdown;
pub mod not_run;
pub mod outline;
pub mod snapshot;
pub mod table;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use super::claims::Verdict;
use super::findings::{apply, Expectations, StaleFinding};
use super::observation::{LaneFigures, Observed};
use crate::scenario::Scenario;
use crate::targets::{NotApplicable, Product, TargetKind};
pub use not_run::LaneError;

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
    /// The product's version and the Node it ran on (real targets only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<Product>,
    pub scenarios: Vec<ScenarioReport>,
    /// Where the accepted findings came from, when the target has any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expectations: Option<String>,
    /// Accepted findings that did not show in this run (each fails the run).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_findings: Vec<StaleFinding>,
}

/// One scenario: figures per lane, reductions against the direct lane, verdicts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioReport {
    pub ok: bool,
    pub scenario: String,
    pub target_tool: String,
    /// The profile the embedded gateway showed (`null` on a real product, which shows its own).
    pub profile: Option<String>,
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
    /// Lanes the target cannot run, with the scenario's reason (never run, never a failure).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_applicable: Vec<NotApplicable>,
    /// Lanes that could not start or answer (infrastructure errors: the run exits 3).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<LaneError>,
}

/// How one snapshot compared with the committed file.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotStatus {
    pub name: String,
    pub status: SnapshotState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// For a missing snapshot: the command that writes it for review.
    #[serde(rename = "writeWith", skip_serializing_if = "Option::is_none")]
    pub write_with: Option<String>,
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
            ok: claims.iter().all(Verdict::passes_gate),
            scenario: scenario.id.clone(),
            target_tool: scenario.target_tool.clone(),
            profile: observed
                .iter()
                .any(|o| o.target == TargetKind::Embedded)
                .then(|| scenario.profile.name.clone()),
            lanes: LaneMap(lanes),
            reduction: LaneMap(reduction),
            claims,
            lane_millis: LaneMap(lane_millis),
            snapshots: Vec::new(),
            snapshot_contents,
            not_applicable: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The report with the lanes that could not run; any makes the scenario not ok.
    pub fn with_errors(mut self, errors: Vec<LaneError>) -> Self {
        self.ok &= errors.is_empty();
        self.errors = errors;
        self
    }

    /// The report with the lanes the target cannot run.
    pub fn with_not_applicable(mut self, lanes: Vec<NotApplicable>) -> Self {
        self.not_applicable = lanes;
        self
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
            product: None,
            scenarios,
            expectations: None,
            stale_findings: Vec::new(),
        }
    }

    /// Applies accepted findings to every scenario of the run (`scenarios` are the ones that
    /// ran): accepted failures stop failing, and findings that no longer reproduce fail the run.
    pub fn apply_expectations(&mut self, expectations: &Expectations, scenarios: &[Scenario]) {
        let node = self.product.as_ref().and_then(Product::node_major);
        for report in &mut self.scenarios {
            let Some(scenario) = scenarios.iter().find(|s| s.id == report.scenario) else {
                continue;
            };
            self.stale_findings
                .extend(apply(expectations, scenario, node, &mut report.claims));
            report.ok = report.claims.iter().all(Verdict::passes_gate)
                && report.errors.is_empty()
                && report
                    .snapshots
                    .iter()
                    .all(|s| s.status != SnapshotState::Changed);
        }
        self.expectations = Some(expectations.origin.clone());
        self.refresh_ok();
    }

    /// Did any lane fail to start or answer?
    pub fn has_errors(&self) -> bool {
        self.scenarios.iter().any(|s| !s.errors.is_empty())
    }

    fn refresh_ok(&mut self) {
        self.ok = self.scenarios.iter().all(|s| s.ok) && self.stale_findings.is_empty();
    }

    /// Compares every lane snapshot with `dir`; with `update`, writes `.snap.new` files for the
    /// changed and missing ones. A changed or missing snapshot fails the scenario; a missing one
    /// says how to write it: `update_command` followed by `--scenario <id>`.
    pub fn check_snapshots(
        &mut self,
        dir: &std::path::Path,
        update: bool,
        update_command: &str,
    ) -> std::io::Result<()> {
        use snapshot::{compare, write_pending, SnapshotCheck};
        for scenario in &mut self.scenarios {
            let write_with = format!("{update_command} --scenario {}", scenario.scenario);
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
                    write_with: (status == SnapshotState::Missing).then(|| write_with.clone()),
                });
            }
            if statuses
                .iter()
                .any(|s| matches!(s.status, SnapshotState::Changed | SnapshotState::Missing))
            {
                scenario.ok = false;
            }
            scenario.snapshots = statuses;
        }
        self.refresh_ok();
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Claims that passed, failed, failed exactly as accepted and were not applicable; accepted
    /// findings that did not reproduce.
    pub fn counts(&self) -> Counts {
        let claims = self.scenarios.iter().flat_map(|s| &s.claims);
        Counts {
            passed: claims
                .clone()
                .filter(|c| c.ok && !c.is_not_applicable())
                .count(),
            failed: claims.clone().filter(|c| !c.passes_gate()).count(),
            accepted: claims.clone().filter(|c| c.is_accepted()).count(),
            not_applicable: claims.filter(|c| c.is_not_applicable()).count(),
            stale: self.stale_findings.len(),
        }
    }
}

/// How the claims of a run came out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub passed: usize,
    pub failed: usize,
    pub accepted: usize,
    /// Claims the scenario lacks a lane for (never a failure).
    pub not_applicable: usize,
    pub stale: usize,
}

/// `N passed, M failed` over several reports, plus the accepted findings, the claims that are
/// not applicable and the stale findings when there are any.
pub fn count_line(reports: &[SuiteReport]) -> String {
    let c = reports
        .iter()
        .map(SuiteReport::counts)
        .fold(Counts::default(), |a, b| Counts {
            passed: a.passed + b.passed,
            failed: a.failed + b.failed,
            accepted: a.accepted + b.accepted,
            not_applicable: a.not_applicable + b.not_applicable,
            stale: a.stale + b.stale,
        });
    let mut line = format!("{} passed, {} failed", c.passed, c.failed);
    if c.accepted > 0 {
        line.push_str(&format!(", {} accepted", c.accepted));
    }
    if c.not_applicable > 0 {
        line.push_str(&format!(", {} not applicable", c.not_applicable));
    }
    if c.stale > 0 {
        line.push_str(&format!(
            ", {} accepted finding{} no longer reproduce{}",
            c.stale,
            if c.stale == 1 { "" } else { "s" },
            if c.stale == 1 { "s" } else { "" }
        ));
    }
    line + "\n"
}
