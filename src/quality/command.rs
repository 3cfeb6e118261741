//! The `quality` command: pick the set, catalogue, ranker, target and baseline from the flags,
//! measure, print, and exit 1 on a regression.

use std::path::{Path, PathBuf};

use super::bfcl::{self, BfclBaseline};
use super::{
    build_catalog, measure, quality_entries, tune_fusion, Baseline, Figures, FusionTuning,
    QualityReport, QualitySet, RankedBy,
};
use crate::catalog::file::load_catalog;
use crate::catalog::realistic::realistic_catalog;
use crate::engine::Ranker;
use crate::error::{Error, Exit};
use crate::output::{emit, Format};
use crate::targets::OpenClawTarget;
use crate::targets::{TargetChoice, TargetPick};

/// The flags of `toolsearch-qa quality`.
#[derive(Debug, Clone, Default)]
pub struct QualityOptions {
    pub format: Format,
    pub ranker: Ranker,
    /// Whose search to measure: the embedded engine, a real OpenClaw gateway (which release on
    /// which Node major), or both.
    pub target: TargetPick,
    /// A labelled set instead of the built-in one.
    pub set: Option<PathBuf>,
    /// A catalogue file instead of the realistic catalogue.
    pub catalog: Option<PathBuf>,
    /// A report to compare with instead of the committed baseline.
    pub baseline: Option<PathBuf>,
    /// Print the fusion grid on the tuning half instead of the report (hybrid only).
    pub tune: bool,
    /// Measure on BFCL (installed by scripts/install-bfcl.sh) instead of the built-in set.
    pub bfcl: bool,
    /// With `bfcl` on the product: only this half's questions, no exact-name searches.
    pub half: Option<super::Half>,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Flags that do not go together, refused before anything runs.
fn check_flags(options: &QualityOptions) -> Result<(), Error> {
    let usage = |text: &str| Err(Error::Usage(text.into()));
    let embedded = options.target.kind != TargetChoice::Openclaw;
    if options.tune && options.target.kind != TargetChoice::Embedded {
        return usage("--tune tunes the embedded hybrid fusion: use --target embedded");
    }
    if options.tune && options.ranker != Ranker::Hybrid {
        return usage("--tune tunes the hybrid fusion: add --ranker hybrid");
    }
    if !embedded && options.ranker != Ranker::Lexical {
        return usage("--ranker picks the embedded engine's ranker; OpenClaw ranks with its own (use --target both to see both)");
    }
    if options.bfcl && (options.set.is_some() || options.catalog.is_some() || options.tune) {
        return usage(
            "--bfcl brings its own questions and catalogue: drop --set, --catalog and --tune",
        );
    }
    if options.half.is_some() && !(options.bfcl && options.target.kind == TargetChoice::Openclaw) {
        return usage(
            "--half measures one half of BFCL on the product: add --bfcl --target openclaw",
        );
    }
    if options.bfcl && options.target.kind == TargetChoice::Both {
        return usage(
            "--bfcl measures one search at a time: --target embedded (with --ranker) or --target openclaw",
        );
    }
    if options.baseline.is_some() && options.target.kind == TargetChoice::Both {
        return usage(
            "--baseline compares one target's report: pick --target embedded or --target openclaw",
        );
    }
    Ok(())
}

/// Measures, prints and returns the exit code: 0 nothing regressed, 1 a regression.
pub async fn command(options: &QualityOptions, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let usage = Error::Usage;
    check_flags(options)?;
    if options.bfcl {
        return bfcl_command(options, out).await;
    }
    let set = match &options.set {
        None => QualitySet::builtin().map_err(|e| usage(e.to_string()))?,
        Some(path) => {
            let text = read(path).map_err(usage)?;
            QualitySet::parse(&text).map_err(|e| usage(format!("--set {}: {e}", path.display())))?
        }
    };
    let own_baseline = match &options.baseline {
        Some(path) => Some(
            read(path)
                .and_then(|text| Baseline::parse(&text).map_err(|e| e.to_string()))
                .map_err(|e| usage(format!("--baseline {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let builtin_inputs = options.set.is_none() && options.catalog.is_none();
    let baseline_of = |ranker: RankedBy| -> Result<Option<Baseline>, Error> {
        match (&own_baseline, builtin_inputs) {
            (Some(b), _) => Ok(Some(*b)),
            (None, true) => Ok(Some(
                Baseline::builtin(ranker).map_err(|e| usage(e.to_string()))?,
            )),
            (None, false) => Ok(None),
        }
    };
    let user_catalog = match &options.catalog {
        None => None,
        Some(path) => Some(load_catalog(path).map_err(|e| usage(format!("--catalog: {e}")))?),
    };
    // The product is located before the embedded measurement, so a missing install is said
    // at once (exit 3, naming the install command).
    let install = match options.target.kind {
        TargetChoice::Embedded => None,
        _ => Some(locate(options)?),
    };
    let mut reports: Vec<(QualityReport, Option<Baseline>)> = Vec::new();
    if options.target.kind != TargetChoice::Openclaw {
        let entries = user_catalog.clone().unwrap_or_else(quality_entries);
        let catalog = build_catalog(entries, options.ranker).map_err(|e| usage(e.to_string()))?;
        if options.tune {
            let tuning = tune_fusion(&catalog, &set).map_err(|e| usage(e.to_string()))?;
            emit(out, &tune_text(&tuning, options.format))?;
            return Ok(Exit::OK);
        }
        let report = measure(&catalog, &set).map_err(|e| usage(e.to_string()))?;
        reports.push((report, baseline_of(options.ranker.into())?));
    }
    if let Some(install) = &install {
        // The realistic catalogue without the embedded engine's core tools: the product has
        // core tools of its own (a query for one of those is measured if the product has it).
        let entries = user_catalog.unwrap_or_else(realistic_catalog);
        let report = super::openclaw::measure(install, &entries, &set).await?;
        let baseline = match (&own_baseline, builtin_inputs) {
            (None, true) => release_baseline(&judged_as(options, install))?,
            _ => baseline_of(RankedBy::Openclaw)?,
        };
        reports.push((report, baseline));
    }
    emit(out, &render_reports(&reports, options.format))?;
    let mut failed = false;
    for (report, baseline) in &reports {
        let regressions = match baseline {
            Some(b) => report.regressions(b),
            None => exact_name_regression(report),
        };
        for r in &regressions {
            match reports.len() {
                1 => eprintln!("regression: {r}"),
                _ => eprintln!("regression ({}): {r}", report.ranker.as_str()),
            }
        }
        failed |= !regressions.is_empty();
    }
    Ok(if failed { Exit::FAILED } else { Exit::OK })
}

/// `quality --bfcl`: the pooled BFCL catalogue and its questions, gated by the committed
/// baseline of the ranker (or `--baseline`); with `--target openclaw` searched by the product,
/// gated by its release's committed baseline.
async fn bfcl_command(options: &QualityOptions, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let usage = |e: String| Error::Usage(e);
    let own_baseline = match &options.baseline {
        Some(path) => Some(
            read(path)
                .and_then(|text| BfclBaseline::parse(&text).map_err(|e| e.to_string()))
                .map_err(|e| usage(format!("--baseline {}: {e}", path.display())))?,
        ),
        None => None,
    };
    let (report, baseline) = if options.target.kind == TargetChoice::Openclaw {
        // The product is located before the data is read, so a missing install is said first.
        let install = locate(options)?;
        let pool = bfcl::load_installed().map_err(|e| usage(e.to_string()))?;
        let report = super::openclaw::measure_bfcl(&install, &pool, options.half).await?;
        let baseline = match own_baseline {
            Some(b) => Some(b),
            None => release_bfcl_baseline(&judged_as(options, &install))?,
        };
        (report, baseline)
    } else {
        let baseline = match own_baseline {
            Some(b) => b,
            None => {
                BfclBaseline::builtin(options.ranker.into()).map_err(|e| usage(e.to_string()))?
            }
        };
        let pool = bfcl::load_installed().map_err(|e| usage(e.to_string()))?;
        let catalog = build_catalog(pool.entries.clone(), options.ranker)
            .map_err(|e| usage(e.to_string()))?;
        (bfcl::measure(&catalog, &pool), Some(baseline))
    };
    let text = match options.format {
        Format::Json => report.to_json(),
        Format::Table => report.to_table(baseline.as_ref()),
    };
    emit(out, &text)?;
    let regressions = match &baseline {
        Some(baseline) => report.regressions(baseline),
        None => report.exact_name_regressions(),
    };
    for r in &regressions {
        eprintln!("regression: {r}");
    }
    Ok(if regressions.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    })
}

/// The installed OpenClaw release the flags pick, or the build (`--openclaw-build`) the command
/// line resolved, with the release facts that judge it (exit 3 naming the install command if
/// absent).
fn locate(options: &QualityOptions) -> Result<OpenClawTarget, Error> {
    options.target.openclaw_target()
}

/// The release whose committed baselines judge `install`: a build's baseline, else its own.
fn judged_as(options: &QualityOptions, product: &OpenClawTarget) -> String {
    match options.target.openclaw.build() {
        Some(build) => build.used.baseline.clone(),
        None => product.install().version.clone(),
    }
}

/// The committed BFCL baseline of OpenClaw release `version`
/// (`search-quality-baseline-openclaw-<v>-bfcl.json` of the data root); a release without one is
/// said on stderr and gated on exact-name recall only.
fn release_bfcl_baseline(version: &str) -> Result<Option<BfclBaseline>, Error> {
    let name = format!("search-quality-baseline-openclaw-{version}-bfcl.json");
    let file = crate::data_root::current()
        .file(crate::data_root::DataKind::Baselines, &name)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let baseline = file
        .map(|file| {
            BfclBaseline::parse(&file.text)
                .map_err(|e| Error::Usage(format!("{}: {e}", file.origin)))
        })
        .transpose()?;
    if baseline.is_none() {
        crate::output::warn(&format!(
            "note: openclaw {version} has no committed BFCL baseline (data/{name}): only \
             exact-name recall gates; write one with `toolsearch-qa quality --bfcl --target \
             openclaw --openclaw-version {version} --format json > data/{name}`"
        ));
    }
    Ok(baseline)
}

/// One report as itself; two as `{"embedded": …, "openclaw": …}` in JSON, one after the other
/// in tables.
fn render_reports(reports: &[(QualityReport, Option<Baseline>)], format: Format) -> String {
    match (format, reports) {
        (Format::Json, [(report, _)]) => report.to_json() + "\n",
        (Format::Json, _) => {
            let mut both = serde_json::Map::new();
            for (report, _) in reports {
                let key = match report.ranker {
                    RankedBy::Openclaw => "openclaw",
                    _ => "embedded",
                };
                both.insert(key.into(), serde_json::to_value(report).unwrap_or_default());
            }
            serde_json::to_string_pretty(&both).unwrap_or_default() + "\n"
        }
        (Format::Table, _) => reports
            .iter()
            .map(|(report, baseline)| report.to_table(baseline.as_ref()))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// The committed baseline of OpenClaw release `version`
/// (`data/search-quality-baseline-openclaw-<v>.json` in the source tree); a release without one
/// is said on stderr and gated on exact-name recall only.
fn release_baseline(version: &str) -> Result<Option<Baseline>, Error> {
    let name = format!("data/search-quality-baseline-openclaw-{version}.json");
    let baseline = committed_release_baseline(version)?;
    if baseline.is_none() {
        crate::output::warn(&format!(
            "note: openclaw {version} has no committed search baseline ({name}): only \
             exact-name recall gates; write one with `toolsearch-qa quality --target openclaw \
             --openclaw-version {version} --format json > {name}`"
        ));
    }
    Ok(baseline)
}

/// The product's search on the labelled set as OpenClaw release `version`'s committed baseline
/// has it (`search-quality-baseline-openclaw-<v>.json` of the data root), if there is one.
pub fn committed_release_baseline(version: &str) -> Result<Option<Baseline>, Error> {
    let file = crate::data_root::current()
        .file(
            crate::data_root::DataKind::Baselines,
            &format!("search-quality-baseline-openclaw-{version}.json"),
        )
        .map_err(|e| Error::Usage(e.to_string()))?;
    file.map(|file| {
        Baseline::parse(&file.text).map_err(|e| Error::Usage(format!("{}: {e}", file.origin)))
    })
    .transpose()
}

/// Without a baseline only exact-name recall can regress.
fn exact_name_regression(report: &QualityReport) -> Vec<String> {
    let none = super::Figures::from_ranks(&[]);
    let baseline = Baseline {
        tuning: none,
        test: none,
        all: None,
    };
    report.regressions(&baseline)
}

fn tune_text(tuning: &FusionTuning, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(tuning).unwrap_or_default() + "\n",
        Format::Table => {
            let mut text = String::from(
                "fusion grid on the tuning half, best first (lexical weight, operation boost: figures)\n",
            );
            for p in &tuning.points {
                text.push_str(&format!(
                    "lexical {:.1}  operation {:.1}: {}\n",
                    p.lexical_weight,
                    p.operation_boost,
                    figures_line(&p.tuning)
                ));
            }
            text.push_str(&format!(
                "ceiling (each query at its best point of the grid; no single point reaches it):\n  {}\n",
                figures_line(&tuning.ceiling)
            ));
            text
        }
    }
}

fn figures_line(f: &Figures) -> String {
    format!(
        "recall@1 {:.4} ({}/{})  recall@5 {:.4} ({}/{})  MRR {:.4}",
        f.recall_at_1, f.hits_at_1, f.queries, f.recall_at_5, f.hits_at_5, f.queries, f.mrr
    )
}
