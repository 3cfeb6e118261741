//! How a scenario runs on the real product, decided before any gateway starts: lanes the
//! scenario marks `not_applicable` are reported with its reason, lanes with an `openclaw` table
//! run with its `tool_search`/`config`, an MCP target is named as the product names it
//! (`<server>__<tool>`), and anything only the embedded gateway understands is refused with a
//! usage error (exit 2) that says how to mark the lane — so no embedded-only key ever reaches
//! the product's config.

use serde_json::Value;

use crate::catalog::ToolSource;
use crate::error::Error;
use crate::scenario::{Lane, Scenario};
use crate::targets::{NotApplicable, TargetPlan};

use super::release::Found;

/// Lane `config` overrides the openclaw target writes into the product's config: the tool
/// policy as it is, the Chat Completions entry point (off by default on the product; a
/// follow-up turn may come in through it), the declarative approval and hook rules as the fake
/// plugin's `before_tool_call` hook, `hooks.toolsAllow` as its `before_prompt_build` hook's
/// `toolsAllow`, `catalog.registration` as the order it registers its tools in (see
/// [`super::plugin`]), and `plugins.deny` (a Code Mode lane that denies the QuickJS executor's
/// plugin, so the product must fail closed).
pub const PRODUCT_CONFIG_KEYS: [&str; 9] = [
    "tools.deny",
    "tools.allow",
    "tools.alsoAllow",
    "gateway.http.endpoints.chatCompletions.enabled",
    "tools.approvals",
    "hooks.beforeToolCall",
    "plugins.deny",
    "hooks.toolsAllow",
    "catalog.registration",
];

/// The product's name of an MCP tool `tool` of server `server`.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
}

/// The scenario as release `found` of the product runs it: [`plan`] with the `tools.toolSearch`
/// keys the release accepts, then every lane in a mode the release does not have is not
/// applicable, with the reason, and so is every Code Mode lane on a release without Code Mode
/// (or without the executor the lane picks).
pub fn plan_release(scenario: &Scenario, found: &Found) -> Result<TargetPlan, Error> {
    let release = &found.release;
    let mut planned = plan(scenario, &release.tool_search_keys)?;
    let (runs, no_code_mode): (Vec<Lane>, Vec<Lane>) = std::mem::take(&mut planned.scenario.lanes)
        .into_iter()
        .partition(|lane| code_mode_reason(lane, found).is_none());
    planned.scenario.lanes = runs;
    planned
        .not_applicable
        .extend(no_code_mode.iter().map(|lane| {
            let reason = code_mode_reason(lane, found).unwrap_or_default();
            NotApplicable::new(lane, reason)
        }));
    let (runs, missing): (Vec<Lane>, Vec<Lane>) = std::mem::take(&mut planned.scenario.lanes)
        .into_iter()
        .partition(|lane| release.mode(lane.mode()).is_some());
    planned.scenario.lanes = runs;
    planned.not_applicable.extend(missing.iter().map(|lane| {
        let reason = format!(
            "OpenClaw {} has no `{}` Tool Search mode ({})",
            release.version,
            lane.mode().as_str(),
            found.origin
        );
        NotApplicable::new(lane, reason)
    }));
    Ok(planned)
}

/// Why `lane`, a Code Mode lane, cannot run on release `found`; `None` for any other lane. A
/// lane that denies plugins (`plugins.deny`: the fail-closed case) cannot make a built-in
/// executor unavailable, so on a release whose executor is no plugin it is not applicable.
fn code_mode_reason(lane: &Lane, found: &Found) -> Option<String> {
    let settings = lane.code_mode.as_ref()?;
    let release = &found.release;
    if let Some(why) = release.code_mode_not_applicable(&found.origin, settings.executor) {
        return Some(why);
    }
    let facts = release.code_mode.as_ref()?;
    if !facts.auto_tier
        && (settings.enabled == crate::config::code_mode::CodeModeEnabled::Auto
            || lane.catalog_preferred)
    {
        return Some(format!(
            "OpenClaw {} has no Code Mode \"auto\" tier: its `tools.codeMode.enabled` is a \
             boolean and its models have no `compat.codeMode` ({} says auto_tier = false)",
            release.version, found.origin
        ));
    }
    let executor = facts.executor(settings.executor).ok()?;
    let config = lane.openclaw.config.as_ref().or(lane.config.as_ref())?;
    let denied = config.pointer("/plugins/deny")?.as_array()?;
    match facts.executor_plugin(executor) {
        Some(_) => None,
        None => Some(format!(
            "OpenClaw {}'s `{}` Code Mode executor is built in, no plugin (no executor_plugins \
             entry in {}), so denying plugins {} cannot make it unavailable",
            release.version,
            executor.as_str(),
            found.origin,
            Value::Array(denied.clone())
        )),
    }
}

/// The scenario as the openclaw target runs it, on a release that accepts the `tools.toolSearch`
/// keys `tool_search_keys`.
pub fn plan(scenario: &Scenario, tool_search_keys: &[String]) -> Result<TargetPlan, Error> {
    if let Some(reason) = &scenario.openclaw.not_applicable {
        return Ok(TargetPlan::none_applicable(scenario, reason));
    }
    let mut resolved = scenario.clone();
    let mut not_applicable = Vec::new();
    resolved.lanes.clear();
    for lane in &scenario.lanes {
        match &lane.openclaw.not_applicable {
            Some(reason) => not_applicable.push(NotApplicable::new(lane, reason.clone())),
            None => resolved
                .lanes
                .push(product_lane(scenario, lane, tool_search_keys)?),
        }
    }
    if scenario.target_source == ToolSource::Mcp {
        name_mcp_target(&mut resolved)?;
    }
    Ok(TargetPlan {
        scenario: resolved,
        not_applicable,
    })
}

fn refuse(scenario: &Scenario, lane: &Lane, what: String) -> Error {
    Error::Usage(format!(
        "scenario {} lane {} cannot run on openclaw: {what}; give the lane `openclaw = {{ tool_search = …, config = … }}` \
         in the product's terms, or `openclaw = {{ not_applicable = \"why\" }}` ({})",
        scenario.id, lane.name, scenario.origin
    ))
}

/// The lane with the product's `tool_search` and `config`, checked key by key.
fn product_lane(
    scenario: &Scenario,
    lane: &Lane,
    tool_search_keys: &[String],
) -> Result<Lane, Error> {
    let tool_search = lane
        .openclaw
        .tool_search
        .clone()
        .unwrap_or_else(|| lane.tool_search.clone());
    if let Value::Object(map) = &tool_search {
        if let Some(key) = map.keys().find(|k| !tool_search_keys.contains(k)) {
            let what = format!(
                "tools.toolSearch.{key} is a key only the embedded gateway knows (the product accepts {})",
                tool_search_keys.join(", ")
            );
            return Err(refuse(scenario, lane, what));
        }
    }
    let config = lane.openclaw.config.clone().or_else(|| lane.config.clone());
    if let Some(config) = &config {
        if let Some(path) = leaf_paths(config, "")
            .into_iter()
            .find(|p| !PRODUCT_CONFIG_KEYS.contains(&p.as_str()))
        {
            let what = format!(
                "config key {path} is not one the openclaw target writes (it writes {})",
                PRODUCT_CONFIG_KEYS.join(", ")
            );
            return Err(refuse(scenario, lane, what));
        }
    }
    if lane.provider_timeout_ms.is_some() {
        let what = "provider_timeout_ms is an embedded-gateway setting".to_string();
        return Err(refuse(scenario, lane, what));
    }
    let mut product = Lane::new(&lane.name, tool_search)
        .map_err(|e| refuse(scenario, lane, format!("openclaw.tool_search: {e}")))?;
    product.config = config;
    product.script = lane.script.clone();
    product.stream = lane.stream;
    product.twin = lane.twin.clone();
    product.expect = lane.expect.clone();
    product.openclaw_expect = lane.openclaw_expect.clone();
    product.openclaw = lane.openclaw.clone();
    product.code_mode = lane.code_mode;
    product.catalog_preferred = lane.catalog_preferred;
    Ok(product)
}

/// Dotted paths of a config table down to its first non-table value (`tools.deny`).
fn leaf_paths(value: &Value, prefix: &str) -> Vec<String> {
    match value {
        Value::Object(map) if !map.is_empty() => map
            .iter()
            .flat_map(|(key, child)| {
                let path = match prefix {
                    "" => key.clone(),
                    p => format!("{p}.{key}"),
                };
                leaf_paths(child, &path)
            })
            .collect(),
        _ => vec![prefix.to_string()],
    }
}

/// The MCP target under the product's name, in the scenario, its prompts' directives and its
/// scripts' arguments (a selector or query that names the target).
fn name_mcp_target(scenario: &mut Scenario) -> Result<(), Error> {
    let tool = scenario.target_tool.clone();
    let Some(server) = scenario.catalog.mcp_server_of(&tool) else {
        return Err(Error::Usage(format!(
            "scenario {}: target_tool {tool:?} is no tool of its MCP servers {:?}",
            scenario.id,
            scenario.catalog.mcp_server_names()
        )));
    };
    let product_name = mcp_tool_name(&server, &tool);
    let (from, to) = (format!("target={tool}"), format!("target={product_name}"));
    scenario.prompt = scenario.prompt.replace(&from, &to);
    scenario.follow_up = scenario.follow_up.take().map(|t| t.replace(&from, &to));
    let scripts = std::iter::once(&mut scenario.script)
        .chain(scenario.lanes.iter_mut().map(|lane| &mut lane.script))
        .flatten()
        .flatten();
    for step in scripts {
        if let Some(toml::Value::Table(arguments)) = &mut step.arguments {
            for (_, value) in arguments.iter_mut() {
                if value.as_str() == Some(tool.as_str()) {
                    *value = toml::Value::String(product_name.clone());
                }
            }
        }
    }
    scenario.target_tool = product_name;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_all;

    /// The scenario as OpenClaw 2026.9.6 plans it (its `tools.toolSearch` keys).
    fn planned(scenario: &Scenario) -> Result<TargetPlan, Error> {
        let catalogue = crate::targets::openclaw::ReleaseCatalogue::current().unwrap();
        let found = catalogue.find(&"2026.9.6".parse().unwrap()).unwrap();
        plan(scenario, &found.release.tool_search_keys)
    }

    fn builtin(id: &str) -> Scenario {
        let all = load_all(&[]).expect("built-in scenarios load");
        all.into_iter()
            .find(|s| s.id == id)
            .expect("scenario exists")
    }

    /// A Code Mode lane runs on a release with Code Mode and the executor it picks; on one
    /// without (2026.5.12), or without that executor (Node before 2026.9.6), it is not
    /// applicable, saying why and naming the release file.
    #[test]
    fn a_code_mode_lane_runs_where_the_release_has_code_mode() {
        use crate::config::{CodeModeExecutor, CodeModeSettings};
        let catalogue = crate::targets::openclaw::ReleaseCatalogue::current().unwrap();
        let found = |v: &str| catalogue.find(&v.parse().unwrap()).unwrap();
        let mut scenario = builtin("tool-search-gateway-e2e");
        scenario.lanes.truncate(2);
        for (name, executor) in [("code-mode", None), ("node", Some(CodeModeExecutor::Node))] {
            let mut lane = scenario.lanes[0].clone();
            lane.name = name.into();
            lane.code_mode = Some(CodeModeSettings {
                executor,
                ..CodeModeSettings::default()
            });
            lane.catalog_preferred = true;
            scenario.lanes.push(lane);
        }
        let names = |plan: &TargetPlan| -> Vec<String> {
            plan.scenario.lanes.iter().map(|l| l.name.clone()).collect()
        };
        let newest = plan_release(&scenario, &found("2026.9.6")).expect("plan");
        assert_eq!(names(&newest), ["direct", "tools", "code-mode", "node"]);
        assert!(newest.not_applicable.is_empty());
        let node = &newest.scenario.lanes[3];
        assert_eq!(
            node.code_mode.unwrap().executor,
            Some(CodeModeExecutor::Node)
        );
        assert!(node.catalog_preferred);

        let first = plan_release(&scenario, &found("2026.8.1")).expect("plan");
        assert_eq!(names(&first), ["direct", "tools", "code-mode"]);
        assert_eq!(first.not_applicable.len(), 1);
        assert_eq!(
            first.not_applicable[0].reason,
            "OpenClaw 2026.8.1 has no `node` Code Mode executor (executors = [\"quickjs\"]) \
             (data/releases/openclaw-2026.8.1.toml)"
        );

        // A lane that denies the executor's plugin runs where the executor is one (2026.9.6)
        // and is not applicable where it is built in.
        let mut fail_closed = scenario.clone();
        fail_closed.lanes.truncate(3);
        fail_closed.lanes[2].code_mode = Some(CodeModeSettings {
            executor: Some(CodeModeExecutor::Quickjs),
            ..CodeModeSettings::default()
        });
        fail_closed.lanes[2].config =
            Some(serde_json::json!({ "plugins": { "deny": ["code-mode-quickjs"] } }));
        let runs = plan_release(&fail_closed, &found("2026.9.6")).expect("plan");
        assert_eq!(names(&runs), ["direct", "tools", "code-mode"]);
        let built_in = plan_release(&fail_closed, &found("2026.9.5")).expect("plan");
        assert_eq!(names(&built_in), ["direct", "tools"]);
        assert_eq!(
            built_in.not_applicable[0].reason,
            "OpenClaw 2026.9.5's `quickjs` Code Mode executor is built in, no plugin (no \
             executor_plugins entry in data/releases/openclaw-2026.9.5.toml), so denying plugins \
             [\"code-mode-quickjs\"] cannot make it unavailable"
        );

        let oldest = plan_release(&scenario, &found("2026.5.12")).expect("plan");
        assert_eq!(names(&oldest), ["direct", "tools"]);
        let reasons: Vec<&str> = oldest
            .not_applicable
            .iter()
            .map(|n| n.reason.as_str())
            .collect();
        let none = "OpenClaw 2026.5.12 has no Code Mode: no `tools.codeMode` in its config schema \
                    (data/releases/openclaw-2026.5.12.toml has no [code_mode])";
        assert_eq!(reasons, [none, none]);
    }

    #[test]
    fn mcp_targets_get_the_product_name() {
        let plan = planned(&builtin("tool-search-mcp-target")).expect("plan");
        assert_eq!(plan.scenario.target_tool, "qa__mcp_qa_echo");
        assert_eq!(
            plan.scenario.prompt,
            "tool search qa check target=qa__mcp_qa_echo"
        );
        assert!(plan.not_applicable.is_empty());
        // A script's selectors and queries that name the target are renamed with it.
        let exits = planned(&builtin("upstream-mcp-server-exits")).expect("plan");
        let product = "qa-exit-after-call__mcp_qa_echo";
        assert_eq!(exits.scenario.target_tool, product);
        let named: Vec<String> = exits
            .scenario
            .script
            .iter()
            .flatten()
            .filter_map(|step| step.arguments.as_ref())
            .filter_map(|a| a.get("id").or_else(|| a.get("query")))
            .map(|v| v.as_str().unwrap_or_default().to_string())
            .collect();
        assert_eq!(named.len(), 11);
        assert!(named.iter().all(|n| n == product), "{named:?}");
    }

    #[test]
    fn embedded_only_keys_are_refused_with_the_way_out() {
        let mut scenario = builtin("tool-search-gateway-e2e");
        scenario.lanes[2] = Lane::new(
            "code",
            serde_json::json!({ "mode": "code", "sandbox": "quickjs" }),
        )
        .expect("lane");
        let err = planned(&scenario).expect_err("sandbox is embedded-only");
        assert_eq!(err.exit_code(), crate::error::Exit::USAGE);
        let text = err.to_string();
        assert!(
            text.starts_with("scenario tool-search-gateway-e2e lane code cannot run on openclaw: tools.toolSearch.sandbox"),
            "{text}"
        );
        assert!(text.contains("not_applicable"), "{text}");

        let mut scenario = builtin("tool-search-gateway-e2e");
        scenario.lanes[1].config =
            Some(serde_json::json!({ "catalog": { "withdrawAfterSearch": ["x"] } }));
        let err = planned(&scenario)
            .expect_err("catalog is embedded-only")
            .to_string();
        assert!(
            err.contains("config key catalog.withdrawAfterSearch"),
            "{err}"
        );
    }

    #[test]
    fn leaf_paths_stop_at_values() {
        let config =
            serde_json::json!({ "tools": { "deny": ["a"], "toolSearch": { "mode": "x" } } });
        assert_eq!(
            leaf_paths(&config, ""),
            ["tools.deny", "tools.toolSearch.mode"]
        );
    }
}
