//! The "build against baseline" section (`--openclaw-build`) in the table, Markdown and JUnit:
//! each renders the typed [`BuildAgainstBaseline`] the gate computed, and judges nothing.

use quick_junit::{NonSuccessKind, TestCase, TestCaseStatus, TestSuite};

use super::table::new_table;
use crate::outcome::build::{BuildAgainstBaseline, Payload};

/// The section's heading, the same in every format.
pub const HEADING: &str = "build against baseline";

fn payload(p: &Payload) -> String {
    let lines = p
        .directory_lines
        .map(|l| format!(", {l} directory lines"))
        .unwrap_or_default();
    format!(
        "{} bytes, {} tools declared{lines}",
        p.first_request_bytes,
        p.tools_declared.len()
    )
}

/// Tools one payload declares and the other does not: `+a -b`.
fn tools_moved(then: &Payload, now: &Payload) -> String {
    let added = now
        .tools_declared
        .iter()
        .filter(|t| !then.tools_declared.contains(t))
        .map(|t| format!("+{t}"));
    let removed = then
        .tools_declared
        .iter()
        .filter(|t| !now.tools_declared.contains(t))
        .map(|t| format!("-{t}"));
    added.chain(removed).collect::<Vec<_>>().join(" ")
}

/// One line for the lanes whose payload moved in bytes only: how many, and by how much.
fn bytes_only(section: &BuildAgainstBaseline) -> Option<String> {
    let deltas: Vec<i64> = section
        .payload_changes
        .iter()
        .filter(|c| !c.surface_changed)
        .map(|c| c.bytes_delta())
        .collect();
    let (min, max) = (deltas.iter().min()?, deltas.iter().max()?);
    Some(format!(
        "{} lanes' first requests differ in bytes only ({min:+} to {max:+} bytes; the install's path is in the prompt, and a build's differs from the release's in length)",
        deltas.len()
    ))
}

/// The section as text under the run's table.
pub fn table(section: &BuildAgainstBaseline) -> String {
    let mut out = format!(
        "{HEADING} openclaw {}: {} new failing checks, {} accepted findings no longer reproduce, {} snapshot diffs, {} of {} lanes' payloads changed\n",
        section.baseline,
        section.new_failures.len(),
        section.fixed.len(),
        section.snapshot_diffs.len(),
        section.payload_changes.len(),
        section.lanes_compared
    );
    if !section.new_failures.is_empty() {
        let mut t = new_table(vec!["scenario / lane", "claim", "expected", "actual"]);
        for f in &section.new_failures {
            t.add_row(vec![
                format!("{}\n{}", f.scenario, f.lane),
                format!("{} {}", f.claim, f.title),
                f.expected.clone(),
                f.actual.clone(),
            ]);
        }
        out.push_str(&format!("new failing checks\n{t}\n"));
    }
    if !section.fixed.is_empty() {
        let mut t = new_table(vec!["scenario / lane", "claim / check", "why", "to accept"]);
        for f in &section.fixed {
            t.add_row(vec![
                format!("{}\n{}", f.scenario, f.lane),
                format!("{} {}", f.claim, f.check),
                f.why.clone(),
                f.accept.clone(),
            ]);
        }
        out.push_str(&format!(
            "accepted findings of the baseline the build no longer reproduces\n{t}\n"
        ));
    }
    if !section.snapshot_diffs.is_empty() {
        let mut t = new_table(vec!["scenario", "snapshot", "status"]);
        for d in &section.snapshot_diffs {
            t.add_row(vec![
                d.scenario.clone(),
                d.snapshot.clone(),
                format!("{:?}", d.status).to_lowercase(),
            ]);
        }
        out.push_str(&format!("snapshot diffs\n{t}\n"));
    }
    if section.payload_changes.iter().any(|c| c.surface_changed) {
        let mut t = new_table(vec!["scenario / lane", "baseline", "build", "tools"]);
        for c in section.payload_changes.iter().filter(|c| c.surface_changed) {
            t.add_row(vec![
                format!("{}\n{}", c.scenario, c.lane),
                payload(&c.baseline),
                payload(&c.build),
                tools_moved(&c.baseline, &c.build),
            ]);
        }
        out.push_str(&format!(
            "payload changes per lane (tools declared or directory lines)\n{t}\n"
        ));
    }
    if let Some(line) = bytes_only(section) {
        out.push_str(&format!("{line}\n"));
    }
    out
}

/// The section in `report.md`.
pub fn markdown(section: &BuildAgainstBaseline) -> String {
    let cell = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    let mut out = format!(
        "\n## Build against baseline openclaw {}\n\n- new failing checks: {}\n- accepted findings no longer reproduced: {}\n- snapshot diffs: {}\n- payload changes: {} of {} lanes\n",
        section.baseline,
        section.new_failures.len(),
        section.fixed.len(),
        section.snapshot_diffs.len(),
        section.payload_changes.len(),
        section.lanes_compared
    );
    if !section.new_failures.is_empty() {
        out.push_str("\n| scenario | lane | claim | expected | actual |\n|---|---|---|---|---|\n");
        for f in &section.new_failures {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                f.scenario,
                f.lane,
                f.claim,
                cell(&f.expected),
                cell(&f.actual)
            ));
        }
    }
    if !section.fixed.is_empty() {
        out.push_str("\n| scenario | lane | claim | check | to accept |\n|---|---|---|---|---|\n");
        for f in &section.fixed {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                f.scenario,
                f.lane,
                f.claim,
                cell(&f.check),
                cell(&f.accept)
            ));
        }
    }
    if !section.snapshot_diffs.is_empty() {
        out.push_str("\n| scenario | snapshot | status |\n|---|---|---|\n");
        for d in &section.snapshot_diffs {
            out.push_str(&format!(
                "| {} | {} | {} |\n",
                d.scenario,
                d.snapshot,
                format!("{:?}", d.status).to_lowercase()
            ));
        }
    }
    if section.payload_changes.iter().any(|c| c.surface_changed) {
        out.push_str("\n| scenario | lane | baseline | build | tools |\n|---|---|---|---|---|\n");
        for c in section.payload_changes.iter().filter(|c| c.surface_changed) {
            out.push_str(&format!(
                "| {} | {} | {} | {} | {} |\n",
                c.scenario,
                c.lane,
                payload(&c.baseline),
                payload(&c.build),
                tools_moved(&c.baseline, &c.build)
            ));
        }
    }
    if let Some(line) = bytes_only(section) {
        out.push_str(&format!("\n{line}\n"));
    }
    out
}

/// The section as a JUnit suite: a failure per new failing check, fixed finding and snapshot
/// diff; a passing case per payload change (said, not judged).
pub fn junit(target: &str, section: &BuildAgainstBaseline) -> TestSuite {
    let mut suite = TestSuite::new(format!("{target}/{HEADING} {}", section.baseline));
    let failure = |message: String, kind: &str| {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_message(message).set_type(kind.to_string());
        status
    };
    for f in &section.new_failures {
        let mut case = TestCase::new(
            format!("new failing check {} {}", f.claim, f.lane),
            failure(
                format!("expected {}; got {}", f.expected, f.actual),
                "new-failure",
            ),
        );
        case.set_classname(format!("{}.{}", f.scenario, f.lane));
        suite.add_test_case(case);
    }
    for f in &section.fixed {
        let mut case = TestCase::new(
            format!(
                "accepted finding {} {} {:?} no longer reproduces",
                f.claim, f.lane, f.check
            ),
            failure(format!("{}; {}", f.why, f.accept), "fixed-finding"),
        );
        case.set_classname(format!("{}.{}", f.scenario, f.lane));
        suite.add_test_case(case);
    }
    for d in &section.snapshot_diffs {
        let mut case = TestCase::new(
            format!("snapshot {}", d.snapshot),
            failure(
                format!("{:?} against the baseline's", d.status).to_lowercase(),
                "snapshot-diff",
            ),
        );
        case.set_classname(d.scenario.clone());
        suite.add_test_case(case);
    }
    for c in &section.payload_changes {
        let mut case = TestCase::new(
            format!("payload {} {}", c.scenario, c.lane),
            TestCaseStatus::success(),
        );
        case.set_classname(format!("{}.{}", c.scenario, c.lane))
            .set_system_out(format!(
                "baseline: {}; build: {}; tools {}",
                payload(&c.baseline),
                payload(&c.build),
                tools_moved(&c.baseline, &c.build)
            ));
        suite.add_test_case(case);
    }
    if suite.test_cases.is_empty() {
        suite.add_test_case(TestCase::new(
            format!(
                "the build holds everything openclaw {} holds",
                section.baseline
            ),
            TestCaseStatus::success(),
        ));
    }
    suite
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::record::RunRecord;
    use crate::report::testdata;

    /// The reference run against a record of itself holds; one lane's payload moved, one check
    /// failing and a snapshot changed each show in every format.
    #[test]
    fn the_section_renders_what_the_gate_found_in_every_format() {
        // The fixture's run with every check holding: what a build like its baseline gives.
        let mut report = testdata::reference();
        for claim in &mut report.scenarios[0].claims {
            claim.ok = true;
        }
        let record = RunRecord::from_report(&report);
        let same = BuildAgainstBaseline::of(&report, "2026.9.6", Some(&record));
        assert!(same.holds());
        assert!(same.payload_changes.is_empty());
        assert_eq!(
            same.lanes_compared,
            report.scenarios[0].lanes.iter().count()
        );
        assert!(table(&same).starts_with(
            "build against baseline openclaw 2026.9.6: 0 new failing checks, 0 accepted findings no longer reproduce, 0 snapshot diffs, 0 of 2 lanes' payloads changed\n"
        ));

        let mut record = record;
        record.lanes[1].first_request_bytes += 10;
        record.lanes[1].declared_tools.push("gone_tool".into());
        let claim = &mut report.scenarios[0].claims[0];
        claim.ok = false;
        claim.actual = "seeded".into();
        let claim_id = claim.claim.to_string();
        report.scenarios[0]
            .snapshots
            .push(crate::outcome::SnapshotStatus {
                name: "ref__tools__payload".into(),
                status: crate::outcome::SnapshotState::Changed,
                diff: None,
                write_with: None,
            });
        let moved = BuildAgainstBaseline::of(&report, "2026.9.6", Some(&record));
        assert!(!moved.holds());
        assert_eq!(moved.new_failures.len(), 1);
        assert_eq!(moved.new_failures[0].claim, claim_id);
        assert_eq!(moved.snapshot_diffs.len(), 1);
        assert_eq!(moved.payload_changes.len(), 1);
        let change = &moved.payload_changes[0];
        assert_eq!(
            change.baseline.first_request_bytes,
            change.build.first_request_bytes + 10
        );
        assert_eq!(tools_moved(&change.baseline, &change.build), "-gone_tool");
        let text = table(&moved);
        assert!(text.contains("1 new failing checks"), "{text}");
        assert!(text.contains("new failing checks\n"), "{text}");
        assert!(text.contains("snapshot diffs\n"), "{text}");
        assert!(text.contains("payload changes per lane"), "{text}");
        let md = markdown(&moved);
        assert!(
            md.contains("## Build against baseline openclaw 2026.9.6"),
            "{md}"
        );
        assert!(md.contains("| ref__tools__payload | changed |"), "{md}");
        assert!(change.surface_changed);
        let mut bytes = record.clone();
        bytes.lanes[1].declared_tools.pop();
        let only = BuildAgainstBaseline::of(&report, "2026.9.6", Some(&bytes));
        assert_eq!(only.payload_changes.len(), 1);
        assert!(!only.payload_changes[0].surface_changed);
        assert!(table(&only)
            .contains("1 lanes' first requests differ in bytes only (-10 to -10 bytes;"));
        assert!(!table(&only).contains("payload changes per lane"));
        let suite = junit("openclaw", &moved);
        assert_eq!(suite.test_cases.len(), 3);
        assert_eq!(suite.failures, 2);

        // Rendered through the report's own renderers.
        report.build_against_baseline = Some(moved);
        assert!(report
            .to_table()
            .contains("build against baseline openclaw 2026.9.6"));
        assert!(report
            .to_markdown()
            .contains("## Build against baseline openclaw 2026.9.6"));
        let xml = crate::report::junit::junit_xml(std::slice::from_ref(&report)).unwrap();
        assert!(xml.contains("build against baseline 2026.9.6"), "{xml}");
        let json = crate::report::render_json(std::slice::from_ref(&report));
        assert!(json.contains("\"buildAgainstBaseline\""), "{json}");
    }
}
