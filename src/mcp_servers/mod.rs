//! Real MCP servers as a catalogue source: any stdio MCP server a scenario names by command
//! (`[[catalog.mcp_servers]]`), such as the official servers `scripts/install-mcp-servers.sh`
//! installs from npm — schemas nobody here wrote, with `$schema`, `anyOf`, enums, nested objects
//! and long descriptions. Both targets start them as they start the fixtures (OpenClaw's
//! `mcp.servers`); the harness lists them first, on its own, so the claims know their tools.
//!
//! [`launch`] resolves a server's placeholders into a command line on this machine; [`list`] is
//! the harness's listing and its checks.

pub mod launch;
pub mod list;

pub use launch::{Machine, PACKAGES_DIR};
pub use list::{list_catalogues, list_servers, schema_problem, REQUIRE_ENV};
