//! The integration tests, as one test crate: on two cores every extra test binary is another
//! full link of the library, so each former `tests/*.rs` file is a module here. Shared helpers
//! (gateway configs, starting a gateway, running the binary) live in [`common`].

mod common;

mod authoring;
mod catalogue_sources;
mod ci_reports;
mod cli;
mod client_loop;
mod client_tools;
mod compare;
mod docs;
mod faults;
mod fuzz;
mod gateway_http;
mod hostile_files;
mod hostile_http;
mod hybrid_search;
mod layering;
mod layout_doc;
mod load;
mod mcp_stdio;
mod openclaw_build;
mod openclaw_real;
mod openclaw_suite;
mod policy_leak;
mod probes;
mod profile;
mod profile_fidelity;
mod provider;
mod quality;
mod real_mcp;
mod reference_scenario;
mod release_matrix;
mod releases;
mod report_merge;
mod sandbox_hostile;
mod sandbox_pool;
mod sdk_conformance;
mod search_sources;
mod selftest;
mod signals;
mod snapshots;
mod streaming;
mod tools_invoke;
mod upstream_surface;
mod verdict;
