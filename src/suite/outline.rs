//! The outline of a real product's lane for its snapshots: what a product change shows in, without
//! the product's prose. Requests keep their keys, scalar settings, the conversation items, the
//! declared tools (names, order, schemas) with every description reduced to its length, and each
//! system item as its section headings and sizes. The session keeps the transcript's event kinds
//! in order and the session records they translate into.

use serde_json::{json, Map, Value};

use crate::protocol::item_text;
use crate::protocol::session::SessionLog;

/// `[N chars]` for a text the product wrote.
fn size(text: &str) -> Value {
    Value::from(format!("[{} chars]", text.chars().count()))
}

/// A schema with every `description` reduced to its length.
fn without_prose(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("description", Value::String(text)) => (k.clone(), size(text)),
                    _ => (k.clone(), without_prose(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_prose).collect()),
        other => other.clone(),
    }
}

/// A system text as its sections: each heading line (`#…`) with the characters up to the next.
fn sections(text: &str) -> Value {
    let mut out = Vec::new();
    let mut heading = "(before the first heading)".to_string();
    let mut chars = 0usize;
    for line in text.lines() {
        if line.starts_with('#') {
            if chars > 0 || !out.is_empty() {
                out.push(json!({ "heading": heading, "chars": chars }));
            }
            heading = line.trim().to_string();
            chars = 0;
        } else {
            chars += line.chars().count() + 1;
        }
    }
    out.push(json!({ "heading": heading, "chars": chars }));
    Value::Array(out)
}

/// One provider request, outlined.
pub fn request(body: &Value) -> Value {
    let Value::Object(fields) = body else {
        return body.clone();
    };
    let mut out = Map::new();
    for (key, value) in fields {
        let outlined = match key.as_str() {
            "instructions" => json!({ "chars": value.as_str().map(|t| t.chars().count()),
                                      "sections": sections(value.as_str().unwrap_or_default()) }),
            "input" => Value::Array(
                value
                    .as_array()
                    .map(Vec::as_slice)
                    .unwrap_or(&[])
                    .iter()
                    .map(input_item)
                    .collect(),
            ),
            "tools" => without_prose(value),
            _ => value.clone(),
        };
        out.insert(key.clone(), outlined);
    }
    Value::Object(out)
}

fn input_item(item: &Value) -> Value {
    match item.get("role").and_then(Value::as_str) {
        Some(role @ ("system" | "developer")) => {
            let text = item_text(item);
            json!({ "role": role, "chars": text.chars().count(), "sections": sections(&text) })
        }
        _ => item.clone(),
    }
}

/// The session, outlined: the product's event kinds in order, and the session records.
pub fn session(log: &SessionLog) -> Value {
    let kinds: Vec<String> = log.raw.iter().map(event_kind).collect();
    let records = serde_json::to_value(&log.records).unwrap_or(Value::Null);
    json!({ "events": kinds, "records": records })
}

/// `type`, with the message role or custom type: `message:user`, `custom:model-snapshot`.
fn event_kind(event: &Value) -> String {
    let kind = event["type"].as_str().unwrap_or("?");
    let detail = match kind {
        "message" => event["message"]["role"].as_str(),
        "custom" => event["customType"].as_str(),
        _ => None,
    };
    match detail {
        Some(detail) => format!("{kind}:{detail}"),
        None => kind.to_string(),
    }
}

/// The product's effective tools: each group's source and, per tool, its name, source and
/// plugin in the product's order (labels and descriptions are its prose: their sizes only).
pub fn effective(tools: &crate::protocol::invoke::EffectiveTools) -> Value {
    let groups: Vec<Value> = tools
        .groups
        .iter()
        .map(|g| {
            let tools: Vec<Value> = g
                .tools
                .iter()
                .map(|t| {
                    json!({ "id": t.id, "source": t.source, "pluginId": t.plugin_id,
                        "description": size(&t.description) })
                })
                .collect();
            json!({ "id": g.id, "source": g.source, "tools": tools })
        })
        .collect();
    json!({ "agentId": tools.agent_id, "profile": tools.profile, "groups": groups })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_becomes_sizes_and_structure_stays() {
        let body = json!({
            "model": "m",
            "input": [
                { "type": "message", "role": "system", "content": [{ "type": "input_text",
                  "text": "intro\n## Tooling\nabc\n### Deferred Tool Schemas\n- a (p): x" }] },
                { "type": "message", "role": "user", "content": "hi" }
            ],
            "tools": [{ "type": "function", "name": "read", "description": "Reads a file.",
                        "parameters": { "type": "object", "properties": { "path": { "type": "string", "description": "Path." } } } }]
        });
        let outlined = request(&body);
        assert_eq!(
            outlined["input"][0]["sections"],
            json!([
                { "heading": "(before the first heading)", "chars": 6 },
                { "heading": "## Tooling", "chars": 4 },
                { "heading": "### Deferred Tool Schemas", "chars": 11 }
            ])
        );
        assert_eq!(outlined["input"][1], body["input"][1]);
        assert_eq!(outlined["tools"][0]["name"], "read");
        assert_eq!(outlined["tools"][0]["description"], "[13 chars]");
        assert_eq!(
            outlined["tools"][0]["parameters"]["properties"]["path"],
            json!({ "type": "string", "description": "[5 chars]" })
        );
    }
}
