//! The readable report: per scenario, a table of figures per lane, each lane's answer, a table
//! of claims and what each claim means, then the accepted findings and the count line. Tables
//! keep to 100 columns; long lists are cut with their count kept (JSON has them whole).

use comfy_table::{Cell, Table};

use crate::outcome::LaneFigures;
use crate::outcome::Verdict;
use crate::outcome::{count_line, ScenarioReport, SnapshotState, SuiteReport};

use crate::output::{bounded_table, cut, keep_words, TABLE_WIDTH as WIDTH};
/// Characters of one detail line a table shows before cutting it.
const DETAIL_CHARS: usize = 150;

/// How much of a long value (a check's expected and got, an answer, an observed value) a table
/// shows: cut (to 150 characters; an answer line to the table width), or all of it (`suite
/// --verbose`). JSON always has all of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detail {
    #[default]
    Cut,
    Full,
}

impl Detail {
    /// `text` as this detail shows it.
    pub fn show(self, text: &str) -> String {
        match self {
            Detail::Cut => cut(text, DETAIL_CHARS),
            Detail::Full => text.to_string(),
        }
    }
}

pub(super) fn new_table(header: Vec<&str>) -> Table {
    bounded_table(header)
}

/// What the scripted model planned per request (`-` for a text answer).
pub(super) fn planned(figures: &LaneFigures) -> Vec<&str> {
    figures
        .provider_planned_tools
        .iter()
        .map(|t| t.as_deref().unwrap_or("-"))
        .collect()
}

/// A verdict's result word: PASS, FAIL, ACCEPTED (fails exactly as an accepted finding says) or
/// N/A (not applicable: the scenario lacks a lane the claim needs).
pub(super) fn result(c: &Verdict) -> &'static str {
    match (c.ok, c.is_accepted()) {
        _ if c.is_not_applicable() => "N/A",
        (true, _) => "PASS",
        (false, true) => "ACCEPTED",
        (false, false) => "FAIL",
    }
}

/// A verdict's detail: how many checks held, or every failing check (an accepted one with its
/// reason).
pub(super) fn detail(c: &Verdict, separator: &str, shown: Detail) -> String {
    if let Some(reason) = &c.not_applicable {
        return format!("not applicable: {reason}");
    }
    if c.is_accepted() {
        let reasons: Vec<&str> = c
            .acceptance
            .iter()
            .flat_map(|a| &a.findings)
            .map(|f| f.reason.as_str())
            .collect();
        return format!("accepted finding: {}", reasons.join(separator));
    }
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
        .map(|f| {
            format!(
                "expected {}{separator}got {}",
                shown.show(&f.expected),
                shown.show(&f.actual)
            )
        })
        .collect::<Vec<_>>()
        .join(separator)
}

impl SuiteReport {
    /// Figures per lane, then verdicts, for each scenario; then the count line.
    pub fn to_table(&self) -> String {
        self.to_table_with(Detail::Cut)
    }

    /// [`Self::to_table`], with long values cut or whole.
    pub fn to_table_with(&self, shown: Detail) -> String {
        let mut out = String::new();
        if let Some(product) = &self.product {
            let seeded = product
                .seeded
                .as_ref()
                .map(|s| format!(", seeded with product seed {s} (a patched copy, not the release as published)"))
                .unwrap_or_default();
            let build = product
                .build
                .as_ref()
                .map(|b| format!(", {}", b.describe(&product.version)))
                .unwrap_or_default();
            out.push_str(&format!(
                "target {}: {} {} on Node {}{seeded}{build}\n",
                self.target.as_str(),
                self.target.as_str(),
                product.version,
                product.node
            ));
        }
        if let Some(data) = &self.data {
            out.push_str(&format!(
                "data: {}; release facts {}; accepted findings {}\n",
                data.root,
                data.release_facts.as_deref().unwrap_or("none"),
                self.expectations.as_deref().unwrap_or("none")
            ));
        }
        for s in &self.scenarios {
            let profile = s
                .profile
                .as_ref()
                .map(|p| format!(", profile {p}"))
                .unwrap_or_default();
            let about = format!(
                "target {}{profile}, tool {}",
                self.target.as_str(),
                s.target_tool
            );
            let head = format!("scenario {} ({about})", s.scenario);
            // One line when it fits the table width, else the details on a line of their own.
            if head.chars().count() <= usize::from(WIDTH) {
                out.push_str(&format!("{head}\n"));
            } else {
                out.push_str(&format!("scenario {}\n  {about}\n", s.scenario));
            }
            if !s.lanes.0.is_empty() {
                out.push_str(&figures_table(s).to_string());
                out.push('\n');
                out.push_str(&answers(s, shown));
                out.push_str(&claims_table(s, shown).to_string());
                out.push('\n');
                out.push_str(&legend(s));
            }
            out.push_str(&super::not_run::lines(s, self.target));
            out.push_str(&snapshot_lines(s));
        }
        out.push_str(&self.findings_section(shown));
        if let Some(section) = &self.build_against_baseline {
            out.push_str(&super::baseline::table(section));
        }
        out.push_str(&count_line(std::slice::from_ref(self)));
        out
    }
}

fn figures_table(s: &ScenarioReport) -> Table {
    let mut table = new_table(vec![
        "lane",
        "reqs",
        "1st bytes",
        "ratio",
        "tools",
        "prompt",
        "directory",
        "planned",
    ]);
    for (name, f) in s.lanes.iter() {
        let directory = f
            .directory
            .as_ref()
            .map_or_else(|| "-".to_string(), |d| format!("{} lines", d.lines));
        table.add_row(vec![
            Cell::new(name),
            Cell::new(f.provider_request_count),
            Cell::new(f.first_request_bytes),
            Cell::new(s.ratio_text(name)),
            Cell::new(f.provider_declared_tool_count),
            Cell::new(f.provider_system_prompt_chars),
            Cell::new(directory),
            Cell::new(planned(f).join(" → ")),
        ]);
    }
    keep_words(&mut table);
    table
}

/// Every snapshot that is not as committed: a changed one with its diff; then, once per
/// scenario, how many are missing or pending review and the commands (to paste as printed) that
/// write them and settle them.
pub(super) fn snapshot_lines(s: &ScenarioReport) -> String {
    let mut out = String::new();
    let count = |state: SnapshotState| s.snapshots.iter().filter(|x| x.status == state).count();
    for snapshot in &s.snapshots {
        let Some(diff) = &snapshot.diff else { continue };
        // A diff cut to its bound ends with the cut's marker, not a line end: the next line
        // starts on a line of its own.
        let diff = match diff.ends_with('\n') {
            true => diff.clone(),
            false => format!("{diff}\n"),
        };
        match snapshot.status {
            SnapshotState::Changed => {
                out.push_str(&format!("snapshot {} changed:\n{diff}", snapshot.name))
            }
            SnapshotState::Pending => out.push_str(&format!(
                "snapshot {} changed (.snap.new written, pending review):\n{diff}",
                snapshot.name
            )),
            SnapshotState::Same | SnapshotState::Missing => {}
        }
    }
    let (changed, missing, pending) = (
        count(SnapshotState::Changed),
        count(SnapshotState::Missing),
        count(SnapshotState::Pending),
    );
    let place = s.snapshot_place.as_ref();
    let write = place.map(|p| p.write.clone()).unwrap_or_else(|| {
        let first = s.snapshots.iter().find_map(|x| x.write_with.clone());
        first.unwrap_or_else(|| "toolsearch-qa suite --update-snapshots".to_string())
    });
    let settle = |out: &mut String| match place {
        Some(p) => out.push_str(&format!(
            "  review them: {}\n  accept them: {}   (or `snapshots reject`)\n",
            p.review, p.accept
        )),
        None => out.push_str("  settle them: `toolsearch-qa snapshots review|accept|reject`\n"),
    };
    let of = |n: usize, what: &str| {
        let plural = if n == 1 { "" } else { "s" };
        let dir = place
            .map(|p| format!(" in {}", p.dir.display()))
            .unwrap_or_default();
        format!("{n} snapshot{plural} of {} {what}{dir}", s.scenario)
    };
    if changed + missing > 0 {
        let what = match (changed, missing) {
            (0, _) => of(missing, "missing"),
            (_, 0) => of(changed, "changed"),
            _ => format!("{}, {missing} missing", of(changed, "changed")),
        };
        out.push_str(&format!("{what}:\n  write them for review: {write}\n"));
        settle(&mut out);
        out.push_str("  or run without comparing them: --no-snapshots\n");
    }
    if pending > 0 {
        out.push_str(&format!(
            "{} (.snap.new written):\n",
            of(pending, "pending review")
        ));
        settle(&mut out);
    }
    out
}

/// What the gateway answered: one line when every lane answered the same.
fn answers(s: &ScenarioReport, shown: Detail) -> String {
    let texts: Vec<(&String, &str)> = s
        .lanes
        .iter()
        .map(|(lane, f)| (lane, f.gateway_output_text.as_str()))
        .collect();
    match texts.first() {
        Some((_, first)) if texts.iter().all(|(_, t)| t == first) => {
            answer_line("every lane", first, shown)
        }
        _ => texts
            .iter()
            .map(|(lane, text)| answer_line(lane, text, shown))
            .collect(),
    }
}

/// `answer (LANE): TEXT`, cut to fit the table width unless shown whole.
fn answer_line(lane: &str, text: &str, shown: Detail) -> String {
    let head = format!("answer ({lane}): ");
    let room = usize::from(WIDTH).saturating_sub(head.chars().count() + 1);
    match shown {
        Detail::Cut => format!("{head}{}\n", cut(text, room.max(20))),
        Detail::Full => format!("{head}{text}\n"),
    }
}

fn claims_table(s: &ScenarioReport, shown: Detail) -> Table {
    let mut table = new_table(vec!["claim", "lane", "result", "detail"]);
    for c in &s.claims {
        table.add_row(vec![
            Cell::new(c.claim),
            Cell::new(&c.lane),
            Cell::new(result(c)),
            Cell::new(detail(c, "\n", shown)),
        ]);
    }
    keep_words(&mut table);
    table
}

/// What each claim of the table means, once.
fn legend(s: &ScenarioReport) -> String {
    let mut seen = Vec::new();
    for c in &s.claims {
        if !seen.contains(&c.claim) {
            seen.push(c.claim);
        }
    }
    seen.iter()
        .map(|claim| format!("  {claim}  {}\n", claim.title()))
        .collect()
}

impl SuiteReport {
    /// The accepted findings that matched (check, observed value, reason) and those that no
    /// longer reproduce; empty when the run has none.
    pub fn findings_section(&self, shown: Detail) -> String {
        let accepted: Vec<_> = self
            .scenarios
            .iter()
            .flat_map(|s| s.claims.iter().map(move |c| (s, c)))
            .filter(|(_, c)| c.is_accepted())
            .flat_map(|(s, c)| {
                c.acceptance
                    .iter()
                    .flat_map(|a| &a.findings)
                    .map(move |f| (s, c, f))
            })
            .collect();
        let mut out = String::new();
        if !accepted.is_empty() {
            let origin = self.expectations.as_deref().unwrap_or("expectations");
            let mut table = new_table(vec![
                "scenario / lane",
                "claim / check",
                "observed",
                "reason",
            ]);
            for (s, c, f) in accepted {
                table.add_row(vec![
                    format!("{}\n{}", s.scenario, c.lane),
                    format!("{} {}", c.claim, f.check),
                    shown.show(&f.observed),
                    f.reason.clone(),
                ]);
            }
            out.push_str(&format!("accepted findings ({origin})\n{table}\n"));
        }
        if !self.stale_findings.is_empty() {
            let mut table = new_table(vec![
                "scenario / lane",
                "claim / check",
                "why it fails the run",
            ]);
            for stale in &self.stale_findings {
                let f = &stale.finding;
                table.add_row(vec![
                    format!("{}\n{}", f.scenario, f.lane),
                    format!("{} {}", f.claim, f.check),
                    stale.why.clone(),
                ]);
            }
            out.push_str(&format!(
                "accepted findings that no longer reproduce\n{table}\n"
            ));
        }
        if !self.unjudged_findings.is_empty() {
            let mut table = new_table(vec!["scenario / lane", "claim / check", "why"]);
            for unjudged in &self.unjudged_findings {
                let f = &unjudged.finding;
                table.add_row(vec![
                    format!("{}\n{}", f.scenario, f.lane),
                    format!("{} {}", f.claim, f.check),
                    unjudged.why.clone(),
                ]);
            }
            out.push_str(&format!(
                "accepted findings not judged (their lane could not run)\n{table}\n"
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::snapshot_lines;
    use crate::outcome::{SnapshotState, SnapshotStatus};
    use crate::report::testdata;

    /// A diff cut to its bound ends with the cut's marker; the next snapshot's heading starts a
    /// line of its own (issue #41: `…characters]snapshot my-check__direct__session changed:`).
    #[test]
    fn a_cut_diff_ends_its_line() {
        let mut report = testdata::reference();
        let scenario = &mut report.scenarios[0];
        for name in ["a", "b"] {
            scenario.snapshots.push(SnapshotStatus {
                name: name.into(),
                status: SnapshotState::Changed,
                diff: Some("-x\n+y … [cut: 6,000 of 46,534 characters]".into()),
                write_with: None,
            });
        }
        let text = snapshot_lines(scenario);
        assert!(
            text.contains("characters]\nsnapshot b changed:\n"),
            "{text}"
        );
    }

    /// A run on a patched copy of a release never passes for the release as published.
    #[test]
    fn a_seeded_product_says_so_in_the_first_line() {
        let mut report = testdata::reference();
        report.target = crate::targets::TargetKind::Openclaw;
        let product = crate::targets::Product {
            version: "2026.9.6".into(),
            node: "24.22.3".into(),
            seeded: None,
            build: None,
        };
        report.product = Some(product.clone());
        let first =
            |r: &crate::outcome::SuiteReport| r.to_table().lines().next().unwrap().to_string();
        assert_eq!(
            first(&report),
            "target openclaw: openclaw 2026.9.6 on Node 24.22.3"
        );
        report.product = Some(crate::targets::Product {
            seeded: Some("search-no-usable-term".into()),
            ..product
        });
        assert_eq!(
            first(&report),
            "target openclaw: openclaw 2026.9.6 on Node 24.22.3, seeded with product seed \
             search-no-usable-term (a patched copy, not the release as published)"
        );
        let json = serde_json::to_value(report.product.as_ref().unwrap()).unwrap();
        assert_eq!(json["seeded"], "search-no-usable-term");
    }
}
