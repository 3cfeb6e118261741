//! The scenario file `toolsearch-qa new-scenario` writes: every lane mode, exact expectations,
//! the claims that apply said in comments, and commented-out examples of the rest. It loads and
//! passes as written (a test runs it), so an author starts from something green and changes one
//! thing at a time.

use crate::catalog::fake::fake_tool_name;
use crate::scenario::ClaimId;

/// The smallest catalogue whose direct request outweighs every Tool Search mode's first request
/// under the default (`spec`) profile, so C5 holds on every lane of the template. Measured (the
/// first-request ratio to direct at 1, 2, 3, 4, 6, 7 tools: code 1.23, 0.79, 0.58, 0.46, 0.33,
/// 0.28; tools 2.27, 1.46, 1.08, 0.85, 0.60, 0.53; directory 2.79, 1.94, 1.54, 1.30, 1.04, 0.96)
/// and held by a test that runs the template at 6 and 7 tools.
pub const C5_MIN_SIZE: usize = 7;

/// A new scenario `id` with a fake plugin of `size` tools, targeting the middle one; `file` is
/// its path as the author named it (the `check` command its first comment gives).
pub fn new_scenario(id: &str, file: &str, size: usize) -> String {
    let plugin_id = plugin_id(id);
    let claims = claims(size);
    let target = fake_tool_name(size.div_ceil(2), size);
    let other = fake_tool_name(1, size);
    format!(
        r#"# {id}: a scenario written by `toolsearch-qa new-scenario`. It passes as written; change
# one thing at a time and re-run. Every field: docs/scenarios.md. Check without running:
# `toolsearch-qa check {file}` (from where `new-scenario` ran).
id = "{id}"
title = "{id}: the target is reached in every mode"
objective = """
The fake plugin's {size} tools are callable in direct mode and through each Tool Search mode, and
Tool Search hides their schemas from the provider."""
# The user message. The mock model obeys `tool search qa check target=NAME` (reach NAME and
# answer FAKE_PLUGIN_OK NAME) and `tool search qa failure target=NAME` (call NAME with invalid
# arguments); an explicit [[script]] replaces the directive (see the end of this file).
prompt = "tool search qa check target={target}"
# Must be a tool of the catalogue below: fake tools are named fake_plugin_tool_NN, zero-padded to
# the catalogue's width ({other} … {last}).
target_tool = "{target}"

[catalog]
plugin_id = "{plugin_id}"
size = {size}
# No core tools: every declared tool below is a fake one or a control tool.
core_tools = false

{claims}
[[lanes]]
name = "direct"
tool_search = false
expect = {{ declared_tools = {size}, provider_requests = 2, searches = 0, describes = 0, calls = 0, directory = false }}

[[lanes]]
name = "code"
tool_search = true
expect = {{ declared_tools = 1, provider_requests = 2, searches = 1, describes = 0, calls = 1, catalog_size = {size}, directory = false }}

[[lanes]]
name = "tools"
tool_search = {{ mode = "tools" }}
expect = {{ declared_tools = 3, provider_requests = 3, searches = 1, describes = 0, calls = 1, catalog_size = {size}, directory = false }}
# This lane could script the model instead of following the directive: one [[lanes.script]]
# table per provider request (the control tools' arguments and how each counts:
# docs/scenarios.md). The same path, written out:
# [[lanes.script]]
# tool = "tool_search"
# arguments = {{ query = "{target}", limit = 1 }}
# [[lanes.script]]
# tool = "tool_call"
# arguments = {{ id = "{target}", args = {{ marker = "mine" }} }}
# [[lanes.script]]
# text = "FAKE_PLUGIN_OK {target}"

[[lanes]]
name = "directory"
tool_search = {{ mode = "directory" }}
expect = {{ declared_tools = 3, provider_requests = 3, searches = 1, describes = 0, calls = 1, catalog_size = {size}, directory = true }}
"#,
        last = fake_tool_name(size, size),
    )
}

/// The template's claims: the defaults (no `claims` list), said in a comment; below
/// [`C5_MIN_SIZE`] tools the same list without C5, written out, with why.
fn claims(size: usize) -> String {
    let other = fake_tool_name(1, size);
    let apply = format!(
        "#   direct lanes:       C1 (calls the target), C3 (declares every fake schema)
#   Tool Search lanes:  C2 (reaches the target through the bridge), C4 (declares only the bridge){c5}
#   every lane:         C6 (session-log counts), D1 (the directory lists the target, or is absent),
#                       N1 (no shortcut past the bridge), L1 (the log tells the surface),
#                       P1 (cache prefix)
#   lanes with `expect`: T1 (the exact figures below)
{missing}
# [[claims]]
# id = \"F1\"
# tool = \"{other}\"
",
        missing = match size >= C5_MIN_SIZE {
            true => format!(
                "# A claim whose lane is missing (C1, C3, C5 without a direct lane) is reported as not
# applicable. To check something else, list claims instead, e.g. a denied tool (add
# `[policy] deny = [\"{other}\"]`):"
            ),
            false => format!(
                "# A listed claim whose lane is missing is a load error. To check something else, add
# claims, e.g. a denied tool (add `[policy] deny = [\"{other}\"]`):"
            ),
        },
        c5 = match size >= C5_MIN_SIZE {
            true => ",\n#                       C5 (its first request is smaller than direct's)",
            false => "",
        }
    );
    if size >= C5_MIN_SIZE {
        return format!(
            "# No `claims` list: every lane gets the claims that apply to it —\n{apply}"
        );
    }
    let listed: String = ClaimId::DEFAULT
        .iter()
        .filter(|id| **id != ClaimId::C5)
        .map(|id| format!("[[claims]]\nid = \"{id}\"\n"))
        .collect();
    format!(
        "# The default claims but C5: with fewer than {C5_MIN_SIZE} tools the Tool Search controls' own
# schemas outweigh the catalogue's, so a Tool Search lane's first request is not smaller than
# direct's (C5 would fail). From {C5_MIN_SIZE} tools on, leave `claims` out to get all of them.
{apply}{listed}"
    )
}

/// The fake plugin's id for scenario `id`: `<id>-plugin`, in the lower case and at most the 64
/// bytes a plugin id allows (a scenario id may be longer and mixed-case).
fn plugin_id(id: &str) -> String {
    let mut stem = id.to_ascii_lowercase();
    stem.truncate(64 - "-plugin".len());
    format!("{stem}-plugin")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::parse_scenario;

    #[test]
    fn the_template_loads_at_every_width() {
        for size in [1, 2, 36, 1000, 100_000] {
            let scenario =
                parse_scenario(&new_scenario("mine", "mine.toml", size), "mine.toml").unwrap();
            assert_eq!(scenario.catalog.size, size);
            let lanes: Vec<&str> = scenario.lanes.iter().map(|l| l.name.as_str()).collect();
            assert_eq!(lanes, ["direct", "code", "tools", "directory"]);
        }
        let text = new_scenario("mine", "mine.toml", 1000);
        assert!(
            text.contains("target_tool = \"fake_plugin_tool_0500\""),
            "{text}"
        );
    }
}
