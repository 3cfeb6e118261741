//! The scripted "model": decides each provider reply from the request alone.
//!
//! It follows the QA Lab mock (qa-lab-reference §2): a `tool search qa check target=<name>` directive
//! walks the tool-search path to the target and ends with `FAKE_PLUGIN_OK <name>`; the
//! `tool search qa failure target=<name>` directive calls the target with schema-violating arguments
//! and reports the error it got back. An explicit script, when set, replaces the directive logic.
//! Decisions are pure functions of the request, so the same request always gets the same reply.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::declared::{DeclaredNames, MAX_DEPTH as MAX_TOOL_DEPTH};
use super::input::{ParsedInput, ToolOutput};

/// Marker the fake plugin tool echoes back on success.
pub const SUCCESS_MARKER: &str = "FAKE_PLUGIN_OK";
/// Prefix of the text answer after a denied call (failure directive).
pub const DENIED_MARKER: &str = "FAKE_PLUGIN_DENIED";
/// Prefix of the text answer when the failure directive's call unexpectedly succeeded.
pub const NOT_DENIED_MARKER: &str = "FAKE_PLUGIN_NOT_DENIED";
/// Prefix of the text answer when the check path cannot go on without repeating a dispatcher.
pub const GAVE_UP_MARKER: &str = "TOOL_SEARCH_QA_GAVE_UP";
/// Text answer when there is no directive.
pub const PLAIN_TEXT: &str = "Mock provider reply: no tool search directive found.";
/// Text answer when a script has fewer turns than the session asked for.
pub const SCRIPT_EXHAUSTED_TEXT: &str = "SCRIPT_EXHAUSTED";

const CHECK_DIRECTIVE: &str = "tool search qa check target=";
const FAILURE_DIRECTIVE: &str = "tool search qa failure target=";
const CODE_TOOL: &str = "tool_search_code";
const SEARCH_TOOL: &str = "tool_search";
/// The dispatchers a surface may declare to call a catalogue entry by `{id, args}`: the spec's
/// and OpenClaw 2026.9.6's `tool_call`, and upstream's `dispatch_action`. The model calls the
/// one the request declares (the first, when a request declared both).
const DISPATCHERS: [&str; 2] = ["tool_call", "dispatch_action"];
const QUOTE_LIMIT: usize = 600;

/// One turn of an explicit script (scenario files): what the n-th request of a session gets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ScriptedTurn {
    /// Call a tool by its wire name; for `tool_call` the journal names the tool of `id` and its `args`.
    ToolCall { name: String, arguments: Value },
    /// Call a tool, and call it again, the same way, while its result is an error, at most
    /// `retries` more times (a model that retries a refused shape, as in openclaw/openclaw#135129).
    RetriedCall {
        name: String,
        arguments: Value,
        retries: u32,
        /// What the model answers when the last retry is refused too (as filed: nothing);
        /// `None`: the script goes on.
        gave_up: Option<String>,
    },
    /// Answer with text.
    Text(String),
}

/// What the model decided, journaled as a kebab-case word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A tool call on the directive path.
    ToolCall,
    /// `FAKE_PLUGIN_OK <target>` after a successful result.
    FinalText,
    /// No directive: a plain text answer.
    PlainText,
    /// Failure directive: the error that came back, quoted.
    DeniedReport,
    /// Failure directive: the call succeeded although its arguments were invalid.
    NotDenied,
    /// Check directive: a result that neither succeeded nor offers a next step.
    GaveUp,
    /// A scripted tool call.
    ScriptedToolCall,
    /// A scripted text answer.
    ScriptedText,
    /// The script had no turn for this request.
    ScriptExhausted,
    /// The body could not be read (400).
    InvalidRequest,
    /// Provider-native tool search: the mock searched the deferred tools (hosted: and called
    /// the target it loaded) or asked the caller to search (client).
    NativeSearch,
    /// Provider-native tool search did not load the target: `TOOL_SEARCH_QA_NOT_FOUND <target>`.
    NotFound,
}

impl Outcome {
    /// The journal spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::ToolCall => "tool-call",
            Outcome::FinalText => "final-text",
            Outcome::PlainText => "plain-text",
            Outcome::DeniedReport => "denied-report",
            Outcome::NotDenied => "not-denied",
            Outcome::GaveUp => "gave-up",
            Outcome::ScriptedToolCall => "scripted-tool-call",
            Outcome::ScriptedText => "scripted-text",
            Outcome::ScriptExhausted => "script-exhausted",
            Outcome::InvalidRequest => "invalid-request",
            Outcome::NativeSearch => "native-search",
            Outcome::NotFound => "not-found",
        }
    }
}

/// The reply to put on the wire.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// One function call.
    ToolCall { name: String, arguments: Value },
    /// One assistant message.
    Text(String),
}

/// A decision plus what the journal says about it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub reply: Reply,
    pub planned_tool_name: Option<String>,
    pub planned_wire_tool_name: Option<String>,
    pub planned_tool_args: Option<Value>,
    pub outcome: Outcome,
}

impl Decision {
    fn text(text: String, outcome: Outcome) -> Self {
        Decision {
            reply: Reply::Text(text),
            planned_tool_name: None,
            planned_wire_tool_name: None,
            planned_tool_args: None,
            outcome,
        }
    }

    /// A call put on the wire as `name`; a dispatcher (`tool_call`, `dispatch_action`) is
    /// journaled as its target.
    fn call(name: &str, arguments: Value, outcome: Outcome) -> Self {
        let dispatched = DISPATCHERS
            .contains(&name)
            .then(|| {
                arguments
                    .get("id")
                    .and_then(Value::as_str)
                    .map(tool_name_of_id)
            })
            .flatten();
        let (planned, wire, args) = match dispatched {
            Some(target) => (
                target,
                Some(name.to_string()),
                arguments.get("args").cloned().unwrap_or_else(|| json!({})),
            ),
            None => (name.to_string(), None, arguments.clone()),
        };
        Decision {
            reply: Reply::ToolCall {
                name: name.to_string(),
                arguments,
            },
            planned_tool_name: Some(planned),
            planned_wire_tool_name: wire,
            planned_tool_args: Some(args),
            outcome,
        }
    }
}

/// The tool name inside a catalogue id `<source>:<sourceName>:<toolName>` (a bare name stays as is).
fn tool_name_of_id(id: &str) -> String {
    id.rsplit(':').next().unwrap_or(id).to_string()
}

/// The directive found in the input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Directive {
    /// Reach the target and report success.
    Check(String),
    /// Call the target with invalid arguments and report the error.
    Failure(String),
}

/// Arguments that violate the fake tool's schema (missing `marker`, unknown `markr`).
pub fn denied_args() -> Value {
    json!({"markr": "denied"})
}

fn normal_args() -> Value {
    json!({"marker": "normal"})
}

/// Decides the reply to one request. `declared` are the names its `tools` declares.
pub fn decide(
    parsed: &ParsedInput,
    declared: &DeclaredNames,
    script: Option<&[ScriptedTurn]>,
) -> Decision {
    if let Some(script) = script {
        return scripted(parsed, script);
    }
    let code_mode = is_code_mode(declared);
    let declared = |name: &str| is_declared(name, declared, &parsed.instructions);
    match find_directive(&parsed.all_input_text) {
        Some(Directive::Check(target)) if code_mode => {
            let args = directive_args(&parsed.all_input_text).unwrap_or_else(normal_args);
            code_mode_check(&target, &args, parsed.latest_tool_output())
        }
        Some(Directive::Check(target)) => {
            let args = directive_args(&parsed.all_input_text).unwrap_or_else(normal_args);
            check(&target, &args, parsed.latest_tool_output(), &declared)
        }
        Some(Directive::Failure(target)) => {
            failure(&target, parsed.latest_tool_output(), &declared)
        }
        None => Decision::text(PLAIN_TEXT.to_string(), Outcome::PlainText),
    }
}

/// Script rule: the n-th turn (0-based) goes to the request with n tool outputs after the last user
/// message, i.e. the n-th request since the user last spoke; a [`ScriptedTurn::RetriedCall`] keeps
/// its place while its result is an error and it has retries left. Stateless, so lanes may share a
/// provider.
fn scripted(parsed: &ParsedInput, script: &[ScriptedTurn]) -> Decision {
    let step = match script_position(&parsed.tool_outputs, script) {
        Position::Step(step) => step,
        Position::GaveUp(text) => return Decision::text(text, Outcome::ScriptedText),
    };
    match script.get(step) {
        // A scripted `wait` without a `runId` resumes the run the latest `exec` left waiting
        // (a script cannot know the runId in advance).
        Some(ScriptedTurn::ToolCall { name, arguments })
            if name == CODE_MODE_WAIT && arguments.get("runId").is_none() =>
        {
            let run_id = parsed
                .latest_tool_output()
                .and_then(|o| waiting_run_id(&o.text))
                .unwrap_or_default();
            Decision::call(name, json!({ "runId": run_id }), Outcome::ScriptedToolCall)
        }
        Some(
            ScriptedTurn::ToolCall { name, arguments }
            | ScriptedTurn::RetriedCall {
                name, arguments, ..
            },
        ) => Decision::call(name, arguments.clone(), Outcome::ScriptedToolCall),
        Some(ScriptedTurn::Text(text)) => Decision::text(text.clone(), Outcome::ScriptedText),
        None => Decision::text(SCRIPT_EXHAUSTED_TEXT.to_string(), Outcome::ScriptExhausted),
    }
}

/// Where a script stands after some tool outputs.
#[derive(Debug, PartialEq)]
enum Position {
    /// The step the next request gets.
    Step(usize),
    /// A retried call was refused once more than its retries: the model gives up with this.
    GaveUp(String),
}

/// The script step the next request gets, after these tool outputs: each output moves the script
/// on by one, except an error answering a retried call that has retries left (and one that has
/// none, when the call says what the model then answers).
fn script_position(outputs: &[ToolOutput], script: &[ScriptedTurn]) -> Position {
    let (mut step, mut retried) = (0usize, 0u32);
    for output in outputs {
        match script.get(step) {
            Some(ScriptedTurn::RetriedCall {
                retries, gave_up, ..
            }) if is_error_output(&output.text) => match (retried < *retries, gave_up) {
                (true, _) => retried += 1,
                (false, Some(text)) => return Position::GaveUp(text.clone()),
                (false, None) => (step, retried) = (step + 1, 0),
            },
            _ => (step, retried) = (step + 1, 0),
        }
    }
    Position::Step(step)
}

/// Is a tool output an error result: a JSON object whose `status` is `error` (the shape both the
/// embedded gateway and OpenClaw give a refused call)?
fn is_error_output(output: &str) -> bool {
    let json = crate::protocol::envelope::unwrap(output).unwrap_or(output);
    serde_json::from_str::<Value>(json)
        .ok()
        .is_some_and(|v| v.get("status").and_then(Value::as_str) == Some("error"))
}

fn check(
    target: &str,
    args: &Value,
    output: Option<&ToolOutput>,
    declared: &dyn Fn(&str) -> bool,
) -> Decision {
    let Some(output) = output else {
        return if declared(CODE_TOOL) {
            Decision::call(CODE_TOOL, code_args(target, args), Outcome::ToolCall)
        } else if !declared(target) && declared(SEARCH_TOOL) {
            Decision::call(
                SEARCH_TOOL,
                json!({"query": target, "limit": 1}),
                Outcome::ToolCall,
            )
        } else {
            Decision::call(target, args.clone(), Outcome::ToolCall)
        };
    };
    let (succeeded, names_target) = match call_envelope(&output.text) {
        Some(envelope) => (
            envelope.result.contains(SUCCESS_MARKER),
            envelope
                .tool
                .as_deref()
                .map_or_else(|| output.text.contains(target), |tool| tool == target),
        ),
        None => (
            output.text.contains(SUCCESS_MARKER),
            output.text.contains(target),
        ),
    };
    if succeeded && names_target {
        return Decision::text(format!("{SUCCESS_MARKER} {target}"), Outcome::FinalText);
    }
    let from_search = matches!(output.tool_name.as_deref(), None | Some(SEARCH_TOOL));
    match candidate_id(&output.text, target).filter(|_| from_search && !succeeded) {
        Some(id) => Decision::call(
            dispatcher(declared),
            json!({"id": id, "args": args}),
            Outcome::ToolCall,
        ),
        None => Decision::text(
            format!("{GAVE_UP_MARKER} {target}: {}", quote(&output.text)),
            Outcome::GaveUp,
        ),
    }
}

fn failure(target: &str, output: Option<&ToolOutput>, declared: &dyn Fn(&str) -> bool) -> Decision {
    let Some(output) = output else {
        return if declared(CODE_TOOL) {
            Decision::call(
                CODE_TOOL,
                code_args(target, &denied_args()),
                Outcome::ToolCall,
            )
        } else if !declared(target) && DISPATCHERS.iter().any(|d| declared(d)) {
            Decision::call(
                dispatcher(declared),
                json!({"id": target, "args": denied_args()}),
                Outcome::ToolCall,
            )
        } else {
            Decision::call(target, denied_args(), Outcome::ToolCall)
        };
    };
    if output.text.contains(SUCCESS_MARKER) {
        let text = format!("{NOT_DENIED_MARKER} {target}: {}", quote(&output.text));
        return Decision::text(text, Outcome::NotDenied);
    }
    let text = format!("{DENIED_MARKER} {target}: {}", quote(&output.text));
    Decision::text(text, Outcome::DeniedReport)
}

/// The dispatcher the request declares (`tool_call` when it declares none).
fn dispatcher(declared: &dyn Fn(&str) -> bool) -> &'static str {
    DISPATCHERS
        .into_iter()
        .find(|d| declared(d))
        .unwrap_or(DISPATCHERS[0])
}

/// A dispatcher's answer `{tool, result}`, as the model reads it: the tool it ran (its name, or
/// `tool.name`) and the result as text (JSON results, e.g. `result.details`, serialised).
#[derive(Debug, PartialEq)]
struct CallEnvelope {
    tool: Option<String>,
    result: String,
}

/// The `{tool, result}` envelope in a tool output, read inside an untrusted-content wrapper;
/// `None` when the output is not one.
fn call_envelope(output: &str) -> Option<CallEnvelope> {
    let json = crate::protocol::envelope::unwrap(output).unwrap_or(output);
    let value: Value = serde_json::from_str(json).ok()?;
    let (tool, result) = (value.get("tool")?, value.get("result")?);
    let tool = match tool {
        Value::String(name) => Some(name.clone()),
        other => other
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string),
    };
    let result = match result {
        Value::String(text) => text.clone(),
        other => other.to_string(),
    };
    Some(CallEnvelope { tool, result })
}

/// `tool_search_code` arguments: search the target, pick the exact-name hit, call it with `args`.
pub fn code_args(target: &str, args: &Value) -> Value {
    let name = Value::String(target.to_string()).to_string();
    let code = format!(
        "const found = await openclaw.tools.search({name}, {{ limit: 1 }});\n\
         const hits = Array.isArray(found) ? found : (found && found.results) || [];\n\
         const hit = hits.find((item) => item && item.name === {name});\n\
         if (!hit) throw new Error(\"target tool not found\");\n\
         return await openclaw.tools.call(hit.id, {args});"
    );
    json!({ "code": code })
}

/// Code Mode's control tools: a JavaScript cell, and the resume of a waiting one.
const CODE_MODE_EXEC: &str = "exec";
const CODE_MODE_WAIT: &str = "wait";

/// Is the request's surface Code Mode's (`exec` and `wait` both declared as tools)? The shell's
/// `exec` alone is not: `wait` only ever stands beside the Code Mode `exec`.
fn is_code_mode(declared: &DeclaredNames) -> bool {
    declared.contains(CODE_MODE_EXEC) && declared.contains(CODE_MODE_WAIT)
}

/// The `runId` of an `exec` result that says `waiting`.
fn waiting_run_id(output: &str) -> Option<String> {
    let json = crate::protocol::envelope::unwrap(output).unwrap_or(output);
    let value: Value = serde_json::from_str(json).ok()?;
    (value["status"] == "waiting")
        .then(|| value["runId"].as_str().map(str::to_string))
        .flatten()
}

/// The check directive on a Code Mode surface: one `exec` cell that searches the catalogue,
/// describes the target, calls it and returns `{tool, result}`; then the final text when the
/// cell completed with the target's details, a `wait` when it is waiting.
fn code_mode_check(target: &str, args: &Value, output: Option<&ToolOutput>) -> Decision {
    let Some(output) = output else {
        return Decision::call(
            CODE_MODE_EXEC,
            code_mode_args(target, args),
            Outcome::ToolCall,
        );
    };
    if let Some(run_id) = waiting_run_id(&output.text) {
        return Decision::call(
            CODE_MODE_WAIT,
            json!({ "runId": run_id }),
            Outcome::ToolCall,
        );
    }
    let json = crate::protocol::envelope::unwrap(&output.text).unwrap_or(&output.text);
    let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    let reached = value["status"] == "completed"
        && value["value"]["tool"] == target
        && value["value"]["result"]["status"] == "ok"
        && value["value"]["result"]["tool"] == target;
    match reached {
        true => Decision::text(format!("{SUCCESS_MARKER} {target}"), Outcome::FinalText),
        false => Decision::text(
            format!("{GAVE_UP_MARKER} {target}: {}", quote(&output.text)),
            Outcome::GaveUp,
        ),
    }
}

/// `exec` arguments on a Code Mode surface: find the target by name, describe it, call it with
/// `args`, return which tool answered, where it comes from (the handle's `source`: the nested
/// record of a product's transcript does not say) and its details.
pub fn code_mode_args(target: &str, args: &Value) -> Value {
    let name = Value::String(target.to_string()).to_string();
    let code = format!(
        "const [hit] = await catalog.search({name}, {{ limit: 1 }});\n\
         if (!hit || hit.toolName !== {name}) throw new Error(\"target tool not found\");\n\
         await hit.describe();\n\
         const result = await hit({args});\n\
         return {{ tool: hit.toolName, source: hit.source, result }};"
    );
    json!({ "code": code })
}

/// Finds the last directive in `text` (case-insensitive); the target keeps its spelling.
pub fn find_directive(text: &str) -> Option<Directive> {
    let lower = text.to_ascii_lowercase();
    let check = lower
        .rfind(CHECK_DIRECTIVE)
        .map(|at| (at, CHECK_DIRECTIVE.len(), true));
    let failure = lower
        .rfind(FAILURE_DIRECTIVE)
        .map(|at| (at, FAILURE_DIRECTIVE.len(), false));
    let (at, len, is_check) = match (check, failure) {
        (Some(c), Some(f)) => std::cmp::max_by_key(c, f, |found| found.0),
        (found, None) | (None, found) => found?,
    };
    let rest = &text[at + len..];
    let end = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.' | ':')))
        .unwrap_or(rest.len());
    let target = rest[..end].trim_end_matches(['.', ':']).to_string();
    if target.is_empty() {
        return None;
    }
    Some(if is_check {
        Directive::Check(target)
    } else {
        Directive::Failure(target)
    })
}

/// The arguments the last check directive gives its target, when it gives any: a JSON object
/// after ` args=` (`tool search qa check target=echo args={"message":"…"}`), for a real tool
/// whose schema is not the fake tools' `{marker}`. Without one the target gets `{marker}`.
pub fn directive_args(text: &str) -> Option<Value> {
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind(CHECK_DIRECTIVE)? + CHECK_DIRECTIVE.len();
    if lower.rfind(FAILURE_DIRECTIVE).is_some_and(|f| f > at) {
        return None;
    }
    let rest = &text[at..];
    let end = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '.' | ':')))
        .unwrap_or(rest.len());
    let after = rest[end..].strip_prefix(' ')?.strip_prefix("args=")?;
    match serde_json::Deserializer::from_str(after)
        .into_iter::<Value>()
        .next()?
    {
        Ok(object @ Value::Object(_)) => Some(object),
        _ => None,
    }
}

/// A tool is declared when a `tools` entry (any depth ≤ 6, see [`DeclaredNames`]) is named so,
/// or `instructions` names it as a whole word.
pub fn is_declared(name: &str, declared: &DeclaredNames, instructions: &str) -> bool {
    declared.contains(name) || mentions_word(instructions, name)
}

fn is_word_char(ch: char) -> bool {
    ch.is_alphanumeric() || ch == '_'
}

fn mentions_word(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    text.match_indices(word).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + word.len()..].chars().next();
        !before.is_some_and(is_word_char) && !after.is_some_and(is_word_char)
    })
}

/// The id of the first object (depth ≤ 6) in a JSON tool output whose `name` is `target`. An
/// output inside a well-formed untrusted-content envelope is read inside it.
fn candidate_id(output: &str, target: &str) -> Option<String> {
    let json = crate::protocol::envelope::unwrap(output).unwrap_or(output);
    let value: Value = serde_json::from_str(json).ok()?;
    find_candidate(&value, target, 0)
}

fn find_candidate(value: &Value, target: &str, depth: usize) -> Option<String> {
    if depth > MAX_TOOL_DEPTH {
        return None;
    }
    match value {
        Value::Array(items) => items
            .iter()
            .find_map(|item| find_candidate(item, target, depth + 1)),
        Value::Object(object) => {
            let named = object.get("name").and_then(Value::as_str) == Some(target);
            let id = object.get("id").and_then(Value::as_str);
            match (named, id) {
                (true, Some(id)) => Some(id.to_string()),
                _ => object
                    .values()
                    .find_map(|child| find_candidate(child, target, depth + 1)),
            }
        }
        _ => None,
    }
}

/// Whitespace-collapsed tool output, cut to a bounded length on a char boundary.
fn quote(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match collapsed.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{}…", &collapsed[..cut]),
        None => collapsed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A retried call keeps its place while refused and it has retries left; then the model
    /// gives up with `gave_up`, or the script goes on; a success moves on at once.
    #[test]
    fn a_retried_call_repeats_while_refused() {
        let refused = r#"{"status":"error","tool":"tool_search","error":"no"}"#;
        let output = |text: &str| ToolOutput {
            call_id: None,
            tool_name: Some("tool_search".into()),
            text: text.into(),
        };
        let script = |gave_up: Option<&str>| {
            vec![
                ScriptedTurn::RetriedCall {
                    name: "tool_search".into(),
                    arguments: json!({}),
                    retries: 2,
                    gave_up: gave_up.map(str::to_string),
                },
                ScriptedTurn::Text("answer".into()),
            ]
        };
        let at = |outputs: &[&str], gave_up: Option<&str>| {
            let outputs: Vec<ToolOutput> = outputs.iter().map(|t| output(t)).collect();
            script_position(&outputs, &script(gave_up))
        };
        assert_eq!(at(&[], Some("")), Position::Step(0));
        assert_eq!(at(&[refused], Some("")), Position::Step(0));
        assert_eq!(at(&[refused, refused], Some("")), Position::Step(0));
        assert_eq!(
            at(&[refused, refused, refused], Some("")),
            Position::GaveUp(String::new())
        );
        assert_eq!(at(&[refused, refused, refused], None), Position::Step(1));
        assert_eq!(at(&["[]"], Some("")), Position::Step(1));
        assert_eq!(at(&[refused, "[]"], Some("")), Position::Step(1));
        // A plain call does not repeat.
        let plain = [ScriptedTurn::ToolCall {
            name: "tool_search".into(),
            arguments: json!({}),
        }];
        assert_eq!(
            script_position(&[output(refused)], &plain),
            Position::Step(1)
        );
    }

    #[test]
    fn directive_is_case_insensitive_and_last_wins() {
        assert_eq!(
            find_directive("x TOOL Search QA check target=fake_plugin_tool_17. ok"),
            Some(Directive::Check("fake_plugin_tool_17".into()))
        );
        assert_eq!(
            find_directive("tool search qa check target=a\ntool search qa failure target=b"),
            Some(Directive::Failure("b".into()))
        );
        assert_eq!(find_directive("tool search qa check target= "), None);
        let with_args = r#"tool search qa check target=get-sum args={"a":1,"b":2} then stop"#;
        assert_eq!(
            find_directive(with_args),
            Some(Directive::Check("get-sum".into()))
        );
        assert_eq!(directive_args(with_args), Some(json!({"a": 1, "b": 2})));
        assert_eq!(directive_args("tool search qa check target=x"), None);
        assert_eq!(
            directive_args("tool search qa check target=x args=[1]"),
            None
        );
        assert_eq!(
            directive_args(&format!("{with_args}\ntool search qa failure target=x")),
            None
        );
        assert_eq!(find_directive("hello"), None);
    }

    #[test]
    fn declared_by_nested_tools_or_whole_word_instructions() {
        let tools =
            json!([{"type": "function", "function": {"name": "deep_tool"}}, {"name": "flat"}]);
        let tools = DeclaredNames::from_value(&tools);
        assert!(is_declared("deep_tool", &tools, ""));
        assert!(is_declared("flat", &tools, ""));
        assert!(!is_declared(
            "tool_search",
            &tools,
            "use tool_search_code here"
        ));
        assert!(is_declared(
            "tool_search",
            &DeclaredNames::default(),
            "use tool_search, then call"
        ));
        let too_deep = DeclaredNames::from_value(&json!([[[[[[[{"name": "hidden"}]]]]]]]));
        assert!(!is_declared("hidden", &too_deep, ""));
    }

    #[test]
    fn quote_collapses_and_cuts() {
        assert_eq!(quote(" a \n b "), "a b");
        let long = "é".repeat(700);
        assert_eq!(quote(&long).chars().count(), QUOTE_LIMIT + 1);
    }

    #[test]
    fn candidate_id_reads_inside_the_envelope() {
        let wrapped = "NOTICE\n<<<EXTERNAL_UNTRUSTED_CONTENT id=\"ab\">>>\nSource: API\n---\n\
                       [{\"id\":\"client:client:t\",\"name\":\"t\"}]\n\
                       <<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"ab\">>>";
        assert_eq!(candidate_id(wrapped, "t"), Some("client:client:t".into()));
        let forged = wrapped.replace(
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"ab",
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"zz",
        );
        assert_eq!(candidate_id(&forged, "t"), None);
    }

    /// A request declaring `tools` whose input is the check directive and then, when given, a
    /// `tool_search` call answered by `search_output`.
    #[test]
    fn a_code_mode_surface_gets_one_exec_cell_then_wait_or_the_answer() {
        // exec alone is the shell: the check path calls the target directly.
        let (parsed, declared) = request(&["exec", "fake_plugin_tool_17"], None);
        let d = decide(&parsed, &declared, None);
        assert_eq!(d.planned_tool_name.as_deref(), Some("fake_plugin_tool_17"));
        let (parsed, declared) = request(&["exec", "wait", "openclaw"], None);
        let d = decide(&parsed, &declared, None);
        assert_eq!(
            d.reply,
            Reply::ToolCall {
                name: "exec".into(),
                arguments: code_mode_args("fake_plugin_tool_17", &normal_args()),
            }
        );
        let code = d.planned_tool_args.unwrap()["code"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            code.contains("catalog.search(\"fake_plugin_tool_17\"")
                && code.contains("hit.describe()")
        );
        let answer = |output: &str| {
            let (mut parsed, declared) = request(&["exec", "wait"], None);
            parsed.tool_outputs.push(ToolOutput {
                call_id: Some("c1".into()),
                tool_name: Some("exec".into()),
                text: output.to_string(),
            });
            decide(&parsed, &declared, None).reply
        };
        assert_eq!(
            answer(r#"{"status":"waiting","runId":"cm-run-4","telemetry":{}}"#),
            Reply::ToolCall {
                name: "wait".into(),
                arguments: json!({ "runId": "cm-run-4" })
            }
        );
        let done = r#"{"status":"completed","value":{"tool":"fake_plugin_tool_17","result":{"status":"ok","tool":"fake_plugin_tool_17"}}}"#;
        assert_eq!(
            answer(done),
            Reply::Text("FAKE_PLUGIN_OK fake_plugin_tool_17".into())
        );
        // The neighbour's details: not the target, so no success.
        let wrong = done.replacen(
            "\"tool\":\"fake_plugin_tool_17\"}",
            "\"tool\":\"fake_plugin_tool_18\"}",
            1,
        );
        assert!(matches!(answer(&wrong), Reply::Text(t) if t.starts_with(GAVE_UP_MARKER)));
    }

    fn request(tools: &[&str], search_output: Option<&str>) -> (ParsedInput, DeclaredNames) {
        let mut input = vec![json!({"type": "message", "role": "user",
            "content": "tool search qa check target=fake_plugin_tool_17"})];
        if let Some(output) = search_output {
            input.push(json!({"type": "function_call", "call_id": "c1", "name": "tool_search", "arguments": "{}"}));
            input.push(json!({"type": "function_call_output", "call_id": "c1", "output": output}));
        }
        let tools: Vec<Value> = tools
            .iter()
            .map(|n| json!({"type": "function", "name": n}))
            .collect();
        let body = json!({"input": input, "tools": tools});
        let parsed = super::super::input::parse_value(&body).unwrap();
        (parsed, DeclaredNames::from_value(&body["tools"]))
    }

    #[test]
    fn the_check_path_calls_the_dispatcher_the_request_declares() {
        let found = r#"[{"id":"openclaw:p:fake_plugin_tool_17","name":"fake_plugin_tool_17"}]"#;
        for dispatcher in ["tool_call", "dispatch_action"] {
            let tools = ["tool_search", "tool_describe", dispatcher];
            let (parsed, declared) = request(&tools, None);
            let first = decide(&parsed, &declared, None);
            assert_eq!(
                first.reply,
                Reply::ToolCall {
                    name: "tool_search".into(),
                    arguments: json!({"query": "fake_plugin_tool_17", "limit": 1})
                }
            );
            let (parsed, declared) = request(&tools, Some(found));
            let second = decide(&parsed, &declared, None);
            assert_eq!(
                second.reply,
                Reply::ToolCall {
                    name: dispatcher.into(),
                    arguments: json!({"id": "openclaw:p:fake_plugin_tool_17",
                                      "args": {"marker": "normal"}})
                }
            );
            assert_eq!(
                second.planned_tool_name.as_deref(),
                Some("fake_plugin_tool_17")
            );
            assert_eq!(second.planned_wire_tool_name.as_deref(), Some(dispatcher));
        }
    }

    #[test]
    fn a_call_envelope_is_read_for_its_tool_and_result() {
        let details = r#"{"tool":{"id":"openclaw:p:fake_plugin_tool_17","name":"fake_plugin_tool_17"},
                          "result":{"details":{"status":"ok","text":"FAKE_PLUGIN_OK"}}}"#;
        assert_eq!(
            call_envelope(details),
            Some(CallEnvelope {
                tool: Some("fake_plugin_tool_17".into()),
                result: r#"{"details":{"status":"ok","text":"FAKE_PLUGIN_OK"}}"#.into()
            })
        );
        let named = r#"{"tool":"fake_plugin_tool_17","result":"FAKE_PLUGIN_OK"}"#;
        assert_eq!(
            call_envelope(named).and_then(|e| e.tool),
            Some("fake_plugin_tool_17".into())
        );
        assert_eq!(
            call_envelope(r#"{"status":"error","tool":"x","error":"e"}"#),
            None
        );
        // The envelope of another tool, even with the marker, is not the target's success.
        let other = r#"{"tool":{"name":"fake_plugin_tool_01"},"result":"FAKE_PLUGIN_OK fake_plugin_tool_17"}"#;
        let mut parsed = request(&["dispatch_action"], None).0;
        parsed.tool_outputs.push(ToolOutput {
            call_id: Some("c2".into()),
            tool_name: Some("dispatch_action".into()),
            text: other.into(),
        });
        let decided = decide(&parsed, &DeclaredNames::default(), None);
        assert_eq!(decided.outcome, Outcome::GaveUp);
        parsed.tool_outputs.last_mut().unwrap().text = details.into();
        let decided = decide(&parsed, &DeclaredNames::default(), None);
        assert_eq!(
            decided.reply,
            Reply::Text("FAKE_PLUGIN_OK fake_plugin_tool_17".into())
        );
    }

    #[test]
    fn candidate_id_finds_exact_name() {
        let output =
            r#"[{"id":"openclaw:p:other","name":"other"},{"id":"openclaw:p:t","name":"t"}]"#;
        assert_eq!(candidate_id(output, "t"), Some("openclaw:p:t".into()));
        assert_eq!(candidate_id("not json", "t"), None);
    }
}
