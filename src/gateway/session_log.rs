//! The session-log writer: one JSONL file per session (layout in [`crate::protocol::session`]),
//! one [`SessionRecord`] per line.
//!
//! Every record is written as one line and flushed before the call returns, so a crash in the
//! middle of a turn loses no earlier record. Records carry a `ts` (milliseconds since the epoch,
//! right after `type`) that snapshot tests redact; everything else is deterministic.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::protocol::session::session_log_path;
use crate::protocol::SessionRecord;

/// Appends records to one session's file.
pub struct SessionWriter {
    path: PathBuf,
    file: Mutex<File>,
}

impl SessionWriter {
    /// Opens (creating when needed) the log of `session_id` for `agent_id` below `state_dir`.
    pub fn open(
        state_dir: &Path,
        agent_id: &str,
        session_id: &str,
    ) -> std::io::Result<SessionWriter> {
        let path = session_log_path(state_dir, agent_id, session_id);
        create_below(state_dir, &path)?;
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(SessionWriter {
            path,
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record: `{"type": kind, "ts": …, …fields}` as a line, then flushes.
    pub fn append(&self, record: SessionRecord) -> std::io::Result<()> {
        let Value::Object(fields) = serde_json::to_value(&record).map_err(std::io::Error::other)?
        else {
            return Err(std::io::Error::other(
                "a session record is not a JSON object",
            ));
        };
        let mut line = Map::new();
        line.insert("type".into(), Value::from(record.kind()));
        line.insert("ts".into(), Value::from(now_millis()));
        line.extend(fields.into_iter().filter(|(key, _)| key != "type"));
        let mut line = serde_json::to_vec(&Value::Object(line)).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(&line)?;
        file.flush()
    }
}

/// Creates the folders between `state_dir` and the file at `path`, one level at a time. The
/// state dir itself is made when the gateway starts; one that is gone (a run being torn down
/// removed it) stays gone, where `create_dir_all` would bring it back as litter.
fn create_below(state_dir: &Path, path: &Path) -> std::io::Result<()> {
    let Some(folders) = path.parent().and_then(|p| p.strip_prefix(state_dir).ok()) else {
        return Ok(());
    };
    let mut dir = state_dir.to_path_buf();
    for part in folders.components() {
        dir.push(part);
        match std::fs::create_dir(&dir) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
    }
    Ok(())
}

fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::record::{MessageRecord, Role};
    use crate::protocol::session::read_session_log;

    #[test]
    fn records_are_appended_as_lines_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionWriter::open(dir.path(), "qa", "s1").unwrap();
        log.append(SessionRecord::Message(MessageRecord::text(
            Role::User,
            "hi",
        )))
        .unwrap();
        log.append(SessionRecord::Message(MessageRecord::text(
            Role::Assistant,
            "yo",
        )))
        .unwrap();
        let again = SessionWriter::open(dir.path(), "qa", "s1").unwrap();
        again
            .append(SessionRecord::TurnError {
                error: "end".into(),
            })
            .unwrap();
        let records = read_session_log(&dir.path().join("agents/qa/sessions/s1.jsonl")).unwrap();
        let kinds: Vec<&str> = records
            .iter()
            .map(|r| r["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["message", "message", "turn_error"]);
        assert_eq!(records[0]["text"], "hi");
        let keys: Vec<&String> = records[0].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "ts", "role", "text"]);
    }
}
