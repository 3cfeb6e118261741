//! Product seeds in the matrix: each bug as filed (`data/product-seeds/`) patched into a copy of
//! the newest installed release, its replay run there and on the release as published. A seed is
//! caught when its replay is red on the copy with one of its claims while the same lanes are
//! green on the release (accepted findings applied to both, as `suite --target openclaw` judges:
//! a failure the release is known for is not a catch).

use super::{judge, Cell, Outcome, Unseeded};
use crate::error::Error;
use crate::outcome::findings;
use crate::outcome::{ScenarioReport, SuiteReport};
use crate::product_seeds::{ProductSeed, SeededCopy};
use crate::scenario::{ClaimId, Scenario};
use crate::suite::{run_plans, ProviderSource, Quiet};
use crate::targets::openclaw::Pick;
use crate::targets::{OpenClawTarget, Target, TargetPick};

/// The product seeds' cells and what failed on the release as published.
#[derive(Default)]
pub struct PatchedRuns {
    pub baseline_failures: Vec<String>,
    pub cells: Vec<Cell>,
}

/// The seed's scenario narrowed to its lanes.
fn narrowed(known: &[Scenario], seed: &ProductSeed) -> Result<Scenario, Error> {
    let mut scenario = known
        .iter()
        .find(|s| s.id == seed.scenario)
        .cloned()
        .ok_or_else(|| {
            Error::Usage(format!(
                "{}: scenario {} is not built in",
                seed.origin, seed.scenario
            ))
        })?;
    if !seed.lanes.is_empty() {
        scenario.lanes.retain(|l| seed.lanes.contains(&l.name));
    }
    Ok(scenario)
}

/// Runs `scenarios` on `target` and judges them with the release's accepted findings.
async fn judged(
    target: &OpenClawTarget,
    scenarios: &[Scenario],
    known: &[Scenario],
) -> Result<Vec<ScenarioReport>, Error> {
    let plans = scenarios
        .iter()
        .map(|s| target.plan(s))
        .collect::<Result<Vec<_>, Error>>()?;
    let mut report = run_plans(target, &plans, &ProviderSource::Mock, &Quiet).await;
    report.product = target.product();
    let label = target.label().unwrap_or_default();
    if let Some(expectations) = findings::built_in(&label, known)? {
        crate::suite::findings::record(&mut report, &expectations, known);
    }
    let SuiteReport { scenarios, .. } = report;
    Ok(scenarios)
}

/// Every seed's replay on the newest installed release as published (one gateway per plugin;
/// not with [`Unseeded::Skip`]), then each on its own patched copy (one gateway each).
pub async fn run(
    known: &[Scenario],
    seeds: &[ProductSeed],
    pick: &Pick,
    unseeded: Unseeded,
) -> Result<PatchedRuns, Error> {
    if seeds.is_empty() {
        return Ok(PatchedRuns::default());
    }
    let mut baseline: Vec<Scenario> = Vec::new();
    for seed in seeds {
        let scenario = narrowed(known, seed)?;
        match baseline.iter_mut().find(|b| b.id == scenario.id) {
            Some(b) => {
                let missing: Vec<_> = scenario
                    .lanes
                    .into_iter()
                    .filter(|l| !b.lanes.iter().any(|m| m.name == l.name))
                    .collect();
                b.lanes.extend(missing);
            }
            None => baseline.push(scenario),
        }
    }
    if let Some(build) = pick.build() {
        crate::targets::openclaw::target::seedable(build)?;
    }
    let pristine = TargetPick::openclaw(pick.clone()).openclaw_target()?;
    for seed in seeds {
        SeededCopy::check(seed, &pristine.install().prefix)?;
    }
    let reports = match unseeded {
        Unseeded::Run => judged(&pristine, &baseline, known).await?,
        Unseeded::Skip => {
            crate::output::warn(
                "note: selftest: the product seeds' lanes were not run on the release as \
                 published first (--unseeded skip)",
            );
            Vec::new()
        }
    };
    drop(pristine);
    let mut baseline_failures = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    for report in &reports {
        if let Some(e) = report.errors.first() {
            return Err(Error::Machine(format!(
                "selftest baseline on openclaw: scenario {} lane {} did not run: {}",
                report.scenario, e.lane, e.error
            )));
        }
        for v in report.claims.iter().filter(|v| !v.passes_gate()) {
            baseline_failures.push(format!(
                "{} (openclaw as published): {} on {}",
                report.scenario, v.claim, v.lane
            ));
            failed.push(report.scenario.clone());
        }
    }
    let mut cells = Vec::new();
    for seed in seeds {
        let (claim, outcome) = match failed.contains(&seed.scenario) {
            true => (
                seed.claims[0],
                Outcome::Unviable {
                    reason: "its scenario fails on the release as published".into(),
                },
            ),
            false => {
                let target = OpenClawTarget::seeded_pick(pick, seed)?;
                let mut reports = judged(&target, &[narrowed(known, seed)?], known).await?;
                drop(target);
                let report = reports.pop().ok_or_else(|| {
                    Error::Machine("the suite returned no scenario report".into())
                })?;
                outcome(seed, &report)
            }
        };
        cells.push(Cell {
            claim,
            target: "openclaw",
            seed: seed.name.clone(),
            scenario: seed.scenario.clone(),
            outcome,
            build: None,
        });
    }
    Ok(PatchedRuns {
        baseline_failures,
        cells,
    })
}

/// Caught by the first of the seed's claims that caught it (that claim with its outcome); else
/// the first claim's outcome.
fn outcome(seed: &ProductSeed, report: &ScenarioReport) -> (ClaimId, Outcome) {
    let outcomes: Vec<(ClaimId, Outcome)> = seed
        .claims
        .iter()
        .map(|c| (*c, judge(*c, report)))
        .collect();
    outcomes
        .iter()
        .find(|(_, o)| matches!(o, Outcome::Caught { .. }))
        .or(outcomes.first())
        .cloned()
        .expect("a loaded seed names at least one claim")
}
