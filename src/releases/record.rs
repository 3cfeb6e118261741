//! What one release did on the built-in scenarios, as committed data
//! (`data/releases/openclaw-<v>.run.json`): per scenario and lane the figures a release manager
//! compares (first-request and whole-turn bytes, declared tools, directory lines, the tool path)
//! and every claim verdict. `adopt` writes it from its run; `diff-releases` reads two of them,
//! or makes them from live runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// One lane's figures.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LaneRecord {
    pub scenario: String,
    pub lane: String,
    /// Bytes of the first provider request.
    pub first_request_bytes: usize,
    /// Bytes of the turn's last provider request (the whole conversation).
    pub whole_turn_bytes: usize,
    /// o200k_base tokens of the first provider request (records older than the count: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_request_tokens: Option<u64>,

    pub provider_requests: usize,
    pub system_prompt_chars: usize,
    /// The tools the first request declared, sorted.
    pub declared_tools: Vec<String>,
    /// Tool lines of the capability directory (`None`: no directory).
    pub directory_lines: Option<usize>,
    /// The tools the model called, request by request (the bridge path: `tool_search`,
    /// `tool_call`, …; `-` for a request that answered with text).
    pub path: Vec<String>,
}

/// One claim verdict of one lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct VerdictRecord {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub ok: bool,
    /// What the first failing check saw (`as expected` when the claim held).
    pub actual: String,
}

/// A lane that was not applicable, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkippedRecord {
    pub scenario: String,
    pub lane: String,
    pub reason: String,
}

/// A release's run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRecord {
    pub version: String,
    /// The Node version it ran on.
    pub node: String,
    pub lanes: Vec<LaneRecord>,
    pub verdicts: Vec<VerdictRecord>,
    #[serde(default)]
    pub not_applicable: Vec<SkippedRecord>,
}

impl RunRecord {
    /// `data/releases/openclaw-<v>.run.json` under `root`.
    pub fn path(root: &Path, version: &str) -> PathBuf {
        root.join("data")
            .join("releases")
            .join(format!("openclaw-{version}.run.json"))
    }

    /// Reads a committed record; a missing one says how to make it.
    pub fn read(root: &Path, version: &str) -> Result<RunRecord, Error> {
        let path = RunRecord::path(root, version);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Error::Usage(format!(
                "openclaw {version} has no committed run ({}: {e}); adopt it with `toolsearch-qa adopt --openclaw-version {version}`, or pass --live",
                path.display()
            ))
        })?;
        serde_json::from_str(&text).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
    }

    /// Writes the record as pretty JSON with a final newline.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Machine(format!("cannot serialise the run record: {e}")))?;
        text.push('\n');
        std::fs::write(path, text).map_err(Error::io("write", path))
    }

    /// The record of a suite summary (`summary.json` of one openclaw target).
    pub fn from_summary(summary: &Value) -> RunRecord {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let mut record = RunRecord {
            version: text(&summary["product"]["version"]),
            node: text(&summary["product"]["node"]),
            lanes: Vec::new(),
            verdicts: Vec::new(),
            not_applicable: Vec::new(),
        };
        for scenario in summary["scenarios"].as_array().into_iter().flatten() {
            let id = text(&scenario["scenario"]);
            if let Some(lanes) = scenario["lanes"].as_object() {
                for (lane, figures) in lanes {
                    record.lanes.push(lane_record(&id, lane, figures));
                }
            }
            for verdict in scenario["claims"].as_array().into_iter().flatten() {
                if verdict["notApplicable"].is_string() {
                    continue;
                }
                record.verdicts.push(VerdictRecord {
                    scenario: id.clone(),
                    lane: text(&verdict["lane"]),
                    claim: text(&verdict["claim"]),
                    ok: verdict["ok"].as_bool().unwrap_or(false),
                    actual: text(&verdict["actual"]),
                });
            }
            for skipped in scenario["notApplicable"].as_array().into_iter().flatten() {
                record.not_applicable.push(SkippedRecord {
                    scenario: id.clone(),
                    lane: text(&skipped["lane"]),
                    reason: text(&skipped["reason"]),
                });
            }
        }
        record
    }
}

fn lane_record(scenario: &str, lane: &str, figures: &Value) -> LaneRecord {
    let count = |key: &str| figures[key].as_u64().unwrap_or(0) as usize;
    let mut declared: Vec<String> = figures["providerDeclaredToolNames"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_string))
        .collect();
    declared.sort();
    LaneRecord {
        scenario: scenario.to_string(),
        lane: lane.to_string(),
        first_request_bytes: count("firstRequestBytes"),
        whole_turn_bytes: count("providerRawBytes"),
        first_request_tokens: figures["firstRequestTokens"].as_u64(),
        provider_requests: count("providerRequestCount"),
        system_prompt_chars: count("providerSystemPromptChars"),
        declared_tools: declared,
        directory_lines: figures["directory"]["lines"].as_u64().map(|n| n as usize),
        path: figures["providerPlannedTools"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|t| t.as_str().unwrap_or("-").to_string())
            .collect(),
    }
}
