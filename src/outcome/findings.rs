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
