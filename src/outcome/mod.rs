//! What a run found, as typed data: per target a [`SuiteReport`] of [`ScenarioReport`]s (lane
//! figures, claim [`Verdict`]s, snapshot comparisons, lanes not run), the accepted findings it
//! matched, left stale or could not judge, and the [`RunVerdict`] computed from them in one
//! place. [`summary`] is the one schema of `summary.json`, written and read back by the same
//! types. Nothing here runs or judges anything: `crate::drive` observes, `crate::suite` judges,
//! `crate::report` renders.

pub mod build;
pub mod claim;
pub mod evidence;
pub mod figures;
pub mod findings;
pub mod record;
pub mod shard;
pub mod summary;
pub mod verdict;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::targets::{NotApplicable, Product, TargetKind};
pub use claim::{Check, Verdict, NO_LANE};
pub use figures::{DirectoryFigures, LaneFigures, SessionAnswers};
use findings::{StaleFinding, UnjudgedFinding};
pub use shard::Shard;
pub use verdict::{count_line, run_verdict, Outcome, RunVerdict};

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

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<T> Default for LaneMap<T> {
    fn default() -> Self {
        LaneMap(Vec::new())
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

/// Read back in lane order (`report merge` reads `summary.json`).
impl<'de, T: Deserialize<'de>> Deserialize<'de> for LaneMap<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InOrder<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for InOrder<T> {
            type Value = LaneMap<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of lane name to value")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<LaneMap<T>, A::Error> {
                let mut lanes = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    lanes.push(entry);
                }
                Ok(LaneMap(lanes))
            }
        }
        deserializer.deserialize_map(InOrder(std::marker::PhantomData))
    }
}

/// The release data a product run read: the data root and the release's surface facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataUsed {
    /// The data root, as [`crate::data_root::DataRoot`] describes it.
    pub root: String,
    /// The release facts file (`data/releases/openclaw-2026.9.6.toml`), and whether it was
    /// borrowed from another release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release_facts: Option<String>,
}

/// All scenarios of one run on one target: what was observed and judged, as data. Its verdict
/// is computed from it, never stored ([`SuiteReport::verdict`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    pub target: TargetKind,
    /// The product's version and the Node it ran on (real targets only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<Product>,
    #[serde(serialize_with = "scenarios_with_ok")]
    pub scenarios: Vec<ScenarioReport>,
    /// Where the accepted findings came from, when the target has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expectations: Option<String>,
    /// Which data root and release file a product run read (src/data_root.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<DataUsed>,
    /// Accepted findings that did not show in this run (each fails the run).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_findings: Vec<StaleFinding>,
    /// Accepted findings of lanes that could not run: neither matched nor stale.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unjudged_findings: Vec<UnjudgedFinding>,
    /// What the run was asked to cover (`report merge` checks that a CI matrix's shards add up to it).
    #[serde(default)]
    pub selection: Selection,
    /// What the run cost the target as a whole (a real product's gateway starts, processes,
    /// peak memory); absent for the embedded gateway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub costs: Option<crate::targets::timing::RunCosts>,
    /// A build's run (`--openclaw-build`): the build against its baseline release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_against_baseline: Option<build::BuildAgainstBaseline>,
}

/// The scenarios a run was asked for before `--shard`, in run order, and the shard it ran.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Selection {
    pub scenarios: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// What the run was told that changes what it checks.
    pub checks: Checks,
}

/// The options of a run that change what it checks: the shards of one run must agree on them
/// (`report merge`), or the merged verdict would pass scenarios some shard never checked.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    /// The committed snapshots were compared (not with `--no-snapshots`, nor on a release
    /// without data).
    pub snapshots: bool,
    /// `--profile`: the profile every scenario ran under instead of its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

impl Checks {
    /// What a run with these checks did, in words (`report merge`'s errors).
    pub fn describe(&self) -> String {
        let snapshots = match self.snapshots {
            true => "compared snapshots",
            false => "did not compare snapshots (--no-snapshots, or a release without data)",
        };
        match &self.profile {
            Some(profile) => format!("{snapshots}, under --profile {profile}"),
            None => format!("{snapshots}, each scenario under its own profile"),
        }
    }
}

/// The scenarios, each with its `ok` (derived, never stored) first.
fn scenarios_with_ok<S: Serializer>(
    scenarios: &[ScenarioReport],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct WithOk<'a> {
        ok: bool,
        #[serde(flatten)]
        scenario: &'a ScenarioReport,
    }
    serializer.collect_seq(scenarios.iter().map(|scenario| WithOk {
        ok: scenario.passes(),
        scenario,
    }))
}

/// One scenario: figures per lane, reductions against the direct lane, verdicts.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioReport {
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
    /// Where each lane's time went ([`crate::targets::timing`]; not deterministic either).
    #[serde(default, skip_serializing_if = "LaneMap::is_empty")]
    pub lane_steps: LaneMap<Vec<crate::targets::timing::Timed>>,
    /// Snapshot comparison per lane snapshot (empty when snapshots were not checked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<SnapshotStatus>,
    /// The redacted snapshot contents `(name, content)` of this run.
    #[serde(skip)]
    pub snapshot_contents: Vec<(String, String)>,
    /// Where the snapshots were compared and the commands that write and settle them (said once
    /// per scenario under the table; `None` when snapshots were not compared). Kept in
    /// `summary.json`, so `report merge` prints the commands the shard printed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_place: Option<SnapshotPlace>,
    /// Lanes the target cannot run, with the scenario's reason (never run, never a failure).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_applicable: Vec<NotApplicable>,
    /// Lanes that could not start or answer (infrastructure errors: the run exits 3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<LaneError>,
}

/// How one snapshot compared with the committed file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SnapshotStatus {
    pub name: String,
    pub status: SnapshotState,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// For a missing snapshot: the command that writes it for review.
    #[serde(rename = "writeWith", default, skip_serializing_if = "Option::is_none")]
    pub write_with: Option<String>,
}

/// Where a scenario's snapshots are and the commands, each to paste as printed in the directory
/// the run was started from, that write them and settle them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotPlace {
    /// The folder compared with.
    pub dir: std::path::PathBuf,
    /// The `suite … --update-snapshots` run of this scenario alone that writes `.snap.new` files.
    pub write: String,
    /// `snapshots review …` of this scenario in `dir`.
    pub review: String,
    /// `snapshots accept …` of this scenario in `dir`.
    pub accept: String,
}

/// The outcome of one snapshot comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SnapshotState {
    Same,
    Changed,
    Missing,
    /// Changed or missing, and a `.snap.new` was written for review (`--update-snapshots`):
    /// the run fails until it is accepted.
    Pending,
}

/// direct − lane for the figures the reference run reduces, plus the byte ratio.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The report with the lanes that could not run.
    pub fn with_errors(mut self, errors: Vec<LaneError>) -> Self {
        self.errors = errors;
        self
    }

    /// The report with the lanes the target cannot run.
    pub fn with_not_applicable(mut self, lanes: Vec<NotApplicable>) -> Self {
        self.not_applicable = lanes;
        self
    }

    /// Every claim holds or fails exactly as accepted, every lane ran and every snapshot is
    /// the same as committed (the scenario's share of the run's verdict).
    pub fn passes(&self) -> bool {
        self.claims.iter().all(Verdict::passes_gate)
            && self.errors.is_empty()
            && self
                .snapshots
                .iter()
                .all(|s| s.status == SnapshotState::Same)
    }

    /// The first-request ratio of a lane against direct (1 for direct itself).
    pub fn ratio(&self, lane: &str) -> Option<f64> {
        self.reduction.get(lane).map(|r| r.first_request_ratio)
    }

    /// The `ratio` column of `lane`: its ratio to the direct lane; `1.000` on the direct lane a
    /// lane was compared with; `-` where nothing was compared (no direct lane).
    pub fn ratio_text(&self, lane: &str) -> String {
        match self.ratio(lane) {
            Some(ratio) => format!("{ratio:.3}"),
            None if self.reduction.0.is_empty() => "-".to_string(),
            None => "1.000".to_string(),
        }
    }
}

impl SuiteReport {
    pub fn new(target: TargetKind, scenarios: Vec<ScenarioReport>) -> Self {
        SuiteReport {
            target,
            product: None,
            scenarios,
            expectations: None,
            data: None,
            stale_findings: Vec::new(),
            unjudged_findings: Vec::new(),
            build_against_baseline: None,
            selection: Selection::default(),
            costs: None,
        }
    }

    /// Did any lane fail to start or answer?
    pub fn has_errors(&self) -> bool {
        self.scenarios.iter().any(|s| !s.errors.is_empty())
    }

    /// The JSON summary of this run alone: `ok`, `outcome`, the verdict's counts, then the
    /// report ([`summary::SummaryFile`]).
    pub fn to_json(&self) -> String {
        summary::SummaryFile::of(std::slice::from_ref(self)).to_json()
    }
}

/// A lane that could not start or answer, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneError {
    pub lane: String,
    pub error: String,
}

impl LaneError {
    pub fn new(lane: &str, error: &Error) -> Self {
        LaneError {
            lane: lane.to_string(),
            // A gateway's error may carry its log: redacted and bounded like every evidence.
            error: evidence::evidence(&error.to_string()),
        }
    }
}
