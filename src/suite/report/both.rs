//! Several targets side by side: per scenario and lane, the payload figures and claim results of
//! each target next to each other, then the count line over every target.

use serde_json::json;

use super::table::new_table;
use super::{count_line, ScenarioReport, SuiteReport};
use crate::suite::observation::LaneFigures;

/// How one compared figure is read from a lane's figures.
type Figure = fn(&LaneFigures) -> String;

/// Each target's own report, then the comparison tables, then the count line.
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
        let mut header = vec!["lane", "figure"];
        header.extend(reports.iter().map(|r| r.target.as_str()));
        let mut table = new_table(header);
        for lane in scenario.lanes.keys() {
            let figures: [(&str, Figure); 4] = [
                ("1st req bytes", |f| f.first_request_bytes.to_string()),
                ("declared", |f| f.provider_declared_tool_count.to_string()),
                ("requests", |f| f.provider_request_count.to_string()),
                ("output", |f| f.gateway_output_text.clone()),
            ];
            for (label, value) in figures {
                let mut row = vec![lane.clone(), label.to_string()];
                row.extend(reports.iter().map(|r| {
                    find_scenario(r, &scenario.scenario)
                        .and_then(|s| s.lanes.get(lane))
                        .map_or_else(|| "-".to_string(), value)
                }));
                table.add_row(row);
            }
            for claim in scenario.claims.iter().filter(|c| &c.lane == lane) {
                let mut row = vec![lane.clone(), claim.claim.to_string()];
                row.extend(
                    reports
                        .iter()
                        .map(|r| claim_result(r, &scenario.scenario, lane, claim.claim.as_str())),
                );
                table.add_row(row);
            }
        }
        out.push_str(&format!("side by side: {}\n{table}\n", scenario.scenario));
    }
    out.push_str(&count_line(reports));
    out
}

/// The same comparison as JSON: `{ok, targets: {<target>: <suite report>}}`.
pub fn side_by_side_json(reports: &[SuiteReport]) -> String {
    let targets: serde_json::Map<String, serde_json::Value> = reports
        .iter()
        .map(|r| {
            (
                r.target.as_str().to_string(),
                serde_json::to_value(r).unwrap_or_default(),
            )
        })
        .collect();
    let value = json!({ "ok": reports.iter().all(|r| r.ok), "targets": targets });
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

fn find_scenario<'r>(report: &'r SuiteReport, scenario: &str) -> Option<&'r ScenarioReport> {
    report.scenarios.iter().find(|s| s.scenario == scenario)
}

fn claim_result(report: &SuiteReport, scenario: &str, lane: &str, claim: &str) -> String {
    find_scenario(report, scenario)
        .and_then(|s| {
            s.claims
                .iter()
                .find(|c| c.lane == lane && c.claim.as_str() == claim)
        })
        .map(|c| {
            if c.ok {
                "PASS".to_string()
            } else {
                format!("FAIL: expected {}; got {}", c.expected, c.actual)
            }
        })
        .unwrap_or_else(|| "-".into())
}
