//! Seeds on a real OpenClaw gateway, through what a user controls: the fake plugin's tools, the
//! gateway config, the policy. Each seed is a change to a built-in scenario ([`UserSeed::apply`]);
//! every seeded scenario and the unseeded baseline run in one gateway (one start, its config
//! reloaded per lane), each seeded lane under its own name so no two share a session. The
//! verdicts then get their lanes' names back and the product's accepted findings, exactly as
//! `suite --target openclaw` judges them: a failure the product is known for is not a catch.

use serde_json::json;

use super::seeds::Seed;
use crate::error::Error;
use crate::outcome::findings;
use crate::outcome::{ScenarioReport, SuiteReport};
use crate::scenario::{ClaimId, Lane, Scenario};
use crate::suite::{run_plans, ProviderSource, Quiet};
use crate::targets::openclaw::Pick;
use crate::targets::{Target, TargetPick};

/// A regression a user can cause on the product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserSeed {
    /// The plugin appends the target's schema to the system prompt.
    SchemaInPrompt,
    /// The plugin pads the system prompt of the Tool Search lane with 256 KiB of filler.
    PromptPadded,
    /// The product's config turns Tool Search off on the `tools` lane, which still expects it.
    ToolSearchOff,
    /// The plugin's target tool fails when it runs.
    TargetBroken,
    /// The plugin brings one tool more than the scenario expects.
    CatalogueGrows,
    /// The policy's deny rule is forgotten.
    DenyForgotten,
    /// The approval rule is forgotten.
    ApprovalForgotten,
    /// The plugin stamps a fresh count into the target's description each time the product
    /// asks for its tools.
    DescriptionRestamped,
    /// The plugin registers the target with a schema that accepts any object.
    SchemaLoosened,
    /// `codeTimeoutMs` is raised past the scenario's busy loop.
    CodeTimeoutRaised,
    /// The `qa` MCP server is replaced by one that renamed its tool (as after an upgrade).
    McpToolRenamed,
    /// The product's policy denies the target (`tools.deny`): the session no longer has it.
    TargetDenied,
}

impl UserSeed {
    pub fn name(self) -> &'static str {
        match self {
            UserSeed::SchemaInPrompt => "schema-in-prompt",
            UserSeed::PromptPadded => "prompt-padded",
            UserSeed::ToolSearchOff => "tool-search-off",
            UserSeed::TargetBroken => "target-broken",
            UserSeed::CatalogueGrows => "catalogue-grows",
            UserSeed::DenyForgotten => "deny-forgotten",
            UserSeed::ApprovalForgotten => "approval-forgotten",
            UserSeed::DescriptionRestamped => "description-restamped",
            UserSeed::SchemaLoosened => "schema-loosened",
            UserSeed::CodeTimeoutRaised => "code-timeout-raised",
            UserSeed::McpToolRenamed => "mcp-tool-renamed",
            UserSeed::TargetDenied => "target-denied",
        }
    }

    /// The lanes of the scenario the seed runs (the fewer, the cheaper).
    pub fn lanes(self) -> &'static [&'static str] {
        match self {
            UserSeed::SchemaInPrompt => &["tools"],
            UserSeed::PromptPadded => &["direct", "tools"],
            UserSeed::ToolSearchOff => &["direct", "tools"],
            UserSeed::TargetBroken => &["direct", "tools"],
            UserSeed::CatalogueGrows => &["direct"],
            UserSeed::DenyForgotten => &["tools"],
            UserSeed::ApprovalForgotten => &["direct-approval"],
            UserSeed::DescriptionRestamped => &["direct"],
            UserSeed::SchemaLoosened => &["tools"],
            UserSeed::CodeTimeoutRaised => &["code-quickjs"],
            UserSeed::McpToolRenamed => &["tools"],
            UserSeed::TargetDenied => &["direct"],
        }
    }

    /// The scenario as the user changed it (what the claims are told to expect, too).
    pub fn apply(self, scenario: &mut Scenario) {
        let catalog = &mut scenario.catalog;
        match self {
            UserSeed::CatalogueGrows => catalog.size += 1,
            UserSeed::DenyForgotten => scenario.policy.deny.clear(),
            UserSeed::ApprovalForgotten => {
                for lane in &mut scenario.lanes {
                    lane.config = None;
                    lane.openclaw.config = None;
                }
            }
            UserSeed::CodeTimeoutRaised => {
                for lane in &mut scenario.lanes {
                    lane.openclaw.tool_search =
                        Some(json!({ "mode": "code", "codeTimeoutMs": CODE_TIMEOUT_MS }));
                }
            }
            UserSeed::ToolSearchOff
            | UserSeed::TargetBroken
            | UserSeed::SchemaInPrompt
            | UserSeed::PromptPadded
            | UserSeed::DescriptionRestamped
            | UserSeed::SchemaLoosened
            | UserSeed::McpToolRenamed
            | UserSeed::TargetDenied => {}
        }
    }

    /// The product config of a planned lane as the user changed it, behind what the lane (and
    /// so every claim) expects: config the plan would refuse in a scenario, written as the
    /// lane's overrides, which the openclaw target merges into the product's config last.
    pub fn behind_plan(self, scenario: &Scenario, lane: &mut Lane) {
        let plugin = |key: &str| {
            json!({ "plugins": { "entries": { &scenario.catalog.plugin_id: {
                "config": { key: [&scenario.target_tool] } } } } })
        };
        // A plugin of the user's may change the prompt once granted conversation access.
        let prompt_hook = |mut change: serde_json::Value| {
            change["plugins"]["entries"][&scenario.catalog.plugin_id]["hooks"] =
                json!({ "allowConversationAccess": true });
            change
        };
        let change = match self {
            UserSeed::ToolSearchOff if !lane.is_direct() => {
                json!({ "tools": { "toolSearch": false } })
            }
            UserSeed::DescriptionRestamped => plugin("stampDescriptions"),
            UserSeed::SchemaLoosened => plugin("looseSchemas"),
            UserSeed::TargetBroken => plugin("brokenTools"),
            UserSeed::SchemaInPrompt => prompt_hook(plugin("promptSchemas")),
            UserSeed::PromptPadded if !lane.is_direct() => prompt_hook(
                json!({ "plugins": { "entries": { &scenario.catalog.plugin_id: {
                    "config": { "promptPadding": PROMPT_PADDING } } } } }),
            ),
            UserSeed::TargetDenied => json!({ "tools": { "deny": [&scenario.target_tool] } }),
            UserSeed::McpToolRenamed => {
                let args = ["mcp-fixture", "--server", crate::mcp_fixture::QA_RENAMED];
                let server = json!({ "args": args });
                json!({ "mcp": { "servers": { crate::mcp_fixture::QA_SERVER: server } } })
            }
            _ => return,
        };
        let mut config = lane.config.take().unwrap_or_else(|| json!({}));
        crate::config::merge_overrides(&mut config, change);
        lane.config = Some(config);
    }
}

/// The filler [`UserSeed::PromptPadded`] appends (the embedded gateway's `padded-prompt` too).
const PROMPT_PADDING: usize = 256 * 1024;

/// The code timeout [`UserSeed::CodeTimeoutRaised`] sets: past the F5 scenario's busy loop.
const CODE_TIMEOUT_MS: u64 = 60_000;

/// A scenario narrowed to `lanes`.
fn narrowed(scenario: &Scenario, lanes: &[&str]) -> Scenario {
    let mut narrowed = scenario.clone();
    narrowed.lanes.retain(|l| lanes.contains(&l.name.as_str()));
    narrowed
}

/// The suffix the `n`-th seed's lanes run under.
fn suffix(n: usize) -> String {
    format!("-seed{n}")
}

/// The `n`-th seed's scenario: narrowed to the seed's lanes, changed as the user would, and its
/// lanes renamed with [`suffix`] — in the claims that name them too, or a claim narrowed to a
/// lane would find none of the renamed ones and be judged "not applicable" (which passes).
fn seeded(scenario: &Scenario, user: UserSeed, n: usize) -> Scenario {
    let mut seeded = narrowed(scenario, user.lanes());
    user.apply(&mut seeded);
    // A seeded lane collects the non-model views (I1's invoke batch, E1's effective tools) only
    // for the seed that is about them: tools.effective costs a Node start per lane.
    seeded.claims.retain(|c| match c.id {
        ClaimId::I1 => false,
        ClaimId::E1 => user == UserSeed::TargetDenied,
        _ => true,
    });
    let tail = suffix(n);
    for lane in &mut seeded.lanes {
        lane.name.push_str(&tail);
    }
    for claim in &mut seeded.claims {
        for lane in &mut claim.lanes {
            lane.push_str(&tail);
        }
    }
    seeded
}

/// Runs `seeds` (each with its [`UserSeed`]) and the baseline of their scenarios on one gateway;
/// the baseline's reports first, then one per seed, each judged with the product's accepted
/// findings.
pub async fn run(
    known: &[Scenario],
    seeds: &[(Seed, UserSeed)],
    pick: &Pick,
) -> Result<(Vec<ScenarioReport>, Vec<ScenarioReport>), Error> {
    let target = TargetPick::openclaw(pick.clone()).openclaw_target()?;
    let find = |id: &str| {
        known
            .iter()
            .find(|s| s.id == id)
            .ok_or_else(|| Error::Usage(format!("seed scenario {id} is not built in")))
    };
    let mut baseline: Vec<Scenario> = Vec::new();
    for (seed, user) in seeds {
        let base = narrowed(find(seed.scenario)?, user.lanes());
        match baseline.iter_mut().find(|b| b.id == base.id) {
            Some(b) => {
                let missing: Vec<_> = base
                    .lanes
                    .iter()
                    .filter(|l| !b.lanes.iter().any(|m| m.name == l.name))
                    .cloned()
                    .collect();
                b.lanes.extend(missing);
            }
            None => baseline.push(base),
        }
    }
    let mut scenarios = baseline.clone();
    for (n, (seed, user)) in seeds.iter().enumerate() {
        scenarios.push(seeded(find(seed.scenario)?, *user, n + 1));
    }
    let mut plans = scenarios
        .iter()
        .map(|s| target.plan(s))
        .collect::<Result<Vec<_>, Error>>()?;
    for (plan, (_, user)) in plans.iter_mut().skip(baseline.len()).zip(seeds) {
        let scenario = plan.scenario.clone();
        for lane in &mut plan.scenario.lanes {
            user.behind_plan(&scenario, lane);
        }
    }
    let mut report = run_plans(&target, &plans, &ProviderSource::Mock, &Quiet).await;
    report.product = target.product();
    for (n, scenario) in report.scenarios.iter_mut().skip(baseline.len()).enumerate() {
        let tail = suffix(n + 1);
        for verdict in &mut scenario.claims {
            if let Some(lane) = verdict.lane.strip_suffix(&tail) {
                verdict.lane = lane.to_string();
            }
        }
    }
    let label = target.label().unwrap_or_default();
    if let Some(expectations) = findings::built_in(&label, known)? {
        crate::suite::findings::record(&mut report, &expectations, known);
    }
    let SuiteReport { mut scenarios, .. } = report;
    let seeded = scenarios.split_off(baseline.len());
    Ok((scenarios, seeded))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::selftest::seeds::{How, OPENCLAW};

    /// Every seed's claim is judged on at least one of its seeded lanes, by name: a seeded
    /// lane that no claim names would let the regression through as "not applicable" (as
    /// `approval-forgotten` did, its F3 claim naming `direct-approval` while the lane ran as
    /// `direct-approval-seed1`).
    #[test]
    fn every_seed_claim_names_its_seeded_lanes() {
        let known = crate::scenario::load_all(&[]).unwrap();
        for (n, seed) in OPENCLAW.iter().enumerate() {
            let How::Openclaw(user) = seed.how else {
                continue;
            };
            let base = known.iter().find(|s| s.id == seed.scenario).unwrap();
            let scenario = seeded(base, user, n + 1);
            let names: Vec<&str> = scenario.lanes.iter().map(|l| l.name.as_str()).collect();
            assert_eq!(
                names.len(),
                user.lanes().len(),
                "{}: {names:?}",
                user.name()
            );
            let all: Vec<&crate::scenario::Lane> = scenario.lanes.iter().collect();
            let specs: Vec<_> = scenario
                .claims
                .iter()
                .filter(|c| c.id == seed.claim)
                .collect();
            let judged = match specs.is_empty() {
                true => seed.claim.missing_lane(&all, &all).is_none(),
                false => specs.iter().any(|spec| {
                    let lanes: Vec<_> = all
                        .iter()
                        .copied()
                        .filter(|l| spec.lanes.is_empty() || spec.lanes.contains(&l.name))
                        .collect();
                    !lanes.is_empty() && seed.claim.missing_lane(&lanes, &all).is_none()
                }),
            };
            assert!(judged, "{} is not judged on {names:?}", user.name());
        }
    }
}
