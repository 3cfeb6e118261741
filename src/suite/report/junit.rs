//! JUnit XML for CI systems: one test suite per target × scenario, one test case per lane ×
//! claim. A failing claim carries what was expected and what was seen, for every failing check;
//! an accepted or not-applicable one is `<skipped>` with its reason.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::SuiteReport;
use crate::suite::claims::Verdict;

/// Renders the reports of one run (one per target) as JUnit XML.
pub fn junit_xml(reports: &[SuiteReport]) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("toolsearch-qa");
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
                suite.add_test_case(case);
            }
            super::not_run::junit_cases(scenario, &mut suite);
            junit.add_test_suite(suite);
        }
        if !report.stale_findings.is_empty() {
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
            junit.add_test_suite(suite);
        }
    }
    junit.to_string()
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
