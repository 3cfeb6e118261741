//! N1, the negative paths (upstream's reference assertions A5/A9): each lane reaches the target
//! only by its own path. A Tool Search lane never plans the target as a direct call and its
//! session log has no direct result of it — unless the surface offers the target by name and
//! the lane means to take that path (a tool the lane declares up front, or a directory-mode
//! lane whose script calls a name its directory lists: that mode's own path). A direct lane never plans a bridge tool and its log has no bridged
//! result and no result of a bridge tool.

use super::directory::lists;
use super::regression::expected_declared;
use super::{check, names, Check, ClaimInput};
use crate::config::ToolSearchMode;
use crate::protocol::responses::system_text;
use crate::protocol::ToolResultRecord;

pub fn n1_one_path(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let wire = o.planned_on_wire();
    match o.lane.is_direct() {
        true => direct_lane(input, &wire),
        false => tool_search_lane(input, &wire),
    }
}

fn direct_lane(input: &ClaimInput<'_>, wire: &[String]) -> Vec<Check> {
    let o = input.lane;
    let bridge = &o.bridge;
    let planned: Vec<&String> = wire.iter().filter(|t| bridge.is_control(t)).collect();
    let bridged: Vec<&str> = o
        .tool_results()
        .filter(|r| r.parent_tool_call_id().is_some() || bridge.is_control(r.tool_name()))
        .map(ToolResultRecord::tool_name)
        .collect();
    let controls = bridge_names(input);
    vec![
        check(
            "no bridge planned",
            planned.is_empty(),
            format!("the model never plans a bridge tool ({controls})"),
            format!("planned {}", names(&planned)),
        ),
        check(
            "no bridged result",
            bridged.is_empty(),
            "the session log has no bridged result and no bridge tool's result",
            format!("results of {}", names(&bridged)),
        ),
    ]
}

fn tool_search_lane(input: &ClaimInput<'_>, wire: &[String]) -> Vec<Check> {
    let o = input.lane;
    let target = &input.scenario.target_tool;
    if offered_by_name(input) {
        return Vec::new();
    }
    let planned = wire.iter().filter(|t| *t == target).count();
    let direct = o
        .tool_results()
        .filter(|r| matches!(r, ToolResultRecord::Direct(d) if d.tool_name == *target))
        .count();
    vec![
        check(
            "target not planned directly",
            planned == 0,
            format!("the model never plans {target} as a direct call"),
            format!("planned it directly {planned} times"),
        ),
        check(
            "no direct result",
            direct == 0,
            format!("the session log has no direct (unbridged) result of {target}"),
            format!("{direct} direct results"),
        ),
    ]
}

/// Whether the lane's surface offers the target by its name and the lane takes that path: the
/// target is declared up front (a direct-only or, in directory mode, a client tool), or the lane
/// is in directory mode, its directory lists the target and its script calls it by name (the
/// scenario says the by-name path is the point; otherwise a directory lane owes the bridge
/// path, as C2 holds it to).
fn offered_by_name(input: &ClaimInput<'_>) -> bool {
    let o = input.lane;
    let target = &input.scenario.target_tool;
    let declared = expected_declared(input.scenario, o).contains(target);
    let scripted = o
        .lane
        .script(input.scenario)
        .is_some_and(|steps| steps.iter().any(|s| s.tool.as_ref() == Some(target)));
    let first = o.observation.requests.first().map(|r| system_text(&r.body));
    let listed = scripted
        && o.lane.mode() == ToolSearchMode::Directory
        && o.directory
            .as_ref()
            .zip(first)
            .is_some_and(|(surface, prompt)| lists(&prompt, &surface.heading, target));
    declared || listed
}

fn bridge_names(input: &ClaimInput<'_>) -> String {
    let b = &input.lane.bridge;
    let mut list = vec![b.search.as_str(), b.describe.as_str(), b.call.as_str()];
    list.extend(b.code.as_deref());
    list.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixture::{fails, holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::N1;

    #[test]
    fn holds_on_the_reference_paths() {
        let f = Fixture::passing_reference();
        assert!(holds(&f, N1, "direct"), "{:?}", verdict(&f, N1, "direct"));
        assert!(holds(&f, N1, "tools"), "{:?}", verdict(&f, N1, "tools"));
        assert_eq!(verdict(&f, N1, "tools").checks, 2);
    }

    #[test]
    fn fails_when_tool_search_calls_the_target_directly() {
        let mut f = Fixture::passing_reference();
        let lane = f.lane("tools");
        lane.requests[1].1 = Some(TARGET.into());
        lane.records.push(
            json!({ "type": "toolResult", "toolCallId": "c9", "toolName": TARGET,
            "source": "openclaw", "isError": false, "output": "x" }),
        );
        assert_eq!(
            fails(&f, N1, "tools"),
            [
                format!("the model never plans {TARGET} as a direct call"),
                format!("the session log has no direct (unbridged) result of {TARGET}"),
            ]
        );
    }

    #[test]
    fn fails_when_the_direct_lane_uses_the_bridge() {
        let mut f = Fixture::passing_reference();
        let lane = f.lane("direct");
        lane.requests[0].1 = Some("tool_search".into());
        lane.records.push(
            json!({ "type": "toolResult", "toolCallId": "c2", "toolName": TARGET,
            "parentToolCallId": "c1", "source": "openclaw", "isError": false, "output": "x" }),
        );
        let v = verdict(&f, N1, "direct");
        assert_eq!(
            v.failures
                .iter()
                .map(|c| (c.check.as_str(), c.actual.as_str()))
                .collect::<Vec<_>>(),
            [
                ("no bridge planned", "planned 1 name: tool_search"),
                (
                    "no bridged result",
                    "results of 1 name: fake_plugin_tool_17"
                ),
            ]
        );
        assert!(v.failures[0]
            .expected
            .contains("tool_search, tool_describe, tool_call"));
    }

    #[test]
    fn a_directory_lane_may_call_a_listed_target_by_name() {
        let mut f = Fixture::passing_reference();
        let lane = f.lane("tools");
        lane.tool_search = "{ mode = 'directory' }".into();
        lane.requests[0].1 = Some(TARGET.into());
        // Unlisted: the direct call is a fault.
        assert_eq!(fails(&f, N1, "tools").len(), 1);
        // Listed in the directory the lane was shown, but the lane does not mean that path.
        let system = json!({ "role": "system", "content":
            format!("### Deferred Tool Schemas\n- {TARGET} (p): x") });
        f.lane("tools").requests[0].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(0, system);
        assert_eq!(fails(&f, N1, "tools").len(), 1);
        // Listed, and the lane's script calls it by name: the mode's own path.
        let f = f.scenario_extra(&format!(
            "[[script]]\ntool = '{TARGET}'\narguments = {{ marker = 'm' }}\n"
        ));
        assert!(holds(&f, N1, "tools"), "{:?}", verdict(&f, N1, "tools"));
    }
}
