//! E1, upstream's A10: the gateway's own view of a session's effective tools (`tools.effective`)
//! lists the target with `source: "plugin"` and the scenario's fixture plugin as its `pluginId`,
//! with Tool Search on and off alike (the catalogue hides schemas from the model, not tools from
//! the session).

use super::{check, show, Check, ClaimInput};

pub fn e1_effective_attribution(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let target = &input.scenario.target_tool;
    let plugin = &input.scenario.catalog.plugin_id;
    let expected =
        format!("tools.effective lists {target} with source plugin and pluginId {plugin}");
    let Some(effective) = &o.observation.effective else {
        return vec![check(
            "effective tools",
            false,
            expected,
            "the lane did not ask for them (E1 is not named on it)",
        )];
    };
    let tools = match effective {
        Ok(tools) => tools,
        Err(e) => return vec![check("effective tools", false, expected, e.clone())],
    };
    let actual = match tools.tool(target) {
        None => format!("{target} is not listed ({} tools)", tools.count()),
        Some(t) => format!(
            "source {} pluginId {}",
            t.source,
            show(t.plugin_id.as_deref())
        ),
    };
    let ok = tools
        .tool(target)
        .is_some_and(|t| t.source == "plugin" && t.plugin_id.as_deref() == Some(plugin.as_str()));
    vec![check("target attributed", ok, expected, actual)]
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::E1;
    use crate::protocol::invoke::{EffectiveGroup, EffectiveTool, EffectiveTools};

    fn tool(id: &str, source: &str, plugin: Option<&str>) -> EffectiveTool {
        EffectiveTool {
            id: id.into(),
            label: id.into(),
            description: String::new(),
            source: source.into(),
            plugin_id: plugin.map(str::to_string),
        }
    }

    fn with(lane_tools: Result<Vec<EffectiveTool>, String>) -> Fixture {
        let mut f = Fixture::passing_reference()
            .scenario_extra("[[claims]]\nid = 'E1'\nlanes = ['direct', 'tools']\n");
        for lane in ["direct", "tools"] {
            let effective = lane_tools.clone().map(|tools| EffectiveTools {
                agent_id: "qa".into(),
                profile: "full".into(),
                groups: vec![EffectiveGroup {
                    id: "plugin".into(),
                    label: "Connected tools".into(),
                    source: "plugin".into(),
                    tools,
                }],
            });
            f.lane(lane).effective = Some(effective);
        }
        f
    }

    #[test]
    fn holds_when_the_target_is_the_fixtures_plugin_tool_in_both_lanes() {
        let f = with(Ok(vec![tool(
            TARGET,
            "plugin",
            Some("tool-search-e2e-fixture"),
        )]));
        assert!(holds(&f, E1, "direct"));
        assert!(holds(&f, E1, "tools"));
    }

    #[test]
    fn fails_on_another_source_another_plugin_a_missing_target_or_no_answer() {
        let core = with(Ok(vec![tool(TARGET, "core", None)]));
        assert_eq!(
            verdict(&core, E1, "tools").failures[0].actual,
            "source core pluginId none"
        );
        let other = with(Ok(vec![tool(TARGET, "plugin", Some("other"))]));
        assert!(!holds(&other, E1, "direct"));
        let missing = with(Ok(vec![tool("fake_plugin_tool_18", "plugin", Some("x"))]));
        assert_eq!(
            verdict(&missing, E1, "direct").failures[0].actual,
            format!("{TARGET} is not listed (1 tools)")
        );
        let refused = with(Err("unknown session key".into()));
        assert_eq!(
            verdict(&refused, E1, "direct").failures[0].actual,
            "unknown session key"
        );
    }
}
