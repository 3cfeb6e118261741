//! A broken provider (wiremock on loopback), seen from both sides:
//! - the gateway answers with a clear JSON error and its session log records the failed turn
//!   while keeping every record of the turn before it;
//! - the harness reports an infrastructure error (exit code 3 at the CLI), not a claim failure.
//!
//! Faults: HTTP 500, 429 with `retry-after`, a response slower than the provider timeout,
//! malformed JSON, a truncated event stream, and well-formed JSON of the wrong shape.

use std::time::Duration;

use crate::common::{start_gateway, tools_config};
use serde_json::{json, Value};
use toolsearch_qa::protocol::response_object::{RequestEcho, ResponseItem, ResponseObject};
use toolsearch_qa::protocol::session::read_session_log;
use toolsearch_qa::protocol::sse::encode_response;
use toolsearch_qa::protocol::usage::Usage;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::{run_suite_on, ProviderSource, Quiet};
use toolsearch_qa::targets::EmbeddedTarget;
use wiremock::matchers::method;
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The gateway's provider timeout in these tests.
const TIMEOUT_MS: u64 = 200;

struct Fault {
    name: &'static str,
    stream: bool,
    reply: ResponseTemplate,
    /// The end of the gateway's error message, after `provider at <url> `.
    message: String,
}

fn faults() -> Vec<Fault> {
    let truncated = encode_response(&hello());
    let cut = truncated
        .find("event: response.output_item.added")
        .unwrap_or(truncated.len());
    vec![
        Fault {
            name: "500",
            stream: false,
            reply: ResponseTemplate::new(500).set_body_string("internal trouble"),
            message: "answered HTTP 500: internal trouble".into(),
        },
        Fault {
            name: "429",
            stream: false,
            reply: ResponseTemplate::new(429)
                .insert_header("retry-after", "7")
                .set_body_string("slow down"),
            message: "is rate limiting (HTTP 429, retry-after: 7); not retried: slow down".into(),
        },
        Fault {
            name: "slow",
            stream: false,
            reply: ResponseTemplate::new(200)
                .set_body_json(hello_response())
                .set_delay(Duration::from_millis(TIMEOUT_MS * 10)),
            message: format!(
                "did not answer within {TIMEOUT_MS} ms (models.providers.<id>.timeoutMs)"
            ),
        },
        Fault {
            name: "malformed",
            stream: false,
            reply: ResponseTemplate::new(200)
                .set_body_raw("{\"output\": [", "application/json"),
            message: "answered with a body that is not JSON: EOF while parsing a list at line 1 column 12".into(),
        },
        Fault {
            name: "truncated-stream",
            stream: true,
            reply: ResponseTemplate::new(200)
                .set_body_raw(truncated[..cut].to_string(), "text/event-stream"),
            message: "sent a broken event stream: stream ended after 2 events without response.completed".into(),
        },
        Fault {
            name: "wrong-shape",
            stream: false,
            reply: ResponseTemplate::new(200).set_body_json(
                json!({ "output": [{ "type": "function_call", "name": "tool_search" }] }),
            ),
            message: "answered JSON of the wrong shape: output[0] function_call has no string `call_id`".into(),
        },
    ]
}

fn hello() -> ResponseObject {
    let output = vec![ResponseItem::message("hello")];
    ResponseObject::completed("m", RequestEcho::default(), output, Usage::of(1, 1))
}

fn hello_response() -> Value {
    serde_json::to_value(hello()).unwrap()
}

/// A provider that answers the first request well and every later one with the fault.
async fn provider_with(fault: &Fault) -> MockServer {
    let server = MockServer::start().await;
    let good = if fault.stream {
        ResponseTemplate::new(200).set_body_raw(encode_response(&hello()), "text/event-stream")
    } else {
        ResponseTemplate::new(200).set_body_json(hello_response())
    };
    Mock::given(method("POST"))
        .respond_with(good)
        .up_to_n_times(1)
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .respond_with(fault.reply.clone())
        .mount(&server)
        .await;
    server
}

async fn post(http: &reqwest::Client, base: &str, text: &str) -> (u16, Value) {
    let response = http
        .post(format!("{base}/v1/responses"))
        .header("x-openclaw-agent", "qa")
        .header("x-openclaw-session-key", "s1")
        .json(&json!({ "input": text }))
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn each_fault_is_a_clear_502_and_the_log_keeps_the_earlier_turn() {
    for fault in faults() {
        let provider = provider_with(&fault).await;
        let (gateway, state) = start_gateway(&tools_config(json!({
            "baseUrl": format!("{}/v1", provider.uri()), "stream": fault.stream, "timeoutMs": TIMEOUT_MS,
        })))
        .await;
        let http = reqwest::Client::new();
        let (status, body) = post(&http, &gateway.base_url(), "first").await;
        assert_eq!(
            (status, body["output"][0]["content"][0]["text"].clone()),
            (200, json!("hello")),
            "{}",
            fault.name
        );

        let (status, body) = post(&http, &gateway.base_url(), "second").await;
        let want = format!(
            "provider at {}/v1/responses {}",
            provider.uri(),
            fault.message
        );
        assert_eq!(status, 502, "{}", fault.name);
        assert_eq!(body["error"]["type"], "upstream_error", "{}", fault.name);
        assert_eq!(body["error"]["message"], want.as_str(), "{}", fault.name);

        let records = read_session_log(&state.path().join("agents/qa/sessions/s1.jsonl")).unwrap();
        let kinds: Vec<&str> = records
            .iter()
            .map(|r| r["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            kinds,
            [
                "surface",
                "message",
                "provider_request",
                "message",
                "telemetry",
                "surface",
                "message",
                "provider_request",
                "turn_error",
            ],
            "{}",
            fault.name
        );
        assert_eq!(records[1]["text"], "first");
        assert_eq!(records[3]["text"], "hello");
        assert_eq!(records[6]["text"], "second");
        assert_eq!(records[8]["error"], want.as_str(), "{}", fault.name);

        // The gateway still serves: a bad request gets its 400 right away.
        let status = http
            .post(format!("{}/v1/responses", gateway.base_url()))
            .header("x-openclaw-agent", "qa")
            .json(&json!({ "input": 5 }))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status.as_u16(), 400, "{}", fault.name);
        gateway.stop().await;
    }
}

#[tokio::test]
async fn each_fault_is_an_infrastructure_error_of_the_harness() {
    let reference = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    for fault in faults() {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .respond_with(fault.reply.clone())
            .mount(&server)
            .await;
        let mut scenarios = reference.clone();
        for lane in &mut scenarios[0].lanes {
            lane.stream = fault.stream;
            lane.provider_timeout_ms = Some(TIMEOUT_MS);
        }
        let source = ProviderSource::Url(format!("{}/v1", server.uri()));
        let report = run_suite_on(&EmbeddedTarget, &scenarios, &source, &Quiet)
            .await
            .expect("a broken provider still gives a report");
        assert!(report.has_errors(), "{}", fault.name);
        let scenario = &report.scenarios[0];
        // Every lane is reported as an error of its own; none becomes a claim verdict.
        let lanes: Vec<&str> = scenario.errors.iter().map(|e| e.lane.as_str()).collect();
        assert_eq!(lanes, crate::common::REFERENCE_LANES, "{}", fault.name);
        assert!(scenario.claims.is_empty(), "{}", fault.name);
        let want = format!(
            "scenario tool-search-gateway-e2e lane direct: the gateway answered HTTP 502: provider at {}/v1/responses {}",
            server.uri(),
            fault.message
        );
        assert_eq!(scenario.errors[0].error, want, "{}", fault.name);
    }
}

/// A provider that refuses a request the gateway built wrong is not a broken machine: the
/// embedded gateway seeded to drop Anthropic's `server_tool_use` block when it replays a search
/// sends a `tool_search_tool_result` the mock refuses as the API does (400, Anthropic's error
/// shape). The lane ends there and is judged: V1 is red with the provider's own error as its
/// evidence, the lane is no error, and the run's exit code is 1, not 3 (an unreachable or broken
/// provider stays exit 3: the test above).
#[tokio::test]
async fn a_provider_refusal_of_the_gateways_replay_is_v1_red_not_a_lane_error() {
    use toolsearch_qa::gateway::faults::Fault;
    use toolsearch_qa::scenario::ClaimId;
    use toolsearch_qa::suite::run_suite;
    use toolsearch_qa::targets::SeededTarget;
    // The provider's ids counted from 1, so its error reads the same every run.
    toolsearch_qa::protocol::response_object::reproducible_ids();
    let mut scenarios =
        select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    scenarios[0].lanes.retain(|l| l.name == "native-anthropic");
    let target = SeededTarget(Fault::ServerToolUseDropped);
    let report = run_suite(&target, &scenarios).await.expect("a report");
    let scenario = &report.scenarios[0];
    assert!(scenario.errors.is_empty(), "{:?}", scenario.errors);
    let v1 = scenario
        .claims
        .iter()
        .find(|v| v.claim == ClaimId::V1)
        .expect("V1 judged");
    assert!(!v1.ok);
    assert_eq!(v1.failures[0].check, "provider accepted the requests");
    assert_eq!(
        v1.actual,
        "the provider refused request 2: invalid_request_error: messages.1.content.0: \
         `tool_search_tool_result` block answers tool_use_id \"srvtoolu_0000000000000000\", but no \
         `server_tool_use` block with that id comes before it in this message"
    );
    let carried = v1
        .failures
        .iter()
        .find(|c| c.check == "search call carried");
    assert_eq!(
        carried.map(|c| c.actual.as_str()),
        Some("results without their call: request 2: messages[1].content[0] tool_search_tool_result srvtoolu_0000000000000000")
    );
    assert_eq!(report.verdict().exit_code(), 1);
}
