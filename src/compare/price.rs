//! The price table `compare` turns tokens into money with: named provider/model rows of prices
//! per million tokens and the provider's prompt-caching rule, kept as data (`data/prices.toml`,
//! or a user's own file) because prices change and the rule decides which input tokens are
//! billed as cached.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::CompareMode;
use crate::scenario::place::{deserialize_toml, Field, Places};

/// The built-in table, `data/prices.toml`.
pub const BUILT_IN: &str = include_str!("../../data/prices.toml");
/// Where the built-in table comes from, as errors name it.
pub const BUILT_IN_ORIGIN: &str = "data/prices.toml";

/// How a provider decides which input tokens are read from its prompt cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "lowercase")]
pub enum CacheRule {
    /// Automatic: the prefix a request shares with an earlier one is read from the cache once it
    /// reaches `min_tokens`, in whole `increment`s (OpenAI: 1,024 and 128).
    Prefix { min_tokens: u64, increment: u64 },
    /// Opt-in breakpoints: the prompt up to a breakpoint is written to the cache (billed at the
    /// row's `cache_write` price) and read by a later request that repeats it, when it holds at
    /// least `min_tokens` (Anthropic: 1,024, or 2,048 for Haiku). Modelled with a breakpoint
    /// after the tools and system prompt and one at the end of every request.
    Breakpoints { min_tokens: u64 },
}

impl CacheRule {
    /// The rule in one line, as the report states it.
    pub fn describe(&self) -> String {
        match self {
            CacheRule::Prefix {
                min_tokens,
                increment,
            } => format!(
                "automatic prefix cache from {} tokens in {increment}-token increments",
                crate::output::thousands(*min_tokens as usize)
            ),
            CacheRule::Breakpoints { min_tokens } => format!(
                "breakpoints (after tools and system, end of each request), min {} tokens",
                crate::output::thousands(*min_tokens as usize)
            ),
        }
    }
}

/// A feature of a model that a compared mode needs: a row without it cannot price that mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    /// The provider's own tool search (OpenAI `tool_search`, Anthropic's tool search tool).
    ToolSearch,
}

impl Feature {
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::ToolSearch => "tool_search",
        }
    }
}

/// One provider/model row: USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceRow {
    /// How `--price` names it.
    pub name: String,
    pub provider: String,
    pub model: String,
    /// Uncached input.
    pub input: f64,
    /// Input read from the prompt cache.
    pub cached_input: f64,
    /// Input written to the prompt cache (breakpoint rules only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write: Option<f64>,
    pub output: f64,
    /// The date the prices were read (`YYYY-MM-DD`).
    pub read: String,
    /// Where they were read, in words.
    pub source: String,
    pub caching: CacheRule,
    /// What the model supports beyond plain tool calls, per the provider's documents (a native
    /// mode is priced only on a row of its provider that lists `tool_search`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub supports: Vec<Feature>,
}

impl PriceRow {
    pub fn supports(&self, feature: Feature) -> bool {
        self.supports.contains(&feature)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PriceFile {
    price: Vec<PriceRow>,
}

/// A price table that does not load; names the file, the line and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("price file {origin}:{line}: {field}: {message}")]
pub struct PriceError {
    pub origin: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

/// The rows of a price table, in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceTable {
    pub rows: Vec<PriceRow>,
}

impl PriceTable {
    /// The built-in table (a unit test checks that it loads).
    pub fn built_in() -> PriceTable {
        PriceTable::parse(BUILT_IN, BUILT_IN_ORIGIN).expect("data/prices.toml loads")
    }

    /// Reads a user's price file.
    pub fn read(path: &Path) -> Result<PriceTable, crate::error::Error> {
        let text = crate::error::read_given("price file", path)?;
        PriceTable::parse(&text, &path.display().to_string())
            .map_err(|e| crate::error::Error::Usage(e.to_string()))
    }

    /// Parses and checks a price table written in `origin`.
    pub fn parse(text: &str, origin: &str) -> Result<PriceTable, PriceError> {
        let places = Places::new(text);
        let error = |field: &str, line: Option<usize>, message: String| PriceError {
            origin: origin.to_string(),
            line: line
                .or_else(|| places.of(&Field::of(field)).map(|p| p.line))
                .unwrap_or(1),
            field: field.to_string(),
            message,
        };
        let file: PriceFile = deserialize_toml(text, &places).map_err(|p| {
            let field = if p.field == "." { "(file)" } else { &p.field };
            error(field, p.line, p.message)
        })?;
        for (i, row) in file.price.iter().enumerate() {
            if let Some((field, message)) = row_problem(row, &file.price[..i]) {
                return Err(error(&format!("price[{i}].{field}"), None, message));
            }
        }
        if file.price.is_empty() {
            return Err(error("price", None, "no price rows".into()));
        }
        Ok(PriceTable { rows: file.price })
    }

    /// The row named `name`, or the first row when none is named.
    pub fn pick(&self, name: Option<&str>) -> Result<&PriceRow, String> {
        match name {
            None => self.rows.first().ok_or_else(|| "no price rows".to_string()),
            Some(name) => self.rows.iter().find(|r| r.name == name).ok_or_else(|| {
                let known: Vec<&str> = self.rows.iter().map(|r| r.name.as_str()).collect();
                format!("unknown price {name:?}; known: {}", known.join(", "))
            }),
        }
    }

    /// The row `mode` is priced on, `named` being the `--price` row (`None`: not given).
    ///
    /// A gateway mode takes the named row, else the first. A native mode runs its provider's
    /// own search, so it takes a row of that provider whose model supports it: the named row
    /// when it is that provider's, else the first such row of the table. A named row of the
    /// provider whose model lacks the feature is refused: its figures would price a request the
    /// provider refuses.
    pub fn for_mode(&self, mode: CompareMode, named: Option<&str>) -> Result<&PriceRow, String> {
        let picked = self.pick(named)?;
        let Some(native) = mode.native() else {
            return Ok(picked);
        };
        let provider = native.provider.as_str();
        let feature = Feature::ToolSearch;
        let able: Vec<&PriceRow> = self
            .rows
            .iter()
            .filter(|r| r.provider == provider && r.supports(feature))
            .collect();
        let names = |rows: &[&PriceRow]| match rows {
            [] => "none".to_string(),
            rows => rows
                .iter()
                .map(|r| r.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        };
        if named.is_some() && picked.provider == provider {
            return match picked.supports(feature) {
                true => Ok(picked),
                false => Err(format!(
                    "{} ({} {}) cannot price {mode}: the model does not list {} \
                     (its provider's rows that do: {})",
                    picked.name,
                    picked.provider,
                    picked.model,
                    feature.as_str(),
                    names(&able)
                )),
            };
        }
        able.first().copied().ok_or_else(|| {
            format!(
                "no price row of provider {provider} lists {}: {mode} cannot be priced",
                feature.as_str()
            )
        })
    }
}

/// What is wrong with `row` (a field and a message), given the rows before it.
fn row_problem(row: &PriceRow, before: &[PriceRow]) -> Option<(&'static str, String)> {
    if row.name.trim().is_empty() {
        return Some(("name", "must not be empty".into()));
    }
    if before.iter().any(|r| r.name == row.name) {
        return Some(("name", format!("{:?} is named twice", row.name)));
    }
    let prices = [
        ("input", Some(row.input)),
        ("cached_input", Some(row.cached_input)),
        ("cache_write", row.cache_write),
        ("output", Some(row.output)),
    ];
    for (field, price) in prices {
        if price.is_some_and(|p| !p.is_finite() || p < 0.0) {
            return Some((field, "must be a price ≥ 0 (USD per million tokens)".into()));
        }
    }
    if row.cached_input > row.input {
        return Some(("cached_input", "is above the uncached input price".into()));
    }
    if !is_date(&row.read) {
        return Some(("read", format!("{:?} is not a YYYY-MM-DD date", row.read)));
    }
    match row.caching {
        CacheRule::Prefix { increment: 0, .. } => {
            Some(("caching.increment", "must be at least 1".into()))
        }
        CacheRule::Breakpoints { .. } if row.cache_write.is_none() => Some((
            "cache_write",
            "a breakpoints rule bills cache writes: give their price".into(),
        )),
        _ => None,
    }
}

fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    parts.len() == 3
        && [4, 2, 2]
            .iter()
            .zip(&parts)
            .all(|(n, p)| p.len() == *n && p.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_loads_with_both_rules() {
        let table = PriceTable::built_in();
        let names: Vec<&str> = table.rows.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "openai-gpt-4.1",
                "openai-gpt-5.4",
                "openai-gpt-4o-mini",
                "anthropic-claude-sonnet-4",
                "anthropic-claude-sonnet-4.5",
                "anthropic-claude-haiku-3.5"
            ]
        );
        let able: Vec<&str> = table
            .rows
            .iter()
            .filter(|r| r.supports(Feature::ToolSearch))
            .map(|r| r.name.as_str())
            .collect();
        assert_eq!(able, ["openai-gpt-5.4", "anthropic-claude-sonnet-4.5"]);
        assert!(table
            .rows
            .iter()
            .any(|r| matches!(r.caching, CacheRule::Prefix { .. })));
        assert!(table
            .rows
            .iter()
            .any(|r| matches!(r.caching, CacheRule::Breakpoints { .. })));
        assert_eq!(table.pick(None).unwrap(), &table.rows[0]);
        let unknown = table.pick(Some("nope")).unwrap_err();
        assert!(
            unknown.starts_with("unknown price \"nope\"; known: "),
            "{unknown}"
        );
    }

    #[test]
    fn each_native_mode_is_priced_on_a_row_of_its_own_provider_that_can_run_it() {
        use crate::config::{NativeProvider, ToolSearchMode};
        let table = PriceTable::built_in();
        let openai = CompareMode::Native(NativeProvider::Openai);
        let anthropic = CompareMode::Native(NativeProvider::Anthropic);
        let direct = CompareMode::Gateway(ToolSearchMode::Direct);
        let name = |mode, named| table.for_mode(mode, named).map(|r| r.name.as_str());
        // Nothing named: the gateway's modes take the first row, each native mode its own.
        assert_eq!(name(direct, None), Ok("openai-gpt-4.1"));
        assert_eq!(name(openai, None), Ok("openai-gpt-5.4"));
        assert_eq!(name(anthropic, None), Ok("anthropic-claude-sonnet-4.5"));
        // A named row of the other provider prices only the gateway's modes.
        let sonnet = Some("anthropic-claude-sonnet-4");
        assert_eq!(name(direct, sonnet), Ok("anthropic-claude-sonnet-4"));
        assert_eq!(name(openai, sonnet), Ok("openai-gpt-5.4"));
        assert_eq!(name(openai, Some("openai-gpt-5.4")), Ok("openai-gpt-5.4"));
        // A named row of the provider whose model lacks the feature is refused.
        assert_eq!(
            name(openai, Some("openai-gpt-4.1")),
            Err(
                "openai-gpt-4.1 (openai gpt-4.1) cannot price native-openai: the model does \
                 not list tool_search (its provider's rows that do: openai-gpt-5.4)"
                    .to_string()
            )
        );
        assert_eq!(
            name(anthropic, sonnet),
            Err(
                "anthropic-claude-sonnet-4 (anthropic claude-sonnet-4) cannot price \
                 native-anthropic: the model does not list tool_search (its provider's rows \
                 that do: anthropic-claude-sonnet-4.5)"
                    .to_string()
            )
        );
        // A table without such a row cannot price the mode at all.
        let own = PriceTable::parse(ROW, "p.toml").unwrap();
        assert_eq!(
            own.for_mode(openai, None).unwrap_err(),
            "no price row of provider openai lists tool_search: native-openai cannot be priced"
        );
        let listed = ROW.replace("provider = \"p\"", "provider = \"openai\"")
            + "supports = [\"tool_search\"]\n";
        let listed = PriceTable::parse(&listed, "p.toml").unwrap();
        assert_eq!(listed.for_mode(openai, None).unwrap().name, "a");
        let unknown = ROW.to_string() + "supports = [\"teleport\"]\n";
        let e = PriceTable::parse(&unknown, "p.toml").unwrap_err();
        assert_eq!(
            (e.line, e.field.as_str()),
            (12, "price[0].supports[0]"),
            "{e}"
        );
    }

    const ROW: &str = r#"
[[price]]
name = "a"
provider = "p"
model = "m"
input = 2.0
cached_input = 0.5
output = 8.0
read = "2026-12-01"
source = "s"
caching = { rule = "prefix", min_tokens = 1024, increment = 128 }
"#;

    #[test]
    fn errors_name_the_file_the_line_and_the_field() {
        let parsed = PriceTable::parse(ROW, "p.toml").unwrap();
        assert_eq!(
            parsed.rows[0].caching,
            CacheRule::Prefix {
                min_tokens: 1024,
                increment: 128
            }
        );
        let wrong_type = ROW.replace("output = 8.0", "output = \"eight\"");
        let e = PriceTable::parse(&wrong_type, "p.toml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (8, "price[0].output"), "{e}");
        let negative = format!(
            "{ROW}{}",
            ROW.replace("\"a\"", "\"b\"").replace("8.0", "-1")
        );
        let e = PriceTable::parse(&negative, "p.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "price file p.toml:19: price[1].output: must be a price ≥ 0 (USD per million tokens)"
        );
        let twice = format!("{ROW}{ROW}");
        let e = PriceTable::parse(&twice, "p.toml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (14, "price[1].name"), "{e}");
        let no_write = ROW.replace("rule = \"prefix\"", "rule = \"breakpoints\"");
        let no_write = no_write.replace(", increment = 128", "");
        let e = PriceTable::parse(&no_write, "p.toml").unwrap_err();
        assert_eq!(e.field, "price[0].cache_write", "{e}");
        let bad_date = ROW.replace("2026-12-01", "Dec 2026");
        let e = PriceTable::parse(&bad_date, "p.toml").unwrap_err();
        assert_eq!((e.line, e.field.as_str()), (9, "price[0].read"), "{e}");
    }
}
