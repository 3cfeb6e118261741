//! The system prompt the gateway sends as the first input item (as OpenClaw does): a short
//! preamble and the list of declared tools, one line each, then (directory mode) the bounded
//! directory of deferred tools. Deterministic: sorted by name.
//!
//! That is the `spec` profile's surface; a captured profile ([`crate::profile`]) brings its own
//! prompt, control declarations and turn input, and the functions at the top choose.

use serde_json::Value;

use crate::catalog::FunctionDeclaration;

use crate::config::ToolSearchMode;
use crate::engine::directory::directory_block;
use crate::engine::Surface;
use crate::profile::Profile;

/// The provider `tools[]` of one turn under `profile`.
pub fn turn_declarations(
    profile: &Profile,
    surface: &Surface,
    required: &[String],
) -> Vec<FunctionDeclaration> {
    let declarations = crate::engine::directory::turn_declarations(surface, required);
    match profile.captured() {
        Some(captured) => captured.with_controls(declarations),
        None => declarations,
    }
}

/// The system prompt of a turn under `profile`; `declarations` is the turn's `tools[]`,
/// `context_window` the model's (a captured profile's directory may be bounded by it).
pub fn turn_system_prompt(
    profile: &Profile,
    surface: &Surface,
    declarations: &[FunctionDeclaration],
    context_window: Option<u64>,
) -> String {
    match profile.captured() {
        Some(captured) => {
            let names: Vec<String> = declarations.iter().map(|d| d.name.clone()).collect();
            captured.system_prompt(surface, &names, context_window)
        }
        None => system_prompt(surface),
    }
}

/// The turn's input items under `profile`.
pub fn turn_input(profile: &Profile, input: &[Value]) -> Vec<Value> {
    match profile.captured() {
        Some(captured) => captured.turn_input(input),
        None => input.to_vec(),
    }
}

const PREAMBLE: &str =
    "You are a personal assistant running inside the toolsearch-qa embedded gateway. \
Use the tools below when they help; answer plainly when they do not.";

const SUMMARY_CHARS: usize = 80;

/// The `spec` profile's system prompt for a run's surface.
pub fn system_prompt(surface: &Surface) -> String {
    let mut prompt = String::from(PREAMBLE);
    prompt.push_str("\n\n## Tools\n");
    let declarations = surface.declarations();
    if declarations.is_empty() {
        prompt.push_str("No tools are available.\n");
    }
    for declaration in &declarations {
        let (name, description) = (&declaration.name, &declaration.description);
        prompt.push_str(&format!("- {name}: {}\n", summary(description)));
    }
    match surface.mode {
        _ if surface.is_code_mode() => prompt.push_str(
            "\n## Code Mode\nMore tools are hidden in a catalogue. Write a JavaScript cell for exec: \
             find a tool with catalog.search, read its schema with describe() when needed, and call \
             it as an async global.\n",
        ),
        ToolSearchMode::Direct => {}
        ToolSearchMode::Code => prompt.push_str(
            "\n## Tool Search\nMore tools are hidden in a catalogue. Write JavaScript for tool_search_code to \
             search them and call the one you need.\n",
        ),
        ToolSearchMode::Tools | ToolSearchMode::Directory => prompt.push_str(
            "\n## Tool Search\nMore tools are hidden in a catalogue. Find one with tool_search, read its \
             schema with tool_describe when the signature is not enough, and run it with tool_call.\n",
        ),
    }
    if let (ToolSearchMode::Directory, Some(run)) = (surface.mode, &surface.run) {
        prompt.push('\n');
        prompt.push_str(&directory_block(run.catalog()));
    }
    prompt
}

/// The first sentence of a description, cut to a bounded length on a character boundary.
fn summary(description: &str) -> String {
    let collapsed = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let first = collapsed
        .split_inclusive(". ")
        .next()
        .unwrap_or("")
        .trim_end()
        .to_string();
    if first.chars().count() <= SUMMARY_CHARS {
        first
    } else {
        let cut: String = first.chars().take(SUMMARY_CHARS - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::summary;

    #[test]
    fn summary_takes_the_first_sentence_and_bounds_it() {
        assert_eq!(
            summary("Fake plugin tool 3. It proves things."),
            "Fake plugin tool 3."
        );
        assert_eq!(summary("  many   spaces  "), "many spaces");
        assert_eq!(summary(&"x".repeat(200)).chars().count(), 80);
    }
}
