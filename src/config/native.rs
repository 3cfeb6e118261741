//! `tools.nativeSearch` (our extension): instead of hiding the catalogue behind its own bridge,
//! the gateway sends every catalogued tool to the provider *deferred* and lets the provider's
//! own tool search find it — OpenAI Responses' `tool_search` tool (hosted, or executed by the
//! gateway with its engine) or Anthropic Messages' BM25 and regex tool search tools. The gateway
//! speaks that provider's protocol. See docs/native-tool-search.md.

use serde::{Deserialize, Serialize};

/// Whose protocol and tool search a native lane uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NativeProvider {
    /// OpenAI Responses (`POST /v1/responses`) with a `tool_search` tool.
    Openai,
    /// Anthropic Messages (`POST /v1/messages`) with a tool search tool.
    Anthropic,
}

impl NativeProvider {
    pub const ALL: [NativeProvider; 2] = [NativeProvider::Openai, NativeProvider::Anthropic];

    pub fn as_str(self) -> &'static str {
        match self {
            NativeProvider::Openai => "openai",
            NativeProvider::Anthropic => "anthropic",
        }
    }

    /// The search a lane gets when it names none: the provider searches.
    pub fn default_search(self) -> NativeSearch {
        match self {
            NativeProvider::Openai => NativeSearch::Server,
            NativeProvider::Anthropic => NativeSearch::Bm25,
        }
    }
}

/// Which search runs: OpenAI's `execution` (`server`: the provider searches; `client`: the
/// provider asks and the gateway searches with its engine), Anthropic's search tool (`bm25`,
/// `regex`), or Anthropic's client-side search (`client`: the gateway declares its own search
/// tool and answers the model's call with `tool_reference` blocks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NativeSearch {
    Server,
    Client,
    Bm25,
    Regex,
}

impl NativeSearch {
    pub fn as_str(self) -> &'static str {
        match self {
            NativeSearch::Server => "server",
            NativeSearch::Client => "client",
            NativeSearch::Bm25 => "bm25",
            NativeSearch::Regex => "regex",
        }
    }

    /// The searches `provider` offers.
    pub fn of(provider: NativeProvider) -> &'static [NativeSearch] {
        match provider {
            NativeProvider::Openai => &[NativeSearch::Server, NativeSearch::Client],
            NativeProvider::Anthropic => &[
                NativeSearch::Bm25,
                NativeSearch::Regex,
                NativeSearch::Client,
            ],
        }
    }
}

/// `tools.nativeSearch` as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NativeSearchConfig {
    pub provider: NativeProvider,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<NativeSearch>,
    /// OpenAI only: the deferred catalogue grouped in `namespace` tools, one per tool source
    /// (OpenAI's guide recommends namespaces over loose deferred functions).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub namespaces: bool,
}

/// A resolved native search: a provider, one of its searches, and how the catalogue is grouped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct NativeSettings {
    pub provider: NativeProvider,
    pub search: NativeSearch,
    /// The deferred functions sit in namespaces (OpenAI only).
    pub namespaces: bool,
}

impl NativeSettings {
    /// A provider's search with the catalogue as loose deferred tools.
    pub fn flat(provider: NativeProvider, search: NativeSearch) -> NativeSettings {
        NativeSettings {
            provider,
            search,
            namespaces: false,
        }
    }
}

impl NativeSearchConfig {
    /// The settings, or `(field, message)` when the provider has no such search.
    pub fn resolve(self) -> Result<NativeSettings, (String, String)> {
        let search = self.search.unwrap_or(self.provider.default_search());
        let offered = NativeSearch::of(self.provider);
        if !offered.contains(&search) {
            let names: Vec<String> = offered
                .iter()
                .map(|s| format!("{:?}", s.as_str()))
                .collect();
            return Err((
                "tools.nativeSearch.search".into(),
                format!(
                    "{:?} is not a search {} offers; expected {}",
                    search.as_str(),
                    self.provider.as_str(),
                    names.join(" or ")
                ),
            ));
        }
        if self.namespaces && self.provider != NativeProvider::Openai {
            return Err((
                "tools.nativeSearch.namespaces".into(),
                format!(
                    "namespaces are OpenAI's (a `namespace` tool); {} has none",
                    self.provider.as_str()
                ),
            ));
        }
        Ok(NativeSettings {
            provider: self.provider,
            search,
            namespaces: self.namespaces,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_offers_its_own_searches() {
        let resolve = |provider, search| {
            NativeSearchConfig {
                provider,
                search,
                namespaces: false,
            }
            .resolve()
        };
        assert_eq!(
            resolve(NativeProvider::Openai, None).unwrap().search,
            NativeSearch::Server
        );
        assert_eq!(
            resolve(NativeProvider::Anthropic, Some(NativeSearch::Regex)).unwrap(),
            NativeSettings::flat(NativeProvider::Anthropic, NativeSearch::Regex)
        );
        let grouped = |provider| NativeSearchConfig {
            provider,
            search: None,
            namespaces: true,
        };
        assert!(
            grouped(NativeProvider::Openai)
                .resolve()
                .unwrap()
                .namespaces
        );
        assert_eq!(
            grouped(NativeProvider::Anthropic).resolve().unwrap_err().1,
            "namespaces are OpenAI's (a `namespace` tool); anthropic has none"
        );
        assert_eq!(
            resolve(NativeProvider::Anthropic, Some(NativeSearch::Client))
                .unwrap()
                .search,
            NativeSearch::Client
        );
        assert_eq!(
            resolve(NativeProvider::Openai, Some(NativeSearch::Bm25)).unwrap_err(),
            (
                "tools.nativeSearch.search".to_string(),
                "\"bm25\" is not a search openai offers; expected \"server\" or \"client\""
                    .to_string()
            )
        );
    }
}
