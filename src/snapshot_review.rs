//! `snapshots review|accept|reject`: the pending `.snap.new` files that `suite --update-snapshots`
//! (or `cargo test` through insta) writes, reviewed and settled with this tool alone, so a machine
//! without `cargo insta` can accept a change. The files stay insta's: accepting is the rename insta
//! does, rejecting the delete, so either tool can settle what the other wrote.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{Error, Exit};
use crate::output::emit;
use crate::suite::snapshot::read_snapshot;

/// What to do with the pending snapshots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Print each as a unified diff against its committed snapshot (or against nothing: new).
    Review,
    /// Rename each `.snap.new` over its `.snap`.
    Accept,
    /// Delete each `.snap.new`.
    Reject,
}

/// One pending snapshot: `<name>.snap.new` beside where `<name>.snap` is (or will be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The `.snap.new` file.
    pub new: PathBuf,
    /// The `.snap` it replaces or creates.
    pub committed: PathBuf,
}

const PENDING: &str = ".snap.new";
const COMMITTED: &str = ".snap";

/// The snapshot files below `dir` (its subfolders too: a real product's are in
/// `openclaw-<v>/`), sorted by path, whose name ends with `suffix` and, with `scenario`, whose
/// snapshot belongs to that scenario (`<scenario>__<lane>__<kind>`).
fn snapshot_files(dir: &Path, suffix: &str, scenario: Option<&str>) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).map_err(Error::io("read", &folder))? {
            let path = entry.map_err(Error::io("read", &folder))?.path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
                continue;
            };
            let Some(stem) = name.strip_suffix(suffix) else {
                continue;
            };
            if scenario.is_none_or(|id| stem.starts_with(&format!("{id}__"))) {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The pending snapshots below `dir`, of one scenario or of all. A snapshot directory that does
/// not exist, or a scenario with neither a pending nor a committed snapshot there, is a usage
/// error (exit 2): a command that names the wrong place never settles nothing silently.
pub fn pending(dir: &Path, scenario: Option<&str>) -> Result<Vec<Pending>, Error> {
    if !dir.is_dir() {
        return Err(Error::Usage(format!(
            "snapshot directory {} does not exist (pass --snapshot-dir DIR: the one `suite \
             --update-snapshots` wrote into)",
            dir.display()
        )));
    }
    let pending: Vec<Pending> = snapshot_files(dir, PENDING, scenario)?
        .into_iter()
        .map(|new| Pending {
            committed: new.with_extension(""),
            new,
        })
        .collect();
    if let Some(id) = scenario {
        if pending.is_empty() && snapshot_files(dir, COMMITTED, Some(id))?.is_empty() {
            return Err(Error::Usage(format!(
                "no snapshot of scenario {id} in {} (neither pending nor committed)",
                dir.display()
            )));
        }
    }
    Ok(pending)
}

/// The content of an insta snapshot file, or a usage error naming it when it is not one.
fn content(path: &Path) -> Result<String, Error> {
    read_snapshot(path).ok_or_else(|| {
        Error::Usage(format!(
            "{}: not an insta snapshot (a `---` header, then `---`, then the content)",
            path.display()
        ))
    })
}

/// A pending snapshot as a unified diff against its committed one; a new one as all additions.
pub fn diff(pending: &Pending) -> Result<String, Error> {
    let new = format!("{}\n", content(&pending.new)?);
    let (old, old_label) = match pending.committed.exists() {
        true => (
            format!("{}\n", content(&pending.committed)?),
            format!("{} (committed)", pending.committed.display()),
        ),
        false => (String::new(), "new snapshot".to_string()),
    };
    let new_label = format!("{} (pending)", pending.new.display());
    Ok(crate::suite::snapshot::unified_diff(
        &old, &new, &old_label, &new_label,
    ))
}

/// `snapshots review|accept|reject`: one line (or diff) per pending snapshot, then a count line.
/// Exit 0; 2 when the directory or scenario is wrong or a pending file is not a snapshot; 3 when
/// a file cannot be renamed or deleted.
pub fn command(
    action: Action,
    dir: &Path,
    scenario: Option<&str>,
    out: &mut dyn Write,
) -> Result<u8, Error> {
    let pending = pending(dir, scenario)?;
    let mut text = String::new();
    for p in &pending {
        match action {
            Action::Review => text.push_str(&diff(p)?),
            Action::Accept => {
                content(&p.new)?;
                std::fs::rename(&p.new, &p.committed).map_err(Error::io("rename", &p.new))?;
                text.push_str(&format!("accepted {}\n", p.committed.display()));
            }
            Action::Reject => {
                std::fs::remove_file(&p.new).map_err(Error::io("delete", &p.new))?;
                text.push_str(&format!("rejected {}\n", p.new.display()));
            }
        }
    }
    text.push_str(&count_line(action, pending.len(), dir, scenario));
    emit(out, &text)?;
    Ok(Exit::OK)
}

/// `3 pending snapshots in DIR: …` with the commands that settle them, or `none pending`.
fn count_line(action: Action, n: usize, dir: &Path, scenario: Option<&str>) -> String {
    let of = scenario.map(|id| format!(" of {id}")).unwrap_or_default();
    let plural = if n == 1 { "" } else { "s" };
    match (action, n) {
        (_, 0) => format!("no pending snapshots{of} in {}\n", dir.display()),
        (Action::Review, _) => {
            let mut args = format!("--snapshot-dir {}", dir.display());
            if let Some(id) = scenario {
                args.push_str(&format!(" --scenario {id}"));
            }
            format!(
                "{n} pending snapshot{plural}{of} in {}: toolsearch-qa snapshots accept {args} \
                 (or reject)\n",
                dir.display()
            )
        }
        (Action::Accept, _) => format!("accepted {n} snapshot{plural}{of}\n"),
        (Action::Reject, _) => format!("rejected {n} snapshot{plural}{of}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::snapshot::write_pending;

    fn snap(dir: &Path, name: &str, body: &str) {
        std::fs::write(
            dir.join(format!("{name}.snap")),
            format!("---\nsource: tests/it/snapshots.rs\nexpression: content\n---\n{body}\n"),
        )
        .unwrap();
    }

    #[test]
    fn pending_finds_subfolders_and_filters_by_scenario() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("openclaw-2026.9.6");
        write_pending(dir.path(), "a__direct__provider", "x").unwrap();
        write_pending(&sub, "a__code__session", "y").unwrap();
        write_pending(dir.path(), "ab__direct__provider", "z").unwrap();
        let names = |s: Option<&str>| -> Vec<PathBuf> {
            pending(dir.path(), s)
                .unwrap()
                .into_iter()
                .map(|p| p.committed.strip_prefix(dir.path()).unwrap().to_path_buf())
                .collect()
        };
        assert_eq!(
            names(Some("a")),
            [
                PathBuf::from("a__direct__provider.snap"),
                PathBuf::from("openclaw-2026.9.6/a__code__session.snap"),
            ]
        );
        assert_eq!(names(None).len(), 3);
        let err = pending(dir.path(), Some("zz")).unwrap_err();
        assert_eq!(err.exit_code(), Exit::USAGE);
        assert!(
            err.to_string().contains("no snapshot of scenario zz"),
            "{err}"
        );
    }

    #[test]
    fn review_diffs_against_the_committed_one_and_new_ones_against_nothing() {
        let dir = tempfile::tempdir().unwrap();
        snap(dir.path(), "a__direct__provider", "line1\nline2");
        let changed = Pending {
            new: write_pending(dir.path(), "a__direct__provider", "line1\nline3").unwrap(),
            committed: dir.path().join("a__direct__provider.snap"),
        };
        let text = diff(&changed).unwrap();
        assert!(text.contains(" line1\n-line2\n+line3\n"), "{text}");
        let fresh = Pending {
            new: write_pending(dir.path(), "b__direct__provider", "only").unwrap(),
            committed: dir.path().join("b__direct__provider.snap"),
        };
        let text = diff(&fresh).unwrap();
        assert!(text.starts_with("--- new snapshot\n"), "{text}");
        assert!(text.ends_with("@@ -0,0 +1 @@\n+only\n"), "{text}");
    }
}
