//! A claim's outcome on one lane: each [`Check`] it made and the [`Verdict`] they add up to.
//! Pure data; the checks that produce them live with the gate (`crate::suite::claims`).

use serde::{Deserialize, Serialize};

use crate::outcome::findings::Acceptance;
use crate::scenario::ClaimId;

/// One check of a claim: its name (stable: accepted findings name it), what was expected, what
/// was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub check: String,
    #[serde(skip)]
    pub ok: bool,
    pub expected: String,
    pub actual: String,
}

/// One claim on one lane, with what was expected and what was seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub claim: ClaimId,
    pub title: String,
    pub lane: String,
    pub ok: bool,
    /// The first failing check's expectation, or every check joined when all hold.
    pub expected: String,
    /// What the first failing check saw, or `as expected`.
    pub actual: String,
    /// How many checks the claim made.
    pub checks: usize,
    /// Every failing check (empty when the claim holds).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Check>,
    /// The accepted findings its failing checks match, when any do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<Acceptance>,
    /// Why the claim could not be checked: the lane it needs is not in the scenario (see
    /// [`ClaimId::missing_lane`]). Not applicable is never a failure.
    #[serde(
        rename = "notApplicable",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub not_applicable: Option<String>,
}

impl Verdict {
    pub fn new(claim: ClaimId, lane: &str, checks: Vec<Check>) -> Verdict {
        let failures: Vec<Check> = checks.iter().filter(|c| !c.ok).cloned().collect();
        let (expected, actual) = match failures.first() {
            Some(first) => (first.expected.clone(), first.actual.clone()),
            None => (
                checks
                    .iter()
                    .map(|c| c.expected.as_str())
                    .collect::<Vec<_>>()
                    .join("; "),
                "as expected".to_string(),
            ),
        };
        Verdict {
            claim,
            title: claim.title().into(),
            lane: lane.into(),
            ok: failures.is_empty(),
            expected,
            actual,
            checks: checks.len(),
            failures,
            acceptance: None,
            not_applicable: None,
        }
    }

    /// A claim that could not be checked because the scenario lacks a lane it needs; its lane
    /// is `-`.
    pub fn not_applicable(claim: ClaimId, reason: &str) -> Verdict {
        Verdict {
            not_applicable: Some(reason.to_string()),
            expected: String::new(),
            actual: String::new(),
            ..Verdict::new(claim, NO_LANE, Vec::new())
        }
    }

    /// Could not be checked (no lane it needs).
    pub fn is_not_applicable(&self) -> bool {
        self.not_applicable.is_some()
    }

    /// Holds, or fails exactly as accepted: the verdict does not fail the run.
    pub fn passes_gate(&self) -> bool {
        self.ok || self.acceptance.as_ref().is_some_and(|a| a.accepted)
    }

    /// Fails exactly as accepted.
    pub fn is_accepted(&self) -> bool {
        !self.ok && self.passes_gate()
    }
}

/// The lane of a verdict that is about no lane (a claim that is not applicable).
pub const NO_LANE: &str = "-";
