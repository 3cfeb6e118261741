//! The MCP fixture servers as real stdio child processes: the embedded gateway starts them by
//! command (OpenClaw's `mcp.servers` shape), they die with the gateway, and a server that cannot
//! start, answers garbage or never answers `tools/list` is an error naming it — never a hang.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolsearch_qa::gateway::mcp::McpError;
use toolsearch_qa::gateway::GatewayError;
use toolsearch_qa::mcp_fixture::{
    self, EXITED_MARKER, EXIT_AT_ONCE, GARBAGE, HANG_ON_LIST, QA_EXIT_AFTER_CALL,
};

use crate::common::tools_config;

/// `mcp.servers.<name>` starting fixture `fixture`, with short timeouts for the error paths.
fn server(fixture: &str) -> Value {
    let spec = mcp_fixture::launch(fixture).expect("the toolsearch-qa binary is built");
    json!({ "command": spec.command, "args": spec.args, "transport": "stdio",
            "connectionTimeoutMs": 3000, "requestTimeoutMs": 1500 })
}

fn config_with(servers: Value) -> Value {
    let mut config = tools_config(json!({ "baseUrl": "http://127.0.0.1:9/v1" }));
    config["mcp"] = json!({ "servers": servers });
    config
}

/// Whether process `pid` still runs (a zombie does not count: it has exited).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(") ")?.1.chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}

fn cmdline(pid: u32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

#[tokio::test]
async fn fixtures_run_as_child_processes_and_die_with_the_gateway() {
    let config = config_with(json!({ "calendar": server("calendar"), "qa": server("qa") }));
    let (gateway, _state) = crate::common::start_gateway(&config).await;
    let ids: Vec<String> = gateway
        .state
        .tools
        .iter()
        .filter(|t| t.id.starts_with("mcp:"))
        .map(|t| t.id.clone())
        .collect();
    assert_eq!(
        ids,
        [
            "mcp:calendar:create_event",
            "mcp:calendar:list_events",
            "mcp:qa:mcp_qa_echo"
        ]
    );
    let pids = gateway.state.mcp.pids();
    assert_eq!(pids.len(), 2, "one child per server");
    for pid in &pids {
        assert!(alive(*pid), "server {pid} runs while the gateway does");
        assert!(
            cmdline(*pid).contains("mcp-fixture --server"),
            "{}",
            cmdline(*pid)
        );
    }
    let called = gateway
        .state
        .mcp
        .call("qa", mcp_fixture::QA_ECHO_TOOL, &json!({ "marker": "x" }))
        .await
        .expect("tools/call over stdio");
    assert_eq!(
        called["content"][0]["text"],
        "FAKE_PLUGIN_OK qa__mcp_qa_echo {\"marker\":\"x\"}"
    );
    gateway.stop().await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while pids.iter().any(|p| alive(*p)) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let left: Vec<&u32> = pids.iter().filter(|p| alive(**p)).collect();
    assert!(left.is_empty(), "servers outlived their gateway: {left:?}");
}

/// A server that exits mid-session (openclaw/openclaw#137398): its first call runs, every later
/// one is an error that names it as unavailable (a real exit, seen as the child's exit status),
/// and started again in the same directory it exits at once: down for the rest of the lane.
#[tokio::test]
async fn a_server_that_exits_after_its_call_is_named_as_unavailable() {
    let lane = tempfile::tempdir().expect("lane dir");
    let mut spec = server(QA_EXIT_AFTER_CALL);
    spec["cwd"] = json!(lane.path());
    let config = config_with(json!({ "dies": spec }));
    let (gateway, _state) = crate::common::start_gateway(&config).await;
    let pid = gateway.state.mcp.pids()[0];
    let echo = |marker: &str| json!({ "marker": marker });
    let first = gateway
        .state
        .mcp
        .call("dies", mcp_fixture::QA_ECHO_TOOL, &echo("one"))
        .await
        .expect("the first call is served");
    assert_eq!(
        first["content"][0]["text"],
        "FAKE_PLUGIN_OK qa__mcp_qa_echo {\"marker\":\"one\"}"
    );
    assert!(lane.path().join(EXITED_MARKER).is_file());
    for _ in 0..2 {
        let later = gateway
            .state
            .mcp
            .call("dies", mcp_fixture::QA_ECHO_TOOL, &echo("two"))
            .await
            .expect_err("its process is gone");
        assert_eq!(
            later,
            McpError::Exited {
                server: "dies".into(),
                status: "exit status: 0".into()
            }
        );
        assert_eq!(
            later.to_string(),
            "MCP server dies is unavailable: its process exited (exit status: 0); its tools \
             cannot run until the server is back"
        );
    }
    assert!(!alive(pid), "the fixture exited");
    gateway.stop().await;
    // Started again where it served its call, it exits before the handshake.
    let mut again = server(QA_EXIT_AFTER_CALL);
    again["cwd"] = json!(lane.path());
    let (error, _) = start_with("again", again).await;
    assert!(
        error.starts_with("MCP server again: initialize failed: "),
        "{error}"
    );
}

/// Starting a gateway with one broken server: the error, and how long it took to come.
async fn start_with(name: &str, spec: Value) -> (String, Duration) {
    let config = config_with(json!({ name: spec }));
    let loaded = toolsearch_qa::config::parse(&config.to_string(), "test").expect("config");
    let state = tempfile::tempdir().expect("temp dir");
    let started = Instant::now();
    let result =
        toolsearch_qa::gateway::serve(loaded, state.path().into(), ([127, 0, 0, 1], 0).into())
            .await;
    let error = match result {
        Ok(_) => panic!("{name}: a broken MCP server must stop the gateway from starting"),
        Err(GatewayError::Mcp(e)) => e,
        Err(other) => panic!("{name}: not an MCP error: {other}"),
    };
    assert!(
        matches!(
            &error,
            McpError::Spawn { server, .. } | McpError::Protocol { server, .. } | McpError::Timeout { server, .. }
                if server == name
        ),
        "{name}: {error:?}"
    );
    (error.to_string(), started.elapsed())
}

#[tokio::test]
async fn broken_servers_are_errors_that_name_them() {
    let (exits, _) = start_with("exits", server(EXIT_AT_ONCE)).await;
    assert!(
        exits.starts_with("MCP server exits: initialize failed: "),
        "{exits}"
    );
    let (garbage, _) = start_with("garbage", server(GARBAGE)).await;
    assert_eq!(
        garbage,
        "MCP server garbage: initialize failed: it answered something that is not JSON-RPC: \"this is not JSON-RPC\""
    );
    let (hangs, took) = start_with("hangs", server(HANG_ON_LIST)).await;
    assert_eq!(
        hangs,
        "MCP server hangs: no answer to tools/list within 1500 ms"
    );
    assert!(
        took < Duration::from_secs(60),
        "the hang was cut off: {took:?}"
    );
    let missing = json!({ "command": "/nonexistent/toolsearch-qa", "args": [] });
    let (spawn, _) = start_with("missing", missing).await;
    assert!(
        spawn.starts_with("MCP server missing: cannot start /nonexistent/toolsearch-qa: "),
        "{spawn}"
    );
}

#[test]
fn remote_transports_are_config_errors_naming_the_key() {
    let mut config = config_with(json!({ "web": { "command": "x", "transport": "sse" } }));
    let err = toolsearch_qa::config::parse(&config.to_string(), "x.json5")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("sse"), "{err}");
    config["mcp"]["servers"]["web"] = json!({ "url": "http://127.0.0.1:9/mcp" });
    let err = toolsearch_qa::config::parse(&config.to_string(), "x.json5")
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("url"), "{err}");
}

/// The CLI: a scenario whose MCP server answers garbage ends the run with exit 3 and a line that
/// names the server; the report still lists the lane as an error.
#[test]
fn a_broken_server_in_a_scenario_exits_3_naming_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("broken-mcp.toml"),
        r#"id = "broken-mcp"
title = "an MCP server that answers garbage"
agent = "qa"
prompt = "tool search qa check target=fake_plugin_tool_01"
target_tool = "fake_plugin_tool_01"

[catalog]
plugin_id = "tool-search-e2e-fixture"
size = 3
mcp = ["fault-garbage"]

[[lanes]]
name = "tools"
tool_search = { mode = "tools" }
"#,
    )
    .expect("scenario file");
    let out = assert_cmd::Command::cargo_bin("toolsearch-qa")
        .expect("binary")
        .args([
            "suite",
            "--scenario",
            "broken-mcp",
            "--no-snapshots",
            "--scenario-dir",
        ])
        .arg(dir.path())
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("error: scenario broken-mcp lane tools: embedded gateway did not start: MCP server fault-garbage: initialize failed: it answered something that is not JSON-RPC"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("ERROR lane tools: "), "{stdout}");
}
