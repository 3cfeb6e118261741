//! Checking: the values a scenario gives (ids, the catalogue, MCP servers, lane tables, scripts)
//! and the names it gives against the catalogue and the lanes.

use super::{problem, Checked, LaneFile, Problem};
use crate::catalog::fake::{fake_tool_name, plugin_id_problem, size_problem};
use crate::catalog::ToolPolicy;
use crate::config::Bridge;
use crate::scenario::names::{closest, suggestion, unknown_script_tool, unmatched_deny};
use crate::scenario::place::Field;
use crate::scenario::{CatalogSpec, ClaimId, ClaimSpec, Lane, LaneOnOpenclaw, ScriptStep};

/// `[catalog]`: a size, fake tool names of this size, known MCP fixtures, client tool names.
pub(super) fn check_catalog(catalog: &CatalogSpec) -> Checked<()> {
    let field = Field::of("catalog");
    if let Some(message) = plugin_id_problem(&catalog.plugin_id) {
        return Err(problem(field.key("plugin_id"), message));
    }
    if let Some(message) = size_problem(catalog.size as u64) {
        return Err(problem(field.key("size"), message));
    }
    for (key, names) in [
        ("direct_only", &catalog.direct_only),
        ("broken", &catalog.broken),
    ] {
        if let Some(i) = names.iter().position(|n| !is_fake_tool(n, catalog.size)) {
            let fake = (1..=catalog.size).map(|n| fake_tool_name(n, catalog.size));
            let fake: Vec<String> = fake.collect();
            return Err(problem(
                field.clone().key(key).index(i),
                format!(
                    "{:?} is not a tool of the fake plugin (its tools are {} … {}){}",
                    names[i],
                    fake[0],
                    fake[fake.len() - 1],
                    suggestion(&closest(&names[i], fake.iter().map(String::as_str)))
                ),
            ));
        }
    }
    if let Some(i) = catalog
        .mcp
        .iter()
        .position(|s| !crate::mcp_fixture::ALL.contains(&s.as_str()))
    {
        return Err(problem(
            field.clone().key("mcp").index(i),
            format!(
                "unknown MCP fixture server {:?}; expected one of {}",
                catalog.mcp[i],
                crate::mcp_fixture::ALL.join(", ")
            ),
        ));
    }
    check_mcp_servers(field.clone().key("mcp_servers"), catalog)?;
    let bad_client = catalog.client.iter().position(|n| {
        n.is_empty()
            || !n
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    });
    if let Some(i) = bad_client {
        return Err(problem(
            field.key("client").index(i),
            format!(
                "{:?} is not a tool name (letters, digits, `_` and `-` only)",
                catalog.client[i]
            ),
        ));
    }
    Ok(())
}

/// Longest scenario id: it starts every snapshot file name (`<id>__<lane>__provider.snap.new`).
pub const MAX_ID_BYTES: usize = 100;

/// Longest lane name: it is part of snapshot file names, temp dir names and the session key.
pub const MAX_LANE_NAME_BYTES: usize = 64;

/// `[[catalog.mcp_servers]]`: each a name no other server of the catalogue has, a command, and
/// placeholders the run can resolve (`crate::mcp_servers::launch`).
fn check_mcp_servers(field: Field, catalog: &CatalogSpec) -> Checked<()> {
    let mut names: Vec<&str> = catalog.mcp.iter().map(String::as_str).collect();
    for (i, server) in catalog.mcp_servers.iter().enumerate() {
        let field = field.clone().index(i);
        if let Some(message) = mcp_server_name_problem(&server.name, &names) {
            return Err(problem(field.key("name"), message));
        }
        names.push(&server.name);
        if server.command.trim().is_empty() {
            return Err(problem(
                field.key("command"),
                "must name the program to start",
            ));
        }
        let texts = std::iter::once((field.clone().key("command"), &server.command))
            .chain(
                server
                    .args
                    .iter()
                    .enumerate()
                    .map(|(j, a)| (field.clone().key("args").index(j), a)),
            )
            .chain(
                server
                    .env
                    .values()
                    .zip(server.env.keys())
                    .map(|(v, k)| (field.clone().key("env").key(k), v)),
            )
            .chain(server.cwd.iter().map(|c| (field.clone().key("cwd"), c)));
        for (at, text) in texts {
            if let Some(message) = crate::scenario::placeholder::problem(text) {
                return Err(problem(at, message));
            }
        }
        if let Some(key) = server.env.keys().find(|k| !is_env_name(k)) {
            return Err(problem(
                field.key("env").key(key),
                format!("{key:?} is not an environment variable name (letters, digits and `_`, not first a digit)"),
            ));
        }
    }
    Ok(())
}

/// Why `name` cannot name a real MCP server beside `taken`: the product names its tools
/// `<server>__<tool>`, so a name is a plain word.
fn mcp_server_name_problem(name: &str, taken: &[&str]) -> Option<String> {
    let word = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && name.starts_with(|c: char| c.is_ascii_lowercase());
    if !word {
        return Some(format!(
            "{name:?} is not a server name (a lower-case letter, then up to 31 lower-case letters, digits or `-`)"
        ));
    }
    if taken.contains(&name) {
        return Some(format!(
            "{name:?} names another MCP server of this catalogue"
        ));
    }
    None
}

fn is_env_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why `id` cannot be a scenario id, if it cannot (the one rule: the loader's and
/// `new-scenario`'s).
pub fn id_problem(id: &str) -> Option<String> {
    file_part_problem(id, MAX_ID_BYTES)
}

/// Why `name` (a scenario id or lane name) cannot be part of a file name, if it cannot: snapshot
/// files are `<id>__<lane>__provider.snap`, so both are ASCII letters, digits, `.`, `-` and `_`,
/// starting with a letter or digit, without `__` (which separates them), at most `max` bytes.
pub(super) fn file_part_problem(name: &str, max: usize) -> Option<String> {
    let starts_well = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    let valid = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
    (!(starts_well && valid && !name.contains("__") && name.len() <= max)).then(|| {
        format!(
            "{name:?} cannot name files: start with a letter or digit, use only A-Z, a-z, 0-9, \
             '.', '-' and '_' (never \"__\"), at most {max} characters"
        )
    })
}

/// Is `name` one of the `size` fake plugin tools (spelled at the catalogue's width)?
fn is_fake_tool(name: &str, size: usize) -> bool {
    name.strip_prefix("fake_plugin_tool_")
        .and_then(|n| n.parse::<usize>().ok())
        .is_some_and(|n| (1..=size).contains(&n) && fake_tool_name(n, size) == name)
}

/// A limit of `tool_search` the gateway would ignore: spec §2 takes only a positive whole number
/// and uses its default for anything else, so a scenario that writes `codeTimeoutMs = -5` would
/// run with 10,000 ms and never say so. The key and why.
pub(super) fn ignored_limit(tool_search: &serde_json::Value) -> Option<(&'static str, String)> {
    let object = tool_search.as_object()?;
    ["maxSearchLimit", "searchDefaultLimit", "codeTimeoutMs"]
        .into_iter()
        .find_map(|key| {
            let value = object.get(key)?;
            value.as_u64().is_none_or(|n| n == 0).then(|| {
                let message = format!(
                    "expected a positive whole number, got {value}: the gateway would ignore it \
                     and use its default"
                );
                (key, message)
            })
        })
}

/// A lane's `openclaw` table: a reason, or what to run instead — not both, nothing empty.
pub(super) fn check_on_openclaw(field: Field, on: &LaneOnOpenclaw) -> Checked<()> {
    let replaces = on.tool_search.is_some() || on.config.is_some();
    match &on.not_applicable {
        Some(reason) if reason.trim().is_empty() => Err(problem(
            field.key("not_applicable"),
            "say why the product cannot run this lane",
        )),
        Some(_) if replaces => Err(problem(
            field,
            "not_applicable excludes tool_search and config",
        )),
        _ if on.config.as_ref().is_some_and(|c| !c.is_object()) => Err(problem(
            field.key("config"),
            "expected a table of gateway config keys",
        )),
        _ => Ok(()),
    }
}

/// The names a file gives that must be tools: every script step's (the scenario's and each
/// lane's) must be one some lane declares, every deny pattern (`[policy]`, a lane's
/// `config.tools.deny`) must match a tool. Both are load errors with the closest names: a
/// misspelled call would only show at run time as a script running out, and a pattern that
/// denies nothing would let F1 pass with nothing denied.
pub(super) struct Names<'a> {
    pub(super) catalog: &'a CatalogSpec,
    /// `catalog.size` is unknown: a name that could be a fake tool of some size is not judged.
    pub(super) any_size: bool,
    pub(super) bridge: &'a Bridge,
}

/// The names one `[[lanes]]` table gives (its script's tools, its `config.tools.deny`), read
/// before the lane is checked, so they are checked whatever else is wrong with the lane.
pub(super) struct LaneNames {
    script: Option<Vec<ScriptStep>>,
    deny: Vec<String>,
    /// A Code Mode lane: its script may call `exec` and `wait`.
    code_mode: bool,
}

impl LaneNames {
    pub(super) fn of(lane: &LaneFile) -> LaneNames {
        let deny = lane.config.as_ref().and_then(|c| c.pointer("/tools/deny"));
        LaneNames {
            script: lane.script.clone(),
            deny: deny
                .and_then(|d| serde_json::from_value(d.clone()).ok())
                .unwrap_or_default(),
            code_mode: lane.code_mode.is_some(),
        }
    }
}

impl Names<'_> {
    pub(super) fn check(
        &self,
        policy: &ToolPolicy,
        script: Option<&[ScriptStep]>,
        lanes: &[LaneNames],
        problems: &mut Vec<Problem>,
    ) {
        self.patterns(Field::of("policy").key("deny"), &policy.deny, problems);
        if let Some(script) = script {
            let code_mode = !lanes.is_empty() && lanes.iter().all(|l| l.code_mode);
            self.steps(Field::of("script"), script, code_mode, problems);
        }
        for (i, lane) in lanes.iter().enumerate() {
            let field = Field::of("lanes").index(i);
            if let Some(script) = &lane.script {
                self.steps(
                    field.clone().key("script"),
                    script,
                    lane.code_mode,
                    problems,
                );
            }
            self.patterns(field.key("config.tools.deny"), &lane.deny, problems);
        }
    }

    fn steps(
        &self,
        field: Field,
        script: &[ScriptStep],
        code_mode: bool,
        problems: &mut Vec<Problem>,
    ) {
        for (i, step) in script.iter().enumerate() {
            let Some(tool) = &step.tool else { continue };
            if code_mode && crate::config::code_mode::CONTROLS.contains(&tool.as_str()) {
                continue;
            }
            if self.any_size && could_be_fake(tool) {
                continue;
            }
            if let Some(message) = unknown_script_tool(tool, &self.catalog(), self.bridge) {
                problems.push(problem(field.clone().index(i).key("tool"), message));
            }
        }
    }

    fn patterns(&self, field: Field, deny: &[String], problems: &mut Vec<Problem>) {
        for (i, pattern) in deny.iter().enumerate() {
            let name = pattern.rsplit(':').next().unwrap_or(pattern);
            if self.any_size && (pattern.contains('*') || could_be_fake(name)) {
                continue;
            }
            if let Some(message) = unmatched_deny(pattern, &self.catalog(), self.bridge) {
                problems.push(problem(field.clone().index(i), message));
            }
        }
    }

    /// The catalogue the names are checked against: without fake tools when its size is unknown.
    fn catalog(&self) -> std::borrow::Cow<'_, CatalogSpec> {
        match self.any_size {
            true => std::borrow::Cow::Owned(CatalogSpec {
                size: 0,
                ..self.catalog.clone()
            }),
            false => std::borrow::Cow::Borrowed(self.catalog),
        }
    }
}

/// Could `name` be a fake plugin tool of a catalogue of some size (`fake_plugin_tool_07`)?
fn could_be_fake(name: &str) -> bool {
    let digits = name.strip_prefix("fake_plugin_tool_").unwrap_or_default();
    digits.len() >= 2
        && digits.bytes().all(|b| b.is_ascii_digit())
        && digits != "0".repeat(digits.len())
}

pub(super) fn check_script(field: Field, script: &[ScriptStep]) -> Checked<()> {
    match script.iter().position(|step| step.to_turn().is_none()) {
        Some(i) => Err(problem(
            field.index(i),
            "expected either `tool` (with optional `arguments`) or `text`",
        )),
        None => Ok(()),
    }
}

/// Lanes C6 judges whose `expect` leaves a count unset: C6 would fail there on any gateway
/// (`searches = 0 is unchecked`), so `check` says it before a run does.
pub(super) fn unjudgeable(lanes: &[Lane], claims: &[ClaimSpec]) -> Vec<Problem> {
    let names_c6 = claims.iter().find(|c| c.id == ClaimId::C6);
    let judged = claims.is_empty() || names_c6.is_some();
    let mut problems = Vec::new();
    for (i, lane) in lanes.iter().enumerate() {
        let on_lane = names_c6.is_none_or(|c| c.lanes.is_empty() || c.lanes.contains(&lane.name));
        if !judged || !on_lane || !ClaimId::C6.checks(lane) {
            continue;
        }
        let e = &lane.expect;
        let unset: Vec<&str> = [
            ("searches", e.searches),
            ("describes", e.describes),
            ("calls", e.calls),
        ]
        .into_iter()
        .filter(|(_, n)| n.is_none())
        .map(|(name, _)| name)
        .collect();
        if !unset.is_empty() {
            problems.push(problem(
                Field::of("lanes").index(i).key("expect"),
                format!(
                    "C6 judges this lane and needs the session log's counts, but `expect` does not \
                     set {}: the run would fail (\"{} = 0 is unchecked\"); set them, or list \
                     `claims` without C6",
                    unset.join(", "),
                    unset[0]
                ),
            ));
        }
    }
    problems
}
