//! Load: many concurrent sessions through one embedded gateway against the mock provider.
//!
//! It exists to show that the gateway keeps sessions apart under concurrency: every session's log
//! must be complete, well-formed JSONL holding only that session's turn, and every provider request
//! must be accounted for. It also measures turn latency (p50/p99) for the bench and the CLI, and
//! the process's resident memory: idle before the turns, at its peak, and after the gateway
//! stopped; tests check completeness only, never timings or sizes.

pub mod process;

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;

use crate::catalog::fake::FAKE_OK;
use crate::error::{temp_dir, Error, Exit};
use crate::protocol::record::Role;
use crate::protocol::session::{session_id_for_key, session_log_path, SessionLog};
use crate::protocol::{ResponseBody, SessionRecord, AGENT_HEADER, SESSION_HEADER};
use crate::provider::MockProvider;

/// Fake tools in the load catalogue; session `i` targets tool `i % FAKE_TOOLS + 1`.
pub const FAKE_TOOLS: usize = 36;
const AGENT: &str = "qa";

/// The record types of one complete `tools`-mode turn, in order.
pub const TURN_RECORDS: [&str; 13] = [
    "surface",
    "message",
    "provider_request",
    "message",
    "toolResult",
    "provider_request",
    "message",
    "toolResult",
    "message",
    "toolResult",
    "provider_request",
    "message",
    "telemetry",
];

/// Provider requests one `tools`-mode turn takes (search, call, answer).
pub const REQUESTS_PER_TURN: usize = 3;

/// What a load run saw.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadReport {
    pub sessions: usize,
    /// Turn latencies (request sent → full answer read), sorted ascending.
    pub latencies: Vec<Duration>,
    /// Requests the mock provider journaled.
    pub provider_requests: usize,
    /// `provider_request` records over all session logs.
    pub logged_provider_requests: usize,
    /// Everything that was wrong, one line each, sorted; empty when the run was clean.
    pub problems: Vec<String>,
    /// Resident memory of this process around the run (`None` without `/proc`).
    pub memory: Option<LoadMemory>,
}

/// Resident memory of the process running the load, in KiB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadMemory {
    /// With the provider and the gateway started, before the first turn.
    pub idle_kib: u64,
    /// The process's peak so far (the run's, unless something before it was bigger).
    pub peak_kib: u64,
    /// After the gateway stopped and the run's state was dropped.
    pub after_kib: u64,
}

impl LoadReport {
    /// The latency at quantile `q` (0.0..=1.0), nearest rank; zero when nothing was measured.
    pub fn quantile(&self, q: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let rank = (q.clamp(0.0, 1.0) * self.latencies.len() as f64).ceil() as usize;
        self.latencies[rank.saturating_sub(1).min(self.latencies.len() - 1)]
    }

    /// For people: sessions, requests, p50 and p99, problems; then, when measured, resident
    /// memory on a line of its own (each line within 100 columns).
    pub fn summary(&self) -> String {
        let memory = self
            .memory
            .map(|m| {
                let mb = |kib: u64| kib as f64 / 1024.0;
                format!(
                    "\nRSS idle {:.1} MB, peak {:.1} MB, after {:.1} MB",
                    mb(m.idle_kib),
                    mb(m.peak_kib),
                    mb(m.after_kib)
                )
            })
            .unwrap_or_default();
        format!(
            "{} sessions, {} provider requests, turn latency p50 {:.1} ms, p99 {:.1} ms, {} problems{memory}",
            self.sessions,
            self.provider_requests,
            self.quantile(0.50).as_secs_f64() * 1000.0,
            self.quantile(0.99).as_secs_f64() * 1000.0,
            self.problems.len()
        )
    }
}

/// The session key and prompt of session `i`.
pub fn session_turn(i: usize) -> (String, String, String) {
    let key = format!("load-{i:04}");
    let target = format!("fake_plugin_tool_{:02}", i % FAKE_TOOLS + 1);
    let prompt = format!("tool search qa check target={target} session {key}");
    (key, target, prompt)
}

/// Runs `sessions` concurrent one-turn sessions through one embedded gateway (`tools` mode) and
/// checks every session log and the provider journal.
pub async fn run_load(sessions: usize) -> Result<LoadReport, Error> {
    let in_flight = turns_in_flight()?;
    let provider = MockProvider::start().await?;
    let state = temp_dir("tsqa-load-")?;
    let config = crate::config::parse(&gateway_config(&provider.base_url()), "load config")?;
    let gateway = crate::gateway::serve(
        config,
        state.path().to_path_buf(),
        ([127, 0, 0, 1], 0).into(),
    )
    .await?;
    let http = reqwest::Client::builder()
        .timeout(crate::targets::TURN_TIMEOUT)
        .build()
        .map_err(|e| Error::Machine(format!("http client: {e}")))?;
    let url = format!("{}/v1/responses", gateway.base_url());
    let idle = process::own();
    let turns = (0..sessions).map(|i| one_turn(&http, &url, i));
    let results: Vec<Result<Duration, TurnProblem>> = futures::stream::iter(turns)
        .buffered(in_flight.min(sessions).max(1))
        .collect()
        .await;
    gateway.stop().await;
    drop(http);
    machine_failures(&results, sessions)?;

    let mut problems = Vec::new();
    let mut latencies = Vec::new();
    let mut logged_provider_requests = 0;
    for (i, result) in results.into_iter().enumerate() {
        match result {
            Ok(elapsed) => latencies.push(elapsed),
            Err(TurnProblem::Wrong(problem) | TurnProblem::Machine(problem)) => {
                problems.push(problem)
            }
        }
        let (key, target, prompt) = session_turn(i);
        let path = session_log_path(state.path(), AGENT, &session_id_for_key(&key));
        match SessionLog::read(&path) {
            Ok(log) => {
                logged_provider_requests += log
                    .records
                    .iter()
                    .filter(|r| matches!(r, SessionRecord::ProviderRequest(_)))
                    .count();
                problems.extend(check_session(&key, &target, &prompt, &log.records));
            }
            Err(e) => problems.push(e),
        }
    }
    let provider_requests = provider.journal().all().len();
    if provider_requests != sessions * REQUESTS_PER_TURN {
        problems.push(format!(
            "provider journaled {provider_requests} requests, expected {}",
            sessions * REQUESTS_PER_TURN
        ));
    }
    if logged_provider_requests != provider_requests {
        problems.push(format!(
            "session logs record {logged_provider_requests} provider requests, the provider saw {provider_requests}"
        ));
    }
    drop(provider);
    latencies.sort();
    problems.sort();
    let memory = idle.zip(process::own()).map(|(idle, after)| LoadMemory {
        idle_kib: idle.now_kib,
        peak_kib: after.peak_kib,
        after_kib: after.now_kib,
    });
    Ok(LoadReport {
        sessions,
        latencies,
        provider_requests,
        logged_provider_requests,
        problems,
        memory,
    })
}

fn gateway_config(provider_base_url: &str) -> String {
    json!({
        "models": { "providers": { "mock": { "baseUrl": provider_base_url, "apiKey": "qa-key" } } },
        "agents": { "defaults": { "model": { "primary": "mock/qa" } }, "list": [{ "id": AGENT }] },
        "tools": { "toolSearch": { "mode": "tools" } },
        "catalog": { "fakePlugin": { "id": crate::catalog::fake::FIXTURE_PLUGIN_ID, "size": FAKE_TOOLS } },
    })
    .to_string()
}

/// Open files one turn in flight holds at most: the harness's connection, the gateway's end of
/// it, the gateway's connection to the provider, the provider's end of that, the session log.
pub const FILES_PER_TURN: u64 = 5;
/// Open files kept for everything else (runtime, listeners, the binary's own files).
const FILES_RESERVED: u64 = 64;

/// How many turns may be in flight at once: the open-file limit, raised to its hard maximum
/// first, divided among them. A limit too small for even one turn is a machine error (exit 3).
fn turns_in_flight() -> Result<usize, Error> {
    use rustix::process::{getrlimit, setrlimit, Resource};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current != limit.maximum {
        limit.current = limit.maximum;
        // Not allowed to raise it: go on within the soft limit.
        let _ = setrlimit(Resource::Nofile, limit);
    }
    let open_files = getrlimit(Resource::Nofile).current.unwrap_or(u64::MAX);
    let turns = open_files.saturating_sub(FILES_RESERVED) / FILES_PER_TURN;
    if turns == 0 {
        return Err(Error::Machine(format!(
            "load needs at least {} open files, the limit is {open_files} (raise it with ulimit -n)",
            FILES_RESERVED + FILES_PER_TURN
        )));
    }
    Ok(usize::try_from(turns).unwrap_or(usize::MAX))
}

/// Why one turn did not count: the machine (no connection, a gateway or provider error) or a
/// wrong answer.
#[derive(Debug, Clone, PartialEq)]
enum TurnProblem {
    Machine(String),
    Wrong(String),
}

/// A machine failure in any turn is the run's error (exit 3), with the first cause: the run
/// says nothing about the gateway's sessions then.
fn machine_failures(
    results: &[Result<Duration, TurnProblem>],
    sessions: usize,
) -> Result<(), Error> {
    let failed: Vec<&String> = results
        .iter()
        .filter_map(|r| match r {
            Err(TurnProblem::Machine(cause)) => Some(cause),
            _ => None,
        })
        .collect();
    match failed.first() {
        None => Ok(()),
        Some(first) => Err(Error::Machine(format!(
            "{} of {sessions} turns failed for a reason outside the gateway's sessions; the first: {first}",
            failed.len()
        ))),
    }
}

/// Sends session `i`'s turn; the latency, or what went wrong.
async fn one_turn(http: &reqwest::Client, url: &str, i: usize) -> Result<Duration, TurnProblem> {
    let (key, target, prompt) = session_turn(i);
    let started = Instant::now();
    let response = http
        .post(url)
        .header(AGENT_HEADER, AGENT)
        .header(SESSION_HEADER, &key)
        .json(&json!({ "model": "openclaw/qa", "input": prompt, "stream": false }))
        .send()
        .await
        .map_err(|e| TurnProblem::Machine(format!("{key}: request failed: {}", error_chain(&e))))?;
    let status = response.status().as_u16();
    if status >= 500 {
        let text = response.text().await.unwrap_or_default();
        return Err(TurnProblem::Machine(format!(
            "{key}: the gateway answered HTTP {status}: {text}"
        )));
    }
    let body: ResponseBody = response
        .json()
        .await
        .map_err(|e| TurnProblem::Wrong(format!("{key}: answer is not a Responses object: {e}")))?;
    let elapsed = started.elapsed();
    let text = body.text();
    let want = format!("{FAKE_OK} {target}");
    if status != 200 || !text.contains(&want) {
        return Err(TurnProblem::Wrong(format!(
            "{key}: HTTP {status}, answer {text:?} lacks {want:?}"
        )));
    }
    Ok(elapsed)
}

/// An error with its causes (`error sending request: … : Too many open files`).
fn error_chain(error: &dyn std::error::Error) -> String {
    std::iter::successors(Some(error), |e| e.source())
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// What is wrong with one session's log: its shape, and any record that belongs to another session.
pub fn check_session(
    key: &str,
    target: &str,
    prompt: &str,
    records: &[SessionRecord],
) -> Vec<String> {
    let mut problems = Vec::new();
    let kinds: Vec<&str> = records.iter().map(SessionRecord::kind).collect();
    if kinds != TURN_RECORDS {
        problems.push(format!(
            "{key}: record types {kinds:?}, expected {TURN_RECORDS:?}"
        ));
    }
    let user_texts: Vec<&str> = records
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter(|m| m.role == Role::User)
        .filter_map(|m| m.text.as_deref())
        .collect();
    if user_texts != [prompt] {
        problems.push(format!(
            "{key}: user messages {user_texts:?}, expected [{prompt:?}]"
        ));
    }
    for record in records {
        if let Some(other) = foreign_tool(record, target) {
            problems.push(format!(
                "{key}: a record names {other}, which belongs to another session"
            ));
        }
    }
    problems
}

/// A fake tool named by a tool call or result that is not this session's target.
fn foreign_tool(record: &SessionRecord, target: &str) -> Option<String> {
    let name = match record {
        SessionRecord::ToolResult(r) => r.tool_name(),
        SessionRecord::Message(m) => m.tool_call.as_ref().map(|c| c.name.as_str())?,
        SessionRecord::ClientToolCall(c) => c.tool_name.as_str(),
        _ => return None,
    };
    (name.starts_with("fake_plugin_tool_") && name != target).then(|| name.to_string())
}

/// The `load` command: exit 0 when every session is complete and separate, 1 when not (each
/// problem on stderr).
pub async fn command(sessions: usize, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let report = run_load(sessions).await?;
    crate::output::emit(out, &format!("{}\n", report.summary()))?;
    for problem in &report.problems {
        crate::output::warn(&format!("problem: {problem}"));
    }
    Ok(if report.problems.is_empty() {
        Exit::OK
    } else {
        Exit::FAILED
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(millis: &[u64]) -> LoadReport {
        LoadReport {
            sessions: millis.len(),
            latencies: millis.iter().map(|m| Duration::from_millis(*m)).collect(),
            provider_requests: 0,
            logged_provider_requests: 0,
            problems: Vec::new(),
            memory: None,
        }
    }

    #[test]
    fn quantiles_use_the_nearest_rank() {
        let r = report(&(1..=100).collect::<Vec<_>>());
        assert_eq!(r.quantile(0.50), Duration::from_millis(50));
        assert_eq!(r.quantile(0.99), Duration::from_millis(99));
        assert_eq!(r.quantile(1.0), Duration::from_millis(100));
        assert_eq!(report(&[]).quantile(0.5), Duration::ZERO);
        assert_eq!(report(&[7]).quantile(0.99), Duration::from_millis(7));
    }

    #[test]
    fn a_record_of_another_session_is_reported() {
        let records =
            vec![
                serde_json::from_value(json!({ "type": "toolResult", "toolCallId": "c",
            "toolName": "fake_plugin_tool_02", "isError": false, "source": null, "output": "" }))
                .unwrap(),
            ];
        let problems = check_session("load-0000", "fake_plugin_tool_01", "p", &records);
        assert_eq!(
            problems.last().map(String::as_str),
            Some("load-0000: a record names fake_plugin_tool_02, which belongs to another session")
        );
        assert_eq!(problems.len(), 3);
    }
}
