//! The harness: scenarios, targets, the lane runner, claims and reports.
//!
//! [`run_suite`] is the whole regression check: for each scenario a fresh mock provider (so its
//! journal cursors and ids do not depend on which scenarios ran before), and for each lane a fresh
//! gateway on the chosen target, one turn, the observations, and the claims.

pub mod claims;
pub mod client_handoff;
pub mod fail_closed;
pub mod junit;
pub mod lane;
pub mod report;
pub mod scenario;
pub mod snapshot;

use thiserror::Error;

use crate::provider::{Journal, MockProvider, ProviderOptions};
use crate::targets::Target;
use claims::{evaluate, Observed};
use lane::run_lane;
use report::{ScenarioReport, SuiteReport};
use scenario::Scenario;

/// Why a suite could not produce verdicts. Claim failures are not errors: they are verdicts.
#[derive(Debug, Error)]
pub enum HarnessError {
    /// Bad scenario, config or usage (exit code 2).
    #[error("{0}")]
    Config(String),
    /// A provider, gateway or file system that would not do its part (exit code 3).
    #[error("{0}")]
    Infra(String),
}

impl HarnessError {
    pub fn infra(message: impl Into<String>) -> Self {
        HarnessError::Infra(message.into())
    }
}

impl From<scenario::ScenarioError> for HarnessError {
    fn from(e: scenario::ScenarioError) -> Self {
        HarnessError::Config(e.to_string())
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
pub async fn run_suite(
    target: &dyn Target,
    scenarios: &[Scenario],
) -> Result<SuiteReport, HarnessError> {
    run_suite_with_progress(target, scenarios, &|_, _| {}).await
}

/// [`run_suite`], calling `progress` as each lane starts.
pub async fn run_suite_with_progress(
    target: &dyn Target,
    scenarios: &[Scenario],
    progress: &(dyn Fn(&Scenario, &scenario::Lane) + Sync),
) -> Result<SuiteReport, HarnessError> {
    run_suite_on(target, scenarios, &ProviderSource::Mock, progress).await
}

/// [`run_suite_with_progress`] against the provider `source` names.
pub async fn run_suite_on(
    target: &dyn Target,
    scenarios: &[Scenario],
    source: &ProviderSource,
    progress: &(dyn Fn(&Scenario, &scenario::Lane) + Sync),
) -> Result<SuiteReport, HarnessError> {
    let mut reports = Vec::new();
    for scenario in scenarios {
        reports.push(run_scenario(target, scenario, source, progress).await?);
    }
    Ok(SuiteReport::new(target.name(), reports))
}

/// A mock provider following the directive logic, or `steps` when given.
async fn start_provider(
    steps: Option<&[scenario::ScriptStep]>,
) -> Result<MockProvider, HarnessError> {
    let script = steps.map(|s| s.iter().filter_map(scenario::ScriptStep::to_turn).collect());
    MockProvider::start_with(ProviderOptions {
        script,
        ..ProviderOptions::default()
    })
    .await
    .map_err(|e| HarnessError::infra(format!("mock provider did not start: {e}")))
}

/// Runs one scenario's lanes in order and evaluates its claims.
pub async fn run_scenario(
    target: &dyn Target,
    scenario: &Scenario,
    source: &ProviderSource,
    progress: &(dyn Fn(&Scenario, &scenario::Lane) + Sync),
) -> Result<ScenarioReport, HarnessError> {
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
        progress(scenario, lane);
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
        .map(|(lane, observation)| Observed {
            target: target.name(),
            lane,
            observation,
            figures: observation.figures(),
        })
        .collect();
    let verdicts = evaluate(scenario, &observed);
    let snapshots = observations
        .iter()
        .flat_map(|o| snapshot::lane_snapshots(&scenario.id, o))
        .collect();
    Ok(ScenarioReport::new(
        scenario, &observed, verdicts, snapshots,
    ))
}
