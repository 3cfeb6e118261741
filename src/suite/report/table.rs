//! The readable report: per scenario, a table of figures per lane and a table of claims, then
//! the count line.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, Table};

use super::{count_line, ScenarioReport, SuiteReport};
use crate::suite::claims::Verdict;
use crate::suite::observation::LaneFigures;

pub(super) fn new_table(header: Vec<&str>) -> Table {
    let mut table = Table::new();
    table.load_style(UTF8_FULL_CONDENSED).set_header(header);
    table
}

/// What the scripted model planned per request (`-` for a text answer).
pub(super) fn planned(figures: &LaneFigures) -> Vec<&str> {
    figures
        .provider_planned_tools
        .iter()
        .map(|t| t.as_deref().unwrap_or("-"))
        .collect()
}

/// A verdict's detail: how many checks held, or every failing check.
pub(super) fn detail(c: &Verdict, separator: &str) -> String {
    if c.ok {
        return format!(
            "{} check{} hold{}",
            c.checks,
            if c.checks == 1 { "" } else { "s" },
            if c.checks == 1 { "s" } else { "" }
        );
    }
    c.failures
        .iter()
        .map(|f| format!("expected {}{separator}got {}", f.expected, f.actual))
        .collect::<Vec<_>>()
        .join(separator)
}

impl SuiteReport {
    /// Figures per lane, then verdicts, for each scenario; then the count line.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        for s in &self.scenarios {
            out.push_str(&format!(
                "scenario {} (target {}, tool {})\n",
                s.scenario,
                self.target.as_str(),
                s.target_tool
            ));
            out.push_str(&figures_table(s).to_string());
            out.push('\n');
            out.push_str(&claims_table(s).to_string());
            out.push('\n');
        }
        out.push_str(&count_line(std::slice::from_ref(self)));
        out
    }
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
    for (name, f) in s.lanes.iter() {
        let ratio = s.ratio(name).map(|r| format!("{r:.3}"));
        table.add_row(vec![
            Cell::new(name),
            Cell::new(f.status),
            Cell::new(f.provider_request_count),
            Cell::new(f.first_request_bytes),
            Cell::new(ratio.unwrap_or_else(|| "1.000".into())),
            Cell::new(f.provider_declared_tool_count),
            Cell::new(f.provider_system_prompt_chars),
            Cell::new(planned(f).join(" → ")),
            Cell::new(&f.gateway_output_text),
        ]);
    }
    table
}

fn claims_table(s: &ScenarioReport) -> Table {
    let mut table = new_table(vec!["claim", "lane", "result", "what", "detail"]);
    for c in &s.claims {
        table.add_row(vec![
            Cell::new(c.claim),
            Cell::new(&c.lane),
            Cell::new(if c.ok { "PASS" } else { "FAIL" }),
            Cell::new(&c.title),
            Cell::new(detail(c, "\n")),
        ]);
    }
    table
}
