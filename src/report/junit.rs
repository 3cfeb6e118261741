//! JUnit XML for CI systems: one test suite per target × scenario, one test case per lane ×
//! claim and one per snapshot compared. A failing claim carries what was expected and what was
//! seen, for every failing check; an accepted or not-applicable one is `<skipped>` with its
//! reason; a changed, missing or pending snapshot is a failure with its diff. Accepted findings
//! that no longer reproduce are failures, those of a lane that could not run are skipped.
//! Times come from the lanes' wall times (`laneMillis` of summary.json): a claim's case carries
//! its lane's time (the run it judged), a scenario's suite the sum of its lanes', the report the
//! sum of its suites'.

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::outcome::Verdict;
use crate::outcome::{ScenarioReport, SnapshotState, SnapshotStatus, SuiteReport};

/// Renders the reports of one run (one per target) as JUnit XML.
pub fn junit_xml(reports: &[SuiteReport]) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("toolsearch-qa");
    let mut total = Duration::ZERO;
    for report in reports {
        for scenario in &report.scenarios {
            let mut suite =
                TestSuite::new(format!("{}/{}", report.target.as_str(), scenario.scenario));
            for verdict in &scenario.claims {
                let mut case = TestCase::new(
                    format!("{} {} ({})", verdict.claim, verdict.lane, verdict.title),
                    status(verdict),
                );
                case.set_classname(format!("{}.{}", scenario.scenario, verdict.lane))
                    .set_assertions(verdict.checks);
                if let Some(millis) = scenario.lane_millis.get(&verdict.lane) {
                    case.set_time(Duration::from_millis(*millis));
                }
                suite.add_test_case(case);
            }
            super::not_run::junit_cases(scenario, &mut suite);
            snapshot_cases(scenario, &mut suite);
            let time = scenario_time(scenario);
            suite.set_time(time);
            total += time;
            junit.add_test_suite(suite);
        }
        if !report.stale_findings.is_empty() || !report.unjudged_findings.is_empty() {
            let mut suite = TestSuite::new(format!("{}/accepted-findings", report.target.as_str()));
            for stale in &report.stale_findings {
                let f = &stale.finding;
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_message(stale.why.clone())
                    .set_type("stale-finding");
                let mut case = TestCase::new(
                    format!("{} {} {:?} still reproduces", f.claim, f.lane, f.check),
                    status,
                );
                case.set_classname(format!("{}.{}", f.scenario, f.lane));
                suite.add_test_case(case);
            }
            for unjudged in &report.unjudged_findings {
                let f = &unjudged.finding;
                let mut status = TestCaseStatus::skipped();
                status
                    .set_message(unjudged.why.clone())
                    .set_type("unjudged-finding");
                let mut case = TestCase::new(
                    format!("{} {} {:?} still reproduces", f.claim, f.lane, f.check),
                    status,
                );
                case.set_classname(format!("{}.{}", f.scenario, f.lane));
                suite.add_test_case(case);
            }
            junit.add_test_suite(suite);
        }
        if let Some(section) = &report.build_against_baseline {
            junit.add_test_suite(super::baseline::junit(report.target.as_str(), section));
        }
    }
    junit.set_time(total);
    junit.to_string()
}

/// The wall time of a scenario: its lanes' times added (lanes run one after the other).
fn scenario_time(scenario: &ScenarioReport) -> Duration {
    Duration::from_millis(scenario.lane_millis.iter().map(|(_, m)| *m).sum())
}

/// One test case per snapshot compared (classname `<scenario>.snapshots`): passes when the
/// same as committed, fails when changed, missing or pending review.
fn snapshot_cases(scenario: &ScenarioReport, suite: &mut TestSuite) {
    for snapshot in &scenario.snapshots {
        let mut case = TestCase::new(
            format!("snapshot {}", snapshot.name),
            snapshot_status(snapshot),
        );
        case.set_classname(format!("{}.snapshots", scenario.scenario));
        suite.add_test_case(case);
    }
}

fn snapshot_status(snapshot: &SnapshotStatus) -> TestCaseStatus {
    let message = match snapshot.status {
        SnapshotState::Same => return TestCaseStatus::success(),
        SnapshotState::Changed => "snapshot changed".to_string(),
        SnapshotState::Missing => format!(
            "snapshot missing: write it with `{}`",
            snapshot
                .write_with
                .as_deref()
                .unwrap_or("toolsearch-qa suite --update-snapshots")
        ),
        SnapshotState::Pending => "snapshot pending review: a .snap.new was written".to_string(),
    };
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    status.set_message(message).set_type("snapshot");
    if let Some(diff) = &snapshot.diff {
        status.set_description(diff.clone());
    }
    status
}

fn status(verdict: &Verdict) -> TestCaseStatus {
    if let Some(reason) = &verdict.not_applicable {
        let mut status = TestCaseStatus::skipped();
        status
            .set_message(format!("not applicable: {reason}"))
            .set_type("not-applicable");
        return status;
    }
    if verdict.ok {
        return TestCaseStatus::success();
    }
    if verdict.is_accepted() {
        let reasons: Vec<String> = verdict
            .acceptance
            .iter()
            .flat_map(|a| &a.findings)
            .map(|f| {
                format!(
                    "accepted finding ({} = {:?}): {}",
                    f.check, f.observed, f.reason
                )
            })
            .collect();
        let mut status = TestCaseStatus::skipped();
        status.set_message(reasons.join("; ")).set_type("accepted");
        return status;
    }
    let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
    let description: Vec<String> = verdict
        .failures
        .iter()
        .map(|f| format!("expected: {}\nactual:   {}", f.expected, f.actual))
        .collect();
    status
        .set_message(format!(
            "expected {}; got {}",
            verdict.expected, verdict.actual
        ))
        .set_type("claim")
        .set_description(description.join("\n"));
    status
}
