//! Texts of a profile: either written out ([`Text::Literal`], our own prose, or a product's in a
//! capture kept for local use) or known only by size ([`Text::Sized`], a product's prose in a
//! committed profile). A sized text becomes [`filler`]: visibly synthetic, with exactly the
//! characters, wire bytes and line breaks of the text it stands in for.
//!
//! Wire bytes are what a text costs inside a JSON request body: UTF-8, with `"`, `\` and control
//! characters escaped (a line break is two bytes), as both serde_json and JavaScript's
//! `JSON.stringify` write it.

use std::fmt;

use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};

/// A text of a profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Text {
    /// The text itself.
    Literal(String),
    /// Only its size is known; rendered as [`filler`].
    Sized(Size),
}

/// The size of a text: characters, bytes inside a JSON string, and line breaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Size {
    pub chars: usize,
    pub bytes: usize,
    #[serde(default)]
    pub lines: usize,
}

impl Size {
    /// The size of `text`.
    pub fn of(text: &str) -> Size {
        Size {
            chars: text.chars().count(),
            bytes: wire_bytes(text),
            lines: text.matches('\n').count(),
        }
    }

    /// Whether [`filler`] can have exactly this size: every line break costs two bytes and no
    /// character more than three.
    pub fn is_possible(&self) -> bool {
        let content = self.chars.checked_sub(self.lines);
        let extra = self.bytes.checked_sub(self.chars + self.lines);
        matches!((content, extra), (Some(c), Some(e)) if e <= 2 * c)
    }
}

impl Text {
    pub fn empty() -> Text {
        Text::Literal(String::new())
    }

    /// The text as it is sent: itself, or filler of its size.
    pub fn render(&self) -> String {
        match self {
            Text::Literal(text) => text.clone(),
            Text::Sized(size) => filler(*size),
        }
    }

    pub fn size(&self) -> Size {
        match self {
            Text::Literal(text) => Size::of(text),
            Text::Sized(size) => *size,
        }
    }

    /// The same text known only by its size (what a committed profile keeps).
    pub fn sized(&self) -> Text {
        Text::Sized(self.size())
    }
}

/// Bytes of `text` inside a JSON string on the wire (without the quotes).
pub fn wire_bytes(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf8(),
        })
        .sum()
}

/// What filler is made of: one word, no spaces (so collapsing whitespace or trimming never
/// changes its length), never a heading (`#`) or list line (`- `), never a tool name.
const WORD: &str = "synthetic_";
/// A character of two wire bytes and one of three, for texts that have non-ASCII in them.
const TWO_BYTES: char = '·';
const THREE_BYTES: char = '—';

/// Is `text` synthetic filler (what [`filler`] writes for its size), not a product's words?
pub fn is_filler(text: &str) -> bool {
    !text.is_empty() && filler(Size::of(text)) == text
}

/// Visibly synthetic text of exactly `size` (when [`Size::is_possible`]): `lines` lines, each
/// ending in a line break, or one line without a break when `lines` is 0.
pub fn filler(size: Size) -> String {
    let content = size.chars.saturating_sub(size.lines);
    let extra = size.bytes.saturating_sub(size.chars + size.lines);
    // `three` characters of +2 bytes and `two` of +1 make up the extra bytes.
    let three = extra.saturating_sub(content).min(content);
    let two = extra.saturating_sub(2 * three).min(content - three);
    let segments = size.lines.max(1);
    let mut out = String::with_capacity(size.bytes);
    let (mut three_left, mut two_left) = (three, two);
    for i in 0..segments {
        let len = content / segments + usize::from(i < content % segments);
        let mut line = String::with_capacity(len * 2);
        let mut used = 0;
        while used < len && three_left > 0 {
            line.push(THREE_BYTES);
            three_left -= 1;
            used += 1;
        }
        while used < len && two_left > 0 {
            line.push(TWO_BYTES);
            two_left -= 1;
            used += 1;
        }
        line.extend(WORD.chars().cycle().take(len - used));
        out.push_str(&line);
        if size.lines > 0 {
            out.push('\n');
        }
    }
    out
}

impl serde::Serialize for Text {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Text::Literal(text) => serializer.serialize_str(text),
            Text::Sized(size) => size.serialize(serializer),
        }
    }
}

/// A string is a literal text; a table `{ chars, bytes, lines }` is a sized one.
impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Text, D::Error> {
        struct TextVisitor;

        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;

            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or a table { chars, bytes, lines }")
            }

            fn visit_str<E: de::Error>(self, text: &str) -> Result<Text, E> {
                Ok(Text::Literal(text.to_string()))
            }

            fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<Text, M::Error> {
                let size = Size::deserialize(de::value::MapAccessDeserializer::new(map))?;
                if !size.is_possible() {
                    return Err(de::Error::custom(format!(
                        "{} chars with {} line breaks cannot take {} bytes",
                        size.chars, size.lines, size.bytes
                    )));
                }
                Ok(Text::Sized(size))
            }
        }

        deserializer.deserialize_any(TextVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_bytes_count_escapes_and_utf8() {
        assert_eq!(wire_bytes("ab"), 2);
        assert_eq!(wire_bytes("a\nb"), 4);
        assert_eq!(wire_bytes("\"q\""), 5);
        assert_eq!(wire_bytes("é—"), 5);
        assert_eq!(wire_bytes("\u{1}"), 6);
        for text in ["plain", "line\nbreak \"quoted\" \\ é — ✓ \t", ""] {
            let json = serde_json::to_string(text).unwrap();
            assert_eq!(wire_bytes(text), json.len() - 2, "{text:?}");
        }
    }

    #[test]
    fn filler_has_exactly_the_size_it_stands_in_for() {
        let texts = [
            "",
            "x",
            "one line",
            "two\nlines\n",
            "## not a heading in filler\n- nor a list line\n",
            "quotes \"and\" é, — and ✓ in it\nand a tab\t\n",
            "ends without a break\nhere",
        ];
        for text in texts {
            let size = Size::of(text);
            assert!(size.is_possible(), "{text:?}");
            let fill = filler(size);
            assert_eq!(Size::of(&fill), size, "{text:?} → {fill:?}");
            assert!(fill
                .lines()
                .all(|l| !l.starts_with('#') && !l.starts_with("- ")));
        }
        let big = Size {
            chars: 46_876,
            bytes: 47_950,
            lines: 700,
        };
        assert_eq!(Size::of(&filler(big)), big);
    }

    #[test]
    fn filler_is_visibly_synthetic_and_has_no_spaces() {
        let fill = filler(Size {
            chars: 40,
            bytes: 40,
            lines: 0,
        });
        assert_eq!(fill, "synthetic_synthetic_synthetic_synthetic_");
        assert!(!fill.contains(' '));
    }

    #[test]
    fn impossible_sizes_are_refused() {
        let size = |chars, bytes, lines| Size {
            chars,
            bytes,
            lines,
        };
        assert!(!size(3, 2, 0).is_possible());
        assert!(!size(2, 2, 1).is_possible());
        assert!(size(2, 3, 1).is_possible());
        assert!(!size(2, 9, 0).is_possible());
        assert!(size(2, 6, 0).is_possible());
    }

    #[test]
    fn text_reads_as_string_or_size() {
        #[derive(Deserialize)]
        struct T {
            a: Text,
            b: Text,
        }
        let t: T = toml::from_str("a = \"hi\"\nb = { chars = 3, bytes = 4, lines = 1 }").unwrap();
        assert_eq!(t.a, Text::Literal("hi".into()));
        assert_eq!(t.b.render(), "sy\n");
        let err = toml::from_str::<T>("a = 1\nb = \"\"")
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("a string or a table"), "{err}");
    }
}
