//! Reading an OpenAI Responses request body: the texts and tool outputs the scripted model reacts to.
//!
//! Both input shapes are accepted: `input` as a plain string (one user message) or as an array of
//! items (`message`, `function_call`, `function_call_output`). Unknown item types are ignored so that
//! newer clients do not break the mock.

use std::collections::{BTreeMap, HashMap};

use serde_json::value::RawValue;
use serde_json::Value;
use thiserror::Error;

use super::declared::DeclaredNames;

/// Why a request body could not be read as a Responses request.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum InputError {
    /// The body is not JSON.
    #[error("request body is not valid JSON: {0}")]
    Json(String),
    /// The body is JSON but not an object.
    #[error("request body must be a JSON object")]
    NotObject,
    /// `input` is neither a string, an array nor absent.
    #[error("`input` must be a string or an array of items")]
    InputShape,
    /// An `input` array element is not an object.
    #[error("`input[{0}]` must be an object")]
    ItemShape(usize),
}

impl InputError {
    /// The request field at fault, for the error's `param`.
    pub fn param(&self) -> Option<String> {
        match self {
            InputError::Json(_) | InputError::NotObject => None,
            InputError::InputShape => Some("input".into()),
            InputError::ItemShape(i) => Some(format!("input[{i}]")),
        }
    }
}

/// One tool output item found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// The `call_id` it answers.
    pub call_id: Option<String>,
    /// Name of the `function_call` with that `call_id`, when it is in the input.
    pub tool_name: Option<String>,
    /// The output as text (array outputs are joined).
    pub text: String,
}

/// What the scripted model reads from a request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ParsedInput {
    /// `instructions` when it is a string, else empty.
    pub instructions: String,
    /// Text of the last user message.
    pub prompt: String,
    /// `instructions` plus every message item's text, joined by newlines (tool outputs excluded).
    pub all_input_text: String,
    /// Tool outputs after the last user message, in input order.
    pub tool_outputs: Vec<ToolOutput>,
}

impl ParsedInput {
    /// The latest tool output after the last user message.
    pub fn latest_tool_output(&self) -> Option<&ToolOutput> {
        self.tool_outputs.last()
    }
}

/// What the mock reads of one request body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestView {
    /// The texts and tool outputs the scripted model reacts to.
    pub parsed: ParsedInput,
    /// `model` when it is a string.
    pub model: Option<String>,
    /// `stream` when it is a boolean, else false.
    pub stream: bool,
    /// The names `tools` declares.
    pub declared: DeclaredNames,
}

/// Reads raw body bytes without building a JSON tree of the whole body: the top-level fields
/// are cut out of the bytes, the small ones parsed, and `tools` (the bulk of a large request)
/// only walked for its names. Errors are those of parsing the whole body.
pub fn read_body(raw: &[u8]) -> Result<RequestView, InputError> {
    let fields: HashMap<String, &RawValue> = match serde_json::from_slice(raw) {
        Ok(fields) => fields,
        Err(_) => return Err(not_an_object(raw)),
    };
    let field = |key: &str| {
        fields
            .get(key)
            .and_then(|raw| serde_json::from_str::<Value>(raw.get()).ok())
    };
    let instructions = field("instructions")
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    let items = read_items(field("input").as_ref())?;
    Ok(RequestView {
        parsed: assemble(instructions, &items),
        model: field("model").and_then(|v| v.as_str().map(str::to_string)),
        stream: field("stream").and_then(|v| v.as_bool()).unwrap_or(false),
        declared: fields
            .get("tools")
            .map(|tools| DeclaredNames::from_json(tools.get()))
            .unwrap_or_default(),
    })
}

/// Why a body that is not a JSON object was refused: not JSON at all, or JSON of another kind.
fn not_an_object(raw: &[u8]) -> InputError {
    match serde_json::from_slice::<Value>(raw) {
        Ok(_) => InputError::NotObject,
        Err(err) => InputError::Json(err.to_string()),
    }
}

/// Reads a parsed body.
pub fn parse_value(body: &Value) -> Result<ParsedInput, InputError> {
    let object = body.as_object().ok_or(InputError::NotObject)?;
    let instructions = object
        .get("instructions")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let items = read_items(object.get("input"))?;
    Ok(assemble(instructions, &items))
}

/// The input items the model cares about, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Item {
    Message {
        role: String,
        text: String,
    },
    Call {
        call_id: String,
        name: String,
    },
    Output {
        call_id: Option<String>,
        text: String,
    },
}

fn read_items(input: Option<&Value>) -> Result<Vec<Item>, InputError> {
    match input {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::String(text)) => Ok(vec![Item::Message {
            role: "user".to_string(),
            text: text.clone(),
        }]),
        Some(Value::Array(values)) => values
            .iter()
            .enumerate()
            .filter_map(|(index, value)| read_item(index, value).transpose())
            .collect(),
        Some(_) => Err(InputError::InputShape),
    }
}

fn read_item(index: usize, value: &Value) -> Result<Option<Item>, InputError> {
    let object = value.as_object().ok_or(InputError::ItemShape(index))?;
    let kind = object.get("type").and_then(Value::as_str);
    let str_field = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_string);
    let item = match kind {
        Some("message") | None => {
            object
                .get("role")
                .and_then(Value::as_str)
                .map(|role| Item::Message {
                    role: role.to_string(),
                    text: content_text(object.get("content")),
                })
        }
        Some("function_call") => Some(Item::Call {
            call_id: str_field("call_id").unwrap_or_default(),
            name: str_field("name").unwrap_or_default(),
        }),
        Some("function_call_output") => Some(Item::Output {
            call_id: str_field("call_id"),
            text: content_text(object.get("output")),
        }),
        Some(_) => None,
    };
    Ok(item)
}

/// Text of a message `content` or tool `output`: a string, or an array of text parts joined by newlines.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(part_text)
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn part_text(part: &Value) -> Option<&str> {
    match part {
        Value::String(text) => Some(text),
        Value::Object(object) => match object.get("type").and_then(Value::as_str) {
            Some("input_text" | "output_text" | "text") | None => {
                object.get("text").and_then(Value::as_str)
            }
            Some(_) => None,
        },
        _ => None,
    }
}

fn assemble(instructions: String, items: &[Item]) -> ParsedInput {
    let last_user = items
        .iter()
        .rposition(|item| matches!(item, Item::Message { role, .. } if role == "user"));
    let prompt = last_user
        .and_then(|index| match &items[index] {
            Item::Message { text, .. } => Some(text.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let call_names: BTreeMap<&str, &str> = items
        .iter()
        .filter_map(|item| match item {
            Item::Call { call_id, name } => Some((call_id.as_str(), name.as_str())),
            _ => None,
        })
        .collect();
    let start = last_user.map_or(0, |index| index + 1);
    let tool_outputs = items[start..]
        .iter()
        .filter_map(|item| match item {
            Item::Output { call_id, text } => Some(ToolOutput {
                call_id: call_id.clone(),
                tool_name: call_id
                    .as_deref()
                    .and_then(|id| call_names.get(id))
                    .map(|name| name.to_string()),
                text: text.clone(),
            }),
            _ => None,
        })
        .collect();
    let mut texts: Vec<&str> = Vec::new();
    if !instructions.is_empty() {
        texts.push(&instructions);
    }
    texts.extend(items.iter().filter_map(|item| match item {
        Item::Message { text, .. } if !text.is_empty() => Some(text.as_str()),
        _ => None,
    }));
    let all_input_text = texts.join("\n");
    ParsedInput {
        instructions,
        prompt,
        all_input_text,
        tool_outputs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn string_input_is_one_user_message() {
        let parsed = parse_value(&json!({"instructions": "sys", "input": "hello"})).unwrap();
        assert_eq!(parsed.prompt, "hello");
        assert_eq!(parsed.all_input_text, "sys\nhello");
        assert!(parsed.tool_outputs.is_empty());
    }

    #[test]
    fn array_input_reads_parts_calls_and_outputs_after_last_user() {
        let body = json!({"input": [
            {"type": "message", "role": "system", "content": [{"type": "input_text", "text": "rules"}]},
            {"role": "user", "content": "first"},
            {"type": "function_call_output", "call_id": "old", "output": "stale"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]},
            {"type": "function_call", "call_id": "c1", "name": "tool_search", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": [{"type": "output_text", "text": "a"}, {"type": "input_text", "text": "b"}]},
            {"type": "reasoning", "summary": []}
        ]});
        let parsed = parse_value(&body).unwrap();
        assert_eq!(parsed.prompt, "second");
        assert_eq!(parsed.all_input_text, "rules\nfirst\nsecond");
        assert_eq!(
            parsed.tool_outputs,
            vec![ToolOutput {
                call_id: Some("c1".into()),
                tool_name: Some("tool_search".into()),
                text: "a\nb".into()
            }]
        );
    }

    #[test]
    fn a_body_is_read_without_its_tree() {
        let raw = br#"{"model":"m","instructions":"sys","input":"hi","stream":true,
            "tools":[{"type":"function","name":"t1","parameters":{}}],"store":false}"#;
        let view = read_body(raw).unwrap();
        assert_eq!(
            view.parsed,
            parse_value(&serde_json::from_slice(raw).unwrap()).unwrap()
        );
        assert_eq!(view.model.as_deref(), Some("m"));
        assert!(view.stream);
        assert!(view.declared.contains("t1"));
        assert!(!view.declared.contains("sys"));
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert_eq!(parse_value(&json!([1])), Err(InputError::NotObject));
        assert_eq!(
            parse_value(&json!({"input": 3})),
            Err(InputError::InputShape)
        );
        assert_eq!(
            parse_value(&json!({"input": ["x"]})),
            Err(InputError::ItemShape(0))
        );
        assert!(matches!(read_body(b"{nope"), Err(InputError::Json(_))));
        assert_eq!(read_body(b"[1]"), Err(InputError::NotObject));
        assert_eq!(
            read_body(br#"{"input": ["x"]}"#),
            Err(InputError::ItemShape(0))
        );
    }
}
