//! Search quality, measured (issue 4, item 5): how often the engine puts the right tool first
//! or near the top for what a user actually says.
//!
//! A labelled set of natural-language queries (`data/search-quality.toml`) is run against the
//! realistic catalogue plus the core tools. The report gives recall@1, recall@5, MRR and
//! exact-name recall (every tool searched by its own name must come first), and compares with
//! the committed baseline (`data/search-quality-baseline.json`) so a ranking change that makes
//! search worse fails the build.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::catalog::fake::core_tools;
use crate::catalog::realistic::realistic_catalog;
use crate::catalog::{CatalogMode, ToolEntry};
use crate::engine::{SearchLimits, ToolCatalog};

/// The labelled queries shipped with the project.
pub const BUILTIN_SET: &str = include_str!("../../data/search-quality.toml");
/// The committed baseline: the JSON report of the last accepted measurement.
pub const BUILTIN_BASELINE: &str = include_str!("../../data/search-quality-baseline.json");
/// A right tool ranked below this depth counts as not found (0 towards MRR).
pub const RANK_DEPTH: usize = 20;
/// Recall@k is measured at these cut-offs.
const TOP_1: usize = 1;
const TOP_5: usize = 5;

#[derive(Debug, Error, PartialEq)]
pub enum QualityError {
    /// The labelled set does not parse or names a tool the catalogue lacks.
    #[error("search-quality set: {0}")]
    Set(String),
    /// The baseline file does not parse.
    #[error("search-quality baseline: {0}")]
    Baseline(String),
}

/// One query and the name of the one right tool.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledQuery {
    pub text: String,
    pub tool: String,
}

/// The labelled queries, in file order.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QualitySet {
    #[serde(rename = "query")]
    pub queries: Vec<LabelledQuery>,
}

impl QualitySet {
    /// Parses a set written as TOML `[[query]]` tables with `text` and `tool`.
    pub fn parse(text: &str) -> Result<Self, QualityError> {
        let set: QualitySet = toml::from_str(text).map_err(|e| QualityError::Set(e.to_string()))?;
        if set.queries.is_empty() {
            return Err(QualityError::Set("no [[query]] tables".into()));
        }
        Ok(set)
    }

    /// The set shipped in `data/search-quality.toml`.
    pub fn builtin() -> Result<Self, QualityError> {
        Self::parse(BUILTIN_SET)
    }

    /// Every label must name exactly one tool of `catalog`.
    fn check_labels(&self, catalog: &ToolCatalog) -> Result<(), QualityError> {
        for (i, q) in self.queries.iter().enumerate() {
            if let Err(e) = catalog.lookup(&q.tool) {
                return Err(QualityError::Set(format!(
                    "query {} ({:?}) names tool {:?}: {e}",
                    i + 1,
                    q.text,
                    q.tool
                )));
            }
        }
        Ok(())
    }
}

/// The catalogue the set is labelled against: the realistic catalogue plus the catalogued
/// core tools, with the default search limits.
pub fn quality_entries() -> Vec<ToolEntry> {
    let mut entries = realistic_catalog();
    entries.extend(
        core_tools()
            .into_iter()
            .filter(|t| t.catalog_mode == CatalogMode::Default),
    );
    entries
}

/// A query whose right tool did not come first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Miss {
    pub query: String,
    pub tool: String,
    /// 1-based rank within the top [`RANK_DEPTH`], or `None` when not found there.
    pub rank: Option<usize>,
    /// The name of the tool that came first instead (none when nothing matched).
    pub first: Option<String>,
}

/// The measured figures. Rates are rounded to 4 decimals; the counts are exact.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QualityReport {
    pub catalog_size: usize,
    pub queries: usize,
    pub hits_at_1: usize,
    pub hits_at_5: usize,
    pub recall_at_1: f64,
    pub recall_at_5: f64,
    /// Mean reciprocal rank over the top [`RANK_DEPTH`].
    pub mrr: f64,
    pub exact_name_hits: usize,
    pub exact_name_recall: f64,
    /// Tools that did not come first when searched by their own name (ids, sorted).
    pub exact_name_misses: Vec<String>,
    /// Queries whose right tool was not first, in set order.
    pub misses: Vec<Miss>,
}

/// The fields of a committed report that a new measurement is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    pub queries: usize,
    pub hits_at_1: usize,
    pub hits_at_5: usize,
    pub mrr: f64,
}

impl Baseline {
    /// Reads the fields it needs from a report written by [`QualityReport::to_json`].
    pub fn parse(text: &str) -> Result<Self, QualityError> {
        let baseline: Baseline =
            serde_json::from_str(text).map_err(|e| QualityError::Baseline(e.to_string()))?;
        if baseline.queries == 0 {
            return Err(QualityError::Baseline("queries must be at least 1".into()));
        }
        Ok(baseline)
    }

    /// The baseline committed in `data/search-quality-baseline.json`.
    pub fn builtin() -> Result<Self, QualityError> {
        Self::parse(BUILTIN_BASELINE)
    }
}

/// Runs `set` against a catalogue of `entries` and measures it.
pub fn measure(entries: Vec<ToolEntry>, set: &QualitySet) -> Result<QualityReport, QualityError> {
    let limits = SearchLimits {
        default_limit: RANK_DEPTH,
        max_limit: RANK_DEPTH,
    };
    let catalog = ToolCatalog::new(entries, limits);
    set.check_labels(&catalog)?;
    let mut hits_at_1 = 0;
    let mut hits_at_5 = 0;
    let mut reciprocal = 0.0;
    let mut misses = Vec::new();
    for q in &set.queries {
        let results = catalog.search(&q.text, RANK_DEPTH);
        let rank = results.iter().position(|r| r.name == q.tool).map(|p| p + 1);
        hits_at_1 += usize::from(rank.is_some_and(|r| r <= TOP_1));
        hits_at_5 += usize::from(rank.is_some_and(|r| r <= TOP_5));
        reciprocal += rank.map_or(0.0, |r| 1.0 / r as f64);
        if rank != Some(1) {
            misses.push(Miss {
                query: q.text.clone(),
                tool: q.tool.clone(),
                rank,
                first: results.first().map(|r| r.name.clone()),
            });
        }
    }
    let exact_name_misses = exact_name_misses(&catalog);
    let n = set.queries.len();
    Ok(QualityReport {
        catalog_size: catalog.len(),
        queries: n,
        hits_at_1,
        hits_at_5,
        recall_at_1: rate(hits_at_1, n),
        recall_at_5: rate(hits_at_5, n),
        mrr: round4(reciprocal / n as f64),
        exact_name_hits: catalog.len() - exact_name_misses.len(),
        exact_name_recall: rate(catalog.len() - exact_name_misses.len(), catalog.len()),
        exact_name_misses,
        misses,
    })
}

/// The built-in set against the built-in catalogue.
pub fn measure_builtin() -> Result<QualityReport, QualityError> {
    measure(quality_entries(), &QualitySet::builtin()?)
}

/// Ids of entries that do not come first when searched by their exact name.
fn exact_name_misses(catalog: &ToolCatalog) -> Vec<String> {
    let mut misses: Vec<String> = catalog
        .entries()
        .iter()
        .filter(|e| {
            let top = catalog.search(&e.name, 1);
            top.first().map(|t| t.id.as_str()) != Some(e.id.as_str())
        })
        .map(|e| e.id.clone())
        .collect();
    misses.sort();
    misses
}

fn rate(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        round4(part as f64 / whole as f64)
    }
}

fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

impl QualityReport {
    /// What got worse compared with `baseline` (empty when nothing did): exact-name recall
    /// below 100%, or recall@5 below the baseline's rate.
    pub fn regressions(&self, baseline: &Baseline) -> Vec<String> {
        let mut out = Vec::new();
        if self.exact_name_hits < self.catalog_size {
            out.push(format!(
                "exact-name recall is {}/{}; every tool must come first for its own name (misses: {})",
                self.exact_name_hits,
                self.catalog_size,
                self.exact_name_misses.join(", ")
            ));
        }
        // hits/queries < base_hits/base_queries, in integers.
        if self.hits_at_5 * baseline.queries < baseline.hits_at_5 * self.queries {
            out.push(format!(
                "recall@5 fell to {}/{} from the baseline's {}/{}",
                self.hits_at_5, self.queries, baseline.hits_at_5, baseline.queries
            ));
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The figures, the baseline next to them, then the misses.
    pub fn to_table(&self, baseline: Option<&Baseline>) -> String {
        let mut figures = Table::new();
        figures
            .load_style(UTF8_FULL_CONDENSED)
            .set_header(vec!["metric", "value", "baseline"]);
        let base = |f: fn(&Baseline) -> String| baseline.map(f).unwrap_or_else(|| "-".into());
        let rows: [[String; 3]; 6] = [
            [
                "catalogue size".into(),
                self.catalog_size.to_string(),
                "-".into(),
            ],
            [
                "queries".into(),
                self.queries.to_string(),
                base(|b| b.queries.to_string()),
            ],
            [
                "recall@1".into(),
                format!(
                    "{:.4} ({}/{})",
                    self.recall_at_1, self.hits_at_1, self.queries
                ),
                base(|b| format!("{}/{}", b.hits_at_1, b.queries)),
            ],
            [
                "recall@5".into(),
                format!(
                    "{:.4} ({}/{})",
                    self.recall_at_5, self.hits_at_5, self.queries
                ),
                base(|b| format!("{}/{}", b.hits_at_5, b.queries)),
            ],
            [
                format!("MRR@{RANK_DEPTH}"),
                format!("{:.4}", self.mrr),
                base(|b| format!("{:.4}", b.mrr)),
            ],
            [
                "exact-name recall".into(),
                format!(
                    "{:.4} ({}/{})",
                    self.exact_name_recall, self.exact_name_hits, self.catalog_size
                ),
                "1.0000".into(),
            ],
        ];
        for row in rows {
            figures.add_row(row.to_vec());
        }
        let mut misses = Table::new();
        misses.load_style(UTF8_FULL_CONDENSED).set_header(vec![
            "query",
            "right tool",
            "rank",
            "first instead",
        ]);
        for m in &self.misses {
            misses.add_row(vec![
                m.query.clone(),
                m.tool.clone(),
                m.rank
                    .map_or_else(|| format!(">{RANK_DEPTH}"), |r| r.to_string()),
                m.first.clone().unwrap_or_else(|| "(nothing)".into()),
            ]);
        }
        format!(
            "search quality\n{figures}\n{} queries not ranked first\n{misses}\n",
            self.misses.len()
        )
    }
}

/// The `quality` command: measure, print, and exit 1 on a regression against the baseline (the
/// committed one, or `baseline`).
pub fn command(
    format: crate::output::Format,
    baseline: Option<&std::path::Path>,
    out: &mut dyn std::io::Write,
) -> Result<u8, crate::error::Error> {
    use crate::error::{Error, Exit};
    let baseline = match baseline {
        None => Baseline::builtin().map_err(|e| Error::Usage(e.to_string()))?,
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Baseline::parse(&text).map_err(|e| e.to_string()))
            .map_err(|e| Error::Usage(format!("--baseline {}: {e}", path.display())))?,
    };
    let report = measure_builtin().map_err(|e| Error::Usage(e.to_string()))?;
    let text = match format {
        crate::output::Format::Table => report.to_table(Some(&baseline)),
        crate::output::Format::Json => report.to_json() + "\n",
    };
    crate::output::emit(out, &text)?;
    let regressions = report.regressions(&baseline);
    for r in &regressions {
        crate::output::warn(&format!("regression: {r}"));
    }
    Ok(if regressions.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Executor, ToolSource};

    fn tool(name: &str, description: &str) -> ToolEntry {
        ToolEntry::new(
            ToolSource::Openclaw,
            "p",
            name,
            description,
            serde_json::json!({}),
            Executor::CoreEcho,
        )
    }

    fn set(pairs: &[(&str, &str)]) -> QualitySet {
        QualitySet {
            queries: pairs
                .iter()
                .map(|(text, tool)| LabelledQuery {
                    text: text.to_string(),
                    tool: tool.to_string(),
                })
                .collect(),
        }
    }

    #[test]
    fn metrics_on_a_small_catalogue() {
        let entries = vec![
            tool("paint_wall", "Paint a wall a colour."),
            tool("paint_fence", "Paint the fence with a brush."),
            tool("water_plants", "Water the garden plants."),
        ];
        let queries = set(&[
            ("water the plants", "water_plants"),
            ("paint with a brush", "paint_fence"),
            ("paint a colour", "paint_fence"),
            ("bake bread", "water_plants"),
        ]);
        let report = measure(entries, &queries);
        let Ok(report) = report else {
            panic!("{report:?}");
        };
        assert_eq!((report.hits_at_1, report.hits_at_5), (2, 3));
        assert_eq!(report.recall_at_1, 0.5);
        assert_eq!(report.recall_at_5, 0.75);
        // ranks 1, 1, 2, none → (1 + 1 + 0.5 + 0) / 4.
        assert_eq!(report.mrr, 0.625);
        assert_eq!(report.exact_name_recall, 1.0);
        assert_eq!(
            report.misses,
            vec![
                Miss {
                    query: "paint a colour".into(),
                    tool: "paint_fence".into(),
                    rank: Some(2),
                    first: Some("paint_wall".into()),
                },
                Miss {
                    query: "bake bread".into(),
                    tool: "water_plants".into(),
                    rank: None,
                    first: None,
                }
            ]
        );
    }

    #[test]
    fn unknown_label_is_an_error_naming_the_query() {
        let err = measure(vec![tool("a_tool", "")], &set(&[("x", "missing_tool")]));
        let Err(QualityError::Set(message)) = err else {
            panic!("{err:?}");
        };
        assert!(
            message.starts_with("query 1 (\"x\") names tool \"missing_tool\""),
            "{message}"
        );
    }

    #[test]
    fn set_and_baseline_parse_errors() {
        assert!(matches!(QualitySet::parse(""), Err(QualityError::Set(_))));
        assert!(matches!(
            QualitySet::parse("[[query]]\ntext = \"a\"\ntool = \"b\"\nextra = 1\n"),
            Err(QualityError::Set(_))
        ));
        assert!(matches!(
            Baseline::parse("{}"),
            Err(QualityError::Baseline(_))
        ));
        assert_eq!(
            Baseline::parse(
                r#"{"queries": 4, "hitsAt1": 2, "hitsAt5": 3, "mrr": 0.6, "other": []}"#
            ),
            Ok(Baseline {
                queries: 4,
                hits_at_1: 2,
                hits_at_5: 3,
                mrr: 0.6
            })
        );
    }

    #[test]
    fn regressions_compare_rates_in_integers() {
        let entries = vec![tool("alpha_tool", "alpha"), tool("beta_tool", "beta")];
        let report = measure(
            entries,
            &set(&[("alpha", "alpha_tool"), ("gamma", "beta_tool")]),
        );
        let Ok(report) = report else {
            panic!("{report:?}");
        };
        let base = |queries, hits_at_5| Baseline {
            queries,
            hits_at_1: 0,
            hits_at_5,
            mrr: 0.0,
        };
        assert_eq!(report.regressions(&base(2, 1)), Vec::<String>::new());
        assert_eq!(report.regressions(&base(4, 2)), Vec::<String>::new());
        assert_eq!(
            report.regressions(&base(3, 2)),
            vec!["recall@5 fell to 1/2 from the baseline's 2/3".to_string()]
        );
    }

    #[test]
    fn a_tool_not_first_for_its_own_name_is_a_regression() {
        // Two plugins ship a tool of the same name: searching the name puts the smaller id
        // first, so the other one misses.
        let twin = |plugin: &str| {
            ToolEntry::new(
                ToolSource::Openclaw,
                plugin,
                "export_all",
                "Export everything.",
                serde_json::json!({}),
                Executor::CoreEcho,
            )
        };
        let entries = vec![twin("p"), twin("q"), tool("other_tool", "export")];
        let report = measure(entries, &set(&[("export", "other_tool")]));
        let Ok(report) = report else {
            panic!("{report:?}");
        };
        assert_eq!(report.exact_name_misses, vec!["openclaw:q:export_all"]);
        assert_eq!((report.exact_name_hits, report.catalog_size), (2, 3));
        assert_eq!(report.exact_name_recall, 0.6667);
        let baseline = Baseline {
            queries: 1,
            hits_at_1: 0,
            hits_at_5: 0,
            mrr: 0.0,
        };
        assert_eq!(
            report.regressions(&baseline),
            vec![
                "exact-name recall is 2/3; every tool must come first for its own name \
                 (misses: openclaw:q:export_all)"
                    .to_string()
            ]
        );
    }

    /// The committed baseline is a real run of this build, not a placeholder: regenerate it
    /// with `toolsearch-qa quality --format json > data/search-quality-baseline.json` when
    /// ranking, catalogue or queries change on purpose.
    #[test]
    fn committed_baseline_is_the_current_measurement() {
        let report = measure_builtin();
        let Ok(report) = report else {
            panic!("{report:?}");
        };
        let baseline = Baseline::builtin();
        let Ok(baseline) = baseline else {
            panic!("{baseline:?}");
        };
        assert_eq!(
            Baseline {
                queries: report.queries,
                hits_at_1: report.hits_at_1,
                hits_at_5: report.hits_at_5,
                mrr: report.mrr,
            },
            baseline
        );
    }

    #[test]
    fn builtin_set_is_large_and_every_label_is_a_catalogued_tool() {
        let set = QualitySet::builtin();
        let Ok(set) = set else {
            panic!("{set:?}");
        };
        assert!(set.queries.len() >= 100, "{}", set.queries.len());
        let catalog = ToolCatalog::new(quality_entries(), SearchLimits::default());
        assert!(catalog.len() >= 1000, "{}", catalog.len());
        assert_eq!(set.check_labels(&catalog), Ok(()));
    }

    /// The gate of issue 4 item 5: every tool first for its own name, recall@5 not below the
    /// committed baseline.
    #[test]
    fn builtin_quality_does_not_regress() {
        let report = measure_builtin();
        let Ok(report) = report else {
            panic!("{report:?}");
        };
        let baseline = Baseline::builtin();
        let Ok(baseline) = baseline else {
            panic!("{baseline:?}");
        };
        assert_eq!(report.exact_name_misses, Vec::<String>::new());
        assert_eq!(report.exact_name_recall, 1.0);
        assert_eq!(report.regressions(&baseline), Vec::<String>::new());
    }
}
