//! The BM25 index over catalogue documents (spec §4): built once per catalogue, then every
//! query only walks the postings of its own terms (documents are never re-tokenised).
//!
//! Term frequency is weighted per field (BM25F-style): a word in a tool's name counts more than
//! the same word in its parameter text, so `<object>_id` parameters do not pull get/update/delete
//! tools above create/list/search ones.

use foldhash::HashMap;

use super::text::QueryTerm;

/// BM25 term-frequency saturation.
pub const K1: f64 = 1.2;
/// BM25 length normalisation.
pub const B: f64 = 0.75;

/// One posting: a document and how often the term occurs in it, weighted by field.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Posting {
    doc: u32,
    tf: f32,
}

#[derive(Debug, Clone)]
struct TermInfo {
    idf: f64,
    postings: Vec<Posting>,
}

/// A document's score for one query.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Position of the document in the order it was given to [`Bm25Index::build`].
    pub doc: usize,
    pub score: f64,
    /// Whether a literal (typed, not synonym) query term occurs in the document.
    pub literal: bool,
}

/// Inverted index with precomputed idf and document lengths.
#[derive(Debug, Clone, Default)]
pub struct Bm25Index {
    terms: HashMap<String, TermInfo>,
    doc_len: Vec<f32>,
    /// Per document, the BM25 length term `K1 · (1 − B + B · len / avg_len)`, so scoring a
    /// posting is one division.
    len_norm: Vec<f64>,
}

/// `ln(1 + (N − n + 0.5) / (n + 0.5))`: never negative, rarer terms weigh more.
pub fn idf(total_docs: usize, docs_with_term: usize) -> f64 {
    let (n_total, n) = (total_docs as f64, docs_with_term as f64);
    (1.0 + (n_total - n + 0.5) / (n + 0.5)).ln()
}

/// Builds a [`Bm25Index`] one document at a time, numbering terms as they first appear.
///
/// Documents are added in order, so a term's postings stay sorted by document and a repeat of
/// a term within the current document is always that term's last posting: counting term
/// frequency needs no sorting and no hashing.
#[derive(Debug, Default)]
pub struct Bm25Builder {
    ids: HashMap<String, u32>,
    terms: Vec<String>,
    postings: Vec<Vec<Posting>>,
    doc_len: Vec<f32>,
}

impl Bm25Builder {
    /// The id of `term`, assigning the next one if it is new.
    pub fn term_id(&mut self, term: &str) -> u32 {
        if let Some(&id) = self.ids.get(term) {
            return id;
        }
        let id = u32::try_from(self.terms.len()).unwrap_or(u32::MAX);
        self.ids.insert(term.to_string(), id);
        self.terms.push(term.to_string());
        self.postings.push(Vec::new());
        id
    }

    /// Adds the next document as the ids (from [`Self::term_id`]) of its terms with the weight
    /// of the field each occurrence is in, in any order; repeats add up to term frequency.
    pub fn add_document(&mut self, terms: &[(u32, f32)]) {
        let doc = u32::try_from(self.doc_len.len()).unwrap_or(u32::MAX);
        self.doc_len.push(terms.iter().map(|&(_, w)| w).sum());
        for &(id, weight) in terms {
            let list = &mut self.postings[id as usize];
            match list.last_mut() {
                Some(last) if last.doc == doc => last.tf += weight,
                _ => list.push(Posting { doc, tf: weight }),
            }
        }
    }

    /// The index: idf per term and the BM25 length term per document.
    pub fn finish(self) -> Bm25Index {
        let n_docs = self.doc_len.len();
        let terms: HashMap<String, TermInfo> = self
            .terms
            .into_iter()
            .zip(self.postings)
            .map(|(term, postings)| {
                let info = TermInfo {
                    idf: idf(n_docs, postings.len()),
                    postings,
                };
                (term, info)
            })
            .collect();
        let doc_len = self.doc_len;
        let total: f64 = doc_len.iter().map(|&l| f64::from(l)).sum();
        let avg_len = if n_docs == 0 {
            0.0
        } else {
            total / n_docs as f64
        };
        let len_norm = doc_len
            .iter()
            .map(|&len| {
                let norm = if avg_len > 0.0 {
                    f64::from(len) / avg_len
                } else {
                    0.0
                };
                K1 * (1.0 - B + B * norm)
            })
            .collect();
        Bm25Index {
            terms,
            doc_len,
            len_norm,
        }
    }
}

impl Bm25Index {
    /// Indexes documents given as their term lists (see [`super::text::terms`]), every
    /// occurrence at weight 1.
    pub fn build<S: AsRef<str>>(docs: &[Vec<S>]) -> Self {
        let mut builder = Bm25Builder::default();
        let mut ids = Vec::new();
        for doc in docs {
            ids.clear();
            ids.extend(doc.iter().map(|t| (builder.term_id(t.as_ref()), 1.0)));
            builder.add_document(&ids);
        }
        builder.finish()
    }

    /// Whether some document holds `term`.
    pub fn contains(&self, term: &str) -> bool {
        self.terms.contains_key(term)
    }

    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The hits of [`Self::for_each_hit`], collected (the tests' view).
    #[cfg(test)]
    pub fn score(&self, query: &[QueryTerm]) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.for_each_hit(query, |hit| hits.push(hit));
        hits
    }

    /// Scores every document that holds at least one query term and hands each hit to
    /// `visit` once, in the order the query's postings first reach it (callers order the hits
    /// themselves); a caller keeping only the best few allocates nothing per document.
    ///
    /// Scores accumulate in dense per-document arrays (no hashing per posting); a document is
    /// new when its score is still 0, which is sound because every posting adds a positive
    /// amount (idf > 0, tf ≥ 1, weight > 0). The arrays are the thread's own and are reused:
    /// only the entries a search touched are cleared after it, so a search costs its postings,
    /// not the size of the catalogue.
    pub fn for_each_hit(&self, query: &[QueryTerm], mut visit: impl FnMut(Hit)) {
        SCRATCH.with(|scratch| {
            let mut scratch = scratch.borrow_mut();
            let Scratch { score, literal } = &mut *scratch;
            let n = self.doc_len.len();
            if score.len() < n {
                score.resize(n, 0.0);
                literal.resize(n, false);
            }
            let mut touched: Vec<u32> = Vec::new();
            for q in query {
                let Some(info) = self.terms.get(&q.term) else {
                    continue;
                };
                let weight = q.weight * info.idf * (K1 + 1.0);
                for p in &info.postings {
                    let d = p.doc as usize;
                    if score[d] == 0.0 {
                        touched.push(p.doc);
                    }
                    let tf = f64::from(p.tf);
                    score[d] += weight * tf / (tf + self.len_norm[d]);
                    literal[d] |= q.literal;
                }
            }
            for d in touched {
                let d = d as usize;
                let hit = Hit {
                    doc: d,
                    score: score[d],
                    literal: literal[d],
                };
                score[d] = 0.0;
                literal[d] = false;
                visit(hit);
            }
        })
    }
}

/// Per-document score arrays a thread reuses across searches (all zero between searches).
#[derive(Default)]
struct Scratch {
    score: Vec<f64>,
    literal: Vec<bool>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::{query_terms, terms};

    fn docs(texts: &[&str]) -> Vec<Vec<String>> {
        texts.iter().map(|t| terms(t)).collect()
    }

    #[test]
    fn idf_formula() {
        assert!((idf(10, 1) - (1.0f64 + 9.5 / 1.5).ln()).abs() < 1e-12);
        assert!((idf(10, 10) - (1.0f64 + 0.5 / 10.5).ln()).abs() < 1e-12);
        assert!(idf(100, 1) > idf(100, 50));
    }

    #[test]
    fn rarer_term_scores_higher_and_length_normalises() {
        let index = Bm25Index::build(&docs(&["alpha beta", "alpha gamma", "alpha", "delta"]));
        assert_eq!(index.len(), 4);
        let hits = index.score(&query_terms("alpha gamma"));
        let mut docs: Vec<usize> = hits.iter().map(|h| h.doc).collect();
        docs.sort_unstable();
        assert_eq!(docs, vec![0, 1, 2]);
        let s = |d: usize| {
            hits.iter()
                .find(|h| h.doc == d)
                .map(|h| h.score)
                .unwrap_or(0.0)
        };
        assert!(s(1) > s(2), "gamma is rare and adds score");
        assert!(s(2) > s(0), "shorter document wins on the same single term");
        assert!(hits.iter().all(|h| h.literal));
    }

    #[test]
    fn exact_score_value() {
        let index = Bm25Index::build(&docs(&["alpha", "beta"]));
        let hits = index.score(&query_terms("alpha"));
        assert_eq!(hits.len(), 1);
        // tf 1, len == avg: score = idf * (k1+1)/(1+k1) = idf.
        assert!((hits[0].score - idf(2, 1)).abs() < 1e-12);
    }

    #[test]
    fn a_repeated_term_is_term_frequency() {
        let index = Bm25Index::build(&docs(&["alpha alpha beta", "beta gamma delta"]));
        let hits = index.score(&query_terms("alpha"));
        assert_eq!(hits.len(), 1);
        // tf 2, length 3 = average 3: idf · 2 · (k1 + 1) / (2 + k1).
        assert!((hits[0].score - idf(2, 1) * 2.0 * 2.2 / 3.2).abs() < 1e-12);
        let beta = index.score(&query_terms("beta"));
        assert_eq!(beta.iter().map(|h| h.doc).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn synonym_only_hit_is_not_literal() {
        let index = Bm25Index::build(&docs(&["cron schedule job", "weather"]));
        let hits = index.score(&query_terms("remind"));
        assert_eq!(hits.len(), 1);
        assert!(!hits[0].literal);
        assert!(
            (hits[0].score - 0.35 * 2.0 * idf(2, 1) * 2.2 / (1.0 + 1.2 * (0.25 + 0.75 * 1.5)))
                .abs()
                < 1e-9
        );
    }
}
