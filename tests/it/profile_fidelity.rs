//! The product profile's fidelity against the real product: the reference scenario on both
//! targets, per lane the embedded gateway's first request within ±2% of OpenClaw's bytes and the
//! same declared tools. Needs the install left by `scripts/install-openclaw.sh` and
//! `TOOLSEARCH_QA_OPENCLAW=1` (CI sets both); without the variable it prints a skip line and
//! returns, with it and no install it fails (as `openclaw_real.rs` does).

use toolsearch_qa::profile::OPENCLAW;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::report::SuiteReport;
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::openclaw::OpenClawTarget;
use toolsearch_qa::targets::{EmbeddedTarget, Target};

/// How far the embedded gateway's first request may be from the product's.
const TOLERANCE: f64 = 0.02;

fn real_target() -> Option<OpenClawTarget> {
    if std::env::var("TOOLSEARCH_QA_OPENCLAW").as_deref() != Ok("1") {
        eprintln!("skip: set TOOLSEARCH_QA_OPENCLAW=1 to run against a real OpenClaw gateway");
        return None;
    }
    match OpenClawTarget::locate(crate::openclaw_real::node_major()) {
        Ok(target) => Some(target),
        Err(e) => panic!("TOOLSEARCH_QA_OPENCLAW=1 but {e}"),
    }
}

async fn reference_on(target: &dyn Target) -> SuiteReport {
    let scenarios = select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap();
    assert_eq!(
        scenarios[0].profile.name, OPENCLAW,
        "the main job's default"
    );
    run_suite(target, &scenarios).await.expect("the lanes run")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_product_profile_predicts_the_product_within_two_percent_per_lane() {
    let Some(openclaw) = real_target() else {
        return;
    };
    let product = reference_on(&openclaw).await;
    let embedded = reference_on(&EmbeddedTarget).await;
    let (ours, theirs) = (&embedded.scenarios[0], &product.scenarios[0]);
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
