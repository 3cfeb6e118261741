//! A native lane's wire (`tools.nativeSearch`): the catalogue goes to the provider *deferred*,
//! beside the provider's own tool search tool, and the provider finds the tool — the
//! alternative to the gateway's Tool Search that `compare` weighs against it.
//!
//! The agent loop keeps its turn as Responses input items either way; this module writes them
//! as the provider's request (Responses, or Anthropic Messages) and reads its reply back into
//! [`OutputItem`]s. What the provider ran itself (its search call and result) comes back as
//! [`OutputItem::Carried`] and goes into the next request exactly as it came; an OpenAI search
//! the provider leaves to the caller (`execution: "client"`) is answered here, with the
//! engine's own search over the catalogue ([`NativeTools::client_search_output`]); so is an
//! Anthropic search the gateway declares as its own tool (`search = "client"`), whose
//! `tool_use` it answers with `tool_reference` blocks.
//!
//! With `namespaces` (OpenAI), the deferred catalogue is declared as one `namespace` tool per
//! tool source, each function inside deferred (OpenAI's guide: deferral is per function, never
//! on the namespace object).
//!
//! Deterministic bytes: every request of a turn declares the same tools in the same order
//! (search tool, visible tools by name, then the deferred catalogue by name), so a provider's
//! prompt cache keeps the prefix — the claims P1 and V3 hold it to that.

use serde::Serialize;
use serde_json::{json, Value};

pub mod stream;

use super::upstream::OutputItem;
use crate::catalog::FunctionDeclaration;
use crate::config::{NativeProvider, NativeSearch, NativeSettings};
use crate::engine::{EngineError, ToolSearchRun};

/// How many tools a client-executed search loads (what the providers' hosted searches return,
/// per their guides: a handful).
pub const CLIENT_SEARCH_LIMIT: usize = 5;
/// `max_tokens` of a Messages request whose turn sets no `max_output_tokens` (the API requires one).
pub const DEFAULT_MAX_TOKENS: u64 = 1024;
/// The `type` of a Messages content block the provider produced and the gateway carries back
/// verbatim (a search call or result), as it sits among the turn's input items.
pub const CARRIED_BLOCK: &str = "anthropic_block";
/// The description of the gateway's client-executed search (OpenAI and Anthropic).
const CLIENT_SEARCH_DESCRIPTION: &str =
    "Search the deferred tools by what they do; the matching tools are loaded.";
/// The name of the search tool the gateway declares for an Anthropic client-side search (a
/// plain custom tool; its `tool_use` is answered with `tool_reference` blocks).
pub const ANTHROPIC_SEARCH_TOOL: &str = "tool_search";

/// The tools of a native turn.
#[derive(Debug, Clone)]
pub struct NativeTools {
    pub settings: NativeSettings,
    /// Declared in full: the surface's visible tools (no bridge controls), by name.
    pub visible: Vec<FunctionDeclaration>,
    /// Declared deferred: every catalogue entry, by name.
    pub deferred: Vec<FunctionDeclaration>,
    /// With `settings.namespaces`: the deferred tools grouped, each in exactly one namespace
    /// (empty otherwise).
    pub namespaces: Vec<NamespaceGroup>,
}

/// One `namespace` of a native OpenAI turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceGroup {
    pub name: String,
    pub description: String,
    /// Indexes into [`NativeTools::deferred`], in declaration order.
    pub members: Vec<usize>,
}

impl NamespaceGroup {
    /// One namespace per tool source (`source_names[i]` is deferred tool `i`'s), sorted by name.
    pub fn by_source(source_names: &[&str]) -> Vec<NamespaceGroup> {
        let mut groups: std::collections::BTreeMap<String, (String, Vec<usize>)> =
            std::collections::BTreeMap::new();
        for (i, source) in source_names.iter().enumerate() {
            let name: String = source
                .chars()
                .map(
                    |c| match c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                        true => c,
                        false => '_',
                    },
                )
                .collect();
            groups
                .entry(name)
                .or_insert_with(|| (source.to_string(), Vec::new()))
                .1
                .push(i);
        }
        groups
            .into_iter()
            .map(|(name, (source, members))| NamespaceGroup {
                description: format!("The {source} tools ({} functions).", members.len()),
                name,
                members,
            })
            .collect()
    }
}

/// An OpenAI `namespace` tool.
#[derive(Serialize)]
struct OpenaiNamespace<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    tools: Vec<OpenaiFunction<'a>>,
}

/// An OpenAI function tool (`strict` is required by the SDK's request type).
#[derive(Serialize)]
struct OpenaiFunction<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    strict: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    defer_loading: bool,
}

/// An Anthropic custom tool.
#[derive(Serialize)]
struct AnthropicTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    defer_loading: bool,
}

/// One entry of a native request's `tools[]`.
#[derive(Serialize)]
#[serde(untagged)]
enum WireTool<'a> {
    /// A search tool written as JSON (OpenAI's `tool_search`, the Anthropic client search).
    Search(Value),
    Openai(OpenaiFunction<'a>),
    Namespace(OpenaiNamespace<'a>),
    AnthropicSearch {
        #[serde(rename = "type")]
        kind: &'static str,
        name: &'static str,
    },
    Anthropic(AnthropicTool<'a>),
}

/// The Responses body of a native turn (the same keys, in the same order, as the gateway's
/// own requests).
#[derive(Serialize)]
struct ResponsesBody<'a> {
    model: &'a str,
    input: &'a [Value],
    tools: &'a [WireTool<'a>],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u64>,
    store: bool,
}

/// The Messages body of a native turn.
#[derive(Serialize)]
struct MessagesBody<'a> {
    model: &'a str,
    max_tokens: u64,
    system: &'a str,
    messages: Vec<Message>,
    tools: &'a [WireTool<'a>],
    stream: bool,
}

#[derive(Serialize)]
struct Message {
    role: &'static str,
    content: Vec<Value>,
}

impl NativeTools {
    fn wire_tools(&self) -> Vec<WireTool<'_>> {
        let mut tools = vec![self.search_tool()];
        tools.extend(self.visible.iter().map(|d| self.declare(d, false)));
        if self.settings.namespaces {
            tools.extend(
                self.namespaces
                    .iter()
                    .map(|group| WireTool::Namespace(self.namespace(group, &group.members))),
            );
        } else {
            tools.extend(self.deferred.iter().map(|d| self.declare(d, true)));
        }
        tools
    }

    /// `group` as a `namespace` tool holding the deferred tools `members`.
    fn namespace<'a>(
        &'a self,
        group: &'a NamespaceGroup,
        members: &[usize],
    ) -> OpenaiNamespace<'a> {
        OpenaiNamespace {
            kind: "namespace",
            name: &group.name,
            description: &group.description,
            tools: members
                .iter()
                .map(|&i| openai_function(&self.deferred[i], true))
                .collect(),
        }
    }

    /// One declaration in the provider's shape.
    fn declare<'a>(&self, d: &'a FunctionDeclaration, deferred: bool) -> WireTool<'a> {
        match self.settings.provider {
            NativeProvider::Openai => WireTool::Openai(openai_function(d, deferred)),
            NativeProvider::Anthropic => WireTool::Anthropic(AnthropicTool {
                name: &d.name,
                description: &d.description,
                input_schema: &d.parameters,
                defer_loading: deferred,
            }),
        }
    }

    fn search_tool(&self) -> WireTool<'static> {
        let client_parameters = || {
            json!({
                "type": "object",
                "properties": { "query": { "type": "string", "description": "What the tool should do." } },
                "required": ["query"],
                "additionalProperties": false,
            })
        };
        match (self.settings.provider, self.settings.search) {
            (_, NativeSearch::Server) => {
                WireTool::Search(json!({ "type": "tool_search", "execution": "server" }))
            }
            (NativeProvider::Openai, NativeSearch::Client) => WireTool::Search(json!({
                "type": "tool_search",
                "execution": "client",
                "description": CLIENT_SEARCH_DESCRIPTION,
                "parameters": client_parameters(),
            })),
            (NativeProvider::Anthropic, NativeSearch::Client) => WireTool::Search(json!({
                "name": ANTHROPIC_SEARCH_TOOL,
                "description": CLIENT_SEARCH_DESCRIPTION,
                "input_schema": client_parameters(),
            })),
            (_, NativeSearch::Bm25) => WireTool::AnthropicSearch {
                kind: "tool_search_tool_bm25_20251119",
                name: "tool_search_tool_bm25",
            },
            (_, NativeSearch::Regex) => WireTool::AnthropicSearch {
                kind: "tool_search_tool_regex_20251119",
                name: "tool_search_tool_regex",
            },
        }
    }

    /// The same tools with the deferred ones in reverse order (the `ToolOrderVaries` seed).
    pub fn reversed(&self) -> NativeTools {
        let mut reversed = self.clone();
        let last = self.deferred.len().saturating_sub(1);
        reversed.deferred.reverse();
        reversed.namespaces.reverse();
        for group in &mut reversed.namespaces {
            group.members = group.members.iter().rev().map(|&i| last - i).collect();
        }
        reversed
    }

    /// How many entries the request's `tools[]` has (search tool, visible, then the deferred
    /// tools or their namespaces).
    pub fn declared_count(&self) -> usize {
        let deferred = match self.settings.namespaces {
            true => self.namespaces.len(),
            false => self.deferred.len(),
        };
        1 + self.visible.len() + deferred
    }

    /// The bytes of `tools[]` as sent.
    pub fn tools_bytes(&self) -> usize {
        serde_json::to_vec(&self.wire_tools()).map_or(0, |b| b.len())
    }

    /// The request body of one round: `input` is the turn's Responses items, the system prompt
    /// first.
    pub fn body(
        &self,
        model: &str,
        input: &[Value],
        max_output_tokens: Option<u64>,
        stream: bool,
    ) -> Vec<u8> {
        let tools = self.wire_tools();
        let bytes = match self.settings.provider {
            NativeProvider::Openai => serde_json::to_vec(&ResponsesBody {
                model,
                input,
                tools: &tools,
                stream,
                max_output_tokens,
                store: false,
            }),
            NativeProvider::Anthropic => {
                let (system, messages) = messages_of(input);
                serde_json::to_vec(&MessagesBody {
                    model,
                    max_tokens: max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
                    system: &system,
                    messages,
                    tools: &tools,
                    stream,
                })
            }
        };
        bytes.unwrap_or_default()
    }

    /// The index of the deferred declaration named `name`.
    fn deferred_index(&self, name: &str) -> Option<usize> {
        self.deferred.iter().position(|d| d.name == name)
    }

    /// The input item that answers a client-executed search (`call_id`), and the names it
    /// loaded: the engine's hits for the call's `query` among the deferred tools. OpenAI: a
    /// `tool_search_output` with their definitions as declared (deferred flag included; inside
    /// their namespaces when the turn has them). Anthropic: the `tool_result` of the search
    /// tool's `tool_use`, holding a `tool_reference` per hit. A query that is not a string is an
    /// engine error.
    pub fn client_search_output(
        &self,
        run: &ToolSearchRun,
        call_id: &str,
        arguments: &Value,
    ) -> Result<(Value, Vec<String>), EngineError> {
        let query = match arguments.get("query") {
            Some(Value::String(query)) => query.as_str(),
            other => {
                return Err(EngineError::InvalidInput(format!(
                    "the search's `query` must be a string, got {}",
                    other.map_or("nothing".to_string(), Value::to_string)
                )))
            }
        };
        let hits = run.search(query, Some(&Value::from(CLIENT_SEARCH_LIMIT)))?;
        let found: Vec<usize> = hits
            .iter()
            .filter_map(|hit| self.deferred_index(&hit.name))
            .collect();
        let names = found
            .iter()
            .map(|&i| self.deferred[i].name.clone())
            .collect();
        Ok((self.search_answer(call_id, &found), names))
    }

    /// The answer to a client search that loaded the deferred tools `found` (none: a failed
    /// search).
    pub fn search_answer(&self, call_id: &str, found: &[usize]) -> Value {
        if self.settings.provider == NativeProvider::Anthropic {
            let references: Vec<Value> = found
                .iter()
                .map(|&i| json!({ "type": "tool_reference", "tool_name": self.deferred[i].name }))
                .collect();
            return json!({ "type": "function_call_output", "call_id": call_id, "output": references });
        }
        json!({
            "type": "tool_search_output",
            "call_id": call_id,
            "execution": "client",
            "status": "completed",
            "tools": self.loaded_definitions(found),
        })
    }

    /// The definitions of the deferred tools `found`, in hit order; with namespaces, each hit
    /// inside its namespace (one entry per namespace, where its first hit ranks).
    fn loaded_definitions(&self, found: &[usize]) -> Vec<Value> {
        if !self.settings.namespaces {
            return found
                .iter()
                .map(|&i| json!(openai_function(&self.deferred[i], true)))
                .collect();
        }
        let mut groups: Vec<(usize, Vec<usize>)> = Vec::new();
        for &i in found {
            let Some(g) = self.namespaces.iter().position(|n| n.members.contains(&i)) else {
                continue;
            };
            match groups.iter_mut().find(|(at, _)| *at == g) {
                Some((_, members)) => members.push(i),
                None => groups.push((g, vec![i])),
            }
        }
        groups
            .into_iter()
            .map(|(g, members)| json!(self.namespace(&self.namespaces[g], &members)))
            .collect()
    }

    /// The provider's output items with an Anthropic client search's `tool_use` of
    /// [`ANTHROPIC_SEARCH_TOOL`] read as the search the gateway answers (as OpenAI's client
    /// `tool_search_call` is); every other item as it came.
    pub fn client_searches(&self, items: Vec<OutputItem>) -> Vec<OutputItem> {
        let settings = self.settings;
        if (settings.provider, settings.search) != (NativeProvider::Anthropic, NativeSearch::Client)
        {
            return items;
        }
        items
            .into_iter()
            .map(|item| match item {
                OutputItem::FunctionCall {
                    call_id,
                    name,
                    arguments,
                    ..
                } if name == ANTHROPIC_SEARCH_TOOL => OutputItem::SearchCall {
                    item: json!({ "type": "function_call", "call_id": call_id, "name": name, "arguments": arguments }),
                    arguments: serde_json::from_str(&arguments).unwrap_or(Value::Null),
                    call_id,
                },
                other => other,
            })
            .collect()
    }
}

fn openai_function(d: &FunctionDeclaration, deferred: bool) -> OpenaiFunction<'_> {
    OpenaiFunction {
        kind: "function",
        name: &d.name,
        description: &d.description,
        parameters: &d.parameters,
        strict: false,
        defer_loading: deferred,
    }
}

/// The turn's Responses items as Messages: the system item becomes `system`; user messages,
/// function-call outputs and the assistant's blocks (text, tool uses, carried search blocks)
/// become alternating messages, consecutive items of one role sharing one message.
fn messages_of(input: &[Value]) -> (String, Vec<Message>) {
    let mut system = String::new();
    let mut messages: Vec<Message> = Vec::new();
    for item in input {
        let (role, block) = match item["type"].as_str() {
            Some("function_call") => ("assistant", tool_use_block(item)),
            Some("function_call_output") => ("user", tool_result_block(item)),
            Some(CARRIED_BLOCK) => ("assistant", item["block"].clone()),
            _ => match item["role"].as_str() {
                Some("system" | "developer") => {
                    system.push_str(&crate::protocol::item_text(item));
                    continue;
                }
                Some("assistant") => ("assistant", text_block(item)),
                _ => ("user", text_block(item)),
            },
        };
        match messages.last_mut() {
            Some(last) if last.role == role => last.content.push(block),
            _ => messages.push(Message {
                role,
                content: vec![block],
            }),
        }
    }
    (system, messages)
}

fn text_block(item: &Value) -> Value {
    json!({ "type": "text", "text": crate::protocol::item_text(item) })
}

fn tool_use_block(item: &Value) -> Value {
    let input: Value = item["arguments"]
        .as_str()
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or_else(|| json!({}));
    json!({ "type": "tool_use", "id": item["call_id"], "name": item["name"], "input": input })
}

fn tool_result_block(item: &Value) -> Value {
    json!({ "type": "tool_result", "tool_use_id": item["call_id"], "content": item["output"] })
}

/// Whether a carried item is the provider's hosted search call (not its result): an OpenAI
/// `tool_search_call` item.
pub fn is_search_call(item: &Value) -> bool {
    item["type"] == "tool_search_call"
}

/// Whether a carried item is an Anthropic `server_tool_use` block (the search call a
/// `tool_search_tool_result` answers).
pub fn is_server_tool_use(item: &Value) -> bool {
    item["type"] == CARRIED_BLOCK && item["block"]["type"] == "server_tool_use"
}

/// Reads a Messages response's `content` into output items: text, tool uses, and the
/// provider's own search blocks (carried).
pub fn parse_message_content(json: &Value) -> Result<Vec<OutputItem>, String> {
    let blocks = json
        .get("content")
        .and_then(Value::as_array)
        .ok_or("missing array field `content`")?;
    let mut items = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let field = |name: &str| {
            block
                .get(name)
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or(format!("content[{i}] has no string `{name}`"))
        };
        match block.get("type").and_then(Value::as_str) {
            Some("text") => items.push(OutputItem::Message {
                text: field("text")?,
            }),
            Some("tool_use") => items.push(OutputItem::FunctionCall {
                call_id: field("id")?,
                name: field("name")?,
                arguments: block.get("input").cloned().unwrap_or(json!({})).to_string(),
                namespace: None,
            }),
            Some("server_tool_use" | "tool_search_tool_result") => {
                items.push(OutputItem::Carried {
                    item: json!({ "type": CARRIED_BLOCK, "block": block }),
                })
            }
            Some(other) => {
                return Err(format!(
                    "content[{i}] is a {other:?} block the gateway cannot act on"
                ))
            }
            None => return Err(format!("content[{i}] has no `type`")),
        }
    }
    if items.is_empty() {
        return Err("`content` is empty".into());
    }
    Ok(items)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools(provider: NativeProvider, search: NativeSearch) -> NativeTools {
        let declaration = |name: &str| {
            FunctionDeclaration::new(name, format!("Tool {name}."), json!({"type": "object"}))
        };
        NativeTools {
            settings: NativeSettings::flat(provider, search),
            visible: vec![declaration("read")],
            deferred: vec![declaration("fake_a"), declaration("fake_b")],
            namespaces: Vec::new(),
        }
    }

    #[test]
    fn openai_namespaces_group_the_deferred_tools_by_source() {
        let mut native = tools(NativeProvider::Openai, NativeSearch::Server);
        native.settings.namespaces = true;
        native.namespaces = NamespaceGroup::by_source(&["my plugin", "core"]);
        assert_eq!(
            native.namespaces,
            [
                NamespaceGroup {
                    name: "core".into(),
                    description: "The core tools (1 functions).".into(),
                    members: vec![1]
                },
                NamespaceGroup {
                    name: "my_plugin".into(),
                    description: "The my plugin tools (1 functions).".into(),
                    members: vec![0]
                },
            ]
        );
        let body: Value = serde_json::from_slice(&native.body("m", &[], None, false)).unwrap();
        let fake = |name: &str| json!({"type": "function", "name": name, "description": format!("Tool {name}."), "parameters": {"type": "object"}, "strict": false, "defer_loading": true});
        assert_eq!(
            body["tools"][2],
            json!({"type": "namespace", "name": "core", "description": "The core tools (1 functions).", "tools": [fake("fake_b")]})
        );
        assert_eq!(body["tools"][3]["tools"], json!([fake("fake_a")]));
        assert_eq!(native.declared_count(), 4);
        let reversed = native.reversed();
        assert_eq!(reversed.namespaces[0].name, "my_plugin");
        assert_eq!(
            reversed.deferred[reversed.namespaces[0].members[0]].name,
            "fake_a"
        );
        assert_eq!(
            native.search_answer("c", &[1, 0])["tools"],
            json!([
                {"type": "namespace", "name": "core", "description": "The core tools (1 functions).", "tools": [fake("fake_b")]},
                {"type": "namespace", "name": "my_plugin", "description": "The my plugin tools (1 functions).", "tools": [fake("fake_a")]},
            ])
        );
    }

    #[test]
    fn anthropic_client_search_is_the_gateway_s_own_tool_answered_with_references() {
        let native = tools(NativeProvider::Anthropic, NativeSearch::Client);
        let body: Value = serde_json::from_slice(&native.body("m", &[], None, false)).unwrap();
        assert_eq!(body["tools"][0]["name"], ANTHROPIC_SEARCH_TOOL);
        assert_eq!(body["tools"][0].get("defer_loading"), None);
        assert_eq!(
            body["tools"][0]["input_schema"]["required"],
            json!(["query"])
        );
        let items = native.client_searches(vec![
            OutputItem::FunctionCall {
                call_id: "toolu_1".into(),
                name: ANTHROPIC_SEARCH_TOOL.into(),
                arguments: r#"{"query":"fake a"}"#.into(),
                namespace: None,
            },
            OutputItem::FunctionCall {
                call_id: "toolu_2".into(),
                name: "read".into(),
                arguments: "{}".into(),
                namespace: None,
            },
        ]);
        assert!(
            matches!(&items[0], OutputItem::SearchCall { call_id, arguments, .. }
            if call_id == "toolu_1" && arguments["query"] == "fake a")
        );
        assert!(matches!(&items[1], OutputItem::FunctionCall { name, .. } if name == "read"));
        let answer = native.search_answer("toolu_1", &[0]);
        let input = [
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
            json!({"type": "function_call", "call_id": "toolu_1", "name": ANTHROPIC_SEARCH_TOOL, "arguments": "{\"query\":\"fake a\"}"}),
            answer,
        ];
        let body: Value = serde_json::from_slice(&native.body("m", &input, None, false)).unwrap();
        assert_eq!(
            body["messages"][2],
            json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1",
                "content": [{"type": "tool_reference", "tool_name": "fake_a"}]}]})
        );
    }

    #[test]
    fn openai_declares_search_visible_then_deferred() {
        let native = tools(NativeProvider::Openai, NativeSearch::Server);
        let body: Value = serde_json::from_slice(&native.body(
            "m",
            &[json!({"role": "user", "content": "hi"})],
            None,
            false,
        ))
        .unwrap();
        assert_eq!(
            body["tools"],
            json!([
                {"type": "tool_search", "execution": "server"},
                {"type": "function", "name": "read", "description": "Tool read.", "parameters": {"type": "object"}, "strict": false},
                {"type": "function", "name": "fake_a", "description": "Tool fake_a.", "parameters": {"type": "object"}, "strict": false, "defer_loading": true},
                {"type": "function", "name": "fake_b", "description": "Tool fake_b.", "parameters": {"type": "object"}, "strict": false, "defer_loading": true},
            ])
        );
        assert_eq!(native.declared_count(), 4);
    }

    #[test]
    fn anthropic_groups_items_into_alternating_messages() {
        let native = tools(NativeProvider::Anthropic, NativeSearch::Regex);
        let carried = json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {"pattern": "a"}});
        let input = [
            json!({"type": "message", "role": "system", "content": [{"type": "input_text", "text": "be brief"}]}),
            json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}),
            json!({"type": CARRIED_BLOCK, "block": carried}),
            json!({"type": "function_call", "call_id": "toolu_1", "name": "fake_a", "arguments": "{\"marker\":\"normal\"}"}),
            json!({"type": "function_call_output", "call_id": "toolu_1", "output": "FAKE_PLUGIN_OK"}),
        ];
        let body: Value = serde_json::from_slice(&native.body("m", &input, None, false)).unwrap();
        assert_eq!(body["system"], "be brief");
        assert_eq!(body["max_tokens"], DEFAULT_MAX_TOKENS);
        assert_eq!(
            body["messages"],
            json!([
                {"role": "user", "content": [{"type": "text", "text": "go"}]},
                {"role": "assistant", "content": [carried, {"type": "tool_use", "id": "toolu_1", "name": "fake_a", "input": {"marker": "normal"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "FAKE_PLUGIN_OK"}]},
            ])
        );
        assert_eq!(
            body["tools"][0],
            json!({"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"})
        );
        assert_eq!(body["tools"][2]["defer_loading"], true);
        assert_eq!(body["tools"][1].get("defer_loading"), None);
    }

    #[test]
    fn message_content_becomes_items_and_carried_blocks() {
        let items = parse_message_content(&json!({"content": [
            {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_bm25", "input": {"query": "a"}},
            {"type": "tool_use", "id": "t1", "name": "fake_a", "input": {"marker": "normal"}},
            {"type": "text", "text": "ok"},
        ]}))
        .unwrap();
        assert!(matches!(&items[0], OutputItem::Carried { item } if item["block"]["id"] == "s1"));
        assert_eq!(
            items[1],
            OutputItem::FunctionCall {
                call_id: "t1".into(),
                name: "fake_a".into(),
                arguments: r#"{"marker":"normal"}"#.into(),
                namespace: None,
            }
        );
        assert_eq!(
            parse_message_content(&json!({"content": [{"type": "thinking"}]})).unwrap_err(),
            "content[0] is a \"thinking\" block the gateway cannot act on"
        );
    }
}
