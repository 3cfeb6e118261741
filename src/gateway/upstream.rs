//! The gateway's client for the model provider (OpenAI Responses API over HTTP).
//!
//! The request body is serialised once and those exact bytes are sent, so the sizes the
//! session log reports are the sizes on the wire.

use std::time::Duration;

use serde_json::Value;
use thiserror::Error;

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
}

/// One item of the provider's `output` the gateway acts on.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputItem {
    FunctionCall {
        call_id: String,
        name: String,
        arguments: String,
    },
    Message {
        text: String,
    },
}

#[derive(Clone)]
pub struct ProviderClient {
    http: reqwest::Client,
    url: String,
    api_key: Option<String>,
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
        Ok(ProviderClient { http, url, api_key })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends the exact `body` bytes and parses the output items.
    pub async fn send(&self, body: Vec<u8>) -> Result<Vec<OutputItem>, UpstreamError> {
        let mut request = self
            .http
            .post(&self.url)
            .header("content-type", "application/json")
            .body(body);
        if let Some(key) = &self.api_key {
            request = request.bearer_auth(key);
        }
        let response = request.send().await.map_err(|e| self.connect_error(e))?;
        let status = response.status();
        let text = response.text().await.map_err(|e| self.connect_error(e))?;
        if !status.is_success() {
            return Err(UpstreamError::Status {
                url: self.url.clone(),
                status: status.as_u16(),
                body: clip(&text),
            });
        }
        let json: Value = serde_json::from_str(&text).map_err(|e| UpstreamError::Malformed {
            url: self.url.clone(),
            message: e.to_string(),
        })?;
        parse_output(&json).map_err(|message| UpstreamError::Shape {
            url: self.url.clone(),
            message,
        })
    }

    fn connect_error(&self, e: reqwest::Error) -> UpstreamError {
        let message = if e.is_timeout() {
            "timed out".to_string()
        } else {
            e.to_string()
        };
        UpstreamError::Connect {
            url: self.url.clone(),
            message,
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
            Some(_) => {}
            None => return Err(format!("output[{i}] has no `type`")),
        }
    }
    if parsed.is_empty() {
        return Err("`output` has neither a message nor a function_call".into());
    }
    Ok(parsed)
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
