//! A realistic catalogue: about a thousand tools across many services, for measuring search
//! quality and speed on something closer to a real deployment than `fake_plugin_tool_NN`.
//!
//! The services, their objects and special actions are a fixed table ([`services`]); every tool
//! is derived from it (object × standard verb, plus hand-written actions), so the catalogue is a
//! pure function of its size. Names mix `snake_case` and `camelCase` by service, like real
//! plugins and MCP servers do; larger catalogues repeat the services as numbered variants.

mod services;

use serde_json::{json, Map, Value};

use super::{Executor, ToolEntry, ToolSource};

/// How a service spells its tool and property names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Style {
    /// `github_create_issue`, `repo_id`.
    Snake,
    /// `slackPostMessage`, `channelId`.
    Camel,
}

/// Where a service's tools come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// An OpenClaw plugin (trusted schemas, parameter text is indexed).
    Plugin,
    /// An MCP server (untrusted schemas).
    Mcp,
}

/// JSON type of one property.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Ty {
    Str,
    Int,
    Num,
    Bool,
    /// An ISO 8601 date-time string.
    Time,
    /// An array of strings.
    List,
    Enum(&'static [&'static str]),
}

/// One input property; `name` is written in snake_case and respelled per [`Style`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field {
    pub name: &'static str,
    pub ty: Ty,
    pub doc: &'static str,
}

/// A property of any type.
pub(crate) const fn field(name: &'static str, ty: Ty, doc: &'static str) -> Field {
    Field { name, ty, doc }
}

/// A string property.
pub(crate) const fn s(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Str, doc)
}

/// An integer property.
pub(crate) const fn int(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Int, doc)
}

/// A number property.
pub(crate) const fn num(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Num, doc)
}

/// A boolean property.
pub(crate) const fn flag(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Bool, doc)
}

/// A date-time property.
pub(crate) const fn time(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::Time, doc)
}

/// A list-of-strings property.
pub(crate) const fn list(name: &'static str, doc: &'static str) -> Field {
    field(name, Ty::List, doc)
}

/// An enum property.
pub(crate) const fn one_of(
    name: &'static str,
    values: &'static [&'static str],
    doc: &'static str,
) -> Field {
    field(name, Ty::Enum(values), doc)
}

/// Which standard verbs an object gets (bit set).
pub(crate) type Verbs = u8;
pub(crate) const LIST: Verbs = 1;
pub(crate) const GET: Verbs = 2;
pub(crate) const CREATE: Verbs = 4;
pub(crate) const UPDATE: Verbs = 8;
pub(crate) const DELETE: Verbs = 16;
pub(crate) const SEARCH: Verbs = 32;
pub(crate) const ALL: Verbs = LIST | GET | CREATE | UPDATE | DELETE | SEARCH;
pub(crate) const READ: Verbs = LIST | GET | SEARCH;

/// A kind of record a service manages (an issue, an event, a contact, …).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Object {
    /// snake_case words, e.g. `pull_request`.
    pub singular: &'static str,
    pub plural: &'static str,
    /// One sentence saying what the object is.
    pub what: &'static str,
    /// Where objects live, e.g. `in a repository` (may be empty).
    pub scope: &'static str,
    /// The container an object belongs to, required to list or create it.
    pub parent: Option<Field>,
    /// Properties; the first one is required on create.
    pub fields: &'static [Field],
    pub verbs: Verbs,
}

/// A hand-written tool: its words (snake_case), description and properties (the first
/// `required` are required).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Action {
    pub words: &'static str,
    pub doc: &'static str,
    pub fields: &'static [Field],
    pub required: usize,
}

/// Shorthand for an [`Action`].
pub(crate) const fn act(
    words: &'static str,
    doc: &'static str,
    fields: &'static [Field],
    required: usize,
) -> Action {
    Action {
        words,
        doc,
        fields,
        required,
    }
}

/// One service (a plugin or an MCP server).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Service {
    /// Name prefix and source name, e.g. `github`.
    pub key: &'static str,
    /// Human name used in labels and descriptions, e.g. `GitHub`.
    pub product: &'static str,
    pub style: Style,
    pub origin: Origin,
    pub objects: &'static [Object],
    pub actions: &'static [Action],
}

/// The base catalogue: every service once (a little over a thousand tools), in service order.
pub fn realistic_catalog() -> Vec<ToolEntry> {
    variant_tools(0)
}

/// Exactly `size` tools: the base catalogue, then numbered variants of every service
/// (`github2_create_issue`, …) until there are enough; names stay unique.
pub fn realistic_tools(size: usize) -> Vec<ToolEntry> {
    let mut out = Vec::with_capacity(size);
    let mut variant = 0;
    while out.len() < size {
        let tools = variant_tools(variant);
        if tools.is_empty() {
            break;
        }
        let room = size - out.len();
        out.extend(tools.into_iter().take(room));
        variant += 1;
    }
    out
}

/// How many tools one copy of the services makes.
pub fn base_size() -> usize {
    services::SERVICES.iter().map(service_size).sum()
}

fn service_size(service: &Service) -> usize {
    let standard: u32 = service.objects.iter().map(|o| o.verbs.count_ones()).sum();
    standard as usize + service.actions.len()
}

/// Variant 0 is the base; variant `v` appends `v + 1` to every service key and product.
fn variant_tools(variant: usize) -> Vec<ToolEntry> {
    let mut out = Vec::new();
    for service in services::SERVICES {
        let named = Named::new(service, variant);
        for (n, object) in service.objects.iter().enumerate() {
            for verb in STANDARD_VERBS {
                if object.verbs & verb.bit != 0 {
                    out.push(named.standard(object, verb, n));
                }
            }
        }
        for action in service.actions {
            out.push(named.action(action));
        }
    }
    out
}

/// A service as one variant spells it.
struct Named<'a> {
    service: &'a Service,
    key: String,
    product: String,
}

impl<'a> Named<'a> {
    fn new(service: &'a Service, variant: usize) -> Self {
        let (key, product) = if variant == 0 {
            (service.key.to_string(), service.product.to_string())
        } else {
            let n = variant + 1;
            (
                format!("{}{n}", service.key),
                format!("{} {n}", service.product),
            )
        };
        Named {
            service,
            key,
            product,
        }
    }

    fn standard(&self, object: &Object, verb: &StandardVerb, n: usize) -> ToolEntry {
        let noun = if verb.plural {
            object.plural
        } else {
            object.singular
        };
        let words = format!("{}_{noun}", verb.word);
        let description = (verb.describe)(object, &self.product, n);
        self.entry(&words, description, &(verb.fields)(object))
    }

    fn action(&self, action: &Action) -> ToolEntry {
        let required = action
            .fields
            .iter()
            .take(action.required)
            .map(|f| f.name.to_string())
            .collect();
        let description = action.doc.replace("{product}", &self.product);
        self.entry(action.words, description, &(props(action.fields), required))
    }

    fn entry(&self, words: &str, description: String, props: &Props) -> ToolEntry {
        let style = self.service.style;
        let name = spell(style, &format!("{}_{words}", self.key));
        let label = format!("{}: {}", self.product, sentence(words));
        let parameters = schema(style, props, self.service.origin);
        let (source, executor) = match self.service.origin {
            Origin::Plugin => (
                ToolSource::Openclaw,
                Executor::FakePlugin {
                    plugin: self.key.clone(),
                },
            ),
            Origin::Mcp => (
                ToolSource::Mcp,
                Executor::Mcp {
                    server: self.key.clone(),
                },
            ),
        };
        ToolEntry::new(source, &self.key, name, description, parameters, executor).with_label(label)
    }
}

/// One of the six standard verbs: its word, whether it takes the plural, its description
/// and its properties (with the required ones).
struct StandardVerb {
    bit: Verbs,
    word: &'static str,
    plural: bool,
    describe: fn(&Object, &str, usize) -> String,
    fields: fn(&Object) -> Props,
}

const STANDARD_VERBS: &[StandardVerb] = &[
    StandardVerb {
        bit: LIST,
        word: "list",
        plural: true,
        describe: describe_list,
        fields: list_fields,
    },
    StandardVerb {
        bit: GET,
        word: "get",
        plural: false,
        describe: describe_get,
        fields: id_fields,
    },
    StandardVerb {
        bit: CREATE,
        word: "create",
        plural: false,
        describe: describe_create,
        fields: create_fields,
    },
    StandardVerb {
        bit: UPDATE,
        word: "update",
        plural: false,
        describe: describe_update,
        fields: update_fields,
    },
    StandardVerb {
        bit: DELETE,
        word: "delete",
        plural: false,
        describe: describe_delete,
        fields: id_fields,
    },
    StandardVerb {
        bit: SEARCH,
        word: "search",
        plural: true,
        describe: describe_search,
        fields: search_fields,
    },
];

/// `pull_request` → `pull request`.
fn spaced(words: &str) -> String {
    words.replace('_', " ")
}

/// `merge_pull_request` → `Merge pull request`.
fn sentence(words: &str) -> String {
    let spaced = spaced(words);
    let mut chars = spaced.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `a` or `an` before a word.
fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

/// ` in a repository` or nothing.
fn scope(object: &Object) -> String {
    if object.scope.is_empty() {
        String::new()
    } else {
        format!(" {}", object.scope)
    }
}

fn describe_list(o: &Object, product: &str, n: usize) -> String {
    let plural = spaced(o.plural);
    if n.is_multiple_of(2) {
        format!(
            "List {plural}{} in {product}, most recent first. {} Use cursor to page.",
            scope(o),
            o.what
        )
    } else {
        format!("Returns one page of {plural}{} from {product}.", scope(o))
    }
}

fn describe_get(o: &Object, product: &str, n: usize) -> String {
    let one = spaced(o.singular);
    if n.is_multiple_of(2) {
        format!("Get one {one} from {product} by its id, with every field.")
    } else {
        format!(
            "Fetch the details of {} {one} in {product}.",
            article(o.singular)
        )
    }
}

fn describe_create(o: &Object, product: &str, _n: usize) -> String {
    let one = spaced(o.singular);
    format!(
        "Create {} {one}{} in {product}. {}",
        article(o.singular),
        scope(o),
        o.what
    )
}

fn describe_update(o: &Object, product: &str, n: usize) -> String {
    let one = spaced(o.singular);
    if n.is_multiple_of(2) {
        format!("Update an existing {one} in {product}; fields left out stay unchanged.")
    } else {
        format!(
            "Change the fields of {} {one} in {product}.",
            article(o.singular)
        )
    }
}

fn describe_delete(o: &Object, product: &str, _n: usize) -> String {
    let one = spaced(o.singular);
    format!(
        "Delete {} {one} from {product}. This cannot be undone.",
        article(o.singular)
    )
}

fn describe_search(o: &Object, product: &str, n: usize) -> String {
    let plural = spaced(o.plural);
    if n.is_multiple_of(2) {
        format!("Search {plural} in {product} by free text and filters.")
    } else {
        format!(
            "Find {plural}{} in {product} matching a text query.",
            scope(o)
        )
    }
}

/// A property as it goes into a schema (name still in snake_case).
#[derive(Debug, Clone)]
struct Prop {
    name: String,
    ty: Ty,
    doc: String,
}

impl From<&Field> for Prop {
    fn from(f: &Field) -> Self {
        Prop {
            name: f.name.to_string(),
            ty: f.ty,
            doc: f.doc.to_string(),
        }
    }
}

/// Properties and the names of the required ones.
type Props = (Vec<Prop>, Vec<String>);

/// The `<object>_id` property.
fn id_prop(o: &Object) -> Prop {
    Prop {
        name: format!("{}_id", o.singular),
        ty: Ty::Str,
        doc: format!("Id of the {}.", spaced(o.singular)),
    }
}

fn props<'a>(fields: impl IntoIterator<Item = &'a Field>) -> Vec<Prop> {
    fields.into_iter().map(Prop::from).collect()
}

fn list_fields(o: &Object) -> Props {
    let paging = [
        int("limit", "Maximum number of items to return (default 25)."),
        s("cursor", "Opaque cursor from the previous page."),
    ];
    let fields = props(o.parent.iter().chain(&paging));
    let required = o.parent.iter().map(|p| p.name.to_string()).collect();
    (fields, required)
}

fn id_fields(o: &Object) -> Props {
    let id = id_prop(o);
    let required = vec![id.name.clone()];
    (vec![id], required)
}

fn create_fields(o: &Object) -> Props {
    let fields = props(o.parent.iter().chain(o.fields));
    let required = o
        .parent
        .iter()
        .chain(o.fields.first())
        .map(|f| f.name.to_string())
        .collect();
    (fields, required)
}

fn update_fields(o: &Object) -> Props {
    let id = id_prop(o);
    let required = vec![id.name.clone()];
    let mut fields = vec![id];
    fields.extend(props(o.fields));
    (fields, required)
}

fn search_fields(o: &Object) -> Props {
    let query = s("query", "Free text to match.");
    let limit = int("limit", "Maximum number of matches (default 10).");
    let fields = props([&query].into_iter().chain(&o.parent).chain([&limit]));
    (fields, vec!["query".to_string()])
}

/// `github_create_issue` stays; in camel style `slack_post_message` → `slackPostMessage`.
fn spell(style: Style, snake: &str) -> String {
    match style {
        Style::Snake => snake.to_string(),
        Style::Camel => {
            let mut out = String::with_capacity(snake.len());
            for (i, part) in snake.split('_').filter(|p| !p.is_empty()).enumerate() {
                if i == 0 {
                    out.push_str(part);
                } else {
                    let mut chars = part.chars();
                    if let Some(first) = chars.next() {
                        out.extend(first.to_uppercase());
                        out.push_str(chars.as_str());
                    }
                }
            }
            out
        }
    }
}

fn property_schema(prop: &Prop) -> Value {
    let doc = &prop.doc;
    match prop.ty {
        Ty::Str => json!({ "type": "string", "description": doc }),
        Ty::Int => json!({ "type": "integer", "description": doc }),
        Ty::Num => json!({ "type": "number", "description": doc }),
        Ty::Bool => json!({ "type": "boolean", "description": doc }),
        Ty::Time => json!({ "type": "string", "format": "date-time", "description": doc }),
        Ty::List => json!({ "type": "array", "items": { "type": "string" }, "description": doc }),
        Ty::Enum(values) => json!({ "type": "string", "enum": values, "description": doc }),
    }
}

/// An object schema with properties in the given order; plugins close it, MCP servers do not.
fn schema(style: Style, (fields, required): &Props, origin: Origin) -> Value {
    let mut properties = Map::new();
    let mut names = Vec::new();
    for prop in fields {
        let name = spell(style, &prop.name);
        if required.contains(&prop.name) {
            names.push(Value::from(name.clone()));
        }
        properties.insert(name, property_schema(prop));
    }
    let mut out = Map::new();
    out.insert("type".into(), Value::from("object"));
    out.insert("properties".into(), Value::Object(properties));
    if !names.is_empty() {
        out.insert("required".into(), Value::Array(names));
    }
    if origin == Origin::Plugin {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn base_catalogue_is_large_unique_and_deterministic() {
        let tools = realistic_catalog();
        assert_eq!(tools.len(), base_size());
        assert_eq!(tools.len(), 1003);
        assert_eq!(services::SERVICES.len(), 66);
        let sources: BTreeSet<&str> = tools.iter().map(|t| t.source_name.as_str()).collect();
        for key in [
            "calendar", "github", "slack", "drive", "browser", "crm", "mail", "jira",
        ] {
            assert!(sources.contains(key), "no {key} tools");
        }
        let mcp = tools.iter().filter(|t| t.source == ToolSource::Mcp).count();
        assert_eq!((mcp, tools.len() - mcp), (352, 651));
        let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), tools.len(), "tool names must be unique");
        let ids: BTreeSet<&str> = tools.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids.len(), tools.len());
        assert_eq!(realistic_catalog(), tools);
    }

    #[test]
    fn names_labels_and_schemas_follow_the_service_style() {
        let tools = realistic_catalog();
        let find = |name: &str| tools.iter().find(|t| t.name == name).cloned();
        let Some(issue) = find("github_create_issue") else {
            panic!("github_create_issue missing");
        };
        assert_eq!(issue.id, "openclaw:github:github_create_issue");
        assert_eq!(issue.label, "GitHub: Create issue");
        assert_eq!(issue.parameters["required"], json!(["repo", "title"]));
        assert_eq!(issue.parameters["additionalProperties"], json!(false));
        let Some(get) = find("slackGetChannel") else {
            panic!("slackGetChannel missing");
        };
        assert_eq!(get.parameters["required"], json!(["channelId"]));
        assert_eq!(
            get.parameters["properties"]["channelId"]["description"],
            "Id of the channel."
        );
    }

    #[test]
    fn sizes_beyond_the_base_use_numbered_variants() {
        let base = base_size();
        let tools = realistic_tools(base * 2 + 7);
        assert_eq!(tools.len(), base * 2 + 7);
        assert_eq!(tools[base].name, "calendar2_list_events");
        let names: BTreeSet<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), tools.len());
        assert_eq!(realistic_tools(10).len(), 10);
        assert_eq!(realistic_tools(0), Vec::new());
    }

    #[test]
    fn spelling_helpers() {
        assert_eq!(
            spell(Style::Camel, "slack_post_message"),
            "slackPostMessage"
        );
        assert_eq!(
            spell(Style::Snake, "slack_post_message"),
            "slack_post_message"
        );
        assert_eq!(sentence("merge_pull_request"), "Merge pull request");
        assert_eq!(article("event"), "an");
        assert_eq!(article("deal"), "a");
    }
}
