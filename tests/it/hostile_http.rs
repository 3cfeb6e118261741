//! Hostile and careless HTTP against the embedded gateway and the mock provider (issue #16):
//! session keys that used to share a session, keys that used to share a file, client-tool floods,
//! oversized bodies and clients that never finish sending. Each test is named after the defect
//! it pins down.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use toolsearch_qa::gateway::http::{MAX_BODY_BYTES, MAX_CLIENT_TOOLS};
use toolsearch_qa::gateway::RunningGateway;
use toolsearch_qa::protocol::session::{session_id_for_key, session_log_path};
use toolsearch_qa::provider::{MockProvider, ProviderOptions};
use toolsearch_qa::server::Limits;

use crate::common::tools_config;

/// Short limits, so that a test of a timeout waits for a fraction of a second.
const SHORT: Limits = Limits {
    header_read: Duration::from_millis(300),
    body_read: Duration::from_millis(300),
    drain: Duration::from_secs(1),
};
/// A bound on waiting for something that must happen (a hang fails the test, it does not time it).
const HANG: Duration = Duration::from_secs(20);

struct Fixture {
    provider: MockProvider,
    gateway: RunningGateway,
    state: tempfile::TempDir,
    http: reqwest::Client,
}

async fn fixture() -> Fixture {
    let provider = MockProvider::start_with(ProviderOptions {
        limits: SHORT,
        ..ProviderOptions::default()
    })
    .await
    .unwrap();
    let config = tools_config(json!({ "baseUrl": provider.base_url() }));
    let loaded = toolsearch_qa::config::parse(&config.to_string(), "test config").unwrap();
    let state = tempfile::tempdir().unwrap();
    let gateway = toolsearch_qa::gateway::serve_with_limits(
        loaded,
        state.path().to_path_buf(),
        ([127, 0, 0, 1], 0).into(),
        SHORT,
    )
    .await
    .unwrap();
    Fixture {
        provider,
        gateway,
        state,
        http: reqwest::Client::new(),
    }
}

impl Fixture {
    /// One turn with these headers (`None`: the header is not sent).
    async fn turn(
        &self,
        agent: Option<&str>,
        key: Option<&str>,
        prompt: &str,
        tools: Option<Value>,
    ) -> (u16, Value) {
        let mut body = json!({ "model": "openclaw/qa", "input": prompt, "stream": false });
        if let Some(tools) = tools {
            body["tools"] = tools;
        }
        let mut request = self
            .http
            .post(format!("{}/v1/responses", self.gateway.base_url()))
            .json(&body);
        if let Some(agent) = agent {
            request = request.header("x-openclaw-agent", agent);
        }
        if let Some(key) = key {
            request = request.header("x-openclaw-session-key", key);
        }
        let response = request.send().await.unwrap();
        (response.status().as_u16(), response.json().await.unwrap())
    }

    /// Every provider request body's text so far.
    fn provider_bodies(&self) -> Vec<String> {
        self.provider
            .journal()
            .all()
            .iter()
            .map(|r| r.raw.to_string())
            .collect()
    }
}

fn prompt(n: usize) -> String {
    format!("tool search qa check target=fake_plugin_tool_{n:02} secret-of-user-{n}")
}

#[tokio::test]
async fn non_ascii_session_keys_never_share_another_users_session() {
    let fx = fixture().await;
    let (status, _) = fx.turn(Some("qa"), Some("josé"), &prompt(1), None).await;
    assert_eq!(status, 200);
    let before = fx.provider_bodies().len();
    // Another user, on the default session (no key): lossy decoding used to make `josé` this one.
    let (status, _) = fx.turn(Some("qa"), None, &prompt(2), None).await;
    assert_eq!(status, 200);
    let second_user: Vec<String> = fx.provider_bodies()[before..].to_vec();
    assert_eq!(second_user.len(), 3, "search, call, answer");
    for body in &second_user {
        assert!(!body.contains("secret-of-user-1"), "{body}");
    }
    for key in ["josé", "main"] {
        let path = session_log_path(fx.state.path(), "qa", &session_id_for_key(key));
        assert!(path.is_file(), "{}", path.display());
    }
}

#[tokio::test]
async fn non_ascii_agent_header_is_an_unknown_agent_not_main() {
    let fx = fixture().await;
    let (status, body) = fx.turn(Some("qä"), Some("s"), &prompt(1), None).await;
    assert_eq!(status, 404);
    assert_eq!(
        body["error"]["message"],
        "unknown agent \"qä\" (header x-openclaw-agent)"
    );
    let (status, body) = fx.turn(Some("qa"), Some(""), &prompt(1), None).await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        "header x-openclaw-session-key must not be empty"
    );
    assert!(fx.provider_bodies().is_empty());
}

#[tokio::test]
async fn session_keys_differing_only_in_punctuation_get_their_own_log_and_response_id() {
    let fx = fixture().await;
    let keys = ["alice.smith", "alice/smith", "alice smith", "alice_smith"];
    let mut ids = BTreeSet::new();
    for (i, key) in keys.iter().enumerate() {
        let (status, body) = fx.turn(Some("qa"), Some(key), &prompt(i + 1), None).await;
        assert_eq!(status, 200, "{key}: {body}");
        ids.insert(body["id"].as_str().unwrap().to_string());
    }
    assert_eq!(ids.len(), keys.len(), "{ids:?}");
    let sessions = fx.state.path().join("agents/qa/sessions");
    let files: BTreeSet<String> = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        files,
        BTreeSet::from(
            [
                "alice%2Esmith.jsonl",
                "alice%2Fsmith.jsonl",
                "alice%20smith.jsonl",
                "alice_smith.jsonl"
            ]
            .map(String::from)
        )
    );
    // Each log holds its own user's prompt only.
    for (i, key) in keys.iter().enumerate() {
        let log = std::fs::read_to_string(session_log_path(
            fx.state.path(),
            "qa",
            &session_id_for_key(key),
        ))
        .unwrap();
        for (j, _) in keys.iter().enumerate() {
            let marker = format!("secret-of-user-{}\"", j + 1);
            assert_eq!(log.contains(&marker), i == j, "{key} / user {}", j + 1);
        }
    }
}

#[tokio::test]
async fn a_session_key_longer_than_a_file_name_is_a_turn_not_a_500() {
    let fx = fixture().await;
    let key = "k".repeat(300);
    let (status, body) = fx.turn(Some("qa"), Some(&key), &prompt(1), None).await;
    assert_eq!(status, 200, "{body}");
    let id = session_id_for_key(&key);
    assert_eq!(id.len(), 129);
    assert!(session_log_path(fx.state.path(), "qa", &id).is_file());
}

fn client_tools(names: impl Iterator<Item = String>) -> Value {
    Value::Array(
        names
            .map(|name| json!({ "type": "function", "name": name, "parameters": { "type": "object" } }))
            .collect(),
    )
}

#[tokio::test]
async fn a_flood_of_client_tools_is_refused_before_any_work() {
    let fx = fixture().await;
    let flood = client_tools((0..=MAX_CLIENT_TOOLS).map(|i| format!("c{i}")));
    let (status, body) = fx
        .turn(Some("qa"), Some("s"), &prompt(1), Some(flood))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        format!(
            "tools: {} client tools, at most {MAX_CLIENT_TOOLS} are accepted",
            MAX_CLIENT_TOOLS + 1
        )
    );
    // At the bound, a duplicate at the very end is still found (by a set, not a scan per tool).
    let twice = client_tools(
        (0..MAX_CLIENT_TOOLS - 1)
            .map(|i| format!("c{i}"))
            .chain(["c0".to_string()]),
    );
    let (status, body) = fx
        .turn(Some("qa"), Some("s"), &prompt(1), Some(twice))
        .await;
    assert_eq!(status, 400);
    assert_eq!(
        body["error"]["message"],
        format!(
            "tools[{}]: client tool \"c0\" is declared twice",
            MAX_CLIENT_TOOLS - 1
        )
    );
    assert!(fx.provider_bodies().is_empty());
}

/// Sends `head` (and nothing else) on a fresh connection; what the server sends back before it
/// closes the connection.
async fn send_and_read_to_close(addr: std::net::SocketAddr, head: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.write_all(head).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(HANG, stream.read_to_end(&mut answer))
        .await
        .expect("the server holds a stalled connection open")
        .unwrap();
    String::from_utf8_lossy(&answer).into_owned()
}

fn status_line(answer: &str) -> &str {
    answer.lines().next().unwrap_or_default()
}

fn json_body(answer: &str) -> Value {
    serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap_or_default()).unwrap()
}

#[tokio::test]
async fn a_client_that_never_finishes_its_headers_is_cut_off() {
    let fx = fixture().await;
    for addr in [fx.gateway.addr, fx.provider.address()] {
        let answer =
            send_and_read_to_close(addr, b"POST /v1/responses HTTP/1.1\r\nhost: x\r\n").await;
        assert!(
            answer.is_empty() || status_line(&answer).contains(" 408 "),
            "{answer}"
        );
    }
}

#[tokio::test]
async fn a_body_that_trickles_in_is_a_408_not_a_held_connection() {
    let fx = fixture().await;
    for addr in [fx.gateway.addr, fx.provider.address()] {
        let answer = send_and_read_to_close(
            addr,
            b"POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
              content-length: 100\r\nconnection: close\r\n\r\n{\"input\": ",
        )
        .await;
        assert_eq!(
            status_line(&answer),
            "HTTP/1.1 408 Request Timeout",
            "{answer}"
        );
        assert_eq!(
            json_body(&answer)["error"]["message"],
            "request body did not arrive in time"
        );
    }
}

#[tokio::test]
async fn an_oversized_body_is_refused_before_it_is_read_and_never_journaled() {
    let fx = fixture().await;
    let provider_limit = toolsearch_qa::provider::MAX_BODY_BYTES;
    for (addr, limit) in [
        (fx.gateway.addr, MAX_BODY_BYTES),
        (fx.provider.address(), provider_limit),
    ] {
        let head = format!(
            "POST /v1/responses HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n",
            limit + 1
        );
        let answer = send_and_read_to_close(addr, head.as_bytes()).await;
        assert_eq!(
            status_line(&answer),
            "HTTP/1.1 413 Payload Too Large",
            "{answer}"
        );
        assert_eq!(
            json_body(&answer)["error"]["message"],
            format!("request body is larger than {limit} bytes")
        );
    }
    assert!(fx.provider_bodies().is_empty());
    // Both still serve.
    let (status, _) = fx.turn(Some("qa"), Some("s"), &prompt(1), None).await;
    assert_eq!(status, 200);
}
