//! Where commands write their results: stdout, in the format the user chose. Writing goes through
//! [`emit`], which treats a reader that went away (`| head`) as the end of the output rather than
//! a crash.

use std::io::{ErrorKind, Write};

use crate::error::Error;

/// How a command prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Format {
    /// Readable tables.
    #[default]
    Table,
    /// JSON.
    Json,
}

/// The widest a table may be: every table fits a 100-column terminal (long cells wrap).
pub const TABLE_WIDTH: u16 = 100;

/// A table in the house style (condensed UTF-8 borders) under `header`, its cells wrapped so
/// that it is never wider than [`TABLE_WIDTH`].
pub fn bounded_table(header: impl Into<comfy_table::Row>) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_style(comfy_table::presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(comfy_table::ContentArrangement::Dynamic)
        .set_width(TABLE_WIDTH)
        .set_header(header);
    table
}

/// `text` cut to `chars` characters, with `…` when it was longer.
pub fn cut(text: &str, chars: usize) -> String {
    match text.char_indices().nth(chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

/// The first line of `text`, trimmed and [`cut`] to `chars`: a long message in one row.
pub fn first_line(text: &str, chars: usize) -> String {
    cut(text.lines().next().unwrap_or_default().trim(), chars)
}

/// Writes `text` to `out`. A closed pipe ends the output quietly; any other failure is an error.
pub fn emit(out: &mut dyn Write, text: &str) -> Result<(), Error> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::Machine(format!("cannot write the output: {e}"))),
    }
}

/// Writes a line to stderr. A stderr that cannot be written (closed, a reader gone) loses the
/// line rather than ending the command with a panic, as `eprintln!` would.
pub fn warn(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{line}");
}
