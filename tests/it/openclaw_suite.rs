//! Whole suite runs on a real OpenClaw gateway (opt-in, like `openclaw_real`): lanes that share
//! one gateway stay isolated and send exactly what they send on a gateway of their own, MCP
//! fixture servers the product starts die with it, and every built-in scenario runs — or is
//! reported not applicable with the scenario's reason.

use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolsearch_qa::scenario::{load_all, scenario_from_json, Scenario};
use toolsearch_qa::suite::report::ScenarioReport;
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::openclaw::OpenClawTarget;
use toolsearch_qa::targets::MCP_OWNER_ENV;

use crate::openclaw_real::{real_install, ONE_GATEWAY};

/// A two-lane scenario on a 3-tool plugin whose turn targets `target`.
fn two_lanes(id: &str, target: &str, lanes: [(&str, Value); 2]) -> Scenario {
    let lanes: Vec<Value> = lanes
        .into_iter()
        .map(|(name, tool_search)| json!({ "name": name, "tool_search": tool_search }))
        .collect();
    let file = json!({
        "id": id, "title": id, "agent": "qa",
        "prompt": format!("tool search qa check target={target}"),
        "target_tool": target, "max_output_tokens": 256,
        "catalog": { "plugin_id": "tool-search-e2e-fixture", "size": 3 },
        "claims": [{ "id": "C1" }, { "id": "C2" }],
        "lanes": lanes,
    });
    scenario_from_json(file, id).expect("scenario")
}

/// The provider request bodies of one lane, from the scenario's snapshot contents.
fn requests(report: &ScenarioReport, lane: &str) -> Vec<Value> {
    let name = format!("{}__{lane}__provider", report.scenario);
    let text = report
        .snapshot_contents
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| c.clone())
        .unwrap_or_else(|| panic!("no provider snapshot {name}"));
    serde_json::from_str::<Vec<Value>>(&text).expect("provider payloads are JSON")
}

/// The lane's session-log records (as the harness translated the product's transcript), from the
/// session snapshot's outline (`{events, records}`).
fn session(report: &ScenarioReport, lane: &str) -> Vec<Value> {
    let name = format!("{}__{lane}__session", report.scenario);
    let text = report
        .snapshot_contents
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| c.clone())
        .unwrap_or_else(|| panic!("no session snapshot {name}"));
    let outline: Value = serde_json::from_str(&text).expect("the session snapshot is JSON");
    serde_json::from_value(outline["records"].clone()).expect("the session snapshot has records")
}

/// Everything but the system prompt of a request: what the conversation carried.
fn conversation(request: &Value) -> String {
    let items = request["input"].as_array().cloned().unwrap_or_default();
    items
        .iter()
        .filter(|item| item["role"] != "system")
        .map(Value::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Two scenarios whose lanes have the same names run on one gateway, in the order direct,
/// tools, tools, direct: every lane runs in its own session under its own config, and sees
/// nothing of another lane's turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lanes_sharing_one_gateway_stay_isolated() {
    let Some(install) = real_install("lanes_sharing_one_gateway_stay_isolated") else {
        return;
    };
    let _one_gateway = ONE_GATEWAY.lock().await;
    let target = OpenClawTarget::with_install(install);
    let tools = json!({ "mode": "tools" });
    let a = two_lanes(
        "iso-a",
        "fake_plugin_tool_02",
        [("direct", json!(false)), ("tools", tools.clone())],
    );
    let b = two_lanes(
        "iso-b",
        "fake_plugin_tool_03",
        [("tools", tools), ("direct", json!(false))],
    );
    let report = run_suite(&target, &[a, b]).await.expect("a report");
    assert_eq!(
        target.gateways_started().await,
        1,
        "one gateway served every lane"
    );
    for (scenario, own, other) in [
        (
            &report.scenarios[0],
            "fake_plugin_tool_02",
            "fake_plugin_tool_03",
        ),
        (
            &report.scenarios[1],
            "fake_plugin_tool_03",
            "fake_plugin_tool_02",
        ),
    ] {
        assert!(scenario.errors.is_empty(), "{:?}", scenario.errors);
        for lane in ["direct", "tools"] {
            let at = format!("{} {lane}", scenario.scenario);
            let figures = scenario.lanes.get(lane).expect("lane ran");
            assert_eq!(
                figures.gateway_output_text,
                format!("FAKE_PLUGIN_OK {own}"),
                "{at}"
            );
            let requests = requests(scenario, lane);
            let first = conversation(&requests[0]);
            assert!(
                !first.contains("function_call"),
                "{at}: the first request carries an earlier turn: {first}"
            );
            for request in &requests {
                let talk = conversation(request);
                assert!(talk.contains(own), "{at}: {talk}");
                assert!(
                    !talk.contains(other),
                    "{at} sees the other lane's turn: {talk}"
                );
            }
            let records = session(scenario, lane);
            let users: Vec<&Value> = records
                .iter()
                .filter(|r| r["type"] == "message" && r["role"] == "user")
                .collect();
            let own_prompt = format!("tool search qa check target={own}");
            assert!(
                users.iter().any(|u| u.to_string().contains(&own_prompt)),
                "{at}: {users:?}"
            );
            assert!(
                users.iter().all(|u| !u.to_string().contains(other)),
                "{at}: the session log has another lane's turn: {users:?}"
            );
        }
        // Each lane ran under its own config, although the order alternated.
        let declared = |lane: &str| {
            scenario
                .lanes
                .get(lane)
                .map(|f| f.provider_declared_tool_count)
        };
        assert_eq!(declared("tools"), Some(12), "{}", scenario.scenario);
        // 43 core tools and the plugin's 3.
        assert_eq!(declared("direct"), Some(46), "{}", scenario.scenario);
    }
}

/// Processes whose environment says they serve a lane of `scenario` in this harness process.
fn fixture_processes(scenario: &str) -> Vec<u32> {
    let owner = format!("{MCP_OWNER_ENV}={}/{scenario}/", std::process::id());
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(") ")
                .is_some_and(|(_, s)| s.starts_with('Z'));
            !zombie && String::from_utf8_lossy(&environ).contains(&owner)
        })
        .collect()
}

/// Every built-in scenario on the real product from one call: no lane is an infrastructure
/// error, the scenarios the product cannot produce say so, and the MCP fixture servers the
/// product started are gone once the run's gateway is.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_built_in_scenario_runs_on_the_product() {
    let Some(install) = real_install("every_built_in_scenario_runs_on_the_product") else {
        return;
    };
    let _one_gateway = ONE_GATEWAY.lock().await;
    let target = OpenClawTarget::with_install(install);
    let scenarios = load_all(&[]).expect("built-in scenarios");
    let started = Instant::now();
    let report = run_suite(&target, &scenarios).await.expect("a report");
    eprintln!(
        "{}\n(all built-in scenarios: {:?})",
        report.to_table(),
        started.elapsed()
    );
    // No lane fails its turn, and lanes share a gateway while their plugin is the same: the
    // ranking scenario writes its own plugin (look-alike descriptions from its template), every
    // other built-in scenario the reference fixture: two gateways.
    let lanes: usize = report.scenarios.iter().map(|s| s.lanes.0.len()).sum();
    assert_eq!(
        target.gateways_started().await,
        2,
        "gateways started for {lanes} lanes"
    );
    for scenario in &report.scenarios {
        assert!(
            scenario.errors.is_empty(),
            "{}: {:?}",
            scenario.scenario,
            scenario.errors
        );
        let ran = scenario.lanes.0.len();
        let skipped = scenario.not_applicable.len();
        assert!(ran + skipped > 0, "{}: no lane", scenario.scenario);
        assert!(
            scenario
                .not_applicable
                .iter()
                .all(|n| !n.reason.trim().is_empty()),
            "{}",
            scenario.scenario
        );
    }
    let not_applicable: Vec<&str> = report
        .scenarios
        .iter()
        .filter(|s| s.lanes.0.is_empty())
        .map(|s| s.scenario.as_str())
        .collect();
    assert_eq!(
        not_applicable,
        [
            "fail-closed-f2-withdrawn",
            "fail-closed-f4-sandbox-unavailable"
        ]
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fixture_processes("tool-search-mcp-target").is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        fixture_processes("tool-search-mcp-target"),
        Vec::<u32>::new(),
        "MCP fixture servers outlived the gateway"
    );
}

/// What may differ between two runs of the same lane: ports, temp paths, session ids, the
/// minute stamped on the user's message.
fn normalised(request: &Value) -> String {
    let text = toolsearch_qa::suite::report::snapshot::redact(&request.to_string());
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        .expect("regex");
    let minute = regex::Regex::new(r"\[\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\]").expect("regex");
    let text = uuid.replace_all(&text, "[uuid]");
    minute.replace_all(&text, "[minute]").into_owned()
}

/// Every lane of the reference scenario sends the provider, on the run's shared gateway (after
/// the lanes before it, its config hot-reloaded), exactly what it sends on a fresh gateway of its
/// own: what a lane measures does not depend on the lanes before it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_lane_on_a_shared_gateway_sends_what_it_sends_alone() {
    let Some(install) = real_install("every_lane_on_a_shared_gateway_sends_what_it_sends_alone")
    else {
        return;
    };
    let _one_gateway = ONE_GATEWAY.lock().await;
    let all = load_all(&[]).expect("built-in scenarios");
    let reference = all
        .iter()
        .find(|s| s.id == "tool-search-gateway-e2e")
        .expect("reference")
        .clone();
    let shared = OpenClawTarget::with_install(install.clone());
    let together = run_suite(&shared, std::slice::from_ref(&reference))
        .await
        .expect("a report");
    assert_eq!(
        shared.gateways_started().await,
        1,
        "one gateway for the run"
    );
    let fresh = OpenClawTarget::with_install(install).gateway_per_lane();
    let alone = run_suite(&fresh, std::slice::from_ref(&reference))
        .await
        .expect("a report");
    assert_eq!(
        fresh.gateways_started().await,
        reference.lanes.len(),
        "a gateway per lane"
    );
    for lane in &reference.lanes {
        let shared_requests = requests(&together.scenarios[0], &lane.name);
        let fresh_requests = requests(&alone.scenarios[0], &lane.name);
        assert_eq!(
            shared_requests.len(),
            fresh_requests.len(),
            "lane {}",
            lane.name
        );
        for (i, (a, b)) in shared_requests.iter().zip(&fresh_requests).enumerate() {
            assert_eq!(
                normalised(a),
                normalised(b),
                "lane {} request {}: on the shared gateway it sent something else",
                lane.name,
                i + 1
            );
        }
    }
}
