//! Measuring provider requests exactly as they were sent: byte lengths come from the journaled
//! body text, the `tools` slice is cut out of that text (not re-serialised), and tokens are counted
//! with the o200k_base encoding over the same text (the tokenizer the mock provider and the
//! embedded gateway report `usage` with, see [`crate::protocol::usage`]).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

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

/// Measures one journaled request.
pub fn measure_request(record: &JournalRecord) -> Result<PayloadSize, TokenizerError> {
    Ok(PayloadSize {
        raw_bytes: record.raw_byte_length,
        tool_json_bytes: tool_json_bytes(&record.raw),
        system_prompt_chars: system_prompt_chars(&record.body),
        declared_tools: declared_tool_names(&record.body).len(),
        tokens: count_tokens(&record.raw)?,
    })
}

/// The first request and the sum over all requests of a turn.
pub fn measure_turn(
    records: &[std::sync::Arc<JournalRecord>],
) -> Result<(PayloadSize, PayloadSize), TokenizerError> {
    let mut first = None;
    let mut turn = PayloadSize::default();
    for record in records {
        let size = measure_request(record)?;
        first.get_or_insert(size);
        turn = turn + size;
    }
    Ok((first.unwrap_or_default(), turn))
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
