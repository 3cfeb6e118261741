//! toolsearch-qa: a QA and benchmark harness for LLM-agent Tool Search.
//!
//! Rooms (see the Layout section of `README.md`): [`catalog`] what tools are, [`config`] the gateway config,
//! [`engine`] Tool Search itself, [`sandbox`] code-mode executors, [`provider`] the mock
//! OpenAI provider, [`gateway`] the embedded gateway, [`mcp_fixture`] the MCP servers both targets start, [`mcp_servers`] real MCP servers (any stdio server by command) as a catalogue source, [`targets`] what the suite drives (the
//! embedded gateway or a real OpenClaw), [`suite`] scenarios, lanes, claims and reports. The
//! other commands sit beside the suite: [`compare`], [`quality`], [`load`], [`probes`],
//! [`selftest`] (the seeded-regression matrix). [`server`]
//! serves the gateway's and the provider's HTTP with read limits; [`signals`] ends a command on
//! Ctrl-C with its processes and temp dirs cleaned up.

pub mod capture;
pub mod catalog;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod config;
pub mod data_root;
pub mod drive;
pub mod engine;
pub mod error;
pub mod gateway;
pub mod load;
pub mod mcp_fixture;
pub mod mcp_servers;
pub mod outcome;
pub mod output;
pub mod probes;
pub mod profile;
pub mod protocol;
pub mod provider;
pub mod quality;
pub mod regressions;
pub mod releases;
pub mod report;
pub mod sandbox;
pub mod scenario;
pub mod selftest;
pub mod server;
pub mod signals;
pub mod snapshot_review;
pub mod suite;
pub mod targets;
