//! Session logs: one JSONL file per session under `<stateDir>/agents/<agentId>/sessions/`.
//!
//! Every record is written as one line and flushed before the call returns, so a crash in the
//! middle of a turn loses no earlier record. Records carry a `ts` (milliseconds since the epoch)
//! that snapshot tests redact; everything else is deterministic.

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

/// Appends records to one session's file.
pub struct SessionLog {
    path: PathBuf,
    file: Mutex<File>,
}

impl SessionLog {
    /// Opens (creating when needed) the log of `session_id` for `agent_id` below `state_dir`.
    pub fn open(state_dir: &Path, agent_id: &str, session_id: &str) -> std::io::Result<SessionLog> {
        let path = session_log_path(state_dir, agent_id, session_id);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let file = OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(SessionLog {
            path,
            file: Mutex::new(file),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one record: `{"type": kind, "ts": …, …fields}` as a line, then flushes.
    pub fn append(&self, kind: &str, fields: Value) -> std::io::Result<()> {
        let mut record = Map::new();
        record.insert("type".into(), Value::from(kind));
        record.insert("ts".into(), Value::from(now_millis()));
        if let Value::Object(fields) = fields {
            record.extend(fields);
        }
        let mut line = serde_json::to_vec(&Value::Object(record)).map_err(std::io::Error::other)?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(&line)?;
        file.flush()
    }
}

/// `<stateDir>/agents/<agentId>/sessions/<sessionId>.jsonl`
pub fn session_log_path(state_dir: &Path, agent_id: &str, session_id: &str) -> PathBuf {
    state_dir
        .join("agents")
        .join(agent_id)
        .join("sessions")
        .join(format!("{session_id}.jsonl"))
}

/// A file-name-safe session id derived from a session key: the same key always maps to the same file.
pub fn session_id_for_key(key: &str) -> String {
    let cleaned: String = key
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if cleaned.is_empty() {
        "default".into()
    } else {
        cleaned
    }
}

/// Reads a session log back: one JSON value per line. A line that is not JSON is an error naming it.
pub fn read_session_log(path: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read session log {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line)
                .map_err(|e| format!("session log {} line {}: {e}", path.display(), i + 1))
        })
        .collect()
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
    use serde_json::json;

    #[test]
    fn records_are_appended_as_lines_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let log = SessionLog::open(dir.path(), "qa", "s1").unwrap();
        log.append("message", json!({"role": "user", "text": "hi"}))
            .unwrap();
        log.append("message", json!({"role": "assistant", "text": "yo"}))
            .unwrap();
        let again = SessionLog::open(dir.path(), "qa", "s1").unwrap();
        again.append("end", json!({})).unwrap();
        let records = read_session_log(&dir.path().join("agents/qa/sessions/s1.jsonl")).unwrap();
        let kinds: Vec<&str> = records
            .iter()
            .map(|r| r["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["message", "message", "end"]);
        assert_eq!(records[0]["text"], "hi");
    }

    #[test]
    fn session_ids_are_file_safe() {
        assert_eq!(
            session_id_for_key("tool-search-gateway-code"),
            "tool-search-gateway-code"
        );
        assert_eq!(session_id_for_key("a/../b c"), "a____b_c");
        assert_eq!(session_id_for_key(""), "default");
    }
}
