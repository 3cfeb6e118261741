//! The mock's reply as a Responses API object: one output item (the scripted model's tool call or
//! text), the request's echoed fields, and real usage.
//!
//! Ids are fresh per reply (`resp_`, `msg_`/`fc_`, `call_` plus 16 hex digits, see
//! [`fresh_id`]): two identical requests get two different responses, as from a real provider.
//! Snapshots redact them. Usage is counted with o200k_base — `input_tokens` over the request body
//! exactly as received (the figure `compare` reports per request), `output_tokens` over the
//! generated text (a message's text, or a call's name and arguments); nothing is cached and
//! nothing is reasoned, so the details are zeros. The event stream is the shared encoder's
//! ([`crate::protocol::sse::encode_response`]), the same one the embedded gateway streams with.

use crate::protocol::response_object::{fresh_id, RequestEcho, ResponseItem, ResponseObject};
use crate::protocol::usage::{TokenizerError, Usage};

use super::model::Reply;

/// The output item of a reply, with fresh ids.
pub fn output_item(reply: &Reply) -> ResponseItem {
    match reply {
        Reply::ToolCall { name, arguments } => {
            ResponseItem::function_call(&fresh_id("call"), name, arguments.to_string())
        }
        Reply::Text(text) => ResponseItem::message(text.clone()),
    }
}

/// The texts the model generated for `item`, for `usage.output_tokens`.
fn generated(item: &ResponseItem) -> Vec<&str> {
    match item {
        ResponseItem::Message(message) => message.content.iter().map(|p| p.text.as_str()).collect(),
        ResponseItem::FunctionCall(call) => vec![call.name.as_str(), call.arguments.as_str()],
        // Native search items are counted by the native replies themselves.
        ResponseItem::ToolSearchCall(_) | ResponseItem::ToolSearchOutput(_) => Vec::new(),
    }
}

/// The completed response to a request whose body text was `raw`.
pub fn response_for(
    raw: &str,
    model: &str,
    echo: RequestEcho,
    reply: &Reply,
) -> Result<ResponseObject, TokenizerError> {
    let item = output_item(reply);
    let usage = Usage::count(raw, &generated(&item))?;
    Ok(ResponseObject::completed(model, echo, vec![item], usage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::response_object::ResponseItem;
    use crate::protocol::usage::count_tokens;
    use serde_json::json;

    #[test]
    fn usage_is_o200k_of_the_body_and_the_generated_text() {
        let raw = r#"{"input":"hello world"}"#;
        let reply = Reply::Text("hello".into());
        let response = response_for(raw, "m", RequestEcho::default(), &reply).unwrap();
        let usage = response.usage.unwrap();
        assert_eq!(usage.input_tokens, count_tokens(raw).unwrap() as u64);
        assert_eq!(
            (usage.output_tokens, usage.total_tokens),
            (1, usage.input_tokens + 1)
        );
        let call = Reply::ToolCall {
            name: "pick".into(),
            arguments: json!({"a": 1}),
        };
        let response = response_for(raw, "m", RequestEcho::default(), &call).unwrap();
        let ResponseItem::FunctionCall(item) = &response.output[0] else {
            panic!("not a call: {response:?}");
        };
        assert_eq!(item.arguments, r#"{"a":1}"#);
        assert!(item.call_id.starts_with("call_") && item.id.starts_with("fc_"));
        let expected = (count_tokens("pick").unwrap() + count_tokens(r#"{"a":1}"#).unwrap()) as u64;
        assert_eq!(response.usage.unwrap().output_tokens, expected);
        let again = response_for(raw, "m", RequestEcho::default(), &call).unwrap();
        assert_ne!(again.id, response.id, "every reply gets its own id");
    }
}
