//! How well each compared mode finds a tool, on the labelled set `quality` measures: the search
//! behind a mode is what decides whether the turn reaches the right tool at all, and a cheaper
//! payload that misses is no saving.
//!
//! The gateway's modes search with the engine's lexical ranker (their `tool_search`, or
//! `openclaw.tools.search` in code). A native mode's search is **the mock provider's**: the same
//! lexical ranker over the deferred tools' names, descriptions and argument text, the top
//! [`crate::provider::native::search::SEARCH_LIMIT`] loaded — a stand-in, not OpenAI's or Anthropic's own search, which nobody
//! outside those providers can run here.

use serde::Serialize;

use super::CompareMode;
use crate::error::Error;
use crate::provider::native::search::{Bm25Index, Candidate};
use crate::quality::committed_release_baseline;
use crate::quality::{measure_builtin, quality_entries, Baseline, Figures, QualitySet, RANK_DEPTH};
use crate::targets::{Product, TargetKind};

/// One mode's search on the labelled set, on one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchQuality {
    pub mode: CompareMode,
    /// Whose figures: the embedded prediction's or the real product's.
    pub target: TargetKind,
    /// Whose search ranks, in a sentence.
    pub searched_by: String,
    /// Over every query of the set; `None` for direct (no search: every schema is declared) and
    /// where the target does not run the mode.
    pub figures: Option<Figures>,
}

const GATEWAY: &str = "embedded prediction: the gateway engine's lexical ranker";
const MOCK: &str = "embedded prediction: the mock provider's search (the engine's lexical ranker \
                    over the deferred tools), not the provider's own";

/// The search quality of each of `modes`, in their order, on each of `targets`: the embedded
/// gateway's (its engine, or the mock's for a native mode), and the product's own `tool_search`
/// as its release's committed baseline measured it (`quality --target openclaw`); a release
/// without one says that the figures shown are the prediction.
pub fn search_quality(
    modes: &[CompareMode],
    targets: &[TargetKind],
    product: Option<&Product>,
) -> Result<Vec<SearchQuality>, Error> {
    let machine = |e: crate::quality::QualityError| Error::Machine(e.to_string());
    let mut gateway = None;
    let mut native = None;
    let mut release = None;
    let mut rows = Vec::new();
    for &target in targets {
        for &mode in modes {
            let (searched_by, figures) = match (target, mode) {
                (_, m) if m.is_direct() => ("no search: every schema is declared".into(), None),
                (TargetKind::Openclaw, CompareMode::Native(_)) => {
                    ("not run: the product has no native lanes".into(), None)
                }
                (_, CompareMode::Native(_)) => {
                    if native.is_none() {
                        native = Some(mock_search_figures().map_err(machine)?);
                    }
                    (MOCK.to_string(), native)
                }
                // Code Mode's catalog.search runs the same ranking as Tool Search's.
                (_, CompareMode::Gateway(_) | CompareMode::CodeMode) => {
                    if gateway.is_none() {
                        let lexical = measure_builtin(crate::engine::Ranker::Lexical);
                        gateway = Some(lexical.map_err(machine)?.all);
                    }
                    match (target, product) {
                        (TargetKind::Openclaw, Some(product)) => {
                            if release.is_none() {
                                release = Some(committed_release_baseline(&product.version)?);
                            }
                            product_row(product, release.flatten(), gateway)
                        }
                        _ => (GATEWAY.to_string(), gateway),
                    }
                }
            };
            rows.push(SearchQuality {
                mode,
                target,
                searched_by,
                figures,
            });
        }
    }
    Ok(rows)
}

/// A product row: its release's committed figures, or, without them, the prediction's said as
/// such.
fn product_row(
    product: &Product,
    baseline: Option<Baseline>,
    prediction: Option<Figures>,
) -> (String, Option<Figures>) {
    let version = &product.version;
    match baseline {
        Some(b) => (
            format!(
                "product: OpenClaw {version}'s own tool_search (its committed baseline, \
                 search-quality-baseline-openclaw-{version}.json)"
            ),
            Some(b.all.unwrap_or_else(|| both_halves(&b.tuning, &b.test))),
        ),
        None => (
            format!(
                "prediction, not the product: OpenClaw {version} has no committed search \
                 baseline; the embedded engine's lexical ranker"
            ),
            prediction,
        ),
    }
}

/// Figures over both halves of a baseline that lacks `all`.
fn both_halves(a: &Figures, b: &Figures) -> Figures {
    let queries = a.queries + b.queries;
    let rate = |hits: usize| ((hits as f64 / queries as f64) * 10_000.0).round() / 10_000.0;
    let mrr = (a.mrr * a.queries as f64 + b.mrr * b.queries as f64) / queries as f64;
    Figures {
        queries,
        hits_at_1: a.hits_at_1 + b.hits_at_1,
        hits_at_5: a.hits_at_5 + b.hits_at_5,
        recall_at_1: rate(a.hits_at_1 + b.hits_at_1),
        recall_at_5: rate(a.hits_at_5 + b.hits_at_5),
        mrr: (mrr * 10_000.0).round() / 10_000.0,
    }
}

/// The labelled set through the mock's own search, over the labelled catalogue declared as a
/// native request declares it (name, description, parameters).
fn mock_search_figures() -> Result<Figures, crate::quality::QualityError> {
    let entries = quality_entries();
    let candidates: Vec<Candidate> = entries
        .iter()
        .map(|e| Candidate::new(&e.name, &e.description, Some(&e.parameters.to_string())))
        .collect();
    let set = QualitySet::builtin()?;
    let index = Bm25Index::new(&candidates, RANK_DEPTH);
    let ranks: Vec<Option<usize>> = set
        .queries
        .iter()
        .map(|q| {
            index
                .ranked(&q.text)
                .iter()
                .position(|&i| candidates[i].name == q.tool)
                .map(|p| p + 1)
        })
        .collect();
    Ok(Figures::from_ranks(&ranks))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolSearchMode;

    fn product(version: &str) -> Product {
        Product {
            version: version.into(),
            node: "24.22.3".into(),
            seeded: None,
            build: None,
        }
    }

    /// Issue #41: the product's rows are its own search (its release's committed baseline,
    /// data/search-quality-baseline-openclaw-2026.9.6.json: 216 and 309 of 420), not the embedded
    /// engine's; a release without a baseline says its figures are the prediction.
    #[test]
    fn product_rows_are_the_product_s_own_search_or_say_they_are_the_prediction() {
        let modes = [
            CompareMode::Gateway(ToolSearchMode::Direct),
            CompareMode::Gateway(ToolSearchMode::Tools),
            CompareMode::Native(crate::config::NativeProvider::Openai),
        ];
        let both = [TargetKind::Embedded, TargetKind::Openclaw];
        let rows = search_quality(&modes, &both, Some(&product("2026.9.6"))).unwrap();
        assert_eq!(rows.len(), 6);
        let embedded = &rows[1];
        assert_eq!(embedded.target, TargetKind::Embedded);
        assert_eq!(embedded.searched_by, GATEWAY);
        let own = &rows[4];
        assert_eq!((own.target, own.mode), (TargetKind::Openclaw, modes[1]));
        assert_eq!(
            own.searched_by,
            "product: OpenClaw 2026.9.6's own tool_search (its committed baseline, \
             search-quality-baseline-openclaw-2026.9.6.json)"
        );
        let f = own.figures.unwrap();
        assert_eq!((f.queries, f.hits_at_1, f.hits_at_5), (420, 216, 309));
        assert_eq!(
            (f.recall_at_1, f.recall_at_5, f.mrr),
            (0.5143, 0.7357, 0.6161)
        );
        assert_ne!(own.figures, embedded.figures);
        assert_eq!(rows[5].figures, None);
        assert_eq!(
            rows[5].searched_by,
            "not run: the product has no native lanes"
        );
        let none = search_quality(
            &modes[..2],
            &[TargetKind::Openclaw],
            Some(&product("2026.1.1")),
        )
        .unwrap();
        assert!(
            none[1]
                .searched_by
                .starts_with("prediction, not the product: OpenClaw 2026.1.1 has no committed"),
            "{}",
            none[1].searched_by
        );
        assert_eq!(none[1].figures, embedded.figures);
    }

    #[test]
    fn both_halves_add_up() {
        let half = |q, h1, h5, mrr| Figures {
            queries: q,
            hits_at_1: h1,
            hits_at_5: h5,
            recall_at_1: 0.0,
            recall_at_5: 0.0,
            mrr,
        };
        let all = both_halves(&half(210, 105, 153, 0.6065), &half(210, 111, 156, 0.6258));
        assert_eq!(
            (all.hits_at_1, all.recall_at_1, all.recall_at_5),
            (216, 0.5143, 0.7357)
        );
        assert_eq!(all.mrr, 0.6162);
    }
}
