//! Where a session's log lives and how it is read back: one JSONL file per session under
//! `<stateDir>/agents/<agentId>/sessions/`, one record per line (see [`super::record`]). Session
//! keys and agent ids become file names through one injective, length-bounded mapping
//! ([`session_id_for_key`]): two keys never share a file, and no key leaves its directory.

use std::path::{Path, PathBuf};

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::record::SessionRecord;

/// `<stateDir>/agents/<agentId>/sessions/<sessionId>.jsonl`, where the agent's directory name
/// goes through [`file_name_for`] too, so no agent id can leave `<stateDir>/agents/`.
pub fn session_log_path(state_dir: &Path, agent_id: &str, session_id: &str) -> PathBuf {
    state_dir
        .join("agents")
        .join(file_name_for(agent_id))
        .join("sessions")
        .join(format!("{session_id}.jsonl"))
}

/// Longest name [`file_name_for`] keeps readable; longer (and empty) names are shortened with a
/// hash, so no name is longer than [`MAX_FILE_NAME_BYTES`].
pub const READABLE_NAME_BYTES: usize = 128;
/// Upper bound of a [`file_name_for`] result: 64 readable bytes, `~` and 64 hex digits.
pub const MAX_FILE_NAME_BYTES: usize = 129;

/// Bytes kept as they are: ASCII letters, digits, `-` and `_`. Every other byte (`.`, `/`, `%`,
/// spaces, UTF-8 bytes of non-ASCII characters, …) is written `%XX`.
const ENCODED: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'_');

/// The file-name-safe session id of a session key: the key's bytes percent-encoded (`[A-Za-z0-9_-]`
/// kept, everything else `%XX`, so `alice.smith` is `alice%2Esmith` and `josé` is `jos%C3%A9`).
/// When that is empty or longer than [`READABLE_NAME_BYTES`], it is its first 64 bytes (never
/// cutting an escape), `~` and the SHA-256 of the key in hex.
///
/// Injective: percent-encoding is (`%` itself is encoded), the hashed form is as long as SHA-256
/// has no collision, and the two never meet (only the hashed form has `~`). The result is never
/// `.` or `..`, never has `/`, and is at most [`MAX_FILE_NAME_BYTES`] long, so
/// `<id>.jsonl` is one valid file name on every common file system.
pub fn session_id_for_key(key: &str) -> String {
    file_name_for(key)
}

/// The mapping of [`session_id_for_key`], for any name that becomes a file or directory name.
pub fn file_name_for(name: &str) -> String {
    let encoded = utf8_percent_encode(name, ENCODED).to_string();
    if !encoded.is_empty() && encoded.len() <= READABLE_NAME_BYTES {
        return encoded;
    }
    let mut cut = encoded.len().min(64);
    // An escape is `%XX`: never keep a `%` without its two digits.
    while let Some(at) = encoded[..cut].rfind('%').filter(|at| cut - at < 3) {
        cut = at;
    }
    let digest = Sha256::digest(name.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}~{hex}", &encoded[..cut])
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
        assert_eq!(session_id_for_key("a/../b c"), "a%2F%2E%2E%2Fb%20c");
        assert_eq!(session_id_for_key("josé"), "jos%C3%A9");
        assert_eq!(
            session_id_for_key(""),
            "~e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn session_ids_of_different_keys_differ() {
        let keys = [
            "alice.smith",
            "alice/smith",
            "alice smith",
            "alice_smith",
            "alice%2Esmith",
        ];
        let ids: std::collections::BTreeSet<String> =
            keys.iter().map(|k| session_id_for_key(k)).collect();
        assert_eq!(ids.len(), keys.len(), "{ids:?}");
    }

    #[test]
    fn long_keys_are_bounded_and_still_distinct() {
        let a = "é".repeat(300);
        let b = format!("{}x", "é".repeat(300));
        let (ida, idb) = (session_id_for_key(&a), session_id_for_key(&b));
        assert_ne!(ida, idb);
        for id in [&ida, &idb] {
            assert!(id.len() <= MAX_FILE_NAME_BYTES, "{}", id.len());
            let (readable, hash) = id.split_once('~').unwrap();
            assert_eq!(hash.len(), 64);
            // 64 bytes cut back to whole `%XX` escapes: 21 of them.
            assert_eq!(readable, "%C3%A9".repeat(10) + "%C3");
        }
        assert_eq!(session_id_for_key(&"k".repeat(128)), "k".repeat(128));
        assert!(session_id_for_key(&"k".repeat(129)).starts_with(&format!("{}~", "k".repeat(64))));
    }

    #[test]
    fn agent_directories_stay_below_the_state_dir() {
        let path = session_log_path(Path::new("/state"), "../../../../X", "s");
        assert_eq!(
            path,
            Path::new("/state/agents/%2E%2E%2F%2E%2E%2F%2E%2E%2F%2E%2E%2FX/sessions/s.jsonl")
        );
        assert_eq!(
            session_log_path(Path::new("/state"), "qa", "s"),
            Path::new("/state/agents/qa/sessions/s.jsonl")
        );
    }
}
