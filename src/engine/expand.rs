//! Query words the catalogue does not know, mapped onto words it does: two typed words that
//! the catalogue writes as one ("roll out" → `rollout`), one typed word it writes as two
//! ("signup" → `sign` + `up`), and typos one edit away ("delet" → `delete`).
//!
//! Only the catalogue's own vocabulary is consulted, so nothing here is tuned to any query set.
//! Typo look-ups use a symmetric-delete index (every word with one letter removed), built the
//! first time a query has an unknown word, so building a catalogue stays as fast as before.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::index::Bm25Index;
use super::text::{is_stop_word, stem, QueryTerm};

/// Weight of a term joined from two typed words (the user typed both: it is literal).
pub const JOIN_WEIGHT: f64 = 1.0;
/// Weight of each half of a split typed word.
pub const SPLIT_WEIGHT: f64 = 0.5;
/// Weight of a typo's correction.
pub const TYPO_WEIGHT: f64 = 0.6;
/// Typos are only corrected in words at least this long (short words have too many neighbours).
const TYPO_MIN_LEN: usize = 4;
/// At most this many corrections per typed word.
const MAX_CORRECTIONS: usize = 3;
/// Each half of a split is at least this long.
const SPLIT_MIN_PART: usize = 2;

/// The catalogue's words as written (lower case, letters only), for typo correction.
#[derive(Debug, Default)]
pub struct Vocabulary {
    words: Vec<String>,
    /// Every word, and every word with one letter removed → the words it came from.
    deletes: OnceLock<HashMap<String, Vec<u32>>>,
}

impl Clone for Vocabulary {
    fn clone(&self) -> Self {
        Vocabulary::new(self.words.clone())
    }
}

impl Vocabulary {
    /// A vocabulary of `words` (deduplicated here; only letter-only words are kept).
    pub fn new(mut words: Vec<String>) -> Self {
        words.retain(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase()));
        words.sort_unstable();
        words.dedup();
        Vocabulary {
            words,
            deletes: OnceLock::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// Catalogue words one edit (insert, delete, substitute, swap two neighbours) from `word`,
    /// nearest-first then alphabetical, at most [`MAX_CORRECTIONS`].
    pub fn corrections(&self, word: &str) -> Vec<&str> {
        if word.len() < TYPO_MIN_LEN || !word.chars().all(|c| c.is_ascii_lowercase()) {
            return Vec::new();
        }
        let deletes = self.deletes.get_or_init(|| delete_index(&self.words));
        let mut found: Vec<u32> = Vec::new();
        for key in std::iter::once(word.to_string()).chain(one_deletes(word)) {
            if let Some(ids) = deletes.get(&key) {
                found.extend(ids);
            }
        }
        found.sort_unstable();
        found.dedup();
        let mut out: Vec<&str> = found
            .into_iter()
            .map(|i| self.words[i as usize].as_str())
            .filter(|w| *w != word && osa_distance(word, w) == 1)
            .collect();
        out.truncate(MAX_CORRECTIONS);
        out
    }
}

fn delete_index(words: &[String]) -> HashMap<String, Vec<u32>> {
    let mut map: HashMap<String, Vec<u32>> = HashMap::new();
    for (i, w) in words.iter().enumerate() {
        if w.len() + 1 < TYPO_MIN_LEN {
            continue;
        }
        let id = u32::try_from(i).unwrap_or(u32::MAX);
        for key in std::iter::once(w.clone()).chain(one_deletes(w)) {
            let ids = map.entry(key).or_default();
            if ids.last() != Some(&id) {
                ids.push(id);
            }
        }
    }
    map
}

/// `word` with each one of its letters removed (ASCII words only).
fn one_deletes(word: &str) -> impl Iterator<Item = String> + '_ {
    (0..word.len()).map(move |i| {
        let mut s = String::with_capacity(word.len() - 1);
        s.push_str(&word[..i]);
        s.push_str(&word[i + 1..]);
        s
    })
}

/// Optimal string alignment distance (Levenshtein plus swaps of two neighbours), on bytes.
pub fn osa_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

/// Adds to `terms` what the typed words (`typed`: lower-cased words as in
/// [`super::text::lower_words`], whole words only) mean in the catalogue's vocabulary when they
/// are not in it as typed: joined pairs, split compounds, then typo corrections.
pub fn expand<'v>(
    typed: &[String],
    index: &Bm25Index,
    vocab: &dyn Fn() -> &'v Vocabulary,
    terms: &mut Vec<QueryTerm>,
) {
    let content: Vec<&str> = typed
        .iter()
        .map(String::as_str)
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase()) && !is_stop_word(w))
        .collect();
    for pair in typed.windows(2) {
        let joined = format!("{}{}", pair[0], pair[1]);
        if joined.chars().all(|c| c.is_ascii_lowercase()) {
            let term = stem(&joined);
            if index.contains(&term) {
                push(terms, term, JOIN_WEIGHT);
            }
        }
    }
    for word in content {
        if index.contains(&stem(word)) {
            continue;
        }
        if let Some((left, right)) = split(word, index) {
            push(terms, left, SPLIT_WEIGHT);
            push(terms, right, SPLIT_WEIGHT);
            continue;
        }
        for fixed in vocab().corrections(word) {
            let term = stem(fixed);
            if index.contains(&term) {
                push(terms, term, TYPO_WEIGHT);
            }
        }
    }
}

/// The split of `word` into two known words whose shorter part is longest.
fn split(word: &str, index: &Bm25Index) -> Option<(String, String)> {
    if word.len() < 2 * SPLIT_MIN_PART {
        return None;
    }
    (SPLIT_MIN_PART..=word.len() - SPLIT_MIN_PART)
        .filter_map(|i| {
            let (l, r) = (&word[..i], &word[i..]);
            if is_stop_word(l) || is_stop_word(r) {
                return None;
            }
            let (ls, rs) = (stem(l), stem(r));
            (index.contains(&ls) && index.contains(&rs)).then_some((l.len().min(r.len()), ls, rs))
        })
        .max_by_key(|(shorter, _, _)| *shorter)
        .map(|(_, l, r)| (l, r))
}

fn push(terms: &mut Vec<QueryTerm>, term: String, weight: f64) {
    match terms.iter_mut().find(|q| q.term == term) {
        Some(q) if q.literal => {}
        Some(q) => {
            q.weight = q.weight.max(weight);
            q.literal = true;
        }
        None => terms.push(QueryTerm {
            term,
            weight,
            literal: true,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::{lower_words, query_terms, terms};

    fn index(texts: &[&str]) -> Bm25Index {
        let docs: Vec<Vec<String>> = texts.iter().map(|t| terms(t)).collect();
        Bm25Index::build(&docs)
    }

    fn vocab(texts: &[&str]) -> Vocabulary {
        Vocabulary::new(texts.iter().flat_map(|t| lower_words(t)).collect())
    }

    fn expanded(query: &str, texts: &[&str]) -> Vec<(String, f64)> {
        let mut out = query_terms(query);
        let words = vocab(texts);
        expand(&lower_words(query), &index(texts), &|| &words, &mut out);
        out.into_iter()
            .filter(|q| q.literal)
            .map(|q| (q.term, q.weight))
            .collect()
    }

    #[test]
    fn distances() {
        assert_eq!(osa_distance("chnage", "change"), 1);
        assert_eq!(osa_distance("delet", "delete"), 1);
        assert_eq!(osa_distance("abc", "bcd"), 2);
        assert_eq!(osa_distance("", "ab"), 2);
    }

    #[test]
    fn corrections_are_one_edit_away_and_skip_short_words() {
        let v = vocab(&["delete the record", "change a value", "chance"]);
        assert_eq!(v.corrections("delet"), vec!["delete"]);
        assert_eq!(v.corrections("chnage"), vec!["change"]);
        assert_eq!(v.corrections("chanze"), vec!["chance", "change"]);
        assert_eq!(v.corrections("dele"), Vec::<&str>::new());
        assert_eq!(v.corrections("the"), Vec::<&str>::new());
    }

    #[test]
    fn joined_split_and_corrected_words() {
        let docs = [
            "Start a rollout of the deployment",
            "Sign up a user",
            "Delete a card",
        ];
        assert!(
            expanded("roll out the new build", &docs).contains(&("rollout".into(), JOIN_WEIGHT))
        );
        let signup = expanded("signup flow", &docs);
        assert!(
            signup.contains(&("sign".into(), SPLIT_WEIGHT)),
            "{signup:?}"
        );
        let typo = expanded("delet that card", &docs);
        assert!(typo.contains(&("delet".into(), 1.0)), "{typo:?}");
        // "delete" stems to "delet": the typo is the stem, so the literal term already matches.
        let typo = expanded("dleete that card", &docs);
        assert!(typo.contains(&("delet".into(), TYPO_WEIGHT)), "{typo:?}");
        // Known words are left alone.
        assert_eq!(expanded("card", &docs), vec![("card".to_string(), 1.0)]);
    }
}
