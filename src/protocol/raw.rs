//! JSON kept as the exact bytes it arrived in. Provider-native tool search hands tool
//! definitions back and forth (a search output holds the deferred tools "as the request declared
//! them"), and the claims compare those bytes across requests, so a definition must never be
//! re-serialised on the way through.
//!
//! [`RawJson`] reads only from JSON text (it is a `serde_json` raw value): an enum that holds one
//! cannot use serde's `tag`/`untagged` buffering, so such enums read their `type` first with
//! [`type_tag`] and then parse the same text again as the variant.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;
use serde_json::Value;

/// One JSON value, byte for byte as it was read (or as [`RawJson::from_value`] wrote it).
#[derive(Debug, Clone)]
pub struct RawJson(Box<RawValue>);

impl RawJson {
    /// The value's text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// Compact JSON of `value` (for values built in code).
    pub fn from_value(value: &Value) -> RawJson {
        RawJson::from_text(value.to_string()).expect("a serialised Value is valid JSON")
    }

    /// `text` when it is one valid JSON value (surrounding whitespace is kept as given).
    pub fn from_text(text: String) -> Result<RawJson, serde_json::Error> {
        RawValue::from_string(text).map(RawJson)
    }

    /// The value parsed as `T`.
    pub fn parse<'a, T: Deserialize<'a>>(&'a self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.get())
    }
}

impl PartialEq for RawJson {
    fn eq(&self, other: &RawJson) -> bool {
        self.get() == other.get()
    }
}

impl Eq for RawJson {}

impl Serialize for RawJson {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for RawJson {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Box::<RawValue>::deserialize(deserializer).map(RawJson)
    }
}

/// The string `type` of a JSON object's text (`None` when absent or not a string); an error when
/// the text is not a JSON object.
pub fn type_tag(text: &str) -> Result<Option<String>, serde_json::Error> {
    #[derive(Deserialize)]
    struct Tag {
        #[serde(default, rename = "type")]
        kind: Option<Value>,
    }
    if !text.trim_start().starts_with('{') {
        return Err(serde::de::Error::custom("expected a JSON object"));
    }
    let tag: Tag = serde_json::from_str(text)?;
    Ok(tag.kind.and_then(|v| v.as_str().map(str::to_string)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_bytes_both_ways() {
        let text = r#"{"b": 1.50, "a" :[ 1e3 ]}"#;
        let raw: RawJson = serde_json::from_str(text).unwrap();
        assert_eq!(raw.get(), text);
        assert_eq!(serde_json::to_string(&raw).unwrap(), text);
        let list: Vec<RawJson> = serde_json::from_str(&format!("[{text}, 2]")).unwrap();
        assert_eq!(serde_json::to_string(&list).unwrap(), format!("[{text},2]"));
        assert_eq!(
            RawJson::from_value(&serde_json::json!({"x": [1]})).get(),
            r#"{"x":[1]}"#
        );
    }

    #[test]
    fn type_tags_are_read_from_objects_only() {
        assert_eq!(
            type_tag(r#"{"type":"a","x":{}}"#).unwrap().as_deref(),
            Some("a")
        );
        assert_eq!(type_tag(r#"{"type":3}"#).unwrap(), None);
        assert_eq!(type_tag("{}").unwrap(), None);
        assert!(type_tag("[1]").is_err());
    }
}
