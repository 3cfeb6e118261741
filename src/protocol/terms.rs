//! The terms the records and the reports are written in, below every room that uses them: where
//! a tool comes from, the mode a lane runs in, counts per source. The catalogue, the config and
//! the engine re-export them where they were first named.

use serde::{Deserialize, Serialize};

/// Where a tool comes from (spec §3). Serialised lower-case, as on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolSource {
    Openclaw,
    Mcp,
    Client,
}

impl ToolSource {
    pub fn as_str(self) -> &'static str {
        match self {
            ToolSource::Openclaw => "openclaw",
            ToolSource::Mcp => "mcp",
            ToolSource::Client => "client",
        }
    }

    /// Only OpenClaw's own tools (core and plugins) have schemas we trust enough to
    /// walk for search text, render as signatures and validate against.
    pub fn is_trusted(self) -> bool {
        self == ToolSource::Openclaw
    }
}

/// What the model is shown: every schema (`Direct`, Tool Search off) or one of Tool Search's
/// compact surfaces (spec §7). The one mode type of the project: the config resolves to it, the
/// engine plans a surface in it, scenarios, the session log and `compare` name lanes by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolSearchMode {
    Direct,
    Code,
    Tools,
    Directory,
}

impl ToolSearchMode {
    /// Every mode, in report order.
    pub const ALL: [ToolSearchMode; 4] = [
        ToolSearchMode::Direct,
        ToolSearchMode::Code,
        ToolSearchMode::Tools,
        ToolSearchMode::Directory,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ToolSearchMode::Direct => "direct",
            ToolSearchMode::Code => "code",
            ToolSearchMode::Tools => "tools",
            ToolSearchMode::Directory => "directory",
        }
    }

    /// The mode named `name` (`direct`, `code`, `tools`, `directory`).
    pub fn from_name(name: &str) -> Option<ToolSearchMode> {
        ToolSearchMode::ALL.into_iter().find(|m| m.as_str() == name)
    }

    /// Is Tool Search on (any mode but `Direct`)?
    pub fn is_tool_search(self) -> bool {
        self != ToolSearchMode::Direct
    }
}

/// Counts per source, as telemetry reports them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceCounts {
    pub openclaw: usize,
    pub mcp: usize,
    pub client: usize,
}
