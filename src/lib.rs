//! toolsearch-qa: a QA and benchmark harness for LLM-agent Tool Search.
//!
//! Rooms (see `design.md`): [`catalog`] what tools are, [`config`] the gateway config,
//! [`engine`] Tool Search itself, [`sandbox`] code-mode executors, [`provider`] the mock
//! OpenAI provider, [`gateway`] the embedded gateway, [`harness`] scenarios, lanes, claims and reports.

pub mod catalog;
pub mod compare;
pub mod config;
pub mod engine;
pub mod gateway;
pub mod harness;
pub mod provider;
pub mod sandbox;
