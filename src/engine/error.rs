//! Errors the engine reports to the model. Their `Display` text is what the model reads,
//! so each one says what was wrong and what to do next.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum EngineError {
    /// Bad arguments to a control (`limit` not a positive integer, blank code, bad batch, …).
    #[error("{0}")]
    InvalidInput(String),
    /// `describe` / `call` of an id or name that is not in this run's catalogue.
    #[error("Unknown tool id: {id}.{}{}", did_you_mean(.suggestions), hint_text(.hint))]
    UnknownTool {
        id: String,
        suggestions: Vec<String>,
        hint: String,
    },
    /// Two catalogued tools share a name: the exact id is needed.
    #[error("Ambiguous tool name: {name} matches {}; use the exact id.", .ids.join(", "))]
    AmbiguousName { name: String, ids: Vec<String> },
    /// The entry was found at search time but is gone or changed now (spec §6, §10).
    #[error("Tool {id} is no longer available in this run.")]
    Unavailable { id: String },
    /// Arguments that do not fit a trusted tool's input schema.
    #[error("Invalid arguments for {name}: {}.{} Expected: {signature}", .problems.join("; "), suggestion_text(.suggestion))]
    InvalidArguments {
        name: String,
        problems: Vec<String>,
        suggestion: Option<String>,
        signature: String,
    },
    /// A declared output schema that does not compile, or a result that does not match it.
    #[error("Output of {name} does not match its declared schema: {problem}")]
    InvalidOutput { name: String, problem: String },
    /// Policy, approval or a hook refused the call. Reported, never bypassed.
    #[error("Tool call blocked: {reason}")]
    Blocked { tool: String, reason: String },
    /// The tool ran and failed.
    #[error("Tool {name} failed: {message}")]
    ExecutionFailed { name: String, message: String },
}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        String::new()
    } else {
        format!(" Did you mean: {}?", suggestions.join(", "))
    }
}

fn hint_text(hint: &str) -> String {
    if hint.is_empty() {
        String::new()
    } else {
        format!(" {hint}")
    }
}

fn suggestion_text(suggestion: &Option<String>) -> String {
    match suggestion {
        Some(s) => format!(" Did you mean property \"{s}\"?"),
        None => String::new(),
    }
}
