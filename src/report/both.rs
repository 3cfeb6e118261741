//! Several targets side by side: per scenario and lane, the payload figures and claim results of
//! each target next to each other, then the count line over every target.

use super::table::{new_table, Detail};
use crate::outcome::LaneFigures;
use crate::outcome::{count_line, ScenarioReport, SuiteReport};
use crate::outcome::{Verdict, NO_LANE};

/// How one compared figure is read from a lane's figures.
type Figure = fn(&LaneFigures) -> String;

/// How far the first target's figure is from the second's, for the figures that are numbers.
type Deviation = fn(&LaneFigures, &LaneFigures) -> String;

/// `+1.2%` (`a` against `b`), `=` when equal.
fn percent(a: usize, b: usize) -> String {
    match (a, b) {
        _ if a == b => "=".into(),
        (_, 0) => "-".into(),
        _ => format!("{:+.1}%", (a as f64 - b as f64) / b as f64 * 100.0),
    }
}

/// Per scenario one table — figures and claim results per lane, one column per target — then
/// every failing check, the accepted findings and the count line over every target.
pub fn side_by_side(reports: &[SuiteReport]) -> String {
    side_by_side_with(reports, Detail::Cut)
}

/// [`side_by_side`], with long values cut or whole.
pub fn side_by_side_with(reports: &[SuiteReport], shown: Detail) -> String {
    let mut out = String::new();
    let Some(first) = reports.first() else {
        return out;
    };
    for scenario in &first.scenarios {
        out.push_str(&format!(
            "scenario {} (tool {})\non {}\n{}\n",
            scenario.scenario,
            scenario.target_tool,
            reports
                .iter()
                .map(|r| target_label(r, Some(&scenario.scenario)))
                .collect::<Vec<_>>()
                .join(" and "),
            scenario_table(reports, scenario)
        ));
    }
    for report in reports {
        out.push_str(&failures_section(report, shown));
        for scenario in &report.scenarios {
            out.push_str(&super::table::snapshot_lines(scenario));
        }
        out.push_str(&report.findings_section(shown));
        if let Some(section) = &report.build_against_baseline {
            out.push_str(&super::baseline::table(section));
        }
    }
    out.push_str(&count_line(reports));
    out
}

/// `embedded (profile P)` with the profile scenario `id` ran under there (each scenario has its
/// own; no scenario: no profile), or the product's release and Node.
fn target_label(report: &SuiteReport, id: Option<&str>) -> String {
    let profile = report
        .scenarios
        .iter()
        .find(|s| Some(s.scenario.as_str()) == id)
        .and_then(|s| s.profile.as_ref());
    match (&report.product, profile) {
        (Some(p), _) => format!("{} {} (node {})", report.target.as_str(), p.version, p.node),
        (None, Some(profile)) => format!("{} (profile {profile})", report.target.as_str()),
        (None, None) => report.target.as_str().to_string(),
    }
}

fn scenario_table(reports: &[SuiteReport], scenario: &ScenarioReport) -> comfy_table::Table {
    // Two targets get a column with the first's deviation from the second, per figure.
    let pair = reports.len() == 2;
    let mut header = vec!["lane", "figure"];
    header.extend(reports.iter().map(|r| r.target.as_str()));
    if pair {
        header.push("deviation");
    }
    let mut table = new_table(header);
    let figures: [(&str, Figure, Option<Deviation>); 5] = [
        (
            "1st req bytes",
            |f| f.first_request_bytes.to_string(),
            Some(|a, b| percent(a.first_request_bytes, b.first_request_bytes)),
        ),
        (
            "declared",
            |f| f.provider_declared_tool_count.to_string(),
            Some(
                |a, b| match a.provider_declared_tool_names == b.provider_declared_tool_names {
                    true => "same names".into(),
                    false => format!(
                        "{} (other names)",
                        percent(
                            a.provider_declared_tool_count,
                            b.provider_declared_tool_count
                        )
                    ),
                },
            ),
        ),
        (
            "requests",
            |f| f.provider_request_count.to_string(),
            Some(|a, b| percent(a.provider_request_count, b.provider_request_count)),
        ),
        (
            "directory",
            |f| match &f.directory {
                Some(d) => format!("{} lines", d.lines),
                None => "-".into(),
            },
            Some(|a, b| match (&a.directory, &b.directory) {
                (Some(a), Some(b)) => percent(a.lines, b.lines),
                (None, None) => "=".into(),
                _ => "present in one".into(),
            }),
        ),
        ("answer", |f| f.gateway_output_text.clone(), None),
    ];
    for lane in scenario.lanes.keys() {
        let of = |r: &'_ SuiteReport| {
            find_scenario(r, &scenario.scenario)
                .and_then(|s| s.lanes.get(lane))
                .cloned()
        };
        let lanes: Vec<Option<LaneFigures>> = reports.iter().map(of).collect();
        for (i, (label, value, deviation)) in figures.iter().enumerate() {
            let mut row = vec![
                if i == 0 { lane.clone() } else { String::new() },
                label.to_string(),
            ];
            row.extend(
                lanes
                    .iter()
                    .map(|f| f.as_ref().map_or_else(|| "-".to_string(), value)),
            );
            if pair {
                row.push(match (&lanes[0], &lanes[1], deviation) {
                    (Some(a), Some(b), Some(deviation)) => deviation(a, b),
                    _ => String::new(),
                });
            }
            table.add_row(row);
        }
        let mut row = vec![String::new(), "claims".to_string()];
        row.extend(
            reports
                .iter()
                .map(|r| claims_cell(find_scenario(r, &scenario.scenario), lane)),
        );
        if pair {
            row.push(String::new());
        }
        table.add_row(row);
    }
    let not_applicable: Vec<String> = reports
        .iter()
        .map(|r| not_applicable_cell(find_scenario(r, &scenario.scenario)))
        .collect();
    if not_applicable.iter().any(|c| !c.is_empty()) {
        let mut row = vec![NO_LANE.to_string(), "not applicable".to_string()];
        row.extend(not_applicable);
        table.add_row(row);
    }
    crate::output::keep_words(&mut table);
    table
}

/// `C1 C3: no lane with Tool Search off …` for the claims a scenario lacks a lane for.
fn not_applicable_cell(scenario: Option<&ScenarioReport>) -> String {
    let claims = scenario.map(|s| s.claims.as_slice()).unwrap_or_default();
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for c in claims {
        let Some(reason) = c.not_applicable.as_deref() else {
            continue;
        };
        match reasons.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, ids)) => ids.push(c.claim.as_str()),
            None => reasons.push((reason, vec![c.claim.as_str()])),
        }
    }
    reasons
        .iter()
        .map(|(reason, ids)| format!("{}: {reason}", ids.join(" ")))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `C1 C3 pass · L1 accepted · C4 FAIL` for one lane of one target.
fn claims_cell(scenario: Option<&ScenarioReport>, lane: &str) -> String {
    let Some(scenario) = scenario else {
        return "-".into();
    };
    let group = |pick: fn(&Verdict) -> bool, word: &str| {
        let ids: Vec<&str> = scenario
            .claims
            .iter()
            .filter(|c| c.lane == lane && pick(c))
            .map(|c| c.claim.as_str())
            .collect();
        (!ids.is_empty()).then(|| format!("{} {word}", ids.join(" ")))
    };
    [
        group(|c| c.ok, "pass"),
        group(Verdict::is_accepted, "accepted"),
        group(|c| !c.passes_gate(), "FAIL"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ")
}

/// Every failing check of a target's failing claims (`expected …; got …`).
fn failures_section(report: &SuiteReport, shown: Detail) -> String {
    let mut table = new_table(vec!["scenario / lane", "claim / check", "expected / got"]);
    let mut any = false;
    for s in &report.scenarios {
        for c in s.claims.iter().filter(|c| !c.passes_gate()) {
            for f in &c.failures {
                any = true;
                table.add_row(vec![
                    format!("{}\n{}", s.scenario, c.lane),
                    format!("{} {}", c.claim, f.check),
                    format!(
                        "expected {}\ngot {}",
                        shown.show(&f.expected),
                        shown.show(&f.actual)
                    ),
                ]);
            }
        }
    }
    crate::output::keep_words(&mut table);
    match any {
        true => format!(
            "failing checks on {}\n{table}\n",
            target_label(report, None)
        ),
        false => String::new(),
    }
}

fn find_scenario<'r>(report: &'r SuiteReport, scenario: &str) -> Option<&'r ScenarioReport> {
    report.scenarios.iter().find(|s| s.scenario == scenario)
}

#[cfg(test)]
mod tests {
    use super::side_by_side;
    use crate::report::testdata;
    use crate::targets::TargetKind;

    /// Each scenario is headed with the profile it ran under, not the first scenario's (issue
    /// #41: a merge of an embedded and a product run headed every scenario with the reference's
    /// profile).
    #[test]
    fn each_scenario_is_headed_with_its_own_profile() {
        let mut embedded = testdata::reference();
        embedded.scenarios[0].profile = Some("openclaw-2026.9.6".into());
        let mut other = embedded.scenarios[0].clone();
        other.scenario = "other".into();
        other.profile = Some("spec".into());
        embedded.scenarios.push(other);
        let mut product = embedded.clone();
        product.target = TargetKind::Openclaw;
        for s in &mut product.scenarios {
            s.profile = None;
        }
        let text = side_by_side(&[embedded, product]);
        assert!(
            text.contains("scenario f (tool fake_plugin_tool_17)\non embedded (profile openclaw-2026.9.6) and openclaw\n"),
            "{text}"
        );
        assert!(
            text.contains("scenario other (tool fake_plugin_tool_17)\non embedded (profile spec) and openclaw\n"),
            "{text}"
        );
    }
}
