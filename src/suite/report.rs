//! Reports: the JSON summary (the reference run's shape, per scenario) and a readable table.
//! Both are deterministic for a given run; timings are the only values that vary.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, Table};
use serde::Serialize;
use serde_json::{Map, Value};

use super::claims::{Observed, Verdict};
use super::lane::LaneFigures;
use super::scenario::Scenario;

/// All scenarios of one run.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SuiteReport {
    pub ok: bool,
    pub target: String,
    pub scenarios: Vec<ScenarioReport>,
}

/// One scenario: figures per lane, reductions against the direct lane, verdicts.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScenarioReport {
    pub ok: bool,
    pub scenario: String,
    pub target_tool: String,
    /// Lane name → figures, in the scenario's lane order.
    pub lanes: Map<String, Value>,
    /// Tool Search lane name → reduction against the direct lane.
    pub reduction: Map<String, Value>,
    pub claims: Vec<Verdict>,
    /// Wall time per lane in milliseconds (not deterministic; left out of snapshots).
    pub lane_millis: Map<String, Value>,
    /// Snapshot comparison per lane snapshot (empty when snapshots were not checked).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub snapshots: Vec<SnapshotStatus>,
    /// The redacted snapshot contents `(name, content)` of this run.
    #[serde(skip)]
    pub snapshot_contents: Vec<(String, String)>,
}

/// How one snapshot compared with the committed file.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotStatus {
    pub name: String,
    /// `same`, `changed`, `missing`, or `written` (a `.snap.new` was written).
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
}

/// direct − lane for the figures the reference run reduces, plus the byte ratio.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reduction {
    pub raw_bytes: i64,
    pub first_request_bytes: i64,
    pub declared_tools: i64,
    pub system_prompt_chars: i64,
    pub first_request_ratio: f64,
}

impl Reduction {
    pub fn between(direct: &LaneFigures, lane: &LaneFigures) -> Self {
        let diff = |a: usize, b: usize| a as i64 - b as i64;
        Reduction {
            raw_bytes: diff(direct.provider_raw_bytes, lane.provider_raw_bytes),
            first_request_bytes: diff(direct.first_request_bytes, lane.first_request_bytes),
            declared_tools: diff(
                direct.provider_declared_tool_count,
                lane.provider_declared_tool_count,
            ),
            system_prompt_chars: diff(
                direct.provider_system_prompt_chars,
                lane.provider_system_prompt_chars,
            ),
            first_request_ratio: if direct.first_request_bytes == 0 {
                0.0
            } else {
                (lane.first_request_bytes as f64 / direct.first_request_bytes as f64 * 1000.0)
                    .round()
                    / 1000.0
            },
        }
    }
}

impl ScenarioReport {
    pub fn new(
        scenario: &Scenario,
        observed: &[Observed<'_>],
        claims: Vec<Verdict>,
        snapshot_contents: Vec<(String, String)>,
    ) -> Self {
        let mut lanes = Map::new();
        let mut reduction = Map::new();
        let mut lane_millis = Map::new();
        let direct = observed.iter().find(|o| o.lane.is_direct());
        for o in observed {
            lanes.insert(
                o.lane.name.clone(),
                serde_json::to_value(&o.figures).unwrap_or(Value::Null),
            );
            lane_millis.insert(
                o.lane.name.clone(),
                Value::from(o.observation.elapsed.as_millis() as u64),
            );
            if let (Some(d), false) = (direct, o.lane.is_direct()) {
                let r = Reduction::between(&d.figures, &o.figures);
                reduction.insert(
                    o.lane.name.clone(),
                    serde_json::to_value(r).unwrap_or(Value::Null),
                );
            }
        }
        ScenarioReport {
            ok: claims.iter().all(|c| c.ok),
            scenario: scenario.id.clone(),
            target_tool: scenario.target_tool.clone(),
            lanes,
            reduction,
            claims,
            lane_millis,
            snapshots: Vec::new(),
            snapshot_contents,
        }
    }
}

impl SuiteReport {
    pub fn new(target: &str, scenarios: Vec<ScenarioReport>) -> Self {
        SuiteReport {
            ok: scenarios.iter().all(|s| s.ok),
            target: target.to_string(),
            scenarios,
        }
    }

    /// Compares every lane snapshot with `dir`; with `update`, writes `.snap.new` files for the
    /// changed and missing ones. A changed snapshot fails the scenario.
    pub fn check_snapshots(&mut self, dir: &std::path::Path, update: bool) -> std::io::Result<()> {
        use super::snapshot::{compare, write_pending, SnapshotCheck};
        for scenario in &mut self.scenarios {
            let mut statuses = Vec::new();
            for (name, content) in &scenario.snapshot_contents {
                let check = compare(dir, name, content);
                let pending = !matches!(check, SnapshotCheck::Same) && update;
                if pending {
                    write_pending(dir, name, content)?;
                }
                let (status, diff) = match check {
                    SnapshotCheck::Same => ("same", None),
                    _ if pending => ("written", None),
                    SnapshotCheck::Missing { .. } => ("missing", None),
                    SnapshotCheck::Changed { diff, .. } => ("changed", Some(diff)),
                };
                statuses.push(SnapshotStatus {
                    name: name.clone(),
                    status: status.into(),
                    diff,
                });
            }
            if statuses.iter().any(|s| s.status == "changed") {
                scenario.ok = false;
            }
            scenario.snapshots = statuses;
        }
        self.ok = self.scenarios.iter().all(|s| s.ok);
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Figures per lane, then verdicts, for each scenario.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        for s in &self.scenarios {
            out.push_str(&format!(
                "scenario {} (target {}, tool {})\n",
                s.scenario, self.target, s.target_tool
            ));
            out.push_str(&figures_table(s).to_string());
            out.push('\n');
            out.push_str(&claims_table(s).to_string());
            out.push('\n');
        }
        let failed = self
            .scenarios
            .iter()
            .flat_map(|s| &s.claims)
            .filter(|c| !c.ok)
            .count();
        let total: usize = self.scenarios.iter().map(|s| s.claims.len()).sum();
        out.push_str(&format!("{} passed, {} failed\n", total - failed, failed));
        out
    }
}

impl SuiteReport {
    /// A Markdown report: figures and claims per scenario, for a CI summary page.
    pub fn to_markdown(&self) -> String {
        let mut out = format!(
            "# toolsearch-qa report\n\nTarget: `{}` · result: **{}**\n",
            self.target,
            if self.ok { "PASS" } else { "FAIL" }
        );
        for s in &self.scenarios {
            out.push_str(&format!(
                "\n## {} (tool `{}`)\n\n",
                s.scenario, s.target_tool
            ));
            out.push_str("| lane | status | requests | 1st req bytes | ratio | declared | prompt chars | planned |\n");
            out.push_str("|---|---:|---:|---:|---:|---:|---:|---|\n");
            for (name, f) in &s.lanes {
                let ratio = s
                    .reduction
                    .get(name)
                    .and_then(|r| r["firstRequestRatio"].as_f64())
                    .unwrap_or(1.0);
                out.push_str(&format!(
                    "| {name} | {} | {} | {} | {ratio:.3} | {} | {} | {} |\n",
                    f["status"],
                    f["providerRequestCount"],
                    f["firstRequestBytes"],
                    f["providerDeclaredToolCount"],
                    f["providerSystemPromptChars"],
                    planned(f).join(" → ")
                ));
            }
            out.push_str("\n| claim | lane | result | what | detail |\n|---|---|---|---|---|\n");
            for c in &s.claims {
                let detail = if c.ok {
                    format!("{} checks", c.checks)
                } else {
                    format!("expected {}; got {}", c.expected, c.actual)
                };
                let result = if c.ok { "PASS" } else { "**FAIL**" };
                out.push_str(&format!(
                    "| {} | {} | {result} | {} | {} |\n",
                    c.claim,
                    c.lane,
                    c.title,
                    detail.replace('|', "\\|")
                ));
            }
        }
        out
    }
}

fn planned(figures: &Value) -> Vec<&str> {
    figures["providerPlannedTools"]
        .as_array()
        .map(|p| p.iter().map(|t| t.as_str().unwrap_or("-")).collect())
        .unwrap_or_default()
}

fn new_table(header: Vec<&str>) -> Table {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(header);
    table
}

fn figures_table(s: &ScenarioReport) -> Table {
    let mut table = new_table(vec![
        "lane",
        "status",
        "requests",
        "1st req bytes",
        "ratio",
        "declared",
        "prompt chars",
        "planned",
        "output",
    ]);
    for (name, f) in &s.lanes {
        let ratio = s
            .reduction
            .get(name)
            .and_then(|r| r["firstRequestRatio"].as_f64())
            .map(|r| format!("{r:.3}"));
        table.add_row(vec![
            Cell::new(name),
            Cell::new(&f["status"]),
            Cell::new(&f["providerRequestCount"]),
            Cell::new(&f["firstRequestBytes"]),
            Cell::new(ratio.unwrap_or_else(|| "1.000".into())),
            Cell::new(&f["providerDeclaredToolCount"]),
            Cell::new(&f["providerSystemPromptChars"]),
            Cell::new(planned(f).join(" → ")),
            Cell::new(f["gatewayOutputText"].as_str().unwrap_or_default()),
        ]);
    }
    table
}

fn claims_table(s: &ScenarioReport) -> Table {
    let mut table = new_table(vec!["claim", "lane", "result", "what", "detail"]);
    for c in &s.claims {
        let detail = if c.ok {
            format!(
                "{} check{} hold{}",
                c.checks,
                if c.checks == 1 { "" } else { "s" },
                if c.checks == 1 { "s" } else { "" }
            )
        } else {
            format!("expected {}\ngot {}", c.expected, c.actual)
        };
        table.add_row(vec![
            Cell::new(&c.claim),
            Cell::new(&c.lane),
            Cell::new(if c.ok { "PASS" } else { "FAIL" }),
            Cell::new(&c.title),
            Cell::new(detail),
        ]);
    }
    table
}

/// Per scenario and lane, the claims and payload figures of several targets next to each other.
pub fn side_by_side(reports: &[SuiteReport]) -> String {
    let mut out = String::new();
    for report in reports {
        out.push_str(&report.to_table());
        out.push('\n');
    }
    let Some(first) = reports.first() else {
        return out;
    };
    for scenario in &first.scenarios {
        let mut header = vec!["lane".to_string(), "figure".to_string()];
        header.extend(reports.iter().map(|r| r.target.clone()));
        let mut table = Table::new();
        table.load_style(UTF8_FULL_CONDENSED).set_header(header);
        for lane in scenario.lanes.keys() {
            for (label, key) in [
                ("1st req bytes", "firstRequestBytes"),
                ("declared", "providerDeclaredToolCount"),
                ("requests", "providerRequestCount"),
                ("output", "gatewayOutputText"),
            ] {
                let mut row = vec![lane.clone(), label.to_string()];
                row.extend(
                    reports
                        .iter()
                        .map(|r| lane_value(r, &scenario.scenario, lane, key)),
                );
                table.add_row(row);
            }
            for claim in scenario.claims.iter().filter(|c| &c.lane == lane) {
                let mut row = vec![lane.clone(), claim.claim.clone()];
                row.extend(
                    reports
                        .iter()
                        .map(|r| claim_result(r, &scenario.scenario, lane, &claim.claim)),
                );
                table.add_row(row);
            }
        }
        out.push_str(&format!("side by side: {}\n{table}\n", scenario.scenario));
    }
    out
}

/// The same comparison as JSON: `{ok, targets: {<target>: <suite report>}}`.
pub fn side_by_side_json(reports: &[SuiteReport]) -> String {
    let targets: Map<String, Value> = reports
        .iter()
        .map(|r| {
            (
                r.target.clone(),
                serde_json::to_value(r).unwrap_or(Value::Null),
            )
        })
        .collect();
    let value = serde_json::json!({ "ok": reports.iter().all(|r| r.ok), "targets": targets });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

fn find_scenario<'r>(report: &'r SuiteReport, scenario: &str) -> Option<&'r ScenarioReport> {
    report.scenarios.iter().find(|s| s.scenario == scenario)
}

fn lane_value(report: &SuiteReport, scenario: &str, lane: &str, key: &str) -> String {
    match find_scenario(report, scenario)
        .and_then(|s| s.lanes.get(lane))
        .map(|f| &f[key])
    {
        Some(Value::String(text)) => text.clone(),
        Some(v) if !v.is_null() => v.to_string(),
        _ => "-".into(),
    }
}

fn claim_result(report: &SuiteReport, scenario: &str, lane: &str, claim: &str) -> String {
    find_scenario(report, scenario)
        .and_then(|s| s.claims.iter().find(|c| c.lane == lane && c.claim == claim))
        .map(|c| {
            if c.ok {
                "PASS".to_string()
            } else {
                format!("FAIL: expected {}; got {}", c.expected, c.actual)
            }
        })
        .unwrap_or_else(|| "-".into())
}
