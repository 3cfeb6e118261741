// For `src/harness/mod.rs`: `include!("openclaw_module.rs");` (or write the line below there).
pub mod openclaw;
