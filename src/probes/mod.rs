//! The hostile-code probes through a whole gateway: one gateway start in code mode, one turn in
//! which the scripted model calls `tool_search_code` once per probe of
//! [`crate::sandbox::probes::PROBES`], then a verdict per probe from what the session log (or
//! OpenClaw's transcript) says the tool returned and from what the harness planted and watched.
//!
//! Planted per run: a secret file in a temp dir, a secret environment variable
//! ([`SECRET_ENV`]) for the gateway, and per probe its own marker path and its own loopback
//! canary listener. A probe **escaped** when a secret shows up in its tool result, its canary saw
//! a connection, its marker file exists, or it returned a value that only an escape produces. It
//! is **contained** when the result is an error or exactly the harmless value, and
//! **inconclusive** otherwise (no result at all, or a value that proves neither).

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;
use serde_json::{json, Value};

use crate::config::TOOL_SEARCH_CODE;
use crate::drive::lane::send_turn;
use crate::error::{temp_dir, Error, Exit};
use crate::outcome::findings::{self, Expectations};
use crate::output::{cut, first_line};
use crate::output::{emit, Format};
use crate::protocol::SessionRecord;
use crate::provider::{MockProvider, ProviderOptions, ScriptedTurn};
use crate::sandbox::probes::{Area, Probe, ProbeSite};
use crate::scenario::{load_all, scenario_from_json, Lane, Scenario};
use crate::targets::{LaneSetup, Target, TargetPick};

/// The environment variable holding the planted secret.
pub const SECRET_ENV: &str = "TOOLSEARCH_QA_PROBE_SECRET";
/// `tools.toolSearch.codeTimeoutMs` of the probe lane: long enough for a cold Node child on a
/// loaded machine, short enough that the three timeout probes cost seconds, not minutes.
pub const CODE_TIMEOUT_MS: u64 = 5_000;
/// The model's text answer after the last probe.
pub const DONE_TEXT: &str = "PROBES DONE";
/// Characters of a tool result kept in a report.
const RESULT_CHARS: usize = 240;

/// How one probe ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeOutcome {
    Contained,
    Escaped,
    Inconclusive,
}

impl fmt::Display for ProbeOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ProbeOutcome::Contained => "contained",
            ProbeOutcome::Escaped => "ESCAPED",
            ProbeOutcome::Inconclusive => "inconclusive",
        })
    }
}

/// The tool result a probe got, as the session log recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResult {
    pub is_error: bool,
    pub text: String,
}

/// What the harness saw of one probe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observation {
    /// The result the session log recorded; `None`: it recorded none for this probe.
    pub result: Option<ToolResult>,
    /// The tool output the model was sent (the next provider request), when there was one. It
    /// is what reached the model, so a secret in it counts even when a transcript redacts it.
    pub model_output: Option<String>,
    pub canary_connections: usize,
    pub marker_written: bool,
}

/// One report row.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeVerdict {
    pub name: String,
    pub area: Area,
    pub attempt: String,
    pub outcome: ProbeOutcome,
    /// Why, in a few words.
    pub evidence: String,
    pub secret_seen: bool,
    pub canary_connections: usize,
    pub marker_written: bool,
    /// Why the escape is accepted for this product (from its expectations file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<String>,
    /// The tool result, cut to a few hundred characters (`null`: none).
    pub result: Option<ToolResult>,
}

/// The `value` of a successful `tool_search_code` result `{ok: true, value, …}`.
pub fn result_value(result: &ToolResult) -> Option<Value> {
    if result.is_error {
        return None;
    }
    let parsed: Value = serde_json::from_str(&result.text).ok()?;
    (parsed.get("ok") == Some(&Value::Bool(true))).then(|| parsed["value"].clone())
}

/// Judges one probe from what was observed; `secrets` are the planted texts.
pub fn judge(probe: &Probe, observed: &Observation, secrets: &[&str]) -> ProbeVerdict {
    let texts = [
        observed.result.as_ref().map(|r| r.text.as_str()),
        observed.model_output.as_deref(),
    ];
    let secret_seen = texts
        .iter()
        .flatten()
        .any(|text| secrets.iter().any(|s| !s.is_empty() && text.contains(s)));
    // A result the session log lacks is read from what the model was sent. Either way, the
    // gateway's `{"status": "error", …}` envelope is an error, flagged or not (2026.5.12 returns
    // a tool's failure as that envelope in a plain result: `buildToolExecutionErrorResult`).
    let result = observed
        .result
        .clone()
        .or_else(|| {
            observed.model_output.as_ref().map(|text| ToolResult {
                is_error: false,
                text: text.clone(),
            })
        })
        .map(|r| ToolResult {
            is_error: r.is_error || is_error_envelope(&r.text),
            text: r.text,
        });
    let value = result.as_ref().and_then(result_value);
    let value_text = value.as_ref().map(Value::to_string);
    let mut escapes = Vec::new();
    if secret_seen {
        escapes.push("a planted secret is in the result".to_string());
    }
    if observed.canary_connections > 0 {
        escapes.push(format!(
            "the canary saw {} connection(s)",
            observed.canary_connections
        ));
    }
    if observed.marker_written {
        escapes.push("the marker file was written".to_string());
    }
    if let Some(text) = value_text
        .as_deref()
        .filter(|t| probe.escape_values.contains(t))
    {
        escapes.push(format!("returned {text}"));
    }
    let (outcome, evidence) = if !escapes.is_empty() {
        (ProbeOutcome::Escaped, escapes.join("; "))
    } else {
        match (&result, value_text) {
            (None, _) => (
                ProbeOutcome::Inconclusive,
                "no tool result for this probe".to_string(),
            ),
            (Some(r), _) if r.is_error => (
                ProbeOutcome::Contained,
                format!("error: {}", first_line(&error_message(&r.text), 100)),
            ),
            (Some(_), Some(text)) if probe.harmless_values().contains(&text.as_str()) => {
                (ProbeOutcome::Contained, format!("returned {text}"))
            }
            (Some(_), Some(text)) => (
                ProbeOutcome::Inconclusive,
                format!("returned {}", cut(&text, 100)),
            ),
            (Some(r), None) => (
                ProbeOutcome::Inconclusive,
                format!("unreadable result: {}", first_line(&r.text, 100)),
            ),
        }
    };
    ProbeVerdict {
        name: probe.name.to_string(),
        area: probe.area,
        attempt: probe.attempt.to_string(),
        outcome,
        evidence,
        secret_seen,
        canary_connections: observed.canary_connections,
        marker_written: observed.marker_written,
        accepted: None,
        result: result.as_ref().map(|r| ToolResult {
            is_error: r.is_error,
            text: cut(&r.text, RESULT_CHARS),
        }),
    }
}

/// Whether a result's text is the gateway's error envelope (`{"status": "error", …}`).
fn is_error_envelope(text: &str) -> bool {
    serde_json::from_str::<Value>(text).is_ok_and(|v| v["status"] == "error")
}

/// The message of an error result: the `error` field when the text is a JSON error envelope
/// (`{"status": "error", "error": …}`), without a leading `Tool <name> failed: `.
fn error_message(text: &str) -> String {
    let parsed: Value = serde_json::from_str(text).unwrap_or(Value::Null);
    let message = parsed["error"].as_str().unwrap_or(text);
    let message = match message.strip_prefix("Tool ") {
        Some(rest) => rest
            .split_once(" failed: ")
            .map_or(message, |(_, after)| after),
        None => message,
    };
    message.to_string()
}

/// The probes of one target.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    pub target: String,
    /// The Node version of a real product's sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    pub ok: bool,
    pub code_timeout_ms: u64,
    pub gateway_starts: usize,
    /// Wall time of the whole run (gateway start, the turn, stop), for the reader; never checked.
    pub elapsed_ms: u128,
    pub contained: usize,
    pub escaped: usize,
    pub inconclusive: usize,
    /// Escapes accepted by the target's expectations file.
    pub accepted: usize,
    pub probes: Vec<ProbeVerdict>,
    /// Accepted escapes that did not escape in this run (each fails it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_escapes: Vec<StaleEscape>,
}

/// An accepted escape the probe no longer makes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StaleEscape {
    pub probe: String,
    pub outcome: ProbeOutcome,
    pub why: String,
}

impl ProbeReport {
    fn new(target: &str, elapsed_ms: u128, probes: Vec<ProbeVerdict>) -> ProbeReport {
        let count = |o: ProbeOutcome| probes.iter().filter(|p| p.outcome == o).count();
        let (contained, escaped, inconclusive) = (
            count(ProbeOutcome::Contained),
            count(ProbeOutcome::Escaped),
            count(ProbeOutcome::Inconclusive),
        );
        ProbeReport {
            target: target.to_string(),
            node: None,
            ok: contained == probes.len(),
            code_timeout_ms: CODE_TIMEOUT_MS,
            gateway_starts: 1,
            elapsed_ms,
            contained,
            escaped,
            inconclusive,
            accepted: 0,
            probes,
            stale_escapes: Vec::new(),
        }
    }

    /// Applies the accepted escapes of `expectations` (for the run's Node major): an escape whose
    /// evidence is exactly the accepted one no longer fails the run; another escape under the
    /// same name does (its evidence names the accepted one), and an accepted escape that did not
    /// happen fails it as stale.
    pub fn apply_expectations(&mut self, expectations: &Expectations) {
        let node = self
            .node
            .as_deref()
            .and_then(|n| n.trim_start_matches('v').split('.').next()?.parse().ok());
        for entry in expectations
            .probes
            .iter()
            .filter(|e| e.applies_to_node(node))
        {
            let Some(verdict) = self.probes.iter_mut().find(|p| p.name == entry.probe) else {
                continue;
            };
            let at = format!("{}:{}", expectations.origin, entry.line);
            match verdict.outcome {
                ProbeOutcome::Escaped if verdict.evidence == entry.observed => {
                    verdict.accepted = Some(entry.reason.clone());
                }
                ProbeOutcome::Escaped => {
                    verdict.evidence = format!(
                        "{}; not the accepted escape ({at} says {:?})",
                        verdict.evidence, entry.observed
                    );
                }
                outcome => self.stale_escapes.push(StaleEscape {
                    probe: entry.probe.clone(),
                    outcome,
                    why: format!(
                        "accepted as an escape ({at}) but {outcome} now: fixed upstream? remove the entry"
                    ),
                }),
            }
        }
        self.accepted = self.probes.iter().filter(|p| p.accepted.is_some()).count();
        self.ok =
            self.contained + self.accepted == self.probes.len() && self.stale_escapes.is_empty();
    }

    /// The outcome of a probe by name.
    pub fn outcome(&self, name: &str) -> Option<ProbeOutcome> {
        self.probes
            .iter()
            .find(|p| p.name == name)
            .map(|p| p.outcome)
    }

    /// The table: one row per probe, then a summary line.
    pub fn to_table(&self) -> String {
        let mut table = crate::output::bounded_table(["probe", "area", "outcome", "evidence"]);
        for p in &self.probes {
            let (outcome, evidence) = match &p.accepted {
                Some(reason) => (
                    format!("{} (accepted)", p.outcome),
                    format!("{}; accepted: {reason}", p.evidence),
                ),
                None => (p.outcome.to_string(), p.evidence.clone()),
            };
            table.add_row([p.name.clone(), p.area.to_string(), outcome, evidence]);
        }
        for stale in &self.stale_escapes {
            table.add_row([
                stale.probe.clone(),
                "-".into(),
                "STALE".into(),
                stale.why.clone(),
            ]);
        }
        crate::output::keep_words(&mut table);
        format!(
            "probes on {} (tool_search_code, codeTimeoutMs {}, {} gateway start, {:.1} s)\n{table}\n{}\n",
            self.target,
            self.code_timeout_ms,
            self.gateway_starts,
            self.elapsed_ms as f64 / 1000.0,
            self.summary()
        )
    }

    /// `N contained, M ESCAPED, K inconclusive` (with the accepted and stale escapes).
    pub fn summary(&self) -> String {
        let mut line = format!(
            "{}: {} contained, {} ESCAPED, {} inconclusive",
            self.target, self.contained, self.escaped, self.inconclusive
        );
        if self.accepted > 0 {
            line.push_str(&format!(" ({} accepted)", self.accepted));
        }
        if !self.stale_escapes.is_empty() {
            line.push_str(&format!(
                ", {} accepted escape(s) no longer escape",
                self.stale_escapes.len()
            ));
        }
        line
    }
}

/// The JSON of one or more reports: `{ok, targets: [report…]}`.
pub fn reports_json(reports: &[ProbeReport]) -> Value {
    json!({ "ok": reports.iter().all(|r| r.ok), "targets": reports })
}

/// A loopback listener counting the connections it accepts; stops when dropped.
pub struct Canary {
    pub port: u16,
    hits: Arc<AtomicUsize>,
    task: tokio::task::JoinHandle<()>,
}

impl Canary {
    pub async fn start() -> Result<Canary, Error> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
            .await
            .map_err(|e| Error::Machine(format!("cannot bind a loopback canary: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Error::Machine(format!("canary address: {e}")))?
            .port();
        let hits = Arc::new(AtomicUsize::new(0));
        let seen = hits.clone();
        let task = tokio::spawn(async move {
            while listener.accept().await.is_ok() {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        });
        Ok(Canary { port, hits, task })
    }

    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What a run plants: a secret file and a secret for the gateway's environment.
pub struct Plant {
    dir: tempfile::TempDir,
    pub file_secret: String,
    pub env_secret: String,
}

impl Plant {
    /// A fresh temp dir with `secret.txt`. `env_secret` is the value the gateway gets in
    /// [`SECRET_ENV`] (for the in-process embedded gateway, the caller sets it in its own
    /// environment before any thread starts; see `main.rs`).
    pub fn new(env_secret: &str) -> Result<Plant, Error> {
        let dir = temp_dir("tsqa-probes-")?;
        let file_secret = format!("TSQA-FILE-SECRET-{}", unique_suffix());
        let path = dir.path().join("secret.txt");
        std::fs::write(&path, &file_secret).map_err(Error::io("cannot write", &path))?;
        Ok(Plant {
            dir,
            file_secret,
            env_secret: env_secret.to_string(),
        })
    }

    pub fn secret_file(&self) -> PathBuf {
        self.dir.path().join("secret.txt")
    }

    pub fn marker(&self, probe: &Probe) -> PathBuf {
        self.dir.path().join(format!("marker-{}", probe.name))
    }
}

/// A value unlikely to appear anywhere by chance.
pub fn unique_suffix() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{:x}{:x}", nanos, std::process::id())
}

/// A new secret for [`SECRET_ENV`].
pub fn new_env_secret() -> String {
    format!("TSQA-ENV-SECRET-{}", unique_suffix())
}

/// Probes per turn: the embedded gateway allows 8 provider rounds per turn, and each probe is
/// one round plus the closing text answer.
pub const PROBES_PER_TURN: usize = 6;

/// The probe scenario: code mode with [`CODE_TIMEOUT_MS`]; the turns' prompts and scripts are
/// set per batch.
fn probe_scenario() -> Result<Scenario, Error> {
    let scenario = json!({
        "id": "sandbox-probes",
        "title": "hostile tool_search_code probes",
        "agent": "qa",
        "prompt": "run sandbox probe batch 1.",
        "target_tool": "fake_plugin_tool_01",
        "max_output_tokens": 256,
        "catalog": { "plugin_id": crate::catalog::fake::FIXTURE_PLUGIN_ID, "size": 3 },
        "lanes": [{ "name": "code-probes",
                    "tool_search": { "mode": "code", "codeTimeoutMs": CODE_TIMEOUT_MS } }],
    });
    Ok(scenario_from_json(scenario, "probe scenario")?)
}

/// One turn's prompt key and script: a `tool_search_code` call per code, then a text answer.
fn batch_script(batch: usize, codes: &[String]) -> (String, Vec<ScriptedTurn>) {
    let mut script: Vec<ScriptedTurn> = codes
        .iter()
        .map(|code| ScriptedTurn::ToolCall {
            name: TOOL_SEARCH_CODE.into(),
            arguments: json!({ "code": code }),
        })
        .collect();
    script.push(ScriptedTurn::Text(DONE_TEXT.into()));
    (format!("probe batch {batch}."), script)
}

/// The first line of every probe's code as the harness sends it: `// probe <name>`. Results are
/// matched to probes by it (a gateway may redact other parts of the code in its transcript).
fn tag(name: &str) -> String {
    format!("// probe {name}\n")
}

/// The probe a `tool_search_code` code belongs to.
fn tagged<'p>(code: &str, probes: &'p [Probe]) -> Option<&'p Probe> {
    probes.iter().find(|p| code.starts_with(&tag(p.name)))
}

/// The `tool_search_code` results in `session`, by probe name.
fn session_results(session: &[SessionRecord], probes: &[Probe]) -> HashMap<String, ToolResult> {
    let mut calls = HashMap::new();
    let code_calls = session
        .iter()
        .filter_map(SessionRecord::as_message)
        .filter_map(|m| m.tool_call.as_ref())
        .filter(|call| call.name == TOOL_SEARCH_CODE);
    for call in code_calls {
        let arguments: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
        if let Some(probe) = arguments["code"].as_str().and_then(|c| tagged(c, probes)) {
            calls.insert(call.id.clone(), probe.name.to_string());
        }
    }
    let mut results = HashMap::new();
    let code_results = session
        .iter()
        .filter_map(SessionRecord::as_tool_result)
        .filter(|r| r.tool_name() == TOOL_SEARCH_CODE && r.parent_tool_call_id().is_none());
    for record in code_results {
        let Some(name) = calls.get(record.tool_call_id()) else {
            continue;
        };
        let result = ToolResult {
            is_error: record.is_error(),
            text: record.output_text(),
        };
        results.entry(name.clone()).or_insert(result);
    }
    results
}

/// Runs `probes` on `target` with one gateway start: the probes go in batches of at most
/// [`PROBES_PER_TURN`] (dealt round-robin), one session turn per batch, the turns concurrent. The gateway gets [`SECRET_ENV`] =
/// `plant.env_secret` when it runs as its own process. A turn the gateway answers with an error
/// leaves its probes without results (inconclusive, with the error as evidence); a gateway that
/// does not start is an infrastructure error.
pub async fn run_probes(
    target: &dyn Target,
    probes: &[Probe],
    plant: &Plant,
) -> Result<ProbeReport, Error> {
    let started = Instant::now();
    let secret_file = plant.secret_file();
    let mut canaries = Vec::new();
    let mut codes = Vec::new();
    for probe in probes {
        let canary = Canary::start().await?;
        let marker = plant.marker(probe);
        let code = probe.render(&ProbeSite {
            secret_file: &secret_file,
            secret_env: SECRET_ENV,
            marker_file: &marker,
            canary_port: canary.port,
        });
        codes.push(format!("{}{code}", tag(probe.name)));
        canaries.push(canary);
    }
    // Probes are dealt out round-robin, so the slow ones (those that run into the code timeout)
    // land in different batches, and the batches run as concurrent turns.
    let count = codes.len().div_ceil(PROBES_PER_TURN).max(1);
    let batches: Vec<(String, Vec<ScriptedTurn>)> = (0..count)
        .map(|b| {
            let dealt: Vec<String> = codes.iter().skip(b).step_by(count).cloned().collect();
            batch_script(b + 1, &dealt)
        })
        .collect();
    let provider = MockProvider::start_with(ProviderOptions {
        scripts_by_prompt: batches.clone(),
        ..ProviderOptions::default()
    })
    .await?;
    let scenario = probe_scenario()?;
    let lane: &Lane = &scenario.lanes[0];
    let work = temp_dir("tsqa-probes-gateway-")?;
    let setup = LaneSetup {
        scenario: &scenario,
        lane,
        provider_base_url: provider.base_url(),
        work_dir: work.path().to_path_buf(),
        session_key: "sandbox-probes".into(),
        env: vec![(SECRET_ENV.to_string(), plant.env_secret.clone())],
    };
    let gateway = target.start(&setup).await?;
    let mut turn_errors = Vec::new();
    let mut session = Vec::new();
    let base_url = gateway.base_url();
    let turns = batches.iter().enumerate().map(|(i, (key, _))| {
        let mut turn = scenario.clone();
        turn.prompt = format!("run sandbox {key}");
        let session_key = format!("sandbox-probes-{}", i + 1);
        let base_url = base_url.clone();
        async move {
            let sent = send_turn(&base_url, &turn, lane, &session_key, target.turn_timeout()).await;
            (sent, session_key)
        }
    });
    let answers = futures::future::join_all(turns).await;
    for (i, (sent, session_key)) in answers.into_iter().enumerate() {
        match sent {
            Ok((status, _)) if (200..300).contains(&status) => {}
            Ok((status, body)) => turn_errors.push(format!(
                "batch {}: HTTP {status}: {}",
                i + 1,
                first_line(&crate::drive::lane::error_message(&body), 120)
            )),
            Err(e) => turn_errors.push(format!(
                "batch {}: {}",
                i + 1,
                first_line(&e.to_string(), 120)
            )),
        }
        match gateway.session_log(&scenario.agent, &session_key) {
            Ok(log) => session.extend(log.records),
            Err(e) => turn_errors.push(format!("batch {}: session log: {e}", i + 1)),
        }
    }
    gateway.stop().await;
    target.finish().await;
    let results = session_results(&session, probes);
    let outputs = provider
        .journal()
        .code_outputs(|code| tagged(code, probes).map(|p| p.name.to_string()));
    drop(provider);
    let secrets = [plant.file_secret.as_str(), plant.env_secret.as_str()];
    let verdicts = probes
        .iter()
        .zip(&canaries)
        .enumerate()
        .map(|(i, (probe, canary))| {
            let observed = Observation {
                result: results.get(probe.name).cloned(),
                model_output: outputs.get(probe.name).cloned(),
                canary_connections: canary.hits(),
                marker_written: marker_exists(&plant.marker(probe)),
            };
            let mut verdict = judge(probe, &observed, &secrets);
            let batch = i % count + 1;
            if observed.result.is_none() && observed.model_output.is_none() {
                let prefix = format!("batch {batch}:");
                if let Some(error) = turn_errors.iter().find(|e| e.starts_with(&prefix)) {
                    verdict.evidence = format!("{}; {error}", verdict.evidence);
                }
            }
            verdict
        })
        .collect();
    Ok(ProbeReport::new(
        target.name(),
        started.elapsed().as_millis(),
        verdicts,
    ))
}

fn marker_exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}

/// What a probes run covers: the targets, the probes by name (none: every one), the accepted
/// escapes to apply instead of the committed ones, and the secret planted in the environment.
#[derive(Debug, Clone)]
pub struct ProbesRequest {
    pub target: TargetPick,
    pub names: Vec<String>,
    pub expectations: Option<PathBuf>,
    pub env_secret: String,
}

/// Runs every probe (or the named ones) on each chosen target, with its accepted escapes
/// applied; one typed report per target. A probe the run could not judge is in its report
/// ([`inconclusive`] says so).
pub async fn run(request: &ProbesRequest) -> Result<Vec<ProbeReport>, Error> {
    use crate::sandbox::probes::{probe, PROBES};
    let mut selected = Vec::new();
    for name in &request.names {
        let Some(p) = probe(name) else {
            let known: Vec<&str> = PROBES.iter().map(|p| p.name).collect();
            return Err(Error::Usage(format!(
                "unknown probe {name:?}; known: {}",
                known.join(", ")
            )));
        };
        selected.push(*p);
    }
    if selected.is_empty() {
        selected = PROBES.to_vec();
    }
    let targets = request.target.targets()?;
    let known = load_all(&[])?;
    let expectations = targets
        .iter()
        .map(|t| match (t.label(), request.expectations.as_deref()) {
            (None, _) => Ok(None),
            (Some(_), Some(path)) => Expectations::read(path, &known).map(Some),
            (Some(label), None) => findings::built_in(&label, &known),
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let plant = Plant::new(&request.env_secret)?;
    let mut reports = Vec::new();
    for (target, expectations) in targets.iter().zip(&expectations) {
        let mut report = run_probes(target.as_ref(), &selected, &plant).await?;
        report.node = target.product().map(|p| p.node);
        if let Some(expectations) = expectations {
            report.apply_expectations(expectations);
        }
        reports.push(report);
    }
    Ok(reports)
}

/// The error of a run with probes it could not judge (an incomplete run is not a verdict).
pub fn inconclusive(reports: &[ProbeReport]) -> Option<Error> {
    let inconclusive: usize = reports.iter().map(|r| r.inconclusive).sum();
    (inconclusive > 0).then(|| {
        Error::Machine(format!(
            "{inconclusive} probe(s) inconclusive: the run could not judge them (see the evidence column)"
        ))
    })
}

/// The `probes` command: [`run`], then the reports printed. Exit 0 when every probe is
/// contained, 1 when any escaped, 3 when any is inconclusive (the run could not judge it: an
/// incomplete run is not a verdict).
pub async fn command(
    request: &ProbesRequest,
    format: Format,
    out: &mut dyn std::io::Write,
) -> Result<u8, Error> {
    let reports = run(request).await?;
    let text = match format {
        Format::Table => reports.iter().map(ProbeReport::to_table).collect(),
        Format::Json => format!("{:#}\n", reports_json(&reports)),
    };
    emit(out, &text)?;
    if let Some(error) = inconclusive(&reports) {
        return Err(error);
    }
    Ok(if reports.iter().all(|r| r.ok) {
        Exit::OK
    } else {
        Exit::FAILED
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::probes::probe;

    fn ok_value(value: Value) -> Option<ToolResult> {
        Some(ToolResult {
            is_error: false,
            text: json!({ "ok": true, "value": value, "logs": [] }).to_string(),
        })
    }

    fn observed(result: Option<ToolResult>) -> Observation {
        Observation {
            result,
            model_output: None,
            canary_connections: 0,
            marker_written: false,
        }
    }

    fn verdict(name: &str, observation: Observation) -> (ProbeOutcome, String) {
        let probe = probe(name).expect("known probe");
        let v = judge(probe, &observation, &["FILE-SECRET", "ENV-SECRET"]);
        (v.outcome, v.evidence)
    }

    /// A report on Node 24 of probes judged from what each returned (and how many connections
    /// the canary saw).
    fn report_of(returned: &[(&str, &str, usize)]) -> ProbeReport {
        let probes = returned
            .iter()
            .map(|(name, value, connections)| {
                let mut seen = observed(ok_value(json!(value)));
                seen.canary_connections = *connections;
                judge(probe(name).unwrap(), &seen, &[])
            })
            .collect();
        let mut report = ProbeReport::new("openclaw", 0, probes);
        report.node = Some("24.22.3".into());
        report
    }

    const ACCEPTED: &str = "[[probe]]\nprobe = \"import_error_constructor\"\nnode = [24, 26]\n\
        observed = 'returned \"object\"'\nreason = \"r1\"\n\
        [[probe]]\nprobe = \"escape_then_connect_canary\"\nnode = [24]\n\
        observed = 'the canary saw 1 connection(s); returned \"connected\"'\nreason = \"r2\"\n";

    #[test]
    fn accepted_escapes_pass_and_stale_or_other_majors_fail() {
        let scenarios = load_all(&[]).unwrap();
        let expectations = Expectations::parse(ACCEPTED, "e.toml", &scenarios).unwrap();
        let escaped = [
            ("import_error_constructor", "object", 0),
            ("escape_then_connect_canary", "connected", 1),
        ];
        let mut report = report_of(&escaped);
        report.apply_expectations(&expectations);
        assert!(report.ok, "{}", report.to_table());
        assert_eq!(report.accepted, 2);
        // On Node 26 the connection escape is not accepted.
        let mut on_26 = report_of(&escaped);
        on_26.node = Some("26.1.0".into());
        on_26.apply_expectations(&expectations);
        assert!(!on_26.ok);
        assert_eq!(on_26.accepted, 1);
        // An accepted escape that is contained now fails the run as stale.
        let mut fixed = report_of(&[
            ("import_error_constructor", "undefined", 0),
            ("escape_then_connect_canary", "connected", 1),
        ]);
        fixed.apply_expectations(&expectations);
        assert!(!fixed.ok);
        assert_eq!(fixed.stale_escapes.len(), 1);
        assert!(
            fixed
                .summary()
                .ends_with("1 accepted escape(s) no longer escape"),
            "{}",
            fixed.summary()
        );
    }

    /// An escape is accepted by its exact evidence: the same probe escaping worse (the import
    /// itself succeeding) is not covered by the entry for `"object"`.
    #[test]
    fn a_different_escape_under_an_accepted_name_fails() {
        let scenarios = load_all(&[]).unwrap();
        let expectations = Expectations::parse(ACCEPTED, "e.toml", &scenarios).unwrap();
        let mut worse = report_of(&[("import_error_constructor", "imported", 0)]);
        worse.apply_expectations(&expectations);
        assert!(!worse.ok, "{}", worse.to_table());
        assert_eq!(worse.accepted, 0);
        assert_eq!(
            worse.probes[0].evidence,
            "returned \"imported\"; not the accepted escape (e.toml:1 says \"returned \\\"object\\\"\")"
        );
    }

    #[test]
    fn errors_and_harmless_values_are_contained() {
        let error = Some(ToolResult {
            is_error: true,
            text: "code threw: ReferenceError: require is not defined\nmore".into(),
        });
        assert_eq!(
            verdict("read_secret_file_with_require", observed(error)),
            (
                ProbeOutcome::Contained,
                "error: code threw: ReferenceError: require is not defined".into()
            )
        );
        assert_eq!(
            verdict("this_constructor", observed(ok_value(json!("undefined")))),
            (ProbeOutcome::Contained, "returned \"undefined\"".into())
        );
        assert_eq!(
            verdict(
                "escape_then_read_secret_file",
                observed(ok_value(json!("denied")))
            ),
            (ProbeOutcome::Contained, "returned \"denied\"".into())
        );
    }

    /// 2026.5.12 records a tool's failure as the error envelope in a result not flagged as an
    /// error: that is contained, as a flagged error is; an envelope that carries a planted
    /// secret is still an escape.
    #[test]
    fn an_unflagged_error_envelope_is_an_error() {
        let envelope = |error: &str| {
            observed(Some(ToolResult {
                is_error: false,
                text: json!({"status": "error", "tool": "tool_search_code", "error": error})
                    .to_string(),
            }))
        };
        assert_eq!(
            verdict(
                "read_env",
                envelope("ReferenceError: process is not defined")
            ),
            (
                ProbeOutcome::Contained,
                "error: ReferenceError: process is not defined".into()
            )
        );
        assert_eq!(
            verdict("read_env", envelope("leaked ENV-SECRET")).0,
            ProbeOutcome::Escaped
        );
    }

    #[test]
    fn secrets_canaries_markers_and_escape_values_are_escapes() {
        assert_eq!(
            verdict(
                "escape_then_read_env",
                observed(ok_value(json!({ "secret": "ENV-SECRET" })))
            ),
            (
                ProbeOutcome::Escaped,
                "a planted secret is in the result".into()
            )
        );
        let mut hit = observed(ok_value(json!("connected")));
        hit.canary_connections = 1;
        assert_eq!(
            verdict("escape_then_connect_canary", hit),
            (
                ProbeOutcome::Escaped,
                "the canary saw 1 connection(s); returned \"connected\"".into()
            )
        );
        let mut written = observed(Some(ToolResult {
            is_error: true,
            text: "failed later".into(),
        }));
        written.marker_written = true;
        assert_eq!(
            verdict("write_marker_file", written),
            (ProbeOutcome::Escaped, "the marker file was written".into())
        );
        assert_eq!(
            verdict(
                "import_error_constructor",
                observed(ok_value(json!("object")))
            ),
            (ProbeOutcome::Escaped, "returned \"object\"".into())
        );
    }

    #[test]
    fn missing_or_unexpected_results_are_inconclusive() {
        assert_eq!(
            verdict("infinite_loop", observed(None)),
            (
                ProbeOutcome::Inconclusive,
                "no tool result for this probe".into()
            )
        );
        assert_eq!(
            verdict("this_constructor", observed(ok_value(json!("string")))),
            (ProbeOutcome::Inconclusive, "returned \"string\"".into())
        );
        let text = Some(ToolResult {
            is_error: false,
            text: "not json".into(),
        });
        assert_eq!(
            verdict("worker", observed(text)),
            (
                ProbeOutcome::Inconclusive,
                "unreadable result: not json".into()
            )
        );
    }
}
