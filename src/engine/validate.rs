//! Argument validation for trusted tools (spec §6): the model's arguments are checked against
//! the tool's declared input schema before anything runs, and a failure tells the model what
//! was wrong, a likely intended property name, and the expected signature.
//!
//! Validators are compiled lazily, once per entry, the first time that entry is called: most
//! of a large catalogue is never called in a run, so compiling everything up front is waste.

use std::fmt;
use std::sync::{Arc, OnceLock};

use jsonschema::error::ValidationErrorKind;
use jsonschema::Validator;
use serde_json::Value;

use super::signature::input_signature;
use super::text::closest;
use super::EngineError;

/// A lazily compiled input validator for one entry. Cloning shares the compiled form.
#[derive(Clone, Default)]
pub struct LazyValidator {
    cell: Arc<OnceLock<Result<Arc<Validator>, String>>>,
}

impl fmt::Debug for LazyValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match self.cell.get() {
            None => "not compiled",
            Some(Ok(_)) => "compiled",
            Some(Err(_)) => "invalid schema",
        };
        f.debug_struct("LazyValidator")
            .field("state", &state)
            .finish()
    }
}

impl LazyValidator {
    fn get(&self, schema: &Value) -> Result<&Arc<Validator>, &String> {
        self.cell
            .get_or_init(|| {
                jsonschema::validator_for(schema)
                    .map(Arc::new)
                    .map_err(|e| e.to_string())
            })
            .as_ref()
    }
}

/// Validates `args` for tool `name` against `schema`.
pub fn validate_args(
    name: &str,
    schema: &Value,
    args: &Value,
    lazy: &LazyValidator,
) -> Result<(), EngineError> {
    let invalid =
        |problems: Vec<String>, suggestion: Option<String>| EngineError::InvalidArguments {
            name: name.to_string(),
            problems,
            suggestion,
            signature: input_signature(schema),
        };
    if expects_object(schema) && !args.is_object() {
        return Err(invalid(
            vec![format!(
                "arguments must be a JSON object, got {}",
                kind_of(args)
            )],
            None,
        ));
    }
    let validator = lazy.get(schema).map_err(|e| {
        EngineError::InvalidInput(format!(
        "Tool {name} declares an input schema that cannot be compiled ({e}); it cannot be called."
    ))
    })?;
    let mut problems = Vec::new();
    let mut suggestion = None;
    for error in validator.iter_errors(args) {
        let path = error.instance_path().as_str().to_string();
        if let ValidationErrorKind::AdditionalProperties { unexpected } = error.kind() {
            if suggestion.is_none() {
                let known = property_names(schema_at(schema, &path));
                suggestion = unexpected
                    .iter()
                    .find_map(|u| closest(u, known.iter().copied(), 1).into_iter().next());
            }
        }
        let at = if path.is_empty() {
            "(root)".to_string()
        } else {
            path
        };
        problems.push(format!("{at}: {error}"));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        problems.sort();
        problems.dedup();
        Err(invalid(problems, suggestion))
    }
}

/// Whether the schema's top level is an object schema.
fn expects_object(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "object",
        Some(_) => false,
        None => schema.get("properties").is_some(),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The sub-schema describing the instance at JSON pointer `path` (through properties and items).
fn schema_at<'a>(schema: &'a Value, path: &str) -> &'a Value {
    let mut current = schema;
    for segment in path.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        let next = current
            .get("properties")
            .and_then(|p| p.get(&segment))
            .or_else(|| current.get("items"));
        match next {
            Some(n) => current = n,
            None => return &Value::Null,
        }
    }
    current
}

fn property_names(schema: &Value) -> Vec<&str> {
    match schema.get("properties") {
        Some(Value::Object(p)) => p.keys().map(String::as_str).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::fake_tool_parameters;
    use serde_json::json;

    fn check(args: Value) -> Result<(), EngineError> {
        validate_args(
            "fake_plugin_tool_17",
            &fake_tool_parameters(),
            &args,
            &LazyValidator::default(),
        )
    }

    #[test]
    fn valid_args_pass() {
        assert_eq!(check(json!({"marker": "normal"})), Ok(()));
    }

    #[test]
    fn unknown_property_suggests_close_name() {
        let err = check(json!({"markr": "x"})).err();
        let Some(EngineError::InvalidArguments {
            problems,
            suggestion,
            signature,
            ..
        }) = err.clone()
        else {
            panic!("expected InvalidArguments, got {err:?}");
        };
        assert_eq!(suggestion.as_deref(), Some("marker"));
        assert_eq!(signature, "{ marker: string }");
        assert_eq!(problems.len(), 2);
        let text = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            text.starts_with("Invalid arguments for fake_plugin_tool_17: (root): "),
            "{text}"
        );
        assert!(text.contains("markr"), "{text}");
        assert!(text.contains("\"marker\" is a required property"), "{text}");
        assert!(
            text.ends_with("Did you mean property \"marker\"? Expected: { marker: string }"),
            "{text}"
        );
    }

    #[test]
    fn non_object_args_are_rejected() {
        for args in [json!("x"), json!(null), json!([1])] {
            let err = check(args);
            assert!(
                matches!(err, Err(EngineError::InvalidArguments { ref problems, .. })
                if problems[0].starts_with("arguments must be a JSON object")),
                "{err:?}"
            );
        }
    }

    #[test]
    fn wrong_type_is_reported_with_path() {
        let err = check(json!({"marker": 5}));
        let Err(EngineError::InvalidArguments {
            problems,
            suggestion,
            ..
        }) = err
        else {
            panic!("expected InvalidArguments");
        };
        assert_eq!(suggestion, None);
        assert_eq!(
            problems,
            vec!["/marker: 5 is not of type \"string\"".to_string()]
        );
    }

    #[test]
    fn broken_schema_is_an_input_error() {
        let schema = json!({"type": "object", "properties": {"a": {"type": 12}}});
        let err = validate_args("t", &schema, &json!({}), &LazyValidator::default());
        assert!(matches!(err, Err(EngineError::InvalidInput(_))), "{err:?}");
    }
}
