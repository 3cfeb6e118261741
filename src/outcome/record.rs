//! What one release did on the built-in scenarios, as committed data
//! (`data/releases/openclaw-<v>.run.json`): per scenario and lane the figures a release manager
//! compares (first-request and whole-turn bytes, declared tools, directory lines, the tool path)
//! and every claim verdict. `adopt` writes it from its run; `diff-releases` reads two of them,
//! or makes them from live runs.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{LaneFigures, SuiteReport};
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

    /// The Node major it ran on (`26.12.1` → 26).
    pub fn node_major(&self) -> Option<u32> {
        let node = self.node.trim_start_matches('v');
        node.split('.').next().and_then(|n| n.parse().ok())
    }

    /// The record to write after a run of the scenarios `ran` on `version`: `fresh` when no
    /// record is committed, else the committed one with those scenarios' verdicts replaced
    /// (`order`: every scenario in the order records keep). One record holds one Node major: a
    /// run on another is exit 2, naming the file and the flag that picks the record's.
    pub fn merged(
        root: &Path,
        version: &str,
        fresh: RunRecord,
        ran: &[String],
        order: &[String],
    ) -> Result<RunRecord, Error> {
        let path = Self::path(root, version);
        if !path.exists() {
            return Ok(fresh);
        }
        let mut committed = Self::read(root, version)?;
        if committed.node_major() != fresh.node_major() {
            return Err(Error::Usage(format!(
                "{}: ran on Node {}, this run on Node {}: one record, one Node major \
                 (pass --openclaw-node {}, or re-record every scenario)",
                path.display(),
                committed.node,
                fresh.node,
                committed.node_major().unwrap_or_default()
            )));
        }
        committed.replace_scenarios(fresh, ran, order);
        Ok(committed)
    }

    /// Replaces every entry of the scenarios `fresh` ran (`ran`) with `fresh`'s, keeping the
    /// others; entries end in `order` (scenario ids as a run takes them), each scenario's in run
    /// order.
    pub fn replace_scenarios(&mut self, fresh: RunRecord, ran: &[String], order: &[String]) {
        let ran = |s: &String| ran.contains(s);
        let rank = |s: &String| order.iter().position(|o| o == s).unwrap_or(order.len());
        self.lanes.retain(|l| !ran(&l.scenario));
        self.verdicts.retain(|v| !ran(&v.scenario));
        self.not_applicable.retain(|n| !ran(&n.scenario));
        self.lanes.extend(fresh.lanes);
        self.verdicts.extend(fresh.verdicts);
        self.not_applicable.extend(fresh.not_applicable);
        self.lanes.sort_by_key(|l| rank(&l.scenario));
        self.verdicts.sort_by_key(|v| rank(&v.scenario));
        self.not_applicable.sort_by_key(|n| rank(&n.scenario));
        self.node = fresh.node;
    }

    /// Writes the record as pretty JSON with a final newline.
    pub fn write(&self, path: &Path) -> Result<(), Error> {
        let mut text = serde_json::to_string_pretty(self)
            .map_err(|e| Error::Machine(format!("cannot serialise the run record: {e}")))?;
        text.push('\n');
        std::fs::write(path, text).map_err(Error::io("write", path))
    }

    /// The record of one openclaw target's run.
    pub fn from_report(report: &SuiteReport) -> RunRecord {
        let product = report.product.as_ref();
        let mut record = RunRecord {
            version: product.map(|p| p.version.clone()).unwrap_or_default(),
            node: product.map(|p| p.node.clone()).unwrap_or_default(),
            lanes: Vec::new(),
            verdicts: Vec::new(),
            not_applicable: Vec::new(),
        };
        for scenario in &report.scenarios {
            let id = &scenario.scenario;
            for (lane, figures) in scenario.lanes.iter() {
                record.lanes.push(lane_record(id, lane, figures));
            }
            for verdict in scenario.claims.iter().filter(|v| !v.is_not_applicable()) {
                record.verdicts.push(VerdictRecord {
                    scenario: id.clone(),
                    lane: verdict.lane.clone(),
                    claim: verdict.claim.as_str().to_string(),
                    ok: verdict.ok,
                    actual: verdict.actual.clone(),
                });
            }
            for skipped in &scenario.not_applicable {
                record.not_applicable.push(SkippedRecord {
                    scenario: id.clone(),
                    lane: skipped.lane.clone(),
                    reason: skipped.reason.clone(),
                });
            }
        }
        record
    }
}

fn lane_record(scenario: &str, lane: &str, figures: &LaneFigures) -> LaneRecord {
    let mut declared = figures.provider_declared_tool_names.clone();
    declared.sort();
    LaneRecord {
        scenario: scenario.to_string(),
        lane: lane.to_string(),
        first_request_bytes: figures.first_request_bytes,
        whole_turn_bytes: figures.provider_raw_bytes,
        first_request_tokens: figures.first_request_tokens,
        provider_requests: figures.provider_request_count,
        system_prompt_chars: figures.provider_system_prompt_chars,
        declared_tools: declared,
        directory_lines: figures.directory.as_ref().map(|d| d.lines),
        path: figures
            .provider_planned_tools
            .iter()
            .map(|t| t.clone().unwrap_or_else(|| "-".to_string()))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(node: &str, entries: &[(&str, &str, bool)]) -> RunRecord {
        RunRecord {
            version: "2026.9.3".into(),
            node: node.into(),
            lanes: Vec::new(),
            verdicts: entries
                .iter()
                .map(|(scenario, lane, ok)| VerdictRecord {
                    scenario: scenario.to_string(),
                    lane: lane.to_string(),
                    claim: "C1".into(),
                    ok: *ok,
                    actual: String::new(),
                })
                .collect(),
            not_applicable: Vec::new(),
        }
    }

    /// Re-recording some scenarios replaces exactly their entries (a scenario that ran before
    /// and now has fewer lanes loses the old ones) and keeps the run order of scenarios.
    #[test]
    fn replacing_scenarios_keeps_the_others_in_run_order() {
        let mut committed = record(
            "24.1.0",
            &[
                ("a", "x", true),
                ("b", "x", false),
                ("b", "y", false),
                ("c", "x", true),
            ],
        );
        let fresh = record("24.2.0", &[("b", "x", true), ("d", "x", true)]);
        let order = ["a", "b", "c", "d"].map(String::from);
        committed.replace_scenarios(fresh, &["b".into(), "d".into()], &order);
        let got: Vec<(&str, &str, bool)> = committed
            .verdicts
            .iter()
            .map(|v| (v.scenario.as_str(), v.lane.as_str(), v.ok))
            .collect();
        assert_eq!(
            got,
            [
                ("a", "x", true),
                ("b", "x", true),
                ("c", "x", true),
                ("d", "x", true)
            ]
        );
        assert_eq!(committed.node, "24.2.0");
    }
    /// A run merged into the committed record: none committed is the fresh record; one on
    /// another Node major is exit 2 naming the file; else the scenarios that ran are replaced.
    #[test]
    fn a_run_merges_into_the_committed_record_of_its_node_major_only() {
        let root = tempfile::tempdir().unwrap();
        let order = ["a", "b"].map(String::from);
        let ran = ["b".to_string()];
        let fresh = || record("26.1.0", &[("b", "x", true)]);
        let alone = RunRecord::merged(root.path(), "2026.9.3", fresh(), &ran, &order).unwrap();
        assert_eq!(alone.verdicts.len(), 1);
        let path = RunRecord::path(root.path(), "2026.9.3");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        record("24.1.0", &[("a", "x", true), ("b", "x", false)])
            .write(&path)
            .unwrap();
        let err = RunRecord::merged(root.path(), "2026.9.3", fresh(), &ran, &order).unwrap_err();
        assert_eq!(err.exit_code(), crate::error::Exit::USAGE, "{err}");
        assert!(
            err.to_string().contains(&path.display().to_string()),
            "{err}"
        );
        assert!(err.to_string().contains("--openclaw-node 24"), "{err}");
        record("26.0.0", &[("a", "x", true), ("b", "x", false)])
            .write(&path)
            .unwrap();
        let merged = RunRecord::merged(root.path(), "2026.9.3", fresh(), &ran, &order).unwrap();
        let oks: Vec<bool> = merged.verdicts.iter().map(|v| v.ok).collect();
        assert_eq!(oks, [true, true]);
    }
}
