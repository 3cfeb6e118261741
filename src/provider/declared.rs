//! The tool names a request's `tools` declares, read straight from the body's bytes. The
//! scripted model only asks "is this name declared?", and a 10,000-tool request carries
//! megabytes of declarations: walking them as they are parsed keeps the names (kilobytes)
//! and never builds the JSON tree (tens of megabytes).
//!
//! A name is declared when an object at most [`MAX_DEPTH`] levels below `tools` (which is
//! level 0) has a string `name`; of repeated keys the last `name` counts, as in a parsed
//! object.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// How deep below `tools` a declaration may sit.
pub const MAX_DEPTH: usize = 6;

/// The names a `tools` value declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredNames(HashSet<String>);

impl DeclaredNames {
    /// The names declared by the JSON text of a `tools` value (none when it is not JSON).
    pub fn from_json(text: &str) -> DeclaredNames {
        let mut names = HashSet::new();
        let mut reader = serde_json::Deserializer::from_str(text);
        let seed = Collect {
            names: &mut names,
            depth: 0,
        };
        match seed.deserialize(&mut reader) {
            Ok(()) => DeclaredNames(names),
            Err(_) => DeclaredNames::default(),
        }
    }

    /// The names declared by a parsed `tools` value.
    pub fn from_value(tools: &Value) -> DeclaredNames {
        DeclaredNames::from_json(&tools.to_string())
    }

    /// These names (a request read another way, e.g. a Messages body).
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> DeclaredNames {
        DeclaredNames(names.into_iter().map(str::to_string).collect())
    }

    pub fn contains(&self, name: &str) -> bool {
        self.0.contains(name)
    }
}

/// Collects names from one value at `depth`.
struct Collect<'n> {
    names: &'n mut HashSet<String>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for Collect<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        if self.depth > MAX_DEPTH {
            return deserializer.deserialize_ignored_any(IgnoredAny).map(drop);
        }
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Collect<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let depth = self.depth + 1;
        while items
            .next_element_seed(Collect {
                names: &mut *self.names,
                depth,
            })?
            .is_some()
        {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<(), A::Error> {
        let depth = self.depth + 1;
        let mut name = None;
        while let Some(key) = fields.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == "name" {
                name = fields.next_value_seed(NameField {
                    names: &mut *self.names,
                    depth,
                })?;
            } else {
                fields.next_value_seed(Collect {
                    names: &mut *self.names,
                    depth,
                })?;
            }
        }
        if let Some(name) = name {
            self.names.insert(name);
        }
        Ok(())
    }
}

/// The value of a `name` field: the name when it is a string; anything else is searched
/// like any other field value.
struct NameField<'n> {
    names: &'n mut HashSet<String>,
    depth: usize,
}

impl<'de> DeserializeSeed<'de> for NameField<'_> {
    type Value = Option<String>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NameField<'_> {
    type Value = Option<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_str<E>(self, name: &str) -> Result<Self::Value, E> {
        Ok(Some(name.to_string()))
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    // A `name` holding an array or object is searched like any other value at its depth.
    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<Self::Value, A::Error> {
        if self.depth > MAX_DEPTH {
            while items.next_element::<IgnoredAny>()?.is_some() {}
            return Ok(None);
        }
        self.nested().visit_seq(items).map(|()| None)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut fields: A) -> Result<Self::Value, A::Error> {
        if self.depth > MAX_DEPTH {
            while fields.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            return Ok(None);
        }
        self.nested().visit_map(fields).map(|()| None)
    }
}

impl<'n> NameField<'n> {
    fn nested(self) -> Collect<'n> {
        Collect {
            names: self.names,
            depth: self.depth,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(tools: Value) -> Vec<String> {
        let mut names: Vec<String> = DeclaredNames::from_value(&tools).0.into_iter().collect();
        names.sort();
        names
    }

    #[test]
    fn finds_flat_and_nested_names() {
        let tools = json!([
            {"type": "function", "name": "flat", "parameters": {"properties": {"name": {"type": "string"}}}},
            {"type": "function", "function": {"name": "deep_tool"}},
        ]);
        assert_eq!(names(tools), ["deep_tool", "flat"]);
    }

    #[test]
    fn stops_below_the_depth_limit() {
        assert_eq!(names(json!([[[[[[{"name": "six"}]]]]]])), ["six"]);
        assert!(names(json!([[[[[[[{"name": "hidden"}]]]]]]])).is_empty());
        assert_eq!(names(json!({"name": "top"})), ["top"]);
        // The object at depth 6 counts; what its `name` holds would be depth 7.
        assert_eq!(
            names(json!([[[[[[{"name": {"name": "seven"}}]]]]]])),
            Vec::<String>::new()
        );
        assert_eq!(names(json!([[[[[{"name": {"name": "six"}}]]]]])), ["six"]);
    }

    #[test]
    fn the_last_string_name_of_an_object_counts() {
        let text =
            r#"[{"name": "first", "name": "second"}, {"name": 3}, {"name": {"name": "inner"}}]"#;
        let mut found: Vec<String> = DeclaredNames::from_json(text).0.into_iter().collect();
        found.sort();
        assert_eq!(found, ["inner", "second"]);
    }

    #[test]
    fn text_that_is_not_json_declares_nothing() {
        assert_eq!(
            DeclaredNames::from_json("[{\"name\": "),
            DeclaredNames::default()
        );
    }
}
