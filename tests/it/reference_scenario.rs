//! The reference scenario end to end, in-process: real loopback HTTP between the harness, the
//! embedded gateway and the mock provider. Figures that are known exactly are asserted exactly.

use serde_json::Value;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

async fn reference_report() -> toolsearch_qa::outcome::SuiteReport {
    let scenarios = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    run_suite(&EmbeddedTarget, &scenarios).await.unwrap()
}

#[tokio::test]
async fn every_claim_holds_with_exact_figures() {
    let report = reference_report().await;
    let scenario = &report.scenarios[0];
    let failed: Vec<_> = scenario.claims.iter().filter(|c| !c.ok).collect();
    assert!(failed.is_empty(), "failed claims: {failed:#?}");
    let claims: Vec<(&str, &str)> = scenario
        .claims
        .iter()
        .map(|c| (c.claim.as_str(), c.lane.as_str()))
        .collect();
    assert_eq!(
        claims,
        [
            ("C1", "direct"),
            ("C2", "tools"),
            ("C2", "code"),
            ("C2", "directory"),
            ("C2", "batch"),
            ("C3", "direct"),
            ("C4", "tools"),
            ("C4", "code"),
            ("C4", "directory"),
            ("C4", "batch"),
            ("C5", "tools"),
            ("C5", "code"),
            ("C5", "directory"),
            ("C5", "batch"),
            ("C6", "direct"),
            ("C6", "tools"),
            ("C6", "code"),
            ("C6", "directory"),
            ("C6", "batch"),
            ("D1", "direct"),
            ("D1", "tools"),
            ("D1", "code"),
            ("D1", "directory"),
            ("D1", "batch"),
            ("N1", "direct"),
            ("N1", "tools"),
            ("N1", "code"),
            ("N1", "directory"),
            ("N1", "batch"),
            ("B1", "batch"),
            ("I1", "batch"),
            ("E1", "direct"),
            ("E1", "tools"),
            ("L1", "direct"),
            ("L1", "tools"),
            ("L1", "code"),
            ("L1", "directory"),
            ("L1", "batch"),
            ("P1", "direct"),
            ("P1", "tools"),
            ("P1", "code"),
            ("P1", "directory"),
            ("P1", "batch"),
            ("P1", "native-openai"),
            ("P1", "native-openai-client"),
            ("P1", "native-anthropic"),
            ("P1", "native-anthropic-regex"),
            ("T1", "direct"),
            ("T1", "tools"),
            ("T1", "code"),
            ("T1", "directory"),
            ("T1", "batch"),
            ("T1", "native-openai"),
            ("T1", "native-openai-client"),
            ("T1", "native-anthropic"),
            ("T1", "native-anthropic-regex"),
            ("V1", "native-openai"),
            ("V1", "native-openai-client"),
            ("V1", "native-anthropic"),
            ("V1", "native-anthropic-regex"),
            ("V2", "native-openai"),
            ("V2", "native-openai-client"),
            ("V2", "native-anthropic"),
            ("V2", "native-anthropic-regex"),
            ("V3", "native-openai"),
            ("V3", "native-openai-client"),
            ("V3", "native-anthropic"),
            ("V3", "native-anthropic-regex"),
        ]
    );

    // The figures as the JSON summary carries them.
    let scenario = serde_json::to_value(scenario).unwrap();
    let direct = &scenario["lanes"]["direct"];
    assert_eq!(direct["status"], 200);
    assert_eq!(direct["providerRequestCount"], 2);
    // The product profile (openclaw-2026.9.6): its 43 core tools plus the 36 fake ones.
    assert_eq!(direct["providerDeclaredToolCount"], 79);
    assert_eq!(
        direct["providerPlannedTools"],
        serde_json::json!(["fake_plugin_tool_17", null])
    );
    assert_eq!(
        direct["gatewayOutputText"],
        "FAKE_PLUGIN_OK fake_plugin_tool_17"
    );

    let tools = &scenario["lanes"]["tools"];
    assert_eq!(tools["providerRequestCount"], 3);
    assert_eq!(
        tools["providerDeclaredToolNames"],
        product_declared(&["tool_call", "tool_describe", "tool_search"])
    );
    assert_eq!(
        tools["providerPlannedTools"],
        serde_json::json!(["tool_search", "tool_call", null])
    );
    assert_eq!(tools["sessionLog"]["searches"], 1);
    assert_eq!(tools["sessionLog"]["calls"], 1);
    assert_eq!(tools["sessionLog"]["describes"], 0);
    assert_eq!(tools["sessionLog"]["catalogSize"], 77);
    assert_eq!(tools["sessionLog"]["finalTool"], "fake_plugin_tool_17");
    assert_eq!(tools["sessionLog"]["finalToolSource"], "openclaw");

    let code = &scenario["lanes"]["code"];
    assert_eq!(code["providerRequestCount"], 2);
    assert_eq!(
        code["providerDeclaredToolNames"],
        product_declared(&["tool_search_code"])
    );
    assert_eq!(
        code["providerPlannedTools"],
        serde_json::json!(["tool_search_code", null])
    );
    assert_eq!(code["sessionLog"]["searches"], 1);
    assert_eq!(code["sessionLog"]["calls"], 1);
    assert_eq!(code["sessionLog"]["bridgedCalls"], 1);
    assert_eq!(
        code["gatewayOutputText"],
        "FAKE_PLUGIN_OK fake_plugin_tool_17"
    );

    // The first request's exact bytes per lane (the README and docs/openclaw-target.md quote
    // them): a byte more or less in any payload of the product profile shows here.
    let bytes: Vec<(&str, u64)> = ["direct", "tools", "code", "directory"]
        .into_iter()
        .map(|lane| {
            (
                lane,
                scenario["lanes"][lane]["firstRequestBytes"]
                    .as_u64()
                    .unwrap(),
            )
        })
        .collect();
    assert_eq!(
        bytes,
        [
            ("direct", 143_977),
            ("tools", 58_284),
            ("code", 56_479),
            ("directory", 58_205)
        ]
    );
    let reduction = &scenario["reduction"]["tools"];
    assert_eq!(reduction["firstRequestBytes"], 143_977 - 58_284);
    assert_eq!(reduction["declaredTools"], 67);

    let directory = &scenario["lanes"]["directory"];
    assert_eq!(
        directory["providerDeclaredToolNames"],
        tools["providerDeclaredToolNames"]
    );
    assert_eq!(
        directory["providerPlannedTools"],
        serde_json::json!(["tool_search", "tool_call", null])
    );
    assert_eq!(
        directory["gatewayOutputText"],
        "FAKE_PLUGIN_OK fake_plugin_tool_17"
    );
    // As in the product, every Tool Search lane's prompt has the directory: the 36 fake tools and
    // the 34 catalogued core tools (not the 7 visible ones, not the 2 direct-only ones).
    for lane in ["tools", "code", "directory"] {
        let figures = &scenario["lanes"][lane]["directory"];
        assert_eq!(figures["lines"], 70, "{lane}");
        assert_eq!(figures["namesTarget"], true, "{lane}");
    }
}

#[tokio::test]
async fn two_runs_give_identical_figures_and_claims() {
    let strip = |r: &toolsearch_qa::outcome::SuiteReport| {
        let mut v = serde_json::to_value(r).unwrap();
        for s in v["scenarios"].as_array_mut().unwrap() {
            s.as_object_mut().unwrap().remove("laneMillis");
            s.as_object_mut().unwrap().remove("laneSteps");
        }
        v
    };
    let (a, b) = (reference_report().await, reference_report().await);
    assert_eq!(strip(&a), strip(&b));
    let Value::Object(lanes) = &strip(&a)["scenarios"][0]["lanes"] else {
        panic!("lanes")
    };
    assert_eq!(lanes.len(), 9);
}

/// What the product profile declares in a Tool Search lane: OpenClaw 2026.9.6's always-declared
/// core tools and the mode's controls, sorted.
fn product_declared(controls: &[&str]) -> Value {
    let version = "2026.9.6".parse().unwrap();
    let release = toolsearch_qa::targets::openclaw::ReleaseCatalogue::current()
        .unwrap()
        .find(&version)
        .unwrap();
    let mut names: Vec<String> = release.release.direct_only();
    names.extend(controls.iter().map(|c| c.to_string()));
    names.sort_unstable();
    serde_json::json!(names)
}
