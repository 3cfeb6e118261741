//! The patched copy of an installed release a product seed runs on. The release's own package
//! (`node_modules/openclaw`) is copied file by file, never hard-linked: a hard link changes the
//! installed file's inode (its link count and ctime), and a gateway of that release running
//! meanwhile takes that for an edited plugin source and refuses its plugins ("Plugin source
//! changed while preparing its reload", measured on 2026.9.6 while `cp -al` ran beside it). So is
//! a package a patch lands in (`package = "@openclaw/ai"`); every other dependency is a symlink
//! to the install's (a symlink leaves its target's inode alone): the copy is about the package's
//! 330 MB, not the install's 740 MB.
//! Every patch is checked against the install before anything is written. The copy is a temp dir
//! removed on drop — and so on SIGINT, SIGTERM and SIGHUP, which drop the command's future
//! (`crate::signals`).

use std::path::{Path, PathBuf};

use super::{ProductSeed, SeedError};
use crate::error::Error;

/// The prefix of a seeded copy's temp dir (tests look for leftovers by it).
pub const SEED_DIR_PREFIX: &str = "toolsearch-qa-seeded-";

/// The install's V8 compile cache, beside `node_modules`: left out of the copy, so the seeded
/// product can never write into the installed release's cache through a link.
const COMPILE_CACHE: &str = "node-compile-cache";

/// A patched copy of an install prefix (`<cache>/openclaw-<v>`), removed on drop.
#[derive(Debug)]
pub struct SeededCopy {
    /// The seed it carries (its name).
    seed: String,
    /// The copy's install prefix: `<tmp>/openclaw-<v>`, laid out as the install is.
    prefix: PathBuf,
    /// The files written fresh, relative to the package root.
    patched: Vec<String>,
    /// Files copied unchanged from the install.
    linked: usize,
    dir: tempfile::TempDir,
}

impl SeededCopy {
    /// Applies `seed` to a copy of the install at `prefix` (`<cache>/openclaw-<v>`, whose package
    /// root is `node_modules/openclaw`): every patch is checked first (its glob matches exactly
    /// one file, its `find` occurs exactly `count` times, else exit 2 naming the seed, file and
    /// count), then the tree is copied into a temp dir and the patched files written fresh.
    pub fn make(seed: &ProductSeed, prefix: &Path) -> Result<SeededCopy, Error> {
        let modules = prefix.join("node_modules");
        let patched = patched_files(seed, &modules)?;
        let dir = tempfile::Builder::new()
            .prefix(SEED_DIR_PREFIX)
            .tempdir()
            .map_err(|e| Error::Machine(format!("cannot create a temp dir: {e}")))?;
        let name = prefix
            .file_name()
            .map(|n| n.to_os_string())
            .unwrap_or_else(|| "openclaw".into());
        let copy = dir.path().join(name);
        let skip: Vec<PathBuf> = patched.iter().map(|f| modules.join(&f.path)).collect();
        let mut linked = 0;
        // The packages copied, not linked: the product's own and every one a patch lands in.
        let mut copied: Vec<std::ffi::OsString> = vec![super::PRODUCT_PACKAGE.into()];
        copied.extend(
            patched
                .iter()
                .filter_map(|f| f.path.components().next())
                .map(|c| c.as_os_str().to_os_string()),
        );
        copy_tree(prefix, &copy, &skip, Level::Prefix, &copied, &mut linked)?;
        let copy_modules = copy.join("node_modules");
        for file in &patched {
            let from = modules.join(&file.path);
            let to = copy_modules.join(&file.path);
            std::fs::write(&to, &file.text).map_err(io("write", &to))?;
            let permissions = std::fs::metadata(&from)
                .map_err(io("read", &from))?
                .permissions();
            std::fs::set_permissions(&to, permissions).map_err(io("set permissions", &to))?;
        }
        Ok(SeededCopy {
            seed: seed.name.clone(),
            prefix: copy,
            patched: patched.into_iter().map(|f| f.shown).collect(),
            linked,
            dir,
        })
    }

    /// Checks that every patch of `seed` fits the install at `prefix`, as [`Self::make`] would,
    /// without copying anything (a run checks every seed before its first gateway starts).
    pub fn check(seed: &ProductSeed, prefix: &Path) -> Result<(), Error> {
        patched_files(seed, &prefix.join("node_modules")).map(|_| ())
    }

    /// The copy's install prefix, to locate it as an install (`Installation::verify`).
    pub fn prefix(&self) -> &Path {
        &self.prefix
    }

    /// The seed's name.
    pub fn seed(&self) -> &str {
        &self.seed
    }

    /// The files written fresh: the product's relative to its package root (`dist/…`), another
    /// package's under its name (`@openclaw/ai/dist/…`).
    pub fn patched(&self) -> &[String] {
        &self.patched
    }

    /// How many files were copied unchanged from the install.
    pub fn linked(&self) -> usize {
        self.linked
    }

    /// The temp dir removed on drop.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// One file a seed patches, with its patched text.
struct PatchedFile {
    /// Relative to `node_modules` (`openclaw/dist/…`).
    path: PathBuf,
    /// As reports name it: see [`SeededCopy::patched`].
    shown: String,
    text: String,
}

/// Each file the seed patches (under `modules`, the install's `node_modules`) with its patched
/// text, every patch checked; several patches of one file apply in order.
fn patched_files(seed: &ProductSeed, modules: &Path) -> Result<Vec<PatchedFile>, Error> {
    let mut files: Vec<PatchedFile> = Vec::new();
    for (index, patch) in seed.patches.iter().enumerate() {
        let package = modules.join(&patch.package);
        let matches = glob(&package, &patch.file)?;
        let [rel] = matches.as_slice() else {
            let listing = match matches.is_empty() {
                true => String::new(),
                false => format!(": {}", matches.join(", ")),
            };
            return Err(SeedError::Glob {
                seed: seed.name.clone(),
                index,
                pattern: patch.file.clone(),
                root: package.display().to_string(),
                found: matches.len(),
                listing,
            }
            .into());
        };
        let path = Path::new(&patch.package).join(rel);
        let slot = match files.iter().position(|f| f.path == path) {
            Some(i) => i,
            None => {
                let full = modules.join(&path);
                let text = std::fs::read_to_string(&full).map_err(io("read", &full))?;
                let shown = match patch.package == super::PRODUCT_PACKAGE {
                    true => rel.clone(),
                    false => format!("{}/{rel}", patch.package),
                };
                files.push(PatchedFile { path, shown, text });
                files.len() - 1
            }
        };
        let file = &mut files[slot];
        let found = file.text.matches(patch.find.as_str()).count();
        if found != patch.count {
            return Err(SeedError::Count {
                seed: seed.name.clone(),
                index,
                file: file.shown.clone(),
                count: patch.count,
                found,
            }
            .into());
        }
        file.text = file.text.replace(patch.find.as_str(), &patch.replace);
    }
    Ok(files)
}

/// The files under `root` that `pattern` names (relative, sorted): its directories literally,
/// its last part with `*` matching any run of characters.
fn glob(root: &Path, pattern: &str) -> Result<Vec<String>, Error> {
    let (dir, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    let folder = root.join(dir);
    let entries = match std::fs::read_dir(&folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io("read", &folder)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(io("read", &folder))?;
        let Ok(file) = entry.file_name().into_string() else {
            continue;
        };
        if entry.file_type().is_ok_and(|t| t.is_file()) && wildcard(name, &file) {
            out.push(match dir {
                "" => file,
                _ => format!("{dir}/{file}"),
            });
        }
    }
    out.sort();
    Ok(out)
}

/// Whether `text` matches `pattern`, whose `*` matches any run of characters.
fn wildcard(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

/// Where [`copy_tree`] is in the install: its prefix, the prefix's `node_modules`, or below.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Prefix,
    NodeModules,
    Below,
}

/// Recreates `from` at `to`: directories made, files copied (never hard-linked: see the module
/// doc), symlinks made again; `skip` files are left for the caller to write. In the prefix's
/// `node_modules`, every entry but the `copied` ones (the release's own package and those a
/// patch lands in) and the dot entries (`.bin` among them, whose links point into the copy)
/// becomes a symlink to the install's.
fn copy_tree(
    from: &Path,
    to: &Path,
    skip: &[PathBuf],
    level: Level,
    copied: &[std::ffi::OsString],
    linked: &mut usize,
) -> Result<(), Error> {
    std::fs::create_dir_all(to).map_err(io("create directory", to))?;
    for entry in std::fs::read_dir(from).map_err(io("read", from))? {
        let entry = entry.map_err(io("read", from))?;
        let source = entry.path();
        let name = entry.file_name();
        let target = to.join(&name);
        if level == Level::Prefix && name == COMPILE_CACHE {
            continue;
        }
        let kind = entry.file_type().map_err(io("read", &source))?;
        let dependency = level == Level::NodeModules
            && !copied.contains(&name)
            && !name.to_string_lossy().starts_with('.');
        if kind.is_symlink() {
            let link = std::fs::read_link(&source).map_err(io("read link", &source))?;
            std::os::unix::fs::symlink(&link, &target).map_err(io("link", &target))?;
        } else if dependency {
            let absolute = std::path::absolute(&source).map_err(io("resolve", &source))?;
            std::os::unix::fs::symlink(&absolute, &target).map_err(io("link", &target))?;
        } else if kind.is_dir() {
            let below = match (level, name == "node_modules") {
                (Level::Prefix, true) => Level::NodeModules,
                _ => Level::Below,
            };
            copy_tree(&source, &target, skip, below, copied, linked)?;
        } else if skip.contains(&source) {
            continue;
        } else {
            std::fs::copy(&source, &target).map_err(io("copy", &source))?;
            *linked += 1;
        }
    }
    Ok(())
}

fn io<'p>(action: &'static str, path: &'p Path) -> impl FnOnce(std::io::Error) -> Error + 'p {
    move |source| Error::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::MetadataExt;

    use super::*;
    use crate::error::Exit;
    use crate::product_seeds::Patch;

    /// A fake install prefix: `node_modules/openclaw/{package.json, dist/a-X1.mjs, dist/b.mjs}`,
    /// a dependency `node_modules/dep`, a compile cache and a symlink.
    fn install() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("node_modules/openclaw");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::write(package.join("package.json"), "{\"version\":\"2026.9.6\"}").unwrap();
        std::fs::write(package.join("dist/a-X1.mjs"), "one two two three").unwrap();
        std::fs::write(package.join("dist/b.mjs"), "untouched").unwrap();
        let beside = dir.path().join("node_modules/@openclaw/ai/dist");
        std::fs::create_dir_all(&beside).unwrap();
        std::fs::write(beside.join("c-Y2.mjs"), "sorted(tools)").unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).unwrap();
        std::os::unix::fs::symlink(
            "../openclaw/dist/b.mjs",
            dir.path().join("node_modules/.bin/b"),
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/dep")).unwrap();
        std::fs::write(dir.path().join("node_modules/dep/index.js"), "dep").unwrap();
        std::fs::create_dir_all(dir.path().join(COMPILE_CACHE)).unwrap();
        std::fs::write(dir.path().join(COMPILE_CACHE).join("x"), "cache").unwrap();
        dir
    }

    fn seed(patches: &[(&str, &str, &str, usize)]) -> ProductSeed {
        let patches: Vec<_> = patches
            .iter()
            .map(|&(file, find, replace, count)| ("openclaw", file, find, replace, count))
            .collect();
        seed_in(&patches)
    }

    fn seed_in(patches: &[(&str, &str, &str, &str, usize)]) -> ProductSeed {
        ProductSeed {
            name: "demo".into(),
            origin: "data/product-seeds/demo.toml".into(),
            issue: Some(1),
            scenario: "s".into(),
            claims: vec![crate::scenario::ClaimId::S1],
            lanes: Vec::new(),
            release: "2026.9.6".into(),
            why: "w".into(),
            patches: patches
                .iter()
                .map(|(package, file, find, replace, count)| Patch {
                    package: package.to_string(),
                    file: file.to_string(),
                    find: find.to_string(),
                    replace: replace.to_string(),
                    count: *count,
                })
                .collect(),
        }
    }

    #[test]
    fn patched_files_are_fresh_and_the_rest_are_links() {
        let install = install();
        let seed = seed(&[
            ("dist/a-*.mjs", "two", "2", 2),
            ("dist/a-*.mjs", "one", "1", 1),
        ]);
        let copy = SeededCopy::make(&seed, install.path()).unwrap();
        let package = copy.prefix().join("node_modules/openclaw");
        assert_eq!(
            std::fs::read_to_string(package.join("dist/a-X1.mjs")).unwrap(),
            "1 2 2 three"
        );
        let original = install.path().join("node_modules/openclaw");
        assert_eq!(
            std::fs::read_to_string(original.join("dist/a-X1.mjs")).unwrap(),
            "one two two three",
            "the install is untouched"
        );
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        // Copied, not linked: the install's inode (its link count, its ctime) is untouched.
        assert_ne!(
            ino(&package.join("dist/b.mjs")),
            ino(&original.join("dist/b.mjs"))
        );
        assert_eq!(
            std::fs::metadata(original.join("dist/b.mjs"))
                .unwrap()
                .nlink(),
            1
        );
        assert_ne!(
            ino(&package.join("dist/a-X1.mjs")),
            ino(&original.join("dist/a-X1.mjs"))
        );
        assert_eq!(copy.patched(), ["dist/a-X1.mjs"]);
        assert_eq!(
            copy.linked(),
            2,
            "package.json and dist/b.mjs: @openclaw, which this seed does not patch, is a link"
        );
        assert_eq!(
            std::fs::read_link(copy.prefix().join("node_modules/@openclaw")).unwrap(),
            install.path().join("node_modules/@openclaw")
        );
        let link = copy.prefix().join("node_modules/.bin/b");
        assert_eq!(
            std::fs::read_link(&link).unwrap(),
            Path::new("../openclaw/dist/b.mjs")
        );
        // A dependency is a symlink to the install's, its file untouched.
        let dep = copy.prefix().join("node_modules/dep");
        assert_eq!(
            std::fs::read_link(&dep).unwrap(),
            install.path().join("node_modules/dep")
        );
        assert_eq!(
            std::fs::metadata(install.path().join("node_modules/dep/index.js"))
                .unwrap()
                .nlink(),
            1
        );
        assert!(!copy.prefix().join(COMPILE_CACHE).exists());
        let dir = copy.dir().to_path_buf();
        assert!(dir.is_dir());
        drop(copy);
        assert!(!dir.exists(), "the copy is removed on drop");
    }

    #[test]
    fn a_patch_may_name_a_package_the_product_ships_beside_itself() {
        let install = install();
        let seed = seed_in(&[
            ("@openclaw/ai", "dist/c-*.mjs", "sorted(tools)", "tools", 1),
            ("openclaw", "dist/a-*.mjs", "one", "1", 1),
        ]);
        let copy = SeededCopy::make(&seed, install.path()).unwrap();
        let modules = copy.prefix().join("node_modules");
        assert_eq!(
            std::fs::read_to_string(modules.join("@openclaw/ai/dist/c-Y2.mjs")).unwrap(),
            "tools"
        );
        assert_eq!(
            std::fs::read_to_string(modules.join("openclaw/dist/a-X1.mjs")).unwrap(),
            "1 two two three"
        );
        let original = install
            .path()
            .join("node_modules/@openclaw/ai/dist/c-Y2.mjs");
        assert_eq!(std::fs::read_to_string(original).unwrap(), "sorted(tools)");
        assert_eq!(
            copy.patched(),
            ["@openclaw/ai/dist/c-Y2.mjs", "dist/a-X1.mjs"]
        );
        assert_eq!(copy.linked(), 2, "package.json and dist/b.mjs");
        let scope = std::fs::symlink_metadata(modules.join("@openclaw")).unwrap();
        assert!(
            scope.is_dir(),
            "a package a patch lands in is copied, not linked"
        );
        let e = SeededCopy::make(
            &seed_in(&[("@openclaw/ai", "dist/c-*.mjs", "tools", "x", 2)]),
            install.path(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "product seed demo: patch[0].find occurs 1 times in @openclaw/ai/dist/c-Y2.mjs (expected 2)"
        );
    }

    #[test]
    fn a_find_that_does_not_fit_names_seed_file_and_count() {
        let install = install();
        let e = SeededCopy::make(&seed(&[("dist/a-*.mjs", "two", "2", 1)]), install.path())
            .unwrap_err();
        assert_eq!(e.exit_code(), Exit::USAGE);
        assert_eq!(
            e.to_string(),
            "product seed demo: patch[0].find occurs 2 times in dist/a-X1.mjs (expected 1)"
        );
        let e = SeededCopy::make(&seed(&[("dist/a-*.mjs", "four", "4", 1)]), install.path())
            .unwrap_err();
        assert!(e.to_string().contains("occurs 0 times"), "{e}");
    }

    #[test]
    fn a_glob_must_match_exactly_one_file() {
        let install = install();
        let root = install
            .path()
            .join("node_modules/openclaw")
            .display()
            .to_string();
        let e =
            SeededCopy::make(&seed(&[("dist/*.mjs", "x", "y", 1)]), install.path()).unwrap_err();
        assert_eq!(e.exit_code(), Exit::USAGE);
        assert_eq!(
            e.to_string(),
            format!("product seed demo: patch[0].file \"dist/*.mjs\" matches 2 files under {root} (expected exactly 1): dist/a-X1.mjs, dist/b.mjs")
        );
        let e =
            SeededCopy::make(&seed(&[("dist/c-*.mjs", "x", "y", 1)]), install.path()).unwrap_err();
        assert!(e.to_string().contains("matches 0 files"), "{e}");
    }

    #[test]
    fn wildcards() {
        for (pattern, text, ok) in [
            ("a-*.mjs", "a-X1.mjs", true),
            ("a-*.mjs", "a-.mjs", true),
            ("a-*.mjs", "b-X1.mjs", false),
            ("a-*.mjs", "a-X1.js", false),
            ("a*b*c", "aXbYc", true),
            ("a*b*c", "aXc", false),
            ("exact.js", "exact.js", true),
            ("a*a", "a", false),
        ] {
            assert_eq!(wildcard(pattern, text), ok, "{pattern} {text}");
        }
    }
}
