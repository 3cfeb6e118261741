//! How long a scenario is expected to take on a target, from the scenario alone: what `--shard`
//! balances by. Deterministic (the same split on every machine, whatever the last run took):
//! each lane that runs costs the target's fitted time per lane, plus the wait the scenario
//! builds in — a lane that F5 judges waits out its `codeTimeoutMs` — and each gateway a shard
//! must start costs the fitted start time ([`Model`], read from `data/expected-times.toml`,
//! which `toolsearch-qa report times` writes from measured runs). A real gateway is shared by
//! consecutive scenarios with the same plugin ([`plugin_key`]), so a shard pays one start per
//! plugin it holds. A lane or scenario the target cannot run (`not_applicable`) costs nothing
//! there.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::ToolSearchSettings;
use crate::scenario::{ClaimId, Lane, Scenario, TargetKind};
use crate::targets::TargetChoice;

/// The committed figures ([`Model`]).
const FITTED: &str = include_str!("../../data/expected-times.toml");

/// One target's fitted figures, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fitted {
    /// One gateway start, up to its readiness.
    pub gateway_start_ms: u64,
    /// One lane apart from its gateway start and the waits its scenario sets.
    pub lane_ms: u64,
}

/// The fitted figures of every target (`data/expected-times.toml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model(pub BTreeMap<TargetKind, Fitted>);

impl Model {
    /// The committed model (a unit test proves it loads).
    pub fn committed() -> Model {
        toml::from_str(FITTED).expect("data/expected-times.toml is valid (a unit test checks it)")
    }

    fn of(&self, target: TargetKind) -> Fitted {
        self.0.get(&target).copied().unwrap_or(Fitted {
            gateway_start_ms: 0,
            lane_ms: 0,
        })
    }
}

/// What decides whether two scenarios can share a real gateway: the plugin it was started with
/// (the openclaw target restarts the gateway when it differs).
pub fn plugin_key(scenario: &Scenario) -> String {
    let c = &scenario.catalog;
    format!(
        "{}|{}|{:?}|{:?}|{:?}",
        c.plugin_id, c.size, c.description_template, c.direct_only, c.broken
    )
}

/// The expected time of one gateway start on every target of `choice` that starts one.
pub fn start_millis(choice: TargetChoice, model: &Model) -> u64 {
    kinds(choice)
        .iter()
        .map(|&t| model.of(t).gateway_start_ms)
        .sum()
}

/// The targets `choice` runs.
pub fn kinds(choice: TargetChoice) -> &'static [TargetKind] {
    match choice {
        TargetChoice::Embedded => &[TargetKind::Embedded],
        TargetChoice::Openclaw => &[TargetKind::Openclaw],
        TargetChoice::Both => &[TargetKind::Embedded, TargetKind::Openclaw],
    }
}

/// The expected wall time of `scenario`'s lanes on every target of `choice`, in milliseconds
/// (gateway starts apart: [`start_millis`]).
pub fn millis(scenario: &Scenario, choice: TargetChoice) -> u64 {
    millis_with(scenario, choice, &Model::committed())
}

/// [`millis`] with the figures of `model`.
pub fn millis_with(scenario: &Scenario, choice: TargetChoice, model: &Model) -> u64 {
    kinds(choice).iter().map(|&t| on(scenario, t, model)).sum()
}

/// Whether `scenario` runs a lane on any target of `choice` (else it starts no gateway).
pub fn runs_lanes(scenario: &Scenario, choice: TargetChoice) -> bool {
    kinds(choice)
        .iter()
        .any(|&t| lanes_on(scenario, t).next().is_some())
}

fn lanes_on(scenario: &Scenario, target: TargetKind) -> impl Iterator<Item = &Lane> {
    let skipped = target == TargetKind::Openclaw && scenario.openclaw.not_applicable.is_some();
    scenario
        .lanes
        .iter()
        .filter(move |_| !skipped)
        .filter(move |l| target != TargetKind::Openclaw || l.openclaw.not_applicable.is_none())
}

/// The expected wall time of `scenario` on `target`, in milliseconds.
fn on(scenario: &Scenario, target: TargetKind, model: &Model) -> u64 {
    let per_lane = model.of(target).lane_ms;
    lanes_on(scenario, target)
        .map(|lane| per_lane + wait(scenario, lane, target))
        .sum()
}

/// What the lane waits for on purpose: its code timeout, when F5 (the timeout) is judged on it.
fn wait(scenario: &Scenario, lane: &Lane, target: TargetKind) -> u64 {
    let times_out = scenario
        .claims
        .iter()
        .any(|c| c.id == ClaimId::F5 && (c.lanes.is_empty() || c.lanes.contains(&lane.name)));
    if !times_out {
        return 0;
    }
    let on_product = lane.openclaw.tool_search.as_ref();
    match on_product.filter(|_| target == TargetKind::Openclaw) {
        Some(value) => ToolSearchSettings::resolve(Some(value))
            .map_or(lane.settings.code_timeout_ms, |s| s.code_timeout_ms),
        None => lane.settings.code_timeout_ms,
    }
}

/// The header [`render`] writes above the figures.
const HEADER: &str = "\
# What `--shard` balances by: wall time per target, fitted from measured runs' summary.json
# (`laneSteps`, `costs`). Regenerate after a release or machine change with
#   toolsearch-qa suite --target openclaw --report-dir DIR && toolsearch-qa report times DIR > data/expected-times.toml
# (a target no run covers keeps its figures). Medians, milliseconds.
";

/// `model` with each target the reports ran on fitted anew: the median gateway start (spawn to
/// ready, `costs.startMillis`) and the median lane apart from its gateway start and the wait its
/// scenario sets (scenarios found by id in `scenarios`; others are left out).
pub fn fit(
    reports: &[crate::outcome::SuiteReport],
    scenarios: &[Scenario],
    mut model: Model,
) -> Model {
    use crate::targets::timing::Step;
    let median = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.get(v.len() / 2).copied()
    };
    for target in [TargetKind::Embedded, TargetKind::Openclaw] {
        let runs: Vec<_> = reports.iter().filter(|r| r.target == target).collect();
        let starts: Vec<u64> = runs
            .iter()
            .filter_map(|r| r.costs.as_ref())
            .flat_map(|c| c.start_millis.iter().copied())
            .collect();
        let mut lanes = Vec::new();
        for scenario_report in runs.iter().flat_map(|r| &r.scenarios) {
            let Some(scenario) = scenarios.iter().find(|s| s.id == scenario_report.scenario) else {
                continue;
            };
            for (name, millis) in scenario_report.lane_millis.iter() {
                let Some(lane) = scenario.lanes.iter().find(|l| &l.name == name) else {
                    continue;
                };
                let steps = scenario_report
                    .lane_steps
                    .get(name)
                    .map_or(&[][..], Vec::as_slice);
                let start: u64 = steps
                    .iter()
                    .filter(|t| t.step == Step::GatewayStart)
                    .map(|t| t.millis)
                    .sum();
                let waits = wait(scenario, lane, target) + start;
                lanes.push(millis.saturating_sub(waits));
            }
        }
        let Some(lane_ms) = median(lanes) else {
            continue;
        };
        let gateway_start_ms = median(starts).unwrap_or(0);
        model.0.insert(
            target,
            Fitted {
                gateway_start_ms,
                lane_ms,
            },
        );
    }
    model
}

/// The model as `data/expected-times.toml` holds it.
pub fn render(model: &Model) -> String {
    let body = toml::to_string(model).expect("a map of plain numbers serialises");
    format!("{HEADER}\n{body}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_all;

    fn by_id(id: &str) -> Scenario {
        load_all(&[])
            .unwrap()
            .into_iter()
            .find(|s| s.id == id)
            .unwrap()
    }

    #[test]
    fn the_committed_model_loads_and_a_fit_reads_measured_runs() {
        let model = Model::committed();
        assert_eq!(model.of(TargetKind::Embedded).lane_ms, 15);
        let text = render(&model);
        assert!(text.starts_with(HEADER));
        assert_eq!(toml::from_str::<Model>(&text).unwrap(), model);
        // A run of the reference scenario: a 9 s start on its first lane, then 2 s lanes.
        let reference = by_id("tool-search-gateway-e2e");
        let summary = serde_json::json!({
            "target": "openclaw",
            "scenarios": [{
                "scenario": reference.id, "targetTool": "t", "profile": null, "lanes": {},
                "reduction": {}, "claims": [],
                "laneMillis": { "direct": 11_000, "tools": 2_000, "code": 2_400, "batch": 1_000 },
                "laneSteps": { "direct": [{ "step": "gatewayStart", "millis": 9_000 }] },
            }],
            "costs": { "gatewayStarts": 1, "startRetries": 0, "cliProcesses": 0,
                "startMillis": [8_800], "gatewayPeakKib": 0, "gatewayGroupPeakKib": 0,
                "harnessPeakKib": 0 },
        });
        let report = serde_json::from_value(summary).unwrap();
        let fitted = fit(&[report], &[reference], model.clone());
        assert_eq!(
            fitted.of(TargetKind::Openclaw),
            Fitted {
                gateway_start_ms: 8_800,
                lane_ms: 2_000
            }
        );
        assert_eq!(
            fitted.of(TargetKind::Embedded),
            model.of(TargetKind::Embedded)
        );
    }

    #[test]
    fn lanes_cost_the_target_s_time_and_f5_waits_out_its_timeout() {
        let reference = by_id("tool-search-gateway-e2e");
        // Nine lanes; the four native ones are not applicable on the product.
        let model = Model::committed();
        let (e, o) = (
            model.of(TargetKind::Embedded).lane_ms,
            model.of(TargetKind::Openclaw).lane_ms,
        );
        assert_eq!(millis(&reference, TargetChoice::Embedded), 9 * e);
        assert_eq!(millis(&reference, TargetChoice::Openclaw), 5 * o);
        assert_eq!(millis(&reference, TargetChoice::Both), 9 * e + 5 * o);
        let timeout = by_id("fail-closed-f5-code-timeout");
        assert_eq!(millis(&timeout, TargetChoice::Embedded), e + 1_000);
        assert_eq!(millis(&timeout, TargetChoice::Openclaw), o + 1_000);
        // Not applicable on the product: nothing to wait for there.
        let na = load_all(&[])
            .unwrap()
            .into_iter()
            .find(|s| s.openclaw.not_applicable.is_some())
            .unwrap();
        assert_eq!(millis(&na, TargetChoice::Openclaw), 0);
        assert_eq!(
            millis(&na, TargetChoice::Embedded),
            e * na.lanes.len() as u64
        );
    }
}
