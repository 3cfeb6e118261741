//! The command line: the clap structs ([`args`]), each command handed to its room
//! ([`dispatch`]) and the suite's progress bar. In the library, so tests reach the parser.

pub mod args;
pub mod dispatch;
mod progress;

pub use args::{Cli, Command};
