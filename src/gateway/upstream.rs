//! The gateway's client for the model provider (OpenAI Responses API over HTTP).
//!
//! The request body is serialised once and those exact bytes are sent, so the sizes the
//! session log reports are the sizes on the wire. A streaming client reads the provider's
//! Server-Sent Events back into the same output items, so nothing downstream knows the difference.
//!
//! Failures are values that name the provider URL and what went wrong. A 429 is not retried: the
//! error carries the provider's `retry-after` so the caller (and a CI log) sees why the turn failed.

use std::time::Duration;

use serde_json::Value;
use thiserror::Error;

use crate::protocol::usage::{InputTokensDetails, OutputTokensDetails, Usage};

#[derive(Debug, Error)]
pub enum UpstreamError {
    #[error("provider request to {url} failed: {message}")]
    Connect { url: String, message: String },
    #[error("provider at {url} answered HTTP {status}: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("provider at {url} answered with a body that is not JSON: {message}")]
    Malformed { url: String, message: String },
    #[error("provider at {url} answered JSON of the wrong shape: {message}")]
    Shape { url: String, message: String },
    #[error("provider at {url} is rate limiting (HTTP 429, retry-after: {retry_after}); not retried: {body}")]
    RateLimited {
        url: String,
        retry_after: String,
        body: String,
    },
    #[error(
        "provider at {url} did not answer within {timeout_ms} ms (models.providers.<id>.timeoutMs)"
    )]
    Timeout { url: String, timeout_ms: u128 },
    #[error("provider at {url} sent a broken event stream: {message}")]
    Stream { url: String, message: String },
}

/// One item of the provider's `output` the gateway acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputItem {
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
        /// The namespace of a function declared inside a `namespace` tool (OpenAI).
        namespace: Option<String>,
    },
    Message {
        text: String,
    },
    /// An item the provider produced and ran itself (a native search call or its result): the
    /// next request sends it back as it came.
    Carried {
        item: Value,
    },
    /// A native search the provider leaves to the caller (OpenAI `execution: "client"`, or an
    /// Anthropic `tool_use` of the gateway's own search tool): the gateway searches and answers
    /// with a `tool_search_output` (a `tool_result` of `tool_reference`s).
    SearchCall {
        call_id: String,
        arguments: Value,
        item: Value,
    },
}

/// What one provider round produced: the output items and the usage the provider reported
/// (`None` when it reported none).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderReply {
    pub items: Vec<OutputItem>,
    pub usage: Option<Usage>,
}

/// The protocol the gateway speaks to its provider.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WireProtocol {
    /// OpenAI Responses: `POST <base>/responses`.
    #[default]
    Responses,
    /// Anthropic Messages: `POST <base>/messages` (a native Anthropic lane).
    Messages,
}

/// The `anthropic-version` header a Messages request carries.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

#[derive(Clone)]
pub struct ProviderClient {
    http: reqwest::Client,
    url: String,
    api_key: Option<String>,
    timeout: Duration,
    stream: bool,
    protocol: WireProtocol,
}

impl ProviderClient {
    /// `base_url` ends in `/v1`; requests go to `<base_url>/responses`.
    pub fn new(
        base_url: &str,
        api_key: Option<String>,
        timeout: Duration,
    ) -> Result<Self, UpstreamError> {
        let url = format!("{}/responses", base_url.trim_end_matches('/'));
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| UpstreamError::Connect {
                url: url.clone(),
                message: e.to_string(),
            })?;
        Ok(ProviderClient {
            http,
            url,
            api_key,
            timeout,
            stream: false,
            protocol: WireProtocol::Responses,
        })
    }

    /// Speak `protocol` (requests go to `<base_url>/messages` for Messages).
    pub fn speaking(mut self, protocol: WireProtocol) -> Self {
        if protocol == WireProtocol::Messages {
            if let Some(base) = self.url.strip_suffix("/responses") {
                self.url = format!("{base}/messages");
            }
        }
        self.protocol = protocol;
        self
    }

    /// Ask the provider for Server-Sent Events (`stream: true`) instead of one JSON body.
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
    }

    /// Whether requests ask for a stream; the agent loop writes this into the body's `stream`.
    pub fn streams(&self) -> bool {
        self.stream
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends the exact `body` bytes and parses the output items and the usage.
    pub async fn send(&self, body: Vec<u8>) -> Result<ProviderReply, UpstreamError> {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body);
        request = match (&self.api_key, self.protocol) {
            (Some(key), WireProtocol::Responses) => request.bearer_auth(key),
            (Some(key), WireProtocol::Messages) => request.header("x-api-key", key),
            (None, _) => request,
        };
        if self.protocol == WireProtocol::Messages {
            request = request.header("anthropic-version", ANTHROPIC_VERSION);
        }
        let response = request.send().await.map_err(|e| self.connect_error(e))?;
        let status = response.status();
        let retry_after = response
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let text = response.text().await.map_err(|e| self.connect_error(e))?;
        if status.as_u16() == 429 {
            return Err(UpstreamError::RateLimited {
                url: self.url.clone(),
                retry_after: retry_after.unwrap_or_else(|| "not given".into()),
                body: clip(&text),
            });
        }
        if !status.is_success() {
            return Err(UpstreamError::Status {
                url: self.url.clone(),
                status: status.as_u16(),
                body: clip(&text),
            });
        }
        let json = self.response_json(&text)?;
        let items = match self.protocol {
            WireProtocol::Responses => parse_output(&json),
            WireProtocol::Messages => super::native::parse_message_content(&json),
        };
        let items = items.map_err(|message| UpstreamError::Shape {
            url: self.url.clone(),
            message,
        })?;
        Ok(ProviderReply {
            items,
            usage: parse_usage(&json["usage"]),
        })
    }

    /// The response object: the body itself, or the `response.completed` of a stream.
    fn response_json(&self, text: &str) -> Result<Value, UpstreamError> {
        if self.stream {
            let decoded = match self.protocol {
                WireProtocol::Responses => crate::protocol::sse::decode_stream(text),
                WireProtocol::Messages => super::native::stream::decode_message_stream(text),
            };
            return decoded.map_err(|message| UpstreamError::Stream {
                url: self.url.clone(),
                message,
            });
        }
        serde_json::from_str(text).map_err(|e| UpstreamError::Malformed {
            url: self.url.clone(),
            message: e.to_string(),
        })
    }

    fn connect_error(&self, e: reqwest::Error) -> UpstreamError {
        if e.is_timeout() {
            return UpstreamError::Timeout {
                url: self.url.clone(),
                timeout_ms: self.timeout.as_millis(),
            };
        }
        UpstreamError::Connect {
            url: self.url.clone(),
            message: e.to_string(),
        }
    }
}

/// Reads `output[]` of a Responses API response.
pub fn parse_output(json: &Value) -> Result<Vec<OutputItem>, String> {
    let items = json
        .get("output")
        .and_then(Value::as_array)
        .ok_or("missing array field `output`")?;
    let mut parsed = Vec::new();
    for (i, item) in items.iter().enumerate() {
        match item.get("type").and_then(Value::as_str) {
            Some("function_call") => {
                let field = |name: &str| {
                    item.get(name)
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .ok_or(format!("output[{i}] function_call has no string `{name}`"))
                };
                parsed.push(OutputItem::FunctionCall {
                    call_id: field("call_id")?,
                    name: field("name")?,
                    arguments: field("arguments")?,
                    namespace: item
                        .get("namespace")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                });
            }
            Some("message") => {
                let content = item
                    .get("content")
                    .and_then(Value::as_array)
                    .ok_or(format!("output[{i}] message has no `content` array"))?;
                let text: String = content
                    .iter()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("");
                parsed.push(OutputItem::Message { text });
            }
            Some("tool_search_call") if item["execution"] == "client" => {
                let call_id = item.get("call_id").and_then(Value::as_str).ok_or(format!(
                    "output[{i}] client tool_search_call has no string `call_id`"
                ))?;
                parsed.push(OutputItem::SearchCall {
                    call_id: call_id.to_string(),
                    arguments: item.get("arguments").cloned().unwrap_or(Value::Null),
                    item: item.clone(),
                });
            }
            Some("tool_search_call" | "tool_search_output") => {
                parsed.push(OutputItem::Carried { item: item.clone() })
            }
            Some(_) => {}
            None => return Err(format!("output[{i}] has no `type`")),
        }
    }
    if parsed.is_empty() {
        return Err("`output` has neither a message nor a function_call".into());
    }
    Ok(parsed)
}

/// A response's `usage`, when it has at least `input_tokens` and `output_tokens`; missing
/// details count as zero and a missing total as their sum.
pub fn parse_usage(usage: &Value) -> Option<Usage> {
    let count = |value: &Value, key: &str| value.get(key).and_then(Value::as_u64);
    let input = count(usage, "input_tokens")?;
    let output = count(usage, "output_tokens")?;
    let input_details = &usage["input_tokens_details"];
    Some(Usage {
        input_tokens: input,
        input_tokens_details: InputTokensDetails {
            cached_tokens: count(input_details, "cached_tokens").unwrap_or(0),
            cache_write_tokens: count(input_details, "cache_write_tokens").unwrap_or(0),
        },
        output_tokens: output,
        output_tokens_details: OutputTokensDetails {
            reasoning_tokens: count(&usage["output_tokens_details"], "reasoning_tokens")
                .unwrap_or(0),
        },
        total_tokens: count(usage, "total_tokens").unwrap_or(input + output),
    })
}

fn clip(text: &str) -> String {
    const MAX: usize = 500;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_calls_and_messages() {
        let out = parse_output(&json!({"output": [
            {"type": "reasoning"},
            {"type": "function_call", "call_id": "call_1", "name": "x", "arguments": "{}"},
            {"type": "message", "content": [{"type": "output_text", "text": "a"}, {"type": "output_text", "text": "b"}]}
        ]}))
        .unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[1], OutputItem::Message { text: "ab".into() });
    }

    #[test]
    fn usage_is_read_with_missing_details_as_zero() {
        assert_eq!(parse_usage(&Value::Null), None);
        assert_eq!(
            parse_usage(&json!({"input_tokens": 3, "output_tokens": 2})),
            Some(Usage::of(3, 2))
        );
        let full = parse_usage(&json!({"input_tokens": 3, "output_tokens": 2, "total_tokens": 5,
            "input_tokens_details": {"cached_tokens": 1}, "output_tokens_details": {"reasoning_tokens": 1}}))
        .unwrap();
        assert_eq!(
            (
                full.input_tokens_details.cached_tokens,
                full.output_tokens_details.reasoning_tokens
            ),
            (1, 1)
        );
    }

    #[test]
    fn wrong_shapes_are_named() {
        assert_eq!(
            parse_output(&json!({})).unwrap_err(),
            "missing array field `output`"
        );
        assert_eq!(
            parse_output(&json!({"output": [{"type": "function_call", "name": "x"}]})).unwrap_err(),
            "output[0] function_call has no string `call_id`"
        );
        assert_eq!(
            parse_output(&json!({"output": []})).unwrap_err(),
            "`output` has neither a message nor a function_call"
        );
    }
}
