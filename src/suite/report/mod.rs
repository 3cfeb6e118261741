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
pub mod timings;
pub mod verdict;

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::claims::Verdict;
use super::findings::{apply, Expectations, StaleFinding, UnjudgedFinding};
use super::observation::{LaneFigures, Observed};
use crate::scenario::Scenario;
use crate::suite::select::Shard;
use crate::targets::{NotApplicable, Product, TargetKind};
pub use not_run::LaneError;
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
    pub costs: Option<crate::suite::timing::RunCosts>,
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

/// The JSON summary of one target: `ok`, the verdict's counts and outcome, then the report.
#[derive(Serialize)]
struct Summary<'a> {
    ok: bool,
    outcome: Outcome,
    verdict: RunVerdict,
    #[serde(flatten)]
    report: &'a SuiteReport,
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
    /// Where each lane's time went ([`crate::suite::timing`]; not deterministic either).
    #[serde(default, skip_serializing_if = "LaneMap::is_empty")]
    pub lane_steps: LaneMap<Vec<crate::suite::timing::Timed>>,
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

/// A lane's figures as reports store them: the gateway's answer is evidence like any other,
/// redacted and bounded ([`crate::suite::evidence`]); the claims read the figures as observed.
fn reported_figures(figures: &LaneFigures) -> LaneFigures {
    LaneFigures {
        gateway_output_text: crate::suite::evidence::evidence(&figures.gateway_output_text),
        ..figures.clone()
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
            .map(|o| (o.lane.name.clone(), reported_figures(&o.figures)))
            .collect();
        let lane_millis = observed
            .iter()
            .map(|o| {
                let millis = o.observation.elapsed.as_millis() as u64;
                (o.lane.name.clone(), millis)
            })
            .collect();
        let lane_steps = observed
            .iter()
            .map(|o| (o.lane.name.clone(), o.observation.steps.clone()))
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
            lane_steps: LaneMap(lane_steps),
            snapshots: Vec::new(),
            snapshot_contents,
            snapshot_place: None,
            not_applicable: Vec::new(),
            errors: Vec::new(),
        }
    }

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

    /// Compares every lane snapshot with `dir` and records how each came out; with `update`,
    /// writes `.snap.new` files for the changed and missing ones (pending review). A missing
    /// one says how to write it: `write_with`.
    pub fn record_snapshots(
        &mut self,
        dir: &std::path::Path,
        update: bool,
        write_with: &str,
    ) -> std::io::Result<()> {
        use snapshot::{compare, write_pending, SnapshotCheck};
        let mut statuses = Vec::new();
        for (name, content) in &self.snapshot_contents {
            let check = compare(dir, name, content);
            let pending = !matches!(check, SnapshotCheck::Same) && update;
            if pending {
                write_pending(dir, name, content)?;
            }
            let (status, diff) = match check {
                SnapshotCheck::Same => (SnapshotState::Same, None),
                SnapshotCheck::Missing { .. } if pending => (SnapshotState::Pending, None),
                SnapshotCheck::Missing { .. } => (SnapshotState::Missing, None),
                SnapshotCheck::Changed { diff, .. } if pending => {
                    (SnapshotState::Pending, Some(diff))
                }
                SnapshotCheck::Changed { diff, .. } => (SnapshotState::Changed, Some(diff)),
            };
            statuses.push(SnapshotStatus {
                name: name.clone(),
                status,
                // Evidence like any other: redacted and bounded (`snapshots review` shows the
                // whole change).
                diff: diff.map(|d| crate::suite::evidence::evidence(&d)),
                write_with: (status == SnapshotState::Missing).then(|| write_with.to_string()),
            });
        }
        self.snapshots = statuses;
        Ok(())
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
            selection: Selection::default(),
            costs: None,
        }
    }

    /// Records what becomes of the accepted findings in every scenario of the run (`scenarios`
    /// are the ones that ran): failing checks they match exactly are accepted, entries that
    /// match nothing are stale, and entries of a lane that could not run are unjudged. Judges
    /// nothing itself: [`SuiteReport::verdict`] does.
    pub fn record_findings(&mut self, expectations: &Expectations, scenarios: &[Scenario]) {
        let node = self.product.as_ref().and_then(Product::node_major);
        for report in &mut self.scenarios {
            let Some(scenario) = scenarios.iter().find(|s| s.id == report.scenario) else {
                continue;
            };
            let errored: Vec<&str> = report.errors.iter().map(|e| e.lane.as_str()).collect();
            let outcome = apply(expectations, scenario, node, &errored, &mut report.claims);
            self.stale_findings.extend(outcome.stale);
            self.unjudged_findings.extend(outcome.unjudged);
        }
        self.expectations = Some(expectations.origin.clone());
    }

    /// Did any lane fail to start or answer?
    pub fn has_errors(&self) -> bool {
        self.scenarios.iter().any(|s| !s.errors.is_empty())
    }

    /// Compares every lane snapshot with `dir` and records how each came out; with `update`,
    /// writes `.snap.new` files for the changed and missing ones (pending review). A missing
    /// one says how to write it: `update_command` followed by `--scenario <id>`.
    pub fn record_snapshots(
        &mut self,
        dir: &std::path::Path,
        update: bool,
        update_command: &str,
    ) -> std::io::Result<()> {
        for scenario in &mut self.scenarios {
            let write_with = format!("{update_command} --scenario {}", scenario.scenario);
            scenario.record_snapshots(dir, update, &write_with)?;
        }
        Ok(())
    }
    /// The JSON summary: `ok`, `outcome`, the verdict's counts, then the report.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.summary()).unwrap_or_default()
    }

    fn summary(&self) -> Summary<'_> {
        let verdict = self.verdict();
        Summary {
            ok: verdict.passed(),
            outcome: verdict.outcome(),
            verdict,
            report: self,
        }
    }
}

/// Several runs of the same target (releases or Node majors of a CI matrix, put together by
/// `report merge`): the verdict over all, then each run's summary.
#[derive(Serialize)]
struct Runs<'a> {
    ok: bool,
    outcome: Outcome,
    verdict: RunVerdict,
    runs: Vec<Summary<'a>>,
}

/// Whether every report is of another target (then they read side by side, one column each).
fn distinct_targets(reports: &[SuiteReport]) -> bool {
    let mut kinds: Vec<TargetKind> = reports.iter().map(|r| r.target).collect();
    kinds.sort();
    kinds.dedup();
    kinds.len() == reports.len()
}

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
    match reports {
        [one] => one.to_json(),
        all if distinct_targets(all) => both::side_by_side_json(all),
        all => {
            let verdict = run_verdict(all);
            let runs = Runs {
                ok: verdict.passed(),
                outcome: verdict.outcome(),
                verdict,
                runs: all.iter().map(SuiteReport::summary).collect(),
            };
            serde_json::to_string_pretty(&runs).unwrap_or_default()
        }
    }
}

/// `report.md` of a run's reports: each report's Markdown, one after another.
pub fn render_markdown(reports: &[SuiteReport]) -> String {
    reports
        .iter()
        .map(SuiteReport::to_markdown)
        .collect::<Vec<_>>()
        .join("\n")
}
