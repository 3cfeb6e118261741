//! The plan of one lane on one target, asked of the target once: the surface the lane runs on
//! (its bridge tools are the wire names the script and the claims use), the session key, and
//! what to collect beyond the turn. The lane driver and the claims read the plan; neither asks
//! the target again.

use super::invoke::invoke_request;
use crate::config::Bridge;
use crate::protocol::invoke::InvokeRequest;
use crate::scenario::{ClaimId, Lane, Scenario, ScriptStep};
use crate::targets::{Surface, Target};

/// How one lane runs on one target.
#[derive(Debug, Clone)]
pub struct LanePlan<'a> {
    pub scenario: &'a Scenario,
    pub lane: &'a Lane,
    /// What the target shows the model besides the catalogue.
    pub surface: Surface,
    /// The session the lane's turns run in.
    pub session_key: String,
    /// What the lane's claims read beyond the turn.
    pub collect: Collect,
}

/// What a lane reads from the gateway beyond its turns, while the gateway still runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collect {
    /// I1's batch, sent to `POST /tools/invoke`.
    pub invoke: Option<InvokeRequest>,
    /// E1's effective tools of the session.
    pub effective_tools: bool,
    /// K1's state of the session (still running?) after its turns.
    pub session_state: bool,
}

impl<'a> LanePlan<'a> {
    /// Asks `target` once for everything the lane needs.
    pub fn new(target: &dyn Target, scenario: &'a Scenario, lane: &'a Lane) -> LanePlan<'a> {
        let surface = match lane.code_mode_engaged() {
            Some(_) => target.code_mode_surface(scenario),
            None => target.surface(scenario),
        };
        let session_key = target.session_key(scenario, lane);
        let collect = Collect {
            invoke: invoke_request(scenario, lane, surface.bridge(), &session_key),
            effective_tools: scenario.names_claim_on(ClaimId::E1, lane),
            session_state: scenario.names_claim_on(ClaimId::K1, lane),
        };
        LanePlan {
            scenario,
            lane,
            surface,
            session_key,
            collect,
        }
    }

    /// The names of the surface's bridge tools (the wire names).
    pub fn bridge(&self) -> &Bridge {
        self.surface.bridge()
    }

    /// The lane's own script, when it has one, on this surface: a step naming a control tool by
    /// the spec's name (`tool_call`) calls the surface's tool of that role (`dispatch_action` on
    /// upstream's surface), so one script runs under any profile.
    pub fn script(&self) -> Option<Vec<ScriptStep>> {
        let steps = self.lane.script(self.scenario)?;
        let spec = Bridge::spec();
        let bridge = self.bridge();
        let renamed = |name: &String| {
            let role = spec.role(name)?;
            bridge.name(role).map(str::to_string)
        };
        Some(
            steps
                .iter()
                .map(|step| ScriptStep {
                    tool: step
                        .tool
                        .as_ref()
                        .map(|t| renamed(t).unwrap_or_else(|| t.clone())),
                    ..step.clone()
                })
                .collect(),
        )
    }
}
