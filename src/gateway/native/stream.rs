//! Reads an Anthropic Messages event stream back into the message it streamed: `message_start`
//! gives the message, each `content_block_start` a block, its `content_block_delta`s add text
//! or input JSON, `message_delta` the stop reason and usage, `message_stop` ends it. `ping`
//! frames are skipped; an `error` event is the stream's failure.

use serde_json::{Map, Value};

/// One block being streamed, with the input JSON its deltas brought.
struct Block {
    block: Value,
    partial_json: String,
}

/// The final message of a stream, or what is wrong with the stream.
pub fn decode_message_stream(text: &str) -> Result<Value, String> {
    let mut message: Option<Value> = None;
    let mut blocks: Vec<Block> = Vec::new();
    for (line_number, line) in text.lines().enumerate() {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue;
        };
        if data.is_empty() {
            continue;
        }
        let event: Value = serde_json::from_str(data)
            .map_err(|e| format!("stream line {} is not a JSON event: {e}", line_number + 1))?;
        match event["type"].as_str() {
            Some("message_start") => message = Some(event["message"].clone()),
            Some("content_block_start") => blocks.push(Block {
                block: event["content_block"].clone(),
                partial_json: String::new(),
            }),
            Some("content_block_delta") => {
                let index = event["index"].as_u64().unwrap_or(u64::MAX) as usize;
                let block = blocks
                    .get_mut(index)
                    .ok_or(format!("a delta for block {index}, which never started"))?;
                apply_delta(block, &event["delta"]);
            }
            Some("message_delta") => {
                let message = message
                    .as_mut()
                    .ok_or("message_delta before message_start")?;
                if let Some(delta) = event["delta"].as_object() {
                    for (key, value) in delta {
                        message[key] = value.clone();
                    }
                }
                if let (Some(usage), Some(target)) = (
                    event["usage"].as_object(),
                    message.get_mut("usage").and_then(Value::as_object_mut),
                ) {
                    merge(target, usage);
                }
            }
            Some("message_stop") => {
                let mut message = message.ok_or("message_stop before message_start")?;
                let content = blocks
                    .into_iter()
                    .map(finished)
                    .collect::<Result<Vec<_>, _>>()?;
                message["content"] = Value::Array(content);
                return Ok(message);
            }
            Some("error") => {
                return Err(format!(
                    "stream reported failure: {}",
                    event["error"]["message"].as_str().unwrap_or("no message")
                ))
            }
            _ => {}
        }
    }
    Err("stream ended without message_stop".into())
}

fn apply_delta(block: &mut Block, delta: &Value) {
    match delta["type"].as_str() {
        Some("text_delta") => {
            let text = delta["text"].as_str().unwrap_or_default();
            let joined = format!("{}{text}", block.block["text"].as_str().unwrap_or_default());
            block.block["text"] = Value::String(joined);
        }
        Some("input_json_delta") => {
            block
                .partial_json
                .push_str(delta["partial_json"].as_str().unwrap_or_default());
        }
        _ => {}
    }
}

/// A block with its streamed input in place (a block that streamed none keeps its own).
fn finished(block: Block) -> Result<Value, String> {
    let Block {
        mut block,
        partial_json,
    } = block;
    if !partial_json.is_empty() {
        block["input"] = serde_json::from_str(&partial_json)
            .map_err(|e| format!("a block's streamed input is not JSON: {e}"))?;
    }
    Ok(block)
}

fn merge(target: &mut Map<String, Value>, from: &Map<String, Value>) {
    for (key, value) in from {
        target.insert(key.clone(), value.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn frame(event: Value) -> String {
        format!(
            "event: {}\ndata: {event}\n\n",
            event["type"].as_str().unwrap()
        )
    }

    #[test]
    fn a_stream_becomes_its_message() {
        let events = [
            json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [], "stop_reason": null, "usage": {"input_tokens": 5, "output_tokens": 1}}}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "t1", "name": "x", "input": {}}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"marker\":"}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "\"normal\"}"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "o"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "k"}}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
            json!({"type": "message_stop"}),
        ];
        let text: String = events.into_iter().map(frame).collect();
        let message = decode_message_stream(&text).unwrap();
        assert_eq!(
            message["content"],
            json!([{"type": "tool_use", "id": "t1", "name": "x", "input": {"marker": "normal"}}, {"type": "text", "text": "ok"}])
        );
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(
            message["usage"],
            json!({"input_tokens": 5, "output_tokens": 9})
        );
        assert_eq!(
            decode_message_stream(&frame(json!({"type": "message_start", "message": {}})))
                .unwrap_err(),
            "stream ended without message_stop"
        );
    }
}
