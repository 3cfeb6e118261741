//! What a release's own config schema accepts, read from its `dist/zod-schema*` bundles, and
//! whether it applies a `tools.*` change without a restart, read from its reload plan
//! (`dist/config-reload-plan-*`).
//!
//! A release never adopted borrows the nearest adopted release's facts, and those may write keys
//! it refuses (2026.7.35 refuses 2026.8.1's `agents.entries`, `models.catalogRefresh` and
//! `skills.workshop.autonomous`): the gateway then exits before any claim is judged. Read once
//! before anything starts, the schema fits the borrowed facts to the release
//! ([`SchemaFacts::fit`]), and `adopt` drafts from it. The reading is plain text matching on the
//! bundled zod calls (`object({ key: … })`, `_enum([…])`); a shape it cannot find leaves the
//! borrowed fact as it was, and says so.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::release::{AgentsShape, ExecutorKey, Release};
use super::OpenClawError;
use crate::config::ToolSearchMode;

/// What the schema says about the keys the harness writes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchemaFacts {
    /// How `agents` declares an agent (`list` or `entries`), when the schema shows it.
    pub agents: Option<AgentsShape>,
    /// Whether `models.catalogRefresh` exists.
    pub catalog_refresh: bool,
    /// Whether an MCP server's `transport` may be `"stdio"`.
    pub mcp_stdio_transport: bool,
    /// The keys of a `tools.toolSearch` object, when the schema has one.
    pub tool_search_keys: Option<Vec<String>>,
    /// The values of `tools.toolSearch.mode`.
    pub tool_search_modes: Vec<ToolSearchMode>,
    /// The keys of a `tools.codeMode` object; none: the release has no Code Mode.
    pub code_mode_keys: Option<Vec<String>>,
    /// Whether `tools.codeMode` takes `"auto"`.
    pub code_mode_auto: bool,
    /// Whether its reload plan applies a `tools.toolSearch` change hot (`kind: "hot"`) or as a
    /// no-op (`"none"`: the gateway logs the change and keeps its old tools); none when no plan
    /// names `tools`.
    pub tools_hot_reload: Option<bool>,
    /// The schema bundles' text, where a borrowed `[config] settings` key is looked up in its
    /// parent's object.
    text: String,
}

static KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?m)^\s*([A-Za-z_$][\w$]*)\s*:").unwrap());
static IDENT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z_$][\w$]*)(?:\.optional\(\))?\s*[,}\n]").unwrap());
static QUOTED: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""([^"]*)""#).unwrap());
/// One rule of a reload plan: `{ prefix: "tools", kind: "none" }` or `{ prefixes: [ …,
/// "tools", … ], kind: "hot" }`.
static RELOAD_RULE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"\{\s*prefix(?:es)?:\s*(\[[^\]]*\]|"[^"]*")\s*,\s*kind:\s*"(\w+)""#).unwrap()
});
static STDIO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"transport:\s*(?:z\.)?(?:union|_enum|enum)\(\[[^\]]*"stdio""#).unwrap()
});

impl SchemaFacts {
    /// Reads every `dist/zod-schema*.js|mjs` of the package at `package`, and its reload plan.
    pub fn read(package: &Path) -> Result<SchemaFacts, OpenClawError> {
        let dist = package.join("dist");
        let mut facts = SchemaFacts::parse(&bundles(&dist, "zod-schema")?);
        facts.tools_hot_reload = tools_hot_reload(&bundles(&dist, "config-reload-plan")?);
        Ok(facts)
    }

    /// The facts in a schema bundle's text.
    pub fn parse(text: &str) -> SchemaFacts {
        // Older bundles call zod as `z.object`, newer ones as a bare `object`.
        let agents = block(text, "const AgentsSchema = ").map(|b| {
            match KEY.captures_iter(b).any(|c| &c[1] == "entries") {
                true => AgentsShape::Entries,
                false => AgentsShape::List,
            }
        });
        let tool_search = block(text, "const ToolSearchSchema = ");
        let code_mode = block(text, "const CodeModeSchema = ");
        SchemaFacts {
            agents,
            catalog_refresh: text.contains("catalogRefresh:"),
            mcp_stdio_transport: STDIO.is_match(text),
            tool_search_keys: tool_search.map(top_keys),
            tool_search_modes: tool_search.map(modes).unwrap_or_default(),
            code_mode_keys: code_mode.map(top_keys),
            code_mode_auto: code_mode.is_some_and(|b| b.contains(r#"literal("auto")"#)),
            tools_hot_reload: None,
            text: text.to_string(),
        }
    }

    /// `release` (borrowed facts) fitted to this schema: the config keys it writes, the modes and
    /// `tools.toolSearch` keys it has, Code Mode or none. Each change is one line of the notes.
    pub fn fit(&self, mut release: Release) -> (Release, Vec<String>) {
        let mut notes = Vec::new();
        let config = &mut release.config;
        if let Some(agents) = self.agents.filter(|a| *a != config.agents) {
            notes.push(format!(
                "[config] agents = \"{}\" (its AgentsSchema)",
                format!("{agents:?}").to_lowercase()
            ));
            config.agents = agents;
        }
        if config.catalog_refresh != self.catalog_refresh {
            notes.push(format!(
                "[config] catalog_refresh = {} (models.catalogRefresh {})",
                self.catalog_refresh,
                if self.catalog_refresh {
                    "in its schema"
                } else {
                    "not in its schema"
                }
            ));
            config.catalog_refresh = self.catalog_refresh;
        }
        if config.mcp_stdio_transport != self.mcp_stdio_transport {
            notes.push(format!(
                "[config] mcp_stdio_transport = {}",
                self.mcp_stdio_transport
            ));
            config.mcp_stdio_transport = self.mcp_stdio_transport;
        }
        if let Some(settings) = config.settings.take() {
            let (kept, dropped) = self.known_only(settings, "", self.root());
            for key in dropped {
                notes.push(format!(
                    "[config] settings: {key} left out (not in its schema)"
                ));
            }
            config.settings = kept;
        }
        if let Some(keys) = &self.tool_search_keys {
            if *keys != release.tool_search_keys {
                notes.push(format!("tool_search_keys = {keys:?}"));
                release.tool_search_keys = keys.clone();
            }
        }
        if !self.tool_search_modes.is_empty() {
            let lacking: Vec<ToolSearchMode> = release
                .modes
                .keys()
                .copied()
                .filter(|m| *m != ToolSearchMode::Direct && !self.tool_search_modes.contains(m))
                .collect();
            for mode in lacking {
                notes.push(format!(
                    "[modes.{}] left out (not a tools.toolSearch.mode)",
                    mode.as_str()
                ));
                release.modes.remove(&mode);
            }
        }
        match (&self.code_mode_keys, release.code_mode.as_mut()) {
            (None, Some(_)) => {
                notes.push("[code_mode] left out (no CodeModeSchema)".into());
                release.code_mode = None;
            }
            (Some(keys), Some(facts)) if *keys != facts.keys => {
                notes.push(format!("[code_mode] keys = {keys:?}"));
                facts.keys = keys.clone();
                let key = match keys.iter().any(|k| k == "executor") {
                    true => ExecutorKey::Executor,
                    false => ExecutorKey::Runtime,
                };
                if key != facts.executor_key {
                    notes.push(format!("[code_mode] executor_key = {:?}", key));
                    facts.executor_key = key;
                }
            }
            _ => {}
        }
        if let Some(hot) = self.tools_hot_reload.filter(|h| *h != release.hot_reload) {
            let kind = if hot { "hot" } else { "none" };
            notes.push(format!(
                "hot_reload = {hot} (its reload plan's rule for tools is kind \"{kind}\")"
            ));
            release.hot_reload = hot;
        }
        if let Some(facts) = release.code_mode.as_mut() {
            if facts.auto_tier != self.code_mode_auto {
                notes.push(format!("[code_mode] auto_tier = {}", self.code_mode_auto));
                facts.auto_tier = self.code_mode_auto;
            }
        }
        (release, notes)
    }

    /// `value` with every object key its schema object (`scope`) does not name left out, with
    /// its subtree, and the dotted paths left out.
    fn known_only(
        &self,
        value: serde_json::Value,
        at: &str,
        scope: &str,
    ) -> (Option<serde_json::Value>, Vec<String>) {
        let serde_json::Value::Object(map) = value else {
            return (Some(value), Vec::new());
        };
        let mut kept = serde_json::Map::new();
        let mut dropped = Vec::new();
        for (key, inner) in map {
            let path = if at.is_empty() {
                key.clone()
            } else {
                format!("{at}.{key}")
            };
            let Some(child) = self.child_scope(scope, &key) else {
                dropped.push(path);
                continue;
            };
            let (inner, more) = self.known_only(inner, &path, child);
            dropped.extend(more);
            if let Some(inner) = inner {
                kept.insert(key, inner);
            }
        }
        let kept = (!kept.is_empty()).then_some(serde_json::Value::Object(kept));
        (kept, dropped)
    }

    /// The root config object (`const OpenClawSchemaShape = {…}` from 2026.8, `const
    /// OpenClawSchema = object({…})` before), else every bundle's text.
    fn root(&self) -> &str {
        block(&self.text, "const OpenClawSchemaShape = ")
            .or_else(|| block(&self.text, "const OpenClawSchema = "))
            .unwrap_or(&self.text)
    }

    /// The schema of `key` inside `scope`: the bracketed expression after `key:`, or the
    /// `const` it names (`skills: SkillsSchema`); none when `scope` has no such key.
    fn child_scope<'a>(&'a self, scope: &'a str, key: &str) -> Option<&'a str> {
        let pattern = format!(r"(?:^|[\s{{,(]){}\s*:\s*", regex::escape(key));
        let found = Regex::new(&pattern).ok()?.find(scope)?;
        let rest = &scope[found.end()..];
        if let Some(name) = IDENT.captures(rest) {
            let named = block(&self.text, &format!("const {} = ", &name[1]));
            return Some(named.unwrap_or(&self.text));
        }
        let open = rest.find(['(', '[', '{'])?;
        block(rest, &rest[..open]).or(Some(rest))
    }
}

/// The text of the bracketed expression that starts at `start` (up to its matching close), when
/// the text has it.
/// The text of every `dist/<stem>*.js|mjs`, in name order.
fn bundles(dist: &Path, stem: &str) -> Result<String, OpenClawError> {
    let entries = std::fs::read_dir(dist).map_err(OpenClawError::io("read", dist))?;
    let mut files: Vec<_> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(stem) && (n.ends_with(".js") || n.ends_with(".mjs")))
        })
        .collect();
    files.sort();
    let mut text = String::new();
    for file in &files {
        text.push_str(&std::fs::read_to_string(file).map_err(OpenClawError::io("read", file))?);
        text.push('\n');
    }
    Ok(text)
}

/// Whether the reload plan in `text` applies a `tools.toolSearch` change hot: the kind of the
/// rule with the longest prefix of that path (`tools.toolSearch`, else `tools`).
fn tools_hot_reload(text: &str) -> Option<bool> {
    let mut best: Option<(usize, bool)> = None;
    for rule in RELOAD_RULE.captures_iter(text) {
        for prefix in QUOTED.captures_iter(&rule[1]) {
            let prefix = &prefix[1];
            if prefix == "tools" || prefix == "tools.toolSearch" {
                let hot = &rule[2] == "hot";
                if best.is_none_or(|(len, _)| prefix.len() > len) {
                    best = Some((prefix.len(), hot));
                }
            }
        }
    }
    best.map(|(_, hot)| hot)
}

fn block<'a>(text: &'a str, start: &str) -> Option<&'a str> {
    let from = text.find(start)? + start.len();
    let mut depth = 0i32;
    for (i, c) in text[from..].char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                depth -= 1;
                if depth <= 0 {
                    return Some(&text[from..from + i + 1]);
                }
            }
            ';' if depth == 0 => return Some(&text[from..from + i]),
            _ => {}
        }
    }
    None
}

/// The keys of the (first) `object({ … })` in `block`, at its top level.
fn top_keys(block: &str) -> Vec<String> {
    let Some(at) = block.find("object({") else {
        return Vec::new();
    };
    let body = &block[at + "object({".len()..];
    let mut keys = Vec::new();
    let mut depth = 0i32;
    let mut line = String::new();
    for c in body.chars() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            _ => {}
        }
        if depth == 0 && c == ',' {
            line.clear();
            continue;
        }
        line.push(c);
        if depth == 0 && c == ':' {
            if let Some(cap) = KEY.captures(&line) {
                keys.push(cap[1].to_string());
            }
        }
    }
    keys
}

/// The values of `mode: _enum([...])` in a `tools.toolSearch` schema block.
fn modes(block: &str) -> Vec<ToolSearchMode> {
    let Some(at) = block.find("mode:") else {
        return Vec::new();
    };
    let rest = &block[at..];
    let end = rest.find(']').unwrap_or(rest.len());
    QUOTED
        .captures_iter(&rest[..end])
        .filter_map(|c| ToolSearchMode::from_name(&c[1]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `tools.*` change is hot or a no-op as the reload plan's rule says, the longest prefix
    /// of `tools.toolSearch` winning (the rules as 2026.7.35's and 2026.9.6's plans write them).
    #[test]
    fn the_reload_plan_says_whether_a_tools_change_is_hot() {
        let july = "{\n\t\tprefix: \"tools\",\n\t\tkind: \"none\"\n\t},";
        let september = "{ prefixes: [\n\t\"tools\",\n\t\"approvals.exec\"\n], kind: \"hot\" }";
        let narrower = "{ prefix: \"tools\", kind: \"hot\" }, { prefix: \"tools.toolSearch\", kind: \"none\" }";
        assert_eq!(tools_hot_reload(july), Some(false));
        assert_eq!(tools_hot_reload(september), Some(true));
        assert_eq!(tools_hot_reload(narrower), Some(false));
        assert_eq!(
            tools_hot_reload("{ prefix: \"toolsets\", kind: \"hot\" }"),
            None
        );
        // fit() writes it over a borrowed fact, with a note.
        let facts = SchemaFacts {
            tools_hot_reload: Some(false),
            ..SchemaFacts::parse(JULY)
        };
        let borrowed = crate::targets::openclaw::ReleaseCatalogue::current()
            .unwrap()
            .find(&"2026.9.6".parse().unwrap())
            .unwrap()
            .release;
        assert!(borrowed.hot_reload);
        let (fitted, notes) = facts.fit(borrowed);
        assert!(!fitted.hot_reload);
        assert!(
            notes.iter().any(|n| n.starts_with("hot_reload = false")),
            "{notes:?}"
        );
    }

    /// The shapes as 2026.7.35's dist/zod-schema-O9ml_nmo.js and
    /// zod-schema.agent-runtime-C02vY4RT.js bundle them (trimmed).
    const JULY: &str = r#"
const AgentsSchema = object({
	defaults: lazy(() => AgentDefaultsSchema).optional(),
	list: array(AgentEntrySchema).optional()
}).strict().optional();
const McpServer = object({
	transport: union([
		literal("stdio"),
		literal("sse"),
		literal("streamable-http")
	]).optional(),
});
const SkillsSchema = object({ workshop: object({
	enabled: boolean(),
	autonomous: object({ enabled: boolean().optional() }).strict().optional(),
}) });
const OpenClawSchema = object({ skills: SkillsSchema, mode: string() });
const ToolSearchSchema = union([boolean(), object({
	enabled: boolean().optional(),
	mode: _enum([
		"code",
		"tools",
		"directory"
	]).optional(),
	codeTimeoutMs: number().int().positive().optional(),
	searchDefaultLimit: number().int().positive().optional(),
	maxSearchLimit: number().int().positive().optional()
}).strict()]).optional();
const CodeModeSchema = union([boolean(), object({
	enabled: boolean().optional(),
	runtime: literal("quickjs-wasi").optional(),
	languages: array(_enum(["javascript", "typescript"])).optional(),
	timeoutMs: number().int().positive().optional()
}).strict()]).optional();
"#;

    #[test]
    fn the_july_schema_reads_as_the_july_release_accepts() {
        let facts = SchemaFacts::parse(JULY);
        assert_eq!(facts.agents, Some(AgentsShape::List));
        assert!(!facts.catalog_refresh);
        assert!(facts.mcp_stdio_transport);
        assert_eq!(
            facts.tool_search_keys.as_deref(),
            Some(
                &[
                    "enabled",
                    "mode",
                    "codeTimeoutMs",
                    "searchDefaultLimit",
                    "maxSearchLimit"
                ]
                .map(String::from)[..]
            )
        );
        assert_eq!(
            facts.tool_search_modes,
            [
                ToolSearchMode::Code,
                ToolSearchMode::Tools,
                ToolSearchMode::Directory
            ]
        );
        assert_eq!(
            facts.code_mode_keys.as_deref(),
            Some(&["enabled", "runtime", "languages", "timeoutMs"].map(String::from)[..])
        );
    }

    #[test]
    fn borrowed_august_facts_are_fitted_to_the_july_schema() {
        let catalogue = crate::targets::openclaw::ReleaseCatalogue::current().unwrap();
        let august = catalogue
            .find(&"2026.8.1".parse().unwrap())
            .unwrap()
            .release;
        let (fitted, notes) = SchemaFacts::parse(JULY).fit(august.clone());
        assert_eq!(fitted.config.agents, AgentsShape::List);
        assert!(!fitted.config.catalog_refresh);
        // skills.workshop is in the schema, autonomous is not: that subtree goes.
        assert_eq!(fitted.config.settings, None);
        assert!(
            notes.contains(
                &"[config] settings: skills.workshop.autonomous.mode left out (not in its schema)"
                    .to_string()
            ),
            "{notes:?}"
        );
        assert_eq!(
            fitted.code_mode.as_ref().unwrap().keys,
            ["enabled", "runtime", "languages", "timeoutMs"]
        );
        // What the schema agrees with is left alone.
        assert_eq!(fitted.bridge, august.bridge);
        assert_eq!(fitted.modes.len(), august.modes.len());
        // A release without Code Mode in its schema loses the table.
        let no_code_mode = JULY.replace("const CodeModeSchema", "const Other");
        let (fitted, _) = SchemaFacts::parse(&no_code_mode).fit(august);
        assert!(fitted.code_mode.is_none());
    }

    #[test]
    fn a_block_ends_at_its_matching_bracket() {
        assert_eq!(block("x = f({a: (1)}); y", "x = "), Some("f({a: (1)})"));
        assert_eq!(block("x = 1; y", "x = "), Some("1"));
        assert_eq!(block("nothing", "x = "), None);
    }
}
