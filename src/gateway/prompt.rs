//! The system prompt the gateway sends as the first input item (as OpenClaw does): a short
//! preamble and the list of declared tools, one line each, then (directory mode) the bounded
//! directory of deferred tools. Deterministic: sorted by name.

use crate::config::ToolSearchMode;
use crate::engine::directory::directory_block;
use crate::engine::Surface;

const PREAMBLE: &str =
    "You are a personal assistant running inside the toolsearch-qa embedded gateway. \
Use the tools below when they help; answer plainly when they do not.";

const SUMMARY_CHARS: usize = 80;

/// Builds the system prompt for a run's surface.
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
