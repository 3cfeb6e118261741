//! The realistic catalogue's table as data: `data/realistic-catalog.toml`, embedded at build
//! time and read once into owned [`Service`]s. Reading checks what serde cannot: a bare field
//! name is a shared field, `required` names a field, enums have values, names are snake_case
//! and not there twice. Every error names the file and the place in it.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::OnceLock;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use thiserror::Error;

/// Where the table lives, for error messages.
pub(crate) const FILE: &str = "data/realistic-catalog.toml";
const EMBEDDED: &str = include_str!("../../../data/realistic-catalog.toml");

/// The embedded table, read on first use. It cannot fail at run time: the unit test
/// `the_embedded_table_reads` reads the same bytes.
pub(crate) fn services() -> &'static [Service] {
    static TABLE: OnceLock<Vec<Service>> = OnceLock::new();
    TABLE.get_or_init(|| read(EMBEDDED, FILE).unwrap_or_else(|e| panic!("{e}")))
}

/// How a service spells its tool and property names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Style {
    /// `github_create_issue`, `repo_id`.
    Snake,
    /// `slackPostMessage`, `channelId`.
    Camel,
}

/// Where a service's tools come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Origin {
    /// An OpenClaw plugin (trusted schemas, parameter text is indexed).
    Plugin,
    /// An MCP server (untrusted schemas).
    Mcp,
}

/// JSON type of one property.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Ty {
    Str,
    Int,
    Num,
    Bool,
    /// An ISO 8601 date-time string.
    Time,
    /// An array of strings.
    List,
    Enum(Vec<String>),
}

/// One input property; `name` is written in snake_case and respelled per [`Style`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    pub name: String,
    pub ty: Ty,
    pub doc: String,
}

impl Field {
    pub(crate) fn new(name: impl Into<String>, ty: Ty, doc: impl Into<String>) -> Self {
        Field {
            name: name.into(),
            ty,
            doc: doc.into(),
        }
    }
}

/// One of the standard verbs an object can get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Verb {
    List,
    Get,
    Create,
    Update,
    Delete,
    Search,
}

impl Verb {
    pub(crate) const ALL: [Verb; 6] = [
        Verb::List,
        Verb::Get,
        Verb::Create,
        Verb::Update,
        Verb::Delete,
        Verb::Search,
    ];
}

/// A kind of record a service manages (an issue, an event, a contact, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Object {
    /// snake_case words, e.g. `pull_request`.
    pub singular: String,
    pub plural: String,
    /// One sentence saying what the object is.
    pub what: String,
    /// Where objects live, e.g. `in a repository` (may be empty).
    pub scope: String,
    /// The container an object belongs to, required to list or create it.
    pub parent: Option<Field>,
    /// Properties, used by create and update.
    pub fields: Vec<Field>,
    /// The fields a create must give (besides the parent).
    pub required: Vec<String>,
    pub verbs: BTreeSet<Verb>,
}

/// A hand-written tool: its words (snake_case), description and properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Action {
    pub words: String,
    /// `{product}` stands for the product's name.
    pub description: String,
    pub fields: Vec<Field>,
    pub required: Vec<String>,
}

/// One service (a plugin or an MCP server).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Service {
    /// Name prefix and source name, e.g. `github`.
    pub key: String,
    /// Human name used in labels and descriptions, e.g. `GitHub`.
    pub product: String,
    pub style: Style,
    pub origin: Origin,
    pub objects: Vec<Object>,
    pub actions: Vec<Action>,
}

/// The table file is not TOML of the expected shape, or breaks one of its rules.
#[derive(Debug, Error)]
pub(crate) enum TableError {
    #[error("{file}: {source}")]
    Parse {
        file: String,
        #[source]
        source: Box<toml::de::Error>,
    },
    #[error("{file}: {broken}")]
    Invalid { file: String, broken: Box<Broken> },
}

/// A rule the table breaks, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{at}: {problem}")]
pub(crate) struct Broken {
    pub at: Place,
    pub problem: Problem,
}

/// What is wrong at a [`Place`].
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum Problem {
    #[error("{0:?} is not a shared field (shared: {1})")]
    UnknownShared(String, String),
    #[error("required names {0:?}, which is not one of its fields")]
    NotAField(String),
    #[error("type \"enum\" needs values = [...]")]
    EnumWithoutValues,
    #[error("values = [...] is only for type \"enum\"")]
    ValuesWithoutEnum,
    #[error("{0:?} is not snake_case words (a-z, 0-9, single underscores)")]
    NotSnakeCase(String),
    #[error("{0:?} is there twice")]
    Twice(String),
}

/// Where in the table a [`Problem`] is: `service "github", object "issue", field "state"`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub service: Option<String>,
    pub part: Option<Part>,
    pub field: Option<String>,
}

/// An object or an action of a service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Part {
    Object(String),
    Action(String),
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        match &self.service {
            Some(key) => parts.push(format!("service {key:?}")),
            None => parts.push("shared".to_string()),
        }
        match &self.part {
            Some(Part::Object(words)) => parts.push(format!("object {words:?}")),
            Some(Part::Action(words)) => parts.push(format!("action {words:?}")),
            None => {}
        }
        if let Some(name) = &self.field {
            parts.push(format!("field {name:?}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// Reads a table written as `data/realistic-catalog.toml` documents; `file` names it in errors.
pub(crate) fn read(text: &str, file: &str) -> Result<Vec<Service>, TableError> {
    let raw: RawTable = toml::from_str(text).map_err(|e| TableError::Parse {
        file: file.to_string(),
        source: Box::new(e),
    })?;
    let invalid = |broken| TableError::Invalid {
        file: file.to_string(),
        broken,
    };
    let shared = shared_fields(raw.shared).map_err(invalid)?;
    let mut keys = BTreeSet::new();
    let mut services = Vec::with_capacity(raw.service.len());
    for service in raw.service {
        let reader = Reader {
            shared: &shared,
            at: Place {
                service: Some(service.key.clone()),
                ..Place::default()
            },
        };
        services.push(reader.service(service, &mut keys).map_err(invalid)?);
    }
    Ok(services)
}

/// The shared fields, each named once.
fn shared_fields(specs: Vec<FieldSpec>) -> Checked<Vec<Field>> {
    let mut shared: Vec<Field> = Vec::with_capacity(specs.len());
    for spec in specs {
        let at = Place {
            field: Some(spec.name.clone()),
            ..Place::default()
        };
        let field = spec.into_field().map_err(|p| broken(at.clone(), p))?;
        if shared.iter().any(|f| f.name == field.name) {
            return Err(broken(at, Problem::Twice(field.name)));
        }
        shared.push(field);
    }
    Ok(shared)
}

/// Turns one raw service into a checked one, knowing the shared fields and where it is.
struct Reader<'a> {
    shared: &'a [Field],
    at: Place,
}

type Checked<T> = Result<T, Box<Broken>>;

fn broken(at: Place, problem: Problem) -> Box<Broken> {
    Box::new(Broken { at, problem })
}

impl Reader<'_> {
    /// `keys` are the service keys read so far.
    fn service(&self, raw: RawService, keys: &mut BTreeSet<String>) -> Checked<Service> {
        self.snake_case(&raw.key)?;
        if !keys.insert(raw.key.clone()) {
            return Err(self.problem(Problem::Twice(raw.key)));
        }
        let objects = raw
            .object
            .into_iter()
            .map(|o| self.within(Part::Object(o.singular.clone())).object(o))
            .collect::<Checked<_>>()?;
        let actions = raw
            .action
            .into_iter()
            .map(|a| self.within(Part::Action(a.name.clone())).action(a))
            .collect::<Checked<_>>()?;
        Ok(Service {
            key: raw.key,
            product: raw.product,
            style: raw.style,
            origin: raw.origin,
            objects,
            actions,
        })
    }

    fn within(&self, part: Part) -> Reader<'_> {
        Reader {
            shared: self.shared,
            at: Place {
                part: Some(part),
                ..self.at.clone()
            },
        }
    }

    fn object(&self, raw: RawObject) -> Checked<Object> {
        for words in [&raw.singular, &raw.plural] {
            self.snake_case(words)?;
        }
        let parent = raw.parent.map(|p| self.field(p)).transpose()?;
        let fields = self.fields(raw.fields)?;
        let names = parent.iter().chain(&fields).map(|f| f.name.as_str());
        self.unique(names)?;
        self.required(&raw.required, &fields)?;
        Ok(Object {
            singular: raw.singular,
            plural: raw.plural,
            what: raw.what,
            scope: raw.scope,
            parent,
            fields,
            required: raw.required,
            verbs: raw
                .verbs
                .map_or_else(|| Verb::ALL.into(), BTreeSet::from_iter),
        })
    }

    fn action(&self, raw: RawAction) -> Checked<Action> {
        self.snake_case(&raw.name)?;
        let fields = self.fields(raw.fields)?;
        self.unique(fields.iter().map(|f| f.name.as_str()))?;
        self.required(&raw.required, &fields)?;
        Ok(Action {
            words: raw.name,
            description: raw.description,
            fields,
            required: raw.required,
        })
    }

    fn fields(&self, raw: Vec<RawField>) -> Checked<Vec<Field>> {
        raw.into_iter().map(|f| self.field(f)).collect()
    }

    /// A bare name is looked up among the shared fields; a table is checked and converted.
    fn field(&self, raw: RawField) -> Checked<Field> {
        let (name, field) = match raw {
            RawField::Shared(name) => {
                let field = self.shared.iter().find(|f| f.name == name).cloned();
                let known = || {
                    let names: Vec<&str> = self.shared.iter().map(|f| f.name.as_str()).collect();
                    names.join(", ")
                };
                (
                    name.clone(),
                    field.ok_or(Problem::UnknownShared(name, known())),
                )
            }
            RawField::Inline(spec) => (spec.name.clone(), spec.into_field()),
        };
        let at = Place {
            field: Some(name),
            ..self.at.clone()
        };
        let field = field.map_err(|p| broken(at.clone(), p))?;
        snake_case(&field.name).map_err(|p| broken(at, p))?;
        Ok(field)
    }

    fn required(&self, required: &[String], fields: &[Field]) -> Checked<()> {
        match required
            .iter()
            .find(|r| !fields.iter().any(|f| &f.name == *r))
        {
            Some(name) => Err(self.problem(Problem::NotAField(name.clone()))),
            None => self.unique(required.iter().map(String::as_str)),
        }
    }

    fn unique<'n>(&self, names: impl IntoIterator<Item = &'n str>) -> Checked<()> {
        let mut seen = BTreeSet::new();
        match names.into_iter().find(|name| !seen.insert(*name)) {
            Some(name) => Err(self.problem(Problem::Twice(name.to_string()))),
            None => Ok(()),
        }
    }

    fn snake_case(&self, words: &str) -> Checked<()> {
        snake_case(words).map_err(|p| self.problem(p))
    }

    fn problem(&self, problem: Problem) -> Box<Broken> {
        broken(self.at.clone(), problem)
    }
}

/// `pull_request`, `v2_api`: lower-case letters and digits in words joined by single underscores.
fn snake_case(words: &str) -> Result<(), Problem> {
    let ok = !words.is_empty()
        && words.split('_').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        });
    if ok {
        Ok(())
    } else {
        Err(Problem::NotSnakeCase(words.to_string()))
    }
}

/// The file as serde reads it, before the checks.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    shared: Vec<FieldSpec>,
    service: Vec<RawService>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawService {
    key: String,
    product: String,
    style: Style,
    origin: Origin,
    #[serde(default)]
    object: Vec<RawObject>,
    #[serde(default)]
    action: Vec<RawAction>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawObject {
    singular: String,
    plural: String,
    what: String,
    #[serde(default)]
    scope: String,
    parent: Option<RawField>,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    required: Vec<String>,
    verbs: Option<Vec<Verb>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    name: String,
    description: String,
    #[serde(default)]
    fields: Vec<RawField>,
    #[serde(default)]
    required: Vec<String>,
}

/// A field as written: a shared field's name, or `{ name, type, doc, values }`.
enum RawField {
    Shared(String),
    Inline(FieldSpec),
}

impl<'de> Deserialize<'de> for RawField {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Either;
        impl<'de> Visitor<'de> for Either {
            type Value = RawField;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a shared field's name or a table { name, type, doc }")
            }

            fn visit_str<E: de::Error>(self, name: &str) -> Result<RawField, E> {
                Ok(RawField::Shared(name.to_string()))
            }

            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<RawField, A::Error> {
                FieldSpec::deserialize(de::value::MapAccessDeserializer::new(map))
                    .map(RawField::Inline)
            }
        }
        deserializer.deserialize_any(Either)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FieldSpec {
    name: String,
    #[serde(rename = "type", default)]
    kind: Kind,
    doc: String,
    values: Option<Vec<String>>,
}

/// The `type` of a field as written.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum Kind {
    #[default]
    String,
    Integer,
    Number,
    Boolean,
    DateTime,
    List,
    Enum,
}

impl FieldSpec {
    fn into_field(self) -> Result<Field, Problem> {
        let ty = match (self.kind, self.values) {
            (Kind::Enum, Some(values)) if !values.is_empty() => Ty::Enum(values),
            (Kind::Enum, _) => return Err(Problem::EnumWithoutValues),
            (_, Some(_)) => return Err(Problem::ValuesWithoutEnum),
            (Kind::String, None) => Ty::Str,
            (Kind::Integer, None) => Ty::Int,
            (Kind::Number, None) => Ty::Num,
            (Kind::Boolean, None) => Ty::Bool,
            (Kind::DateTime, None) => Ty::Time,
            (Kind::List, None) => Ty::List,
        };
        Ok(Field::new(self.name, ty, self.doc))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_table_reads() {
        let services = match read(EMBEDDED, FILE) {
            Ok(services) => services,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(services.len(), 66);
        assert_eq!(services, self::services());
    }

    /// A one-service table with `object` and `action` spliced in.
    fn table(object: &str, action: &str) -> String {
        format!(
            "shared = [{{ name = \"repo\", doc = \"Repository.\" }}]\n\
             [[service]]\nkey = \"git\"\nproduct = \"Git\"\nstyle = \"snake\"\norigin = \"plugin\"\n\
             [[service.object]]\nsingular = \"issue\"\nplural = \"issues\"\nwhat = \"An issue.\"\n{object}\n\
             [[service.action]]\nname = \"merge\"\ndescription = \"Merge on {{product}}.\"\n{action}\n"
        )
    }

    fn error(text: &str) -> String {
        match read(text, "data/test.toml") {
            Ok(services) => panic!("read a malformed table: {services:?}"),
            Err(e) => e.to_string(),
        }
    }

    fn problem(text: &str) -> (Place, Problem) {
        match read(text, "data/test.toml") {
            Err(TableError::Invalid { file, broken }) => {
                assert_eq!(file, "data/test.toml");
                let Broken { at, problem } = *broken;
                (at, problem)
            }
            other => panic!("expected a rule to break, got {other:?}"),
        }
    }

    fn at(part: Part, field: Option<&str>) -> Place {
        Place {
            service: Some("git".into()),
            part: Some(part),
            field: field.map(str::to_string),
        }
    }

    #[test]
    fn a_small_table_reads_with_shared_fields_defaults_and_required_names() {
        let text = table(
            "parent = \"repo\"\nfields = [{ name = \"title\", doc = \"Title.\" }, \
             { name = \"state\", type = \"enum\", values = [\"open\", \"closed\"], doc = \"State.\" }]\n\
             required = [\"title\"]",
            "fields = [\"repo\", { name = \"number\", type = \"integer\", doc = \"Number.\" }]\n\
             required = [\"repo\", \"number\"]",
        );
        let services = match read(&text, "data/test.toml") {
            Ok(services) => services,
            Err(e) => panic!("{e}"),
        };
        let [service] = services.as_slice() else {
            panic!("one service expected: {services:?}");
        };
        let object = &service.objects[0];
        assert_eq!(
            object.parent,
            Some(Field::new("repo", Ty::Str, "Repository."))
        );
        assert_eq!(
            object.fields[1].ty,
            Ty::Enum(vec!["open".into(), "closed".into()])
        );
        assert_eq!(object.required, ["title"]);
        assert_eq!(object.verbs, Verb::ALL.into());
        assert_eq!(object.scope, "");
        let action = &service.actions[0];
        assert_eq!(action.fields[0].name, "repo");
        assert_eq!(action.fields[1].ty, Ty::Int);
        assert_eq!(action.required, ["repo", "number"]);
    }

    #[test]
    fn toml_and_shape_errors_name_the_file_and_the_field() {
        let typo = error(&table(
            "fields = [{ name = \"title\", dco = \"Title.\" }]",
            "",
        ));
        assert!(typo.starts_with("data/test.toml: "), "{typo}");
        assert!(typo.contains("unknown field `dco`"), "{typo}");
        let bad_type = error(&table(
            "fields = [{ name = \"n\", type = \"int\", doc = \"N.\" }]",
            "",
        ));
        assert!(bad_type.contains("unknown variant `int`"), "{bad_type}");
        assert!(bad_type.contains("type = \"int\""), "{bad_type}");
        let bad_verb = error(&table("verbs = [\"list\", \"fetch\"]", ""));
        assert!(bad_verb.contains("unknown variant `fetch`"), "{bad_verb}");
        let missing = error(&table("", "").replace("style = \"snake\"\n", ""));
        assert!(missing.contains("missing field `style`"), "{missing}");
    }

    #[test]
    fn broken_rules_name_the_service_the_part_and_the_field() {
        let object = || Part::Object("issue".into());
        let action = || Part::Action("merge".into());
        assert_eq!(
            problem(&table("parent = \"repository\"", "")),
            (
                at(object(), Some("repository")),
                Problem::UnknownShared("repository".into(), "repo".into())
            )
        );
        assert_eq!(
            problem(&table(
                "fields = [{ name = \"title\", doc = \"T.\" }]\nrequired = [\"titel\"]",
                ""
            )),
            (at(object(), None), Problem::NotAField("titel".into()))
        );
        assert_eq!(
            problem(&table("", "required = [\"repo\"]")),
            (at(action(), None), Problem::NotAField("repo".into()))
        );
        assert_eq!(
            problem(&table(
                "fields = [{ name = \"state\", type = \"enum\", doc = \"S.\" }]",
                ""
            )),
            (at(object(), Some("state")), Problem::EnumWithoutValues)
        );
        assert_eq!(
            problem(&table(
                "",
                "fields = [{ name = \"n\", values = [\"a\"], doc = \"N.\" }]"
            )),
            (at(action(), Some("n")), Problem::ValuesWithoutEnum)
        );
        assert_eq!(
            problem(&table(
                "",
                "fields = [{ name = \"pullRequest\", doc = \"P.\" }]"
            )),
            (
                at(action(), Some("pullRequest")),
                Problem::NotSnakeCase("pullRequest".into())
            )
        );
        assert_eq!(
            problem(&table("parent = \"repo\"\nfields = [\"repo\"]", "")),
            (at(object(), None), Problem::Twice("repo".into()))
        );
    }

    #[test]
    fn a_service_key_twice_is_an_error() {
        let text = table("", "");
        let twice = format!("{text}{}", &text[text.find("[[service]]").unwrap_or(0)..]);
        assert_eq!(
            error(&twice),
            "data/test.toml: service \"git\": \"git\" is there twice"
        );
    }
}
