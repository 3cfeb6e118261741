//! The node backend's children never outlive their gateway: not when the gateway stops, and
//! not when its process is killed outright while a child is busy running code (an idle child
//! would also leave when its stdin closes; a busy one only goes because its jail dies with the
//! gateway). Each case runs `toolsearch-qa gateway` with code mode on the node backend as a
//! child process, waits until its children are up, stops the gateway, and waits for every
//! process below it to be gone. `#[ignore]`d: the jailed node sandbox needs root, node 20-25
//! and util-linux, so a plain `cargo test` lists them as not run; with `--ignored` (CI:
//! `--run-ignored all`) a machine where the jail cannot run fails them.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use toolsearch_qa::load::process::{command_line, descendants};
use toolsearch_qa::provider::{MockProvider, ProviderOptions, ScriptedTurn};

/// The longest the checks wait for processes to appear or to go (a liveness bound, not a timing).
const PATIENCE: Duration = Duration::from_secs(20);

fn alive(pids: &HashSet<u32>) -> Vec<u32> {
    pids.iter()
        .copied()
        .filter(|pid| std::path::Path::new(&format!("/proc/{pid}")).exists())
        .filter(|pid| {
            // A zombie has no command line left; it is gone for our purposes.
            !command_line(*pid).is_empty()
        })
        .collect()
}

/// A provider whose model runs code that never ends.
async fn endless_code_provider() -> MockProvider {
    MockProvider::start_with(ProviderOptions {
        script: Some(vec![ScriptedTurn::ToolCall {
            name: "tool_search_code".into(),
            arguments: json!({ "code": "for (;;) {}" }),
        }]),
        ..ProviderOptions::default()
    })
    .await
    .expect("start the mock provider")
}

/// Starts `toolsearch-qa gateway` in node code mode; returns it and its URL once it listens.
fn start_gateway(dir: &std::path::Path, provider: &MockProvider) -> (Child, String) {
    let config = json!({
        "models": { "providers": { "mock": { "baseUrl": provider.base_url() } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": "qa" }] },
        "tools": { "toolSearch": { "mode": "code", "sandbox": "node", "codeTimeoutMs": 120000 } },
        "catalog": { "fakePlugin": { "id": "fixture", "size": 5 } },
    });
    let path = dir.join("gateway.json5");
    std::fs::write(&path, config.to_string()).expect("write the config");
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("toolsearch-qa"))
        .args(["gateway", "--config"])
        .arg(&path)
        .arg("--state-dir")
        .arg(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the gateway");
    let stdout = child.stdout.take().expect("gateway stdout");
    let mut line = String::new();
    let read = BufReader::new(stdout).read_line(&mut line);
    let url = line
        .strip_prefix("gateway listening: ")
        .and_then(|rest| rest.split_whitespace().next())
        .map(str::to_string);
    let Some(url) = url else {
        panic!("the gateway did not start: {read:?}, {line:?}");
    };
    (child, url)
}

/// Starts a turn whose code runs forever (its answer never comes; the gateway is stopped first).
fn start_endless_turn(url: &str) {
    let url = format!("{url}/v1/responses");
    tokio::spawn(async move {
        let _never = reqwest::Client::new()
            .post(url)
            .header("x-openclaw-agent", "qa")
            .json(&json!({ "model": "openclaw/qa", "input": "run forever" }))
            .send()
            .await;
    });
}

/// The gateway's processes once `nodes` jailed node children are up.
async fn children_with_nodes(gateway: u32, nodes: usize) -> HashSet<u32> {
    let started = Instant::now();
    loop {
        let below = descendants(gateway);
        let running = below
            .iter()
            .filter(|pid| command_line(**pid).starts_with("/node "))
            .count();
        if running == nodes {
            return below;
        }
        assert!(
            started.elapsed() < PATIENCE,
            "{nodes} node children did not start: {below:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// CPU time `pid` has used, in clock ticks (`utime + stime` of its `stat`).
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    field(11) + field(12)
}

/// A gateway with its two warm children and one running endless code (it has burnt half a
/// second of CPU, far beyond a child that only started); all its processes.
async fn busy_gateway(dir: &std::path::Path, provider: &MockProvider) -> (Child, HashSet<u32>) {
    let (gateway, url) = start_gateway(dir, provider);
    children_with_nodes(gateway.id(), 2).await;
    start_endless_turn(&url);
    let started = Instant::now();
    loop {
        let children = children_with_nodes(gateway.id(), 3).await;
        if children.iter().any(|pid| cpu_ticks(*pid) >= 50) {
            return (gateway, children);
        }
        assert!(
            started.elapsed() < PATIENCE,
            "no child ran the endless code"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn wait_gone(pids: &HashSet<u32>, what: &str) {
    let started = Instant::now();
    while !alive(pids).is_empty() {
        assert!(
            started.elapsed() < PATIENCE,
            "{what}: still running: {:?}",
            alive(pids)
                .iter()
                .map(|pid| (pid, command_line(*pid)))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn signal(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill {signal} failed");
}

#[tokio::test]
#[ignore = "needs the jailed node sandbox (root, node 20-25 on PATH, util-linux)"]
async fn warm_children_end_when_the_gateway_stops() {
    crate::common::require_node_jail("warm_children_end_when_the_gateway_stops", None);
    let provider = endless_code_provider().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut gateway, _url) = start_gateway(dir.path(), &provider);
    let children = children_with_nodes(gateway.id(), 2).await;
    signal(&gateway, "-INT");
    let status = gateway.wait().expect("wait for the gateway");
    assert_eq!(status.code(), Some(0));
    wait_gone(&children, "after a graceful stop");
}

#[tokio::test]
#[ignore = "needs the jailed node sandbox (root, node 20-25 on PATH, util-linux)"]
async fn busy_and_warm_children_end_when_the_gateway_process_is_killed() {
    crate::common::require_node_jail(
        "busy_and_warm_children_end_when_the_gateway_process_is_killed",
        None,
    );
    let provider = endless_code_provider().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut gateway, children) = busy_gateway(dir.path(), &provider).await;
    signal(&gateway, "-KILL");
    let _status = gateway.wait();

    wait_gone(&children, "after SIGKILL");
}
