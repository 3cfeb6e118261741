//! Loading scenario files: TOML (or JSON for scenarios built in code) into the typed
//! [`Scenario`]. Everything that can be known before a gateway starts is checked here — the
//! fields and their types, the lanes' Tool Search values and gateway-config overrides, the tool
//! names against the catalogue, the claims against the lanes — and every error is one line:
//! `file:line:col: field: message` (the line's text with a caret follows on a terminal).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use thiserror::Error;

use super::names::{
    closest, not_in_catalogue, suggestion, unknown_script_tool, unknown_tool, unmatched_deny,
};
use super::place::{Field, Place, Places};
use super::wording::plain;
use super::{
    CatalogSpec, ClaimId, ClaimSpec, Lane, LaneExpect, LaneOnOpenclaw, OnOpenclaw, Scenario,
    ScriptStep, REFERENCE_SCENARIO,
};
use crate::catalog::fake::{fake_tool_name, plugin_id_problem, size_problem};
use crate::catalog::{ToolPolicy, ToolSource};
use crate::config::agent_id_problem;
use crate::config::{Bridge, ToolSearchSettings};
use crate::profile::{self, built_in_names, Profile, ProfileError};

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

/// One problem a check found: the field, and what is wrong with it.
struct Problem {
    field: Field,
    message: String,
}

fn problem(field: Field, message: impl Into<String>) -> Problem {
    Problem {
        field,
        message: message.into(),
    }
}

type Checked<T> = Result<T, Problem>;

/// A scenario file as written (the serde mirror of [`Scenario`]). Every field is in the field
/// table of `docs/scenarios.md` (a test holds the two together).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ScenarioFile {
    id: String,
    title: String,
    #[serde(default)]
    objective: String,
    #[serde(default = "default_agent")]
    agent: String,
    prompt: String,
    target_tool: String,
    #[serde(default = "openclaw_source")]
    target_source: String,
    #[serde(default)]
    max_output_tokens: Option<u64>,
    #[serde(default)]
    follow_up: Option<String>,
    catalog: CatalogSpec,
    #[serde(default)]
    policy: ToolPolicy,
    #[serde(default)]
    script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    claims: Vec<ClaimFile>,
    #[serde(default)]
    pending: Option<String>,
    #[serde(default)]
    profile: Option<String>,
    #[serde(default)]
    openclaw: OnOpenclaw,
    lanes: Vec<LaneFile>,
}

fn openclaw_source() -> String {
    "openclaw".into()
}

fn default_agent() -> String {
    "main".into()
}

/// A `[[claims]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClaimFile {
    id: String,
    #[serde(default)]
    tool: Option<String>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    lanes: Vec<String>,
}

/// A `[[lanes]]` table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LaneFile {
    name: String,
    /// Required, except on a native lane (whose catalogue the gateway plans).
    #[serde(default)]
    tool_search: Option<Value>,
    /// `{ provider = "openai" | "anthropic", search = … }`: a native lane.
    #[serde(default)]
    native: Option<crate::config::NativeSearchConfig>,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    script: Option<Vec<ScriptStep>>,
    #[serde(default)]
    stream: bool,
    #[serde(default)]
    provider_timeout_ms: Option<u64>,
    #[serde(default)]
    expect: LaneExpect,
    #[serde(default)]
    openclaw_expect: LaneExpect,
    #[serde(default)]
    openclaw: LaneOnOpenclaw,
}

/// The scenarios that ship with the binary: every `scenarios/*.toml`, by file name (found by
/// `build.rs`; adding a scenario needs no Rust edit).
const BUILT_IN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_scenarios.rs"));

/// Parses one scenario text; `origin` names it in errors.
pub fn parse_scenario(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    parse(text, origin, Strictness::Load)
}

/// How much a parse asks of a file: what every run needs, or also what `check` says before a
/// run would fail on it whatever the gateway does ([`unjudgeable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strictness {
    Load,
    Check,
}

/// Parses one scenario text, reporting every problem it can find in one round: the syntax
/// errors (then nothing else: the rest is unreadable), else the type errors together with every
/// check that needs no field a type error left unknown.
fn parse(text: &str, origin: &str, strictness: Strictness) -> Result<Scenario, ScenarioError> {
    let places = Places::new(text);
    let invalid = |place: Option<Place>, field: String, message: String| Invalid {
        origin: origin.to_string(),
        place,
        field,
        message,
        excerpt: place.and_then(|p| places.excerpt(p)),
    };
    let toml_problem = |offset: Option<usize>, message: &str| {
        let field = offset.map(|o| places.field_at(o)).unwrap_or_default();
        invalid(
            offset.map(|o| places.place(o)),
            places.describe(&field),
            plain(&one_line(message), &field),
        )
    };
    let ours = |p: Problem| {
        // An unknown key is wrong itself: the caret goes under it, else under the value.
        let place = match p.message.contains("unknown field `") {
            true => places.key_of(&p.field),
            false => places.of(&p.field),
        };
        let message = plain(&p.message, &p.field);
        invalid(place, places.describe(&p.field), message)
    };
    let syntax = syntax_errors(text);
    if !syntax.is_empty() {
        let found = syntax.iter().map(|(o, m)| toml_problem(*o, m)).collect();
        return Err(ScenarioError::Invalid(found));
    }
    let (file, types, tainted) = match toml::from_str::<ScenarioFile>(text) {
        Ok(file) => (file, Vec::new(), Vec::new()),
        Err(e) => {
            let TypeErrors { mut found, mended } = type_errors(text, &e);
            found.sort_by_key(|(offset, _)| *offset);
            let types: Vec<Invalid> = found.iter().map(|(o, m)| toml_problem(*o, m)).collect();
            let read = mended.and_then(|(text, tainted)| {
                let file = toml::from_str::<ScenarioFile>(&text).ok()?;
                Some((file, tainted))
            });
            match read {
                Some((file, tainted)) => (file, types, tainted),
                None => return Err(ScenarioError::Invalid(types)),
            }
        }
    };
    let resolved = resolve(file, origin, &tainted, strictness);
    let mut found = types;
    let scenario = match resolved {
        Ok(scenario) if found.is_empty() => return Ok(scenario),
        Ok(_) => None,
        Err(problems) => Some(problems),
    };
    found.extend(scenario.into_iter().flatten().map(ours));
    // File order; a problem without a place (nothing written to point at) first.
    found.sort_by_key(|i| i.place.map(|p| (p.line, p.column)));
    Err(ScenarioError::Invalid(found))
}

/// Every TOML syntax error of `text` as `(offset, message)`, in file order, one per line; empty
/// when the text is TOML. The file is read table by table (a `[table]` or `[[array]]` header
/// starts the next), each with the parser's own recovery, so a file with a mistake in each of
/// three tables gets three lines in one run, and a mistake that swallows the rest of the file
/// (an unclosed `[` or `"""`) is reported once, in its table, not again in every table after
/// it. What only the whole file shows (a table defined twice) comes from the whole file.
/// (Type errors come after, from [`type_errors`]: serde gives up at the first value it cannot
/// read, so the text is mended and read again.)
fn syntax_errors(text: &str) -> Vec<(Option<usize>, String)> {
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
struct TypeErrors {
    found: Vec<(Option<usize>, String)>,
    mended: Option<(String, Vec<Field>)>,
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
fn type_errors(text: &str, first: &toml::de::Error) -> TypeErrors {
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
fn one_line(message: &str) -> String {
    message
        .trim()
        .lines()
        .map(str::trim)
        .collect::<Vec<_>>()
        .join("; ")
}

/// A scenario given as JSON (same fields as the TOML file), for scenarios built in code.
pub fn scenario_from_json(value: Value, origin: &str) -> Result<Scenario, ScenarioError> {
    let invalid = |field: String, message: String| Invalid {
        origin: origin.to_string(),
        place: None,
        field,
        message,
        excerpt: None,
    };
    let file: ScenarioFile = serde_json::from_value(value)
        .map_err(|e| ScenarioError::Invalid(vec![invalid(String::new(), e.to_string())]))?;
    resolve(file, origin, &[], Strictness::Load).map_err(|problems| {
        let found = problems.into_iter();
        ScenarioError::Invalid(
            found
                .map(|p| invalid(p.field.to_string(), p.message))
                .collect(),
        )
    })
}

/// Checks every value of a file and types it, collecting every problem (as a compiler does) so
/// a file with three mistakes takes one round. A check that depends on another part (a tool
/// name on the catalogue, a claim on the lanes) runs only when that part is sound, so one
/// mistake is reported once, not again through everything that depends on it. `tainted` are
/// the fields a type error left unknown (their values are placeholders): nothing is said of
/// them, and what depends on them is not checked.
fn resolve(
    file: ScenarioFile,
    origin: &str,
    tainted: &[Field],
    strictness: Strictness,
) -> Result<Scenario, Vec<Problem>> {
    let known = |field: &str| !tainted.iter().any(|t| t.is_within(&Field::of(field)));
    let mut problems: Vec<Problem> = Vec::new();
    if file.lanes.is_empty() && file.pending.is_none() {
        problems.push(problem(
            Field::of("lanes"),
            "must list at least one lane (or say why not with `pending`)",
        ));
    }
    if file
        .openclaw
        .not_applicable
        .as_ref()
        .is_some_and(|r| r.trim().is_empty())
    {
        problems.push(problem(
            Field::of("openclaw").key("not_applicable"),
            "say why the product cannot run this scenario",
        ));
    }
    if let Some(message) = id_problem(&file.id) {
        problems.push(problem(Field::of("id"), message));
    }
    if let Some(message) = agent_id_problem(&file.agent) {
        problems.push(problem(Field::of("agent"), message));
    }
    let catalog = match known("catalog") {
        true => match keep(&mut problems, check_catalog(&file.catalog)) {
            Some(()) => Known::Sound,
            None => Known::Unsound,
        },
        false if known_but_size(tainted) => Known::SizeUnknown,
        false => Known::Unsound,
    };
    let target_source = match file.target_source.as_str() {
        "openclaw" => Some(ToolSource::Openclaw),
        "mcp" => Some(ToolSource::Mcp),
        "client" => Some(ToolSource::Client),
        other => {
            problems.push(problem(
                Field::of("target_source"),
                format!("expected openclaw, mcp or client, got {other:?}"),
            ));
            None
        }
    };
    if let Some(source) = target_source.filter(|_| catalog == Known::Sound) {
        if let Some(message) = not_in_catalogue(&file.target_tool, source, &file.catalog) {
            problems.push(problem(Field::of("target_tool"), message));
        }
    }
    // The names a lane gives, by the lane's index in the file (whatever became of the lane).
    let lane_names: Vec<LaneNames> = file.lanes.iter().map(LaneNames::of).collect();
    let mut lanes: Vec<Lane> = Vec::new();
    let mut lanes_ok = true;
    let mut names_before: Vec<String> = Vec::new();
    for (i, lane) in file.lanes.into_iter().enumerate() {
        let field = Field::of("lanes").index(i);
        let shape = ["name", "tool_search", "native"]
            .iter()
            .all(|key| known(&field.clone().key(key).to_string()));
        let name = lane.name.clone();
        let resolved = resolve_lane(&names_before, field, lane, &mut problems);
        names_before.push(name);
        match resolved.filter(|_| shape) {
            Some(lane) => lanes.push(lane),
            None => lanes_ok = false,
        }
    }
    if let Some(script) = &file.script {
        keep(&mut problems, check_script(Field::of("script"), script));
    }
    let mut claims = Vec::new();
    let mut claims_ok = true;
    for (i, claim) in file.claims.into_iter().enumerate() {
        let field = Field::of("claims").index(i);
        let id = keep(&mut problems, claim_id(field.clone(), &claim.id));
        match id.filter(|_| catalog == Known::Sound && lanes_ok) {
            Some(id) => {
                let resolved = resolve_claim(id, &lanes, &file.catalog, field, claim);
                let kept = keep(&mut problems, resolved);
                claims_ok &= kept.is_some();
                claims.extend(kept);
            }
            None => claims_ok = false,
        }
    }
    let profile = match &file.profile {
        Some(reference) => keep(
            &mut problems,
            resolve_profile(reference, origin)
                .map_err(|e| problem(Field::of("profile"), e.to_string())),
        ),
        None => Some(Profile::spec()),
    };
    if let Some(profile) = profile.as_ref().filter(|_| catalog != Known::Unsound) {
        let names = Names {
            catalog: &file.catalog,
            any_size: catalog == Known::SizeUnknown,
            bridge: profile.bridge(),
        };
        names.check(
            &file.policy,
            file.script.as_deref(),
            &lane_names,
            &mut problems,
        );
    }
    if strictness == Strictness::Check && lanes_ok && claims_ok {
        problems.extend(unjudgeable(&lanes, &claims));
    }
    problems.retain(|p| !tainted.iter().any(|t| p.field.is_within(t)));
    let complete = tainted.is_empty() && problems.is_empty();
    let (Some(target_source), Some(profile), true) = (target_source, profile, complete) else {
        return Err(problems);
    };
    let mut scenario = Scenario {
        id: file.id,
        title: file.title,
        objective: file.objective,
        agent: file.agent,
        prompt: file.prompt,
        target_tool: file.target_tool,
        target_source,
        max_output_tokens: file.max_output_tokens,
        follow_up: file.follow_up,
        catalog: file.catalog,
        policy: file.policy,
        script: file.script,
        claims,
        pending: file.pending,
        profile: profile.clone(),
        openclaw: file.openclaw,
        lanes,
        origin: origin.to_string(),
        dir: None,
    };
    scenario.set_profile(profile);
    Ok(scenario)
}

/// How much of `[catalog]` the checks that need it can rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Sound,
    /// Only `size` is unknown (a type error): names are checked against what does not depend on
    /// it, and any fake tool name is taken as possibly one of the catalogue's.
    SizeUnknown,
    Unsound,
}

/// Is `catalog.size` the only field of `[catalog]` a type error left unknown?
fn known_but_size(tainted: &[Field]) -> bool {
    let catalog = Field::of("catalog");
    let size = Field::of("catalog.size");
    tainted
        .iter()
        .filter(|t| t.is_within(&catalog))
        .all(|t| *t == size)
}

/// A built-in profile by name, else a profile file; a relative path is taken from the scenario
/// file's folder.
fn resolve_profile(reference: &str, origin: &str) -> Result<Arc<Profile>, ProfileError> {
    if built_in_names().iter().any(|n| n == reference) {
        return profile::resolve(reference);
    }
    let path = Path::new(reference);
    match Path::new(origin).parent() {
        Some(dir) if path.is_relative() && Path::new(origin).is_file() => {
            profile::resolve(&dir.join(path).display().to_string())
        }
        _ => profile::resolve(reference),
    }
}

/// `[catalog]`: a size, fake tool names of this size, known MCP fixtures, client tool names.
fn check_catalog(catalog: &CatalogSpec) -> Checked<()> {
    let field = Field::of("catalog");
    if let Some(message) = plugin_id_problem(&catalog.plugin_id) {
        return Err(problem(field.key("plugin_id"), message));
    }
    if let Some(message) = size_problem(catalog.size as u64) {
        return Err(problem(field.key("size"), message));
    }
    for (key, names) in [
        ("direct_only", &catalog.direct_only),
        ("broken", &catalog.broken),
    ] {
        if let Some(i) = names.iter().position(|n| !is_fake_tool(n, catalog.size)) {
            let fake = (1..=catalog.size).map(|n| fake_tool_name(n, catalog.size));
            let fake: Vec<String> = fake.collect();
            return Err(problem(
                field.clone().key(key).index(i),
                format!(
                    "{:?} is not a tool of the fake plugin (its tools are {} … {}){}",
                    names[i],
                    fake[0],
                    fake[fake.len() - 1],
                    suggestion(&closest(&names[i], fake.iter().map(String::as_str)))
                ),
            ));
        }
    }
    if let Some(i) = catalog
        .mcp
        .iter()
        .position(|s| !crate::mcp_fixture::ALL.contains(&s.as_str()))
    {
        return Err(problem(
            field.clone().key("mcp").index(i),
            format!(
                "unknown MCP fixture server {:?}; expected one of {}",
                catalog.mcp[i],
                crate::mcp_fixture::ALL.join(", ")
            ),
        ));
    }
    check_mcp_servers(field.clone().key("mcp_servers"), catalog)?;
    let bad_client = catalog.client.iter().position(|n| {
        n.is_empty()
            || !n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    });
    if let Some(i) = bad_client {
        return Err(problem(
            field.key("client").index(i),
            format!(
                "{:?} is not a tool name (letters, digits, `_` and `-` only)",
                catalog.client[i]
            ),
        ));
    }
    Ok(())
}

/// Longest scenario id: it starts every snapshot file name (`<id>__<lane>__provider.snap.new`).
pub const MAX_ID_BYTES: usize = 100;
/// Longest lane name: it is part of snapshot file names, temp dir names and the session key.
pub const MAX_LANE_NAME_BYTES: usize = 64;

/// Why `id` cannot be a scenario id, if it cannot (the one rule: the loader's and
/// `new-scenario`'s).
/// `[[catalog.mcp_servers]]`: each a name no other server of the catalogue has, a command, and
/// placeholders the run can resolve (`crate::mcp_servers::launch`).
fn check_mcp_servers(field: Field, catalog: &CatalogSpec) -> Checked<()> {
    let mut names: Vec<&str> = catalog.mcp.iter().map(String::as_str).collect();
    for (i, server) in catalog.mcp_servers.iter().enumerate() {
        let field = field.clone().index(i);
        if let Some(message) = mcp_server_name_problem(&server.name, &names) {
            return Err(problem(field.key("name"), message));
        }
        names.push(&server.name);
        if server.command.trim().is_empty() {
            return Err(problem(
                field.key("command"),
                "must name the program to start",
            ));
        }
        let texts = std::iter::once((field.clone().key("command"), &server.command))
            .chain(
                server
                    .args
                    .iter()
                    .enumerate()
                    .map(|(j, a)| (field.clone().key("args").index(j), a)),
            )
            .chain(
                server
                    .env
                    .values()
                    .zip(server.env.keys())
                    .map(|(v, k)| (field.clone().key("env").key(k), v)),
            )
            .chain(server.cwd.iter().map(|c| (field.clone().key("cwd"), c)));
        for (at, text) in texts {
            if let Some(message) = super::placeholder::problem(text) {
                return Err(problem(at, message));
            }
        }
        if let Some(key) = server.env.keys().find(|k| !is_env_name(k)) {
            return Err(problem(
                field.key("env").key(key),
                format!("{key:?} is not an environment variable name (letters, digits and `_`, not first a digit)"),
            ));
        }
    }
    Ok(())
}

/// Why `name` cannot name a real MCP server beside `taken`: the product names its tools
/// `<server>__<tool>`, so a name is a plain word.
fn mcp_server_name_problem(name: &str, taken: &[&str]) -> Option<String> {
    let word = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && name.starts_with(|c: char| c.is_ascii_lowercase());
    if !word {
        return Some(format!(
            "{name:?} is not a server name (a lower-case letter, then up to 31 lower-case letters, digits or `-`)"
        ));
    }
    if taken.contains(&name) {
        return Some(format!(
            "{name:?} names another MCP server of this catalogue"
        ));
    }
    None
}

fn is_env_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub fn id_problem(id: &str) -> Option<String> {
    file_part_problem(id, MAX_ID_BYTES)
}

/// Why `name` (a scenario id or lane name) cannot be part of a file name, if it cannot: snapshot
/// files are `<id>__<lane>__provider.snap`, so both are ASCII letters, digits, `.`, `-` and `_`,
/// starting with a letter or digit, without `__` (which separates them), at most `max` bytes.
fn file_part_problem(name: &str, max: usize) -> Option<String> {
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let valid = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    (!(starts_well && valid && !name.contains("__") && name.len() <= max)).then(|| {
        format!(
            "{name:?} cannot name files: start with a letter or digit, use only A-Z, a-z, 0-9, \
             '.', '-' and '_' (never \"__\"), at most {max} characters"
        )
    })
}

/// Is `name` one of the `size` fake plugin tools (spelled at the catalogue's width)?
fn is_fake_tool(name: &str, size: usize) -> bool {
    name.strip_prefix("fake_plugin_tool_")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| (1..=size).contains(&n) && fake_tool_name(n, size) == name)
}

/// A limit of `tool_search` the gateway would ignore: spec §2 takes only a positive whole number
/// and uses its default for anything else, so a scenario that writes `codeTimeoutMs = -5` would
/// run with 10,000 ms and never say so. The key and why.
fn ignored_limit(tool_search: &serde_json::Value) -> Option<(&'static str, String)> {
    let object = tool_search.as_object()?;
    ["maxSearchLimit", "searchDefaultLimit", "codeTimeoutMs"]
        .into_iter()
        .find_map(|key| {
            let value = object.get(key)?;
            value.as_u64().is_none_or(|n| n == 0).then(|| {
                let message = format!(
                    "expected a positive whole number, got {value}: the gateway would ignore it \
                     and use its default"
                );
                (key, message)
            })
        })
}

/// Lane `field` (`lanes[i]`), checked against the names of the lanes before it; every problem
/// it has goes to `problems`. The lane, when its shape (name, Tool Search settings or native
/// search) is sound, even if something else of it is not, so the claims can still be checked
/// against the lanes.
fn resolve_lane(
    before: &[String],
    field: Field,
    lane: LaneFile,
    problems: &mut Vec<Problem>,
) -> Option<Lane> {
    let mut sound = true;
    if let Some(message) = file_part_problem(&lane.name, MAX_LANE_NAME_BYTES) {
        problems.push(problem(field.clone().key("name"), message));
        sound = false;
    } else if before.contains(&lane.name) {
        problems.push(problem(
            field.clone().key("name"),
            format!("{:?} is used by an earlier lane", lane.name),
        ));
    }
    let native = match lane.native {
        Some(config) => keep(
            problems,
            config.resolve().map_err(|(at, m)| {
                let key = at.strip_prefix("tools.nativeSearch.").unwrap_or("search");
                problem(field.clone().key("native").key(key), m)
            }),
        )
        .map(Some),
        None => Some(None),
    };
    let tool_search = match (&lane.tool_search, &native) {
        (_, None) => None,
        (Some(_), Some(Some(_))) => {
            problems.push(problem(
                field.clone().key("tool_search"),
                "a native lane has no tool_search: the provider searches (remove one of the two)",
            ));
            None
        }
        (None, Some(None)) => {
            problems.push(problem(
                field.clone().key("tool_search"),
                "missing field `tool_search`: false, true or { mode = \"…\" } (or `native` for a \
                 native lane)",
            ));
            None
        }
        (Some(tool_search), Some(None)) => Some(tool_search.clone()),
        (None, Some(Some(_))) => Some(super::native_tool_search()),
    };
    let native = native.flatten();
    if native.is_some() && lane.openclaw != LaneOnOpenclaw::default() {
        problems.push(problem(
            field.clone().key("openclaw"),
            "a native lane never runs on the product; it has no openclaw table",
        ));
    }
    let settings = tool_search.as_ref().and_then(|tool_search| {
        let settings = ToolSearchSettings::resolve(Some(tool_search)).map_err(|(key, m)| {
            let key = key.strip_prefix("tools.toolSearch").unwrap_or(&key);
            problem(field.clone().key("tool_search").key(key), m)
        });
        keep(problems, settings)
    });
    if let Some((key, message)) = tool_search.as_ref().and_then(ignored_limit) {
        problems.push(problem(field.clone().key("tool_search").key(key), message));
    }
    if let Some(config) = &lane.config {
        if !config.is_object() {
            problems.push(problem(
                field.clone().key("config"),
                "expected a table of gateway config keys",
            ));
        } else {
            let overrides = crate::config::check_overrides(config)
                .map_err(|(key, m)| problem(field.clone().key("config").key(&key), m));
            keep(problems, overrides);
        }
    }
    if let Some(script) = &lane.script {
        keep(problems, check_script(field.clone().key("script"), script));
    }
    keep(
        problems,
        check_on_openclaw(field.clone().key("openclaw"), &lane.openclaw),
    );
    let (Some(tool_search), Some(settings), true) = (tool_search, settings, sound) else {
        return None;
    };
    let openclaw = match native {
        Some(_) => LaneOnOpenclaw {
            not_applicable: Some(super::NATIVE_ON_OPENCLAW.to_string()),
            ..LaneOnOpenclaw::default()
        },
        None => lane.openclaw,
    };
    Some(Lane {
        name: lane.name,
        tool_search,
        settings,
        config: lane.config,
        script: lane.script,
        stream: lane.stream,
        provider_timeout_ms: lane.provider_timeout_ms,
        native,
        expect: lane.expect,
        openclaw_expect: lane.openclaw_expect,
        openclaw,
    })
}

/// A lane's `openclaw` table: a reason, or what to run instead — not both, nothing empty.
fn check_on_openclaw(field: Field, on: &LaneOnOpenclaw) -> Checked<()> {
    let replaces = on.tool_search.is_some() || on.config.is_some();
    match &on.not_applicable {
        Some(reason) if reason.trim().is_empty() => Err(problem(
            field.key("not_applicable"),
            "say why the product cannot run this lane",
        )),
        Some(_) if replaces => Err(problem(
            field,
            "not_applicable excludes tool_search and config",
        )),
        _ if on.config.as_ref().is_some_and(|c| !c.is_object()) => Err(problem(
            field.key("config"),
            "expected a table of gateway config keys",
        )),
        _ => Ok(()),
    }
}

/// The ok value of a check, or `None` with its problem kept.
fn keep<T>(problems: &mut Vec<Problem>, checked: Checked<T>) -> Option<T> {
    checked.map_err(|p| problems.push(p)).ok()
}

/// The names a file gives that must be tools: every script step's (the scenario's and each
/// lane's) must be one some lane declares, every deny pattern (`[policy]`, a lane's
/// `config.tools.deny`) must match a tool. Both are load errors with the closest names: a
/// misspelled call would only show at run time as a script running out, and a pattern that
/// denies nothing would let F1 pass with nothing denied.
struct Names<'a> {
    catalog: &'a CatalogSpec,
    /// `catalog.size` is unknown: a name that could be a fake tool of some size is not judged.
    any_size: bool,
    bridge: &'a Bridge,
}

/// The names one `[[lanes]]` table gives (its script's tools, its `config.tools.deny`), read
/// before the lane is checked, so they are checked whatever else is wrong with the lane.
struct LaneNames {
    script: Option<Vec<ScriptStep>>,
    deny: Vec<String>,
}

impl LaneNames {
    fn of(lane: &LaneFile) -> LaneNames {
        let deny = lane.config.as_ref().and_then(|c| c.pointer("/tools/deny"));
        LaneNames {
            script: lane.script.clone(),
            deny: deny
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default(),
        }
    }
}

impl Names<'_> {
    fn check(
        &self,
        policy: &ToolPolicy,
        script: Option<&[ScriptStep]>,
        lanes: &[LaneNames],
        problems: &mut Vec<Problem>,
    ) {
        self.patterns(Field::of("policy").key("deny"), &policy.deny, problems);
        if let Some(script) = script {
            self.steps(Field::of("script"), script, problems);
        }
        for (i, lane) in lanes.iter().enumerate() {
            let field = Field::of("lanes").index(i);
            if let Some(script) = &lane.script {
                self.steps(field.clone().key("script"), script, problems);
            }
            self.patterns(field.key("config.tools.deny"), &lane.deny, problems);
        }
    }

    fn steps(&self, field: Field, script: &[ScriptStep], problems: &mut Vec<Problem>) {
        for (i, step) in script.iter().enumerate() {
            let Some(tool) = &step.tool else { continue };
            if self.any_size && could_be_fake(tool) {
                continue;
            }
            if let Some(message) = unknown_script_tool(tool, &self.catalog(), self.bridge) {
                problems.push(problem(field.clone().index(i).key("tool"), message));
            }
        }
    }

    fn patterns(&self, field: Field, deny: &[String], problems: &mut Vec<Problem>) {
        for (i, pattern) in deny.iter().enumerate() {
            let name = pattern.rsplit(':').next().unwrap_or(pattern);
            if self.any_size && (pattern.contains('*') || could_be_fake(name)) {
                continue;
            }
            if let Some(message) = unmatched_deny(pattern, &self.catalog(), self.bridge) {
                problems.push(problem(field.clone().index(i), message));
            }
        }
    }

    /// The catalogue the names are checked against: without fake tools when its size is unknown.
    fn catalog(&self) -> std::borrow::Cow<'_, CatalogSpec> {
        match self.any_size {
            true => std::borrow::Cow::Owned(CatalogSpec {
                size: 0,
                ..self.catalog.clone()
            }),
            false => std::borrow::Cow::Borrowed(self.catalog),
        }
    }
}

/// Could `name` be a fake plugin tool of a catalogue of some size (`fake_plugin_tool_07`)?
fn could_be_fake(name: &str) -> bool {
    let digits = name.strip_prefix("fake_plugin_tool_").unwrap_or_default();
    digits.len() >= 2
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits != "0".repeat(digits.len())
}

fn check_script(field: Field, script: &[ScriptStep]) -> Checked<()> {
    match script.iter().position(|step| step.to_turn().is_none()) {
        Some(i) => Err(problem(
            field.index(i),
            "expected either `tool` (with optional `arguments`) or `text`",
        )),
        None => Ok(()),
    }
}

/// The claim `name` names, if it is one a scenario may list.
fn claim_id(field: Field, name: &str) -> Checked<ClaimId> {
    ClaimId::from_name(name)
        .filter(|id| id.def().nameable)
        .ok_or_else(|| {
            let known: Vec<&str> = ClaimId::ALL
                .iter()
                .filter(|id| id.def().nameable)
                .map(|id| id.as_str())
                .collect();
            problem(
                field.key("id"),
                format!(
                    "unknown claim {name:?}; expected one of {}",
                    known.join(", ")
                ),
            )
        })
}

/// Claim `id` as listed (`field`), against the lanes and the catalogue.
fn resolve_claim(
    id: ClaimId,
    lanes: &[Lane],
    catalog: &CatalogSpec,
    field: Field,
    claim: ClaimFile,
) -> Checked<ClaimSpec> {
    match &claim.tool {
        None if id.def().needs_tool => {
            return Err(problem(
                field.key("tool"),
                format!("claim {id} needs the tool it is about"),
            ))
        }
        Some(tool) => {
            if let Some(message) = unknown_tool(tool, catalog) {
                return Err(problem(field.key("tool"), message));
            }
        }
        None => {}
    }
    if let Some(i) = claim
        .lanes
        .iter()
        .position(|l| !lanes.iter().any(|x| &x.name == l))
    {
        let names = lanes.iter().map(|l| l.name.as_str());
        return Err(problem(
            field.key("lanes").index(i),
            format!(
                "no lane named {:?} in this scenario{}",
                claim.lanes[i],
                suggestion(&closest(&claim.lanes[i], names))
            ),
        ));
    }
    let all: Vec<&Lane> = lanes.iter().collect();
    let candidates: Vec<&Lane> = lanes
        .iter()
        .filter(|l| claim.lanes.is_empty() || claim.lanes.contains(&l.name))
        .collect();
    if let Some(missing) = id.missing_lane(&candidates, &all) {
        let at = match claim.lanes.is_empty() {
            true => field.key("id"),
            false => field.key("lanes"),
        };
        return Err(problem(
            at,
            format!("claim {id} cannot be checked here: {missing}"),
        ));
    }
    Ok(ClaimSpec {
        id,
        tool: claim.tool,
        error: claim.error,
        lanes: claim.lanes,
    })
}

/// Loads one scenario file (what `check` validates).
pub fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut scenario = parse_scenario(&text, &path.display().to_string())?;
    scenario.dir = load_file_dir(path);
    Ok(scenario)
}

/// The folder a scenario file is in (`.` for a bare file name).
fn load_file_dir(path: &Path) -> Option<PathBuf> {
    path.parent().map(|dir| match dir.as_os_str().is_empty() {
        true => PathBuf::from("."),
        false => dir.to_path_buf(),
    })
}

/// Loads one scenario file as `check` does: [`load_file`], and also what the file makes fail
/// at run time whatever the gateway does ([`unjudgeable`]), as errors of the file, in the same
/// round as every other problem.
pub fn check_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut scenario = parse(&text, &path.display().to_string(), Strictness::Check)?;
    scenario.dir = load_file_dir(path);
    Ok(scenario)
}

/// Lanes C6 judges whose `expect` leaves a count unset: C6 would fail there on any gateway
/// (`searches = 0 is unchecked`), so `check` says it before a run does.
fn unjudgeable(lanes: &[Lane], claims: &[ClaimSpec]) -> Vec<Problem> {
    let names_c6 = claims.iter().find(|c| c.id == ClaimId::C6);
    let judged = claims.is_empty() || names_c6.is_some();
    let mut problems = Vec::new();
    for (i, lane) in lanes.iter().enumerate() {
        let on_lane = names_c6.is_none_or(|c| c.lanes.is_empty() || c.lanes.contains(&lane.name));
        if !judged || !on_lane || !ClaimId::C6.checks(lane) {
            continue;
        }
        let e = &lane.expect;
        let unset: Vec<&str> = [
            ("searches", e.searches),
            ("describes", e.describes),
            ("calls", e.calls),
        ]
        .into_iter()
        .filter(|(_, n)| n.is_none())
        .map(|(name, _)| name)
        .collect();
        if !unset.is_empty() {
            problems.push(problem(
                Field::of("lanes").index(i).key("expect"),
                format!(
                    "C6 judges this lane and needs the session log's counts, but `expect` does not \
                     set {}: the run would fail (\"{} = 0 is unchecked\"); set them, or list \
                     `claims` without C6",
                    unset.join(", "),
                    unset[0]
                ),
            ));
        }
    }
    problems
}

/// Loads the built-in scenarios (the reference first, then by file name) plus every `*.toml`
/// in `extra_dirs` (sorted by file name).
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Scenario>, ScenarioError> {
    let mut scenarios = Vec::new();
    for (origin, text) in BUILT_IN {
        scenarios.push(parse_scenario(text, origin)?);
    }
    // A stable sort: the reference moves to the front, the others keep file-name order.
    scenarios.sort_by_key(|s| s.id != REFERENCE_SCENARIO);
    for dir in extra_dirs {
        for path in toml_files(dir)? {
            scenarios.push(load_file(&path)?);
        }
    }
    for (i, s) in scenarios.iter().enumerate() {
        if let Some(first) = scenarios[..i].iter().find(|o| o.id == s.id) {
            return Err(ScenarioError::Duplicate {
                id: s.id.clone(),
                first: first.origin.clone(),
                second: s.origin.clone(),
            });
        }
    }
    Ok(scenarios)
}

/// The `*.toml` files of `dir`, sorted by name.
pub fn toml_files(dir: &Path) -> Result<Vec<PathBuf>, ScenarioError> {
    let entries = std::fs::read_dir(dir).map_err(|source| ScenarioError::Read {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Picks scenarios by id (all when `ids` is empty), in the order given.
pub fn select(all: Vec<Scenario>, ids: &[String]) -> Result<Vec<Scenario>, ScenarioError> {
    if ids.is_empty() {
        return Ok(all);
    }
    ids.iter()
        .map(|id| {
            all.iter()
                .find(|s| &s.id == id)
                .cloned()
                .ok_or_else(|| ScenarioError::Unknown {
                    id: id.clone(),
                    known: all.iter().map(|s| s.id.clone()).collect(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolSearchMode;

    #[test]
    fn built_in_scenarios_load() {
        let all = load_all(&[]).unwrap();
        let reference = all
            .iter()
            .find(|s| s.id == "tool-search-gateway-e2e")
            .unwrap();
        assert_eq!(reference.catalog.size, 36);
        assert_eq!(
            reference
                .lanes
                .iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>(),
            [
                "direct",
                "tools",
                "code",
                "directory",
                "batch",
                "native-openai",
                "native-openai-client",
                "native-anthropic",
                "native-anthropic-regex"
            ]
        );
        assert!(reference.lanes[0].is_direct());
        assert!(!reference.lanes[1].is_direct());
        assert_eq!(reference.lanes[2].mode(), ToolSearchMode::Code);
    }

    /// A valid file to break one thing of: `{lanes}` is replaced by the lanes.
    const FILE: &str = "id = 'x'\ntitle = 't'\nprompt = 'p'\ntarget_tool = 'fake_plugin_tool_02'\n\
                        \n[catalog]\nplugin_id = 'p'\nsize = 3\n{extra}\n\
                        [[lanes]]\nname = 'direct'\ntool_search = false\n\n\
                        [[lanes]]\nname = 'tools'\ntool_search = { mode = 'tools' }\n{lane}";

    fn error(extra: &str, lane: &str) -> String {
        let text = FILE.replace("{extra}", extra).replace("{lane}", lane);
        parse_scenario(&text, "s.toml").unwrap_err().to_string()
    }

    #[test]
    fn the_test_file_loads() {
        let text = FILE.replace("{extra}", "").replace("{lane}", "");
        assert_eq!(parse_scenario(&text, "s.toml").unwrap().lanes.len(), 2);
    }

    #[test]
    fn toml_errors_are_one_line_with_file_line_column_and_field() {
        assert_eq!(
            error("bogus = 1", ""),
            "s.toml:9:1: catalog.bogus: unknown field `bogus`, expected one of `plugin_id`, \
             `size`, `core_tools`, `description_template`, `direct_only`, `broken`, `mcp`, \
             `mcp_servers`, `client`"
        );
        // An unclosed array is said where it opens, once (not again in every table after it).
        assert_eq!(
            error("size2 = [", ""),
            "s.toml:9:10: unclosed array, expected `]`"
        );
        let err = parse_scenario("id = 'x'\ntitle = 't'\nprompt = 3\n", "s.toml")
            .unwrap_err()
            .to_string();
        // The wrong type, and (read past it) what else the file lacks.
        assert_eq!(
            err,
            "s.toml:1:1: id: missing field `target_tool`\nerror: s.toml:3:10: prompt: invalid \
             type: integer `3`, expected a string"
        );
    }

    #[test]
    fn every_syntax_error_of_a_file_is_reported_in_one_run() {
        let text = FILE
            .replace("title = 't'", "title = 't")
            .replace("size = 3", "size = = 3")
            .replace("{extra}", "direct_only = [1,, 2]")
            .replace("{lane}", "stream = tru\n");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.report(false),
            "error: s.toml:2:11: invalid literal string, expected `'`\n\
             error: s.toml:8:8: extra `=`, expected nothing\n\
             error: s.toml:9:18: extra comma in array, expected value\n\
             error: s.toml:17:10: invalid boolean, expected `true`\n"
        );
    }

    #[test]
    fn every_type_error_of_a_file_is_reported_in_one_run() {
        let text = FILE
            .replace("title = 't'", "title = 3")
            .replace("size = 3", "size = '3'\nsizes = 4")
            .replace("{extra}", "")
            .replace("{lane}", "stream = 'yes'\nexpect = { searches = -1 }\n");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.report(false),
            "error: s.toml:2:9: title: invalid type: integer `3`, expected a string\n\
             error: s.toml:8:8: catalog.size: invalid type: string \"3\", expected a whole \
             number from 1 to 100,000\n\
             error: s.toml:9:1: catalog.sizes: unknown field `sizes`, expected one of \
             `plugin_id`, `size`, `core_tools`, `description_template`, `direct_only`, `broken`, \
             `mcp`, `mcp_servers`, `client`; did you mean `size`?\n\
             error: s.toml:18:10: lane \"tools\": stream: invalid type: string \"yes\", \
             expected a boolean\n\
             error: s.toml:19:23: lane \"tools\": expect.searches: invalid value: integer `-1`, \
             expected a whole number, 0 or more\n"
        );
        // Offsets stay right past a multi-byte character in a mended pair.
        let text = FILE
            .replace("title = 't'", "title = ['é']\nagent = 4")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:2:9: title: invalid type: sequence, expected a string\nerror: s.toml:3:9: \
             agent: invalid type: integer `4`, expected a string"
        );
        // A required field written wrong, then nothing else: that one line, no made-up
        // `missing field` after it.
        let text = FILE
            .replace("prompt = 'p'", "prompt = ['p']")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:3:10: prompt: invalid type: sequence, expected a string"
        );
    }

    #[test]
    fn a_missing_required_field_names_it_at_its_table() {
        let text = FILE
            .replace("plugin_id = 'p'\n", "")
            .replace("{extra}", "")
            .replace("{lane}", "");
        let err = parse_scenario(&text, "s.toml").unwrap_err().to_string();
        assert!(err.starts_with("s.toml:6:"), "{err}");
        assert!(err.ends_with("missing field `plugin_id`"), "{err}");
    }

    #[test]
    fn a_target_outside_the_catalogue_is_a_load_error_with_suggestions() {
        let text = FILE
            .replace("'fake_plugin_tool_02'", "'fake_plugin_tool_2'")
            .replace("{extra}", "")
            .replace("{lane}", "");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.toml:4:15: target_tool: \"fake_plugin_tool_2\" is not an openclaw tool of this \
             catalogue (fake tools fake_plugin_tool_01 … fake_plugin_tool_03 and the core tools); \
             did you mean fake_plugin_tool_02?"
        );
        assert_eq!(
            err.excerpt(),
            Some("  |\n4 | target_tool = 'fake_plugin_tool_2'\n  |               ^")
        );
    }

    #[test]
    fn a_native_lane_is_checked_and_not_applicable_on_the_product() {
        let native = |table: &str| {
            FILE.replace("{extra}", "").replace(
                "{lane}",
                &format!("\n[[lanes]]\nname = 'native'\n{table}\n"),
            )
        };
        let scenario =
            parse_scenario(&native("native = { provider = 'anthropic' }"), "s.toml").unwrap();
        let lane = &scenario.lanes[2];
        assert_eq!(
            lane.native,
            Some(crate::config::NativeSettings::flat(
                crate::config::NativeProvider::Anthropic,
                crate::config::NativeSearch::Bm25
            ))
        );
        assert_eq!(lane.mode(), ToolSearchMode::Directory);
        assert!(lane.openclaw.not_applicable.is_some());
        let error = |table: &str| {
            parse_scenario(&native(table), "s.toml")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("native = { provider = 'openai', search = 'regex' }"),
            "s.toml:20:42: lane \"native\": native.search: \"regex\" is not a search openai \
             offers; expected \"server\" or \"client\""
        );
        assert_eq!(
            error("native = { provider = 'anthropic', namespaces = true }"),
            "s.toml:20:49: lane \"native\": native.namespaces: namespaces are OpenAI's (a \
             `namespace` tool); anthropic has none"
        );
        assert_eq!(
            error("native = { provider = 'openai' }\ntool_search = false"),
            "s.toml:21:15: lane \"native\": tool_search: a native lane has no tool_search: the \
             provider searches (remove one of the two)"
        );
        assert_eq!(
            error("stream = true"),
            "s.toml:18:1: lane \"native\": tool_search: missing field `tool_search`: false, true \
             or { mode = \"…\" } (or `native` for a native lane)"
        );
        assert_eq!(
            error("native = { provider = 'openai' }\nopenclaw = { not_applicable = 'x' }"),
            "s.toml:21:12: lane \"native\": openclaw: a native lane never runs on the product; it \
             has no openclaw table"
        );
    }

    #[test]
    fn bad_lane_values_name_the_lane_and_its_key() {
        assert_eq!(
            error("", "config = { tools = { toolSerch = true } }\n"),
            "s.toml:17:22: lane \"tools\": config.tools.toolSerch: unknown field `toolSerch`, \
             expected one of `toolSearch`, `nativeSearch`, `allow`, `deny`, `alsoAllow`, `approvals`; did you mean \
             `toolSearch`?"
        );
        assert_eq!(
            error(
                "",
                "config = { tools = { approvals = [{ tool = 'x', action = 'maybe' }] } }\n"
            ),
            "s.toml:17:58: lane \"tools\": config.tools.approvals[0].action: unknown variant \
             `maybe`, expected `allow` or `deny`"
        );
        let err = error("", "tool_search = { mode = 'magic' }\n");
        assert!(err.contains("duplicate key"), "{err}");
        let text = FILE
            .replace("{ mode = 'tools' }", "{ mode = 'magic' }")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:16:24: lane \"tools\": tool_search.mode: expected \"code\", \"tools\" or \
             \"directory\", got \"magic\""
        );
    }

    /// A limit the gateway would ignore (spec §2: not a positive whole number) is a load error,
    /// not a silent default (issue #41: `codeTimeoutMs = -5` passed `check` and ran).
    #[test]
    fn a_limit_the_gateway_would_ignore_is_an_error() {
        for (written, got) in [("-5", "-5"), ("0", "0"), ("1.5", "1.5"), ("'9'", "\"9\"")] {
            let text = FILE
                .replace(
                    "{ mode = 'tools' }",
                    &format!("{{ mode = 'code', codeTimeoutMs = {written} }}"),
                )
                .replace("{extra}", "")
                .replace("{lane}", "");
            let err = parse_scenario(&text, "s.toml").unwrap_err().to_string();
            assert!(
                err.ends_with(&format!(
                    "lane \"tools\": tool_search.codeTimeoutMs: expected a positive whole number, \
                     got {got}: the gateway would ignore it and use its default"
                )),
                "{err}"
            );
        }
        let text = FILE
            .replace(
                "{ mode = 'tools' }",
                "{ mode = 'code', codeTimeoutMs = 5000 }",
            )
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert!(parse_scenario(&text, "s.toml").is_ok());
    }

    #[test]
    fn claims_are_checked_against_lanes_and_catalogue() {
        let claims = |claim: &str| error(&format!("\n[[claims]]\n{claim}\n"), "");
        assert_eq!(
            claims("id = 'F9'"),
            "s.toml:11:6: claims[0].id: unknown claim \"F9\"; expected one of C1, C2, C3, C4, C5, \
             C6, D1, N1, B1, I1, E1, F1, F2, F3, F4, F5, F6, H1, L1, P1, R1, V1, V2, V3, A1, G1, K1, K2, S1, M1"
        );
        assert_eq!(
            claims("id = 'F1'\ntool = 'fake_plugin_tool_4'"),
            "s.toml:12:8: claims[0].tool: \"fake_plugin_tool_4\" is not a tool of this catalogue; \
             did you mean fake_plugin_tool_01, fake_plugin_tool_02, fake_plugin_tool_03?"
        );
        assert_eq!(
            claims("id = 'C6'\nlanes = ['tool']"),
            "s.toml:12:10: claims[0].lanes[0]: no lane named \"tool\" in this scenario; did you \
             mean tools?"
        );
        assert_eq!(
            claims("id = 'C1'\nlanes = ['tools']"),
            "s.toml:12:9: claims[0].lanes: claim C1 cannot be checked here: no lane with Tool \
             Search off (tool_search = false)"
        );
    }

    #[test]
    fn unknown_scenario_lists_known_ones() {
        let err = select(load_all(&[]).unwrap(), &["nope".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown scenario \"nope\"; known: tool-search-gateway-e2e"),
            "{err}"
        );
    }
}
