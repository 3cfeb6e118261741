//! Where release-specific data is read, at run time.
//!
//! The product ships about weekly; adopting a release must never need a rebuild. Everything that
//! differs between OpenClaw releases — surface facts (`data/releases/`), profiles
//! (`data/profiles/`), accepted findings (`expectations/`), product snapshots (`snapshots/`) and
//! search baselines (`data/search-quality-baseline-openclaw-<v>.json`) — is read from one *data
//! root*, chosen once per process:
//! 1. `--data-dir DIR` (every command takes it);
//! 2. else the working directory, when it is a checkout (it has `data/releases/` and
//!    `data/profiles/`), as `snapshots/` has always been found;
//! 3. else the copy built into the binary (a binary run outside a checkout).
//!
//! Scenarios are not release data: the built-in ones are compiled in, others come from
//! `--scenario-dir`.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The release data compiled into the binary: `(<dir>/<file name>, contents)`, per kind.
const BUILT_IN_RELEASES: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_releases.rs"));
const BUILT_IN_PROFILES: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_profiles.rs"));
const BUILT_IN_CODE_MODE_PROFILES: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_code_mode_profiles.rs"));
const BUILT_IN_EXPECTATIONS: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_expectations.rs"));
const BUILT_IN_BASELINES: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_baselines.rs"));
const BUILT_IN_PRODUCT_SEEDS: &[(&str, &str)] =
    include!(concat!(env!("OUT_DIR"), "/builtin_product_seeds.rs"));

/// One kind of release data: a folder of the root and the files in it that are that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    /// `data/releases/openclaw-<v>.toml`.
    Releases,
    /// `data/profiles/<name>.toml`.
    Profiles,
    /// `data/profiles/code-mode/<name>.toml`: a profile's Code Mode surface, captured.
    CodeModeProfiles,
    /// `expectations/<target>-<v>.toml`.
    Expectations,
    /// `data/search-quality-baseline-openclaw-<v>.json`.
    Baselines,
    /// `data/product-seeds/<name>.toml`: bugs as filed, as patches (`crate::product_seeds`).
    ProductSeeds,
}

impl DataKind {
    /// The folder, relative to the root.
    pub fn dir(self) -> &'static str {
        match self {
            DataKind::Releases => "data/releases",
            DataKind::Profiles => "data/profiles",
            DataKind::CodeModeProfiles => "data/profiles/code-mode",
            DataKind::Expectations => "expectations",
            DataKind::Baselines => "data",
            DataKind::ProductSeeds => "data/product-seeds",
        }
    }

    /// True for a file name of this kind.
    fn holds(self, name: &str) -> bool {
        match self {
            DataKind::Baselines => {
                name.starts_with("search-quality-baseline-openclaw-") && name.ends_with(".json")
            }
            _ => name.ends_with(".toml"),
        }
    }

    fn built_in(self) -> &'static [(&'static str, &'static str)] {
        match self {
            DataKind::Releases => BUILT_IN_RELEASES,
            DataKind::Profiles => BUILT_IN_PROFILES,
            DataKind::CodeModeProfiles => BUILT_IN_CODE_MODE_PROFILES,
            DataKind::Expectations => BUILT_IN_EXPECTATIONS,
            DataKind::Baselines => BUILT_IN_BASELINES,
            DataKind::ProductSeeds => BUILT_IN_PRODUCT_SEEDS,
        }
    }

    /// A root on disk must have this folder (a root without release facts or profiles is no
    /// data root); the others may be absent (a fresh tree has no accepted findings yet).
    fn required(self) -> bool {
        matches!(self, DataKind::Releases | DataKind::Profiles)
    }
}

/// One file of release data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataFile {
    /// Its path as errors and reports name it (`data/releases/openclaw-2026.9.6.toml`, under
    /// the root when the root is not the working directory).
    pub origin: String,
    /// The file's name (`openclaw-2026.9.6.toml`).
    pub name: String,
    pub text: Cow<'static, str>,
}

/// How the root was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chosen {
    /// `--data-dir`.
    Flag,
    /// The working directory is a checkout.
    WorkingDirectory,
    /// Neither: the copy built into the binary.
    BuiltIn,
}

/// The data root of this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataRoot {
    /// The folder (`None`: built in). The working directory is `""`, so origins stay relative.
    dir: Option<PathBuf>,
    chosen: Chosen,
}

/// A data root that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DataRootError {
    #[error(
        "--data-dir {dir}: {problem}; point it at a checkout of toolsearch-qa (or a tree with its \
         data/releases/, data/profiles/, expectations/ and snapshots/)"
    )]
    NotARoot { dir: String, problem: String },
    #[error("{path}: cannot read: {message}")]
    Read { path: String, message: String },
}

static ROOT: OnceLock<DataRoot> = OnceLock::new();

impl DataRoot {
    /// The root `--data-dir` names, checked.
    pub fn given(dir: &Path) -> Result<DataRoot, DataRootError> {
        let not_a_root = |problem: String| DataRootError::NotARoot {
            dir: dir.display().to_string(),
            problem,
        };
        if !dir.is_dir() {
            return Err(not_a_root("no such directory".into()));
        }
        for kind in [DataKind::Releases, DataKind::Profiles] {
            if !dir.join(kind.dir()).is_dir() {
                return Err(not_a_root(format!("it has no {}/", kind.dir())));
            }
        }
        Ok(DataRoot {
            dir: Some(dir.to_path_buf()),
            chosen: Chosen::Flag,
        })
    }

    /// The working directory when it is a checkout, else the built-in copy.
    pub fn discovered() -> DataRoot {
        let checkout = [DataKind::Releases, DataKind::Profiles]
            .iter()
            .all(|kind| Path::new(kind.dir()).is_dir());
        if checkout {
            DataRoot {
                dir: Some(PathBuf::new()),
                chosen: Chosen::WorkingDirectory,
            }
        } else {
            DataRoot::built_in()
        }
    }

    /// The copy built into the binary.
    pub fn built_in() -> DataRoot {
        DataRoot {
            dir: None,
            chosen: Chosen::BuiltIn,
        }
    }

    pub fn chosen(&self) -> Chosen {
        self.chosen
    }

    /// The folder on disk (`None`: built in; empty: the working directory).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Where a file of the root is (or would be written): `rel` under the root's folder, or
    /// under the working directory for the built-in root.
    pub fn path(&self, rel: &str) -> PathBuf {
        match &self.dir {
            Some(dir) => dir.join(rel),
            None => PathBuf::from(rel),
        }
    }

    /// Where the built-in scenarios' committed snapshots are.
    pub fn snapshots(&self) -> PathBuf {
        self.path("snapshots")
    }

    /// Every file of `kind`, sorted by name.
    pub fn files(&self, kind: DataKind) -> Result<Vec<DataFile>, DataRootError> {
        let Some(dir) = &self.dir else {
            return Ok(kind.built_in().iter().map(built_in_file).collect());
        };
        let folder = dir.join(kind.dir());
        names(&folder, kind)?
            .into_iter()
            .map(|name| read(&folder, name))
            .collect()
    }

    /// The names of the files of `kind`, sorted (none of them is read).
    pub fn names(&self, kind: DataKind) -> Result<Vec<String>, DataRootError> {
        match &self.dir {
            None => Ok(kind
                .built_in()
                .iter()
                .map(|f| built_in_file(f).name)
                .collect()),
            Some(dir) => names(&dir.join(kind.dir()), kind),
        }
    }

    /// The file of `kind` named `name`, when the root has it (only that file is read).
    pub fn file(&self, kind: DataKind, name: &str) -> Result<Option<DataFile>, DataRootError> {
        let Some(dir) = &self.dir else {
            return Ok(kind
                .built_in()
                .iter()
                .map(built_in_file)
                .find(|f| f.name == name));
        };
        let folder = dir.join(kind.dir());
        names(&folder, kind)?
            .into_iter()
            .find(|n| n == name)
            .map(|name| read(&folder, name))
            .transpose()
    }
}

fn built_in_file(&(origin, text): &(&str, &'static str)) -> DataFile {
    DataFile {
        origin: origin.to_string(),
        name: origin.rsplit('/').next().unwrap_or(origin).to_string(),
        text: Cow::Borrowed(text),
    }
}

fn read_error(path: &Path, e: std::io::Error) -> DataRootError {
    DataRootError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// The names of the files of `kind` in `folder`, sorted (none when an optional folder is absent).
fn names(folder: &Path, kind: DataKind) -> Result<Vec<String>, DataRootError> {
    let entries = match std::fs::read_dir(folder) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !kind.required() => {
            return Ok(Vec::new())
        }
        Err(e) => return Err(read_error(folder, e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| kind.holds(name))
        .collect();
    names.sort();
    Ok(names)
}

fn read(folder: &Path, name: String) -> Result<DataFile, DataRootError> {
    let path = folder.join(&name);
    let text = std::fs::read_to_string(&path).map_err(|e| read_error(&path, e))?;
    Ok(DataFile {
        origin: path.display().to_string(),
        name,
        text: Cow::Owned(text),
    })
}

impl fmt::Display for DataRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.dir, self.chosen) {
            (_, Chosen::BuiltIn) => write!(
                f,
                "built into the binary (the working directory has no data/releases/; \
                 --data-dir names a checkout)"
            ),
            (Some(dir), Chosen::Flag) => write!(f, "{} (--data-dir)", dir.display()),
            _ => write!(f, "the working directory"),
        }
    }
}

/// Sets the process's root from `--data-dir` (else discovers it); the first call wins. A root
/// that cannot be used is an error (exit 2): nothing has been read yet.
pub fn init(given: Option<&Path>) -> Result<&'static DataRoot, DataRootError> {
    let root = match given {
        Some(dir) => DataRoot::given(dir)?,
        None => DataRoot::discovered(),
    };
    Ok(ROOT.get_or_init(|| root))
}

/// The process's root: the one [`init`] set, else discovered on first use.
pub fn current() -> &'static DataRoot {
    ROOT.get_or_init(DataRoot::discovered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkout_and_the_built_in_copy_hold_the_same_files() {
        // Unit tests run in the package root: a checkout.
        let checkout = DataRoot::discovered();
        assert_eq!(checkout.chosen(), Chosen::WorkingDirectory);
        for kind in [
            DataKind::Releases,
            DataKind::Profiles,
            DataKind::Expectations,
            DataKind::Baselines,
        ] {
            let on_disk = checkout.files(kind).unwrap();
            let built_in = DataRoot::built_in().files(kind).unwrap();
            assert!(!on_disk.is_empty(), "{kind:?}");
            assert_eq!(on_disk, built_in, "{kind:?}");
            let names: Vec<String> = on_disk.iter().map(|f| f.name.clone()).collect();
            assert_eq!(checkout.names(kind).unwrap(), names, "{kind:?}");
            assert_eq!(DataRoot::built_in().names(kind).unwrap(), names, "{kind:?}");
            for file in &on_disk {
                assert_eq!(
                    checkout.file(kind, &file.name).unwrap().as_ref(),
                    Some(file)
                );
            }
        }
        let found = checkout
            .file(DataKind::Releases, "openclaw-2026.9.6.toml")
            .unwrap()
            .unwrap();
        assert_eq!(found.origin, "data/releases/openclaw-2026.9.6.toml");
    }

    #[test]
    fn a_given_root_must_have_release_facts_and_profiles() {
        let dir = tempfile::tempdir().unwrap();
        let error = DataRoot::given(&dir.path().join("absent")).unwrap_err();
        assert!(error.to_string().contains("no such directory"), "{error}");
        let error = DataRoot::given(dir.path()).unwrap_err();
        assert!(
            error.to_string().contains("it has no data/releases/"),
            "{error}"
        );
        std::fs::create_dir_all(dir.path().join("data/releases")).unwrap();
        std::fs::create_dir_all(dir.path().join("data/profiles")).unwrap();
        let root = DataRoot::given(dir.path()).unwrap();
        assert_eq!(root.files(DataKind::Expectations).unwrap(), Vec::new());
        std::fs::write(dir.path().join("data/releases/openclaw-1.2.3.toml"), "x").unwrap();
        std::fs::write(dir.path().join("data/releases/notes.md"), "x").unwrap();
        let files = root.files(DataKind::Releases).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(
            files[0].origin,
            dir.path()
                .join("data/releases/openclaw-1.2.3.toml")
                .display()
                .to_string()
        );
        assert!(root.to_string().ends_with("(--data-dir)"));
    }
}
