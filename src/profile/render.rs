//! A captured surface, rendered for a run: the core tools as catalogue entries, the control
//! declarations, the system prompt with its tool list and capability directory, and the extra
//! input of a turn. Pure functions of the profile and the run's surface; sized texts become
//! filler of their size.

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;
use serde_json::{json, Map, Value};

use super::model::{Captured, DirectoryFormat, Exposure, ListKind, Section};
use super::text::{Size, Text};
use crate::catalog::{CatalogMode, Executor, FunctionDeclaration, ToolEntry, ToolSource};
use crate::engine::{Surface, ToolCatalog};

/// `[N chars]`, `[N chars, M bytes]` or `[N chars, M bytes, L lines]`: a description known by its
/// size.
fn marker_pattern() -> &'static Regex {
    static PATTERN: OnceLock<Regex> = OnceLock::new();
    PATTERN.get_or_init(|| {
        Regex::new(r"^\[(\d+) chars(?:, (\d+) bytes)?(?:, (\d+) lines?)?\]$")
            .expect("a valid pattern")
    })
}

/// The size a marker stands for, if `text` is one.
pub fn marker_size(text: &str) -> Option<Size> {
    let caps = marker_pattern().captures(text)?;
    let number = |i: usize| caps.get(i).and_then(|m| m.as_str().parse::<usize>().ok());
    let chars = number(1)?;
    let lines = number(3).unwrap_or(0);
    Some(Size {
        chars,
        bytes: number(2).unwrap_or(chars + lines),
        lines,
    })
}

/// The marker of a size (the shortest form that says it).
pub fn marker(size: Size) -> String {
    match (size.bytes == size.chars + size.lines, size.lines) {
        (true, 0) => format!("[{} chars]", size.chars),
        (_, 0) => format!("[{} chars, {} bytes]", size.chars, size.bytes),
        (_, 1) => format!("[{} chars, {} bytes, 1 line]", size.chars, size.bytes),
        (_, lines) => format!(
            "[{} chars, {} bytes, {lines} lines]",
            size.chars, size.bytes
        ),
    }
}

/// `schema` with every `description` a product wrote reduced to its marker (`keep_text`: kept).
pub fn outline_schema(schema: &Value, keep_text: bool) -> Value {
    map_descriptions(schema, &|text| match keep_text {
        true => text.to_string(),
        false => marker(Size::of(text)),
    })
}

/// `schema` with every description marker replaced by filler of its size.
pub fn filled_schema(schema: &Value) -> Value {
    map_descriptions(schema, &|text| match marker_size(text) {
        Some(size) => Text::Sized(size).render(),
        None => text.to_string(),
    })
}

fn map_descriptions(value: &Value, f: &dyn Fn(&str) -> String) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("description", Value::String(text)) => (k.clone(), Value::from(f(text))),
                    _ => (k.clone(), map_descriptions(v, f)),
                })
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| map_descriptions(v, f)).collect()),
        other => other.clone(),
    }
}

impl Captured {
    /// The core tools as catalogue entries (they run as echoing stand-ins).
    pub fn core_entries(&self) -> Vec<ToolEntry> {
        self.core_tools
            .iter()
            .map(|t| {
                let entry = ToolEntry::new(
                    ToolSource::Openclaw,
                    t.owner.clone(),
                    t.name.clone(),
                    t.description.render(),
                    filled_schema(&t.parameters.0),
                    Executor::CoreEcho,
                );
                match t.exposure {
                    Exposure::Catalogued => entry,
                    Exposure::DirectOnly => entry.direct_only(),
                    Exposure::Visible => ToolEntry {
                        catalog_mode: CatalogMode::Visible,
                        ..entry
                    },
                }
            })
            .collect()
    }

    /// `declarations` (a turn's `tools[]`) with the controls declared as this profile does.
    pub fn with_controls(
        &self,
        declarations: Vec<FunctionDeclaration>,
    ) -> Vec<FunctionDeclaration> {
        declarations
            .into_iter()
            .map(|d| match self.controls.iter().find(|c| c.name == d.name) {
                Some(c) => FunctionDeclaration::new(
                    c.name.clone(),
                    c.description.render(),
                    filled_schema(&c.parameters.0),
                ),
                None => d,
            })
            .collect()
    }

    /// The system prompt of a run: the sections of its mode, the tool list naming `declared`
    /// (the turn's `tools[]` names), the directory listing the run's catalogue within the bound
    /// a model of `context_window` tokens gives ([`DirectoryFormat::bound`]).
    pub fn system_prompt(
        &self,
        surface: &Surface,
        declared: &[String],
        context_window: Option<u64>,
    ) -> String {
        let bound = self.directory.bound(context_window);
        let mut prompt = String::new();
        // Code Mode supersedes Tool Search: no Tool Search section, no directory.
        let mode = match surface.is_code_mode() {
            true => crate::config::ToolSearchMode::Direct,
            false => surface.mode,
        };
        for section in self.prompt.of(mode) {
            if let Some(heading) = &section.heading {
                prompt.push_str(heading);
                prompt.push('\n');
            }
            let body = match (section.list, &surface.run) {
                (Some(ListKind::Tools), _) => self.tool_list(section, declared),
                (Some(ListKind::Directory), Some(run)) => {
                    directory_body(&self.directory, section, run.catalog(), bound)
                }
                (Some(ListKind::Directory), None) | (None, _) => {
                    section.text.render() + &render_opt(&section.after)
                }
            };
            prompt.push_str(&body);
        }
        prompt
    }

    fn summary(&self, name: &str) -> Option<&Text> {
        let core = self.core_tools.iter().find(|t| t.name == name);
        match core {
            Some(t) => t.summary.as_ref(),
            None => self
                .controls
                .iter()
                .find(|c| c.name == name)
                .and_then(|c| c.summary.as_ref()),
        }
    }

    fn tool_list(&self, section: &Section, declared: &[String]) -> String {
        let mut body = section.text.render();
        for name in declared {
            match self.summary(name) {
                Some(summary) => body.push_str(&format!("- {name}: {}\n", summary.render())),
                None => body.push_str(&format!("- {name}\n")),
            }
        }
        body + &render_opt(&section.after)
    }

    /// A turn's input items as this gateway sends them: the user prefix before the first user
    /// text, then the extra items.
    pub fn turn_input(&self, input: &[Value]) -> Vec<Value> {
        let mut items = input.to_vec();
        let prefix = self.request.user_prefix.render();
        if let Some(text) = items
            .iter_mut()
            .find(|i| i["role"] == "user")
            .and_then(first_text)
        {
            *text = Value::from(format!("{prefix}{}", text.as_str().unwrap_or_default()));
        }
        items.extend(self.request.extra_input.iter().map(|extra| {
            json!({ "type": "message", "role": extra.role,
                    "content": [{ "type": "input_text", "text": extra.text.render() }] })
        }));
        items
    }
}

/// The text of a message item's first content part (or its string content).
fn first_text(item: &mut Value) -> Option<&mut Value> {
    if item["content"].is_string() {
        return item.get_mut("content");
    }
    item.get_mut("content")?.get_mut(0)?.get_mut("text")
}

fn render_opt(text: &Option<Text>) -> String {
    text.as_ref().map(Text::render).unwrap_or_default()
}

/// A name or owner goes into the directory only when it is a plain identifier.
fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    text.chars().count() <= 128
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
}

/// `text` with whitespace collapsed, cut to `max` characters ending in `ellipsis`.
pub fn cut(text: &str, max: usize, ellipsis: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max {
        return collapsed;
    }
    let keep = max.saturating_sub(ellipsis.chars().count());
    let head: String = collapsed.chars().take(keep).collect();
    format!("{}{ellipsis}", head.trim_end())
}

/// One directory line; `cut` 0 lists the name only.
fn directory_line(entry: &ToolEntry, cut_at: usize, ellipsis: &str) -> String {
    let owner = match is_identifier(&entry.source_name) {
        true => format!(" ({})", entry.source_name),
        false => String::new(),
    };
    if cut_at == 0 {
        return format!("- {}{owner}", entry.name);
    }
    let description = match cut(&entry.description, cut_at, ellipsis) {
        d if d.is_empty() => "No description.".to_string(),
        d => d,
    };
    format!("- {}{owner}: {description}", entry.name)
}

/// The directory section's body for `catalog`: the section's text, one line per listed tool, the
/// count of tools left out (when some are), the text after. Descriptions shorten through the
/// format's cuts before lines are dropped, so the body stays within `bound` characters (the
/// format's [`DirectoryFormat::bound`] for the run's model).
pub fn directory_body(
    format: &DirectoryFormat,
    section: &Section,
    catalog: &ToolCatalog,
    bound: usize,
) -> String {
    let entries = catalog.entries();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for e in entries {
        *counts.entry(e.name.as_str()).or_default() += 1;
    }
    let deferred: Vec<&ToolEntry> = entries
        .iter()
        .filter(|e| e.catalog_mode != CatalogMode::Visible)
        .collect();
    let mut listed: Vec<&ToolEntry> = deferred
        .iter()
        .copied()
        .filter(|e| e.source == ToolSource::Openclaw && is_identifier(&e.name))
        .filter(|e| counts[e.name.as_str()] == 1)
        .collect();
    listed.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));

    let text = section.text.render();
    let after = render_opt(&section.after);
    let omitted_label = format.omitted.render();
    let frame = text.chars().count() + after.chars().count();
    let omitted_chars = |omitted: usize| match omitted {
        0 => 0,
        n => n.to_string().len() + omitted_label.chars().count(),
    };
    let mut lines: Vec<String> = Vec::new();
    let mut line_chars = 0;
    for (i, &cut_at) in format.description_cuts.iter().enumerate() {
        lines = listed
            .iter()
            .map(|e| directory_line(e, cut_at, &format.ellipsis))
            .collect();
        line_chars = lines.iter().map(|l| l.chars().count() + 1).sum();
        let last = i + 1 == format.description_cuts.len();
        if frame + line_chars + omitted_chars(deferred.len() - lines.len()) <= bound || last {
            break;
        }
    }
    while !lines.is_empty()
        && frame + line_chars + omitted_chars(deferred.len() - lines.len()) > bound
    {
        line_chars -= lines.pop().map_or(0, |l| l.chars().count() + 1);
    }
    let omitted = deferred.len() - lines.len();
    let mut body = text;
    for line in &lines {
        body.push_str(line);
        body.push('\n');
    }
    if omitted > 0 {
        body.push_str(&format!("{omitted}{omitted_label}"));
    }
    body + &after
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::{fake_plugin_tools, FIXTURE_PLUGIN_ID};
    use crate::config::ToolSearchMode;
    use crate::engine::SearchLimits;
    use crate::profile::model::ContextScale;

    #[test]
    fn markers_round_trip() {
        for text in ["", "plain words", "two\nlines\n", "é \"q\""] {
            let size = Size::of(text);
            assert_eq!(marker_size(&marker(size)), Some(size), "{text:?}");
        }
        assert_eq!(marker(Size::of("abc")), "[3 chars]");
        assert_eq!(marker(Size::of("a\nb")), "[3 chars, 4 bytes, 1 line]");
        assert_eq!(marker_size("[3 chars] and more"), None);
    }

    #[test]
    fn schemas_keep_structure_and_lose_prose() {
        let schema = json!({ "type": "object", "properties": { "path": { "type": "string",
            "description": "Path of the file." } }, "required": ["path"] });
        let outlined = outline_schema(&schema, false);
        assert_eq!(outlined["properties"]["path"]["description"], "[17 chars]");
        let filled = filled_schema(&outlined);
        assert_eq!(filled["required"], json!(["path"]));
        let text = filled["properties"]["path"]["description"]
            .as_str()
            .unwrap();
        assert_eq!(Size::of(text), Size::of("Path of the file."));
        assert_eq!(
            serde_json::to_string(&filled).unwrap().len(),
            serde_json::to_string(&schema).unwrap().len()
        );
    }

    #[test]
    fn cut_collapses_trims_and_ends_in_the_ellipsis() {
        assert_eq!(cut("a  b\nc", 10, "..."), "a b c");
        assert_eq!(cut("abcd efgh ijkl", 9, "..."), "abcd e...");
        assert_eq!(cut("abcd  efgh", 8, "..."), "abcd...");
        assert_eq!(cut("abcdefghijkl", 9, "..."), "abcdef...");
        assert_eq!(cut("abcdefghijkl", 9, "…"), "abcdefgh…");
    }

    fn format(max_chars: usize) -> DirectoryFormat {
        DirectoryFormat {
            modes: vec![ToolSearchMode::Tools],
            description_cuts: vec![180, 64, 0],
            ellipsis: "...".into(),
            max_chars,
            omitted: Text::Literal(" more left out. ".into()),
            context_scale: None,
        }
    }

    fn body(
        format: &DirectoryFormat,
        catalog: &ToolCatalog,
        context_window: Option<u64>,
    ) -> String {
        directory_body(format, &section(), catalog, format.bound(context_window))
    }

    fn section() -> Section {
        Section {
            heading: Some("### Deferred Tool Schemas".into()),
            text: Text::Literal("Tools:\n".into()),
            list: Some(ListKind::Directory),
            after: Some(Text::Literal("\nEnd.\n".into())),
        }
    }

    #[test]
    fn descriptions_shorten_before_lines_are_dropped() {
        let catalog = ToolCatalog::new(
            fake_plugin_tools(FIXTURE_PLUGIN_ID, 36),
            SearchLimits::default(),
        );
        let roomy = body(&format(100_000), &catalog, None);
        assert!(roomy.contains(
            "- fake_plugin_tool_17 (tool-search-e2e-fixture): Fake plugin tool 17. It proves"
        ));
        assert!(!roomy.contains("more left out"));
        let tighter = body(&format(5_000), &catalog, None);
        let line = tighter
            .lines()
            .find(|l| l.starts_with("- fake_plugin_tool_17 "))
            .unwrap();
        assert_eq!(
            line.chars().count(),
            "- fake_plugin_tool_17 (tool-search-e2e-fixture): ".len() + 64
        );
        assert!(line.ends_with("..."));
        let names = body(&format(1_500), &catalog, None);
        assert!(names.contains("- fake_plugin_tool_17 (tool-search-e2e-fixture)\n"));
        let tight = body(&format(500), &catalog, None);
        assert!(tight.chars().count() <= 500, "{}", tight.chars().count());
        let listed = tight.lines().filter(|l| l.starts_with("- ")).count();
        assert!(tight.contains(&format!("{} more left out. ", 36 - listed)));
        let one_more = directory_line(&catalog.entries()[listed], 0, "...");
        assert!(tight.chars().count() + one_more.chars().count() + 1 > 500);
    }

    #[test]
    fn the_bound_follows_the_context_window_between_its_floor_and_cap() {
        let scaled = DirectoryFormat {
            context_scale: Some(ContextScale {
                tokens_per_char: 10,
                min_chars: 768,
            }),
            ..format(18_000)
        };
        assert_eq!(scaled.bound(None), 18_000);
        assert_eq!(scaled.bound(Some(0)), 18_000);
        assert_eq!(scaled.bound(Some(128_000)), 12_800);
        assert_eq!(scaled.bound(Some(1_000_000)), 18_000);
        assert_eq!(scaled.bound(Some(4_000)), 768);
        assert_eq!(scaled.bound(Some(128_009)), 12_800);
        // Without a scale the window does not matter.
        assert_eq!(format(18_000).bound(Some(4_000)), 18_000);

        // 1,000 fake tools: a 128,000-token model's directory stops at 12,800 characters, a
        // 60,000-token one's at 6,000, each within a line of its bound.
        let catalog = ToolCatalog::new(
            fake_plugin_tools(FIXTURE_PLUGIN_ID, 1_000),
            SearchLimits::default(),
        );
        for (window, bound) in [(128_000, 12_800), (60_000, 6_000)] {
            let text = body(&scaled, &catalog, Some(window));
            let chars = text.chars().count();
            let longest_line = "- fake_plugin_tool_1000 (tool-search-e2e-fixture)\n".len();
            assert!(
                chars <= bound && chars + longest_line > bound,
                "{window}: {chars}"
            );
        }
    }
}
