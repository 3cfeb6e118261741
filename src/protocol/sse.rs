//! Server-Sent Events in the Responses API's event sequence, both ways: the gateway encodes its
//! finished answer as a stream for callers that ask for `stream: true`, and decodes a provider's
//! stream back into the response object (the harness reads the gateway's stream the same way).
//!
//! A stream counts only when it ends with `response.completed`; a stream cut off before that is
//! an error that says how far it got, never a partial answer.

use serde_json::{json, Value};

/// The event frames of a finished `response` object, numbered from 0.
pub fn encode_response(response: &Value) -> String {
    response_events(response)
        .into_iter()
        .enumerate()
        .map(|(sequence, event)| frame(sequence, event))
        .collect()
}

fn frame(sequence: usize, mut event: Value) -> String {
    if let Some(object) = event.as_object_mut() {
        object.insert("sequence_number".into(), json!(sequence));
    }
    let kind = event["type"].as_str().unwrap_or_default().to_string();
    format!("event: {kind}\ndata: {event}\n\n")
}

/// `response.created`, `response.in_progress`, the events of each output item, `response.completed`.
fn response_events(response: &Value) -> Vec<Value> {
    let mut opening = response.clone();
    opening["status"] = json!("in_progress");
    opening["output"] = json!([]);
    let mut events = vec![
        json!({ "type": "response.created", "response": opening }),
        json!({ "type": "response.in_progress", "response": opening }),
    ];
    let items = response["output"].as_array().cloned().unwrap_or_default();
    for (index, item) in items.iter().enumerate() {
        events.extend(item_events(index, item));
    }
    events.push(json!({ "type": "response.completed", "response": response }));
    events
}

fn item_events(index: usize, item: &Value) -> Vec<Value> {
    let item_id = item["id"].clone();
    let mut opening = item.clone();
    opening["status"] = json!("in_progress");
    let mut events = Vec::new();
    match item["type"].as_str() {
        Some("function_call") => {
            opening["arguments"] = json!("");
            let arguments = item["arguments"].clone();
            events.push(json!({ "type": "response.output_item.added", "output_index": index, "item": opening }));
            events.push(json!({ "type": "response.function_call_arguments.delta", "item_id": item_id, "output_index": index, "delta": arguments }));
            events.push(json!({ "type": "response.function_call_arguments.done", "item_id": item_id, "output_index": index, "arguments": arguments }));
        }
        _ => {
            opening["content"] = json!([]);
            events.push(json!({ "type": "response.output_item.added", "output_index": index, "item": opening }));
            let parts = item["content"].as_array().cloned().unwrap_or_default();
            for (part_index, part) in parts.iter().enumerate() {
                let text = part["text"].clone();
                let at = |kind: &str| json!({ "type": kind, "item_id": item_id, "output_index": index, "content_index": part_index });
                let mut added = at("response.content_part.added");
                added["part"] = json!({ "type": "output_text", "text": "", "annotations": [] });
                let mut delta = at("response.output_text.delta");
                delta["delta"] = text.clone();
                let mut done = at("response.output_text.done");
                done["text"] = text;
                let mut part_done = at("response.content_part.done");
                part_done["part"] = part.clone();
                events.extend([added, delta, done, part_done]);
            }
        }
    }
    events
        .push(json!({ "type": "response.output_item.done", "output_index": index, "item": item }));
    events
}

/// Reads a stream back into the final `response` object.
///
/// Errors name what was wrong: a `data:` line that is not JSON, a `response.failed` event, or a
/// stream that ended before `response.completed`.
pub fn decode_stream(text: &str) -> Result<Value, String> {
    let mut done_items: Vec<(u64, Value)> = Vec::new();
    let mut seen = 0usize;
    for (line_number, line) in text.lines().enumerate() {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            continue;
        };
        if data.is_empty() || data == "[DONE]" {
            continue;
        }
        let event: Value = serde_json::from_str(data)
            .map_err(|e| format!("stream line {} is not a JSON event: {e}", line_number + 1))?;
        seen += 1;
        match event["type"].as_str() {
            Some("response.output_item.done") => {
                let index = event["output_index"]
                    .as_u64()
                    .unwrap_or(done_items.len() as u64);
                done_items.push((index, event["item"].clone()));
            }
            Some("response.completed") => return Ok(completed(event, done_items)),
            Some("response.failed") | Some("error") => {
                return Err(format!(
                    "stream reported failure: {}",
                    failure_message(&event)
                ))
            }
            _ => {}
        }
    }
    Err(format!(
        "stream ended after {seen} events without response.completed"
    ))
}

/// The `response` of `response.completed`, with `output` filled from the item events when it is empty.
fn completed(mut event: Value, mut done_items: Vec<(u64, Value)>) -> Value {
    let mut response = event["response"].take();
    let has_output = response["output"].as_array().is_some_and(|o| !o.is_empty());
    if !has_output && !done_items.is_empty() && response.is_object() {
        done_items.sort_by_key(|(index, _)| *index);
        response["output"] = Value::Array(done_items.into_iter().map(|(_, item)| item).collect());
    }
    response
}

fn failure_message(event: &Value) -> String {
    let error = if event["response"]["error"].is_null() {
        &event["error"]
    } else {
        &event["response"]["error"]
    };
    error["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response() -> Value {
        json!({
            "id": "resp_1", "object": "response", "status": "completed", "model": "m",
            "output": [
                { "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                  "content": [{ "type": "output_text", "text": "hi", "annotations": [] }] },
                { "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "pick", "arguments": "{}", "status": "completed" }
            ]
        })
    }

    fn kinds(stream: &str) -> Vec<String> {
        stream
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn encodes_the_responses_event_sequence() {
        let stream = encode_response(&response());
        assert_eq!(
            kinds(&stream),
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.content_part.added",
                "response.output_text.delta",
                "response.output_text.done",
                "response.content_part.done",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        assert!(stream.contains("\"sequence_number\":12"));
    }

    #[test]
    fn decoding_an_encoded_stream_gives_the_response_back() {
        assert_eq!(
            decode_stream(&encode_response(&response())).unwrap(),
            response()
        );
    }

    #[test]
    fn empty_completed_output_is_filled_from_item_events() {
        let stream = "data: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":{\"type\":\"message\"}}\n\n\
                      data: {\"type\":\"response.completed\",\"response\":{\"output\":[]}}\n\n";
        assert_eq!(
            decode_stream(stream).unwrap(),
            json!({ "output": [{ "type": "message" }] })
        );
    }

    #[test]
    fn truncated_and_broken_streams_are_named() {
        let full = encode_response(&response());
        let cut = &full[..full.find("event: response.completed").unwrap()];
        assert_eq!(
            decode_stream(cut).unwrap_err(),
            "stream ended after 12 events without response.completed"
        );
        assert_eq!(
            decode_stream("data: {oops\n\n").unwrap_err(),
            "stream line 1 is not a JSON event: key must be a string at line 1 column 2"
        );
        assert_eq!(
            decode_stream("data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"message\":\"boom\"}}}\n\n")
                .unwrap_err(),
            "stream reported failure: boom"
        );
    }
}
