//! What a lane collects beyond its turn, while its gateway still runs: upstream's non-model
//! invoke (`POST /tools/invoke` with the lane's scripted batch search, or the tool the I1 claim
//! names with its `args`: openclaw/openclaw#93400, `read` not found) and the
//! session's effective tools (`tools.effective`, for E1). A lane collects each only when the
//! scenario names that claim on it, so no other run pays for them. What came back is data:
//! a failed call is what the claim reads and reports, never a lane error.

use std::time::Duration;

use serde::Serialize;

use crate::config::Bridge;
use crate::protocol::invoke::{EffectiveTools, InvokeAnswer, InvokeRequest, INVOKE_PATH};
use crate::scenario::{ClaimId, Lane, Scenario};

/// One `/tools/invoke` call: what was sent and what came back.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Invoked {
    pub request: InvokeRequest,
    pub status: u16,
    /// The answer, or why there is none (no connection, not the product's shape).
    pub answer: Result<InvokeAnswer, String>,
}

/// The session's effective tools, or why the gateway gave none.
pub type Effective = Result<EffectiveTools, String>;

/// The invoke a lane runs for I1, sent as `{name, args, sessionKey}`: the tool the claim names
/// with the claim's `args` (`{}` when it gives none), else its script's batch search (the first
/// step that calls the surface's search control with `queries`). `None` when the scenario does
/// not name I1 on the lane, or names no tool and the script has no such step.
pub fn invoke_request(
    scenario: &Scenario,
    lane: &Lane,
    bridge: &Bridge,
    session_key: &str,
) -> Option<InvokeRequest> {
    if !scenario.names_claim_on(ClaimId::I1, lane) {
        return None;
    }
    if let Some((name, args)) = named_tool(scenario, lane) {
        return Some(InvokeRequest {
            name,
            args,
            session_key: session_key.to_string(),
        });
    }
    batch_search(scenario, lane, bridge).map(|args| InvokeRequest {
        name: bridge.search.clone(),
        args,
        session_key: session_key.to_string(),
    })
}

/// The tool an I1 claim on `lane` names, with its arguments.
pub fn named_tool(scenario: &Scenario, lane: &Lane) -> Option<(String, serde_json::Value)> {
    scenario
        .claims
        .iter()
        .filter(|c| c.id == ClaimId::I1)
        .filter(|c| c.lanes.is_empty() || c.lanes.contains(&lane.name))
        .find_map(|c| {
            let args = c.args.clone().unwrap_or_else(|| serde_json::json!({}));
            Some((c.tool.clone()?, args))
        })
}

/// The arguments of the first batch search of the lane's script.
pub fn batch_search(
    scenario: &Scenario,
    lane: &Lane,
    bridge: &Bridge,
) -> Option<serde_json::Value> {
    lane.script(scenario)?
        .iter()
        .filter(|s| s.tool.as_deref() == Some(bridge.search.as_str()))
        .filter_map(|s| serde_json::to_value(s.arguments.as_ref()?).ok())
        .find(|args| args.get("queries").is_some_and(|q| q.is_array()))
}

/// Posts `request` to the gateway at `base_url` (no auth header: the gateways run with auth
/// off on loopback).
pub async fn post_invoke(base_url: &str, request: InvokeRequest, timeout: Duration) -> Invoked {
    let url = format!("{base_url}{INVOKE_PATH}");
    let sent = async {
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| format!("http client: {e}"))?;
        let response = client
            .post(&url)
            .json(&request)
            .send()
            .await
            .map_err(|e| format!("POST {url}: {e}"))?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| format!("POST {url}: reading body: {e}"))?;
        let answer = serde_json::from_str::<InvokeAnswer>(&text).map_err(|e| {
            format!("POST {url} answered HTTP {status}, not {{ok, result|error}} ({e}): {text}")
        });
        Ok::<_, String>((status, answer))
    };
    let (status, answer) = match sent.await {
        Ok((status, answer)) => (status, answer),
        Err(e) => (0, Err(e)),
    };
    Invoked {
        request,
        status,
        answer,
    }
}
