//! `regressions`: would the gate have caught the bugs OpenClaw shipped? One table, upstream issue
//! × adopted release, built only from committed data: the issues and the scenarios replaying them
//! (`data/upstream-regressions.toml`), each release's run record (`data/releases/openclaw-<v>.run.json`,
//! the verdicts of its recorded run) and accepted findings (`expectations/openclaw-<v>.toml`).
//! docs/regressions.md is this command's output (a test holds them equal), so the table is never
//! typed by hand, and no cell is coloured without a recorded run behind it.
//!
//! A cell reads the record's verdicts of the issue's claim on the issue's lanes (lanes the record
//! says are not applicable left out): `red` when the claim failed and the accepted finding on that
//! lane cites the issue (`openclaw/openclaw#N`); `green` when every lane ran and the claim held on
//! each; `other` when the claim failed only for accepted findings that are not the bug (outside
//! the issue's `checks`); `-` when a lane has no verdict; `n/a` when no scenario can replay the
//! issue, the bug cannot arise on the release, or the release lacks the lanes' mode. A `*` marks a
//! cell with other accepted findings on the same lanes, named below the table. A record and the
//! findings that disagree (a finding citing the issue on a claim that held, a failure no finding
//! covers) are an error, not a colour.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use crate::error::Error;
use crate::outcome::findings::{AcceptedFinding, Expectations};
use crate::outcome::record::RunRecord;
use crate::scenario::Scenario;
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
    /// The claim's checks that are the bug (empty: every check). A failure of another check of
    /// the claim is another deviation: the cell is then `other`, never `green`.
    #[serde(default)]
    pub checks: Vec<String>,
    /// Why no scenario replays it.
    #[serde(default)]
    pub not_applicable: Option<String>,
    /// Releases the bug cannot arise on, each with why (`"2026.5.12" = "…"`): the cell is n/a
    /// there, whatever the release's findings on the scenario say.
    #[serde(default)]
    pub not_applicable_on: BTreeMap<Version, String>,
    /// Releases where the bug can arise but the replay, as written, cannot show it (each with
    /// why): a claim that holds there is `blind`, never `green`.
    #[serde(default)]
    pub blind_on: BTreeMap<Version, String>,
}

impl Issue {
    fn cite(&self) -> String {
        format!("openclaw/openclaw#{}", self.number)
    }

    fn is_bug_check(&self, check: &str) -> bool {
        self.checks.is_empty() || self.checks.iter().any(|c| c == check)
    }
}

/// What a recorded run says of an issue on one release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Colour {
    /// The bug is in the release: the claim failed, accepted with a reason citing the issue.
    Red,
    /// Every lane the issue names ran and the claim held on each.
    Green,
    /// The claim failed, but only on checks that are not the bug (another accepted finding).
    Other,
}

/// One cell of the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// A recorded verdict; `noted`: other accepted findings sit on the same lanes (named below
    /// the table).
    Ran { colour: Colour, noted: bool },
    /// A lane the issue names has no verdict in the release's record.
    NotRun,
    /// No scenario can replay the issue, the bug cannot arise on the release, or the release
    /// lacks the mode of every lane the issue names.
    NotApplicable,
    /// The claim held, but the replay cannot show the bug on this release (`blind_on`).
    Blind,
}

impl Cell {
    fn label(self) -> String {
        match self {
            Cell::Ran { colour, noted } => {
                let base = match colour {
                    Colour::Red => "red",
                    Colour::Green => "green",
                    Colour::Other => "other",
                };
                format!("{base}{}", if noted { "*" } else { "" })
            }
            Cell::NotRun => "-".to_string(),
            Cell::NotApplicable => "n/a".to_string(),
            Cell::Blind => "blind".to_string(),
        }
    }

    fn colour(self) -> Option<Colour> {
        match self {
            Cell::Ran { colour, .. } => Some(colour),
            _ => None,
        }
    }
}

/// One adopted release: its version, its recorded run and the findings that apply to the Node
/// major it ran on.
struct ReleaseData {
    version: Version,
    record: RunRecord,
    findings: Vec<AcceptedFinding>,
}

/// A step between two consecutive releases an issue's scenario ran on: `(issue index, (earlier
/// release index, its colour), (later release index, its colour))`.
type Step = (usize, (usize, Colour), (usize, Colour));

/// The table: issues in file order, releases oldest first.
pub struct Table {
    pub issues: Vec<Issue>,
    pub releases: Vec<String>,
    /// `cells[i][r]`: issue `i` on release `r`.
    pub cells: Vec<Vec<Cell>>,
    /// What a `*` or an n/a from the record means: `(issue, release, text)`, in table order.
    pub notes: Vec<(u32, String, String)>,
    /// The accepted findings behind the red cells.
    pub red: Vec<RedFinding>,
}

fn read(path: &Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
}

fn parse<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, Error> {
    toml::from_str(&read(path)?).map_err(|e| Error::Usage(format!("{}: {e}", path.display())))
}

/// Every release with an expectations file under `root`, oldest first, with its run record.
fn releases(root: &Path, scenarios: &[Scenario]) -> Result<Vec<ReleaseData>, Error> {
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
        let record = RunRecord::read(root, &version.to_string())?;
        let node = record.node_major();
        let findings = Expectations::read(&entry.path(), scenarios)?
            .findings
            .into_iter()
            .filter(|f| f.applies_to_node(node))
            .collect();
        found.push(ReleaseData {
            version,
            record,
            findings,
        });
    }
    found.sort_by(|a, b| a.version.cmp(&b.version));
    Ok(found)
}

/// A cell, what it needs said below the table, and the lines of the findings behind a red one.
struct Judged {
    cell: Cell,
    note: Option<String>,
    red_lines: Vec<usize>,
}

impl Judged {
    fn plain(cell: Cell) -> Judged {
        Judged {
            cell,
            note: None,
            red_lines: Vec::new(),
        }
    }
}

/// An accepted finding behind a red cell: `check-reasons` holds its reason to naming the file
/// of the release's dist/ where the behaviour was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RedFinding {
    pub issue: u32,
    pub release: String,
    /// The finding's first line in `expectations/openclaw-<release>.toml`.
    pub line: usize,
}

fn expectations_file(release: &ReleaseData) -> String {
    format!("expectations/openclaw-{}.toml", release.version)
}

fn cell(issue: &Issue, release: &ReleaseData) -> Result<Judged, Error> {
    let (Some(scenario), Some(claim)) = (&issue.scenario, &issue.claim) else {
        return Ok(Judged::plain(Cell::NotApplicable));
    };
    if issue.not_applicable_on.contains_key(&release.version) {
        return Ok(Judged::plain(Cell::NotApplicable));
    }
    let record = &release.record;
    let skipped = |lane: &str| {
        record
            .not_applicable
            .iter()
            .find(|s| &s.scenario == scenario && s.lane == lane)
    };
    let lanes: Vec<&String> = issue
        .lanes
        .iter()
        .filter(|l| skipped(l).is_none())
        .collect();
    if lanes.is_empty() {
        let why = issue.lanes.first().and_then(|l| skipped(l));
        return Ok(Judged {
            note: why.map(|s| format!("not applicable ({}): {}", s.lane, s.reason)),
            ..Judged::plain(Cell::NotApplicable)
        });
    }
    let mut failed_on = Vec::new();
    for lane in &lanes {
        let verdict = record
            .verdicts
            .iter()
            .find(|v| &v.scenario == scenario && &v.lane == *lane && &v.claim == claim);
        match verdict {
            None => return Ok(Judged::plain(Cell::NotRun)),
            Some(v) if !v.ok => failed_on.push(lane.as_str()),
            Some(_) => {}
        }
    }
    let cite = issue.cite();
    let on_lanes: Vec<&AcceptedFinding> = release
        .findings
        .iter()
        .filter(|f| &f.scenario == scenario && lanes.contains(&&f.lane))
        .collect();
    let is_bug = |f: &AcceptedFinding| f.claim.as_str() == claim && issue.is_bug_check(&f.check);
    for f in on_lanes.iter().filter(|f| is_bug(f)) {
        if !f.reason.contains(&cite) {
            return Err(Error::Usage(format!(
                "{}:{}: the finding on {scenario} lane {} claim {claim} check {:?} replays {cite} \
                 but its reason does not cite it",
                expectations_file(release),
                f.line,
                f.lane,
                f.check
            )));
        }
        if !failed_on.contains(&f.lane.as_str()) {
            return Err(Error::Usage(format!(
                "{}:{}: {cite}'s finding on {scenario} lane {} claim {claim} is accepted, but \
                 the release's run record ({}) has that claim holding: run the release again",
                expectations_file(release),
                f.line,
                f.lane,
                RunRecord::path(Path::new(""), &release.version.to_string()).display()
            )));
        }
    }
    for lane in &failed_on {
        if !on_lanes
            .iter()
            .any(|f| f.lane == *lane && f.claim.as_str() == claim)
        {
            return Err(Error::Usage(format!(
                "data/releases/openclaw-{}.run.json: {scenario} lane {lane} claim {claim} failed, \
                 and no accepted finding in {} covers it",
                release.version,
                expectations_file(release)
            )));
        }
    }
    let colour = if on_lanes.iter().any(|f| is_bug(f)) {
        Colour::Red
    } else if failed_on.is_empty() {
        Colour::Green
    } else {
        Colour::Other
    };
    let others: Vec<String> = on_lanes
        .iter()
        .filter(|f| !is_bug(f))
        .map(|f| {
            format!(
                "{} {} `{}` ({}:{})",
                f.lane,
                f.claim.as_str(),
                f.check,
                expectations_file(release),
                f.line
            )
        })
        .collect();
    if colour == Colour::Green {
        if let Some(why) = issue.blind_on.get(&release.version) {
            return Ok(Judged {
                note: Some(format!(
                    "the claim held, but the replay cannot show the bug here: {why}"
                )),
                ..Judged::plain(Cell::Blind)
            });
        }
    }
    Ok(Judged {
        cell: Cell::Ran {
            colour,
            noted: !others.is_empty(),
        },
        note: (!others.is_empty()).then(|| format!("also accepted there: {}", others.join("; "))),
        red_lines: on_lanes
            .iter()
            .filter(|f| is_bug(f))
            .map(|f| f.line)
            .collect(),
    })
}

impl Table {
    /// The table from the committed data under `root`.
    pub fn read(root: &Path) -> Result<Table, Error> {
        let file: IssueFile = parse(&root.join(ISSUES_FILE))?;
        let scenarios = crate::scenario::load_all(&[])?;
        let releases = releases(root, &scenarios)?;
        for issue in &file.issue {
            let named = [
                ("not_applicable_on", &issue.not_applicable_on),
                ("blind_on", &issue.blind_on),
            ];
            for (field, versions) in named {
                for version in versions.keys() {
                    if !releases.iter().any(|r| &r.version == version) {
                        return Err(Error::Usage(format!(
                            "{}: #{}: {field} names {version}, which is not an adopted release",
                            root.join(ISSUES_FILE).display(),
                            issue.number
                        )));
                    }
                }
            }
        }
        let mut cells = Vec::new();
        let mut notes = Vec::new();
        let mut red = Vec::new();
        for issue in &file.issue {
            let mut row = Vec::new();
            for release in &releases {
                let judged = cell(issue, release)?;
                if let Some(note) = judged.note {
                    notes.push((issue.number, release.version.to_string(), note));
                }
                red.extend(judged.red_lines.into_iter().map(|line| RedFinding {
                    issue: issue.number,
                    release: release.version.to_string(),
                    line,
                }));
                row.push(judged.cell);
            }
            cells.push(row);
        }
        Ok(Table {
            issues: file.issue,
            releases: releases.iter().map(|r| r.version.to_string()).collect(),
            cells,
            notes,
            red,
        })
    }

    /// Each step between consecutive releases an issue's scenario ran on (red or green).
    fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        for (i, row) in self.cells.iter().enumerate() {
            let ran: Vec<(usize, Colour)> = row
                .iter()
                .enumerate()
                .filter_map(|(r, c)| c.colour().map(|colour| (r, colour)))
                .collect();
            steps.extend(ran.windows(2).map(|w| (i, w[0], w[1])));
        }
        steps
    }

    /// Every step from red to a colour without the bug (green, or other) between consecutive
    /// releases the scenario ran on: `(issue, red release, fixed release)`.
    pub fn fixed_pairs(&self) -> Vec<(u32, String, String)> {
        self.steps()
            .into_iter()
            .filter(|(_, (_, x), (_, y))| *x == Colour::Red && *y != Colour::Red)
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

    /// The colour (without its mark) of issue `number` on `release`, as the page names it.
    fn colour_on(&self, number: u32, release: &str) -> String {
        let i = self.issues.iter().position(|x| x.number == number);
        let r = self.releases.iter().position(|x| x == release);
        match (i, r) {
            (Some(i), Some(r)) => self.cells[i][r].label().trim_end_matches('*').to_string(),
            _ => "-".to_string(),
        }
    }

    /// One table of the page: the releases `columns` of [`Self::releases`], every issue a row.
    fn write_table(&self, out: &mut String, columns: std::ops::Range<usize>, blank_before: bool) {
        if blank_before {
            out.push('\n');
        }
        let short: Vec<String> = self.releases[columns.clone()]
            .iter()
            .map(|v| v.trim_start_matches("2026.").to_string())
            .collect();
        let _ = writeln!(out, "| issue | claim | {} |", short.join(" | "));
        let _ = writeln!(out, "|---|---|{}", "---|".repeat(short.len()));
        for (issue, row) in self.issues.iter().zip(&self.cells) {
            let cells: Vec<String> = row[columns.clone()].iter().map(|c| c.label()).collect();
            let _ = writeln!(
                out,
                "| #{} | {} | {} |",
                issue.number,
                issue.claim.as_deref().unwrap_or("-"),
                cells.join(" | ")
            );
        }
    }

    /// The page: docs/regressions.md as committed.
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        out.push_str(HEADER);
        // A table of every release would be wider than a terminal or a reader's screen: the
        // releases go in tables of at most COLUMNS, oldest first, each with its rows.
        let tables = self.releases.len().div_ceil(COLUMNS).max(1);
        let per_table = self.releases.len().div_ceil(tables).max(1);
        for (t, first) in (0..self.releases.len().max(1))
            .step_by(per_table)
            .enumerate()
        {
            let last = (first + per_table).min(self.releases.len());
            self.write_table(&mut out, first..last, t > 0);
        }
        out.push_str("\nColumns are OpenClaw 2026.x releases (`8.1` is 2026.8.1).\n");
        if !self.notes.is_empty() {
            out.push_str("\n## Notes on cells\n\n");
        }
        for (number, release, note) in &self.notes {
            let _ = writeln!(out, "- #{number} on {release}: {note}");
        }
        out.push_str("\n## Fixed between two releases\n\n");
        let pairs = self.fixed_pairs();
        if pairs.is_empty() {
            out.push_str("None among the adopted releases.\n");
        }
        for (number, red, fixed) in pairs {
            let colour = self.colour_on(number, &fixed);
            let _ = writeln!(out, "- #{number}: red on {red}, {colour} on {fixed}");
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
            // One line a release, oldest first: a reason each (its own dist/ file).
            let elsewhere: String =
                issue
                    .not_applicable_on
                    .iter()
                    .map(|(version, why)| format!("\n  - not applicable on {version}: {why}"))
                    .chain(issue.blind_on.iter().map(|(version, why)| {
                        format!("\n  - its replay is blind on {version}: {why}")
                    }))
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

/// At most this many releases in one table of the page (its width, about 100 characters).
const COLUMNS: usize = 11;

/// The page's opening, before the tables.
const HEADER: &str = "# Upstream regressions on the adopted releases

Generated by `toolsearch-qa regressions` from `data/upstream-regressions.toml`, each adopted
release's run record (`data/releases/openclaw-<v>.run.json`: the verdicts of its recorded run) and
its accepted findings (`expectations/openclaw-<v>.toml`); do not edit by hand (a test holds this
page to the command's output). Each issue of openclaw/openclaw below is a built-in `upstream-*`
scenario and the claim that judges it, on the lanes named below (docs/scenarios.md). A cell is
the recorded verdict of that claim on those lanes:

- `red`: the claim failed, and the accepted finding's reason cites the issue and the file of that
  release's dist/ where the behaviour was seen;
- `green`: every lane ran and every check of the claim held;
- `other`: the claim failed, but only on a check that is not this bug (an accepted finding, named
  under \"Notes on cells\");
- `-`: a lane has no recorded verdict (not run on that release);
- `n/a`: no scenario can replay the issue, the bug cannot arise on that release, or the release
  lacks the lanes' mode (why is below);
- `blind`: every check of the claim held, but the replay as written cannot show the bug on that
  release (why is below: never counted as `green`);
- `*`: other accepted findings sit on the same lanes (named under \"Notes on cells\").

";

/// `toolsearch-qa regressions`: prints the page, or with `changes` the releases at either end of
/// a colour change, one per line (where to replay the upstream scenarios first after a change).
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
    fn the_releases_go_in_tables_of_at_most_eleven_columns_each_in_order() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let table = Table::read(root).unwrap();
        let page = table.to_markdown();
        let headers: Vec<Vec<&str>> = page
            .lines()
            .filter(|l| l.starts_with("| issue | claim | "))
            .map(|l| {
                l.trim_matches('|')
                    .split(" | ")
                    .skip(2)
                    .map(str::trim)
                    .collect()
            })
            .collect();
        assert_eq!(headers.len(), table.releases.len().div_ceil(COLUMNS));
        assert!(headers.iter().all(|h| h.len() <= COLUMNS), "{headers:?}");
        let columns: Vec<String> = headers
            .concat()
            .iter()
            .map(|c| format!("2026.{c}"))
            .collect();
        assert_eq!(columns, table.releases);
        // Each table has every issue's row.
        let rows = page.lines().filter(|l| l.starts_with("| #")).count();
        assert_eq!(rows, headers.len() * table.issues.len());
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
            blind_on: Default::default(),
        };
        const RED: Cell = Cell::Ran {
            colour: Colour::Red,
            noted: false,
        };
        const GREEN: Cell = Cell::Ran {
            colour: Colour::Green,
            noted: true,
        };
        let table = Table {
            notes: Vec::new(),
            red: Vec::new(),
            issues: vec![issue(1), issue(2)],
            releases: ["a", "b", "c", "d", "e"].map(String::from).to_vec(),
            cells: vec![
                // red on a and b, not run on c, green on d and e: the change is b → d.
                vec![RED, RED, Cell::NotRun, GREEN, GREEN],
                // the same everywhere: no change.
                vec![RED; 5],
            ],
        };
        assert_eq!(table.change_releases(), ["b", "d"]);
        let steady = Table {
            cells: vec![vec![GREEN; 5], vec![RED; 5]],
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
        assert_eq!(at("2026.8.1").colour(), Some(Colour::Red));
        assert!(table
            .to_markdown()
            .contains("  - not applicable on 2026.5.12: 2026.5.12 has no direct-only tools"));
    }

    /// A copy of the committed data of 2026.5.12 and 2026.9.6, 9.6's run record changed by `edit`.
    fn table_with_record(edit: impl Fn(&mut RunRecord)) -> Result<Table, Error> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = tempfile::tempdir().unwrap();
        for sub in ["data/releases", "expectations"] {
            std::fs::create_dir_all(dir.path().join(sub)).unwrap();
        }
        // Every adopted release's record and findings (the issues file's not_applicable_on and
        // blind_on name some), then 2026.9.6's record, which the test edits.
        std::fs::copy(root.join(ISSUES_FILE), dir.path().join(ISSUES_FILE)).unwrap();
        for entry in std::fs::read_dir(root.join("expectations")).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let Some(version) = name
                .strip_prefix("openclaw-")
                .and_then(|n| n.strip_suffix(".toml"))
            else {
                continue;
            };
            let record = format!("data/releases/openclaw-{version}.run.json");
            if version == "2026.9.6" || !root.join(&record).is_file() {
                continue;
            }
            for file in [format!("expectations/{name}"), record] {
                std::fs::copy(root.join(&file), dir.path().join(&file)).unwrap();
            }
        }
        std::fs::copy(
            root.join("expectations/openclaw-2026.9.6.toml"),
            dir.path().join("expectations/openclaw-2026.9.6.toml"),
        )
        .unwrap();
        let mut record = RunRecord::read(root, "2026.9.6").unwrap();
        edit(&mut record);
        record
            .write(&RunRecord::path(dir.path(), "2026.9.6"))
            .unwrap();
        Table::read(dir.path())
    }

    fn verdict<'a>(
        record: &'a mut RunRecord,
        scenario: &str,
        lane: &str,
        claim: &str,
    ) -> &'a mut crate::outcome::record::VerdictRecord {
        record
            .verdicts
            .iter_mut()
            .find(|v| v.scenario == scenario && v.lane == lane && v.claim == claim)
            .unwrap()
    }

    /// The page follows the recorded verdicts: a verdict gone is `-`, and a record that disagrees
    /// with the accepted findings (a failure nothing covers, a bug accepted on a claim that held)
    /// is an error naming the file, never a colour.
    #[test]
    fn cells_follow_the_run_record_and_a_disagreeing_record_is_an_error() {
        let row = |table: &Table, number: u32| {
            let i = table
                .issues
                .iter()
                .position(|i| i.number == number)
                .unwrap();
            *table.cells[i].last().unwrap()
        };
        let table = table_with_record(|_| {}).unwrap();
        assert_eq!(
            row(&table, 114285),
            Cell::Ran {
                colour: Colour::Green,
                noted: false
            }
        );
        assert_eq!(row(&table, 141743).colour(), Some(Colour::Red));

        let table = table_with_record(|r| {
            r.verdicts
                .retain(|v| !(v.scenario == "upstream-search-no-match" && v.lane == "directory"))
        })
        .unwrap();
        assert_eq!(row(&table, 114285), Cell::NotRun);

        let err = table_with_record(|r| {
            verdict(r, "upstream-search-no-match", "tools", "S1").ok = false;
        })
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("openclaw-2026.9.6.run.json: upstream-search-no-match lane tools claim S1 failed, and no accepted finding"),
            "{err}"
        );

        let err = table_with_record(|r| {
            verdict(r, "upstream-unknown-id-repeated", "tools", "K2").ok = true;
        })
        .err()
        .unwrap()
        .to_string();
        assert!(
            err.contains("openclaw/openclaw#141743's finding on upstream-unknown-id-repeated lane tools claim K2 is accepted, but"),
            "{err}"
        );
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
