//! The embedded gateway's HTTP surface against bad input and a broken provider (wiremock):
//! clear JSON errors, a session log that keeps every earlier record, and a server that goes on serving.

use serde_json::{json, Value};

use crate::common::{start_gateway, tools_config};
use toolsearch_qa::protocol::session::read_session_log;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

struct Fixture {
    gateway: toolsearch_qa::gateway::RunningGateway,
    state: tempfile::TempDir,
    http: reqwest::Client,
}

async fn gateway_for(provider_url: &str) -> Fixture {
    let config = tools_config(json!({ "baseUrl": format!("{provider_url}/v1") }));
    let (gateway, state) = start_gateway(&config).await;
    Fixture {
        gateway,
        state,
        http: reqwest::Client::new(),
    }
}

impl Fixture {
    async fn post(&self, body: String, agent: &str) -> (u16, Value) {
        let response = self
            .http
            .post(format!("{}/v1/responses", self.gateway.base_url()))
            .header("x-openclaw-agent", agent)
            .header("x-openclaw-session-key", "s1")
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    fn session_exists(&self) -> bool {
        self.state
            .path()
            .join("agents/qa/sessions/s1.jsonl")
            .exists()
    }

    fn session(&self) -> Vec<Value> {
        read_session_log(&self.state.path().join("agents/qa/sessions/s1.jsonl")).unwrap()
    }
}

/// The embedded gateway on the project's own mock provider (which scripts the search-and-call
/// turn), and that provider to read its journal.
async fn gateway_on_the_mock() -> (toolsearch_qa::provider::MockProvider, Fixture) {
    let provider = toolsearch_qa::provider::MockProvider::start()
        .await
        .unwrap();
    let fx = gateway_for(provider.base_url().trim_end_matches("/v1")).await;
    (provider, fx)
}

/// A turn whose script searches for and calls `fake_plugin_tool_03`.
fn target_03_turn() -> Value {
    json!({ "model": "openclaw/qa", "input": "tool search qa check target=fake_plugin_tool_03" })
}

fn turn() -> String {
    json!({ "model": "openclaw/qa", "input": "tool search qa check target=fake_plugin_tool_3", "stream": false }).to_string()
}

#[tokio::test]
async fn garbage_from_the_provider_is_a_502_naming_it_and_the_log_keeps_the_turn() {
    let provider = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/responses"))
        .respond_with(ResponseTemplate::new(200).set_body_string("<html>nope"))
        .mount(&provider)
        .await;
    let fx = gateway_for(&provider.uri()).await;
    let (status, body) = fx.post(turn(), "qa").await;
    assert_eq!(status, 502);
    assert_eq!(body["error"]["type"], "upstream_error");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "provider at {}/v1/responses answered with a body that is not JSON",
            provider.uri()
        )),
        "{message}"
    );
    let kinds: Vec<String> = fx
        .session()
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        kinds,
        ["surface", "message", "provider_request", "turn_error"]
    );
}

#[tokio::test]
async fn wrong_shaped_provider_json_is_named() {
    let provider = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "choices": [] })))
        .mount(&provider)
        .await;
    let fx = gateway_for(&provider.uri()).await;
    let (status, body) = fx.post(turn(), "qa").await;
    assert_eq!(status, 502);
    assert!(body["error"]["message"]
        .as_str()
        .unwrap()
        .ends_with("answered JSON of the wrong shape: missing array field `output`"));
}

#[tokio::test]
async fn bad_requests_get_400_or_404_and_the_server_keeps_serving() {
    let provider = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({ "output": [
            { "type": "message", "content": [{ "type": "output_text", "text": "hello" }] }
        ] })))
        .mount(&provider)
        .await;
    let fx = gateway_for(&provider.uri()).await;
    let cases = [
        ("{not json", "qa", 400, "body is not valid JSON"),
        ("[1, 2]", "qa", 400, "body must be a JSON object"),
        (
            r#"{"input": 5}"#,
            "qa",
            400,
            "input must be a string or an array of items",
        ),
        (r#"{"input": []}"#, "qa", 400, "input must not be empty"),
        (
            r#"{"input": "hi", "max_output_tokens": "lots"}"#,
            "qa",
            400,
            "max_output_tokens must be a non-negative integer",
        ),
        (
            r#"{"input": "hi", "tools": [{"type": "function", "name": "fake_plugin_tool_01"}]}"#,
            "qa",
            400,
            "collides with the openclaw tool openclaw:fixture:fake_plugin_tool_01",
        ),
        (
            r#"{"input": "hi"}"#,
            "nobody",
            404,
            "unknown agent \"nobody\"",
        ),
    ];
    for (body, agent, want_status, want_text) in cases {
        let (status, json) = fx.post(body.to_string(), agent).await;
        assert_eq!(status, want_status, "{body}");
        let message = json["error"]["message"].as_str().unwrap();
        assert!(message.contains(want_text), "{body}: {message}");
    }
    let (status, json) = fx.post(turn(), "qa").await;
    assert_eq!(status, 200);
    assert_eq!(json["output"][0]["content"][0]["text"], "hello");
}

/// Turns without client tools share the gateway's planned catalogue; each still counts its own
/// searches and calls, and a later turn sees the session's history.
#[tokio::test]
async fn every_turn_counts_its_own_searches_and_calls() {
    let (provider, fx) = gateway_on_the_mock().await;
    let turn = target_03_turn();
    for _ in 0..3 {
        let (status, json) = fx.post(turn.to_string(), "qa").await;
        assert_eq!(status, 200, "{json}");
        let text = json["output"][0]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(
            text.contains("FAKE_PLUGIN_OK fake_plugin_tool_03"),
            "{text}"
        );
    }
    let telemetry: Vec<Value> = fx
        .session()
        .into_iter()
        .filter(|r| r["type"] == "telemetry")
        .map(|r| r["telemetry"].clone())
        .collect();
    let one_turn = json!({
        "catalogSize": 11, "sources": { "openclaw": 11, "mcp": 0, "client": 0 },
        "searchCount": 1, "describeCount": 0, "callCount": 1,
    });
    assert_eq!(
        telemetry,
        vec![one_turn.clone(), one_turn.clone(), one_turn]
    );
    let users = fx
        .session()
        .into_iter()
        .filter(|r| r["type"] == "message" && r["role"] == "user")
        .count();
    assert_eq!(users, 3);
    let last = provider.journal().last().unwrap();
    let history_messages = last.body["input"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "user")
        .count();
    assert_eq!(history_messages, 3);
}

/// `/v1/chat/completions` runs the same agent loop in the session its `x-openclaw-session-key`
/// names: a turn after a Responses turn carries that turn's history and the same tools[].
#[tokio::test]
async fn chat_completions_continues_the_session_a_responses_turn_opened() {
    let (provider, fx) = gateway_on_the_mock().await;
    let turn = target_03_turn();
    let (status, json) = fx.post(turn.to_string(), "qa").await;
    assert_eq!(status, 200, "{json}");
    let first = provider.journal().all().len();
    let chat = json!({
        "model": "openclaw/qa",
        "messages": [{ "role": "user", "content": "tool search qa check target=fake_plugin_tool_03" }],
    });
    let response = fx
        .http
        .post(format!("{}/v1/chat/completions", fx.gateway.base_url()))
        .header("x-openclaw-agent", "qa")
        .header("x-openclaw-session-key", "s1")
        .json(&chat)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 200);
    let json: Value = response.json().await.unwrap();
    assert_eq!(json["object"], "chat.completion");
    assert_eq!(json["choices"][0]["finish_reason"], "stop");
    let text = json["choices"][0]["message"]["content"].as_str().unwrap();
    assert!(
        text.contains("FAKE_PLUGIN_OK fake_plugin_tool_03"),
        "{text}"
    );
    let journal = provider.journal().all();
    let (one, two) = (&journal[0].body, &journal[first].body);
    assert_eq!(one["tools"], two["tools"]);
    let users = |body: &Value| {
        body["input"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|i| i["role"] == "user")
            .count()
    };
    assert_eq!((users(one), users(two)), (1, 2));
    let (status, json) = raw(fx
        .http
        .post(format!("{}/v1/chat/completions", fx.gateway.base_url()))
        .header("x-openclaw-agent", "qa")
        .json(&json!({ "messages": [] })))
    .await;
    assert_eq!(status, 400, "{json}");
    assert_eq!(json["error"]["param"], "messages");
}

/// Status and body of a raw request to the gateway.
async fn raw(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("HTTP {status} body is not JSON ({e}): {text:?}"));
    (status, body)
}

#[tokio::test]
async fn the_http_layer_answers_every_error_in_the_responses_shape() {
    let provider = MockServer::start().await;
    let fx = gateway_for(&provider.uri()).await;
    let url = |path: &str| format!("{}{path}", fx.gateway.base_url());
    let big_body = json!({ "input": "x".repeat(toolsearch_qa::gateway::http::MAX_BODY_BYTES) });
    let cases = [
        (
            fx.http.get(url("/nope")),
            404,
            "no route for GET /nope",
            Some("not_found"),
        ),
        (
            fx.http.get(url("/v1/responses")),
            405,
            "GET is not allowed on /v1/responses",
            Some("method_not_allowed"),
        ),
        (
            fx.http.post(url("/v1/responses")).json(&big_body),
            413,
            "request body is larger than 4194304 bytes",
            Some("request_too_large"),
        ),
        (
            fx.http
                .post(url("/v1/responses"))
                .header("x-big", "x".repeat(40_000))
                .json(&json!({ "input": "hi" })),
            431,
            "request has",
            Some("request_header_fields_too_large"),
        ),
        (
            fx.http
                .post(url("/v1/responses"))
                .json(&json!({ "input": "hi", "stream": "yes" })),
            400,
            "stream must be true or false",
            None,
        ),
    ];
    for (request, want_status, want_text, want_code) in cases {
        let (status, body) = raw(request).await;
        assert_eq!(status, want_status, "{body}");
        let error = body["error"].as_object().unwrap();
        let keys: Vec<&str> = error.keys().map(String::as_str).collect();
        assert_eq!(keys, ["message", "type", "param", "code"], "{body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .starts_with(want_text),
            "{body}"
        );
        assert_eq!(body["error"]["type"], "invalid_request_error");
        assert_eq!(body["error"]["code"], json!(want_code), "{body}");
    }
    let (_, body) = raw(fx
        .http
        .post(url("/v1/responses"))
        .json(&json!({ "input": "hi", "stream": "yes" })))
    .await;
    assert_eq!(body["error"]["param"], "stream");
    assert!(
        !fx.session_exists(),
        "no refused request opened a session log"
    );
}
