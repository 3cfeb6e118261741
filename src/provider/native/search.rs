//! The mock's tool search over a request's deferred tools — the stand-in for the provider's own
//! search, so reports must call it the mock's ranker, not OpenAI's or Anthropic's.
//!
//! BM25 is the engine's lexical ranker (`crate::engine::ToolCatalog`, exact name first) over
//! each deferred tool's name, description and argument names/descriptions; regex applies a Rust
//! `regex` pattern to the same text and keeps the first matches in declaration order. Only the
//! top-level argument names and descriptions are read from a schema (streamed, no JSON tree), so
//! a 10,000-tool request stays cheap to search.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::catalog::{Executor, ToolEntry, ToolSource};
use crate::engine::{SearchLimits, ToolCatalog};

/// How many tools a search loads (the providers' guides speak of three to five).
pub const SEARCH_LIMIT: usize = 5;

/// One deferred tool as the search sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub name: String,
    pub description: String,
    /// Top-level argument names with their descriptions.
    pub arguments: Vec<(String, Option<String>)>,
}

#[derive(Deserialize)]
struct SchemaHead {
    #[serde(default)]
    properties: Option<BTreeMap<String, PropertyHead>>,
}

#[derive(Deserialize)]
struct PropertyHead {
    #[serde(default)]
    description: Option<Value>,
}

impl Candidate {
    /// A candidate from a declaration: its schema is the JSON text `schema` (unreadable → no
    /// arguments).
    pub fn new(name: &str, description: &str, schema: Option<&str>) -> Candidate {
        let arguments = schema
            .and_then(|text| serde_json::from_str::<SchemaHead>(text).ok())
            .and_then(|head| head.properties)
            .unwrap_or_default()
            .into_iter()
            .map(|(name, p)| {
                let description = p.description.and_then(|d| d.as_str().map(str::to_string));
                (name, description)
            })
            .collect();
        Candidate {
            name: name.to_string(),
            description: description.to_string(),
            arguments,
        }
    }

    /// Name, description and argument text, one per line (what a regex is matched against).
    pub fn text(&self) -> String {
        let mut text = format!("{}\n{}", self.name, self.description);
        for (name, description) in &self.arguments {
            text.push('\n');
            text.push_str(name);
            if let Some(description) = description {
                text.push(' ');
                text.push_str(description);
            }
        }
        text
    }

    /// The small schema the engine indexes (argument names and descriptions only).
    fn schema(&self) -> Value {
        let properties: serde_json::Map<String, Value> = self
            .arguments
            .iter()
            .map(|(name, description)| {
                let property = match description {
                    Some(d) => json!({ "description": d }),
                    None => json!({}),
                };
                (name.clone(), property)
            })
            .collect();
        json!({ "type": "object", "properties": properties })
    }
}

/// The positions (in `candidates`) of the top `limit` for `query`, best first: the engine's
/// lexical ranker (an exact name match first, then BM25).
pub fn bm25(candidates: &[Candidate], query: &str, limit: usize) -> Vec<usize> {
    Bm25Index::new(candidates, limit).ranked(query)
}

/// The candidates indexed once for many queries (a labelled set ranks hundreds against one
/// catalogue; building the index per query was most of `compare`'s time with native modes).
pub struct Bm25Index<'a> {
    catalog: ToolCatalog,
    limit: usize,
    /// Each name's first position in the candidates.
    position: HashMap<&'a str, usize>,
}

impl<'a> Bm25Index<'a> {
    pub fn new(candidates: &'a [Candidate], limit: usize) -> Bm25Index<'a> {
        // Tools with the same arguments share one schema value: the engine indexes a schema once.
        let mut schemas: HashMap<&[(String, Option<String>)], Arc<Value>> = HashMap::new();
        let entries = candidates
            .iter()
            .map(|c| {
                let schema = schemas
                    .entry(&c.arguments)
                    .or_insert_with(|| Arc::new(c.schema()))
                    .clone();
                ToolEntry::new(
                    ToolSource::Openclaw,
                    "native",
                    &c.name,
                    &c.description,
                    schema,
                    Executor::FakePlugin {
                        plugin: "native".into(),
                    },
                )
            })
            .collect();
        let limit = limit.max(1);
        let limits = SearchLimits {
            default_limit: limit,
            max_limit: limit,
            ..SearchLimits::default()
        };
        let mut position: HashMap<&str, usize> = HashMap::new();
        for (i, c) in candidates.iter().enumerate().rev() {
            position.insert(&c.name, i);
        }
        Bm25Index {
            catalog: ToolCatalog::new(entries, limits),
            limit,
            position,
        }
    }

    /// The positions of the top `limit` for `query`, best first.
    pub fn ranked(&self, query: &str) -> Vec<usize> {
        self.catalog
            .ranked(query, self.limit)
            .into_iter()
            .filter_map(|i| {
                let name = self.catalog.entries()[i].name.as_str();
                self.position.get(name).copied()
            })
            .collect()
    }
}

/// The positions of the first `limit` candidates whose text `pattern` matches, in declaration
/// order; an error when the `regex` crate rejects the pattern.
pub fn regex(
    candidates: &[Candidate],
    pattern: &str,
    limit: usize,
) -> Result<Vec<usize>, regex::Error> {
    let re = regex::Regex::new(pattern)?;
    Ok(candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| re.is_match(&c.text()))
        .map(|(i, _)| i)
        .take(limit)
        .collect())
}

/// The pattern the scripted model searches a target with: the name as a whole word.
pub fn pattern_for(target: &str) -> String {
    format!(r"\b{}\b", regex::escape(target))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::{fake_plugin_tools, fake_tool_name};

    fn fake(count: usize) -> Vec<Candidate> {
        fake_plugin_tools("p", count)
            .iter()
            .map(|e| Candidate::new(&e.name, &e.description, Some(&e.parameters.to_string())))
            .collect()
    }

    #[test]
    fn the_target_ranks_first_at_36_and_10000_tools() {
        for count in [36, 10_000] {
            let candidates = fake(count);
            let target = &fake_tool_name(17, count);
            let hits = bm25(&candidates, target, SEARCH_LIMIT);
            assert_eq!(hits.len(), SEARCH_LIMIT, "{count}");
            assert_eq!(&candidates[hits[0]].name, target, "{count}");
            let found = regex(&candidates, &pattern_for(target), SEARCH_LIMIT).unwrap();
            let names: Vec<&str> = found.iter().map(|&i| candidates[i].name.as_str()).collect();
            assert_eq!(names, [target.as_str()], "{count}: whole word only");
        }
    }

    #[test]
    fn arguments_are_read_and_searched() {
        let c = Candidate::new(
            "send_mail",
            "Sends a message.",
            Some(
                r#"{"type":"object","properties":{"recipient":{"type":"string","description":"Who gets it"},"cc":{}}}"#,
            ),
        );
        assert_eq!(
            c.arguments,
            [
                ("cc".into(), None),
                ("recipient".into(), Some("Who gets it".into()))
            ]
        );
        let other = Candidate::new("read_file", "Reads a file.", Some("not json"));
        assert!(other.arguments.is_empty());
        let both = [other, c];
        assert_eq!(bm25(&both, "recipient", 5), [1]);
        assert_eq!(regex(&both, "(?i)who gets", 5).unwrap(), [1]);
        assert!(regex(&both, "(", 5).is_err());
        assert_eq!(pattern_for("a.b"), r"\ba\.b\b");
    }
}
