//! Where things are in a scenario file: a field's path (`lanes[1].config.tools`), the line and
//! column it is written at, and the field written at a given byte — so every load error can say
//! `file:line:col: field: message`, whether toml or our own checks found it.

use std::fmt;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Key(String),
    Index(usize),
}

/// A field of a scenario file, as its author writes it: `catalog.size`, `claims[0].id`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field(Vec<Step>);

impl Field {
    /// A top-level field, or a dotted path of keys with indexes (`catalog.direct_only`,
    /// `tools.approvals[0].action`).
    pub fn of(path: &str) -> Field {
        let mut steps = Vec::new();
        for part in path.split('.').filter(|k| !k.is_empty()) {
            let (key, indexes) = part.split_once('[').unwrap_or((part, ""));
            if !key.is_empty() {
                steps.push(Step::Key(key.to_string()));
            }
            let indexes = indexes.trim_end_matches(']').split("][");
            for index in indexes.filter(|i| !i.is_empty()) {
                match index.parse() {
                    Ok(i) => steps.push(Step::Index(i)),
                    Err(_) => steps.push(Step::Key(format!("[{index}]"))),
                }
            }
        }
        Field(steps)
    }

    /// `self.key` (a dotted key adds each part).
    pub fn key(mut self, key: &str) -> Field {
        self.0.extend(Field::of(key).0);
        self
    }

    /// `self.key`, for one key that may itself contain dots.
    fn key_step(mut self, key: &str) -> Field {
        self.0.push(Step::Key(key.to_string()));
        self
    }

    /// `self[index]`.
    pub fn index(mut self, index: usize) -> Field {
        self.0.push(Step::Index(index));
        self
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Is this field `other` or inside it (`lanes[0].expect.calls` is inside `lanes[0]`)?
    pub fn is_within(&self, other: &Field) -> bool {
        self.0.starts_with(&other.0)
    }

    /// The field beside this one named `key` (`catalog.sise` → `catalog.size`).
    pub fn sibling(&self, key: &str) -> Field {
        let mut steps = self.0.clone();
        steps.pop();
        Field(steps).key_step(key)
    }

    /// The lane this field is inside (`lanes[i]…`), and the path within it.
    fn in_lane(&self) -> Option<(usize, Field)> {
        match self.0.as_slice() {
            [Step::Key(k), Step::Index(i), rest @ ..] if k == "lanes" => {
                Some((*i, Field(rest.to_vec())))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            match step {
                Step::Key(key) if i == 0 => write!(f, "{key}")?,
                Step::Key(key) => write!(f, ".{key}")?,
                Step::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// A 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub line: usize,
    pub column: usize,
}

/// The places of one scenario text (empty when the text is not TOML).
pub struct Places<'t> {
    text: &'t str,
    root: Option<Spanned<DeTable<'t>>>,
}

impl<'t> Places<'t> {
    pub fn new(text: &'t str) -> Places<'t> {
        Places {
            text,
            root: DeTable::parse(text).ok(),
        }
    }

    /// Where `field` is written: its value, when the value sits on the key's line (a scalar,
    /// an inline array or table) — where a terminal's caret points at what is wrong; else the
    /// key (a `[table]`). When it is not written (a missing key), where the closest enclosing
    /// field is.
    pub fn of(&self, field: &Field) -> Option<Place> {
        let (at, value) = self.written(field)?;
        let inline = value.filter(|v| {
            let start = v.span().start;
            match v.get_ref() {
                DeValue::Table(_) => self.text[start..].starts_with('{'),
                DeValue::Array(_) => {
                    self.text[start..].starts_with('[') && !self.text[start..].starts_with("[[")
                }
                _ => true,
            }
        });
        Some(self.place(inline.map_or(at, |v| v.span().start)))
    }

    /// Where `field`'s key is written (an array item: the item), for a problem with the key
    /// itself (an unknown field); when it is not written, where the closest enclosing field is.
    pub fn key_of(&self, field: &Field) -> Option<Place> {
        self.written(field).map(|(at, _)| self.place(at))
    }

    /// Where `field`'s key (an array item: the item) is written, and its value when the whole
    /// path is; for a missing field, the closest enclosing field's key and no value.
    fn written(&self, field: &Field) -> Option<(usize, Option<&Spanned<DeValue<'t>>>)> {
        let root = self.root.as_ref()?;
        let mut at = None;
        let mut table = Some(root.get_ref());
        let mut value: Option<&Spanned<DeValue<'t>>> = None;
        for step in &field.0 {
            let next = match (step, table, value.map(Spanned::get_ref)) {
                (Step::Key(key), Some(t), _) | (Step::Key(key), None, Some(DeValue::Table(t))) => {
                    let found = t.get_key_value(key.as_str());
                    if let Some((k, _)) = found {
                        at = Some(k.span().start);
                    }
                    found.map(|(_, v)| v)
                }
                (Step::Index(i), _, Some(DeValue::Array(items))) => {
                    let item = items.get(*i);
                    if let Some(item) = item {
                        at = Some(item.span().start);
                    }
                    item
                }
                _ => None,
            };
            let Some(next) = next else {
                return at.map(|offset| (offset, None));
            };
            table = None;
            value = Some(next);
        }
        at.map(|offset| (offset, value))
    }

    /// The innermost field written at byte `offset` (empty when none is).
    pub fn field_at(&self, offset: usize) -> Field {
        let mut written = Vec::new();
        if let Some(root) = &self.root {
            collect_table(root.get_ref(), &Field::default(), &mut written);
        }
        // A key written at the offset, else a value that spans it; the deepest such field.
        let deepest = |hit: &dyn Fn(&Written) -> bool| {
            written
                .iter()
                .filter(|w| hit(w))
                .max_by_key(|(field, _, _)| field.0.len())
                .map(|(field, _, _)| field.clone())
        };
        deepest(&|(_, key, _)| contains(key, offset))
            .or_else(|| deepest(&|(_, _, value)| contains(value, offset)))
            .unwrap_or_default()
    }

    /// The line and column of byte `offset`.
    pub fn place(&self, offset: usize) -> Place {
        let offset = offset.min(self.text.len());
        let before = &self.text[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Place {
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }

    /// The text of line `place.line` with a caret under the column (for a terminal).
    pub fn excerpt(&self, place: Place) -> Option<String> {
        let line = self.text.lines().nth(place.line.checked_sub(1)?)?;
        let gutter = place.line.to_string().len();
        Some(format!(
            "{:gutter$} |\n{} | {line}\n{:gutter$} | {}^",
            "",
            place.line,
            "",
            " ".repeat(place.column.saturating_sub(1)),
        ))
    }

    /// The `name` of lane `index`, when the file says.
    pub fn lane_name(&self, index: usize) -> Option<String> {
        let lanes = self.root.as_ref()?.get_ref().get("lanes")?;
        let DeValue::Array(lanes) = lanes.get_ref() else {
            return None;
        };
        let DeValue::Table(lane) = lanes.get(index)?.get_ref() else {
            return None;
        };
        match lane.get("name")?.get_ref() {
            DeValue::String(name) => Some(name.to_string()),
            _ => None,
        }
    }

    /// `field` as an author reads it: inside a lane, `lane "tools": config.tools`.
    pub fn describe(&self, field: &Field) -> String {
        match field.in_lane() {
            Some((i, rest)) => {
                let lane = match self.lane_name(i) {
                    Some(name) => format!("lane {name:?}"),
                    None => format!("lanes[{i}]"),
                };
                match rest.is_empty() {
                    true => lane,
                    false => format!("{lane}: {rest}"),
                }
            }
            None => field.to_string(),
        }
    }
}

fn contains(span: &std::ops::Range<usize>, offset: usize) -> bool {
    span.start <= offset && offset < span.end.max(span.start + 1)
}

/// One written field: its path, the span of its key (of the item, for an array item) and the
/// span of its value.
type Written = (Field, std::ops::Range<usize>, std::ops::Range<usize>);

/// Every field written in `table` and below, under `path`. (The span of a `[table]` or
/// `[[array]]` value does not cover its body, so a lookup cannot descend by spans alone.)
fn collect_table(table: &DeTable<'_>, path: &Field, out: &mut Vec<Written>) {
    for (key, value) in table.iter() {
        let field = path.clone().key_step(key.get_ref());
        out.push((field.clone(), key.span(), value.span()));
        collect_value(value.get_ref(), &field, out);
    }
}

fn collect_value(value: &DeValue<'_>, path: &Field, out: &mut Vec<Written>) {
    match value {
        DeValue::Table(table) => collect_table(table, path, out),
        DeValue::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let field = path.clone().index(i);
                out.push((field.clone(), item.span(), item.span()));
                collect_value(item.get_ref(), &field, out);
            }
        }
        _ => {}
    }
}

/// Why a TOML text did not deserialize: the field's path as serde names it (`.` for the whole
/// file or a syntax error), the line where toml saw it when it knows, and toml's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TomlProblem {
    pub field: String,
    pub line: Option<usize>,
    pub message: String,
}

/// Deserializes `text` (whose places are `places`) into `T`, naming the field and the line of a
/// value of the wrong kind, a missing or unknown key, or a syntax error: the one way every data
/// file here is read, so their errors read alike.
pub fn deserialize_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    places: &Places<'_>,
) -> Result<T, TomlProblem> {
    let deserializer = toml::Deserializer::parse(text).map_err(|e| TomlProblem {
        field: ".".into(),
        line: e.span().map(|s| places.place(s.start).line),
        message: e.message().trim_end().replace('\n', " "),
    })?;
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let field = e.path().to_string();
        let inner = e.into_inner();
        TomlProblem {
            field,
            line: inner.span().map(|s| places.place(s.start).line),
            message: inner.message().trim_end().to_string(),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "id = \"x\"\ntarget_tool = \"t\"\n\n[catalog]\nplugin_id = \"p\"\nsize = 3\n\n\
                        [[lanes]]\nname = \"direct\"\ntool_search = false\n\n[[lanes]]\nname = \"tools\"\n\
                        config = { tools = { toolSerch = true } }\n";

    #[test]
    fn fields_are_placed_where_written() {
        let places = Places::new(TEXT);
        let at = |f: Field| places.of(&f).map(|p| (p.line, p.column));
        // A value's place is the value's (the caret goes under what is wrong).
        assert_eq!(at(Field::of("target_tool")), Some((2, 15)));
        assert_eq!(
            Field::of("tools.approvals[0].action"),
            Field::of("tools.approvals").index(0).key("action")
        );
        assert_eq!(at(Field::of("catalog.size")), Some((6, 8)));
        assert_eq!(at(Field::of("lanes").index(1).key("name")), Some((13, 8)));
        assert_eq!(
            at(Field::of("lanes").index(1).key("config.tools.toolSerch")),
            Some((14, 34))
        );
        // An inline table: its brace; a `[table]`: its key.
        assert_eq!(
            at(Field::of("lanes").index(1).key("config")),
            Some((14, 10))
        );
        assert_eq!(at(Field::of("catalog")), Some((4, 2)));
        // A missing key: its table.
        assert_eq!(at(Field::of("catalog.core_tools")), Some((4, 2)));
        let key = places.key_of(&Field::of("lanes").index(1).key("config.tools.toolSerch"));
        assert_eq!(key.map(|p| (p.line, p.column)), Some((14, 22)));
    }

    #[test]
    fn the_field_at_an_offset_is_the_innermost() {
        let places = Places::new(TEXT);
        let offset = TEXT.find("toolSerch").unwrap();
        let field = places.field_at(offset);
        assert_eq!(field.to_string(), "lanes[1].config.tools.toolSerch");
        assert_eq!(
            places.describe(&field),
            "lane \"tools\": config.tools.toolSerch"
        );
        assert_eq!(
            places.field_at(TEXT.find("size").unwrap()).to_string(),
            "catalog.size"
        );
    }

    #[test]
    fn the_caret_sits_under_the_value() {
        let places = Places::new("a = 1\nbb   =   \"oops\"\n");
        let place = places.of(&Field::of("bb")).unwrap();
        assert_eq!((place.line, place.column), (2, 10));
        assert_eq!(
            places.excerpt(place).unwrap(),
            "  |\n2 | bb   =   \"oops\"\n  |          ^"
        );
    }

    #[test]
    fn an_excerpt_points_at_the_column() {
        let places = Places::new("a = 1\nbb = oops\n");
        let place = places.place(11);
        assert_eq!((place.line, place.column), (2, 6));
        assert_eq!(
            places.excerpt(place).unwrap(),
            "  |\n2 | bb = oops\n  |      ^"
        );
    }
}
