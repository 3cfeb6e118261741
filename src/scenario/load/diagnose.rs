//! Diagnosing: what is wrong with a file that does not load, said with the file, the line and
//! column and the field — every syntax error, then every type error, in one round.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

use super::ScenarioFile;
use crate::scenario::names::closest;
use crate::scenario::place::{Field, Place, Places};

#[derive(Debug, Error)]
pub enum ScenarioError {
    #[error("cannot read scenario file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file that does not load: every problem found, in file order (at least one). Shown as
    /// one line each, the lines after the first starting `error: ` as the first's caller writes.
    #[error("{}", lines(.0))]
    Invalid(Vec<Invalid>),
    #[error("unknown scenario {id:?}; known: {}", .known.join(", "))]
    Unknown { id: String, known: Vec<String> },
    #[error("scenario id {id:?} is defined twice: {first} and {second}")]
    Duplicate {
        id: String,
        first: String,
        second: String,
    },
}

impl ScenarioError {
    /// The offending line with a caret under the column, for a terminal (never in the one-line
    /// message, so logs and scripts get one line per error).
    pub fn excerpt(&self) -> Option<&str> {
        match self {
            ScenarioError::Invalid(invalid) => invalid.first()?.excerpt.as_deref(),
            _ => None,
        }
    }

    /// The error as written to stderr: `error: ` and one line per problem, each followed by its
    /// excerpt when `excerpts` (a terminal).
    pub fn report(&self, excerpts: bool) -> String {
        let excerpt = |e: Option<&str>| match e.filter(|_| excerpts) {
            Some(e) => format!("{e}\n"),
            None => String::new(),
        };
        match self {
            ScenarioError::Invalid(invalid) => invalid
                .iter()
                .map(|i| format!("error: {i}\n{}", excerpt(i.excerpt.as_deref())))
                .collect(),
            other => format!("error: {other}\n"),
        }
    }
}

impl crate::error::Owned for ScenarioError {
    fn exit_code(&self) -> u8 {
        crate::error::Exit::USAGE
    }

    fn report(&self, excerpts: bool) -> Option<String> {
        Some(ScenarioError::report(self, excerpts))
    }
}

impl From<ScenarioError> for crate::error::Error {
    fn from(e: ScenarioError) -> Self {
        crate::error::Error::Scenario(crate::error::Cause::new(e))
    }
}

/// The problems' lines, joined as `error: ` would start each.
fn lines(invalid: &[Invalid]) -> String {
    let lines: Vec<String> = invalid.iter().map(ToString::to_string).collect();
    lines.join("\nerror: ")
}

/// What is wrong with a scenario file, and where.
#[derive(Debug)]
pub struct Invalid {
    pub origin: String,
    /// Where in the file, when the file is TOML and the field is written (or its table is).
    pub place: Option<Place>,
    /// The field as its author reads it (`target_tool`, `lane "tools": config.tools`); empty
    /// for a TOML syntax error.
    pub field: String,
    pub message: String,
    pub excerpt: Option<String>,
}

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.origin)?;
        if let Some(Place { line, column }) = self.place {
            write!(f, ":{line}:{column}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every TOML syntax error of `text` as `(offset, message)`, in file order, one per line; empty
/// when the text is TOML. The file is read table by table (a `[table]` or `[[array]]` header
/// starts the next), each with the parser's own recovery, so a file with a mistake in each of
/// three tables gets three lines in one run, and a mistake that swallows the rest of the file
/// (an unclosed `[` or `"""`) is reported once, in its table, not again in every table after
/// it. What only the whole file shows (a table defined twice) comes from the whole file.
/// (Type errors come after, from [`type_errors`]: serde gives up at the first value it cannot
/// read, so the text is mended and read again.)
pub(super) fn syntax_errors(text: &str) -> Vec<(Option<usize>, String)> {
    let whole = toml::de::DeTable::parse_recoverable(text).1;
    if whole.is_empty() {
        return Vec::new();
    }
    let mut found: Vec<(Option<usize>, String)> = Vec::new();
    for (start, chunk) in tables(text) {
        let errors = toml::de::DeTable::parse_recoverable(chunk).1;
        found.extend(errors.iter().map(|e| {
            let offset = e.span().map(|s| start + s.start.min(chunk.len()));
            (offset, e.message().to_string())
        }));
    }
    if found.is_empty() {
        let first = &whole[0];
        found.push((first.span().map(|s| s.start), first.message().to_string()));
    }
    found.sort_by_key(|(offset, _)| *offset);
    // One per line: the parser's recovery can trip again on the rest of a line it already
    // reported (`size = = 3`: an extra `=`, then an unexpected value).
    found.dedup_by_key(|(offset, _)| offset.map(|o| text[..o].matches('\n').count()));
    found
}

/// What reading a TOML text into the scenario's fields found: every type error as `(offset,
/// message)`, and, when mending them let the text read, the mended text with the fields whose
/// values are placeholders (so the checks that need no such field still run in this round).
pub(super) struct TypeErrors {
    pub(super) found: Vec<(Option<usize>, String)>,
    pub(super) mended: Option<(String, Vec<Field>)>,
}

/// The type errors of a TOML `text` (unknown fields, values of the wrong type) as `(offset,
/// message)`, `first` first. After each, the key-value pair it points into is mended — an
/// unknown field blanked out, a value of the wrong type replaced by the first of `1`, `""`,
/// `true`, `[]`, `{}` that gets past it — keeping every offset (padded with spaces), and the
/// text read again, until it reads. A required field that an unknown one misspells
/// (`target_tol`: one mistake, said once) is written with a placeholder where the misspelling
/// was. It stops, keeping what it found, where going on could report what is not there: an
/// error outside any pair (a missing field, a table of the wrong shape), a pair nothing mends, a
/// missing field once a known field was blanked (perhaps that one).
pub(super) fn type_errors(text: &str, first: &toml::de::Error) -> TypeErrors {
    /// Enough for any file a person writes; a bound on the re-reads of a generated one.
    const MOST: usize = 50;
    let places = Places::new(text);
    let original = text;
    let mut found = Vec::new();
    let mut tainted: Vec<Field> = Vec::new();
    let mut text = text.to_string();
    let mut error = first.clone();
    let mut blanked_known = false;
    // The unknown keys blanked out (name, pair): a missing field one of them misspells is that
    // same mistake, and is written where it was.
    let mut misspelled: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    let mut reads = false;
    while found.len() < MOST {
        let offset = error.span().map(|s| s.start);
        if let Some(field) = error.message().strip_prefix("missing field `") {
            let field = field.trim_end_matches('`');
            let typo = misspelled
                .iter()
                .find(|(k, _)| !closest(k, [field]).is_empty())
                .cloned();
            if blanked_known {
                break;
            }
            if let Some((_, pair)) = typo {
                let Some((mended, next)) = written_in(&text, field, pair.clone()) else {
                    break;
                };
                tainted.push(places.field_at(pair.start).sibling(field));
                text = mended;
                match next {
                    Some(next) => error = next,
                    None => {
                        reads = true;
                        break;
                    }
                }
                continue;
            }
        }
        found.push((offset, error.message().to_string()));
        let Some((key, pair)) = offset.and_then(|o| pair_at(&text, o)) else {
            break;
        };
        let unknown = error.message().starts_with("unknown field");
        let Some((mended, next, blank)) = mended_past(&text, key.clone(), pair.clone(), unknown)
        else {
            break;
        };
        blanked_known |= blank && !unknown;
        match unknown {
            true => misspelled.push((original[key].trim_matches(['"', '\'']).to_string(), pair)),
            false => tainted.push(places.field_at(key.start)),
        }
        text = mended;
        match next {
            Some(next) => error = next,
            None => {
                reads = true;
                break;
            }
        }
    }
    TypeErrors {
        found,
        mended: reads.then_some((text, tainted)),
    }
}

/// The first mending of pair `pair` (key at `key`) of `text` that gets past its error: the
/// mended text, the next error (none: it reads), and whether the pair was blanked.
fn mended_past(
    text: &str,
    key: std::ops::Range<usize>,
    pair: std::ops::Range<usize>,
    unknown: bool,
) -> Option<(String, Option<toml::de::Error>, bool)> {
    mendings(text, key, pair.clone(), unknown)
        .into_iter()
        .find_map(|(mended, blank)| {
            let next = rereads(&mended, &pair)?;
            Some((mended, next, blank))
        })
}

/// `text` read again after a mending at `pair`: `Some(None)` when it reads, `Some(error)` when
/// the next error is elsewhere, `None` when the mending did not help (or broke the syntax).
fn rereads(text: &str, pair: &std::ops::Range<usize>) -> Option<Option<toml::de::Error>> {
    if !syntax_errors(text).is_empty() {
        return None;
    }
    match toml::from_str::<ScenarioFile>(text) {
        Ok(_) => Some(None),
        Err(next) => {
            let at = next.span().map(|s| s.start);
            let same = at.is_some_and(|o| pair.contains(&o));
            (!same).then_some(Some(next))
        }
    }
}

/// `text` with the missing `field` written as a placeholder value (the first of `1`, `""`,
/// `true`, `[]`, `{}` that reads) in the blanked-out `pair` of the key that misspells it, when it
/// fits there: the text, and the next error (none: it reads).
fn written_in(
    text: &str,
    field: &str,
    pair: std::ops::Range<usize>,
) -> Option<(String, Option<toml::de::Error>)> {
    let width = pair.len();
    ["1", "\"\"", "true", "[]", "{}"]
        .into_iter()
        .find_map(|value| {
            let written = format!("{field}={value}");
            if written.len() > width || text[pair.clone()].contains('\n') {
                return None;
            }
            let mut mended = text.to_string();
            let padding = " ".repeat(width - written.len());
            mended.replace_range(pair.clone(), &format!("{written}{padding}"));
            let next = rereads(&mended, &pair)?;
            let missing = format!("missing field `{field}`");
            match next {
                Some(next) if next.message() == missing => None,
                next => Some((mended, next)),
            }
        })
}

/// The ways to mend the pair `pair` (key at `key`) of `text`, in order, each the whole text with
/// its offsets kept and whether it blanks the pair: a placeholder value of each TOML kind that
/// fits where `key = value` was (not for an unknown field), then the pair blanked out.
fn mendings(
    text: &str,
    key: std::ops::Range<usize>,
    pair: std::ops::Range<usize>,
    unknown: bool,
) -> Vec<(String, bool)> {
    // Byte for byte, so every offset after the pair stays (a multi-byte character becomes as
    // many spaces as it has bytes).
    let width = pair.len();
    let spaces = |s: &str| -> String {
        s.chars()
            .map(|c| match c {
                '\n' => "\n".to_string(),
                c => " ".repeat(c.len_utf8()),
            })
            .collect()
    };
    let mut ways = Vec::new();
    if !unknown && !text[pair.clone()].contains('\n') {
        for value in ["1", "\"\"", "true", "[]", "{}"] {
            let written = format!("{}={value}", &text[key.clone()]);
            if written.len() <= width {
                let mut mended = text.to_string();
                let padding = " ".repeat(width - written.len());
                mended.replace_range(pair.clone(), &format!("{written}{padding}"));
                ways.push((mended, false));
            }
        }
    }
    let mut blanked = text.to_string();
    blanked.replace_range(pair.clone(), &spaces(&text[pair]));
    ways.push((blanked, true));
    ways
}

/// The key's and the whole pair's byte ranges of the key-value pair of `text` (a TOML document)
/// that `offset` falls in: a pair of a `[table]` or `[[array]]` table (an inline table or array
/// as a whole).
fn pair_at(text: &str, offset: usize) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    let table = toml::de::DeTable::parse(text).ok()?;
    pair_in(text, table.get_ref(), offset)
}

fn pair_in(
    text: &str,
    table: &toml::de::DeTable<'_>,
    offset: usize,
) -> Option<(std::ops::Range<usize>, std::ops::Range<usize>)> {
    use toml::de::DeValue;
    // A `[table]` (or an `[[array]]`'s table), not an inline `{ … }` one.
    let header = |value: &toml::Spanned<DeValue<'_>>| {
        matches!(value.get_ref(), DeValue::Table(_))
            && !text.get(value.span()).is_some_and(|t| t.starts_with('{'))
    };
    for (key, value) in table {
        let pair = key.span().start..value.span().end;
        match value.get_ref() {
            DeValue::Table(inner) if header(value) => {
                if let Some(found) = pair_in(text, inner, offset) {
                    return Some(found);
                }
            }
            DeValue::Array(items) if items.iter().any(header) => {
                for item in items.iter().filter(|i| header(i)) {
                    if let DeValue::Table(inner) = item.get_ref() {
                        if let Some(found) = pair_in(text, inner, offset) {
                            return Some(found);
                        }
                    }
                }
            }
            _ if pair.contains(&offset) => return Some((key.span(), pair)),
            _ => {}
        }
    }
    None
}

/// `text` cut before every line that is a table header (`[x]`, `[[x]]`, a comment after it
/// allowed): `(offset, part)`, the first part the top-level keys.
fn tables(text: &str) -> Vec<(usize, &str)> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        if offset > 0 && is_header(line) {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    starts
        .windows(2)
        .map(|w| (w[0], &text[w[0]..w[1]]))
        .collect()
}

/// Does `line` read as a table header (`[catalog]`, `[[lanes]]`, `[lanes.expect] # note`)?
fn is_header(line: &str) -> bool {
    let code = line.split('#').next().unwrap_or_default().trim();
    code.starts_with('[') && code.ends_with(']') && !code.contains(['=', ',', '{'])
}

/// A multi-line message as one line.
pub(super) fn one_line(message: &str) -> String {
    message
        .trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("; ")
}
