//! Directory mode's prompt material (spec §7): the bounded list of deferred tool names the model
//! reads in the system prompt, and the few full schemas a turn may get up front.
//!
//! The directory lists only trusted (`openclaw`) catalogue tools whose name is unique in the whole
//! catalogue, so every listed name can be called directly and resolves to exactly one entry. MCP and
//! client tools are never listed (their descriptions are untrusted text); a note says search finds them.
//!
//! Turn schemas rule (ours, deterministic): a tool is *required* for a turn when the caller's
//! `tool_choice` names it (`{"type": "function", "name": N}`); its full schema is then declared to the
//! provider with the controls. Names are taken in the order given, must match exactly one catalogue
//! entry, and at most [`DEFAULT_TURN_SCHEMAS`] are kept. Nothing else is guessed, so a turn whose caller
//! names no tool declares no catalogue schema at all.
//!
//! Exact-name dispatch: in directory mode a model call by the exact name of a hidden catalogue tool
//! runs that tool when exactly one catalogue entry has the name ([`exact_name_entry`]). The gateway
//! runs it through its normal path and logs it as a *direct* call (a `toolResult` without
//! `parentToolCallId`); it is not a Tool Search `call`, so `callCount` does not change.

use std::collections::HashMap;

use super::catalog::collapse;
use super::{Surface, ToolCatalog};
use crate::catalog::{CatalogMode, FunctionDeclaration, ToolEntry, ToolSource};
use crate::config::ToolSearchMode;

/// The heading the directory sits under in the system prompt.
pub const DIRECTORY_HEADING: &str = "### Deferred Tool Schemas";
/// The whole directory block (heading included) stays within this many characters.
pub const MAX_DIRECTORY_CHARS: usize = 18_000;
/// Descriptions are whitespace-collapsed and cut to this many characters.
pub const DIRECTORY_DESCRIPTION_CHARS: usize = 180;
/// At most this many full schemas are declared up front for one turn.
pub const DEFAULT_TURN_SCHEMAS: usize = 4;

const LIST_HEADING: &str = "Available deferred-schema tools:";
const EMPTY_LINE: &str = "Available deferred-schema tools: none.";
const NOTE: &str =
    "MCP and client tools are not listed here; tool_search finds them when policy allows them.";
const GUIDANCE: &str =
    "Call a listed name directly with its arguments, or use tool_call with its id and args; \
     tool_describe shows a full schema.";

/// The directory section of the system prompt for `catalog`, heading included: as many lines as
/// fit in [`MAX_DIRECTORY_CHARS`], the rest counted as omitted.
pub fn directory_block(catalog: &ToolCatalog) -> String {
    if catalog.is_empty() {
        return format!("{DIRECTORY_HEADING}\n{EMPTY_LINE}\n");
    }
    let lines = directory_lines(catalog.entries());
    let kept = lines_that_fit(&lines);
    render(&lines[..kept], lines.len() - kept)
}

/// The largest number of leading `lines` whose rendered block stays within the bound (one pass
/// over prefix sums, so a 100k-tool catalogue costs no more than rendering it once).
fn lines_that_fit(lines: &[String]) -> usize {
    let mut prefix = Vec::with_capacity(lines.len() + 1);
    prefix.push(0usize);
    for line in lines {
        let last = prefix[prefix.len() - 1];
        prefix.push(last + line.chars().count() + 1);
    }
    (0..=lines.len())
        .rev()
        .find(|&kept| {
            let frame = render(&[], lines.len() - kept).chars().count();
            frame + prefix[kept] <= MAX_DIRECTORY_CHARS
        })
        .unwrap_or(0)
}

/// One line per trusted entry with a unique, well-formed name, sorted by name then id.
pub fn directory_lines(entries: &[ToolEntry]) -> Vec<String> {
    let mut name_counts: HashMap<&str, usize> = HashMap::new();
    for entry in entries {
        *name_counts.entry(entry.name.as_str()).or_default() += 1;
    }
    let mut listed: Vec<&ToolEntry> = entries
        .iter()
        .filter(|e| e.source == ToolSource::Openclaw && is_identifier(&e.name))
        .filter(|e| e.catalog_mode != CatalogMode::Visible)
        .filter(|e| name_counts[e.name.as_str()] == 1)
        .collect();
    listed.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));
    listed.into_iter().map(directory_line).collect()
}

/// `- name (owner): description`, with `No description.` when there is none.
pub fn directory_line(entry: &ToolEntry) -> String {
    let description = collapse(&entry.description, DIRECTORY_DESCRIPTION_CHARS);
    let description = if description.is_empty() {
        "No description.".to_string()
    } else {
        description
    };
    if is_identifier(&entry.source_name) {
        format!("- {} ({}): {description}", entry.name, entry.source_name)
    } else {
        format!("- {}: {description}", entry.name)
    }
}

fn render(lines: &[String], omitted: usize) -> String {
    let mut block = format!("{DIRECTORY_HEADING}\n{LIST_HEADING}\n");
    for line in lines {
        block.push_str(line);
        block.push('\n');
    }
    block.push('\n');
    block.push_str(NOTE);
    block.push('\n');
    if omitted > 0 {
        block.push_str(&format!(
            "{omitted} more tools omitted to keep this list short; use tool_search to find them.\n"
        ));
    }
    block.push_str(GUIDANCE);
    block.push('\n');
    block
}

/// Names and owners go into the prompt verbatim, so only plain identifiers are listed.
fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 128
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

/// The catalogue entries whose full schemas a turn declares up front: each name in `required`
/// that matches exactly one entry, first occurrence only, at most `max`.
pub fn turn_schemas<'c>(
    catalog: &'c ToolCatalog,
    required: &[String],
    max: usize,
) -> Vec<&'c ToolEntry> {
    let mut picked: Vec<&ToolEntry> = Vec::new();
    for name in required {
        if picked.len() >= max {
            break;
        }
        let mut matches = catalog.entries().iter().filter(|e| &e.name == name);
        if let (Some(entry), None) = (matches.next(), matches.next()) {
            if !picked.iter().any(|p| p.id == entry.id) {
                picked.push(entry);
            }
        }
    }
    picked
}

/// The provider `tools[]` of one turn: the surface's declarations plus, in directory mode, the full
/// schemas of the turn's required tools (see the module doc) that are not declared already; by name.
pub fn turn_declarations(surface: &Surface, required: &[String]) -> Vec<FunctionDeclaration> {
    let mut declarations = surface.declarations();
    let (ToolSearchMode::Directory, Some(run)) = (surface.mode, &surface.run) else {
        return declarations;
    };
    let declared = surface.declared_names();
    let wanted: Vec<String> = required
        .iter()
        .filter(|n| !declared.contains(n))
        .cloned()
        .collect();
    declarations.extend(
        turn_schemas(run.catalog(), &wanted, DEFAULT_TURN_SCHEMAS)
            .into_iter()
            .map(ToolEntry::function_declaration),
    );
    declarations.sort_by(|a, b| a.name.cmp(&b.name));
    declarations
}

/// Directory mode's exact-name dispatch: the hidden catalogue entry a direct call by `name`
/// resolves to, only when exactly one catalogue entry has that name.
pub fn exact_name_entry<'s>(surface: &'s Surface, name: &str) -> Option<&'s ToolEntry> {
    let (ToolSearchMode::Directory, Some(run)) = (surface.mode, &surface.run) else {
        return None;
    };
    let mut matches = run.catalog().entries().iter().filter(|e| e.name == name);
    match (matches.next(), matches.next()) {
        (Some(entry), None) => Some(entry),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::{fake_plugin_tools, FIXTURE_PLUGIN_ID};
    use crate::catalog::Executor;
    use crate::engine::SearchLimits;
    use serde_json::json;

    fn catalog(entries: Vec<ToolEntry>) -> ToolCatalog {
        ToolCatalog::new(entries, SearchLimits::default())
    }

    fn tool(source: ToolSource, owner: &str, name: &str, description: &str) -> ToolEntry {
        let executor = match source {
            ToolSource::Openclaw => Executor::CoreEcho,
            ToolSource::Mcp => Executor::Mcp {
                server: owner.into(),
            },
            ToolSource::Client => Executor::Client,
        };
        ToolEntry::new(source, owner, name, description, json!({}), executor)
    }

    #[test]
    fn empty_catalogue_says_none() {
        assert_eq!(
            directory_block(&catalog(Vec::new())),
            "### Deferred Tool Schemas\nAvailable deferred-schema tools: none.\n"
        );
    }

    #[test]
    fn lists_unique_openclaw_names_sorted_with_the_note() {
        let entries = vec![
            tool(
                ToolSource::Openclaw,
                "plug",
                "zeta",
                "Last  one.\n Two lines.",
            ),
            tool(ToolSource::Openclaw, "core", "alpha", ""),
            tool(
                ToolSource::Mcp,
                "calendar",
                "create_event",
                "Make an event.",
            ),
            tool(ToolSource::Openclaw, "plug", "dup", "Shared name."),
            tool(ToolSource::Mcp, "other", "dup", "Shared name too."),
            tool(ToolSource::Client, "client", "pick_file", "Pick a file."),
            tool(
                ToolSource::Openclaw,
                "core",
                "bad name",
                "Not an identifier.",
            ),
        ];
        let block = directory_block(&catalog(entries));
        assert_eq!(
            block,
            "### Deferred Tool Schemas\n\
             Available deferred-schema tools:\n\
             - alpha (core): No description.\n\
             - zeta (plug): Last one. Two lines.\n\
             \n\
             MCP and client tools are not listed here; tool_search finds them when policy allows them.\n\
             Call a listed name directly with its arguments, or use tool_call with its id and args; \
             tool_describe shows a full schema.\n"
        );
    }

    #[test]
    fn descriptions_are_cut_to_180_chars() {
        let long = "word ".repeat(100);
        let line = directory_line(&tool(ToolSource::Openclaw, "core", "t", &long));
        let description = line.trim_start_matches("- t (core): ");
        assert_eq!(description.chars().count(), 180);
        assert!(description.ends_with('…'));
    }

    #[test]
    fn fake_catalogue_line() {
        let entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 36);
        let lines = directory_lines(&entries);
        assert_eq!(lines.len(), 36);
        assert!(lines[16].starts_with(
            "- fake_plugin_tool_17 (tool-search-e2e-fixture): Fake plugin tool 17. It proves"
        ));
    }

    #[test]
    fn large_catalogue_is_bounded_and_counts_what_it_dropped() {
        let entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 500);
        let block = directory_block(&catalog(entries));
        assert!(block.chars().count() <= MAX_DIRECTORY_CHARS);
        let listed = block.lines().filter(|l| l.starts_with("- ")).count();
        let line = format!("{} more tools omitted", 500 - listed);
        assert!(block.contains(&line), "{block}");
        assert!(block.contains("- fake_plugin_tool_001 "));
        // One more line would not have fitted.
        let next = directory_line(&fake_plugin_tools(FIXTURE_PLUGIN_ID, 500)[listed]);
        assert!(block.chars().count() + next.chars().count() + 1 > MAX_DIRECTORY_CHARS);
    }

    #[test]
    fn turn_schemas_take_unique_names_in_order_and_are_bounded() {
        let mut entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 9);
        entries.push(tool(ToolSource::Mcp, "m", "fake_plugin_tool_02", "Clash."));
        let catalog = catalog(entries);
        let wanted: Vec<String> = [
            "fake_plugin_tool_05",
            "fake_plugin_tool_02",
            "missing",
            "fake_plugin_tool_05",
            "fake_plugin_tool_01",
            "fake_plugin_tool_03",
            "fake_plugin_tool_04",
            "fake_plugin_tool_06",
        ]
        .map(String::from)
        .to_vec();
        let names: Vec<&str> = turn_schemas(&catalog, &wanted, DEFAULT_TURN_SCHEMAS)
            .iter()
            .map(|e| e.name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "fake_plugin_tool_05",
                "fake_plugin_tool_01",
                "fake_plugin_tool_03",
                "fake_plugin_tool_04"
            ]
        );
    }
}
