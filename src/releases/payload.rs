//! `payload-table`: BENCHMARKS.md's payload per Tool Search mode across the adopted releases,
//! printed from the committed run records (`data/releases/openclaw-<v>.run.json`), so the page
//! is regenerated rather than copied by hand, and a test holds it to the records.

use std::fmt::Write as _;
use std::path::Path;

use crate::error::Error;
use crate::outcome::record::{LaneRecord, RunRecord};
use crate::output::thousands;
use crate::scenario::REFERENCE_SCENARIO;
use crate::targets::openclaw::Version;

/// The reference scenario's lanes, in the table's column order.
const MODES: [&str; 5] = ["direct", "code", "tools", "directory", "batch"];

/// The table's header row and its rule.
const HEADER: &str = "| release (Node) | direct: 1st request B / tok / last request B, tools | code | \
                      tools | directory | batch | directory lines |\n|---|---|---|---|---|---|---|\n";

/// Every committed run record under `root`, oldest release first.
pub fn records(root: &Path) -> Result<Vec<RunRecord>, Error> {
    let dir = root.join("data").join("releases");
    let entries = std::fs::read_dir(&dir).map_err(Error::io("read", &dir))?;
    let mut versions: Vec<Version> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let version = name.strip_prefix("openclaw-")?.strip_suffix(".run.json")?;
            version.parse().ok()
        })
        .collect();
    versions.sort();
    versions
        .iter()
        .map(|v| RunRecord::read(root, &v.to_string()))
        .collect()
}

/// The markdown table: one row per release, one column per mode, then the directory's lines.
pub fn table(records: &[RunRecord]) -> String {
    let mut text = HEADER.to_string();
    for record in records {
        let lane = |mode: &str| {
            record
                .lanes
                .iter()
                .find(|l| l.scenario == REFERENCE_SCENARIO && l.lane == mode)
        };
        let cells: Vec<String> = MODES
            .iter()
            .map(|mode| match lane(mode) {
                Some(l) => figures(l),
                None => missing(record, mode),
            })
            .collect();
        let lines = directory_lines(MODES.iter().filter_map(|m| lane(m)));
        let _ = writeln!(
            text,
            "| {} ({}) | {} | {lines} |",
            record.version,
            record.node,
            cells.join(" | ")
        );
    }
    text
}

/// `115,589 B / 26,252 tok / 115,851 B, 74`: first request bytes and tokens, last request
/// bytes, declared tools.
fn figures(lane: &LaneRecord) -> String {
    let tokens = lane
        .first_request_tokens
        .map_or("–".to_string(), |t| thousands(t as usize));
    format!(
        "{} B / {tokens} tok / {} B, {}",
        thousands(lane.first_request_bytes),
        thousands(lane.whole_turn_bytes),
        lane.declared_tools.len()
    )
}

/// Why a mode has no figures: not applicable on the release (its record says), else the record
/// predates the lane.
fn missing(record: &RunRecord, mode: &str) -> String {
    let skipped = record
        .not_applicable
        .iter()
        .any(|n| n.scenario == REFERENCE_SCENARIO && n.lane == mode);
    match skipped {
        true => "— (not applicable)".into(),
        false => "— (record predates the lane)".into(),
    }
}

/// The directory's tool lines: one figure when every Tool Search lane shows the same, else each
/// lane's (`code 68, tools 70`); `—` when no lane has a directory.
fn directory_lines<'a>(lanes: impl Iterator<Item = &'a LaneRecord>) -> String {
    let shown: Vec<(&str, usize)> = lanes
        .filter_map(|l| l.directory_lines.map(|n| (l.lane.as_str(), n)))
        .collect();
    match shown.as_slice() {
        [] => "—".into(),
        [(_, first), rest @ ..] if rest.iter().all(|(_, n)| n == first) => first.to_string(),
        all => all
            .iter()
            .map(|(lane, n)| format!("{lane} {n}"))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// The `payload-table` command.
pub fn command(root: &Path, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    crate::output::emit(out, &table(&records(root)?))?;
    Ok(crate::error::Exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn benchmarks_md_has_the_table_of_the_committed_records() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let table = table(&records(root).unwrap());
        let page = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
        assert!(
            page.contains(&table),
            "BENCHMARKS.md's payload-per-mode table is not the records': run \
             `toolsearch-qa payload-table` and paste it\n{table}"
        );
    }

    fn lane(name: &str, directory: Option<usize>) -> LaneRecord {
        LaneRecord {
            scenario: REFERENCE_SCENARIO.into(),
            lane: name.into(),
            first_request_bytes: 1234,
            whole_turn_bytes: 5678,
            first_request_tokens: Some(321),
            provider_requests: 2,
            system_prompt_chars: 1,
            declared_tools: vec!["a".into(), "b".into()],
            directory_lines: directory,
            path: Vec::new(),
        }
    }

    #[test]
    fn a_row_says_why_a_mode_has_no_figures() {
        let record = RunRecord {
            version: "2026.5.12".into(),
            node: "24.22.3".into(),
            lanes: vec![
                lane("direct", None),
                lane("tools", Some(3)),
                lane("code", Some(4)),
            ],
            verdicts: Vec::new(),
            not_applicable: vec![crate::outcome::record::SkippedRecord {
                scenario: REFERENCE_SCENARIO.into(),
                lane: "directory".into(),
                reason: "no directory mode".into(),
            }],
        };
        let row = table(&[record]).lines().nth(2).unwrap().to_string();
        assert_eq!(
            row,
            "| 2026.5.12 (24.22.3) | 1,234 B / 321 tok / 5,678 B, 2 | 1,234 B / 321 tok / \
             5,678 B, 2 | 1,234 B / 321 tok / 5,678 B, 2 | — (not applicable) | — (record \
             predates the lane) | code 4, tools 3 |"
        );
    }
}
