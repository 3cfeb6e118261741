//! Streaming both ways: the embedded gateway answers `stream: true` with Server-Sent Events in the
//! Responses event sequence, and a lane with `stream = true` makes the gateway stream from the mock
//! provider. Claims and snapshots are the same as without streaming, except the `stream` flag the
//! provider payload carries.

use crate::common::{start_gateway, tools_config, TEXT_REPLY_EVENTS};
use serde_json::{json, Value};
use toolsearch_qa::outcome::SuiteReport;
use toolsearch_qa::protocol::sse::decode_stream;
use toolsearch_qa::provider::MockProvider;
use toolsearch_qa::scenario::{load_all, select, Scenario};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

async fn turn(provider: &MockProvider, stream: bool) -> (String, String) {
    let config = tools_config(json!({ "baseUrl": provider.base_url(), "stream": stream }));
    let (gateway, _state) = start_gateway(&config).await;
    let response = reqwest::Client::new()
        .post(format!("{}/v1/responses", gateway.base_url()))
        .header("x-openclaw-agent", "qa")
        .header("x-openclaw-session-key", "s1")
        .json(
            &json!({ "input": "tool search qa check target=fake_plugin_tool_03", "stream": stream }),
        )
        .send()
        .await
        .unwrap();
    let content_type = response.headers()["content-type"]
        .to_str()
        .unwrap()
        .to_string();
    let text = response.text().await.unwrap();
    gateway.stop().await;
    (content_type, text)
}

#[tokio::test]
async fn the_gateway_streams_the_same_answer_as_events() {
    let provider = MockProvider::start().await.unwrap();
    let (plain_type, plain) = turn(&provider, false).await;
    let (stream_type, stream) = turn(&provider, true).await;
    assert_eq!(plain_type, "application/json");
    assert_eq!(stream_type, "text/event-stream");
    let events: Vec<Value> = stream
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str(d).unwrap())
        .collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, TEXT_REPLY_EVENTS);
    let numbers: Vec<u64> = events
        .iter()
        .map(|e| e["sequence_number"].as_u64().unwrap())
        .collect();
    assert_eq!(numbers, (0..9).collect::<Vec<u64>>());
    let plain: Value = serde_json::from_str(&plain).unwrap();
    // The same answer; ids are fresh per response, and usage counts the request's `stream` flag.
    let comparable = |mut response: Value| {
        response["id"] = Value::Null;
        response["created_at"] = Value::Null;
        response["output"][0]["id"] = Value::Null;
        response["usage"] = Value::Null;
        response
    };
    let streamed = decode_stream(&stream).unwrap();
    assert_ne!(streamed["id"], plain["id"]);
    assert_eq!(comparable(streamed), comparable(plain.clone()));
    assert_eq!(
        plain["output"][0]["content"][0]["text"],
        "FAKE_PLUGIN_OK fake_plugin_tool_03"
    );
    // The mock provider saw both gateways; the streaming one asked it for streams.
    let flags: Vec<Value> = provider
        .journal()
        .all()
        .iter()
        .map(|r| r.body["stream"].clone())
        .collect();
    assert_eq!(
        flags,
        [false, false, false, true, true, true].map(Value::from)
    );
}

fn reference() -> Vec<Scenario> {
    select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap()
}

fn snapshots(report: &SuiteReport) -> Vec<(String, String)> {
    report
        .scenarios
        .iter()
        .flat_map(|s| s.snapshot_contents.clone())
        .collect()
}

#[tokio::test]
async fn streaming_lanes_give_the_same_claims_and_snapshots() {
    // Every lane plain (the reference's `native-anthropic-regex` streams of its own), then
    // every lane streamed.
    let mut plain = reference();
    for lane in &mut plain[0].lanes {
        lane.stream = false;
    }
    let plain = run_suite(&EmbeddedTarget, &plain).await.unwrap();
    let mut streaming = reference();
    for lane in &mut streaming[0].lanes {
        lane.stream = true;
    }
    let streamed = run_suite(&EmbeddedTarget, &streaming).await.unwrap();
    assert!(plain.verdict().passed() && streamed.verdict().passed());
    let verdicts = |r: &SuiteReport| {
        r.scenarios[0]
            .claims
            .iter()
            .map(|v| {
                // C5's text carries byte counts, which the flag shifts by one byte per request.
                let text = if v.claim == "C5" {
                    String::new()
                } else {
                    format!("{} / {}", v.expected, v.actual)
                };
                (v.claim, v.lane.clone(), v.ok, text)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&plain), verdicts(&streamed));
    let plain_snaps = snapshots(&plain);
    let streamed_snaps = snapshots(&streamed);
    assert_eq!(plain_snaps.len(), streamed_snaps.len());
    let bytes = regex::Regex::new(r#""rawBytes": \d+"#).unwrap();
    for ((name, a), (other, b)) in plain_snaps.iter().zip(&streamed_snaps) {
        assert_eq!(name, other);
        if name.ends_with("__provider") {
            assert!(
                b.contains("\"stream\": true") && !b.contains("\"stream\": false"),
                "{name}"
            );
        }
        // The session log's rawBytes count the flag too: "true" is one byte shorter than "false".
        let streamed_text = b.replace("\"stream\": true", "\"stream\": false");
        assert_eq!(
            bytes.replace_all(a, "rawBytes"),
            bytes.replace_all(&streamed_text, "rawBytes"),
            "{name}"
        );
    }
}
