//! JUnit XML for CI systems: one test suite per scenario × target, one test case per lane × claim.
//! A failing claim carries what was expected and what was seen.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::report::SuiteReport;

/// Renders the suite as JUnit XML.
pub fn junit_xml(report: &SuiteReport) -> Result<String, String> {
    let mut junit = Report::new("toolsearch-qa");
    for scenario in &report.scenarios {
        let mut suite = TestSuite::new(format!("{}/{}", report.target, scenario.scenario));
        for verdict in &scenario.claims {
            let status = if verdict.ok {
                TestCaseStatus::success()
            } else {
                let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
                status
                    .set_message(format!(
                        "expected {}; got {}",
                        verdict.expected, verdict.actual
                    ))
                    .set_type("claim")
                    .set_description(format!(
                        "expected: {}\nactual:   {}",
                        verdict.expected, verdict.actual
                    ));
                status
            };
            let mut case = TestCase::new(
                format!("{} {} ({})", verdict.claim, verdict.lane, verdict.title),
                status,
            );
            case.set_classname(format!("{}.{}", scenario.scenario, verdict.lane))
                .set_assertions(verdict.checks);
            suite.add_test_case(case);
        }
        junit.add_test_suite(suite);
    }
    junit
        .to_string()
        .map_err(|e| format!("cannot render JUnit XML: {e}"))
}
