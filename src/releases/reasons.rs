//! `check-reasons`: every dist file and code identifier an accepted finding's reason names must
//! exist in that release's own install, so a reason carried over from another release is checked
//! again instead of citing files the release does not have. The comments of a release file's
//! `[code_mode]` table, which say where each fact was read, are held to the same rule.
//!
//! What a reason cites ([`citations`]):
//! - a file: any token ending in `.js`, `.mjs` or `.cjs`, and any other path under `dist/` (a
//!   `dist/None` left by a botched rename is a file the release lacks). One starting with `dist/`
//!   must be that path of the package; any other must be a file of that name somewhere under
//!   `dist/`; a `*` in it stands for any run of characters (`dist/tool-resolution-*.js`), and one
//!   file must match;
//! - an identifier: a bare lowerCamelCase word (`formatUnknownToolIdError`, `isError`, also the
//!   last part of `execution.taskSupport`), or a backquoted token that looks like code: a dotted
//!   name each of whose parts holding an `_` or a camel hump is cited (`agents_wait`). It must
//!   occur, as a whole word, in some file under `dist/`. Bare snake_case and PascalCase words
//!   (tool names, error codes, fixture markers, `GitHub`) and backquoted plain words (`tools`,
//!   `args`, `$schema`: prose, keys) are not checked.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::data_root::DataKind;
use crate::error::{Error, Exit};
use crate::outcome::findings::Expectations;
use crate::output::emit;
use crate::scenario::load_all;
use crate::targets::openclaw::install::{default_cache_root, install_prefix};
use crate::targets::openclaw::Version;

/// What one reason names: files and identifiers, each once, in order of first mention.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Citations {
    pub files: Vec<String>,
    pub identifiers: Vec<String>,
}

static FILE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\w./@*-]+\.(?:mjs|cjs|js)\b").expect("file pattern"));
static DIST_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\bdist/[\w@*-][\w.@*-]*(?:/[\w.@*-]+)*").expect("dist path pattern")
});
static BACKQUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`([^`]*)`").expect("backquote pattern"));
static CODE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$").expect("code pattern")
});
static CAMEL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*\b").expect("camel pattern"));

/// Whether a part of a backquoted name is code rather than a word: an `_` or a camel hump.
fn code_like(part: &str) -> bool {
    part.contains('_')
        || part
            .as_bytes()
            .windows(2)
            .any(|w| w[0].is_ascii_lowercase() && w[1].is_ascii_uppercase())
}

/// The files and identifiers `reason` cites (see the module's rule).
pub fn citations(reason: &str) -> Citations {
    let mut cited = Citations::default();
    let push = |list: &mut Vec<String>, name: &str| {
        if !list.iter().any(|n| n == name) {
            list.push(name.to_string());
        }
    };
    for m in FILE.find_iter(reason) {
        push(&mut cited.files, m.as_str().trim_start_matches(['.', '/']));
    }
    for m in DIST_PATH.find_iter(reason) {
        let path = m.as_str().trim_end_matches('.');
        if !FILE.is_match(path) {
            push(&mut cited.files, path);
        }
    }
    // Prose left once file names and backquoted spans are blanked out.
    let mut prose = FILE.replace_all(reason, " ").into_owned();
    for span in BACKQUOTED.captures_iter(&prose.clone()) {
        let inner = &span[1];
        if CODE.is_match(inner) {
            for part in inner.split('.').filter(|p| code_like(p)) {
                push(&mut cited.identifiers, part);
            }
        }
    }
    prose = BACKQUOTED.replace_all(&prose, " ").into_owned();
    for m in CAMEL.find_iter(&prose) {
        push(&mut cited.identifiers, m.as_str());
    }
    cited
}

/// What `check-reasons` is asked to check.
#[derive(Debug, Clone, Default)]
pub struct ReasonsOptions {
    /// The releases (none: every release with an expectations file).
    pub versions: Vec<Version>,
    /// Pass over a release that is not installed instead of exiting 3.
    pub skip_missing: bool,
}

/// One entry's reason and where it is written.
struct Reason {
    line: usize,
    text: String,
}

/// The `check-reasons` command: one line per cited name the release's dist/ lacks, then a count;
/// exit 0 when none, 1 when any, 3 when a release to check is not installed.
pub fn command(options: &ReasonsOptions, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let root = crate::data_root::current();
    let versions = if options.versions.is_empty() {
        let names = root
            .names(DataKind::Expectations)
            .map_err(|e| Error::Usage(e.to_string()))?;
        let mut versions: Vec<Version> = names
            .iter()
            .filter_map(|n| {
                n.strip_prefix("openclaw-")?
                    .strip_suffix(".toml")?
                    .parse()
                    .ok()
            })
            .collect();
        versions.sort();
        versions
    } else {
        options.versions.clone()
    };
    let cache = default_cache_root().map_err(|e| Error::Usage(e.to_string()))?;
    let scenarios = load_all(&[])?;
    let (mut checked, mut releases, mut problems, mut missing) = (0, 0, 0, 0);
    let mut text = String::new();
    let issues = root
        .dir()
        .map(|dir| dir.join(crate::regressions::ISSUES_FILE));
    let red = match (root.dir(), issues) {
        (Some(dir), Some(issues)) if issues.is_file() => {
            Some(crate::regressions::Table::read(dir)?.red)
        }
        _ => {
            text.push_str(&format!(
                "red cells not checked: the data root has no {}\n",
                crate::regressions::ISSUES_FILE
            ));
            None
        }
    };
    for version in &versions {
        let name = format!("openclaw-{version}.toml");
        let file = root
            .file(DataKind::Expectations, &name)
            .map_err(|e| Error::Usage(e.to_string()))?
            .ok_or_else(|| {
                Error::Usage(format!(
                    "check-reasons: release {version} has no expectations file ({}/{name})",
                    DataKind::Expectations.dir()
                ))
            })?;
        let expectations = Expectations::parse(&file.text, &file.origin, &scenarios)?;
        let package = install_prefix(&cache, version)
            .join("node_modules")
            .join("openclaw");
        if !package.join("dist").is_dir() {
            missing += 1;
            text.push_str(&format!(
                "{}: not checked: not installed (bash scripts/install-openclaw.sh --version {version})\n",
                file.origin
            ));
            continue;
        }
        let reasons: Vec<Reason> = expectations
            .findings
            .iter()
            .map(|f| (f.line, &f.reason))
            .chain(expectations.probes.iter().map(|p| (p.line, &p.reason)))
            .map(|(line, reason)| Reason {
                line: reason_line(&file.text, line),
                text: reason.clone(),
            })
            .collect();
        let dist = Dist::read(&package)?;
        let lacking = dist.lacking(&reasons)?;
        for (line, name) in &lacking {
            text.push_str(&format!(
                "{}:{line}: reason cites {name}, which {version}'s dist/ does not have\n",
                file.origin
            ));
        }
        let facts = root
            .file(DataKind::Releases, &name)
            .map_err(|e| Error::Usage(e.to_string()))?;
        let cited = facts
            .as_ref()
            .map(|f| code_mode_comments(&f.text))
            .unwrap_or_default();
        let facts_lacking = dist.lacking(&cited)?;
        for (line, name) in &facts_lacking {
            let origin = facts
                .as_ref()
                .map(|f| f.origin.as_str())
                .unwrap_or_default();
            text.push_str(&format!(
                "{origin}:{line}: [code_mode] cites {name}, which {version}'s dist/ does not have\n"
            ));
        }
        let unnamed = red_without_file(red.as_deref().unwrap_or(&[]), version, &expectations);
        for (line, issue) in &unnamed {
            text.push_str(&format!(
                "{}:{}: the reason behind #{issue}'s red cell names no file of {version}'s dist/\n",
                file.origin,
                reason_line(&file.text, *line)
            ));
        }
        checked += reasons.len() + cited.len();
        releases += 1;
        problems += lacking.len() + facts_lacking.len() + unnamed.len();
    }
    text.push_str(&format!(
        "{checked} reasons checked on {releases} releases, {problems} problems\n"
    ));
    emit(out, &text)?;
    Ok(if missing > 0 && !options.skip_missing {
        Exit::INFRA
    } else if problems > 0 {
        Exit::FAILED
    } else {
        Exit::OK
    })
}

/// The findings behind a red cell of docs/regressions.md on `version` whose reason names no
/// dist file: `(entry line, issue)`.
fn red_without_file(
    red: &[crate::regressions::RedFinding],
    version: &Version,
    expectations: &Expectations,
) -> Vec<(usize, u32)> {
    red.iter()
        .filter(|r| r.release == version.to_string())
        .filter(|r| {
            expectations
                .findings
                .iter()
                .find(|f| f.line == r.line)
                .is_some_and(|f| citations(&f.reason).files.is_empty())
        })
        .map(|r| (r.line, r.issue))
        .collect()
}

/// The comment lines of a release file's `[code_mode]` table (where each fact was read), each
/// with its line (1-based); none when the release has no Code Mode.
fn code_mode_comments(text: &str) -> Vec<Reason> {
    let mut inside = false;
    let mut comments = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_start();
        if line.starts_with('[') {
            inside = line == "[code_mode]";
        } else if inside && line.starts_with('#') {
            comments.push(Reason {
                line: i + 1,
                text: line.trim_start_matches('#').to_string(),
            });
        }
    }
    comments
}

/// The line of the `reason` key of the entry that starts on line `entry` (1-based), else `entry`.
fn reason_line(text: &str, entry: usize) -> usize {
    for (i, line) in text.lines().enumerate().skip(entry) {
        let line = line.trim_start();
        if line.starts_with("[[") {
            break;
        }
        if line
            .strip_prefix("reason")
            .is_some_and(|rest| rest.trim_start().starts_with('='))
        {
            return i + 1;
        }
    }
    entry
}

/// A release's `dist/`: its files, by path under the package and by name.
struct Dist {
    files: Vec<PathBuf>,
    paths: BTreeSet<String>,
    names: BTreeSet<String>,
}

impl Dist {
    fn read(package: &Path) -> Result<Dist, Error> {
        let mut files = Vec::new();
        walk(&package.join("dist"), &mut files)?;
        files.sort();
        let relative = |f: &PathBuf| {
            f.strip_prefix(package)
                .unwrap_or(f)
                .to_string_lossy()
                .replace('\\', "/")
        };
        Ok(Dist {
            paths: files.iter().map(relative).collect(),
            names: files
                .iter()
                .filter_map(|f| f.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .collect(),
            files,
        })
    }

    fn has_file(&self, cited: &str) -> bool {
        let (set, wanted) = if cited.starts_with("dist/") {
            (&self.paths, cited)
        } else {
            (&self.names, cited.rsplit('/').next().unwrap_or(cited))
        };
        if wanted.contains('*') {
            set.iter().any(|have| glob(wanted, have))
        } else {
            set.contains(wanted)
        }
    }

    /// Every (reason line, cited name) the dist lacks, in file order; each dist file read once.
    fn lacking(&self, reasons: &[Reason]) -> Result<Vec<(usize, String)>, Error> {
        let cited: Vec<(usize, Citations)> = reasons
            .iter()
            .map(|r| (r.line, citations(&r.text)))
            .collect();
        let wanted: BTreeSet<&str> = cited
            .iter()
            .flat_map(|(_, c)| c.identifiers.iter().map(String::as_str))
            .collect();
        let mut unseen: Vec<(&str, regex::bytes::Regex)> = wanted
            .into_iter()
            .map(|id| {
                let pattern = format!(r"(?-u:\b){}(?-u:\b)", regex::escape(id));
                regex::bytes::Regex::new(&pattern)
                    .map(|r| (id, r))
                    .map_err(|e| Error::Usage(format!("identifier {id}: {e}")))
            })
            .collect::<Result<_, _>>()?;
        for file in &self.files {
            if unseen.is_empty() {
                break;
            }
            let bytes = std::fs::read(file).map_err(Error::io("read", file))?;
            unseen.retain(|(_, pattern)| !pattern.is_match(&bytes));
        }
        let absent: BTreeSet<&str> = unseen.iter().map(|(id, _)| *id).collect();
        let mut lacking = Vec::new();
        for (line, c) in &cited {
            for f in c.files.iter().filter(|f| !self.has_file(f)) {
                lacking.push((*line, f.clone()));
            }
            for id in c.identifiers.iter().filter(|i| absent.contains(i.as_str())) {
                lacking.push((*line, id.clone()));
            }
        }
        Ok(lacking)
    }
}

/// A reason carried from another release, met by this release's own `dist/` (what `adopt`
/// checks before it carries one): hashed chunk names are renamed to this release's chunk of the
/// same stem, then every citation must be found here.
pub struct Recheck {
    dist: Dist,
}

impl Recheck {
    /// The dist/ of the package at `package` (`…/node_modules/openclaw`).
    pub fn open(package: &Path) -> Result<Recheck, Error> {
        Ok(Recheck {
            dist: Dist::read(package)?,
        })
    }

    /// `reason` with each cited file this dist lacks (`pi-tools-BkxVpbv8.js`) replaced by this
    /// dist's file of the same stem and any hash (`pi-tools-<hash>.js|mjs|cjs`): the only one,
    /// or of several the one holding most of the identifiers the reason cites (a tie, or none
    /// holding any, leaves the citation as written).
    pub fn renamed(&self, reason: &str) -> String {
        let cited = citations(reason);
        let mut text = reason.to_string();
        for file in &cited.files {
            if self.dist.has_file(file) {
                continue;
            }
            let name = file.rsplit('/').next().unwrap_or(file);
            let Some(stem) = chunk_stem(name) else {
                continue;
            };
            let same: Vec<&PathBuf> = self
                .dist
                .files
                .iter()
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| chunk_stem(n) == Some(stem))
                })
                .collect();
            let chosen = match same.as_slice() {
                [only] => Some(*only),
                [] => None,
                several => holding_most(several, &cited.identifiers),
            };
            if let Some(new) = chosen.and_then(|f| f.file_name()).and_then(|n| n.to_str()) {
                text = text.replace(name, new);
            }
        }
        text
    }

    /// For each of `reasons`, whether this dist has every file and identifier it cites.
    pub fn holds(&self, reasons: &[String]) -> Result<Vec<bool>, Error> {
        let numbered: Vec<Reason> = reasons
            .iter()
            .enumerate()
            .map(|(i, text)| Reason {
                line: i,
                text: text.clone(),
            })
            .collect();
        let lacking = self.dist.lacking(&numbered)?;
        Ok((0..reasons.len())
            .map(|i| !lacking.iter().any(|(at, _)| *at == i))
            .collect())
    }
}

/// Of `files`, the one holding (as whole words) more of `identifiers` than any other; none on a
/// tie or when none holds any.
fn holding_most<'a>(files: &[&'a PathBuf], identifiers: &[String]) -> Option<&'a PathBuf> {
    let patterns: Vec<regex::bytes::Regex> = identifiers
        .iter()
        .filter_map(|id| {
            regex::bytes::Regex::new(&format!(r"(?-u:\b){}(?-u:\b)", regex::escape(id))).ok()
        })
        .collect();
    let mut counts: Vec<(usize, &PathBuf)> = files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).unwrap_or_default();
            (patterns.iter().filter(|p| p.is_match(&bytes)).count(), *f)
        })
        .collect();
    counts.sort_by_key(|c| std::cmp::Reverse(c.0));
    match counts.as_slice() {
        [(best, file), rest @ ..] if *best > 0 && rest.first().is_none_or(|r| r.0 < *best) => {
            Some(file)
        }
        _ => None,
    }
}

/// The stem of a bundler chunk's file name: `pi-tools` of `pi-tools-BkxVpbv8.js` (an 8-character
/// hash after the last stem dash; the hash may hold `-` or `_` itself). None for other names.
fn chunk_stem(name: &str) -> Option<&str> {
    let base = [".mjs", ".cjs", ".js"]
        .iter()
        .find_map(|ext| name.strip_suffix(ext))?;
    let cut = base.len().checked_sub(9)?;
    let (stem, hash) = base.split_at(cut);
    let hash = hash.strip_prefix('-')?;
    (!stem.is_empty()
        && hash
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'))
    .then_some(stem)
}

/// Whether `text` matches `pattern`, whose every `*` stands for any run of characters but `/`.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return pattern == text;
    }
    if text.matches('/').count() != pattern.matches('/').count()
        || text.len() < first.len() + last.len()
        || !text.starts_with(first)
        || !text.ends_with(last)
    {
        return false;
    }
    let mut middle = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        let Some(at) = middle.find(part) else {
            return false;
        };
        middle = &middle[at + part.len()..];
    }
    true
}

fn walk(dir: &Path, files: &mut Vec<PathBuf>) -> Result<(), Error> {
    for entry in std::fs::read_dir(dir).map_err(Error::io("read", dir))? {
        let entry = entry.map_err(Error::io("read", dir))?;
        let path = entry.path();
        let kind = entry.file_type().map_err(Error::io("read", &path))?;
        if kind.is_dir() {
            walk(&path, files)?;
        } else if kind.is_file() {
            files.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dist_path_without_a_script_extension_is_a_cited_file() {
        let cited = citations(
            "one entry per call (dist/None), the heading in dist/agents/x.js; its dist/ and dist/.",
        );
        assert_eq!(cited.files, vec!["dist/agents/x.js", "dist/None"]);
        let cited = citations("see dist/extensions/quickjs/openclaw.plugin.json.");
        assert_eq!(
            cited.files,
            vec!["dist/extensions/quickjs/openclaw.plugin.json"]
        );
    }

    #[test]
    fn a_chunk_name_has_a_stem_and_an_eight_character_hash() {
        assert_eq!(chunk_stem("pi-tools-BkxVpbv8.js"), Some("pi-tools"));
        assert_eq!(
            chunk_stem("openclaw-tools-thu-J91q.mjs"),
            Some("openclaw-tools")
        );
        assert_eq!(
            chunk_stem("server-methods-CxcGaVP0.cjs"),
            Some("server-methods")
        );
        assert_eq!(chunk_stem("worker.mjs"), None);
        assert_eq!(chunk_stem("notes.txt"), None);
    }

    #[test]
    fn a_carried_reason_is_renamed_to_this_release_s_chunk_and_checked() {
        let package = tempfile::tempdir().unwrap();
        let dist = package.path().join("dist");
        std::fs::create_dir_all(dist.join("agents")).unwrap();
        std::fs::write(
            dist.join("pi-tools-Zz9_aB-1.js"),
            "function readToolSearchConfig(){}",
        )
        .unwrap();
        std::fs::write(dist.join("selection-AAAAAAAA.js"), "").unwrap();
        std::fs::write(dist.join("selection-BBBBBBBB.js"), "").unwrap();
        let recheck = Recheck::open(package.path()).unwrap();
        // One chunk of the stem: renamed, and the identifier is there.
        let renamed = recheck.renamed("`readToolSearchConfig` (pi-tools-BkxVpbv8.js) reads it");
        assert_eq!(
            renamed,
            "`readToolSearchConfig` (pi-tools-Zz9_aB-1.js) reads it"
        );
        // Two chunks of the stem, neither holding a cited identifier: left as written, so it
        // does not hold.
        let ambiguous = recheck.renamed("see selection-61FIEezO.js");
        assert_eq!(ambiguous, "see selection-61FIEezO.js");
        // Two chunks of the stem, one holding the cited identifier: that one.
        std::fs::write(dist.join("selection-BBBBBBBB.js"), "const callEntry = 1;").unwrap();
        let recheck = Recheck::open(package.path()).unwrap();
        assert_eq!(
            recheck.renamed("`callEntry` (selection-61FIEezO.js)"),
            "`callEntry` (selection-BBBBBBBB.js)"
        );
        let absent = "`formatUnknownToolIdError` (pi-tools-Zz9_aB-1.js)".to_string();
        assert_eq!(
            recheck.holds(&[renamed, ambiguous, absent]).unwrap(),
            vec![true, false, false]
        );
    }

    #[test]
    fn a_reason_cites_files_paths_and_code_identifiers_not_prose() {
        let reason = "the fallback is in dist/agent-tools.before-tool-call-Bb7DJuFB.js and \
                      mcp-transport-DoEl0EB8.mjs (each miss is a fresh formatUnknownToolIdError; \
                      `buildToolExecutionErrorResult` sets isError, read from \
                      execution.taskSupport); `tools` and `$schema` are prose, `agents_wait` is \
                      a name, `ToolSearchRuntime.call` a method; tool_call, GitHub and \
                      ERR_ACCESS_DENIED bare are not checked; see package.json";
        assert_eq!(
            citations(reason),
            Citations {
                files: vec![
                    "dist/agent-tools.before-tool-call-Bb7DJuFB.js".into(),
                    "mcp-transport-DoEl0EB8.mjs".into(),
                ],
                identifiers: vec![
                    "buildToolExecutionErrorResult".into(),
                    "agents_wait".into(),
                    "ToolSearchRuntime".into(),
                    "formatUnknownToolIdError".into(),
                    "isError".into(),
                    "taskSupport".into(),
                ],
            }
        );
    }

    #[test]
    fn a_hash_in_a_file_name_is_not_an_identifier() {
        let cited = citations("seen in local-model-lean-xYz1abCD.js, nothing else");
        assert_eq!(cited.files, vec!["local-model-lean-xYz1abCD.js"]);
        assert!(cited.identifiers.is_empty(), "{cited:?}");
    }

    #[test]
    fn a_star_in_a_cited_file_matches_any_run_of_a_name() {
        assert_eq!(
            citations("the gateway's tool set (dist/tool-resolution-*.mjs)").files,
            vec!["dist/tool-resolution-*.mjs"]
        );
        assert!(glob(
            "dist/tool-resolution-*.mjs",
            "dist/tool-resolution-Ab3_x-9Z.mjs"
        ));
        assert!(!glob(
            "dist/tool-resolution-*.mjs",
            "dist/tool-resolution-Ab3_x-9Z.js"
        ));
        assert!(!glob(
            "dist/tool-resolution-*.mjs",
            "dist/tool-resolution-a/b.mjs"
        ));
        assert!(glob("validation-*.js", "validation-CJZtym2g.js"));
        assert!(!glob("validation-*.js", "other-validation-CJZtym2g.js"));
    }

    /// Only the `[code_mode]` table's comments are read, each at its own line.
    #[test]
    fn code_mode_comments_are_the_table_s_own() {
        let text = "# top\nversion = \"1\"\n[code_mode]\n# dist/a-1.js:3: readEnabled\n\
                    unset_means = \"off\"\n  # dist/b-2.mjs\n[transcript]\n# dist/c.js\n";
        let comments: Vec<(usize, String)> = code_mode_comments(text)
            .into_iter()
            .map(|r| (r.line, r.text))
            .collect();
        assert_eq!(
            comments,
            [
                (4, " dist/a-1.js:3: readEnabled".to_string()),
                (6, " dist/b-2.mjs".to_string())
            ]
        );
        let cited = citations(&comments[0].1);
        assert_eq!(cited.files, ["dist/a-1.js"]);
        assert_eq!(cited.identifiers, ["readEnabled"]);
    }

    #[test]
    fn the_reason_line_is_the_reason_key_of_the_entry() {
        let text =
            "# head\n\n[[finding]]\nscenario = \"s\"\nreason = \"r\"\n\n[[probe]]\nprobe = \"p\"\n";
        assert_eq!(reason_line(text, 3), 5);
        assert_eq!(reason_line(text, 7), 7);
    }
}
