//! A lane's figures as a report keeps them: the reference run's per-lane figures
//! (qa-lab-reference §1) and the session-log answers of spec §9. Computed from an observation
//! by `crate::drive`; read by the claims, the reports and compare.

use serde::{Deserialize, Serialize};

use crate::catalog::ToolSource;

/// The per-lane figures of the reference run, plus the session-log answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LaneFigures {
    pub status: u16,
    pub provider_request_count: usize,
    pub first_request_bytes: usize,
    pub provider_raw_bytes: usize,
    /// o200k_base tokens of the first request (the mock provider's `usage.input_tokens`; none
    /// when the provider was not the mock). Later requests carry the mock's random call ids,
    /// whose token counts vary from run to run, so no figure adds them up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_request_tokens: Option<u64>,

    pub provider_system_prompt_chars: usize,
    pub provider_declared_tool_count: usize,
    pub provider_declared_tool_names: Vec<String>,
    pub provider_planned_tools: Vec<Option<String>>,
    pub gateway_output_tool_names: Vec<String>,
    pub gateway_output_text: String,
    /// The capability directory of the first request's system prompt (`null`: none).
    pub directory: Option<DirectoryFigures>,
    pub session_log: SessionAnswers,
}

/// The capability directory (`### Deferred Tool Schemas`) as the model saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DirectoryFigures {
    /// Tool lines (`- name (owner): …`).
    pub lines: usize,
    /// Whether a line names the scenario's target.
    pub names_target: bool,
}

/// The four questions of spec §9, answered from the session log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionAnswers {
    pub schemas_up_front: Option<usize>,
    pub catalog_size: Option<usize>,
    pub searches: u64,
    pub describes: u64,
    pub calls: u64,
    pub final_tool: Option<String>,
    pub final_tool_source: Option<ToolSource>,
    pub bridged_calls: usize,
    /// Why the log cannot say how many schemas were up front, when its gateway says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface_note: Option<String>,
    /// The surface record's notes (a fallback, where counts come from).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}
