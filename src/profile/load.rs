//! Reading profiles: the data root's (`data/profiles/*.toml`, read at run time from the root
//! src/data_root.rs chose) by name, any other by its file's path. Every error names the file and the field.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;
use thiserror::Error;

use super::model::{
    Captured, Control, CoreTool, DirectoryFormat, ListKind, ProfileSurface, Prompts, RequestShape,
    Section, Source, SurfaceKind,
};
use super::Profile;
use crate::config::{ToolSearchMode, ToolSearchRules};
use crate::data_root::DataKind;

/// A profile that cannot be used: unknown, unreadable, or with a missing or wrong field.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ProfileError {
    #[error("unknown profile {name:?}; built in: {} (or give a profile file's path)", .known.join(", "))]
    Unknown { name: String, known: Vec<String> },
    #[error("cannot read profile file {path}: {message}")]
    Read { path: String, message: String },
    #[error("profile file {origin}: {field}: {message}")]
    Invalid {
        origin: String,
        /// The field at fault (`core_tools[3].exposure`), or `(file)` for a syntax error.
        field: String,
        message: String,
    },
    /// A profile's Code Mode capture (`data/profiles/code-mode/<profile>.toml`) does not read.
    #[error("Code Mode capture {0}")]
    CodeMode(String),
}

impl crate::error::Owned for ProfileError {
    fn exit_code(&self) -> u8 {
        crate::error::Exit::USAGE
    }
}

impl From<ProfileError> for crate::error::Error {
    fn from(e: ProfileError) -> Self {
        crate::error::Error::Profile(crate::error::Cause::new(e))
    }
}

/// The names of the data root's profiles, sorted (an unreadable folder: none; the release
/// facts, read first on every path that needs a profile, report it).
pub fn built_in_names() -> Vec<String> {
    crate::data_root::current()
        .names(DataKind::Profiles)
        .unwrap_or_default()
        .iter()
        .map(|name| file_stem(name).to_string())
        .collect()
}

fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".toml").unwrap_or(name)
}

/// The profile a scenario, a flag or a gateway config names: a built-in profile by name, else
/// a profile file by path. Built-in ones are read once.
pub fn resolve(reference: &str) -> Result<Arc<Profile>, ProfileError> {
    static CACHE: OnceLock<Mutex<Vec<Arc<Profile>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(found) = cache.iter().find(|p| p.reference == reference) {
        return Ok(found.clone());
    }
    let file = crate::data_root::current()
        .file(DataKind::Profiles, &format!("{reference}.toml"))
        .map_err(|e| ProfileError::Read {
            path: crate::data_root::current()
                .path(DataKind::Profiles.dir())
                .display()
                .to_string(),
            message: e.to_string(),
        })?;
    if let Some(file) = file {
        let profile = Arc::new(parse(&file.text, &file.origin, reference)?);
        cache.push(profile.clone());
        return Ok(profile);
    }
    drop(cache);
    let path = Path::new(reference);
    if reference.ends_with(".toml") || path.components().count() > 1 {
        return read_file(path).map(Arc::new);
    }
    Err(ProfileError::Unknown {
        name: reference.to_string(),
        known: built_in_names(),
    })
}

/// Reads a profile file; gateways name it by its absolute path.
pub fn read_file(path: &Path) -> Result<Profile, ProfileError> {
    let text = std::fs::read_to_string(path).map_err(|e| ProfileError::Read {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let reference = std::path::absolute(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string();
    parse(&text, &path.display().to_string(), &reference)
}

/// A profile file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProfileFile {
    name: String,
    about: String,
    surface: SurfaceKind,
    #[serde(default)]
    source: Option<Source>,
    #[serde(default)]
    request: Option<RequestShape>,
    #[serde(default)]
    core_tools: Option<Vec<CoreTool>>,
    #[serde(default)]
    controls: Option<Vec<Control>>,
    #[serde(default)]
    directory: Option<DirectoryFormat>,
    #[serde(default)]
    prompt: Option<Prompts>,
    /// How the surface reads `tools.toolSearch`, its modes and bridge names (unset: the spec's).
    #[serde(default)]
    tool_search: Option<ToolSearchRules>,
}

type Invalid = (String, String);

fn invalid(field: impl Into<String>, message: impl Into<String>) -> Invalid {
    (field.into(), message.into())
}

/// Parses one profile text; `origin` names it in errors, `reference` is how gateways name it.
pub fn parse(text: &str, origin: &str, reference: &str) -> Result<Profile, ProfileError> {
    let error = |(field, message): Invalid| ProfileError::Invalid {
        origin: origin.to_string(),
        field,
        message,
    };
    let deserializer = toml::Deserializer::parse(text).map_err(|e| {
        error(invalid(
            "(file)",
            e.to_string().trim_end().replace('\n', " "),
        ))
    })?;
    let file: ProfileFile = serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let field = e.path().to_string();
        let message = e.into_inner().message().trim_end().to_string();
        error(invalid(field, message))
    })?;
    let tool_search = resolve_rules(&file).map_err(error)?;
    let surface = resolve_surface(&file, &tool_search).map_err(error)?;
    Ok(Profile {
        name: file.name,
        about: file.about,
        origin: origin.to_string(),
        reference: reference.to_string(),
        surface,
        tool_search,
    })
}

/// The `[tool_search]` rules, checked; the spec's when the file has none.
fn resolve_rules(file: &ProfileFile) -> Result<ToolSearchRules, Invalid> {
    match (&file.tool_search, file.surface) {
        (None, _) => Ok(ToolSearchRules::spec()),
        (Some(rules), SurfaceKind::Spec) if *rules != ToolSearchRules::spec() => Err(invalid(
            "tool_search",
            "a `surface = \"spec\"` profile is the engine's own surface: its modes, defaults and \
             bridge names are the spec's (tool-search-spec.md §2, §7)",
        )),
        (Some(rules), _) => match rules.problem() {
            Some((field, message)) => Err(invalid(format!("tool_search.{field}"), message)),
            None => Ok(rules.clone()),
        },
    }
}

fn resolve_surface(file: &ProfileFile, rules: &ToolSearchRules) -> Result<ProfileSurface, Invalid> {
    let parts = [
        ("source", file.source.is_some()),
        ("request", file.request.is_some()),
        ("core_tools", file.core_tools.is_some()),
        ("controls", file.controls.is_some()),
        ("directory", file.directory.is_some()),
        ("prompt", file.prompt.is_some()),
    ];
    match file.surface {
        SurfaceKind::Spec => match parts.iter().find(|(_, set)| *set) {
            Some((field, _)) => Err(invalid(
                *field,
                "a `surface = \"spec\"` profile is the built-in surface and takes no captured parts",
            )),
            None => Ok(ProfileSurface::Spec),
        },
        SurfaceKind::Captured => {
            let (
                Some(source),
                Some(request),
                Some(core_tools),
                Some(controls),
                Some(directory),
                Some(prompt),
            ) = (
                file.source.clone(),
                file.request.clone(),
                file.core_tools.clone(),
                file.controls.clone(),
                file.directory.clone(),
                file.prompt.clone(),
            )
            else {
                let missing = parts.iter().find(|(_, set)| !*set).map_or("?", |p| p.0);
                return Err(invalid(
                    missing,
                    "missing; a `surface = \"captured\"` profile needs source, request, core_tools, \
                     controls, directory and prompt",
                ));
            };
            let captured = Captured {
                source,
                request,
                core_tools,
                controls,
                directory,
                prompt,
            };
            validate(&captured, rules)?;
            Ok(ProfileSurface::Captured(Box::new(captured)))
        }
    }
}

/// The rules serde cannot say: unique names, the bridge's controls per mode (none for a mode the
/// surface lacks), lists where the directory is.
fn validate(c: &Captured, rules: &ToolSearchRules) -> Result<(), Invalid> {
    let mut names = BTreeSet::new();
    for (i, tool) in c.core_tools.iter().enumerate() {
        let field = format!("core_tools[{i}].name");
        if tool.name.is_empty() {
            return Err(invalid(field, "empty"));
        }
        if rules.bridge.is_control(&tool.name) {
            return Err(invalid(
                field,
                format!("{:?} is a control tool; list it under controls", tool.name),
            ));
        }
        if !names.insert(tool.name.as_str()) {
            return Err(invalid(field, format!("{:?} is listed twice", tool.name)));
        }
    }
    for mode in ToolSearchMode::ALL {
        let mut given: Vec<&str> = c
            .controls
            .iter()
            .filter(|t| t.modes.contains(&mode))
            .map(|t| t.name.as_str())
            .collect();
        given.sort_unstable();
        let mut wanted = match rules.has(mode) {
            true => rules.bridge.controls(mode),
            false => Vec::new(),
        };
        wanted.sort_unstable();
        if given != wanted {
            return Err(invalid(
                "controls",
                format!(
                    "mode {} has the controls [{}]; the profile gives [{}]",
                    mode.as_str(),
                    wanted.join(", "),
                    given.join(", ")
                ),
            ));
        }
    }
    let d = &c.directory;
    if d.description_cuts.is_empty() {
        return Err(invalid(
            "directory.description_cuts",
            "give at least one length (0: names only)",
        ));
    }
    if d.modes.contains(&ToolSearchMode::Direct) {
        return Err(invalid(
            "directory.modes",
            "direct mode has no catalogue to list",
        ));
    }
    if let Some(scale) = d.context_scale {
        if scale.tokens_per_char == 0 {
            return Err(invalid(
                "directory.context_scale.tokens_per_char",
                "must be at least 1",
            ));
        }
        if scale.min_chars > d.max_chars {
            return Err(invalid(
                "directory.context_scale.min_chars",
                format!(
                    "{} is above directory.max_chars ({}), the cap",
                    scale.min_chars, d.max_chars
                ),
            ));
        }
    }
    if let Some(m) = d.modes.iter().find(|m| !rules.has(**m)) {
        return Err(invalid(
            "directory.modes",
            format!(
                "{:?} is not a mode of this surface (tool_search.modes)",
                m.as_str()
            ),
        ));
    }
    for mode in ToolSearchMode::ALL {
        let sections = c.prompt.of(mode);
        if rules.has(mode) == sections.is_empty() {
            let field = format!("prompt.{}", mode.as_str());
            return Err(match rules.has(mode) {
                true => invalid(field, "the surface has this mode: give its sections"),
                false => invalid(field, "not a mode of this surface (tool_search.modes)"),
            });
        }
        validate_sections(mode, sections, d.modes.contains(&mode))?;
    }
    Ok(())
}

fn validate_sections(
    mode: ToolSearchMode,
    sections: &[Section],
    has_directory: bool,
) -> Result<(), Invalid> {
    let at = |i: usize, field: &str| format!("prompt.{}[{i}].{field}", mode.as_str());
    for (i, s) in sections.iter().enumerate() {
        if s.after.is_some() && s.list.is_none() {
            return Err(invalid(
                at(i, "after"),
                "text after a list needs the `list`",
            ));
        }
        if s.heading.as_deref().is_some_and(|h| !h.starts_with('#')) {
            return Err(invalid(at(i, "heading"), "a heading line starts with `#`"));
        }
    }
    for kind in [ListKind::Tools, ListKind::Directory] {
        let lists: Vec<usize> = sections
            .iter()
            .enumerate()
            .filter(|(_, s)| s.list == Some(kind))
            .map(|(i, _)| i)
            .collect();
        if lists.len() > 1 {
            return Err(invalid(at(lists[1], "list"), "a second list of this kind"));
        }
        if kind == ListKind::Directory && lists.is_empty() == has_directory {
            let field = format!("prompt.{}", mode.as_str());
            return Err(match has_directory {
                true => invalid(
                    field,
                    "directory.modes has this mode but no section lists the directory",
                ),
                false => invalid(
                    field,
                    "a section lists the directory but directory.modes leaves this mode out",
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn built_in_profiles_load() {
        let names = built_in_names();
        assert!(names.contains(&"spec".to_string()), "{names:?}");
        for name in names {
            let profile = resolve(&name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(profile.name, name);
            assert_eq!(profile.reference, name);
        }
        assert_eq!(resolve("spec").unwrap().surface, ProfileSurface::Spec);
    }

    #[test]
    fn unknown_profile_lists_the_known_ones() {
        let err = resolve("nope").unwrap_err().to_string();
        assert!(
            err.starts_with("unknown profile \"nope\"; built in: "),
            "{err}"
        );
        assert!(err.contains("spec"), "{err}");
    }

    #[test]
    fn a_missing_file_names_its_path() {
        let err = resolve("no/such/profile.toml").unwrap_err().to_string();
        assert!(
            err.starts_with("cannot read profile file no/such/profile.toml: "),
            "{err}"
        );
    }

    fn error_of(text: &str) -> (String, String) {
        match parse(text, "p.toml", "p.toml") {
            Err(ProfileError::Invalid { field, message, .. }) => (field, message),
            other => panic!("expected an invalid field, got {other:?}"),
        }
    }

    #[test]
    fn missing_and_wrong_fields_are_named() {
        let (field, message) = error_of("name = \"x\"\nsurface = \"spec\"\n");
        assert_eq!(field, ".");
        assert!(message.contains("missing field `about`"), "{message}");
        let (field, message) = error_of("name = \"x\"\nabout = \"a\"\nsurface = \"magic\"\n");
        assert_eq!(field, "surface");
        assert!(message.contains("magic"), "{message}");
        let (field, _) = error_of("name = \"x\"\nabout = \"a\"\nsurface = \"captured\"\n");
        assert_eq!(field, "source");
        let (field, message) = error_of(
            "name = \"x\"\nabout = \"a\"\nsurface = \"spec\"\n[request]\nstream = true\nuser_prefix = \"\"\n",
        );
        assert_eq!(field, "request");
        assert!(message.contains("takes no captured parts"), "{message}");
    }

    fn built_in_text(name: &str) -> String {
        crate::data_root::current()
            .file(DataKind::Profiles, &format!("{name}.toml"))
            .unwrap()
            .unwrap()
            .text
            .into_owned()
    }

    #[test]
    fn the_upstream_profile_has_its_own_bridge_and_modes() {
        let up = resolve("openclaw-upstream").unwrap();
        assert_eq!(up.bridge().call, "dispatch_action");
        assert_eq!(up.bridge().code, None);
        assert!(!up.tool_search.has(ToolSearchMode::Code));
        assert_eq!(up.tool_search.when_unset, ToolSearchMode::Tools);
        let product = resolve("openclaw-2026.9.6").unwrap();
        assert_eq!(product.bridge(), &crate::config::Bridge::spec());
        assert_eq!(product.tool_search.when_unset, ToolSearchMode::Tools);
        assert_eq!(
            resolve("spec").unwrap().tool_search,
            ToolSearchRules::spec()
        );
    }

    #[test]
    fn controls_prompts_and_rules_must_agree() {
        let text = built_in_text("openclaw-upstream");
        let (field, message) =
            error_of(&text.replacen("call = \"dispatch_action\"", "call = \"tool_call\"", 1));
        assert_eq!(field, "controls");
        assert_eq!(
            message,
            "mode tools has the controls [tool_call, tool_describe, tool_search]; the profile gives \
             [dispatch_action, tool_describe, tool_search]"
        );
        let code_prompt = "\n[[prompt.code]]\ntext = { chars = 1, bytes = 1, lines = 0 }\n";
        let (field, message) = error_of(&format!("{text}{code_prompt}"));
        assert_eq!(
            (field.as_str(), message.as_str()),
            (
                "prompt.code",
                "not a mode of this surface (tool_search.modes)"
            )
        );
        let (field, _) =
            error_of(&text.replacen("when_enabled = \"tools\"", "when_enabled = \"code\"", 1));
        assert_eq!(field, "tool_search.when_enabled");
        let (field, message) = error_of(&text.replacen("default = 8,", "default = 21,", 1));
        assert_eq!(
            (field.as_str(), message.as_str()),
            ("tool_search.limits.default", "21 is above limits.max (20)")
        );
        let (field, message) = error_of(&text.replacen("min_chars = 768", "min_chars = 20000", 1));
        assert_eq!(
            (field.as_str(), message.as_str()),
            (
                "directory.context_scale.min_chars",
                "20000 is above directory.max_chars (18000), the cap"
            )
        );
        let (field, _) = error_of(&text.replacen("{ chars = 512 }", "{ words = 512 }", 1));
        assert!(field.starts_with("tool_search.batch"), "{field}");
        let spec = "name = \"x\"\nabout = \"a\"\nsurface = \"spec\"\n[tool_search]\n\
                    modes = [\"tools\"]\nwhen_unset = \"direct\"\nwhen_enabled = \"tools\"\n\
                    bridge = { search = \"s\", describe = \"d\", call = \"c\" }\n";
        assert_eq!(error_of(spec).0, "tool_search");
    }

    #[test]
    fn a_wrong_nested_field_has_its_path() {
        let spec = resolve("openclaw-2026.9.6").unwrap();
        assert_eq!(spec.name, "openclaw-2026.9.6");
        let text = built_in_text("openclaw-2026.9.6");
        let broken = text.replacen("exposure = \"", "exposure = \"sometimes-", 1);
        let (field, message) = error_of(&broken);
        assert_eq!(field, "core_tools[0].exposure");
        assert!(message.contains("sometimes-"), "{message}");
        let broken = text.replacen("chars = ", "charz = ", 1);
        let (field, _) = error_of(&broken);
        assert!(
            field.ends_with("user_prefix") || field.contains('.'),
            "{field}"
        );
    }
}
