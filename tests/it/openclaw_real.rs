//! The OpenClaw target's groundwork against files and, when it is installed, a real gateway.
//!
//! Plugin and config writing need no install and always run. The gateway tests need the install
//! left by `scripts/install-openclaw.sh`: they are `#[ignore]`d with that reason, so a plain
//! `cargo test` lists them as not run; run with `--ignored` (CI: `--run-ignored all`) a missing
//! install fails them. Everything stays on loopback.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use toolsearch_qa::catalog::fake::{fake_plugin_tools, FIXTURE_PLUGIN_ID};
use toolsearch_qa::targets::openclaw::{
    config_value, free_loopback_port, read_transcript, write_config, write_plugin, Installation,
    LaneConfig, NodeMajor, OpenClawError, OpenClawGateway, AGENT_ID,
};

const LOG: &str = "/tmp/openclaw.log";

/// The `what` of an [`OpenClawError::Invalid`] result.
fn invalid_what<T>(result: &Result<T, OpenClawError>) -> Option<&'static str> {
    match result {
        Err(OpenClawError::Invalid { what, .. }) => Some(what),
        _ => None,
    }
}

fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("parse {}: {e}", path.display()))
}

#[test]
fn writes_the_fake_catalogue_as_an_openclaw_plugin() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tools = fake_plugin_tools(FIXTURE_PLUGIN_ID, 36);
    let plugin_dir = write_plugin(dir.path(), FIXTURE_PLUGIN_ID, &tools).expect("plugin");
    assert_eq!(plugin_dir, dir.path().join(FIXTURE_PLUGIN_ID));

    let package = read_json(&plugin_dir.join("package.json"));
    assert_eq!(package["type"], "module");
    assert_eq!(package["openclaw"]["extensions"], json!(["./index.js"]));

    let manifest = read_json(&plugin_dir.join("openclaw.plugin.json"));
    assert_eq!(manifest["id"], FIXTURE_PLUGIN_ID);
    assert_eq!(manifest["activation"], json!({ "onStartup": true }));
    assert_eq!(
        manifest["configSchema"],
        json!({ "type": "object", "additionalProperties": false, "properties": {
            "approvals": { "type": "array", "items": { "type": "object" } },
            "beforeToolCall": { "type": "array", "items": { "type": "object" } },
            "stampDescriptions": { "type": "array", "items": { "type": "string" } },
            "looseSchemas": { "type": "array", "items": { "type": "string" } },
            "brokenTools": { "type": "array", "items": { "type": "string" } },
            "promptSchemas": { "type": "array", "items": { "type": "string" } },
            "promptPadding": { "type": "integer", "minimum": 0 },
            "toolsAllow": { "type": "array", "items": { "type": "string" } },
            "registration": { "type": "string", "enum": ["sorted", "reversed"] },
            "onlyTools": { "type": "array", "items": { "type": "string" } }
        } })
    );
    let names: Vec<Value> = tools.iter().map(|t| json!(t.name)).collect();
    assert_eq!(manifest["contracts"]["tools"], Value::Array(names));

    let index = std::fs::read_to_string(plugin_dir.join("index.js")).expect("index.js");
    assert!(
        index.contains("import { definePluginEntry } from \"openclaw/plugin-sdk/plugin-entry\";")
    );
    assert!(index
        .contains("if (only === null || only.has(spec.name)) registerFake(api, config, spec);"));
    assert!(index.contains("api.registerTool(fakeTool(tool));"));
    assert!(index.contains("`FAKE_PLUGIN_OK ${spec.name} ${JSON.stringify(input)}`"));
    assert!(index.contains("details: { status: \"ok\", tool: spec.name, input }"));
    // The tool table is a JSON literal between `const TOOLS = ` and `;`: exact names, descriptions, schemas.
    let table = index
        .split_once("const TOOLS = ")
        .and_then(|(_, rest)| rest.split_once(";\n"))
        .map(|(table, _)| table)
        .expect("tool table");
    let table: Value = serde_json::from_str(table).expect("tool table is JSON");
    let expected: Vec<Value> = tools
        .iter()
        .map(|t| {
            json!({ "name": t.name, "label": t.label, "description": t.description,
                         "parameters": t.parameters, "broken": false })
        })
        .collect();
    assert_eq!(table, Value::Array(expected));
    // A tool broken on purpose (`catalog.broken`) throws instead of answering.
    assert!(index.contains("if (broken) throw new Error("), "{index}");
    let broken = vec![toolsearch_qa::catalog::fake::broken(tools[0].clone())];
    let dir = tempfile::tempdir().expect("temp dir");
    let plugin_dir = write_plugin(dir.path(), FIXTURE_PLUGIN_ID, &broken).expect("plugin");
    let index = std::fs::read_to_string(plugin_dir.join("index.js")).expect("index.js");
    assert!(index.contains("\"broken\": true"), "{index}");
}

#[test]
fn plugin_writing_rejects_duplicates_and_bad_ids() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut tools = fake_plugin_tools(FIXTURE_PLUGIN_ID, 2);
    tools.push(tools[0].clone());
    let duplicate = write_plugin(dir.path(), FIXTURE_PLUGIN_ID, &tools);
    assert_eq!(invalid_what(&duplicate), Some("tool name"), "{duplicate:?}");
    let bad_id = write_plugin(dir.path(), "../escape", &tools[..1]);
    assert_eq!(invalid_what(&bad_id), Some("plugin id"), "{bad_id:?}");
}

/// The config of `lane` for a provider on port 9 and a plugin under `/tmp/p`.
fn lane_config(lane: &LaneConfig) -> Value {
    let plugin = Path::new("/tmp/p/tool-search-e2e-fixture");
    config_value(
        "http://127.0.0.1:9/v1/",
        plugin,
        FIXTURE_PLUGIN_ID,
        lane,
        Path::new(LOG),
    )
    .expect("config")
}

#[test]
fn lane_configs_say_tool_search_explicitly() {
    let direct = lane_config(&LaneConfig::direct());
    assert_eq!(
        direct["tools"],
        json!({ "toolSearch": false, "alsoAllow": [] })
    );
    assert_eq!(
        direct["models"]["providers"]["mock"]["baseUrl"],
        "http://127.0.0.1:9/v1"
    );
    assert_eq!(
        direct["models"]["providers"]["mock"]["api"],
        "openai-responses"
    );
    assert_eq!(
        direct["models"]["catalogRefresh"],
        json!({ "enabled": false })
    );
    assert_eq!(direct["agents"]["defaults"]["model"]["primary"], "mock/qa");
    assert_eq!(direct["agents"]["entries"], json!({ AGENT_ID: {} }));
    assert_eq!(direct["update"], json!({ "checkOnStart": false }));
    assert_eq!(direct["discovery"], json!({ "mdns": { "mode": "off" } }));
    assert_eq!(direct["logging"], json!({ "file": LOG }));
    assert_eq!(
        direct["gateway"],
        json!({ "mode": "local", "bind": "loopback", "auth": { "mode": "none" },
                "http": { "endpoints": { "responses": { "enabled": true } } },
                "controlUi": { "enabled": false } })
    );
    assert_eq!(
        direct["plugins"],
        json!({ "load": { "paths": ["/tmp/p/tool-search-e2e-fixture"] }, "allow": [FIXTURE_PLUGIN_ID],
                "entries": { FIXTURE_PLUGIN_ID: { "enabled": true } },
                // The memory plugin off: a reloaded gateway then offers what a fresh one does.
                "slots": { "memory": "none" } })
    );

    let code = lane_config(&LaneConfig::code());
    assert_eq!(
        code["tools"],
        json!({ "toolSearch": true, "alsoAllow": ["tool_search_code"] })
    );

    let mut tools_lane = LaneConfig::structured("tools");
    tools_lane.deny = vec!["fake_plugin_tool_17".into(), "exec".into()];
    let tools = lane_config(&tools_lane);
    assert_eq!(
        tools["tools"],
        json!({ "toolSearch": { "mode": "tools" }, "alsoAllow": ["tool_call", "tool_describe", "tool_search"],
                "deny": ["exec", "fake_plugin_tool_17"] })
    );
}

#[test]
fn config_writing_round_trips_and_rejects_bad_input() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("openclaw.json");
    let plugin = dir.path().join("plugin");
    let lane = LaneConfig::code();
    let url = "http://127.0.0.1:9/v1";
    write_config(
        &path,
        url,
        &plugin,
        FIXTURE_PLUGIN_ID,
        &lane,
        Path::new(LOG),
    )
    .expect("write");
    let expected =
        config_value(url, &plugin, FIXTURE_PLUGIN_ID, &lane, Path::new(LOG)).expect("value");
    assert_eq!(read_json(&path), expected);

    let bad_mode = LaneConfig {
        tool_search: json!("code"),
        ..LaneConfig::direct()
    };
    let err = config_value(url, &plugin, FIXTURE_PLUGIN_ID, &bad_mode, Path::new(LOG));
    assert_eq!(invalid_what(&err), Some("tools.toolSearch"), "{err:?}");
    let err = config_value(
        "127.0.0.1:9",
        &plugin,
        FIXTURE_PLUGIN_ID,
        &lane,
        Path::new(LOG),
    );
    assert_eq!(invalid_what(&err), Some("provider base URL"), "{err:?}");
}

#[test]
fn locating_an_empty_cache_says_to_run_the_install_script() {
    let dir = tempfile::tempdir().expect("temp dir");
    let err = Installation::locate(Some(dir.path()), NodeMajor::V26)
        .expect_err("nothing is installed there");
    assert!(
        matches!(err, OpenClawError::VersionNotInstalled { .. }),
        "{err:?}"
    );
    let version = toolsearch_qa::targets::openclaw::install::default_version().unwrap();
    assert!(
        err.to_string().ends_with(&format!(
            "run scripts/install-openclaw.sh --version {version} --node 26"
        )),
        "{err}"
    );
}

#[test]
fn a_release_or_node_that_is_not_installed_is_one_line_naming_the_fix() {
    use toolsearch_qa::targets::openclaw::Version;
    let dir = tempfile::tempdir().expect("temp dir");
    let version: Version = "2026.9.5".parse().expect("version");
    let err = Installation::locate_version(Some(dir.path()), &version, NodeMajor::V24)
        .expect_err("nothing is installed there");
    assert_eq!(
        err.to_string(),
        format!(
            "OpenClaw 2026.9.5 is not installed (no {}/openclaw-2026.9.5/node_modules/openclaw); run scripts/install-openclaw.sh --version 2026.9.5 --node 24",
            dir.path().display()
        )
    );
    // The release is there, its Node is not: the fix installs that Node, nothing else.
    let package = dir.path().join("openclaw-2026.9.5/node_modules/openclaw");
    std::fs::create_dir_all(&package).expect("dirs");
    std::fs::write(package.join("package.json"), r#"{"version":"2026.9.5"}"#).expect("write");
    let err = Installation::locate_version(Some(dir.path()), &version, NodeMajor::V26)
        .expect_err("no Node 26");
    let text = err.to_string();
    assert!(
        text.starts_with("OpenClaw 2026.9.5: Node 26 is not installed (")
            && text.ends_with("run scripts/install-openclaw.sh --version 2026.9.5 --node 26"),
        "{text}"
    );
    assert!(!text.contains('\n'), "{text}");
}

// ---------------------------------------------------------------------------------------------
// Against a real gateway (ignored unless asked for: they need the install).

/// The reason every real-gateway test is ignored with; [`real_install`] names the same command.
/// A literal in each `#[ignore = ...]`, as the attribute takes no constant.
pub(crate) const NEEDS_OPENCLAW: &str = "needs OpenClaw (bash scripts/install-openclaw.sh)";
/// A turn on a loaded 2-core machine has taken well over a minute; keep the bound generous.
const TURN_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(600);
const TARGET: &str = "fake_plugin_tool_02";

/// One real gateway at a time: two starting together on a 2-core machine starve each other.
/// Under `cargo nextest run` (one process per test) the `openclaw-gateway` test group of
/// .config/nextest.toml does this; a test that takes the lock must be in it (tests/it/docs.rs).
pub(crate) static ONE_GATEWAY: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The Node major the real tests run on (`TOOLSEARCH_QA_OPENCLAW_NODE`, default 24).
pub(crate) fn node_major() -> NodeMajor {
    NodeMajor::from_env().expect("TOOLSEARCH_QA_OPENCLAW_NODE is 24 or 26")
}

/// The real install. Only `#[ignore]`d tests call it, so a test that gets here was asked for:
/// a missing install fails it, naming the install command, and never passes as a skip.
pub(crate) fn real_install(test: &str) -> Installation {
    match Installation::locate(None, node_major()) {
        Ok(install) => install,
        Err(err) => panic!("{test} {NEEDS_OPENCLAW}: {err}"),
    }
}

/// A lane's files in one temp dir: the plugin, the config, the state dir and the log.
struct LaneDir {
    _root: tempfile::TempDir,
    config: PathBuf,
    state: PathBuf,
}

fn lane_dir(provider_url: &str) -> LaneDir {
    let root = tempfile::tempdir().expect("temp dir");
    let tools = fake_plugin_tools(FIXTURE_PLUGIN_ID, 3);
    let plugin = write_plugin(root.path(), FIXTURE_PLUGIN_ID, &tools).expect("plugin");
    let config = root.path().join("openclaw.json");
    let log = root.path().join("openclaw.log");
    write_config(
        &config,
        provider_url,
        &plugin,
        FIXTURE_PLUGIN_ID,
        &LaneConfig::direct(),
        &log,
    )
    .expect("config");
    let state = root.path().join("state");
    LaneDir {
        config,
        state,
        _root: root,
    }
}

/// One gateway start (each costs the product about 25 s) for the whole life cycle: it listens
/// where asked, answers `/healthz` without calling the provider, serves a turn that the harness
/// reads back from the transcript, and stops so that the port no longer answers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs OpenClaw (bash scripts/install-openclaw.sh)"]
async fn real_gateway_starts_serves_a_turn_read_back_from_its_transcript_and_stops() {
    let install =
        real_install("real_gateway_starts_serves_a_turn_read_back_from_its_transcript_and_stops");
    let _one_gateway = ONE_GATEWAY.lock().await;
    let provider = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .and(wiremock::matchers::path("/v1/responses"))
        .respond_with(sse::ScriptedTurn)
        .mount(&provider)
        .await;
    let lane = lane_dir(&format!("{}/v1", provider.uri()));
    let port = free_loopback_port().expect("port");
    let gateway = OpenClawGateway::start(&install, &lane.config, &lane.state, port)
        .await
        .expect("gateway starts");
    assert_eq!(gateway.base_url(), format!("http://127.0.0.1:{port}"));
    eprintln!("gateway ready after {:?}", gateway.ready_after());
    let health = reqwest::get(format!("{}/healthz", gateway.base_url()))
        .await
        .expect("GET /healthz");
    expect_200(health.status(), &gateway);
    // A start (and a health check) does not call the provider: the turn below is its first call.
    let before_turn = provider
        .received_requests()
        .await
        .expect("recorded requests");
    assert_eq!(
        before_turn.len(),
        0,
        "the provider was called before any turn"
    );

    let response = one_turn(&gateway).await;
    assert_eq!(
        output_text(&response),
        format!("done: FAKE_PLUGIN_OK {TARGET} {{\"marker\":\"test\"}}")
    );
    the_plugin_capture_holds_the_plugin_only(&lane.state);
    // The Control UI is off: no copy of its assets in the state dir (on, 2026.9.6 has made this
    // directory by the time the first turn is answered, and fills it with 54 MB).
    let assets = lane.state.join("cache").join("control-ui-assets");
    assert!(!assets.exists(), "{} exists", assets.display());
    gateway.stop().await.expect("gateway stops");
    let refused = reqwest::get(format!("http://127.0.0.1:{port}/healthz")).await;
    assert!(
        refused.is_err(),
        "the port still answers after stop: {refused:?}"
    );

    let events = read_transcript(&lane.state, AGENT_ID).expect("transcript");
    let messages: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "message")
        .map(|e| &e["message"])
        .collect();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
    assert_eq!(
        messages[0]["content"],
        format!("please call target={TARGET}")
    );
    let call = &messages[1]["content"][0];
    assert_eq!(call["type"], "toolCall");
    assert_eq!(call["name"], TARGET);
    assert_eq!(call["arguments"], json!({ "marker": "test" }));
    let result = messages[2];
    assert_eq!(result["toolCallId"], call["id"]);
    assert_eq!(result["toolName"], TARGET);
    assert_eq!(
        result["details"],
        json!({ "status": "ok", "tool": TARGET, "input": { "marker": "test" } })
    );
    assert_eq!(
        result["content"][0]["text"],
        format!("FAKE_PLUGIN_OK {TARGET} {{\"marker\":\"test\"}}")
    );
}

/// A release that captures a plugin's sources before loading it (2026.9.6 does, into
/// `<TMPDIR>/plugin-captures` while the gateway runs) copies everything the plugin imports from
/// outside the `openclaw` package: the plugin must import the SDK by its bare name, or every start
/// copies the SDK's import graph (4,279 files on 2026.9.6). Every captured file but the capture's
/// own `owner.sqlite` is one of the plugin's, under `node_modules/<plugin id>/`.
fn the_plugin_capture_holds_the_plugin_only(state: &Path) {
    let captures = state.join("tmp").join("plugin-captures");
    if !captures.is_dir() {
        return;
    }
    let mut files = Vec::new();
    let mut pending = vec![captures.clone()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("read a capture directory") {
            let path = entry.expect("a capture entry").path();
            let kind = std::fs::symlink_metadata(&path).expect("stat").file_type();
            match (kind.is_dir(), kind.is_file()) {
                (true, _) => pending.push(path),
                (_, true) => files.push(path),
                _ => {}
            }
        }
    }
    let plugin = format!("node_modules/{FIXTURE_PLUGIN_ID}/");
    let foreign: Vec<String> = files
        .iter()
        .filter_map(|f| f.strip_prefix(&captures).ok())
        .map(|f| f.to_string_lossy().into_owned())
        .filter(|f| !f.contains(&plugin) && !f.ends_with("/owner.sqlite"))
        .collect();
    assert!(
        files.iter().any(|f| f.ends_with("index.js")),
        "no capture of the plugin's index.js among {files:?}"
    );
    assert!(
        foreign.is_empty(),
        "the product captured {} files that are not the plugin's, first {:?}",
        foreign.len(),
        &foreign[..foreign.len().min(5)]
    );
}

/// Fails with the gateway's log tail unless `status` is 200.
fn expect_200(status: reqwest::StatusCode, gateway: &OpenClawGateway) {
    assert_eq!(status.as_u16(), 200, "log tail:\n{}", gateway.log_tail());
}

async fn one_turn(gateway: &OpenClawGateway) -> Value {
    let body = json!({
        "model": "openclaw/qa",
        "input": [{ "type": "message", "role": "user",
                    "content": [{ "type": "input_text", "text": format!("please call target={TARGET}") }] }],
        "max_output_tokens": 256,
        "stream": false
    });
    let client = reqwest::Client::builder()
        .timeout(TURN_TIMEOUT)
        .build()
        .expect("client");
    let response = client
        .post(format!("{}/v1/responses", gateway.base_url()))
        .header("x-openclaw-agent", AGENT_ID)
        .header("x-openclaw-session-key", "openclaw-real-test")
        .json(&body)
        .send()
        .await
        .expect("POST /v1/responses");
    expect_200(response.status(), gateway);
    response.json().await.expect("JSON response")
}

fn output_text(response: &Value) -> String {
    let items = response["output"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|part| part["text"].as_str().map(str::to_string))
        .collect()
}

/// A two-step scripted model speaking the streamed Responses API: call the target tool, then
/// answer `done: <tool output>`.
mod sse {
    use serde_json::{json, Value};
    use wiremock::{Request, Respond, ResponseTemplate};

    use super::TARGET;

    pub struct ScriptedTurn;

    impl Respond for ScriptedTurn {
        fn respond(&self, request: &Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            let item = match tool_output(&body) {
                Some(output) => json!({
                    "type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
                    "content": [{ "type": "output_text", "text": format!("done: {output}"), "annotations": [] }]
                }),
                None => json!({
                    "type": "function_call", "id": "fc_1", "call_id": "call_1", "name": TARGET,
                    "arguments": json!({ "marker": "test" }).to_string(), "status": "completed"
                }),
            };
            ResponseTemplate::new(200).set_body_raw(stream(item), "text/event-stream")
        }
    }

    /// The text of the last `function_call_output` in the request, if any.
    fn tool_output(body: &Value) -> Option<String> {
        let input = body["input"].as_array()?;
        let output = &input
            .iter()
            .rev()
            .find(|item| item["type"] == "function_call_output")?["output"];
        Some(match output {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
    }

    fn with(mut event: Value, key: &str, value: Value) -> Value {
        event[key] = value;
        event
    }

    /// The event frames of a response whose single output item is `item`.
    fn stream(item: Value) -> String {
        let pending = json!({ "id": "resp_1", "object": "response", "status": "in_progress", "model": "qa", "output": [] });
        let mut done = pending.clone();
        done["status"] = json!("completed");
        done["output"] = json!([item.clone()]);
        done["usage"] = json!({ "input_tokens": 1, "output_tokens": 1, "total_tokens": 2 });
        let id = item["id"].clone();
        let mut events = vec![json!({ "type": "response.created", "response": pending })];
        if item["type"] == "function_call" {
            let arguments = item["arguments"].clone();
            let mut added = item.clone();
            added["arguments"] = json!("");
            events.push(
                json!({ "type": "response.output_item.added", "output_index": 0, "item": added }),
            );
            events.push(
                json!({ "type": "response.function_call_arguments.delta", "output_index": 0,
                                 "item_id": id, "delta": arguments }),
            );
            events.push(
                json!({ "type": "response.function_call_arguments.done", "output_index": 0,
                                 "item_id": id, "arguments": arguments }),
            );
        } else {
            let part = item["content"][0].clone();
            let text = part["text"].clone();
            let mut added = item.clone();
            added["content"] = json!([]);
            let at = |kind: &str| json!({ "type": kind, "output_index": 0, "content_index": 0, "item_id": id });
            events.push(
                json!({ "type": "response.output_item.added", "output_index": 0, "item": added }),
            );
            events.push(with(
                at("response.content_part.added"),
                "part",
                json!({ "type": "output_text", "text": "" }),
            ));
            events.push(with(
                at("response.output_text.delta"),
                "delta",
                text.clone(),
            ));
            events.push(with(at("response.output_text.done"), "text", text));
            events.push(with(at("response.content_part.done"), "part", part));
        }
        events
            .push(json!({ "type": "response.output_item.done", "output_index": 0, "item": item }));
        events.push(json!({ "type": "response.completed", "response": done }));
        events
            .into_iter()
            .enumerate()
            .map(|(seq, mut event)| {
                event["sequence_number"] = json!(seq);
                format!(
                    "event: {}\ndata: {event}\n\n",
                    event["type"].as_str().unwrap_or_default()
                )
            })
            .collect()
    }
}
