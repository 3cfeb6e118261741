//! Every catalogue source through the embedded gateway over loopback HTTP, driven by a scripted
//! mock provider: MCP tools (tools/list + tools/call on the `calendar` fixture, a child process on stdio), client tools handed
//! back to the caller (directly and through `tool_call`), directory mode's prompt and exact-name
//! dispatch, and client-name collisions.

use serde_json::{json, Value};
use toolsearch_qa::drive::observation::session_answers;
use toolsearch_qa::protocol::session::read_session_log;
use toolsearch_qa::protocol::session::SessionLog;
use toolsearch_qa::provider::{MockProvider, ProviderOptions, ScriptedTurn};

struct Fixture {
    _provider: MockProvider,
    journal: toolsearch_qa::provider::Journal,
    gateway: toolsearch_qa::gateway::RunningGateway,
    state: tempfile::TempDir,
}

async fn start(mode: &str, script: Vec<ScriptedTurn>) -> Fixture {
    let provider = MockProvider::start_with(ProviderOptions {
        port: None,
        script: Some(script),
        ..ProviderOptions::default()
    })
    .await
    .expect("mock provider starts");
    let calendar = toolsearch_qa::mcp_fixture::launch("calendar").expect("fixture command");
    let config = format!(
        r#"{{ models: {{ providers: {{ mock: {{ baseUrl: "{}" }} }} }},
             agents: {{ defaults: {{ model: {{ primary: "mock/qa" }} }}, list: [{{ id: "qa" }}] }},
             tools: {{ toolSearch: {{ mode: "{mode}" }} }},
             mcp: {{ servers: {{ calendar: {{ command: {}, args: {}, transport: "stdio" }} }} }},
             catalog: {{ fakePlugin: {{ id: "fixture", size: 5 }} }} }}"#,
        provider.base_url(),
        json!(calendar.command),
        json!(calendar.args),
    );
    let loaded = toolsearch_qa::config::parse(&config, "test").expect("config parses");
    let state = tempfile::tempdir().expect("temp dir");
    let gateway = toolsearch_qa::gateway::serve(
        loaded,
        state.path().to_path_buf(),
        ([127, 0, 0, 1], 0).into(),
    )
    .await
    .expect("gateway starts");
    Fixture {
        journal: provider.journal(),
        _provider: provider,
        gateway,
        state,
    }
}

impl Fixture {
    async fn post(&self, body: Value) -> (u16, Value) {
        let response = reqwest::Client::new()
            .post(format!("{}/v1/responses", self.gateway.base_url()))
            .header("x-openclaw-agent", "qa")
            .header("x-openclaw-session-key", "s1")
            .json(&body)
            .send()
            .await
            .expect("gateway answers");
        let status = response.status().as_u16();
        (status, response.json().await.expect("JSON body"))
    }

    fn session(&self) -> Vec<Value> {
        read_session_log(&self.state.path().join("agents/qa/sessions/s1.jsonl"))
            .expect("session log")
    }

    fn first_request(&self) -> Value {
        self.journal.since(0)[0].body.clone()
    }
}

fn call(name: &str, arguments: Value) -> ScriptedTurn {
    ScriptedTurn::ToolCall {
        name: name.into(),
        arguments,
    }
}

fn pick_file() -> Value {
    json!({ "type": "function", "name": "pick_file", "description": "Let the user pick a file.",
            "parameters": { "type": "object", "properties": { "kind": { "type": "string" } } } })
}

fn records<'a>(session: &'a [Value], kind: &str) -> Vec<&'a Value> {
    session.iter().filter(|r| r["type"] == kind).collect()
}

#[tokio::test]
async fn mcp_tool_through_tool_call_is_run_with_tools_call_and_logged_as_mcp() {
    let fx = start(
        "tools",
        vec![
            call("tool_search", json!({ "query": "create calendar event", "limit": 1 })),
            call(
                "tool_call",
                json!({ "id": "mcp:calendar:create_event", "args": { "title": "Standup", "start": "2026-12-01T09:00" } }),
            ),
            ScriptedTurn::Text("done".into()),
        ],
    )
    .await;
    let (status, body) = fx
        .post(json!({ "input": "book standup", "stream": false }))
        .await;
    assert_eq!(status, 200, "{body}");
    let session = fx.session();
    let search = records(&session, "toolResult")[0]["output"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let items: Value = serde_json::from_str(&search).unwrap_or_default();
    assert_eq!(items[0]["id"], "mcp:calendar:create_event");
    assert_eq!(items[0]["input"], "unknown");
    assert_eq!(items[0].get("output"), None);
    let bridged: Vec<&Value> = records(&session, "toolResult")
        .into_iter()
        .filter(|r| r.get("parentToolCallId").is_some())
        .collect();
    assert_eq!(bridged.len(), 1);
    assert_eq!(bridged[0]["source"], "mcp");
    assert_eq!(bridged[0]["sourceName"], "calendar");
    assert_eq!(bridged[0]["output"]["details"]["event"]["id"], "evt_1");
    let log = SessionLog::from_raw(session.clone(), "mcp session").unwrap();
    let answers = session_answers(&log.records, &toolsearch_qa::config::Bridge::spec());
    assert_eq!(answers.final_tool.as_deref(), Some("create_event"));
    assert_eq!(answers.final_tool_source.map(|s| s.as_str()), Some("mcp"));
    assert_eq!(answers.catalog_size, Some(7 + 5 + 2 - 1));
}

#[tokio::test]
async fn mcp_arguments_are_not_validated_by_the_gateway() {
    let fx = start(
        "tools",
        vec![
            call(
                "tool_call",
                json!({ "id": "mcp:calendar:create_event", "args": { "bogus": 1 } }),
            ),
            ScriptedTurn::Text("done".into()),
        ],
    )
    .await;
    let (status, _) = fx.post(json!({ "input": "x", "stream": false })).await;
    assert_eq!(status, 200);
    let session = fx.session();
    let bridged = records(&session, "toolResult")
        .into_iter()
        .find(|r| r.get("parentToolCallId").is_some())
        .cloned()
        .unwrap_or_default();
    // The MCP server itself refused: the error text is the server's, not a gateway validation error.
    assert_eq!(bridged["isError"], true);
    assert_eq!(
        bridged["output"],
        "Tool create_event failed: create_event needs string fields title and start"
    );
}

#[tokio::test]
async fn client_tool_through_tool_call_ends_the_turn_with_its_function_call() {
    let fx = start(
        "tools",
        vec![call(
            "tool_call",
            json!({ "id": "client:client:pick_file", "args": { "kind": "pdf" } }),
        )],
    )
    .await;
    let (status, body) = fx
        .post(json!({ "input": "pick a pdf", "tools": [pick_file()], "stream": false }))
        .await;
    assert_eq!(status, 200, "{body}");
    let output = body["output"].as_array().cloned().unwrap_or_default();
    assert_eq!(output.len(), 1, "{body}");
    assert_eq!(output[0]["type"], "function_call");
    assert_eq!(output[0]["name"], "pick_file");
    assert_eq!(output[0]["arguments"], "{\"kind\":\"pdf\"}");
    assert_eq!(fx.journal.since(0).len(), 1);
    let session = fx.session();
    let handoff = records(&session, "clientToolCall");
    assert_eq!(handoff.len(), 1);
    assert_eq!(handoff[0]["toolId"], "client:client:pick_file");
    assert_eq!(handoff[0]["source"], "client");
    assert_eq!(handoff[0]["viaToolCall"], true);
    assert!(records(&session, "toolResult").is_empty());
}

#[tokio::test]
async fn directory_mode_lists_names_keeps_client_tools_visible_and_dispatches_exact_names() {
    let fx = start(
        "directory",
        vec![
            call("fake_plugin_tool_03", json!({ "marker": "by-name" })),
            ScriptedTurn::Text("done".into()),
        ],
    )
    .await;
    let (status, body) = fx
        .post(json!({ "input": "go", "tools": [pick_file()], "stream": false }))
        .await;
    assert_eq!(status, 200, "{body}");
    let first = fx.first_request();
    let declared: Vec<&str> = first["tools"]
        .as_array()
        .map(|t| t.iter().filter_map(|d| d["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        declared,
        [
            "pick_file",
            "session_status",
            "tool_call",
            "tool_describe",
            "tool_search"
        ]
    );
    let prompt = first["input"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(prompt.contains("### Deferred Tool Schemas\nAvailable deferred-schema tools:\n"));
    assert!(prompt.contains("\n- fake_plugin_tool_03 (fixture): Fake plugin tool 3. It proves"));
    assert!(!prompt.contains("create_event"), "MCP tools are not listed");
    assert!(
        !prompt.contains("- pick_file ("),
        "client tools are not listed"
    );
    let session = fx.session();
    let results = records(&session, "toolResult");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["toolName"], "fake_plugin_tool_03");
    assert_eq!(results[0]["isError"], false);
    assert_eq!(results[0]["source"], "openclaw");
    assert_eq!(results[0].get("parentToolCallId"), None);
    assert_eq!(
        results[0]["output"],
        "FAKE_PLUGIN_OK fake_plugin_tool_03 {\"marker\":\"by-name\"}"
    );
}

#[tokio::test]
async fn exact_name_dispatch_validates_trusted_arguments() {
    let fx = start(
        "directory",
        vec![
            call("fake_plugin_tool_02", json!({ "markr": "x" })),
            ScriptedTurn::Text("done".into()),
        ],
    )
    .await;
    let (status, _) = fx.post(json!({ "input": "go", "stream": false })).await;
    assert_eq!(status, 200);
    let session = fx.session();
    let result = records(&session, "toolResult")[0].clone();
    assert_eq!(result["isError"], true);
    let output = result["output"].as_str().unwrap_or_default();
    assert!(
        output.contains("Invalid arguments for fake_plugin_tool_02"),
        "{output}"
    );
}

#[tokio::test]
async fn tool_choice_declares_the_required_schema_in_directory_mode_only() {
    let body = json!({ "input": "go", "stream": false,
                       "tool_choice": { "type": "function", "name": "fake_plugin_tool_04" } });
    for (mode, expected) in [("directory", true), ("tools", false)] {
        let fx = start(mode, vec![ScriptedTurn::Text("ok".into())]).await;
        let (status, _) = fx.post(body.clone()).await;
        assert_eq!(status, 200);
        let tools = fx.first_request()["tools"].clone();
        let declared = tools
            .as_array()
            .is_some_and(|t| t.iter().any(|d| d["name"] == "fake_plugin_tool_04"));
        assert_eq!(declared, expected, "{mode}: {tools}");
    }
}

#[tokio::test]
async fn client_tool_names_colliding_with_mcp_or_gateway_tools_are_400() {
    let fx = start("directory", vec![]).await;
    for (name, owner) in [
        ("create_event", "mcp tool mcp:calendar:create_event"),
        ("exec", "openclaw tool openclaw:core:exec"),
        (
            "fake_plugin_tool_01",
            "openclaw tool openclaw:fixture:fake_plugin_tool_01",
        ),
    ] {
        let tool = json!({ "type": "function", "name": name, "parameters": { "type": "object" } });
        let (status, body) = fx
            .post(json!({ "input": "x", "tools": [tool], "stream": false }))
            .await;
        assert_eq!(status, 400, "{name}");
        assert_eq!(
            body["error"]["message"],
            format!("tools[0]: client tool name {name:?} collides with the {owner}; rename the client tool")
        );
    }
}
