//! Search quality, measured: how often search puts the right tool first or near the top for
//! what a user actually says.
//!
//! A labelled set of natural-language queries (`data/search-quality.toml`, or a user's own with
//! `--set`) runs against the realistic catalogue plus the core tools (or a user's catalogue with
//! `--catalog`). The set is split by a fixed rule into a tuning half (queries 1, 3, 5, … in file
//! order: ranking changes may be tuned on it) and a test half (queries 2, 4, 6, …: measured,
//! never tuned on), and both are reported: recall@1, recall@5, MRR and exact-name recall (every
//! tool searched by its own name must come first). The committed baseline per ranker gates
//! regressions on both halves. [`openclaw`] measures a real OpenClaw gateway's own search on the
//! same set, into the same report ([`assemble`]).

pub mod bfcl;
mod command;
pub mod openclaw;
mod render;

/// The catalogue-file reader, which lives with the catalogue (the MCP fixture serves it too).
pub use crate::catalog::file as catalog_file;
pub use command::{command, committed_release_baseline, QualityOptions};

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::catalog::fake::core_tools;
use crate::catalog::realistic::realistic_catalog;
use crate::catalog::{CatalogMode, ToolEntry};
use crate::engine::catalog::QueryRankings;
use crate::engine::embed::{EmbedError, Embedder};
use crate::engine::hybrid::Fusion;
use crate::engine::{Ranker, SearchLimits, ToolCatalog};

/// The labelled queries shipped with the project.
pub const BUILTIN_SET: &str = include_str!("../../data/search-quality.toml");
/// The committed baseline of the lexical ranker: its JSON report on the built-in set.
pub const BUILTIN_BASELINE: &str = include_str!("../../data/search-quality-baseline.json");
/// The committed baseline of the hybrid ranker.
pub const BUILTIN_HYBRID_BASELINE: &str =
    include_str!("../../data/search-quality-baseline-hybrid.json");
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
    /// The hybrid ranker's model is missing or failed.
    #[error(transparent)]
    Model(#[from] EmbedError),
}

/// One query and the name of the one right tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelledQuery {
    pub text: String,
    pub tool: String,
}

/// Which half of the set a query is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Half {
    /// Queries 1, 3, 5, … (file order): ranking may be tuned on these.
    Tuning,
    /// Queries 2, 4, 6, …: measured only.
    Test,
}

impl Half {
    /// The fixed rule: the query at 0-based position `i` in file order.
    pub fn of(i: usize) -> Half {
        if i.is_multiple_of(2) {
            Half::Tuning
        } else {
            Half::Test
        }
    }
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

    /// The queries of one half, in file order.
    pub fn half(&self, half: Half) -> impl Iterator<Item = &LabelledQuery> {
        self.queries
            .iter()
            .enumerate()
            .filter(move |(i, _)| Half::of(*i) == half)
            .map(|(_, q)| q)
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

/// The catalogue the built-in set is labelled against: the realistic catalogue plus the
/// catalogued core tools.
pub fn quality_entries() -> Vec<ToolEntry> {
    let mut entries = realistic_catalog();
    entries.extend(
        core_tools()
            .into_iter()
            .filter(|t| t.catalog_mode == CatalogMode::Default),
    );
    entries
}

/// The search limits a measurement uses: deep enough for MRR@[`RANK_DEPTH`].
pub fn quality_limits() -> SearchLimits {
    SearchLimits {
        default_limit: RANK_DEPTH,
        max_limit: RANK_DEPTH,
        ..SearchLimits::default()
    }
}

/// A catalogue of `entries` ranked by `ranker` (the hybrid ranker loads the installed model).
pub fn build_catalog(entries: Vec<ToolEntry>, ranker: Ranker) -> Result<ToolCatalog, QualityError> {
    Ok(match ranker {
        Ranker::Lexical => ToolCatalog::new(entries, quality_limits()),
        Ranker::Hybrid => {
            let embedder = Arc::new(Embedder::load_installed()?);
            ToolCatalog::hybrid(entries, quality_limits(), embedder)?
        }
    })
}

/// A query whose right tool did not come first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Miss {
    pub query: String,
    pub tool: String,
    pub half: Half,
    /// 1-based rank within the top [`RANK_DEPTH`], or `None` when not found there.
    pub rank: Option<usize>,
    /// The name of the tool that came first instead (none when nothing matched).
    pub first: Option<String>,
}

/// Figures over some queries. Rates are rounded to 4 decimals; the counts are exact.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Figures {
    pub queries: usize,
    pub hits_at_1: usize,
    pub hits_at_5: usize,
    #[serde(default)]
    pub recall_at_1: f64,
    #[serde(default)]
    pub recall_at_5: f64,
    /// Mean reciprocal rank over the top [`RANK_DEPTH`].
    pub mrr: f64,
}

impl Figures {
    /// Figures from the 1-based rank (within [`RANK_DEPTH`]) of each query's right tool.
    pub fn from_ranks(ranks: &[Option<usize>]) -> Self {
        let hits = |k: usize| ranks.iter().filter(|r| r.is_some_and(|r| r <= k)).count();
        let reciprocal: f64 = ranks
            .iter()
            .map(|r| r.map_or(0.0, |r| 1.0 / r as f64))
            .sum();
        let n = ranks.len();
        let (hits_at_1, hits_at_5) = (hits(TOP_1), hits(TOP_5));
        Figures {
            queries: n,
            hits_at_1,
            hits_at_5,
            recall_at_1: rate(hits_at_1, n),
            recall_at_5: rate(hits_at_5, n),
            mrr: if n == 0 {
                0.0
            } else {
                round4(reciprocal / n as f64)
            },
        }
    }
}

/// The measured figures of one ranker on one set.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QualityReport {
    pub ranker: RankedBy,
    /// The product measured, for `ranker = "openclaw"`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<crate::targets::Product>,
    /// Tools searched by their own name: the whole catalogue on the embedded engine; on the
    /// product the catalogue loaded as its plugin (the product adds its own core tools).
    pub catalog_size: usize,
    /// The product's whole Tool Search catalogue (its telemetry's `catalogSize`: the loaded
    /// catalogue and the product's own tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_catalog_size: Option<usize>,
    pub queries: usize,
    /// The tuning half (queries 1, 3, 5, …).
    pub tuning: Figures,
    /// The test half (queries 2, 4, 6, …).
    pub test: Figures,
    /// Every query.
    pub all: Figures,
    pub exact_name_hits: usize,
    pub exact_name_recall: f64,
    /// Tools that did not come first when searched by their own name (ids, sorted).
    pub exact_name_misses: Vec<String>,
    /// Queries whose right tool was not first, in set order.
    pub misses: Vec<Miss>,
    /// Queries left out because their right tool is not in the searched catalogue (the
    /// product has core tools of its own instead of some of the embedded engine's).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmeasured: Vec<LabelledQuery>,
}

/// Whose search ranked the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RankedBy {
    /// The embedded engine's lexical ranker.
    Lexical,
    /// The embedded engine's hybrid ranker.
    Hybrid,
    /// A real OpenClaw gateway's own `tool_search` (through `tool_search_code`).
    Openclaw,
}

impl RankedBy {
    pub fn as_str(self) -> &'static str {
        match self {
            RankedBy::Lexical => "lexical",
            RankedBy::Hybrid => "hybrid",
            RankedBy::Openclaw => "openclaw",
        }
    }
}

impl From<Ranker> for RankedBy {
    fn from(ranker: Ranker) -> Self {
        match ranker {
            Ranker::Lexical => RankedBy::Lexical,
            Ranker::Hybrid => RankedBy::Hybrid,
        }
    }
}

/// The fields of a committed report that a new measurement is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Baseline {
    pub tuning: Figures,
    pub test: Figures,
    /// Over every query (both halves); older files may lack it.
    #[serde(default)]
    pub all: Option<Figures>,
}

impl Baseline {
    /// Reads the fields it needs from a report written by [`QualityReport::to_json`].
    pub fn parse(text: &str) -> Result<Self, QualityError> {
        let baseline: Baseline =
            serde_json::from_str(text).map_err(|e| QualityError::Baseline(e.to_string()))?;
        if baseline.tuning.queries == 0 || baseline.test.queries == 0 {
            return Err(QualityError::Baseline(
                "each half must have at least 1 query".into(),
            ));
        }
        Ok(baseline)
    }

    /// The baseline committed for `ranker` (data/search-quality-baseline*.json). The product's
    /// is per release and read from the data root (`quality --target openclaw`), never here.
    pub fn builtin(ranker: RankedBy) -> Result<Self, QualityError> {
        match ranker {
            RankedBy::Lexical => Self::parse(BUILTIN_BASELINE),
            RankedBy::Hybrid => Self::parse(BUILTIN_HYBRID_BASELINE),
            RankedBy::Openclaw => Err(QualityError::Baseline(
                "the product's baseline is its release's (data/search-quality-baseline-openclaw-<v>.json in the data root)".into(),
            )),
        }
    }
}

/// Each query's 1-based rank of its right tool within [`RANK_DEPTH`], and the first result.
fn rank_queries(catalog: &ToolCatalog, queries: &[LabelledQuery]) -> Vec<Ranked> {
    let texts: Vec<&str> = queries.iter().map(|q| q.text.as_str()).collect();
    catalog.prepare_queries(&texts);
    queries
        .iter()
        .map(|q| {
            let ranked = catalog.ranked(&q.text, RANK_DEPTH);
            let entries = catalog.entries();
            let rank = ranked
                .iter()
                .position(|&i| entries[i].name == q.tool)
                .map(|p| p + 1);
            (rank, ranked.first().map(|&i| entries[i].name.clone()))
        })
        .collect()
}

/// Runs `set` against `catalog` and measures it.
pub fn measure(catalog: &ToolCatalog, set: &QualitySet) -> Result<QualityReport, QualityError> {
    set.check_labels(catalog)?;
    let ranked: Vec<Option<Ranked>> = rank_queries(catalog, &set.queries)
        .into_iter()
        .map(Some)
        .collect();
    let exact_name_misses = exact_name_misses(catalog);
    Ok(assemble(
        catalog.ranker().into(),
        catalog.len(),
        &set.queries,
        &ranked,
        exact_name_misses,
    ))
}

/// What a search gave for one query: the right tool's 1-based rank within [`RANK_DEPTH`] (none
/// when absent) and the first result's name.
pub type Ranked = (Option<usize>, Option<String>);

/// The report of `queries` ranked as `ranked` (`None`: the query could not be measured and is
/// listed as unmeasured), with `catalog_size` tools searched by their own name of which
/// `exact_name_misses` did not come first. A query's half is its position in `queries`.
pub fn assemble(
    ranker: RankedBy,
    catalog_size: usize,
    queries: &[LabelledQuery],
    ranked: &[Option<Ranked>],
    exact_name_misses: Vec<String>,
) -> QualityReport {
    let measured = || {
        queries
            .iter()
            .zip(ranked)
            .enumerate()
            .filter_map(|(i, (q, r))| r.as_ref().map(|r| (Half::of(i), q, r)))
    };
    let ranks_of = |half: Option<Half>| -> Vec<Option<usize>> {
        measured()
            .filter(|(h, _, _)| half.is_none_or(|want| *h == want))
            .map(|(_, _, (rank, _))| *rank)
            .collect()
    };
    let misses = measured()
        .filter(|(_, _, (rank, _))| *rank != Some(1))
        .map(|(half, q, (rank, first))| Miss {
            query: q.text.clone(),
            tool: q.tool.clone(),
            half,
            rank: *rank,
            first: first.clone(),
        })
        .collect();
    let unmeasured = queries
        .iter()
        .zip(ranked)
        .filter(|(_, r)| r.is_none())
        .map(|(q, _)| q.clone())
        .collect();
    let hits = catalog_size.saturating_sub(exact_name_misses.len());
    QualityReport {
        ranker,
        product: None,
        catalog_size,
        product_catalog_size: None,
        queries: measured().count(),
        tuning: Figures::from_ranks(&ranks_of(Some(Half::Tuning))),
        test: Figures::from_ranks(&ranks_of(Some(Half::Test))),
        all: Figures::from_ranks(&ranks_of(None)),
        exact_name_hits: hits,
        exact_name_recall: rate(hits, catalog_size),
        exact_name_misses,
        misses,
        unmeasured,
    }
}

/// The built-in set against the built-in catalogue, ranked by `ranker`.
pub fn measure_builtin(ranker: Ranker) -> Result<QualityReport, QualityError> {
    let catalog = build_catalog(quality_entries(), ranker)?;
    measure(&catalog, &QualitySet::builtin()?)
}

/// One point of the fusion grid, measured on the tuning half only.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TunePoint {
    pub lexical_weight: f64,
    pub operation_boost: f64,
    pub tuning: Figures,
}

/// Lexical weights and operation boosts tried by [`tune_fusion`].
pub const TUNE_WEIGHTS: [f64; 11] = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
pub const TUNE_OPERATION_BOOSTS: [f64; 6] = [0.0, 0.1, 0.2, 0.3, 0.5, 1.0];

/// The fusion grid measured on the tuning half, and its ceiling.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FusionTuning {
    /// Every point of the grid, best first.
    pub points: Vec<TunePoint>,
    /// Each tuning query at its best rank over the whole grid: what a fusion weight chosen per
    /// query could reach at most. No single point reaches it; when it is below a target,
    /// tuning the fusion cannot meet that target and a ranker must improve.
    pub ceiling: Figures,
}

/// Measures every fusion of the grid on the **tuning half** of `set` (the test half is never
/// looked at); points best first by recall@5, then recall@1, then MRR, then the grid order.
pub fn tune_fusion(catalog: &ToolCatalog, set: &QualitySet) -> Result<FusionTuning, QualityError> {
    set.check_labels(catalog)?;
    if catalog.ranker() != Ranker::Hybrid {
        return Err(QualityError::Set(
            "tuning the fusion needs the hybrid ranker".into(),
        ));
    }
    // Each tuning query is ranked lexically and embedded once; every grid point only fuses.
    let entries = catalog.entries();
    let texts: Vec<&str> = set.half(Half::Tuning).map(|q| q.text.as_str()).collect();
    catalog.prepare_queries(&texts);
    let tuning: Vec<(&LabelledQuery, QueryRankings)> = set
        .half(Half::Tuning)
        .filter_map(|q| catalog.query_rankings(&q.text).map(|r| (q, r)))
        .collect();
    let mut points = Vec::new();
    let mut best: Vec<Option<usize>> = vec![None; tuning.len()];
    for operation in TUNE_OPERATION_BOOSTS {
        for lexical in TUNE_WEIGHTS {
            let fusion = Fusion { lexical, operation };
            let ranks: Vec<Option<usize>> = tuning
                .iter()
                .map(|(q, rankings)| {
                    catalog
                        .fused(rankings, fusion, RANK_DEPTH)
                        .iter()
                        .position(|&i| entries[i].name == q.tool)
                        .map(|p| p + 1)
                })
                .collect();
            for (b, r) in best.iter_mut().zip(&ranks) {
                *b = better_rank(*b, *r);
            }
            points.push(TunePoint {
                lexical_weight: lexical,
                operation_boost: operation,
                tuning: Figures::from_ranks(&ranks),
            });
        }
    }
    points.sort_by(|a, b| {
        (b.tuning.hits_at_5, b.tuning.hits_at_1)
            .cmp(&(a.tuning.hits_at_5, a.tuning.hits_at_1))
            .then(b.tuning.mrr.total_cmp(&a.tuning.mrr))
    });
    Ok(FusionTuning {
        points,
        ceiling: Figures::from_ranks(&best),
    })
}

/// The better of two ranks (a rank beats no rank).
fn better_rank(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, None) => x,
        (None, y) => y,
    }
}

/// Ids of entries that do not come first when searched by their exact name.
fn exact_name_misses(catalog: &ToolCatalog) -> Vec<String> {
    let mut misses: Vec<String> = catalog
        .entries()
        .iter()
        .enumerate()
        .filter(|(i, e)| catalog.ranked(&e.name, 1).first() != Some(i))
        .map(|(_, e)| e.id.clone())
        .collect();
    misses.sort();
    misses
}

/// Recall@1 and recall@5 of half `name` below the baseline's, one line each.
fn half_regressions(name: &str, now: &Figures, base: &Figures) -> Vec<String> {
    let at: [(&str, usize, usize); 2] = [
        ("recall@1", now.hits_at_1, base.hits_at_1),
        ("recall@5", now.hits_at_5, base.hits_at_5),
    ];
    at.into_iter()
        // hits/queries < base_hits/base_queries, in integers.
        .filter(|(_, hits, base_hits)| hits * base.queries < base_hits * now.queries)
        .map(|(metric, hits, base_hits)| {
            format!(
                "{name} half: {metric} fell to {hits}/{} from the baseline's {base_hits}/{}",
                now.queries, base.queries
            )
        })
        .collect()
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
    /// below 100%, or recall@1 or recall@5 of either half below the baseline's.
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
        let halves = [
            ("tuning", &self.tuning, &baseline.tuning),
            ("test", &self.test, &baseline.test),
        ];
        for (name, now, base) in halves {
            out.extend(half_regressions(name, now, base));
        }
        out
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// The figures per half next to the baseline's, then the misses.
    pub fn to_table(&self, baseline: Option<&Baseline>) -> String {
        render::table(self, baseline)
    }
}

#[cfg(test)]
mod tests;
