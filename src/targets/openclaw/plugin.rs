//! Writes a catalogue as a real OpenClaw plugin (manifest, package, ESM entry), so the same
//! fake tools the embedded gateway serves can be loaded by a real gateway with `plugins.load.paths`.
//!
//! Every tool is registered with its exact name, label, description and input schema; running one
//! returns the fake result of the reference run: text `FAKE_PLUGIN_OK <name> <input JSON>` and
//! details `{status: "ok", tool, input}`.
//!
//! The plugin also registers a `before_tool_call` hook — the product's own way to gate a call —
//! driven by its config (`plugins.entries.<id>.config`): an `approvals` rule that denies asks
//! for an approval (`requireApproval`, the rule's reason as the approver's description), and a
//! `beforeToolCall` rule that denies blocks (`block: true`, `blockReason`: the product's
//! documented block, whose reason reaches the model). A `/v1/responses` caller has no approval
//! route, so the product refuses an approval-gated call at once ("Plugin approval unavailable
//! (no approval route)"): an approval lane tests "no approval route → fail closed", and the
//! rule's reason never reaches the model (the accepted findings say so). A rule is the embedded
//! gateway's (`{tool?, argsPattern?, action, reason?}`, the first match decides); control tools
//! are never gated, so a rule applies to the call that reaches the target, directly or through
//! Tool Search.
//!
//! More config keys make the plugin misbehave as a user's plugin could, for the selftest's
//! seeds (`src/selftest/product.rs`), without writing the plugin anew: `brokenTools` makes the
//! named tools fail when they run (as `catalog.broken` does), `looseSchemas` registers them with
//! a schema that accepts any object, `stampDescriptions` registers them through a factory that
//! stamps a fresh count into the description every time the product asks for the tool, and
//! `promptSchemas` appends their schemas to the system prompt (a `before_prompt_build` hook;
//! `promptPadding` appends that many characters of filler). `toolsAllow` is what that hook
//! returns as its `toolsAllow` (the product caps the turn's tools, catalogue included, to those
//! names), and `registration: "reversed"` registers the tools last name first (the same tools in
//! another discovery order). `onlyTools` registers only the
//! named tools: one plugin holding several catalogues serves each of them in turn (`compare
//! --target openclaw` runs every catalogue size on one gateway that way).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::OpenClawError;
use crate::catalog::ToolEntry;

/// The SDK entry the plugin imports, by the bare name the product's plugin docs use
/// (`docs/plugins/building-plugins.md`): the product resolves it to its own package, so a
/// seeded copy or a build runs its own SDK. Not the installed file's absolute URL: the product
/// treats a plugin's imports outside `openclaw` as the plugin's own source and copies them, with
/// all they import, at every plugin load (2026.9.6: 4,279 files and 21 MB a gateway start, the
/// main thread busy with it through the first turn; by this name, 10 files).
pub const PLUGIN_SDK_ENTRY: &str = "openclaw/plugin-sdk/plugin-entry";

/// Writes the plugin `plugin_id` with `tools` into `dir/<plugin_id>/` (created if needed) and
/// returns that directory, ready for `plugins.load.paths`. Tools are written sorted by name.
pub fn write_plugin(
    dir: &Path,
    plugin_id: &str,
    tools: &[ToolEntry],
) -> Result<PathBuf, OpenClawError> {
    validate_plugin_id(plugin_id)?;
    let mut tools: Vec<&ToolEntry> = tools.iter().collect();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    validate_tool_names(&tools)?;

    let plugin_dir = dir.join(plugin_id);
    std::fs::create_dir_all(&plugin_dir)
        .map_err(OpenClawError::io("create directory", &plugin_dir))?;
    super::write_json(&plugin_dir.join("package.json"), &package_json(plugin_id))?;
    super::write_json(
        &plugin_dir.join("openclaw.plugin.json"),
        &manifest(plugin_id, &tools),
    )?;
    let index = plugin_dir.join("index.js");
    let source = index_js(plugin_id, &tools, &index)?;
    std::fs::write(&index, source).map_err(OpenClawError::io("write", &index))?;
    Ok(plugin_dir)
}

/// Plugin ids become directory names and config keys: keep them to lower-case ASCII, digits, `-`, `_`, `.`.
fn validate_plugin_id(plugin_id: &str) -> Result<(), OpenClawError> {
    let valid_char =
        |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '-' | '_' | '.');
    let starts_well = plugin_id
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric());
    if starts_well && plugin_id.chars().all(valid_char) {
        return Ok(());
    }
    Err(OpenClawError::Invalid {
        what: "plugin id",
        reason: format!(
            "{plugin_id:?} must start with a letter or digit and use only a-z, 0-9, '-', '_', '.'"
        ),
    })
}

fn validate_tool_names(tools: &[&ToolEntry]) -> Result<(), OpenClawError> {
    let mut seen = BTreeSet::new();
    for tool in tools {
        if tool.name.trim().is_empty() {
            return Err(OpenClawError::Invalid {
                what: "tool name",
                reason: format!("tool {:?} has an empty name", tool.id),
            });
        }
        if !seen.insert(tool.name.as_str()) {
            return Err(OpenClawError::Invalid {
                what: "tool name",
                reason: format!("{:?} appears twice", tool.name),
            });
        }
    }
    Ok(())
}

fn package_json(plugin_id: &str) -> Value {
    json!({
        "name": plugin_id,
        "version": "0.0.0",
        "private": true,
        "type": "module",
        "openclaw": { "extensions": ["./index.js"] }
    })
}

fn manifest(plugin_id: &str, tools: &[&ToolEntry]) -> Value {
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    json!({
        "id": plugin_id,
        "name": plugin_id,
        "description": "Fake tool catalogue written by toolsearch-qa.",
        "activation": { "onStartup": true },
        "contracts": { "tools": names },
        "configSchema": {
            "type": "object",
            "additionalProperties": false,
            "properties": {
                "approvals": { "type": "array", "items": { "type": "object" } },
                "beforeToolCall": { "type": "array", "items": { "type": "object" } },
                "stampDescriptions": { "type": "array", "items": { "type": "string" } },
                "looseSchemas": { "type": "array", "items": { "type": "string" } },
                "brokenTools": { "type": "array", "items": { "type": "string" } },
                "promptSchemas": { "type": "array", "items": { "type": "string" } },
                "promptPadding": { "type": "integer", "minimum": 0 },
                "toolsAllow": { "type": "array", "items": { "type": "string" } },
                "registration": { "type": "string", "enum": ["sorted", "reversed"] },
                "onlyTools": { "type": "array", "items": { "type": "string" } }
            }
        }
    })
}

/// The ESM entry: the tool table as a JSON literal and a loop that registers each tool.
fn index_js(plugin_id: &str, tools: &[&ToolEntry], index: &Path) -> Result<String, OpenClawError> {
    let table: Vec<Value> = tools
        .iter()
        .map(|t| {
            let broken = matches!(t.executor, crate::catalog::Executor::BrokenFake { .. });
            json!({ "name": t.name, "label": t.label, "description": t.description,
                    "parameters": t.parameters, "broken": broken })
        })
        .collect();
    let table = serde_json::to_string_pretty(&table).map_err(OpenClawError::json(index))?;
    let sdk = serde_json::to_string(PLUGIN_SDK_ENTRY).map_err(OpenClawError::json(index))?;
    let id = serde_json::to_string(plugin_id).map_err(OpenClawError::json(index))?;
    let broken_message = serde_json::to_string(crate::catalog::fake::BROKEN_MESSAGE)
        .map_err(OpenClawError::json(index))?;
    Ok(format!(
        "// Written by toolsearch-qa: a fake tool catalogue as an OpenClaw plugin.\n\
         import {{ definePluginEntry }} from {sdk};\n\
         \n\
         const TOOLS = {table};\n\
         \n\
         function fakeTool({{ broken, ...spec }}) {{\n\
         \x20 return {{\n\
         \x20   ...spec,\n\
         \x20   async execute(_toolCallId, params) {{\n\
         \x20     if (broken) throw new Error({broken_message});\n\
         \x20     const input = params ?? {{}};\n\
         \x20     return {{\n\
         \x20       content: [{{ type: \"text\", text: `FAKE_PLUGIN_OK ${{spec.name}} ${{JSON.stringify(input)}}` }}],\n\
         \x20       details: {{ status: \"ok\", tool: spec.name, input }},\n\
         \x20     }};\n\
         \x20   }},\n\
         \x20 }};\n\
         }}\n\
         \n\
         {GATE_JS}\
         \n\
         export default definePluginEntry({{\n\
         \x20 id: {id},\n\
         \x20 name: {id},\n\
         \x20 description: \"Fake tool catalogue written by toolsearch-qa.\",\n\
         \x20 register(api) {{\n\
         \x20   const config = api.pluginConfig ?? {{}};\n\
         \x20   const only = config.onlyTools ? new Set(config.onlyTools) : null;\n\
         \x20   const order = config.registration === \"reversed\" ? [...TOOLS].reverse() : TOOLS;\n\
         \x20   for (const spec of order) {{\n\
         \x20     if (only === null || only.has(spec.name)) registerFake(api, config, spec);\n\
         \x20   }}\n\
         \x20   api.on(\"before_tool_call\", (event) => gate(config, event));\n\
         \x20   const prompt = promptHook(config);\n\
         \x20   if (prompt) api.on(\"before_prompt_build\", () => prompt);\n\
         \x20 }},\n\
         }});\n"
    ))
}

/// How the plugin registers its tools (as its config says) and the hook's rule matching, the
/// embedded gateway's semantics in JavaScript: `*` globs on the tool name, a regular expression
/// on the arguments as compact JSON, the first match decides.
const GATE_JS: &str = r#"// How often a stamped tool's description was asked for (kept across reloads).
let stamps = 0;

// A tool listed in `brokenTools` fails when it runs; one listed in `looseSchemas` is registered
// accepting any object; one listed in
// `stampDescriptions` through a factory whose description carries a fresh count each time the
// product asks for it (both misbehaviours a plugin can have; the selftest seeds them).
function registerFake(api, config, spec) {
  const loose = (config.looseSchemas ?? []).includes(spec.name);
  const broken = spec.broken || (config.brokenTools ?? []).includes(spec.name);
  const anything = { type: "object", additionalProperties: true };
  const tool = { ...spec, broken, ...(loose ? { parameters: anything } : {}) };
  if (!(config.stampDescriptions ?? []).includes(spec.name)) {
    api.registerTool(fakeTool(tool));
    return;
  }
  const stamped = () =>
    fakeTool({ ...tool, description: `${tool.description} (stamp ${++stamps})` });
  api.registerTool(stamped, { name: spec.name });
}

// What the plugin appends to the system prompt (none: null): the schemas of the tools listed in
// `promptSchemas`, and `promptPadding` characters of filler.
function promptSchemas(config) {
  const names = config.promptSchemas ?? [];
  const parts = TOOLS.filter((spec) => names.includes(spec.name))
    .map((spec) => `${spec.name}: ${JSON.stringify(spec.parameters)}`);
  if (config.promptPadding > 0) parts.push(".".repeat(config.promptPadding));
  return parts.length > 0 ? `Tool schemas:\n${parts.join("\n")}` : null;
}

// What the `before_prompt_build` hook returns (none: null): the schemas appended to the system
// prompt, and `toolsAllow` as configured.
function promptHook(config) {
  const schemas = promptSchemas(config);
  const result = {
    ...(schemas ? { appendSystemContext: schemas } : {}),
    ...(Array.isArray(config.toolsAllow) ? { toolsAllow: config.toolsAllow } : {}),
  };
  return Object.keys(result).length > 0 ? result : null;
}

const CONTROLS = new Set(["tool_search", "tool_describe", "tool_call", "tool_search_code"]);

function glob(pattern, text) {
  const escaped = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`).test(text);
}

function firstMatch(rules, name, args) {
  return (rules ?? []).find((rule) =>
    (rule.tool === undefined || glob(rule.tool, name)) &&
    (rule.argsPattern === undefined || new RegExp(rule.argsPattern).test(args)));
}

function gate(config, event) {
  const name = event.toolName;
  if (CONTROLS.has(name)) return undefined;
  const args = JSON.stringify(event.params ?? {});
  const approval = firstMatch(config.approvals, name, args);
  if (approval?.action === "deny") {
    const reason = approval.reason ?? "no reason given";
    return { requireApproval: { title: `toolsearch-qa approval for ${name}`, description: reason,
      severity: "warning", timeoutMs: 1000, allowedDecisions: ["allow-once", "deny"] } };
  }
  const hook = firstMatch(config.beforeToolCall, name, args);
  if (hook?.action === "deny") {
    return { block: true, blockReason: hook.reason ?? "no reason given" };
  }
  return undefined;
}
"#;

#[cfg(test)]
mod tests {
    use super::validate_plugin_id;

    #[test]
    fn plugin_ids() {
        assert!(validate_plugin_id("tool-search-e2e-fixture").is_ok());
        for bad in ["", "-x", "Upper", "a/b", "a b"] {
            assert!(validate_plugin_id(bad).is_err(), "{bad:?}");
        }
    }
}
