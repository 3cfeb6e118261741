//! Token usage of a Responses answer, counted with the o200k_base encoding — the same tokenizer
//! `compare` reports payload tokens with, so a response's `usage.input_tokens` and the
//! comparison table agree on what one request costs.
//!
//! The mock provider has no prompt cache and no reasoning, so the details it reports are real
//! zeros; the embedded gateway adds up what its provider reported for every round of a turn.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

/// The tokenizer could not be built from its embedded data.
#[derive(Debug, Clone, thiserror::Error)]
#[error("o200k_base tokenizer unavailable: {0}")]
pub struct TokenizerError(String);

fn tokenizer() -> Result<&'static CoreBPE, TokenizerError> {
    static BPE: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().map_err(|e| e.to_string()))
        .as_ref()
        .map_err(|e| TokenizerError(e.clone()))
}

/// o200k_base token count of `text` (special-token text counts as ordinary text).
pub fn count_tokens(text: &str) -> Result<usize, TokenizerError> {
    Ok(tokenizer()?.encode_ordinary(text).len())
}

/// `usage.input_tokens_details`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputTokensDetails {
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
}

/// `usage.output_tokens_details`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputTokensDetails {
    pub reasoning_tokens: u64,
}

/// `usage` of a response object.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub input_tokens_details: InputTokensDetails,
    pub output_tokens: u64,
    pub output_tokens_details: OutputTokensDetails,
    pub total_tokens: u64,
}

impl Usage {
    /// Usage of a request whose input is `input_text` and whose generated text is `output_texts`
    /// (no cache, no reasoning).
    pub fn count(input_text: &str, output_texts: &[&str]) -> Result<Usage, TokenizerError> {
        let input = count_tokens(input_text)? as u64;
        let output = output_texts
            .iter()
            .map(|text| count_tokens(text).map(|n| n as u64))
            .sum::<Result<u64, _>>()?;
        Ok(Usage::of(input, output))
    }

    /// `input` and `output` tokens, nothing cached, nothing reasoned.
    pub fn of(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input + output,
            ..Usage::default()
        }
    }
}

/// Field-wise sum (the rounds of one gateway turn).
impl std::ops::Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            input_tokens: self.input_tokens + other.input_tokens,
            input_tokens_details: InputTokensDetails {
                cached_tokens: self.input_tokens_details.cached_tokens
                    + other.input_tokens_details.cached_tokens,
                cache_write_tokens: self.input_tokens_details.cache_write_tokens
                    + other.input_tokens_details.cache_write_tokens,
            },
            output_tokens: self.output_tokens + other.output_tokens,
            output_tokens_details: OutputTokensDetails {
                reasoning_tokens: self.output_tokens_details.reasoning_tokens
                    + other.output_tokens_details.reasoning_tokens,
            },
            total_tokens: self.total_tokens + other.total_tokens,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn o200k_base_works_offline() {
        assert_eq!(count_tokens("").unwrap(), 0);
        assert_eq!(count_tokens("hello world").unwrap(), 2);
    }

    #[test]
    fn usage_counts_input_and_outputs_and_adds_up() {
        let usage = Usage::count("hello world", &["hello", " world"]).unwrap();
        assert_eq!(usage, Usage::of(2, 2));
        assert_eq!(
            serde_json::to_value(usage + usage).unwrap(),
            json!({"input_tokens": 4, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                   "output_tokens": 4, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 8})
        );
    }
}
