//! A realistic catalogue: about a thousand tools across many services, for measuring search
//! quality and speed on something closer to a real deployment than `fake_plugin_tool_NN`.
//!
//! The services, their objects and special actions are data (`data/realistic-catalog.toml`,
//! read by [`table`]); the rules here derive every tool from them (object × standard verb,
//! plus hand-written actions), so the catalogue is a pure function of its size. Names mix
//! `snake_case` and `camelCase` by service, like real plugins and MCP servers do; larger
//! catalogues repeat the services as numbered variants.

mod table;

use serde_json::{json, Map, Value};

use self::table::{services, Action, Field, Object, Origin, Service, Style, Ty, Verb};
use super::{Executor, ToolEntry, ToolSource};

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
    services().iter().map(service_size).sum()
}

fn service_size(service: &Service) -> usize {
    let standard: usize = service.objects.iter().map(|o| o.verbs.len()).sum();
    standard + service.actions.len()
}

/// Variant 0 is the base; variant `v` appends `v + 1` to every service key and product.
fn variant_tools(variant: usize) -> Vec<ToolEntry> {
    let mut out = Vec::new();
    for service in services() {
        let named = Named::new(service, variant);
        for (n, object) in service.objects.iter().enumerate() {
            for verb in STANDARD_VERBS {
                if object.verbs.contains(&verb.verb) {
                    out.push(named.standard(object, verb, n));
                }
            }
        }
        for action in &service.actions {
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
            (service.key.clone(), service.product.clone())
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
            &object.plural
        } else {
            &object.singular
        };
        let words = format!("{}_{noun}", verb.word);
        let description = (verb.describe)(object, &self.product, n);
        self.entry(&words, description, &(verb.fields)(object))
    }

    fn action(&self, action: &Action) -> ToolEntry {
        let description = action.description.replace("{product}", &self.product);
        let props = (action.fields.clone(), action.required.clone());
        self.entry(&action.words, description, &props)
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
    verb: Verb,
    word: &'static str,
    plural: bool,
    describe: fn(&Object, &str, usize) -> String,
    fields: fn(&Object) -> Props,
}

const STANDARD_VERBS: &[StandardVerb] = &[
    StandardVerb {
        verb: Verb::List,
        word: "list",
        plural: true,
        describe: describe_list,
        fields: list_fields,
    },
    StandardVerb {
        verb: Verb::Get,
        word: "get",
        plural: false,
        describe: describe_get,
        fields: id_fields,
    },
    StandardVerb {
        verb: Verb::Create,
        word: "create",
        plural: false,
        describe: describe_create,
        fields: create_fields,
    },
    StandardVerb {
        verb: Verb::Update,
        word: "update",
        plural: false,
        describe: describe_update,
        fields: update_fields,
    },
    StandardVerb {
        verb: Verb::Delete,
        word: "delete",
        plural: false,
        describe: describe_delete,
        fields: id_fields,
    },
    StandardVerb {
        verb: Verb::Search,
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
    let plural = spaced(&o.plural);
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
    let one = spaced(&o.singular);
    if n.is_multiple_of(2) {
        format!("Get one {one} from {product} by its id, with every field.")
    } else {
        format!(
            "Fetch the details of {} {one} in {product}.",
            article(&o.singular)
        )
    }
}

fn describe_create(o: &Object, product: &str, _n: usize) -> String {
    let one = spaced(&o.singular);
    format!(
        "Create {} {one}{} in {product}. {}",
        article(&o.singular),
        scope(o),
        o.what
    )
}

fn describe_update(o: &Object, product: &str, n: usize) -> String {
    let one = spaced(&o.singular);
    if n.is_multiple_of(2) {
        format!("Update an existing {one} in {product}; fields left out stay unchanged.")
    } else {
        format!(
            "Change the fields of {} {one} in {product}.",
            article(&o.singular)
        )
    }
}

fn describe_delete(o: &Object, product: &str, _n: usize) -> String {
    let one = spaced(&o.singular);
    format!(
        "Delete {} {one} from {product}. This cannot be undone.",
        article(&o.singular)
    )
}

fn describe_search(o: &Object, product: &str, n: usize) -> String {
    let plural = spaced(&o.plural);
    if n.is_multiple_of(2) {
        format!("Search {plural} in {product} by free text and filters.")
    } else {
        format!(
            "Find {plural}{} in {product} matching a text query.",
            scope(o)
        )
    }
}

/// Properties (names still in snake_case) and the names of the required ones.
type Props = (Vec<Field>, Vec<String>);

/// The `<object>_id` property.
fn id_prop(o: &Object) -> Field {
    let name = format!("{}_id", o.singular);
    Field::new(name, Ty::Str, format!("Id of the {}.", spaced(&o.singular)))
}

fn list_fields(o: &Object) -> Props {
    let mut fields: Vec<Field> = o.parent.iter().cloned().collect();
    fields.push(Field::new(
        "limit",
        Ty::Int,
        "Maximum number of items to return (default 25).",
    ));
    fields.push(Field::new(
        "cursor",
        Ty::Str,
        "Opaque cursor from the previous page.",
    ));
    let required = o.parent.iter().map(|p| p.name.clone()).collect();
    (fields, required)
}

fn id_fields(o: &Object) -> Props {
    let id = id_prop(o);
    let required = vec![id.name.clone()];
    (vec![id], required)
}

/// The parent and the fields; the parent and the object's `required` fields must be given.
fn create_fields(o: &Object) -> Props {
    let fields = o.parent.iter().chain(&o.fields).cloned().collect();
    let parent = o.parent.iter().map(|p| p.name.clone());
    let required = parent.chain(o.required.iter().cloned()).collect();
    (fields, required)
}

fn update_fields(o: &Object) -> Props {
    let id = id_prop(o);
    let required = vec![id.name.clone()];
    let mut fields = vec![id];
    fields.extend(o.fields.iter().cloned());
    (fields, required)
}

fn search_fields(o: &Object) -> Props {
    let mut fields = vec![Field::new("query", Ty::Str, "Free text to match.")];
    fields.extend(o.parent.iter().cloned());
    fields.push(Field::new(
        "limit",
        Ty::Int,
        "Maximum number of matches (default 10).",
    ));
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

fn property_schema(prop: &Field) -> Value {
    let doc = &prop.doc;
    match &prop.ty {
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
        assert_eq!(services().len(), 66);
        let sources: BTreeSet<&str> = tools.iter().map(|t| t.source_name.as_str()).collect();
        for key in [
            "calendar", "github", "slack", "drive", "browser", "crm", "mail", "jira",
        ] {
            assert!(sources.contains(key), "no {key} tools");
        }
        let mcp = tools.iter().filter(|t| t.source == ToolSource::Mcp).count();
        assert_eq!((mcp, tools.len() - mcp), (352, 651));
        let mut names = BTreeSet::new();
        let twice: Vec<&str> = tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|name| !names.insert(*name))
            .collect();
        assert_eq!(twice, Vec::<&str>::new(), "tool names must be unique");
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
