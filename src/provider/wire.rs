//! Responses API wire shapes of the mock: the JSON response object and its Server-Sent Events form.
//!
//! Ids are derived from a hash of the request body, never random, so the same request always gets
//! byte-identical replies (and lanes do not shift each other's ids). Usage is bytes / 4.

use serde_json::{json, Value};

use super::model::Reply;

/// Ids of one response, all derived from the same request hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids {
    pub response: String,
    pub item: String,
    pub call: String,
}

/// FNV-1a 64-bit: a tiny, stable, dependency-free hash for deriving ids.
fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Ids for a request body: `resp_<h>`, `fc_<h>` or `msg_<h>`, `call_<h>`.
pub fn ids_for(raw: &[u8], reply: &Reply) -> Ids {
    let hash = format!("{:016x}", fnv1a64(raw));
    let item = match reply {
        Reply::ToolCall { .. } => format!("fc_{hash}"),
        Reply::Text(_) => format!("msg_{hash}"),
    };
    Ids {
        response: format!("resp_{hash}"),
        item,
        call: format!("call_{hash}"),
    }
}

fn tokens(bytes: usize) -> u64 {
    (bytes as u64).div_ceil(4)
}

/// The output item in its final (`completed`) or opening (`in_progress`, empty) state.
fn output_item(ids: &Ids, reply: &Reply, done: bool) -> Value {
    let status = if done { "completed" } else { "in_progress" };
    match reply {
        Reply::ToolCall { name, arguments } => json!({
            "type": "function_call",
            "id": ids.item,
            "call_id": ids.call,
            "name": name,
            "arguments": if done { arguments.to_string() } else { String::new() },
            "status": status,
        }),
        Reply::Text(text) => {
            let content = if done {
                json!([{"type": "output_text", "text": text, "annotations": []}])
            } else {
                json!([])
            };
            json!({"type": "message", "id": ids.item, "role": "assistant", "status": status, "content": content})
        }
    }
}

fn reply_text_len(reply: &Reply) -> usize {
    match reply {
        Reply::ToolCall { arguments, .. } => arguments.to_string().len(),
        Reply::Text(text) => text.len(),
    }
}

/// The `response` object; `done` selects the final form (`completed`, with output and usage).
fn response_object(ids: &Ids, model: &str, reply: &Reply, raw_len: usize, done: bool) -> Value {
    if !done {
        return json!({"id": ids.response, "object": "response", "created_at": 0, "model": model,
            "status": "in_progress", "output": []});
    }
    let input_tokens = tokens(raw_len);
    let output_tokens = tokens(reply_text_len(reply)).max(1);
    json!({
        "id": ids.response,
        "object": "response",
        "created_at": 0,
        "model": model,
        "status": "completed",
        "output": [output_item(ids, reply, true)],
        "usage": {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        },
    })
}

/// The non-streaming JSON response.
pub fn response_json(ids: &Ids, model: &str, reply: &Reply, raw_len: usize) -> Value {
    response_object(ids, model, reply, raw_len, true)
}

/// The events of a streamed response, in order, without `sequence_number` yet.
fn stream_events(ids: &Ids, model: &str, reply: &Reply, raw_len: usize) -> Vec<Value> {
    let opening = response_object(ids, model, reply, raw_len, false);
    let mut events = vec![
        json!({"type": "response.created", "response": opening}),
        json!({"type": "response.in_progress", "response": opening}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": output_item(ids, reply, false)}),
    ];
    let item_id = &ids.item;
    match reply {
        Reply::ToolCall { arguments, .. } => {
            let arguments = arguments.to_string();
            events.push(
                json!({"type": "response.function_call_arguments.delta", "item_id": item_id,
                "output_index": 0, "delta": arguments}),
            );
            events.push(
                json!({"type": "response.function_call_arguments.done", "item_id": item_id,
                "output_index": 0, "arguments": arguments}),
            );
        }
        Reply::Text(text) => {
            let empty_part = json!({"type": "output_text", "text": "", "annotations": []});
            let full_part = json!({"type": "output_text", "text": text, "annotations": []});
            let at = json!({"item_id": item_id, "output_index": 0, "content_index": 0});
            let steps = [
                json!({"type": "response.content_part.added", "part": empty_part}),
                json!({"type": "response.output_text.delta", "delta": text}),
                json!({"type": "response.output_text.done", "text": text}),
                json!({"type": "response.content_part.done", "part": full_part}),
            ];
            events.extend(steps.into_iter().map(|step| with(&at, step)));
        }
    }
    events.push(json!({"type": "response.output_item.done", "output_index": 0, "item": output_item(ids, reply, true)}));
    events.push(json!({"type": "response.completed", "response": response_json(ids, model, reply, raw_len)}));
    events
}

/// `base` object merged with `extra`'s keys (`type` first for readability).
fn with(base: &Value, extra: Value) -> Value {
    let mut merged = extra;
    if let (Some(target), Some(source)) = (merged.as_object_mut(), base.as_object()) {
        for (key, value) in source {
            target.insert(key.clone(), value.clone());
        }
    }
    merged
}

/// The Server-Sent Events body: `event: <type>` and `data: <json>` per frame, numbered from 0.
pub fn sse_body(ids: &Ids, model: &str, reply: &Reply, raw_len: usize) -> String {
    stream_events(ids, model, reply, raw_len)
        .into_iter()
        .enumerate()
        .map(|(sequence, mut event)| {
            if let Some(object) = event.as_object_mut() {
                object.insert("sequence_number".to_string(), json!(sequence));
            }
            let kind = event
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            format!("event: {kind}\ndata: {event}\n\n")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_usage_is_bytes_over_four() {
        let reply = Reply::Text("hello".into());
        let ids = ids_for(b"{}", &reply);
        assert_eq!(ids, ids_for(b"{}", &reply));
        assert!(ids.response.starts_with("resp_") && ids.item.starts_with("msg_"));
        let response = response_json(&ids, "m", &reply, 9);
        assert_eq!(
            response["usage"],
            json!({"input_tokens": 3, "output_tokens": 2, "total_tokens": 5})
        );
    }
}
