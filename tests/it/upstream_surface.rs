//! The upstream surface (`data/profiles/openclaw-upstream.toml`: `dispatch_action`, tools and
//! directory only, on when unset) on the embedded gateway: the reference scenario holds every
//! claim under that surface's meaning, its code lane is not applicable with the reason, and a
//! config that asks for what the surface lacks is refused naming the key.

use assert_cmd::Command;
use serde_json::{json, Value};
use toolsearch_qa::config::ToolSearchMode;
use toolsearch_qa::outcome::SuiteReport;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::openclaw::{Installation, OpenClawTarget, ReleaseCatalogue};
use toolsearch_qa::targets::{EmbeddedTarget, Target};

const UPSTREAM: &str = "openclaw-upstream";

async fn reference_report(profile: &str) -> SuiteReport {
    let mut scenarios =
        select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    scenarios[0].set_profile(toolsearch_qa::profile::resolve(profile).unwrap());
    run_suite(&EmbeddedTarget, &scenarios).await.unwrap()
}

/// The always-declared core tools of the 2026.9.6 capture (the upstream profile keeps them)
/// and `controls`, sorted.
fn declared_with(controls: &[&str]) -> Value {
    let release = ReleaseCatalogue::current()
        .unwrap()
        .find(&"2026.9.6".parse().unwrap())
        .unwrap()
        .release;
    let mut names: Vec<String> = release.direct_only();
    names.extend(controls.iter().map(|c| c.to_string()));
    names.sort_unstable();
    json!(names)
}

/// The reference scenario's native lanes.
const NO: &str = "native-openai";
const NOC: &str = "native-openai-client";
const NA: &str = "native-anthropic";
const NAR: &str = "native-anthropic-regex";

#[tokio::test]
async fn the_reference_scenario_holds_under_the_upstream_surface() {
    let report = reference_report(UPSTREAM).await;
    assert!(report.verdict().passed(), "{}", report.to_json());
    let scenario = &report.scenarios[0];
    let claims: Vec<(&str, &str, bool)> = scenario
        .claims
        .iter()
        .map(|c| (c.claim.as_str(), c.lane.as_str(), c.ok))
        .collect();
    let mut want = Vec::new();
    for (claim, lanes) in [
        ("C1", &["direct"][..]),
        ("C2", &["tools", "directory", "batch"]),
        ("C3", &["direct"]),
        ("C4", &["tools", "directory", "batch"]),
        ("C5", &["tools", "directory", "batch"]),
        ("C6", &["direct", "tools", "directory", "batch"]),
        ("D1", &["direct", "tools", "directory", "batch"]),
        ("N1", &["direct", "tools", "directory", "batch"]),
        // The batch lane's script names `tool_call`: on this surface it calls `dispatch_action`.
        ("B1", &["batch"]),
        // The invoke batch runs the surface's search control, `tool_search` here too.
        ("I1", &["batch"]),
        ("E1", &["direct", "tools"]),
        ("L1", &["direct", "tools", "directory", "batch"]),
        (
            "P1",
            &["direct", "tools", "directory", "batch", NO, NOC, NA, NAR],
        ),
        (
            "T1",
            &["direct", "tools", "directory", "batch", NO, NOC, NA, NAR],
        ),
        // The native lanes do not use the surface's bridge: they hold there too.
        ("V1", &[NO, NOC, NA, NAR]),
        ("V2", &[NO, NOC, NA, NAR]),
        ("V3", &[NO, NOC, NA, NAR]),
    ] {
        want.extend(lanes.iter().map(|lane| (claim, *lane, true)));
    }
    assert_eq!(claims, want);
    let not_applicable = serde_json::to_value(&scenario.not_applicable).unwrap();
    assert_eq!(
        not_applicable,
        json!([{ "lane": "code",
                 "reason": "profile openclaw-upstream has no code mode (its modes: tools, directory)" }])
    );

    let json = serde_json::to_value(scenario).unwrap();
    let lanes = &json["lanes"];
    assert_eq!(lanes.as_object().unwrap().len(), 8);
    assert_eq!(lanes["direct"]["providerDeclaredToolCount"], 79);
    assert_eq!(
        lanes["direct"]["providerPlannedTools"],
        json!(["fake_plugin_tool_17", null])
    );
    for lane in ["tools", "directory"] {
        let l = &lanes[lane];
        assert_eq!(l["providerRequestCount"], 3, "{lane}");
        assert_eq!(
            l["providerDeclaredToolNames"],
            declared_with(&["dispatch_action", "tool_describe", "tool_search"]),
            "{lane}"
        );
        assert_eq!(
            l["providerPlannedTools"],
            json!(["tool_search", "dispatch_action", null]),
            "{lane}"
        );
        assert_eq!(
            l["gatewayOutputText"], "FAKE_PLUGIN_OK fake_plugin_tool_17",
            "{lane}"
        );
        let log = &l["sessionLog"];
        assert_eq!(
            (&log["searches"], &log["describes"], &log["calls"]),
            (&json!(1), &json!(0), &json!(1)),
            "{lane}"
        );
        assert_eq!(log["catalogSize"], 77, "{lane}");
        assert_eq!(log["finalTool"], "fake_plugin_tool_17", "{lane}");
        assert_eq!(log["bridgedCalls"], 1, "{lane}");
        assert_eq!(l["directory"]["lines"], 70, "{lane}");
        assert_eq!(l["directory"]["namesTarget"], true, "{lane}");
    }
    assert_eq!(json["reduction"]["tools"]["declaredTools"], 67);
}

#[test]
fn the_profile_names_the_embedded_bridge_and_the_product_keeps_its_own() {
    let mut scenarios =
        select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    scenarios[0].set_profile(toolsearch_qa::profile::resolve(UPSTREAM).unwrap());
    assert_eq!(
        EmbeddedTarget.surface(&scenarios[0]).bridge().call,
        "dispatch_action"
    );
    // `--target both --profile openclaw-upstream`: a real gateway keeps its release's names and
    // core tools (data/releases/openclaw-<v>.toml), whatever the profile says.
    for (version, core_tools) in [("2026.9.6", 9), ("2026.8.2", 7)] {
        let product = OpenClawTarget::with_install(Installation {
            node: "node".into(),
            node_version: "26.1.0".into(),
            openclaw_mjs: "openclaw.mjs".into(),
            plugin_entry_js: "plugin-entry.js".into(),
            version: version.into(),
            prefix: "prefix".into(),
            package: "prefix/node_modules/openclaw".into(),
        });
        let surface = product.surface(&scenarios[0]);
        assert_eq!(surface.bridge().call, "tool_call", "{version}");
        assert_eq!(surface.bridge().code.as_deref(), Some("tool_search_code"));
        assert_eq!(surface.direct_only.len(), core_tools, "{version}");
        let unset = surface.rules.when_unset.as_str();
        assert_eq!(
            unset,
            if version == "2026.9.6" {
                "tools"
            } else {
                "direct"
            }
        );
        assert_eq!(
            surface.direct_only.contains(&"ls".into()),
            version == "2026.9.6"
        );
    }
}

#[tokio::test]
async fn the_bridge_name_and_the_fixture_s_wording_change_the_bytes_against_2026_9_6() {
    let (upstream, product) = (
        reference_report(UPSTREAM).await,
        reference_report("openclaw-2026.9.6").await,
    );
    let bytes = |r: &SuiteReport, lane: &str| {
        serde_json::to_value(&r.scenarios[0]).unwrap()["lanes"][lane]["firstRequestBytes"]
            .as_u64()
            .unwrap()
    };
    // The direct lane declares the 36 fake tools, each described in 29 more characters (ASCII,
    // nothing to escape): upstream's fixture wording against 2026.9.6's.
    assert_eq!(
        bytes(&upstream, "direct"),
        bytes(&product, "direct") + 36 * 29
    );
    // `dispatch_action` is 6 characters longer than `tool_call`, and it is written twice in the
    // first request: its declaration's name and its line in the prompt's tool list. The
    // directory cuts every fake description to 64 characters, whichever wording.
    for lane in ["tools", "directory"] {
        assert_eq!(
            bytes(&upstream, lane),
            bytes(&product, lane) + 2 * 6,
            "{lane}"
        );
    }
}

/// The profile states upstream's facts as data: search limits, batch bounds, the directory's
/// cap and how it scales, and the fixture's wording (which a scenario under it takes).
#[test]
fn the_upstream_profile_states_limits_batch_bounds_directory_scaling_and_wording() {
    use toolsearch_qa::config::{BatchRules, LimitRules, QueryBound};
    use toolsearch_qa::profile::model::ContextScale;
    let profile = toolsearch_qa::profile::resolve(UPSTREAM).unwrap();
    let rules = &profile.tool_search;
    assert_eq!(rules.limits, LimitRules::SPEC);
    assert_eq!(
        (
            rules.limits.default,
            rules.limits.max,
            rules.limits.max_clamp
        ),
        (8, 20, 50)
    );
    assert_eq!(
        rules.batch,
        BatchRules {
            max_queries: 16,
            max_query: QueryBound::Chars(512),
            queries_json_bytes: Some(512),
            max_candidates: 50,
            answer_chars: 4000,
        }
    );
    let captured = profile.captured().unwrap();
    let directory = &captured.directory;
    assert_eq!(directory.max_chars, 18_000);
    assert_eq!(
        directory.context_scale,
        Some(ContextScale {
            tokens_per_char: 10,
            min_chars: 768
        })
    );
    assert_eq!(directory.bound(None), 18_000);
    assert_eq!(directory.bound(Some(128_000)), 12_800);
    assert_eq!(directory.bound(Some(200_000)), 18_000);
    assert_eq!(directory.bound(Some(2_000)), 768);

    // Upstream's fixture: "Fake plugin tool 17." and two sentences, 270 characters in all.
    let mut scenarios =
        select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    let ours = scenarios[0].catalog.fake_tools()[16].description.clone();
    scenarios[0].set_profile(profile.clone());
    let tools = scenarios[0].catalog.fake_tools();
    let target = &tools[16];
    assert_eq!(target.name, "fake_plugin_tool_17");
    assert_eq!(
        (target.description.chars().count(), target.description.len()),
        (270, 270)
    );
    assert_eq!(ours.chars().count(), 241);
    assert!(target
        .description
        .starts_with("Fake plugin tool 17. It stands for one tool"));
    assert!(target
        .description
        .contains("still reached through structured Tool Search."));
    // A scenario's own wording wins over the profile's.
    scenarios[0].catalog.description_template = Some("Tool {n}.".into());
    assert_eq!(
        scenarios[0].catalog.fake_tools()[16].description,
        "Tool 17."
    );
    // Back on 2026.9.6 the scenario has its own three sentences again.
    scenarios[0].catalog.description_template = None;
    scenarios[0].set_profile(toolsearch_qa::profile::resolve("openclaw-2026.9.6").unwrap());
    assert_eq!(scenarios[0].catalog.fake_tools()[16].description, ours);
}

/// The directory section's body in a request's system prompt (between its heading line and
/// the next section's).
fn directory_body(request: &Value) -> String {
    let prompt = request["input"][0]["content"][0]["text"].as_str().unwrap();
    let start = prompt.find("### Deferred Tool Schemas\n").unwrap() + 26;
    let end = start + prompt[start..].find("## Tool Call Style\n").unwrap();
    prompt[start..end].to_string()
}

/// The embedded gateway bounds the upstream directory by the primary model's `contextWindow`
/// (1,000 fake tools do not fit in any of these): 10 tokens a character, at least 768, at
/// most 18,000; a model without one gets the cap.
#[tokio::test]
async fn the_directory_follows_the_model_s_context_window() {
    let provider = toolsearch_qa::provider::MockProvider::start()
        .await
        .unwrap();
    let mut sizes = Vec::new();
    for (window, bound) in [
        (Some(60_000), 6_000),
        (Some(128_000), 12_800),
        (Some(4_000), 768),
        (Some(1_000_000), 18_000),
        (None, 18_000),
    ] {
        let mut model = json!({ "id": "qa" });
        if let Some(window) = window {
            model["contextWindow"] = json!(window);
        }
        let config = json!({
            "models": { "providers": { "mock": {
                "baseUrl": provider.base_url(), "models": [model] } } },
            "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": "qa" }] },
            "tools": { "toolSearch": { "mode": "tools" } },
            "catalog": { "fakePlugin": { "id": "fixture", "size": 1000 }, "profile": UPSTREAM },
        });
        let (gateway, _state) = crate::common::start_gateway(&config).await;
        let before = provider.journal().all().len();
        let response = reqwest::Client::new()
            .post(format!("{}/v1/responses", gateway.base_url()))
            .header("x-openclaw-agent", "qa")
            .header("content-type", "application/json")
            .body(json!({ "model": "openclaw/qa", "input": "hello", "stream": false }).to_string())
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), 200, "{window:?}");
        let request = provider.journal().all()[before].body.clone();
        let body = directory_body(&request);
        let chars = body.chars().count();
        let listed = body
            .lines()
            .filter(|l| l.starts_with("- fake_plugin_tool_"))
            .count();
        if bound == 768 {
            // The section's own text (33 + 1,364 characters) is over the floor: no tool is
            // listed, only the count of those left out ("1000" and its 27 characters).
            assert_eq!((listed, chars), (0, 33 + 1364 + 4 + 27), "{window:?}");
        } else {
            let line = "- fake_plugin_tool_1000 (fixture)\n".len();
            assert!(
                chars <= bound && chars + line > bound,
                "{window:?}: {chars} characters for a bound of {bound}"
            );
            assert!(listed > 0 && listed < 1000, "{window:?}: {listed}");
        }
        sizes.push(chars);
    }
    // The same cap without a window as with a window past it; a smaller window, less listed.
    assert_eq!(sizes[3], sizes[4]);
    assert!(sizes[0] < sizes[1] && sizes[1] < sizes[4], "{sizes:?}");
}

#[test]
fn the_suite_command_passes_on_the_upstream_profile() {
    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args([
            "suite",
            "--scenario",
            "tool-search-gateway-e2e",
            "--no-snapshots",
            "--format",
            "json",
            "--profile",
            UPSTREAM,
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let scenario = &report["scenarios"][0];
    assert_eq!(scenario["profile"], UPSTREAM);
    assert_eq!(scenario["notApplicable"][0]["lane"], "code");
    let claims = scenario["claims"].as_array().unwrap();
    assert_eq!(claims.len(), 59);
    assert!(claims.iter().all(|c| c["ok"] == true), "{claims:#?}");
}

/// A gateway config with `tools` (no `toolSearch` unless given) on the upstream profile.
fn upstream_config(tools: Value) -> String {
    json!({
        "models": { "providers": { "mock": { "baseUrl": "http://127.0.0.1:9/v1" } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } } },
        "tools": tools,
        "catalog": { "fakePlugin": { "id": "fixture", "size": 5 }, "profile": UPSTREAM },
    })
    .to_string()
}

fn gateway_state(
    tools: Value,
) -> Result<toolsearch_qa::gateway::GatewayState, toolsearch_qa::gateway::GatewayError> {
    let config = toolsearch_qa::config::parse(&upstream_config(tools), "test config").unwrap();
    let state = tempfile::tempdir().unwrap();
    toolsearch_qa::gateway::GatewayState::new(config, state.path().to_path_buf())
}

#[test]
fn unset_is_on_false_is_off_and_code_mode_is_refused_naming_the_key() {
    let mode = |tools: Value| gateway_state(tools).unwrap().config.tool_search.mode;
    assert_eq!(mode(json!({})), ToolSearchMode::Tools);
    assert_eq!(mode(json!({ "toolSearch": true })), ToolSearchMode::Tools);
    assert_eq!(mode(json!({ "toolSearch": false })), ToolSearchMode::Direct);
    let refused = |tools: Value| match gateway_state(tools) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a config asking for code mode starts on the upstream surface"),
    };
    assert_eq!(
        refused(json!({ "toolSearch": { "mode": "code" } })),
        "gateway config tools.toolSearch.mode: expected \"tools\" or \"directory\", got \"code\" \
         (profile openclaw-upstream)"
    );
    assert_eq!(
        refused(json!({ "toolSearch": { "mode": "tools", "codeTimeoutMs": 5000 } })),
        "gateway config tools.toolSearch.codeTimeoutMs: this surface has no code mode (its modes: \
         \"tools\" or \"directory\") (profile openclaw-upstream)"
    );
    // The spec's surface reads the same config as Tool Search off.
    let spec = upstream_config(json!({})).replace(UPSTREAM, "spec");
    let config = toolsearch_qa::config::parse(&spec, "test config").unwrap();
    assert_eq!(config.tool_search.mode, ToolSearchMode::Direct);
}

#[test]
fn a_lane_the_upstream_surface_reads_otherwise_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.toml"),
        "id = \"upstream-lane\"\ntitle = \"t\"\nobjective = \"o\"\nagent = \"qa\"\n\
         prompt = \"tool search qa check target=fake_plugin_tool_03\"\n\
         target_tool = \"fake_plugin_tool_03\"\nprofile = \"openclaw-upstream\"\n\n\
         [catalog]\nplugin_id = \"p\"\nsize = 5\n\n\
         [[lanes]]\nname = \"direct\"\ntool_search = false\n\n\
         [[lanes]]\nname = \"tools\"\ntool_search = { mode = \"tools\", codeTimeoutMs = 5000 }\n",
    )
    .unwrap();
    let output = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["suite", "--no-snapshots", "--scenario-dir"])
        .arg(dir.path())
        .args(["--scenario", "upstream-lane"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "scenario upstream-lane lane tools: tool_search = {\"codeTimeoutMs\":5000,\"mode\":\"tools\"} \
             is tools mode in the scenario but refused (tools.toolSearch.codeTimeoutMs: this surface \
             has no code mode"
        ),
        "{stderr}"
    );
}
