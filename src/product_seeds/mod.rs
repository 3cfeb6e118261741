//! Product seeds: a bug as filed, put back into a copy of an installed OpenClaw release by a
//! patch kept as data (`data/product-seeds/<name>.toml`), so a replay can be proven to turn red on
//! the bug it is named for, not only on a regression the harness could seed by config. This module
//! is the file model (every problem is exit 2 with file, line and field); [`apply`] makes the
//! patched copy.

pub mod apply;

use std::fmt;

use serde::Deserialize;

use crate::data_root::{DataFile, DataKind, DataRoot};
use crate::error::{Error, Exit};
use crate::scenario::claim::ClaimId;
use crate::scenario::place::{deserialize_toml, Field, Places};

pub use apply::{SeededCopy, SEED_DIR_PREFIX};

/// One product seed, as loaded and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductSeed {
    /// The file name without `.toml`: the seed's name in reports and on `--seed`.
    pub name: String,
    /// Where it was read (`data/product-seeds/<name>.toml`).
    pub origin: String,
    /// The upstream issue (openclaw/openclaw), or `None` for a seed that proves a claim.
    pub issue: Option<u32>,
    /// The built-in scenario it must turn red.
    pub scenario: String,
    /// The claims the bug turns red, of which one must fail: caught is red with one of these
    /// (as a packed build, `selftest --packed`: with these and no other claim).
    pub claims: Vec<ClaimId>,
    /// The scenario's lanes the seed runs (empty: every lane), so a run pays only for the lanes
    /// that replay the bug.
    pub lanes: Vec<String>,
    /// The release the patch was written against (`2026.9.6`).
    pub release: String,
    /// The bug as filed, in our words.
    pub why: String,
    pub patches: Vec<Patch>,
}

/// One text replacement in one file of the package.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// The installed package the file is in (`node_modules/<package>`): `openclaw` unless the
    /// bug lives in a package the product ships beside itself (`@openclaw/ai`).
    pub package: String,
    /// A path under that package's root; `*` in its last part matches any run of characters
    /// but `/`. It must match exactly one file.
    pub file: String,
    /// Exact text that must occur exactly `count` times in that file.
    pub find: String,
    pub replace: String,
    pub count: usize,
}

/// A seed file that cannot be used, or a patch that does not fit its release: exit 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SeedError {
    /// The file itself: `origin:line: field: message`.
    #[error("{origin}:{line}: {field}: {message}")]
    File {
        origin: String,
        line: usize,
        field: String,
        message: String,
    },
    /// A patch's `file` glob matched no file, or more than one.
    #[error("product seed {seed}: patch[{index}].file {pattern:?} matches {found} files under {root} (expected exactly 1){listing}")]
    Glob {
        seed: String,
        index: usize,
        pattern: String,
        root: String,
        found: usize,
        listing: String,
    },
    /// A patch's `find` does not occur exactly `count` times.
    #[error("product seed {seed}: patch[{index}].find occurs {found} times in {file} (expected {count})")]
    Count {
        seed: String,
        index: usize,
        file: String,
        count: usize,
        found: usize,
    },
    /// A seed name that no file has.
    #[error("no product seed is named {name} (seeds: {known})")]
    Unknown { name: String, known: String },
}

impl crate::error::Owned for SeedError {
    fn exit_code(&self) -> u8 {
        Exit::USAGE
    }
}

impl From<SeedError> for Error {
    fn from(e: SeedError) -> Error {
        Error::Scenario(crate::error::Cause::new(e))
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SeedFile {
    #[serde(default)]
    issue: Option<u32>,
    scenario: String,
    claims: Vec<String>,
    #[serde(default)]
    lanes: Vec<String>,
    release: String,
    why: String,
    patch: Vec<PatchFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchFile {
    #[serde(default = "product")]
    package: String,
    file: String,
    find: String,
    replace: String,
    #[serde(default = "one")]
    count: usize,
}

fn one() -> usize {
    1
}

/// The package a patch applies to unless it names another.
pub const PRODUCT_PACKAGE: &str = "openclaw";

fn product() -> String {
    PRODUCT_PACKAGE.to_string()
}

impl ProductSeed {
    /// Parses and checks one seed file written at `origin`, named `name`; `scenarios` are the
    /// scenarios a seed may name (the built-in ones), each with its lanes.
    pub fn parse(
        text: &str,
        origin: &str,
        name: &str,
        scenarios: &[(&str, Vec<&str>)],
    ) -> Result<ProductSeed, SeedError> {
        let places = Places::new(text);
        let error = |field: &str, line: Option<usize>, message: String| SeedError::File {
            origin: origin.to_string(),
            line: line
                .or_else(|| places.of(&Field::of(field)).map(|p| p.line))
                .unwrap_or(1),
            field: field.to_string(),
            message,
        };
        let file: SeedFile = deserialize_toml(text, &places).map_err(|p| {
            let field = if p.field == "." { "(file)" } else { &p.field };
            error(field, p.line, p.message)
        })?;
        let Some((_, lanes)) = scenarios.iter().find(|(id, _)| *id == file.scenario) else {
            return Err(error(
                "scenario",
                None,
                format!("{:?} is not a built-in scenario", file.scenario),
            ));
        };
        for (i, lane) in file.lanes.iter().enumerate() {
            if !lanes.contains(&lane.as_str()) {
                return Err(error(
                    &format!("lanes[{i}]"),
                    None,
                    format!(
                        "{} has no lane {lane:?} (lanes: {})",
                        file.scenario,
                        lanes.join(", ")
                    ),
                ));
            }
        }
        let mut claims = Vec::new();
        for (i, id) in file.claims.iter().enumerate() {
            let claim = ClaimId::from_name(id).ok_or_else(|| {
                error(
                    &format!("claims[{i}]"),
                    None,
                    format!("{id:?} is not a claim id"),
                )
            })?;
            claims.push(claim);
        }
        if claims.is_empty() {
            return Err(error("claims", None, "names no claim".into()));
        }
        if !is_version(&file.release) {
            return Err(error(
                "release",
                None,
                format!("{:?} is not a release (YYYY.M.D)", file.release),
            ));
        }
        if file.why.trim().is_empty() {
            return Err(error("why", None, "is empty".into()));
        }
        if file.patch.is_empty() {
            return Err(error("patch", None, "no [[patch]]".into()));
        }
        let mut patches = Vec::new();
        for (i, p) in file.patch.into_iter().enumerate() {
            let at = |key: &str| format!("patch[{i}].{key}");
            if let Some(problem) = package_problem(&p.package) {
                return Err(error(&at("package"), None, problem));
            }
            if let Some(problem) = pattern_problem(&p.file) {
                return Err(error(&at("file"), None, problem));
            }
            if p.find.is_empty() {
                return Err(error(&at("find"), None, "is empty".into()));
            }
            if p.find == p.replace {
                return Err(error(&at("replace"), None, "equals find".into()));
            }
            if p.count == 0 {
                return Err(error(&at("count"), None, "must be at least 1".into()));
            }
            patches.push(Patch {
                package: p.package,
                file: p.file,
                find: p.find,
                replace: p.replace,
                count: p.count,
            });
        }
        Ok(ProductSeed {
            name: name.to_string(),
            origin: origin.to_string(),
            issue: file.issue,
            scenario: file.scenario,
            claims,
            lanes: file.lanes,
            release: file.release,
            why: file.why,
            patches,
        })
    }

    /// `seed NAME (openclaw/openclaw#N)`, as a run names what it drives.
    pub fn label(&self) -> String {
        match self.issue {
            Some(n) => format!("{} (openclaw/openclaw#{n})", self.name),
            None => self.name.clone(),
        }
    }
}

impl fmt::Display for ProductSeed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

/// Why a patch's `package` cannot be used: not an npm package name (`name` or `@scope/name`,
/// lower case, no `.` first), so it can only name a directory right under `node_modules`.
fn package_problem(package: &str) -> Option<String> {
    let part = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'-' | b'_' | b'.')
            })
    };
    let ok = match package.strip_prefix('@') {
        Some(scoped) => scoped
            .split_once('/')
            .is_some_and(|(scope, name)| part(scope) && part(name)),
        None => part(package),
    };
    (!ok).then(|| format!("{package:?} is not a package name (`name` or `@scope/name`)"))
}

/// Why a patch's `file` cannot be used: absolute, `..`, empty, or `*` outside its last part.
fn pattern_problem(pattern: &str) -> Option<String> {
    let parts: Vec<&str> = pattern.split('/').collect();
    if pattern.starts_with('/') || parts.iter().any(|p| p.is_empty() || *p == "..") {
        return Some(format!(
            "{pattern:?} must be a relative path under the package root, without `..`"
        ));
    }
    if parts[..parts.len() - 1].iter().any(|p| p.contains('*')) {
        return Some(format!("{pattern:?}: `*` only in the file name"));
    }
    None
}

fn is_version(text: &str) -> bool {
    let parts: Vec<&str> = text.split('.').collect();
    parts.len() == 3
        && parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
}

/// Every product seed of `root` (`data/product-seeds/*.toml`), sorted by name.
pub fn load(root: &DataRoot) -> Result<Vec<ProductSeed>, Error> {
    let files = root
        .files(DataKind::ProductSeeds)
        .map_err(|e| Error::Usage(e.to_string()))?;
    let known = crate::scenario::load_all(&[])?;
    let ids: Vec<(&str, Vec<&str>)> = known
        .iter()
        .map(|s| {
            (
                s.id.as_str(),
                s.lanes.iter().map(|l| l.name.as_str()).collect(),
            )
        })
        .collect();
    files
        .iter()
        .map(|f| parse_file(f, &ids).map_err(Error::from))
        .collect()
}

fn parse_file(file: &DataFile, scenarios: &[(&str, Vec<&str>)]) -> Result<ProductSeed, SeedError> {
    let name = file.name.trim_end_matches(".toml");
    ProductSeed::parse(&file.text, &file.origin, name, scenarios)
}

/// The seeds named in `names` (every seed when empty); a name no seed has is an error listing
/// the names there are.
pub fn pick(all: &[ProductSeed], names: &[String]) -> Result<Vec<ProductSeed>, SeedError> {
    if names.is_empty() {
        return Ok(all.to_vec());
    }
    let mut picked = Vec::new();
    for name in names {
        match all.iter().find(|s| s.name == *name) {
            Some(seed) => picked.push(seed.clone()),
            None => {
                return Err(SeedError::Unknown {
                    name: name.clone(),
                    known: all
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
            }
        }
    }
    Ok(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenarios() -> Vec<(&'static str, Vec<&'static str>)> {
        vec![("upstream-search-no-match", vec!["tools", "directory"])]
    }

    const GOOD: &str = r#"issue = 114285
scenario = "upstream-search-no-match"
claims = ["S1"]
lanes = ["tools"]
release = "2026.9.6"
why = "a query with no usable term scored every tool"

[[patch]]
file = "dist/local-model-lean-*.mjs"
find = "a"
replace = "b"
"#;

    fn parse(text: &str) -> Result<ProductSeed, SeedError> {
        ProductSeed::parse(text, "data/product-seeds/x.toml", "x", &scenarios())
    }

    fn file_error(text: &str) -> (usize, String, String) {
        match parse(text) {
            Err(SeedError::File {
                line,
                field,
                message,
                ..
            }) => (line, field, message),
            other => panic!("expected a file error, got {other:?}"),
        }
    }

    #[test]
    fn a_good_file_loads() {
        let seed = parse(GOOD).unwrap();
        assert_eq!(seed.issue, Some(114285));
        assert_eq!(seed.claims, vec![ClaimId::S1]);
        assert_eq!(seed.lanes, vec!["tools"]);
        assert_eq!(seed.patches.len(), 1);
        assert_eq!(seed.patches[0].count, 1);
        assert_eq!(seed.patches[0].package, "openclaw");
        let beside =
            parse(&GOOD.replace("[[patch]]\n", "[[patch]]\npackage = \"@openclaw/ai\"\n")).unwrap();
        assert_eq!(beside.patches[0].package, "@openclaw/ai");
        assert_eq!(seed.label(), "x (openclaw/openclaw#114285)");
    }

    #[test]
    fn each_problem_names_its_line_and_field() {
        let (line, field, message) = file_error(&GOOD.replace("[\"S1\"]", "[\"S9\"]"));
        assert_eq!((line, field.as_str()), (3, "claims[0]"));
        assert_eq!(message, "\"S9\" is not a claim id");

        let (line, field, _) = file_error(&GOOD.replace("upstream-search-no-match", "nope"));
        assert_eq!((line, field.as_str()), (2, "scenario"));

        let (line, field, message) = file_error(&GOOD.replace("find = \"a\"\n", ""));
        assert_eq!((line, field.as_str()), (8, "patch[0]"));
        assert!(message.contains("missing field `find`"), "{message}");

        let (line, field, message) =
            file_error(&GOOD.replace("replace = \"b\"", "replace = \"b\"\ncount = 0"));
        assert_eq!(
            (line, field.as_str(), message.as_str()),
            (12, "patch[0].count", "must be at least 1")
        );

        let (line, field, _) = file_error(&GOOD.replace("dist/local", "../local"));
        assert_eq!((line, field.as_str()), (9, "patch[0].file"));

        let (line, field, _) = file_error(&GOOD.replace("dist/local", "d*/local"));
        assert_eq!((line, field.as_str()), (9, "patch[0].file"));

        for package in [
            "../openclaw",
            "@openclaw",
            "@openclaw/../x",
            "Openclaw",
            ".bin",
            "",
        ] {
            let text = GOOD.replace(
                "[[patch]]\n",
                &format!("[[patch]]\npackage = {package:?}\n"),
            );
            let (line, field, message) = file_error(&text);
            assert_eq!((line, field.as_str()), (9, "patch[0].package"), "{package}");
            assert_eq!(
                message,
                format!("{package:?} is not a package name (`name` or `@scope/name`)")
            );
        }

        let (line, field, message) = file_error(&GOOD.replace("[\"tools\"]", "[\"code\"]"));
        assert_eq!((line, field.as_str()), (4, "lanes[0]"));
        assert_eq!(
            message,
            "upstream-search-no-match has no lane \"code\" (lanes: tools, directory)"
        );

        let (line, field, _) = file_error(&GOOD.replace("2026.9.6", "9.6"));
        assert_eq!((line, field.as_str()), (5, "release"));

        let (line, field, message) = file_error(&GOOD.replace("why =", "wyh ="));
        assert_eq!(line, 6);
        assert_eq!(field, "wyh");
        assert!(message.contains("unknown field `wyh`"), "{message}");
    }

    #[test]
    fn a_file_error_is_exit_2() {
        let error: Error = parse("scenario = 3").unwrap_err().into();
        assert_eq!(error.exit_code(), Exit::USAGE);
    }

    #[test]
    fn pick_by_name() {
        let seed = parse(GOOD).unwrap();
        let all = vec![seed.clone()];
        assert_eq!(pick(&all, &[]).unwrap(), all);
        assert_eq!(pick(&all, &["x".into()]).unwrap(), all);
        let e = pick(&all, &["y".into()]).unwrap_err();
        assert_eq!(e.to_string(), "no product seed is named y (seeds: x)");
    }

    #[test]
    fn every_committed_seed_loads() {
        let seeds = load(&DataRoot::discovered()).unwrap();
        assert!(seeds.len() >= 7, "{} seeds", seeds.len());
    }

    /// Every committed seed's patches fit the release it was written against, as installed:
    /// each glob one file, each `find` exactly `count` times.
    #[test]
    #[ignore = "needs the OpenClaw releases the seeds name: bash scripts/install-openclaw.sh"]
    fn every_committed_seed_applies_to_its_release() {
        // The install cache as the openclaw target finds it (a room above this one).
        let cache = std::env::var_os("TOOLSEARCH_QA_CACHE")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::PathBuf::from(std::env::var_os("HOME").unwrap())
                    .join(".cache/toolsearch-qa")
            });
        for seed in load(&DataRoot::discovered()).unwrap() {
            let prefix = cache.join(format!("openclaw-{}", seed.release));
            assert!(prefix.is_dir(), "{} is not installed", seed.release);
            // Checked, not copied: a copy of each costs seconds and 330 MB.
            SeededCopy::check(&seed, &prefix).unwrap_or_else(|e| panic!("{}: {e}", seed.origin));
        }
    }
}
