//! Search quality on a set this project did not write: the Berkeley Function-Calling
//! Leaderboard (BFCL, PyPI `bfcl-eval`, Apache-2.0), read from the wheel that
//! `scripts/install-bfcl.sh` unpacks into the cache. Nothing is fetched at run time.
//!
//! Four subsets give one question and the one function it needs per row: `simple_python`,
//! `multiple`, `live_simple` and `live_multiple`. Every function any row offers is pooled into
//! one catalogue, one tool per distinct definition (name, description and parameters; key order
//! ignored). A name with several definitions keeps it for the first and gets `__2`, `__3`, … for
//! the others, in pool order, so every tool has its own name. Each question is labelled with
//! its own row's definition of the function its answer calls.
//!
//! The split is fixed before any figure is seen and never tuned on: a question whose id hashes
//! (FNV-1a, 64 bits, over the id's bytes) to an even number is in the tuning half, odd in the
//! test half. Nothing in the rankers was chosen on either half of this set.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{exact_name_misses, rate, Figures, Half, QualityError, Ranked, RankedBy, RANK_DEPTH};
use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::engine::ToolCatalog;

/// The pinned `bfcl-eval` release the committed baselines were measured on.
pub const BFCL_VERSION: &str = "2026.3.23";
/// The data directory instead of the cache's (a directory holding `bfcl_eval/data/`).
pub const BFCL_DIR_ENV: &str = "TOOLSEARCH_QA_BFCL_DIR";
/// What installs the data.
pub const INSTALL_COMMAND: &str = "scripts/install-bfcl.sh";
/// The plugin id the pooled tools are loaded under.
pub const SOURCE_NAME: &str = "bfcl";
/// The committed baseline of the lexical ranker on BFCL.
pub const BASELINE_LEXICAL: &str = include_str!("../../data/search-quality-baseline-bfcl.json");
/// The committed baseline of the hybrid ranker on BFCL.
pub const BASELINE_HYBRID: &str =
    include_str!("../../data/search-quality-baseline-bfcl-hybrid.json");

/// A BFCL subset whose rows each need exactly one function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Subset {
    SimplePython,
    Multiple,
    LiveSimple,
    LiveMultiple,
}

impl Subset {
    /// The four subsets, in the order they are pooled.
    pub const ALL: [Subset; 4] = [
        Subset::SimplePython,
        Subset::Multiple,
        Subset::LiveSimple,
        Subset::LiveMultiple,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Subset::SimplePython => "simple_python",
            Subset::Multiple => "multiple",
            Subset::LiveSimple => "live_simple",
            Subset::LiveMultiple => "live_multiple",
        }
    }

    /// The questions file, relative to the data directory.
    fn questions_file(self) -> String {
        format!("bfcl_eval/data/BFCL_v4_{}.json", self.as_str())
    }

    /// The answers file, relative to the data directory.
    fn answers_file(self) -> String {
        format!(
            "bfcl_eval/data/possible_answer/BFCL_v4_{}.json",
            self.as_str()
        )
    }
}

/// The half a question is in: by its id's FNV-1a hash, even → tuning, odd → test.
pub fn half_of(id: &str) -> Half {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    if hash.is_multiple_of(2) {
        Half::Tuning
    } else {
        Half::Test
    }
}

/// The data directory: `$TOOLSEARCH_QA_BFCL_DIR`, else `<cache root>/bfcl-eval-<version>` with
/// the cache root `$TOOLSEARCH_QA_CACHE` or `$HOME/.cache/toolsearch-qa`.
pub fn data_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os(BFCL_DIR_ENV).filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let root = crate::engine::embed::cache_root()?;
    Some(root.join(format!("bfcl-eval-{BFCL_VERSION}")))
}

/// Whether every subset's questions and answers are where [`data_dir`] points.
pub fn installed() -> bool {
    data_dir().is_some_and(|dir| {
        Subset::ALL
            .iter()
            .all(|s| dir.join(s.questions_file()).is_file() && dir.join(s.answers_file()).is_file())
    })
}

/// One row of a questions file (fields the measurement does not read are ignored).
#[derive(Debug, Deserialize)]
struct Row {
    id: String,
    /// Turns, each a list of messages; these subsets have one turn.
    question: Vec<Vec<Message>>,
    function: Vec<Function>,
}

#[derive(Debug, Deserialize)]
struct Message {
    role: String,
    content: String,
}

/// A function as BFCL declares it.
#[derive(Debug, Clone, Deserialize)]
struct Function {
    name: String,
    #[serde(default)]
    description: String,
    parameters: Value,
}

/// One row of an answers file: the calls that answer the question, each `{name: {args}}`.
#[derive(Debug, Deserialize)]
struct Answer {
    id: String,
    ground_truth: Vec<Map<String, Value>>,
}

/// One question, what a user said, and the pooled tool that answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub id: String,
    pub subset: Subset,
    pub text: String,
    /// Index of the right tool in [`Pool::entries`].
    pub tool: usize,
}

/// The pooled catalogue and the labelled questions.
#[derive(Debug, Clone)]
pub struct Pool {
    pub entries: Vec<ToolEntry>,
    pub questions: Vec<Question>,
    /// Distinct function names before they were made unique.
    pub distinct_names: usize,
    /// Per subset, the pooled tools its rows offer (indices into `entries`).
    pub offered: Vec<(Subset, BTreeSet<usize>)>,
}

/// Pools the functions of `defs` into unique names and entries; fills [`Pool`].
#[derive(Default)]
struct Pooling {
    /// Canonical text of a definition → its index.
    index: HashMap<String, usize>,
    defs: Vec<Function>,
}

impl Pooling {
    fn add(&mut self, function: &Function) -> usize {
        let key = canonical(&serde_json::json!({
            "name": function.name,
            "description": function.description,
            "parameters": function.parameters,
        }));
        *self.index.entry(key).or_insert_with(|| {
            self.defs.push(function.clone());
            self.defs.len() - 1
        })
    }

    /// One entry per definition, named uniquely; errors if a made-up name is taken.
    fn entries(self) -> Result<(Vec<ToolEntry>, usize), QualityError> {
        let names: BTreeSet<&str> = self.defs.iter().map(|d| d.name.as_str()).collect();
        let distinct = names.len();
        let mut seen: HashMap<&str, usize> = HashMap::new();
        let mut unique = Vec::with_capacity(self.defs.len());
        for def in &self.defs {
            let count = seen.entry(def.name.as_str()).or_insert(0);
            *count += 1;
            let name = match *count {
                1 => def.name.clone(),
                k => format!("{}__{k}", def.name),
            };
            if *count > 1 && names.contains(name.as_str()) {
                return Err(QualityError::Set(format!(
                    "BFCL: the name {name:?} made for another definition of {:?} is taken",
                    def.name
                )));
            }
            unique.push(name);
        }
        let entries = self
            .defs
            .into_iter()
            .zip(unique)
            .map(|(def, name)| {
                ToolEntry::new(
                    ToolSource::Openclaw,
                    SOURCE_NAME,
                    name,
                    def.description,
                    def.parameters,
                    Executor::FakePlugin {
                        plugin: SOURCE_NAME.into(),
                    },
                )
            })
            .collect();
        Ok((entries, distinct))
    }
}

/// JSON text with every object's keys sorted: equal definitions give equal text.
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// Parses a JSON-lines file into `T`s; errors name the file and line.
fn json_lines<T: serde::de::DeserializeOwned>(
    dir: &Path,
    file: &str,
) -> Result<Vec<(usize, T)>, QualityError> {
    let text = std::fs::read_to_string(dir.join(file)).map_err(|e| {
        QualityError::Set(format!(
            "BFCL: {}: {e} (install the data: bash {INSTALL_COMMAND})",
            dir.join(file).display()
        ))
    })?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .map(|row| (i + 1, row))
                .map_err(|e| QualityError::Set(format!("BFCL: {file}:{}: {e}", i + 1)))
        })
        .collect()
}

/// The question a user asked: the user messages of the first turn, joined by a space.
fn question_text(row: &Row) -> String {
    row.question
        .first()
        .into_iter()
        .flatten()
        .filter(|m| m.role == "user")
        .map(|m| m.content.trim())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads the four subsets under `dir` and pools them.
pub fn load(dir: &Path) -> Result<Pool, QualityError> {
    let mut pooling = Pooling::default();
    let mut labelled: Vec<(String, Subset, String, usize)> = Vec::new();
    let mut offered = Vec::new();
    for subset in Subset::ALL {
        let answers_file = subset.answers_file();
        let answers: HashMap<String, (usize, Answer)> = json_lines::<Answer>(dir, &answers_file)?
            .into_iter()
            .map(|(line, a)| (a.id.clone(), (line, a)))
            .collect();
        let questions_file = subset.questions_file();
        let mut tools = BTreeSet::new();
        for (line, row) in json_lines::<Row>(dir, &questions_file)? {
            let at = || format!("BFCL: {questions_file}:{line} ({})", row.id);
            let indices: Vec<usize> = row.function.iter().map(|f| pooling.add(f)).collect();
            tools.extend(indices.iter().copied());
            let Some((answer_line, answer)) = answers.get(&row.id) else {
                return Err(QualityError::Set(format!(
                    "{}: no answer in {answers_file}",
                    at()
                )));
            };
            let called: Vec<&String> = answer.ground_truth.iter().flat_map(|c| c.keys()).collect();
            let [name] = called.as_slice() else {
                return Err(QualityError::Set(format!(
                    "{}: {answers_file}:{answer_line} calls {} functions, not one",
                    at(),
                    called.len()
                )));
            };
            let mut matching = row
                .function
                .iter()
                .zip(&indices)
                .filter(|(f, _)| &&f.name == name);
            let (Some((_, &tool)), None) = (matching.next(), matching.next()) else {
                return Err(QualityError::Set(format!(
                    "{}: the row offers no single function named {name:?}",
                    at()
                )));
            };
            let text = question_text(&row);
            if text.is_empty() {
                return Err(QualityError::Set(format!("{}: no user message", at())));
            }
            labelled.push((row.id, subset, text, tool));
        }
        offered.push((subset, tools));
    }
    let (entries, distinct_names) = pooling.entries()?;
    let questions = labelled
        .into_iter()
        .map(|(id, subset, text, tool)| Question {
            id,
            subset,
            text,
            tool,
        })
        .collect();
    Ok(Pool {
        entries,
        questions,
        distinct_names,
        offered,
    })
}

/// Reads the installed data (see [`data_dir`]); a missing install names the install command.
pub fn load_installed() -> Result<Pool, QualityError> {
    match data_dir() {
        Some(dir) if installed() => load(&dir),
        dir => Err(QualityError::Set(format!(
            "BFCL {BFCL_VERSION} is not installed{}: run `bash {INSTALL_COMMAND}` (or set \
             {BFCL_DIR_ENV} to a directory holding bfcl_eval/data/)",
            dir.map(|d| format!(" in {}", d.display()))
                .unwrap_or_default()
        ))),
    }
}

/// The pooled tools as a gateway that checks JSON Schema must be given them. BFCL writes
/// parameter types in its own words (`dict`, `float`, `tuple`, `any`, and a few Java ones),
/// and its own harness maps them to JSON Schema's before it declares the functions to an
/// OpenAI-style model (`bfcl_eval/constants/type_mappings.py` in the wheel): the same mapping
/// here, at every level of a schema (properties, items, additionalProperties, anyOf/oneOf/allOf),
/// and the top level an `object`. Names, descriptions and everything else stay as they are. The
/// embedded engine ranks the pool as BFCL wrote it (its ranking does not read types).
pub fn json_schema_entries(entries: &[ToolEntry]) -> Vec<ToolEntry> {
    entries
        .iter()
        .map(|e| {
            let mut parameters = (*e.parameters).clone();
            json_schema_types(&mut parameters);
            if let Value::Object(map) = &mut parameters {
                map.insert("type".into(), Value::String("object".into()));
            }
            let mut entry = e.clone();
            entry.parameters = std::sync::Arc::new(parameters);
            entry
        })
        .collect()
}

/// BFCL's type word → JSON Schema's (its table for OpenAI-style models); others unchanged.
fn json_schema_type(word: &str) -> Option<&'static str> {
    Some(match word {
        "dict" | "HashMap" | "Hashtable" => "object",
        "float" | "double" => "number",
        "tuple" | "list" | "ArrayList" | "Array" | "Queue" | "Stack" => "array",
        "any" | "Any" | "String" | "char" => "string",
        "bool" => "boolean",
        "byte" | "short" | "long" | "Bigint" => "integer",
        _ => return None,
    })
}

fn json_schema_types(schema: &mut Value) {
    let Value::Object(node) = schema else {
        return;
    };
    if let Some(Value::String(word)) = node.get("type") {
        if let Some(mapped) = json_schema_type(word) {
            node.insert("type".into(), Value::String(mapped.into()));
        }
    }
    if let Some(Value::Object(properties)) = node.get_mut("properties") {
        properties.values_mut().for_each(json_schema_types);
    }
    for key in ["items", "additionalProperties"] {
        match node.get_mut(key) {
            Some(Value::Array(list)) => list.iter_mut().for_each(json_schema_types),
            Some(value) => json_schema_types(value),
            None => {}
        }
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(Value::Array(list)) = node.get_mut(key) {
            list.iter_mut().for_each(json_schema_types);
        }
    }
}

/// Figures of one subset (or of all pooled) per half.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubsetFigures {
    /// The subset, or `pooled` for every question.
    pub subset: String,
    pub tuning: Figures,
    pub test: Figures,
    pub all: Figures,
    /// The tools this subset's rows offer that come first when searched by their own name.
    pub exact_name_hits: usize,
    pub exact_name_tools: usize,
    pub exact_name_recall: f64,
}

/// A question whose right tool did not come first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BfclMiss {
    /// The BFCL question id (the question text stays in BFCL's files).
    pub id: String,
    pub tool: String,
    pub half: Half,
    /// 1-based rank within the top [`RANK_DEPTH`], or `None` when not found there.
    pub rank: Option<usize>,
    pub first: Option<String>,
    /// The tool that came first is another definition of the same function name.
    pub sibling: bool,
}

/// The measured figures of one ranker on BFCL.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BfclReport {
    pub ranker: RankedBy,
    pub bfcl_version: &'static str,
    /// Pooled tools: one per distinct definition.
    pub catalog_size: usize,
    /// Distinct function names among them.
    pub distinct_names: usize,
    pub questions: usize,
    /// The four subsets, then `pooled`.
    pub figures: Vec<SubsetFigures>,
    /// Tools that did not come first when searched by their own name (names, sorted).
    pub exact_name_misses: Vec<String>,
    /// Misses whose first result was a sibling definition of the same function name.
    pub sibling_misses: usize,
    pub misses: Vec<BfclMiss>,
    /// The one half measured (`quality --bfcl --target openclaw --half`, CI's cheaper product
    /// run): only its questions were searched, and no tool by its own name, so the other half's
    /// figures are empty and exact-name recall is not measured. `None`: everything was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half: Option<Half>,
    /// The product whose own search ranked (`None`: the embedded engine).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<crate::targets::Product>,
    /// The product's whole catalogue as its telemetry counts it: the pooled tools and its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product_catalog_size: Option<usize>,
}

/// The function name a pooled tool was made from (its `__<k>` suffix removed).
fn base_name(name: &str) -> &str {
    match name.rsplit_once("__") {
        Some((base, k)) if !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// Ranks every question of `pool` in `catalog` (built from `pool.entries`) and measures it.
pub fn measure(catalog: &ToolCatalog, pool: &Pool) -> BfclReport {
    let entries = catalog.entries();
    // The catalogue keeps its own order: a pool index is mapped to the catalogue's by id.
    let by_id: HashMap<&str, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id.as_str(), i))
        .collect();
    let at = |pool_index: usize| -> usize {
        by_id
            .get(pool.entries[pool_index].id.as_str())
            .copied()
            .unwrap_or(usize::MAX)
    };
    let texts: Vec<&str> = pool.questions.iter().map(|q| q.text.as_str()).collect();
    catalog.prepare_queries(&texts);
    let ranked: Vec<Ranked> = pool
        .questions
        .iter()
        .map(|q| {
            let ranked = catalog.ranked(&q.text, RANK_DEPTH);
            let rank = ranked.iter().position(|&i| i == at(q.tool)).map(|p| p + 1);
            (rank, ranked.first().map(|&i| entries[i].name.clone()))
        })
        .collect();
    let missed_ids = exact_name_misses(catalog);
    let missed: BTreeSet<usize> = pool
        .entries
        .iter()
        .enumerate()
        .filter(|(_, e)| missed_ids.binary_search(&e.id).is_ok())
        .map(|(i, _)| i)
        .collect();
    report_of(pool, catalog.ranker().into(), &ranked, &missed)
}

/// The report of one search over `pool`, whoever ranked it (the embedded engine, or the
/// product's own search: [`super::openclaw::rank`]): per question the right tool's rank within
/// [`RANK_DEPTH`] and the first result's name, and the pooled tools (by index) that did not come
/// first when searched by their own name.
pub fn report_of(
    pool: &Pool,
    ranker: RankedBy,
    ranked: &[Ranked],
    missed: &BTreeSet<usize>,
) -> BfclReport {
    let all_tools: BTreeSet<usize> = (0..pool.entries.len()).collect();
    let mut figures: Vec<SubsetFigures> = pool
        .offered
        .iter()
        .map(|(subset, tools)| {
            figures_of(subset.as_str(), pool, ranked, Some(*subset), tools, missed)
        })
        .collect();
    figures.push(figures_of("pooled", pool, ranked, None, &all_tools, missed));
    let misses: Vec<BfclMiss> = pool
        .questions
        .iter()
        .zip(ranked)
        .filter(|(_, (rank, _))| *rank != Some(1))
        .map(|(q, (rank, first))| BfclMiss {
            id: q.id.clone(),
            tool: pool.entries[q.tool].name.clone(),
            half: half_of(&q.id),
            rank: *rank,
            first: first.clone(),
            sibling: first
                .as_deref()
                .is_some_and(|f| base_name(f) == base_name(&pool.entries[q.tool].name)),
        })
        .collect();
    let mut exact_name_misses: Vec<String> = missed
        .iter()
        .map(|&i| pool.entries[i].name.clone())
        .collect();
    exact_name_misses.sort();
    BfclReport {
        ranker,
        bfcl_version: BFCL_VERSION,
        catalog_size: pool.entries.len(),
        distinct_names: pool.distinct_names,
        questions: pool.questions.len(),
        figures,
        exact_name_misses,
        sibling_misses: misses.iter().filter(|m| m.sibling).count(),
        misses,
        half: None,
        product: None,
        product_catalog_size: None,
    }
}

fn figures_of(
    label: &str,
    pool: &Pool,
    ranked: &[Ranked],
    subset: Option<Subset>,
    tools: &BTreeSet<usize>,
    missed: &BTreeSet<usize>,
) -> SubsetFigures {
    let ranks = |half: Option<Half>| -> Vec<Option<usize>> {
        pool.questions
            .iter()
            .zip(ranked)
            .filter(|(q, _)| subset.is_none_or(|s| q.subset == s))
            .filter(|(q, _)| half.is_none_or(|h| half_of(&q.id) == h))
            .map(|(_, (rank, _))| *rank)
            .collect()
    };
    let hits = tools.iter().filter(|i| !missed.contains(i)).count();
    SubsetFigures {
        subset: label.to_string(),
        tuning: Figures::from_ranks(&ranks(Some(Half::Tuning))),
        test: Figures::from_ranks(&ranks(Some(Half::Test))),
        all: Figures::from_ranks(&ranks(None)),
        exact_name_hits: hits,
        exact_name_tools: tools.len(),
        exact_name_recall: rate(hits, tools.len()),
    }
}

/// The fields of a committed BFCL report a new measurement is compared with.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BfclBaseline {
    pub figures: Vec<SubsetFigures>,
}

impl BfclBaseline {
    pub fn parse(text: &str) -> Result<Self, QualityError> {
        let baseline: BfclBaseline =
            serde_json::from_str(text).map_err(|e| QualityError::Baseline(e.to_string()))?;
        if baseline.figures.is_empty() {
            return Err(QualityError::Baseline("no figures".into()));
        }
        Ok(baseline)
    }

    /// The committed baseline of `ranker`.
    pub fn builtin(ranker: RankedBy) -> Result<Self, QualityError> {
        match ranker {
            RankedBy::Lexical => Self::parse(BASELINE_LEXICAL),
            RankedBy::Hybrid => Self::parse(BASELINE_HYBRID),
            RankedBy::Openclaw => Err(QualityError::Baseline(
                "no committed BFCL baseline for the product".into(),
            )),
        }
    }
}

impl BfclReport {
    /// What got worse than `baseline`, per subset and pooled: recall@1 or recall@5 of either
    /// half, or exact-name hits. A subset the baseline lacks (or the report) is a regression.
    /// With one half measured ([`BfclReport::half`]), only that half's figures are compared.
    pub fn regressions(&self, baseline: &BfclBaseline) -> Vec<String> {
        let mut out = Vec::new();
        for base in &baseline.figures {
            let Some(now) = self.figures.iter().find(|f| f.subset == base.subset) else {
                out.push(format!("{}: not measured", base.subset));
                continue;
            };
            let halves = [
                (Half::Tuning, "tuning", &now.tuning, &base.tuning),
                (Half::Test, "test", &now.test, &base.test),
            ];
            for (which, half, now_half, base_half) in halves {
                if self.half.is_some_and(|h| h != which) {
                    continue;
                }
                for line in super::half_regressions(half, now_half, base_half) {
                    out.push(format!("{}: {line}", base.subset));
                }
            }
            if self.half.is_none() && now.exact_name_hits < base.exact_name_hits {
                out.push(format!(
                    "{}: exact-name hits fell to {}/{} from the baseline's {}/{}",
                    base.subset,
                    now.exact_name_hits,
                    now.exact_name_tools,
                    base.exact_name_hits,
                    base.exact_name_tools
                ));
            }
        }
        out
    }

    /// Without a baseline only exact-name recall can regress: every pooled tool must come first
    /// for its own name.
    pub fn exact_name_regressions(&self) -> Vec<String> {
        if self.half.is_some() {
            return Vec::new();
        }
        match self.exact_name_misses.len() {
            0 => Vec::new(),
            n => vec![format!(
                "pooled: {n} of {} tools did not come first for their own name",
                self.catalog_size
            )],
        }
    }

    /// Marks the report as measuring `half` only: the exact-name figures, never searched, are
    /// cleared rather than shown as hits.
    pub fn only_half(mut self, half: Half) -> Self {
        self.half = Some(half);
        self.exact_name_misses.clear();
        for f in &mut self.figures {
            f.exact_name_hits = 0;
            f.exact_name_tools = 0;
            f.exact_name_recall = 0.0;
        }
        self
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Per subset and pooled, each half's figures (and the baseline's beside them).
    pub fn to_table(&self, baseline: Option<&BfclBaseline>) -> String {
        let mut text = format!(
            "search quality on BFCL {}, {} ranker: {} questions, {} pooled tools ({} names)\n",
            self.bfcl_version,
            self.ranker.as_str(),
            self.questions,
            self.catalog_size,
            self.distinct_names
        );
        if let Some(product) = &self.product {
            text.push_str(&format!(
                "searched by OpenClaw {} on Node {} (its catalogue: {} tools with its own)\n",
                product.version,
                product.node,
                self.product_catalog_size
                    .map_or_else(|| "?".to_string(), |n| n.to_string())
            ));
        }
        text.push_str(&format!(
            "{:<14} {:<7} {:>6} {:>9} {:>9} {:>7} {:>10}  {}\n",
            "subset", "half", "n", "recall@1", "recall@5", "MRR", "exact-name", "baseline r@1/r@5"
        ));
        for f in &self.figures {
            let base = baseline.and_then(|b| b.figures.iter().find(|b| b.subset == f.subset));
            for (which, half, figures, base_half) in [
                (Half::Tuning, "tuning", &f.tuning, base.map(|b| &b.tuning)),
                (Half::Test, "test", &f.test, base.map(|b| &b.test)),
            ] {
                if self.half.is_some_and(|h| h != which) {
                    continue;
                }
                let exact = match (half, self.half) {
                    (_, Some(_)) => "-".to_string(),
                    ("tuning", None) => format!("{:.4}", f.exact_name_recall),
                    _ => String::new(),
                };
                let base_text = base_half
                    .map(|b| format!("{:.4} / {:.4}", b.recall_at_1, b.recall_at_5))
                    .unwrap_or_else(|| "-".into());
                text.push_str(&format!(
                    "{:<14} {:<7} {:>6} {:>9.4} {:>9.4} {:>7.4} {:>10}  {}\n",
                    f.subset,
                    half,
                    figures.queries,
                    figures.recall_at_1,
                    figures.recall_at_5,
                    figures.mrr,
                    exact,
                    base_text
                ));
            }
        }
        text.push_str(&format!(
            "{} questions not first ({} to another definition of the same name); \
             --format json lists them\n",
            self.misses.len(),
            self.sibling_misses
        ));
        text
    }
}

#[cfg(test)]
mod tests;
