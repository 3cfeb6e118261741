//! Product seeds as builds (`selftest --packed`, issue #54): each seed's patched copy of the
//! newest installed release packed by npm, installed as `--openclaw-build` does (its dependencies
//! the release's, linked) and run by the suite as a build judged against that release. This is
//! the path a maintainer's tarball takes, so a seed is caught only as a bad build would be: the
//! run exits 1 and its "build against baseline" new failures are the seed's claims, no other.

use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::patched::PatchedRuns;
use super::{judge, Cell, Outcome, Unseeded};
use crate::data_root::DataKind;
use crate::error::{Error, Exit};
use crate::outcome::SuiteReport;
use crate::product_seeds::{ProductSeed, SeededCopy};
use crate::scenario::ClaimId;
use crate::suite::gate::{SnapshotDir, Snapshots};
use crate::suite::{ProviderSource, Quiet, RunRequest};
use crate::targets::openclaw::build;
use crate::targets::openclaw::install::default_cache_root;
use crate::targets::openclaw::{Installation, Pick, ReleaseCatalogue, Source, Version};
use crate::targets::TargetPick;

/// The target a packed cell names.
const TARGET: &str = "openclaw-build";

/// The packed tarball of `seed` on `version` in `<cache>/packed/`: its name carries the seed
/// file's sha256, so an edited seed is packed again and an unchanged one never is.
pub fn tarball_name(version: &Version, seed: &str, seed_text: &str) -> String {
    let digest = Sha256::digest(seed_text.as_bytes());
    let tag: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("openclaw-{version}-{seed}-{tag}.tgz")
}

/// Every seed packed and run as a build against the release `pick` picks (first the release
/// itself packed, on every seed's lanes, which must be green against itself; not with
/// [`Unseeded::Skip`]).
pub async fn run(
    seeds: &[ProductSeed],
    pick: &Pick,
    unseeded: Unseeded,
) -> Result<PatchedRuns, Error> {
    if seeds.is_empty() {
        return Ok(PatchedRuns::default());
    }
    let version = match &pick.source {
        Source::Release(_) => pick.release_version().map_err(Error::openclaw("selftest"))?,
        Source::Build(_) => {
            return Err(Error::Usage(
                "--packed packs seeded copies of an installed release: not with --openclaw-build (pack the build's seeded copies yourself, or run without --packed)".into(),
            ))
        }
    };
    let install = Installation::locate_version(None, &version, pick.node)
        .map_err(Error::openclaw("selftest"))?;
    let cache_root = default_cache_root().map_err(Error::openclaw("selftest"))?;
    let root = crate::data_root::current();
    let mut texts = Vec::new();
    for seed in seeds {
        SeededCopy::check(seed, &install.prefix)?;
        let file = root
            .file(DataKind::ProductSeeds, &format!("{}.toml", seed.name))
            .map_err(|e| Error::Usage(e.to_string()))?
            .ok_or_else(|| Error::Usage(format!("{}: not found in the data root", seed.origin)))?;
        texts.push(file.text);
    }
    let mut baseline_failures = Vec::new();
    let mut failed: Vec<String> = Vec::new();
    if unseeded == Unseeded::Run {
        let name = format!("openclaw-{version}.tgz");
        let plain = build::pack(&install.package, &cache_root, &name).await?;
        let packable: Vec<ProductSeed> = seeds
            .iter()
            .filter(|s| unpackable(s).is_none())
            .cloned()
            .collect();
        for (scenario, lanes) in scenarios_and_lanes(&packable) {
            let (exit, report) = run_build(&plain, &version, pick, &scenario, &lanes).await?;
            if let Some((lane, error)) = lane_error(&report) {
                return Err(Error::Machine(format!(
                    "selftest baseline on the packed openclaw {version}: scenario {scenario} lane {lane} did not run: {error}"
                )));
            }
            let lanes_said = match lanes.is_empty() {
                true => "every lane".to_string(),
                false => lanes.join(", "),
            };
            crate::output::warn(&format!(
                "selftest: openclaw {version} packed unpatched ({}), against itself on {scenario} ({lanes_said}): exit {exit}",
                plain.display()
            ));
            if exit != Exit::OK {
                baseline_failures.push(format!(
                    "{scenario} (openclaw {version} packed, unpatched, against itself): exit {exit}: {}",
                    why_red(&report)
                ));
                failed.push(scenario);
            }
        }
    } else {
        crate::output::warn(
            "note: selftest: the release packed unpatched was not run first (--unseeded skip)",
        );
    }
    let mut cells = Vec::new();
    for (seed, text) in seeds.iter().zip(&texts) {
        if let Some(reason) = unpackable(seed) {
            cells.push(Cell {
                claim: seed.claims[0],
                target: TARGET,
                seed: seed.name.clone(),
                scenario: seed.scenario.clone(),
                outcome: Outcome::NotSeedable { reason },
                build: None,
            });
            continue;
        }
        let name = tarball_name(&version, &seed.name, text);
        let ready = cache_root.join(build::PACKED_DIR).join(&name);
        let tarball = match ready.is_file() {
            true => ready,
            false => {
                let copy = SeededCopy::make(seed, &install.prefix)?;
                let package = copy.prefix().join("node_modules").join("openclaw");
                build::pack(&package, &cache_root, &name).await?
            }
        };
        let (claim, outcome, source) = match failed.contains(&seed.scenario) {
            true => (
                seed.claims[0],
                Outcome::Unviable {
                    reason: "its scenario fails on the release packed unpatched".into(),
                },
                None,
            ),
            false => {
                let (exit, report) =
                    run_build(&tarball, &version, pick, &seed.scenario, &seed.lanes).await?;
                let source = report
                    .product
                    .as_ref()
                    .and_then(|p| p.build.as_ref())
                    .map(|b| b.source.clone());
                let (claim, outcome) = outcome(seed, exit, &report)?;
                (claim, outcome, source)
            }
        };
        cells.push(Cell {
            claim,
            target: TARGET,
            seed: seed.name.clone(),
            scenario: seed.scenario.clone(),
            outcome,
            build: source,
        });
    }
    Ok(PatchedRuns {
        baseline_failures,
        cells,
    })
}

/// Why `seed` cannot be a packed build, if it cannot: a patch of a package beside the product
/// (`@openclaw/ai`) would be lost, as the tarball holds the `openclaw` package only and its
/// dependencies are the release's.
fn unpackable(seed: &ProductSeed) -> Option<String> {
    let beside: Vec<&str> = seed
        .patches
        .iter()
        .filter(|p| p.package != crate::product_seeds::PRODUCT_PACKAGE)
        .map(|p| p.package.as_str())
        .collect();
    (!beside.is_empty()).then(|| {
        format!(
            "it patches {}, beside the openclaw package a tarball holds: run it as a copy (without --packed)",
            beside.join(", ")
        )
    })
}

/// Each scenario the seeds use, with the lanes they name there (empty: every lane).
fn scenarios_and_lanes(seeds: &[ProductSeed]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for seed in seeds {
        match out.iter_mut().find(|(s, _)| *s == seed.scenario) {
            Some((_, lanes)) if lanes.is_empty() => {}
            Some((_, _)) if seed.lanes.is_empty() => {
                out.retain(|(s, _)| *s != seed.scenario);
                out.push((seed.scenario.clone(), Vec::new()));
            }
            Some((_, lanes)) => {
                for lane in &seed.lanes {
                    if !lanes.contains(lane) {
                        lanes.push(lane.clone());
                    }
                }
            }
            None => out.push((seed.scenario.clone(), seed.lanes.clone())),
        }
    }
    out
}

/// `suite --target openclaw --openclaw-build <tarball> --baseline <version> --scenario
/// <scenario>` on `lanes`, through the suite library: the run's exit code and its report.
async fn run_build(
    tarball: &Path,
    version: &Version,
    pick: &Pick,
    scenario: &str,
    lanes: &[String],
) -> Result<(u8, SuiteReport), Error> {
    let catalogue = ReleaseCatalogue::current().map_err(|e| Error::Usage(e.to_string()))?;
    let cache_root = default_cache_root().map_err(Error::openclaw("selftest"))?;
    let built = build::resolve(tarball, Some(version), pick.node, catalogue, &cache_root).await?;
    let request = RunRequest {
        scenarios: vec![scenario.to_string()],
        lanes: lanes.to_vec(),
        scenario_dirs: Vec::new(),
        with_builtins: false,
        target: TargetPick::openclaw(Pick {
            source: Source::Build(Arc::new(built)),
            node: pick.node,
        }),
        filter: None,
        shard: None,
        snapshots: Snapshots::Compare(SnapshotDir::Default),
        provider: ProviderSource::Mock,
        expectations: None,
        profile: None,
    };
    let outcome = crate::suite::run(&request, &Quiet).await?;
    let exit = outcome.verdict().exit_code();
    let report = outcome
        .reports
        .into_iter()
        .next()
        .ok_or_else(|| Error::Machine("the suite returned no report".into()))?;
    Ok((exit, report))
}

/// The first lane that could not run: (lane, error).
fn lane_error(report: &SuiteReport) -> Option<(String, String)> {
    report
        .scenarios
        .iter()
        .flat_map(|s| &s.errors)
        .next()
        .map(|e| (e.lane.clone(), crate::output::first_line(&e.error, 200)))
}

/// Why a build run is red, in one line: its new failures, fixed findings and snapshot diffs.
fn why_red(report: &SuiteReport) -> String {
    let Some(section) = &report.build_against_baseline else {
        return "no build-against-baseline section".into();
    };
    let mut parts: Vec<String> = section
        .new_failures
        .iter()
        .map(|f| format!("{} on {}", f.claim, f.lane))
        .collect();
    parts.extend(
        section
            .fixed
            .iter()
            .map(|f| format!("fixed {} on {}", f.claim, f.lane)),
    );
    parts.extend(
        section
            .snapshot_diffs
            .iter()
            .map(|d| format!("snapshot {} {:?}", d.snapshot, d.status)),
    );
    match parts.is_empty() {
        true => "nothing in the build-against-baseline section".into(),
        false => parts.join(", "),
    }
}

/// A seeded build's outcome: caught when the run exits 1 and its new failures against the
/// baseline hold one of the seed's claims and no other claim (then the first of its claims
/// among them, with that claim's checks); red for other claims too is missed, with every claim
/// that failed.
fn outcome(
    seed: &ProductSeed,
    exit: u8,
    report: &SuiteReport,
) -> Result<(ClaimId, Outcome), Error> {
    let first = seed.claims[0];
    if let Some((lane, error)) = lane_error(report) {
        return Ok((
            first,
            Outcome::Unviable {
                reason: format!("lane {lane}: {error}"),
            },
        ));
    }
    let section = report.build_against_baseline.as_ref().ok_or_else(|| {
        Error::Machine("a build's run has no build-against-baseline section".into())
    })?;
    let mut failed: Vec<ClaimId> = Vec::new();
    for failure in &section.new_failures {
        let claim = ClaimId::from_name(&failure.claim).ok_or_else(|| {
            Error::Machine(format!("a new failure names no claim: {}", failure.claim))
        })?;
        if !failed.contains(&claim) {
            failed.push(claim);
        }
    }
    failed.sort();
    Ok(match decide(&seed.claims, exit, &failed) {
        Decision::Caught { claim, also } => {
            let scenario = report
                .scenarios
                .iter()
                .find(|s| s.scenario == seed.scenario)
                .ok_or_else(|| Error::Machine("the suite left out the seed's scenario".into()))?;
            let checks = match judge(claim, scenario) {
                Outcome::Caught { checks, .. } => checks,
                _ => Vec::new(),
            };
            (claim, Outcome::Caught { checks, also })
        }
        Decision::Missed { claim } => (
            claim.unwrap_or(first),
            Outcome::Missed {
                failed,
                not_judged: None,
            },
        ),
    })
}

/// What a seeded build's run comes to, from its exit code and the claims of its new failures.
#[derive(Debug, PartialEq, Eq)]
enum Decision {
    /// Exit 1, `claim` (the first of the seed's that failed) among the new failures, and no
    /// claim the seed does not name; `also` the seed's other claims that failed.
    Caught { claim: ClaimId, also: Vec<ClaimId> },
    /// Anything else; `claim` the first of the seed's claims that failed, if one did.
    Missed { claim: Option<ClaimId> },
}

fn decide(claims: &[ClaimId], exit: u8, failed: &[ClaimId]) -> Decision {
    let own = claims.iter().copied().find(|c| failed.contains(c));
    let only_own = failed.iter().all(|c| claims.contains(c));
    match (exit == Exit::FAILED, own, only_own) {
        (true, Some(claim), true) => Decision::Caught {
            claim,
            also: failed.iter().copied().filter(|c| *c != claim).collect(),
        },
        (_, claim, _) => Decision::Missed { claim },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Caught takes exit 1 and the seed's claims, no other: red for another claim too, red with
    /// an exit other than 1, or red for other claims only is missed.
    #[test]
    fn a_seeded_build_is_caught_by_its_own_claims_only() {
        use ClaimId::{C2, D1, P1, T1};
        let claims = [D1, T1];
        assert_eq!(
            decide(&claims, 1, &[D1, T1]),
            Decision::Caught {
                claim: D1,
                also: vec![T1]
            }
        );
        assert_eq!(
            decide(&claims, 1, &[T1]),
            Decision::Caught {
                claim: T1,
                also: vec![]
            }
        );
        assert_eq!(
            decide(&[D1], 1, &[D1, T1]),
            Decision::Missed { claim: Some(D1) },
            "T1 is not the seed's"
        );
        assert_eq!(decide(&claims, 1, &[P1]), Decision::Missed { claim: None });
        assert_eq!(decide(&claims, 1, &[]), Decision::Missed { claim: None });
        assert_eq!(
            decide(&claims, 3, &[D1]),
            Decision::Missed { claim: Some(D1) }
        );
        assert_eq!(decide(&claims, 0, &[]), Decision::Missed { claim: None });
        assert_eq!(
            decide(&[C2], 1, &[C2]),
            Decision::Caught {
                claim: C2,
                also: vec![]
            }
        );
    }

    /// A seed that patches a package beside the product cannot be packed (its patch would be
    /// lost); one that patches the product alone can.
    #[test]
    fn a_seed_patching_another_package_is_not_packed() {
        let patch = |package: &str| crate::product_seeds::Patch {
            package: package.into(),
            file: "dist/a.mjs".into(),
            find: "a".into(),
            replace: "b".into(),
            count: 1,
        };
        let mut one = seed(&[], "a");
        one.patches = vec![patch("openclaw")];
        assert_eq!(unpackable(&one), None);
        one.patches.push(patch("@openclaw/ai"));
        assert_eq!(
            unpackable(&one).as_deref(),
            Some("it patches @openclaw/ai, beside the openclaw package a tarball holds: run it as a copy (without --packed)")
        );
    }

    #[test]
    fn the_tarball_name_carries_the_seed_files_hash() {
        let v: Version = "2026.9.6".parse().unwrap();
        let a = tarball_name(&v, "per-request-stamp", "claims = [\"P1\"]\n");
        assert!(
            a.starts_with("openclaw-2026.9.6-per-request-stamp-") && a.ends_with(".tgz"),
            "{a}"
        );
        assert_eq!(
            a.len(),
            "openclaw-2026.9.6-per-request-stamp-".len() + 12 + 4
        );
        assert_ne!(
            a,
            tarball_name(&v, "per-request-stamp", "claims = [\"P1\"]\n ")
        );
    }

    fn seed(lanes: &[&str], scenario: &str) -> ProductSeed {
        ProductSeed {
            name: "s".into(),
            origin: "o".into(),
            issue: None,
            scenario: scenario.into(),
            claims: vec![ClaimId::P1],
            lanes: lanes.iter().map(|l| l.to_string()).collect(),
            release: "2026.9.6".into(),
            why: "w".into(),
            patches: Vec::new(),
        }
    }

    #[test]
    fn the_unpatched_run_covers_every_seeds_lanes_once() {
        let seeds = [
            seed(&["tools"], "a"),
            seed(&["directory", "tools"], "a"),
            seed(&["direct"], "b"),
            seed(&[], "b"),
            seed(&["x"], "b"),
        ];
        assert_eq!(
            scenarios_and_lanes(&seeds),
            vec![
                (
                    "a".to_string(),
                    vec!["tools".to_string(), "directory".to_string()]
                ),
                ("b".to_string(), Vec::new()),
            ]
        );
    }
}
