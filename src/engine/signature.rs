//! Bounded TypeScript-style hints of a tool's input and output schemas (spec §4), so the model
//! can often call a search result without a `describe` round trip.
//!
//! Rendering is all-or-nothing: a schema that uses a construct we do not render faithfully, or
//! that goes over a bound, gives no hint (`"unknown"` for input, `None` for output) rather than
//! a misleading one.

use serde_json::{Map, Value};

/// What the model sees when no faithful input signature exists.
pub const UNKNOWN: &str = "unknown";

/// Limits of one rendering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub max_chars: usize,
    pub max_props: usize,
    pub max_depth: usize,
    pub max_union: usize,
    pub max_enum: usize,
    /// Every object must say `additionalProperties: false` (output hints).
    pub closed: bool,
}

/// Input hint bounds: ≤ 300 chars, ≤ 16 properties, depth ≤ 4, ≤ 4 union members, ≤ 8 enum literals.
pub const INPUT_BOUNDS: Bounds = Bounds {
    max_chars: 300,
    max_props: 16,
    max_depth: 4,
    max_union: 4,
    max_enum: 8,
    closed: false,
};
/// Output hint bounds: ≤ 850 chars, ≤ 20 properties, depth ≤ 6, closed objects only.
pub const OUTPUT_BOUNDS: Bounds = Bounds {
    max_chars: 850,
    max_props: 20,
    max_depth: 6,
    max_union: 4,
    max_enum: 8,
    closed: true,
};

/// Keywords whose meaning a flat signature cannot carry.
const UNSUPPORTED: &[&str] = &[
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "patternProperties",
    "prefixItems",
    "additionalItems",
    "unevaluatedProperties",
    "unevaluatedItems",
    "dependentSchemas",
    "dependencies",
    "propertyNames",
    "contains",
];

/// The input hint: the signature within [`INPUT_BOUNDS`], or `"unknown"`.
pub fn input_signature(schema: &Value) -> String {
    render(schema, INPUT_BOUNDS).unwrap_or_else(|| UNKNOWN.to_string())
}

/// The output hint: only a complete, closed schema within [`OUTPUT_BOUNDS`].
pub fn output_signature(schema: &Value) -> Option<String> {
    render(schema, OUTPUT_BOUNDS)
}

/// Renders `schema` within `bounds`, or `None` when it cannot be rendered faithfully.
pub fn render(schema: &Value, bounds: Bounds) -> Option<String> {
    let mut r = Renderer { bounds, props: 0 };
    let out = r.node(schema, 0)?;
    (out.chars().count() <= bounds.max_chars).then_some(out)
}

struct Renderer {
    bounds: Bounds,
    props: usize,
}

impl Renderer {
    fn node(&mut self, schema: &Value, depth: usize) -> Option<String> {
        let obj = match schema {
            Value::Bool(true) if !self.bounds.closed => return Some(UNKNOWN.into()),
            Value::Object(o) => o,
            _ => return None,
        };
        if UNSUPPORTED.iter().any(|k| obj.contains_key(*k)) {
            return None;
        }
        let base = self.base(obj, depth)?;
        if obj.get("nullable") == Some(&Value::Bool(true)) && base != "null" {
            return Some(format!("{base} | null"));
        }
        Some(base)
    }

    fn base(&mut self, obj: &Map<String, Value>, depth: usize) -> Option<String> {
        if let Some(c) = obj.get("const") {
            return literal(c);
        }
        if let Some(e) = obj.get("enum") {
            return self.enumeration(e);
        }
        if let Some(members) = obj.get("anyOf").or_else(|| obj.get("oneOf")) {
            return self.union(members, depth);
        }
        match obj.get("type") {
            Some(Value::String(t)) => self.typed(t, obj, depth),
            Some(Value::Array(types)) => {
                if types.is_empty() || types.len() > self.bounds.max_union {
                    return None;
                }
                let parts = types
                    .iter()
                    .map(|t| t.as_str().and_then(|t| self.typed(t, obj, depth)))
                    .collect::<Option<Vec<_>>>()?;
                Some(parts.join(" | "))
            }
            None if obj.contains_key("properties") => self.typed("object", obj, depth),
            None if !self.bounds.closed => Some(UNKNOWN.into()),
            _ => None,
        }
    }

    fn typed(&mut self, t: &str, obj: &Map<String, Value>, depth: usize) -> Option<String> {
        match t {
            "string" | "boolean" | "null" => Some(t.to_string()),
            "number" | "integer" => Some("number".into()),
            "array" => {
                let inner = match obj.get("items") {
                    Some(items) => self.node(items, depth + 1)?,
                    None if !self.bounds.closed => UNKNOWN.into(),
                    None => return None,
                };
                Some(format!("Array<{inner}>"))
            }
            "object" => self.object(obj, depth),
            _ => None,
        }
    }

    fn object(&mut self, obj: &Map<String, Value>, depth: usize) -> Option<String> {
        if depth + 1 > self.bounds.max_depth {
            return None;
        }
        let closed = obj.get("additionalProperties") == Some(&Value::Bool(false));
        if self.bounds.closed && !closed {
            return None;
        }
        let empty = Map::new();
        let props = match obj.get("properties") {
            Some(Value::Object(p)) => p,
            Some(_) => return None,
            None => &empty,
        };
        if props.is_empty() {
            return Some(if closed {
                "{}".into()
            } else {
                "Record<string, unknown>".into()
            });
        }
        self.props += props.len();
        if self.props > self.bounds.max_props {
            return None;
        }
        let required: Vec<&str> = match obj.get("required") {
            Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut names: Vec<(bool, &String)> = props
            .keys()
            .map(|k| (!required.contains(&k.as_str()), k))
            .collect();
        names.sort();
        let mut fields = Vec::with_capacity(names.len());
        for (optional, name) in names {
            let ty = self.node(&props[name], depth + 1)?;
            fields.push(format!(
                "{}{}: {ty}",
                key(name),
                if optional { "?" } else { "" }
            ));
        }
        Some(format!("{{ {} }}", fields.join("; ")))
    }

    fn union(&mut self, members: &Value, depth: usize) -> Option<String> {
        let members = members.as_array()?;
        if members.is_empty() || members.len() > self.bounds.max_union {
            return None;
        }
        let parts = members
            .iter()
            .map(|m| self.node(m, depth))
            .collect::<Option<Vec<_>>>()?;
        Some(parts.join(" | "))
    }

    fn enumeration(&self, values: &Value) -> Option<String> {
        let values = values.as_array()?;
        if values.is_empty() || values.len() > self.bounds.max_enum {
            return None;
        }
        let parts = values.iter().map(literal).collect::<Option<Vec<_>>>()?;
        Some(parts.join(" | "))
    }
}

/// A JSON scalar as a TypeScript literal type.
fn literal(v: &Value) -> Option<String> {
    match v {
        Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => {
            serde_json::to_string(v).ok()
        }
        _ => None,
    }
}

/// A property key, quoted when it is not a plain identifier.
fn key(name: &str) -> String {
    let mut chars = name.chars();
    let ident = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_string()
    } else {
        serde_json::to_string(name).unwrap_or_else(|_| format!("\"{name}\""))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::fake_tool_parameters;
    use serde_json::json;

    fn obj_with(n: usize) -> Value {
        let props: Map<String, Value> = (0..n)
            .map(|i| (format!("p{i:02}"), json!({"type": "string"})))
            .collect();
        json!({ "type": "object", "properties": props })
    }

    fn nested(depth: usize) -> Value {
        (0..depth).fold(
            json!({"type": "string"}),
            |inner, _| json!({"type": "object", "properties": {"x": inner}}),
        )
    }

    #[test]
    fn fake_tool_renders_marker() {
        assert_eq!(
            input_signature(&fake_tool_parameters()),
            "{ marker: string }"
        );
    }

    #[test]
    fn required_first_then_optional_each_sorted() {
        let s = json!({"type": "object", "properties": {
            "mode": {"enum": ["drip", "flood"]}, "id": {"type": "string"}, "b": {"type": "integer"},
            "a": {"type": "number"}}, "required": ["id", "b"]});
        assert_eq!(
            input_signature(&s),
            r#"{ b: number; id: string; a?: number; mode?: "drip" | "flood" }"#
        );
    }

    #[test]
    fn arrays_nullable_unions_and_quoted_keys() {
        let s = json!({"type": "object", "required": ["tags"], "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "note": {"type": "string", "nullable": true},
            "v": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
            "t": {"type": ["string", "null"]},
            "my-key": {"const": 3}}});
        assert_eq!(
            input_signature(&s),
            r#"{ tags: Array<string>; "my-key"?: 3; note?: string | null; t?: string | null; v?: string | boolean }"#
        );
    }

    #[test]
    fn property_bound() {
        assert_ne!(input_signature(&obj_with(16)), UNKNOWN);
        assert_eq!(input_signature(&obj_with(17)), UNKNOWN);
    }

    #[test]
    fn depth_bound() {
        assert_eq!(
            input_signature(&nested(4)),
            "{ x?: { x?: { x?: { x?: string } } } }"
        );
        assert_eq!(input_signature(&nested(5)), UNKNOWN);
    }

    #[test]
    fn union_bound() {
        let u =
            |n: usize| json!({"anyOf": (0..n).map(|i| json!({"const": i})).collect::<Vec<_>>()});
        assert_eq!(input_signature(&u(4)), "0 | 1 | 2 | 3");
        assert_eq!(input_signature(&u(5)), UNKNOWN);
    }

    #[test]
    fn enum_bound() {
        let e = |n: usize| json!({"enum": (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>()});
        assert_eq!(input_signature(&e(8)).matches('|').count(), 7);
        assert_eq!(input_signature(&e(9)), UNKNOWN);
    }

    #[test]
    fn char_bound() {
        let long = format!("p{}", "x".repeat(300));
        let s = json!({"type": "object", "properties": { long: {"type": "string"} }});
        assert_eq!(input_signature(&s), UNKNOWN);
    }

    #[test]
    fn unsupported_keywords_are_unknown() {
        for kw in ["$ref", "allOf", "if", "patternProperties", "prefixItems"] {
            let s = json!({"type": "object", "properties": {"a": {"type": "string", kw: {}}}});
            assert_eq!(input_signature(&s), UNKNOWN, "{kw}");
        }
    }

    #[test]
    fn empty_objects() {
        assert_eq!(
            input_signature(
                &json!({"type": "object", "properties": {}, "additionalProperties": false})
            ),
            "{}"
        );
        assert_eq!(
            input_signature(&json!({"type": "object"})),
            "Record<string, unknown>"
        );
    }

    #[test]
    fn output_needs_closed_complete_schema() {
        let closed = json!({"type": "object", "additionalProperties": false, "required": ["ok"],
            "properties": {"ok": {"type": "boolean"}, "items": {"type": "array", "items": {"type": "string"}}}});
        assert_eq!(
            output_signature(&closed).as_deref(),
            Some("{ ok: boolean; items?: Array<string> }")
        );
        let open = json!({"type": "object", "properties": {"ok": {"type": "boolean"}}});
        assert_eq!(output_signature(&open), None);
        let partial =
            json!({"type": "object", "additionalProperties": false, "properties": {"x": {}}});
        assert_eq!(output_signature(&partial), None);
        let deep = (0..7).fold(json!({"type": "string"}), |inner, _| {
            json!({"type": "object", "additionalProperties": false, "properties": {"x": inner}})
        });
        assert_eq!(output_signature(&deep), None);
    }
}
