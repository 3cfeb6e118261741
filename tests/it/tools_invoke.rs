//! The embedded gateway's non-model views in the product's shapes: `POST /tools/invoke` (a batch
//! search, a direct tool, and the product's error answers) and `POST /tools/effective` (a
//! session's tools grouped by source; only for a session the agent has).

use serde_json::{json, Value};

use crate::common::{start_gateway, tools_config};
use toolsearch_qa::provider::MockProvider;

async fn post(url: String, body: Value) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(url)
        .json(&body)
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.json().await.unwrap())
}

#[tokio::test]
async fn tools_invoke_runs_a_batch_search_and_answers_errors_as_the_product_does() {
    let provider = MockProvider::start().await.unwrap();
    let config = tools_config(json!({ "baseUrl": provider.base_url() }));
    let (gateway, _state) = start_gateway(&config).await;
    let url = format!("{}/tools/invoke", gateway.base_url());
    let queries = json!([
        { "query": "fake_plugin_tool_03", "limit": 1 },
        { "query": "fake_plugin_tool_01", "limit": 1 },
    ]);
    let body = json!({ "name": "tool_search", "args": { "queries": queries }, "sessionKey": "s1" });
    let (status, answer) = post(url.clone(), body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["ok"], true);
    let groups: Vec<(String, Vec<String>)> = answer["result"]["details"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let names = g["candidates"].as_array().unwrap().iter();
            let names = names.map(|c| c["name"].as_str().unwrap().to_string());
            (g["query"].as_str().unwrap().to_string(), names.collect())
        })
        .collect();
    assert_eq!(
        groups,
        [
            (
                "fake_plugin_tool_03".into(),
                vec!["fake_plugin_tool_03".into()]
            ),
            (
                "fake_plugin_tool_01".into(),
                vec!["fake_plugin_tool_01".into()]
            ),
        ]
    );
    let text = answer["result"]["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        answer["result"]["details"]
    );
    // A catalogued tool by name (the product's `tool` spelling), its details as it returns them.
    let body = json!({ "tool": "fake_plugin_tool_03", "args": { "marker": "m" } });
    let (status, answer) = post(url.clone(), body).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["result"]["details"],
        json!({ "status": "ok", "tool": "fake_plugin_tool_03", "input": { "marker": "m" } })
    );
    let cases = [
        (
            json!({ "args": {} }),
            400,
            "invalid_request",
            "tools.invoke requires name",
        ),
        (
            json!({ "name": "no_such_tool" }),
            404,
            "not_found",
            "Tool not available: no_such_tool",
        ),
        (
            json!({ "name": "tool_search", "args": { "queries": "x" } }),
            400,
            "tool_error",
            "",
        ),
        (
            json!({ "name": "fake_plugin_tool_03", "args": { "marker": 7 } }),
            400,
            "tool_error",
            "Invalid arguments for fake_plugin_tool_03",
        ),
        (
            json!({ "name": "tool_search", "agentId": "nobody" }),
            400,
            "invalid_request",
            "unknown agent id \"nobody\"",
        ),
    ];
    for (body, want_status, kind, message) in cases {
        let (status, answer) = post(url.clone(), body.clone()).await;
        assert_eq!(status, want_status, "{body} → {answer}");
        assert_eq!(answer["ok"], false, "{answer}");
        assert_eq!(answer["error"]["type"], kind, "{answer}");
        let said = answer["error"]["message"].as_str().unwrap();
        assert!(said.starts_with(message), "{body}: {said}");
    }
    // Nothing above was a turn: no session log was written.
    assert!(!_state.path().join("agents").exists());
    gateway.stop().await;
}

#[tokio::test]
async fn tools_effective_lists_a_sessions_tools_by_source_and_only_for_its_sessions() {
    let provider = MockProvider::start().await.unwrap();
    let config = tools_config(json!({ "baseUrl": provider.base_url() }));
    let (gateway, _state) = start_gateway(&config).await;
    let base = gateway.base_url();
    let url = format!("{base}/tools/effective");
    let ask = |key: &str, agent: &str| json!({ "sessionKey": key, "agentId": agent });
    let (status, answer) = post(url.clone(), ask("s1", "qa")).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["message"], "unknown session key \"s1\"");
    let turn = json!({ "model": "openclaw/qa", "input": "tool search qa check target=fake_plugin_tool_03" });
    let response = reqwest::Client::new()
        .post(format!("{base}/v1/responses"))
        .header("x-openclaw-agent", "qa")
        .header("x-openclaw-session-key", "s1")
        .json(&turn)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let (status, answer) = post(url.clone(), ask("s1", "qa")).await;
    assert_eq!(status, 200, "{answer}");
    let groups: Vec<(&str, &str, usize)> = answer["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let label = g["label"].as_str().unwrap();
            (
                g["source"].as_str().unwrap(),
                label,
                g["tools"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            ("core", "Built-in tools", 7),
            ("plugin", "Connected tools", 5)
        ]
    );
    let target = answer["groups"][1]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "fake_plugin_tool_03")
        .unwrap();
    assert_eq!(target["source"], "plugin");
    assert_eq!(target["pluginId"], "fixture");
    assert_eq!(answer["agentId"], "qa");
    // Another agent's view of the same key, and another key, know no such session.
    for (key, agent) in [("s1", "main"), ("s2", "qa")] {
        let (status, answer) = post(url.clone(), ask(key, agent)).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["error"]["code"], "unknown_session", "{answer}");
    }
    gateway.stop().await;
}
