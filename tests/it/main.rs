//! The integration tests, as one test crate: on two cores every extra test binary is another
//! full link of the library, so each former `tests/*.rs` file is a module here. Shared helpers
//! (gateway configs, starting a gateway, running the binary) live in [`common`].

mod common;

mod catalogue_sources;
mod ci_reports;
mod cli;
mod client_tools;
mod compare;
mod docs;
mod faults;
mod gateway_http;
mod load;
mod openclaw_real;
mod policy_leak;
mod probes;
mod profile;
mod profile_fidelity;
mod provider;
mod quality;
mod reference_scenario;
mod sandbox_hostile;
mod search_sources;
mod snapshots;
mod streaming;
