//! R1, ranking: a search finds the target among look-alike tools within its limit. Every other
//! claim's search asks for the target by its exact name with limit 1, which any ranker answers;
//! a ranker that sorted worst-first would stay green on all of them. R1 reads every successful
//! `tool_search` result of a lane whose scripted searches are natural-language queries with a
//! small limit (`scenarios/tool-search-ranking.toml`): each must list the target.

use regex::Regex;

use super::fail_closed::contains_word;
use super::{check, names, Check, ClaimInput};

/// The tool names a search result lists (`"name": "…"`, however the target spaces its JSON).
pub(super) fn listed(output: &str) -> Vec<String> {
    let Ok(name) = Regex::new(r#""name"\s*:\s*"([^"\\]+)""#) else {
        return Vec::new();
    };
    name.captures_iter(output)
        .map(|c| c[1].to_string())
        .collect()
}

pub fn r1_target_ranked(input: &ClaimInput<'_>) -> Vec<Check> {
    let (tool, o) = (input.tool(), input.lane);
    let search = &input.lane.bridge.search;
    let results: Vec<String> = o
        .tool_results()
        .filter(|r| r.tool_name() == search && !r.is_error())
        .map(|r| r.output_text())
        .collect();
    if results.is_empty() {
        return vec![check(
            "searched",
            false,
            "at least one successful tool_search result",
            "none",
        )];
    }
    results
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let n = i + 1;
            check(
                format!("search {n} ranks"),
                contains_word(text, tool),
                format!("search {n} lists {tool} within its limit"),
                format!("it lists {}", names(&listed(text))),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::listed;

    #[test]
    fn listed_reads_names_however_spaced() {
        let text = "[{\"name\": \"a_1\", \"id\": \"x\"}, {\"name\":\"b_2\"}]";
        assert_eq!(listed(text), ["a_1", "b_2"]);
    }
}
