//! How long a scenario is expected to take on a target, from the scenario alone: what `--shard`
//! balances by. Deterministic (the same split on every machine, whatever the last run took):
//! each lane that runs costs the target's measured time per lane, plus the wait the scenario
//! builds in — a lane that F5 judges waits out its `codeTimeoutMs`. A lane or scenario the
//! target cannot run (`not_applicable`) costs nothing there.

use crate::config::ToolSearchSettings;
use crate::scenario::{ClaimId, Lane, Scenario, TargetKind};
use crate::targets::TargetChoice;

/// Wall time of one lane apart from the waits a scenario sets, in milliseconds, per target.
/// Measured: the embedded gateway runs a lane in 5–15 ms (every built-in scenario, load ≈ 2;
/// the first lane of a run ≈ 0.4 s more, warming up); a real OpenClaw gateway restarts per
/// lane, ≈ 3.5 s (97 s for every built-in scenario's 28 lanes in the last session's CI run,
/// load ≈ 2; 8–40 s a lane at load ≈ 5).
const LANE_MILLIS: [(TargetKind, u64); 2] =
    [(TargetKind::Embedded, 15), (TargetKind::Openclaw, 3_500)];

/// The targets `choice` runs.
pub fn kinds(choice: TargetChoice) -> &'static [TargetKind] {
    match choice {
        TargetChoice::Embedded => &[TargetKind::Embedded],
        TargetChoice::Openclaw => &[TargetKind::Openclaw],
        TargetChoice::Both => &[TargetKind::Embedded, TargetKind::Openclaw],
    }
}

/// The expected wall time of `scenario` on every target of `choice`, in milliseconds.
pub fn millis(scenario: &Scenario, choice: TargetChoice) -> u64 {
    kinds(choice).iter().map(|&t| on(scenario, t)).sum()
}

/// The expected wall time of `scenario` on `target`, in milliseconds.
fn on(scenario: &Scenario, target: TargetKind) -> u64 {
    if target == TargetKind::Openclaw && scenario.openclaw.not_applicable.is_some() {
        return 0;
    }
    let per_lane = LANE_MILLIS
        .iter()
        .find(|(kind, _)| *kind == target)
        .map_or(0, |(_, ms)| *ms);
    scenario
        .lanes
        .iter()
        .filter(|l| target != TargetKind::Openclaw || l.openclaw.not_applicable.is_none())
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
    fn lanes_cost_the_target_s_time_and_f5_waits_out_its_timeout() {
        let reference = by_id("tool-search-gateway-e2e");
        // Nine lanes; the four native ones are not applicable on the product.
        assert_eq!(millis(&reference, TargetChoice::Embedded), 9 * 15);
        assert_eq!(millis(&reference, TargetChoice::Openclaw), 5 * 3_500);
        assert_eq!(millis(&reference, TargetChoice::Both), 9 * 15 + 5 * 3_500);
        let timeout = by_id("fail-closed-f5-code-timeout");
        assert_eq!(millis(&timeout, TargetChoice::Embedded), 15 + 1_000);
        assert_eq!(millis(&timeout, TargetChoice::Openclaw), 3_500 + 1_000);
        // Not applicable on the product: nothing to wait for there.
        let na = load_all(&[])
            .unwrap()
            .into_iter()
            .find(|s| s.openclaw.not_applicable.is_some())
            .unwrap();
        assert_eq!(millis(&na, TargetChoice::Openclaw), 0);
        assert_eq!(
            millis(&na, TargetChoice::Embedded),
            15 * na.lanes.len() as u64
        );
    }
}
