//! Lanes that did not run, in every format: a lane the target cannot run (not applicable, with
//! the scenario's reason) and a lane that could not start or answer (an infrastructure error,
//! with the error). Neither is a claim verdict, and neither is ever left out of a report.

use crate::outcome::ScenarioReport;
use crate::targets::TargetKind;
use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

/// One line per lane that did not run (for the table and Markdown), empty when all ran.
pub fn lines(s: &ScenarioReport, target: TargetKind) -> String {
    let mut out = String::new();
    for na in &s.not_applicable {
        out.push_str(&format!(
            "not applicable on {}: lane {}: {}\n",
            target.as_str(),
            na.lane,
            na.reason
        ));
    }
    for e in &s.errors {
        let first = e.error.lines().next().unwrap_or_default();
        out.push_str(&format!("ERROR lane {}: {first}\n", e.lane));
    }
    out
}

/// JUnit test cases for the lanes that did not run: `<skipped>` with the reason, or `<error>`
/// with the whole error text.
pub fn junit_cases(s: &ScenarioReport, suite: &mut TestSuite) {
    for na in &s.not_applicable {
        let mut status = TestCaseStatus::skipped();
        status.set_message(format!("not applicable: {}", na.reason));
        let mut case = TestCase::new(format!("{} (not applicable)", na.lane), status);
        case.set_classname(format!("{}.{}", s.scenario, na.lane));
        suite.add_test_case(case);
    }
    for e in &s.errors {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        let first = e.error.lines().next().unwrap_or_default();
        status
            .set_message(first.to_string())
            .set_type("infrastructure")
            .set_description(e.error.clone());
        let mut case = TestCase::new(format!("{} (lane could not run)", e.lane), status);
        case.set_classname(format!("{}.{}", s.scenario, e.lane));
        suite.add_test_case(case);
    }
}
