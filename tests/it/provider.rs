//! The mock OpenAI provider driven over real loopback HTTP.

use serde_json::{json, Value};
use toolsearch_qa::protocol::usage::count_tokens;
use toolsearch_qa::provider::model::{code_args, denied_args};
use toolsearch_qa::provider::{MockProvider, ProviderError, ProviderOptions, ScriptedTurn};

use crate::common::{assert_openai_response, assert_openai_stream, TEXT_REPLY_EVENTS};

const TARGET: &str = "fake_plugin_tool_17";
const TARGET_ID: &str = "openclaw:tool-search-e2e-fixture:fake_plugin_tool_17";

fn user(text: &str) -> Value {
    json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})
}

fn call_item(call_id: &str, name: &str, arguments: &Value) -> Value {
    json!({"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments.to_string()})
}

fn output_item(call_id: &str, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

fn function(name: &str) -> Value {
    json!({"type": "function", "name": name, "description": "d", "parameters": {"type": "object"}})
}

fn body(tools: &[&str], input: Vec<Value>) -> Value {
    let tools: Vec<Value> = tools.iter().map(|name| function(name)).collect();
    json!({"model": "openclaw/qa", "input": input, "tools": tools, "stream": false})
}

fn check_prompt() -> Value {
    user(&format!("tool search qa check target={TARGET}"))
}

async fn post_raw(provider: &MockProvider, raw: &str) -> (u16, String) {
    let response = reqwest::Client::new()
        .post(format!("{}/responses", provider.base_url()))
        .header("content-type", "application/json")
        .body(raw.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.text().await.unwrap())
}

async fn post(provider: &MockProvider, body: &Value) -> Value {
    let (status, text) = post_raw(provider, &body.to_string()).await;
    assert_eq!(status, 200, "{text}");
    let response = serde_json::from_str(&text).unwrap();
    assert_openai_response(&response);
    response
}

async fn get(provider: &MockProvider, path: &str) -> (u16, Value) {
    let url = provider.base_url().replace("/v1", "") + path;
    let response = reqwest::get(url).await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// The single output item, asserted to be a function call; returns (name, parsed arguments).
fn called(response: &Value) -> (String, Value) {
    let output = response["output"].as_array().unwrap();
    assert_eq!(output.len(), 1);
    assert_eq!(output[0]["type"], "function_call");
    let arguments = serde_json::from_str(output[0]["arguments"].as_str().unwrap()).unwrap();
    (output[0]["name"].as_str().unwrap().to_string(), arguments)
}

fn text_of(response: &Value) -> String {
    assert_eq!(response["output"][0]["type"], "message");
    response["output"][0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn direct_lane_calls_target_then_reports_success() {
    let provider = MockProvider::start().await.unwrap();
    let first = post(&provider, &body(&[TARGET, "exec"], vec![check_prompt()])).await;
    assert_eq!(
        called(&first),
        (TARGET.to_string(), json!({"marker": "normal"}))
    );
    let call_id = first["output"][0]["call_id"].as_str().unwrap().to_string();
    let result = format!("FAKE_PLUGIN_OK {TARGET} {{\"marker\":\"normal\"}}");
    let input = vec![
        check_prompt(),
        call_item(&call_id, TARGET, &json!({"marker": "normal"})),
        output_item(&call_id, &result),
    ];
    let second = post(&provider, &body(&[TARGET, "exec"], input)).await;
    assert_eq!(text_of(&second), format!("FAKE_PLUGIN_OK {TARGET}"));

    let records = provider.journal().all();
    assert_eq!(records.len(), 2);
    let first_record = serde_json::to_value(&records[0]).unwrap();
    assert_eq!(first_record["cursor"], 1);
    assert_eq!(first_record["requestKind"], "agent-initial");
    assert_eq!(first_record["plannedToolName"], TARGET);
    assert_eq!(first_record["plannedWireToolName"], Value::Null);
    assert_eq!(first_record["plannedToolArgs"], json!({"marker": "normal"}));
    assert_eq!(first_record["outcome"], "tool-call");
    assert_eq!(first_record["toolOutput"], Value::Null);
    let second_record = serde_json::to_value(&records[1]).unwrap();
    assert_eq!(second_record["requestKind"], "tool-continuation");
    assert_eq!(second_record["toolOutput"], result.as_str());
    assert_eq!(second_record["outcome"], "final-text");
    assert_eq!(second_record["plannedToolName"], Value::Null);
}

#[tokio::test]
async fn code_lane_sends_search_and_call_code() {
    let provider = MockProvider::start().await.unwrap();
    let response = post(
        &provider,
        &body(&["tool_search_code"], vec![check_prompt()]),
    )
    .await;
    let (name, arguments) = called(&response);
    assert_eq!(name, "tool_search_code");
    assert_eq!(arguments, code_args(TARGET, &json!({"marker": "normal"})));
    let code = arguments["code"].as_str().unwrap();
    for needle in [
        "openclaw.tools.search(\"fake_plugin_tool_17\", { limit: 1 })",
        "item.name === \"fake_plugin_tool_17\"",
        "throw new Error(\"target tool not found\")",
        "return await openclaw.tools.call(hit.id, {\"marker\":\"normal\"});",
    ] {
        assert!(code.contains(needle), "missing {needle} in {code}");
    }
    let record = provider.journal().last().unwrap();
    assert_eq!(
        record.planned_tool_name.as_deref(),
        Some("tool_search_code")
    );
    assert_eq!(record.planned_wire_tool_name, None);

    let envelope = format!("{{\"ok\":true,\"value\":{{\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"FAKE_PLUGIN_OK {TARGET}\"}}]}}}}}}");
    let input = vec![
        check_prompt(),
        call_item("c1", "tool_search_code", &arguments),
        output_item("c1", &envelope),
    ];
    let done = post(&provider, &body(&["tool_search_code"], input)).await;
    assert_eq!(text_of(&done), format!("FAKE_PLUGIN_OK {TARGET}"));
}

#[tokio::test]
async fn code_lane_error_is_not_retried() {
    let provider = MockProvider::start().await.unwrap();
    let input = vec![
        check_prompt(),
        call_item("c1", "tool_search_code", &json!({"code": "x"})),
        output_item("c1", "Error:  target tool not found\n"),
    ];
    let response = post(&provider, &body(&["tool_search_code"], input)).await;
    assert_eq!(
        text_of(&response),
        format!("TOOL_SEARCH_QA_GAVE_UP {TARGET}: Error: target tool not found")
    );
    assert_eq!(provider.journal().last().unwrap().outcome, "gave-up");
}

#[tokio::test]
async fn tools_lane_searches_then_dispatches_then_answers() {
    let provider = MockProvider::start().await.unwrap();
    let tools = ["tool_call", "tool_describe", "tool_search"];
    let first = post(&provider, &body(&tools, vec![check_prompt()])).await;
    assert_eq!(
        called(&first),
        (
            "tool_search".to_string(),
            json!({"query": TARGET, "limit": 1})
        )
    );

    let hits = serde_json::to_string_pretty(&json!([{"id": TARGET_ID, "source": "openclaw", "name": TARGET, "input": "{ marker: string }"}])).unwrap();
    let mut input = vec![
        check_prompt(),
        call_item("s1", "tool_search", &json!({"query": TARGET, "limit": 1})),
        output_item("s1", &hits),
    ];
    let second = post(&provider, &body(&tools, input.clone())).await;
    let dispatch = json!({"id": TARGET_ID, "args": {"marker": "normal"}});
    assert_eq!(called(&second), ("tool_call".to_string(), dispatch.clone()));
    let record = provider.journal().last().unwrap();
    assert_eq!(record.planned_tool_name.as_deref(), Some(TARGET));
    assert_eq!(record.planned_wire_tool_name.as_deref(), Some("tool_call"));
    assert_eq!(record.planned_tool_args, Some(json!({"marker": "normal"})));

    let envelope = format!("{{\"tool\":{{\"id\":\"{TARGET_ID}\",\"name\":\"{TARGET}\"}},\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"FAKE_PLUGIN_OK {TARGET}\"}}]}}}}");
    input.push(call_item("t1", "tool_call", &dispatch));
    input.push(output_item("t1", &envelope));
    let third = post(&provider, &body(&tools, input)).await;
    assert_eq!(text_of(&third), format!("FAKE_PLUGIN_OK {TARGET}"));
    assert_eq!(provider.journal().cursor(), 3);
}

#[tokio::test]
async fn declared_by_instructions_and_direct_target_wins_over_search() {
    let provider = MockProvider::start().await.unwrap();
    let mut by_instructions = body(&[], vec![check_prompt()]);
    by_instructions["instructions"] = json!("You may use tool_search.");
    let response = post(&provider, &by_instructions).await;
    assert_eq!(called(&response).0, "tool_search");

    let mut partial_word = body(&[], vec![check_prompt()]);
    partial_word["instructions"] = json!("Use tool_search_code_v2 only.");
    let response = post(&provider, &partial_word).await;
    assert_eq!(
        called(&response),
        (TARGET.to_string(), json!({"marker": "normal"}))
    );

    let response = post(
        &provider,
        &body(&["tool_search", TARGET], vec![check_prompt()]),
    )
    .await;
    assert_eq!(called(&response).0, TARGET);
}

#[tokio::test]
async fn failure_directive_sends_invalid_args_and_quotes_the_error() {
    let provider = MockProvider::start().await.unwrap();
    let prompt = user(&format!("tool search qa failure target={TARGET}"));
    let direct = post(&provider, &body(&[TARGET], vec![prompt.clone()])).await;
    assert_eq!(called(&direct), (TARGET.to_string(), denied_args()));

    let tools = ["tool_call", "tool_describe", "tool_search"];
    let dispatched = post(&provider, &body(&tools, vec![prompt.clone()])).await;
    assert_eq!(
        called(&dispatched),
        (
            "tool_call".to_string(),
            json!({"id": TARGET, "args": denied_args()})
        )
    );
    let record = provider.journal().last().unwrap();
    assert_eq!(record.planned_tool_name.as_deref(), Some(TARGET));
    assert_eq!(record.planned_wire_tool_name.as_deref(), Some("tool_call"));

    let code = post(
        &provider,
        &body(&["tool_search_code"], vec![prompt.clone()]),
    )
    .await;
    assert_eq!(called(&code).1, code_args(TARGET, &denied_args()));

    let error = "Invalid input for fake_plugin_tool_17:\n  missing required property marker";
    let input = vec![
        prompt.clone(),
        call_item("c1", "tool_call", &json!({})),
        output_item("c1", error),
    ];
    let report = post(&provider, &body(&tools, input)).await;
    assert_eq!(
        text_of(&report),
        format!("FAKE_PLUGIN_DENIED {TARGET}: Invalid input for fake_plugin_tool_17: missing required property marker")
    );
    assert_eq!(provider.journal().last().unwrap().outcome, "denied-report");

    let input = vec![
        prompt,
        call_item("c1", TARGET, &json!({})),
        output_item("c1", "FAKE_PLUGIN_OK x"),
    ];
    let wrong = post(&provider, &body(&[TARGET], input)).await;
    assert_eq!(
        text_of(&wrong),
        format!("FAKE_PLUGIN_NOT_DENIED {TARGET}: FAKE_PLUGIN_OK x")
    );
}

#[tokio::test]
async fn no_directive_and_string_input_get_plain_text() {
    let provider = MockProvider::start().await.unwrap();
    let response = post(&provider, &json!({"model": "m", "input": "hello there"})).await;
    assert_eq!(
        text_of(&response),
        "Mock provider reply: no tool search directive found."
    );
    assert_eq!(response["model"], "m");
    assert_eq!(response["status"], "completed");
    assert_eq!(response["object"], "response");
    let record = provider.journal().last().unwrap();
    assert_eq!(record.prompt, "hello there");
    assert_eq!(record.outcome, "plain-text");
}

/// Parses an SSE body into (event line, data JSON) frames.
fn frames(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let event = frame
                .lines()
                .find_map(|line| line.strip_prefix("event: "))
                .unwrap()
                .to_string();
            let data = frame
                .lines()
                .find_map(|line| line.strip_prefix("data: "))
                .unwrap();
            (event, serde_json::from_str(data).unwrap())
        })
        .collect()
}

async fn stream(provider: &MockProvider, body: &Value) -> Vec<(String, Value)> {
    let response = reqwest::Client::new()
        .post(format!("{}/responses", provider.base_url()))
        .json(body)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    let text = response.text().await.unwrap();
    assert_openai_stream(&text);
    frames(&text)
}

fn check_framing(frames: &[(String, Value)], expected: &[&str]) {
    let types: Vec<&str> = frames
        .iter()
        .map(|(_, data)| data["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, expected);
    for (index, (event, data)) in frames.iter().enumerate() {
        assert_eq!(data["sequence_number"], index);
        assert_eq!(event, data["type"].as_str().unwrap());
    }
}

#[tokio::test]
async fn streamed_tool_call_and_text_are_framed_in_order() {
    let provider = MockProvider::start().await.unwrap();
    let mut request = body(&[TARGET], vec![check_prompt()]);
    request["stream"] = json!(true);
    let call_frames = stream(&provider, &request).await;
    check_framing(
        &call_frames,
        &[
            "response.created",
            "response.in_progress",
            "response.output_item.added",
            "response.function_call_arguments.delta",
            "response.function_call_arguments.done",
            "response.output_item.done",
            "response.completed",
        ],
    );
    assert_eq!(call_frames[4].1["arguments"], "{\"marker\":\"normal\"}");
    let completed = &call_frames[6].1["response"];
    assert_eq!(completed["status"], "completed");
    assert_eq!(completed["output"][0]["name"], TARGET);
    assert_eq!(completed["output"][0], call_frames[5].1["item"]);

    let text_frames = stream(&provider, &json!({"input": "hi", "stream": true})).await;
    check_framing(&text_frames, &TEXT_REPLY_EVENTS);
    let text = "Mock provider reply: no tool search directive found.";
    assert_eq!(text_frames[4].1["delta"], text);
    assert_eq!(
        text_frames[8].1["response"]["output"][0]["content"][0]["text"],
        text
    );
}

#[tokio::test]
async fn journal_keeps_raw_bytes_and_debug_routes_page_it() {
    let provider = MockProvider::start().await.unwrap();
    let raw = "{ \"instructions\": \"sys é\",\n  \"input\": [{\"role\":\"system\",\"content\":\"rules\"}, {\"role\":\"user\",\"content\":\"one\"}] }";
    assert_eq!(post_raw(&provider, raw).await.0, 200);
    assert_eq!(post_raw(&provider, "{\"input\":\"two\"}").await.0, 200);
    let journal = provider.journal();
    assert_eq!(journal.cursor(), 2);
    let first = &journal.all()[0];
    assert_eq!(first.raw, raw);
    assert_eq!(first.raw_byte_length, raw.len());
    assert_eq!(first.raw_byte_length, 111);
    assert_eq!(first.body["instructions"], "sys é");
    assert_eq!(first.prompt, "one");
    assert_eq!(first.all_input_text, "sys é\nrules\none");

    let (status, all) = get(&provider, "/debug/requests").await;
    assert_eq!(status, 200);
    assert_eq!(all.as_array().unwrap().len(), 2);
    assert_eq!(all[0]["rawByteLength"], 111);
    let (_, after) = get(&provider, "/debug/requests?after=1").await;
    assert_eq!(after.as_array().unwrap().len(), 1);
    assert_eq!(after[0]["cursor"], 2);
    assert_eq!(after[0]["prompt"], "two");
    assert_eq!(journal.since(1).len(), 1);
    assert_eq!(journal.since(2).len(), 0);
    assert_eq!(
        get(&provider, "/debug/request-cursor").await.1,
        json!({"cursor": 2})
    );
    assert_eq!(get(&provider, "/debug/last-request").await.1["cursor"], 2);
    let (status, bad) = get(&provider, "/debug/requests?after=x").await;
    assert_eq!(status, 400);
    assert_eq!(bad["error"]["type"], "invalid_request_error");
}

#[tokio::test]
async fn unknown_routes_and_bad_bodies_are_json_errors() {
    let provider = MockProvider::start().await.unwrap();
    assert_eq!(
        get(&provider, "/debug/last-request").await,
        (200, Value::Null)
    );
    let (status, body) = get(&provider, "/nope").await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        json!({"error": {"message": "no route for GET /nope", "type": "invalid_request_error", "param": null, "code": "not_found"}})
    );
    let (status, body) = get(&provider, "/v1/responses").await;
    assert_eq!(status, 405);
    assert_eq!(
        body,
        json!({"error": {"message": "GET is not allowed on /v1/responses", "type": "invalid_request_error", "param": null, "code": "method_not_allowed"}})
    );
    let (status, text) = post_raw(&provider, "{not json").await;
    assert_eq!(status, 400);
    let error: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(error["error"]["type"], "invalid_request_error");
    assert!(error["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("request body is not valid JSON"));
    let (status, text) = post_raw(&provider, "{\"input\": 5}").await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        json!({"error": {"message": "`input` must be a string or an array of items", "type": "invalid_request_error", "param": "input", "code": null}})
    );
    let records = provider.journal().all();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].outcome, "invalid-request");
    assert_eq!(records[0].raw, "{not json");
    assert_eq!(records[0].body, Value::Null);
    assert_eq!(
        get(&provider, "/healthz").await,
        (200, json!({"ok": true, "status": "ok"}))
    );
    assert_eq!(
        get(&provider, "/v1/models").await.1["data"][0]["id"],
        "mock-openai/qa"
    );
}

#[tokio::test]
async fn same_request_gets_fresh_ids_echoes_and_o200k_usage() {
    let provider = MockProvider::start().await.unwrap();
    let mut request = body(&[TARGET], vec![check_prompt()]);
    request["tool_choice"] = json!({"type": "function", "name": TARGET});
    request["instructions"] = json!("be brief");
    let raw = request.to_string();
    let (_, first) = post_raw(&provider, &raw).await;
    let (_, second) = post_raw(&provider, &raw).await;
    let first: Value = serde_json::from_str(&first).unwrap();
    let second: Value = serde_json::from_str(&second).unwrap();
    assert_openai_response(&first);
    let ids = |r: &Value| {
        [
            r["id"].clone(),
            r["output"][0]["id"].clone(),
            r["output"][0]["call_id"].clone(),
        ]
    };
    for (a, b) in ids(&first).iter().zip(ids(&second).iter()) {
        assert_ne!(a, b, "every reply has its own ids");
    }
    let shape = regex::Regex::new(r"^(resp|fc|call)_[0-9a-f]{16}$").unwrap();
    assert!(ids(&first)
        .iter()
        .all(|id| shape.is_match(id.as_str().unwrap())));
    assert!(first["created_at"].as_u64().unwrap() > 1_700_000_000);
    assert_eq!(
        first["tools"],
        request["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                let mut t = t.clone();
                t["strict"] = Value::Null;
                t
            })
            .collect::<Value>()
    );
    assert_eq!(first["tool_choice"], request["tool_choice"]);
    assert_eq!(first["parallel_tool_calls"], true);
    assert_eq!(first["instructions"], "be brief");
    let input_tokens = count_tokens(&raw).unwrap();
    let output_tokens =
        count_tokens(TARGET).unwrap() + count_tokens("{\"marker\":\"normal\"}").unwrap();
    assert_eq!(
        first["usage"],
        json!({"input_tokens": input_tokens, "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
               "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
               "total_tokens": input_tokens + output_tokens})
    );
    assert_eq!(first["usage"], second["usage"]);
    let (status, bad) = post_raw(
        &provider,
        &json!({"input": "x", "tool_choice": "maybe"}).to_string(),
    )
    .await;
    assert_eq!(status, 400);
    let bad: Value = serde_json::from_str(&bad).unwrap();
    assert_eq!(bad["error"]["param"], "tool_choice");
}

#[tokio::test]
async fn script_replaces_directives_turn_by_turn() {
    let script = vec![
        ScriptedTurn::ToolCall {
            name: "tool_call".into(),
            arguments: json!({"id": "exec", "args": {"command": "ls"}}),
        },
        ScriptedTurn::Text("done".into()),
    ];
    let provider = MockProvider::start_with(ProviderOptions {
        script: Some(script),
        ..ProviderOptions::default()
    })
    .await
    .unwrap();
    let first = post(&provider, &body(&[TARGET], vec![check_prompt()])).await;
    assert_eq!(
        called(&first),
        (
            "tool_call".to_string(),
            json!({"id": "exec", "args": {"command": "ls"}})
        )
    );
    let record = provider.journal().last().unwrap();
    assert_eq!(record.planned_tool_name.as_deref(), Some("exec"));
    assert_eq!(record.planned_wire_tool_name.as_deref(), Some("tool_call"));
    assert_eq!(record.outcome, "scripted-tool-call");

    let mut input = vec![
        check_prompt(),
        call_item("a", "tool_call", &json!({})),
        output_item("a", "r1"),
    ];
    assert_eq!(
        text_of(&post(&provider, &body(&[], input.clone())).await),
        "done"
    );
    input.push(call_item("b", "tool_call", &json!({})));
    input.push(output_item("b", "r2"));
    assert_eq!(
        text_of(&post(&provider, &body(&[], input.clone())).await),
        "SCRIPT_EXHAUSTED"
    );
    assert_eq!(
        provider.journal().last().unwrap().outcome,
        "script-exhausted"
    );
    input.push(user("next question"));
    assert_eq!(
        called(&post(&provider, &body(&[], input)).await).0,
        "tool_call"
    );
}

#[tokio::test]
async fn scripts_by_prompt_pick_the_script_per_user_message() {
    let call = |code: &str| ScriptedTurn::ToolCall {
        name: "tool_search_code".into(),
        arguments: json!({ "code": code }),
    };
    let provider = MockProvider::start_with(ProviderOptions {
        script: Some(vec![ScriptedTurn::Text("default".into())]),
        scripts_by_prompt: vec![
            (
                "batch 1.".into(),
                vec![call("one"), ScriptedTurn::Text("1 done".into())],
            ),
            ("batch 2.".into(), vec![call("two")]),
        ],
        ..ProviderOptions::default()
    })
    .await
    .unwrap();
    let first = post(&provider, &body(&[], vec![user("run batch 1.")])).await;
    assert_eq!(
        called(&first),
        ("tool_search_code".to_string(), json!({ "code": "one" }))
    );
    let mut input = vec![
        user("run batch 1."),
        call_item("a", "tool_search_code", &json!({})),
        output_item("a", "r1"),
    ];
    assert_eq!(
        text_of(&post(&provider, &body(&[], input.clone())).await),
        "1 done"
    );
    input.push(user("now batch 2."));
    assert_eq!(
        called(&post(&provider, &body(&[], input)).await),
        ("tool_search_code".to_string(), json!({ "code": "two" }))
    );
    let other = post(&provider, &body(&[], vec![user("batch 11 is not batch 1")])).await;
    assert_eq!(text_of(&other), "default");
    // A user message the gateway adds after the caller's does not hide the key.
    let wrapped = vec![
        user("[Sun 22:01 UTC] run batch 2."),
        user("internal context"),
    ];
    assert_eq!(
        called(&post(&provider, &body(&[], wrapped)).await),
        ("tool_search_code".to_string(), json!({ "code": "two" }))
    );
}

#[tokio::test]
async fn start_on_reports_a_taken_port_and_binds_loopback() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    match MockProvider::start_on(port).await {
        Err(ProviderError::Bind { port: failed, .. }) => assert_eq!(failed, port),
        Ok(_) => panic!("port {port} was already bound"),
    }
    drop(taken);
    let provider = MockProvider::start_on(port).await.unwrap();
    assert_eq!(provider.base_url(), format!("http://127.0.0.1:{port}/v1"));
}

#[tokio::test]
async fn the_provider_command_follows_a_script_file() {
    use std::io::{BufRead, BufReader};
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.toml");
    std::fs::write(
        &script,
        "[[script]]\ntool = \"tool_search\"\narguments = { query = \"calendar\", limit = 3 }\n\n[[script]]\ntext = \"done\"\n",
    )
    .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("toolsearch-qa"))
        .args(["provider", "--port", "0", "--script"])
        .arg(&script)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .strip_prefix("mock provider listening: ")
        .and_then(|rest| rest.strip_suffix(" (scripted, 2 turns)\n"))
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_string();
    let response = reqwest::Client::new()
        .post(format!("{url}/responses"))
        .json(&json!({"model": "m", "input": "anything"}))
        .send()
        .await
        .unwrap();
    let response: Value = response.json().await.unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        called(&response),
        (
            "tool_search".to_string(),
            json!({"query": "calendar", "limit": 3})
        )
    );

    std::fs::write(&script, "[[script]]\ntool = \"x\"\ntext = \"both\"\n").unwrap();
    let out = assert_cmd::Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["provider", "--script"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "script.toml: step 1: needs either `tool` (with optional `arguments`) or `text`"
        ),
        "{stderr}"
    );
}

/// `POST /v1/messages` over loopback: a BM25 search answered in one message, journaled with its
/// protocol, its billed usage and its reply; a refusal in Anthropic's error shape.
#[tokio::test]
async fn messages_search_is_journaled_with_protocol_usage_and_reply() {
    use toolsearch_qa::provider::native::{billed_input_tokens, Protocol};
    let provider = toolsearch_qa::provider::MockProvider::start()
        .await
        .unwrap();
    let url = format!("{}/messages", provider.base_url());
    let tool = |name: &str, deferred: bool| {
        serde_json::json!({"name": name, "description": "A fake plugin tool.",
            "input_schema": {"type": "object", "properties": {"marker": {"type": "string"}}},
            "defer_loading": deferred})
    };
    let body = serde_json::json!({"model": "m", "max_tokens": 64,
        "messages": [{"role": "user", "content": "tool search qa check target=fake_plugin_tool_17"}],
        "tools": [{"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
                  tool("pick_file", false), tool("fake_plugin_tool_16", true), tool("fake_plugin_tool_17", true)]});
    let http = reqwest::Client::new();
    let response = http.post(&url).json(&body).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let reply = response.text().await.unwrap();
    let message: serde_json::Value = serde_json::from_str(&reply).unwrap();
    let record = provider.journal().last().unwrap();
    assert_eq!(record.protocol, Protocol::AnthropicMessages);
    assert_eq!(record.outcome, "native-search");
    assert_eq!(record.reply.as_deref(), Some(reply.as_str()));
    let billed = billed_input_tokens(Protocol::AnthropicMessages, &record.raw).unwrap();
    assert_eq!(message["usage"]["input_tokens"], billed);
    assert_eq!(record.input_tokens, Some(billed));
    assert_eq!(message["content"][2]["name"], "fake_plugin_tool_17");
    let mut refused = body.clone();
    refused["tools"][0]["defer_loading"] = serde_json::json!(true);
    let response = http.post(&url).json(&refused).send().await.unwrap();
    assert_eq!(response.status().as_u16(), 400);
    let error: serde_json::Value = response.json().await.unwrap();
    assert_eq!(error["type"], "error");
    assert_eq!(error["error"]["type"], "invalid_request_error");
    assert_eq!(
        provider.journal().last().unwrap().outcome,
        "invalid-request"
    );
}

/// What the real APIs refuse, the mock refuses over loopback, each in its provider's status and
/// error shape: an orphan search result and a misspelled `deferLoading` on `POST /v1/messages`,
/// an undeclared `mode` on OpenAI's `tool_search`.
#[tokio::test]
async fn native_refusals_come_in_each_provider_s_error_shape() {
    let provider = toolsearch_qa::provider::MockProvider::start()
        .await
        .unwrap();
    let http = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        let request = http
            .post(format!("{}/{path}", provider.base_url()))
            .json(&body);
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.unwrap())
        }
    };
    let tools = json!([
        {"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"},
        {"name": "pick_file", "input_schema": {"type": "object"}},
        {"name": "fake_plugin_tool_17", "input_schema": {"type": "object"}, "defer_loading": true}]);
    let orphan = json!({"model": "m", "max_tokens": 64, "tools": tools, "messages": [
        {"role": "user", "content": "tool search qa check target=fake_plugin_tool_17"},
        {"role": "assistant", "content": [
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content":
                {"type": "tool_search_tool_search_result",
                 "tool_references": [{"type": "tool_reference", "tool_name": "fake_plugin_tool_17"}]}},
            {"type": "tool_use", "id": "toolu_1", "name": "fake_plugin_tool_17", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]}]});
    assert_eq!(
        post("messages", orphan.clone()).await,
        (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message":
                "messages.1.content.0: `tool_search_tool_result` block answers tool_use_id \"srvtoolu_1\", \
                 but no `server_tool_use` block with that id comes before it in this message"}})
        )
    );
    let mut misspelled = orphan;
    misspelled["messages"] =
        json!([{"role": "user", "content": "tool search qa check target=fake_plugin_tool_17"}]);
    misspelled["tools"][2]["deferLoading"] = json!(true);
    assert_eq!(
        post("messages", misspelled).await,
        (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error",
                "message": "tools.2.custom.deferLoading: Extra inputs are not permitted"}})
        )
    );
    let mode =
        json!({"model": "m", "input": "hi", "tools": [{"type": "tool_search", "mode": "x"}]});
    assert_eq!(
        post("responses", mode).await,
        (
            400,
            json!({"error": {"message": "Unknown parameter: 'tools[0].mode'.",
                "type": "invalid_request_error", "param": "tools[0].mode", "code": "unknown_parameter"}})
        )
    );
    // The two 400s Anthropic's tool search guide spells out, in its words.
    let search = json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25",
        "defer_loading": true});
    let all_deferred = json!({"model": "m", "max_tokens": 64, "tools": [search, tools[2]],
        "messages": [{"role": "user", "content": "hi"}]});
    assert_eq!(
        post("messages", all_deferred).await,
        (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message":
                "All tools have defer_loading set. At least one tool must be non-deferred."}})
        )
    );
    let unknown = json!({"model": "m", "max_tokens": 64, "tools": tools, "messages": [
        {"role": "user", "content": "tool search qa check target=fake_plugin_tool_17"},
        {"role": "assistant", "content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
             "input": {"query": "unknown"}},
            {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1", "content":
                {"type": "tool_search_tool_search_result",
                 "tool_references": [{"type": "tool_reference", "tool_name": "unknown_tool"}]}}]},
        {"role": "user", "content": "go on"}]});
    assert_eq!(
        post("messages", unknown).await,
        (
            400,
            json!({"type": "error", "error": {"type": "invalid_request_error", "message":
                "Tool reference 'unknown_tool' has no corresponding tool definition"}})
        )
    );
    let outcomes: Vec<String> = provider
        .journal()
        .all()
        .iter()
        .map(|r| r.outcome.clone())
        .collect();
    assert_eq!(outcomes, ["invalid-request"; 5]);
}
