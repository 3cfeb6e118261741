//! `selftest`: the seeded-regression matrix that proves every claim bites. Each seed breaks the
//! target on purpose in one known way ([`seeds`]), runs one built-in scenario through the suite
//! library in-process, and is judged as cargo-mutants judges a mutant: **caught** (the run is red
//! and the seed's own claim is among the failing verdicts), **missed** (green, or red only for
//! other claims) or **unviable** (a lane could not run at all, so nothing was judged). Before
//! any seed runs, every scenario the seeds use must pass unseeded, or a "caught" would mean
//! nothing. Rendering lives in [`render`].

pub mod packed;
pub mod patched;
pub mod product;
pub mod render;
pub mod seeds;

use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::{Error, Exit};
use crate::outcome::{ScenarioReport, SuiteReport};
use crate::product_seeds::ProductSeed;
use crate::scenario::claim::ClaimId;
use crate::scenario::{load_all, Scenario};
use crate::suite::run_suite;
use crate::targets::openclaw::{NodeMajor, Pick};
use crate::targets::{EmbeddedTarget, SeededTarget, Target, TargetChoice};
use seeds::{How, Seed};

/// What became of one seed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result")]
pub enum Outcome {
    /// The run is red and the seed's claim fails; `checks` are its failing checks
    /// (`lane: check`), `also` the other claims that failed.
    Caught {
        checks: Vec<String>,
        also: Vec<ClaimId>,
    },
    /// The seed's claim held: the regression went through (`failed` lists the claims that did
    /// fail, if any; `not_judged` says why the claim was checked on no lane at all, a seed that
    /// never reached its claim).
    Missed {
        failed: Vec<ClaimId>,
        #[serde(skip_serializing_if = "Option::is_none")]
        not_judged: Option<String>,
    },
    /// A lane could not run, so no claim was judged.
    Unviable { reason: String },
    /// The target gives a user no way to cause this claim's regression (or the harness has no
    /// seed for it yet: the reason says which).
    NotSeedable { reason: String },
}

impl Outcome {
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Caught { .. } => "caught",
            Outcome::Missed { .. } => "missed",
            Outcome::Unviable { .. } => "unviable",
            Outcome::NotSeedable { .. } => "not seedable",
        }
    }
}

/// One row of the matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cell {
    pub claim: ClaimId,
    pub target: &'static str,
    pub seed: String,
    pub scenario: String,
    #[serde(flatten)]
    pub outcome: Outcome,
    /// The seeded build the cell ran (`--packed`): the tarball, its sha256, where its
    /// dependencies came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::targets::openclaw::BuildSource>,
}

/// The whole matrix.
#[derive(Debug, Clone, Serialize)]
pub struct Matrix {
    /// The baseline passed and every seed was caught.
    pub ok: bool,
    /// What failed in the unseeded runs (`scenario: claim on lane`); their seeds did not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub baseline_failures: Vec<String>,
    pub cells: Vec<Cell>,
    /// Wall time of the run (not part of the JSON: it differs every run).
    #[serde(skip)]
    pub elapsed: Duration,
}

impl Matrix {
    /// `0` when every seed was caught; `1` when the baseline failed or a seed was missed; `3`
    /// when a lane could not run.
    pub fn exit_code(&self) -> u8 {
        let has = |word| self.cells.iter().any(|c| c.outcome.word() == word);
        if !self.baseline_failures.is_empty() {
            Exit::FAILED
        } else if has("unviable") {
            Exit::INFRA
        } else if has("missed") {
            Exit::FAILED
        } else {
            Exit::OK
        }
    }
}

/// Whether a run on a real OpenClaw takes the product seeds (`--product-seeds`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ProductSeeds {
    /// Beside the other seeds.
    #[default]
    With,
    /// Only the product seeds.
    Only,
    /// None of them.
    Without,
}

/// The product seeds' flags: which run, whether their lanes run unseeded first, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProductSeedRun {
    pub which: ProductSeeds,
    pub unseeded: Unseeded,
    pub seed_as: SeedAs,
}

/// How a product seed runs (`--packed`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SeedAs {
    /// Its patched copy of the release's install, run as the release ([`patched`]).
    #[default]
    Copy,
    /// Its patched copy packed by npm and run as a build against the release ([`packed`]).
    Tarball,
}

/// Whether the product seeds' lanes first run unseeded on the release as published
/// (`--unseeded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Unseeded {
    /// Run them first: a lane already failing there makes its seed unviable, not caught.
    #[default]
    Run,
    /// Skip that run (for a caller that just ran every scenario on that release, judged with
    /// its accepted findings, as `.ci/run`'s tests do). A seed is still caught only by a failure
    /// the release's accepted findings do not cover.
    Skip,
}

/// The seeds a run picks on `targets`: all, or those whose name or claim is in `only`.
pub fn pick(only: &[String], targets: TargetChoice) -> Result<Vec<Seed>, Error> {
    let all: Vec<Seed> = match targets {
        TargetChoice::Embedded => seeds::EMBEDDED.to_vec(),
        TargetChoice::Openclaw => seeds::OPENCLAW.to_vec(),
        TargetChoice::Both => [seeds::EMBEDDED, seeds::OPENCLAW].concat(),
    };
    if only.is_empty() {
        return Ok(all.to_vec());
    }
    let picked: Vec<Seed> = all
        .iter()
        .filter(|s| {
            only.iter()
                .any(|o| *o == s.name() || *o == s.claim.as_str())
        })
        .copied()
        .collect();
    if picked.is_empty() {
        let names: Vec<String> = all.iter().map(Seed::name).collect();
        return Err(Error::Usage(format!(
            "no seed is named {} (seeds: {}; or a claim id)",
            only.join(", "),
            names.join(", ")
        )));
    }
    Ok(picked)
}

/// The seeds `only` picks on `targets` ([`pick`]) and the product seeds among them (on a real
/// OpenClaw; all of them when `only` is empty): a name may be either kind's.
pub fn pick_all(
    only: &[String],
    targets: TargetChoice,
    product_seeds: ProductSeeds,
) -> Result<(Vec<Seed>, Vec<ProductSeed>), Error> {
    let (seeds, patched) = pick_both(only, targets)?;
    Ok(match product_seeds {
        ProductSeeds::With => (seeds, patched),
        ProductSeeds::Only => (Vec::new(), patched),
        ProductSeeds::Without => (seeds, Vec::new()),
    })
}

fn pick_both(
    only: &[String],
    targets: TargetChoice,
) -> Result<(Vec<Seed>, Vec<ProductSeed>), Error> {
    let product = match targets {
        TargetChoice::Embedded => Vec::new(),
        TargetChoice::Openclaw | TargetChoice::Both => {
            crate::product_seeds::load(crate::data_root::current())?
        }
    };
    if only.is_empty() {
        return Ok((pick(only, targets)?, product));
    }
    let (named, rest): (Vec<String>, Vec<String>) = only
        .iter()
        .cloned()
        .partition(|o| product.iter().any(|p| p.name == *o));
    let patched = crate::product_seeds::pick(&product, &named)?;
    let seeds = match (rest.is_empty(), named.is_empty()) {
        (true, false) => Vec::new(),
        _ => pick(&rest, targets).map_err(|e| match product.is_empty() {
            true => e,
            false => Error::Usage(format!(
                "{e}; product seeds: {}",
                product
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        })?,
    };
    Ok((seeds, patched))
}

/// Runs the baseline (every scenario the seeds use, unseeded) and then every seed whose
/// scenario passed it; a real OpenClaw runs on Node `node`.
pub async fn run(seeds: &[Seed], node: NodeMajor) -> Result<Matrix, Error> {
    let pick = Pick::release(None, node);
    run_with(seeds, &[], &pick, Unseeded::Run, SeedAs::Copy).await
}

/// [`run`], then the product seeds `patched` as `seed_as` says ([`patched::run`] or
/// [`packed::run`]): their cells follow.
pub async fn run_with(
    seeds: &[Seed],
    patched: &[ProductSeed],
    pick: &Pick,
    unseeded: Unseeded,
    seed_as: SeedAs,
) -> Result<Matrix, Error> {
    let started = Instant::now();
    let known = load_all(&[])?;
    let scenario = |id: &str| -> Result<Scenario, Error> {
        known
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| Error::Usage(format!("seed scenario {id} is not built in")))
    };
    let embedded: Vec<&Seed> = seeds
        .iter()
        .filter(|s| matches!(s.how, How::Embedded(_)))
        .collect();
    let mut used: Vec<&str> = embedded.iter().map(|s| s.scenario).collect();
    used.sort_unstable();
    used.dedup();
    let mut baseline_failures = Vec::new();
    let mut failed_scenarios = Vec::new();
    for id in used {
        let failures = baseline(&scenario(id)?).await?;
        if !failures.is_empty() {
            failed_scenarios.push(id);
        }
        baseline_failures.extend(failures.into_iter().map(|f| format!("{id}: {f}")));
    }
    let mut product = product_outcomes(&known, seeds, pick).await?;
    baseline_failures.append(&mut product.baseline_failures);
    let mut cells = Vec::new();
    for seed in seeds {
        let outcome = match (failed_scenarios.contains(&seed.scenario), seed.how) {
            (true, _) => Outcome::Unviable {
                reason: "its scenario fails unseeded".into(),
            },
            (false, How::Embedded(fault)) => judge(
                seed.claim,
                &run_on(&SeededTarget(fault), scenario(seed.scenario)?).await?,
            ),
            (false, How::Openclaw(user)) => product.outcome(seed.claim, seed.scenario, user),
            (false, How::NotSeedable(why)) => Outcome::NotSeedable { reason: why.into() },
        };
        cells.push(Cell {
            claim: seed.claim,
            target: seed.target(),
            seed: seed.name(),
            scenario: seed.scenario.to_string(),
            outcome,
            build: None,
        });
    }
    let mut patched = match seed_as {
        SeedAs::Copy => patched::run(&known, patched, pick, unseeded).await?,
        SeedAs::Tarball => packed::run(patched, pick, unseeded).await?,
    };
    baseline_failures.append(&mut patched.baseline_failures);
    cells.append(&mut patched.cells);
    Ok(Matrix {
        ok: baseline_failures.is_empty()
            && cells.iter().all(|c| {
                matches!(
                    c.outcome,
                    Outcome::Caught { .. } | Outcome::NotSeedable { .. }
                )
            }),
        baseline_failures,
        cells,
        elapsed: started.elapsed(),
    })
}

/// The OpenClaw seeds' reports: every distinct (scenario, user seed) run once, on one gateway.
struct ProductRuns {
    runs: Vec<((&'static str, product::UserSeed), ScenarioReport)>,
    baseline_failures: Vec<String>,
}

impl ProductRuns {
    fn outcome(&self, claim: ClaimId, scenario: &str, user: product::UserSeed) -> Outcome {
        match self
            .runs
            .iter()
            .find(|((s, u), _)| *s == scenario && *u == user)
        {
            Some((_, report)) => judge(claim, report),
            None => Outcome::Unviable {
                reason: "the seed did not run".into(),
            },
        }
    }
}

async fn product_outcomes(
    known: &[Scenario],
    seeds: &[Seed],
    pick: &Pick,
) -> Result<ProductRuns, Error> {
    let mut distinct: Vec<(Seed, product::UserSeed)> = Vec::new();
    for seed in seeds {
        if let How::Openclaw(user) = seed.how {
            if !distinct
                .iter()
                .any(|(s, u)| s.scenario == seed.scenario && *u == user)
            {
                distinct.push((*seed, user));
            }
        }
    }
    if distinct.is_empty() {
        return Ok(ProductRuns {
            runs: Vec::new(),
            baseline_failures: Vec::new(),
        });
    }
    let (baseline, seeded) = product::run(known, &distinct, pick).await?;
    let mut baseline_failures = Vec::new();
    for report in &baseline {
        if let Some(e) = report.errors.first() {
            return Err(Error::Machine(format!(
                "selftest baseline on openclaw: scenario {} lane {} did not run: {}",
                report.scenario, e.lane, e.error
            )));
        }
        baseline_failures.extend(
            report
                .claims
                .iter()
                .filter(|v| !v.passes_gate())
                .map(|v| format!("{} (openclaw): {} on {}", report.scenario, v.claim, v.lane)),
        );
    }
    Ok(ProductRuns {
        runs: distinct
            .into_iter()
            .map(|(s, u)| (s.scenario, u))
            .zip(seeded)
            .collect(),
        baseline_failures,
    })
}

/// One scenario on one target, claims only (snapshots are not what a seed must turn red).
async fn run_on(target: &dyn Target, scenario: Scenario) -> Result<ScenarioReport, Error> {
    let SuiteReport { mut scenarios, .. } = run_suite(target, &[scenario]).await?;
    scenarios
        .pop()
        .ok_or_else(|| Error::Machine("the suite returned no scenario report".into()))
}

/// The claims that fail when the scenario runs unseeded on the embedded gateway (`claim on
/// lane`); a lane that cannot run is an error.
async fn baseline(scenario: &Scenario) -> Result<Vec<String>, Error> {
    let report = run_on(&EmbeddedTarget, scenario.clone()).await?;
    if let Some(e) = report.errors.first() {
        return Err(Error::Machine(format!(
            "selftest baseline: scenario {} lane {} did not run: {}",
            scenario.id, e.lane, e.error
        )));
    }
    Ok(report
        .claims
        .iter()
        .filter(|v| !v.passes_gate())
        .map(|v| format!("{} on {}", v.claim, v.lane))
        .collect())
}

/// The outcome of a seeded run for the claim that must catch it.
pub fn judge(claim: ClaimId, report: &ScenarioReport) -> Outcome {
    if let Some(e) = report.errors.first() {
        return Outcome::Unviable {
            reason: format!(
                "lane {}: {}",
                e.lane,
                crate::output::first_line(&e.error, 200)
            ),
        };
    }
    let failing: Vec<_> = report.claims.iter().filter(|v| !v.passes_gate()).collect();
    let checks: Vec<String> = failing
        .iter()
        .filter(|v| v.claim == claim)
        .flat_map(|v| {
            v.failures
                .iter()
                .map(|c| format!("{}: {}", v.lane, c.check))
        })
        .collect();
    let mut others: Vec<ClaimId> = failing
        .iter()
        .map(|v| v.claim)
        .filter(|c| *c != claim)
        .collect();
    others.dedup();
    let judged = report
        .claims
        .iter()
        .any(|v| v.claim == claim && v.not_applicable.is_none());
    let not_judged = (!judged).then(|| {
        let why = report
            .claims
            .iter()
            .find(|v| v.claim == claim)
            .and_then(|v| v.not_applicable.clone());
        why.unwrap_or_else(|| "the scenario does not check it".into())
    });
    match checks.is_empty() || report.passes() {
        true => Outcome::Missed {
            failed: others,
            not_judged,
        },
        false => Outcome::Caught {
            checks,
            also: others,
        },
    }
}

/// The `selftest` command: runs the seeds `only` picks (all by default), prints the matrix in
/// `format` and the wall time on stderr; the exit code of [`Matrix::exit_code`].
pub async fn command(
    only: &[String],
    targets: TargetChoice,
    product: ProductSeedRun,
    pick: &Pick,
    format: crate::output::Format,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let ProductSeedRun {
        which: product_seeds,
        unseeded,
        seed_as,
    } = product;
    if seed_as == SeedAs::Tarball
        && (targets == TargetChoice::Embedded || product_seeds == ProductSeeds::Without)
    {
        return Err(Error::Usage(
            "--packed runs the product seeds as builds: pass --target openclaw, and not --product-seeds without".into(),
        ));
    }
    let (seeds, patched) = pick_all(only, targets, product_seeds)?;
    let matrix = run_with(&seeds, &patched, pick, unseeded, seed_as).await?;
    let text = match format {
        crate::output::Format::Table => matrix.to_table(),
        crate::output::Format::Json => matrix.to_json() + "\n",
    };
    crate::output::emit(out, &text)?;
    eprintln!(
        "selftest: {} seeds in {:.1} s",
        matrix.cells.len(),
        matrix.elapsed.as_secs_f64()
    );
    Ok(matrix.exit_code())
}
