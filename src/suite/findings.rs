//! Applying the accepted findings to a run's verdicts: a failing check accepted with exactly its
//! expected and observed texts passes the gate, an entry that matched nothing is stale, and an
//! entry of a lane that could not run is unjudged. The findings themselves are data
//! ([`crate::outcome::findings`]).

use crate::outcome::findings::{
    Acceptance, AcceptedFinding, Expectations, StaleFinding, UnjudgedFinding, Unmatched,
};
use crate::outcome::{SuiteReport, Verdict};
use crate::scenario::Scenario;
use crate::targets::Product;

/// Applies `expectations` to one scenario's verdicts (on Node major `node`): a failing check
/// with an accepted entry whose observed value matches is accepted; one whose value differs gets
/// the accepted value in its `got`. Returns the entries of this scenario that matched nothing:
/// stale, or unjudged when their lane is one of `errored` (lanes that could not run).
pub fn apply(
    expectations: &Expectations,
    scenario: &Scenario,
    node: Option<u32>,
    errored: &[&str],
    verdicts: &mut [Verdict],
) -> Unmatched {
    let entries: Vec<&AcceptedFinding> = expectations
        .findings
        .iter()
        .filter(|f| f.scenario == scenario.id && f.applies_to_node(node))
        .collect();
    let mut used = vec![false; entries.len()];
    for verdict in verdicts.iter_mut().filter(|v| !v.ok) {
        let mut matched = Vec::new();
        let mut all_accepted = true;
        for failure in &mut verdict.failures {
            let entry = entries.iter().position(|f| {
                f.lane == verdict.lane && f.claim == verdict.claim && f.check == failure.check
            });
            let Some(i) = entry else {
                all_accepted = false;
                continue;
            };
            used[i] = true;
            let (accepted, at) = (entries[i], (&expectations.origin, entries[i].line));
            if accepted.expected != failure.expected {
                all_accepted = false;
                failure.expected = format!(
                    "{}; the accepted finding ({}:{}) was accepted against expected {:?}",
                    failure.expected, at.0, at.1, accepted.expected
                );
            } else if accepted.observed != failure.actual {
                all_accepted = false;
                failure.actual = format!(
                    "{}; the accepted finding ({}:{}) says {:?}",
                    failure.actual, at.0, at.1, accepted.observed
                );
            } else {
                matched.push(accepted.clone());
            }
        }
        if !matched.is_empty() {
            verdict.acceptance = Some(Acceptance {
                accepted: all_accepted,
                findings: matched,
            });
        }
    }
    let mut unmatched = Unmatched::default();
    for (f, _) in entries.into_iter().zip(used).filter(|(_, used)| !used) {
        if !scenario.lanes.iter().any(|l| l.name == f.lane) {
            continue;
        }
        if errored.contains(&f.lane.as_str()) {
            unmatched.unjudged.push(UnjudgedFinding {
                finding: f.clone(),
                why: format!(
                    "lane {} could not run, so this entry was not judged (keep it)",
                    f.lane
                ),
            });
        } else {
            unmatched.stale.push(StaleFinding {
                finding: f.clone(),
                why: stale_reason(f, verdicts),
            });
        }
    }
    unmatched
}

fn stale_reason(finding: &AcceptedFinding, verdicts: &[Verdict]) -> String {
    match verdicts
        .iter()
        .find(|v| v.lane == finding.lane && v.claim == finding.claim)
    {
        Some(_) => format!(
            "check {:?} of {} holds now on lane {}: fixed upstream? remove the entry",
            finding.check, finding.claim, finding.lane
        ),
        None => format!(
            "{} was not evaluated on lane {}: remove the entry or fix the scenario",
            finding.claim, finding.lane
        ),
    }
}

/// Records what becomes of the accepted findings in every scenario of the run (`scenarios`
/// are the ones that ran): failing checks they match exactly are accepted, entries that match
/// nothing are stale, and entries of a lane that could not run are unjudged. The run's verdict
/// is computed from that ([`SuiteReport::verdict`]).
pub fn record(report: &mut SuiteReport, expectations: &Expectations, scenarios: &[Scenario]) {
    let node = report.product.as_ref().and_then(Product::node_major);
    for scenario_report in &mut report.scenarios {
        let Some(scenario) = scenarios.iter().find(|s| s.id == scenario_report.scenario) else {
            continue;
        };
        let errored: Vec<&str> = scenario_report
            .errors
            .iter()
            .map(|e| e.lane.as_str())
            .collect();
        let outcome = apply(
            expectations,
            scenario,
            node,
            &errored,
            &mut scenario_report.claims,
        );
        report.stale_findings.extend(outcome.stale);
        report.unjudged_findings.extend(outcome.unjudged);
    }
    report.expectations = Some(expectations.origin.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::outcome::findings::TODO_REASON;
    use crate::scenario::ClaimId;
    use crate::scenario::{load_all, select};
    use crate::suite::claims::{check, Verdict};

    fn reference() -> Vec<Scenario> {
        select(load_all(&[]).unwrap(), &["tool-search-gateway-e2e".into()]).unwrap()
    }

    const ONE: &str = "[[finding]]\nscenario = \"tool-search-gateway-e2e\"\nlane = \"direct\"\n\
        claim = \"L1\"\ncheck = \"schemas up front\"\nexpected = \"schemas up front = 79\"\nobserved = \"not recorded\"\n\
        reason = \"the product does not record it\"\n";

    fn verdict(actual: &str) -> Verdict {
        Verdict::new(
            ClaimId::L1,
            "direct",
            vec![
                check("schemas up front", false, "schemas up front = 79", actual),
                check("final tool source", true, "x", "x"),
            ],
        )
    }

    /// An entry without `expected` would cover whatever the check comes to expect.
    #[test]
    fn an_entry_without_expected_does_not_load_and_names_where() {
        let without = format!(
            "\n{}",
            ONE.replace("expected = \"schemas up front = 79\"\n", "")
        );
        let e = Expectations::parse(&without, "e.toml", &reference()).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("e.toml"), "{text}");
        assert!(text.contains("line 2: "), "{text}");
        assert!(text.contains("finding[0].expected: missing"), "{text}");
    }

    #[test]
    fn an_exactly_matching_failure_is_accepted_and_nothing_is_stale() {
        let e = Expectations::parse(ONE, "e.toml", &reference()).unwrap();
        let mut verdicts = vec![verdict("not recorded")];
        let unmatched = apply(&e, &reference()[0], Some(24), &[], &mut verdicts);
        assert_eq!(unmatched, Unmatched::default());
        assert!(verdicts[0].acceptance.as_ref().unwrap().accepted);
    }

    #[test]
    fn a_different_value_fails_and_names_the_accepted_one() {
        let e = Expectations::parse(ONE, "e.toml", &reference()).unwrap();
        let mut verdicts = vec![verdict("schemas up front = 3")];
        apply(&e, &reference()[0], None, &[], &mut verdicts);
        assert!(verdicts[0].acceptance.is_none());
        assert_eq!(
            verdicts[0].failures[0].actual,
            "schemas up front = 3; the accepted finding (e.toml:1) says \"not recorded\""
        );
    }

    #[test]
    fn a_finding_that_no_longer_reproduces_is_stale() {
        let e = Expectations::parse(ONE, "e.toml", &reference()).unwrap();
        let mut verdicts = vec![Verdict::new(
            ClaimId::L1,
            "direct",
            vec![check("schemas up front", true, "a", "a")],
        )];
        let unmatched = apply(&e, &reference()[0], None, &[], &mut verdicts);
        assert_eq!(unmatched.stale.len(), 1);
        assert!(unmatched.unjudged.is_empty());
        let why = &unmatched.stale[0].why;
        assert!(why.contains("fixed upstream"), "{why}");
    }

    /// A lane that could not run leaves its entries unjudged: never "remove the entry".
    #[test]
    fn a_finding_of_a_lane_that_errored_is_unjudged_not_stale() {
        let e = Expectations::parse(ONE, "e.toml", &reference()).unwrap();
        let unmatched = apply(&e, &reference()[0], None, &["direct"], &mut []);
        assert!(unmatched.stale.is_empty(), "{unmatched:?}");
        assert_eq!(unmatched.unjudged.len(), 1);
        let why = &unmatched.unjudged[0].why;
        assert_eq!(
            why,
            "lane direct could not run, so this entry was not judged (keep it)"
        );
    }

    /// An entry covers the expectation it was accepted against: when the check expects
    /// something else now, the same observed value fails and names both expectations.
    #[test]
    fn a_changed_expectation_is_not_covered_by_an_old_entry() {
        let e = Expectations::parse(ONE, "e.toml", &reference()).unwrap();
        let mut verdicts = vec![Verdict::new(
            ClaimId::L1,
            "direct",
            vec![check(
                "schemas up front",
                false,
                "schemas up front = 80",
                "not recorded",
            )],
        )];
        let unmatched = apply(&e, &reference()[0], None, &[], &mut verdicts);
        assert!(verdicts[0].acceptance.is_none());
        assert!(!verdicts[0].passes_gate());
        assert_eq!(unmatched, Unmatched::default());
        assert_eq!(
            verdicts[0].failures[0].expected,
            "schemas up front = 80; the accepted finding (e.toml:1) was accepted against \
             expected \"schemas up front = 79\""
        );
    }

    #[test]
    fn node_majors_narrow_an_entry() {
        let text = format!("{ONE}node = [26]\n");
        let e = Expectations::parse(&text, "e.toml", &reference()).unwrap();
        let mut verdicts = vec![verdict("not recorded")];
        assert_eq!(
            apply(&e, &reference()[0], Some(24), &[], &mut verdicts),
            Unmatched::default()
        );
        assert!(verdicts[0].acceptance.is_none());
    }

    #[test]
    fn a_todo_reason_is_refused_until_written() {
        let drafted = ONE.replace("the product does not record it", TODO_REASON);
        let err = Expectations::parse(&drafted, "e.toml", &reference()).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::Exit::USAGE);
        assert!(
            err.to_string().starts_with(
                "expectations file e.toml: line 1: finding[0].reason: TODO: write why"
            ),
            "{err}"
        );
        let escape = "[[probe]]\nprobe = \"import_error_constructor\"\nobserved = \"x\"\nreason = \"TODO\"\n";
        let err = Expectations::parse(escape, "e.toml", &reference()).unwrap_err();
        assert!(err.to_string().contains("probe[0].reason: TODO"), "{err}");
    }

    #[test]
    fn unknown_names_are_errors_with_file_line_and_field() {
        let bad_lane = ONE.replace("lane = \"direct\"", "lane = \"nope\"");
        let err = Expectations::parse(&bad_lane, "e.toml", &reference())
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("expectations file e.toml: line 1: finding[0].lane: scenario tool-search-gateway-e2e has no lane \"nope\""),
            "{err}"
        );
        let bad_claim = ONE.replace("claim = \"L1\"", "claim = \"Z9\"");
        let err = Expectations::parse(&bad_claim, "e.toml", &reference())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("finding[0].claim: unknown claim \"Z9\""),
            "{err}"
        );
        let bad_key = format!("{ONE}colour = 1\n");
        let err = Expectations::parse(&bad_key, "e.toml", &reference())
            .unwrap_err()
            .to_string();
        assert!(err.contains("e.toml: line"), "{err}");
        assert!(err.contains("colour"), "{err}");
        assert_eq!(
            Error::Expectations {
                origin: "x".into(),
                line: None,
                message: "m".into()
            }
            .exit_code(),
            crate::error::Exit::USAGE
        );
    }
}
