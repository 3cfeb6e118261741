//! The Markdown report: figures, claims and snapshots per scenario, for a CI summary page. Its
//! result and count line render the run's verdict ([`SuiteReport::verdict`]).

use super::table::{detail, planned, result, Detail};
use crate::outcome::{ScenarioReport, SnapshotState, SuiteReport};

impl SuiteReport {
    pub fn to_markdown(&self) -> String {
        let verdict = self.verdict();
        let mut out = format!(
            "# toolsearch-qa report\n\nTarget: `{}` · result: **{}** · {}\n",
            self.target.as_str(),
            verdict.outcome().word(),
            verdict.count_line().trim_end()
        );
        for s in &self.scenarios {
            let profile = s
                .profile
                .as_ref()
                .map(|p| format!(", profile `{p}`"))
                .unwrap_or_default();
            out.push_str(&format!(
                "\n## {} (tool `{}`{profile})\n\n",
                s.scenario, s.target_tool
            ));
            out.push_str("| lane | status | requests | 1st req bytes | ratio | declared | prompt chars | planned |\n");
            out.push_str("|---|---:|---:|---:|---:|---:|---:|---|\n");
            for (name, f) in s.lanes.iter() {
                let ratio = s.ratio_text(name);
                out.push_str(&format!(
                    "| {name} | {} | {} | {} | {ratio} | {} | {} | {} |\n",
                    f.status,
                    f.provider_request_count,
                    f.first_request_bytes,
                    f.provider_declared_tool_count,
                    f.provider_system_prompt_chars,
                    planned(f).join(" → ")
                ));
            }
            out.push_str("\n| claim | lane | result | what | detail |\n|---|---|---|---|---|\n");
            for c in &s.claims {
                let detail = detail(c, "; ", Detail::Cut);
                let result = match result(c) {
                    "FAIL" => "**FAIL**",
                    other => other,
                };
                out.push_str(&format!(
                    "| {} | {} | {result} | {} | {} |\n",
                    c.claim,
                    c.lane,
                    c.title,
                    detail.replace('|', "\\|").replace('\n', " ")
                ));
            }
            out.push_str(&snapshot_rows(s));
            let not_run = super::not_run::lines(s, self.target);
            if !not_run.is_empty() {
                out.push('\n');
                for line in not_run.lines() {
                    out.push_str(&format!("- {line}\n"));
                }
            }
        }
        if let Some(origin) = &self.expectations {
            out.push_str(&format!("\n## Accepted findings (`{origin}`)\n\n"));
            out.push_str("| scenario | lane | claim | check | observed | reason |\n|---|---|---|---|---|---|\n");
            for s in &self.scenarios {
                for c in s.claims.iter().filter(|c| c.is_accepted()) {
                    for f in c.acceptance.iter().flat_map(|a| &a.findings) {
                        out.push_str(&format!(
                            "| {} | {} | {} | {} | {} | {} |\n",
                            s.scenario,
                            c.lane,
                            c.claim,
                            f.check,
                            f.observed.replace('|', "\\|"),
                            f.reason.replace('|', "\\|")
                        ));
                    }
                }
            }
            for stale in &self.stale_findings {
                let f = &stale.finding;
                out.push_str(&format!(
                    "| {} | {} | {} | {} | **no longer reproduces** | {} |\n",
                    f.scenario,
                    f.lane,
                    f.claim,
                    f.check,
                    stale.why.replace('|', "\\|")
                ));
            }
            for unjudged in &self.unjudged_findings {
                let f = &unjudged.finding;
                out.push_str(&format!(
                    "| {} | {} | {} | {} | **not judged** | {} |\n",
                    f.scenario,
                    f.lane,
                    f.claim,
                    f.check,
                    unjudged.why.replace('|', "\\|")
                ));
            }
        }
        if let Some(section) = &self.build_against_baseline {
            out.push_str(&super::baseline::markdown(section));
        }
        out
    }
}

/// One row per snapshot compared: same, or (in bold) changed, missing or pending review.
fn snapshot_rows(s: &ScenarioReport) -> String {
    if s.snapshots.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n| snapshot | status |\n|---|---|\n");
    for snapshot in &s.snapshots {
        let status = match snapshot.status {
            SnapshotState::Same => "same".to_string(),
            SnapshotState::Changed => "**changed**".to_string(),
            SnapshotState::Missing => "**missing**".to_string(),
            SnapshotState::Pending => "**pending review** (.snap.new written)".to_string(),
        };
        out.push_str(&format!("| {} | {status} |\n", snapshot.name));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::report::testdata;

    /// report.md's lane table shows `-` for the ratio of a scenario without a direct lane (it
    /// showed 1.000), the direct lane's own ratio as 1.000, and a claim that holds says how many
    /// checks in words ("1 check holds", not "1 checks").
    #[test]
    fn ratios_without_a_direct_lane_are_dashes_and_counts_read_right() {
        let alone = testdata::tools_lane();
        let scenario = &alone.scenarios[0];
        assert_eq!(scenario.ratio_text("tools"), "-");
        let markdown = alone.to_markdown();
        assert!(markdown.contains("| tools | "), "{markdown}");
        assert!(!markdown.contains("1.000"), "{markdown}");
        let reference = testdata::reference();
        let scenario = &reference.scenarios[0];
        assert_eq!(scenario.ratio_text("direct"), "1.000");
        assert_ne!(scenario.ratio_text("tools"), "-");
        let markdown = reference.to_markdown();
        assert!(!markdown.contains(" checks |"), "{markdown}");
        assert!(!markdown.contains("| 1 check |"), "{markdown}");
        assert!(markdown.contains(" checks hold |") || markdown.contains(" check holds |"));
    }
}
