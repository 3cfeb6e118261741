//! The docs tell the truth where it can be checked: the README's exit-code table is the one the
//! binary uses.

use toolsearch_qa::error::Exit;

/// `| code | meaning | …` rows of the README's exit-code table.
fn readme_exit_codes() -> Vec<(u8, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code = cells.get(1)?.parse::<u8>().ok()?;
            Some((code, cells.get(2)?.to_string()))
        })
        .collect()
}

#[test]
fn the_readme_exit_code_table_is_the_binary_s() {
    let want: Vec<(u8, String)> = Exit::TABLE
        .iter()
        .map(|(code, meaning)| (*code, meaning.to_string()))
        .collect();
    assert_eq!(readme_exit_codes(), want);
}
