//! Resolving: a file as written into the typed [`Scenario`], collecting every problem.

use std::path::Path;
use std::sync::Arc;

use super::check::{
    check_catalog, check_on_openclaw, check_script, file_part_problem, id_problem, ignored_limit,
    unjudgeable, LaneNames, Names, MAX_LANE_NAME_BYTES,
};
use super::{keep, problem, Checked, ClaimFile, LaneFile, Problem, ScenarioFile, Strictness};
use crate::catalog::ToolSource;
use crate::config::{agent_id_problem, ToolSearchSettings};
use crate::profile::{self, built_in_names, Profile, ProfileError};
use crate::scenario::names::{closest, not_in_catalogue, suggestion, unknown_tool};
use crate::scenario::place::Field;
use crate::scenario::{CatalogSpec, ClaimId, ClaimSpec, Lane, LaneOnOpenclaw, Scenario};

/// Checks every value of a file and types it, collecting every problem (as a compiler does) so
/// a file with three mistakes takes one round. A check that depends on another part (a tool
/// name on the catalogue, a claim on the lanes) runs only when that part is sound, so one
/// mistake is reported once, not again through everything that depends on it. `tainted` are
/// the fields a type error left unknown (their values are placeholders): nothing is said of
/// them, and what depends on them is not checked.
pub(super) fn resolve(
    file: ScenarioFile,
    origin: &str,
    tainted: &[Field],
    strictness: Strictness,
) -> Result<Scenario, Vec<Problem>> {
    let known = |field: &str| !tainted.iter().any(|t| t.is_within(&Field::of(field)));
    let mut problems: Vec<Problem> = Vec::new();
    if file.lanes.is_empty() && file.pending.is_none() {
        problems.push(problem(
            Field::of("lanes"),
            "must list at least one lane (or say why not with `pending`)",
        ));
    }
    if file
        .openclaw
        .not_applicable
        .as_ref()
        .is_some_and(|r| r.trim().is_empty())
    {
        problems.push(problem(
            Field::of("openclaw").key("not_applicable"),
            "say why the product cannot run this scenario",
        ));
    }
    if let Some(message) = id_problem(&file.id) {
        problems.push(problem(Field::of("id"), message));
    }
    if let Some(message) = agent_id_problem(&file.agent) {
        problems.push(problem(Field::of("agent"), message));
    }
    let catalog = match known("catalog") {
        true => match keep(&mut problems, check_catalog(&file.catalog)) {
            Some(()) => Known::Sound,
            None => Known::Unsound,
        },
        false if known_but_size(tainted) => Known::SizeUnknown,
        false => Known::Unsound,
    };
    let target_source = match file.target_source.as_str() {
        "openclaw" => Some(ToolSource::Openclaw),
        "mcp" => Some(ToolSource::Mcp),
        "client" => Some(ToolSource::Client),
        other => {
            problems.push(problem(
                Field::of("target_source"),
                format!("expected openclaw, mcp or client, got {other:?}"),
            ));
            None
        }
    };
    if let Some(source) = target_source.filter(|_| catalog == Known::Sound) {
        if let Some(message) = not_in_catalogue(&file.target_tool, source, &file.catalog) {
            problems.push(problem(Field::of("target_tool"), message));
        }
    }
    // The names a lane gives, by the lane's index in the file (whatever became of the lane).
    let lane_names: Vec<LaneNames> = file.lanes.iter().map(LaneNames::of).collect();
    let mut lanes: Vec<Lane> = Vec::new();
    let mut lanes_ok = true;
    let mut names_before: Vec<String> = Vec::new();
    for (i, lane) in file.lanes.into_iter().enumerate() {
        let field = Field::of("lanes").index(i);
        let shape = ["name", "tool_search", "native", "code_mode"]
            .iter()
            .all(|key| known(&field.clone().key(key).to_string()));
        let name = lane.name.clone();
        let resolved = resolve_lane(&names_before, field, lane, &mut problems);
        names_before.push(name);
        match resolved.filter(|_| shape) {
            Some(lane) => lanes.push(lane),
            None => lanes_ok = false,
        }
    }
    if let Some(script) = &file.script {
        keep(&mut problems, check_script(Field::of("script"), script));
    }
    let mut claims = Vec::new();
    let mut claims_ok = true;
    for (i, claim) in file.claims.into_iter().enumerate() {
        let field = Field::of("claims").index(i);
        let id = keep(&mut problems, claim_id(field.clone(), &claim.id));
        match id.filter(|_| catalog == Known::Sound && lanes_ok) {
            Some(id) => {
                let resolved = resolve_claim(id, &lanes, &file.catalog, field, claim);
                let kept = keep(&mut problems, resolved);
                claims_ok &= kept.is_some();
                claims.extend(kept);
            }
            None => claims_ok = false,
        }
    }
    let profile = match &file.profile {
        Some(reference) => keep(
            &mut problems,
            resolve_profile(reference, origin)
                .map_err(|e| problem(Field::of("profile"), e.to_string())),
        ),
        None => Some(Profile::spec()),
    };
    if let Some(profile) = profile.as_ref().filter(|_| catalog != Known::Unsound) {
        let names = Names {
            catalog: &file.catalog,
            any_size: catalog == Known::SizeUnknown,
            bridge: profile.bridge(),
        };
        names.check(
            &file.policy,
            file.script.as_deref(),
            &lane_names,
            &mut problems,
        );
    }
    if file.follow_up_entry.is_some() && file.follow_up.is_none() {
        problems.push(problem(
            Field::of("follow_up_entry"),
            "the entry point of the follow-up turn needs a follow_up".to_string(),
        ));
    }
    if strictness == Strictness::Check && lanes_ok && claims_ok {
        problems.extend(unjudgeable(&lanes, &claims));
    }
    problems.retain(|p| !tainted.iter().any(|t| p.field.is_within(t)));
    let complete = tainted.is_empty() && problems.is_empty();
    let (Some(target_source), Some(profile), true) = (target_source, profile, complete) else {
        return Err(problems);
    };
    let mut scenario = Scenario {
        id: file.id,
        title: file.title,
        objective: file.objective,
        agent: file.agent,
        prompt: file.prompt,
        target_tool: file.target_tool,
        target_source,
        max_output_tokens: file.max_output_tokens,
        follow_up: file.follow_up,
        follow_up_entry: file.follow_up_entry.unwrap_or_default(),
        catalog: file.catalog,
        policy: file.policy,
        script: file.script,
        claims,
        pending: file.pending,
        profile: profile.clone(),
        openclaw: file.openclaw,
        lanes,
        origin: origin.to_string(),
        dir: None,
    };
    scenario.set_profile(profile);
    Ok(scenario)
}

/// How much of `[catalog]` the checks that need it can rely on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Known {
    Sound,
    /// Only `size` is unknown (a type error): names are checked against what does not depend on
    /// it, and any fake tool name is taken as possibly one of the catalogue's.
    SizeUnknown,
    Unsound,
}

/// Is `catalog.size` the only field of `[catalog]` a type error left unknown?
fn known_but_size(tainted: &[Field]) -> bool {
    let catalog = Field::of("catalog");
    let size = Field::of("catalog.size");
    tainted
        .iter()
        .filter(|t| t.is_within(&catalog))
        .all(|t| *t == size)
}

/// A built-in profile by name, else a profile file; a relative path is taken from the scenario
/// file's folder.
fn resolve_profile(reference: &str, origin: &str) -> Result<Arc<Profile>, ProfileError> {
    if built_in_names().iter().any(|n| n == reference) {
        return profile::resolve(reference);
    }
    let path = Path::new(reference);
    match Path::new(origin).parent() {
        Some(dir) if path.is_relative() && Path::new(origin).is_file() => {
            profile::resolve(&dir.join(path).display().to_string())
        }
        _ => profile::resolve(reference),
    }
}

/// Lane `field` (`lanes[i]`), checked against the names of the lanes before it; every problem
/// it has goes to `problems`. The lane, when its shape (name, Tool Search settings or native
/// search) is sound, even if something else of it is not, so the claims can still be checked
/// against the lanes.
fn resolve_lane(
    before: &[String],
    field: Field,
    lane: LaneFile,
    problems: &mut Vec<Problem>,
) -> Option<Lane> {
    let mut sound = true;
    if let Some(message) = file_part_problem(&lane.name, MAX_LANE_NAME_BYTES) {
        problems.push(problem(field.clone().key("name"), message));
        sound = false;
    } else if before.contains(&lane.name) {
        problems.push(problem(
            field.clone().key("name"),
            format!("{:?} is used by an earlier lane", lane.name),
        ));
    }
    if let Some(twin) = lane.twin.as_ref().filter(|t| !before.contains(t)) {
        problems.push(problem(
            field.clone().key("twin"),
            format!(
                "no earlier lane named {twin:?} in this scenario (a twin comes before the lane){}",
                suggestion(&closest(twin, before.iter().map(String::as_str)))
            ),
        ));
    }
    let native = match lane.native {
        Some(config) => keep(
            problems,
            config.resolve().map_err(|(at, m)| {
                let key = at.strip_prefix("tools.nativeSearch.").unwrap_or("search");
                problem(field.clone().key("native").key(key), m)
            }),
        )
        .map(Some),
        None => Some(None),
    };
    let tool_search = match (&lane.tool_search, &native) {
        (_, None) => None,
        (Some(_), Some(Some(_))) => {
            problems.push(problem(
                field.clone().key("tool_search"),
                "a native lane has no tool_search: the provider searches (remove one of the two)",
            ));
            None
        }
        // A Code Mode lane without Tool Search: `tools.toolSearch` is off.
        (None, Some(None)) if lane.code_mode.is_some() => Some(serde_json::Value::Bool(false)),
        (None, Some(None)) => {
            problems.push(problem(
                field.clone().key("tool_search"),
                "missing field `tool_search`: false, true or { mode = \"…\" } (or `native` for a \
                 native lane, or `code_mode` for a Code Mode lane)",
            ));
            None
        }
        (Some(tool_search), Some(None)) => Some(tool_search.clone()),
        (None, Some(Some(_))) => Some(crate::scenario::native_tool_search()),
    };
    let native = native.flatten();
    if native.is_some() && lane.code_mode.is_some() {
        problems.push(problem(
            field.clone().key("code_mode"),
            "a native lane has no code_mode: the provider searches (remove one of the two)",
        ));
    }
    if native.is_some() && lane.openclaw != LaneOnOpenclaw::default() {
        problems.push(problem(
            field.clone().key("openclaw"),
            "a native lane never runs on the product; it has no openclaw table",
        ));
    }
    let settings = tool_search.as_ref().and_then(|tool_search| {
        let settings = ToolSearchSettings::resolve(Some(tool_search)).map_err(|(key, m)| {
            let key = key.strip_prefix("tools.toolSearch").unwrap_or(&key);
            problem(field.clone().key("tool_search").key(key), m)
        });
        keep(problems, settings)
    });
    if let Some((key, message)) = tool_search.as_ref().and_then(ignored_limit) {
        problems.push(problem(field.clone().key("tool_search").key(key), message));
    }
    if let Some(config) = &lane.config {
        if !config.is_object() {
            problems.push(problem(
                field.clone().key("config"),
                "expected a table of gateway config keys",
            ));
        } else {
            let overrides = crate::config::check_overrides(config)
                .map_err(|(key, m)| problem(field.clone().key("config").key(&key), m));
            keep(problems, overrides);
        }
    }
    if let Some(script) = &lane.script {
        keep(problems, check_script(field.clone().key("script"), script));
    }
    keep(
        problems,
        check_on_openclaw(field.clone().key("openclaw"), &lane.openclaw),
    );
    let (Some(tool_search), Some(settings), true) = (tool_search, settings, sound) else {
        return None;
    };
    let openclaw = match native {
        Some(_) => LaneOnOpenclaw {
            not_applicable: Some(crate::scenario::NATIVE_ON_OPENCLAW.to_string()),
            ..LaneOnOpenclaw::default()
        },
        None => lane.openclaw,
    };
    Some(Lane {
        name: lane.name,
        tool_search,
        settings,
        config: lane.config,
        script: lane.script,
        stream: lane.stream,
        provider_timeout_ms: lane.provider_timeout_ms,
        twin: lane.twin,
        native,
        code_mode: lane.code_mode,
        catalog_preferred: lane.catalog_preferred,
        expect: lane.expect,
        openclaw_expect: lane.openclaw_expect,
        openclaw,
    })
}

/// The claim `name` names, if it is one a scenario may list.
fn claim_id(field: Field, name: &str) -> Checked<ClaimId> {
    ClaimId::from_name(name)
        .filter(|id| id.def().nameable)
        .ok_or_else(|| {
            let known: Vec<&str> = ClaimId::ALL
                .iter()
                .filter(|id| id.def().nameable)
                .map(|id| id.as_str())
                .collect();
            problem(
                field.key("id"),
                format!(
                    "unknown claim {name:?}; expected one of {}",
                    known.join(", ")
                ),
            )
        })
}

/// Claim `id` as listed (`field`), against the lanes and the catalogue.
fn resolve_claim(
    id: ClaimId,
    lanes: &[Lane],
    catalog: &CatalogSpec,
    field: Field,
    claim: ClaimFile,
) -> Checked<ClaimSpec> {
    match &claim.tool {
        None if id.def().needs_tool => {
            return Err(problem(
                field.key("tool"),
                format!("claim {id} needs the tool it is about"),
            ))
        }
        Some(tool) => {
            if let Some(message) = unknown_tool(tool, catalog) {
                return Err(problem(field.key("tool"), message));
            }
        }
        None => {}
    }
    match claim.max_result_bytes {
        Some(_) if id != ClaimId::K1 => {
            return Err(problem(
                field.key("max_result_bytes"),
                format!("claim {id} does not read max_result_bytes (only K1 does)"),
            ))
        }
        Some(0) => {
            return Err(problem(
                field.key("max_result_bytes"),
                "must be at least 1".to_string(),
            ))
        }
        _ => {}
    }
    match (&claim.args, &claim.tool) {
        (Some(_), _) if id != ClaimId::I1 => {
            return Err(problem(
                field.key("args"),
                format!("claim {id} does not read args (only I1 does, with a tool)"),
            ))
        }
        (Some(_), None) => {
            return Err(problem(
                field.key("args"),
                "I1 runs args only on a named tool: give the claim a tool".to_string(),
            ))
        }
        (Some(args), Some(_)) if !args.is_object() => {
            return Err(problem(field.key("args"), "must be a table".to_string()))
        }
        _ => {}
    }
    if let Some(i) = claim
        .lanes
        .iter()
        .position(|l| !lanes.iter().any(|x| &x.name == l))
    {
        let names = lanes.iter().map(|l| l.name.as_str());
        return Err(problem(
            field.key("lanes").index(i),
            format!(
                "no lane named {:?} in this scenario{}",
                claim.lanes[i],
                suggestion(&closest(&claim.lanes[i], names))
            ),
        ));
    }
    let all: Vec<&Lane> = lanes.iter().collect();
    let candidates: Vec<&Lane> = lanes
        .iter()
        .filter(|l| claim.lanes.is_empty() || claim.lanes.contains(&l.name))
        .collect();
    if let Some(missing) = id.missing_lane(&candidates, &all) {
        let at = match claim.lanes.is_empty() {
            true => field.key("id"),
            false => field.key("lanes"),
        };
        return Err(problem(
            at,
            format!("claim {id} cannot be checked here: {missing}"),
        ));
    }
    Ok(ClaimSpec {
        id,
        tool: claim.tool,
        error: claim.error,
        max_result_bytes: claim.max_result_bytes,
        args: claim.args,
        lanes: claim.lanes,
    })
}
