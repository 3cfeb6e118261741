//! Running one lane: start the target's gateway, send the scenario's turn, and collect what the
//! provider received and what the session log says. Only data leaves this module
//! ([`LaneObservation`]).

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::invoke::post_invoke;
use super::observation::{FollowUp, LaneObservation, ProviderRefusal};
use super::plan::LanePlan;
use crate::error::{temp_dir, Error};
use crate::protocol::{
    sse, ResponseBody, AGENT_HEADER, CHAT_COMPLETIONS_PATH, RESPONSES_PATH, SESSION_HEADER,
};
use crate::provider::Journal;
use crate::scenario::{client_tool_declaration, ClaimId, Entry, Lane, Scenario};
use crate::targets::timing::{Step, Timed};
use crate::targets::{LaneSetup, Target};

/// Runs one lane on `target` against the provider whose journal is `journal`.
pub async fn run_lane(
    target: &dyn Target,
    plan: &LanePlan<'_>,
    provider_base_url: &str,
    journal: &Journal,
) -> Result<LaneObservation, Error> {
    let (scenario, lane) = (plan.scenario, plan.lane);
    let work = temp_dir(&format!("tsqa-{}-", lane.name))?;
    let key = plan.session_key.clone();
    let setup = LaneSetup {
        scenario,
        lane,
        provider_base_url: provider_base_url.to_string(),
        work_dir: work.path().to_path_buf(),
        session_key: key.clone(),
        env: Vec::new(),
    };
    let started = Instant::now();
    let gateway = target.start(&setup).await?;
    let mut steps = gateway.setup_steps();
    let url = gateway.base_url();
    let with_log = |e: Error| match gateway.diagnostics() {
        d if d.is_empty() => e,
        log => Error::WithGatewayLog {
            error: Box::new(e),
            target: target.name(),
            log,
        },
    };
    let timeout = target.turn_timeout();
    let cursor = journal.cursor();
    let body = turn_body(scenario, &scenario.prompt, lane.stream);
    let sent = timed(
        &mut steps,
        Step::Turn,
        post_turn(&url, &scenario.agent, &key, &body, timeout),
    )
    .await;
    let sent = sent.map_err(with_log);
    // The session log of the first turn; the follow-up turn, when the scenario has one, runs in
    // the same session after it.
    let read = Instant::now();
    let session = gateway.session_log(&scenario.agent, &key);
    steps.push(Timed::new(Step::SessionRead, read.elapsed()));
    let requests = journal.since(cursor);
    let follow_up = match (&sent, &scenario.follow_up) {
        (Ok((status, _)), Some(text)) if is_success(*status) => {
            let cursor = journal.cursor();
            let sent = match scenario.follow_up_entry {
                Entry::Responses => {
                    let body = turn_body(scenario, text, lane.stream);
                    let turn = post_turn(&url, &scenario.agent, &key, &body, timeout);
                    timed(&mut steps, Step::FollowUp, turn).await
                }
                Entry::ChatCompletions => {
                    let turn = post_chat_turn(&url, scenario, &key, text, timeout);
                    timed(&mut steps, Step::FollowUp, turn).await
                }
            };
            Some(
                sent.map_err(with_log)
                    .map(|answer| (answer, journal.since(cursor))),
            )
        }
        _ => None,
    };
    // What the lane's claims read beyond the turn (I1's invoke batch, E1's effective tools),
    // collected while the gateway still runs, after every turn of the session: asked alongside
    // the follow-up turn, `tools.effective` changed OpenClaw 2026.9.6's second-turn prompt (P1
    // failed on the direct lane in one of two runs).
    let invoke = match plan.collect.invoke.clone() {
        Some(request) => Some(
            timed(
                &mut steps,
                Step::Invoke,
                post_invoke(&url, request, timeout),
            )
            .await,
        ),
        None => None,
    };
    let effective = match plan.collect.effective_tools {
        true => {
            let call = gateway.effective_tools(&scenario.agent, &key);
            Some(timed(&mut steps, Step::EffectiveTools, call).await)
        }
        false => None,
    };
    let session_state = match plan.collect.session_state {
        true => Some(gateway.session_state(&scenario.agent, &key).await),
        false => None,
    };
    let follow_up_ok = follow_up
        .as_ref()
        .is_none_or(|f| f.as_ref().is_ok_and(|((status, _), _)| is_success(*status)));
    match matches!(&sent, Ok((status, _)) if is_success(*status)) && follow_up_ok {
        true => gateway.stop().await,
        false => gateway.discard().await,
    }
    let (status, body) = sent?;
    let mut refusal = judged_refusal(scenario, lane, status, &requests, 0);
    let response = match refusal {
        Some(_) => ResponseBody::default(),
        None => answer_of(scenario, lane, status, body)?,
    };
    let follow_up = match follow_up {
        Some(turn) => {
            let ((status, body), follow_requests) = turn?;
            refusal = judged_refusal(scenario, lane, status, &follow_requests, requests.len());
            Some(FollowUp {
                status,
                response: match refusal {
                    Some(_) => ResponseBody::default(),
                    None => answer_of(scenario, lane, status, body)?,
                },
                requests: follow_requests,
            })
        }
        None => None,
    };
    Ok(LaneObservation {
        lane: lane.name.clone(),
        session_key: key,
        status,
        response,
        requests,
        follow_up,
        session: session?,
        invoke,
        effective,
        session_state,
        elapsed: started.elapsed(),
        steps,
        refusal,
    })
}

/// The provider's refusal that ended a failed turn, when the lane's claims judge it: a native
/// lane with V1, which holds the gateway to requests the provider accepts. The provider refused
/// what the gateway sent, so the gateway failed, not the machine: V1 turns red with the
/// provider's error. Anywhere else (and with no refusal: an unreachable provider, a crash) the
/// failed turn stays the lane's error. `before`: requests of the lane before these.
fn judged_refusal(
    scenario: &Scenario,
    lane: &Lane,
    status: u16,
    requests: &[std::sync::Arc<crate::provider::JournalRecord>],
    before: usize,
) -> Option<ProviderRefusal> {
    let judged = lane.native.is_some() && scenario.names_claim_on(ClaimId::V1, lane);
    if is_success(status) || !judged {
        return None;
    }
    ProviderRefusal::find(requests).map(|r| ProviderRefusal {
        request: r.request + before,
        ..r
    })
}

/// Awaits `work`, recording how long it took as `step`.
async fn timed<T>(
    steps: &mut Vec<Timed>,
    step: Step,
    work: impl std::future::Future<Output = T>,
) -> T {
    let started = Instant::now();
    let done = work.await;
    steps.push(Timed::new(step, started.elapsed()));
    done
}

fn is_success(status: u16) -> bool {
    (200..300).contains(&status)
}

/// The gateway's answer to a turn as a Responses object; a status other than 2xx is the lane's
/// error.
fn answer_of(
    scenario: &Scenario,
    lane: &Lane,
    status: u16,
    body: Value,
) -> Result<ResponseBody, Error> {
    if !is_success(status) {
        return Err(Error::TurnFailed {
            scenario: scenario.id.clone(),
            lane: lane.name.clone(),
            status,
            message: error_message(&body),
        });
    }
    serde_json::from_value(body).map_err(|e| {
        Error::Http(format!(
            "scenario {} lane {}: the gateway's answer is not a Responses object: {e}",
            scenario.id, lane.name
        ))
    })
}

/// The gateway's `{error: {message}}`, or the whole body when it has none.
pub fn error_message(response: &Value) -> String {
    response["error"]["message"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| response.to_string())
}

/// A Responses request of one user message saying `text`.
pub fn message_body(text: &str, stream: bool) -> Value {
    json!({
        "model": "openclaw/qa",
        "input": [{ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": text }] }],
        "stream": stream,
    })
}

/// A turn of the scenario: one user message saying `text`, the scenario's client tools; `stream`
/// as the lane says.
pub fn turn_body(scenario: &Scenario, text: &str, stream: bool) -> Value {
    let mut body = message_body(text, stream);
    if let Some(max) = scenario.max_output_tokens {
        body["max_output_tokens"] = json!(max);
    }
    if !scenario.catalog.client.is_empty() {
        let tools: Vec<Value> = scenario
            .catalog
            .client
            .iter()
            .map(|name| client_tool_declaration(name))
            .collect();
        body["tools"] = json!(tools);
    }
    body
}

/// Sends the scenario's turn to a gateway; the status and the (decoded) body.
pub async fn send_turn(
    base_url: &str,
    scenario: &Scenario,
    lane: &Lane,
    session_key: &str,
    timeout: Duration,
) -> Result<(u16, Value), Error> {
    let body = turn_body(scenario, &scenario.prompt, lane.stream);
    post_turn(base_url, &scenario.agent, session_key, &body, timeout).await
}

/// Posts a Responses request `body` as `agent` in session `session_key`; the status and the
/// (decoded) body.
pub async fn post_turn(
    base_url: &str,
    agent: &str,
    session_key: &str,
    body: &Value,
    timeout: Duration,
) -> Result<(u16, Value), Error> {
    post_entry(base_url, RESPONSES_PATH, agent, session_key, body, timeout).await
}

/// Sends the user message `text` to `/v1/chat/completions` as `agent` in session
/// `session_key` (the product's `x-openclaw-session-key`: the same session as a Responses
/// turn); the status and the answer in the Responses shape the claims read: its `status`
/// (`completed` when the one choice finished with `stop`, else `incomplete`) and its message
/// as the one output item. The answer as received is kept under `chat_completion`.
pub async fn post_chat_turn(
    base_url: &str,
    scenario: &Scenario,
    session_key: &str,
    text: &str,
    timeout: Duration,
) -> Result<(u16, Value), Error> {
    let mut body = json!({
        "model": format!("openclaw/{}", scenario.agent),
        "messages": [{ "role": "user", "content": text }],
        "stream": false,
    });
    if let Some(max) = scenario.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    let path = CHAT_COMPLETIONS_PATH;
    let (status, answer) =
        post_entry(base_url, path, &scenario.agent, session_key, &body, timeout).await?;
    if !(200..300).contains(&status) {
        return Ok((status, answer));
    }
    let choice = &answer["choices"][0];
    let finished = match choice["finish_reason"].as_str() {
        Some("stop") => "completed",
        _ => "incomplete",
    };
    let reply = choice["message"]["content"].as_str().unwrap_or_default();
    let shaped = json!({
        "object": "response",
        "status": finished,
        "output": [{
            "type": "message",
            "role": "assistant",
            "content": [{ "type": "output_text", "text": reply }],
        }],
        "chat_completion": answer,
    });
    Ok((status, shaped))
}

async fn post_entry(
    base_url: &str,
    path: &str,
    agent: &str,
    session_key: &str,
    body: &Value,
    timeout: Duration,
) -> Result<(u16, Value), Error> {
    let url = format!("{base_url}{path}");
    let client = reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .map_err(|e| Error::Machine(format!("http client: {e}")))?;
    let response = client
        .post(&url)
        .header(AGENT_HEADER, agent)
        .header(SESSION_HEADER, session_key)
        .json(body)
        .send()
        .await
        .map_err(|e| match e.is_timeout() {
            true => Error::Http(format!(
                "POST {url}: no answer within {} s",
                timeout.as_secs()
            )),
            false => Error::Http(format!("POST {url}: {e}")),
        })?;
    let status = response.status().as_u16();
    let is_stream = response_is_stream(response.headers());
    let text = response
        .text()
        .await
        .map_err(|e| Error::Http(format!("POST {url}: reading body: {e}")))?;
    if is_stream && (200..300).contains(&status) {
        let body = sse::decode_stream(&text).map_err(|e| {
            Error::Http(format!(
                "POST {url} answered HTTP {status} with a broken stream: {e}"
            ))
        })?;
        return Ok((status, body));
    }
    let body = serde_json::from_str(&text).map_err(|e| {
        Error::Http(format!(
            "POST {url} answered HTTP {status} with a non-JSON body ({e}): {text}"
        ))
    })?;
    Ok((status, body))
}

fn response_is_stream(headers: &reqwest::header::HeaderMap) -> bool {
    headers
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/event-stream"))
}
