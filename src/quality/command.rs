//! The `quality` command: pick the set, catalogue, ranker and baseline from the flags, measure,
//! print, and exit 1 on a regression.

use std::path::{Path, PathBuf};

use super::catalog_file::load_catalog;
use super::{
    build_catalog, measure, quality_entries, tune_fusion, Baseline, QualityReport, QualitySet,
    TunePoint,
};
use crate::engine::Ranker;
use crate::error::{Error, Exit};
use crate::output::{emit, Format};

/// The flags of `toolsearch-qa quality`.
#[derive(Debug, Clone, Default)]
pub struct QualityOptions {
    pub format: Format,
    pub ranker: Ranker,
    /// A labelled set instead of the built-in one.
    pub set: Option<PathBuf>,
    /// A catalogue file instead of the realistic catalogue.
    pub catalog: Option<PathBuf>,
    /// A report to compare with instead of the committed baseline.
    pub baseline: Option<PathBuf>,
    /// Print the fusion grid on the tuning half instead of the report (hybrid only).
    pub tune: bool,
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Measures, prints and returns the exit code: 0 nothing regressed, 1 a regression.
pub fn command(options: &QualityOptions, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let usage = Error::Usage;
    if options.tune && options.ranker != Ranker::Hybrid {
        return Err(usage(
            "--tune tunes the hybrid fusion: add --ranker hybrid".into(),
        ));
    }
    let set = match &options.set {
        None => QualitySet::builtin().map_err(|e| usage(e.to_string()))?,
        Some(path) => {
            let text = read(path).map_err(usage)?;
            QualitySet::parse(&text).map_err(|e| usage(format!("--set {}: {e}", path.display())))?
        }
    };
    let baseline = match (&options.baseline, &options.set, &options.catalog) {
        (Some(path), _, _) => Some(
            read(path)
                .and_then(|text| Baseline::parse(&text).map_err(|e| e.to_string()))
                .map_err(|e| usage(format!("--baseline {}: {e}", path.display())))?,
        ),
        (None, None, None) => {
            Some(Baseline::builtin(options.ranker).map_err(|e| usage(e.to_string()))?)
        }
        _ => None,
    };
    let entries = match &options.catalog {
        None => quality_entries(),
        Some(path) => load_catalog(path).map_err(|e| usage(format!("--catalog: {e}")))?,
    };
    let catalog = build_catalog(entries, options.ranker).map_err(|e| usage(e.to_string()))?;
    if options.tune {
        let points = tune_fusion(&catalog, &set).map_err(|e| usage(e.to_string()))?;
        emit(out, &tune_text(&points, options.format))?;
        return Ok(Exit::OK);
    }
    let report = measure(&catalog, &set).map_err(|e| usage(e.to_string()))?;
    let text = match options.format {
        Format::Table => report.to_table(baseline.as_ref()),
        Format::Json => report.to_json() + "\n",
    };
    emit(out, &text)?;
    let regressions = match &baseline {
        Some(b) => report.regressions(b),
        None => exact_name_regression(&report),
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

/// Without a baseline only exact-name recall can regress.
fn exact_name_regression(report: &QualityReport) -> Vec<String> {
    let none = super::Figures::from_ranks(&[]);
    let baseline = Baseline {
        tuning: none,
        test: none,
    };
    report.regressions(&baseline)
}

fn tune_text(points: &[TunePoint], format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(points).unwrap_or_default() + "\n",
        Format::Table => {
            let mut text = String::from(
                "fusion grid on the tuning half, best first (lexical weight, operation boost: recall@1, recall@5, MRR)\n",
            );
            for p in points {
                text.push_str(&format!(
                    "lexical {:.1}  operation {:.1}: recall@1 {:.4} ({}/{})  recall@5 {:.4} ({}/{})  MRR {:.4}\n",
                    p.lexical_weight,
                    p.operation_boost,
                    p.tuning.recall_at_1,
                    p.tuning.hits_at_1,
                    p.tuning.queries,
                    p.tuning.recall_at_5,
                    p.tuning.hits_at_5,
                    p.tuning.queries,
                    p.tuning.mrr
                ));
            }
            text
        }
    }
}
