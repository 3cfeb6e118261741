//! PLACEHOLDER (replaced by the real search engine): the catalogue of hidden tools.

use serde::Serialize;
use serde_json::Value;

use super::EngineError;
use crate::catalog::{ToolEntry, ToolSource};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLimits {
    pub default_limit: usize,
    pub max_limit: usize,
}

impl Default for SearchLimits {
    fn default() -> Self {
        SearchLimits {
            default_limit: 8,
            max_limit: 20,
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

#[derive(Debug, Clone)]
pub struct ToolCatalog {
    entries: Vec<ToolEntry>,
    limits: SearchLimits,
}

impl ToolCatalog {
    pub fn new(mut entries: Vec<ToolEntry>, limits: SearchLimits) -> Self {
        entries.sort_by(|a, b| a.id.cmp(&b.id));
        ToolCatalog { entries, limits }
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
    pub fn resolve_limit(&self, raw: Option<&Value>) -> Result<usize, EngineError> {
        match raw {
            None | Some(Value::Null) => Ok(self.limits.default_limit),
            Some(v) => match v.as_u64() {
                Some(n) if n >= 1 => Ok((n as usize).min(self.limits.max_limit)),
                _ => Err(EngineError::InvalidInput(
                    "limit must be an integer >= 1.".into(),
                )),
            },
        }
    }
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchItem> {
        let q = query.trim();
        if q.is_empty() {
            return vec![];
        }
        self.entries
            .iter()
            .filter(|e| e.name.contains(q) || e.description.contains(q))
            .take(limit)
            .map(search_item)
            .collect()
    }
    pub fn lookup(&self, id_or_name: &str) -> Result<&ToolEntry, EngineError> {
        let key = id_or_name.trim();
        if let Some(e) = self.entries.iter().find(|e| e.id == key) {
            return Ok(e);
        }
        let named: Vec<&ToolEntry> = self.entries.iter().filter(|e| e.name == key).collect();
        match named.as_slice() {
            [one] => Ok(one),
            [] => Err(EngineError::UnknownTool {
                id: key.into(),
                suggestions: vec![],
                hint: String::new(),
            }),
            many => Err(EngineError::AmbiguousName {
                name: key.into(),
                ids: many.iter().map(|e| e.id.clone()).collect(),
            }),
        }
    }
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
        Ok(DescribeItem {
            item: search_item(entry),
            parameters: entry.parameters.clone(),
            output_schema: entry.output_schema.clone(),
        })
    }
    pub fn validate_input(&self, _entry: &ToolEntry, _args: &Value) -> Result<(), EngineError> {
        Ok(())
    }
    pub fn search_item(&self, entry: &ToolEntry) -> SearchItem {
        search_item(entry)
    }
}

fn search_item(e: &ToolEntry) -> SearchItem {
    SearchItem {
        id: e.id.clone(),
        source: e.source,
        source_name: e.source_name.clone(),
        name: e.name.clone(),
        label: e.label.clone(),
        description: e.description.clone(),
        input: "unknown".into(),
        output: None,
    }
}
