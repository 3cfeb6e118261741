//! Driving one lane on one target: the provider it talks to (a scripted mock, or a URL the
//! run was pointed at), the gateway started for the lane, the turn sent, and what was observed
//! ([`observation::LaneObservation`], pure data). The gate (`crate::suite`), compare, capture,
//! quality and the probes all drive lanes through here; none of them judges here.

pub mod invoke;
pub mod lane;
pub mod observation;
pub mod plan;

use crate::error::Error;
use crate::provider::{Journal, MockProvider, ProviderOptions};
use crate::scenario::ScriptStep;
use crate::targets::Target;
pub use lane::run_lane;
pub use plan::LanePlan;

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

/// A mock provider following the directive logic, or `steps` when given.
pub async fn start_provider(steps: Option<&[ScriptStep]>) -> Result<MockProvider, Error> {
    let script = steps.map(|s| s.iter().filter_map(ScriptStep::to_turn).collect());
    Ok(MockProvider::start_with(ProviderOptions {
        script,
        ..ProviderOptions::default()
    })
    .await?)
}

/// The scenario's provider: a fresh mock, or the URL the run was pointed at (not journaled).
pub async fn shared_provider(
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

/// One lane as planned; a scripted lane gets a provider of its own, so each lane may follow
/// its own script.
pub async fn run_one(
    target: &dyn Target,
    plan: &LanePlan<'_>,
    source: &ProviderSource,
    base_url: &str,
    journal: &Journal,
) -> Result<observation::LaneObservation, Error> {
    let scripted = match (plan.script(), source) {
        (Some(steps), ProviderSource::Mock) => Some(start_provider(Some(&steps)).await?),
        _ => None,
    };
    let (url, journal) = match &scripted {
        Some(p) => (p.base_url(), p.journal()),
        None => (base_url.to_string(), journal.clone()),
    };
    run_lane(target, plan, &url, &journal).await
}
