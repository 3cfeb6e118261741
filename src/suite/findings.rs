//! Accepted findings: the gate passes when the product behaves exactly as last accepted.
//!
//! A real product deviates from the spec in known ways (OpenClaw 2026.9.6 does not record how
//! many schemas the model saw up front). Each known deviation is written down once, per target
//! and product version (`expectations/openclaw-2026.9.6.toml`), with the check's exact expected
//! and observed texts and a one-line reason — like Web Platform Tests' expectation metadata or
//! pytest's strict xfail. A run then:
//! - passes a failing check that is accepted with exactly its expected and observed texts;
//! - fails a check whose accepted texts no longer match (prints accepted and got);
//! - fails on an accepted finding that no longer reproduces ("fixed upstream: remove the entry");
//! - leaves the entries of a lane that could not run unjudged (neither passed nor stale).
//!
//! The same file accepts probe escapes (`[[probe]]`), optionally per Node major.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::claims::Verdict;
use crate::data_root::DataKind;
use crate::error::Error;
use crate::sandbox::probes::probe;
use crate::scenario::{ClaimId, Scenario};

/// The committed accepted findings for a target labelled `label` (`openclaw-2026.9.6`), if any:
/// `expectations/<label>.toml` of the data root (src/data_root.rs), read at run time.
pub fn built_in(label: &str, scenarios: &[Scenario]) -> Result<Option<Expectations>, Error> {
    crate::data_root::current()
        .file(DataKind::Expectations, &format!("{label}.toml"))
        .map_err(|e| Error::Usage(e.to_string()))?
        .map(|file| Expectations::parse(&file.text, &file.origin, scenarios))
        .transpose()
}

/// The accepted findings of one target and product version, checked against the scenarios.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expectations {
    /// Where they were loaded from (named in errors and reports).
    pub origin: String,
    pub findings: Vec<AcceptedFinding>,
    pub probes: Vec<AcceptedEscape>,
}

/// One failing check the product is known to fail, exactly so.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedFinding {
    pub scenario: String,
    pub lane: String,
    pub claim: ClaimId,
    pub check: String,
    /// The exact `expected` text of the failing check (required): an entry covers that
    /// expectation only, so a changed expectation is never covered by an old entry.
    pub expected: String,
    /// The exact `got` text of the failing check.
    pub observed: String,
    pub reason: String,
    /// Node majors it applies to (empty: every one).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<u32>,
    /// The release `adopt` carried the reason over from (the same check failed the same way
    /// there), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<String>,
    #[serde(skip)]
    pub line: usize,
}

/// A hostile-code probe known to escape the product's sandbox.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AcceptedEscape {
    pub probe: String,
    /// The probe's exact evidence when it escaped (`returned "object"`): a different escape
    /// under the same name is not covered.
    pub observed: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub node: Vec<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub carried_from: Option<String>,
    #[serde(skip)]
    pub line: usize,
}

impl AcceptedFinding {
    pub fn applies_to_node(&self, node: Option<u32>) -> bool {
        applies(&self.node, node)
    }
}

impl AcceptedEscape {
    pub fn applies_to_node(&self, node: Option<u32>) -> bool {
        applies(&self.node, node)
    }
}

fn applies(majors: &[u32], node: Option<u32>) -> bool {
    majors.is_empty() || node.is_some_and(|n| majors.contains(&n))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    finding: Vec<toml::Spanned<FindingFile>>,
    #[serde(default)]
    probe: Vec<toml::Spanned<EscapeFile>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindingFile {
    scenario: String,
    lane: String,
    claim: String,
    check: String,
    #[serde(default)]
    expected: Option<String>,
    observed: String,
    reason: String,
    #[serde(default)]
    node: Vec<u32>,
    #[serde(default)]
    carried_from: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EscapeFile {
    probe: String,
    observed: String,
    reason: String,
    #[serde(default)]
    node: Vec<u32>,
    #[serde(default)]
    carried_from: Option<String>,
}

/// The reason `adopt` drafts an entry with; a file that still has one does not load.
pub const TODO_REASON: &str = "TODO";
const TODO_MESSAGE: &str =
    "TODO: write why this is accepted (adopt drafted it; verify it in the release's own docs, changelog or dist)";

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl Expectations {
    /// Parses an expectations file; every entry must name a known scenario, lane, claim and
    /// probe (`scenarios` are the ones it may name), and give a non-empty reason.
    /// Every problem of the file is reported in one error (a line each, `line N: field:
    /// message`), so a half-written file drafted by `adopt` shows every `TODO` at once.
    pub fn parse(text: &str, origin: &str, scenarios: &[Scenario]) -> Result<Expectations, Error> {
        let file: File = toml::from_str(text).map_err(|e| Error::Expectations {
            origin: origin.to_string(),
            line: e.span().map(|s| line_of(text, s.start)),
            message: e.message().to_string(),
        })?;
        let mut expectations = Expectations {
            origin: origin.to_string(),
            ..Expectations::default()
        };
        let mut problems: Vec<(usize, String)> = Vec::new();
        for (i, entry) in file.finding.into_iter().enumerate() {
            let line = line_of(text, entry.span().start);
            match finding(i, line, entry.into_inner(), scenarios) {
                Ok(found) => expectations.findings.push(found),
                Err(message) => problems.push((line, message)),
            }
        }
        for (i, entry) in file.probe.into_iter().enumerate() {
            let line = line_of(text, entry.span().start);
            match escape(i, line, entry.into_inner()) {
                Ok(found) => expectations.probes.push(found),
                Err(message) => problems.push((line, message)),
            }
        }
        match problems.split_first() {
            None => Ok(expectations),
            Some(((line, first), rest)) => {
                let mut message = first.clone();
                for (line, problem) in rest {
                    message.push_str(&format!(
                        "\nexpectations file {origin}: line {line}: {problem}"
                    ));
                }
                if !rest.is_empty() {
                    message.push_str(&format!("\n{} problems in {origin}", problems.len()));
                }
                Err(Error::Expectations {
                    origin: origin.to_string(),
                    line: Some(*line),
                    message,
                })
            }
        }
    }

    /// Reads and parses the file at `path`.
    pub fn read(path: &Path, scenarios: &[Scenario]) -> Result<Expectations, Error> {
        let text = crate::error::read_given("expectations file", path)?;
        Expectations::parse(&text, &path.display().to_string(), scenarios)
    }
}

/// One `[[finding]]` entry checked against the scenarios; the problem as `finding[i].field:
/// message`.
fn finding(
    i: usize,
    line: usize,
    f: FindingFile,
    scenarios: &[Scenario],
) -> Result<AcceptedFinding, String> {
    let at = |field: &str, message: String| format!("finding[{i}].{field}: {message}");
    let Some(scenario) = scenarios.iter().find(|s| s.id == f.scenario) else {
        let known: Vec<&str> = scenarios.iter().map(|s| s.id.as_str()).collect();
        return Err(at(
            "scenario",
            format!(
                "unknown scenario {:?}; known: {}",
                f.scenario,
                known.join(", ")
            ),
        ));
    };
    if !scenario.lanes.iter().any(|l| l.name == f.lane) {
        let known: Vec<&str> = scenario.lanes.iter().map(|l| l.name.as_str()).collect();
        return Err(at(
            "lane",
            format!(
                "scenario {} has no lane {:?}; its lanes: {}",
                scenario.id,
                f.lane,
                known.join(", ")
            ),
        ));
    }
    let Some(claim) = ClaimId::from_name(&f.claim) else {
        let known: Vec<&str> = ClaimId::ALL.iter().map(|c| c.as_str()).collect();
        return Err(at(
            "claim",
            format!("unknown claim {:?}; known: {}", f.claim, known.join(", ")),
        ));
    };
    check_reason(&f.reason).map_err(|m| at("reason", m))?;
    let Some(expected) = f.expected else {
        return Err(at(
            "expected",
            "missing: copy the failing check's `expected` text from a run (`suite --format \
             json`), so the entry covers that expectation only"
                .into(),
        ));
    };
    Ok(AcceptedFinding {
        scenario: f.scenario,
        lane: f.lane,
        claim,
        check: f.check,
        expected,
        observed: f.observed,
        reason: f.reason,
        node: f.node,
        carried_from: f.carried_from,
        line,
    })
}

/// One `[[probe]]` entry checked; the problem as `probe[i].field: message`.
fn escape(i: usize, line: usize, p: EscapeFile) -> Result<AcceptedEscape, String> {
    if probe(&p.probe).is_none() {
        return Err(format!("probe[{i}].probe: unknown probe {:?}", p.probe));
    }
    check_reason(&p.reason).map_err(|m| format!("probe[{i}].reason: {m}"))?;
    Ok(AcceptedEscape {
        probe: p.probe,
        observed: p.observed,
        reason: p.reason,
        node: p.node,
        carried_from: p.carried_from,
        line,
    })
}

/// A reason must say something, and not be `adopt`'s `TODO`.
fn check_reason(reason: &str) -> Result<(), String> {
    if reason.trim().is_empty() {
        return Err("say why it is accepted".into());
    }
    if reason.trim() == TODO_REASON {
        return Err(TODO_MESSAGE.into());
    }
    Ok(())
}

/// How a claim came out once accepted findings are applied.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Acceptance {
    /// Every failing check of the verdict is an accepted finding, with exactly the observed value.
    pub accepted: bool,
    /// The accepted findings that matched, with their reasons.
    pub findings: Vec<AcceptedFinding>,
}

/// A finding of a lane that could not run: neither matched nor stale (its entry stays).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnjudgedFinding {
    pub finding: AcceptedFinding,
    pub why: String,
}

/// What became of one scenario's accepted findings that no failing check matched.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Unmatched {
    /// Entries whose check holds now or was not evaluated: each fails the run.
    pub stale: Vec<StaleFinding>,
    /// Entries of lanes that could not run (`errored`): not judged.
    pub unjudged: Vec<UnjudgedFinding>,
}

/// A finding that was accepted but did not show in this run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StaleFinding {
    pub finding: AcceptedFinding,
    /// Why it no longer counts: the check holds now, or the claim was not evaluated there.
    pub why: String,
}

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

#[cfg(test)]
mod tests {
    use super::*;
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
