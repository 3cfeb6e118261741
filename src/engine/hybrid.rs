//! The hybrid ranker: the lexical (BM25) ranking fused with a sentence-embedding ranking, so a
//! query that shares no word with the right tool ("what's AAPL trading at") still finds it, and
//! a query that names the tool's words keeps its lexical precision.
//!
//! Fusion is on scores, not ranks: each ranking's scores are scaled to 0..1 over its first
//! [`FUSION_DEPTH`] tools (BM25 divided by the best score; cosine from the worst to the best of
//! those) and mixed with a weight learned on the tuning half of the labelled set. On that half
//! score fusion kept the rank fusion's recall@5 and raised recall@1 (a confident ranking keeps
//! its margin, which ranks throw away).
//!
//! Tool embeddings are computed once per catalogue (and once per process for a tool text, see
//! [`Embedder::embed_cached`]); a search embeds only the query. Exact name-or-id matches are
//! placed first by the catalogue before fusion is consulted.

use std::collections::HashMap;
use std::sync::Arc;

use super::embed::{cosine, EmbedError, Embedder};
use super::text::word_parts;
use crate::catalog::ToolEntry;

/// A document and its score in one ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scored {
    pub doc: usize,
    pub score: f64,
}

/// How the two rankings are fused: `score = lexical · L + (1 − lexical) · E` with `L` and `E`
/// the tool's scaled scores (0 when a ranking does not hold it); a tool whose operation is the
/// one the query asks for then scores `× (1 + operation)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fusion {
    /// Weight of the lexical ranking (the embedding ranking gets `1 − lexical`).
    pub lexical: f64,
    /// Boost of a tool that performs the operation the query asks for.
    pub operation: f64,
}

/// The fusion chosen on the tuning half of the labelled set (`toolsearch-qa quality --ranker
/// hybrid --tune` prints the grid it was chosen from; see docs/search-quality.md).
pub const DEFAULT_FUSION: Fusion = Fusion {
    lexical: 0.4,
    operation: 0.5,
};

/// Each ranking contributes its first this many tools to the fusion.
pub const FUSION_DEPTH: usize = 100;

/// The embeddings of one catalogue's tools (same order as the catalogue's entries).
#[derive(Debug, Clone)]
pub struct HybridIndex {
    embedder: Arc<Embedder>,
    vectors: Vec<Arc<[f32]>>,
    fusion: Fusion,
}

/// The text a tool is embedded as: its name in words, then its description
/// (`github_create_issue` → `github create issue: Create an issue …`).
pub fn embedding_text(e: &ToolEntry) -> String {
    let name = word_parts(&e.name).join(" ");
    if e.description.trim().is_empty() {
        name
    } else {
        format!("{name}: {}", e.description.trim())
    }
}

impl HybridIndex {
    /// Embeds every entry (through the embedder's cache).
    pub fn build(
        embedder: Arc<Embedder>,
        entries: &[ToolEntry],
        fusion: Fusion,
    ) -> Result<Self, EmbedError> {
        let texts: Vec<String> = entries.iter().map(embedding_text).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = embedder.embed_cached(&refs)?;
        Ok(HybridIndex {
            embedder,
            vectors,
            fusion,
        })
    }

    /// Embeds `queries` ahead, in batches, into the embedder's cache: a measurement over a
    /// whole query set then runs a few batched forward passes instead of one per query.
    pub fn prepare_queries(&self, queries: &[&str]) -> Result<(), EmbedError> {
        self.embedder.embed_cached(queries).map(drop)
    }

    pub fn fusion(&self) -> Fusion {
        self.fusion
    }

    /// Documents by cosine similarity to `query`, best first, at most `depth`.
    pub fn embedding_ranking(&self, query: &str, depth: usize) -> Result<Vec<Scored>, EmbedError> {
        let q = self.embedder.embed_one(query)?;
        let mut scored: Vec<(f32, usize)> = self
            .vectors
            .iter()
            .enumerate()
            .map(|(i, v)| (cosine(&q, v), i))
            .collect();
        let order = |a: &(f32, usize), b: &(f32, usize)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
        if scored.len() > depth && depth > 0 {
            scored.select_nth_unstable_by(depth - 1, order);
            scored.truncate(depth);
        }
        scored.sort_by(order);
        Ok(scored
            .into_iter()
            .map(|(cos, doc)| Scored {
                doc,
                score: f64::from(cos),
            })
            .collect())
    }
}

/// Weighted score fusion of two rankings (each best first with its scores, at most
/// [`FUSION_DEPTH`] used); `asked(doc)` says whether a tool performs the operation the query
/// asks for. Ties by document position.
pub fn fuse(
    lexical: &[Scored],
    embedding: &[Scored],
    fusion: Fusion,
    limit: usize,
    asked: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut scores: HashMap<usize, f64> = HashMap::new();
    for (s, scaled) in scaled(lexical, 0.0) {
        *scores.entry(s.doc).or_default() += fusion.lexical * scaled;
    }
    let floor = embedding[..embedding.len().min(FUSION_DEPTH)]
        .last()
        .map_or(0.0, |s| s.score);
    for (s, scaled) in scaled(embedding, floor) {
        *scores.entry(s.doc).or_default() += (1.0 - fusion.lexical) * scaled;
    }
    let mut scores: Vec<(usize, f64)> = scores
        .into_iter()
        .map(|(doc, s)| {
            let boost = if asked(doc) {
                1.0 + fusion.operation
            } else {
                1.0
            };
            (doc, s * boost)
        })
        .collect();
    scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scores.into_iter().take(limit).map(|(d, _)| d).collect()
}

/// The first [`FUSION_DEPTH`] of `ranking` with scores scaled to `(score − floor) / (best −
/// floor)`.
fn scaled(ranking: &[Scored], floor: f64) -> impl Iterator<Item = (&Scored, f64)> {
    let best = ranking.first().map_or(1.0, |s| s.score);
    let span = (best - floor).max(1e-9);
    ranking
        .iter()
        .take(FUSION_DEPTH)
        .map(move |s| (s, (s.score - floor) / span))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{Executor, ToolSource};

    fn r(docs: &[usize]) -> Vec<Scored> {
        docs.iter()
            .enumerate()
            .map(|(i, &doc)| Scored {
                doc,
                score: 1.0 - i as f64 / 10.0,
            })
            .collect()
    }

    #[test]
    fn fusion_mixes_scaled_scores() {
        let none = |_: usize| false;
        let even = Fusion {
            lexical: 0.5,
            operation: 0.0,
        };
        // Scores 1.0, 0.9, 0.8: lexical scales to 1, .9, .8; the embedding ranking scales
        // from its last score (0.8) to its best: 1, .5, 0.
        // doc 7: .5·.9 + .5·.5 = .70 > doc 1: .5·1 = .5 > doc 3: .5·1 = .5 (ties by position).
        assert_eq!(
            fuse(&r(&[1, 7]), &r(&[3, 7, 5]), even, 3, none),
            vec![7, 1, 3]
        );
        let lexical_only = Fusion {
            lexical: 1.0,
            ..even
        };
        assert_eq!(
            fuse(&r(&[4, 2, 9]), &r(&[9, 2, 4]), lexical_only, 2, none),
            vec![4, 2]
        );
        let embedding_only = Fusion {
            lexical: 0.0,
            ..even
        };
        assert_eq!(
            fuse(&r(&[4, 2]), &r(&[9, 2, 4]), embedding_only, 2, none),
            vec![9, 2]
        );
        // Doc 3 (third in both) does what the query asks: × 2 lifts it over doc 7.
        let operation = Fusion {
            operation: 1.0,
            ..even
        };
        assert_eq!(
            fuse(&r(&[1, 7, 3]), &r(&[1, 7, 3]), operation, 3, |d| d == 3),
            vec![1, 3, 7]
        );
    }

    #[test]
    fn embedding_text_spells_the_name_out() {
        let e = ToolEntry::new(
            ToolSource::Mcp,
            "slack",
            "slackPostMessage",
            "Post a message to a Slack channel.",
            serde_json::json!({}),
            Executor::Client,
        );
        assert_eq!(
            embedding_text(&e),
            "slack post message: Post a message to a Slack channel."
        );
    }
}
