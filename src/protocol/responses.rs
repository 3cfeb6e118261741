//! The Responses API shapes both sides read: a gateway's answer to a turn (typed output items)
//! and a request body as a provider received it (its declared tools and its system prompt).

use serde::Deserialize;
use serde_json::Value;

/// A gateway's (or provider's) `response` object, as far as the harness reads it.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ResponseBody {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub output: Vec<OutputItem>,
    /// `usage`, as far as the harness reads it (what the turn's provider requests billed).
    #[serde(default, deserialize_with = "ReportedUsage::lenient")]
    pub usage: Option<ReportedUsage>,
}

/// The token counts of a `usage` object; a missing or unreadable count is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReportedUsage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
}

impl ReportedUsage {
    /// Reads whatever `usage` holds without failing the answer: someone else's gateway may
    /// write it in another shape, and the answer is still an answer.
    fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<ReportedUsage>, D::Error> {
        let value = Value::deserialize(d)?;
        Ok(value.as_object().map(|usage| ReportedUsage {
            input_tokens: usage.get("input_tokens").and_then(Value::as_u64),
            output_tokens: usage.get("output_tokens").and_then(Value::as_u64),
        }))
    }
}

/// One item of `output`, tagged by `type`; kinds the harness does not read are `Other`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum OutputItem {
    #[serde(rename = "message")]
    Message(MessageItem),
    #[serde(rename = "function_call")]
    FunctionCall(FunctionCallItem),
    #[serde(other)]
    Other,
}

/// A `message` item: its content is a string or a list of parts with text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct MessageItem {
    #[serde(default)]
    pub content: Content,
}

/// `content` of a message: a plain string or parts (`output_text`, `input_text`, …).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Content {
    Text(String),
    Parts(Vec<ContentPart>),
    Other(Value),
}

impl Default for Content {
    fn default() -> Self {
        Content::Parts(Vec::new())
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ContentPart {
    #[serde(default)]
    pub text: Option<String>,
}

impl Content {
    /// The text of the content: the string, or every part's text joined by newlines.
    pub fn text(&self) -> String {
        match self {
            Content::Text(text) => text.clone(),
            Content::Parts(parts) => parts
                .iter()
                .filter_map(|p| p.text.as_deref())
                .collect::<Vec<_>>()
                .join("\n"),
            Content::Other(_) => String::new(),
        }
    }
}

/// A `function_call` item: a tool call the caller is to run (a client tool handed back).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct FunctionCallItem {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub call_id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    /// The arguments as JSON text.
    #[serde(default)]
    pub arguments: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

impl ResponseBody {
    /// The `function_call` items, in order.
    pub fn function_calls(&self) -> impl Iterator<Item = &FunctionCallItem> {
        self.output.iter().filter_map(|item| match item {
            OutputItem::FunctionCall(call) => Some(call),
            _ => None,
        })
    }

    /// Names of the `function_call` items.
    pub fn tool_names(&self) -> Vec<String> {
        self.function_calls()
            .filter_map(|c| c.name.clone())
            .collect()
    }

    /// The text of every message item, joined by newlines.
    pub fn text(&self) -> String {
        self.output
            .iter()
            .filter_map(|item| match item {
                OutputItem::Message(m) => Some(m.content.text()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The text of a Responses input item (`content` as a string or parts).
pub fn item_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Names in a request's `tools[]`, in order.
pub fn declared_tool_names(body: &Value) -> Vec<String> {
    body.get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// The request's input items with a system or developer role.
fn system_items(body: &Value) -> impl Iterator<Item = &Value> {
    body.get("input")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| {
            matches!(
                i.get("role").and_then(Value::as_str),
                Some("system" | "developer")
            )
        })
}

/// `instructions`, or a Messages body's `system` (a native Anthropic lane's) when it is a string.
fn instructions(body: &Value) -> &str {
    body.get("instructions")
        .or_else(|| body.get("system"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `instructions` plus the text of every system/developer input item, in characters.
pub fn system_prompt_chars(body: &Value) -> usize {
    instructions(body).chars().count()
        + system_items(body)
            .map(|i| item_text(i).chars().count())
            .sum::<usize>()
}

/// `instructions` and the text of every system/developer input item, one per line.
pub fn system_text(body: &Value) -> String {
    let mut text = instructions(body).to_string();
    for item in system_items(body) {
        text.push('\n');
        text.push_str(&item_text(item));
    }
    text
}

/// What a request puts before the conversation — its prompt-cache prefix — as the exact bytes
/// sent: `instructions`, the leading system/developer input items, and `tools[]`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestPrefix {
    pub instructions: Option<String>,
    pub system_items: Vec<String>,
    pub tools: Option<String>,
}

impl RequestPrefix {
    /// Every part, one after the other (for searching what the gateway put up front).
    pub fn text(&self) -> String {
        let mut text = self.instructions.clone().unwrap_or_default();
        for item in &self.system_items {
            text.push_str(item);
        }
        text.push_str(self.tools.as_deref().unwrap_or_default());
        text
    }
}

/// The raw parts of a request body the prefix is made of (borrowed from the body text). An
/// Anthropic Messages body (a native lane's) has `system` where Responses has `instructions`.
#[derive(Deserialize)]
struct RawParts<'a> {
    #[serde(borrow, default, alias = "system")]
    instructions: Option<&'a serde_json::value::RawValue>,
    #[serde(borrow, default)]
    input: Option<Vec<&'a serde_json::value::RawValue>>,
    #[serde(borrow, default)]
    tools: Option<&'a serde_json::value::RawValue>,
}

/// The prefix of a request body as received (`raw`); an error when the body is not a JSON
/// object (a cache cannot hold a prefix nobody can read).
pub fn request_prefix(raw: &str) -> Result<RequestPrefix, serde_json::Error> {
    let parts = serde_json::from_str::<RawParts<'_>>(raw)?;
    let system_items = parts
        .input
        .unwrap_or_default()
        .into_iter()
        .take_while(|item| {
            serde_json::from_str::<Value>(item.get()).is_ok_and(|v| {
                matches!(
                    v.get("role").and_then(Value::as_str),
                    Some("system" | "developer")
                )
            })
        })
        .map(|item| item.get().to_string())
        .collect();
    Ok(RequestPrefix {
        instructions: parts.instructions.map(|r| r.get().to_string()),
        system_items,
        tools: parts.tools.map(|r| r.get().to_string()),
    })
}

/// Every `input` item (Messages: every message) of a request body as received (`raw`), byte
/// for byte; an error when the body is not a JSON object. (An `input` that is a plain string is
/// one item.)
pub fn raw_input_items(raw: &str) -> Result<Vec<String>, serde_json::Error> {
    /// A Messages body's `messages` are its input items.
    #[derive(Deserialize)]
    struct Input<'a> {
        #[serde(borrow, default, alias = "messages")]
        input: Option<&'a serde_json::value::RawValue>,
    }
    let Input { input } = serde_json::from_str(raw)?;
    let Some(input) = input else {
        return Ok(Vec::new());
    };
    match serde_json::from_str::<Vec<&serde_json::value::RawValue>>(input.get()) {
        Ok(items) => Ok(items.into_iter().map(|i| i.get().to_string()).collect()),
        Err(_) => Ok(vec![input.get().to_string()]),
    }
}

/// The capability directory a system prompt carries (`### Deferred Tool Schemas`): its tool
/// lines (`- name (owner): …`) up to the next heading.
pub fn directory_lines(system_text: &str) -> Option<Vec<&str>> {
    let (_, after) = system_text.split_once("### Deferred Tool Schemas")?;
    let lines = after
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('#'))
        .filter(|line| line.starts_with("- "))
        .collect();
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_messages_body_has_its_system_and_messages_read_as_prefix_and_input() {
        let raw = r#"{"model":"m","system":"be brief","messages":[{"role":"user","content":"a"},{"role":"assistant","content":"b"}],"tools":[{"name":"t"}]}"#;
        let prefix = request_prefix(raw).unwrap();
        assert_eq!(prefix.instructions.as_deref(), Some(r#""be brief""#));
        assert_eq!(prefix.tools.as_deref(), Some(r#"[{"name":"t"}]"#));
        assert_eq!(
            raw_input_items(raw).unwrap(),
            [
                r#"{"role":"user","content":"a"}"#,
                r#"{"role":"assistant","content":"b"}"#
            ]
        );
    }

    #[test]
    fn reads_messages_and_calls_and_skips_other_items() {
        let body: ResponseBody = serde_json::from_value(json!({
            "id": "resp_1", "status": "completed",
            "output": [
                { "type": "reasoning", "summary": [] },
                { "type": "message", "content": [{ "type": "output_text", "text": "a" }, { "type": "output_text", "text": "b" }] },
                { "type": "function_call", "call_id": "call_1", "name": "pick", "arguments": "{}", "status": "completed" },
                { "type": "message", "content": "c" }
            ]
        }))
        .unwrap();
        assert_eq!(body.text(), "a\nb\nc");
        assert_eq!(body.tool_names(), ["pick"]);
        assert_eq!(body.output[0], OutputItem::Other);
        assert_eq!(body.usage, None);
    }

    #[test]
    fn usage_is_read_leniently() {
        let usage = |usage: Value| {
            serde_json::from_value::<ResponseBody>(json!({ "output": [], "usage": usage }))
                .unwrap()
                .usage
        };
        assert_eq!(
            usage(json!({"input_tokens": 10, "output_tokens": 3, "total_tokens": 13})),
            Some(ReportedUsage {
                input_tokens: Some(10),
                output_tokens: Some(3)
            })
        );
        let odd = usage(json!({"input_tokens": -1, "output_tokens": "3"})).unwrap();
        assert_eq!((odd.input_tokens, odd.output_tokens), (None, None));
        assert_eq!(usage(json!("none")), None);
        assert_eq!(usage(Value::Null), None);
    }

    #[test]
    fn the_prefix_is_the_bytes_as_sent() {
        let raw = r#"{"model":"m","input":[{"role":"system","content":"sys"},{"role":"user","content":"u"}],"tools":[ {"name":"a"} ]}"#;
        let prefix = request_prefix(raw).unwrap();
        assert_eq!(prefix.instructions, None);
        assert_eq!(
            prefix.system_items,
            [r#"{"role":"system","content":"sys"}"#]
        );
        assert_eq!(prefix.tools.as_deref(), Some(r#"[ {"name":"a"} ]"#));
        assert!(request_prefix("not json").is_err());
        assert_eq!(
            raw_input_items(raw).unwrap(),
            [
                r#"{"role":"system","content":"sys"}"#,
                r#"{"role":"user","content":"u"}"#
            ]
        );
        assert_eq!(raw_input_items(r#"{"input":"hi"}"#).unwrap(), [r#""hi""#]);
        assert!(raw_input_items("{").is_err());
    }

    #[test]
    fn directory_lines_are_the_listed_tools() {
        let text = "intro\n### Deferred Tool Schemas\nAvailable deferred-schema tools:\n- a (p): x\n- b (p): y\n\nMCP note\n## Next\n- not this";
        assert_eq!(
            directory_lines(text),
            Some(vec!["- a (p): x", "- b (p): y"])
        );
        assert_eq!(directory_lines("no directory"), None);
    }

    #[test]
    fn system_prompt_counts_instructions_and_system_items() {
        let body = json!({ "instructions": "ab", "input": [
            { "role": "system", "content": [{ "type": "input_text", "text": "cd" }] },
            { "role": "user", "content": "not counted" },
            { "role": "developer", "content": "é" }
        ] });
        assert_eq!(system_prompt_chars(&body), 5);
        assert_eq!(system_text(&body), "ab\ncd\né");
    }
}
