//! Scenarios: what one regression check runs, as data. A scenario names the catalogue, the
//! policy, the lanes (each a gateway config: Tool Search mode, sandbox, config overrides), the
//! prompt, an optional model script, and the exact expectations (claims with parameters,
//! counts). [`load`] reads them from TOML files — the built-in ones in `scenarios/` (compiled in)
//! or from `--scenario-dir` — and checks every value, so what this module hands out is typed and
//! valid. `docs/authoring-scenarios.md` is the guide.
//!
//! This room sits below the suite and the targets: both read scenarios, neither is read here.

pub mod claim;
pub mod fields;
pub mod load;
pub mod names;
pub mod place;
pub mod placeholder;
pub mod template;
pub mod wording;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::catalog::{ToolPolicy, ToolSource};
use std::collections::BTreeMap;
use std::sync::Arc;

use crate::config::{Bridge, CodeModeSettings, NativeSettings, ToolSearchMode, ToolSearchSettings};
use crate::profile::Profile;
use crate::provider::ScriptedTurn;
pub use claim::ClaimId;
pub use load::{
    check_file, load_all, load_file, parse_scenario, scenario_from_json, select, Invalid,
    ScenarioError,
};

/// The reference run's scenario; listed and run first.
pub const REFERENCE_SCENARIO: &str = "tool-search-gateway-e2e";

/// Which gateway a lane runs on; exact expectations are per target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TargetKind {
    /// The project's own gateway, in-process.
    Embedded,
    /// A real OpenClaw gateway, one process per lane.
    Openclaw,
}

impl TargetKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetKind::Embedded => "embedded",
            TargetKind::Openclaw => "openclaw",
        }
    }
}

/// One scenario, resolved: every value checked and typed when the file loaded.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub id: String,
    pub title: String,
    pub objective: String,
    /// Agent id sent as `x-openclaw-agent`.
    pub agent: String,
    /// The user message of the turn.
    pub prompt: String,
    /// The fake tool the turn must reach.
    pub target_tool: String,
    /// Where the target comes from; C6 checks the session log says so.
    pub target_source: ToolSource,
    pub max_output_tokens: Option<u64>,
    /// A second user message sent in the same session after the turn (`follow_up`): P1 holds
    /// its requests to the first turn's prompt-cache prefix.
    pub follow_up: Option<String>,
    /// The entry point the follow-up turn comes in through (`follow_up_entry`; default the
    /// first turn's, `/v1/responses`): openclaw/openclaw#146902, one session's tools changed
    /// with the entry point.
    pub follow_up_entry: Entry,
    pub catalog: CatalogSpec,
    pub policy: ToolPolicy,
    /// An explicit model script for every lane (a lane's own `script` wins). Unset: the mock
    /// follows the directive in the prompt.
    pub script: Option<Vec<ScriptStep>>,
    /// The claims to evaluate, with their parameters. Empty: the regression claims C1–C6.
    pub claims: Vec<ClaimSpec>,
    /// Why the scenario has no runnable lane yet (e.g. it needs a sandbox this build lacks).
    pub pending: Option<String>,
    /// The surface the embedded gateway shows besides the catalogue (`profile`; default
    /// `spec`). A real product shows its own; `suite --profile` replaces it for a run.
    pub profile: Arc<Profile>,
    /// How the scenario runs on a real OpenClaw gateway (`[openclaw]`).
    pub openclaw: OnOpenclaw,
    pub lanes: Vec<Lane>,
    /// Where the scenario was loaded from.
    pub origin: String,
    /// The folder of the file it was read from (`--scenario-dir`, `check`); `None` for a
    /// built-in scenario or one given as text. An outside scenario's snapshots live beside it.
    pub dir: Option<std::path::PathBuf>,
}

impl Scenario {
    /// Shows `profile`'s surface (the scenario's own, or `suite --profile`): the fake tools
    /// take its wording unless the scenario gives its own.
    pub fn set_profile(&mut self, profile: Arc<Profile>) {
        self.catalog.profile_description = profile
            .captured()
            .and_then(|c| c.source.fixture_description.clone());
        self.profile = profile;
    }

    /// Is this one of the scenarios compiled into the binary (or given as text)?
    pub fn is_built_in(&self) -> bool {
        self.dir.is_none()
    }

    /// Does the scenario's `claims` name `claim` for `lane` (no `lanes`: every lane)? What a
    /// lane collects beyond its turn (the invoke batch, the effective tools) follows from this.
    pub fn names_claim_on(&self, claim: ClaimId, lane: &Lane) -> bool {
        self.claims
            .iter()
            .any(|c| c.id == claim && (c.lanes.is_empty() || c.lanes.contains(&lane.name)))
    }
}

/// The catalogue the gateway loads.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogSpec {
    pub plugin_id: String,
    pub size: usize,
    #[serde(default = "yes")]
    pub core_tools: bool,
    /// Description of every fake tool; `{n}` is its number and `{name}` its name. Unset: the
    /// reference run's three sentences.
    #[serde(default)]
    pub description_template: Option<String>,
    /// Fake tool names kept visible to the model (`catalogMode: "direct-only"`).
    #[serde(default)]
    pub direct_only: Vec<String>,
    /// Fake tool names whose execution fails, on purpose: a product with a broken tool, to
    /// show the gate catches it.
    #[serde(default)]
    pub broken: Vec<String>,
    /// MCP fixture servers to attach, each under its own name (e.g. `["calendar", "qa"]`): the
    /// project's own MCP servers, listed with `tools/list` and run with `tools/call`.
    #[serde(default)]
    pub mcp: Vec<String>,
    /// Any stdio MCP server, started by its command (`[[catalog.mcp_servers]]`): servers nobody
    /// here wrote, such as the official ones `scripts/install-mcp-servers.sh` installs. Their
    /// tools are known only once the harness has listed them ([`CatalogSpec::listed`]).
    #[serde(default)]
    pub mcp_servers: Vec<McpServerSpec>,
    /// The tools each of [`CatalogSpec::mcp_servers`] answered `tools/list` with, by server, as
    /// the harness listed them before the run ([`crate::mcp_servers::list_catalogues`]); empty
    /// when the file has just loaded.
    #[serde(skip)]
    pub listed: Arc<BTreeMap<String, Vec<crate::catalog::ToolEntry>>>,
    /// Why this machine cannot start the real servers (their packages or Node not installed),
    /// when the run did not require them: every lane is then not applicable, with this reason.
    #[serde(skip)]
    pub unavailable: Option<String>,
    /// Client tools the caller sends with the turn (`tools` of the `/v1/responses` request), by
    /// name; the gateway catalogues them as `client:client:<name>` and never runs them.
    #[serde(default)]
    pub client: Vec<String>,
    /// The scenario's profile's wording of the fake tools (`[source] fixture_description`), set
    /// with the profile ([`Scenario::set_profile`]); `description_template` overrides it.
    #[serde(skip)]
    pub profile_description: Option<String>,
}

/// One `[[catalog.mcp_servers]]` entry: a stdio MCP server by command, in the words of
/// OpenClaw's `mcp.servers.<name>`. Every string may hold placeholders resolved at run time
/// against the machine ([`crate::mcp_servers::launch`]): `{node}`, `{npm:NAME@VERSION}`,
/// `{cache}`, `{work}`, `{toolsearch-qa}`; a file never holds a machine path.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSpec {
    /// The server's name: its entries' ids are `mcp:<name>:<tool>`, and on the product its tools
    /// are `<name>__<tool>`.
    pub name: String,
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// The working directory (default: the lane's work directory).
    #[serde(default)]
    pub cwd: Option<String>,
}

impl CatalogSpec {
    /// The fake tools' description template: the scenario's own, else its profile's, else
    /// none (the reference run's three sentences).
    pub fn description(&self) -> Option<&str> {
        self.description_template
            .as_deref()
            .or(self.profile_description.as_deref())
    }

    /// Does the catalogue hold servers whose tools are not listed yet (a file just loaded)? Then
    /// names of MCP tools cannot be checked until the run lists them.
    pub fn lists_later(&self) -> bool {
        !self.mcp_servers.is_empty() && self.listed.is_empty() && self.unavailable.is_none()
    }

    /// The tools of every MCP server the catalogue starts, by server: the fixtures' (known in
    /// advance) and the listed real servers'.
    pub fn mcp_tool_names(&self) -> Vec<(String, String)> {
        let fixtures = self.mcp.iter().flat_map(|server| {
            let tools = crate::mcp_fixture::tool_names(server);
            tools.into_iter().map(move |t| (server.clone(), t))
        });
        let listed = self.listed.iter().flat_map(|(server, tools)| {
            tools.iter().map(move |t| (server.clone(), t.name.clone()))
        });
        fixtures.chain(listed).collect()
    }

    /// The server (fixture or real) that serves `tool`.
    pub fn mcp_server_of(&self, tool: &str) -> Option<String> {
        self.mcp_tool_names()
            .into_iter()
            .find(|(_, t)| t == tool)
            .map(|(server, _)| server)
    }

    /// Every MCP server name the catalogue starts: the fixtures, then the real servers.
    pub fn mcp_server_names(&self) -> Vec<String> {
        let real = self.mcp_servers.iter().map(|s| s.name.clone());
        self.mcp.iter().cloned().chain(real).collect()
    }

    /// The fake plugin's tools as this catalogue configures them (names, schemas and the
    /// descriptions [`Self::description`] gives): what the gateway is given to serve.
    pub fn fake_tools(&self) -> Vec<crate::catalog::ToolEntry> {
        crate::catalog::fake::described_fake_tools(&self.plugin_id, self.size, self.description())
    }
}

fn yes() -> bool {
    true
}

/// One turn of an explicit model script: a tool call (`tool` + `arguments`) or a text answer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptStep {
    #[serde(default)]
    pub tool: Option<String>,
    #[serde(default)]
    pub arguments: Option<toml::Value>,
    #[serde(default)]
    pub text: Option<String>,
    /// A call only: the model calls it again, the same way, while its result is an error, at
    /// most this many more times (a model retrying a refused shape).
    #[serde(default)]
    pub retry_on_error: Option<u32>,
    /// A retried call only: what the model answers when its last retry is refused too (as
    /// openclaw/openclaw#135129 was filed: `""`, nothing); unset, the script goes on.
    #[serde(default)]
    pub gave_up: Option<String>,
}

impl ScriptStep {
    /// The mock provider's form of this turn; `None` when the step is neither a call nor a text.
    pub fn to_turn(&self) -> Option<ScriptedTurn> {
        let arguments = || {
            self.arguments
                .as_ref()
                .and_then(|a| serde_json::to_value(a).ok())
                .unwrap_or_else(|| serde_json::json!({}))
        };
        match (&self.tool, &self.text) {
            (Some(name), None) if self.gave_up.is_none() || self.retry_on_error.is_some() => {
                Some(match self.retry_on_error {
                    None => ScriptedTurn::ToolCall {
                        name: name.clone(),
                        arguments: arguments(),
                    },
                    Some(retries) => ScriptedTurn::RetriedCall {
                        name: name.clone(),
                        arguments: arguments(),
                        retries,
                        gave_up: self.gave_up.clone(),
                    },
                })
            }
            (None, Some(text))
                if self.arguments.is_none()
                    && self.retry_on_error.is_none()
                    && self.gave_up.is_none() =>
            {
                Some(ScriptedTurn::Text(text.clone()))
            }
            _ => None,
        }
    }
}

/// An HTTP entry point a turn can come in through; both run the same agent loop in the
/// session the `x-openclaw-session-key` header names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Entry {
    /// `POST /v1/responses` (OpenResponses).
    #[default]
    Responses,
    /// `POST /v1/chat/completions` (OpenAI Chat Completions).
    ChatCompletions,
}

/// A claim to evaluate, with its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSpec {
    pub id: ClaimId,
    /// The tool the claim is about (F1 denied, F2 withdrawn, F3 blocked, F5/F6 targeted).
    pub tool: Option<String>,
    /// Text the error or block reported to the model must contain.
    pub error: Option<String>,
    /// K1: the most bytes any one tool result the model reads may have (a code cell that floods
    /// stderr must not flood the model).
    pub max_result_bytes: Option<u64>,
    /// I1 with a `tool`: the arguments `POST /tools/invoke` runs it with (openclaw/openclaw#93400:
    /// `read` with a path in the agent's workspace).
    pub args: Option<Value>,
    /// Lanes the claim applies to; empty: every lane.
    pub lanes: Vec<String>,
}

/// One gateway configuration the scenario runs under.
#[derive(Debug, Clone)]
pub struct Lane {
    pub name: String,
    /// The `tools.toolSearch` value as written (`false`, `true`, or a table such as
    /// `{ mode = "tools" }`), for the gateway configs of every target.
    pub tool_search: Value,
    /// The same value resolved (spec §2): every decision about the lane reads this.
    pub settings: ToolSearchSettings,
    /// Overrides deep-merged into the lane's gateway config (JSON5 key names), e.g.
    /// `{ tools = { approvals = [...] } }` or `{ catalog = { withdrawAfterSearch = [...] } }`.
    pub config: Option<Value>,
    /// This lane's own model script (wins over the scenario's).
    pub script: Option<Vec<ScriptStep>>,
    /// Stream both ways: the gateway requests the provider with `stream: true`, and the harness
    /// asks the gateway for Server-Sent Events. Claims and snapshots are the same as without.
    pub stream: bool,
    /// How long the gateway waits for one provider response (`models.providers.<id>.timeoutMs`).
    pub provider_timeout_ms: Option<u64>,
    /// An earlier lane of the scenario this one must match: its first request's `tools[]` is
    /// the twin's byte for byte (P1). The lanes differ only in what must not change it, such as
    /// the order the plugin registers its tools in (upstream #140698).
    pub twin: Option<String>,
    /// A native lane (`native = { provider, search }`): the catalogue goes to the provider
    /// deferred and the provider's own tool search finds it (embedded target only).
    pub native: Option<NativeSettings>,
    /// A Code Mode lane (`code_mode = { executor, enabled }`): `exec` + `wait` in place of any
    /// Tool Search surface, whenever it engages ([`Lane::code_mode_engaged`]).
    pub code_mode: Option<CodeModeSettings>,
    /// The lane's model is catalog-preferred (`compat.codeMode = "preferred"`): what the
    /// `"auto"` tier engages for.
    pub catalog_preferred: bool,
    /// Exact figures the lane must show on the embedded target.
    pub expect: LaneExpect,
    /// Exact figures the lane must show on a real OpenClaw gateway (its own core tools differ).
    pub openclaw_expect: LaneExpect,
    /// How this lane runs on a real OpenClaw gateway (`openclaw = {…}`).
    pub openclaw: LaneOnOpenclaw,
}

/// `[openclaw]` of a scenario file: whether the scenario can run on the real product at all.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OnOpenclaw {
    /// Why the product cannot produce this scenario's case: the run reports every lane as not
    /// applicable with this reason instead of running it.
    #[serde(default)]
    pub not_applicable: Option<String>,
}

/// `openclaw = {…}` of a lane: how the lane runs on the real product, when that differs.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneOnOpenclaw {
    /// Why the product cannot produce this lane's case (reported as not applicable).
    #[serde(default)]
    pub not_applicable: Option<String>,
    /// `tools.toolSearch` on the product, in place of the lane's own (which may carry keys only
    /// the embedded gateway knows, such as `sandbox`).
    #[serde(default)]
    pub tool_search: Option<Value>,
    /// Config overrides on the product, in place of the lane's own `config`.
    #[serde(default)]
    pub config: Option<Value>,
}

/// Exact expectations for one lane; unset ones are not checked.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaneExpect {
    /// Tools in the first request's `tools[]` (what the provider received).
    pub declared_tools: Option<usize>,
    pub provider_requests: Option<usize>,
    /// Searches, describes and calls the session log counts (claim C6).
    pub searches: Option<u64>,
    pub describes: Option<u64>,
    pub calls: Option<u64>,
    pub catalog_size: Option<usize>,
    /// Tool results reported to the model as errors (blocks, validation, unavailability).
    pub tool_errors: Option<usize>,
    /// Whether the system prompt carries the capability directory (`### Deferred Tool Schemas`).
    pub directory: Option<bool>,
}

impl LaneExpect {
    /// Is any figure set?
    pub fn is_set(&self) -> bool {
        self.declared_tools.is_some()
            || self.provider_requests.is_some()
            || self.searches.is_some()
            || self.describes.is_some()
            || self.calls.is_some()
            || self.catalog_size.is_some()
            || self.directory.is_some()
            || self.tool_errors.is_some()
    }
}

impl Lane {
    /// A lane with `tools.toolSearch = tool_search` and nothing else set; the value must resolve.
    pub fn new(name: &str, tool_search: Value) -> Result<Lane, String> {
        let settings = ToolSearchSettings::resolve(Some(&tool_search))
            .map_err(|(field, message)| format!("{field}: {message}"))?;
        Ok(Lane {
            name: name.to_string(),
            tool_search,
            settings,
            config: None,
            script: None,
            stream: false,
            provider_timeout_ms: None,
            twin: None,
            native: None,
            code_mode: None,
            catalog_preferred: false,
            expect: LaneExpect::default(),
            openclaw_expect: LaneExpect::default(),
            openclaw: LaneOnOpenclaw::default(),
        })
    }

    /// A native lane named `name`: its catalogue is planned as directory mode plans one
    /// ([`NATIVE_TOOL_SEARCH`]), the provider searches it; the product has no such lane.
    pub fn native(name: &str, native: NativeSettings) -> Lane {
        let mut lane = Lane::new(name, native_tool_search()).expect("directory mode resolves");
        lane.native = Some(native);
        lane.openclaw.not_applicable = Some(NATIVE_ON_OPENCLAW.to_string());
        lane
    }

    /// Is this a native lane (the provider searches)?
    pub fn is_native(&self) -> bool {
        self.native.is_some()
    }

    /// The expectations for a target.
    pub fn expect_for(&self, target: TargetKind) -> &LaneExpect {
        match target {
            TargetKind::Openclaw => &self.openclaw_expect,
            TargetKind::Embedded => &self.expect,
        }
    }

    /// The mode the lane's configured `tools.toolSearch` asks for (`Direct` when off).
    pub fn mode(&self) -> ToolSearchMode {
        self.settings.mode
    }

    /// The control tools the lane's configured mode needs on a surface with `bridge` (none when
    /// Tool Search is off; `exec` and `wait` when Code Mode engages, whatever Tool Search says).
    pub fn controls(&self, bridge: &Bridge) -> Vec<String> {
        if self.code_mode_engaged().is_some() {
            let controls = crate::config::code_mode::CONTROLS;
            return controls.into_iter().map(str::to_string).collect();
        }
        let controls = bridge.controls(self.mode());
        controls.into_iter().map(str::to_string).collect()
    }

    /// The model script this lane runs under, if any.
    pub fn script<'a>(&'a self, scenario: &'a Scenario) -> Option<&'a [ScriptStep]> {
        self.script.as_deref().or(scenario.script.as_deref())
    }

    /// Is this lane's surface every tool, directly (no Tool Search, no Code Mode)?
    pub fn is_direct(&self) -> bool {
        !self.mode().is_tool_search() && self.code_mode_engaged().is_none()
    }

    /// The lane's Code Mode when it engages for the lane's model (`true` always; `"auto"` only
    /// for a catalog-preferred model): it then supersedes any Tool Search the lane sets.
    pub fn code_mode_engaged(&self) -> Option<CodeModeSettings> {
        self.code_mode.filter(|c| c.engages(self.catalog_preferred))
    }
}

/// What a native lane's `tools.toolSearch` is: its catalogue is planned as directory mode
/// plans one (a tool the provider loaded runs by its exact name, checked as a `tool_call` is).
pub const NATIVE_TOOL_SEARCH: &str = "directory";

/// `tools.toolSearch` of a native lane.
pub fn native_tool_search() -> Value {
    json!({ "mode": NATIVE_TOOL_SEARCH })
}

/// Why a native lane does not run on the product.
pub const NATIVE_ON_OPENCLAW: &str = "a native lane is the embedded gateway sending the catalogue \
     deferred to the provider's own tool search; OpenClaw sends its own Tool Search bridge";

/// The declaration a scenario's client tool `name` is sent with in the turn request (as a
/// caller of `/v1/responses` sends its own tools).
pub fn client_tool_declaration(name: &str) -> Value {
    json!({
        "type": "function",
        "name": name,
        "description": format!("Client tool {name}: the caller runs it and sends the result back."),
        "parameters": {
            "type": "object",
            "properties": { "marker": { "type": "string", "description": "Marker echoed by the caller." } },
            "required": ["marker"],
            "additionalProperties": false,
        },
    })
}
