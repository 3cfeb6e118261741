//! A real OpenClaw transcript, translated into the project's session records
//! ([`crate::protocol::record`]). Only what the transcript says is carried over: what it does
//! not record (how many schemas the model saw up front, the source of a direct call of an
//! OpenClaw tool) stays `None`, so the claims report it as missing rather than guessing it.
//! Results the product wraps in its untrusted-content envelope (an MCP tool's) are read inside it.

use serde_json::Value;

use super::release::BridgedCallShape;
use super::transcript::CompiledTools;
use crate::catalog::ToolSource;
use crate::config::{Bridge, ControlRole};
use crate::protocol::envelope;
use crate::protocol::record::{
    BridgedResult, ClientToolCallRecord, DirectResult, MessageRecord, Role, SessionRecord,
    SurfaceRecord, TelemetryCounts, ToolCallRecord, ToolResultRecord, COUNTED_FROM_CODE_RESULT,
};

/// Text of a content array (`[{type: "text", text}]`) or a plain string.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn text(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_string()
}

/// Arguments as JSON text (OpenClaw records them as an object).
fn arguments_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn source(value: &Value) -> Option<ToolSource> {
    serde_json::from_value(value.clone()).ok()
}

/// How many searches a batch `tool_search` result ran: its groups (`{results: [{query, …}]}`);
/// `None` for a single search's result.
fn batch_groups(result: &Value) -> Option<u64> {
    let groups = result.get("results")?.as_array()?;
    groups
        .iter()
        .all(|g| g.get("query").is_some())
        .then_some(groups.len() as u64)
}

/// A control tool's result text as JSON: the text itself, or the content of the product's
/// untrusted-content envelope (it wraps what an MCP tool answered); `Null` when neither parses.
fn result_json(output: &str) -> Value {
    serde_json::from_str(output)
        .or_else(|_| serde_json::from_str(envelope::unwrap(output).unwrap_or_default()))
        .unwrap_or(Value::Null)
}

/// The source a direct call's result names: the product records an MCP tool's server and tool
/// in the result's `details` (`{mcpServer, mcpTool}`); an OpenClaw or client tool's result says
/// nothing about where it came from.
fn direct_source(details: &Value) -> Option<ToolSource> {
    let named = |key: &str| details[key].as_str().is_some_and(|s| !s.is_empty());
    (named("mcpServer") && named("mcpTool")).then_some(ToolSource::Mcp)
}

/// What the product writes as the result of a client tool it hands back to the caller: not a
/// run, a delegation (`{status: "pending", message: "Tool execution delegated to client"}`).
const DELEGATED: &str = "Tool execution delegated to client";

fn is_delegated(details: &Value) -> bool {
    details["status"] == "pending" && details["message"] == DELEGATED
}

/// How a delegated client tool was reached.
enum Route<'a> {
    /// The model called it directly.
    Direct,
    /// Through `tool_call`, naming this catalogue id (when the call was found).
    ToolCall(Option<&'a str>),
    /// By the code of this `tool_search_code` call.
    Code(&'a str),
}

/// The hand-off record for a delegated client tool. The product's transcript does not repeat the
/// catalogue id there; it is the id the model's `tool_call` named when it went through Tool
/// Search, else the id the product gives every client tool (`client:client:<name>`).
fn hand_off(call_id: &str, name: &str, route: Route<'_>) -> SessionRecord {
    let named_id = match route {
        Route::ToolCall(named) => named,
        Route::Direct | Route::Code(_) => None,
    };
    SessionRecord::ClientToolCall(ClientToolCallRecord {
        tool_call_id: call_id.to_string(),
        tool_name: name.to_string(),
        tool_id: named_id
            .map(str::to_string)
            .unwrap_or_else(|| format!("client:client:{name}")),
        source: ToolSource::Client,
        via_tool_call: matches!(route, Route::ToolCall(_)),
        parent_tool_call_id: match route {
            Route::Code(parent) => Some(parent.to_string()),
            Route::Direct | Route::ToolCall(_) => None,
        },
    })
}

/// The call a `tool_search_code` run made for the model, with the input the product recorded for
/// it (what the embedded gateway logs as a synthetic `toolCall`).
fn code_call(details: &Value, parent: &str) -> SessionRecord {
    SessionRecord::Message(MessageRecord {
        role: Role::Assistant,
        synthetic: true,
        text: None,
        tool_call: Some(ToolCallRecord {
            id: text(&details["toolCallId"]),
            name: text(&details["toolName"]),
            arguments: arguments_text(&details["input"]),
            parent_tool_call_id: Some(parent.to_string()),
            tool_id: None,
            source: Some(ToolSource::Client),
        }),
    })
}

/// Whether `parent` is a `tool_search_code` call of the model's, already in `records`.
fn is_code_call(records: &[SessionRecord], parent: &str, bridge: &Bridge) -> bool {
    records
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter_map(|m| m.tool_call.as_ref())
        .any(|c| c.id == parent && bridge.role(&c.name) == Some(ControlRole::Code))
}

/// Counters of the structured controls, when no `tool_search_code` telemetry says better.
#[derive(Default)]
struct Counts {
    searches: u64,
    describes: u64,
    calls: u64,
}

/// OpenClaw transcript events → session records (`message`, `toolResult`, `telemetry`, and a
/// `surface`: the catalogue size when a `tool_search_code` result reported it, and the tools the
/// model saw up front when the trajectory lists them whole — or why it cannot say).
/// `bridge` names the release's bridge tools (`tool_call` on 2026.9.6, `dispatch_action` upstream);
/// `shape` says where the transcript records the call the bridge made (its release's
/// `[transcript] bridged_call`).
pub fn translate_transcript(
    events: &[Value],
    compiled: Option<&CompiledTools>,
    bridge: &Bridge,
    shape: BridgedCallShape,
) -> Vec<SessionRecord> {
    let mut records = Vec::new();
    let mut counts = Counts::default();
    let mut code_telemetry: Option<TelemetryCounts> = None;
    let mut bridged_source = None;
    // The catalogue ids the model's `tool_call`s named, by call id (for hand-offs through it).
    let mut called_ids: Vec<(String, String)> = Vec::new();
    for event in events.iter().filter(|e| e["type"] == "message") {
        let message = &event["message"];
        match message["role"].as_str() {
            Some("user") => records.push(SessionRecord::Message(MessageRecord::text(
                Role::User,
                content_text(&message["content"]),
            ))),
            Some("assistant") => {
                let parts = message["content"].as_array().map(Vec::as_slice);
                for part in parts.unwrap_or(&[]) {
                    if part["type"] == "toolCall" && part["name"] == bridge.call.as_str() {
                        if let Some(id) = part["arguments"]["id"].as_str() {
                            called_ids.push((text(&part["id"]), id.to_string()));
                        }
                    }
                    match part["type"].as_str() {
                        Some("toolCall") => records.push(SessionRecord::Message(
                            MessageRecord::tool_call(ToolCallRecord {
                                id: text(&part["id"]),
                                name: text(&part["name"]),
                                arguments: arguments_text(&part["arguments"]),
                                parent_tool_call_id: None,
                                tool_id: None,
                                source: None,
                            }),
                        )),
                        Some("text") => records.push(SessionRecord::Message(MessageRecord::text(
                            Role::Assistant,
                            text(&part["text"]),
                        ))),
                        _ => {}
                    }
                }
            }
            Some("toolResult") if is_delegated(&message["details"]) => records.push(hand_off(
                &text(&message["toolCallId"]),
                &text(&message["toolName"]),
                Route::Direct,
            )),
            Some("toolResult") => {
                let name = text(&message["toolName"]);
                let output = content_text(&message["content"]);
                let parsed = result_json(&output);
                let is_error = message["isError"].as_bool().unwrap_or(false);
                let call_id = text(&message["toolCallId"]);
                let enveloped = match (shape, bridge.role(&name)) {
                    (BridgedCallShape::Envelope, Some(ControlRole::Call)) => {
                        let named = named_by(&called_ids, &call_id);
                        enveloped_call(&parsed, &call_id, is_error, named)
                    }
                    _ => None,
                };
                // Code Mode's `wait` resumes a cell: its result carries the run's telemetry
                // (cumulative) and value as `exec`'s does.
                let resume = bridge.is_code_mode() && name == crate::config::code_mode::WAIT;
                let role = match resume {
                    true => Some(ControlRole::Code),
                    false => bridge.role(&name),
                };
                match role {
                    // A batch runs one search per query (the product's runtime counts each):
                    // its result has one group per query.
                    Some(ControlRole::Search) => {
                        counts.searches += batch_groups(&parsed).unwrap_or(1)
                    }
                    Some(ControlRole::Describe) => counts.describes += 1,
                    Some(ControlRole::Call) => {
                        counts.calls += 1;
                        bridged_source = source(&parsed["tool"]["source"]);
                    }
                    Some(ControlRole::Code) => {
                        code_telemetry = serde_json::from_value(parsed["telemetry"].clone()).ok();
                        // tool_search_code's value names the target as `{tool: {source}}`;
                        // a Code Mode cell returns what it likes: the handle's `source` beside
                        // the target's name (`{tool, source, result}`), else nothing.
                        let value = &parsed["value"];
                        bridged_source =
                            source(&value["tool"]["source"]).or_else(|| source(&value["source"]));
                    }
                    None => {}
                }
                records.push(SessionRecord::ToolResult(ToolResultRecord::Direct(
                    DirectResult {
                        tool_call_id: call_id,
                        tool_name: name,
                        is_error,
                        source: direct_source(&message["details"]),
                        output,
                    },
                )));
                records.extend(enveloped);
            }
            Some("custom")
                if message["customType"] == "openclaw.nested-tool.v1"
                    && is_delegated(&message["details"]["result"]["details"]) =>
            {
                let d = &message["details"];
                let parent = text(&d["parentToolCallId"]);
                let named = named_by(&called_ids, &parent);
                let via_code = is_code_call(&records, &parent, bridge);
                let route = match named {
                    Some(id) => Route::ToolCall(Some(id)),
                    None if via_code => Route::Code(&parent),
                    None => Route::ToolCall(None),
                };
                if via_code {
                    records.push(code_call(d, &parent));
                }
                records.push(hand_off(
                    &text(&d["toolCallId"]),
                    &text(&d["toolName"]),
                    route,
                ));
            }
            Some("custom") if message["customType"] == "openclaw.nested-tool.v1" => {
                let d = &message["details"];
                records.push(SessionRecord::ToolResult(ToolResultRecord::Bridged(
                    BridgedResult {
                        tool_call_id: text(&d["toolCallId"]),
                        tool_name: text(&d["toolName"]),
                        parent_tool_call_id: text(&d["parentToolCallId"]),
                        tool_id: None,
                        source: None,
                        source_name: None,
                        is_error: d["isError"].as_bool().unwrap_or(false),
                        output: d["result"].clone(),
                    },
                )));
            }
            _ => {}
        }
    }
    // A structured `tool_call` result names the target's source in its envelope; so does a
    // `tool_search_code` value. Attach it to the bridged result it describes.
    if let Some(found) = bridged_source {
        let last_bridged = records.iter_mut().rev().find_map(|r| match r {
            SessionRecord::ToolResult(ToolResultRecord::Bridged(b)) => Some(b),
            _ => None,
        });
        if let Some(bridged) = last_bridged {
            bridged.source = Some(found);
        }
    }
    records.insert(
        0,
        SessionRecord::Surface(SurfaceRecord {
            catalog_size: code_telemetry.as_ref().and_then(|t| t.catalog_size),
            notes: code_telemetry
                .as_ref()
                .map(|_| vec![COUNTED_FROM_CODE_RESULT.to_string()]),
            ..surface_of(compiled)
        }),
    );
    let telemetry = code_telemetry.unwrap_or(TelemetryCounts {
        catalog_size: None,
        sources: None,
        search_count: counts.searches,
        describe_count: counts.describes,
        call_count: counts.calls,
    });
    records.push(SessionRecord::Telemetry { telemetry });
    records
}

/// The catalogue id the model's `tool_call` with id `call` named, among `called_ids`.
fn named_by<'a>(called_ids: &'a [(String, String)], call: &str) -> Option<&'a str> {
    called_ids
        .iter()
        .find(|(id, _)| id == call)
        .map(|(_, named)| named.as_str())
}

/// The bridged call a `tool_call` result's `{ tool, result }` envelope records, where the
/// release keeps no record of its own for it ([`BridgedCallShape::Envelope`]): the target the
/// envelope names, under the `tool_call` that made it, with what it answered — or, when the
/// target is a client tool the product handed back (its result the pending delegation), that
/// hand-off through the catalogue id `named` by the model's call. `None` when the result is no
/// such envelope (an error text, say).
fn enveloped_call(
    parsed: &Value,
    parent: &str,
    is_error: bool,
    named: Option<&str>,
) -> Option<SessionRecord> {
    let tool = parsed.get("tool")?;
    let result = parsed.get("result")?;
    let name = tool.get("name")?.as_str()?;
    let call_id = format!("{parent}/{name}");
    if is_delegated(&result["details"]) {
        return Some(hand_off(&call_id, name, Route::ToolCall(named)));
    }
    Some(SessionRecord::ToolResult(ToolResultRecord::Bridged(
        BridgedResult {
            tool_call_id: call_id,
            tool_name: name.to_string(),
            parent_tool_call_id: parent.to_string(),
            tool_id: tool["id"].as_str().map(str::to_string),
            source: source(&tool["source"]),
            source_name: tool["sourceName"].as_str().map(str::to_string),
            is_error,
            output: result.clone(),
        },
    )))
}

/// The surface a trajectory's list of the tools sent tells: the count when the list is whole,
/// else why the log cannot say.
fn surface_of(compiled: Option<&CompiledTools>) -> SurfaceRecord {
    let unrecorded = |why: String| SurfaceRecord {
        unrecorded: Some(why),
        ..SurfaceRecord::default()
    };
    match compiled {
        Some(CompiledTools::Listed {
            listed,
            truncated: 0,
        }) => SurfaceRecord {
            declared_tool_count: Some(*listed),
            ..SurfaceRecord::default()
        },
        Some(CompiledTools::Listed { listed, truncated }) => unrecorded(format!(
            "trajectory context.compiled lists {listed} tools, {truncated} of them \"[Truncated]\""
        )),
        Some(CompiledTools::Truncated) => unrecorded(
            "trajectory context.compiled stores the tools sent (providerVisibleTools) as \"[Truncated]\""
                .to_string(),
        ),
        None => unrecorded("no trajectory context.compiled event".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// 2026.5.12's transcript (as its tools lane wrote it): the bridged call exists only as the
    /// `tool_call` result's `{ tool, result }` envelope. Read as its release says, that is one
    /// bridged call of the target under the `tool_call`; read as 2026.8 and later are, none.
    #[test]
    fn an_envelope_release_s_bridged_call_is_read_from_the_bridge_s_result() {
        let envelope = json!({
            "tool": { "id": "openclaw:fixture:fake_plugin_tool_17", "source": "openclaw",
                      "sourceName": "fixture", "name": "fake_plugin_tool_17" },
            "result": { "content": [{ "type": "text", "text": "FAKE_PLUGIN_OK fake_plugin_tool_17" }],
                        "details": { "status": "ok", "tool": "fake_plugin_tool_17" } }
        });
        let message = |m: Value| json!({ "type": "message", "message": m });
        let events = [
            message(json!({ "role": "user", "content": [{ "type": "text", "text": "go" }] })),
            message(
                json!({ "role": "assistant", "content": [{ "type": "toolCall", "id": "c2",
                "name": "tool_call", "arguments": { "id": "openclaw:fixture:fake_plugin_tool_17",
                "args": { "marker": "m" } } }] }),
            ),
            message(
                json!({ "role": "toolResult", "toolName": "tool_call", "toolCallId": "c2",
                "isError": false,
                "content": [{ "type": "text", "text": serde_json::to_string_pretty(&envelope).unwrap() }] }),
            ),
            message(
                json!({ "role": "toolResult", "toolName": "tool_call", "toolCallId": "c3",
                "isError": true, "content": [{ "type": "text", "text": "Unknown tool id" }] }),
            ),
        ];
        let bridged = |shape| -> Vec<BridgedResult> {
            translate_transcript(&events, None, &Bridge::spec(), shape)
                .into_iter()
                .filter_map(|r| match r {
                    SessionRecord::ToolResult(ToolResultRecord::Bridged(b)) => Some(b),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(
            bridged(BridgedCallShape::Envelope),
            [BridgedResult {
                tool_call_id: "c2/fake_plugin_tool_17".into(),
                tool_name: "fake_plugin_tool_17".into(),
                parent_tool_call_id: "c2".into(),
                tool_id: Some("openclaw:fixture:fake_plugin_tool_17".into()),
                source: Some(ToolSource::Openclaw),
                source_name: Some("fixture".into()),
                is_error: false,
                output: envelope["result"].clone(),
            }]
        );
        assert_eq!(bridged(BridgedCallShape::NestedTool), []);
    }

    /// 2026.5.12 hands a client tool reached through `tool_call` back inside the envelope: its
    /// result is the pending delegation. That is a hand-off through the id the model named,
    /// not a run of the tool.
    #[test]
    fn an_envelope_s_pending_delegation_is_a_hand_off() {
        let envelope = json!({
            "tool": { "id": "client:client:pick_file", "source": "client", "name": "pick_file" },
            "result": { "content": [{ "type": "text", "text": "{}" }],
                        "details": { "status": "pending", "tool": "pick_file", "message": DELEGATED } }
        });
        let message = |m: Value| json!({ "type": "message", "message": m });
        let events = [
            message(
                json!({ "role": "assistant", "content": [{ "type": "toolCall", "id": "c1",
                "name": "tool_call", "arguments": { "id": "client:client:pick_file", "args": {} } }] }),
            ),
            message(
                json!({ "role": "toolResult", "toolName": "tool_call", "toolCallId": "c1",
                "isError": false, "content": [{ "type": "text", "text": envelope.to_string() }] }),
            ),
        ];
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::Envelope);
        let hand_offs: Vec<&SessionRecord> = records
            .iter()
            .filter(|r| matches!(r, SessionRecord::ClientToolCall(_)))
            .collect();
        assert_eq!(
            hand_offs,
            [&SessionRecord::ClientToolCall(ClientToolCallRecord {
                tool_call_id: "c1/pick_file".into(),
                tool_name: "pick_file".into(),
                tool_id: "client:client:pick_file".into(),
                source: ToolSource::Client,
                via_tool_call: true,
                parent_tool_call_id: None,
            })]
        );
        assert!(!records
            .iter()
            .any(|r| matches!(r, SessionRecord::ToolResult(ToolResultRecord::Bridged(_)))));
    }

    #[test]
    fn a_batch_search_counts_one_search_per_query() {
        let result = |text: &str| {
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "tool_search",
                "toolCallId": "c1", "isError": false, "content": [{"type": "text", "text": text}]}})
        };
        let batch = json!({"results": [{"query": "a", "candidates": []}, {"query": "b", "candidates": []}]});
        let single = json!([{"id": "openclaw:p:a", "name": "a"}]);
        let events = [result(&batch.to_string()), result(&single.to_string())];
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
        let searches = records.iter().find_map(|r| match r {
            SessionRecord::Telemetry { telemetry } => Some(telemetry.search_count),
            _ => None,
        });
        assert_eq!(searches, Some(3));
    }

    #[test]
    fn a_delegated_client_tool_is_a_hand_off_not_a_result() {
        let pending = json!({"status": "pending", "tool": "pick_file", "message": "Tool execution delegated to client"});
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "tool_call", "arguments": {"id": "client:client:pick_file", "args": {"marker": "m"}}}]}}),
            json!({"type": "message", "message": {"role": "custom", "customType": "openclaw.nested-tool.v1",
                "details": {"toolCallId": "n1", "toolName": "pick_file", "parentToolCallId": "c1",
                "result": {"content": [], "details": pending.clone()}}}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "pick_file", "toolCallId": "c2",
                "isError": false, "details": pending, "content": [{"type": "text", "text": "{}"}]}}),
        ];
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
        let hand_offs: Vec<&ClientToolCallRecord> = records
            .iter()
            .filter_map(|r| match r {
                SessionRecord::ClientToolCall(c) => Some(c),
                _ => None,
            })
            .collect();
        assert_eq!(hand_offs.len(), 2);
        assert_eq!(
            (hand_offs[0].tool_id.as_str(), hand_offs[0].via_tool_call),
            ("client:client:pick_file", true)
        );
        assert_eq!(hand_offs[1].tool_call_id, "c2");
        assert!(!hand_offs[1].via_tool_call);
        assert!(records.iter().all(|r| r.as_tool_result().is_none()));
    }

    #[test]
    fn a_client_tool_called_by_code_is_a_hand_off_with_the_code_call() {
        let pending = json!({"status": "pending", "tool": "pick_file", "message": "Tool execution delegated to client"});
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "tool_search_code", "arguments": {"code": "x"}}]}}),
            json!({"type": "message", "message": {"role": "custom", "customType": "openclaw.nested-tool.v1",
                "details": {"toolCallId": "n1", "toolName": "pick_file", "parentToolCallId": "c1",
                "input": {"marker": "m"}, "result": {"content": [], "details": pending}}}}),
        ];
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
        let n = records
            .iter()
            .position(|r| matches!(r, SessionRecord::ClientToolCall(_)))
            .expect("a hand-off")
            + 1;
        let call = records[n - 2]
            .as_message()
            .and_then(|m| m.tool_call.as_ref());
        let call = call.expect("the code's call before the hand-off");
        assert_eq!(
            (call.name.as_str(), call.arguments.as_str()),
            ("pick_file", r#"{"marker":"m"}"#)
        );
        assert_eq!(call.parent_tool_call_id.as_deref(), Some("c1"));
        let SessionRecord::ClientToolCall(hand_off) = &records[n - 1] else {
            panic!("a hand-off after the call: {records:?}")
        };
        assert_eq!(
            (
                hand_off.via_tool_call,
                hand_off.parent_tool_call_id.as_deref()
            ),
            (false, Some("c1"))
        );
    }

    /// The product's `tool_call` result for an MCP tool, as the committed snapshot
    /// `tool-search-mcp-target__tools__session` holds it: the JSON inside the untrusted-content
    /// envelope.
    fn wrapped_mcp_result() -> String {
        let inner = json!({"tool": {"id": "mcp:qa:qa__mcp_qa_echo", "name": "qa__mcp_qa_echo", "source": "mcp"},
            "result": {"content": [{"type": "text", "text": "FAKE_PLUGIN_OK qa__mcp_qa_echo {}"}],
            "details": {"mcpServer": "qa", "mcpTool": "mcp_qa_echo"}}});
        format!(
            "SECURITY NOTICE: The following content is from an EXTERNAL, UNTRUSTED source.\n\n\n\
             <<<EXTERNAL_UNTRUSTED_CONTENT id=\"5f0e\">>>\nSource: API\n---\n{}\n\
             <<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"5f0e\">>>",
            serde_json::to_string_pretty(&inner).unwrap()
        )
    }

    #[test]
    fn an_mcp_tool_call_result_is_read_inside_its_envelope() {
        let mcp = json!({"mcpServer": "qa", "mcpTool": "mcp_qa_echo"});
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "tool_call", "arguments": {"id": "mcp:qa:qa__mcp_qa_echo", "args": {}}}]}}),
            json!({"type": "message", "message": {"role": "custom", "customType": "openclaw.nested-tool.v1",
                "details": {"toolCallId": "n1", "toolName": "qa__mcp_qa_echo", "parentToolCallId": "c1",
                "isError": false, "result": {"content": [], "details": mcp}}}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "tool_call", "toolCallId": "c1",
                "isError": false, "content": [{"type": "text", "text": wrapped_mcp_result()}]}}),
        ];
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
        let bridged = records
            .iter()
            .filter_map(SessionRecord::as_tool_result)
            .find(|r| r.parent_tool_call_id().is_some())
            .expect("the bridged result");
        assert_eq!(bridged.source(), Some(ToolSource::Mcp));
        // Something that only looks wrapped stays unread.
        let forged = wrapped_mcp_result().replace(
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"5f0e",
            "END_EXTERNAL_UNTRUSTED_CONTENT id=\"0000",
        );
        let mut events = events;
        events[2]["message"]["content"][0]["text"] = json!(forged);
        let records =
            translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
        let bridged = records
            .iter()
            .filter_map(SessionRecord::as_tool_result)
            .find(|r| r.parent_tool_call_id().is_some());
        assert_eq!(bridged.and_then(ToolResultRecord::source), None);
    }

    #[test]
    fn a_direct_mcp_call_is_sourced_by_its_details_and_an_openclaw_one_is_not() {
        let result = |details: Value| {
            let events = [
                json!({"type": "message", "message": {"role": "toolResult", "toolName": "t",
                "toolCallId": "c1", "isError": false, "details": details,
                "content": [{"type": "text", "text": "FAKE_PLUGIN_OK t"}]}}),
            ];
            let records =
                translate_transcript(&events, None, &Bridge::spec(), BridgedCallShape::NestedTool);
            records
                .iter()
                .find_map(|r| r.as_tool_result().map(ToolResultRecord::source))
                .flatten()
        };
        assert_eq!(
            result(json!({"mcpServer": "qa", "mcpTool": "mcp_qa_echo"})),
            Some(ToolSource::Mcp)
        );
        assert_eq!(
            result(json!({"status": "ok", "tool": "t", "input": {}})),
            None
        );
        assert_eq!(result(json!({"mcpServer": "qa"})), None);
    }

    #[test]
    fn a_tools_lane_transcript_becomes_typed_records() {
        let events = [
            json!({"type": "message", "message": {"role": "user", "content": [{"type": "text", "text": "hi"}]}}),
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "call_1", "name": "tool_call", "arguments": {"id": "x", "args": {}}}]}}),
            json!({"type": "message", "message": {"role": "custom", "customType": "openclaw.nested-tool.v1",
                "details": {"toolCallId": "n1", "toolName": "fake_plugin_tool_17", "parentToolCallId": "call_1",
                "isError": false, "result": {"ok": true}}}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "tool_call", "toolCallId": "call_1",
                "isError": false, "content": [{"type": "text", "text": "{\"tool\": {\"source\": \"openclaw\"}}"}]}}),
        ];
        let compiled = CompiledTools::Listed {
            listed: 64,
            truncated: 55,
        };
        let all = translate_transcript(
            &events,
            Some(&compiled),
            &Bridge::spec(),
            BridgedCallShape::NestedTool,
        );
        let SessionRecord::Surface(surface) = &all[0] else {
            panic!("a surface first")
        };
        assert_eq!(surface.declared_tool_count, None);
        assert_eq!(
            surface.unrecorded.as_deref(),
            Some("trajectory context.compiled lists 64 tools, 55 of them \"[Truncated]\"")
        );
        let whole = CompiledTools::Listed {
            listed: 12,
            truncated: 0,
        };
        let counted = translate_transcript(
            &events,
            Some(&whole),
            &Bridge::spec(),
            BridgedCallShape::NestedTool,
        );
        assert!(
            matches!(&counted[0], SessionRecord::Surface(s) if s.declared_tool_count == Some(12))
        );
        let sent_truncated = translate_transcript(
            &events,
            Some(&CompiledTools::Truncated),
            &Bridge::spec(),
            BridgedCallShape::NestedTool,
        );
        assert!(matches!(&sent_truncated[0], SessionRecord::Surface(s)
            if s.declared_tool_count.is_none() && s.unrecorded.as_deref() == Some(
                "trajectory context.compiled stores the tools sent (providerVisibleTools) as \"[Truncated]\"")));
        let records = &all[1..];
        let kinds: Vec<&str> = records.iter().map(SessionRecord::kind).collect();
        assert_eq!(
            kinds,
            [
                "message",
                "message",
                "toolResult",
                "toolResult",
                "telemetry"
            ]
        );
        let SessionRecord::Message(call) = &records[1] else {
            panic!("a message")
        };
        assert_eq!(
            call.tool_call.as_ref().unwrap().arguments,
            r#"{"id":"x","args":{}}"#
        );
        let bridged = records[2].as_tool_result().unwrap();
        assert_eq!(bridged.parent_tool_call_id(), Some("call_1"));
        assert_eq!(bridged.source(), Some(ToolSource::Openclaw));
        assert_eq!(
            records[4],
            SessionRecord::Telemetry {
                telemetry: TelemetryCounts {
                    call_count: 1,
                    ..TelemetryCounts::default()
                }
            }
        );
    }

    /// A release that renames its bridge (upstream's `dispatch_action`) is read by its own names:
    /// the call is counted and its source found; by the spec's names it would count nothing.
    #[test]
    fn the_bridge_is_read_by_the_release_s_names() {
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "dispatch_action", "arguments": {"id": "plugin:x", "args": {}}}]}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "tool_search", "toolCallId": "c0",
                "isError": false, "content": [{"type": "text", "text": "[]"}]}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "dispatch_action", "toolCallId": "c1",
                "isError": false, "content": [{"type": "text", "text": "{\"tool\": {\"source\": \"mcp\"}}"}]}}),
        ];
        let upstream = Bridge {
            call: "dispatch_action".into(),
            code: None,
            ..Bridge::spec()
        };
        let telemetry = |bridge: &Bridge| {
            translate_transcript(&events, None, bridge, BridgedCallShape::NestedTool)
                .into_iter()
                .find_map(|r| match r {
                    SessionRecord::Telemetry { telemetry } => Some(telemetry),
                    _ => None,
                })
        };
        let counted = telemetry(&upstream).expect("telemetry");
        assert_eq!((counted.search_count, counted.call_count), (1, 1));
        assert_eq!(telemetry(&Bridge::spec()).map(|t| t.call_count), Some(0));
    }

    /// A Code Mode turn as 2026.9.6 records it (captured): the model's `exec`, the cell's nested
    /// call as an `openclaw.nested-tool.v1` entry under it, and the `exec` result whose telemetry
    /// alone counts the searches and describes. Read with the Code Mode lane's bridge table
    /// (`exec` in the code role), the counts are the telemetry's and the nested call is bridged
    /// under the `exec`; read with the release's own table, `exec` is the shell tool and
    /// nothing was searched.
    #[test]
    fn a_code_mode_exec_is_the_code_bridge_only_on_a_code_mode_lane() {
        let result = json!({"status": "completed", "replaySafe": false,
            "telemetry": {"catalogSize": 77, "sources": {"openclaw": 77, "mcp": 0, "client": 0},
                "counterScope": "x", "searchCount": 3, "describeCount": 1, "callCount": 1,
                "visibleTools": ["exec", "wait"]},
            "output": [], "value": {"tool": "fake_plugin_tool_17", "source": "openclaw",
                "result": {"status": "ok", "tool": "fake_plugin_tool_17"}}});
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "call_1|fc_1", "name": "exec",
                 "arguments": {"code": "return 1;"}}]}}),
            json!({"type": "message", "message": {"role": "custom",
                "customType": "openclaw.nested-tool.v1", "content": "",
                "details": {"parentToolCallId": "call_1|fc_1",
                    "toolCallId": "tool_search_code:call_1_fc_1:fake_plugin_tool_17:1",
                    "toolName": "fake_plugin_tool_17", "input": {"marker": "mine"},
                    "result": {"content": [{"type": "text", "text": "FAKE_PLUGIN_OK"}],
                               "details": {"status": "ok"}},
                    "isError": false}}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "exec",
                "toolCallId": "call_1|fc_1", "isError": false,
                "content": [{"type": "text", "text": result.to_string()}]}}),
        ];
        let read = |bridge: &Bridge| {
            translate_transcript(&events, None, bridge, BridgedCallShape::NestedTool)
        };
        let telemetry = |records: &[SessionRecord]| {
            records.iter().find_map(|r| match r {
                SessionRecord::Telemetry { telemetry } => Some(telemetry.clone()),
                _ => None,
            })
        };
        let code_mode = Bridge::code_mode();
        let records = read(&code_mode);
        let counted = telemetry(&records).expect("telemetry");
        assert_eq!(
            (
                counted.search_count,
                counted.describe_count,
                counted.call_count,
                counted.catalog_size
            ),
            (3, 1, 1, Some(77))
        );
        let bridged: Vec<&BridgedResult> = records
            .iter()
            .filter_map(|r| match r {
                SessionRecord::ToolResult(ToolResultRecord::Bridged(b)) => Some(b),
                _ => None,
            })
            .collect();
        assert_eq!(bridged.len(), 1);
        assert_eq!(bridged[0].tool_name, "fake_plugin_tool_17");
        assert_eq!(bridged[0].parent_tool_call_id, "call_1|fc_1");
        // The cell returned the handle's source: the bridged call's source.
        assert_eq!(bridged[0].source, Some(ToolSource::Openclaw));
        assert!(is_code_call(&records, "call_1|fc_1", &code_mode));

        let shell = read(&Bridge::spec());
        let counted = telemetry(&shell).expect("telemetry");
        assert_eq!(
            (
                counted.search_count,
                counted.describe_count,
                counted.catalog_size
            ),
            (0, 0, None)
        );
        assert!(!is_code_call(&shell, "call_1|fc_1", &Bridge::spec()));
    }

    /// A cell that waited: `exec` answers `waiting` (nothing done yet), `wait` resumes it to the
    /// call; the counts are the `wait` result's (cumulative), read only on a Code Mode table.
    #[test]
    fn a_wait_result_carries_the_resumed_cell_s_counts() {
        let result = |status: &str, n: u64| {
            json!({"status": status, "runId": "r1", "telemetry": {"catalogSize": 77,
                "searchCount": n, "describeCount": 0, "callCount": n}})
            .to_string()
        };
        let events = [
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"code": "x"}}]}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "exec",
                "toolCallId": "c1", "isError": false,
                "content": [{"type": "text", "text": result("waiting", 0)}]}}),
            json!({"type": "message", "message": {"role": "assistant", "content": [
                {"type": "toolCall", "id": "c2", "name": "wait", "arguments": {"runId": "r1"}}]}}),
            json!({"type": "message", "message": {"role": "toolResult", "toolName": "wait",
                "toolCallId": "c2", "isError": false,
                "content": [{"type": "text", "text": result("completed", 1)}]}}),
        ];
        let counts = |bridge: &Bridge| {
            translate_transcript(&events, None, bridge, BridgedCallShape::NestedTool)
                .into_iter()
                .find_map(|r| match r {
                    SessionRecord::Telemetry { telemetry } => {
                        Some((telemetry.search_count, telemetry.call_count))
                    }
                    _ => None,
                })
        };
        assert_eq!(counts(&Bridge::code_mode()), Some((1, 1)));
        // The release's own table with `exec` as code but no Code Mode `wait`: the waiting
        // result's counts are the last it reads.
        let exec_only = Bridge {
            code: Some("exec".into()),
            ..Bridge::spec()
        };
        assert_eq!(counts(&exec_only), Some((0, 0)));
    }
}
