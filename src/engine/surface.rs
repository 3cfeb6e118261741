//! What the model sees per mode (spec §7), decided once per run from the policy-filtered tools.
//!
//! The order of decisions matters and follows spec §2/§3: first an unavailable code runtime turns
//! `code` into `tools`, then a control tool the policy does not allow turns compaction off, and only
//! then is the catalogue built from what is left.

use std::sync::{Arc, OnceLock};

use serde_json::{json, Value};

use super::embed::Embedder;
use super::{SearchLimits, ToolCatalog, ToolSearchRun};
use crate::catalog::{
    entry_id, CatalogMode, FunctionDeclaration, ToolEntry, ToolPolicy, ToolSource,
};
use crate::config::ToolSearchMode;

pub use crate::config::{
    Bridge, ControlRole, CONTROL_TOOLS, TOOL_CALL, TOOL_DESCRIBE, TOOL_SEARCH, TOOL_SEARCH_CODE,
};

/// Inputs to [`Surface::plan`].
pub struct SurfacePlan<'a> {
    /// `Direct`: Tool Search off.
    pub requested: ToolSearchMode,
    /// Every tool of the run (core, plugin, MCP, client), before policy.
    pub tools: Vec<ToolEntry>,
    pub policy: &'a ToolPolicy,
    pub limits: SearchLimits,
    /// Whether the isolated code runtime can start here; `Err` says why not.
    pub code_runtime: Result<(), String>,
    /// The embedding model when the hybrid ranker is configured (`None`: lexical).
    pub embedder: Option<Arc<Embedder>>,
    /// The names of the surface's bridge tools (the gateway's profile says them).
    pub bridge: Arc<Bridge>,
}

/// The model-visible surface of one run and, when Tool Search is on, its catalogue. Cheap to
/// clone: the tool lists and the catalogue are shared.
#[derive(Clone)]
pub struct Surface {
    pub mode: ToolSearchMode,
    /// Tools declared to the model with their full schemas, sorted by name.
    pub visible: Arc<[ToolEntry]>,
    /// Control tools declared to the model, sorted by name.
    pub controls: Vec<String>,
    /// The names of the bridge tools, and what each does.
    pub bridge: Arc<Bridge>,
    /// The catalogue behind the controls (`None` in direct mode).
    pub run: Option<ToolSearchRun>,
    /// Every policy-allowed tool of the run: what a `call` may still reach.
    pub eligible: Arc<[ToolEntry]>,
    /// Why the surface differs from what was asked (fallbacks), in order.
    pub notes: Vec<String>,
    /// Code Mode's additions when it engaged (`exec` + `wait` are then the controls).
    pub code_mode: Option<Arc<super::code_mode::CodeModeSurface>>,
}

impl Surface {
    pub fn plan(plan: SurfacePlan<'_>) -> Surface {
        let mut notes = Vec::new();
        let mut eligible: Vec<ToolEntry> = plan
            .tools
            .into_iter()
            .filter(|t| !plan.bridge.is_control(&t.name) && plan.policy.allows(&t.name, &t.id))
            .collect();
        eligible.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.id.cmp(&b.id)));

        let mut mode = plan.requested;
        if mode == ToolSearchMode::Code {
            if let Err(why) = &plan.code_runtime {
                notes.push(format!(
                    "code sandbox unavailable ({why}); mode code fell back to tools"
                ));
                mode = ToolSearchMode::Tools;
            }
        }
        let denied: Vec<&str> = plan
            .bridge
            .controls(mode)
            .into_iter()
            .filter(|c| !plan.policy.allows_control(c, &control_id(c)))
            .collect();
        if !denied.is_empty() {
            notes.push(format!(
                "control tool {} not allowed by policy; Tool Search off, all tools direct",
                denied.join(", ")
            ));
            mode = ToolSearchMode::Direct;
        }
        if mode == ToolSearchMode::Direct {
            let eligible: Arc<[ToolEntry]> = eligible.into();
            return Surface {
                mode,
                visible: eligible.clone(),
                controls: Vec::new(),
                bridge: plan.bridge,
                run: None,
                eligible,
                notes,
                code_mode: None,
            };
        }

        let keeps_visible = |t: &ToolEntry| {
            t.catalog_mode != CatalogMode::Default
                || (mode == ToolSearchMode::Directory && t.source == ToolSource::Client)
        };
        let visible: Vec<ToolEntry> = eligible
            .iter()
            .filter(|t| keeps_visible(t))
            .cloned()
            .collect();
        let catalogued: Vec<ToolEntry> = eligible
            .iter()
            .filter(|t| t.catalog_mode != CatalogMode::DirectOnly)
            .cloned()
            .collect();
        let catalog = match &plan.embedder {
            None => ToolCatalog::new(catalogued, plan.limits),
            Some(embedder) => {
                match ToolCatalog::hybrid(catalogued.clone(), plan.limits, embedder.clone()) {
                    Ok(catalog) => catalog,
                    Err(why) => {
                        notes.push(format!(
                            "hybrid ranker unavailable ({why}); search is lexical"
                        ));
                        ToolCatalog::new(catalogued, plan.limits)
                    }
                }
            }
        };
        let run = ToolSearchRun::new(catalog);
        let mut controls: Vec<String> = plan
            .bridge
            .controls(mode)
            .into_iter()
            .map(str::to_string)
            .collect();
        controls.sort_unstable();
        Surface {
            mode,
            visible: visible.into(),
            controls,
            bridge: plan.bridge,
            run: Some(run),
            eligible: eligible.into(),
            notes,
            code_mode: None,
        }
    }

    /// The `tools[]` array for the provider request: controls and visible tools, sorted by name.
    pub fn declarations(&self) -> Vec<FunctionDeclaration> {
        if let Some(code_mode) = &self.code_mode {
            let mut declarations = code_mode.controls().to_vec();
            declarations.extend(self.visible.iter().map(ToolEntry::function_declaration));
            declarations.sort_by(|a, b| a.name.cmp(&b.name));
            return declarations;
        }
        let mut declarations: Vec<FunctionDeclaration> = self
            .controls
            .iter()
            .filter_map(|c| Some(control_declaration(self.bridge.role(c)?, c)))
            .collect();
        declarations.extend(self.visible.iter().map(ToolEntry::function_declaration));
        declarations.sort_by(|a, b| a.name.cmp(&b.name));
        declarations
    }

    /// The same surface for another run: the catalogue is shared, the counters start at zero.
    pub fn for_new_run(&self) -> Surface {
        Surface {
            run: self.run.as_ref().map(ToolSearchRun::fresh),
            ..self.clone()
        }
    }

    /// Names of every declared tool, sorted.
    pub fn declared_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .controls
            .iter()
            .cloned()
            .chain(self.visible.iter().map(|t| t.name.clone()))
            .collect();
        names.sort();
        names
    }

    /// Is this name a control tool of this surface?
    pub fn is_control(&self, name: &str) -> bool {
        self.controls.iter().any(|c| c == name)
    }

    /// What the control tool `name` of this surface does (`None`: not one of its controls).
    pub fn role(&self, name: &str) -> Option<ControlRole> {
        if self.code_mode.is_some() {
            return (name == super::code_mode::EXEC).then_some(ControlRole::Code);
        }
        self.is_control(name)
            .then(|| self.bridge.role(name))
            .flatten()
    }
}

/// Control tools are OpenClaw core tools for policy purposes.
pub fn control_id(name: &str) -> String {
    entry_id(ToolSource::Openclaw, "core", name)
}

/// The declaration of the control tool of `role`, named `name` (our own descriptions). Its
/// schema is made once per role.
pub fn control_declaration(role: ControlRole, name: &str) -> FunctionDeclaration {
    static SCHEMAS: OnceLock<Vec<(ControlRole, &'static str, Arc<Value>)>> = OnceLock::new();
    let schemas = SCHEMAS.get_or_init(|| {
        [
            ControlRole::Code,
            ControlRole::Search,
            ControlRole::Describe,
            ControlRole::Call,
        ]
        .into_iter()
        .map(|role| {
            let (description, parameters) = control_schema(role);
            (role, description, Arc::new(parameters))
        })
        .collect()
    });
    let (_, description, parameters) = schemas
        .iter()
        .find(|(r, _, _)| *r == role)
        .expect("every role has a schema");
    FunctionDeclaration::new(name, *description, parameters.clone())
}

/// The description and input schema of a control tool.
fn control_schema(role: ControlRole) -> (&'static str, Value) {
    match role {
        ControlRole::Code => (
            "Find and run hidden tools with JavaScript. The code is the body of an async function with \
             `openclaw.tools.search(query, {limit})`, `openclaw.tools.describe(id)` and \
             `openclaw.tools.call(id, args)` (each returns a promise) and `console.log`. Return the value you \
             want back; it arrives with the logs and search telemetry.",
            json!({
                "type": "object",
                "properties": { "code": { "type": "string", "description": "Body of an async JavaScript function." } },
                "required": ["code"],
                "additionalProperties": false
            }),
        ),
        ControlRole::Search => (
            "Search the hidden tool catalogue. Returns candidates with an id and a compact input signature; \
             pass `queries` to run several searches at once.",
            json!({
                "type": "object",
                "properties": {
                    "query": { "type": ["string", "null"], "description": "What the tool should do, in a few words." },
                    "limit": { "type": ["integer", "null"], "minimum": 1, "description": "Most candidates to return." },
                    "queries": {
                        "type": ["array", "null"],
                        "maxItems": 16,
                        "items": {
                            "type": "object",
                            "properties": {
                                "query": { "type": "string", "minLength": 1, "maxLength": 512 },
                                "limit": { "type": "integer", "minimum": 1 }
                            },
                            "required": ["query"],
                            "additionalProperties": false
                        }
                    }
                },
                "additionalProperties": false
            }),
        ),
        ControlRole::Describe => (
            "Show the full input schema of a catalogue tool before calling it.",
            json!({
                "type": "object",
                "properties": { "id": { "type": "string", "description": "Tool id from tool_search, or its exact name." } },
                "required": ["id"],
                "additionalProperties": false
            }),
        ),
        ControlRole::Call => (
            "Call a catalogue tool by id with its arguments. The result is the envelope {tool, result}.",
            json!({
                "type": "object",
                "properties": {
                    "id": { "type": "string", "description": "Tool id from tool_search, or its exact name." },
                    "args": { "type": "object", "description": "Arguments for the tool." }
                },
                "required": ["id"],
                "additionalProperties": false
            }),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::fake::{core_tools, fake_plugin_tools, FIXTURE_PLUGIN_ID};

    fn tools() -> Vec<ToolEntry> {
        let mut t = core_tools();
        t.extend(fake_plugin_tools(FIXTURE_PLUGIN_ID, 36));
        t
    }

    fn plan(requested: ToolSearchMode, policy: &ToolPolicy, code: Result<(), String>) -> Surface {
        Surface::plan(SurfacePlan {
            requested,
            tools: tools(),
            policy,
            limits: SearchLimits::default(),
            code_runtime: code,
            embedder: None,
            bridge: Arc::new(Bridge::spec()),
        })
    }

    #[test]
    fn direct_declares_every_allowed_tool() {
        let s = plan(ToolSearchMode::Direct, &ToolPolicy::default(), Ok(()));
        assert_eq!(s.mode, ToolSearchMode::Direct);
        assert_eq!(s.declarations().len(), 43);
        assert!(s.run.is_none());
    }

    #[test]
    fn tools_mode_declares_controls_and_direct_only() {
        let s = plan(ToolSearchMode::Tools, &ToolPolicy::default(), Ok(()));
        assert_eq!(
            s.declared_names(),
            vec![
                "session_status",
                "tool_call",
                "tool_describe",
                "tool_search"
            ]
        );
        assert_eq!(s.run.as_ref().unwrap().catalog().len(), 42);
    }

    #[test]
    fn unavailable_code_runtime_falls_back_to_tools_before_compaction() {
        let s = plan(
            ToolSearchMode::Code,
            &ToolPolicy::default(),
            Err("no isolation".into()),
        );
        assert_eq!(s.mode, ToolSearchMode::Tools);
        assert_eq!(
            s.notes,
            vec!["code sandbox unavailable (no isolation); mode code fell back to tools"]
        );
    }

    #[test]
    fn denied_control_keeps_everything_direct() {
        let policy = ToolPolicy {
            deny: vec!["tool_call".into()],
            ..Default::default()
        };
        let s = plan(ToolSearchMode::Tools, &policy, Ok(()));
        assert_eq!(s.mode, ToolSearchMode::Direct);
        assert_eq!(s.declarations().len(), 43);
    }

    #[test]
    fn denied_tools_never_enter_the_catalogue() {
        let policy = ToolPolicy {
            deny: vec!["fake_plugin_tool_0*".into()],
            ..Default::default()
        };
        let s = plan(ToolSearchMode::Code, &policy, Ok(()));
        let catalog = s.run.as_ref().unwrap().catalog();
        assert_eq!(catalog.len(), 42 - 9);
        assert!(catalog
            .entries()
            .iter()
            .all(|e| !e.name.starts_with("fake_plugin_tool_0")));
    }

    #[test]
    fn allow_list_without_controls_in_also_allow_disables_compaction() {
        let policy = ToolPolicy {
            allow: Some(vec!["*fake*".into()]),
            ..Default::default()
        };
        let s = plan(ToolSearchMode::Code, &policy, Ok(()));
        assert_eq!(s.mode, ToolSearchMode::Direct);
        assert_eq!(s.visible.len(), 36);
        let policy = ToolPolicy {
            allow: Some(vec!["*fake*".into()]),
            also_allow: vec!["tool_search_code".into()],
            ..Default::default()
        };
        let s = plan(ToolSearchMode::Code, &policy, Ok(()));
        assert_eq!(s.declared_names(), vec!["tool_search_code"]);
    }
}
