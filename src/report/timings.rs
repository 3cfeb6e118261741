//! `suite --timings`: where a run's wall time went, from the steps and costs the run recorded
//! ([`crate::targets::timing`]); this module only renders them. One line per lane (its setup, its
//! turns, its other calls, its total), then per target the gateway starts, the processes started
//! and the peak memory of each process. Lines fit 100 columns.

use std::fmt::Write as _;

use crate::outcome::{ScenarioReport, SuiteReport};
use crate::targets::timing::{RunCosts, Step, Timed};

/// Milliseconds as seconds with one decimal (`12.3`), `-` for none.
fn secs(millis: Option<u64>) -> String {
    millis.map_or("-".into(), |m| format!("{:.1}", m as f64 / 1000.0))
}

/// The sum of a lane's steps that are `step`, `None` when it has none.
fn sum(steps: &[Timed], wanted: &[Step]) -> Option<u64> {
    let mut found = steps.iter().filter(|t| wanted.contains(&t.step)).peekable();
    found.peek()?;
    Some(found.map(|t| t.millis).sum())
}

/// The breakdown of every report, as text.
pub fn render_timings(reports: &[SuiteReport]) -> String {
    let mut out = String::new();
    for report in reports {
        let _ = writeln!(out, "timings on {} (seconds):", report.target.as_str());
        let _ = writeln!(
            out,
            "{:<44} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "scenario / lane", "start", "reload", "turn", "2nd", "calls", "read", "lane"
        );
        for scenario in &report.scenarios {
            lanes(&mut out, scenario);
        }
        if let Some(costs) = &report.costs {
            run_line(&mut out, costs);
        }
    }
    out
}

fn lanes(out: &mut String, scenario: &ScenarioReport) {
    for (lane, millis) in scenario.lane_millis.iter() {
        let steps = scenario.lane_steps.get(lane).map_or(&[][..], Vec::as_slice);
        let mut name = format!("{} / {lane}", scenario.scenario);
        if name.chars().count() > 44 {
            name = format!("…{}", &name[name.len() - 43..]);
        }
        let _ = writeln!(
            out,
            "{name:<44} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            secs(sum(steps, &[Step::GatewayStart])),
            secs(sum(steps, &[Step::ConfigReload])),
            secs(sum(steps, &[Step::Turn])),
            secs(sum(steps, &[Step::FollowUp])),
            secs(sum(steps, &[Step::Invoke, Step::EffectiveTools])),
            secs(sum(steps, &[Step::SessionRead])),
            secs(Some(*millis)),
        );
    }
}

fn run_line(out: &mut String, costs: &RunCosts) {
    let starts: Vec<String> = costs.start_millis.iter().map(|m| secs(Some(*m))).collect();
    let mib = |kib: u64| kib.div_ceil(1024);
    let _ = writeln!(
        out,
        "gateway starts: {} ({} retried; ready after {} s); product CLI processes: {}",
        costs.gateway_starts,
        costs.start_retries,
        match starts.is_empty() {
            true => "-".to_string(),
            false => starts.join(", "),
        },
        costs.cli_processes,
    );
    let _ = writeln!(
        out,
        "peak memory (MiB): gateway {}, its process group {}, harness {}",
        mib(costs.gateway_peak_kib),
        mib(costs.gateway_group_peak_kib),
        mib(costs.harness_peak_kib),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::LaneMap;
    use crate::targets::TargetKind;

    #[test]
    fn a_lane_line_sums_its_steps() {
        let steps = vec![
            Timed {
                step: Step::ConfigReload,
                millis: 1_240,
            },
            Timed {
                step: Step::Turn,
                millis: 2_000,
            },
            Timed {
                step: Step::Invoke,
                millis: 50,
            },
            Timed {
                step: Step::EffectiveTools,
                millis: 60,
            },
        ];
        let mut out = String::new();
        let mut scenario: ScenarioReport = serde_json::from_value(serde_json::json!({
            "scenario": "s", "targetTool": "t", "profile": null, "lanes": {},
            "reduction": {}, "claims": [], "laneMillis": { "tools": 3_400 },
        }))
        .unwrap();
        scenario.lane_steps = LaneMap(vec![("tools".into(), steps)]);
        lanes(&mut out, &scenario);
        assert_eq!(
            out,
            format!(
                "{:<44}      -    1.2    2.0      -    0.1      -    3.4\n",
                "s / tools"
            )
        );
        let mut report = SuiteReport::new(TargetKind::Openclaw, vec![scenario]);
        report.costs = Some(RunCosts {
            gateway_starts: 2,
            start_retries: 1,
            cli_processes: 0,
            start_millis: vec![8_000, 9_050],
            gateway_peak_kib: 1_024 * 700,
            gateway_group_peak_kib: 1_024 * 900,
            harness_peak_kib: 1_024 * 60 + 1,
        });
        let text = render_timings(&[report]);
        assert!(
            text.ends_with(
                "gateway starts: 2 (1 retried; ready after 8.0, 9.1 s); product CLI processes: 0\n\
             peak memory (MiB): gateway 700, its process group 900, harness 61\n"
            ),
            "{text}"
        );
        assert!(text.lines().all(|l| l.chars().count() <= 100));
    }
}
