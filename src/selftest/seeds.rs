//! The seeded regressions: for every claim at least one per target, each with the scenario it
//! runs and the claim that must turn red. A new claim without a seed here fails
//! `every_claim_has_an_embedded_seed` (in this module's tests).

use super::product::UserSeed;
use crate::gateway::faults::Fault;
use crate::scenario::claim::ClaimId;

/// One seeded regression: what is broken, where it runs, which claim must catch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed {
    pub how: How,
    /// The built-in scenario it runs.
    pub scenario: &'static str,
    /// The claim that must fail.
    pub claim: ClaimId,
}

/// How a regression is seeded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// A fault the embedded gateway is started with.
    Embedded(Fault),
    /// A change a user makes on a real OpenClaw gateway (plugin, config, policy).
    Openclaw(UserSeed),
    /// No seed on a real OpenClaw gateway for this claim, and why.
    NotSeedable(&'static str),
}

impl Seed {
    /// The seed's name in reports (the fault's kebab-case name).
    pub fn name(&self) -> String {
        match self.how {
            How::Embedded(fault) => fault.name(),
            How::Openclaw(user) => user.name().to_string(),
            How::NotSeedable(_) => "-".to_string(),
        }
    }

    /// The target it runs on, as reports name it.
    pub fn target(&self) -> &'static str {
        match self.how {
            How::Embedded(_) => "embedded",
            How::Openclaw(_) | How::NotSeedable(_) => "openclaw",
        }
    }
}

const fn openclaw(user: UserSeed, scenario: &'static str, claim: ClaimId) -> Seed {
    Seed {
        how: How::Openclaw(user),
        scenario,
        claim,
    }
}

const fn not_seedable(claim: ClaimId, scenario: &'static str, why: &'static str) -> Seed {
    Seed {
        how: How::NotSeedable(why),
        scenario,
        claim,
    }
}

/// Every claim on a real OpenClaw gateway: a seed a user can cause, or why there is none.
pub const OPENCLAW: &[Seed] = &[
    openclaw(UserSeed::TargetBroken, REFERENCE, ClaimId::C1),
    openclaw(UserSeed::ToolSearchOff, REFERENCE, ClaimId::C2),
    openclaw(UserSeed::TargetBroken, REFERENCE, ClaimId::C2),
    openclaw(UserSeed::DescriptionRestamped, REFERENCE, ClaimId::C3),
    openclaw(UserSeed::SchemaInPrompt, REFERENCE, ClaimId::C4),
    openclaw(UserSeed::PromptPadded, REFERENCE, ClaimId::C5),
    openclaw(UserSeed::ToolSearchOff, REFERENCE, ClaimId::C6),
    openclaw(UserSeed::ToolSearchOff, REFERENCE, ClaimId::D1),
    openclaw(UserSeed::ToolSearchOff, REFERENCE, ClaimId::N1),
    not_seedable(
        ClaimId::B1,
        REFERENCE,
        "not seeded: the product's batch search has no setting; the plugin cannot reorder it",
    ),
    not_seedable(
        ClaimId::I1,
        REFERENCE,
        "no adopted release serves tool_search on /tools/invoke (404, an accepted finding), so \
         there is no working invoke batch to break",
    ),
    openclaw(UserSeed::TargetDenied, REFERENCE, ClaimId::E1),
    openclaw(
        UserSeed::DenyForgotten,
        "fail-closed-f1-policy-denied",
        ClaimId::F1,
    ),
    not_seedable(
        ClaimId::F2,
        "fail-closed-f2-withdrawn",
        "the product has no way to withdraw a tool between a search and its call",
    ),
    openclaw(
        UserSeed::ApprovalForgotten,
        "fail-closed-f3-blocked",
        ClaimId::F3,
    ),
    not_seedable(
        ClaimId::F4,
        "fail-closed-f4-sandbox-unavailable",
        "every Node the product supports has --permission; no setting disables the sandbox",
    ),
    openclaw(
        UserSeed::CodeTimeoutRaised,
        "fail-closed-f5-code-timeout",
        ClaimId::F5,
    ),
    openclaw(
        UserSeed::SchemaLoosened,
        "fail-closed-f6-denied-input",
        ClaimId::F6,
    ),
    not_seedable(
        ClaimId::H1,
        "tool-search-client-target",
        "no setting makes the product run a client tool instead of handing it back",
    ),
    openclaw(
        UserSeed::McpToolRenamed,
        "tool-search-mcp-target",
        ClaimId::L1,
    ),
    openclaw(UserSeed::DescriptionRestamped, REFERENCE, ClaimId::P1),
    not_seedable(
        ClaimId::R1,
        "tool-search-ranking",
        "the ranker has no setting and ranks the target first in both searches, so no \
         maxSearchLimit cuts it; every scripted search sets its own limit, so \
         searchDefaultLimit never applies",
    ),
    openclaw(UserSeed::CatalogueGrows, REFERENCE, ClaimId::T1),
    not_seedable(ClaimId::V1, REFERENCE, NATIVE_ONLY),
    not_seedable(ClaimId::V2, REFERENCE, NATIVE_ONLY),
    not_seedable(ClaimId::V3, REFERENCE, NATIVE_ONLY),
    not_seedable(
        ClaimId::A1,
        "upstream-flattened-args",
        "no setting changes how the product reads a bridged call's arguments",
    ),
    not_seedable(
        ClaimId::G1,
        "upstream-direct-only-bridged",
        "no setting changes how the product's bridge treats a directly declared tool",
    ),
    not_seedable(
        ClaimId::K1,
        "upstream-query-and-queries",
        "no setting makes the product end a turn silently after a refused call",
    ),
    not_seedable(
        ClaimId::K2,
        "upstream-unknown-id-repeated",
        "no setting lifts the product's bound on a failing call (loop detection is off by default)",
    ),
    not_seedable(
        ClaimId::S1,
        "upstream-search-no-match",
        "the product's ranker has no setting that lists tools for a query nothing matches",
    ),
    not_seedable(
        ClaimId::M1,
        "upstream-mcp-server-exits",
        "no setting changes how the product reports a tool whose MCP server exited",
    ),
    not_seedable(ClaimId::X1, CODE_MODE, CODE_MODE_NOT_YET),
    not_seedable(ClaimId::X2, CODE_MODE_FAIL_CLOSED, CODE_MODE_NOT_YET),
    not_seedable(
        ClaimId::X3,
        CODE_MODE,
        "the quick index's 8,000-character bound is fixed in the product (no setting widens it)",
    ),
    not_seedable(ClaimId::X4, CODE_MODE_FAIL_CLOSED, CODE_MODE_NOT_YET),
];

/// Why a Code Mode claim has no seed on the product yet: its lanes run there (the target writes
/// tools.codeMode), but no user seed (a config a user could write) is written for it.
const CODE_MODE_NOT_YET: &str =
    "not seeded yet: Code Mode lanes run on the product, but no user seed is written for this claim";

const CODE_MODE: &str = "code-mode-gateway-e2e";
const CODE_MODE_FAIL_CLOSED: &str = "code-mode-fail-closed";

const NATIVE_ONLY: &str =
    "native lanes run on the embedded gateway only: the product sends its own bridge, never a deferred catalogue";

const REFERENCE: &str = "tool-search-gateway-e2e";
const NATIVE_SHAPES: &str = "tool-search-native-shapes";

const fn embedded(fault: Fault, scenario: &'static str, claim: ClaimId) -> Seed {
    Seed {
        how: How::Embedded(fault),
        scenario,
        claim,
    }
}

/// Every seeded regression of the embedded gateway, in claim order.
pub const EMBEDDED: &[Seed] = &[
    embedded(Fault::WrongMarker, REFERENCE, ClaimId::C1),
    embedded(Fault::BridgeCallsNeighbour, REFERENCE, ClaimId::C2),
    embedded(Fault::BridgeDropped, REFERENCE, ClaimId::C2),
    embedded(Fault::DirectSchemaDrift, REFERENCE, ClaimId::C3),
    embedded(Fault::SchemaInPrompt, REFERENCE, ClaimId::C4),
    embedded(Fault::CatalogueToolDeclared, REFERENCE, ClaimId::C4),
    embedded(Fault::PaddedPrompt, REFERENCE, ClaimId::C5),
    embedded(Fault::TelemetryMiscount, REFERENCE, ClaimId::C6),
    embedded(Fault::BridgedRecordSkipped, REFERENCE, ClaimId::C6),
    embedded(Fault::DirectoryDropsPlugin, REFERENCE, ClaimId::D1),
    // Every tool declared directly: the model calls the target by name under Tool Search.
    embedded(Fault::BridgeDropped, REFERENCE, ClaimId::N1),
    embedded(Fault::BatchGroupsReversed, REFERENCE, ClaimId::B1),
    embedded(Fault::InvokeBatchLosesGroup, REFERENCE, ClaimId::I1),
    embedded(Fault::EffectiveLosesPlugin, REFERENCE, ClaimId::E1),
    embedded(
        Fault::DeniedSurfaces,
        "fail-closed-f1-policy-denied",
        ClaimId::F1,
    ),
    embedded(
        Fault::WithdrawIgnored,
        "fail-closed-f2-withdrawn",
        ClaimId::F2,
    ),
    embedded(
        Fault::ExactNameSkipsAvailability,
        "fail-closed-f2-withdrawn",
        ClaimId::F2,
    ),
    embedded(Fault::DenySwallowed, "fail-closed-f3-blocked", ClaimId::F3),
    embedded(
        Fault::ExactNameSkipsGuards,
        "fail-closed-f3-blocked",
        ClaimId::F3,
    ),
    embedded(
        Fault::NoSandboxFallback,
        "fail-closed-f4-sandbox-unavailable",
        ClaimId::F4,
    ),
    embedded(
        Fault::TimeoutSwallowed,
        "fail-closed-f5-code-timeout",
        ClaimId::F5,
    ),
    embedded(
        Fault::InputRepaired,
        "fail-closed-f6-denied-input",
        ClaimId::F6,
    ),
    embedded(
        Fault::ExactNameSkipsSchema,
        "fail-closed-f6-denied-input",
        ClaimId::F6,
    ),
    embedded(
        Fault::ClientToolRun,
        "tool-search-client-target",
        ClaimId::H1,
    ),
    embedded(
        Fault::SourceUnrecorded,
        "tool-search-mcp-target",
        ClaimId::L1,
    ),
    embedded(Fault::SurfaceMiscount, REFERENCE, ClaimId::L1),
    embedded(Fault::ToolOrderVaries, REFERENCE, ClaimId::P1),
    embedded(Fault::NonceInPrompt, REFERENCE, ClaimId::P1),
    // The same two on the replay of openclaw/openclaw#121793 and #140121: the second turn, for
    // another target, must keep the first turn's prefix too.
    embedded(
        Fault::ToolOrderVaries,
        "upstream-follow-up-other-target",
        ClaimId::P1,
    ),
    embedded(
        Fault::NonceInPrompt,
        "upstream-follow-up-other-target",
        ClaimId::P1,
    ),
    embedded(Fault::WorstFirstRanker, "tool-search-ranking", ClaimId::R1),
    embedded(
        Fault::WorstFirstRanker,
        "upstream-product-words",
        ClaimId::R1,
    ),
    embedded(Fault::CatalogueDropsOne, REFERENCE, ClaimId::T1),
    embedded(Fault::SearchResultDropped, REFERENCE, ClaimId::V1),
    embedded(Fault::SearchCallDropped, REFERENCE, ClaimId::V1),
    // The provider refuses the replay: the lane ends there, and V1 reads the refusal.
    embedded(Fault::ServerToolUseDropped, REFERENCE, ClaimId::V1),
    embedded(Fault::CatalogueNotDeferred, REFERENCE, ClaimId::V2),
    // One deferred tool's schema pasted into the system text: V2 reads the whole request.
    embedded(Fault::SchemaInPrompt, REFERENCE, ClaimId::V2),
    embedded(Fault::ToolOrderVaries, REFERENCE, ClaimId::V3),
    // The shapes the reference lanes leave out (OpenAI namespaces, Anthropic client-side
    // search): the orphaned search result is refused, the pasted schema is in view, the
    // reversed namespaces and deferred tools move.
    embedded(Fault::SearchCallDropped, NATIVE_SHAPES, ClaimId::V1),
    embedded(Fault::SchemaInPrompt, NATIVE_SHAPES, ClaimId::V2),
    embedded(Fault::ToolOrderVaries, NATIVE_SHAPES, ClaimId::V3),
    embedded(
        Fault::FlatArgsDropped,
        "upstream-flattened-args",
        ClaimId::A1,
    ),
    embedded(
        Fault::DirectOnlyBridged,
        "upstream-direct-only-bridged",
        ClaimId::G1,
    ),
    embedded(
        Fault::SilentAfterToolError,
        "upstream-query-and-queries",
        ClaimId::K1,
    ),
    embedded(
        Fault::FailureLoopUnbounded,
        "upstream-unknown-id-repeated",
        ClaimId::K2,
    ),
    embedded(
        Fault::NoMatchReturnsAll,
        "upstream-search-no-match",
        ClaimId::S1,
    ),
    embedded(
        Fault::McpOutageHidden,
        "upstream-mcp-server-exits",
        ClaimId::M1,
    ),
    // The other half of M1: the outage named, but the model asked again after every failure.
    embedded(
        Fault::FailureLoopUnbounded,
        "upstream-mcp-server-exits",
        ClaimId::M1,
    ),
    // "auto" engaged for the model that is not catalog-preferred: lane auto-unpreferred shows
    // exec + wait where Tool Search's surface belongs.
    embedded(Fault::AutoTierIgnoresModel, CODE_MODE, ClaimId::X1),
    // The denied QuickJS executor's cell runs anyway.
    embedded(Fault::ExecutorFallsBack, CODE_MODE_FAIL_CLOSED, ClaimId::X2),
    embedded(Fault::IndexCarriesDescriptions, CODE_MODE, ClaimId::X3),
    // The policy applied only when a tool runs: the cell's catalogue holds the denied tool.
    embedded(Fault::DeniedSurfaces, CODE_MODE_FAIL_CLOSED, ClaimId::X4),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_claim_has_an_embedded_seed() {
        let missing: Vec<ClaimId> = ClaimId::ALL
            .into_iter()
            .filter(|c| !EMBEDDED.iter().any(|s| s.claim == *c))
            .collect();
        assert_eq!(missing, Vec::<ClaimId>::new());
    }

    #[test]
    fn every_claim_has_an_openclaw_cell() {
        let missing: Vec<ClaimId> = ClaimId::ALL
            .into_iter()
            .filter(|c| !OPENCLAW.iter().any(|s| s.claim == *c))
            .collect();
        assert_eq!(missing, Vec::<ClaimId>::new());
    }

    #[test]
    fn every_seed_runs_a_built_in_scenario() {
        let known = crate::scenario::load_all(&[]).unwrap();
        for seed in EMBEDDED.iter().chain(OPENCLAW) {
            assert!(
                known.iter().any(|s| s.id == seed.scenario),
                "{} runs {}",
                seed.name(),
                seed.scenario
            );
        }
    }
}
