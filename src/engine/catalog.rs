//! The catalogue of hidden tools (spec §3–§6): one run's policy-filtered entries, sorted by id,
//! with the BM25 index built once, and the search, lookup, describe and validation the model's
//! controls are answered from.

use std::sync::{Arc, OnceLock};

use foldhash::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::embed::{EmbedError, Embedder};
use super::expand::{expand, Vocabulary};
use super::hybrid::{fuse, Fusion, HybridIndex, Scored, DEFAULT_FUSION, FUSION_DEPTH};
use super::index::{Bm25Builder, Bm25Index, Hit};
use super::operation::{query_operations, tool_operation, Operation};
use super::signature::{input_signature, output_signature, UNKNOWN};
use super::text::{closest, lower_words, piece_term, query_terms, word_parts, word_pieces, words};
use super::validate::{validate_args, LazyValidator};
use super::EngineError;
use crate::catalog::{ToolEntry, ToolSource};
use crate::config::BatchRules;
pub use crate::config::Ranker;

/// Parameter schemas are walked this deep for search text.
const PARAM_TEXT_DEPTH: usize = 4;
/// Term-frequency weight of a word in the name, id, label or description.
const TEXT_WEIGHT: f32 = 1.0;
/// Term-frequency weight of a word in the parameter text: below the name and description, so
/// `<object>_id` properties do not outweigh what the tool does.
const PARAM_WEIGHT: f32 = 0.3;
/// A tool whose operation is the one the query asks for scores this much more (× 1 + boost).
const OPERATION_BOOST: f64 = 0.3;
/// At most this many "did you mean" suggestions.
const MAX_SUGGESTIONS: usize = 3;
/// A batch candidate's description is collapsed to this many characters (spec §4).
const BATCH_DESCRIPTION_CHARS: usize = 180;

/// A run's search limits and batch bounds (the surface's: [`crate::config::ToolSearchRules`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    pub default_limit: usize,
    pub max_limit: usize,
    pub batch: BatchRules,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            default_limit: 8,
            max_limit: 20,
            batch: BatchRules::SPEC,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchItem {
    pub id: String,
    pub source: ToolSource,
    pub source_name: String,
    pub name: String,
    pub label: String,
    pub description: String,
    pub input: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribeItem {
    #[serde(flatten)]
    pub item: SearchItem,
    pub parameters: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// One query's rankings for the hybrid ranker: exact name-or-id matches, then the lexical and
/// the embedding rankings of the other entries (positions, best first).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryRankings {
    pub exact: Vec<usize>,
    pub lexical: Vec<Scored>,
    pub embedding: Vec<Scored>,
    /// The operations the query asks for.
    pub operations: Vec<Operation>,
}

#[derive(Debug, Clone)]
pub struct ToolCatalog {
    entries: Vec<ToolEntry>,
    limits: SearchLimits,
    index: Bm25Index,
    /// The catalogue's words, for typo corrections: built by the first search that needs one
    /// (most searches do not), so a catalogue build does not pay for it.
    vocabulary: OnceLock<Vocabulary>,
    /// Each entry's operation (from its name), same order as `entries`.
    operations: Vec<Option<Operation>>,
    /// Present for the hybrid ranker.
    hybrid: Option<HybridIndex>,
    /// Entry positions per tool name (names may repeat across sources).
    /// (hash of the name, entry position), sorted: the entries of a name are found by its hash
    /// and checked by name.
    by_name: Vec<(u64, usize)>,
    /// One lazily compiled input validator per entry, same order as `entries`.
    validators: Vec<LazyValidator>,
    /// Each entry's signature hints, rendered the first time a search returns it (same order
    /// as `entries`): rendering schemas is most of the cost of a search otherwise.
    signatures: Vec<OnceLock<Signatures>>,
}

impl ToolCatalog {
    /// Sorts the entries by id and indexes them once.
    pub fn new(mut entries: Vec<ToolEntry>, limits: SearchLimits) -> Self {
        sort_by_id(&mut entries);
        let index = index_entries(&entries);
        let operations = entries.iter().map(|e| tool_operation(&e.name)).collect();
        let mut by_name: Vec<(u64, usize)> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (name_hash(&e.name), i))
            .collect();
        by_name.sort_unstable();
        // One cell per entry: cloning a LazyValidator shares its cell, so `vec![v; n]` would
        // make every entry use whichever schema was compiled first.
        let validators = std::iter::repeat_with(LazyValidator::default)
            .take(entries.len())
            .collect();
        let signatures = std::iter::repeat_with(OnceLock::new)
            .take(entries.len())
            .collect();
        ToolCatalog {
            entries,
            limits,
            index,
            vocabulary: OnceLock::new(),
            operations,
            hybrid: None,
            by_name,
            validators,
            signatures,
        }
    }

    /// A catalogue ranked by the hybrid ranker: every entry is embedded once here.
    pub fn hybrid(
        entries: Vec<ToolEntry>,
        limits: SearchLimits,
        embedder: Arc<Embedder>,
    ) -> Result<Self, EmbedError> {
        let mut catalog = Self::new(entries, limits);
        catalog.hybrid = Some(HybridIndex::build(
            embedder,
            &catalog.entries,
            DEFAULT_FUSION,
        )?);
        Ok(catalog)
    }

    pub fn ranker(&self) -> Ranker {
        if self.hybrid.is_some() {
            Ranker::Hybrid
        } else {
            Ranker::Lexical
        }
    }

    pub fn entries(&self) -> &[ToolEntry] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn limits(&self) -> SearchLimits {
        self.limits
    }

    /// `None`/`null` → the default limit; an integer ≥ 1 → itself, clamped to the maximum;
    /// anything else → an input error.
    pub fn resolve_limit(&self, raw: Option<&Value>) -> Result<usize, EngineError> {
        let n = match raw {
            None | Some(Value::Null) => return Ok(self.limits.default_limit),
            Some(Value::Number(n)) => n.as_u64().or_else(|| whole_number(n.as_f64())),
            Some(_) => None,
        };
        match n {
            Some(n) if n >= 1 => Ok(usize::try_from(n)
                .unwrap_or(usize::MAX)
                .min(self.limits.max_limit)),
            _ => Err(EngineError::InvalidInput(format!(
                "limit must be an integer >= 1 (got {}); omit it for the default of {}.",
                raw.map(Value::to_string).unwrap_or_default(),
                self.limits.default_limit
            ))),
        }
    }

    /// Ranked search: exact name-or-id matches first, then the ranker's order — lexical:
    /// entries that matched a typed term, then BM25 score descending, then id ascending;
    /// hybrid: that order fused with the embedding ranking. Blank query → nothing.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchItem> {
        self.ranked(query, limit)
            .into_iter()
            .map(|i| {
                let e = &self.entries[i];
                search_item_with(e, self.signatures[i].get_or_init(|| signatures(e)))
            })
            .collect()
    }

    /// Embeds a query set ahead for the hybrid ranker (a no-op for a lexical catalogue), so
    /// measuring it costs batched forward passes, not one per query. The searches are the same
    /// either way; a query that cannot be embedded ahead is embedded (or not) when searched.
    pub fn prepare_queries(&self, queries: &[&str]) {
        if let Some(hybrid) = &self.hybrid {
            let trimmed: Vec<&str> = queries.iter().map(|q| q.trim()).collect();
            let _ = hybrid.prepare_queries(&trimmed);
        }
    }

    /// Entry positions in result order, at most `limit`.
    pub fn ranked(&self, query: &str, limit: usize) -> Vec<usize> {
        let q = query.trim();
        if q.is_empty() || limit == 0 {
            return Vec::new();
        }
        let exact = self.exact_matches(q);
        let rest = limit.saturating_sub(exact.len());
        let others = match &self.hybrid {
            _ if rest == 0 => Vec::new(),
            None => self.lexical_ranking(q, rest, &exact),
            Some(hybrid) => {
                let rankings = self.hybrid_rankings(hybrid, q, exact.clone());
                self.fuse_rankings(&rankings, hybrid.fusion(), rest)
            }
        };
        exact.into_iter().chain(others).take(limit).collect()
    }

    /// The rankings the hybrid ranker fuses for `query` (`None` for a lexical catalogue or a
    /// blank query): computed once, they can be fused with any [`Fusion`] (for tuning it).
    pub fn query_rankings(&self, query: &str) -> Option<QueryRankings> {
        let q = query.trim();
        let hybrid = self.hybrid.as_ref().filter(|_| !q.is_empty())?;
        Some(self.hybrid_rankings(hybrid, q, self.exact_matches(q)))
    }

    /// The first `limit` entries for `rankings` fused with `fusion`: exact matches first.
    pub fn fused(&self, rankings: &QueryRankings, fusion: Fusion, limit: usize) -> Vec<usize> {
        let rest = limit.saturating_sub(rankings.exact.len());
        let fused = self.fuse_rankings(rankings, fusion, rest);
        rankings
            .exact
            .iter()
            .copied()
            .chain(fused)
            .take(limit)
            .collect()
    }

    fn fuse_rankings(&self, r: &QueryRankings, fusion: Fusion, limit: usize) -> Vec<usize> {
        fuse(&r.lexical, &r.embedding, fusion, limit, |doc| {
            self.operations[doc].is_some_and(|op| r.operations.contains(&op))
        })
    }

    fn hybrid_rankings(&self, hybrid: &HybridIndex, q: &str, exact: Vec<usize>) -> QueryRankings {
        let lexical = self.lexical_scored(q, FUSION_DEPTH, &exact);
        // When the query cannot be embedded the lexical ranking stands alone.
        let mut embedding = hybrid
            .embedding_ranking(q, FUSION_DEPTH + exact.len())
            .unwrap_or_default();
        embedding.retain(|s| !exact.contains(&s.doc));
        QueryRankings {
            exact,
            lexical,
            embedding,
            operations: query_operations(&lower_words(q)),
        }
    }

    /// The lexical order of documents other than `exact`, at most `limit`.
    fn lexical_ranking(&self, q: &str, limit: usize, exact: &[usize]) -> Vec<usize> {
        self.lexical_scored(q, limit, exact)
            .into_iter()
            .map(|s| s.doc)
            .collect()
    }

    /// [`Self::lexical_ranking`] with each document's score.
    fn lexical_scored(&self, q: &str, limit: usize, exact: &[usize]) -> Vec<Scored> {
        if limit == 0 {
            return Vec::new();
        }
        let typed = lower_words(q);
        let mut terms = query_terms(q);
        let vocabulary = || self.vocabulary.get_or_init(|| vocabulary_of(&self.entries));
        expand(&typed, &self.index, &vocabulary, &mut terms);
        let wanted = query_operations(&typed);
        let order = |a: &Hit, b: &Hit| {
            b.literal
                .cmp(&a.literal)
                .then_with(|| b.score.total_cmp(&a.score))
                .then_with(|| a.doc.cmp(&b.doc))
        };
        // Only the first `limit` are returned: keep the best so far, in order, as hits stream
        // by (most are worse than the last kept one and cost one comparison).
        let mut top: Vec<Hit> = Vec::with_capacity(limit + 1);
        self.index.for_each_hit(&terms, |mut h| {
            if exact.contains(&h.doc) {
                return;
            }
            if !wanted.is_empty() && self.operations[h.doc].is_some_and(|op| wanted.contains(&op)) {
                h.score *= 1.0 + OPERATION_BOOST;
            }
            if top.len() == limit
                && top
                    .last()
                    .is_some_and(|last| order(&h, last) != std::cmp::Ordering::Less)
            {
                return;
            }
            let at = top.partition_point(|kept| order(kept, &h) == std::cmp::Ordering::Less);
            top.insert(at, h);
            top.truncate(limit);
        });
        top.into_iter()
            .map(|h| Scored {
                doc: h.doc,
                score: h.score,
            })
            .collect()
    }

    /// Trimmed exact id, else exact unique name.
    pub fn lookup(&self, id_or_name: &str) -> Result<&ToolEntry, EngineError> {
        let key = id_or_name.trim();
        if let Some(i) = self.position_of_id(key) {
            return Ok(&self.entries[i]);
        }
        match self.named(key).as_slice() {
            [one] => Ok(&self.entries[*one]),
            [] => Err(EngineError::UnknownTool {
                id: key.into(),
                suggestions: self.suggestions(key),
                hint: String::new(),
            }),
            many => Err(EngineError::AmbiguousName {
                name: key.into(),
                ids: many.iter().map(|&i| self.entries[i].id.clone()).collect(),
            }),
        }
    }

    /// The search item plus the full schemas; a miss carries `recovery_hint`.
    pub fn describe(
        &self,
        id_or_name: &str,
        recovery_hint: &str,
    ) -> Result<DescribeItem, EngineError> {
        let entry = self.lookup(id_or_name).map_err(|e| match e {
            EngineError::UnknownTool {
                id, suggestions, ..
            } => EngineError::UnknownTool {
                id,
                suggestions,
                hint: recovery_hint.into(),
            },
            other => other,
        })?;
        let parameters = if entry.parameters.is_null() {
            json!({})
        } else {
            Value::clone(&entry.parameters)
        };
        let output_schema = entry
            .output_schema
            .clone()
            .filter(|_| entry.source.is_trusted());
        Ok(DescribeItem {
            item: search_item(entry),
            parameters,
            output_schema,
        })
    }

    /// Validates `args` against a trusted entry's input schema. Untrusted entries and entries
    /// without a schema are not validated here.
    pub fn validate_input(&self, entry: &ToolEntry, args: &Value) -> Result<(), EngineError> {
        if !entry.source.is_trusted() || entry.parameters.is_null() {
            return Ok(());
        }
        let fresh = LazyValidator::default();
        let lazy = match self.position_of_id(&entry.id) {
            Some(i) if self.entries[i].parameters == entry.parameters => &self.validators[i],
            _ => &fresh,
        };
        validate_args(&entry.name, &entry.parameters, args, lazy)
    }

    pub fn search_item(&self, entry: &ToolEntry) -> SearchItem {
        search_item(entry)
    }

    /// The batch form `{ queries: [{query, limit?}, …] }` (spec §4) within the run's
    /// [`BatchRules`]. Everything is validated before any search runs; the response is kept
    /// within the answer budget (4,000 characters in the spec).
    pub fn search_batch(&self, raw: &Value) -> Result<Value, EngineError> {
        let plan = self.batch_plan(raw)?;
        let mut groups: Vec<BatchGroup> = plan
            .into_iter()
            .map(|(query, limit)| {
                let candidates = self
                    .search(&query, limit)
                    .iter()
                    .map(batch_candidate)
                    .collect();
                BatchGroup {
                    query,
                    candidates,
                    truncated: false,
                }
            })
            .collect();
        loop {
            let response = batch_response(&groups);
            if response.to_string().chars().count() <= self.limits.batch.answer_chars {
                return Ok(response);
            }
            let largest = groups
                .iter()
                .enumerate()
                .filter(|(_, g)| !g.candidates.is_empty())
                .max_by(|(ia, a), (ib, b)| {
                    a.candidates.len().cmp(&b.candidates.len()).then(ib.cmp(ia))
                })
                .map(|(i, _)| i);
            let Some(i) = largest else {
                return Ok(response);
            };
            groups[i].candidates.pop();
            groups[i].truncated = true;
        }
    }

    fn batch_plan(&self, raw: &Value) -> Result<Vec<(String, usize)>, EngineError> {
        let bad = |msg: String| EngineError::InvalidInput(msg);
        let rules = self.limits.batch;
        let queries = raw
            .get("queries")
            .and_then(Value::as_array)
            .ok_or_else(|| bad("queries must be an array of {query, limit?} objects.".into()))?;
        if queries.is_empty() || queries.len() > rules.max_queries {
            return Err(bad(format!(
                "queries must hold 1 to {} queries (got {}).",
                rules.max_queries,
                queries.len()
            )));
        }
        let mut plan = Vec::with_capacity(queries.len());
        let mut total = 0;
        for (i, q) in queries.iter().enumerate() {
            let query = q
                .get("query")
                .and_then(Value::as_str)
                .ok_or_else(|| bad(format!("queries[{i}].query must be a string.")))?;
            let (size, max) = rules.max_query.measure(query);
            if size > max {
                let unit = rules.max_query.unit();
                return Err(bad(format!(
                    "queries[{i}].query is {size} {unit}; at most {max} are allowed."
                )));
            }
            let limit = self
                .resolve_limit(q.get("limit"))
                .map_err(|e| bad(format!("queries[{i}]: {e}")))?;
            total += limit;
            plan.push((query.to_string(), limit));
        }
        if total > rules.max_candidates {
            return Err(bad(format!(
                "the limits of all queries add up to {total}; at most {} are allowed.",
                rules.max_candidates
            )));
        }
        if let Some(max) = rules.queries_json_bytes {
            let texts: Vec<&str> = plan.iter().map(|(q, _)| q.as_str()).collect();
            let bytes = Value::from(texts).to_string().len();
            if bytes > max {
                return Err(bad(format!(
                    "the query texts together are {bytes} bytes as a JSON list; at most {max} are allowed."
                )));
            }
        }
        Ok(plan)
    }

    fn position_of_id(&self, id: &str) -> Option<usize> {
        self.entries
            .binary_search_by(|e| e.id.as_str().cmp(id))
            .ok()
    }

    /// Positions of the entries named `name`, in id order.
    fn named(&self, name: &str) -> Vec<usize> {
        let hash = name_hash(name);
        let start = self.by_name.partition_point(|&(h, _)| h < hash);
        self.by_name[start..]
            .iter()
            .take_while(|&&(h, _)| h == hash)
            .map(|&(_, i)| i)
            .filter(|&i| self.entries[i].name == name)
            .collect()
    }

    /// Entries whose id or name equals `q`, in id order.
    fn exact_matches(&self, q: &str) -> Vec<usize> {
        let mut exact: Vec<usize> = self.named(q);
        exact.extend(self.position_of_id(q));
        exact.sort_unstable();
        exact.dedup();
        exact
    }

    fn suggestions(&self, key: &str) -> Vec<String> {
        let candidates = self
            .entries
            .iter()
            .flat_map(|e| [e.id.as_str(), e.name.as_str()]);
        closest(key, candidates, MAX_SUGGESTIONS)
    }
}

struct BatchGroup {
    query: String,
    candidates: Vec<Value>,
    truncated: bool,
}

fn batch_response(groups: &[BatchGroup]) -> Value {
    let results: Vec<Value> = groups
        .iter()
        .map(|g| {
            let mut o = Map::new();
            o.insert("query".into(), Value::from(g.query.as_str()));
            o.insert("candidates".into(), Value::Array(g.candidates.clone()));
            if g.truncated {
                o.insert("truncated".into(), Value::Bool(true));
            }
            Value::Object(o)
        })
        .collect();
    json!({ "results": results })
}

fn batch_candidate(item: &SearchItem) -> Value {
    let mut item = item.clone();
    item.description = collapse(&item.description, BATCH_DESCRIPTION_CHARS);
    serde_json::to_value(item).unwrap_or(Value::Null)
}

/// Whitespace collapsed to single spaces, cut to `max` characters (ending in `…` when cut).
pub(crate) fn collapse(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let mut cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

fn whole_number(f: Option<f64>) -> Option<u64> {
    let f = f?;
    (f.fract() == 0.0 && f >= 1.0).then_some(if f >= u64::MAX as f64 {
        u64::MAX
    } else {
        f as u64
    })
}

fn search_item(e: &ToolEntry) -> SearchItem {
    search_item_with(e, &signatures(e))
}

/// The `input` and `output` hints of an entry's search item.
type Signatures = (String, Option<String>);

fn signatures(e: &ToolEntry) -> Signatures {
    let trusted = e.source.is_trusted();
    let input = if trusted {
        input_signature(&e.parameters)
    } else {
        UNKNOWN.into()
    };
    let output = e
        .output_schema
        .as_ref()
        .filter(|_| trusted)
        .and_then(output_signature);
    (input, output)
}

fn search_item_with(e: &ToolEntry, (input, output): &Signatures) -> SearchItem {
    SearchItem {
        id: e.id.clone(),
        source: e.source,
        source_name: e.source_name.clone(),
        name: e.name.clone(),
        label: e.label.clone(),
        description: e.description.clone(),
        input: input.clone(),
        output: output.clone(),
    }
}

/// Sorts by id, stable (equal ids keep their order). Entries are large, so the sort moves
/// positions and each entry is then moved once.
fn sort_by_id(entries: &mut Vec<ToolEntry>) {
    if entries.is_sorted_by(|a, b| a.id <= b.id) {
        return;
    }
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by(|&a, &b| entries[a].id.cmp(&entries[b].id));
    let mut slots: Vec<Option<ToolEntry>> = entries.drain(..).map(Some).collect();
    entries.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// The BM25 index of `entries`, in their order. Catalogues repeat the same words and texts a
/// great deal (verbs, object names, descriptions and whole schemas shared by similar tools), so
/// each distinct word is analysed once, each distinct text split once and each shared schema
/// walked once, all kept as term ids: a repeated text costs one lookup. A document holds the
/// terms of [`super::text::terms`] on each of its texts, weighted by field.
fn index_entries(entries: &[ToolEntry]) -> Bm25Index {
    let mut terms = TextTerms::with_capacity(entries.len() * 4);
    let mut by_schema: HashMap<*const Value, Vec<u32>> = HashMap::default();
    let mut doc: Vec<(u32, f32)> = Vec::new();
    let mut ids = Vec::new();
    for e in entries {
        doc.clear();
        ids.clear();
        for text in plain_texts(e) {
            terms.ids(text, &mut ids);
        }
        doc.extend(ids.iter().map(|&id| (id, TEXT_WEIGHT)));
        if e.source.is_trusted() {
            let schema = by_schema
                .entry(Arc::as_ptr(&e.parameters))
                .or_insert_with(|| {
                    let mut texts = Vec::new();
                    schema_texts(&e.parameters, 0, &mut texts);
                    let mut schema = Vec::new();
                    texts.iter().for_each(|t| terms.ids(t, &mut schema));
                    schema
                });
            doc.extend(schema.iter().map(|&id| (id, PARAM_WEIGHT)));
        }
        terms.builder.add_document(&doc);
    }
    terms.builder.finish()
}

/// The term ids of texts, each distinct word analysed once, each distinct piece of a word
/// (`create` of `github_create_issue`) stemmed once and each distinct text split once. The ids
/// of words and texts live in one pool each (a map value is a range into it), so a catalogue of
/// thousands of words does not make thousands of small allocations.
#[derive(Default)]
struct TextTerms<'a> {
    builder: Bm25Builder,
    by_word: HashMap<&'a str, (u32, u32)>,
    word_pool: Vec<u32>,
    by_text: HashMap<&'a str, (u32, u32)>,
    text_pool: Vec<u32>,
    by_piece: HashMap<String, Option<u32>>,
}

impl<'a> TextTerms<'a> {
    fn with_capacity(texts: usize) -> Self {
        TextTerms {
            by_word: HashMap::with_capacity_and_hasher(texts, Default::default()),
            by_text: HashMap::with_capacity_and_hasher(texts, Default::default()),
            ..TextTerms::default()
        }
    }

    /// Appends the term ids of `text` to `out`.
    fn ids(&mut self, text: &'a str, out: &mut Vec<u32>) {
        if let Some(&(start, end)) = self.by_text.get(text) {
            out.extend_from_slice(&self.text_pool[start as usize..end as usize]);
            return;
        }
        let start = self.text_pool.len();
        for word in words(text) {
            let (from, to) = match self.by_word.get(word) {
                Some(&range) => range,
                None => {
                    let range = self.analyse(word);
                    self.by_word.insert(word, range);
                    range
                }
            };
            let ids = &self.word_pool[from as usize..to as usize];
            self.text_pool.extend_from_slice(ids);
        }
        let range = (pool_index(start), pool_index(self.text_pool.len()));
        self.by_text.insert(text, range);
        out.extend_from_slice(&self.text_pool[start..]);
    }

    /// Puts the term ids of `word` into the word pool; their range there.
    fn analyse(&mut self, word: &str) -> (u32, u32) {
        let start = pool_index(self.word_pool.len());
        word_pieces(word, |piece| {
            let id = match self.by_piece.get(piece) {
                Some(id) => *id,
                None => {
                    let id = piece_term(piece).map(|t| self.builder.term_id(&t));
                    self.by_piece.insert(piece.to_string(), id);
                    id
                }
            };
            self.word_pool.extend(id);
        });
        (start, pool_index(self.word_pool.len()))
    }
}

/// A tool name's hash for [`ToolCatalog::named`] (fixed within a process).
fn name_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(name)
}

/// A pool position as stored in a range (pools hold far fewer than 2^32 ids).
fn pool_index(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}

/// Every distinct word of the entries' search texts, lower-cased, and the parts of compound
/// words: what a typed word may be corrected to.
fn vocabulary_of(entries: &[ToolEntry]) -> Vocabulary {
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut texts = Vec::new();
    for e in entries {
        texts.clear();
        document_texts(e, &mut texts);
        for text in &texts {
            seen.extend(words(text));
        }
    }
    let mut vocabulary = Vec::with_capacity(seen.len());
    for word in seen {
        vocabulary.push(word.to_lowercase());
        let parts = word_parts(word);
        if parts.len() >= 2 {
            vocabulary.extend(parts);
        }
    }
    Vocabulary::new(vocabulary)
}

/// An entry's search text (spec §4): name, id, label and description, and, for trusted tools
/// only, the parameter text ([`index_entries`] weighs the two parts apart).
fn document_texts<'a>(e: &'a ToolEntry, out: &mut Vec<&'a str>) {
    out.extend(plain_texts(e));
    if e.source.is_trusted() {
        schema_texts(&e.parameters, 0, out);
    }
}

/// The texts of an entry searched at [`TEXT_WEIGHT`]: name, id, label and description.
fn plain_texts(e: &ToolEntry) -> [&str; 4] {
    [&e.name, &e.id, &e.label, &e.description].map(String::as_str)
}

/// Descriptions and property names, through properties/items/anyOf/oneOf/allOf, to depth 4.
fn schema_texts<'a>(schema: &'a Value, depth: usize, out: &mut Vec<&'a str>) {
    if depth > PARAM_TEXT_DEPTH {
        return;
    }
    let Some(obj) = schema.as_object() else {
        return;
    };
    // One pass over the keys (a document is a bag of words: the order of its texts does not
    // change any score), instead of a hashed lookup per keyword.
    for (key, value) in obj {
        match (key.as_str(), value) {
            ("description", Value::String(d)) => out.push(d),
            ("properties", Value::Object(props)) => {
                for (name, sub) in props {
                    out.push(name);
                    schema_texts(sub, depth + 1, out);
                }
            }
            ("items", Value::Array(items)) => {
                items.iter().for_each(|s| schema_texts(s, depth + 1, out));
            }
            ("items", items) => schema_texts(items, depth + 1, out),
            ("anyOf" | "oneOf" | "allOf", Value::Array(members)) => {
                members.iter().for_each(|s| schema_texts(s, depth + 1, out));
            }
            _ => {}
        }
    }
}
#[cfg(test)]
mod tests;
