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

/// The longest word a column keeps whole: longer ones are values (a JSON text, a hash), not
/// names, and wrap where the column ends.
const LONGEST_NAME: usize = 32;

/// `table` with no name cut mid-word: every column is at least as wide as its longest word (an
/// id such as `fake_plugin_tool_17` or `native-openai-client`), so cells wrap between words.
/// When the names do not all fit in [`TABLE_WIDTH`], the widest column's long names are
/// ellipsized (`native-anthropic-re…`) until they do; never cut in two. Words longer than
/// [`LONGEST_NAME`] are values and wrap as before. Call it after the last row is added.
pub fn keep_words(table: &mut comfy_table::Table) {
    let header: Vec<String> = table
        .header()
        .map(|h| h.cell_iter().map(|c| c.content()).collect())
        .unwrap_or_default();
    let rows: Vec<Vec<String>> = table
        .row_iter()
        .map(|r| r.cell_iter().map(|c| c.content()).collect())
        .collect();
    let columns = header
        .len()
        .max(rows.iter().map(Vec::len).max().unwrap_or(0));
    let longest = |column: usize| {
        std::iter::once(&header)
            .chain(&rows)
            .filter_map(|row| row.get(column))
            .flat_map(|cell| cell.split_whitespace())
            .map(|word| word.chars().count())
            .max()
            .unwrap_or(0)
    };
    // Each column's width in characters: its longest name, or a share for a column of values.
    let mut widths: Vec<usize> = (0..columns).map(longest).collect();
    let names: Vec<bool> = widths.iter().map(|w| *w <= LONGEST_NAME).collect();
    let budget = usize::from(TABLE_WIDTH).saturating_sub(3 * columns + 1);
    let taken = |widths: &[usize]| -> usize {
        widths
            .iter()
            .zip(&names)
            .map(|(w, name)| if *name { *w } else { 10 })
            .sum()
    };
    let whole = widths.clone();
    while taken(&widths) > budget {
        let widest = (0..columns)
            .filter(|&c| names[c])
            .max_by_key(|&c| (widths[c], c));
        match widest {
            Some(c) if widths[c] > 4 => widths[c] -= 1,
            _ => break,
        }
    }
    if widths != whole {
        let fit = |row: &[String]| -> Vec<String> {
            row.iter()
                .enumerate()
                .map(|(c, cell)| match names[c] && widths[c] < whole[c] {
                    true => ellipsize_words(cell, widths[c]),
                    false => cell.clone(),
                })
                .collect()
        };
        let mut fitted = bounded_table(fit(&header));
        for row in &rows {
            fitted.add_row(fit(row));
        }
        *table = fitted;
    }
    for (c, width) in widths.iter().enumerate() {
        if let (true, Some(column)) = (names[c], table.column_mut(c)) {
            // The constraint counts the cell's padding, one space either side.
            let width = u16::try_from(*width + 2).unwrap_or(u16::MAX);
            column.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(
                comfy_table::Width::Fixed(width),
            ));
        }
    }
}

/// `text` with every word longer than `width` characters ellipsized to `width` (`…` last), the
/// spaces and line breaks between words kept.
fn ellipsize_words(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match word.chars().count() > width {
            true => out.push_str(&cut(word, width.saturating_sub(1))),
            false => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
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

/// `line` broken at spaces into lines of at most `width` characters, every line after the first
/// starting with `indent`: a list item under a table fits the table's width without a word cut in
/// two (a single word longer than the width keeps its own line, whole).
pub fn wrap_words(line: &str, width: usize, indent: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    let lead = line.len() - line.trim_start().len();
    current.push_str(&line[..lead]);
    let mut empty = true;
    for word in line[lead..].split(' ').filter(|w| !w.is_empty()) {
        let fits = current.chars().count() + 1 + word.chars().count() <= width;
        if !empty && !fits {
            lines.push(std::mem::replace(&mut current, indent.to_string()));
            empty = true;
        }
        if !empty {
            current.push(' ');
        }
        current.push_str(word);
        empty = false;
    }
    lines.push(current);
    lines
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

    #[test]
    fn wrapped_words_fit_the_width_and_are_never_cut() {
        let line =
            "  upstream-follow-up-other-target / directory, tools: the lane not in the record";
        let lines = wrap_words(line, 40, "    ");
        assert_eq!(
            lines,
            [
                "  upstream-follow-up-other-target /",
                "    directory, tools: the lane not in",
                "    the record"
            ]
        );
        // A word wider than the line keeps its own line, whole.
        assert_eq!(
            wrap_words("a fake_plugin_tool_17_and_more b", 10, "  "),
            ["a", "  fake_plugin_tool_17_and_more", "  b"]
        );
        assert_eq!(wrap_words("  short", 40, "    "), ["  short"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a rendered table (borders and spaces removed).
    fn words(text: &str) -> Vec<&str> {
        text.split(|c: char| c.is_whitespace() || "│┆".contains(c))
            .filter(|w| !w.is_empty())
            .collect()
    }

    /// Every word that starts like one of `names` (8 characters or more) is that name whole, or
    /// its start ellipsized: no name cut in two across lines.
    fn assert_no_name_cut(text: &str, names: &[&str]) {
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        for word in words(text) {
            for name in names {
                let start: String = name.chars().take(8).collect();
                if word.starts_with(&start) {
                    let whole = word == *name;
                    let ellipsized = word
                        .strip_suffix('…')
                        .is_some_and(|prefix| name.starts_with(prefix));
                    assert!(whole || ellipsized, "{word:?} is {name:?} cut:\n{text}");
                }
            }
        }
    }

    /// The reference scenario's lane table as `suite` fills it (issue #41: `native-openai-clien`
    /// / `t`, `fake_plugin_tool_1` / `7`): every id whole or ellipsized, never split; the one
    /// that does not fit is the longest lane name.
    #[test]
    fn a_table_cuts_no_name_in_two() {
        let mut table = bounded_table(vec![
            "lane",
            "reqs",
            "1st bytes",
            "ratio",
            "tools",
            "prompt",
            "directory",
            "planned",
        ]);
        let lanes = [
            ("direct", "-", "fake_plugin_tool_17 → -"),
            ("code", "70 lines", "tool_search_code → -"),
            (
                "native-openai-client",
                "-",
                "fake_plugin_tool_17 → fake_plugin_tool_17 → -",
            ),
            ("native-anthropic-regex", "-", "fake_plugin_tool_17 → -"),
        ];
        for (lane, directory, planned) in lanes {
            table.add_row(vec![
                lane, "3", "150564", "1.046", "86", "39827", directory, planned,
            ]);
        }
        keep_words(&mut table);
        let text = table.to_string();
        let names = [
            "native-openai-client",
            "native-anthropic-regex",
            "fake_plugin_tool_17",
            "tool_search_code",
            "directory",
        ];
        assert_no_name_cut(&text, &names);
        let seen = words(&text);
        for name in &names[..1] {
            assert!(seen.contains(name), "{name}:\n{text}");
        }
        assert!(seen.contains(&"native-anthropic-reg…"), "{text}");
        assert_eq!(
            seen.iter().filter(|w| **w == "fake_plugin_tool_17").count(),
            4
        );
        // Without keep_words, comfy-table splits them (what the issue saw).
        let mut plain = bounded_table(vec!["lane", "reqs", "1st bytes", "ratio", "tools"]);
        plain.add_row(vec!["native-openai-client", "3", "150564", "1.046", "86"]);
        plain.set_width(40);
        assert!(!words(&plain.to_string()).contains(&"native-openai-client"));
    }

    /// Names that cannot all fit are ellipsized (the widest column first), never split; a long
    /// value (longer than any name) still wraps, whole.
    #[test]
    fn names_that_cannot_fit_are_ellipsized_and_values_wrap() {
        let header: Vec<String> = (0..6).map(|i| format!("column_{i}")).collect();
        let mut table = bounded_table(header);
        let name = "a_rather_long_identifier_of_31c";
        let value = "x".repeat(120);
        table.add_row(vec![name, name, name, "short", "short", &value]);
        keep_words(&mut table);
        let text = table.to_string();
        assert_no_name_cut(&text, &[name]);
        assert_eq!(words(&text).iter().filter(|w| w.ends_with('…')).count(), 3);
        assert_eq!(text.matches('x').count(), 120, "{text}");
    }

    #[test]
    fn ellipsize_words_keeps_the_spaces() {
        assert_eq!(ellipsize_words("ab abcdef\nabc", 4), "ab abc…\nabc");
    }
}

/// Words as one shell line, each quoted where a shell would split or expand it.
pub fn shell_line<S: AsRef<str>>(words: &[S]) -> String {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| match shlex::try_quote(w.as_ref()) {
            Ok(word) => word.into_owned(),
            // A NUL byte cannot be in a path or id that got this far; shown as written.
            Err(_) => w.as_ref().to_string(),
        })
        .collect();
    quoted.join(" ")
}
