//! The Tool Search engine (spec §3–§7): the effective catalogue, search, describe, call, and the
//! model-visible surface per mode. It knows nothing of HTTP; the gateway drives it and supplies
//! the path that really executes a tool through [`run::ToolRunner`].

pub mod catalog;
pub mod code_mode;
pub mod directory;
pub mod embed;
pub mod embed_store;
pub mod error;
pub mod expand;
pub mod hybrid;
pub mod index;
pub mod operation;
pub mod run;
pub mod signature;
pub mod surface;
pub mod text;
pub mod validate;

pub use catalog::{DescribeItem, Ranker, SearchItem, SearchLimits, ToolCatalog};
pub use error::EngineError;
pub use run::{CallOutcome, SourceCounts, Telemetry, ToolRunner, ToolSearchRun};
pub use surface::{Surface, SurfacePlan};
