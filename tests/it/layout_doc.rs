//! docs/layout.md tells the truth where it can be checked: it names every room `src/lib.rs`
//! declares and no room that does not exist, each room imports only rooms on a lower floor than
//! the page gives it, and every repository path it names (its recipes' too) and every page it
//! links exists. A path with a placeholder (`openclaw-<v>.toml`, `<family>.rs`, `upstream-*.toml`)
//! must match at least one file of its folder.

use std::collections::BTreeMap;
use std::path::Path;

use super::layering::room_graph;

const PAGE: &str = "docs/layout.md";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(relative: &str) -> String {
    let path = root().join(relative);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rooms `src/lib.rs` declares with `pub mod name;`.
fn lib_rooms() -> Vec<String> {
    read("src/lib.rs")
        .lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(|name| name.trim().to_string())
        .collect()
}

/// The page's code spans (the text between backquotes), in order.
fn code_spans(page: &str) -> Vec<&str> {
    page.split('`').skip(1).step_by(2).collect()
}

/// The rows of the floor table: `| floor | `src/<room>` | … |` → (room path, floor).
fn floor_table(page: &str) -> Vec<(String, u32)> {
    page.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
            let floor = cells.first()?.strip_prefix("| ")?.parse::<u32>().ok()?;
            let room = cells.get(1)?.strip_prefix('`')?.strip_suffix('`')?;
            Some((room.to_string(), floor))
        })
        .collect()
}

/// `src/<name>`, `src/<name>/` or `src/<name>.rs` → `<name>`.
fn room_name(path: &str) -> Option<&str> {
    let name = path.strip_prefix("src/")?.trim_end_matches('/');
    let name = name.strip_suffix(".rs").unwrap_or(name);
    (!name.is_empty() && !name.contains('/')).then_some(name)
}

/// The folders and files at the repository's top that a path on the page may start with.
const TOP: &[&str] = &[
    "src",
    "scenarios",
    "data",
    "expectations",
    "snapshots",
    "benches",
    "tests",
    ".ci",
    ".config",
    "scripts",
    "docs",
];

/// The repository paths among the page's code spans: a span's first word, when it starts with
/// one of [`TOP`]'s folders.
fn repository_paths(page: &str) -> Vec<&str> {
    code_spans(page)
        .into_iter()
        .filter_map(|span| span.split_whitespace().next())
        .filter(|word| {
            word.split_once('/')
                .is_some_and(|(first, _)| TOP.contains(&first))
        })
        .collect()
}

/// Does `name` match `pattern`, where `<anything>` and `*` stand for any text?
fn matches(pattern: &str, name: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = pattern;
    loop {
        let next = [rest.find('<'), rest.find('*')].into_iter().flatten().min();
        let Some(at) = next else {
            literals.push(rest);
            break;
        };
        literals.push(&rest[..at]);
        rest = if rest[at..].starts_with('<') {
            rest[at..].split_once('>').map_or("", |(_, after)| after)
        } else {
            &rest[at + 1..]
        };
    }
    let (first, last) = (literals[0], literals[literals.len() - 1]);
    if literals.len() == 1 {
        return name == first;
    }
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut middle = &name[first.len()..name.len() - last.len()];
    for literal in &literals[1..literals.len() - 1] {
        match middle.find(literal) {
            Some(at) => middle = &middle[at + literal.len()..],
            None => return false,
        }
    }
    true
}

/// Why `path` (relative to the repository) names nothing, or `None` when it does. A segment
/// with a placeholder must match an entry of the folder before it; the segments after it are
/// not checked (they depend on which entry is meant).
fn missing(path: &str) -> Option<String> {
    let wants_dir = path.ends_with('/');
    let segments: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    let mut at = root().to_path_buf();
    for (k, segment) in segments.iter().enumerate() {
        let folder = segments[..k].join("/");
        if segment.contains('<') || segment.contains('*') {
            let entries = match std::fs::read_dir(&at) {
                Ok(entries) => entries,
                Err(e) => return Some(format!("{folder}/: {e}")),
            };
            let found = entries
                .filter_map(Result::ok)
                .any(|e| matches(segment, &e.file_name().to_string_lossy()));
            return (!found).then(|| format!("nothing in {folder}/ matches {segment}"));
        }
        at.push(segment);
        if k + 1 < segments.len() && !at.is_dir() {
            return Some(format!("no folder {}/", segments[..=k].join("/")));
        }
    }
    match (at.exists(), wants_dir, at.is_dir()) {
        (false, _, _) => Some("does not exist".to_string()),
        (true, true, false) => Some("is not a folder".to_string()),
        _ => None,
    }
}

#[test]
fn the_page_names_every_room_and_only_rooms_that_exist() {
    let page = read(PAGE);
    let table = floor_table(&page);
    let named: Vec<&str> = table.iter().filter_map(|(p, _)| room_name(p)).collect();
    let rooms = lib_rooms();
    let left_out: Vec<&String> = rooms
        .iter()
        .filter(|r| !named.contains(&r.as_str()))
        .collect();
    assert!(
        left_out.is_empty(),
        "{PAGE} leaves out rooms src/lib.rs declares: {left_out:?} (add a row to its floor table)"
    );
    let unknown: Vec<&(String, u32)> = table
        .iter()
        .filter(|(path, _)| {
            path != "src/main.rs" && room_name(path).is_none_or(|n| !rooms.iter().any(|r| r == n))
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "{PAGE}'s floor table names rooms src/lib.rs does not declare: {unknown:?}"
    );
    let absent: Vec<String> = table
        .iter()
        .filter_map(|(path, _)| missing(path).map(|why| format!("{path}: {why}")))
        .collect();
    assert!(
        absent.is_empty(),
        "{PAGE} names rooms that do not exist:\n{}",
        absent.join("\n")
    );
}

#[test]
fn every_room_imports_only_rooms_on_a_lower_floor() {
    let page = read(PAGE);
    let floors: BTreeMap<String, u32> = floor_table(&page)
        .iter()
        .filter_map(|(path, floor)| Some((room_name(path)?.to_string(), *floor)))
        .collect();
    let mut wrong = Vec::new();
    for (room, edges) in room_graph(root()) {
        let Some(floor) = floors.get(&room) else {
            continue; // the test above names it
        };
        for (imported, file) in edges {
            match floors.get(&imported) {
                Some(below) if below < floor => {}
                other => wrong.push(format!(
                    "{room} (floor {floor}) imports {imported} (floor {}) in {}",
                    other.map_or("?".to_string(), u32::to_string),
                    file.display()
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "layers import downward only; {PAGE}'s floors say otherwise (move the import, or the \
         room to its right floor):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_path_and_link_on_the_page_exists() {
    let page = read(PAGE);
    let mut absent: Vec<String> = repository_paths(&page)
        .into_iter()
        .filter_map(|path| missing(path).map(|why| format!("{path}: {why}")))
        .collect();
    // Links to other pages, relative to docs/.
    for (_, rest) in page
        .match_indices("](")
        .map(|(at, _)| page.split_at(at + 2))
    {
        let target = rest.split(')').next().unwrap_or_default();
        let file = target.split('#').next().unwrap_or_default();
        if file.is_empty() || file.contains("://") {
            continue;
        }
        if let Some(why) = missing(&format!("docs/{file}")) {
            absent.push(format!("link {target}: {why}"));
        }
    }
    absent.sort();
    absent.dedup();
    assert!(
        absent.is_empty(),
        "{PAGE} names paths that do not exist:\n{}",
        absent.join("\n")
    );
}

#[test]
fn lib_rs_names_every_room_and_points_at_the_page() {
    let lib = read("src/lib.rs");
    let doc: String = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//!"))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        doc.contains(PAGE),
        "src/lib.rs's doc does not point at {PAGE}"
    );
    let spans = code_spans(&doc);
    let left_out: Vec<String> = lib_rooms()
        .into_iter()
        .filter(|room| !spans.contains(&room.as_str()))
        .collect();
    assert!(
        left_out.is_empty(),
        "src/lib.rs's doc leaves out rooms: {left_out:?}"
    );
}

#[test]
fn the_checks_read_what_they_should() {
    assert!(matches("openclaw-<v>.toml", "openclaw-2026.9.6.toml"));
    assert!(matches("upstream-*.toml", "upstream-search-no-match.toml"));
    assert!(!matches("openclaw-<v>.toml", "openclaw-2026.9.6.run.json"));
    assert!(matches(
        "search-quality-baseline*.json",
        "search-quality-baseline.json"
    ));
    assert!(missing("src/suite/claims/<family>.rs").is_none());
    assert!(missing("src/suite/claims/nowhere.rs").is_some());
    assert!(missing("src/lib.rs/").is_some(), "a file is no folder");
    assert!(missing("snapshots/openclaw-<v>/").is_none());
    let page =
        "a `src/a.rs` and `toolsearch-qa adopt` and `scripts/x.sh --flag <v>` and\n`data/y.toml`";
    assert_eq!(
        repository_paths(page),
        ["src/a.rs", "scripts/x.sh", "data/y.toml"]
    );
    let table = "| floor | room | owns |\n|---|---|---|\n| 0 | `src/error.rs` | errors |\n| 14 | `src/cli` | the clap structs |";
    assert_eq!(
        floor_table(table),
        [("src/error.rs".to_string(), 0), ("src/cli".to_string(), 14)]
    );
}
