//! Code Mode's surface (`tools.codeMode`): the model sees `exec` and `wait` plus the
//! direct-only tools, and the `exec` description carries a bounded quick index of the callable
//! names. Kept beside Tool Search's surface because it hides the same catalogue, built by the
//! same planning, and supersedes it for a run where it engages.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{Surface, ToolCatalog};
use crate::catalog::{CatalogMode, FunctionDeclaration, ToolEntry, ToolSource};

pub use crate::config::code_mode::{CONTROLS, EXEC, WAIT};

/// The quick index's bound in characters, heading and footer included.
pub const INDEX_BOUND: usize = 8_000;
/// The first line of the quick index.
pub const INDEX_HEADING: &str =
    "Enabled async tool globals (descriptions are intentionally deferred):";
/// The second line: how to read an index line.
pub const INDEX_LEGEND: &str =
    "Each line is `callableName input -> output`; `-> ?` means unknown output.";
/// The footer when every line fit.
pub const INDEX_FOOTER_ALL: &str =
    "Call these globals directly; use catalog.search(query) when lookup is ambiguous.";
/// The footer's tail when lines were left out (after `N additional tools omitted`).
pub const INDEX_FOOTER_OMITTED: &str =
    "additional tools omitted from this prompt index. Use catalog.search(query); results are callable.";
/// An input hint longer than this becomes `unknown`.
pub const MAX_INPUT_HINT: usize = 300;
/// An output hint longer than this is left out.
pub const MAX_OUTPUT_HINT: usize = 800;

/// Words a callable name may not be: JavaScript's reserved words and the guest's own globals.
const RESERVED: &[&str] = &[
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "import",
    "in",
    "instanceof",
    "new",
    "null",
    "return",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
    "let",
    "static",
    "implements",
    "interface",
    "package",
    "private",
    "protected",
    "public",
    "await",
    "arguments",
    "eval",
    "undefined",
    "NaN",
    "Infinity",
    "catalog",
    "MCP",
    "API",
    "json",
    "text",
    "yield_control",
    "globalThis",
    "console",
    "openclaw",
    "Object",
    "Array",
    "JSON",
    "Promise",
    "Math",
    "String",
    "Number",
    "Boolean",
    "Error",
    "Symbol",
    "Reflect",
];

/// The guest's name of a tool: a JavaScript-safe name stays exact; other characters become
/// `_`; a name that is still no identifier gets the `tool_` prefix; a reserved word or one of
/// the guest's globals gets `_tool`.
pub fn callable_base(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                true => c,
                false => '_',
            },
        )
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out = format!("tool_{out}");
    }
    if RESERVED.contains(&out.as_str()) {
        out.push_str("_tool");
    }
    out
}

/// One catalogued tool as the guest knows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Callable {
    pub callable_name: String,
    pub entry: ToolEntry,
}

/// The catalogue's native and client tools under their callable names (collisions get `_2`,
/// `_3`, … in catalogue order); MCP tools are reached under `MCP.<server>.<tool>` instead.
pub fn callables(catalog: &ToolCatalog) -> Vec<Callable> {
    let mut taken: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for entry in catalog
        .entries()
        .iter()
        .filter(|e| e.source != ToolSource::Mcp)
    {
        let base = callable_base(&entry.name);
        let mut name = base.clone();
        let mut n = 2;
        while taken.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        taken.push(name.clone());
        out.push(Callable {
            callable_name: name,
            entry: entry.clone(),
        });
    }
    out
}

/// The quick index: heading, legend, one line per native or client tool (those with a
/// declared output first, then by callable name), and a footer; at most [`INDEX_BOUND`]
/// characters. No description, no full schema, no MCP tool.
pub fn quick_index(catalog: &ToolCatalog) -> String {
    let mut lines: Vec<(bool, String, String)> = callables(catalog)
        .into_iter()
        .map(|c| {
            let item = catalog.search_item(&c.entry);
            let input = match (c.entry.source, item.input.chars().count()) {
                (ToolSource::Client, _) => "unknown".to_string(),
                (_, n) if n > MAX_INPUT_HINT => "unknown".to_string(),
                _ => item.input.clone(),
            };
            let output = item.output.filter(|o| {
                o.chars().count() <= MAX_OUTPUT_HINT && c.entry.source != ToolSource::Client
            });
            let has_output = output.is_some();
            let line = format!(
                "- {} {} -> {}",
                c.callable_name,
                input,
                output.as_deref().unwrap_or("?")
            );
            (!has_output, c.callable_name, line)
        })
        .collect();
    lines.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
    let head = format!("{INDEX_HEADING}\n{INDEX_LEGEND}\n");
    let total = lines.len();
    let longest_footer = format!("{total} {INDEX_FOOTER_OMITTED}");
    let room = INDEX_BOUND
        .saturating_sub(head.chars().count())
        .saturating_sub(longest_footer.chars().count().max(INDEX_FOOTER_ALL.len()));
    let mut body = String::new();
    let mut used = 0;
    let mut kept = 0;
    for (_, _, line) in &lines {
        let n = line.chars().count() + 1;
        if used + n > room {
            continue;
        }
        used += n;
        kept += 1;
        body.push_str(line);
        body.push('\n');
    }
    let footer = match total - kept {
        0 => INDEX_FOOTER_ALL.to_string(),
        omitted => format!("{omitted} {INDEX_FOOTER_OMITTED}"),
    };
    format!("{head}{body}{footer}")
}

/// The `exec` declaration: our own prose on how a cell works, then the quick index. The
/// parameters are the product's (`title?`, `code`, `restartSafe?`, keys in the order a captured
/// 2026.9.6 request sends them: `type`, `required`, `properties`).
pub fn exec_declaration(index: &str, timeout_ms: u64) -> FunctionDeclaration {
    let description = format!(
        "Run a JavaScript cell against the hidden tool catalogue. `code` is JavaScript (top-level \
         await and return allowed), never a shell command; no require or import. Within \
         {timeout_ms} ms the cell may call `catalog.search(query, {{limit}})` for handles, \
         `handle.describe()` for a tool's full schema, and call any tool as an async global \
         (MCP tools under `MCP.<server>.<tool>`); a call resolves to the tool's details. The \
         result is {{status: \"completed\", value, telemetry}}, {{status: \"waiting\", runId}} \
         (resume with wait) or {{status: \"failed\", error, code}}.\n\n{index}"
    );
    FunctionDeclaration::new(EXEC, description, exec_parameters())
}

fn exec_parameters() -> Arc<Value> {
    static SCHEMA: std::sync::OnceLock<Arc<Value>> = std::sync::OnceLock::new();
    SCHEMA
        .get_or_init(|| {
            Arc::new(json!({
                "type": "object",
                "required": ["code"],
                "properties": {
                    "title": { "type": "string", "maxLength": 120, "description": "Every call: short purpose; never claim success. No secrets." },
                    "code": { "type": "string", "description": "Required JavaScript; no TypeScript annotations, Python, shell, `require`, or `import`. Use `return value`; a trailing expression yields `null`." },
                    "restartSafe": { "type": "boolean", "description": "Do not set on a new exec. Set true only when OpenClaw explicitly requests replay after a gateway restart." }
                }
            }))
        })
        .clone()
}

/// The `wait` declaration.
pub fn wait_declaration() -> FunctionDeclaration {
    FunctionDeclaration::new(
        WAIT,
        "Resume only when the outer exec result has status \"waiting\", using its top-level runId.",
        json!({
            "type": "object",
            "required": ["runId"],
            "properties": {
                "runId": { "type": "string", "description": "Top-level runId from an exec result with status \"waiting\", never a nested tool sessionId." }
            }
        }),
    )
}

/// What a Code Mode surface adds to a planned one: its quick index and its budget.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeModeSurface {
    pub index: String,
    pub timeout_ms: u64,
    /// The cell cannot run isolated here: every `exec` fails with `runtime_unavailable`.
    pub unavailable: Option<String>,
    /// A captured product's `exec` and `wait` (its profile's capture), in place of ours.
    pub captured: Option<CapturedControls>,
}

/// A captured product's controls: the prose before `exec`'s quick index, `exec`'s input schema,
/// and the whole `wait` declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct CapturedControls {
    pub exec_prose: String,
    pub exec_parameters: Arc<Value>,
    pub wait: FunctionDeclaration,
}

impl CodeModeSurface {
    /// `exec` and `wait` as this surface declares them.
    pub fn controls(&self) -> [FunctionDeclaration; 2] {
        match &self.captured {
            None => [
                exec_declaration(&self.index, self.timeout_ms),
                wait_declaration(),
            ],
            Some(c) => [
                FunctionDeclaration::new(
                    EXEC,
                    format!("{}{}", c.exec_prose, self.index),
                    c.exec_parameters.clone(),
                ),
                c.wait.clone(),
            ],
        }
    }
}

impl Surface {
    /// This surface (planned with a catalogue) as Code Mode shows it: `exec` and `wait` in place
    /// of any Tool Search control, only the direct-only tools declared beside them, every
    /// other allowed tool catalogued (the coding tools too).
    pub fn into_code_mode(mut self, timeout_ms: u64, unavailable: Option<String>) -> Surface {
        let Some(run) = &self.run else {
            return self;
        };
        let index = quick_index(run.catalog());
        self.controls = CONTROLS.iter().map(|c| c.to_string()).collect();
        let visible: Vec<ToolEntry> = self
            .visible
            .iter()
            .filter(|t| t.catalog_mode == CatalogMode::DirectOnly)
            .cloned()
            .collect();
        self.visible = visible.into();
        self.code_mode = Some(Arc::new(CodeModeSurface {
            index,
            timeout_ms,
            unavailable,
            captured: None,
        }));
        self
    }

    /// Is this a Code Mode surface?
    pub fn is_code_mode(&self) -> bool {
        self.code_mode.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::{core_tools, fake_plugin_tools, FIXTURE_PLUGIN_ID};
    use crate::engine::SearchLimits;

    fn catalog(size: usize) -> ToolCatalog {
        let mut t = core_tools();
        t.extend(fake_plugin_tools(FIXTURE_PLUGIN_ID, size));
        ToolCatalog::new(t, SearchLimits::default())
    }

    #[test]
    fn callable_names_are_javascript_safe_and_unique() {
        assert_eq!(callable_base("fake_plugin_tool_17"), "fake_plugin_tool_17");
        assert_eq!(
            callable_base("calendar.create-event"),
            "calendar_create_event"
        );
        assert_eq!(callable_base("9lives"), "tool_9lives");
        assert_eq!(callable_base("catalog"), "catalog_tool");
        assert_eq!(callable_base("exec"), "exec");
    }

    #[test]
    fn the_index_lists_every_tool_without_descriptions_within_its_bound() {
        let c = catalog(12);
        let index = quick_index(&c);
        assert!(index.starts_with(&format!("{INDEX_HEADING}\n{INDEX_LEGEND}\n")));
        assert!(index.ends_with(INDEX_FOOTER_ALL), "{index}");
        assert_eq!(index.lines().count(), 2 + c.len() + 1);
        assert!(index.contains("\n- fake_plugin_tool_07 "), "{index}");
        for entry in c.entries() {
            assert!(!index.contains(&entry.description), "{}", entry.name);
        }
        assert!(index.chars().count() <= INDEX_BOUND);
    }

    #[test]
    fn a_large_catalogue_is_cut_with_the_omitted_footer() {
        let c = catalog(400);
        let index = quick_index(&c);
        let n = index.chars().count();
        assert!(n <= INDEX_BOUND && n > INDEX_BOUND - 200, "{n}");
        let kept = index.lines().filter(|l| l.starts_with("- ")).count();
        let omitted = c.len() - kept;
        assert!(
            index.ends_with(&format!("{omitted} {INDEX_FOOTER_OMITTED}")),
            "{}",
            &index[index.len() - 200..]
        );
    }
}
