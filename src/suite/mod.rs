//! The suite: the gate itself. It selects the scenarios ([`select`]), runs each on a target
//! (for each scenario a fresh mock provider, so its journal cursors and ids do not depend on
//! which scenarios ran before; each lane driven by `crate::drive`), judges what was observed
//! ([`claims`], the accepted [`findings`], the committed [`snapshot`]s) and hands back typed
//! outcomes (`crate::outcome`) that `crate::report` renders. [`command`] is the `suite` command
//! end to end; [`merge`] puts a CI matrix's shards back together. The runner emits
//! [`SuiteEvent`]s; reporters (a progress bar, a log) consume them without the runner knowing
//! who listens.

pub mod claims;
pub mod command;
pub mod expected;
pub mod findings;
pub mod gate;
pub mod merge;
pub mod outline;
pub mod select;
pub mod snapshot;

use crate::drive::observation::Observed;
pub use crate::drive::ProviderSource;
use crate::drive::{run_one, shared_provider, LanePlan};
use crate::error::Error;
use crate::outcome::{
    LaneError, LaneFigures, LaneMap, Reduction, ScenarioReport, SuiteReport, Verdict,
};
use crate::scenario::{Lane, Scenario};
use crate::targets::{timing, Target, TargetKind, TargetPlan};
use claims::evaluate;
pub use gate::{run, RunOutcome, RunRequest};
use snapshot::SnapshotStyle;

/// What happens during a run, as it happens.
#[derive(Clone, Copy)]
pub enum SuiteEvent<'a> {
    /// A run of these scenarios starts on a target.
    RunStarted {
        target: &'a dyn Target,
        scenarios: &'a [Scenario],
    },
    /// A lane is about to start on a target.
    LaneStarted {
        target: &'a dyn Target,
        scenario: &'a Scenario,
        lane: &'a Lane,
    },
    /// Every lane of a scenario ran and its claims were judged.
    ScenarioFinished {
        target: &'a dyn Target,
        report: &'a ScenarioReport,
    },
}

/// Something that wants to know how a run goes (a progress bar, a log).
pub trait Reporter: Sync {
    fn event(&self, event: SuiteEvent<'_>);
}

/// A reporter that ignores everything.
pub struct Quiet;

impl Reporter for Quiet {
    fn event(&self, _: SuiteEvent<'_>) {}
}

impl<F: Fn(SuiteEvent<'_>) + Sync> Reporter for F {
    fn event(&self, event: SuiteEvent<'_>) {
        self(event)
    }
}

/// Runs every scenario on `target`, each against its own mock provider.
pub async fn run_suite(target: &dyn Target, scenarios: &[Scenario]) -> Result<SuiteReport, Error> {
    run_suite_on(target, scenarios, &ProviderSource::Mock, &Quiet).await
}

/// [`run_suite`] against the provider `source` names, telling `reporter` as it goes.
pub async fn run_suite_on(
    target: &dyn Target,
    scenarios: &[Scenario],
    source: &ProviderSource,
    reporter: &dyn Reporter,
) -> Result<SuiteReport, Error> {
    let mut scenarios = scenarios.to_vec();
    crate::mcp_servers::list_catalogues(&mut scenarios).await?;
    let plans = plan_all(target, &scenarios)?;
    Ok(run_plans(target, &plans, source, reporter).await)
}

/// How `target` runs each scenario; the first scenario it cannot run (and does not say so) is
/// an error, before anything starts. The scenarios' real MCP servers must be listed first
/// ([`crate::mcp_servers::list_catalogues`]).
pub fn plan_all(target: &dyn Target, scenarios: &[Scenario]) -> Result<Vec<TargetPlan>, Error> {
    scenarios
        .iter()
        .map(|s| match &s.catalog.unavailable {
            Some(reason) => Ok(TargetPlan::none_applicable(s, reason)),
            None => target.plan(s),
        })
        .collect()
}

/// Runs planned scenarios on `target`. A lane that cannot start or answer is reported as an
/// error of that lane (the report's `errors`) while every other lane and scenario still runs;
/// the target is finished (its gateway stopped) at the end.
pub async fn run_plans(
    target: &dyn Target,
    plans: &[TargetPlan],
    source: &ProviderSource,
    reporter: &dyn Reporter,
) -> SuiteReport {
    let scenarios: Vec<Scenario> = plans.iter().map(|p| p.scenario.clone()).collect();
    reporter.event(SuiteEvent::RunStarted {
        target,
        scenarios: &scenarios,
    });
    // Executed in the target's order, reported in the given one.
    let mut done: Vec<Option<ScenarioReport>> = plans.iter().map(|_| None).collect();
    for index in execution_order(target, plans) {
        let report = run_scenario(target, &plans[index], source, reporter).await;
        reporter.event(SuiteEvent::ScenarioFinished {
            target,
            report: &report,
        });
        done[index] = Some(report);
    }
    let reports: Vec<ScenarioReport> = done.into_iter().flatten().collect();
    target.finish().await;
    let mut report = SuiteReport::new(target.kind(), reports);
    report.costs = target.costs().await.map(|costs| timing::RunCosts {
        harness_peak_kib: timing::own_peak_kib().unwrap_or(0),
        ..costs
    });
    report
}

/// The target's [`Target::run_order`] when it runs every plan exactly once, else as given (no
/// scenario is ever left out or run twice by a target's ordering).
fn execution_order(target: &dyn Target, plans: &[TargetPlan]) -> Vec<usize> {
    let order = target.run_order(plans);
    let mut sorted = order.clone();
    sorted.sort_unstable();
    match sorted.into_iter().eq(0..plans.len()) {
        true => order,
        false => (0..plans.len()).collect(),
    }
}

/// Runs one scenario's lanes in order and evaluates its claims on the lanes that ran; a lane
/// that could not run is one of the report's `errors`, a lane the target cannot run one of its
/// `not_applicable`.
pub async fn run_scenario(
    target: &dyn Target,
    plan: &TargetPlan,
    source: &ProviderSource,
    reporter: &dyn Reporter,
) -> ScenarioReport {
    let scenario = &plan.scenario;
    let mut errors = Vec::new();
    let mut observations = Vec::new();
    if !scenario.lanes.is_empty() {
        match shared_provider(source).await {
            Ok((provider, base_url, journal)) => {
                for lane in &scenario.lanes {
                    reporter.event(SuiteEvent::LaneStarted {
                        target,
                        scenario,
                        lane,
                    });
                    let lane_plan = LanePlan::new(target, scenario, lane);
                    match run_one(target, &lane_plan, source, &base_url, &journal).await {
                        Ok(observation) => observations.push((lane_plan, observation)),
                        Err(e) => errors.push(LaneError::new(&lane.name, &e)),
                    }
                }
                drop(provider);
            }
            Err(e) => errors.extend(scenario.lanes.iter().map(|l| LaneError::new(&l.name, &e))),
        }
    }
    let observed: Vec<Observed<'_>> = observations
        .iter()
        .map(|(lane_plan, observation)| Observed::new(target.kind(), lane_plan, observation))
        .collect();
    let mut verdicts = evaluate(scenario, &observed, &plan.not_applicable);
    if !errors.is_empty() {
        // A claim whose lanes could not run is those lanes' error, not "not applicable".
        verdicts.retain(|v| !v.is_not_applicable());
    }
    // Our own gateway is snapshotted byte for byte; a real product as an outline without its
    // prose, redacted for what differs between machines.
    let style = match target.kind() {
        TargetKind::Embedded => SnapshotStyle::AsWritten,
        TargetKind::Openclaw => SnapshotStyle::Outline,
    };
    let redactions = target.redactions();
    let snapshots = observations
        .iter()
        .flat_map(|(_, o)| snapshot::lane_snapshots(&scenario.id, o, style, &redactions))
        .collect();
    scenario_report(scenario, &observed, verdicts, snapshots)
        .with_errors(errors)
        .with_not_applicable(plan.not_applicable.clone())
}

/// A lane's figures as reports store them: the gateway's answer is evidence like any other,
/// redacted and bounded ([`crate::outcome::evidence`]); the claims read the figures as observed.
fn reported_figures(figures: &LaneFigures) -> LaneFigures {
    LaneFigures {
        gateway_output_text: crate::outcome::evidence::evidence(&figures.gateway_output_text),
        ..figures.clone()
    }
}

/// One scenario's report: the figures of the lanes that ran, their reductions against the
/// direct lane, the verdicts and the snapshot contents (compared later, [`snapshot::record`]).
pub fn scenario_report(
    scenario: &Scenario,
    observed: &[Observed<'_>],
    claims: Vec<Verdict>,
    snapshot_contents: Vec<(String, String)>,
) -> ScenarioReport {
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
