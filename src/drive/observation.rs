//! What was observed of one lane, as pure data: the gateway's answer, the provider requests of
//! the turn, the session log. Claims and reports read only this; nothing here talks to a
//! gateway. [`LaneFigures`] are the reference run's per-lane figures (qa-lab-reference §1) plus
//! the session-log answers of spec §9.

use std::sync::Arc;
use std::time::Duration;

use super::plan::LanePlan;
use crate::config::Bridge;
use crate::drive::invoke::{Effective, Invoked};
pub use crate::outcome::figures::{DirectoryFigures, LaneFigures, SessionAnswers};
use crate::protocol::responses::{
    declared_tool_names, directory_lines, system_prompt_chars, system_text,
};
use crate::protocol::session::SessionLog;
use crate::protocol::{ResponseBody, SessionRecord, ToolResultRecord};
use crate::provider::JournalRecord;
use crate::scenario::Lane;
use crate::targets::{DirectorySurface, SessionState, TargetKind};

/// Everything observed of one lane.
#[derive(Debug, Clone)]
pub struct LaneObservation {
    pub lane: String,
    pub session_key: String,
    pub status: u16,
    /// The gateway's answer to the turn.
    pub response: ResponseBody,
    /// The provider requests the turn made, in order.
    pub requests: Vec<Arc<JournalRecord>>,
    /// The scenario's second turn in the same session (`follow_up`), when it has one.
    pub follow_up: Option<FollowUp>,
    /// The session log after the first turn.
    pub session: SessionLog,
    /// The lane's invoke batch (`POST /tools/invoke`), when I1 is named on it.
    pub invoke: Option<Invoked>,
    /// The session's effective tools (`tools.effective`), when E1 is named on it.
    pub effective: Option<Effective>,
    /// Whether the session still runs once its turns answered, when K1 is named on it.
    pub session_state: Option<SessionState>,
    pub elapsed: Duration,
    /// Where the lane's time went, step by step.
    pub steps: Vec<crate::targets::timing::Timed>,
    /// The provider refused a request the gateway sent (the lane ended there, judged: a
    /// malformed request is the gateway's failure, not the machine's).
    pub refusal: Option<ProviderRefusal>,
}

/// A request of the turn the provider refused, with its error as the provider sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRefusal {
    /// Which request of the turn (1-based).
    pub request: usize,
    /// The provider's error body, as sent.
    pub reply: String,
}

impl ProviderRefusal {
    /// The first request of `requests` the provider refused (journaled as an invalid request,
    /// its error reply kept).
    pub fn find(requests: &[Arc<JournalRecord>]) -> Option<ProviderRefusal> {
        let invalid = crate::provider::Outcome::InvalidRequest.as_str();
        requests.iter().enumerate().find_map(|(i, r)| {
            (r.outcome == invalid).then(|| ProviderRefusal {
                request: i + 1,
                reply: r.reply.as_deref().unwrap_or_default().to_string(),
            })
        })
    }

    /// `request N: <error type>: <message>`, read from either provider's error shape (OpenAI
    /// `{"error": {type, message}}`, Anthropic `{"type": "error", "error": {type, message}}`).
    pub fn summary(&self) -> String {
        let body: serde_json::Value = serde_json::from_str(&self.reply).unwrap_or_default();
        let error = &body["error"];
        match (error["type"].as_str(), error["message"].as_str()) {
            (Some(kind), Some(message)) => format!("request {}: {kind}: {message}", self.request),
            _ => format!("request {}: {}", self.request, self.reply),
        }
    }
}

/// The second turn of a lane's session: what P1 holds to the first turn's prefix.
#[derive(Debug, Clone)]
pub struct FollowUp {
    pub status: u16,
    pub response: ResponseBody,
    /// The provider requests the second turn made, in order.
    pub requests: Vec<Arc<JournalRecord>>,
}

impl LaneObservation {
    /// Every provider request of the lane: the turn's, then the follow-up's.
    pub fn all_requests(&self) -> impl Iterator<Item = &Arc<JournalRecord>> {
        let follow_up = self.follow_up.iter().flat_map(|f| f.requests.iter());
        self.requests.iter().chain(follow_up)
    }
}

/// One observed lane with its scenario lane, the target it ran on and its figures: what a
/// claim checks.
pub struct Observed<'a> {
    /// Exact expectations are per target.
    pub target: TargetKind,
    pub lane: &'a Lane,
    pub observation: &'a LaneObservation,
    pub figures: LaneFigures,
    /// The names of the bridge tools on the surface the lane ran on ([`crate::targets::Surface`]).
    pub bridge: Bridge,
    /// The tools that surface keeps declared in every Tool Search mode besides the controls.
    pub direct_only: Vec<String>,
    /// The capability directory the surface renders ([`crate::targets::Surface::directory`]).
    pub directory: Option<DirectorySurface>,
    /// The most catalogued tools the lane's mode declares picked from the prompt
    /// ([`crate::targets::Surface::prompt_chosen`]), when it picks any.
    pub prompt_chosen: Option<usize>,
}

impl<'a> Observed<'a> {
    /// The lane `plan` ran, as observed: its figures read on the plan's surface.
    pub fn new(target: TargetKind, plan: &LanePlan<'a>, observation: &'a LaneObservation) -> Self {
        let surface = &plan.surface;
        Observed {
            target,
            lane: plan.lane,
            observation,
            figures: observation.figures(&plan.scenario.target_tool, surface.bridge()),
            bridge: surface.bridge().clone(),
            direct_only: surface.direct_only.clone(),
            directory: surface.directory.clone(),
            prompt_chosen: surface.prompt_chosen.get(&plan.lane.mode()).copied(),
        }
    }

    /// The typed session records.
    pub fn records(&self) -> &[SessionRecord] {
        &self.observation.session.records
    }

    /// The tools the model planned on the wire, request by request (text answers left out).
    pub fn planned_on_wire(&self) -> Vec<String> {
        self.observation
            .requests
            .iter()
            .filter_map(|r| planned_wire_tool(r))
            .collect()
    }

    /// Every tool result of the session log, in order.
    pub fn tool_results(&self) -> impl Iterator<Item = &ToolResultRecord> {
        self.records()
            .iter()
            .filter_map(SessionRecord::as_tool_result)
    }
}

impl LaneObservation {
    /// The figures of the lane; `target_tool` is the tool the turn is after, `bridge` names
    /// the surface's bridge tools.
    pub fn figures(&self, target_tool: &str, bridge: &Bridge) -> LaneFigures {
        let first = self.requests.first();
        let declared = first
            .map(|r| declared_tool_names(&r.body))
            .unwrap_or_default();
        LaneFigures {
            status: self.status,
            provider_request_count: self.requests.len(),
            first_request_bytes: first.map(|r| r.raw_byte_length).unwrap_or(0),
            provider_raw_bytes: self.requests.last().map(|r| r.raw_byte_length).unwrap_or(0),
            first_request_tokens: first.and_then(|r| r.input_tokens),

            provider_system_prompt_chars: first.map(|r| system_prompt_chars(&r.body)).unwrap_or(0),
            provider_declared_tool_count: declared.len(),
            provider_declared_tool_names: declared,
            provider_planned_tools: self.requests.iter().map(|r| planned_wire_tool(r)).collect(),
            gateway_output_tool_names: self.response.tool_names(),
            gateway_output_text: self.response.text(),
            directory: first.and_then(|r| directory(&r.body, target_tool)),
            session_log: session_answers(&self.session.records, bridge),
        }
    }
}

/// The directory of a request's system prompt, if it has one.
fn directory(body: &serde_json::Value, target_tool: &str) -> Option<DirectoryFigures> {
    let text = system_text(body);
    let lines = directory_lines(&text)?;
    let entry = format!("- {target_tool} (");
    Some(DirectoryFigures {
        lines: lines.len(),
        names_target: lines.iter().any(|l| l.starts_with(&entry)),
    })
}

/// What the mock planned on the wire for one request (`plannedWireToolName ?? plannedToolName`).
pub fn planned_wire_tool(record: &JournalRecord) -> Option<String> {
    record
        .planned_wire_tool_name
        .clone()
        .or_else(|| record.planned_tool_name.clone())
}

/// Answers spec §9's questions from session records.
pub fn session_answers(records: &[SessionRecord], bridge: &Bridge) -> SessionAnswers {
    let mut answers = SessionAnswers::default();
    for record in records {
        match record {
            SessionRecord::Surface(surface) => {
                answers.schemas_up_front = surface.declared_tool_count;
                answers.catalog_size = surface.catalog_size;
                answers.surface_note = surface.unrecorded.clone();
                answers.notes = surface.notes.clone().unwrap_or_default();
            }
            SessionRecord::Telemetry { telemetry } => {
                answers.searches = telemetry.search_count;
                answers.describes = telemetry.describe_count;
                answers.calls = telemetry.call_count;
            }
            SessionRecord::ToolResult(result) => {
                let name = result.tool_name();
                if result.parent_tool_call_id().is_some() {
                    answers.bridged_calls += 1;
                }
                // Code Mode's `wait` resumes the cell: a control, though no bridge role.
                let resume = bridge.is_code_mode() && name == crate::config::code_mode::WAIT;
                if !result.is_error() && !bridge.is_control(name) && !resume {
                    answers.final_tool = Some(name.to_string());
                    answers.final_tool_source = result.source();
                }
            }
            _ => {}
        }
    }
    answers
}
