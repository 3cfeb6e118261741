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
/// provider asks and the gateway searches with its engine) or Anthropic's search tool.
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
            NativeProvider::Anthropic => &[NativeSearch::Bm25, NativeSearch::Regex],
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
}

/// A resolved native search: a provider and one of its searches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct NativeSettings {
    pub provider: NativeProvider,
    pub search: NativeSearch,
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
        Ok(NativeSettings {
            provider: self.provider,
            search,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_offers_its_own_searches() {
        let resolve = |provider, search| NativeSearchConfig { provider, search }.resolve();
        assert_eq!(
            resolve(NativeProvider::Openai, None).unwrap().search,
            NativeSearch::Server
        );
        assert_eq!(
            resolve(NativeProvider::Anthropic, Some(NativeSearch::Regex)).unwrap(),
            NativeSettings {
                provider: NativeProvider::Anthropic,
                search: NativeSearch::Regex
            }
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
