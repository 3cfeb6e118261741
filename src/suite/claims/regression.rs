//! The six regression claims (spec §11) with the reference run's meaning, checked exactly on the
//! observations of a scenario, and L1, the stricter question spec §9 also asks.
//!
//! C1 direct calls the target · C2 Tool Search calls the same target · C3 direct declares every
//! fake schema byte-for-byte · C4 Tool Search declares exactly its controls and the direct-only
//! tools, and hides every catalogued schema and full description · C5 Tool Search's request is
//! smaller · C6 the session log shows the expected searches, describes, calls, final tool and
//! bridged-call telemetry · L1 the session log alone tells how many schemas the model saw up
//! front and where the final tool came from.
//!
//! Expected lists come from the scenario and the target's known surface ([`expected_declared`]),
//! never from the observation, so an extra tool on the wire is always caught.

use serde_json::Value;

use super::known::{known_tools, Kind, KnownTool};
use super::{check, names, show, Check, ClaimInput};
use crate::catalog::fake::FAKE_OK;
use crate::catalog::ToolEntry;
use crate::config::{Bridge, ToolSearchMode};
use crate::drive::observation::{LaneFigures, Observed};
use crate::protocol::record::COUNTED_FROM_CODE_RESULT;
use crate::protocol::responses::{
    declared_tool_names, directory_lines, request_prefix, system_text,
};
use crate::protocol::ToolResultRecord;
use crate::scenario::{LaneExpect, Scenario};

/// The scenario's fake plugin tools, as its catalogue configures them.
fn fake_tools(scenario: &Scenario) -> Vec<ToolEntry> {
    scenario.catalog.fake_tools()
}

/// The gateway answered 200 with `FAKE_PLUGIN_OK <target>` (C1, C2, and V1 on a native lane).
pub(super) fn reached_target(scenario: &Scenario, figures: &LaneFigures) -> Vec<Check> {
    let text = &figures.gateway_output_text;
    let want = format!("{FAKE_OK} {}", scenario.target_tool);
    vec![
        check(
            "status",
            figures.status == 200,
            "gateway HTTP 200",
            format!("HTTP {}", figures.status),
        ),
        check(
            "answer",
            text.contains(&want),
            format!("output text contains {want:?}"),
            format!("output text {text:?}"),
        ),
    ]
}

fn planned(figures: &LaneFigures) -> String {
    let planned: Vec<&str> = figures
        .provider_planned_tools
        .iter()
        .map(|t| t.as_deref().unwrap_or("-"))
        .collect();
    planned.join(" → ")
}

pub fn c1_direct_calls_target(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let f = &o.figures;
    let target = &scenario.target_tool;
    let mut checks = reached_target(scenario, f);
    let was_planned = f
        .provider_planned_tools
        .iter()
        .flatten()
        .any(|t| t == target);
    checks.push(check(
        "planned",
        was_planned,
        format!("mock planned {target}"),
        format!("planned {}", planned(f)),
    ));
    let logged = o
        .tool_results()
        .any(|r| matches!(r, ToolResultRecord::Direct(d) if d.tool_name == *target && !d.is_error));
    checks.push(check(
        "logged",
        logged,
        format!("session log has a direct, successful {target} result"),
        if logged { "it has" } else { "it has none" },
    ));
    checks
}

pub fn c2_tool_search_calls_target(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o, direct) = (input.scenario, input.lane, input.direct());
    let f = &o.figures;
    let target = &scenario.target_tool;
    let mut checks = reached_target(scenario, f);
    let wire = o.planned_on_wire();
    let path = BridgePath::of(input);
    checks.push(check(
        "bridge path",
        path.matches(&wire),
        format!("planned on the wire {}", path.describe()),
        if wire.is_empty() {
            "nothing".to_string()
        } else {
            wire.join(" → ")
        },
    ));
    let bridged = o.tool_results().any(
        |r| matches!(r, ToolResultRecord::Bridged(b) if b.tool_name == *target && !b.is_error),
    );
    checks.push(check(
        "bridged",
        bridged,
        format!("session log has a bridged {target} result with parentToolCallId"),
        if bridged { "it has" } else { "it has none" },
    ));
    if let Some(direct) = direct {
        let same = f.gateway_output_text == direct.figures.gateway_output_text;
        checks.push(check(
            "same answer",
            same,
            format!(
                "same output text as lane {}: {:?}",
                direct.lane.name, direct.figures.gateway_output_text
            ),
            format!("{:?}", f.gateway_output_text),
        ));
    }
    checks
}

/// The path a Tool Search lane must take to its target, from the lane's configured mode (never
/// from what the lane declared, so a code lane that fell back to the structured controls fails
/// C2) — unless the scenario names F4 on the lane, whose point is that fallback. Bridge names are
/// the profile's.
enum BridgePath {
    /// One code-mode call runs the whole search-and-call path.
    Code(String),
    /// A search, then any searches and describes, then one call.
    Structured(Bridge),
    /// Code Mode: one `exec` cell runs the whole path; a cell that yielded is resumed by `wait`.
    CodeMode,
}

impl BridgePath {
    fn of(input: &ClaimInput<'_>) -> BridgePath {
        let lane = &input.lane.lane.name;
        let bridge = &input.lane.bridge;
        let falls_back =
            input.scenario.claims.iter().any(|c| {
                c.id == super::ClaimId::F4 && (c.lanes.is_empty() || c.lanes.contains(lane))
            });
        if bridge.is_code_mode() {
            return BridgePath::CodeMode;
        }
        match (input.lane.lane.mode(), &bridge.code) {
            (ToolSearchMode::Code, Some(code)) if !falls_back => BridgePath::Code(code.clone()),
            _ => BridgePath::Structured(bridge.clone()),
        }
    }

    fn matches(&self, wire: &[String]) -> bool {
        match self {
            BridgePath::Code(code) => wire == [code.as_str()],
            BridgePath::CodeMode => match wire {
                [first, rest @ ..] => {
                    first == crate::config::code_mode::EXEC
                        && rest.iter().all(|t| t == crate::config::code_mode::WAIT)
                }
                _ => false,
            },
            BridgePath::Structured(b) => match wire {
                [first, middle @ .., last] => {
                    *first == b.search
                        && *last == b.call
                        && middle.iter().all(|t| *t == b.search || *t == b.describe)
                }
                _ => false,
            },
        }
    }

    fn describe(&self) -> String {
        match self {
            BridgePath::Code(code) => code.clone(),
            BridgePath::CodeMode => "exec → wait*".to_string(),
            BridgePath::Structured(b) => {
                format!(
                    "{} → ({} | {})* → {}",
                    b.search, b.search, b.describe, b.call
                )
            }
        }
    }
}

/// Serialises a schema the way it travels (key order kept).
fn schema_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// C3: every fake tool the scenario's policy allows is declared in the first request, schema
/// and description byte for byte (a denied one is rightly absent: F1 holds that).
pub fn c3_direct_declares_fake_schemas(input: &ClaimInput<'_>) -> Vec<Check> {
    let (all, o) = (fake_tools(input.scenario), input.lane);
    let policy = &input.scenario.policy;
    let (fake, denied): (Vec<ToolEntry>, Vec<ToolEntry>) =
        all.into_iter().partition(|t| policy.allows(&t.name, &t.id));
    let wanted = match denied.len() {
        0 => format!("all {} fake tools declared", fake.len()),
        n => format!(
            "all {} fake tools the policy allows declared ({n} denied)",
            fake.len()
        ),
    };
    let Some(first) = o.observation.requests.first() else {
        return vec![no_request()];
    };
    let declared: Vec<&Value> = first
        .body
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().collect())
        .unwrap_or_default();
    let mut missing = Vec::new();
    let mut differing = Vec::new();
    for tool in &fake {
        match declared.iter().find(|d| d["name"] == tool.name.as_str()) {
            None => missing.push(tool.name.clone()),
            Some(d) => differing.extend(differs(d, tool, &tool.name)),
        }
    }
    let mut checks = vec![
        check(
            "fake tools declared",
            missing.is_empty(),
            wanted,
            format!("missing {}", names(&missing)),
        ),
        check(
            "fake schemas",
            differing.is_empty(),
            "fake schemas and descriptions byte-identical to the catalogue as configured",
            format!("differing {}", names(&differing)),
        ),
    ];
    if !input.scenario.catalog.listed.is_empty() {
        checks.extend(listed_declared(input, &declared));
    }
    checks
}

/// C3 on a catalogue of real MCP servers: every tool the policy allows is declared under the
/// name the target gives MCP tools, its description and input schema byte-identical to what
/// the server answered the harness's own `tools/list` (compact JSON, keys in the server's order).
fn listed_declared(input: &ClaimInput<'_>, declared: &[&Value]) -> Vec<Check> {
    let policy = &input.scenario.policy;
    let listed = &input.scenario.catalog.listed;
    let allowed: Vec<(&String, &ToolEntry)> = listed
        .iter()
        .flat_map(|(server, tools)| tools.iter().map(move |t| (server, t)))
        .filter(|(_, t)| policy.allows(&t.name, &t.id))
        .collect();
    let mut missing = Vec::new();
    let mut differing = Vec::new();
    for (server, tool) in &allowed {
        let wire = mcp_wire_name(input.lane.target, server, &tool.name);
        match declared.iter().find(|d| d["name"] == wire.as_str()) {
            None => missing.push(wire),
            Some(d) => differing.extend(differs(d, tool, &wire)),
        }
    }
    let servers: Vec<&str> = listed.keys().map(String::as_str).collect();
    vec![
        check(
            "MCP tools declared",
            missing.is_empty(),
            format!(
                "all {} tools the policy allows of MCP servers {} declared",
                allowed.len(),
                servers.join(", ")
            ),
            format!("missing {}", names(&missing)),
        ),
        check(
            "MCP schemas",
            differing.is_empty(),
            "MCP schemas and descriptions byte-identical to the servers' tools/list",
            format!("differing {}", names(&differing)),
        ),
    ]
}

/// The name a target declares MCP tool `tool` of `server` under: as listed on the embedded
/// gateway, `<server>__<tool>` on OpenClaw.
fn mcp_wire_name(target: crate::targets::TargetKind, server: &str, tool: &str) -> String {
    match target {
        crate::targets::TargetKind::Embedded => tool.to_string(),
        crate::targets::TargetKind::Openclaw => {
            crate::targets::openclaw::plan::mcp_tool_name(server, tool)
        }
    }
}

/// `name (parameters, description)`: what of `tool` its declaration `declared` does not hold
/// byte for byte; `None` when both are identical.
fn differs(declared: &Value, tool: &ToolEntry, name: &str) -> Option<String> {
    let fields: Vec<&str> = [
        (schema_text(&declared["parameters"]) != schema_text(&tool.parameters))
            .then_some("parameters"),
        (declared["description"] != tool.description.as_str()).then_some("description"),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!fields.is_empty()).then(|| format!("{name} ({})", fields.join(", ")))
}

/// Each request's index and the tool names it declares, sorted.
fn declared_per_request<'a>(o: &'a Observed) -> impl Iterator<Item = (usize, Vec<String>)> + 'a {
    o.observation
        .requests
        .iter()
        .enumerate()
        .map(|(i, request)| {
            let mut declared = declared_tool_names(&request.body);
            declared.sort();
            (i, declared)
        })
}

/// One check a request: it declares exactly `expected` (sorted names), no more, no fewer.
pub(super) fn declared_exactly(o: &Observed, expected: &[String]) -> Vec<Check> {
    declared_per_request(o)
        .map(|(i, declared)| {
            check(
                format!("request {} declared", i + 1),
                declared == expected,
                format!("request {} declares exactly {}", i + 1, names(expected)),
                names(&declared),
            )
        })
        .collect()
}

fn no_request() -> Check {
    check("requests", false, "at least one provider request", "none")
}

pub fn c4_only_bridge_declared(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    if o.observation.requests.is_empty() {
        return vec![no_request()];
    }
    let expected = expected_declared(scenario, o);
    let known = known_tools(scenario, o.target);
    let (mut checks, kept) = match o.prompt_chosen {
        None => (declared_exactly(o, &expected), expected.clone()),
        Some(max) => declared_with_chosen(o, &expected, max, &mcp_names(scenario, &known)),
    };
    // What the gateway puts up front (instructions, system items, tools) in any request: never a
    // deferred catalogued tool's schema or full description. (Tool outputs the model asked for
    // may name and describe them: that is the point of search.)
    let prefixes: Vec<Option<String>> = o
        .observation
        .requests
        .iter()
        .map(|r| request_prefix(&r.raw).ok().map(|p| p.text()))
        .collect();
    let unreadable: Vec<usize> = (1..=prefixes.len())
        .filter(|i| prefixes[i - 1].is_none())
        .collect();
    checks.push(check(
        "readable",
        unreadable.is_empty(),
        "every request body is JSON",
        format!("requests {unreadable:?} are not"),
    ));
    let directories: Vec<Vec<String>> = o
        .observation
        .requests
        .iter()
        .map(|r| {
            let text = system_text(&r.body);
            let lines = directory_lines(&text).unwrap_or_default();
            lines.into_iter().map(str::to_string).collect()
        })
        .collect();
    let up_front: Vec<UpFront> = prefixes
        .into_iter()
        .zip(directories)
        .filter_map(|(text, directory)| text.map(|text| UpFront { text, directory }))
        .collect();
    checks.extend(hidden_checks(&known, &kept, &up_front));
    checks
}

/// The names an MCP server's tools may be declared under: as the scenario knows them, and as a
/// real OpenClaw names a configured server's tool (`<server>__<tool>`).
fn mcp_names(scenario: &Scenario, known: &[KnownTool]) -> Vec<String> {
    let bare = known
        .iter()
        .filter(|t| t.kind == Kind::Mcp)
        .map(|t| t.name.clone());
    let served = scenario.catalog.mcp.iter().flat_map(|server| {
        crate::mcp_fixture::server::tool_texts(server)
            .into_iter()
            .map(|(tool, _, _)| crate::targets::openclaw::plan::mcp_tool_name(server, &tool))
    });
    bare.chain(served).collect()
}

/// One check a request in a mode that also declares tools picked from the prompt (a release's
/// `prompt_chosen`): it declares every one of `expected`, and besides them at most `max` other
/// tools, none an MCP server's (the release's rule leaves those out). With the names it kept:
/// `expected` and every tool picked in some request (C4's hiding checks leave those alone).
fn declared_with_chosen(
    o: &Observed,
    expected: &[String],
    max: usize,
    mcp: &[String],
) -> (Vec<Check>, Vec<String>) {
    let mut kept = expected.to_vec();
    let checks = declared_per_request(o)
        .map(|(i, declared)| {
            let chosen: Vec<&String> = declared.iter().filter(|n| !expected.contains(n)).collect();
            let ok = expected.iter().all(|n| declared.contains(n))
                && chosen.len() <= max
                && chosen.iter().all(|n| !mcp.contains(n));
            kept.extend(chosen.into_iter().cloned());
            check(
                format!("request {} declared", i + 1),
                ok,
                format!(
                    "request {} declares {} and at most {max} more picked from the prompt, none an MCP server's",
                    i + 1,
                    names(expected)
                ),
                names(&declared),
            )
        })
        .collect();
    kept.sort();
    kept.dedup();
    (checks, kept)
}

/// What one request put before the conversation: the raw text, and the lines of its capability
/// directory (where a description cut short may happen to be whole: the directory's business).
struct UpFront {
    text: String,
    directory: Vec<String>,
}

impl UpFront {
    /// Whether `mark` shows up front outside the directory's lines (as raw JSON, or escaped
    /// inside a string).
    fn shows(&self, mark: &str) -> bool {
        let escaped = json_text(mark);
        let anywhere = self
            .text
            .matches(mark)
            .count()
            .max(self.text.matches(&escaped).count());
        let listed: usize = self.directory.iter().map(|l| l.matches(mark).count()).sum();
        anywhere > listed
    }
}

/// C4's two hiding checks over what the requests put up front: no deferred known tool's schema,
/// no deferred known tool's full description (texts a declared tool shares do not count).
fn hidden_checks(known: &[KnownTool], declared: &[String], up_front: &[UpFront]) -> Vec<Check> {
    let (kept, deferred): (Vec<&KnownTool>, Vec<&KnownTool>) =
        known.iter().partition(|t| declared.contains(&t.name));
    let shared = |mark: &str| {
        kept.iter()
            .any(|k| k.description.contains(mark) || k.parameters.to_string().contains(mark))
    };
    let shows = |mark: &str| up_front.iter().any(|u| u.shows(mark));
    let tag = |t: &KnownTool| format!("{} ({})", t.name, t.kind.as_str());
    let with_schema: Vec<String> = deferred
        .iter()
        .filter(|t| t.schema_marks().iter().any(|m| !shared(m) && shows(m)))
        .map(|t| tag(t))
        .collect();
    let described: Vec<String> = deferred
        .iter()
        .filter(|t| t.description_mark().is_some_and(|d| !shared(d) && shows(d)))
        .map(|t| tag(t))
        .collect();
    let kinds = |list: &[&KnownTool]| {
        let mut kinds: Vec<&str> = list.iter().map(|t| t.kind.as_str()).collect();
        kinds.dedup();
        kinds.join(", ")
    };
    let what = format!(
        "{} deferred catalogued tools ({})",
        deferred.len(),
        kinds(&deferred)
    );
    vec![
        check(
            "hidden schemas",
            with_schema.is_empty(),
            format!("no request puts the schema of any of {what} up front"),
            format!("schemas of {}", names(&with_schema)),
        ),
        check(
            "hidden descriptions",
            described.is_empty(),
            format!("no request puts the full description of any of {what} up front"),
            format!("full descriptions of {}", names(&described)),
        ),
    ]
}

/// The names a Tool Search lane must declare, sorted: the controls of its configured mode, the
/// direct-only tools (the target's own and the scenario's), and in directory mode the client
/// tools the turn sends.
pub fn expected_declared(scenario: &Scenario, o: &Observed<'_>) -> Vec<String> {
    let mut names = o.lane.controls(&o.bridge);
    if o.lane.mode() == ToolSearchMode::Directory {
        names.extend(scenario.catalog.client.iter().cloned());
    }
    names.extend(o.direct_only.iter().cloned());
    names.sort();
    names.dedup();
    names
}

/// A string as it appears inside raw JSON (quotes stripped, escapes kept).
fn json_text(text: &str) -> String {
    let quoted = Value::from(text).to_string();
    quoted[1..quoted.len() - 1].to_string()
}

pub fn c5_smaller(input: &ClaimInput<'_>) -> Vec<Check> {
    let (o, direct) = (input.lane, input.direct());
    let Some(direct) = direct else {
        return vec![check(
            "smaller",
            false,
            "a direct lane to compare with",
            "none in this scenario",
        )];
    };
    let (ours, theirs) = (
        o.figures.first_request_bytes,
        direct.figures.first_request_bytes,
    );
    let ratio = if theirs == 0 {
        0.0
    } else {
        ours as f64 / theirs as f64
    };
    vec![check(
        "smaller",
        ours > 0 && ours < theirs,
        format!("first request smaller than direct's {theirs} bytes"),
        format!("{ours} bytes (ratio {ratio:.3})"),
    )]
}

/// C6 as the reference states it: the session log shows the expected number of searches,
/// describes and calls, the final tool, and the telemetry of bridged calls (`parentToolCallId`,
/// the bridged tool's source, a code result's counters).
pub fn c6_session_log(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let s = &o.figures.session_log;
    let mut checks = Vec::new();
    for (label, want, got) in [
        ("searches", expected_count(o, |e| e.searches), s.searches),
        ("describes", expected_count(o, |e| e.describes), s.describes),
        ("calls", expected_count(o, |e| e.calls), s.calls),
    ] {
        checks.push(match want {
            Some(want) => check(
                label,
                got == want,
                format!("{label} = {want}"),
                format!("{label} = {got}"),
            ),
            None => check(
                label,
                false,
                format!("the lane's expect (or openclaw_expect) sets {label}"),
                format!("no expected {label}: {label} = {got} is unchecked"),
            ),
        });
    }
    let target = &scenario.target_tool;
    checks.push(check(
        "final tool",
        s.final_tool.as_deref() == Some(target),
        format!("final tool {target}"),
        format!("final tool {}", show(s.final_tool.as_deref())),
    ));
    let want_bridged = usize::from(!o.lane.is_direct());
    checks.push(check(
        "bridged calls",
        s.bridged_calls == want_bridged,
        format!("{want_bridged} bridged call(s) with parentToolCallId"),
        format!("{} bridged call(s)", s.bridged_calls),
    ));
    if want_bridged > 0 {
        let bridged_source = o.tool_results().find_map(|r| match r {
            ToolResultRecord::Bridged(b) if b.tool_name == *target => Some(b.source),
            _ => None,
        });
        let source = scenario.target_source;
        checks.push(check(
            "bridged source",
            bridged_source == Some(Some(source)),
            format!("the bridged call's source is {}", source.as_str()),
            format!(
                "source {}",
                show(bridged_source.flatten().map(|s| s.as_str()))
            ),
        ));
    }
    checks.extend(code_result_telemetry(o, &o.bridge));
    checks
}

/// An expected count of the lane on its target: the target's own figure, else the scenario's
/// `expect` (the path's searches, describes and calls do not depend on the gateway).
fn expected_count(o: &Observed<'_>, field: fn(&LaneExpect) -> Option<u64>) -> Option<u64> {
    field(o.lane.expect_for(o.target)).or_else(|| field(&o.lane.expect))
}

/// In code mode, the `tool_search_code` result itself carries telemetry (spec §9): it must say
/// `ok: true`, count the calls the session log records under it (its bridged results), and count
/// the searches, describes and catalogue size the log's telemetry record counts. Where the log
/// knows those only from that result (a translated transcript says so), the comparison would be
/// with itself: a failing check says so instead. A result that carries an MCP tool's output comes
/// in the product's untrusted-content envelope (OpenClaw wraps a Tool Search result with network
/// content so): the telemetry is read inside it.
fn code_result_telemetry(o: &Observed<'_>, bridge: &Bridge) -> Vec<Check> {
    let s = &o.figures.session_log;
    let results: Vec<&ToolResultRecord> = o.tool_results().collect();
    let code_mode = bridge.is_code_mode();
    let read = |r: &ToolResultRecord| {
        let text = r.output_text();
        let inside = crate::protocol::envelope::unwrap(&text).unwrap_or(&text);
        serde_json::from_str::<Value>(inside).unwrap_or(Value::Null)
    };
    // Code Mode: an `exec` or `wait` result that ended (a `waiting` one has more to come).
    let is_code_result = |r: &&&ToolResultRecord| match code_mode {
        true => {
            crate::config::code_mode::CONTROLS.contains(&r.tool_name())
                && read(r)["status"] != "waiting"
        }
        false => bridge.code.as_deref() == Some(r.tool_name()),
    };
    let mut checks: Vec<Check> = results
        .iter()
        .filter(is_code_result)
        .map(|r| {
            let output = read(r);
            let ok = match code_mode {
                true => Some(u64::from(output["status"] == "completed")),
                false => output["ok"].as_bool().map(u64::from),
            };
            let t = &output["telemetry"];
            // A Code Mode `wait` resumed the latest waiting `exec`: its calls are under that one.
            let parent = match (code_mode, r.tool_name()) {
                (true, crate::config::code_mode::WAIT) => results
                    .iter()
                    .take_while(|b| b.tool_call_id() != r.tool_call_id())
                    .filter(|b| {
                        b.tool_name() == crate::config::code_mode::EXEC
                            && read(b)["status"] == "waiting"
                    })
                    .last()
                    .map_or(r.tool_call_id(), |b| b.tool_call_id()),
                _ => r.tool_call_id(),
            };
            let bridged = results
                .iter()
                .filter(|b| b.parent_tool_call_id() == Some(parent))
                .count();
            let seen = [
                ok,
                t["searchCount"].as_u64(),
                t["describeCount"].as_u64(),
                t["callCount"].as_u64(),
                t["catalogSize"].as_u64(),
            ];
            let want = [
                Some(1),
                Some(s.searches),
                Some(s.describes),
                Some(bridged as u64),
                s.catalog_size.map(|n| n as u64),
            ];
            let text = |v: [Option<u64>; 5]| {
                format!(
                    "ok {}, searches {}, describes {}, calls {}, catalogSize {}",
                    show(v[0].map(|ok| ok == 1)),
                    show(v[1]),
                    show(v[2]),
                    show(v[3]),
                    show(v[4])
                )
            };
            check(
                "code telemetry",
                seen == want,
                format!(
                    "{} result: {} (calls: its bridged results)",
                    r.tool_name(),
                    text(want)
                ),
                text(seen),
            )
        })
        .collect();
    if !checks.is_empty() && s.notes.iter().any(|n| n == COUNTED_FROM_CODE_RESULT) {
        checks.push(check(
            "independent counts",
            false,
            "the session log counts the code run's searches and describes and the catalogue size apart from its result",
            COUNTED_FROM_CODE_RESULT,
        ));
    }
    checks
}

/// L1: the stricter question of spec §9 — from the session log alone, how many tool schemas did
/// the model see up front (the first request's `tools[]`), and where did the final tool come from
/// (OpenClaw, MCP or a client), even for a direct call.
pub fn l1_log_tells_the_surface(input: &ClaimInput<'_>) -> Vec<Check> {
    let (scenario, o) = (input.scenario, input.lane);
    let s = &o.figures.session_log;
    let sent = o.figures.provider_declared_tool_count;
    let source = scenario.target_source;
    let unrecorded = |what: &str| match &s.surface_note {
        Some(note) => format!("{what} not recorded ({note})"),
        None => format!("{what} not recorded"),
    };
    vec![
        check(
            "schemas up front",
            s.schemas_up_front == Some(sent),
            format!("schemas up front = {sent} (as the provider received)"),
            match s.schemas_up_front {
                Some(n) => format!("schemas up front = {n}"),
                None => unrecorded("schemas up front"),
            },
        ),
        check(
            "final tool source",
            s.final_tool_source == Some(source),
            format!("final tool source {}", source.as_str()),
            match s.final_tool_source {
                Some(found) => format!("final tool source {}", found.as_str()),
                None => "final tool source not recorded".to_string(),
            },
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{fails, holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::{self, *};
    use serde_json::json;

    #[test]
    fn c1_to_c5_hold_on_the_passing_fixture() {
        let f = Fixture::passing_reference();
        for (claim, lane) in [
            (C1, "direct"),
            (C3, "direct"),
            (C2, "tools"),
            (C4, "tools"),
            (C5, "tools"),
        ] {
            assert!(
                holds(&f, claim, lane),
                "{claim} on {lane}: {:?}",
                verdict(&f, claim, lane)
            );
        }
    }

    #[test]
    fn c1_fails_without_the_direct_result_and_the_marker_and_lists_both() {
        let mut f = Fixture::passing_reference();
        f.lane("direct").records.clear();
        f.lane("direct").answer = "no marker".into();
        let failed = fails(&f, C1, "direct");
        assert_eq!(
            failed,
            [
                format!("output text contains \"FAKE_PLUGIN_OK {TARGET}\""),
                format!("session log has a direct, successful {TARGET} result"),
            ]
        );
    }

    #[test]
    fn c2_fails_when_the_target_is_not_reached_through_the_bridge() {
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[1].1 = Some(TARGET.into());
        f.lane("tools").records.clear();
        let failed = fails(&f, C2, "tools");
        assert_eq!(
            failed,
            [
                "planned on the wire tool_search → (tool_search | tool_describe)* → tool_call"
                    .to_string(),
                format!("session log has a bridged {TARGET} result with parentToolCallId"),
            ]
        );
    }

    #[test]
    fn c2_expects_the_configured_modes_path() {
        // A scripted search → describe → call on the structured controls holds.
        let mut f = Fixture::passing_reference();
        let lane = f.lane("tools");
        let body = lane.requests[0].0.clone();
        lane.requests
            .insert(1, (body, Some("tool_describe".into())));
        assert!(holds(&f, C2, "tools"), "{:?}", verdict(&f, C2, "tools"));
        // A call that skips the search does not.
        f.lane("tools").requests.remove(0);
        assert_eq!(
            fails(&f, C2, "tools"),
            ["planned on the wire tool_search → (tool_search | tool_describe)* → tool_call"]
        );
        // A code lane that fell back to the structured controls fails C2 by itself …
        let mut f = Fixture::passing_reference();
        f.lane("tools").tool_search = "{ mode = 'code' }".into();
        assert_eq!(
            fails(&f, C2, "tools"),
            ["planned on the wire tool_search_code"]
        );
        // … unless the scenario says the fallback is the point (F4 on that lane).
        let f = f.scenario_extra("[[claims]]\nid = 'F4'\n[[claims]]\nid = 'C2'\n");
        assert!(holds(&f, C2, "tools"), "{:?}", verdict(&f, C2, "tools"));
    }

    #[test]
    fn c3_fails_when_a_fake_schema_is_missing_or_differs() {
        let mut f = Fixture::passing_reference();
        let body = &mut f.lane("direct").requests[0].0;
        let tools = body["tools"].as_array_mut().unwrap();
        tools.remove(0);
        tools[0]["description"] = json!("changed");
        let failed = fails(&f, C3, "direct");
        assert_eq!(
            failed,
            [
                "all 36 fake tools declared",
                "fake schemas and descriptions byte-identical to the catalogue as configured"
            ]
        );
        let v = verdict(&f, C3, "direct");
        assert_eq!(
            v.failures[1].actual,
            "differing 1 name: fake_plugin_tool_02 (description)"
        );
    }

    /// A tool the scenario's policy denies is rightly absent from the direct lane: C3 asks for
    /// the tools the policy allows (issue #41: it asked for all 36 and failed).
    #[test]
    fn c3_does_not_ask_for_a_tool_the_policy_denies() {
        let mut f = Fixture::passing_reference()
            .scenario_extra("[policy]\ndeny = ['fake_plugin_tool_11']\n");
        let tools = f.lane("direct").requests[0].0["tools"]
            .as_array_mut()
            .unwrap();
        let before = tools.len();
        tools.retain(|t| t["name"] != "fake_plugin_tool_11");
        assert_eq!(tools.len(), before - 1);
        let v = verdict(&f, C3, "direct");
        assert!(v.ok, "{v:?}");
        assert!(
            v.expected
                .starts_with("all 35 fake tools the policy allows declared (1 denied)"),
            "{v:?}"
        );
        // An allowed tool missing still fails.
        let tools = f.lane("direct").requests[0].0["tools"]
            .as_array_mut()
            .unwrap();
        tools.retain(|t| t["name"] != "fake_plugin_tool_12");
        let v = verdict(&f, C3, "direct");
        assert_eq!(v.failures[0].actual, "missing 1 name: fake_plugin_tool_12");
    }

    #[test]
    fn c3_compares_with_the_catalogue_as_configured() {
        // The gateway sent the template's descriptions: C3 holds.
        let template = "Tool {n} of my plugin ({name}).";
        let mut f = Fixture::passing_reference();
        f.template(template);
        let tools = crate::catalog::fake::described_fake_tools(
            "tool-search-e2e-fixture",
            36,
            Some(template),
        );
        let declarations: Vec<_> = tools
            .iter()
            .map(|t| json!(t.function_declaration()))
            .collect();
        f.lane("direct").requests[0].0["tools"] = json!(declarations);
        assert!(holds(&f, C3, "direct"), "{:?}", verdict(&f, C3, "direct"));
        // The default descriptions are not what this catalogue configures.
        let mut f = Fixture::passing_reference();
        f.template(template);
        let v = verdict(&f, C3, "direct");
        assert_eq!(v.failures.len(), 1);
        assert!(v.failures[0]
            .actual
            .starts_with("differing 36 names: fake_plugin_tool_01 (description), "));
    }

    #[test]
    fn c4_fails_when_a_fake_tool_is_declared_or_its_schema_or_description_is_up_front() {
        let mut f = Fixture::passing_reference();
        let fake = crate::catalog::fake::fake_plugin_tools("tool-search-e2e-fixture", 36);
        let body = &mut f.lane("tools").requests[1].0;
        body["tools"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!(fake[2].function_declaration()));
        let failed = fails(&f, C4, "tools");
        assert_eq!(
            failed,
            [
                "request 2 declares exactly 3 names: tool_call, tool_describe, tool_search",
                "no request puts the schema of any of 36 deferred catalogued tools (fake) up front",
                "no request puts the full description of any of 36 deferred catalogued tools (fake) up front",
            ]
        );
        // A name in the prompt is no leak: the product's capability directory lists names.
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[0].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(0, json!({ "role": "system", "content": "- fake_plugin_tool_03 (p): Fake plugin tool 3." }));
        assert!(holds(&f, C4, "tools"));
        // A full description in the prompt is.
        f.lane("tools").requests[0].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(
                0,
                json!({ "role": "system", "content": fake[5].description }),
            );
        assert_eq!(
            fails(&f, C4, "tools"),
            ["no request puts the full description of any of 36 deferred catalogued tools (fake) up front"]
        );
        // A full description in a tool output the model asked for is not up front.
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[1].0["input"].as_array_mut().unwrap().push(
            json!({ "type": "function_call_output", "call_id": "c", "output": fake[16].description }),
        );
        assert!(holds(&f, C4, "tools"));
        assert_eq!(TARGET, fake[16].name);
    }

    #[test]
    fn c4_lets_a_mode_declare_up_to_its_prompt_chosen_tools_and_no_mcp_one() {
        use crate::config::ToolSearchMode;
        let with = |names: &[&str]| {
            let mut f = Fixture::passing_reference()
                .catalog_line("mcp = ['qa']")
                .prompt_chosen(ToolSearchMode::Tools, 2);
            let tools = f.lane("tools").requests[0].0["tools"]
                .as_array_mut()
                .unwrap();
            for name in names {
                tools.push(json!({ "type": "function", "name": name, "parameters": {} }));
            }
            f
        };
        assert!(holds(&with(&[]), C4, "tools"));
        assert!(holds(&with(&["read", "web_fetch"]), C4, "tools"));
        let over = "request 1 declares 3 names: tool_call, tool_describe, tool_search and at most 2 more picked from the prompt, none an MCP server's";
        assert_eq!(
            fails(&with(&["read", "web_fetch", "web_search"]), C4, "tools"),
            [over]
        );
        let mcp = crate::targets::openclaw::plan::mcp_tool_name("qa", "mcp_qa_echo");
        assert_eq!(fails(&with(&[mcp.as_str()]), C4, "tools"), [over]);
        // Without the fact the same picked tool is a failure, as before.
        let mut f = Fixture::passing_reference();
        f.lane("tools").requests[0].0["tools"]
            .as_array_mut()
            .unwrap()
            .push(json!({ "type": "function", "name": "read", "parameters": {} }));
        assert_eq!(
            fails(&f, C4, "tools"),
            ["request 1 declares exactly 3 names: tool_call, tool_describe, tool_search"]
        );
    }

    #[test]
    fn c4_looks_for_every_deferred_catalogued_tool_not_only_the_fake_ones() {
        let f = Fixture::passing_reference()
            .catalog_line("mcp = ['qa']\nclient = ['pick_file']\ncore_tools = true");
        let leak = |text: String| {
            let mut f = f.clone();
            f.lane("tools").requests[1].0["input"]
                .as_array_mut()
                .unwrap()
                .insert(0, json!({ "role": "system", "content": text }));
            let v = verdict(&f, C4, "tools");
            let hidden: Vec<String> = v
                .failures
                .iter()
                .filter(|c| c.check.starts_with("hidden"))
                .map(|c| format!("{}: {}", c.check, c.actual))
                .collect();
            hidden
        };
        assert!(leak("nothing of theirs".into()).is_empty());
        let (_, _, mcp_schema) = crate::mcp_fixture::server::tool_texts("qa").remove(0);
        assert_eq!(
            leak(format!("schema: {mcp_schema}")),
            ["hidden schemas: schemas of 1 name: mcp_qa_echo (MCP)"]
        );
        let client = crate::scenario::client_tool_declaration("pick_file");
        assert_eq!(
            leak(client["description"].as_str().unwrap().to_string()),
            ["hidden descriptions: full descriptions of 1 name: pick_file (client)"]
        );
        let core = crate::catalog::fake::core_tools();
        let exec = core.iter().find(|t| t.name == "exec").unwrap();
        assert_eq!(
            leak(exec.description.clone()),
            ["hidden descriptions: full descriptions of 1 name: exec (core)"]
        );
        // A short description that is whole in its directory line is the directory's business…
        let directory = format!(
            "### Deferred Tool Schemas\n- exec (core): {}\n",
            exec.description
        );
        assert!(leak(directory.clone()).is_empty());
        // …but not when it shows up front anywhere else too.
        assert_eq!(
            leak(format!("{directory}\n## Tools\n{}", exec.description)),
            ["hidden descriptions: full descriptions of 1 name: exec (core)"]
        );
        // With the always-declared core tool declared too, C4 holds and says what it looked for.
        let mut f = f.clone();
        for (body, _) in &mut f.lane("tools").requests {
            body["tools"]
                .as_array_mut()
                .unwrap()
                .push(json!({ "name": "session_status" }));
        }
        let v = verdict(&f, C4, "tools");
        assert!(v.ok, "{v:?}");
        assert!(
            v.expected
                .contains("any of 44 deferred catalogued tools (fake, core, MCP, client)"),
            "{}",
            v.expected
        );
    }

    /// The tools lane with a session log that counts one search and one call.
    fn counted(expect: &str) -> Fixture {
        let mut f = Fixture::passing_reference();
        let lane = f.lane("tools");
        lane.tool_search = format!("{{ mode = 'tools' }}\n{expect}");
        lane.records.push(json!({ "type": "telemetry", "telemetry":
            { "searchCount": 1, "describeCount": 0, "callCount": 1 } }));
        f
    }

    fn c6_failures(f: &Fixture) -> Vec<(String, String)> {
        let v = verdict(f, C6, "tools");
        v.failures
            .iter()
            .map(|c| (c.check.clone(), c.actual.clone()))
            .collect()
    }

    #[test]
    fn c6_checks_counts_from_the_targets_figures_else_the_lanes_expect_and_fails_without() {
        let f = counted("expect = { searches = 1, describes = 0, calls = 1 }");
        assert!(c6_failures(&f).is_empty(), "{:?}", c6_failures(&f));
        let f = counted("expect = { searches = 2, describes = 0, calls = 1 }");
        assert_eq!(
            c6_failures(&f),
            [("searches".into(), "searches = 1".into())]
        );
        // On OpenClaw without openclaw_expect, the lane's expect still counts…
        let mut f = counted("expect = { searches = 2, describes = 0, calls = 1 }");
        f.target = crate::targets::TargetKind::Openclaw;
        assert_eq!(
            c6_failures(&f),
            [("searches".into(), "searches = 1".into())]
        );
        // …and openclaw_expect wins where it sets a figure.
        let mut f = counted(
            "expect = { searches = 2, describes = 0, calls = 1 }\nopenclaw_expect = { searches = 1 }",
        );
        f.target = crate::targets::TargetKind::Openclaw;
        assert!(c6_failures(&f).is_empty(), "{:?}", c6_failures(&f));
        // A lane with no count to check fails, naming what it cannot check.
        let f = counted("");
        assert_eq!(
            c6_failures(&f),
            [
                (
                    "searches".into(),
                    "no expected searches: searches = 1 is unchecked".into()
                ),
                (
                    "describes".into(),
                    "no expected describes: describes = 0 is unchecked".into()
                ),
                (
                    "calls".into(),
                    "no expected calls: calls = 1 is unchecked".into()
                ),
            ]
        );
    }

    #[test]
    fn c6_holds_a_code_result_to_the_bridged_results_under_it_and_says_when_it_cannot() {
        let code_result = |calls: u64| {
            let output = json!({ "ok": true, "telemetry":
                { "searchCount": 1, "describeCount": 0, "callCount": calls, "catalogSize": 36 } });
            json!({ "type": "toolResult", "toolCallId": "call_2", "toolName": "tool_search_code",
                "isError": false, "source": "openclaw", "output": output.to_string() })
        };
        let mut f = counted("expect = { searches = 1, describes = 0, calls = 1 }");
        f.lane("tools").tool_search =
            "{ mode = 'code' }\nexpect = { searches = 1, describes = 0, calls = 1 }".into();
        f.lane("tools").requests[0].0["tools"] = json!([{ "name": "tool_search_code" }]);
        f.lane("tools").records.insert(
            0,
            json!({ "type": "surface", "mode": "code", "declaredTools": null, "declaredToolCount": 1,
                "catalogSize": 36, "sources": null, "notes": null }),
        );
        f.lane("tools").records.push(code_result(1));
        assert!(c6_failures(&f).is_empty(), "{:?}", c6_failures(&f));
        // The same result in the product's untrusted-content envelope (it carries an MCP
        // tool's output) is read inside it; a broken envelope is not.
        let wrap = |id_end: &str| {
            let mut wrapped = f.clone();
            let records = &mut wrapped.lane("tools").records;
            let last = records.len() - 1;
            let inner = records[last]["output"].as_str().unwrap().to_string();
            records[last]["output"] = json!(format!(
                "SECURITY NOTICE: external.\n\n<<<EXTERNAL_UNTRUSTED_CONTENT id=\"ab\">>>\n\
                 Source: API\n---\n{inner}\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id=\"{id_end}\">>>"
            ));
            wrapped
        };
        assert!(
            c6_failures(&wrap("ab")).is_empty(),
            "{:?}",
            c6_failures(&wrap("ab"))
        );
        assert_eq!(
            c6_failures(&wrap("zz")),
            [(
                "code telemetry".to_string(),
                "ok none, searches none, describes none, calls none, catalogSize none".to_string()
            )]
        );
        // A result that claims two calls where the log has one bridged result under it.
        let mut two = f.clone();
        let records = &mut two.lane("tools").records;
        let last = records.len() - 1;
        records[last] = code_result(2);
        let failed = c6_failures(&two);
        assert_eq!(failed.len(), 1);
        assert_eq!(
            failed[0],
            (
                "code telemetry".to_string(),
                "ok true, searches 1, describes 0, calls 2, catalogSize 36".to_string()
            )
        );
        // A log that knows the counts only from that result cannot check them: said, not passed.
        f.lane("tools").records[0]["notes"] =
            json!([crate::protocol::record::COUNTED_FROM_CODE_RESULT]);
        assert_eq!(
            c6_failures(&f),
            [(
                "independent counts".to_string(),
                crate::protocol::record::COUNTED_FROM_CODE_RESULT.to_string()
            )]
        );
    }

    #[test]
    fn c5_fails_when_the_tool_search_request_is_not_smaller() {
        let mut f = Fixture::passing_reference();
        let padding = "x".repeat(40_000);
        f.lane("tools").requests[0].0["metadata"] = json!(padding);
        assert_eq!(fails(&f, C5, "tools").len(), 1);
    }

    #[test]
    fn claims_that_need_a_missing_lane_are_not_applicable_never_failures() {
        let mut f = Fixture::passing_reference();
        f.lanes.remove(0);
        let verdicts = f.verdicts();
        let na: Vec<(ClaimId, &str, Option<&str>)> = verdicts
            .iter()
            .filter(|v| v.is_not_applicable())
            .map(|v| (v.claim, v.lane.as_str(), v.not_applicable.as_deref()))
            .collect();
        assert_eq!(
            na,
            [
                (
                    C1,
                    "-",
                    Some("no lane with Tool Search off (tool_search = false)")
                ),
                (
                    C3,
                    "-",
                    Some("no lane with Tool Search off (tool_search = false)")
                ),
                (
                    C5,
                    "-",
                    Some("no direct lane (tool_search = false) to compare with")
                ),
            ]
        );
        assert!(verdicts
            .iter()
            .filter(|v| v.is_not_applicable())
            .all(|v| v.ok && v.passes_gate() && v.failures.is_empty()));
    }
}
