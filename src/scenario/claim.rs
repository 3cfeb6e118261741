//! Every claim a scenario can ask for, with what the suite needs to know about it before running
//! anything: its title, the lanes it applies to by default, what it needs from the scenario.
//! How each is checked lives with the checks ([`crate::suite::claims`]).
//!
//! Adding a claim: a [`ClaimId`] variant, its entry in [`ClaimId::ALL`] and its arm in
//! [`ClaimId::def`] here; its check function's arm in `suite::claims::check_of` (the compiler
//! points at both arms).

use std::fmt;

use serde::{Serialize, Serializer};

use super::Lane;

/// Every claim the suite knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClaimId {
    C1,
    C2,
    C3,
    C4,
    C5,
    C6,
    D1,
    N1,
    B1,
    I1,
    E1,
    F1,
    F2,
    F3,
    F4,
    F5,
    F6,
    H1,
    L1,
    P1,
    R1,
    T1,
    V1,
    V2,
    V3,
    A1,
    G1,
    K1,
    K2,
    S1,
    M1,
    X1,
    X2,
    X3,
    X4,
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
    /// Native lanes: the provider's own tool search over the deferred catalogue.
    NativeLanes,
    /// Lanes where Code Mode engages (`code_mode`): `exec` + `wait`.
    CodeModeLanes,
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
    /// It compares each lane with the scenario's direct lane (C5), so it needs one.
    pub compares_with_direct: bool,
    /// It means something on a native lane too (the gateway's bridge claims do not: there the
    /// provider searches).
    pub on_native: bool,
}

impl ClaimId {
    /// Every claim, in report order.
    pub const ALL: [ClaimId; 35] = [
        ClaimId::C1,
        ClaimId::C2,
        ClaimId::C3,
        ClaimId::C4,
        ClaimId::C5,
        ClaimId::C6,
        ClaimId::D1,
        ClaimId::N1,
        ClaimId::B1,
        ClaimId::I1,
        ClaimId::E1,
        ClaimId::F1,
        ClaimId::F2,
        ClaimId::F3,
        ClaimId::F4,
        ClaimId::F5,
        ClaimId::F6,
        ClaimId::H1,
        ClaimId::L1,
        ClaimId::P1,
        ClaimId::R1,
        ClaimId::T1,
        ClaimId::V1,
        ClaimId::V2,
        ClaimId::V3,
        ClaimId::A1,
        ClaimId::G1,
        ClaimId::K1,
        ClaimId::K2,
        ClaimId::S1,
        ClaimId::M1,
        ClaimId::X1,
        ClaimId::X2,
        ClaimId::X3,
        ClaimId::X4,
    ];

    /// The claims a scenario without `claims` gets: the six regression claims, the directory's
    /// presence (D1) and the negative paths (N1) upstream's reference asserts, the stricter
    /// session-log question (L1) and prompt-cache prefix stability (P1). T1 comes on top, on
    /// every lane that sets exact expectations.
    pub const DEFAULT: [ClaimId; 10] = [
        ClaimId::C1,
        ClaimId::C2,
        ClaimId::C3,
        ClaimId::C4,
        ClaimId::C5,
        ClaimId::C6,
        ClaimId::D1,
        ClaimId::N1,
        ClaimId::L1,
        ClaimId::P1,
    ];

    /// The claims of a scenario without `claims`: [`ClaimId::DEFAULT`], and with a native lane
    /// the native lanes' own claims V1–V3 (of the defaults only P1 means something there).
    pub fn defaults(has_native_lane: bool) -> Vec<ClaimId> {
        let native = [ClaimId::V1, ClaimId::V2, ClaimId::V3];
        let mut claims = ClaimId::DEFAULT.to_vec();
        if has_native_lane {
            claims.extend(native);
        }
        claims
    }

    /// Claims that keep their own lanes even when a scenario lists them (a regression claim on a
    /// direct lane would mean nothing).
    pub fn keeps_own_lanes(self) -> bool {
        matches!(
            self.def().applies,
            Applies::DirectLanes
                | Applies::ToolSearchLanes
                | Applies::NativeLanes
                | Applies::CodeModeLanes
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ClaimId::C1 => "C1",
            ClaimId::C2 => "C2",
            ClaimId::C3 => "C3",
            ClaimId::C4 => "C4",
            ClaimId::C5 => "C5",
            ClaimId::C6 => "C6",
            ClaimId::D1 => "D1",
            ClaimId::N1 => "N1",
            ClaimId::B1 => "B1",
            ClaimId::I1 => "I1",
            ClaimId::E1 => "E1",
            ClaimId::F1 => "F1",
            ClaimId::F2 => "F2",
            ClaimId::F3 => "F3",
            ClaimId::F4 => "F4",
            ClaimId::F5 => "F5",
            ClaimId::F6 => "F6",
            ClaimId::H1 => "H1",
            ClaimId::L1 => "L1",
            ClaimId::P1 => "P1",
            ClaimId::R1 => "R1",
            ClaimId::T1 => "T1",
            ClaimId::V1 => "V1",
            ClaimId::V2 => "V2",
            ClaimId::V3 => "V3",
            ClaimId::A1 => "A1",
            ClaimId::G1 => "G1",
            ClaimId::K1 => "K1",
            ClaimId::K2 => "K2",
            ClaimId::S1 => "S1",
            ClaimId::M1 => "M1",
            ClaimId::X1 => "X1",
            ClaimId::X2 => "X2",
            ClaimId::X3 => "X3",
            ClaimId::X4 => "X4",
        }
    }

    pub fn from_name(name: &str) -> Option<ClaimId> {
        ClaimId::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The registry: each claim's definition.
    pub fn def(self) -> ClaimDef {
        use Applies::*;
        let def = |title, applies, needs_tool| ClaimDef {
            title,
            applies,
            needs_tool,
            nameable: true,
            compares_with_direct: false,
            on_native: applies == NativeLanes,
        };
        match self {
            ClaimId::C1 => def("direct mode calls the fake plugin tool", DirectLanes, false),
            ClaimId::C2 => def(
                "Tool Search calls the same fake plugin tool",
                ToolSearchLanes,
                false,
            ),
            ClaimId::C3 => def(
                "direct mode exposes the fake tool schemas to the provider",
                DirectLanes,
                false,
            ),
            ClaimId::C4 => def(
                "Tool Search exposes only the compact bridge and direct-only tools",
                ToolSearchLanes,
                false,
            ),
            ClaimId::C5 => ClaimDef {
                compares_with_direct: true,
                ..def(
                    "Tool Search's request payload is smaller",
                    ToolSearchLanes,
                    false,
                )
            },
            ClaimId::C6 => def(
                "session log shows the expected counts and bridged-call telemetry",
                EveryLane,
                false,
            ),
            ClaimId::D1 => def(
                "the capability directory lists the target under Tool Search, and is absent when off",
                EveryLane,
                false,
            ),
            ClaimId::N1 => def(
                "Tool Search never calls the target directly; a direct lane never uses the bridge",
                EveryLane,
                false,
            ),
            ClaimId::B1 => def(
                "one batch search returns a group per query, then one bridge call runs the target",
                ToolSearchLanes,
                false,
            ),
            ClaimId::I1 => def(
                "POST /tools/invoke, no model, answers: a batch search a group per query, a named tool found",
                EveryLane,
                false,
            ),
            ClaimId::E1 => def(
                "tools.effective attributes the target to the fixture's plugin",
                EveryLane,
                false,
            ),
            ClaimId::F1 => def(
                "a policy-denied tool never surfaces anywhere",
                EveryLane,
                true,
            ),
            ClaimId::F2 => def(
                "a tool withdrawn after search makes tool_call fail and nothing runs",
                EveryLane,
                true,
            ),
            ClaimId::F3 => def(
                "an approval or before_tool_call block is reported and the tool does not run",
                EveryLane,
                true,
            ),
            ClaimId::F4 => def(
                "an unavailable sandbox makes code mode fall back to tools before compaction",
                EveryLane,
                false,
            ),
            ClaimId::F5 => def(
                "a code timeout is a clear error and leaves no late bridge call",
                EveryLane,
                false,
            ),
            ClaimId::F6 => def(
                "denied input reaches the model as an error and nothing runs",
                EveryLane,
                false,
            ),
            ClaimId::H1 => def(
                "a client tool call is handed back to the caller and not run",
                EveryLane,
                false,
            ),
            ClaimId::L1 => def(
                "the session log alone tells the schemas seen up front and the final tool's source",
                EveryLane,
                false,
            ),
            ClaimId::P1 => ClaimDef {
                on_native: true,
                ..def(
                    "every request of the turn starts with the same prompt and tools (cache prefix)",
                    EveryLane,
                    false,
                )
            },
            ClaimId::R1 => def(
                "a natural-language search lists the target within its limit",
                ToolSearchLanes,
                false,
            ),
            ClaimId::T1 => ClaimDef {
                nameable: false,
                on_native: true,
                ..def(
                    "the lane shows the scenario's exact expected figures",
                    LanesWithExpectations,
                    false,
                )
            },
            ClaimId::V1 => def(
                "the provider's own search loads the target and the model calls it",
                NativeLanes,
                false,
            ),
            ClaimId::V2 => def(
                "no deferred schema reaches the model before a search loads it",
                NativeLanes,
                false,
            ),
            ClaimId::V3 => def(
                "the deferred catalogue is sent byte-identical in every request",
                NativeLanes,
                false,
            ),
            ClaimId::A1 => def(
                "a bridged call's flattened arguments reach the target intact",
                ToolSearchLanes,
                false,
            ),
            ClaimId::G1 => def(
                "the bridge refuses a directly declared tool and says to call it directly",
                ToolSearchLanes,
                true,
            ),
            ClaimId::K1 => def(
                "a refused call is a clear error, the turn is answered and the session goes on",
                EveryLane,
                false,
            ),
            ClaimId::K2 => def(
                "a call that keeps failing ends the turn as a failure, before the repeats run out",
                EveryLane,
                false,
            ),
            ClaimId::S1 => def(
                "a search that matches nothing answers no tool",
                ToolSearchLanes,
                false,
            ),
            ClaimId::M1 => def(
                "a tool whose MCP server exited fails naming the server, and the turn ends as a failure",
                ToolSearchLanes,
                false,
            ),
            ClaimId::X1 => def(
                "Code Mode's surface (exec + wait, no Tool Search control) wherever it engages, and only there",
                EveryLane,
                false,
            ),
            ClaimId::X2 => def(
                "an unavailable Code Mode executor fails the cell closed: no schema declared, nothing run",
                CodeModeLanes,
                false,
            ),
            ClaimId::X3 => def(
                "the exec quick index stays within its bound, with no description, schema or MCP entry",
                CodeModeLanes,
                false,
            ),
            ClaimId::X4 => def(
                "a policy-denied tool can be neither found nor called from a Code Mode cell",
                CodeModeLanes,
                true,
            ),
        }
    }

    /// Is `lane` one this claim can be checked on at all? A native lane takes only the claims
    /// that mean something there ([`ClaimDef::on_native`]).
    pub fn checks(self, lane: &Lane) -> bool {
        !lane.is_native() || self.def().on_native
    }

    /// The claim's one-line statement.
    pub fn title(self) -> &'static str {
        self.def().title
    }

    /// The one rule for a claim that needs a lane the scenario does not have: what is missing,
    /// given the lanes the claim would run on (`candidates`, after a scenario's `lanes` narrowed
    /// them) and every lane of the scenario. A claim the scenario names in `claims` with a lane
    /// missing is a load error; a default claim is reported as not applicable, with this reason
    /// — never a failure, never left out.
    pub fn missing_lane(self, candidates: &[&Lane], all: &[&Lane]) -> Option<&'static str> {
        let def = self.def();
        let candidates: Vec<&Lane> = candidates
            .iter()
            .copied()
            .filter(|l| self.checks(l))
            .collect();
        let candidates = candidates.as_slice();
        let gateway = |l: &&&Lane| !l.is_native();
        let has = |lanes: &[&Lane], direct: bool| {
            lanes
                .iter()
                .filter(gateway)
                .any(|l| l.is_direct() == direct)
        };
        match def.applies {
            Applies::NativeLanes if !candidates.iter().any(|l| l.is_native()) => {
                return Some("no native lane (native = { provider = … })")
            }
            Applies::DirectLanes if !has(candidates, true) => {
                return Some("no lane with Tool Search off (tool_search = false)")
            }
            Applies::ToolSearchLanes if !has(candidates, false) => {
                return Some("no Tool Search lane")
            }
            Applies::CodeModeLanes
                if !candidates.iter().any(|l| l.code_mode_engaged().is_some()) =>
            {
                return Some("no Code Mode lane (code_mode = { … })")
            }
            Applies::EveryLane if candidates.is_empty() => return Some("no lane"),
            _ => {}
        }
        if def.compares_with_direct && !has(all, true) {
            return Some("no direct lane (tool_search = false) to compare with");
        }
        None
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

/// Read back from a report (`report merge`): the id as serialised.
impl<'de> serde::Deserialize<'de> for ClaimId {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        ClaimId::from_name(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown claim id {name:?}")))
    }
}
