//! The adopted releases of the data root (`data/releases/openclaw-<v>.toml`), read and checked
//! once per process: the target, the default version, `adopt`'s base release and the tests all
//! ask this one value, so a command parses the release files once instead of once per question.
//!
//! It lives with the release facts rather than in `releases/` because the target reads it and
//! `releases/` (adopt, diff) sits above `targets/`.

use std::sync::OnceLock;

use super::release::{Found, Release, ReleaseError, Version};
use crate::data_root::{DataKind, DataRoot};

/// One adopted release: its facts and the file they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Adopted {
    pub release: Release,
    /// `data/releases/openclaw-<v>.toml` (under the root when it is not the working directory).
    pub origin: String,
}

/// Every release of a data root with its parsed facts, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleaseCatalogue {
    releases: Vec<Adopted>,
    /// The folder they came from (named when it holds none).
    dir: String,
}

impl ReleaseCatalogue {
    /// Reads and checks every release file of `root`; the first broken one is the error.
    pub fn load(root: &DataRoot) -> Result<ReleaseCatalogue, ReleaseError> {
        let mut releases = root
            .files(DataKind::Releases)?
            .iter()
            .map(|file| {
                Release::parse(&file.text, &file.origin).map(|release| Adopted {
                    release,
                    origin: file.origin.clone(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        releases.sort_by(|a, b| a.release.version.cmp(&b.release.version));
        Ok(ReleaseCatalogue {
            releases,
            dir: root.path(DataKind::Releases.dir()).display().to_string(),
        })
    }

    /// The catalogue of the process's data root ([`crate::data_root::current`], itself chosen
    /// once), loaded on first use; a broken file is the same error to every caller.
    pub fn current() -> Result<&'static ReleaseCatalogue, ReleaseError> {
        static CURRENT: OnceLock<Result<ReleaseCatalogue, ReleaseError>> = OnceLock::new();
        CURRENT
            .get_or_init(|| ReleaseCatalogue::load(crate::data_root::current()))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Every release, oldest first.
    pub fn releases(&self) -> &[Adopted] {
        &self.releases
    }

    /// The versions, oldest first.
    pub fn versions(&self) -> impl Iterator<Item = &Version> {
        self.releases.iter().map(|a| &a.release.version)
    }

    /// The newest release (what a run drives when no version is asked for).
    pub fn newest(&self) -> Option<&Adopted> {
        self.releases.last()
    }

    /// Where the release files are (`data/releases`, under the root).
    pub fn dir(&self) -> &str {
        &self.dir
    }

    /// The versions nearest to `version` first ([`Version::distance`]; on a tie the newer).
    pub fn nearest_first(&self, version: &Version) -> Vec<&Version> {
        let mut versions: Vec<&Version> = self.versions().collect();
        versions.sort_by_key(|v| (version.distance(v), std::cmp::Reverse(*v)));
        versions
    }

    /// The facts for `version`: its own file, else the nearest release's on either side
    /// ([`Self::nearest_first`]), which [`Found::why`] explains.
    pub fn find(&self, version: &Version) -> Result<Found, ReleaseError> {
        let exact = self.releases.iter().find(|a| &a.release.version == version);
        let nearest = self.releases.iter().min_by_key(|a| {
            let v = &a.release.version;
            (version.distance(v), std::cmp::Reverse(v.clone()))
        });
        let adopted = exact
            .or(nearest)
            .ok_or_else(|| ReleaseError::Empty(self.dir.clone()))?;
        Ok(Found {
            release: adopted.release.clone(),
            origin: adopted.origin.clone(),
            exact: exact.is_some(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Bridge, ToolSearchMode};
    use crate::targets::openclaw::release::AgentsShape;

    fn v(text: &str) -> Version {
        text.parse().unwrap()
    }

    fn catalogue() -> &'static ReleaseCatalogue {
        ReleaseCatalogue::current().unwrap()
    }

    #[test]
    fn built_in_releases_load() {
        assert!(!catalogue().releases().is_empty());
        let versions: Vec<&Version> = catalogue().versions().collect();
        assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
        let found = catalogue().find(&v("2026.9.6")).unwrap();
        assert!(found.exact);
        assert_eq!(found.origin, "data/releases/openclaw-2026.9.6.toml");
        let r = found.release;
        assert_eq!(r.node, vec![24, 26]);
        assert_eq!(r.unset_means, Some(ToolSearchMode::Tools));
        assert_eq!(r.bridged_by(ToolSearchMode::Tools), Some("tool_call"));
        assert_eq!(r.bridged_by(ToolSearchMode::Code), Some("tool_search_code"));
        assert_eq!(r.bridged_by(ToolSearchMode::Direct), None);
        assert_eq!(r.rules().problem(), None);
        assert_eq!(r.rules().when_unset, ToolSearchMode::Tools);
        assert_eq!(r.rules().when_enabled, ToolSearchMode::Code);
        assert_eq!(r.rules().bridge, Bridge::spec());
        assert_eq!(
            r.mode(ToolSearchMode::Directory)
                .unwrap()
                .tool_search_json(),
            serde_json::json!({"mode": "directory"})
        );
        assert_eq!(
            r.transcript.compressed_column.as_deref(),
            Some("event_zstd")
        );
        assert_eq!(r.config.agents, AgentsShape::Entries);
        assert!(r.config.catalog_refresh);
        assert!(r.redactions.is_empty());
        assert_eq!(
            r.tool_search_keys,
            [
                "enabled",
                "mode",
                "codeTimeoutMs",
                "searchDefaultLimit",
                "maxSearchLimit"
            ]
        );
    }

    /// The release-specific redactions: a call id in one of the two forms the product has
    /// replayed (2026.5.12's `call<hex>`, the `call_call<hex>_<hex>` of the June and July lines),
    /// and the line of Node's own code in a code cell's error preview. Each is measured on the
    /// release that carries it; the releases from 2026.8.1 on need none.
    #[test]
    fn release_redactions_are_the_known_call_id_forms_and_the_node_frame_line() {
        let known = [
            r"\bcall[0-9a-f]{16}\b",
            r"\bcall_call[0-9a-f]{16}_[0-9a-f]{10}\b",
            "node:internal/process/promises:[0-9]+",
        ];
        let august: Version = "2026.8.1".parse().unwrap();
        for adopted in catalogue().releases() {
            let forms: Vec<&str> = adopted
                .release
                .redactions
                .iter()
                .map(|r| r.pattern.as_str())
                .collect();
            let origin = &adopted.origin;
            assert!(
                forms.iter().all(|f| known.contains(f)),
                "{origin}: {forms:?}"
            );
            let call_forms = forms.iter().filter(|f| f.contains("call")).count();
            if adopted.release.version >= august {
                assert!(forms.is_empty(), "{origin}: {forms:?}");
            } else {
                assert_eq!(call_forms, 1, "{origin}: one call-id form: {forms:?}");
            }
        }
    }

    /// A release's surface is described twice: its facts here drive the real gateway, its
    /// captured profile drives the embedded one. They must say the same.
    #[test]
    fn every_release_profile_agrees_with_its_release_facts() {
        let mut checked = Vec::new();
        for Adopted { release, origin } in catalogue().releases() {
            let name = format!("openclaw-{}", release.version);
            let Ok(profile) = crate::profile::resolve(&name) else {
                continue;
            };
            assert_eq!(profile.tool_search, release.rules(), "{name} vs {origin}");
            assert_eq!(
                profile.always_declared(),
                release.direct_only(),
                "{name}'s direct-only and visible core tools vs {origin}'s direct_only"
            );
            checked.push(release.version.to_string());
        }
        assert!(checked.contains(&"2026.9.6".to_string()), "{checked:?}");
        assert!(checked.contains(&"2026.9.5".to_string()), "{checked:?}");
    }

    #[test]
    fn an_unknown_version_borrows_the_nearest_release_on_either_side() {
        // 2026.9.4 sits between 2026.8.2 and 2026.9.5: one patch from the newer.
        let found = catalogue().find(&v("2026.9.4")).unwrap();
        if !found.exact {
            assert!(
                found.release.version.to_string().starts_with("2026.9."),
                "{}",
                found.why(&v("2026.9.4"))
            );
        }
        assert_eq!(v("2026.9.4").distance(&v("2026.9.5")), (1, false));
        assert!(v("2026.9.4").distance(&v("2026.9.5")) < v("2026.9.4").distance(&v("2026.8.2")));
        let borrowed = Found {
            release: catalogue().find(&v("2026.9.6")).unwrap().release,
            origin: "data/releases/openclaw-2026.9.6.toml".into(),
            exact: false,
        };
        assert_eq!(
            borrowed.why(&v("2026.9.5")),
            "data/releases/openclaw-2026.9.6.toml (openclaw 2026.9.6: the adopted release nearest \
             to 2026.9.5 by version, newer)"
        );
        let found = catalogue().find(&v("2099.1.1")).unwrap();
        assert!(!found.exact);
        let newest = &catalogue().newest().unwrap().release;
        assert_eq!(found.release.version, newest.version);
        let oldest = &catalogue().releases()[0].release;
        assert_eq!(&catalogue().find(&v("2000.1.1")).unwrap().release, oldest);
        assert_eq!(
            catalogue().nearest_first(&v("2026.9.4"))[..2],
            [&v("2026.9.4"), &v("2026.9.5")]
        );
    }

    #[test]
    fn an_empty_root_names_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("data/releases")).unwrap();
        std::fs::create_dir_all(dir.path().join("data/profiles")).unwrap();
        let root = DataRoot::given(dir.path()).unwrap();
        let empty = ReleaseCatalogue::load(&root).unwrap();
        let error = empty.find(&v("2026.9.6")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "no release data in {}",
                dir.path().join("data/releases").display()
            )
        );
    }
}
