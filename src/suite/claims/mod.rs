//! The claims: a registry of every claim the suite can check, and how a scenario's claims are
//! evaluated on its observed lanes.
//!
//! Each claim is a [`ClaimId`] with a [`ClaimDef`] (title, which lanes it applies to by default,
//! what it needs from the scenario; in `scenario::claim`, so scenarios are checked at load) and a
//! check function ([`check_of`]). Check functions are pure: they read an [`Observed`] lane (and
//! its scenario) and return [`Check`]s; a [`Verdict`] keeps every failing check. Families live in
//! their own modules: [`regression`] (C1–C6, spec §11), [`fail_closed`] (F1–F6 and T1, spec §10),
//! [`handoff`] (H1, client tools), [`ranking`] (R1), [`directory`] (D1), [`negative`] (N1),
//! [`batch`] (B1), [`invoke`] (I1) and [`effective`] (E1), the upstream reference assertions
//! C1–C6 leave out.
//!
//! Adding a claim: a [`ClaimId`] variant with its `ALL` entry and `def` arm, its arm in
//! [`check_of`] (the compiler points at both arms), and its check function in a family module.

pub mod batch;
pub mod cache;
pub mod code_mode;
pub mod directory;
pub mod effective;
pub mod fail_closed;
#[cfg(test)]
pub(crate) mod fixture;
pub mod handoff;
pub mod invoke;
pub mod known;
pub mod native;
pub mod negative;
pub mod ranking;
pub mod regression;
pub mod upstream;

use crate::drive::observation::Observed;
pub use crate::outcome::claim::{Check, Verdict, NO_LANE};
use crate::outcome::evidence::evidence;
pub use crate::scenario::claim::{Applies, ClaimDef, ClaimId};
use crate::scenario::{ClaimSpec, Scenario};
use crate::targets::NotApplicable;

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

    /// The claim's `max_result_bytes`, when the scenario sets it.
    pub fn max_result_bytes(&self) -> Option<u64> {
        self.spec.and_then(|s| s.max_result_bytes)
    }

    /// The scenario's direct lane, when it has one.
    pub fn direct(&self) -> Option<&Observed<'_>> {
        self.lanes.iter().find(|l| l.lane.is_direct())
    }
}

/// How a claim is checked on one lane.
pub type CheckFn = fn(&ClaimInput<'_>) -> Vec<Check>;

/// The check function of each claim (the registry's other half: [`ClaimId::def`] says what a
/// claim is, this says how it is checked).
pub fn check_of(claim: ClaimId) -> CheckFn {
    match claim {
        ClaimId::C1 => regression::c1_direct_calls_target,
        ClaimId::C2 => regression::c2_tool_search_calls_target,
        ClaimId::C3 => regression::c3_direct_declares_fake_schemas,
        ClaimId::C4 => regression::c4_only_bridge_declared,
        ClaimId::C5 => regression::c5_smaller,
        ClaimId::C6 => regression::c6_session_log,
        ClaimId::D1 => directory::d1_directory_presence,
        ClaimId::N1 => negative::n1_one_path,
        ClaimId::B1 => batch::b1_batch_search,
        ClaimId::I1 => invoke::i1_invoke_batch,
        ClaimId::E1 => effective::e1_effective_attribution,
        ClaimId::F1 => fail_closed::f1_denied_never_surfaces,
        ClaimId::F2 => fail_closed::f2_withdrawn,
        ClaimId::F3 => fail_closed::f3_blocked,
        ClaimId::F4 => fail_closed::f4_sandbox_fallback,
        ClaimId::F5 => fail_closed::f5_timeout,
        ClaimId::F6 => fail_closed::f6_denied_input,
        ClaimId::H1 => handoff::h1_handed_back,
        ClaimId::L1 => regression::l1_log_tells_the_surface,
        ClaimId::P1 => cache::p1_prefix_is_stable,
        ClaimId::R1 => ranking::r1_target_ranked,
        ClaimId::T1 => fail_closed::t1_expected_figures,
        ClaimId::V1 => native::v1_target_found_and_called,
        ClaimId::V2 => native::v2_nothing_loaded_before_search,
        ClaimId::V3 => native::v3_deferred_catalogue_stable,
        ClaimId::A1 => upstream::a1_arguments_intact,
        ClaimId::G1 => upstream::g1_direct_only_guided,
        ClaimId::K1 => upstream::k1_turn_ends_cleanly,
        ClaimId::K2 => upstream::k2_failure_loop_bounded,
        ClaimId::S1 => upstream::s1_no_match_is_empty,
        ClaimId::M1 => upstream::m1_mcp_outage_named,
        ClaimId::X1 => code_mode::x1_precedence,
        ClaimId::X2 => code_mode::x2_fails_closed,
        ClaimId::X3 => code_mode::x3_bounded_index,
        ClaimId::X4 => code_mode::x4_policy_in_guest,
    }
}

/// Does `claim` apply to this lane by default?
fn applies_to(claim: ClaimId, lane: &Observed<'_>) -> bool {
    let native = lane.lane.is_native();
    claim.checks(lane.lane)
        && match claim.def().applies {
            Applies::DirectLanes => lane.lane.is_direct() && !native,
            Applies::ToolSearchLanes => !lane.lane.is_direct() && !native,
            Applies::EveryLane => true,
            Applies::LanesWithExpectations => lane.lane.expect_for(lane.target).is_set(),
            Applies::NativeLanes => native,
            Applies::CodeModeLanes => lane.lane.code_mode_engaged().is_some(),
        }
}

/// One check; what it expected and saw are evidence, redacted and bounded
/// ([`crate::outcome::evidence`]) before any report can show them.
pub fn check(
    name: impl Into<String>,
    ok: bool,
    expected: impl Into<String>,
    actual: impl Into<String>,
) -> Check {
    Check {
        check: name.into(),
        ok,
        expected: evidence(&expected.into()),
        actual: evidence(&actual.into()),
    }
}

/// An optional value as a reader wants it: the value, or `none`.
pub fn show<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| "none".to_string(), |v| v.to_string())
}

/// A list of names, complete: `3 names: a, b, c` (`no names` when empty). Tables abbreviate it.
pub fn names<S: AsRef<str>>(list: &[S]) -> String {
    match list.len() {
        0 => "no names".to_string(),
        n => format!(
            "{n} name{}: {}",
            if n == 1 { "" } else { "s" },
            list.iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", ")
        ),
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
    Verdict::new(claim, &lane.lane.name, check_of(claim)(&input))
}

/// Why a native claim is not applicable where the scenario has native lanes the target cannot
/// run (a real product: the provider's own search is the embedded gateway's lane).
pub const TARGET_HAS_NO_NATIVE_LANES: &str =
    "this target cannot run native lanes (the embedded gateway runs them)";

/// Evaluates every claim that applies to the scenario's lanes, in a stable order (claim, then
/// lane order, not-applicable ones first). A scenario without `claims` gets
/// [`ClaimId::defaults`]; one that lists claims gets exactly those (narrowed to their `lanes`;
/// C1–C5 keep to the lanes they are about). A claim whose lane is missing is one
/// not-applicable verdict ([`ClaimId::missing_lane`]; a native claim whose lanes the target
/// cannot run says so). T1 runs on every lane that sets exact expectations for the target.
/// `not_run`: the scenario's lanes the target cannot run.
pub fn evaluate(
    scenario: &Scenario,
    lanes: &[Observed<'_>],
    not_run: &[NotApplicable],
) -> Vec<Verdict> {
    let mut verdicts = Vec::new();
    let native_not_run = not_run.iter().any(|l| l.native);
    let has_native = native_not_run || scenario.lanes.iter().any(|l| l.is_native());
    let named = scenario.claims.iter().map(|spec| (spec.id, Some(spec)));
    let claims: Vec<(ClaimId, Option<&ClaimSpec>)> = match scenario.claims.is_empty() {
        true => ClaimId::defaults(has_native)
            .into_iter()
            .map(|id| (id, None))
            .collect(),
        false => named.collect(),
    };
    let all: Vec<&crate::scenario::Lane> = lanes.iter().map(|l| l.lane).collect();
    for (claim, spec) in claims {
        let candidates: Vec<&Observed<'_>> = lanes
            .iter()
            .filter(|l| spec.is_none_or(|s| s.lanes.is_empty() || s.lanes.contains(&l.lane.name)))
            .filter(|l| spec.is_some() && !claim.keeps_own_lanes() || applies_to(claim, l))
            .filter(|l| claim.checks(l.lane))
            .collect();
        let candidate_lanes: Vec<&crate::scenario::Lane> =
            candidates.iter().map(|l| l.lane).collect();
        match claim.missing_lane(&candidate_lanes, &all) {
            Some(_) if claim.def().applies == Applies::NativeLanes && native_not_run => {
                verdicts.push(Verdict::not_applicable(claim, TARGET_HAS_NO_NATIVE_LANES))
            }
            Some(reason) => verdicts.push(Verdict::not_applicable(claim, reason)),
            None => verdicts.extend(
                candidates
                    .iter()
                    .map(|lane| verdict(claim, scenario, spec, lane, lanes)),
            ),
        }
    }
    for lane in lanes.iter().filter(|l| applies_to(ClaimId::T1, l)) {
        verdicts.push(verdict(ClaimId::T1, scenario, None, lane, lanes));
    }
    let lane_index = |name: &str| lanes.iter().position(|l| l.lane.name == name);
    verdicts.sort_by(|a, b| {
        a.claim
            .cmp(&b.claim)
            .then_with(|| lane_index(&a.lane).cmp(&lane_index(&b.lane)))
    });
    verdicts
}

#[cfg(test)]
mod tests {
    use super::fixture::Fixture;
    use super::{evaluate, TARGET_HAS_NO_NATIVE_LANES};
    use crate::scenario::{parse_scenario, ClaimId};
    use crate::targets::NotApplicable;

    /// On a target that cannot run native lanes (the product drops them from its plan), V1–V3
    /// say so, named in `claims` or by default — not that the scenario has no native lane
    /// (issue #41).
    #[test]
    fn native_claims_say_the_target_cannot_run_native_lanes() {
        let text = |claims: &str| {
            format!(
                "id='n'\ntitle='t'\nprompt='p'\ntarget_tool='fake_plugin_tool_03'\n{claims}\n\
                 [catalog]\nplugin_id='p'\nsize=12\n\
                 [[lanes]]\nname='direct'\ntool_search=false\n\
                 [[lanes]]\nname='native'\nnative={{ provider='openai', search='server' }}\n"
            )
        };
        for claims in [
            "",
            "claims = [{ id = 'C1' }, { id = 'V1' }, { id = 'V2' }, { id = 'V3' }]",
        ] {
            let full = parse_scenario(&text(claims), "n.toml").unwrap();
            let native = full.lanes.iter().find(|l| l.is_native()).unwrap();
            let not_run = [NotApplicable::new(native, "never on the product".into())];
            let mut planned = full.clone();
            planned.lanes.retain(|l| !l.is_native());
            let verdicts = evaluate(&planned, &[], &not_run);
            let native_claims: Vec<(ClaimId, Option<&str>)> = verdicts
                .iter()
                .filter(|v| matches!(v.claim, ClaimId::V1 | ClaimId::V2 | ClaimId::V3))
                .map(|v| (v.claim, v.not_applicable.as_deref()))
                .collect();
            let want = Some(TARGET_HAS_NO_NATIVE_LANES);
            assert_eq!(
                native_claims,
                [
                    (ClaimId::V1, want),
                    (ClaimId::V2, want),
                    (ClaimId::V3, want)
                ],
                "claims: {claims:?}"
            );
        }
        // With no native lane at all, a scenario without `claims` does not get V1–V3.
        let plain = parse_scenario(
            &text("").replace(
                "[[lanes]]\nname='native'\nnative={ provider='openai', search='server' }\n",
                "",
            ),
            "n.toml",
        )
        .unwrap();
        assert_eq!(plain.lanes.len(), 1);
        assert!(evaluate(&plain, &[], &[])
            .iter()
            .all(|v| !matches!(v.claim, ClaimId::V1 | ClaimId::V2 | ClaimId::V3)));
    }

    use crate::outcome::evidence::MAX_EVIDENCE_CHARS;

    /// A gateway whose answer echoes a secret and runs long: no report shows the secret, and no
    /// string any report stores or prints exceeds the bound.
    #[test]
    fn every_report_format_redacts_and_bounds_the_evidence() {
        let secret = "qa-gateway-secret-0123456789";
        let mut f = Fixture::passing_reference();
        let answer = format!(
            "Authorization: Bearer {secret}\n{{\"gatewayToken\": \"{secret}\"}}\n{}",
            "x".repeat(20_000)
        );
        f.lane("direct").answer = answer.clone();
        let report = f.suite_report();
        let c1 = &report.scenarios[0].claims[0];
        assert!(!c1.ok, "{c1:?}");
        let rendered = [
            ("json", report.to_json()),
            (
                "junit",
                crate::report::junit::junit_xml(std::slice::from_ref(&report)).unwrap(),
            ),
            ("markdown", report.to_markdown()),
            ("table", report.to_table()),
        ];
        for (format, text) in &rendered {
            assert!(!text.contains(secret), "{format} shows the secret");
            assert!(
                !text.contains(&"x".repeat(MAX_EVIDENCE_CHARS)),
                "{format} is unbounded"
            );
        }
        let json = &rendered[0].1;
        assert!(json.contains("[redacted]"), "{json}");
        assert!(json.contains("… [cut: 6,000 of 20,"), "{json}");
        // What the claims read is the answer as observed.
        assert!(c1
            .failures
            .iter()
            .all(|c| c.actual.chars().count() <= MAX_EVIDENCE_CHARS));
    }
}
