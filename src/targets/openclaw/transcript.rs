//! Reads what a real OpenClaw gateway recorded of its sessions. OpenClaw 2026.8 and later keep
//! transcripts in SQLite (`<state>/agents/<agent>/agent/openclaw-agent.sqlite`, table
//! `transcript_events`; from 2026.9.6 large rows are zstd-compressed in a column of their own,
//! so the reader asks the table which columns it has); older versions wrote JSONL files under
//! `<state>/agents/<agent>/sessions/`. Both come back as the same list of JSON events.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};
use serde_json::Value;

use super::OpenClawError;

/// One transcript event with the session it belongs to and its place in that session.
#[derive(Debug, Clone, PartialEq)]
pub struct TranscriptEvent {
    pub session_id: String,
    /// Position in the session (SQLite `seq`; the line index for JSONL).
    pub seq: i64,
    pub event: Value,
}

/// The events of every session of `agent_id`, sessions in id order, events in session order.
pub fn read_transcript(state_dir: &Path, agent_id: &str) -> Result<Vec<Value>, OpenClawError> {
    Ok(read_transcript_events(state_dir, agent_id)?
        .into_iter()
        .map(|e| e.event)
        .collect())
}

/// The events of the one session `session_key` of `agent_id` (every window of it, in order):
/// what a lane reads when other lanes' sessions live in the same gateway.
pub fn read_session_transcript(
    state_dir: &Path,
    agent_id: &str,
    session_key: &str,
) -> Result<Vec<Value>, OpenClawError> {
    let key = format!("agent:{agent_id}:{session_key}");
    Ok(read_events(state_dir, agent_id, Some(&key))?
        .into_iter()
        .map(|e| e.event)
        .collect())
}

/// [`read_transcript`] keeping the session id and sequence number of each event.
pub fn read_transcript_events(
    state_dir: &Path,
    agent_id: &str,
) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    read_events(state_dir, agent_id, None)
}

/// The column compressed events are kept in, where the table has it (2026.9.6 and later).
const COMPRESSED_COLUMN: &str = "event_zstd";

/// SQLite rows of every session, or of the windows of the session whose full key is `key`;
/// `compressed` is the compressed column's name, or `NULL` when the table has none.
fn events_query(compressed: &str, key: bool) -> String {
    if key {
        format!(
            "SELECT e.session_id, e.seq, e.event_json, {compressed} \
             FROM transcript_events e JOIN session_windows w ON w.session_id = e.session_id \
             WHERE w.session_key = ?1 ORDER BY w.rowid, e.seq"
        )
    } else {
        format!(
            "SELECT session_id, seq, event_json, {compressed} FROM transcript_events \
             ORDER BY session_id, seq"
        )
    }
}

/// The names of `table`'s columns (`PRAGMA table_info`).
fn table_columns(connection: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = connection.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let names = statement.query_map([table], |row| row.get::<_, String>(0))?;
    names.collect()
}

fn read_events(
    state_dir: &Path,
    agent_id: &str,
    key: Option<&str>,
) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    let agent_dir = state_dir.join("agents").join(agent_id);
    let sqlite = agent_dir.join("agent").join("openclaw-agent.sqlite");
    let sessions_dir = agent_dir.join("sessions");
    if sqlite.is_file() {
        return read_sqlite(&sqlite, key);
    }
    if sessions_dir.is_dir() {
        return match key {
            Some(key) => read_jsonl_session(&sessions_dir, key),
            None => read_jsonl_dir(&sessions_dir),
        };
    }
    Err(OpenClawError::NoTranscript {
        agent_id: agent_id.to_string(),
        state_dir: state_dir.to_path_buf(),
        sqlite,
        sessions_dir,
    })
}

fn read_sqlite(path: &Path, key: Option<&str>) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    let sql_error = |source| OpenClawError::Sqlite {
        path: path.to_path_buf(),
        source,
    };
    // Read-only, so a gateway that is still running keeps its database to itself.
    let connection =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sql_error)?;
    let columns = table_columns(&connection, "transcript_events").map_err(sql_error)?;
    let compressed = if columns.iter().any(|c| c == COMPRESSED_COLUMN) {
        COMPRESSED_COLUMN
    } else {
        "NULL"
    };
    let mut statement = connection
        .prepare(&events_query(compressed, key.is_some()))
        .map_err(sql_error)?;
    let params: Vec<&str> = key.into_iter().collect();
    let rows = statement
        .query_map(rusqlite::params_from_iter(params), |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, Option<String>>(2)?,
                row.get::<_, Option<Vec<u8>>>(3)?,
            ))
        })
        .map_err(sql_error)?;
    let mut events = Vec::new();
    for row in rows {
        let (session_id, seq, json, zstd) = row.map_err(sql_error)?;
        let location = format!("{} session {session_id} seq {seq}", path.display());
        let text = event_text(json, zstd, &location)?;
        let event = parse_event(&text, &location)?;
        events.push(TranscriptEvent {
            session_id,
            seq,
            event,
        });
    }
    Ok(events)
}

/// The event's JSON text: the decompressed `event_zstd` when present, else `event_json`.
fn event_text(
    json: Option<String>,
    zstd: Option<Vec<u8>>,
    location: &str,
) -> Result<String, OpenClawError> {
    let bad = |reason: String| OpenClawError::BadTranscript {
        location: location.to_string(),
        reason,
    };
    match (zstd, json) {
        (Some(compressed), _) => {
            let bytes = zstd::stream::decode_all(compressed.as_slice())
                .map_err(|e| bad(format!("zstd: {e}")))?;
            String::from_utf8(bytes)
                .map_err(|e| bad(format!("decompressed event is not UTF-8: {e}")))
        }
        (None, Some(text)) => Ok(text),
        (None, None) => Err(bad("neither event_json nor event_zstd is set".into())),
    }
}

/// The JSONL file of the session whose full key is `key`: `sessions.json` maps each key to its
/// `sessionId`, whose events are `<sessionId>.jsonl` (2026.7 and older). A key it does not list
/// has no events yet. Where the agent's folder has no index, the session is found in another
/// agent's (2026.5.12 keeps every index in `agents/main/sessions/sessions.json`, keyed by the
/// bare session key), and only with a `sessionFile` in this agent's folder.
fn read_jsonl_session(dir: &Path, key: &str) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    match jsonl_session_file(dir, key)? {
        Some(file) => read_jsonl_file(&file),
        None => Ok(Vec::new()),
    }
}

/// The JSONL transcript file of the session whose full key is `key` ([`read_jsonl_session`]).
fn jsonl_session_file(dir: &Path, key: &str) -> Result<Option<PathBuf>, OpenClawError> {
    let index_path = dir.join("sessions.json");
    if !index_path.is_file() {
        return jsonl_session_file_elsewhere(dir, key);
    }
    let index = read_index(&index_path)?;
    Ok(index[key]["sessionId"]
        .as_str()
        .map(|id| dir.join(format!("{id}.jsonl"))))
}

fn read_index(path: &Path) -> Result<Value, OpenClawError> {
    let text = std::fs::read_to_string(path).map_err(OpenClawError::io("read", path))?;
    serde_json::from_str(&text).map_err(OpenClawError::json(path))
}

/// [`jsonl_session_file`] through the other agents' indexes (`<state>/agents/*/sessions/
/// sessions.json`, in name order): the entry of the full `key` or of its session key alone
/// (`agent:<agent>:<session key>` → `<session key>`) whose `sessionFile` is in `dir`. None: no
/// events yet.
fn jsonl_session_file_elsewhere(dir: &Path, key: &str) -> Result<Option<PathBuf>, OpenClawError> {
    let Some(agents) = dir.parent().and_then(Path::parent) else {
        return Ok(None);
    };
    let bare = key.splitn(3, ':').nth(2).unwrap_or(key);
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(agents)
        .map_err(OpenClawError::io("list", agents))?
        .filter_map(|entry| {
            entry
                .ok()
                .map(|e| e.path().join("sessions").join("sessions.json"))
        })
        .filter(|path| path.is_file())
        .collect();
    indexes.sort();
    for path in indexes {
        let index = read_index(&path)?;
        for entry in [&index[key], &index[bare]] {
            let file = entry["sessionFile"].as_str().map(PathBuf::from);
            if let Some(file) = file.filter(|f| f.parent() == Some(dir)) {
                return Ok(Some(file));
            }
        }
    }
    Ok(None)
}

fn read_jsonl_dir(dir: &Path) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    let mut events = Vec::new();
    for file in read_jsonl_names(dir)? {
        events.extend(read_jsonl_file(&file)?);
    }
    Ok(events)
}

fn read_jsonl_file(path: &Path) -> Result<Vec<TranscriptEvent>, OpenClawError> {
    let text = std::fs::read_to_string(path).map_err(OpenClawError::io("read", path))?;
    let session_id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut events = Vec::new();
    for (index, line) in text
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
    {
        let location = format!("{} line {}", path.display(), index + 1);
        let event = parse_event(line, &location)?;
        let seq = i64::try_from(index).unwrap_or(i64::MAX);
        events.push(TranscriptEvent {
            session_id: session_id.clone(),
            seq,
            event,
        });
    }
    Ok(events)
}

/// What the product's trajectory says about the tools it sent the model. Its `context.compiled`
/// event lists them, each a declaration or, once the recorder's node budget is spent, the string
/// `"[Truncated]"` (OpenClaw 2026.9.6). When Tool Search compacted the request, `data.tools`
/// holds the tools *before* compaction and `data.providerVisibleTools` the ones sent (2026.8.1 –
/// 2026.9.6 `builtin-openclaw-*.js`, 2026.5.12 `selection-*.js`); otherwise `data.tools` is what
/// was sent.
///
/// A list longer than 64 entries is cut to 64 and ends in a marker naming its original length
/// (`limitTrajectoryPayloadValue`, 2026.5.12 `selection-*.js`): that length is the count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompiledTools {
    /// The list of the tools sent: its entries (or the original length a cut list's marker
    /// gives), and how many of the entries kept are `"[Truncated]"`.
    Listed { listed: usize, truncated: usize },
    /// The list of the tools sent is itself stored as `"[Truncated]"`: the list before
    /// compaction spent the budget (2026.8.1 – 2026.9.6, on every compacted request).
    Truncated,
}

impl CompiledTools {
    /// The tools a `context.compiled` event says the provider was sent (`None` for another
    /// event, or one without a list).
    fn of(event: &Value) -> Option<CompiledTools> {
        if event["type"] != "context.compiled" {
            return None;
        }
        let data = &event["data"];
        let sent = data.get("providerVisibleTools").unwrap_or(&data["tools"]);
        if sent == "[Truncated]" {
            return Some(CompiledTools::Truncated);
        }
        let tools = sent.as_array()?;
        let cut = tools.last().and_then(original_length);
        let kept = &tools[..tools.len() - usize::from(cut.is_some())];
        Some(CompiledTools::Listed {
            listed: cut.unwrap_or(kept.len()),
            truncated: kept.iter().filter(|t| *t == "[Truncated]").count(),
        })
    }
}

/// The original length a cut list's closing marker names (`{truncated: true, reason:
/// "trajectory-array-size-limit", originalLength}`).
fn original_length(entry: &Value) -> Option<usize> {
    let marker = entry["truncated"] == true && entry["reason"] == "trajectory-array-size-limit";
    let length = entry["originalLength"].as_u64()?;
    marker.then(|| usize::try_from(length).ok()).flatten()
}

/// The tools of the first `context.compiled` trajectory event of `agent_id`, when the product
/// keeps a trajectory (`None` when it has none, or none compiled).
pub fn read_compiled_tools(
    state_dir: &Path,
    agent_id: &str,
) -> Result<Option<CompiledTools>, OpenClawError> {
    compiled_tools(state_dir, agent_id, None)
}

/// [`read_compiled_tools`] of the one session `session_key` (other lanes' sessions may live in
/// the same gateway).
pub fn read_session_compiled_tools(
    state_dir: &Path,
    agent_id: &str,
    session_key: &str,
) -> Result<Option<CompiledTools>, OpenClawError> {
    let key = format!("agent:{agent_id}:{session_key}");
    compiled_tools(state_dir, agent_id, Some(&key))
}

/// Trajectory rows of every session, or of the windows of the session whose full key is `key`.
const ALL_TRAJECTORIES: &str =
    "SELECT event_json FROM trajectory_runtime_events ORDER BY session_id, seq";
const ONE_TRAJECTORY: &str = "SELECT t.event_json FROM trajectory_runtime_events t \
                              JOIN session_windows w ON w.session_id = t.session_id \
                              WHERE w.session_key = ?1 ORDER BY w.rowid, t.seq";

fn compiled_tools(
    state_dir: &Path,
    agent_id: &str,
    key: Option<&str>,
) -> Result<Option<CompiledTools>, OpenClawError> {
    let path = state_dir
        .join("agents")
        .join(agent_id)
        .join("agent")
        .join("openclaw-agent.sqlite");
    if !path.is_file() {
        return jsonl_compiled_tools(
            &state_dir.join("agents").join(agent_id).join("sessions"),
            key,
        );
    }
    let sql_error = |source| OpenClawError::Sqlite {
        path: path.clone(),
        source,
    };
    let connection =
        Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(sql_error)?;
    let has_table: bool = connection
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'trajectory_runtime_events'",
            [],
            |row| row.get(0),
        )
        .map_err(sql_error)?;
    if !has_table {
        return Ok(None);
    }
    let mut statement = connection
        .prepare(match key {
            Some(_) => ONE_TRAJECTORY,
            None => ALL_TRAJECTORIES,
        })
        .map_err(sql_error)?;
    let params: Vec<&str> = key.into_iter().collect();
    let rows = statement
        .query_map(rusqlite::params_from_iter(params), |row| {
            row.get::<_, Option<String>>(0)
        })
        .map_err(sql_error)?;
    for row in rows {
        let Some(text) = row.map_err(sql_error)? else {
            continue;
        };
        let event = parse_event(&text, &format!("{} trajectory event", path.display()))?;
        if let Some(compiled) = CompiledTools::of(&event) {
            return Ok(Some(compiled));
        }
    }
    Ok(None)
}

/// [`compiled_tools`] of a release that keeps JSONL files (2026.7 and older): the trajectory
/// beside the session's transcript (`<sessionId>.trajectory.jsonl`), of the session `key` or,
/// without one, of the first session in name order.
fn jsonl_compiled_tools(
    dir: &Path,
    key: Option<&str>,
) -> Result<Option<CompiledTools>, OpenClawError> {
    let transcript = match key {
        Some(key) if dir.is_dir() => jsonl_session_file(dir, key)?,
        Some(_) => None,
        None => read_jsonl_names(dir)?.into_iter().next(),
    };
    let Some(trajectory) = transcript.map(|t| t.with_extension("trajectory.jsonl")) else {
        return Ok(None);
    };
    if !trajectory.is_file() {
        return Ok(None);
    }
    Ok(read_jsonl_file(&trajectory)?
        .iter()
        .find_map(|e| CompiledTools::of(&e.event)))
}

/// The transcript files of a JSONL sessions folder (not the trajectories), sorted; none when
/// the folder is missing.
fn read_jsonl_names(dir: &Path) -> Result<Vec<PathBuf>, OpenClawError> {
    if !dir.is_dir() {
        return Ok(Vec::new());
    }
    let entries = std::fs::read_dir(dir).map_err(OpenClawError::io("list", dir))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "jsonl"))
        .filter(|path| !path.to_string_lossy().ends_with(".trajectory.jsonl"))
        .collect();
    files.sort();
    Ok(files)
}

fn parse_event(text: &str, location: &str) -> Result<Value, OpenClawError> {
    serde_json::from_str(text).map_err(|e| OpenClawError::BadTranscript {
        location: location.to_string(),
        reason: format!("not JSON: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A state dir whose transcript table is `columns` (2026.9.5 and older have no compressed
    /// column), with one session of two events under key `agent:qa:k`.
    /// `(seq, event_json, event_zstd)`.
    type Row<'a> = (i64, Option<&'a str>, Option<Vec<u8>>);

    fn state_with(columns: &str, rows: &[Row<'_>]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agents").join("qa").join("agent");
        std::fs::create_dir_all(&agent).unwrap();
        let db = Connection::open(agent.join("openclaw-agent.sqlite")).unwrap();
        db.execute_batch(&format!(
            "CREATE TABLE transcript_events ({columns});
             CREATE TABLE session_windows (session_id TEXT, session_key TEXT);
             INSERT INTO session_windows VALUES ('s1', 'agent:qa:k');"
        ))
        .unwrap();
        for (seq, json, zstd) in rows {
            if columns.contains("event_zstd") {
                db.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json, event_zstd) VALUES ('s1', ?1, ?2, ?3)",
                    rusqlite::params![seq, json, zstd],
                )
                .unwrap();
            } else {
                db.execute(
                    "INSERT INTO transcript_events (session_id, seq, event_json) VALUES ('s1', ?1, ?2)",
                    rusqlite::params![seq, json],
                )
                .unwrap();
            }
        }
        dir
    }

    #[test]
    fn a_table_without_the_compressed_column_is_read() {
        let dir = state_with(
            "session_id TEXT, seq INTEGER, event_json TEXT",
            &[
                (0, Some(r#"{"type":"a"}"#), None),
                (1, Some(r#"{"type":"b"}"#), None),
            ],
        );
        let all = read_transcript(dir.path(), "qa").unwrap();
        assert_eq!(
            all,
            vec![
                serde_json::json!({"type":"a"}),
                serde_json::json!({"type":"b"})
            ]
        );
        let one = read_session_transcript(dir.path(), "qa", "k").unwrap();
        assert_eq!(one, all);
        assert!(read_session_transcript(dir.path(), "qa", "other")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_jsonl_session_is_found_by_its_key() {
        let dir = tempfile::tempdir().unwrap();
        let sessions = dir.path().join("agents").join("qa").join("sessions");
        std::fs::create_dir_all(&sessions).unwrap();
        std::fs::write(
            sessions.join("sessions.json"),
            r#"{"agent:qa:k": {"sessionId": "s1"}, "agent:qa:other": {"sessionId": "s2"}}"#,
        )
        .unwrap();
        std::fs::write(sessions.join("s1.jsonl"), "{\"type\":\"a\"}\n").unwrap();
        std::fs::write(sessions.join("s2.jsonl"), "{\"type\":\"b\"}\n").unwrap();
        std::fs::write(sessions.join("s1.trajectory.jsonl"), "{\"type\":\"t\"}\n").unwrap();
        let one = read_session_transcript(dir.path(), "qa", "k").unwrap();
        assert_eq!(one, vec![serde_json::json!({"type": "a"})]);
        assert!(read_session_transcript(dir.path(), "qa", "none")
            .unwrap()
            .is_empty());
        let all = read_transcript(dir.path(), "qa").unwrap();
        assert_eq!(
            all,
            vec![
                serde_json::json!({"type": "a"}),
                serde_json::json!({"type": "b"})
            ]
        );
    }

    /// 2026.5.12's layout: the session index in `agents/main/sessions/sessions.json` under the
    /// bare session key, naming a `sessionFile` in the run's agent's folder, and the trajectory
    /// beside it. An entry whose file lies in another agent's folder is not this agent's.
    #[test]
    fn a_session_indexed_in_another_agent_s_store_is_found_with_its_trajectory() {
        let dir = tempfile::tempdir().unwrap();
        let agents = dir.path().join("agents");
        let (main, qa) = (agents.join("main/sessions"), agents.join("qa/sessions"));
        std::fs::create_dir_all(&main).unwrap();
        std::fs::create_dir_all(&qa).unwrap();
        let index = serde_json::json!({
            "k": { "sessionId": "s1", "sessionFile": qa.join("s1.jsonl") },
            "other": { "sessionId": "s2", "sessionFile": main.join("s2.jsonl") },
        });
        std::fs::write(main.join("sessions.json"), index.to_string()).unwrap();
        std::fs::write(qa.join("s1.jsonl"), "{\"type\":\"a\"}\n{\"type\":\"b\"}\n").unwrap();
        std::fs::write(main.join("s2.jsonl"), "{\"type\":\"c\"}\n").unwrap();
        std::fs::write(
            qa.join("s1.trajectory.jsonl"),
            "{\"type\":\"prompt.submitted\"}\n\
             {\"type\":\"context.compiled\",\"data\":{\"tools\":[{},{},\"[Truncated]\"]}}\n",
        )
        .unwrap();
        let events = read_session_transcript(dir.path(), "qa", "k").unwrap();
        assert_eq!(
            events,
            [
                serde_json::json!({"type":"a"}),
                serde_json::json!({"type":"b"})
            ]
        );
        assert!(read_session_transcript(dir.path(), "qa", "other")
            .unwrap()
            .is_empty());
        assert_eq!(
            read_session_compiled_tools(dir.path(), "qa", "k").unwrap(),
            Some(CompiledTools::Listed {
                listed: 3,
                truncated: 1
            })
        );
        assert_eq!(
            read_compiled_tools(dir.path(), "qa").unwrap(),
            Some(CompiledTools::Listed {
                listed: 3,
                truncated: 1
            })
        );
        assert_eq!(
            read_session_compiled_tools(dir.path(), "qa", "other").unwrap(),
            None
        );
    }

    /// A compacted request's event lists the tools before compaction under `tools` and the ones
    /// sent under `providerVisibleTools`: the count is of the ones sent, and a list of them stored
    /// as `"[Truncated]"` (2026.9.6, measured) is no count at all. Without compaction, `tools` is
    /// what was sent.
    #[test]
    fn the_tools_sent_are_read_from_provider_visible_tools_when_the_request_was_compacted() {
        let mut before: Vec<Value> = vec![serde_json::json!({"name": "t"}); 9];
        before.extend(vec![Value::from("[Truncated]"); 55]);
        let compiled = |data: Value| {
            CompiledTools::of(&serde_json::json!({"type": "context.compiled", "data": data}))
        };
        let sent = vec![serde_json::json!({"name": "t"}); 12];
        assert_eq!(
            compiled(serde_json::json!({"tools": before, "providerVisibleTools": sent})),
            Some(CompiledTools::Listed {
                listed: 12,
                truncated: 0
            })
        );
        assert_eq!(
            compiled(serde_json::json!({"tools": before, "providerVisibleTools": "[Truncated]"})),
            Some(CompiledTools::Truncated)
        );
        assert_eq!(
            compiled(serde_json::json!({"tools": before})),
            Some(CompiledTools::Listed {
                listed: 64,
                truncated: 55
            })
        );
        let mut cut: Vec<Value> = vec![serde_json::json!({"name": "t"}); 64];
        cut.push(
            serde_json::json!({"truncated": true, "reason": "trajectory-array-size-limit",
            "originalLength": 105, "limitItems": 64}),
        );
        assert_eq!(
            compiled(serde_json::json!({"tools": cut})),
            Some(CompiledTools::Listed {
                listed: 105,
                truncated: 0
            })
        );
        let other = serde_json::json!({"type": "prompt.submitted", "data": {"tools": []}});
        assert_eq!(CompiledTools::of(&other), None);
    }

    #[test]
    fn a_compressed_event_is_decompressed() {
        let packed = zstd::stream::encode_all(&br#"{"type":"big"}"#[..], 0).unwrap();
        let dir = state_with(
            "session_id TEXT, seq INTEGER, event_json TEXT, event_zstd BLOB",
            &[(0, Some(r#"{"type":"a"}"#), None), (1, None, Some(packed))],
        );
        let events = read_session_transcript(dir.path(), "qa", "k").unwrap();
        assert_eq!(events[1], serde_json::json!({"type":"big"}));
    }
}
