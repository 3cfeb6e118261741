//! Build script: the built-in scenarios (`scenarios/*.toml`) are compiled into the binary, and so
//! is a fallback copy of the release data (accepted findings `expectations/*.toml`, profiles
//! `data/profiles/*.toml` and their Code Mode captures `data/profiles/code-mode/*.toml`, release
//! facts `data/releases/*.toml`, the product's search baselines
//! `data/search-quality-baseline-openclaw-*.json`, the product seeds `data/product-seeds/*.toml`),
//! which a run reads from its data root at run
//! time (src/data_root.rs): this copy serves a binary run outside a checkout. Adding a scenario is
//! dropping a file there; no Rust to edit.

use std::fmt::Write as _;
use std::path::Path;

/// Writes `$OUT_DIR/<out>`: a `&[(&str, &str)]` of `(<dir>/<file name>, contents)` for every
/// file in `<dir>` whose name `keep` accepts, sorted by file name.
fn embed(dir: &str, out: &str, keep: fn(&str) -> bool) {
    // Read at run time: a build script compiled in another checkout (a copied target/) must
    // still embed this checkout's files.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let path = Path::new(&root).join(dir);
    println!("cargo:rerun-if-changed={}", path.display());
    // An unreadable directory is a failed build, never an empty table: a binary without its
    // built-in scenarios or profiles must not exist.
    let entries =
        std::fs::read_dir(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut files: Vec<_> = entries
        .map(|entry| entry.unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display())))
        .map(|entry| entry.path())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(keep))
        .collect();
    files.sort();
    let mut table = String::from("&[\n");
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a UTF-8 file name");
        writeln!(
            table,
            "    ({:?}, include_str!({:?})),",
            format!("{dir}/{name}"),
            file.display().to_string()
        )
        .expect("writing to a string");
    }
    table.push(']');
    let out_dir = std::env::var("OUT_DIR").expect("OUT_DIR is set");
    std::fs::write(Path::new(&out_dir).join(out), table).expect("OUT_DIR is writable");
}

fn toml(name: &str) -> bool {
    name.ends_with(".toml")
}

fn product_baseline(name: &str) -> bool {
    name.starts_with("search-quality-baseline-openclaw-") && name.ends_with(".json")
}

fn main() {
    embed("scenarios", "builtin_scenarios.rs", toml);
    embed("expectations", "builtin_expectations.rs", toml);
    embed("data/profiles", "builtin_profiles.rs", toml);
    embed(
        "data/profiles/code-mode",
        "builtin_code_mode_profiles.rs",
        toml,
    );
    embed("data/releases", "builtin_releases.rs", toml);
    embed("data", "builtin_baselines.rs", product_baseline);
    embed("data/product-seeds", "builtin_product_seeds.rs", toml);
}
