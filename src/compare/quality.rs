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
use crate::quality::{measure_builtin, quality_entries, Figures, QualitySet, RANK_DEPTH};

/// One mode's search on the labelled set.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchQuality {
    pub mode: CompareMode,
    /// Whose search ranks, in a sentence.
    pub searched_by: &'static str,
    /// Over every query of the set; `None` for direct (no search: every schema is declared).
    pub figures: Option<Figures>,
}

const GATEWAY: &str = "the gateway engine's lexical ranker";
const MOCK: &str = "the mock provider's search (the engine's lexical ranker over the deferred \
                    tools), not the provider's own";

/// The search quality of each of `modes`, in their order.
pub fn search_quality(modes: &[CompareMode]) -> Result<Vec<SearchQuality>, Error> {
    let machine = |e: crate::quality::QualityError| Error::Machine(e.to_string());
    let mut gateway = None;
    let mut native = None;
    let mut rows = Vec::new();
    for &mode in modes {
        let (searched_by, figures) = match mode {
            m if m.is_direct() => ("no search: every schema is declared", None),
            CompareMode::Gateway(_) => {
                if gateway.is_none() {
                    gateway = Some(
                        measure_builtin(crate::engine::Ranker::Lexical)
                            .map_err(machine)?
                            .all,
                    );
                }
                (GATEWAY, gateway)
            }
            CompareMode::Native(_) => {
                if native.is_none() {
                    native = Some(mock_search_figures().map_err(machine)?);
                }
                (MOCK, native)
            }
        };
        rows.push(SearchQuality {
            mode,
            searched_by,
            figures,
        });
    }
    Ok(rows)
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
