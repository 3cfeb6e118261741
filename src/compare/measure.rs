//! Measuring provider requests exactly as they were sent: byte lengths come from the journaled
//! body text, the `tools` slice is cut out of that text (not re-serialised), and tokens are counted
//! with the o200k_base encoding over the same text (the tokenizer the mock provider and the
//! embedded gateway report `usage` with, see [`crate::protocol::usage`]). Nothing here parses a
//! body into a JSON tree: a 10,000-tool body is read field by field, its `tools` only for their
//! names.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{json, Value};

use crate::protocol::responses::{declared_tool_names, system_prompt_chars};
pub use crate::protocol::usage::{count_tokens, TokenizerError};
use crate::provider::JournalRecord;

/// Sizes of one request, or the sum over the requests of a turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PayloadSize {
    /// Bytes of the request body as the provider received it.
    pub raw_bytes: usize,
    /// Bytes of the `tools` array inside that body, as sent (0 when absent).
    pub tool_json_bytes: usize,
    /// Characters of the system prompt (`instructions` plus system/developer items).
    pub system_prompt_chars: usize,
    /// Entries of `tools[]`.
    pub declared_tools: usize,
    /// o200k_base tokens of the whole body text.
    pub tokens: usize,
}

/// Field-wise sum (for a whole turn).
impl std::ops::Add for PayloadSize {
    type Output = PayloadSize;

    fn add(self, other: PayloadSize) -> PayloadSize {
        PayloadSize {
            raw_bytes: self.raw_bytes + other.raw_bytes,
            tool_json_bytes: self.tool_json_bytes + other.tool_json_bytes,
            system_prompt_chars: self.system_prompt_chars + other.system_prompt_chars,
            declared_tools: self.declared_tools + other.declared_tools,
            tokens: self.tokens + other.tokens,
        }
    }
}

#[derive(Deserialize)]
struct ToolsSlice<'a> {
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
}

/// Bytes of the `tools` value exactly as it appears in `raw` (0 when absent or unreadable).
pub fn tool_json_bytes(raw: &str) -> usize {
    serde_json::from_str::<ToolsSlice<'_>>(raw)
        .ok()
        .and_then(|s| s.tools)
        .map(|t| t.get().len())
        .unwrap_or(0)
}

/// The fields of a body a measurement reads: the prompt's two (small) and `tools` as text.
#[derive(Deserialize)]
struct Parts<'a> {
    /// Or a Messages body's `system`.
    #[serde(default, alias = "system")]
    instructions: Option<Value>,
    #[serde(default)]
    input: Option<Value>,
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
}

/// A `tools[]` entry, read for its name only.
#[derive(Deserialize)]
struct NameOnly {
    #[serde(default)]
    name: Option<Value>,
}

/// What a body's text says about its prompt and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Shape {
    tool_json_bytes: usize,
    system_prompt_chars: usize,
    declared_tools: usize,
}

impl Shape {
    /// Read field by field; a body of another shape (or with repeated fields) is parsed whole,
    /// so the figures always equal those of the parsed body.
    fn read(raw: &str) -> Shape {
        match serde_json::from_str::<Parts<'_>>(raw) {
            Ok(parts) => Shape {
                tool_json_bytes: parts.tools.map_or(0, |t| t.get().len()),
                system_prompt_chars: system_prompt_chars(
                    &json!({ "instructions": parts.instructions, "input": parts.input }),
                ),
                declared_tools: parts.tools.map_or(0, declared_count),
            },
            Err(_) => {
                let body: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                Shape {
                    tool_json_bytes: tool_json_bytes(raw),
                    system_prompt_chars: system_prompt_chars(&body),
                    declared_tools: declared_tool_names(&body).len(),
                }
            }
        }
    }
}

/// Entries of `tools[]` with a string `name` (as [`declared_tool_names`] counts them).
fn declared_count(tools: &RawValue) -> usize {
    match serde_json::from_str::<Vec<NameOnly>>(tools.get()) {
        Ok(entries) => entries
            .iter()
            .filter(|e| e.name.as_ref().is_some_and(Value::is_string))
            .count(),
        Err(_) => {
            let tools: Value = serde_json::from_str(tools.get()).unwrap_or(Value::Null);
            declared_tool_names(&json!({ "tools": tools })).len()
        }
    }
}

/// Measures one journaled request from its text (its parsed body is never needed). Its tokens
/// are the `usage.input_tokens` the mock provider counted over the same text as it answered (a
/// 10,000-tool body is megabytes: tokenising it twice was a third of compare's time there); a
/// request the mock did not answer is counted here.
pub fn measure_request(record: &JournalRecord) -> Result<PayloadSize, TokenizerError> {
    let shape = Shape::read(&record.raw);
    let tokens = match record.input_tokens {
        Some(counted) => counted as usize,
        None => count_tokens(&record.raw)?,
    };
    Ok(PayloadSize {
        raw_bytes: record.raw_byte_length,
        tool_json_bytes: shape.tool_json_bytes,
        system_prompt_chars: shape.system_prompt_chars,
        declared_tools: shape.declared_tools,
        tokens,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_slice_is_cut_from_the_raw_text() {
        let raw = r#"{"model":"m","tools":[ {"name":"a"} ],"stream":false}"#;
        assert_eq!(tool_json_bytes(raw), r#"[ {"name":"a"} ]"#.len());
        assert_eq!(tool_json_bytes(r#"{"model":"m"}"#), 0);
        assert_eq!(tool_json_bytes("not json"), 0);
    }

    #[test]
    fn shape_read_from_text_equals_shape_of_the_parsed_body() {
        let bodies = [
            r#"{"model":"m","instructions":"sys","input":[{"role":"system","content":"rules é"},{"role":"user","content":"hi"}],"tools":[{"type":"function","name":"a","parameters":{}},{"name":3},"odd",{"type":"function","function":{"name":"nested"}}]}"#,
            r#"{"input":"x","tools":null}"#,
            r#"{"input":[{"role":"developer","content":[{"type":"input_text","text":"dev"}]}],"input":"again"}"#,
            r#"{"tools":[{"name":"x","name":"y"}]}"#,
            "not json",
        ];
        for raw in bodies {
            let body: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
            let expected = Shape {
                tool_json_bytes: tool_json_bytes(raw),
                system_prompt_chars: system_prompt_chars(&body),
                declared_tools: declared_tool_names(&body).len(),
            };
            assert_eq!(Shape::read(raw), expected, "{raw}");
        }
    }

    #[test]
    fn o200k_base_works_offline() {
        assert_eq!(count_tokens("").unwrap(), 0);
        assert_eq!(count_tokens("hello world").unwrap(), 2);
    }

    #[test]
    fn sizes_add_field_by_field() {
        let a = PayloadSize {
            raw_bytes: 1,
            tool_json_bytes: 2,
            system_prompt_chars: 3,
            declared_tools: 4,
            tokens: 5,
        };
        assert_eq!(
            a + a,
            PayloadSize {
                raw_bytes: 2,
                tool_json_bytes: 4,
                system_prompt_chars: 6,
                declared_tools: 8,
                tokens: 10
            }
        );
    }
}
