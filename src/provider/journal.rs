//! The request journal: every `POST /v1/responses` the mock provider received, in arrival order.
//!
//! The harness observes a target only through what reached the provider, so the journal keeps the
//! exact body bytes (for payload-size claims) next to what the scripted model made of them.

use std::sync::{Arc, Mutex, MutexGuard};

use serde::Serialize;

/// Whether a request starts a turn or continues one after tool output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestKind {
    /// No tool output after the last user message.
    AgentInitial,
    /// At least one tool output after the last user message.
    ToolContinuation,
}

/// One journaled provider request.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalRecord {
    /// 1-based position in the journal.
    pub cursor: u64,
    /// The body as received (lossy UTF-8 only if the bytes were not UTF-8).
    pub raw: String,
    /// Byte length of the body as received.
    pub raw_byte_length: usize,
    /// The parsed body (`null` when it was not valid JSON).
    pub body: serde_json::Value,
    /// Text of the last user message.
    pub prompt: String,
    /// `instructions` plus the text of every message item, joined by newlines.
    pub all_input_text: String,
    /// The latest tool output after the last user message.
    pub tool_output: Option<String>,
    /// Initial request or tool continuation.
    pub request_kind: RequestKind,
    /// The tool the model meant to reach (the target when a dispatcher carries it).
    pub planned_tool_name: Option<String>,
    /// The tool name put on the wire when it differs from `planned_tool_name` (a dispatcher).
    pub planned_wire_tool_name: Option<String>,
    /// Arguments meant for `planned_tool_name`.
    pub planned_tool_args: Option<serde_json::Value>,
    /// What the model decided, as a short kebab-case word (see [`crate::provider::Outcome`]).
    pub outcome: String,
}

/// Shared, append-only journal; clones see the same records. Records are shared, never copied:
/// a 10,000-tool request body is megabytes raw and tens of megabytes parsed.
#[derive(Debug, Clone, Default)]
pub struct Journal {
    records: Arc<Mutex<Vec<Arc<JournalRecord>>>>,
}

impl Journal {
    /// An empty journal.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Arc<JournalRecord>>> {
        // A poisoned lock only means another thread panicked mid-push; the data is still a valid Vec.
        self.records
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Number of records so far (0 when empty); equals the cursor of the last record.
    pub fn cursor(&self) -> u64 {
        self.lock().len() as u64
    }

    /// Records whose cursor is greater than `cursor`, in order.
    pub fn since(&self, cursor: u64) -> Vec<Arc<JournalRecord>> {
        self.lock()
            .iter()
            .filter(|record| record.cursor > cursor)
            .cloned()
            .collect()
    }

    /// Every record, in order.
    pub fn all(&self) -> Vec<Arc<JournalRecord>> {
        self.lock().clone()
    }

    /// The most recent record, if any.
    pub fn last(&self) -> Option<Arc<JournalRecord>> {
        self.lock().last().cloned()
    }

    /// Appends a record built from its cursor; returns that cursor.
    pub(crate) fn push_with(&self, build: impl FnOnce(u64) -> JournalRecord) -> u64 {
        let mut records = self.lock();
        let cursor = records.len() as u64 + 1;
        records.push(Arc::new(build(cursor)));
        cursor
    }
}
