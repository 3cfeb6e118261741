//! Snapshots of what reached the provider and what the session log says, per scenario lane.
//!
//! Files live in the top-level `snapshots/` folder in insta's `.snap` format, so `cargo test`
//! (through insta) and `toolsearch-qa suite` compare against the same files, and
//! `cargo insta review` accepts the `.snap.new` files either of them writes.
//! Only ports, temp paths, timestamps and random ids are redacted; every other byte is kept.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Value};
use similar::TextDiff;

use super::outline;
use crate::drive::observation::LaneObservation;
use crate::outcome::evidence::evidence;
use crate::outcome::{ScenarioReport, SnapshotState, SnapshotStatus, SuiteReport};
use crate::targets::Redaction;

/// How a target's lane is snapshotted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotStyle {
    /// Every byte as sent and written (the embedded gateway: ours, deterministic).
    AsWritten,
    /// An outline that keeps what a product change shows in — tool names and order, declared
    /// schemas, prompt section headings and sizes, the transcript's event kinds and what they
    /// say in session records — without the product's prose (a real OpenClaw).
    Outline,
}

/// The two snapshots of a lane: `(name, content)`: the provider payloads of the turn and the
/// session log. `extra` redactions (the target's) are applied before the common ones.
pub fn lane_snapshots(
    scenario: &str,
    observation: &LaneObservation,
    style: SnapshotStyle,
    extra: &[Redaction],
) -> Vec<(String, String)> {
    let redactor = Redactor::new(extra);
    let (provider, session) = match style {
        SnapshotStyle::AsWritten => {
            let requests: Vec<Value> = observation.all_requests().map(|r| r.body.clone()).collect();
            (
                Value::Array(requests),
                Value::Array(observation.session.raw.clone()),
            )
        }
        // Sizes in the outline are counted after redaction, so they do not depend on the
        // machine's paths or versions.
        SnapshotStyle::Outline => (
            Value::Array(
                observation
                    .all_requests()
                    .map(|r| outline::request(&redactor.apply_json(&r.body)))
                    .collect(),
            ),
            outline::session(&observation.session),
        ),
    };
    let mut snapshots = vec![
        (
            format!("{scenario}__{}__provider", observation.lane),
            redactor.apply(&pretty(&provider)),
        ),
        (
            format!("{scenario}__{}__session", observation.lane),
            redactor.apply(&pretty(&session)),
        ),
    ];
    if let Some(views) = views(observation, style) {
        snapshots.push((
            format!("{scenario}__{}__views", observation.lane),
            redactor.apply(&pretty(&views)),
        ));
    }
    snapshots
}

/// The lane's non-model views, when it collected any (I1's invoke batch, E1's effective
/// tools): what was sent and answered. The product's effective tools keep only each tool's
/// name, source and plugin (its labels and descriptions are its prose).
fn views(observation: &LaneObservation, style: SnapshotStyle) -> Option<Value> {
    if observation.invoke.is_none() && observation.effective.is_none() {
        return None;
    }
    let mut views = serde_json::Map::new();
    if let Some(invoked) = &observation.invoke {
        let answer = match &invoked.answer {
            Ok(answer) => json!(answer),
            Err(error) => json!({ "harnessError": error }),
        };
        views.insert(
            "invoke".into(),
            json!({ "request": invoked.request, "status": invoked.status, "answer": answer }),
        );
    }
    if let Some(effective) = &observation.effective {
        let value = match (effective, style) {
            (Err(error), _) => json!({ "harnessError": error }),
            (Ok(tools), SnapshotStyle::AsWritten) => json!(tools),
            (Ok(tools), SnapshotStyle::Outline) => outline::effective(tools),
        };
        views.insert("effective".into(), value);
    }
    Some(Value::Object(views))
}

/// The target's redactions compiled, then the common ones.
struct Redactor {
    extra: Vec<(Regex, String)>,
}

impl Redactor {
    fn new(extra: &[Redaction]) -> Redactor {
        Redactor {
            extra: extra
                .iter()
                .filter_map(|(p, r)| Regex::new(p).ok().map(|re| (re, r.clone())))
                .collect(),
        }
    }

    /// A JSON value with every string (and key) redacted, one by one: numbers and structure
    /// stay as they are. (Redacting the JSON text whole could turn a number into text such as
    /// `[epoch-ms]` and leave no JSON to read; then nothing was redacted, and the outline's
    /// sizes counted the machine's kernel, paths and ids.)
    fn apply_json(&self, value: &Value) -> Value {
        match value {
            Value::String(text) => Value::String(self.apply(text)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.apply_json(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.apply(k), self.apply_json(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    fn apply(&self, text: &str) -> String {
        let text = self.extra.iter().fold(text.to_string(), |acc, (re, with)| {
            re.replace_all(&acc, with.as_str()).into_owned()
        });
        redact(&text)
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

fn patterns() -> &'static [(Regex, &'static str)] {
    static PATTERNS: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    PATTERNS.get_or_init(|| patterns_for(&std::env::temp_dir()))
}

/// The temp roots a snapshot may hold a path below: this machine's (`TMPDIR`, whatever it is)
/// and `/tmp`, which the committed product profile and the product's own fixed paths carry
/// whatever `TMPDIR` says — so a run under another `TMPDIR` redacts to the same text.
fn temp_roots(temp: &Path) -> Vec<String> {
    let mut roots = vec![temp.to_string_lossy().trim_end_matches('/').to_string()];
    if !roots.contains(&"/tmp".to_string()) {
        roots.push("/tmp".to_string());
    }
    // The longer root first, so `/tmp/x/lane` is redacted whole, not as `[tmp]/lane`.
    roots.sort_by_key(|r| std::cmp::Reverse(r.len()));
    roots.retain(|r| !r.is_empty());
    roots
}

fn patterns_for(temp: &Path) -> Vec<(Regex, &'static str)> {
    let temps = temp_roots(temp)
        .iter()
        .map(|root| regex::escape(root))
        .collect::<Vec<_>>()
        .join("|");
    [
        (r#""ts": \d+"#.to_string(), r#""ts": "[ts]""#),
        (
            r#""(created_at|createdAt|timestamp)": \d+"#.to_string(),
            r#""$1": "[ts]""#,
        ),
        (
            r"(127\.0\.0\.1|localhost|\[::1\]):\d+".to_string(),
            "$1:[port]",
        ),
        (format!(r"(?:{temps})/[A-Za-z0-9._-]+"), "[tmp]"),
        (
            r"\b(resp|msg|fc|call|srvtoolu|toolu|tsc|tso)_[0-9a-f]{16,}\b".to_string(),
            "${1}_[id]",
        ),
    ]
    .into_iter()
    .filter_map(|(p, r)| Regex::new(&p).ok().map(|re| (re, r)))
    .collect()
}

/// Redacts ports, temp paths, timestamps and random (long hex) ids.
pub fn redact(text: &str) -> String {
    patterns().iter().fold(text.to_string(), |acc, (re, with)| {
        re.replace_all(&acc, *with).into_owned()
    })
}

/// The outcome of comparing one snapshot with its committed file.
#[derive(Debug, Clone, PartialEq)]
pub enum SnapshotCheck {
    Same,
    Missing { path: PathBuf },
    Changed { path: PathBuf, diff: String },
}

/// `<dir>/<name>.snap`
pub fn snapshot_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.snap"))
}

/// The content of an insta `.snap` file (what follows the `---` header).
pub fn read_snapshot(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let body = text.strip_prefix("---\n")?;
    let end = body.find("\n---\n")?;
    Some(body[end + 5..].trim_end().to_string())
}

/// Compares `content` with the committed snapshot `name` in `dir`.
pub fn compare(dir: &Path, name: &str, content: &str) -> SnapshotCheck {
    let path = snapshot_path(dir, name);
    match read_snapshot(&path) {
        None => SnapshotCheck::Missing { path },
        Some(old) if old == content.trim_end() => SnapshotCheck::Same,
        Some(old) => {
            let (old, new) = (format!("{old}\n"), format!("{}\n", content.trim_end()));
            let committed = format!("{} (committed)", path.display());
            let diff = unified_diff(&old, &new, &committed, "this run");
            SnapshotCheck::Changed { path, diff }
        }
    }
}

/// A line at least this long that changed is shown around where it differs, not whole.
const LONG_LINE: usize = 160;
/// Characters shown either side of the span where a long line differs.
const AROUND: usize = 40;
/// The most of a differing span shown.
const SPAN: usize = 240;

/// `old` → `new` as a unified diff (3 lines of context) headed by the two labels. A long line
/// that changed into one other line (a JSON string of a snapshot, ~1,500 characters) is shown
/// around the span where the two differ, with where that span is, instead of as two whole lines
/// to compare by eye.
pub fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    use similar::ChangeTag;
    let diff = TextDiff::from_lines(old, new);
    let mut out = format!("--- {old_label}\n+++ {new_label}\n");
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        out.push_str(&format!("{}\n", hunk.header()));
        let changes: Vec<(ChangeTag, String)> = hunk
            .iter_changes()
            .map(|c| (c.tag(), c.value().trim_end_matches('\n').to_string()))
            .collect();
        let mut i = 0;
        while i < changes.len() {
            let (tag, line) = &changes[i];
            let next = changes.get(i + 1);
            let pair = match (tag, next) {
                (ChangeTag::Delete, Some((ChangeTag::Insert, new_line)))
                    if changes
                        .get(i + 2)
                        .is_none_or(|(t, _)| *t != ChangeTag::Insert)
                        && (i == 0 || changes[i - 1].0 != ChangeTag::Delete)
                        && line.chars().count().max(new_line.chars().count()) >= LONG_LINE =>
                {
                    Some(new_line)
                }
                _ => None,
            };
            match pair {
                Some(new_line) => {
                    out.push_str(&span_pair(line, new_line));
                    i += 2;
                }
                None => {
                    let sign = match tag {
                        ChangeTag::Delete => '-',
                        ChangeTag::Insert => '+',
                        ChangeTag::Equal => ' ',
                    };
                    out.push_str(&format!("{sign}{line}\n"));
                    i += 1;
                }
            }
        }
    }
    out
}

/// A long line that changed: both versions around the span where they differ (the common
/// start and end left out, `…` where they are), and a line saying where the span is.
fn span_pair(old: &str, new: &str) -> String {
    let (old, new): (Vec<char>, Vec<char>) = (old.chars().collect(), new.chars().collect());
    let start = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let room = old.len().min(new.len()) - start;
    let end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(room)
        .take_while(|(a, b)| a == b)
        .count();
    let window = |line: &[char]| {
        let from = start.saturating_sub(AROUND);
        let to = (line.len() - end + AROUND).min(line.len());
        let differs: String = line[start..line.len() - end].iter().collect();
        let differs = crate::output::cut(&differs, SPAN);
        let before: String = line[from..start].iter().collect();
        let after: String = line[line.len() - end..to].iter().collect();
        let open = if from > 0 { "…" } else { "" };
        let close = if to < line.len() { "…" } else { "" };
        format!("{open}{before}{differs}{after}{close}")
    };
    let at = |line: &[char]| {
        format!(
            "characters {}–{} of {}",
            crate::output::thousands(start + 1),
            crate::output::thousands(line.len() - end),
            crate::output::thousands(line.len())
        )
    };
    format!(
        "-{}\n+{}\n@ the line differs at {} (-) / {} (+); the rest of it is the same\n",
        window(&old),
        window(&new),
        at(&old),
        at(&new)
    )
}

/// Writes `<dir>/<name>.snap.new` for `cargo insta review`.
pub fn write_pending(dir: &Path, name: &str, content: &str) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.snap.new"));
    std::fs::write(
        &path,
        format!(
            "---\nsource: tests/it/snapshots.rs\nexpression: content\n---\n{}\n",
            content.trim_end()
        ),
    )?;
    Ok(path)
}

/// Compares every lane snapshot of `report` with `dir` and records how each came out; with
/// `update`, writes `.snap.new` files for the changed and missing ones (pending review). A
/// missing one says how to write it: `write_with`.
pub fn record(
    report: &mut ScenarioReport,
    dir: &Path,
    update: bool,
    write_with: &str,
) -> std::io::Result<()> {
    let mut statuses = Vec::new();
    for (name, content) in &report.snapshot_contents {
        let check = compare(dir, name, content);
        let pending = !matches!(check, SnapshotCheck::Same) && update;
        if pending {
            write_pending(dir, name, content)?;
        }
        let (status, diff) = match check {
            SnapshotCheck::Same => (SnapshotState::Same, None),
            SnapshotCheck::Missing { .. } if pending => (SnapshotState::Pending, None),
            SnapshotCheck::Missing { .. } => (SnapshotState::Missing, None),
            SnapshotCheck::Changed { diff, .. } if pending => (SnapshotState::Pending, Some(diff)),
            SnapshotCheck::Changed { diff, .. } => (SnapshotState::Changed, Some(diff)),
        };
        statuses.push(SnapshotStatus {
            name: name.clone(),
            status,
            // Evidence like any other: redacted and bounded (`snapshots review` shows the
            // whole change).
            diff: diff.map(|d| evidence(&d)),
            write_with: (status == SnapshotState::Missing).then(|| write_with.to_string()),
        });
    }
    report.snapshots = statuses;
    Ok(())
}

/// [`record`] for every scenario of `report`; a missing one says how to write it:
/// `update_command` followed by `--scenario <id>`.
pub fn record_all(
    report: &mut SuiteReport,
    dir: &Path,
    update: bool,
    update_command: &str,
) -> std::io::Result<()> {
    for scenario in &mut report.scenarios {
        let write_with = format!("{update_command} --scenario {}", scenario.scenario);
        record(scenario, dir, update, &write_with)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_json_value_is_redacted_string_by_string_and_keeps_its_numbers() {
        let redactor = Redactor::new(&[(r"host=[^ |]+".into(), "host=[host]".into())]);
        let body = serde_json::json!({"created": 1764440000000u64,
            "input": [{"text": "host=vm | at 127.0.0.1:40123", "n": 3}]});
        assert_eq!(
            redactor.apply_json(&body),
            serde_json::json!({"created": 1764440000000u64,
                "input": [{"text": "host=[host] | at 127.0.0.1:[port]", "n": 3}]})
        );
    }

    #[test]
    fn redacts_only_volatile_values() {
        let tmp = std::env::temp_dir().join("tsqa-lane-abc123");
        let text = format!(
            "{{\"ts\": 1764440000000, \"url\": \"http://127.0.0.1:40123/v1\", \"dir\": \"{}/state\", \"id\": \"call_0123456789abcdef01\", \"n\": 17}}",
            tmp.display()
        );
        assert_eq!(
            redact(&text),
            "{\"ts\": \"[ts]\", \"url\": \"http://127.0.0.1:[port]/v1\", \"dir\": \"[tmp]/state\", \"id\": \"call_[id]\", \"n\": 17}"
        );
        assert_eq!(
            redact("call_1 fc_2 FAKE_PLUGIN_OK"),
            "call_1 fc_2 FAKE_PLUGIN_OK"
        );
        // The native protocols' ids: Anthropic's tool uses, OpenAI's search items.
        assert_eq!(
            redact("srvtoolu_0123456789abcdef toolu_0123456789abcdef tsc_0123456789abcdef tso_0123456789abcdef"),
            "srvtoolu_[id] toolu_[id] tsc_[id] tso_[id]"
        );
    }

    /// Under another `TMPDIR` the same paths redact to the same text: the machine's temp root
    /// and the `/tmp` paths a committed profile carries.
    #[test]
    fn temp_paths_redact_the_same_whatever_tmpdir_is() {
        let redact_with = |temp: &str, text: &str| {
            patterns_for(Path::new(temp))
                .iter()
                .fold(text.to_string(), |acc, (re, with)| {
                    re.replace_all(&acc, *with).into_owned()
                })
        };
        let profile = "## /tmp/tsqa-direct-jMZ1Hc/state/workspace/AGENTS.md";
        for temp in ["/tmp", "/tmp/x", "/tmp/x/", "/var/folders/ab/T"] {
            assert_eq!(
                redact_with(temp, profile),
                "## [tmp]/state/workspace/AGENTS.md",
                "TMPDIR={temp}"
            );
            let lane = format!("{}/tsqa-code-1/state", temp.trim_end_matches('/'));
            assert_eq!(redact_with(temp, &lane), "[tmp]/state", "TMPDIR={temp}");
        }
    }

    #[test]
    fn compare_reads_insta_files_and_diffs() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            compare(dir.path(), "a", "x"),
            SnapshotCheck::Missing { .. }
        ));
        std::fs::write(
            dir.path().join("a.snap"),
            "---\nsource: tests/it/snapshots.rs\nexpression: content\n---\nline1\nline2\n",
        )
        .unwrap();
        assert_eq!(
            compare(dir.path(), "a", "line1\nline2"),
            SnapshotCheck::Same
        );
        let SnapshotCheck::Changed { diff, .. } = compare(dir.path(), "a", "line1\nline3") else {
            panic!("changed")
        };
        assert!(diff.contains("-line2\n+line3"), "{diff}");
        // A long line (a JSON string) that changed shows where: the span, not two whole lines.
        let long = |word: &str| {
            format!(
                "  \"description\": \"{}{word}{}\"",
                "a".repeat(700),
                "b".repeat(800)
            )
        };
        let (old, new) = (long("old-words"), long("NEW"));
        let diff = unified_diff(
            &format!("x\n{old}\ny\n"),
            &format!("x\n{new}\ny\n"),
            "c",
            "n",
        );
        let span = format!("{}old-words{}", "a".repeat(40), "b".repeat(40));
        let changed = format!("{}NEW{}", "a".repeat(40), "b".repeat(40));
        assert_eq!(
            diff,
            format!(
                "--- c\n+++ n\n@@ -1,3 +1,3 @@\n x\n-…{span}…\n+…{changed}…\n@ the line differs at \
                 characters 719–727 of 1,528 (-) / characters 719–721 of 1,522 (+); the rest of \
                 it is the same\n y\n"
            )
        );
        let pending = write_pending(dir.path(), "a", "line1\nline3").unwrap();
        assert_eq!(read_snapshot(&pending).unwrap(), "line1\nline3");
    }
}
