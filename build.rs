//! Build script: the built-in scenarios are every `scenarios/*.toml`, compiled into the binary.
//! Adding one is dropping a file there; no Rust to edit.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("scenarios/ is readable")
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    let mut table = String::from("&[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 file name");
        writeln!(
            table,
            "    ({:?}, include_str!({:?})),",
            format!("scenarios/{name}"),
            path.display().to_string()
        )
        .expect("writing to a string");
    }
    table.push(']');
    let out =
        Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR is set")).join("builtin_scenarios.rs");
    std::fs::write(out, table).expect("OUT_DIR is writable");
}
