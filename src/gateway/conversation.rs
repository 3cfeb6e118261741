//! A session's conversation as the gateway keeps it, and how a request continues it.
//!
//! The gateway is stateful per session key: it keeps the finished turns as the provider saw them
//! (the messages as the profile shaped them, every call and output, the final answers — so the
//! next turn's requests repeat their bytes and a prompt cache holds), the id of the last response, and — when a turn ended by handing a
//! client tool back — that unfinished turn with its pending calls. A request's `input` holds new
//! items; the one exception is the client-tool loop's "full history" form:
//!
//! - `previous_response_id`, when given, must name the session's last response; then every
//!   `input` item is new.
//! - Without it, a request that answers a pending call may carry the caller's copy of the
//!   conversation first: the items before the first `function_call_output` that answers a
//!   pending call are that copy and are not appended again.
//! - From there on, each `function_call_output` must answer a pending call (once), every pending
//!   call must be answered, and messages after the outputs are new input. A `function_call` is
//!   never new input (the model makes calls, the caller does not).
//! - While calls are pending, a request that answers none of them is refused with the pending
//!   call ids; without pending calls, an output or a call is refused.
//!
//! What the model then sees: the unfinished turn as the provider saw it, each answer as the
//! `function_call_output` of its call (a call handed back from code mode, which the model never
//! saw as its own call, is first shown as a `function_call` of the client tool), then the new
//! messages.

use serde_json::{json, Value};
use thiserror::Error;

/// One item of a request's `input`, as the gateway reads it.
#[derive(Debug, Clone, PartialEq)]
pub enum InputItem {
    /// A message (user, assistant, developer or system), as a Responses `message` item.
    Message(Value),
    /// A `function_call` (accepted only as the caller's copy of a handed-back call).
    FunctionCall { call_id: String, name: String },
    /// A `function_call_output`: the caller's result for a handed-back call (a string or parts).
    FunctionCallOutput { call_id: String, output: Value },
}

/// A client tool call handed back to the caller, waiting for its output.
#[derive(Debug, Clone, PartialEq)]
pub struct HandedBack {
    /// The `call_id` the caller got and must answer.
    pub call_id: String,
    /// The client tool.
    pub name: String,
    pub tool_id: String,
    /// The arguments as JSON text.
    pub arguments: String,
    /// In code mode: the `tool_search_code` call whose code called the tool.
    pub parent: Option<String>,
}

/// A turn that ended in a hand-off.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PendingTurn {
    /// The caller's messages of the turn so far (remembered when it finishes).
    pub caller_items: Vec<Value>,
    /// Everything the provider saw after the history: messages, calls and their outputs.
    pub provider_items: Vec<Value>,
    /// The calls handed back, in order.
    pub calls: Vec<HandedBack>,
}

/// One session's conversation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Conversation {
    /// Finished turns as provider items: the caller's messages and the final answers.
    pub history: Vec<Value>,
    /// The id of the last response of this session.
    pub last_response_id: Option<String>,
    pub pending: Option<PendingTurn>,
}

/// A pending call answered by the caller.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub call: HandedBack,
    /// The caller's output as sent (a string or parts).
    pub output: Value,
}

/// How a request starts its turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnStart {
    /// The pending turn this request continues.
    pub resumed: Option<PendingTurn>,
    /// The answers to its pending calls, in the order the calls were made.
    pub answers: Vec<Answer>,
    /// New messages of the caller.
    pub messages: Vec<Value>,
}

/// Why a request cannot continue the session (HTTP 400; `param` names the field).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ContinuationError {
    #[error("previous_response_id {0:?} is not the last response of this session")]
    NotLastResponse(String),
    #[error("input[{index}]: function_call_output for call_id {call_id:?} answers no pending client tool call of this session")]
    NotPending { index: usize, call_id: String },
    #[error("input[{index}]: function_call_output for call_id {call_id:?} is given twice")]
    Duplicate { index: usize, call_id: String },
    #[error("input[{index}]: a function_call ({call_id:?}) is not input; send the function_call_output of a handed-back call")]
    CallAsInput { index: usize, call_id: String },
    #[error("the session is waiting for the output of client tool call(s) {0}; send a function_call_output item for each")]
    Awaiting(String),
    #[error("input has no function_call_output for call_id {call_id:?} (client tool {name})")]
    Unanswered { call_id: String, name: String },
}

impl ContinuationError {
    /// The request field at fault.
    pub fn param(&self) -> String {
        match self {
            ContinuationError::NotLastResponse(_) => "previous_response_id".into(),
            ContinuationError::NotPending { index, .. }
            | ContinuationError::Duplicate { index, .. }
            | ContinuationError::CallAsInput { index, .. } => format!("input[{index}]"),
            ContinuationError::Awaiting(_) | ContinuationError::Unanswered { .. } => "input".into(),
        }
    }
}

impl Conversation {
    /// Reads a request against this conversation (see the module docs for the rules).
    pub fn start(
        &self,
        input: &[InputItem],
        previous_response_id: Option<&str>,
    ) -> Result<TurnStart, ContinuationError> {
        if let Some(id) = previous_response_id {
            if self.last_response_id.as_deref() != Some(id) {
                return Err(ContinuationError::NotLastResponse(id.to_string()));
            }
        }
        let Some(pending) = &self.pending else {
            return fresh_turn(input);
        };
        let pending_ids: Vec<&str> = pending.calls.iter().map(|c| c.call_id.as_str()).collect();
        let answers_a_call = |item: &InputItem| matches!(item, InputItem::FunctionCallOutput { call_id, .. } if pending_ids.contains(&call_id.as_str()));
        let Some(first) = input.iter().position(answers_a_call) else {
            let ids: Vec<String> = pending
                .calls
                .iter()
                .map(|c| format!("{} ({})", c.call_id, c.name))
                .collect();
            return Err(ContinuationError::Awaiting(ids.join(", ")));
        };
        // With previous_response_id every item is new; without it, what precedes the first
        // answer is the caller's copy of the conversation.
        let from = if previous_response_id.is_some() {
            0
        } else {
            first
        };
        let (outputs, messages) = new_items(input, from, &pending_ids)?;
        let answers = pending
            .calls
            .iter()
            .map(|call| {
                let output = outputs
                    .iter()
                    .find(|(id, _)| *id == call.call_id)
                    .map(|(_, output)| output.clone())
                    .ok_or_else(|| ContinuationError::Unanswered {
                        call_id: call.call_id.clone(),
                        name: call.name.clone(),
                    })?;
                Ok(Answer {
                    call: call.clone(),
                    output,
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(TurnStart {
            resumed: Some(pending.clone()),
            answers,
            messages,
        })
    }
}

/// A request when nothing is pending: messages only.
fn fresh_turn(input: &[InputItem]) -> Result<TurnStart, ContinuationError> {
    let (_, messages) = new_items(input, 0, &[])?;
    Ok(TurnStart {
        resumed: None,
        answers: Vec::new(),
        messages,
    })
}

/// Outputs by call id, and messages.
type NewItems = (Vec<(String, Value)>, Vec<Value>);

/// The outputs and messages of `input` from `from` on: each output must answer one of
/// `pending` (once), a call is never input.
fn new_items(
    input: &[InputItem],
    from: usize,
    pending: &[&str],
) -> Result<NewItems, ContinuationError> {
    let mut outputs: Vec<(String, Value)> = Vec::new();
    let mut messages = Vec::new();
    for (index, item) in input.iter().enumerate().skip(from) {
        match item {
            InputItem::Message(message) => messages.push(message.clone()),
            InputItem::FunctionCall { call_id, .. } => {
                return Err(ContinuationError::CallAsInput {
                    index,
                    call_id: call_id.clone(),
                })
            }
            InputItem::FunctionCallOutput { call_id, output } => {
                let call_id = call_id.clone();
                if !pending.contains(&call_id.as_str()) {
                    return Err(ContinuationError::NotPending { index, call_id });
                }
                if outputs.iter().any(|(id, _)| *id == call_id) {
                    return Err(ContinuationError::Duplicate { index, call_id });
                }
                outputs.push((call_id, output.clone()));
            }
        }
    }
    Ok((outputs, messages))
}

impl TurnStart {
    /// What the provider sees after the history: the resumed turn, each answer (behind a
    /// `function_call` of the client tool when the model never saw the call itself), the new
    /// messages.
    pub fn provider_items(&self) -> Vec<Value> {
        let mut items = self
            .resumed
            .as_ref()
            .map(|p| p.provider_items.clone())
            .unwrap_or_default();
        for answer in &self.answers {
            let call = &answer.call;
            if call.parent.is_some() {
                items.push(json!({ "type": "function_call", "call_id": call.call_id, "name": call.name, "arguments": call.arguments }));
            }
            items.push(json!({ "type": "function_call_output", "call_id": call.call_id, "output": answer.output }));
        }
        items.extend(self.messages.iter().cloned());
        items
    }

    /// The caller's messages of the whole turn (the resumed part and this request's).
    pub fn caller_items(&self) -> Vec<Value> {
        let mut items = self
            .resumed
            .as_ref()
            .map(|p| p.caller_items.clone())
            .unwrap_or_default();
        items.extend(self.messages.iter().cloned());
        items
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> InputItem {
        InputItem::Message(json!({"type": "message", "role": "user", "content": text}))
    }

    fn output(call_id: &str, text: &str) -> InputItem {
        InputItem::FunctionCallOutput {
            call_id: call_id.into(),
            output: json!(text),
        }
    }

    fn waiting(parent: Option<&str>) -> Conversation {
        Conversation {
            history: vec![],
            last_response_id: Some("resp_1".into()),
            pending: Some(PendingTurn {
                caller_items: vec![json!({"role": "user", "content": "go"})],
                provider_items: vec![
                    json!({"role": "user", "content": "go"}),
                    json!({"type": "function_call", "call_id": "call_a", "name": "pick", "arguments": "{}"}),
                ],
                calls: vec![HandedBack {
                    call_id: "call_a".into(),
                    name: "pick".into(),
                    tool_id: "client:client:pick".into(),
                    arguments: "{}".into(),
                    parent: parent.map(str::to_string),
                }],
            }),
        }
    }

    #[test]
    fn full_history_skips_the_callers_copy_and_appends_answers_then_messages() {
        let copy = vec![
            user("go"),
            InputItem::FunctionCall {
                call_id: "call_a".into(),
                name: "pick".into(),
            },
            output("call_a", "picked"),
            user("thanks"),
        ];
        let start = waiting(None).start(&copy, None).unwrap();
        assert_eq!(
            start.provider_items()[2..],
            [
                json!({"type": "function_call_output", "call_id": "call_a", "output": "picked"}),
                json!({"type": "message", "role": "user", "content": "thanks"}),
            ]
        );
        assert_eq!(start.caller_items().len(), 2);
    }

    #[test]
    fn previous_response_id_must_be_the_last_and_everything_after_is_new() {
        let conversation = waiting(Some("call_parent"));
        let start = conversation
            .start(&[output("call_a", "picked")], Some("resp_1"))
            .unwrap();
        let items = start.provider_items();
        assert_eq!(
            items[2]["type"], "function_call",
            "code-mode calls are shown first"
        );
        assert_eq!(items[3]["output"], "picked");
        assert_eq!(
            conversation.start(&[output("call_a", "x")], Some("resp_0")),
            Err(ContinuationError::NotLastResponse("resp_0".into()))
        );
        let err = conversation
            .start(&[user("before"), output("call_a", "x")], Some("resp_1"))
            .unwrap();
        assert_eq!(
            err.messages.len(),
            1,
            "with previous_response_id nothing is a copy"
        );
    }

    #[test]
    fn refusals_name_the_item() {
        let conversation = waiting(None);
        assert!(matches!(
            conversation.start(&[user("hi")], None),
            Err(ContinuationError::Awaiting(ids)) if ids == "call_a (pick)"
        ));
        assert_eq!(
            conversation.start(&[output("call_a", "x"), output("call_b", "y")], None),
            Err(ContinuationError::NotPending {
                index: 1,
                call_id: "call_b".into()
            })
        );
        assert_eq!(
            conversation.start(&[output("call_a", "x"), output("call_a", "y")], None),
            Err(ContinuationError::Duplicate {
                index: 1,
                call_id: "call_a".into()
            })
        );
        assert_eq!(
            Conversation::default().start(&[output("call_a", "x")], None),
            Err(ContinuationError::NotPending {
                index: 0,
                call_id: "call_a".into()
            })
        );
        let mut two = waiting(None);
        let mut second = two.pending.as_ref().unwrap().calls[0].clone();
        second.call_id = "call_b".into();
        two.pending.as_mut().unwrap().calls.push(second);
        assert_eq!(
            two.start(&[output("call_a", "x")], None),
            Err(ContinuationError::Unanswered {
                call_id: "call_b".into(),
                name: "pick".into()
            })
        );
    }
}
