//! The comparison as a person reads it: a terminal table, a markdown table, or JSON.

use super::{CompareCell, CompareReport};
use crate::output::bounded_table;

const HEADER: [&str; 12] = [
    "tools",
    "mode",
    "1st bytes",
    "1st tool-JSON",
    "prompt chars",
    "declared",
    "1st tokens",
    "1st ratio",
    "requests",
    "turn bytes",
    "turn tokens",
    "turn ratio",
];

/// The mode column: the requested mode, and the effective one when it differs.
fn mode_label(cell: &CompareCell) -> String {
    if cell.effective_mode == cell.mode.as_str() {
        cell.mode.as_str().to_string()
    } else {
        format!("{} (ran as {})", cell.mode.as_str(), cell.effective_mode)
    }
}

fn ratio_label(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".to_string(), |r| format!("{r:.3}"))
}

fn row(cell: &CompareCell) -> Vec<String> {
    let turn_requests = if cell.reached_target {
        cell.requests.to_string()
    } else {
        format!("{} (target not reached)", cell.requests)
    };
    vec![
        cell.size.to_string(),
        mode_label(cell),
        cell.first.raw_bytes.to_string(),
        cell.first.tool_json_bytes.to_string(),
        cell.first.system_prompt_chars.to_string(),
        cell.first.declared_tools.to_string(),
        cell.first.tokens.to_string(),
        ratio_label(cell.first_ratio),
        turn_requests,
        cell.turn.raw_bytes.to_string(),
        cell.turn.tokens.to_string(),
        ratio_label(cell.turn_ratio),
    ]
}

fn fallback_notes(report: &CompareReport) -> Vec<String> {
    let mut notes: Vec<String> = report
        .cells
        .iter()
        .flat_map(|c| {
            c.notes
                .iter()
                .map(move |n| format!("{}: {n}", c.mode.as_str()))
        })
        .collect();
    notes.sort();
    notes.dedup();
    notes
}

/// Columns of [`HEADER`] in the terminal's first table (the first request) and second (the
/// whole turn); both start with the size and the mode. Twelve columns do not fit 100.
const FIRST_COLUMNS: [usize; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
const TURN_COLUMNS: [usize; 6] = [0, 1, 8, 9, 10, 11];

/// Two terminal tables (the first request, the whole turn), then the fallback notes.
pub fn table(report: &CompareReport) -> String {
    let part = |columns: &[usize]| {
        let pick = |cells: Vec<String>| -> Vec<String> {
            columns.iter().map(|&c| cells[c].clone()).collect()
        };
        let mut table = bounded_table(pick(HEADER.iter().map(|h| h.to_string()).collect()));
        for cell in &report.cells {
            table.add_row(pick(row(cell)));
        }
        table
    };
    let mut out = format!(
        "first request\n{}\nwhole turn\n{}\nprofile: {} · tokens: {}\n",
        part(&FIRST_COLUMNS),
        part(&TURN_COLUMNS),
        report.profile,
        report.tokenizer
    );
    for note in fallback_notes(report) {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// A GitHub-flavoured markdown table, then the fallback notes.
pub fn markdown(report: &CompareReport) -> String {
    let mut out = format!("| {} |\n", HEADER.join(" | "));
    out.push_str(&format!("|{}\n", "---:|".repeat(HEADER.len())));
    for cell in &report.cells {
        out.push_str(&format!("| {} |\n", row(cell).join(" | ")));
    }
    out.push_str(&format!(
        "\nProfile: `{}`. Tokens: {}.\n",
        report.profile, report.tokenizer
    ));
    for note in fallback_notes(report) {
        out.push_str(&format!("\n- {note}"));
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Pretty JSON of the whole report.
pub fn json(report: &CompareReport) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::measure::PayloadSize;
    use crate::config::ToolSearchMode;

    fn report() -> CompareReport {
        let size = PayloadSize {
            raw_bytes: 100,
            tool_json_bytes: 40,
            system_prompt_chars: 30,
            declared_tools: 4,
            tokens: 25,
        };
        CompareReport {
            profile: "spec".into(),
            tokenizer: "o200k_base",
            sizes: vec![36],
            modes: vec![ToolSearchMode::Code],
            cells: vec![CompareCell {
                size: 36,
                mode: ToolSearchMode::Code,
                effective_mode: "tools".into(),
                notes: vec!["fell back".into()],
                reached_target: true,
                requests: 3,
                first: size,
                turn: size + size,
                first_ratio: Some(0.5),
                turn_ratio: None,
            }],
        }
    }

    #[test]
    fn markdown_names_the_effective_mode_and_the_note() {
        let md = markdown(&report());
        assert!(
            md.contains(
                "| 36 | code (ran as tools) | 100 | 40 | 30 | 4 | 25 | 0.500 | 3 | 200 | 50 | - |"
            ),
            "{md}"
        );
        assert!(md.ends_with("- code: fell back\n"), "{md}");
    }

    #[test]
    fn json_uses_camel_case() {
        let text = json(&report()).unwrap();
        assert!(text.contains("\"effectiveMode\": \"tools\""), "{text}");
        assert!(text.contains("\"toolJsonBytes\": 40"), "{text}");
    }
}
