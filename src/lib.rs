//! toolsearch-qa: a QA and benchmark harness for LLM-agent Tool Search.
//!
//! Rooms (see `design.md`): [`catalog`] what tools are, [`config`] the gateway config,
//! [`engine`] Tool Search itself, [`sandbox`] code-mode executors, [`provider`] the mock
//! OpenAI provider, [`gateway`] the embedded gateway, [`harness`] scenarios, lanes, claims and reports.

pub mod catalog;
pub mod engine;
/// Until `src/harness/mod.rs` exists on main: the OpenClaw target's groundwork (branch `openclaw`).
pub mod harness {
    include!("harness/openclaw_module.rs");
}
