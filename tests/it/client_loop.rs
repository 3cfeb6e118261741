//! The client-tool loop, closed on every lane (direct, tools, directory, code): the gateway hands
//! `pick_file` back, the caller answers with a `function_call_output` for its `call_id` — as the
//! full input history, or with `previous_response_id` — and the same session goes on to the
//! model's final answer. Every answer also parses as async-openai's Responses types (the
//! Rust-side shape check; the strict one is the official SDK's, `sdk_conformance.rs`).

use serde_json::{json, Value};
use toolsearch_qa::gateway::RunningGateway;
use toolsearch_qa::protocol::session::read_session_log;
use toolsearch_qa::protocol::sse::decode_stream;
use toolsearch_qa::protocol::usage::count_tokens;
use toolsearch_qa::provider::MockProvider;

use crate::common::{assert_openai_response, assert_openai_stream, start_gateway};

const PROMPT: &str = "tool search qa check target=pick_file";
const CLIENT_RESULT: &str = "FAKE_PLUGIN_OK pick_file {\"marker\":\"normal\"}";
const LANES: [&str; 4] = ["direct", "tools", "directory", "code"];

fn tool_search(lane: &str) -> Value {
    match lane {
        "direct" => json!(false),
        mode => json!({ "mode": mode }),
    }
}

fn pick_file() -> Value {
    json!({ "type": "function", "name": "pick_file", "description": "Let the user pick a file.",
            "parameters": { "type": "object", "properties": { "marker": { "type": "string" } },
                            "required": ["marker"], "additionalProperties": false } })
}

struct Fixture {
    provider: MockProvider,
    gateway: RunningGateway,
    state: tempfile::TempDir,
    http: reqwest::Client,
}

async fn fixture(lane: &str) -> Fixture {
    let provider = MockProvider::start().await.unwrap();
    let config = json!({
        "models": { "providers": { "mock": { "baseUrl": provider.base_url() } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": "qa" }] },
        "tools": { "toolSearch": tool_search(lane) },
        "catalog": { "fakePlugin": { "id": "tool-search-e2e-fixture", "size": 36 }, "coreTools": true },
    });
    let (gateway, state) = start_gateway(&config).await;
    Fixture {
        provider,
        gateway,
        state,
        http: reqwest::Client::new(),
    }
}

impl Fixture {
    /// POSTs a turn in `session`; the status and the response object (decoded from the event
    /// stream when the body asked for one), each checked against async-openai's types.
    async fn post(&self, session: &str, body: Value) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/v1/responses", self.gateway.base_url()))
            .header("x-openclaw-agent", "qa")
            .header("x-openclaw-session-key", session)
            .json(&body)
            .send()
            .await
            .unwrap();
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        if status == 200 && body["stream"] == true {
            assert_openai_stream(&text);
            return (status, decode_stream(&text).unwrap());
        }
        let value: Value = serde_json::from_str(&text).unwrap();
        if status == 200 {
            assert_openai_response(&value);
        }
        (status, value)
    }

    fn session(&self, session: &str) -> Vec<Value> {
        read_session_log(
            &self
                .state
                .path()
                .join(format!("agents/qa/sessions/{session}.jsonl")),
        )
        .unwrap()
    }
}

fn text_of(response: &Value) -> String {
    response["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "message")
        .flat_map(|o| o["content"].as_array().unwrap().iter())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// The single `function_call` of a hand-off answer.
fn handed_back(lane: &str, response: &Value) -> Value {
    let calls: Vec<&Value> = response["output"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|o| o["type"] == "function_call")
        .collect();
    assert_eq!(calls.len(), 1, "{lane}: {response:#}");
    assert_eq!(calls[0]["name"], "pick_file", "{lane}");
    assert_eq!(calls[0]["arguments"], "{\"marker\":\"normal\"}", "{lane}");
    let call_id = calls[0]["call_id"].as_str().unwrap();
    match lane {
        "code" => assert!(
            call_id.starts_with("tool_search_code:call_") && call_id.ends_with(":pick_file:1"),
            "{call_id}"
        ),
        _ => assert!(call_id.starts_with("call_"), "{call_id}"),
    }
    calls[0].clone()
}

fn first_turn(stream: bool) -> Value {
    json!({ "model": "openclaw/qa", "input": PROMPT, "tools": [pick_file()], "stream": stream })
}

fn output_item(call_id: &Value) -> Value {
    json!({ "type": "function_call_output", "call_id": call_id, "output": CLIENT_RESULT })
}

/// The provider's last request answers the call with the caller's output (code mode shows the
/// client tool's call first), and the session log records the result as the client tool's.
fn check_resumed(fx: &Fixture, lane: &str, session: &str, call_id: &str) {
    let last = fx.provider.journal().last().unwrap();
    let input = last.body["input"].as_array().unwrap();
    let answer = input
        .iter()
        .position(|i| i["type"] == "function_call_output" && i["call_id"] == call_id)
        .unwrap_or_else(|| panic!("{lane}: no output for {call_id} in {input:#?}"));
    assert_eq!(input[answer]["output"], CLIENT_RESULT, "{lane}");
    let call = &input[answer - 1];
    assert_eq!(
        call["call_id"], call_id,
        "{lane}: the call precedes its output"
    );
    let expected_name = if lane == "tools" {
        "tool_call"
    } else {
        "pick_file"
    };
    assert_eq!(call["name"], expected_name, "{lane}");
    assert_eq!(last.outcome, "final-text", "{lane}");

    let records = fx.session(session);
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    let handoff = kinds.iter().position(|k| *k == "clientToolCall").unwrap();
    let result = records
        .iter()
        .position(|r| r["type"] == "toolResult" && r["toolCallId"] == call_id)
        .unwrap_or_else(|| panic!("{lane}: no toolResult for {call_id}: {kinds:?}"));
    assert!(handoff < result, "{lane}: {kinds:?}");
    let record = &records[result];
    assert_eq!(record["toolName"], "pick_file", "{lane}");
    assert_eq!(record["source"], "client", "{lane}");
    assert_eq!(record["isError"], false, "{lane}");
    assert_eq!(record["output"], CLIENT_RESULT, "{lane}");
    assert_eq!(
        record.get("parentToolCallId").is_some(),
        lane == "code",
        "{lane}: only a call made from code has a parent"
    );
    let last_message = records
        .iter()
        .rev()
        .find(|r| r["type"] == "message")
        .unwrap();
    assert_eq!(last_message["text"], "FAKE_PLUGIN_OK pick_file", "{lane}");
}

#[tokio::test]
async fn full_input_history_continues_to_the_final_answer_on_every_lane() {
    for lane in LANES {
        let fx = fixture(lane).await;
        let session = format!("loop-{lane}");
        let (status, first) = fx.post(&session, first_turn(false)).await;
        assert_eq!(status, 200, "{lane}: {first}");
        let call = handed_back(lane, &first);
        let requests_before = fx.provider.journal().cursor();
        let history = json!([
            { "role": "user", "content": PROMPT },
            { "type": "function_call", "call_id": call["call_id"], "name": "pick_file", "arguments": call["arguments"] },
            output_item(&call["call_id"]),
        ]);
        let (status, done) = fx
            .post(
                &session,
                json!({ "model": "openclaw/qa", "input": history, "tools": [pick_file()] }),
            )
            .await;
        assert_eq!(status, 200, "{lane}: {done}");
        assert_eq!(text_of(&done), "FAKE_PLUGIN_OK pick_file", "{lane}");
        assert_eq!(
            fx.provider.journal().cursor(),
            requests_before + 1,
            "{lane}: one provider round to the answer"
        );
        check_resumed(&fx, lane, &session, call["call_id"].as_str().unwrap());
        // The caller's copy was not appended again: the prompt is in the provider input once.
        let last = fx.provider.journal().last().unwrap();
        assert_eq!(last.raw.matches(PROMPT).count(), 1, "{lane}");
        // The turn is finished: the next question is a new turn, with the answer in history.
        let next = "tool search qa check target=fake_plugin_tool_03";
        let (status, answer) = fx
            .post(&session, json!({ "model": "openclaw/qa", "input": next }))
            .await;
        assert_eq!(status, 200, "{lane}: {answer}");
        assert_eq!(
            text_of(&answer),
            "FAKE_PLUGIN_OK fake_plugin_tool_03",
            "{lane}"
        );
        let history = fx.provider.journal().last().unwrap();
        assert!(
            history
                .raw
                .contains("\"role\":\"assistant\",\"content\":\"FAKE_PLUGIN_OK pick_file\""),
            "{lane}"
        );
    }
}

#[tokio::test]
async fn previous_response_id_continues_the_stream_on_every_lane() {
    for lane in LANES {
        let fx = fixture(lane).await;
        let session = format!("prev-{lane}");
        let (status, first) = fx.post(&session, first_turn(true)).await;
        assert_eq!(status, 200, "{lane}: {first}");
        let call = handed_back(lane, &first);
        let body = json!({ "model": "openclaw/qa", "previous_response_id": first["id"], "stream": true,
                           "input": [output_item(&call["call_id"])], "tools": [pick_file()] });
        let (status, done) = fx.post(&session, body).await;
        assert_eq!(status, 200, "{lane}: {done}");
        assert_eq!(text_of(&done), "FAKE_PLUGIN_OK pick_file", "{lane}");
        assert_eq!(done["previous_response_id"], first["id"], "{lane}");
        assert_ne!(done["id"], first["id"], "{lane}");
        check_resumed(&fx, lane, &session, call["call_id"].as_str().unwrap());
    }
}

#[tokio::test]
async fn a_session_refuses_what_does_not_continue_it() {
    let fx = fixture("tools").await;
    let (_, first) = fx.post("a", first_turn(false)).await;
    let call = handed_back("tools", &first);
    let requests = fx.provider.journal().cursor();
    let refused = |response: &Value| {
        (
            response["error"]["message"].as_str().unwrap().to_string(),
            response["error"]["param"].clone(),
        )
    };
    let turn =
        |input: Value| json!({ "model": "openclaw/qa", "input": input, "tools": [pick_file()] });

    let (status, body) = fx.post("a", turn(json!("something else"))).await;
    assert_eq!(status, 400);
    let call_id = call["call_id"].as_str().unwrap();
    assert_eq!(
        refused(&body),
        (
            format!("the session is waiting for the output of client tool call(s) {call_id} (pick_file); send a function_call_output item for each"),
            json!("input")
        )
    );
    let stranger = json!([{ "type": "function_call_output", "call_id": "call_0", "output": "x" }]);
    let (status, body) = fx.post("b", turn(stranger)).await;
    assert_eq!(status, 400);
    assert_eq!(
        refused(&body).1,
        json!("input[0]"),
        "an output in a session with nothing pending"
    );
    // Another session's response id is not this session's to continue.
    let foreign = json!({ "model": "openclaw/qa", "previous_response_id": first["id"],
                          "input": [output_item(&call["call_id"])] });
    let (status, body) = fx.post("b", foreign).await;
    assert_eq!(status, 400);
    assert_eq!(
        refused(&body),
        (
            format!(
                "previous_response_id {} is not the last response of this session",
                first["id"]
            ),
            json!("previous_response_id")
        )
    );
    let twice = json!([output_item(&call["call_id"]), output_item(&call["call_id"])]);
    let (status, body) = fx.post("a", turn(twice)).await;
    assert_eq!(status, 400);
    assert_eq!(refused(&body).1, json!("input[1]"));
    let (status, body) = fx
        .post("a", turn(json!([{ "type": "reasoning", "summary": [] }])))
        .await;
    assert_eq!(status, 400);
    assert_eq!(refused(&body).1, json!("input[0]"));
    assert_eq!(
        fx.provider.journal().cursor(),
        requests,
        "a refused request reaches no provider"
    );
    // After all that the pending call is still answerable.
    let (status, done) = fx
        .post("a", turn(json!([output_item(&call["call_id"])])))
        .await;
    assert_eq!(status, 200, "{done}");
    assert_eq!(text_of(&done), "FAKE_PLUGIN_OK pick_file");
}

#[tokio::test]
async fn usage_adds_up_the_provider_rounds_and_ids_are_fresh() {
    let fx = fixture("tools").await;
    let body = json!({ "model": "openclaw/qa", "input": "tool search qa check target=fake_plugin_tool_17" });
    let (status, response) = fx.post("usage", body.clone()).await;
    assert_eq!(status, 200, "{response}");
    let requests = fx.provider.journal().all();
    assert_eq!(requests.len(), 3);
    let input: usize = requests.iter().map(|r| count_tokens(&r.raw).unwrap()).sum();
    let records = fx.session("usage");
    let mut generated = Vec::new();
    for record in records
        .iter()
        .filter(|r| r["type"] == "message" && r["role"] == "assistant")
    {
        match record.get("toolCall") {
            Some(call) if record.get("synthetic").is_none() => {
                generated.push(call["name"].as_str().unwrap().to_string());
                generated.push(call["arguments"].as_str().unwrap().to_string());
            }
            Some(_) => {}
            None => generated.push(record["text"].as_str().unwrap().to_string()),
        }
    }
    let output: usize = generated.iter().map(|t| count_tokens(t).unwrap()).sum();
    assert_eq!(
        response["usage"],
        json!({ "input_tokens": input, "input_tokens_details": { "cached_tokens": 0, "cache_write_tokens": 0 },
                "output_tokens": output, "output_tokens_details": { "reasoning_tokens": 0 },
                "total_tokens": input + output })
    );
    assert!(response["created_at"].as_u64().unwrap() > 1_700_000_000);
    assert_eq!(response["tools"], json!([]));
    assert_eq!(response["tool_choice"], "auto");
    assert_eq!(response["parallel_tool_calls"], true);
    // The same session key on a second gateway: different ids, none made of the key.
    let other = fixture("tools").await;
    let (_, again) = other.post("usage", body).await;
    assert_ne!(again["id"], response["id"]);
    let shape = regex::Regex::new(r"^(resp|msg)_[0-9a-f]{16}$").unwrap();
    for id in [&response["id"], &again["id"], &response["output"][0]["id"]] {
        let id = id.as_str().unwrap();
        assert!(
            !id.contains("usage"),
            "{id} is derived from the session key"
        );
        assert!(shape.is_match(id), "{id}");
    }
}
