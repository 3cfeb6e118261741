//! `diff-releases A B`: what changed in Tool Search from release A to release B — the report a
//! release manager reads. Per scenario and lane: first-request and whole-turn bytes, declared
//! tools, directory lines and the tool path; then every claim verdict that changed and every
//! accepted finding that is new, fixed or changed its value. From the two releases' committed
//! data (`data/releases/openclaw-<v>.run.json`, `expectations/openclaw-<v>.toml`), or from live
//! runs of both.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use serde::Serialize;

use crate::outcome::record::{LaneRecord, RunRecord, VerdictRecord};
use crate::output::{bounded_table, TABLE_WIDTH};

/// How `diff-releases` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum DiffFormat {
    #[default]
    Table,
    Markdown,
    Json,
}

/// One accepted finding, keyed by where it is and which check.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct FindingKey {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub check: String,
}

/// An accepted finding as one release's expectations file has it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindingValue {
    pub observed: String,
    pub reason: String,
}

/// One lane in both releases (either side may lack it: not run, or not applicable).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaneDiff {
    pub scenario: String,
    pub lane: String,
    pub before: Option<LaneRecord>,
    pub after: Option<LaneRecord>,
    /// Declared tools only the later release declares.
    pub tools_added: Vec<String>,
    /// Declared tools only the earlier release declares.
    pub tools_removed: Vec<String>,
}

/// A claim verdict that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerdictDiff {
    pub scenario: String,
    pub lane: String,
    pub claim: String,
    pub before: Option<VerdictRecord>,
    pub after: Option<VerdictRecord>,
}

/// How an accepted finding changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FindingChange {
    /// Accepted in the later release only.
    New,
    /// Accepted in the earlier release only.
    Fixed,
    /// Accepted in both with another observed value.
    Changed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FindingDiff {
    pub change: FindingChange,
    #[serde(flatten)]
    pub key: FindingKey,
    pub before: Option<FindingValue>,
    pub after: Option<FindingValue>,
}

/// The whole comparison.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReleaseDiff {
    pub before: String,
    pub after: String,
    /// The Node each run was on (`24.22.3`): bytes and verdicts that differ between two Node
    /// majors may be the runtime's, and the title says so.
    pub before_node: String,
    pub after_node: String,
    /// `committed` or `live`.
    pub source: &'static str,
    pub lanes: Vec<LaneDiff>,
    pub verdicts: Vec<VerdictDiff>,
    pub findings: Vec<FindingDiff>,
    /// What one side has and the other does not, so no change in it can be told.
    pub uncompared: Vec<Uncompared>,
}

/// A lane or claim only one release's run record has: nothing about it is compared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Uncompared {
    pub scenario: String,
    pub lane: String,
    /// The claims only one side judged (empty: the whole lane is missing on one side).
    pub claims: Vec<String>,
    /// The release whose record lacks it.
    pub missing_in: String,
    /// Why, as far as the records tell (not applicable there, or no such lane in its run).
    pub why: String,
}

type LaneKey = (String, String);

impl ReleaseDiff {
    /// Compares two runs and two sets of accepted findings.
    pub fn new(
        before: &RunRecord,
        after: &RunRecord,
        before_findings: &BTreeMap<FindingKey, FindingValue>,
        after_findings: &BTreeMap<FindingKey, FindingValue>,
        source: &'static str,
    ) -> ReleaseDiff {
        ReleaseDiff {
            before: before.version.clone(),
            after: after.version.clone(),
            before_node: before.node.clone(),
            after_node: after.node.clone(),
            source,
            lanes: lane_diffs(before, after),
            verdicts: verdict_diffs(before, after)
                .into_iter()
                .filter(|v| v.before.is_some() && v.after.is_some())
                .collect(),
            findings: finding_diffs(before_findings, after_findings),
            uncompared: uncompared(before, after),
        }
    }

    /// Says which of today's scenario lanes (`scenario`, `lane`) neither record has: a lane
    /// added after both runs were recorded is not compared, and the report says so.
    pub fn with_current_lanes(mut self, lanes: &[(String, String)]) -> ReleaseDiff {
        for (scenario, lane) in lanes {
            let known = self
                .lanes
                .iter()
                .any(|l| &l.scenario == scenario && &l.lane == lane);
            if !known {
                self.uncompared.push(Uncompared {
                    scenario: scenario.clone(),
                    lane: lane.clone(),
                    claims: Vec::new(),
                    missing_in: format!("{} and {}", self.before, self.after),
                    why: "both records predate the lane, or it is not applicable on the product"
                        .into(),
                });
            }
        }
        self.uncompared
            .sort_by(|a, b| (&a.scenario, &a.lane).cmp(&(&b.scenario, &b.lane)));
        self
    }

    /// True when nothing a release manager reads changed (figures aside).
    pub fn unchanged(&self) -> bool {
        self.verdicts.is_empty()
            && self.findings.is_empty()
            && self.lanes.iter().all(|l| {
                l.tools_added.is_empty()
                    && l.tools_removed.is_empty()
                    && l.before.as_ref().map(|b| (&b.path, b.directory_lines))
                        == l.after.as_ref().map(|a| (&a.path, a.directory_lines))
            })
    }

    pub fn render(&self, format: DiffFormat) -> String {
        match format {
            DiffFormat::Table => self.to_table(),
            DiffFormat::Markdown => self.to_markdown(),
            DiffFormat::Json => serde_json::to_string_pretty(self).unwrap_or_default() + "\n",
        }
    }

    /// The Node majors of the two runs (`Node 24`, or `Node 24 → Node 26`).
    fn runtimes(&self) -> (String, String) {
        let major = |node: &str| {
            node.trim_start_matches('v')
                .split('.')
                .next()
                .unwrap_or_default()
                .to_string()
        };
        (major(&self.before_node), major(&self.after_node))
    }

    fn title(&self) -> String {
        let runtime = match self.runtimes() {
            (a, b) if a == b => format!("Node {a}"),
            (a, b) => format!("Node {a} → Node {b}"),
        };
        format!(
            "OpenClaw {} → {}: Tool Search per scenario and lane ({} data, {runtime})",
            self.before, self.after, self.source
        )
    }

    /// Said under the title when the two runs had different Node majors.
    fn runtime_note(&self) -> Option<&'static str> {
        let (a, b) = self.runtimes();
        (a != b).then_some(
            "note: the two runs had different Node majors: a change may be the runtime's, not the release's",
        )
    }

    fn to_table(&self) -> String {
        let mut text = self.title() + "\n";
        if let Some(note) = self.runtime_note() {
            text = text + note + "\n";
        }
        // The tool path is listed under the table where it changed (`--format markdown` has it
        // as a column): seven columns do not fit 100 without cutting names.
        let mut table = bounded_table(vec![
            "scenario / lane",
            "1st req B",
            "turn B",
            "1st req tok",
            "tools",
            "dir lines",
        ]);
        for lane in &self.lanes {
            let mut cells = lane_cells(lane);
            cells.pop();
            table.add_row(
                cells
                    .iter()
                    .map(|c| c.replace("\n(", "\n").replace("%)", "%")),
            );
        }
        // The scenario column is as wide as its longest id, so no id is cut mid-word; the
        // figures wrap at their spaces instead.
        let widest = self
            .lanes
            .iter()
            .map(|l| l.scenario.chars().count().max(l.lane.chars().count() + 2))
            .max()
            .unwrap_or(0);
        if let Some(column) = table.column_mut(0) {
            let width = u16::try_from(widest).unwrap_or(u16::MAX).min(40);
            column.set_constraint(comfy_table::ColumnConstraint::Absolute(
                comfy_table::Width::Fixed(width + 2),
            ));
        }
        for index in 1..6 {
            if let Some(column) = table.column_mut(index) {
                column.set_constraint(comfy_table::ColumnConstraint::LowerBoundary(
                    comfy_table::Width::Fixed(8),
                ));
            }
        }
        let _ = writeln!(text, "{table}");
        // The lists under the table fit its width too, wrapped between words.
        for line in self.changes_text().lines() {
            for part in crate::output::wrap_words(line, usize::from(TABLE_WIDTH), "      ") {
                let _ = writeln!(text, "{part}");
            }
        }
        text
    }

    fn to_markdown(&self) -> String {
        let mut text = format!("## {}\n\n", self.title());
        if let Some(note) = self.runtime_note() {
            text = text + note + "\n\n";
        }
        text.push_str(
            "| scenario / lane | 1st request B | whole turn B | 1st request tok | tools | dir lines | path |\n",
        );
        text.push_str("|---|---|---|---|---|---|---|\n");
        for lane in &self.lanes {
            let cells = lane_cells(lane);
            let _ = writeln!(text, "| {} |", cells.join(" | ").replace('\n', "<br>"));
        }
        text.push('\n');
        for line in self.changes_text().lines() {
            match line.strip_prefix("  ") {
                Some(item) => {
                    let _ = writeln!(text, "- {item}");
                }
                None if line.is_empty() => text.push('\n'),
                None => {
                    let _ = writeln!(text, "\n### {}\n", line.trim_end_matches(':'));
                }
            }
        }
        text
    }

    /// The lists under the table: declared tools, paths, verdicts, findings that changed.
    fn changes_text(&self) -> String {
        let mut text = String::new();
        let mut tools = Vec::new();
        let mut paths = Vec::new();
        for lane in &self.lanes {
            let at = format!("{} / {}", lane.scenario, lane.lane);
            if !lane.tools_added.is_empty() {
                tools.push(format!("{at}: + {}", lane.tools_added.join(", ")));
            }
            if !lane.tools_removed.is_empty() {
                tools.push(format!("{at}: - {}", lane.tools_removed.join(", ")));
            }
            if let (Some(b), Some(a)) = (&lane.before, &lane.after) {
                if b.path != a.path {
                    paths.push(format!(
                        "{at}: {} → {}",
                        b.path.join(" › "),
                        a.path.join(" › ")
                    ));
                }
            }
        }
        section(&mut text, "declared tools that changed", &tools);
        section(&mut text, "tool paths that changed", &paths);
        let verdicts: Vec<String> = self
            .verdicts
            .iter()
            .map(|v| {
                format!(
                    "{} / {} {}: {} → {}",
                    v.scenario,
                    v.lane,
                    v.claim,
                    verdict_word(v.before.as_ref()),
                    verdict_word(v.after.as_ref())
                )
            })
            .collect();
        section(&mut text, "claim verdicts that changed", &verdicts);
        let findings: Vec<String> = self
            .findings
            .iter()
            .map(|f| {
                let k = &f.key;
                let value = |v: &Option<FindingValue>| {
                    v.as_ref()
                        .map_or("-".to_string(), |v| crate::output::cut(&v.observed, 60))
                };
                format!(
                    "{:?} {} / {} {} {:?}: {} → {}",
                    f.change,
                    k.scenario,
                    k.lane,
                    k.claim,
                    k.check,
                    value(&f.before),
                    value(&f.after)
                )
                .to_lowercase_first()
            })
            .collect();
        section(&mut text, "accepted findings that changed", &findings);
        let uncompared: Vec<String> = uncompared_groups(&self.uncompared)
            .into_iter()
            .map(|(u, lanes)| {
                let what = match (u.claims.as_slice(), lanes.len()) {
                    ([], 1) => "the lane".to_string(),
                    ([], _) => "the lanes".to_string(),
                    (claims, _) => format!("claims {}", claims.join(", ")),
                };
                format!(
                    "{} / {}: {what} not in the record of {} ({})",
                    u.scenario,
                    lanes.join(", "),
                    u.missing_in,
                    u.why
                )
            })
            .collect();
        section(
            &mut text,
            "not compared (only one release's run record has it)",
            &uncompared,
        );
        if self.unchanged() {
            text.push_str("no declared tool, path, verdict or accepted finding changed\n");
        }
        text
    }
}

/// Uncompared entries that differ only in their lane, as one line each: the first entry of the
/// group and every lane of it, in order (a scenario whose four lanes both records predate is one
/// line, not four).
fn uncompared_groups(all: &[Uncompared]) -> Vec<(&Uncompared, Vec<&str>)> {
    let mut groups: Vec<(&Uncompared, Vec<&str>)> = Vec::new();
    for u in all {
        let same = |g: &Uncompared| {
            (&g.scenario, &g.claims, &g.missing_in, &g.why)
                == (&u.scenario, &u.claims, &u.missing_in, &u.why)
        };
        match groups.iter_mut().find(|(g, _)| same(g)) {
            Some((_, lanes)) => lanes.push(&u.lane),
            None => groups.push((u, vec![&u.lane])),
        }
    }
    groups
}

trait LowercaseFirst {
    fn to_lowercase_first(self) -> String;
}

impl LowercaseFirst for String {
    fn to_lowercase_first(self) -> String {
        let mut chars = self.chars();
        match chars.next() {
            Some(first) => first.to_lowercase().chain(chars).collect(),
            None => self,
        }
    }
}

fn section(text: &mut String, title: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(text, "\n{title}:");
    for line in lines {
        let _ = writeln!(text, "  {line}");
    }
}

fn verdict_word(v: Option<&VerdictRecord>) -> String {
    match v {
        None => "not run".into(),
        Some(v) if v.ok => "holds".into(),
        Some(v) => format!("FAILS ({})", crate::output::cut(&v.actual, 50)),
    }
}

/// `A → B (+N%)` of two counts.
fn change(before: Option<usize>, after: Option<usize>) -> String {
    match (before, after) {
        (Some(b), Some(a)) if b == a => format!("{a}"),
        (Some(b), Some(a)) if b > 0 => {
            let percent = (a as f64 - b as f64) * 100.0 / b as f64;
            format!("{b} → {a}\n({percent:+.1}%)")
        }
        (Some(b), Some(a)) => format!("{b} → {a}"),
        (None, Some(a)) => format!("- → {a}"),
        (Some(b), None) => format!("{b} → -"),
        (None, None) => "-".into(),
    }
}

fn lane_cells(lane: &LaneDiff) -> Vec<String> {
    let (b, a) = (lane.before.as_ref(), lane.after.as_ref());
    let path_same = b.map(|b| &b.path) == a.map(|a| &a.path);
    vec![
        // Scenario and lane on lines of their own, so a long scenario id is never cut.
        format!("{}\n/ {}", lane.scenario, lane.lane),
        change(
            b.map(|b| b.first_request_bytes),
            a.map(|a| a.first_request_bytes),
        ),
        change(b.map(|b| b.whole_turn_bytes), a.map(|a| a.whole_turn_bytes)),
        change(
            b.and_then(|b| b.first_request_tokens).map(|t| t as usize),
            a.and_then(|a| a.first_request_tokens).map(|t| t as usize),
        ),
        change(
            b.map(|b| b.declared_tools.len()),
            a.map(|a| a.declared_tools.len()),
        ),
        change(
            b.and_then(|b| b.directory_lines),
            a.and_then(|a| a.directory_lines),
        ),
        match (path_same, a.or(b)) {
            (_, None) => "-".into(),
            // One step a line: a tool name is never cut mid-word.
            (true, Some(r)) => r.path.join("\n› "),
            (false, _) => "changed".into(),
        },
    ]
}

fn lane_diffs(before: &RunRecord, after: &RunRecord) -> Vec<LaneDiff> {
    let index = |r: &RunRecord| -> BTreeMap<LaneKey, LaneRecord> {
        r.lanes
            .iter()
            .map(|l| ((l.scenario.clone(), l.lane.clone()), l.clone()))
            .collect()
    };
    let (b, a) = (index(before), index(after));
    let keys: BTreeSet<&LaneKey> = b.keys().chain(a.keys()).collect();
    keys.into_iter()
        .map(|key| {
            let (old, new) = (b.get(key), a.get(key));
            let names = |r: Option<&LaneRecord>| -> BTreeSet<String> {
                r.map(|r| r.declared_tools.iter().cloned().collect())
                    .unwrap_or_default()
            };
            let (old_names, new_names) = (names(old), names(new));
            let both = old.is_some() && new.is_some();
            LaneDiff {
                scenario: key.0.clone(),
                lane: key.1.clone(),
                tools_added: match both {
                    true => new_names.difference(&old_names).cloned().collect(),
                    false => Vec::new(),
                },
                tools_removed: match both {
                    true => old_names.difference(&new_names).cloned().collect(),
                    false => Vec::new(),
                },
                before: old.cloned(),
                after: new.cloned(),
            }
        })
        .collect()
}

/// The lanes and claims only one side's record has, with why where the other side says.
fn uncompared(before: &RunRecord, after: &RunRecord) -> Vec<Uncompared> {
    let lanes = |r: &RunRecord| -> BTreeSet<LaneKey> {
        r.lanes
            .iter()
            .map(|l| (l.scenario.clone(), l.lane.clone()))
            .collect()
    };
    let claims = |r: &RunRecord, key: &LaneKey| -> BTreeSet<String> {
        r.verdicts
            .iter()
            .filter(|v| v.scenario == key.0 && v.lane == key.1)
            .map(|v| v.claim.clone())
            .collect()
    };
    let why_missing = |r: &RunRecord, key: &LaneKey| -> String {
        r.not_applicable
            .iter()
            .find(|n| n.scenario == key.0 && n.lane == key.1)
            .map_or_else(
                || "its run has no such lane: the record predates it, or the lane errored".into(),
                |n| format!("not applicable there: {}", n.reason),
            )
    };
    let (b, a) = (lanes(before), lanes(after));
    let mut out = Vec::new();
    for key in b.union(&a) {
        let entry = |missing: &RunRecord, claims: Vec<String>, why: String| Uncompared {
            scenario: key.0.clone(),
            lane: key.1.clone(),
            claims,
            missing_in: missing.version.clone(),
            why,
        };
        match (b.contains(key), a.contains(key)) {
            (true, false) => out.push(entry(after, Vec::new(), why_missing(after, key))),
            (false, true) => out.push(entry(before, Vec::new(), why_missing(before, key))),
            _ => {
                let (cb, ca) = (claims(before, key), claims(after, key));
                let only_b: Vec<String> = cb.difference(&ca).cloned().collect();
                let only_a: Vec<String> = ca.difference(&cb).cloned().collect();
                let not_judged = "not judged in that run".to_string();
                if !only_a.is_empty() {
                    out.push(entry(before, only_a, not_judged.clone()));
                }
                if !only_b.is_empty() {
                    out.push(entry(after, only_b, not_judged));
                }
            }
        }
    }
    out
}

fn verdict_diffs(before: &RunRecord, after: &RunRecord) -> Vec<VerdictDiff> {
    type Key = (String, String, String);
    let index = |r: &RunRecord| -> BTreeMap<Key, VerdictRecord> {
        r.verdicts
            .iter()
            .map(|v| {
                (
                    (v.scenario.clone(), v.lane.clone(), v.claim.clone()),
                    v.clone(),
                )
            })
            .collect()
    };
    let (b, a) = (index(before), index(after));
    let keys: BTreeSet<&Key> = b.keys().chain(a.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (old, new) = (b.get(key), a.get(key));
            let same = match (old, new) {
                (Some(o), Some(n)) => o.ok == n.ok && o.actual == n.actual,
                _ => false,
            };
            (!same).then(|| VerdictDiff {
                scenario: key.0.clone(),
                lane: key.1.clone(),
                claim: key.2.clone(),
                before: old.cloned(),
                after: new.cloned(),
            })
        })
        .collect()
}

fn finding_diffs(
    before: &BTreeMap<FindingKey, FindingValue>,
    after: &BTreeMap<FindingKey, FindingValue>,
) -> Vec<FindingDiff> {
    let keys: BTreeSet<&FindingKey> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (old, new) = (before.get(key), after.get(key));
            let change = match (old, new) {
                (None, Some(_)) => FindingChange::New,
                (Some(_), None) => FindingChange::Fixed,
                (Some(o), Some(n)) if o.observed != n.observed => FindingChange::Changed,
                _ => return None,
            };
            Some(FindingDiff {
                change,
                key: key.clone(),
                before: old.cloned(),
                after: new.cloned(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lane(path: &[&str], tools: &[&str], bytes: usize) -> LaneRecord {
        LaneRecord {
            scenario: "s".into(),
            lane: "tools".into(),
            first_request_bytes: bytes,
            whole_turn_bytes: bytes * 3,
            first_request_tokens: Some(bytes as u64 / 4),
            provider_requests: path.len(),
            system_prompt_chars: 10,
            declared_tools: tools.iter().map(|t| t.to_string()).collect(),
            directory_lines: Some(36),
            path: path.iter().map(|t| t.to_string()).collect(),
        }
    }

    fn run(version: &str, lane: LaneRecord, ok: bool) -> RunRecord {
        RunRecord {
            version: version.into(),
            node: "24.22.3".into(),
            lanes: vec![lane],
            verdicts: vec![VerdictRecord {
                scenario: "s".into(),
                lane: "tools".into(),
                claim: "C4".into(),
                ok,
                actual: if ok { "as expected".into() } else { "x".into() },
            }],
            not_applicable: Vec::new(),
        }
    }

    fn finding(check: &str, observed: &str) -> (FindingKey, FindingValue) {
        (
            FindingKey {
                scenario: "s".into(),
                lane: "tools".into(),
                claim: "L1".into(),
                check: check.into(),
            },
            FindingValue {
                observed: observed.into(),
                reason: "r".into(),
            },
        )
    }

    #[test]
    fn every_kind_of_change_is_reported() {
        let a = run(
            "2026.9.5",
            lane(
                &["tool_search", "tool_call", "-"],
                &["a", "tool_call"],
                1000,
            ),
            true,
        );
        let b = run(
            "2026.9.6",
            lane(
                &["tool_search", "dispatch_action", "-"],
                &["a", "dispatch_action"],
                1100,
            ),
            false,
        );
        let before: BTreeMap<_, _> = [finding("gone", "1"), finding("moved", "2")].into();
        let after: BTreeMap<_, _> = [finding("moved", "3"), finding("fresh", "4")].into();
        let diff = ReleaseDiff::new(&a, &b, &before, &after, "committed");
        assert_eq!(diff.lanes[0].tools_added, ["dispatch_action"]);
        assert_eq!(diff.lanes[0].tools_removed, ["tool_call"]);
        assert_eq!(diff.verdicts.len(), 1);
        let changes: Vec<(FindingChange, &str)> = diff
            .findings
            .iter()
            .map(|f| (f.change, f.key.check.as_str()))
            .collect();
        assert_eq!(
            changes,
            [
                (FindingChange::New, "fresh"),
                (FindingChange::Fixed, "gone"),
                (FindingChange::Changed, "moved")
            ]
        );
        assert!(!diff.unchanged());
        let table = diff.render(DiffFormat::Table);
        assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
        assert!(table.contains("1000 → 1100"), "{table}");
        assert!(
            table.contains("tool_search › tool_call › - → tool_search › dispatch_action › -"),
            "{table}"
        );
        assert!(table.contains("s / tools C4: holds → FAILS (x)"), "{table}");
        let markdown = diff.render(DiffFormat::Markdown);
        assert!(
            markdown.contains("### claim verdicts that changed"),
            "{markdown}"
        );
        let json: serde_json::Value = serde_json::from_str(&diff.render(DiffFormat::Json)).unwrap();
        assert_eq!(json["findings"][0]["change"], "new");
    }

    /// Two records on different Node majors are compared, and the title says the runtimes
    /// differ; on one major it names it.
    #[test]
    fn records_on_two_node_majors_say_so() {
        let a = run("2026.9.5", lane(&["tool_search"], &["a"], 5), true);
        let mut b = run("2026.9.6", lane(&["tool_search"], &["a"], 5), true);
        let same = ReleaseDiff::new(&a, &b, &BTreeMap::new(), &BTreeMap::new(), "committed");
        assert!(same
            .render(DiffFormat::Table)
            .starts_with("OpenClaw 2026.9.5 → 2026.9.6: Tool Search per scenario and lane (committed data, Node 24)\n"));
        b.node = "26.12.1".into();
        let two = ReleaseDiff::new(&a, &b, &BTreeMap::new(), &BTreeMap::new(), "committed");
        let table = two.render(DiffFormat::Table);
        assert!(
            table.contains(
                "(committed data, Node 24 → Node 26)\nnote: the two runs had different Node majors"
            ),
            "{table}"
        );
        assert!(table.lines().all(|l| l.chars().count() <= 100), "{table}");
        let json: serde_json::Value = serde_json::from_str(&two.render(DiffFormat::Json)).unwrap();
        assert_eq!(json["beforeNode"], "24.22.3");
        assert_eq!(json["afterNode"], "26.12.1");
    }

    #[test]
    fn the_same_run_is_unchanged() {
        let a = run("1", lane(&["tool_search"], &["a"], 5), true);
        let diff = ReleaseDiff::new(&a, &a, &BTreeMap::new(), &BTreeMap::new(), "committed");
        assert!(diff.unchanged());
        assert!(diff
            .render(DiffFormat::Table)
            .contains("no declared tool, path, verdict"));
    }

    #[test]
    fn what_one_side_lacks_is_said_not_compared() {
        let before = run("2026.8.2", lane(&["tool_search"], &["a"], 100), true);
        let mut after = run("2026.9.6", lane(&["tool_search"], &["a"], 100), true);
        let mut batch = lane(&["tool_search"], &["a"], 100);
        batch.lane = "batch".into();
        after.lanes.push(batch);
        after.verdicts.push(VerdictRecord {
            scenario: "s".into(),
            lane: "tools".into(),
            claim: "B1".into(),
            ok: true,
            actual: "as expected".into(),
        });
        let diff = ReleaseDiff::new(
            &before,
            &after,
            &BTreeMap::new(),
            &BTreeMap::new(),
            "committed",
        )
        .with_current_lanes(&[
            ("s".into(), "batch".into()),
            ("s".into(), "new".into()),
            ("s".into(), "newer".into()),
        ]);
        let said: Vec<(String, Vec<String>, String)> = diff
            .uncompared
            .iter()
            .map(|u| (u.lane.clone(), u.claims.clone(), u.missing_in.clone()))
            .collect();
        assert_eq!(
            said,
            vec![
                ("batch".into(), vec![], "2026.8.2".into()),
                ("new".into(), vec![], "2026.8.2 and 2026.9.6".into()),
                ("newer".into(), vec![], "2026.8.2 and 2026.9.6".into()),
                ("tools".into(), vec!["B1".into()], "2026.8.2".into()),
            ]
        );
        // A claim judged on one side only is not reported as a changed verdict.
        assert!(diff.verdicts.is_empty(), "{:?}", diff.verdicts);
        let text = diff.render(DiffFormat::Table);
        assert!(
            text.contains(
                "s / tools: claims B1 not in the record of 2026.8.2 (not judged in that run)"
            ),
            "{text}"
        );
        // Lanes missing for the same reason are one item, wrapped between words like every
        // line under the table.
        assert!(
            text.contains(
                "  s / new, newer: the lanes not in the record of 2026.8.2 and 2026.9.6 (both \
                 records predate the\n      lane, or it is not applicable on the product)"
            ),
            "{text}"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "{line}");
        }
    }
}
