//! The parent side of one run, shared by every backend. An isolated runtime reports
//! [`Event`]s (bridge calls, console lines, the end); the driver runs the bridge futures on the
//! caller's tokio runtime, answers with [`Reply`]s, and enforces what the runtime cannot be
//! trusted to enforce itself: the wall-clock deadline, the output cap and the pending-call cap.

use std::sync::Arc;

use futures::stream::{FuturesUnordered, StreamExt};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::{Bridge, CodeLimits, CodeRun, SandboxError};

/// One bridge operation, validated.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum BridgeRequest {
    Search { query: String, options: Value },
    Describe { id: String },
    Call { id: String, args: Value },
}

/// What an isolated runtime tells its parent.
#[derive(Debug)]
pub(crate) enum Event {
    /// A bridge call the code awaited; `request` is `Err` when the arguments are invalid.
    Call {
        id: u64,
        request: Result<BridgeRequest, String>,
    },
    /// One `console.*` line, already formatted.
    Log(String),
    /// The end of the run: the returned value as JSON text, or why it failed.
    Done(Result<String, SandboxError>),
}

/// The answer to one bridge call: `payload` is the value as JSON text, or the error message.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub(crate) struct Reply {
    pub id: u64,
    pub ok: bool,
    pub payload: String,
}

impl Event {
    /// A bridge call from its operation name and its JSON-encoded argument array.
    pub(crate) fn call(id: u64, op: &str, args_json: &str) -> Self {
        Event::Call {
            id,
            request: parse_request(op, args_json),
        }
    }

    /// A console line; `warn` and `error` lines carry their level as a prefix.
    pub(crate) fn log(level: &str, text: &str) -> Self {
        match level {
            "warn" | "error" => Event::Log(format!("[{level}] {text}")),
            _ => Event::Log(text.to_string()),
        }
    }

    /// The end of the run as the prelude (or the node runner: `output`) reports it
    /// (`kind`, `payload`).
    pub(crate) fn done(kind: &str, payload: &str, limits: &CodeLimits) -> Self {
        Event::Done(match kind {
            "ok" => Ok(payload.to_string()),
            "syntax" => Err(SandboxError::Syntax(payload.to_string())),
            "value" => Err(SandboxError::BadValue(payload.to_string())),
            "pending" => Err(SandboxError::TooManyPendingCalls {
                limit: limits.max_pending_calls,
            }),
            "output" => Err(SandboxError::OutputTooLarge {
                limit: limits.output_bytes,
            }),
            "thrown" if is_out_of_memory(payload) => Err(SandboxError::OutOfMemory {
                limit: limits.memory_bytes,
            }),
            "thrown" => Err(SandboxError::Thrown(payload.to_string())),
            "crashed" => Err(SandboxError::Crashed(payload.to_string())),
            other => Err(SandboxError::Crashed(format!(
                "unknown end of run `{other}`"
            ))),
        })
    }
}

fn is_out_of_memory(message: &str) -> bool {
    let lower = message.to_ascii_lowercase();
    lower.contains("out of memory") || lower.contains("heap out of memory")
}

fn parse_request(op: &str, args_json: &str) -> Result<BridgeRequest, String> {
    let args: Vec<Value> =
        serde_json::from_str(args_json).map_err(|e| format!("bad bridge arguments: {e}"))?;
    let mut args = args.into_iter();
    let first = args.next().unwrap_or(Value::Null);
    let second = args.next().unwrap_or(Value::Null);
    match op {
        "search" => {
            let query = expect_string(first, "openclaw.tools.search(query, options): query")?;
            if !(second.is_null() || second.is_object()) {
                return Err("openclaw.tools.search(query, options): options must be an object like { limit: 5 }".into());
            }
            Ok(BridgeRequest::Search {
                query,
                options: second,
            })
        }
        "describe" => Ok(BridgeRequest::Describe {
            id: expect_string(first, "openclaw.tools.describe(id): id")?,
        }),
        "call" => {
            let id = expect_string(first, "openclaw.tools.call(id, args): id")?;
            if !second.is_object() {
                return Err("openclaw.tools.call(id, args): args must be an object".into());
            }
            Ok(BridgeRequest::Call { id, args: second })
        }
        other => Err(format!("unknown bridge operation `{other}`")),
    }
}

fn expect_string(value: Value, what: &str) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        _ => Err(format!("{what} must be a string")),
    }
}

type CallFuture = std::pin::Pin<Box<dyn std::future::Future<Output = Reply> + Send>>;

fn start_call(bridge: &Arc<dyn Bridge>, id: u64, request: BridgeRequest) -> CallFuture {
    let fut = match request {
        BridgeRequest::Search { query, options } => bridge.search(query, options),
        BridgeRequest::Describe { id } => bridge.describe(id),
        BridgeRequest::Call { id, args } => bridge.call(id, args),
    };
    Box::pin(async move { reply(id, fut.await) })
}

fn reply(id: u64, result: Result<Value, String>) -> Reply {
    match result {
        Ok(value) => Reply {
            id,
            ok: true,
            payload: value.to_string(),
        },
        Err(message) => Reply {
            id,
            ok: false,
            payload: message,
        },
    }
}

/// Output accounting: logs plus the value must stay within `limit` bytes.
struct Budget {
    used: usize,
    limit: usize,
}

impl Budget {
    fn take(&mut self, bytes: usize) -> Result<(), SandboxError> {
        self.used = self.used.saturating_add(bytes);
        if self.used > self.limit {
            Err(SandboxError::OutputTooLarge { limit: self.limit })
        } else {
            Ok(())
        }
    }
}

/// Milliseconds of a limit, for error texts.
pub(crate) fn millis(limits: &CodeLimits) -> u64 {
    u64::try_from(limits.timeout.as_millis()).unwrap_or(u64::MAX)
}

/// Serve one run until it ends, fails or passes `deadline`. `send_reply` hands a bridge
/// answer to the runtime and returns false once the runtime is gone. Dropping the returned
/// future drops every in-flight bridge future.
pub(crate) async fn drive<F>(
    mut events: mpsc::Receiver<Event>,
    mut send_reply: F,
    bridge: Arc<dyn Bridge>,
    limits: &CodeLimits,
    deadline: Instant,
) -> Result<CodeRun, SandboxError>
where
    F: FnMut(Reply) -> bool,
{
    let mut inflight: FuturesUnordered<CallFuture> = FuturesUnordered::new();
    let mut budget = Budget {
        used: 0,
        limit: limits.output_bytes,
    };
    let mut logs = Vec::new();
    let sleep = tokio::time::sleep_until(deadline);
    tokio::pin!(sleep);
    loop {
        tokio::select! {
            biased;
            () = &mut sleep => return Err(SandboxError::Timeout { ms: millis(limits) }),
            Some(answer) = inflight.next(), if !inflight.is_empty() => {
                // A runtime that is gone ends with its own event (or the channel closing).
                let _delivered = send_reply(answer);
            }
            event = events.recv() => match event {
                None => return Err(SandboxError::Crashed("the runtime ended without a result".into())),
                Some(Event::Log(line)) => {
                    budget.take(line.len())?;
                    logs.push(line);
                }
                Some(Event::Call { id, request: Err(message) }) => {
                    let _delivered = send_reply(Reply { id, ok: false, payload: message });
                }
                Some(Event::Call { id, request: Ok(request) }) => {
                    if Instant::now() >= deadline {
                        return Err(SandboxError::Timeout { ms: millis(limits) });
                    }
                    if inflight.len() >= limits.max_pending_calls {
                        return Err(SandboxError::TooManyPendingCalls { limit: limits.max_pending_calls });
                    }
                    inflight.push(start_call(&bridge, id, request));
                }
                Some(Event::Done(result)) => return finish(result, budget, logs),
            }
        }
    }
}

fn finish(
    result: Result<String, SandboxError>,
    mut budget: Budget,
    logs: Vec<String>,
) -> Result<CodeRun, SandboxError> {
    let json = result?;
    budget.take(json.len())?;
    let value = serde_json::from_str(&json)
        .map_err(|e| SandboxError::Crashed(format!("the runtime returned invalid JSON: {e}")))?;
    Ok(CodeRun { value, logs })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_valid_requests() {
        assert_eq!(
            parse_request("search", r#"["weather",{"limit":2}]"#),
            Ok(BridgeRequest::Search {
                query: "weather".into(),
                options: json!({"limit": 2})
            })
        );
        assert_eq!(
            parse_request("search", r#"["weather",null]"#),
            Ok(BridgeRequest::Search {
                query: "weather".into(),
                options: Value::Null
            })
        );
        assert_eq!(
            parse_request("describe", r#"["a:b:c"]"#),
            Ok(BridgeRequest::Describe { id: "a:b:c".into() })
        );
        assert_eq!(
            parse_request("call", r#"["x",{"marker":"normal"}]"#),
            Ok(BridgeRequest::Call {
                id: "x".into(),
                args: json!({"marker": "normal"})
            })
        );
    }

    #[test]
    fn rejects_invalid_requests() {
        assert_eq!(
            parse_request("describe", "[42]"),
            Err("openclaw.tools.describe(id): id must be a string".to_string())
        );
        assert_eq!(
            parse_request("call", r#"["x",[1]]"#),
            Err("openclaw.tools.call(id, args): args must be an object".to_string())
        );
        assert_eq!(
            parse_request("exec", "[]"),
            Err("unknown bridge operation `exec`".to_string())
        );
        assert!(parse_request("search", "not json").is_err());
    }

    #[test]
    fn maps_ends_of_runs() {
        let limits = CodeLimits::default();
        assert!(matches!(Event::done("ok", "1", &limits), Event::Done(Ok(ref v)) if v == "1"));
        assert!(matches!(
            Event::done("thrown", "InternalError: out of memory", &limits),
            Event::Done(Err(SandboxError::OutOfMemory { limit: 67_108_864 }))
        ));
        assert!(matches!(
            Event::done("pending", "128", &limits),
            Event::Done(Err(SandboxError::TooManyPendingCalls { limit: 128 }))
        ));
    }

    #[test]
    fn prefixes_warn_and_error_lines() {
        assert!(matches!(Event::log("log", "hi"), Event::Log(ref l) if l == "hi"));
        assert!(matches!(Event::log("warn", "hi"), Event::Log(ref l) if l == "[warn] hi"));
        assert!(matches!(Event::log("error", "hi"), Event::Log(ref l) if l == "[error] hi"));
    }
}
