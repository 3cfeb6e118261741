//! `regressions`: would the gate have caught the bugs OpenClaw shipped? One table, upstream issue
//! × adopted release, built only from committed data: the issues and the scenarios replaying them
//! (`data/upstream-regressions.toml`), each release's accepted findings
//! (`expectations/openclaw-<v>.toml`) and snapshots (`snapshots/openclaw-<v>/`). docs/regressions.md
//! is this command's output (a test holds them equal), so the table is never typed by hand.
//!
//! A cell is `red` when the release's expectations accept a failure of the issue's claim on one of
//! its lanes in its scenario, and that finding's reason cites the issue (`openclaw/openclaw#N`); a
//! finding there that cites another issue is an error (the replay and its reason disagree).
//! `green` when the scenario ran on the release (its snapshots are committed) and nothing is
//! accepted; `-` when it did not run there; `n/a` for an issue no scenario can replay (why is said).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::Error;
use crate::targets::openclaw::release::Version;

/// The data file of upstream issues, relative to the data root.
pub const ISSUES_FILE: &str = "data/upstream-regressions.toml";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IssueFile {
    issue: Vec<Issue>,
}

/// One upstream issue and how it is replayed.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub number: u32,
    /// What users saw, in our words.
    pub saw: String,
    /// Where the fix is (a PR), or that it is open.
    pub fix: String,
    #[serde(default)]
    pub scenario: Option<String>,
    #[serde(default)]
    pub claim: Option<String>,
    #[serde(default)]
    pub lanes: Vec<String>,
    /// The claim's checks that are the bug (empty: every check); a finding on another check of
    /// those lanes is another deviation and does not count.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Why no scenario replays it.
    #[serde(default)]
    pub not_applicable: Option<String>,
    /// Releases the bug cannot arise on, each with why (`"2026.5.12" = "…"`): the cell is n/a
    /// there, whatever the release's findings on the scenario say.
    #[serde(default)]
    pub not_applicable_on: std::collections::BTreeMap<String, String>,
}

impl Issue {
    fn cite(&self) -> String {
        format!("openclaw/openclaw#{}", self.number)
    }
}

/// The fields of an accepted finding this table reads.
#[derive(Debug, Deserialize)]
struct Finding {
    scenario: String,
    lane: String,
    claim: String,
    check: String,
    reason: String,
}

#[derive(Debug, Default, Deserialize)]
struct FindingFile {
    #[serde(default)]
    finding: Vec<Finding>,
}

/// One cell of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// The bug is in the release: an accepted finding citing the issue.
    Red,
    /// The scenario ran on the release and the claim held.
    Green,
    /// The scenario has not run on the release (no committed snapshots).
    NotRun,
    /// No scenario can replay the issue.
    NotApplicable,
}

impl Cell {
    fn as_str(self) -> &'static str {
        match self {
            Cell::Red => "red",
            Cell::Green => "green",
            Cell::NotRun => "-",
            Cell::NotApplicable => "n/a",
        }
    }
}

/// One adopted release: its version and the data the table reads.
struct ReleaseData {
    version: Version,
    findings: Vec<Finding>,
    snapshots: PathBuf,
}

/// A step between two consecutive releases an issue's scenario ran on: `(issue index, (earlier
/// release index, its cell), (later release index, its cell))`.
type Step = (usize, (usize, Cell), (usize, Cell));

/// The table: issues in file order, releases oldest first.
pub struct Table {
    pub issues: Vec<Issue>,
    pub releases: Vec<String>,
    /// `cells[i][r]`: issue `i` on release `r`.
    pub cells: Vec<Vec<Cell>>,
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
}

fn parse<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    toml::from_str(&read(path)?).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
}

/// Every release with an expectations file under `root`, oldest first.
fn releases(root: &Path) -> Result<Vec<ReleaseData>, Error> {
    let dir = root.join("expectations");
    let entries =
        std::fs::read_dir(&dir).map_err(|e| Error::Usage(format!("{}: {e}", dir.display())))?;
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(version) = name
            .strip_prefix("openclaw-")
            .and_then(|rest| rest.strip_suffix(".toml"))
        else {
            continue;
        };
        let Ok(version) = version.parse::<Version>() else {
            continue;
        };
        let file: FindingFile = parse(&entry.path())?;
        found.push(ReleaseData {
            snapshots: root.join("snapshots").join(format!("openclaw-{version}")),
            version,
            findings: file.finding,
        });
    }
    found.sort_by(|a, b| a.version.cmp(&b.version));
    Ok(found)
}

/// Did `scenario` run on the release: a committed snapshot of it?
fn ran(snapshots: &Path, scenario: &str) -> bool {
    let prefix = format!("{scenario}__");
    std::fs::read_dir(snapshots).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(&prefix) && name.ends_with(".snap")
        })
    })
}

fn cell(issue: &Issue, release: &ReleaseData) -> Result<Cell, Error> {
    let (Some(scenario), Some(claim)) = (&issue.scenario, &issue.claim) else {
        return Ok(Cell::NotApplicable);
    };
    if issue
        .not_applicable_on
        .contains_key(&release.version.to_string())
    {
        return Ok(Cell::NotApplicable);
    }
    let on_lanes: Vec<&Finding> = release
        .findings
        .iter()
        .filter(|f| &f.scenario == scenario && &f.claim == claim)
        .filter(|f| issue.lanes.contains(&f.lane))
        .filter(|f| issue.checks.is_empty() || issue.checks.contains(&f.check))
        .collect();
    let cite = issue.cite();
    if let Some(other) = on_lanes.iter().find(|f| !f.reason.contains(&cite)) {
        return Err(Error::Usage(format!(
            "expectations/openclaw-{}.toml: the finding on {scenario} lane {} claim {claim} replays \
             {cite} but its reason does not cite it: {:?}",
            release.version, other.lane, other.reason
        )));
    }
    Ok(
        match (on_lanes.is_empty(), ran(&release.snapshots, scenario)) {
            (false, _) => Cell::Red,
            (true, true) => Cell::Green,
            (true, false) => Cell::NotRun,
        },
    )
}

impl Table {
    /// The table from the committed data under `root`.
    pub fn read(root: &Path) -> Result<Table, Error> {
        let file: IssueFile = parse(&root.join(ISSUES_FILE))?;
        let releases = releases(root)?;
        for issue in &file.issue {
            for version in issue.not_applicable_on.keys() {
                if !releases.iter().any(|r| &r.version.to_string() == version) {
                    return Err(Error::Usage(format!(
                        "{}: #{}: not_applicable_on names {version}, which is not an adopted release",
                        root.join(ISSUES_FILE).display(),
                        issue.number
                    )));
                }
            }
        }
        let cells = file
            .issue
            .iter()
            .map(|issue| releases.iter().map(|r| cell(issue, r)).collect())
            .collect::<Result<Vec<Vec<Cell>>, Error>>()?;
        Ok(Table {
            issues: file.issue,
            releases: releases.iter().map(|r| r.version.to_string()).collect(),
            cells,
        })
    }

    /// Each step between consecutive releases an issue's scenario ran on (red or green).
    fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for (i, row) in self.cells.iter().enumerate() {
            let ran: Vec<(usize, Cell)> = row
                .iter()
                .copied()
                .enumerate()
                .filter(|(_, c)| matches!(c, Cell::Red | Cell::Green))
                .collect();
            steps.extend(ran.windows(2).map(|w| (i, w[0], w[1])));
        }
        steps
    }

    /// Every red → green step between consecutive releases the scenario ran on:
    /// `(issue, red release, green release)`.
    pub fn fixed_pairs(&self) -> Vec<(u32, String, String)> {
        self.steps()
            .into_iter()
            .filter(|(_, (_, x), (_, y))| (*x, *y) == (Cell::Red, Cell::Green))
            .map(|(i, (a, _), (b, _))| {
                (
                    self.issues[i].number,
                    self.releases[a].clone(),
                    self.releases[b].clone(),
                )
            })
            .collect()
    }

    /// The releases at either end of a colour change: for each issue, consecutive releases
    /// the scenario ran on whose cells differ (red → green, or green → red). Oldest first, each
    /// once. Replaying there keeps every change the table shows under the gate; the releases
    /// between two changes repeat their neighbours' colours.
    pub fn change_releases(&self) -> Vec<String> {
        let mut at = vec![false; self.releases.len()];
        for (_, (a, x), (b, y)) in self.steps() {
            if x != y {
                at[a] = true;
                at[b] = true;
            }
        }
        self.releases
            .iter()
            .zip(at)
            .filter(|(_, a)| *a)
            .map(|(r, _)| r.clone())
            .collect()
    }

    /// The page: docs/regressions.md as committed.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADER);
        let short: Vec<String> = self
            .releases
            .iter()
            .map(|v| v.trim_start_matches("2026.").to_string())
            .collect();
        let _ = writeln!(out, "| issue | claim | {} |", short.join(" | "));
        let _ = writeln!(out, "|---|---|{}", "---|".repeat(short.len()));
        for (issue, row) in self.issues.iter().zip(&self.cells) {
            let cells: Vec<&str> = row.iter().map(|c| c.as_str()).collect();
            let _ = writeln!(
                out,
                "| #{} | {} | {} |",
                issue.number,
                issue.claim.as_deref().unwrap_or("-"),
                cells.join(" | ")
            );
        }
        out.push_str("\nColumns are OpenClaw 2026.x releases (`8.1` is 2026.8.1).\n");
        out.push_str("\n## Fixed between two releases\n\n");
        let pairs = self.fixed_pairs();
        if pairs.is_empty() {
            out.push_str("None among the adopted releases.\n");
        }
        for (number, red, green) in pairs {
            let _ = writeln!(out, "- #{number}: red on {red}, green on {green}");
        }
        out.push_str("\n## The issues\n\n");
        for issue in &self.issues {
            let replay = match (&issue.scenario, &issue.not_applicable) {
                (Some(s), _) => format!(
                    "replayed by `{s}` ({} on {})",
                    issue.claim.as_deref().unwrap_or("-"),
                    issue.lanes.join(", ")
                ),
                (None, Some(why)) => format!("not applicable: {why}"),
                (None, None) => "not replayed".to_string(),
            };
            let elsewhere: String = issue
                .not_applicable_on
                .iter()
                .map(|(version, why)| format!(" Not applicable on {version}: {why}."))
                .collect();
            let _ = writeln!(
                out,
                "- **#{}**: {}. Fix: {}. {}.{elsewhere}",
                issue.number, issue.saw, issue.fix, replay
            );
        }
        out
    }
}

/// The page's opening, before the table.
const HEADER: &str = "# Upstream regressions, replayed on every adopted release

Generated by `toolsearch-qa regressions` from `data/upstream-regressions.toml`, the accepted
findings in `expectations/` and the snapshots in `snapshots/openclaw-<v>/`; do not edit by hand
(a test holds this page to the command's output). Each issue of openclaw/openclaw below is a
built-in `upstream-*` scenario and the claim that judges it (docs/scenarios.md). `red`: the
release has the bug (an accepted finding whose reason cites the issue and the release's dist/
file where it was verified); `green`: the scenario ran there and the claim held; `-`: not run
there; `n/a`: no scenario can replay it, or the bug cannot arise on that release (why is below).

";

/// `toolsearch-qa regressions`: prints the page, or with `changes` the releases at either end of
/// a colour change, one per line (what `.ci/run` replays the upstream scenarios on).
pub fn command(root: &Path, changes: bool, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let table = Table::read(root)?;
    let text = if changes {
        table
            .change_releases()
            .iter()
            .map(|r| format!("{r}\n"))
            .collect()
    } else {
        table.to_markdown()
    };
    crate::output::emit(out, &text)?;
    Ok(crate::error::Exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_page_is_the_commands_output() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let table = Table::read(root).unwrap();
        let page = std::fs::read_to_string(root.join("docs/regressions.md")).unwrap();
        assert_eq!(
            page,
            table.to_markdown(),
            "run `toolsearch-qa regressions > docs/regressions.md`"
        );
    }

    #[test]
    fn changes_are_the_releases_on_either_side_of_a_colour_change() {
        let issue = |number| Issue {
            number,
            saw: String::new(),
            fix: String::new(),
            scenario: None,
            claim: None,
            lanes: Vec::new(),
            checks: Vec::new(),
            not_applicable: None,
            not_applicable_on: Default::default(),
        };
        let table = Table {
            issues: vec![issue(1), issue(2)],
            releases: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
            cells: vec![
                // red on a and b, not run on c, green on d and e: the change is b → d.
                vec![Cell::Red, Cell::Red, Cell::NotRun, Cell::Green, Cell::Green],
                // the same everywhere: no change.
                vec![Cell::Red; 5],
            ],
        };
        assert_eq!(table.change_releases(), ["b", "d"]);
        let steady = Table {
            cells: vec![vec![Cell::Green; 5], vec![Cell::Red; 5]],
            ..table
        };
        assert_eq!(steady.change_releases(), Vec::<String>::new());
    }

    /// A release the bug cannot arise on is n/a in that column only (#126460 on 2026.5.12,
    /// which has no direct-only tools), and the page says why.
    #[test]
    fn a_release_the_bug_cannot_arise_on_is_not_applicable_there_only() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let table = Table::read(root).unwrap();
        let row = table
            .issues
            .iter()
            .position(|i| i.number == 126460)
            .unwrap();
        let at = |version: &str| {
            let column = table.releases.iter().position(|r| r == version).unwrap();
            table.cells[row][column]
        };
        assert_eq!(at("2026.5.12"), Cell::NotApplicable);
        assert_eq!(at("2026.8.1"), Cell::Red);
        assert!(table
            .to_markdown()
            .contains("Not applicable on 2026.5.12: 2026.5.12 has no direct-only tools"));
    }

    #[test]
    fn every_replayed_issue_names_a_built_in_scenario_and_claim() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let table = Table::read(root).unwrap();
        let scenarios = crate::scenario::load_all(&[]).unwrap();
        for issue in &table.issues {
            match (&issue.scenario, &issue.not_applicable) {
                (Some(id), None) => {
                    let s = scenarios
                        .iter()
                        .find(|s| &s.id == id)
                        .expect("a built-in scenario");
                    assert!(s.lanes.iter().all(|l| !l.name.is_empty()));
                    for lane in &issue.lanes {
                        assert!(
                            s.lanes.iter().any(|l| &l.name == lane),
                            "{id} has lane {lane}"
                        );
                    }
                    let claim = issue.claim.as_deref().unwrap_or("");
                    assert!(
                        crate::scenario::claim::ClaimId::from_name(claim).is_some(),
                        "{claim}"
                    );
                }
                (None, Some(_)) => {}
                _ => panic!("#{} needs a scenario or a reason it has none", issue.number),
            }
        }
        let numbers: std::collections::BTreeSet<u32> =
            table.issues.iter().map(|i| i.number).collect();
        assert_eq!(numbers.len(), table.issues.len(), "an issue listed twice");
    }
}
