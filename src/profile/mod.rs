//! Profiles: what a gateway shows the model besides the catalogue — its own core tools, the
//! control tools per mode, the system prompt per mode, and how it renders the capability
//! directory — so the embedded gateway can show what another gateway shows.
//!
//! Two ship in `data/profiles/`: `spec`, the project's own surface (`tool-search-spec.md`), and
//! `openclaw-2026.9.6`, captured from the real product by `toolsearch-qa profile capture`. A
//! captured profile keeps counts, sizes, structure, tool names and the directory's format, not
//! the product's prose: where a text is needed its size is, and the gateway sends visibly
//! synthetic filler of exactly that size ([`text`]). `docs/profiles.md` is the guide.
//!
//! This room sits below the gateway and the scenarios: both read profiles, neither is read here.

pub mod code_mode;
pub mod load;
pub mod model;
pub mod render;
pub mod text;

use std::sync::Arc;

pub use load::{built_in_names, resolve, ProfileError};
pub use model::{Captured, Exposure, ProfileSurface};
pub use text::{Size, Text};

use crate::catalog::fake::core_tools;
use crate::catalog::CatalogMode;
use crate::config::{Bridge, ToolSearchRules};

/// The profile of the project's own surface, and the default of every scenario.
pub const SPEC: &str = "spec";
/// The profile captured from the product the harness is pinned to.
pub const OPENCLAW: &str = "openclaw-2026.9.6";

/// A profile, loaded and checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    pub name: String,
    /// One line on what it describes.
    pub about: String,
    /// Where it was read from (`data/profiles/spec.toml`, a path).
    pub origin: String,
    /// How a gateway config names it: a built-in name, or the file's absolute path.
    pub reference: String,
    pub surface: ProfileSurface,
    /// How this surface reads `tools.toolSearch`, which modes it has and what its bridge tools
    /// are called (`[tool_search]`; the spec's when the file has none).
    pub tool_search: ToolSearchRules,
}

impl Profile {
    /// The built-in `spec` profile.
    pub fn spec() -> Arc<Profile> {
        resolve(SPEC).expect("the built-in spec profile loads (a unit test checks it)")
    }

    /// The captured surface, when the profile has one.
    pub fn captured(&self) -> Option<&Captured> {
        match &self.surface {
            ProfileSurface::Spec => None,
            ProfileSurface::Captured(c) => Some(c),
        }
    }

    /// The names of this surface's bridge tools.
    pub fn bridge(&self) -> &Bridge {
        &self.tool_search.bridge
    }

    pub fn is_spec(&self) -> bool {
        self.surface == ProfileSurface::Spec
    }

    /// Its core tools Code Mode keeps declared beside `exec` and `wait`: the direct-only ones only
    /// (Code Mode catalogues the visible coding tools too).
    pub fn direct_only_declared(&self) -> Vec<String> {
        let mut names: Vec<String> = match &self.surface {
            ProfileSurface::Spec => core_tools()
                .into_iter()
                .filter(|t| t.catalog_mode == CatalogMode::DirectOnly)
                .map(|t| t.name)
                .collect(),
            ProfileSurface::Captured(c) => c
                .core_tools
                .iter()
                .filter(|t| t.exposure == Exposure::DirectOnly)
                .map(|t| t.name.clone())
                .collect(),
        };
        names.sort();
        names
    }

    /// The core tools a gateway with this profile keeps declared in every Tool Search mode,
    /// sorted by name.
    pub fn always_declared(&self) -> Vec<String> {
        let mut names: Vec<String> = match &self.surface {
            ProfileSurface::Spec => core_tools()
                .into_iter()
                .filter(|t| t.catalog_mode != CatalogMode::Default)
                .map(|t| t.name)
                .collect(),
            ProfileSurface::Captured(c) => c
                .core_tools
                .iter()
                .filter(|t| t.exposure != Exposure::Catalogued)
                .map(|t| t.name.clone())
                .collect(),
        };
        names.sort();
        names
    }
}
