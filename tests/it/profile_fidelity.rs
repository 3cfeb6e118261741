//! The product profile's fidelity against the real product: the reference scenario on both
//! targets, per lane the embedded gateway's first request within ±2% of OpenClaw's bytes and the
//! same declared tools. The product's side is the reference run of the gate's product test
//! (`openclaw_suite.rs`, real gateway, an ignored test), which calls the check here.

use toolsearch_qa::outcome::ScenarioReport;
use toolsearch_qa::profile::OPENCLAW;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

/// How far the embedded gateway's first request may be from the product's.
const TOLERANCE: f64 = 0.02;

/// Per lane of the product's reference run `theirs`, the embedded gateway's first request is
/// within [`TOLERANCE`] of its bytes, with the same declared tools and directory lines. Called
/// from the product's gate run (`openclaw_suite::every_built_in_scenario_passes_the_gate_on_the_product`),
/// which runs the reference scenario on the product once for every check that needs it.
pub(crate) async fn embedded_predicts_the_product(theirs: &ScenarioReport) {
    let scenarios = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    assert_eq!(
        scenarios[0].profile.name, OPENCLAW,
        "the main job's default"
    );
    let embedded = run_suite(&EmbeddedTarget, &scenarios)
        .await
        .expect("the lanes run");
    let ours = &embedded.scenarios[0];
    assert_eq!(ours.profile.as_deref(), Some(OPENCLAW));
    let mut deviations = Vec::new();
    for (lane, figures) in theirs.lanes.iter() {
        let mine = ours.lanes.get(lane).expect("the same lanes");
        let (a, b) = (mine.first_request_bytes, figures.first_request_bytes);
        let deviation = (a as f64 - b as f64) / b as f64;
        deviations.push(format!(
            "{lane}: {a} vs {b} bytes ({:+.2}%)",
            deviation * 100.0
        ));
        assert_eq!(
            mine.provider_declared_tool_names, figures.provider_declared_tool_names,
            "lane {lane}: declared tools"
        );
        assert_eq!(
            mine.provider_declared_tool_count,
            figures.provider_declared_tool_count
        );
        assert_eq!(
            mine.directory.as_ref().map(|d| d.lines),
            figures.directory.as_ref().map(|d| d.lines),
            "lane {lane}: directory lines"
        );
        assert!(
            deviation.abs() <= TOLERANCE,
            "lane {lane}: embedded {a} bytes, OpenClaw {b} bytes ({:+.2}%)",
            deviation * 100.0
        );
    }
    eprintln!(
        "first-request bytes, embedded vs OpenClaw: {}",
        deviations.join("; ")
    );
}
