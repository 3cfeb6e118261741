//! One run's view of Tool Search: the catalogue plus the counters the telemetry reports,
//! and `call`, which re-checks the entry and hands execution back to the gateway.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::Serialize;
use serde_json::{json, Value};

use super::{DescribeItem, EngineError, SearchItem, ToolCatalog};
use crate::catalog::{ToolEntry, ToolSource};
pub use crate::protocol::terms::SourceCounts;
use crate::protocol::TelemetryCounts;

/// What executing a tool produced: the result object `{content, details?}`.
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub result: Value,
}

/// The gateway's normal execution path (policy → approval → hooks → execute → logging).
/// `call_id` is the derived target call id (spec §6).
pub trait ToolRunner: Send + Sync {
    /// Is this exact entry (same id, same executor) still available in the run right now?
    fn is_available(&self, entry: &ToolEntry) -> bool;

    fn run<'a>(
        &'a self,
        entry: &'a ToolEntry,
        args: Value,
        call_id: String,
    ) -> Pin<Box<dyn Future<Output = Result<CallOutcome, EngineError>> + Send + 'a>>;
}

/// `{catalogSize, sources, searchCount, describeCount, callCount}` (spec §9).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Telemetry {
    pub catalog_size: usize,
    pub sources: SourceCounts,
    pub search_count: u64,
    pub describe_count: u64,
    pub call_count: u64,
}

impl From<Telemetry> for TelemetryCounts {
    fn from(t: Telemetry) -> Self {
        TelemetryCounts {
            catalog_size: Some(t.catalog_size),
            sources: Some(t.sources),
            search_count: t.search_count,
            describe_count: t.describe_count,
            call_count: t.call_count,
        }
    }
}

/// The catalogue of one run and its counters. Cheap to clone (shared).
#[derive(Clone)]
pub struct ToolSearchRun {
    catalog: Arc<ToolCatalog>,
    counters: Arc<Counters>,
}

#[derive(Default)]
struct Counters {
    search: AtomicU64,
    describe: AtomicU64,
    call: AtomicU64,
    sequence: AtomicU64,
}

impl ToolSearchRun {
    pub fn new(catalog: ToolCatalog) -> Self {
        ToolSearchRun {
            catalog: Arc::new(catalog),
            counters: Arc::default(),
        }
    }

    /// A run over the same catalogue with counters of its own: a gateway's next turn on an
    /// unchanged catalogue reuses the index instead of building it again.
    pub fn fresh(&self) -> Self {
        ToolSearchRun {
            catalog: self.catalog.clone(),
            counters: Arc::default(),
        }
    }

    pub fn catalog(&self) -> &ToolCatalog {
        &self.catalog
    }

    /// `search(query, {limit})`: validates the limit, counts, and ranks.
    pub fn search(
        &self,
        query: &str,
        limit: Option<&Value>,
    ) -> Result<Vec<SearchItem>, EngineError> {
        let limit = self.catalog.resolve_limit(limit)?;
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        self.counters.search.fetch_add(1, Ordering::SeqCst);
        Ok(self.catalog.search(query, limit))
    }

    /// `describe(id)`: counts even when the lookup fails (spec §5).
    pub fn describe(&self, id: &str, recovery_hint: &str) -> Result<DescribeItem, EngineError> {
        self.counters.describe.fetch_add(1, Ordering::SeqCst);
        self.catalog.describe(id, recovery_hint)
    }

    /// `call(id, args)`: looks the entry up again, validates, executes through `runner`, and
    /// returns the envelope `{tool: {id, name, source}, result}`.
    pub async fn call(
        &self,
        id: &str,
        args: Value,
        parent_call_id: &str,
        runner: &dyn ToolRunner,
    ) -> Result<Value, EngineError> {
        let entry = self.catalog.lookup(id)?;
        if !runner.is_available(entry) {
            return Err(EngineError::Unavailable {
                id: entry.id.clone(),
            });
        }
        self.counters.call.fetch_add(1, Ordering::SeqCst);
        if entry.source.is_trusted() {
            self.catalog.validate_input(entry, &args)?;
        }
        let seq = self.counters.sequence.fetch_add(1, Ordering::SeqCst) + 1;
        let call_id = format!("tool_search_code:{parent_call_id}:{}:{seq}", entry.name);
        let outcome = runner.run(entry, args, call_id).await?;
        Ok(json!({
            "tool": { "id": entry.id, "name": entry.name, "source": entry.source },
            "result": outcome.result,
        }))
    }

    pub fn telemetry(&self) -> Telemetry {
        let mut sources = SourceCounts::default();
        for e in self.catalog.entries() {
            match e.source {
                ToolSource::Openclaw => sources.openclaw += 1,
                ToolSource::Mcp => sources.mcp += 1,
                ToolSource::Client => sources.client += 1,
            }
        }
        Telemetry {
            catalog_size: self.catalog.len(),
            sources,
            search_count: self.counters.search.load(Ordering::SeqCst),
            describe_count: self.counters.describe.load(Ordering::SeqCst),
            call_count: self.counters.call.load(Ordering::SeqCst),
        }
    }
}

impl ToolSearchRun {
    /// The batch form of `search` (structured `tool_search` only); counts one search per query.
    pub fn search_batch(&self, queries: &Value) -> Result<Value, EngineError> {
        let result = self
            .catalog
            .search_batch(&serde_json::json!({ "queries": queries }))?;
        let count = queries.as_array().map(|q| q.len() as u64).unwrap_or(0);
        self.counters.search.fetch_add(count, Ordering::SeqCst);
        Ok(result)
    }
}
