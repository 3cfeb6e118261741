//! D1, the capability directory's presence (upstream's reference assertions A3/A4): a Tool
//! Search lane whose surface renders a directory in its mode shows the model the directory's
//! heading and a line for the target in every request; a lane whose mode has none (a direct
//! lane above all) shows no heading at all, so no directory line can name the target.
//!
//! The heading and the modes come from the surface (the profile's or the release's,
//! [`crate::targets::DirectorySurface`]), never from a literal here, and the target's line is
//! expected only when the target is a deferred trusted tool (plugin or core): a tool the lane
//! declares up front is not listed, and an MCP or client tool's untrusted name must never be
//! (OpenClaw's docs/tools/tool-search.md; the spec surface says so in its directory).

use super::regression::expected_declared;
use super::{check, Check, ClaimInput};
use crate::catalog::ToolSource;
use crate::protocol::responses::system_text;
use crate::targets::DirectorySurface;

pub fn d1_directory_presence(input: &ClaimInput<'_>) -> Vec<Check> {
    let o = input.lane;
    let Some(surface) = &o.directory else {
        return vec![check(
            "surface",
            false,
            "a surface whose profile or release names its directory's heading",
            "none: the directory cannot be looked for",
        )];
    };
    let prompts: Vec<String> = o
        .observation
        .requests
        .iter()
        .map(|r| system_text(&r.body))
        .collect();
    if prompts.is_empty() {
        return vec![check(
            "requests",
            false,
            "at least one provider request",
            "none",
        )];
    }
    let target = &input.scenario.target_tool;
    let mode = o.lane.mode();
    // Code Mode shows its own quick index in `exec`'s description, never the directory.
    if o.lane.code_mode_engaged().is_some() {
        return vec![absent(surface, &prompts, "code-mode", target)];
    }
    if !surface.shown_in(mode) {
        return vec![absent(surface, &prompts, mode.as_str(), target)];
    }
    let mut checks = vec![heading_shown(surface, &prompts)];
    let trusted = input.scenario.target_source == ToolSource::Openclaw;
    let deferred = !expected_declared(input.scenario, o).contains(target);
    match (trusted, deferred) {
        (true, true) => checks.push(target_listed(surface, &prompts, target)),
        (false, _) => checks.push(untrusted_unlisted(surface, &prompts, target)),
        (true, false) => {}
    }
    checks
}

/// Requests (1-based) whose prompt fails `holds`, as `requests 1, 3` (empty: none).
fn failing(prompts: &[String], holds: impl Fn(&str) -> bool) -> Vec<usize> {
    (1..=prompts.len())
        .filter(|i| !holds(&prompts[i - 1]))
        .collect()
}

fn requests(list: &[usize]) -> String {
    let numbers: Vec<String> = list.iter().map(usize::to_string).collect();
    format!("requests {} do not", numbers.join(", "))
}

/// The heading in every request.
fn heading_shown(surface: &DirectorySurface, prompts: &[String]) -> Check {
    let heading = &surface.heading;
    let without = failing(prompts, |p| p.contains(heading.as_str()));
    check(
        "directory heading",
        without.is_empty(),
        format!("every request's prompt has the heading {heading:?}"),
        requests(&without),
    )
}

/// A deferred trusted (plugin or core) target has its line under the heading in every request
/// whose directory owes it one. A directory is bounded: sorted by name, it drops lines from the
/// end when it must, so the target's line is owed wherever a name after it is listed; where
/// none is, the check says it was not owed (the directory was cut before it) instead of passing
/// silently.
fn target_listed(surface: &DirectorySurface, prompts: &[String], target: &str) -> Check {
    let heading = &surface.heading;
    let owed: Vec<usize> = (1..=prompts.len())
        .filter(|i| listed_names(&prompts[i - 1], heading).any(|n| n > target))
        .collect();
    let unlisted: Vec<usize> = owed
        .iter()
        .copied()
        .filter(|i| !lists(&prompts[i - 1], heading, target))
        .collect();
    let expected = format!("every request's directory (under {heading:?}) has a line `- {target}`");
    match owed.len() {
        0 => check(
            "target listed",
            true,
            format!(
                "{expected} where owed: none owes it (each was cut before {target}: no later \
                 name is listed)"
            ),
            "",
        ),
        _ => check(
            "target listed",
            unlisted.is_empty(),
            expected,
            requests(&unlisted),
        ),
    }
}

/// An MCP or client target's name is untrusted: no directory copies it into the prompt.
fn untrusted_unlisted(surface: &DirectorySurface, prompts: &[String], target: &str) -> Check {
    let heading = &surface.heading;
    let listed = failing(prompts, |p| !lists(p, heading, target));
    let numbers: Vec<String> = listed.iter().map(usize::to_string).collect();
    check(
        "untrusted target unlisted",
        listed.is_empty(),
        format!("no request's directory lists the untrusted (MCP or client) target {target}"),
        format!("requests {} list it", numbers.join(", ")),
    )
}

/// No request has the heading (so no directory line names the target).
fn absent(surface: &DirectorySurface, prompts: &[String], mode: &str, target: &str) -> Check {
    let heading = &surface.heading;
    let with = failing(prompts, |p| !p.contains(heading.as_str()));
    let numbers: Vec<String> = with.iter().map(usize::to_string).collect();
    check(
        "no directory",
        with.is_empty(),
        format!(
            "no request's prompt has the heading {heading:?} (mode {mode} shows no directory, \
             so none lists {target})"
        ),
        format!("requests {} have it", numbers.join(", ")),
    )
}

/// Whether a line of the directory under `heading` names `target`.
pub(super) fn lists(prompt: &str, heading: &str, target: &str) -> bool {
    listed_names(prompt, heading).any(|name| name == target)
}

/// The names the directory under `heading` lists: each line `- <name>` up to the end of the
/// name (the end of the line, a space, `(` or `:`), until the next heading.
fn listed_names<'a>(prompt: &'a str, heading: &str) -> impl Iterator<Item = &'a str> {
    let after = prompt.split_once(heading).map_or("", |(_, after)| after);
    after
        .lines()
        .skip(1)
        .take_while(|line| !line.starts_with('#'))
        .filter_map(|line| line.strip_prefix("- "))
        .map(|rest| rest.split([' ', '(', ':']).next().unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::fixture::{fails, holds, verdict, Fixture, TARGET};
    use super::super::ClaimId::D1;
    use super::lists;

    /// The tools lane in directory mode (the spec surface's only directory mode), its prompt
    /// listing the target under the spec's heading.
    fn directory_lane(listing: &str) -> Fixture {
        let mut f = Fixture::passing_reference();
        let lane = f.lane("tools");
        lane.tool_search = "{ mode = 'directory' }".into();
        let system = json!({ "role": "system", "content":
            format!("intro\n### Deferred Tool Schemas\nTools:\n{listing}\n## Next\n- other") });
        for (body, _) in &mut lane.requests {
            body["input"]
                .as_array_mut()
                .unwrap()
                .insert(0, system.clone());
        }
        f
    }

    #[test]
    fn holds_when_the_directory_lists_the_target_and_the_direct_lane_has_none() {
        let f = directory_lane(&format!(
            "- fake_plugin_tool_01 (p): one\n- {TARGET} (p): x\n- message (core): m"
        ));
        assert!(holds(&f, D1, "tools"), "{:?}", verdict(&f, D1, "tools"));
        assert!(!verdict(&f, D1, "tools").expected.contains("none owes it"));
        assert!(holds(&f, D1, "direct"), "{:?}", verdict(&f, D1, "direct"));
        assert_eq!(verdict(&f, D1, "tools").checks, 2);
    }

    #[test]
    fn fails_when_the_directory_or_the_targets_line_is_missing() {
        // The target is not listed (a longer name is not its line).
        let f = directory_lane(&format!("- {TARGET}0 (p): x"));
        assert_eq!(
            fails(&f, D1, "tools"),
            [format!(
                "every request's directory (under \"### Deferred Tool Schemas\") has a line `- {TARGET}`"
            )]
        );
        // No directory at all.
        let mut f = Fixture::passing_reference();
        f.lane("tools").tool_search = "{ mode = 'directory' }".into();
        let v = verdict(&f, D1, "tools");
        assert_eq!(v.failures.len(), 1);
        assert_eq!(v.failures[0].actual, "requests 1, 2, 3 do not");
    }

    #[test]
    fn fails_when_a_direct_lane_or_a_mode_without_a_directory_shows_one() {
        let mut f = directory_lane(&format!("- {TARGET} (p): x"));
        let system = f.lane("tools").requests[0].0["input"][0].clone();
        f.lane("direct").requests[1].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(0, system.clone());
        let v = verdict(&f, D1, "direct");
        assert_eq!(v.failures.len(), 1);
        assert_eq!(v.failures[0].check, "no directory");
        assert_eq!(v.failures[0].actual, "requests 2 have it");
        // On the spec surface, tools mode shows no directory.
        f.lane("tools").tool_search = "{ mode = 'tools' }".into();
        assert_eq!(
            fails(&f, D1, "tools"),
            [format!(
                "no request's prompt has the heading \"### Deferred Tool Schemas\" (mode tools \
                 shows no directory, so none lists {TARGET})"
            )]
        );
    }

    #[test]
    fn a_directory_cut_before_the_target_does_not_owe_its_line_and_says_so() {
        let f = directory_lane("- fake_plugin_tool_01 (p): one\n- fake_plugin_tool_02 (p): two");
        let v = verdict(&f, D1, "tools");
        assert!(v.ok, "{v:?}");
        assert!(v.expected.contains("none owes it"), "{}", v.expected);
        // A later name listed: the target's line was owed.
        let f = directory_lane("- fake_plugin_tool_01 (p): one\n- message (core): m");
        assert_eq!(verdict(&f, D1, "tools").failures[0].check, "target listed");
    }

    #[test]
    fn an_untrusted_target_must_not_be_listed() {
        let f = directory_lane("- mcp_qa_echo (qa): echo")
            .catalog_line("mcp = ['qa']")
            .scenario_extra("target_source = 'mcp'\n");
        let f = f.with_target("mcp_qa_echo");
        assert_eq!(
            fails(&f, D1, "tools"),
            ["no request's directory lists the untrusted (MCP or client) target mcp_qa_echo"]
        );
        let f = directory_lane("- fake_plugin_tool_01 (p): x")
            .catalog_line("mcp = ['qa']")
            .scenario_extra("target_source = 'mcp'\n")
            .with_target("mcp_qa_echo");
        assert!(holds(&f, D1, "tools"), "{:?}", verdict(&f, D1, "tools"));
    }

    #[test]
    fn the_products_surface_shows_it_in_every_tool_search_mode() {
        let mut f = Fixture::passing_reference();
        f.target = crate::targets::TargetKind::Openclaw;
        let v = verdict(&f, D1, "tools");
        assert_eq!(v.failures.len(), 1);
        assert_eq!(v.failures[0].check, "directory heading");
        assert!(holds(&f, D1, "direct"));
    }

    #[test]
    fn a_line_names_the_target_only_when_the_name_ends_there() {
        let prompt = "### H\nTools:\n- a_1: x\n- a_12 (p)\n- b\n## Other\n- c";
        assert!(lists(prompt, "### H", "a_1"));
        assert!(lists(prompt, "### H", "a_12"));
        assert!(lists(prompt, "### H", "b"));
        assert!(!lists(prompt, "### H", "a"));
        assert!(!lists(prompt, "### H", "c"));
        assert!(!lists(prompt, "### X", "b"));
    }
}
