//! Fabricated observations for the claims' unit tests: a scenario (TOML) and, per lane, the
//! provider requests, session records and answer a gateway would have produced. Each test
//! starts from an observation on which its claim holds and breaks one thing.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::{evaluate, ClaimId, Verdict};
use crate::catalog::fake::fake_plugin_tools;
use crate::drive::invoke::{Effective, Invoked};
use crate::drive::observation::{FollowUp, LaneObservation, Observed};
use crate::drive::plan::{Collect, LanePlan};
use crate::outcome::SuiteReport;
use crate::protocol::session::SessionLog;
use crate::protocol::ResponseBody;
use crate::provider::{JournalRecord, RequestKind};
use crate::scenario::{parse_scenario, Scenario};
use crate::targets::{DirectorySurface, Surface, TargetKind};

pub const TARGET: &str = "fake_plugin_tool_17";
const PROMPT: &str = "tool search qa check target=fake_plugin_tool_17";

/// One lane's observation under construction.
#[derive(Clone)]
pub struct LaneFixture {
    pub name: String,
    pub tool_search: String,
    pub requests: Vec<(Value, Option<String>)>,
    /// Requests of a second turn in the same session (the scenario's `follow_up`).
    pub follow_up: Vec<(Value, Option<String>)>,
    /// Request bodies received as these bytes instead (by index into `requests`).
    pub raw: Vec<(usize, String)>,
    pub records: Vec<Value>,
    pub answer: String,
    /// The tool output a request carried (by index into `requests`), as the model saw it.
    pub tool_outputs: Vec<(usize, String)>,
    /// TOML added to the lane's table (e.g. its `[[lanes.script]]`).
    pub extra: String,
    /// The lane's invoke batch, as collected.
    pub invoke: Option<Invoked>,
    /// The session's effective tools, as collected.
    pub effective: Option<Effective>,
    /// The session's state after its turns, as collected.
    pub session_state: Option<crate::targets::SessionState>,
}

impl LaneFixture {
    fn observation(&self) -> LaneObservation {
        let raw_of = |i: usize| {
            self.raw
                .iter()
                .find(|(j, _)| *j == i)
                .map(|(_, r)| r.clone())
        };
        let requests: Vec<Arc<JournalRecord>> = self
            .requests
            .iter()
            .enumerate()
            .map(|(i, (body, planned))| {
                let mut record = journal_record(i as u64 + 1, body, planned, raw_of(i));
                record.tool_output = self
                    .tool_outputs
                    .iter()
                    .find(|(j, _)| *j == i)
                    .map(|(_, o)| o.clone());
                Arc::new(record)
            })
            .collect();
        let after = requests.len() as u64;
        let follow_up_requests: Vec<Arc<JournalRecord>> = self
            .follow_up
            .iter()
            .enumerate()
            .map(|(i, (body, planned))| {
                Arc::new(journal_record(after + i as u64 + 1, body, planned, None))
            })
            .collect();
        let response: ResponseBody = serde_json::from_value(json!({ "output": [
            { "type": "message", "content": [{ "type": "output_text", "text": self.answer }] }
        ] }))
        .expect("a response");
        LaneObservation {
            lane: self.name.clone(),
            session_key: format!("k-{}", self.name),
            status: 200,
            requests,
            follow_up: (!follow_up_requests.is_empty()).then(|| FollowUp {
                status: 200,
                response: response.clone(),
                requests: follow_up_requests,
            }),
            response,
            session: SessionLog::from_raw(self.records.clone(), "fixture").expect("records"),
            invoke: self.invoke.clone(),
            effective: self.effective.clone(),
            session_state: self.session_state.clone(),
            elapsed: Duration::ZERO,
            steps: Vec::new(),
            refusal: None,
        }
    }
}

/// A journaled request of `body`, received as `raw` when given (else the body's JSON text).
fn journal_record(
    cursor: u64,
    body: &Value,
    planned: &Option<String>,
    raw: Option<String>,
) -> JournalRecord {
    let raw = raw.unwrap_or_else(|| body.to_string());
    JournalRecord {
        cursor,
        raw_byte_length: raw.len(),
        raw: raw.into(),
        body: body.clone().into(),
        prompt: String::new(),
        all_input_text: String::new(),
        tool_output: None,
        request_kind: RequestKind::AgentInitial,
        planned_tool_name: planned.clone(),
        planned_wire_tool_name: None,
        planned_tool_args: None,
        outcome: "tool-call".into(),
        input_tokens: None,
        protocol: Default::default(),
        reply: None,
    }
}

/// A scenario and its observed lanes.
#[derive(Clone)]
pub struct Fixture {
    /// The target the lanes ran on (the embedded gateway unless a test says otherwise).
    pub target: TargetKind,
    extra: String,
    /// Lines added to the scenario's `[catalog]` table.
    catalog: String,
    pub lanes: Vec<LaneFixture>,
    /// The scenario's `target_tool` in place of [`TARGET`].
    target_tool: Option<String>,
    /// The surface's modes that declare tools picked from the prompt ([`Surface::prompt_chosen`]).
    prompt_chosen: std::collections::BTreeMap<crate::config::ToolSearchMode, usize>,
}

fn user_input() -> Value {
    json!([{ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": PROMPT }] }])
}

fn controls() -> Value {
    json!([{ "name": "tool_call" }, { "name": "tool_describe" }, { "name": "tool_search" }])
}

impl Fixture {
    /// One `tools` lane with nothing observed yet.
    pub fn tools_lane() -> Fixture {
        Fixture {
            target: TargetKind::Embedded,
            extra: String::new(),
            catalog: String::new(),
            target_tool: None,
            prompt_chosen: Default::default(),
            lanes: vec![LaneFixture {
                name: "tools".into(),
                tool_search: "{ mode = 'tools' }".into(),
                requests: Vec::new(),
                follow_up: Vec::new(),
                raw: Vec::new(),
                records: Vec::new(),
                answer: String::new(),
                tool_outputs: Vec::new(),
                extra: String::new(),
                invoke: None,
                effective: None,
                session_state: Some(crate::targets::SessionState::Idle),
            }],
        }
    }

    /// A `direct` and a `tools` lane on which C1–C5 hold: direct declares every fake schema and
    /// calls the target; tools declares only its controls and reaches it through
    /// `tool_search` → `tool_call`.
    pub fn passing_reference() -> Fixture {
        let answer = format!("FAKE_PLUGIN_OK {TARGET}");
        let declarations: Vec<Value> = fake_plugin_tools("tool-search-e2e-fixture", 36)
            .iter()
            .map(|t| json!(t.function_declaration()))
            .collect();
        let direct_body = json!({ "model": "m", "input": user_input(), "tools": declarations });
        let tools_body = json!({ "model": "m", "input": user_input(), "tools": controls() });
        let direct = LaneFixture {
            name: "direct".into(),
            tool_search: "false".into(),
            requests: vec![
                (direct_body.clone(), Some(TARGET.into())),
                (direct_body, None),
            ],
            follow_up: Vec::new(),
            raw: Vec::new(),
            records: vec![
                json!({ "type": "toolResult", "toolCallId": "call_1", "toolName": TARGET,
                "isError": false, "source": "openclaw", "output": answer }),
            ],
            answer: answer.clone(),
            tool_outputs: Vec::new(),
            extra: String::new(),
            invoke: None,
            effective: None,
            session_state: Some(crate::targets::SessionState::Idle),
        };
        let tools = LaneFixture {
            name: "tools".into(),
            tool_search: "{ mode = 'tools' }".into(),
            requests: vec![
                (tools_body.clone(), Some("tool_search".into())),
                (tools_body.clone(), Some("tool_call".into())),
                (tools_body, None),
            ],
            follow_up: Vec::new(),
            raw: Vec::new(),
            records: vec![
                json!({ "type": "toolResult", "toolCallId": "c2", "toolName": TARGET,
                "parentToolCallId": "call_2", "source": "openclaw", "isError": false, "output": answer }),
            ],
            answer,
            tool_outputs: Vec::new(),
            extra: String::new(),
            invoke: None,
            effective: None,
            session_state: Some(crate::targets::SessionState::Idle),
        };
        Fixture {
            target: TargetKind::Embedded,
            extra: String::new(),
            catalog: String::new(),
            target_tool: None,
            prompt_chosen: Default::default(),
            lanes: vec![direct, tools],
        }
    }

    /// Appends scenario-level TOML (e.g. `[[claims]]` tables).
    pub fn scenario_extra(mut self, toml: &str) -> Fixture {
        self.extra.push_str(toml);
        self
    }

    /// A surface whose `mode` declares up to `max` tools picked from the prompt.
    pub fn prompt_chosen(mut self, mode: crate::config::ToolSearchMode, max: usize) -> Fixture {
        self.prompt_chosen.insert(mode, max);
        self
    }

    /// Makes `name` the scenario's target (the lanes' records still name [`TARGET`]).
    pub fn with_target(mut self, name: &str) -> Fixture {
        self.target_tool = Some(name.to_string());
        self
    }

    fn target_tool(&self) -> &str {
        self.target_tool.as_deref().unwrap_or(TARGET)
    }

    /// Appends TOML to the table of the lane named `name` (its `[[lanes.script]]`, say).
    pub fn lane_extra(mut self, name: &str, toml: &str) -> Fixture {
        self.lane(name).extra.push_str(toml);
        self
    }

    /// Sets the catalogue's `description_template`.
    pub fn template(&mut self, template: &str) {
        self.catalog
            .push_str(&format!("description_template = '{template}'\n"));
    }

    /// Adds a catalogue field (a `[catalog]` line such as `mcp = ['qa']`).
    pub fn catalog_line(mut self, line: &str) -> Fixture {
        self.catalog.push_str(line);
        self.catalog.push('\n');
        self
    }

    /// Adds a provider request to the last lane.
    pub fn request(mut self, body: Value) -> Fixture {
        self.last().requests.push((body, None));
        self
    }

    /// Adds a session record to the last lane.
    pub fn record(mut self, record: Value) -> Fixture {
        self.last().records.push(record);
        self
    }

    fn last(&mut self) -> &mut LaneFixture {
        self.lanes.last_mut().expect("a lane")
    }

    /// The lane named `name`, to change before evaluating.
    pub fn lane(&mut self, name: &str) -> &mut LaneFixture {
        self.lanes
            .iter_mut()
            .find(|l| l.name == name)
            .expect("a lane of the fixture")
    }

    fn scenario_text(&self) -> String {
        let mut text = format!(
            "id='f'\ntitle='t'\nprompt='{PROMPT}'\ntarget_tool='{}'\n{}\n\
             [catalog]\nplugin_id='tool-search-e2e-fixture'\nsize=36\n{}{}",
            self.target_tool(),
            self.extra,
            match self.catalog.contains("core_tools") {
                true => "",
                false => "core_tools=false\n",
            },
            self.catalog
        );
        for lane in &self.lanes {
            text.push_str(&format!(
                "[[lanes]]\nname='{}'\ntool_search={}\n{}",
                lane.name, lane.tool_search, lane.extra
            ));
        }
        text
    }

    /// Runs `then` on the scenario and its observed lanes (on `target`).
    fn observe<R>(&self, then: impl FnOnce(&Scenario, &[Observed<'_>]) -> R) -> R {
        let scenario = parse_scenario(&self.scenario_text(), "fixture.toml").expect("scenario");
        let observations: Vec<LaneObservation> =
            self.lanes.iter().map(LaneFixture::observation).collect();
        let mut surface = Surface::of_profile(&scenario);
        surface.prompt_chosen = self.prompt_chosen.clone();
        if self.target == TargetKind::Openclaw {
            surface.directory = DirectorySurface::of_profile(
                &crate::profile::resolve(crate::profile::OPENCLAW).expect("the product profile"),
            );
        }
        let plans: Vec<LanePlan<'_>> = scenario
            .lanes
            .iter()
            .map(|lane| LanePlan {
                scenario: &scenario,
                lane,
                surface: surface.clone(),
                session_key: String::new(),
                collect: Collect::default(),
            })
            .collect();
        let observed: Vec<Observed<'_>> = plans
            .iter()
            .zip(&observations)
            .map(|(plan, o)| Observed::new(self.target, plan, o))
            .collect();
        then(&scenario, &observed)
    }

    /// Every verdict the scenario's claims give on these observations (on `target`).
    pub fn verdicts(&self) -> Vec<Verdict> {
        self.observe(|scenario, observed| evaluate(scenario, observed, &[]))
    }

    /// The suite report of these observations, as every report format renders it.
    pub fn suite_report(&self) -> SuiteReport {
        self.observe(|scenario, observed| {
            let verdicts = evaluate(scenario, observed, &[]);
            let report = crate::suite::scenario_report(scenario, observed, verdicts, Vec::new());
            SuiteReport::new(self.target, vec![report])
        })
    }
}

/// The verdict of `claim` on `lane`.
pub fn verdict(fixture: &Fixture, claim: ClaimId, lane: &str) -> Verdict {
    fixture
        .verdicts()
        .into_iter()
        .find(|v| v.claim == claim && v.lane == lane)
        .unwrap_or_else(|| panic!("no {claim} verdict on lane {lane}"))
}

/// Does `claim` hold on `lane`?
pub fn holds(fixture: &Fixture, claim: ClaimId, lane: &str) -> bool {
    verdict(fixture, claim, lane).ok
}

/// What `claim` expected in each check that failed on `lane` (it must fail).
pub fn fails(fixture: &Fixture, claim: ClaimId, lane: &str) -> Vec<String> {
    let v = verdict(fixture, claim, lane);
    assert!(!v.ok, "{claim} on {lane} should fail");
    v.failures.iter().map(|c| c.expected.clone()).collect()
}
