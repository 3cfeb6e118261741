//! Reading a surface off what the provider received: the pure half of `profile capture`.
//!
//! Input: the first request body of each mode's lane (the reference scenario), the requests of
//! the bound lane (code mode, a larger catalogue, a probe of which visible tools are searchable).
//! Output: a [`Captured`] surface whose texts are the gateway's own ([`Text::Literal`]); the
//! writer keeps only their sizes for a committed profile.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use thiserror::Error;

use crate::catalog::fake::fake_tool_name;
use crate::config::{ToolSearchMode, CONTROL_TOOLS};
use crate::engine::directory::DIRECTORY_HEADING;
use crate::profile::model::{
    Captured, Control, CoreTool, DirectoryFormat, Exposure, ExtraInput, ListKind, Prompts,
    RequestShape, Schema, Section, Source,
};
use crate::profile::render::outline_schema;
use crate::profile::Text;
use crate::protocol::item_text;

/// What the capture could not read.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("profile capture: {0}")]
pub struct CaptureError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, CaptureError> {
    Err(CaptureError(message.into()))
}

/// The fake plugin of the captured lanes.
#[derive(Debug, Clone)]
pub struct Plugin {
    pub id: String,
    pub size: usize,
    /// The full description of each fake tool, by name.
    pub descriptions: BTreeMap<String, String>,
}

impl Plugin {
    pub fn names(&self) -> BTreeSet<String> {
        (1..=self.size)
            .map(|i| fake_tool_name(i, self.size))
            .collect()
    }
}

/// The bound lane: code mode with a catalogue large enough that the directory is cut.
#[derive(Debug, Clone)]
pub struct BoundLane {
    pub plugin: Plugin,
    /// Its request bodies, in order (the first has the directory, the second the probe's answer).
    pub requests: Vec<Value>,
}

/// Everything the capture observed.
#[derive(Debug, Clone)]
pub struct Observations {
    pub source: Source,
    pub plugin: Plugin,
    /// The user's text of the turn (what the scenario sent).
    pub prompt: String,
    /// The first request body of each mode's lane.
    pub first: BTreeMap<ToolSearchMode, Value>,
    pub bound: BoundLane,
}

/// The surface the observations show, with the gateway's own texts.
pub fn read_surface(o: &Observations) -> Result<Captured, CaptureError> {
    let direct = first(o, ToolSearchMode::Direct)?;
    let fake = o.plugin.names();
    let core: Vec<&Value> = tools(direct)
        .iter()
        .filter(|t| !fake.contains(name_of(t)))
        .collect();
    let visible = visible_core(o, &fake)?;
    let searchable = probed(&o.bound)?;
    let summaries = tool_list_summaries(o)?;
    let core_tools = core
        .iter()
        .map(|t| {
            let name = name_of(t).to_string();
            let exposure = match (visible.contains(&name), searchable.get(&name)) {
                (false, _) => Exposure::Catalogued,
                (true, Some(true)) => Exposure::Visible,
                (true, _) => Exposure::DirectOnly,
            };
            CoreTool {
                owner: "core".into(),
                exposure,
                description: Text::Literal(t["description"].as_str().unwrap_or_default().into()),
                summary: summaries.get(&name).cloned().flatten().map(Text::Literal),
                parameters: Schema(outline_schema(&t["parameters"], true)),
                name,
            }
        })
        .collect::<Vec<_>>();
    let controls = read_controls(o, &summaries)?;
    let mut catalogued: BTreeSet<String> = fake.clone();
    catalogued.extend(
        core_tools
            .iter()
            .filter(|t| t.exposure == Exposure::Catalogued)
            .map(|t| t.name.clone()),
    );
    let mut sections = BTreeMap::new();
    for mode in ToolSearchMode::ALL {
        let body = first(o, mode)?;
        let declared: BTreeSet<String> =
            tools(body).iter().map(|t| name_of(t).to_string()).collect();
        let prompt = system_prompt_text(body)?;
        sections.insert(mode, read_sections(&prompt, &declared, &catalogued)?);
    }
    let directory = read_directory(o, &sections, &catalogued)?;
    let prompt = Prompts {
        direct: sections.remove(&ToolSearchMode::Direct).unwrap_or_default(),
        tools: sections.remove(&ToolSearchMode::Tools).unwrap_or_default(),
        code: sections.remove(&ToolSearchMode::Code).unwrap_or_default(),
        directory: sections
            .remove(&ToolSearchMode::Directory)
            .unwrap_or_default(),
    };
    Ok(Captured {
        source: o.source.clone(),
        request: read_request(direct, &o.prompt)?,
        core_tools,
        controls,
        directory,
        prompt,
    })
}

fn first(o: &Observations, mode: ToolSearchMode) -> Result<&Value, CaptureError> {
    o.first
        .get(&mode)
        .ok_or_else(|| CaptureError(format!("no request of the {} lane", mode.as_str())))
}

fn tools(body: &Value) -> &[Value] {
    body["tools"].as_array().map(Vec::as_slice).unwrap_or(&[])
}

fn name_of(tool: &Value) -> &str {
    tool["name"].as_str().unwrap_or_default()
}

/// The core tools every Tool Search mode declares (the same in each, or the capture fails).
fn visible_core(
    o: &Observations,
    fake: &BTreeSet<String>,
) -> Result<BTreeSet<String>, CaptureError> {
    let mut seen: Option<(ToolSearchMode, BTreeSet<String>)> = None;
    for mode in [
        ToolSearchMode::Tools,
        ToolSearchMode::Code,
        ToolSearchMode::Directory,
    ] {
        let names: BTreeSet<String> = tools(first(o, mode)?)
            .iter()
            .map(|t| name_of(t).to_string())
            .filter(|n| !CONTROL_TOOLS.contains(&n.as_str()) && !fake.contains(n))
            .collect();
        match &seen {
            Some((other, set)) if set != &names => {
                return fail(format!(
                    "the {} and {} lanes keep different core tools declared: {:?} and {:?}",
                    other.as_str(),
                    mode.as_str(),
                    set,
                    names
                ))
            }
            _ => seen = Some((mode, names)),
        }
    }
    Ok(seen.map(|(_, s)| s).unwrap_or_default())
}

/// The probe's answer in the bound lane: which visible tools search finds.
fn probed(bound: &BoundLane) -> Result<BTreeMap<String, bool>, CaptureError> {
    let output = bound
        .requests
        .iter()
        .flat_map(|b| b["input"].as_array().into_iter().flatten())
        .find(|i| i["type"] == "function_call_output")
        .and_then(|i| i["output"].as_str())
        .ok_or_else(|| CaptureError("the bound lane's probe got no answer".into()))?;
    let value: Value = serde_json::from_str(output)
        .map_err(|e| CaptureError(format!("the probe's answer is not JSON ({e}): {output}")))?;
    let found = value.get("value").unwrap_or(&value);
    let map = found.as_object().ok_or_else(|| {
        CaptureError(format!(
            "the probe's answer has no name → found map: {output}"
        ))
    })?;
    Ok(map
        .iter()
        .map(|(k, v)| (k.clone(), v.as_bool().unwrap_or(false)))
        .collect())
}

/// The JavaScript the bound lane's `tool_search_code` runs: for each name, whether a search
/// for it finds a tool of exactly that name.
pub fn probe_code(names: &[String]) -> String {
    let list = serde_json::to_string(names).unwrap_or_else(|_| "[]".into());
    format!(
        "const names = {list};\nconst found = {{}};\nfor (const name of names) {{\n  \
         const hits = await openclaw.tools.search(name, {{ limit: 5 }});\n  \
         const list = Array.isArray(hits) ? hits : (hits && hits.results) || [];\n  \
         found[name] = list.some((hit) => hit && hit.name === name);\n}}\nreturn found;"
    )
}

/// The system prompt: the first input item's text (the item must be a system message).
fn system_prompt_text(body: &Value) -> Result<String, CaptureError> {
    let item = &body["input"][0];
    if item["role"] != "system" {
        return fail("the first input item is not the system prompt");
    }
    Ok(item_text(item))
}

/// The text after `- name: ` of each tool in the direct lane's tool list (`None`: `- name`).
fn tool_list_summaries(o: &Observations) -> Result<BTreeMap<String, Option<String>>, CaptureError> {
    let mut summaries = BTreeMap::new();
    for mode in ToolSearchMode::ALL {
        let body = first(o, mode)?;
        let declared: BTreeSet<String> =
            tools(body).iter().map(|t| name_of(t).to_string()).collect();
        for line in system_prompt_text(body)?.lines() {
            if let Some((name, summary)) = tool_line(line, &declared) {
                summaries
                    .entry(name.to_string())
                    .or_insert_with(|| summary.map(str::to_string));
            }
        }
    }
    Ok(summaries)
}

/// `- name` or `- name: summary` for a declared name.
fn tool_line<'l>(line: &'l str, declared: &BTreeSet<String>) -> Option<(&'l str, Option<&'l str>)> {
    let rest = line.strip_prefix("- ")?;
    let (name, summary) = match rest.split_once(": ") {
        Some((name, summary)) => (name, Some(summary)),
        None => (rest, None),
    };
    declared.contains(name).then_some((name, summary))
}

/// `- name (owner): …`, `- name (owner)`, `- name: …` for a catalogued name: the name.
fn directory_name<'l>(line: &'l str, catalogued: &BTreeSet<String>) -> Option<&'l str> {
    let rest = line.strip_prefix("- ")?;
    let end = rest.find([' ', ':']).unwrap_or(rest.len());
    let name = &rest[..end];
    catalogued.contains(name).then_some(name)
}

fn read_controls(
    o: &Observations,
    summaries: &BTreeMap<String, Option<String>>,
) -> Result<Vec<Control>, CaptureError> {
    let mut controls: Vec<Control> = Vec::new();
    for mode in [
        ToolSearchMode::Tools,
        ToolSearchMode::Code,
        ToolSearchMode::Directory,
    ] {
        for tool in tools(first(o, mode)?) {
            let name = name_of(tool);
            if !CONTROL_TOOLS.contains(&name) {
                continue;
            }
            match controls.iter_mut().find(|c| c.name == name) {
                Some(c) => c.modes.push(mode),
                None => controls.push(Control {
                    name: name.to_string(),
                    modes: vec![mode],
                    description: Text::Literal(
                        tool["description"].as_str().unwrap_or_default().into(),
                    ),
                    summary: summaries.get(name).cloned().flatten().map(Text::Literal),
                    parameters: Schema(outline_schema(&tool["parameters"], true)),
                }),
            }
        }
    }
    controls.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(controls)
}

/// The prompt split at its heading lines; the tool list and the directory found in them.
fn read_sections(
    prompt: &str,
    declared: &BTreeSet<String>,
    catalogued: &BTreeSet<String>,
) -> Result<Vec<Section>, CaptureError> {
    let mut raw: Vec<(Option<String>, Vec<&str>)> = vec![(None, Vec::new())];
    for line in prompt.split_inclusive('\n') {
        if line.starts_with('#') {
            raw.push((Some(line.trim_end_matches('\n').to_string()), Vec::new()));
        } else if let Some(last) = raw.last_mut() {
            last.1.push(line);
        }
    }
    if raw[0].1.is_empty() {
        raw.remove(0);
    }
    raw.into_iter()
        .map(|(heading, lines)| {
            let is_directory = heading.as_deref() == Some(DIRECTORY_HEADING);
            let matches = |line: &str| {
                let line = line.trim_end_matches('\n');
                match is_directory {
                    true => directory_name(line, catalogued).is_some(),
                    false => tool_line(line, declared).is_some(),
                }
            };
            let list = match is_directory {
                true => ListKind::Directory,
                false => ListKind::Tools,
            };
            section(heading, &lines, matches, list)
        })
        .collect()
}

/// One section: plain text, or text, a run of list lines, text.
fn section(
    heading: Option<String>,
    lines: &[&str],
    matches: impl Fn(&str) -> bool,
    list: ListKind,
) -> Result<Section, CaptureError> {
    let first = lines.iter().position(|l| matches(l));
    let last = lines.iter().rposition(|l| matches(l));
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(Section {
            heading,
            text: Text::Literal(lines.concat()),
            list: (list == ListKind::Directory).then_some(list),
            after: (list == ListKind::Directory).then(Text::empty),
        });
    };
    if let Some(odd) = lines[first..=last].iter().find(|l| !matches(l)) {
        return fail(format!(
            "section {:?}: its list is interrupted by {:?}",
            heading.unwrap_or_default(),
            odd.trim_end()
        ));
    }
    Ok(Section {
        heading,
        text: Text::Literal(lines[..first].concat()),
        list: Some(list),
        after: Some(Text::Literal(lines[last + 1..].concat())),
    })
}

/// The directory's format: the modes that have it, the description cuts seen at the
/// reference size and at the bound size, the ellipsis, the bound, the omitted-count label.
fn read_directory(
    o: &Observations,
    sections: &BTreeMap<ToolSearchMode, Vec<Section>>,
    catalogued: &BTreeSet<String>,
) -> Result<DirectoryFormat, CaptureError> {
    let modes: Vec<ToolSearchMode> = ToolSearchMode::ALL
        .into_iter()
        .filter(|m| {
            sections[m]
                .iter()
                .any(|s| s.list == Some(ListKind::Directory))
        })
        .collect();
    let reference = directory_section(first(o, ToolSearchMode::Code)?, catalogued)?;
    let bound_body = o
        .bound
        .requests
        .first()
        .ok_or_else(|| CaptureError("the bound lane sent no request".into()))?;
    let mut bound_catalogued = catalogued.clone();
    bound_catalogued.retain(|n| !o.plugin.names().contains(n));
    bound_catalogued.extend(o.bound.plugin.names());
    let bound = directory_section(bound_body, &bound_catalogued)?;

    let (cut_ref, ellipsis) = observed_cut(&reference.lines, &o.plugin)?;
    let (cut_bound, _) = observed_cut(&bound.lines, &o.bound.plugin)?;
    let mut description_cuts = vec![cut_ref];
    if cut_bound != cut_ref {
        description_cuts.push(cut_bound);
    }
    let omitted = omitted_label(&reference.after, &bound.after)?;
    if omitted.is_none() {
        return fail(format!(
            "the bound lane ({} fake tools) listed every tool, so the directory's bound is not \
             seen; capture with a larger --bound-size",
            o.bound.plugin.size
        ));
    }
    Ok(DirectoryFormat {
        modes,
        description_cuts,
        ellipsis: ellipsis.unwrap_or_else(|| "...".into()),
        max_chars: bound.body_chars,
        omitted: Text::Literal(omitted.unwrap_or_default()),
        // One model's run shows one bound; how it follows the window is read from the source.
        context_scale: None,
    })
}

/// The directory section of a request, split.
struct DirectorySection {
    lines: Vec<String>,
    after: String,
    body_chars: usize,
}

fn directory_section(
    body: &Value,
    catalogued: &BTreeSet<String>,
) -> Result<DirectorySection, CaptureError> {
    let prompt = system_prompt_text(body)?;
    let heading = format!("{DIRECTORY_HEADING}\n");
    let Some(start) = prompt.find(&heading) else {
        return fail("a code-mode request has no capability directory");
    };
    let rest = &prompt[start + heading.len()..];
    let end = rest
        .split_inclusive('\n')
        .scan(0, |at, line| {
            let here = *at;
            *at += line.len();
            Some((here, line))
        })
        .find(|(_, line)| line.starts_with('#'))
        .map_or(rest.len(), |(at, _)| at);
    let body = &rest[..end];
    let lines: Vec<&str> = body.split_inclusive('\n').collect();
    let is_line = |l: &&str| directory_name(l.trim_end_matches('\n'), catalogued).is_some();
    let after = lines.iter().rposition(is_line).map_or(0, |last| last + 1);
    Ok(DirectorySection {
        lines: lines
            .iter()
            .filter(|l| is_line(l))
            .map(|l| l.trim_end_matches('\n').to_string())
            .collect(),
        after: lines[after..].concat(),
        body_chars: body.chars().count(),
    })
}

/// The description length of the fake tools' lines (0: names only) and the ellipsis that ends
/// a cut one.
fn observed_cut(
    lines: &[String],
    plugin: &Plugin,
) -> Result<(usize, Option<String>), CaptureError> {
    let mut longest = 0;
    let mut ellipsis = None;
    let mut any = false;
    for line in lines {
        let Some(rest) = line.strip_prefix("- ") else {
            continue;
        };
        let name = rest.split([' ', ':']).next().unwrap_or_default();
        let Some(full) = plugin.descriptions.get(name) else {
            continue;
        };
        any = true;
        let Some((_, description)) = rest.split_once("): ") else {
            continue;
        };
        let full = full.split_whitespace().collect::<Vec<_>>().join(" ");
        if description == full {
            return fail(
                "a fake tool's whole description is in the directory; its cut is not seen",
            );
        }
        longest = longest.max(description.chars().count());
        if ellipsis.is_none() {
            ellipsis = ["...", "…"]
                .into_iter()
                .find(|e| description.ends_with(e))
                .map(str::to_string);
        }
    }
    if !any {
        return fail("no fake tool is listed in the directory");
    }
    Ok((longest, ellipsis))
}

/// What the bound lane's directory has after its lines beyond the reference lane's: the count
/// of omitted tools and this label (the label returned; `None` when nothing was omitted).
fn omitted_label(reference: &str, bound: &str) -> Result<Option<String>, CaptureError> {
    if reference == bound {
        return Ok(None);
    }
    let prefix = reference
        .chars()
        .zip(bound.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let suffix = reference
        .chars()
        .rev()
        .zip(bound.chars().rev())
        .take(reference.chars().count() - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let inserted: String = bound
        .chars()
        .skip(prefix)
        .take(bound.chars().count() - prefix - suffix)
        .collect();
    if inserted.chars().count() + reference.chars().count() != bound.chars().count() {
        return fail(format!(
            "the bound lane's directory ends differently from the reference lane's, not only \
             by a count of omitted tools: {inserted:?}"
        ));
    }
    // The insertion may start inside the reference's text; the count is its first digits.
    let digits = inserted.trim_start_matches(|c: char| !c.is_ascii_digit());
    let lead = inserted.chars().count() - digits.chars().count();
    let label = digits.trim_start_matches(|c: char| c.is_ascii_digit());
    if digits.len() == label.len() {
        return fail(format!("no count of omitted tools in {inserted:?}"));
    }
    let shifted: String = inserted.chars().take(lead).collect();
    Ok(Some(format!("{label}{shifted}")))
}

/// The request's shape: streaming, the text before the user's own, the items after it.
fn read_request(body: &Value, prompt: &str) -> Result<RequestShape, CaptureError> {
    let input = body["input"].as_array().map(Vec::as_slice).unwrap_or(&[]);
    let Some(user) = input.iter().position(|i| i["role"] == "user") else {
        return fail("the first request has no user message");
    };
    let text = item_text(&input[user]);
    let Some(prefix) = text.strip_suffix(prompt) else {
        return fail(format!(
            "the user message {text:?} does not end with the scenario's prompt"
        ));
    };
    let extra_input = input[user + 1..]
        .iter()
        .map(|item| ExtraInput {
            role: item["role"].as_str().unwrap_or("user").to_string(),
            text: Text::Literal(item_text(item)),
        })
        .collect();
    Ok(RequestShape {
        stream: body["stream"] == true,
        user_prefix: Text::Literal(prefix.to_string()),
        extra_input,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_split_at_headings_and_find_lists() {
        let declared: BTreeSet<String> = ["a", "b"].map(String::from).into();
        let catalogued: BTreeSet<String> = ["x", "y"].map(String::from).into();
        let prompt =
            "intro\n## Tooling\nTools:\n- a: does a\n- b\nend\n### Deferred Tool Schemas\n\
                      List:\n- x (p): ex...\n- y (p)\n\nnote\n## Other\nbody";
        let sections = read_sections(prompt, &declared, &catalogued).unwrap();
        assert_eq!(sections.len(), 4);
        assert_eq!(sections[0].heading, None);
        assert_eq!(sections[0].text, Text::Literal("intro\n".into()));
        assert_eq!(sections[1].list, Some(ListKind::Tools));
        assert_eq!(sections[1].text, Text::Literal("Tools:\n".into()));
        assert_eq!(sections[1].after, Some(Text::Literal("end\n".into())));
        assert_eq!(sections[2].list, Some(ListKind::Directory));
        assert_eq!(sections[2].after, Some(Text::Literal("\nnote\n".into())));
        assert_eq!(sections[3].text, Text::Literal("body".into()));
    }

    #[test]
    fn the_omitted_label_is_what_the_bound_adds_after_its_count() {
        let reference = "\nNotice.\nUse the tools.\nTrailer.\n";
        let bound = "\nNotice.\n1034 more left out. Use the tools.\nTrailer.\n";
        assert_eq!(
            omitted_label(reference, bound).unwrap().as_deref(),
            Some(" more left out. ")
        );
        assert_eq!(omitted_label(reference, reference).unwrap(), None);
    }

    #[test]
    fn the_request_shape_is_prefix_and_extra_items() {
        let body = serde_json::json!({ "stream": true, "input": [
            { "role": "system", "content": [{ "type": "input_text", "text": "s" }] },
            { "role": "user", "content": [{ "type": "input_text", "text": "[Mon] hi there" }] },
            { "role": "user", "content": [{ "type": "input_text", "text": "context" }] }
        ] });
        let shape = read_request(&body, "hi there").unwrap();
        assert!(shape.stream);
        assert_eq!(shape.user_prefix, Text::Literal("[Mon] ".into()));
        assert_eq!(shape.extra_input.len(), 1);
        assert_eq!(shape.extra_input[0].text, Text::Literal("context".into()));
    }
}
