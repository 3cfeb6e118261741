//! Snapshot tests: for every built-in scenario and lane, the provider request payloads of each
//! turn and the session log, redacted only for ports, temp paths, timestamps and random ids.
//! Drift fails `cargo test`; `cargo insta review` accepts or rejects the new versions.

use toolsearch_qa::scenario::{load_all, ClaimId};
use toolsearch_qa::suite::run_suite;
use toolsearch_qa::targets::EmbeddedTarget;

#[tokio::test]
async fn payloads_and_session_logs_match_the_committed_snapshots() {
    let scenarios = load_all(&[]).unwrap();
    let report = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let mut names = Vec::new();
    for scenario in &report.scenarios {
        for (name, content) in &scenario.snapshot_contents {
            names.push(name.clone());
            insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
                insta::assert_snapshot!(name.as_str(), content);
            });
        }
    }
    // Two per lane (payloads, session log), and a third for a lane that collects a non-model
    // view (I1's invoke batch, E1's effective tools).
    let views = |s: &toolsearch_qa::scenario::Scenario| {
        let names = |l: &&toolsearch_qa::scenario::Lane| {
            s.names_claim_on(ClaimId::I1, l) || s.names_claim_on(ClaimId::E1, l)
        };
        s.lanes.iter().filter(names).count()
    };
    // A lane not applicable here (a catalogue whose servers are not installed) has none.
    let not_applicable: usize = report
        .scenarios
        .iter()
        .map(|s| s.not_applicable.len() * 2)
        .sum();
    assert_eq!(
        names.len() + not_applicable,
        scenarios
            .iter()
            .map(|s| s.lanes.len() * 2 + views(s))
            .sum::<usize>()
    );
}

#[tokio::test]
async fn two_runs_give_identical_snapshots() {
    let scenarios = load_all(&[]).unwrap();
    let a = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let b = run_suite(&EmbeddedTarget, &scenarios).await.unwrap();
    let contents = |r: &toolsearch_qa::outcome::SuiteReport| {
        r.scenarios
            .iter()
            .flat_map(|s| s.snapshot_contents.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(contents(&a), contents(&b));
}
