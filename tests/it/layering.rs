//! Layering: no import cycle among the top-level modules, so each room can be read, tested and
//! moved from the ground floor up. The room list is read from `src/lib.rs` (its `pub mod` lines);
//! a room reaches another when one of its files names `crate::<room>` in code, in a `use` or a
//! path. Comments, doc links and string literals do not count; test modules do (test code may not
//! reach up either). Rooms name each other by `crate::` paths only, never by `super::` past their
//! own root.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::{Path, PathBuf};

/// Edges (importing room, imported room) left out of the search while issue #50 moves the suite's
/// lane driver out of `suite/`; issue #50 empties this list. An edge here that no longer exists
/// fails the test, so the list only shrinks.
const PENDING: &[(&str, &str)] = &[];

/// Room → room it imports → one file that makes the edge.
pub(super) type Graph = BTreeMap<String, BTreeMap<String, PathBuf>>;

#[test]
fn no_import_cycle_between_top_level_modules() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut graph = room_graph(root);
    for (from, to) in PENDING {
        let removed = graph.get_mut(*from).and_then(|edges| edges.remove(*to));
        assert!(
            removed.is_some(),
            "PENDING names {from} → {to}, which no file makes any more: remove it from the list"
        );
    }
    let found = cycles(&edges_of(&graph));
    let report: Vec<String> = found.iter().map(|c| describe(c, &graph)).collect();
    assert!(
        report.is_empty(),
        "top-level modules import each other in a circle (layers import downward only):\n{}",
        report.join("\n")
    );
}

#[test]
fn the_room_list_comes_from_lib_rs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rooms = rooms(&read(&root.join("src/lib.rs")));
    for room in ["error", "protocol", "catalog", "scenario", "suite"] {
        assert!(rooms.iter().any(|r| r == room), "{room} not in {rooms:?}");
    }
    let graph = room_graph(root);
    assert!(
        graph["gateway"].contains_key("engine"),
        "the scan found no gateway → engine edge: it reads no imports"
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_names_its_files() {
    let mut graph = Graph::new();
    let mut edge = |from: &str, to: &str| {
        graph
            .entry(from.to_string())
            .or_default()
            .insert(to.to_string(), PathBuf::from(format!("src/{from}/x.rs")));
    };
    edge("a", "b");
    edge("b", "c");
    edge("c", "d");
    edge("d", "b");
    edge("a", "e");
    let found = cycles(&edges_of(&graph));
    assert_eq!(found, vec![vec!["b", "c", "d"]]);
    let text = describe(&found[0], &graph);
    assert!(text.contains("b → c (src/b/x.rs)"), "{text}");
    assert!(text.contains("d → b (src/d/x.rs)"), "{text}");

    graph.get_mut("d").unwrap().remove("b");
    assert!(cycles(&edges_of(&graph)).is_empty());
}

#[test]
fn only_code_counts_as_a_reference() {
    let text = r##"
//! Reaches [`crate::doc_only`].
use crate::{alpha::{One, Two}, beta, self};
use crate::gamma::Three;
/* crate::block /* nested crate::inner */ still comment */
fn f<'a>(x: &'a str) -> char {
    let _ = "crate::in_string";
    let _ = r#"crate::raw " string"#;
    let _ = b"crate::bytes";
    let _ = crate::delta::call(x); // crate::line_comment
    let _ = mycrate::not_ours;
    '"'
}
"##;
    let refs = crate_refs(&code_only(text));
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(refs, ["alpha", "beta", "delta", "gamma"]);
}

/// The rooms `src/lib.rs` declares with `pub mod name;`.
fn rooms(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.trim().strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(|name| name.trim().to_string())
        .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every room's imports of the other rooms, each edge with the first file (in path order) that
/// makes it, relative to the crate root.
pub(super) fn room_graph(root: &Path) -> Graph {
    let rooms = rooms(&read(&root.join("src/lib.rs")));
    let mut graph = Graph::new();
    for room in &rooms {
        let edges = graph.entry(room.clone()).or_default();
        for file in room_files(&root.join("src"), room) {
            for target in crate_refs(&code_only(&read(&file))) {
                if &target != room && rooms.contains(&target) {
                    let relative = file.strip_prefix(root).unwrap_or(&file).to_path_buf();
                    edges.entry(target).or_insert(relative);
                }
            }
        }
    }
    graph
}

/// `src/<room>.rs` and every `.rs` file under `src/<room>/`, sorted.
fn room_files(src: &Path, room: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let single = src.join(format!("{room}.rs"));
    if single.is_file() {
        files.push(single);
    }
    let mut dirs = vec![src.join(room)];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The source with comments removed and string and character literals emptied, so only code is
/// left to scan.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    while i < chars.len() {
        let c = chars[i];
        if c == '/' && at(i + 1) == '/' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    if chars[i] == '\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
            }
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if (c == 'r' || (c == 'b' && at(i + 1) == 'r'))
            && (i == 0 || !ident(chars[i - 1]))
            && {
                let start = if c == 'r' { i + 1 } else { i + 2 };
                let mut j = start;
                while at(j) == '#' {
                    j += 1;
                }
                at(j) == '"'
            }
        {
            // A raw string: r"…", r#"…"#, br"…".
            i += if c == 'r' { 1 } else { 2 };
            let mut hashes = 0;
            while at(i) == '#' {
                hashes += 1;
                i += 1;
            }
            i += 1;
            loop {
                if i >= chars.len() {
                    break;
                }
                if chars[i] == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    i += 1 + hashes;
                    break;
                }
                i += 1;
            }
            out.push_str("\"\"");
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}') or a lifetime ('a).
            if at(i + 1) == '\\' {
                i += 2;
                while i < chars.len() && chars[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push_str("' '");
            } else if at(i + 2) == '\'' {
                i += 3;
                out.push_str("' '");
            } else {
                out.push(c);
                i += 1;
            }
        } else if ident(c) {
            while i < chars.len() && ident(chars[i]) {
                out.push(chars[i]);
                i += 1;
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The first segment of every `crate::` path in `code`: `crate::a::B` gives `a`, and
/// `crate::{a::B, c}` gives `a` and `c`.
fn crate_refs(code: &str) -> BTreeSet<String> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let first_ident =
        |s: &str| -> String { s.trim_start().chars().take_while(|c| ident(*c)).collect() };
    let mut refs = BTreeSet::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].chars().next_back().is_some_and(ident) {
            continue;
        }
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut item_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 1 => item_start = true,
                    c if depth == 1 && item_start && ident(c) => {
                        refs.insert(first_ident(&group[k..]));
                        item_start = false;
                    }
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        } else {
            refs.insert(first_ident(rest));
        }
    }
    refs.remove("self");
    refs.remove("");
    refs
}

fn edges_of(graph: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    graph
        .iter()
        .map(|(from, to)| (from.clone(), to.keys().cloned().collect()))
        .collect()
}

/// One cycle per strongly connected component of more than one room: the shortest circle from
/// the component's first room (by name) back to it.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct Tarjan<'g> {
        edges: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        components: Vec<BTreeSet<String>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            for w in self.edges.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.stack.contains(&w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.components.push(component);
                }
            }
        }
    }
    let mut tarjan = Tarjan {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        components: Vec::new(),
    };
    for v in edges.keys() {
        if !tarjan.index.contains_key(v.as_str()) {
            tarjan.visit(v);
        }
    }
    let mut components = tarjan.components;
    components.sort();
    components
        .iter()
        .map(|component| shortest_circle(edges, component))
        .collect()
}

/// The shortest path from the component's first room back to it, inside the component.
fn shortest_circle(
    edges: &BTreeMap<String, BTreeSet<String>>,
    component: &BTreeSet<String>,
) -> Vec<String> {
    let start = component.first().expect("a component has a room").clone();
    let mut came_from: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = VecDeque::from([start.clone()]);
    while let Some(v) = queue.pop_front() {
        for w in edges.get(&v).into_iter().flatten() {
            if !component.contains(w) {
                continue;
            }
            if *w == start {
                let mut path = vec![v.clone()];
                while let Some(prev) = came_from.get(path.last().unwrap()) {
                    path.push(prev.clone());
                }
                path.reverse();
                return path;
            }
            if !came_from.contains_key(w) && *w != start {
                came_from.insert(w.clone(), v.clone());
                queue.push_back(w.clone());
            }
        }
    }
    unreachable!("a strongly connected component has a circle through each room")
}

/// `  a → b (file)` per edge of the circle.
fn describe(cycle: &[String], graph: &Graph) -> String {
    let mut lines = vec![format!("cycle {}:", cycle.join(" → "))];
    for (k, from) in cycle.iter().enumerate() {
        let to = &cycle[(k + 1) % cycle.len()];
        let file = &graph[from][to];
        lines.push(format!("  {from} → {to} ({})", file.display()));
    }
    lines.join("\n")
}
