//! The suite: the regression check itself. For each scenario a fresh mock provider (so its
//! journal cursors and ids do not depend on which scenarios ran before), and for each lane a
//! gateway set to the lane's config on the chosen target (the embedded one fresh per lane, a real
//! one reloaded), one turn in the lane's own session, the observations, and the claims.
//!
//! One job per module ([`crate::scenario`] loads and checks the scenario files it runs):
//! [`select`] narrows them
//! (`--filter`, `--shard`), [`lane`] runs a lane and observes it, [`observation`] is what was
//! observed (pure data), [`claims`] judges it, [`report`] renders it, [`command`] is the `suite`
//! command end to end. The runner emits [`SuiteEvent`]s; reporters (a progress bar, a log)
//! consume them without the runner knowing who listens.

pub mod claims;
pub mod command;
pub mod evidence;
pub mod expected;
pub mod findings;
pub mod invoke;
pub mod lane;
pub mod merge;
pub mod observation;
pub mod report;
pub mod select;
pub use crate::targets::timing;

use crate::error::Error;
use crate::provider::{Journal, MockProvider, ProviderOptions};
use crate::scenario::{Lane, Scenario, ScriptStep};
use crate::targets::{Target, TargetKind, TargetPlan};
use claims::evaluate;
use lane::run_lane;
use observation::Observed;
use report::snapshot::{self, SnapshotStyle};
use report::{LaneError, ScenarioReport, SuiteReport};

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

/// The model provider the gateways of a suite talk to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ProviderSource {
    /// A fresh scripted mock provider per scenario (the normal run).
    #[default]
    Mock,
    /// Every gateway is pointed at this base URL (`http://host:port/v1`) instead; nothing is
    /// journaled. For checking how the harness reports a broken provider (exit code 3).
    Url(String),
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

/// A mock provider following the directive logic, or `steps` when given.
async fn start_provider(steps: Option<&[ScriptStep]>) -> Result<MockProvider, Error> {
    let script = steps.map(|s| s.iter().filter_map(ScriptStep::to_turn).collect());
    Ok(MockProvider::start_with(ProviderOptions {
        script,
        ..ProviderOptions::default()
    })
    .await?)
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
                    match run_one(target, scenario, lane, source, &base_url, &journal).await {
                        Ok(observation) => observations.push((lane, observation)),
                        Err(e) => errors.push(LaneError::new(&lane.name, &e)),
                    }
                }
                drop(provider);
            }
            Err(e) => errors.extend(scenario.lanes.iter().map(|l| LaneError::new(&l.name, &e))),
        }
    }
    let surface = target.surface(scenario);
    let observed: Vec<Observed<'_>> = observations
        .iter()
        .map(|(lane, observation)| {
            let tool = &scenario.target_tool;
            Observed::new(target.kind(), lane, observation, tool, &surface)
        })
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
    ScenarioReport::new(scenario, &observed, verdicts, snapshots)
        .with_errors(errors)
        .with_not_applicable(plan.not_applicable.clone())
}

/// The scenario's provider: a fresh mock, or the URL the run was pointed at (not journaled).
async fn shared_provider(
    source: &ProviderSource,
) -> Result<(Option<MockProvider>, String, Journal), Error> {
    Ok(match source {
        ProviderSource::Mock => {
            let mock = start_provider(None).await?;
            let (url, journal) = (mock.base_url(), mock.journal());
            (Some(mock), url, journal)
        }
        ProviderSource::Url(url) => (None, url.clone(), Journal::new()),
    })
}

/// A script's steps on a surface whose bridge tools have other names: a step naming a control
/// tool by the spec's name (`tool_call`) calls the surface's tool of that role (`dispatch_action`
/// on upstream's surface), so one script runs under any profile.
fn on_surface(steps: &[ScriptStep], bridge: &crate::config::Bridge) -> Vec<ScriptStep> {
    let spec = crate::config::Bridge::spec();
    let renamed = |name: &String| {
        let role = spec.role(name)?;
        bridge.name(role).map(str::to_string)
    };
    steps
        .iter()
        .map(|step| ScriptStep {
            tool: step
                .tool
                .as_ref()
                .map(|t| renamed(t).unwrap_or_else(|| t.clone())),
            ..step.clone()
        })
        .collect()
}

/// One lane; a scripted lane gets a provider of its own, so each lane may follow its own script.
async fn run_one(
    target: &dyn Target,
    scenario: &Scenario,
    lane: &Lane,
    source: &ProviderSource,
    base_url: &str,
    journal: &Journal,
) -> Result<observation::LaneObservation, Error> {
    let surface = target.surface(scenario);
    let bridge = surface.bridge();
    let scripted = match (lane.script(scenario), source) {
        (Some(steps), ProviderSource::Mock) => {
            Some(start_provider(Some(&on_surface(steps, bridge))).await?)
        }
        _ => None,
    };
    let (url, journal) = match &scripted {
        Some(p) => (p.base_url(), p.journal()),
        None => (base_url.to_string(), journal.clone()),
    };
    run_lane(target, scenario, lane, &url, &journal).await
}
