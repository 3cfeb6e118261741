//! What one column of the comparison runs: one of the gateway's own modes (Tool Search off, or
//! one of its bridges), or a native lane — the catalogue sent deferred to the provider, whose
//! own tool search finds the tool (the mock's, standing in for OpenAI's or Anthropic's).

use serde::{Serialize, Serializer};
use serde_json::Value;

use crate::config::{NativeProvider, NativeSettings, ToolSearchMode};
use crate::scenario::Lane;

/// A compared mode, in report order: the gateway's modes, then the native ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CompareMode {
    Gateway(ToolSearchMode),
    /// Code Mode (`tools.codeMode`): `exec` + `wait`, one JavaScript cell over the catalogue.
    CodeMode,
    /// The provider's own search with its default kind (OpenAI hosted, Anthropic BM25).
    Native(NativeProvider),
}

impl CompareMode {
    /// Every mode `compare` knows, in report order.
    pub const ALL: [CompareMode; 7] = [
        CompareMode::Gateway(ToolSearchMode::Direct),
        CompareMode::Gateway(ToolSearchMode::Code),
        CompareMode::Gateway(ToolSearchMode::Tools),
        CompareMode::Gateway(ToolSearchMode::Directory),
        CompareMode::CodeMode,
        CompareMode::Native(NativeProvider::Openai),
        CompareMode::Native(NativeProvider::Anthropic),
    ];

    /// What `compare` runs when `--modes` is not given: the gateway's modes (a product runs
    /// those too).
    pub const DEFAULT: [CompareMode; 4] = [
        CompareMode::Gateway(ToolSearchMode::Direct),
        CompareMode::Gateway(ToolSearchMode::Code),
        CompareMode::Gateway(ToolSearchMode::Tools),
        CompareMode::Gateway(ToolSearchMode::Directory),
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CompareMode::Gateway(mode) => mode.as_str(),
            CompareMode::CodeMode => "code-mode",
            CompareMode::Native(NativeProvider::Openai) => "native-openai",
            CompareMode::Native(NativeProvider::Anthropic) => "native-anthropic",
        }
    }

    pub fn from_name(name: &str) -> Option<CompareMode> {
        CompareMode::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// The native settings of a native mode.
    pub fn native(self) -> Option<NativeSettings> {
        match self {
            CompareMode::Native(provider) => {
                Some(NativeSettings::flat(provider, provider.default_search()))
            }
            CompareMode::Gateway(_) | CompareMode::CodeMode => None,
        }
    }

    /// Is this Tool Search off (the ratios' base)?
    pub fn is_direct(self) -> bool {
        self == CompareMode::Gateway(ToolSearchMode::Direct)
    }

    /// The lane that runs this mode: `tools.toolSearch` is `false` for direct, `{mode = "…"}`
    /// for a bridge; a native lane for a native mode.
    pub fn lane(self) -> Lane {
        match self {
            CompareMode::Gateway(ToolSearchMode::Direct) => {
                Lane::new("direct", Value::Bool(false)).expect("direct resolves")
            }
            CompareMode::Gateway(mode) => {
                Lane::new(mode.as_str(), serde_json::json!({ "mode": mode.as_str() }))
                    .expect("every mode resolves")
            }
            CompareMode::CodeMode => {
                let mut lane =
                    Lane::new(self.as_str(), Value::Bool(false)).expect("direct resolves");
                lane.code_mode = Some(crate::config::CodeModeSettings::default());
                lane
            }
            CompareMode::Native(_) => {
                let native = self.native().expect("a native mode");
                Lane::native(self.as_str(), native)
            }
        }
    }

    /// The mode a lane of [`CompareMode::lane`] runs.
    pub fn of_lane(lane: &Lane) -> CompareMode {
        match lane.native {
            Some(native) => CompareMode::Native(native.provider),
            None if lane.code_mode_engaged().is_some() => CompareMode::CodeMode,
            None => CompareMode::Gateway(lane.mode()),
        }
    }
}

impl From<ToolSearchMode> for CompareMode {
    fn from(mode: ToolSearchMode) -> Self {
        CompareMode::Gateway(mode)
    }
}

impl PartialEq<ToolSearchMode> for CompareMode {
    fn eq(&self, other: &ToolSearchMode) -> bool {
        *self == CompareMode::Gateway(*other)
    }
}

impl std::fmt::Display for CompareMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for CompareMode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_report_order() {
        let names: Vec<&str> = CompareMode::ALL.iter().map(|m| m.as_str()).collect();
        assert_eq!(
            names,
            [
                "direct",
                "code",
                "tools",
                "directory",
                "code-mode",
                "native-openai",
                "native-anthropic"
            ]
        );
        for mode in CompareMode::ALL {
            assert_eq!(CompareMode::from_name(mode.as_str()), Some(mode));
            assert_eq!(CompareMode::of_lane(&mode.lane()), mode);
        }
        let mut sorted = CompareMode::ALL.to_vec();
        sorted.reverse();
        sorted.sort();
        assert_eq!(sorted, CompareMode::ALL);
    }
}
