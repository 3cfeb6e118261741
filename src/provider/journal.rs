//! The request journal: every `POST /v1/responses` and `POST /v1/messages` the mock provider
//! received, in arrival order, with the reply it sent.
//!
//! The harness observes a target only through what reached the provider, so the journal keeps the
//! exact body bytes (for payload-size claims) next to what the scripted model made of them. The
//! bytes are kept once: a record's [`ParsedBody`] parses them the first time someone reads it
//! (a 10,000-tool body is megabytes as text and tens of megabytes as a JSON tree, and payload
//! measurements never need the tree).

use std::ops::Deref;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use serde::{Serialize, Serializer};
use serde_json::Value;

pub use super::native::Protocol;

/// Whether a request starts a turn or continues one after tool output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestKind {
    /// No tool output after the last user message.
    AgentInitial,
    /// At least one tool output after the last user message.
    ToolContinuation,
}

/// A request body as received (lossy UTF-8 only if the bytes were not UTF-8). Reads as a `str`.
#[derive(Clone, PartialEq, Eq)]
pub struct RawText(Arc<str>);

impl Deref for RawText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl From<String> for RawText {
    fn from(text: String) -> Self {
        RawText(text.into())
    }
}

/// Shares the text (a reply the mock sent keeps one copy for the wire and the journal).
impl From<Arc<str>> for RawText {
    fn from(text: Arc<str>) -> Self {
        RawText(text)
    }
}

impl From<&str> for RawText {
    fn from(text: &str) -> Self {
        RawText(text.into())
    }
}

impl PartialEq<str> for RawText {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for RawText {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for RawText {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl std::fmt::Debug for RawText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for RawText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Serialize for RawText {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

/// A request body as JSON, parsed from the record's [`RawText`] on first use (`null` when it
/// is not valid JSON) and kept from then on. Reads as the parsed `serde_json::Value`.
pub struct ParsedBody {
    text: Option<Arc<str>>,
    value: OnceLock<Value>,
}

impl ParsedBody {
    /// The body of `raw`, parsed when first read.
    pub fn of(raw: &RawText) -> Self {
        ParsedBody {
            text: Some(raw.0.clone()),
            value: OnceLock::new(),
        }
    }

    /// Whether the body has been parsed yet.
    pub fn is_parsed(&self) -> bool {
        self.value.get().is_some()
    }
}

/// An already parsed body (tests build records from values).
impl From<Value> for ParsedBody {
    fn from(value: Value) -> Self {
        ParsedBody {
            text: None,
            value: OnceLock::from(value),
        }
    }
}

impl Deref for ParsedBody {
    type Target = Value;

    fn deref(&self) -> &Value {
        self.value.get_or_init(|| {
            self.text
                .as_deref()
                .and_then(|text| serde_json::from_str(text).ok())
                .unwrap_or(Value::Null)
        })
    }
}

impl PartialEq<Value> for ParsedBody {
    fn eq(&self, other: &Value) -> bool {
        **self == *other
    }
}

impl std::fmt::Debug for ParsedBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl Serialize for ParsedBody {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (**self).serialize(serializer)
    }
}

/// One journaled provider request.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JournalRecord {
    /// 1-based position in the journal.
    pub cursor: u64,
    /// The body as received (lossy UTF-8 only if the bytes were not UTF-8).
    pub raw: RawText,
    /// Byte length of the body as received.
    pub raw_byte_length: usize,
    /// The parsed body (`null` when it was not valid JSON), parsed on first use.
    pub body: ParsedBody,
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
    /// o200k_base tokens of the body: the `usage.input_tokens` the answer reported (none for a
    /// request the mock could not answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    /// Which API the request spoke.
    pub protocol: Protocol,
    /// The reply as sent: the JSON body (an error's too), or the event-stream text — for native
    /// requests and refusals (a plain answer's is not kept: it can echo megabytes of tools).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reply: Option<RawText>,
}

/// Shared, append-only journal; clones see the same records. Records are shared, never copied:
/// a 10,000-tool request body is megabytes raw.
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

    /// The tool output the model was sent back for each `tool_search_code` call the mock
    /// planned, keyed by `key_of(code)` (calls whose code it does not know are skipped): the
    /// request after the one that planned a call carries its output. The first output per key.
    pub fn code_outputs<K: std::hash::Hash + Eq>(
        &self,
        key_of: impl Fn(&str) -> Option<K>,
    ) -> std::collections::HashMap<K, String> {
        let mut outputs = std::collections::HashMap::new();
        let mut planned: Option<K> = None;
        for record in self.lock().iter() {
            if let (Some(key), Some(output)) = (planned.take(), &record.tool_output) {
                outputs.entry(key).or_insert_with(|| output.clone());
            }
            planned = record
                .planned_tool_args
                .as_ref()
                .and_then(|args| args["code"].as_str())
                .and_then(&key_of);
        }
        outputs
    }

    /// Appends a record built from its cursor; returns that cursor.
    pub(crate) fn push_with(&self, build: impl FnOnce(u64) -> JournalRecord) -> u64 {
        let mut records = self.lock();
        let cursor = records.len() as u64 + 1;
        records.push(Arc::new(build(cursor)));
        cursor
    }
}
