//! Whole suite runs on a real OpenClaw gateway (opt-in, like `openclaw_real`): lanes that share
//! one gateway stay isolated and send exactly what they send on a gateway of their own, MCP
//! fixture servers the product starts die with it, and every built-in scenario runs — or is
//! reported not applicable with the scenario's reason.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use toolsearch_qa::outcome::findings::built_in;
use toolsearch_qa::outcome::{ScenarioReport, SnapshotState, SuiteReport};
use toolsearch_qa::scenario::{load_all, scenario_from_json, select, Scenario};
use toolsearch_qa::suite::{run_suite, run_suite_on, ProviderSource, Quiet};
use toolsearch_qa::targets::openclaw::{Installation, OpenClawTarget};
use toolsearch_qa::targets::{Target, MCP_OWNER_ENV};

use crate::openclaw_real::{real_install, ONE_GATEWAY};

/// A two-lane scenario whose turn targets `target`, on the reference scenario's plugin (36 tools),
/// so that it runs on the reference's gateway.
fn two_lanes(id: &str, target: &str, lanes: [(&str, Value); 2]) -> Scenario {
    let lanes: Vec<Value> = lanes
        .into_iter()
        .map(|(name, tool_search)| json!({ "name": name, "tool_search": tool_search }))
        .collect();
    let file = json!({
        "id": id, "title": id, "agent": "qa",
        "prompt": format!("tool search qa check target={target}"),
        "target_tool": target, "max_output_tokens": 256,
        "catalog": { "plugin_id": "tool-search-e2e-fixture", "size": 36 },
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

/// Two scenarios whose lanes have the same names, run on one gateway in the order direct, tools,
/// tools, direct: the first targets `fake_plugin_tool_02`, the second `fake_plugin_tool_03`.
fn two_scenarios_with_the_same_lanes() -> [Scenario; 2] {
    let tools = json!({ "mode": "tools" });
    [
        two_lanes(
            "iso-a",
            "fake_plugin_tool_02",
            [("direct", json!(false)), ("tools", tools.clone())],
        ),
        two_lanes(
            "iso-b",
            "fake_plugin_tool_03",
            [("tools", tools), ("direct", json!(false))],
        ),
    ]
}

/// The two scenarios of [`two_scenarios_with_the_same_lanes`] ran on a shared gateway: every
/// lane ran in its own session under its own config, and saw nothing of another lane's turn.
fn lanes_sharing_one_gateway_stay_isolated(report: &[ScenarioReport]) {
    let [iso_a, iso_b] = report else {
        panic!("two scenarios, got {}", report.len());
    };
    for (scenario, own, other) in [
        (iso_a, "fake_plugin_tool_02", "fake_plugin_tool_03"),
        (iso_b, "fake_plugin_tool_03", "fake_plugin_tool_02"),
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
        // 43 core tools and the plugin's 36.
        assert_eq!(declared("direct"), Some(79), "{}", scenario.scenario);
    }
}

/// Processes whose environment says they serve a lane of `scenario` in this harness process.
fn fixture_processes(scenario: &str) -> Vec<u32> {
    crate::common::marked_processes(&format!(
        "{MCP_OWNER_ENV}={}/{scenario}/",
        std::process::id()
    ))
}

/// The gate's product run, made once, and every property that needs a product run (each checked
/// by a function below): every built-in scenario on the real product from one call, on a gateway
/// per plugin, judged as `toolsearch-qa suite --target openclaw` judges it; the MCP fixture
/// servers the product started gone with its gateway; the reference scenario the same in reverse
/// lane order on a gateway of its own; and the embedded gateway's prediction of it within 2%. This is the gate's product run
/// on the tests' Node major (`.ci/run` runs the command itself on the other one). One run for all
/// of them: each product run of the reference scenario costs a gateway and five lanes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs OpenClaw (bash scripts/install-openclaw.sh)"]
async fn every_built_in_scenario_passes_the_gate_on_the_product() {
    let test = "every_built_in_scenario_passes_the_gate_on_the_product";
    let install = real_install(test);
    let _one_gateway = ONE_GATEWAY.lock().await;
    let target = OpenClawTarget::with_install(install.clone());
    let scenarios = load_all(&[]).expect("built-in scenarios");
    let started = Instant::now();
    let mut report = run_suite(&target, &scenarios).await.expect("a report");
    report.product = target.product();
    eprintln!(
        "{}\n(all built-in scenarios: {:?})",
        report.to_table(),
        started.elapsed()
    );
    every_scenario_ran_on_a_gateway_per_plugin(&target, &report).await;
    passes_the_gate(&target, &mut report, &scenarios);
    no_fixture_server_outlives_the_gateway().await;
    let reference = reference_of(&report);
    the_same_in_reverse_order_on_a_gateway_of_its_own(install, reference, &scenarios).await;
    crate::profile_fidelity::embedded_predicts_the_product(reference).await;
}

/// No lane fails its turn, the scenarios the product cannot produce say why, and lanes share a
/// gateway while their plugin is the same: the ranking scenario writes its own plugin (look-alike
/// descriptions from its template), every other built-in scenario the reference fixture.
async fn every_scenario_ran_on_a_gateway_per_plugin(target: &OpenClawTarget, report: &SuiteReport) {
    let lanes: usize = report.scenarios.iter().map(|s| s.lanes.0.len()).sum();
    // The run groups scenarios by plugin (`Target::run_order`): the reference fixture's
    // scenarios (upstream-* included), then the ranking scenario's own plugin, then
    // code-mode-index-bound's 150-tool plugin, then upstream-mcp-server-exits on a plugin of its
    // own (after its MCP server exits the product's config reloads fail for a while, so nothing
    // runs after it on that gateway): four starts.
    assert_eq!(
        target.gateways_started().await,
        4,
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
            "fail-closed-f4-sandbox-unavailable",
            "tool-search-native-shapes"
        ]
    );
}

/// The run judged as the `suite` command judges it: every snapshot matches the committed one
/// (`snapshots/openclaw-<version>/`), every claim holds or fails exactly as the release's accepted
/// findings say, none is stale, and the reference scenario's accepted claims are exactly the
/// committed ones.
fn passes_the_gate(target: &OpenClawTarget, report: &mut SuiteReport, scenarios: &[Scenario]) {
    let label = target.label().expect("a real target has a label");
    toolsearch_qa::suite::snapshot::record_all(
        report,
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("snapshots")
            .join(&label),
        false,
        "toolsearch-qa suite --target openclaw --update-snapshots",
    )
    .expect("snapshots readable");
    let changed: Vec<String> = report
        .scenarios
        .iter()
        .flat_map(|s| &s.snapshots)
        .filter(|s| s.status != SnapshotState::Same)
        .map(|s| {
            let diff = s.diff.clone().unwrap_or_default();
            format!("{} {:?}\n{diff}", s.name, s.status)
        })
        .collect();
    assert!(
        changed.is_empty(),
        "snapshots differ:\n{}",
        changed.join("\n")
    );
    let expectations = built_in(&label, scenarios)
        .expect("the committed expectations load")
        .expect("a committed expectations file for this version");
    toolsearch_qa::suite::findings::record(report, &expectations, scenarios);
    let verdict = report.verdict();
    assert!(verdict.passed(), "the gate fails:\n{}", report.to_table());
    assert_eq!(
        (verdict.claims.failed, verdict.findings.stale),
        (0, 0),
        "{}",
        report.to_table()
    );
    // Fifteen of the reference scenario's claims accepted, one per lane and claim of the
    // committed findings: L1 on every lane, C6's independent counts on code, T1's catalog_size
    // on tools, directory and batch, P1's follow-up history on every lane, and I1 on batch (no
    // tool_search on /tools/invoke).
    let accepted = reference_of(report)
        .claims
        .iter()
        .filter(|c| c.is_accepted())
        .count();
    assert_eq!(accepted, 15, "{}", report.to_table());
}

/// The MCP fixture servers the product started for the run are gone once its gateway is.
async fn no_fixture_server_outlives_the_gateway() {
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

fn reference_of(report: &SuiteReport) -> &ScenarioReport {
    report
        .scenarios
        .iter()
        .find(|s| s.scenario == "tool-search-gateway-e2e")
        .expect("the reference scenario ran")
}

/// What may differ between two runs of the same lane: ports, temp paths, session ids, the
/// minute stamped on the user's message.
fn normalised(request: &Value) -> String {
    let text = toolsearch_qa::suite::snapshot::redact(&request.to_string());
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
        .expect("regex");
    let minute = regex::Regex::new(r"\[\w{3} \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\]").expect("regex");
    let text = uuid.replace_all(&text, "[uuid]");
    minute.replace_all(&text, "[minute]").into_owned()
}

/// The reference scenario run again on a gateway of its own, its lanes in reverse order, sends
/// the provider, lane by lane, exactly what it sent on the run's shared gateway (after every
/// scenario's lanes before it, its config hot-reloaded), and every snapshot is byte-identical:
/// runs are deterministic, and what a lane measures depends neither on the lanes before it nor
/// on whether its gateway is fresh (the last lane of the shared run is the first here, on a new
/// gateway; the first there, on a new gateway, is the last here, after four reloads). The same
/// gateway then runs two scenarios whose lanes have the same names, alternating
/// ([`lanes_sharing_one_gateway_stay_isolated`]). One gateway start for both properties, where
/// a gateway per lane cost five and the isolation check a sixth: the CI budget (docs/ci.md).
async fn the_same_in_reverse_order_on_a_gateway_of_its_own(
    install: Installation,
    shared: &ScenarioReport,
    scenarios: &[Scenario],
) {
    let mut run = select(scenarios.to_vec(), &["tool-search-gateway-e2e".into()]).unwrap();
    run[0].lanes.reverse();
    let reference = run.clone();
    run.extend(two_scenarios_with_the_same_lanes());
    let own = OpenClawTarget::with_install(install);
    let reversed = run_suite_on(&own, &run, &ProviderSource::Mock, &Quiet)
        .await
        .expect("every lane ran");
    lanes_sharing_one_gateway_stay_isolated(&reversed.scenarios[1..]);
    // The lanes the product runs (the native lanes are the embedded gateway's alone).
    let product_lanes: Vec<_> = reference[0]
        .lanes
        .iter()
        .filter(|l| l.openclaw.not_applicable.is_none())
        .collect();
    let names: Vec<&str> = product_lanes.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["batch", "directory", "code", "tools", "direct"]);
    assert_eq!(
        own.gateways_started().await,
        1,
        "one gateway for the reversed reference and the two scenarios, reloaded per lane"
    );
    let reversed = &reversed.scenarios[0];
    for lane in product_lanes {
        let shared_requests = requests(shared, &lane.name);
        let reversed_requests = requests(reversed, &lane.name);
        assert_eq!(
            shared_requests.len(),
            reversed_requests.len(),
            "lane {}",
            lane.name
        );
        for (i, (a, b)) in shared_requests.iter().zip(&reversed_requests).enumerate() {
            assert_eq!(
                normalised(a),
                normalised(b),
                "lane {} request {}: in reverse order it sent something else",
                lane.name,
                i + 1
            );
        }
    }
    let by_name = |report: &ScenarioReport| -> std::collections::BTreeMap<String, String> {
        report.snapshot_contents.iter().cloned().collect()
    };
    let (shared, reversed) = (by_name(shared), by_name(reversed));
    assert_eq!(
        shared.keys().collect::<Vec<_>>(),
        reversed.keys().collect::<Vec<_>>()
    );
    let differing: Vec<String> = shared
        .iter()
        .filter(|(name, a)| reversed[*name] != **a)
        .map(|(name, a)| {
            let diff = similar::TextDiff::from_lines(a, &reversed[name])
                .unified_diff()
                .context_radius(1)
                .to_string();
            format!("{name}:\n{diff}")
        })
        .collect();
    assert!(
        differing.is_empty(),
        "two runs, different snapshots:\n{}",
        differing.join("\n")
    );
}
