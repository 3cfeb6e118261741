//! Where a session's log lives and how it is read back: one JSONL file per session under
//! `<stateDir>/agents/<agentId>/sessions/`, one record per line (see [`super::record`]).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::record::SessionRecord;

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

/// Reads a session log back as written: one JSON value per line. A line that is not JSON is an
/// error naming it.
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

/// A session's log: the records as written (for snapshots and leak searches, every byte the
/// gateway wrote) and the same records typed (for everything that reads them).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionLog {
    pub raw: Vec<Value>,
    pub records: Vec<SessionRecord>,
}

impl SessionLog {
    /// Types every raw record; `origin` names the log in the error for one that is not a record.
    pub fn from_raw(raw: Vec<Value>, origin: &str) -> Result<SessionLog, String> {
        let records = raw
            .iter()
            .enumerate()
            .map(|(i, value)| {
                serde_json::from_value(value.clone())
                    .map_err(|e| format!("session log {origin} record {}: {e}", i + 1))
            })
            .collect::<Result<_, String>>()?;
        Ok(SessionLog { raw, records })
    }

    /// A log made of typed records (e.g. translated from another gateway's transcript); its raw
    /// form is their JSON.
    pub fn from_records(records: Vec<SessionRecord>) -> SessionLog {
        let raw = records
            .iter()
            .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
            .collect();
        SessionLog { raw, records }
    }

    /// Reads and types the log at `path`.
    pub fn read(path: &Path) -> Result<SessionLog, String> {
        SessionLog::from_raw(read_session_log(path)?, &path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
