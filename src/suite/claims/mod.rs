//! The claims: a registry of every claim the suite can check, and how a scenario's claims are
//! evaluated on its observed lanes.
//!
//! Each claim is a [`ClaimId`] with a [`ClaimDef`] (title, which lanes it applies to by default,
//! what it needs from the scenario, its check function). Check functions are pure: they read an
//! [`Observed`] lane (and its scenario) and return [`Check`]s; a [`Verdict`] keeps every failing
//! check. Families live in their own modules: [`regression`] (C1–C6, spec §11), [`fail_closed`]
//! (F1–F6 and T1, spec §10), [`handoff`] (H1, client tools).
//!
//! Adding a claim: a [`ClaimId`] variant and its arm in [`ClaimId::def`] (the compiler points at
//! it), its entry in [`ClaimId::ALL`], and its check function in a family module.

pub mod fail_closed;
#[cfg(test)]
mod fixture;
pub mod handoff;
pub mod regression;

use std::fmt;

use serde::{Serialize, Serializer};

use super::observation::Observed;
use super::scenario::{ClaimSpec, Scenario};

/// Every claim the suite knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClaimId {
    C1,
    C2,
    C3,
    C4,
    C5,
    C6,
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    H1,
    T1,
}

/// The lanes a claim is checked on when the scenario does not narrow them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// Lanes with Tool Search off.
    DirectLanes,
    /// Lanes with Tool Search on.
    ToolSearchLanes,
    /// Every lane.
    EveryLane,
    /// Lanes that set exact expected figures for the target.
    LanesWithExpectations,
}

/// What to check on one lane, with everything a check function may read.
pub struct ClaimInput<'a> {
    pub scenario: &'a Scenario,
    /// The scenario's parameters for this claim (`None` for the default regression claims).
    pub spec: Option<&'a ClaimSpec>,
    pub lane: &'a Observed<'a>,
    /// Every observed lane of the scenario (C2 and C5 compare with the direct lane).
    pub lanes: &'a [Observed<'a>],
}

impl ClaimInput<'_> {
    /// The tool the claim is about: the spec's `tool`, else the scenario's target.
    pub fn tool(&self) -> &str {
        self.spec
            .and_then(|s| s.tool.as_deref())
            .unwrap_or(&self.scenario.target_tool)
    }

    /// The spec's `error` text.
    pub fn error(&self) -> Option<&str> {
        self.spec.and_then(|s| s.error.as_deref())
    }

    /// The scenario's direct lane, when it has one.
    pub fn direct(&self) -> Option<&Observed<'_>> {
        self.lanes.iter().find(|l| l.lane.is_direct())
    }
}

/// A claim's definition.
pub struct ClaimDef {
    /// The one-line statement.
    pub title: &'static str,
    pub applies: Applies,
    /// A scenario must give the claim a `tool`.
    pub needs_tool: bool,
    /// A scenario may list it in `claims` (T1 follows from `expect` instead).
    pub nameable: bool,
    pub check: fn(&ClaimInput<'_>) -> Vec<Check>,
}

impl ClaimId {
    /// Every claim, in report order.
    pub const ALL: [ClaimId; 14] = [
        ClaimId::C1,
        ClaimId::C2,
        ClaimId::C3,
        ClaimId::C4,
        ClaimId::C5,
        ClaimId::C6,
        ClaimId::F1,
        ClaimId::F2,
        ClaimId::F3,
        ClaimId::F4,
        ClaimId::F5,
        ClaimId::F6,
        ClaimId::H1,
        ClaimId::T1,
    ];

    /// The regression claims a scenario without `claims` gets.
    pub const REGRESSION: [ClaimId; 6] = [
        ClaimId::C1,
        ClaimId::C2,
        ClaimId::C3,
        ClaimId::C4,
        ClaimId::C5,
        ClaimId::C6,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ClaimId::C1 => "C1",
            ClaimId::C2 => "C2",
            ClaimId::C3 => "C3",
            ClaimId::C4 => "C4",
            ClaimId::C5 => "C5",
            ClaimId::C6 => "C6",
            ClaimId::F1 => "F1",
            ClaimId::F2 => "F2",
            ClaimId::F3 => "F3",
            ClaimId::F4 => "F4",
            ClaimId::F5 => "F5",
            ClaimId::F6 => "F6",
            ClaimId::H1 => "H1",
            ClaimId::T1 => "T1",
        }
    }

    pub fn from_name(name: &str) -> Option<ClaimId> {
        ClaimId::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The registry: each claim's definition.
    pub fn def(self) -> ClaimDef {
        use Applies::*;
        let def = |title, applies, needs_tool, check| ClaimDef {
            title,
            applies,
            needs_tool,
            nameable: true,
            check,
        };
        match self {
            ClaimId::C1 => def(
                "direct mode calls the fake plugin tool",
                DirectLanes,
                false,
                regression::c1_direct_calls_target,
            ),
            ClaimId::C2 => def(
                "Tool Search calls the same fake plugin tool",
                ToolSearchLanes,
                false,
                regression::c2_tool_search_calls_target,
            ),
            ClaimId::C3 => def(
                "direct mode exposes the fake tool schemas to the provider",
                DirectLanes,
                false,
                regression::c3_direct_declares_fake_schemas,
            ),
            ClaimId::C4 => def(
                "Tool Search exposes only the compact bridge and direct-only tools",
                ToolSearchLanes,
                false,
                regression::c4_only_bridge_declared,
            ),
            ClaimId::C5 => def(
                "Tool Search's request payload is smaller",
                ToolSearchLanes,
                false,
                regression::c5_smaller,
            ),
            ClaimId::C6 => def(
                "session log shows the expected counts and bridged-call telemetry",
                EveryLane,
                false,
                regression::c6_session_log,
            ),
            ClaimId::F1 => def(
                "a policy-denied tool never surfaces anywhere",
                EveryLane,
                true,
                fail_closed::f1_denied_never_surfaces,
            ),
            ClaimId::F2 => def(
                "a tool withdrawn after search makes tool_call fail and nothing runs",
                EveryLane,
                true,
                fail_closed::f2_withdrawn,
            ),
            ClaimId::F3 => def(
                "an approval or before_tool_call block is reported and the tool does not run",
                EveryLane,
                true,
                fail_closed::f3_blocked,
            ),
            ClaimId::F4 => def(
                "an unavailable sandbox makes code mode fall back to tools before compaction",
                EveryLane,
                false,
                fail_closed::f4_sandbox_fallback,
            ),
            ClaimId::F5 => def(
                "a code timeout is a clear error and leaves no late bridge call",
                EveryLane,
                false,
                fail_closed::f5_timeout,
            ),
            ClaimId::F6 => def(
                "denied input reaches the model as an error and nothing runs",
                EveryLane,
                false,
                fail_closed::f6_denied_input,
            ),
            ClaimId::H1 => def(
                "a client tool call is handed back to the caller and not run",
                EveryLane,
                false,
                handoff::h1_handed_back,
            ),
            ClaimId::T1 => ClaimDef {
                nameable: false,
                ..def(
                    "the lane shows the scenario's exact expected figures",
                    LanesWithExpectations,
                    false,
                    fail_closed::t1_expected_figures,
                )
            },
        }
    }

    /// The claim's one-line statement.
    pub fn title(self) -> &'static str {
        self.def().title
    }

    /// Does the claim apply to this lane by default?
    fn applies_to(self, lane: &Observed<'_>) -> bool {
        match self.def().applies {
            Applies::DirectLanes => lane.lane.is_direct(),
            Applies::ToolSearchLanes => !lane.lane.is_direct(),
            Applies::EveryLane => true,
            Applies::LanesWithExpectations => lane.lane.expect_for(lane.target).is_set(),
        }
    }
}

impl fmt::Display for ClaimId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for ClaimId {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl Serialize for ClaimId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One check of a claim: what was expected, what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    #[serde(skip)]
    pub ok: bool,
    pub expected: String,
    pub actual: String,
}

pub fn check(ok: bool, expected: impl Into<String>, actual: impl Into<String>) -> Check {
    Check {
        ok,
        expected: expected.into(),
        actual: actual.into(),
    }
}

/// One claim on one lane, with what was expected and what was seen.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Check>,
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
        }
    }
}

/// Runs one claim on one lane.
fn verdict(
    claim: ClaimId,
    scenario: &Scenario,
    spec: Option<&ClaimSpec>,
    lane: &Observed<'_>,
    lanes: &[Observed<'_>],
) -> Verdict {
    let input = ClaimInput {
        scenario,
        spec,
        lane,
        lanes,
    };
    Verdict::new(claim, &lane.lane.name, (claim.def().check)(&input))
}

/// Evaluates every claim that applies to the scenario's lanes, in a stable order (claim, then
/// lane order). A scenario without `claims` gets the regression claims C1–C6; one that lists
/// claims gets exactly those (narrowed to their `lanes`), plus T1 on every lane that sets
/// exact expectations for the target.
pub fn evaluate(scenario: &Scenario, lanes: &[Observed<'_>]) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    if scenario.claims.is_empty() {
        for claim in ClaimId::REGRESSION {
            for lane in lanes.iter().filter(|l| claim.applies_to(l)) {
                verdicts.push(verdict(claim, scenario, None, lane, lanes));
            }
        }
    } else {
        for spec in &scenario.claims {
            let narrowed = |lane: &&Observed<'_>| {
                spec.lanes.is_empty() || spec.lanes.contains(&lane.lane.name)
            };
            // A regression claim keeps its own lanes; the others run on every (narrowed) lane.
            let regression = ClaimId::REGRESSION.contains(&spec.id);
            for lane in lanes
                .iter()
                .filter(narrowed)
                .filter(|l| !regression || spec.id.applies_to(l))
            {
                let parameters = (!regression).then_some(spec);
                verdicts.push(verdict(spec.id, scenario, parameters, lane, lanes));
            }
        }
        for lane in lanes.iter().filter(|l| ClaimId::T1.applies_to(l)) {
            verdicts.push(verdict(ClaimId::T1, scenario, None, lane, lanes));
        }
    }
    let lane_index = |name: &str| lanes.iter().position(|l| l.lane.name == name);
    verdicts.sort_by(|a, b| {
        a.claim
            .cmp(&b.claim)
            .then_with(|| lane_index(&a.lane).cmp(&lane_index(&b.lane)))
    });
    verdicts
}
