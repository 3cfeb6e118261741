//! Server-Sent Events in the Responses API's event sequence, both ways: the gateway encodes its
//! finished answer as a stream for callers that ask for `stream: true`, and decodes a provider's
//! stream back into the response object (the harness reads the gateway's stream the same way).
//!
//! A stream counts only when it ends with `response.completed`; a stream cut off before that is
//! an error that says how far it got, never a partial answer.

use serde::Serialize;
use serde_json::Value;

use super::response_object::{OutputText, ResponseItem, ResponseObject};

/// One event of the stream; serialised with its `type` first, then its fields.
#[derive(Serialize)]
#[serde(tag = "type")]
enum Event<'a> {
    #[serde(rename = "response.created")]
    Created { response: &'a ResponseObject },
    #[serde(rename = "response.in_progress")]
    InProgress { response: &'a ResponseObject },
    #[serde(rename = "response.output_item.added")]
    ItemAdded {
        output_index: usize,
        item: ResponseItem,
    },
    #[serde(rename = "response.content_part.added")]
    PartAdded {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        part: OutputText,
    },
    #[serde(rename = "response.output_text.delta")]
    TextDelta {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        delta: &'a str,
        logprobs: [Value; 0],
    },
    #[serde(rename = "response.output_text.done")]
    TextDone {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        text: &'a str,
        logprobs: [Value; 0],
    },
    #[serde(rename = "response.content_part.done")]
    PartDone {
        item_id: &'a str,
        output_index: usize,
        content_index: usize,
        part: &'a OutputText,
    },
    #[serde(rename = "response.function_call_arguments.delta")]
    ArgumentsDelta {
        item_id: &'a str,
        output_index: usize,
        delta: &'a str,
    },
    #[serde(rename = "response.function_call_arguments.done")]
    ArgumentsDone {
        item_id: &'a str,
        output_index: usize,
        arguments: &'a str,
    },
    #[serde(rename = "response.output_item.done")]
    ItemDone {
        output_index: usize,
        item: &'a ResponseItem,
    },
    #[serde(rename = "response.completed")]
    Completed { response: &'a ResponseObject },
}

/// An event with its place in the stream.
#[derive(Serialize)]
struct Frame<'a> {
    #[serde(flatten)]
    event: Event<'a>,
    sequence_number: usize,
}

/// The event frames of a finished response, numbered from 0: `response.created`,
/// `response.in_progress`, the events of each output item, `response.completed`. Each frame is
/// `event: <type>` plus `data: <json>`.
pub fn encode_response(response: &ResponseObject) -> String {
    let opening = response.opening();
    let mut events = vec![
        Event::Created { response: &opening },
        Event::InProgress { response: &opening },
    ];
    for (index, item) in response.output.iter().enumerate() {
        events.extend(item_events(index, item));
    }
    events.push(Event::Completed { response });
    events
        .into_iter()
        .enumerate()
        .map(|(sequence_number, event)| {
            frame(Frame {
                event,
                sequence_number,
            })
        })
        .collect()
}

/// One `event:` + `data:` frame. The data is serialised straight to text, so the raw tool
/// definitions of a `tool_search_output` go out byte for byte.
fn frame(frame: Frame<'_>) -> String {
    let kind = frame.event.kind();
    let data = serde_json::to_string(&frame).unwrap_or_default();
    format!("event: {kind}\ndata: {data}\n\n")
}

impl Event<'_> {
    /// The event's `type`, as serialised.
    fn kind(&self) -> &'static str {
        match self {
            Event::Created { .. } => "response.created",
            Event::InProgress { .. } => "response.in_progress",
            Event::ItemAdded { .. } => "response.output_item.added",
            Event::PartAdded { .. } => "response.content_part.added",
            Event::TextDelta { .. } => "response.output_text.delta",
            Event::TextDone { .. } => "response.output_text.done",
            Event::PartDone { .. } => "response.content_part.done",
            Event::ArgumentsDelta { .. } => "response.function_call_arguments.delta",
            Event::ArgumentsDone { .. } => "response.function_call_arguments.done",
            Event::ItemDone { .. } => "response.output_item.done",
            Event::Completed { .. } => "response.completed",
        }
    }
}

fn item_events(output_index: usize, item: &ResponseItem) -> Vec<Event<'_>> {
    let item_id = item.id();
    let mut events = vec![Event::ItemAdded {
        output_index,
        item: item.opening(),
    }];
    match item {
        // No event is specific to tool search: its items arrive whole, added then done.
        ResponseItem::ToolSearchCall(_) | ResponseItem::ToolSearchOutput(_) => {}
        ResponseItem::FunctionCall(call) => {
            events.push(Event::ArgumentsDelta {
                item_id,
                output_index,
                delta: &call.arguments,
            });
            events.push(Event::ArgumentsDone {
                item_id,
                output_index,
                arguments: &call.arguments,
            });
        }
        ResponseItem::Message(message) => {
            for (content_index, part) in message.content.iter().enumerate() {
                events.push(Event::PartAdded {
                    item_id,
                    output_index,
                    content_index,
                    part: OutputText::new(""),
                });
                events.push(Event::TextDelta {
                    item_id,
                    output_index,
                    content_index,
                    delta: &part.text,
                    logprobs: [],
                });
                events.push(Event::TextDone {
                    item_id,
                    output_index,
                    content_index,
                    text: &part.text,
                    logprobs: [],
                });
                events.push(Event::PartDone {
                    item_id,
                    output_index,
                    content_index,
                    part,
                });
            }
        }
    }
    events.push(Event::ItemDone { output_index, item });
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
    use crate::protocol::response_object::RequestEcho;
    use crate::protocol::usage::Usage;
    use serde_json::json;

    fn response() -> ResponseObject {
        let output = vec![
            ResponseItem::message("hi"),
            ResponseItem::function_call("call_1", "pick", "{}"),
        ];
        ResponseObject::completed("m", RequestEcho::default(), output, Usage::of(3, 2))
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
        let first: Value = serde_json::from_str(
            stream
                .lines()
                .nth(1)
                .unwrap()
                .strip_prefix("data: ")
                .unwrap(),
        )
        .unwrap();
        assert_eq!(first["response"]["status"], "in_progress");
        assert_eq!(first["response"]["output"], json!([]));
        assert_eq!(first["response"]["usage"], Value::Null);
        let delta = stream
            .lines()
            .find(|l| l.contains("\"response.output_text.delta\""))
            .unwrap();
        assert!(
            delta.ends_with(",\"delta\":\"hi\",\"logprobs\":[],\"sequence_number\":4}"),
            "{delta}"
        );
    }

    #[test]
    fn search_items_stream_as_generic_item_events_with_their_bytes() {
        use crate::protocol::raw::RawJson;
        use crate::protocol::response_object::SearchExecution;
        let declared = r#"{"type":"function","name":"t17","parameters":{"x":1.50},"strict":null}"#;
        let output = vec![
            ResponseItem::tool_search_call(SearchExecution::Server, None, json!({"query": "t17"})),
            ResponseItem::tool_search_output(
                SearchExecution::Server,
                None,
                vec![RawJson::from_text(declared.to_string()).unwrap()],
            ),
            ResponseItem::function_call("call_1", "t17", "{}"),
        ];
        let response =
            ResponseObject::completed("m", RequestEcho::default(), output, Usage::of(3, 2));
        let stream = encode_response(&response);
        assert_eq!(
            kinds(&stream),
            [
                "response.created",
                "response.in_progress",
                "response.output_item.added",
                "response.output_item.done",
                "response.output_item.added",
                "response.output_item.done",
                "response.output_item.added",
                "response.function_call_arguments.delta",
                "response.function_call_arguments.done",
                "response.output_item.done",
                "response.completed",
            ]
        );
        assert_eq!(
            stream.matches(declared).count(),
            3,
            "added, done, completed"
        );
        assert_eq!(
            decode_stream(&stream).unwrap(),
            serde_json::to_value(&response).unwrap()
        );
    }

    #[test]
    fn decoding_an_encoded_stream_gives_the_response_back() {
        let response = response();
        assert_eq!(
            decode_stream(&encode_response(&response)).unwrap(),
            serde_json::to_value(&response).unwrap()
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
