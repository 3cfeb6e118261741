//! toolsearch-qa: a QA and benchmark harness for LLM-agent Tool Search.
//!
//! One room per job, each a module below, and layers import downward only; `docs/layout.md` says
//! what each room owns, its floor, and how to add a claim, a release, a scenario or a command.
//! From the ground up: [`error`], [`protocol`], [`data_root`], [`server`] and [`sandbox`] import
//! no room; [`catalog`], [`output`], [`signals`]; [`config`], [`mcp_fixture`]; [`engine`];
//! [`profile`], [`provider`]; [`gateway`], [`scenario`]; [`mcp_servers`], [`product_seeds`]; [`targets`]; [`outcome`]
//! (typed results, `summary.json`), [`load`], [`regressions`]; [`drive`] (one lane on one target),
//! [`report`] (renders outcomes); [`suite`] (the gate), [`probes`], [`quality`]; [`compare`],
//! [`selftest`], [`snapshot_review`], [`commands`]; [`capture`]; [`releases`]; [`cli`].

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
pub mod product_seeds;
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
