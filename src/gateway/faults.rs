//! Seeded regressions: one known bug the embedded gateway can be started with, so `selftest` can
//! prove that each claim turns red on the regression it exists for (see docs/selftest.md).
//!
//! Only [`super::serve_seeded`] sets a fault; no config key, flag or environment variable reaches
//! it, and a gateway started with [`super::serve`] has none. Off, each seam is one comparison of
//! an `Option` that is `None`.

use serde::Serialize;

/// One seeded regression of the embedded gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Fault {
    /// A fake plugin tool answers with its neighbour's success marker.
    WrongMarker,
    /// `tool_call` runs the catalogue's next tool instead of the one it names.
    BridgeCallsNeighbour,
    /// A Tool Search lane declares every tool directly and no bridge.
    BridgeDropped,
    /// Direct mode declares one fake tool with a changed description.
    DirectSchemaDrift,
    /// Tool Search's system prompt carries one catalogued tool's parameter schema.
    SchemaInPrompt,
    /// A Tool Search lane declares one catalogued tool besides its controls.
    CatalogueToolDeclared,
    /// Tool Search's system prompt carries 256 KiB of filler.
    PaddedPrompt,
    /// The session log's telemetry record counts one search too many.
    TelemetryMiscount,
    /// The session log's tool results leave out where the tool came from.
    SourceUnrecorded,
    /// The session log leaves out the synthetic records of bridged calls.
    BridgedRecordSkipped,
    /// The surface record counts one declared tool too many.
    SurfaceMiscount,
    /// `tools[]` (a native lane: its deferred tools) is sent in reverse order from the turn's
    /// second request on.
    ToolOrderVaries,
    /// The system prompt carries a fresh id in every request.
    NonceInPrompt,
    /// The catalogue loses its last tool (by id) before the turn is planned.
    CatalogueDropsOne,
    /// A policy-denied tool stays in the surface (the policy is applied only when it runs).
    DeniedSurfaces,
    /// A tool withdrawn after search is still available to `tool_call`.
    WithdrawIgnored,
    /// Approval and `before_tool_call` denies are ignored.
    DenySwallowed,
    /// Code mode keeps `tool_search_code` when its sandbox cannot start.
    NoSandboxFallback,
    /// A code timeout is answered as a successful run.
    TimeoutSwallowed,
    /// `tool_call` replaces arguments its schema rejects with valid ones.
    InputRepaired,
    /// A client tool is run by the gateway instead of handed back.
    ClientToolRun,
    /// Directory mode's call by exact name skips the availability check.
    ExactNameSkipsAvailability,
    /// Directory mode's call by exact name skips the schema check.
    ExactNameSkipsSchema,
    /// Directory mode's call by exact name skips the approval and hook rules.
    ExactNameSkipsGuards,
    /// `tool_search` returns the worst matches first.
    WorstFirstRanker,
    /// The capability directory leaves out the fake plugin's tools (their lines dropped).
    DirectoryDropsPlugin,
    /// A batch `tool_search` answers its groups in reverse query order.
    BatchGroupsReversed,
    /// A batch `tool_search` run over `/tools/invoke` answers only its first group.
    InvokeBatchLosesGroup,
    /// `tools/effective` reports plugin tools as core tools, without their plugin.
    EffectiveLosesPlugin,
    /// A native lane leaves the provider's search call and result out of the next request.
    SearchResultDropped,
    /// A native lane declares its catalogue in full instead of deferred.
    CatalogueNotDeferred,
    /// A native lane replays the provider's hosted search result without the search call before
    /// it (OpenAI's `tool_search_call` item), and a client search's answer without the call it
    /// answers (OpenAI's client `tool_search_call`, Anthropic's `tool_use` of the gateway's
    /// search tool): the provider refuses the orphan.
    SearchCallDropped,
    /// The Anthropic half: a native lane replays the assistant's `tool_search_tool_result`
    /// without the `server_tool_use` block before it. The provider refuses the request; the
    /// lane ends there and V1 judges it with the provider's error.
    ServerToolUseDropped,
    /// `tool_call` reads only `args`: flattened arguments, or ones beside an empty `args`, are
    /// dropped (openclaw/openclaw#96115, #143729).
    FlatArgsDropped,
    /// `tool_call` runs a tool the model already has declared directly, with no guidance
    /// (openclaw/openclaw#126460).
    DirectOnlyBridged,
    /// A turn whose model saw a tool error ends with no answer, and one stopped on a call that
    /// kept failing (a model retrying a refused search) ends as a silent success
    /// (openclaw/openclaw#135129).
    SilentAfterToolError,
    /// A turn has no bound on a call that keeps failing, nor on its provider rounds
    /// (openclaw/openclaw#141743).
    FailureLoopUnbounded,
    /// A search that matches nothing answers the first tools of the catalogue
    /// (openclaw/openclaw#114285).
    NoMatchReturnsAll,
    /// A tool whose MCP server exited is answered as an unknown tool id, its server unnamed: the
    /// model cannot tell the outage from a typo (openclaw/openclaw#137398).
    McpOutageHidden,
    /// Code Mode's `"auto"` tier engages for a model that is not catalog-preferred.
    AutoTierIgnoresModel,
    /// An unavailable Code Mode executor runs the cell anyway (on the sandbox at hand).
    ExecutorFallsBack,
    /// The `exec` quick index carries each tool's description.
    IndexCarriesDescriptions,
}

impl Fault {
    /// The name reports use (kebab-case, as serialised).
    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// Is `fault` the gateway's seeded one?
pub fn seeded(current: Option<Fault>, fault: Fault) -> bool {
    current == Some(fault)
}
