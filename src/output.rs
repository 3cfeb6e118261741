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

/// `n` with a comma every three digits: `1,168,655`.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `x` to four significant figures (`0.0004538`, `1.000`, `12.35`), with thousands separators
/// in its whole part (`1,234`); a ratio of 10,000 tools never prints as `0.000`.
pub fn significant4(x: f64) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i32;
    let decimals = (3 - magnitude).max(0) as usize;
    let text = format!("{:.*}", decimals, x);
    // Rounding can add a digit (9.9996 -> 10.000): one decimal fewer then.
    let text = match text.trim_start_matches('-').split('.').next() {
        Some(whole)
            if decimals > 0
                && whole.trim_start_matches('0').len() > (magnitude + 1).max(0) as usize =>
        {
            format!("{:.*}", decimals - 1, x)
        }
        _ => text,
    };
    let (sign, rest) = text.split_at(usize::from(text.starts_with('-')));
    let (whole, fraction) = rest
        .split_once('.')
        .map_or((rest, None), |(w, f)| (w, Some(f)));
    let whole = whole
        .parse::<usize>()
        .map_or_else(|_| whole.to_string(), thousands);
    match fraction {
        Some(f) => format!("{sign}{whole}.{f}"),
        None => format!("{sign}{whole}"),
    }
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

#[cfg(test)]
mod figure_tests {
    use super::*;

    #[test]
    fn thousands_and_four_significant_figures() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(5_460_717), "5,460,717");
        assert_eq!(significant4(1.0), "1.000");
        assert_eq!(significant4(2478.0 / 5_460_717.0), "0.0004538");
        assert_eq!(significant4(0.52), "0.5200");
        assert_eq!(significant4(12.3456), "12.35");
        assert_eq!(significant4(9.99996), "10.00");
        assert_eq!(significant4(1234.6), "1,235");
        assert_eq!(significant4(4_712_000.4), "4,712,000");
        assert_eq!(significant4(0.0), "0");
    }
}
