//! The suite: the regression check itself. For each scenario a fresh mock provider (so its
//! journal cursors and ids do not depend on which scenarios ran before), and for each lane a
//! fresh gateway on the chosen target, one turn, the observations, and the claims.
//!
//! One job per module ([`crate::scenario`] loads and checks the scenario files it runs):
//! [`select`] narrows them
//! (`--filter`, `--shard`), [`lane`] runs a lane and observes it, [`observation`] is what was
//! observed (pure data), [`claims`] judges it, [`report`] renders it, [`command`] is the `suite`
//! command end to end. The runner emits [`SuiteEvent`]s; reporters (a progress bar, a log)
//! consume them without the runner knowing who listens.

pub mod claims;
pub mod command;
pub mod findings;
pub mod lane;
pub mod observation;
pub mod report;
pub mod select;

use crate::error::Error;
use crate::provider::{Journal, MockProvider, ProviderOptions};
use crate::scenario::{Lane, Scenario, ScriptStep};
use crate::targets::{Target, TargetKind};
use claims::evaluate;
use lane::run_lane;
use observation::Observed;
use report::snapshot::{self, SnapshotStyle};
use report::{ScenarioReport, SuiteReport};

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
    reporter.event(SuiteEvent::RunStarted { target, scenarios });
    let mut reports = Vec::new();
    for scenario in scenarios {
        let report = run_scenario(target, scenario, source, reporter).await?;
        reporter.event(SuiteEvent::ScenarioFinished {
            target,
            report: &report,
        });
        reports.push(report);
    }
    Ok(SuiteReport::new(target.kind(), reports))
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

/// Runs one scenario's lanes in order and evaluates its claims.
pub async fn run_scenario(
    target: &dyn Target,
    scenario: &Scenario,
    source: &ProviderSource,
    reporter: &dyn Reporter,
) -> Result<ScenarioReport, Error> {
    let (provider, base_url, journal) = match source {
        ProviderSource::Mock => {
            let mock = start_provider(None).await?;
            let (url, journal) = (mock.base_url(), mock.journal());
            (Some(mock), url, journal)
        }
        ProviderSource::Url(url) => (None, url.clone(), Journal::new()),
    };
    let mut observations = Vec::new();
    for lane in &scenario.lanes {
        reporter.event(SuiteEvent::LaneStarted {
            target,
            scenario,
            lane,
        });
        // A scripted lane gets a provider of its own, so each lane may follow its own script.
        let scripted = match (lane.script(scenario), source) {
            (Some(steps), ProviderSource::Mock) => Some(start_provider(Some(steps)).await?),
            _ => None,
        };
        let (url, journal) = match &scripted {
            Some(p) => (p.base_url(), p.journal()),
            None => (base_url.clone(), journal.clone()),
        };
        observations.push(run_lane(target, scenario, lane, &url, &journal).await?);
    }
    drop(provider);
    let observed: Vec<Observed<'_>> = scenario
        .lanes
        .iter()
        .zip(&observations)
        .map(|(lane, observation)| {
            Observed::new(target.kind(), lane, observation, &scenario.target_tool)
        })
        .collect();
    let verdicts = evaluate(scenario, &observed);
    // Our own gateway is snapshotted byte for byte; a real product as an outline without its
    // prose, redacted for what differs between machines.
    let style = match target.kind() {
        TargetKind::Embedded => SnapshotStyle::AsWritten,
        TargetKind::Openclaw => SnapshotStyle::Outline,
    };
    let redactions = target.redactions();
    let snapshots = observations
        .iter()
        .flat_map(|o| snapshot::lane_snapshots(&scenario.id, o, style, &redactions))
        .collect();
    Ok(ScenarioReport::new(
        scenario, &observed, verdicts, snapshots,
    ))
}
