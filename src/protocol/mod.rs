//! What crosses rooms as data: the contract between a gateway and the harness that drives it.
//!
//! A gateway writes [`record::SessionRecord`]s to its session log (the embedded gateway as JSONL,
//! a real OpenClaw's transcript is translated into them) and answers `/v1/responses` with
//! [`responses::ResponseBody`] (as JSON or as the event stream of [`sse`]); the suite, `load`
//! and `probes` read only these types. What the mock provider and the embedded gateway emit is
//! exact ([`response_object`], with [`usage`] counted by the o200k_base tokenizer). Neither
//! side imports the other's internals: what both need — the headers, the session-log layout,
//! the wire shapes — lives here.

pub mod envelope;
pub mod invoke;
pub mod messages;
pub mod raw;
pub mod record;
pub mod response_object;
pub mod responses;
pub mod session;
pub mod sse;
pub mod terms;
pub mod usage;

pub use record::{
    ClientToolCallRecord, MessageRecord, ProviderRequestRecord, Role, SessionRecord, SurfaceRecord,
    TelemetryCounts, ToolCallRecord, ToolResultRecord,
};
pub use responses::{item_text, OutputItem, ResponseBody};

/// The agent a turn runs as (`main` when absent).
pub const AGENT_HEADER: &str = "x-openclaw-agent";
/// The OpenResponses entry point every turn comes in through by default.
pub const RESPONSES_PATH: &str = "/v1/responses";
/// The OpenAI Chat Completions entry point (the product serves it when
/// `gateway.http.endpoints.chatCompletions.enabled`; docs/gateway/openai-http-api.md).
pub const CHAT_COMPLETIONS_PATH: &str = "/v1/chat/completions";
/// The session a turn belongs to (`main` when absent).
pub const SESSION_HEADER: &str = "x-openclaw-session-key";
