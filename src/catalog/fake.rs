//! The fake catalogue: the `tool-search-e2e-fixture` plugin of the reference run
//! (qa-lab-reference §1) at any size, plus a handful of core tools.
//!
//! Everything here is a pure function of its inputs, so two runs give the same bytes.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{Executor, ToolEntry, ToolSource};

/// The plugin id of the reference run.
pub const FIXTURE_PLUGIN_ID: &str = "tool-search-e2e-fixture";
/// The marker of every successful fake call.
pub const FAKE_OK: &str = "FAKE_PLUGIN_OK";
/// The largest fake plugin a scenario, a gateway config or `compare` may ask for. Every tool is
/// held in memory several times (catalogue, index, a direct request of about 5.5 KB per tool), so
/// a size must be bounded before anything is allocated: 100,000 tools is a 55 MB direct request.
pub const MAX_FAKE_TOOLS: usize = 100_000;

/// What a fake plugin's size may be, in words (every check of a size says this).
pub const SIZE_RULE: &str = "a whole number from 1 to 100,000";

/// Why `size` is not a fake plugin size (at least 1, at most [`MAX_FAKE_TOOLS`]), if it is not.
pub fn size_problem(size: u64) -> Option<String> {
    match size {
        0 => Some(format!("expected {SIZE_RULE}, got 0")),
        n if n > MAX_FAKE_TOOLS as u64 => Some(format!(
            "expected {SIZE_RULE}, got {n} (every tool is held in memory several times)"
        )),
        _ => None,
    }
}

/// Why `id` is not a plugin id, if it is not: plugin ids become directory names and config keys,
/// so they are lower-case ASCII letters, digits, `-`, `_` and `.`, starting with a letter or digit
/// (OpenClaw's rule), at most 64 bytes.
pub fn plugin_id_problem(id: &str) -> Option<String> {
    let valid_char =
        |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.');
    let starts_well = id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    (!(starts_well && id.len() <= 64 && id.chars().all(valid_char))).then(|| {
        format!(
            "{id:?} is not a plugin id: start with a letter or digit, use only a-z, 0-9, '-', '_', \
             '.', at most 64 characters"
        )
    })
}

/// Name of fake tool `index` (1-based) in a plugin of `size` tools: zero-padded to at least two digits,
/// and to the width of `size`, so names sort in numeric order.
pub fn fake_tool_name(index: usize, size: usize) -> String {
    let width = size.to_string().len().max(2);
    format!("fake_plugin_tool_{index:0width$}")
}

/// The three-sentence description of a fake tool.
pub fn fake_tool_description(index: usize) -> String {
    format!(
        "Fake plugin tool {index}. It proves that a large catalogue owned by a plugin can stay out of the \
         prompt and still be called through the compact bridge. Its description is deliberately \
         non-trivial so that a regression in prompt size is measurable."
    )
}

/// The strict `marker` input schema every fake tool declares.
pub fn fake_tool_parameters() -> Value {
    json!({
        "type": "object",
        "properties": {
            "marker": {
                "type": "string",
                "description": "Lane marker supplied by the scripted model."
            }
        },
        "required": ["marker"],
        "additionalProperties": false
    })
}

/// The fake plugin's tools, `fake_plugin_tool_01..size`, sorted by name. They share one
/// schema value (every fake tool declares the same one).
pub fn fake_plugin_tools(plugin: &str, size: usize) -> Vec<ToolEntry> {
    let parameters = Arc::new(fake_tool_parameters());
    (1..=size)
        .map(|i| {
            ToolEntry::new(
                ToolSource::Openclaw,
                plugin,
                fake_tool_name(i, size),
                fake_tool_description(i),
                parameters.clone(),
                Executor::FakePlugin {
                    plugin: plugin.to_string(),
                },
            )
            .with_label(format!("Fake plugin tool {i}"))
        })
        .collect()
}

/// The fake plugin's tools as a catalogue configures them: every description from `template`
/// when one is set (`{n}` the tool's number, `{name}` its name), else the three sentences.
pub fn described_fake_tools(plugin: &str, size: usize, template: Option<&str>) -> Vec<ToolEntry> {
    let mut tools = fake_plugin_tools(plugin, size);
    if let Some(template) = template {
        for tool in &mut tools {
            tool.description = fill_template(template, tool);
        }
    }
    tools
}

/// A description template filled for `tool`.
fn fill_template(template: &str, tool: &ToolEntry) -> String {
    let number = tool
        .name
        .rsplit('_')
        .next()
        .and_then(|n| n.parse::<usize>().ok())
        .map(|n| n.to_string())
        .unwrap_or_default();
    template
        .replace("{name}", &tool.name)
        .replace("{n}", &number)
}

/// The error a broken fake tool fails with.
pub const BROKEN_MESSAGE: &str = "this fake tool is broken on purpose by the scenario";

/// `tool` broken on purpose: the same declaration, an executor that fails.
pub fn broken(mut tool: ToolEntry) -> ToolEntry {
    if let Executor::FakePlugin { plugin } = &tool.executor {
        tool.executor = Executor::BrokenFake {
            plugin: plugin.clone(),
        };
    }
    tool
}

/// What running a fake tool returns: `(text, details)`.
pub fn fake_tool_result(name: &str, input: &Value) -> (String, Value) {
    let text = format!(
        "{FAKE_OK} {name} {}",
        serde_json::to_string(input).unwrap_or_default()
    );
    let details = json!({ "status": "ok", "tool": name, "input": input });
    (text, details)
}

/// A small set of core tools in the spirit of OpenClaw's own. `session_status` is direct-only.
pub fn core_tools() -> Vec<ToolEntry> {
    let core = |name: &str, description: &str, parameters: Value| {
        ToolEntry::new(
            ToolSource::Openclaw,
            "core",
            name,
            description,
            parameters,
            Executor::CoreEcho,
        )
    };
    vec![
        core(
            "exec",
            "Run a shell command in the workspace and return its output.",
            json!({
                "type": "object",
                "properties": {
                    "command": { "type": "string", "description": "The shell command line to execute." },
                    "timeoutSeconds": { "type": "integer", "description": "Kill the process after this many seconds." }
                },
                "required": ["command"]
            }),
        ),
        core(
            "read",
            "Read a text file from the workspace.",
            json!({
                "type": "object",
                "properties": {
                    "path": { "type": "string", "description": "Path of the file to read." },
                    "offset": { "type": "integer", "description": "First line to return." },
                    "limit": { "type": "integer", "description": "How many lines to return." }
                },
                "required": ["path"]
            }),
        ),
        core(
            "web_search",
            "Search the web and return the top results with titles and links.",
            json!({
                "type": "object",
                "properties": {
                    "query": { "type": "string", "description": "What to look up." },
                    "count": { "type": "integer", "description": "How many results to return." }
                },
                "required": ["query"]
            }),
        ),
        core(
            "web_fetch",
            "Fetch a URL and return its readable text.",
            json!({
                "type": "object",
                "properties": {
                    "url": { "type": "string", "description": "The http or https URL to fetch." }
                },
                "required": ["url"]
            }),
        ),
        core(
            "message",
            "Send a message to a chat channel or a person.",
            json!({
                "type": "object",
                "properties": {
                    "to": { "type": "string", "description": "Recipient or channel." },
                    "text": { "type": "string", "description": "Message text." }
                },
                "required": ["to", "text"]
            }),
        ),
        core(
            "cron",
            "Schedule a reminder or a recurring job.",
            json!({
                "type": "object",
                "properties": {
                    "schedule": { "type": "string", "description": "Cron expression or ISO time." },
                    "task": { "type": "string", "description": "What to do when it fires." }
                },
                "required": ["schedule", "task"]
            }),
        ),
        core(
            "session_status",
            "Report the current session's model, usage and status.",
            json!({ "type": "object", "properties": {}, "additionalProperties": false }),
        )
        .direct_only(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_size_rule_says_the_bounds_size_problem_checks() {
        assert_eq!(SIZE_RULE, "a whole number from 1 to 100,000");
        assert_eq!(MAX_FAKE_TOOLS, 100_000);
        assert_eq!(size_problem(1), None);
        assert_eq!(size_problem(100_000), None);
        assert_eq!(
            size_problem(0).unwrap(),
            "expected a whole number from 1 to 100,000, got 0"
        );
        assert!(size_problem(100_001).is_some());
    }

    #[test]
    fn names_are_zero_padded_and_sorted() {
        let tools = fake_plugin_tools(FIXTURE_PLUGIN_ID, 36);
        assert_eq!(tools.len(), 36);
        assert_eq!(tools[0].name, "fake_plugin_tool_01");
        assert_eq!(
            tools[16].id,
            "openclaw:tool-search-e2e-fixture:fake_plugin_tool_17"
        );
        let big = fake_plugin_tools(FIXTURE_PLUGIN_ID, 1000);
        assert_eq!(big[0].name, "fake_plugin_tool_0001");
        assert_eq!(big[999].name, "fake_plugin_tool_1000");
        assert!(big.windows(2).all(|w| w[0].name < w[1].name));
    }

    #[test]
    fn result_has_marker_and_details() {
        let (text, details) = fake_tool_result("fake_plugin_tool_17", &json!({"marker": "normal"}));
        assert_eq!(
            text,
            r#"FAKE_PLUGIN_OK fake_plugin_tool_17 {"marker":"normal"}"#
        );
        assert_eq!(
            details,
            json!({"status":"ok","tool":"fake_plugin_tool_17","input":{"marker":"normal"}})
        );
    }

    #[test]
    fn generation_is_deterministic() {
        assert_eq!(fake_plugin_tools("p", 50), fake_plugin_tools("p", 50));
    }
}
