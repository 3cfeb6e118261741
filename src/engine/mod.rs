//! The Tool Search engine (spec §3–§7): the effective catalogue, search, describe, call, and the
//! model-visible surface per mode. It knows nothing of HTTP; the gateway drives it and supplies
//! the path that really executes a tool through [`run::ToolRunner`].

pub mod catalog;
pub mod error;
pub mod run;

pub use catalog::{DescribeItem, SearchItem, SearchLimits, ToolCatalog};
pub use error::EngineError;
pub use run::{CallOutcome, Telemetry, ToolRunner, ToolSearchRun};
