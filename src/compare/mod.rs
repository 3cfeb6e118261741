//! Payload comparison per mode: what each Tool Search mode costs as the catalogue grows.
//!
//! For every catalogue size the reference turn runs for real (embedded gateway and mock provider
//! over loopback) once per mode, and the journaled provider requests are measured: the first request
//! and the whole turn. The mode the gateway actually used is read from its session log, so a `code`
//! lane that fell back to `tools` is reported as such, never as code. Each cell (a mode at a
//! size) runs alone — its own mock provider, its ids started over — so its figures do not depend
//! on the other cells of the run. Each cell's session then takes a second user turn, whose first
//! request a prompt cache can serve from the first turn's last. Tokens become money under one
//! price row ([`price`]), with the provider's prompt cache applied ([`cache`]).

pub mod cache;
pub mod chart;
pub mod measure;
pub mod mode;
pub mod price;
pub mod quality;
pub mod render;

use std::borrow::Cow;

use serde::Serialize;

use crate::catalog::fake::{fake_tool_name, size_problem};
use crate::drive::lane::run_lane;
use crate::drive::observation::LaneObservation;
use crate::error::{Error, Exit};
use crate::protocol::SessionRecord;
use crate::provider::native::billed_view;
use crate::provider::MockProvider;
use crate::scenario::{load_all, select, Lane, Scenario, REFERENCE_SCENARIO};
use crate::targets::{EmbeddedTarget, Product, Target, TargetChoice, TargetKind, TargetPick};
use cache::{CacheSplit, PrefixTokens, TurnPrefixes};
use measure::{measure_request, PayloadSize};
pub use mode::CompareMode;
use price::{PriceRow, PriceTable};

/// Catalogue sizes compared when none are given.
pub const DEFAULT_SIZES: [usize; 4] = [36, 100, 1_000, 10_000];
/// Index of the fake tool the turn reaches (the reference target), bounded by the catalogue size.
const TARGET_INDEX: usize = 17;

/// How `compare` prints its report.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum CompareFormat {
    #[default]
    Table,
    Json,
    Markdown,
    /// One row per target, profile, mode and size; every figure a column.
    Csv,
}

/// Bad compare options.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("unknown mode {0:?}; known: direct, code, tools, directory, code-mode, native-openai, native-anthropic")]
    UnknownMode(String),
    #[error("catalogue size {0:?} is not a positive integer")]
    BadSize(String),
    #[error("{1}")]
    TooLarge(usize, String),
    #[error("nothing to compare: give at least one size and one mode")]
    Empty,
}

/// What to compare.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareOptions {
    /// Catalogue sizes (fake plugin tools), measured in ascending order.
    pub sizes: Vec<usize>,
    /// Modes, reported in [`CompareMode::ALL`] order.
    pub modes: Vec<CompareMode>,
    /// The surface the embedded gateway shows (a built-in profile or a profile file; default:
    /// the newest captured product profile, see [`default_profile`]): with a product's
    /// profile, the comparison predicts that product.
    pub profile: Option<String>,
    /// The price table money is figured with ([`PriceTable::for_mode`] picks each mode's row).
    pub prices: PriceTable,
    /// The `--price` row by name (`None`: the table's first row for the gateway's modes, each
    /// native mode its provider's first row that supports its search).
    pub price: Option<String>,
    /// A catalogue nobody here wrote, measured beside the fake plugin (`--catalog`).
    pub catalog: Option<ExtraCatalogue>,
}

/// A scenario's MCP servers (`--catalog <scenario>`), or a JSON tool list served as one
/// (`--catalog FILE.json`), added to the reference turn's catalogue:
/// at every size the run measures each mode twice, over the fake plugin alone and over the fake
/// plugin plus these servers' tools, with the same turn (the same target, the same prompt), so
/// the difference is what the real tools cost.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraCatalogue {
    /// What the rows call it: the scenario's id, or the tool list's file name.
    pub name: String,
    /// Its MCP fixture servers (`catalog.mcp`).
    pub mcp: Vec<String>,
    /// Its real MCP servers (`catalog.mcp_servers`).
    pub mcp_servers: Vec<crate::scenario::McpServerSpec>,
}

impl ExtraCatalogue {
    /// What `--catalog` names: a JSON tool list (`.json`), else a scenario (a `.toml` file or a
    /// built-in id).
    pub fn of_argument(reference: &str) -> Result<ExtraCatalogue, Error> {
        let path = std::path::Path::new(reference);
        match path.extension().is_some_and(|e| e == "json") {
            true => Self::of_tool_list(path),
            false => Self::of_scenario(reference),
        }
    }

    /// A JSON tool list (docs/compare.md), read and checked here — a mistake is a usage error
    /// naming the file, line and field before anything starts — then served as one MCP server
    /// (`toolsearch-qa mcp-fixture --tool-list FILE`), listed like a real one. Each input schema
    /// must be one a gateway can declare (the listing's check, named by its field here).
    pub fn of_tool_list(path: &std::path::Path) -> Result<ExtraCatalogue, Error> {
        let usage = |e: String| Error::Usage(format!("--catalog: {e}"));
        let tools =
            crate::quality::catalog_file::load_tool_list(path).map_err(|e| usage(e.to_string()))?;
        if let Some((i, problem)) = tools.iter().enumerate().find_map(|(i, t)| {
            let schema = serde_json::Value::Object(t.input_schema.clone());
            crate::mcp_servers::schema_problem(&schema).map(|p| (i, p))
        }) {
            return Err(usage(format!(
                "{}: tool {i} ({:?}): its input schema: {problem}",
                path.display(),
                tools[i].name
            )));
        }
        let absolute =
            std::path::absolute(path).map_err(|e| usage(format!("{}: {e}", path.display())))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(ExtraCatalogue {
            name,
            mcp: Vec::new(),
            mcp_servers: vec![crate::scenario::McpServerSpec {
                name: crate::mcp_fixture::tool_list::SERVER_NAME.into(),
                command: "{toolsearch-qa}".into(),
                args: vec![
                    "mcp-fixture".into(),
                    "--tool-list".into(),
                    absolute.display().to_string(),
                ],
                env: Default::default(),
                cwd: None,
            }],
        })
    }

    /// The catalogue of scenario `reference` (a built-in id, or a scenario file's path); a
    /// scenario with no MCP server adds nothing, and is a usage error.
    pub fn of_scenario(reference: &str) -> Result<ExtraCatalogue, Error> {
        let path = std::path::Path::new(reference);
        let scenario = match path.extension().is_some_and(|e| e == "toml") {
            true => crate::scenario::load_file(path)?,
            false => select(load_all(&[])?, &[reference.to_string()])?.remove(0),
        };
        let catalog = &scenario.catalog;
        if catalog.mcp.is_empty() && catalog.mcp_servers.is_empty() {
            return Err(Error::Usage(format!(
                "--catalog {reference}: scenario {} has no MCP server (catalog.mcp, \
                 catalog.mcp_servers): nothing to add to the fake plugin",
                scenario.id
            )));
        }
        Ok(ExtraCatalogue {
            name: scenario.id.clone(),
            mcp: catalog.mcp.clone(),
            mcp_servers: catalog.mcp_servers.clone(),
        })
    }
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            sizes: DEFAULT_SIZES.to_vec(),
            modes: CompareMode::DEFAULT.to_vec(),
            profile: None,
            prices: PriceTable::built_in(),
            price: None,
            catalog: None,
        }
    }
}

/// The newest captured product profile among the built-in ones (`openclaw-<version>`, by
/// version order), or `spec` when none is built in.
pub fn default_profile() -> String {
    newest_product(&crate::profile::built_in_names())
        .unwrap_or_else(|| crate::profile::SPEC.to_string())
}

/// The `openclaw-<version>` name with the highest version (numeric parts compared as numbers).
fn newest_product(names: &[String]) -> Option<String> {
    let version = |name: &str| -> Option<Vec<u64>> {
        name.strip_prefix("openclaw-")?
            .split(['.', '-'])
            .map(|part| part.parse::<u64>().ok())
            .collect()
    };
    names
        .iter()
        .filter_map(|n| version(n).map(|v| (v, n)))
        .max()
        .map(|(_, n)| n.clone())
}

impl CompareOptions {
    /// Each mode's price row, in mode order; a mode no row can price is an error naming it.
    pub fn mode_prices(&self) -> Result<Vec<(CompareMode, PriceRow)>, String> {
        self.modes
            .iter()
            .map(|&mode| {
                let row = self.prices.for_mode(mode, self.price.as_deref())?;
                Ok((mode, row.clone()))
            })
            .collect()
    }

    /// Deduplicated, non-empty options: sizes sorted, modes in the order given (`--modes` is the
    /// order of every table's rows, chart's legend and file's records).
    pub fn normalized(mut self) -> Result<CompareOptions, CompareError> {
        self.sizes.sort_unstable();
        self.sizes.dedup();
        let mut seen = Vec::with_capacity(self.modes.len());
        self.modes.retain(|m| {
            let first = !seen.contains(m);
            seen.push(*m);
            first
        });
        if self.sizes.is_empty() || self.modes.is_empty() || self.sizes[0] == 0 {
            return Err(CompareError::Empty);
        }
        Ok(self)
    }
}

/// Parses `36,100,1000` (underscores allowed: `10_000`).
pub fn parse_sizes(text: &str) -> Result<Vec<usize>, CompareError> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            s.trim()
                .replace('_', "")
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| CompareError::BadSize(s.to_string()))
                .and_then(|n| match size_problem(n as u64) {
                    Some(problem) => Err(CompareError::TooLarge(n, problem)),
                    None => Ok(n),
                })
        })
        .collect()
}

/// Parses `direct,tools`.
pub fn parse_modes(text: &str) -> Result<Vec<CompareMode>, CompareError> {
    text.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|name| {
            CompareMode::from_name(name.trim())
                .ok_or_else(|| CompareError::UnknownMode(name.to_string()))
        })
        .collect()
}

/// One mode at one catalogue size.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareCell {
    /// Where the turn ran: the embedded gateway's prediction or the real product.
    pub target: TargetKind,
    pub size: usize,
    /// The mode asked for.
    pub mode: CompareMode,
    /// The price row the cell's money is figured with (a native mode: its own provider's).
    pub price: String,
    /// The mode the gateway used (from its session log), e.g. `tools` for a code lane without
    /// sandbox; the product's log does not say, so there it is the mode configured.
    pub effective_mode: String,
    /// Why the effective mode differs, as the gateway logged it.
    pub notes: Vec<String>,
    /// The first request of the first turn.
    pub first: PayloadSize,
    /// First-request bytes over direct's at the same size (`None` without a direct lane).
    pub first_ratio: Option<f64>,
    /// Whole-turn bytes over direct's at the same size.
    pub turn_ratio: Option<f64>,
    /// The first user turn (its figures at the top level of the JSON).
    #[serde(flatten)]
    pub first_turn: TurnFigures,
    /// The second user turn of the same session: its first request is read against the first
    /// turn's last, so what the first turn left in the provider's cache is billed as cached.
    pub second_turn: TurnFigures,
    /// On a product cell of a run with both targets: how far the embedded prediction was off.
    pub prediction_error: Option<PredictionError>,
    /// The catalogue added to the fake plugin's (`--catalog`), by name, and how many tools it
    /// added; `None` on a cell of the fake plugin alone.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<AddedCatalogue>,
}

/// What `--catalog` added to a cell's catalogue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AddedCatalogue {
    pub name: String,
    /// Its MCP tools, as their servers listed them.
    pub tools: usize,
}

/// The embedded prediction against the product at one cell: (predicted − product) / product.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PredictionError {
    pub first_bytes: f64,
    pub turn_tokens: f64,
}

impl PredictionError {
    fn of(predicted: &CompareCell, product: &CompareCell) -> PredictionError {
        let error = |p: usize, real: usize| match real {
            0 => 0.0,
            real => (p as f64 - real as f64) / real as f64,
        };
        PredictionError {
            first_bytes: error(predicted.first.raw_bytes, product.first.raw_bytes),
            turn_tokens: error(
                predicted.first_turn.turn.tokens,
                product.first_turn.turn.tokens,
            ),
        }
    }
}

/// One user turn of a cell's session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnFigures {
    /// Did the turn end with the target's success marker?
    pub reached_target: bool,
    pub requests: usize,
    /// Its provider requests, summed.
    pub turn: PayloadSize,
    /// Per request: its tokens and the prompt prefix it shares with the request before it (the
    /// second turn's first: the first turn's last request).
    pub prefixes: Vec<PrefixTokens>,
    /// The turn's input tokens as the cell's price row's provider bills them.
    pub cache: CacheSplit,
    /// Tokens the provider generated over the turn, as the gateway reported them.
    pub output_tokens: Option<u64>,
    /// USD per turn under the price row (`None` without output tokens).
    pub cost_per_turn: Option<f64>,
    /// USD per 1,000 turns.
    #[serde(rename = "costPer1000Turns")]
    pub cost_per_1000_turns: Option<f64>,
}

/// Every cell, sorted by size then mode.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareReport {
    /// Where the turns ran, in report order.
    pub targets: Vec<TargetKind>,
    /// The profile the embedded gateway showed.
    pub profile: String,
    /// The real product the openclaw cells ran on.
    pub product: Option<Product>,
    pub tokenizer: &'static str,
    /// The price row of the gateway's modes, its caching rule included.
    pub price: PriceRow,
    /// Every row a cell is priced on, in mode order, each once (a native mode's is its
    /// provider's).
    pub prices: Vec<PriceRow>,
    pub sizes: Vec<usize>,
    pub modes: Vec<CompareMode>,
    pub cells: Vec<CompareCell>,
    /// Cells the product would not run: its gateway answered the turn with an error status.
    pub refused: Vec<Refusal>,
    /// How well each mode's search finds a tool on the labelled set (`quality`).
    pub search_quality: Vec<quality::SearchQuality>,
}

/// A cell the product refused (no figures): where, and what its gateway answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Refusal {
    pub target: TargetKind,
    pub size: usize,
    pub mode: CompareMode,
    pub status: u16,
    pub message: String,
}

impl CompareReport {
    /// The cell of `mode` at `size` (the first target's, the fake plugin alone).
    pub fn cell(&self, size: usize, mode: impl Into<CompareMode>) -> Option<&CompareCell> {
        let mode = mode.into();
        self.cells
            .iter()
            .find(|c| c.size == size && c.mode == mode && c.catalogue.is_none())
    }

    /// The cell of `mode` at `size` with the `--catalog` catalogue added (the first target's).
    pub fn cell_with_catalogue(
        &self,
        size: usize,
        mode: impl Into<CompareMode>,
    ) -> Option<&CompareCell> {
        let mode = mode.into();
        self.cells
            .iter()
            .find(|c| c.size == size && c.mode == mode && c.catalogue.is_some())
    }

    /// The cell of `mode` at `size` on `target`.
    pub fn cell_on(
        &self,
        target: TargetKind,
        size: usize,
        mode: impl Into<CompareMode>,
    ) -> Option<&CompareCell> {
        let mode = mode.into();
        self.cells.iter().find(|c| {
            c.target == target && c.size == size && c.mode == mode && c.catalogue.is_none()
        })
    }

    /// The report of one target's cells.
    pub fn only(&self, target: TargetKind) -> CompareReport {
        CompareReport {
            targets: vec![target],
            cells: self
                .cells
                .iter()
                .filter(|c| c.target == target)
                .cloned()
                .collect(),
            ..self.clone()
        }
    }

    /// What the cells of `target` show: the embedded gateway's profile, or the product release.
    pub fn shown(&self, target: TargetKind) -> String {
        match (target, &self.product) {
            (TargetKind::Openclaw, Some(product)) => format!("openclaw-{}", product.version),
            _ => self.profile.clone(),
        }
    }
}

/// The reference scenario resized to `size` fake tools, with one lane per mode.
pub fn sized_scenario(reference: &Scenario, size: usize, modes: &[CompareMode]) -> Scenario {
    let mut scenario = reference.clone();
    // A session key per size: one product gateway serves every size of a run.
    scenario.id = format!("{}-{size}", reference.id);
    let target = fake_tool_name(TARGET_INDEX.min(size), size);
    scenario.catalog.size = size;
    scenario.prompt = format!("tool search qa check target={target}");
    // The same session's second user turn asks for the same tool again.
    scenario.follow_up = Some(format!("{} once more", scenario.prompt));
    scenario.target_tool = target;
    scenario.lanes = modes.iter().map(|mode| mode.lane()).collect();
    // Compare measures the turns and judges nothing: no claim, so no call beyond the two turns
    // (E1's effective tools, I1's invoke batch) on either target.
    scenario.claims = Vec::new();
    scenario
}

/// The built-in reference scenario.
pub fn reference_scenario() -> Result<Scenario, Error> {
    let all = load_all(&[])?;
    let mut picked = select(all, &[REFERENCE_SCENARIO.to_string()])?;
    picked
        .pop()
        .ok_or_else(|| Error::Usage(format!("no scenario {REFERENCE_SCENARIO}")))
}

/// Runs the comparison on the embedded gateway.
pub async fn run_compare(options: CompareOptions) -> Result<CompareReport, Error> {
    run_compare_on(options, &[&EmbeddedTarget]).await
}

/// Runs the comparison on each of `targets` in turn: every size, one real turn per mode, each
/// with a fresh mock provider. On a product target the lanes share a gateway, its config
/// hot-reloaded per mode and size (see [`crate::targets::OpenClawTarget::serving_sizes`]); the gateway is
/// stopped at the end. With both targets, each
/// product cell carries the embedded prediction's error.
pub async fn run_compare_on(
    options: CompareOptions,
    targets: &[&dyn Target],
) -> Result<CompareReport, Error> {
    let options = options
        .normalized()
        .map_err(|e| Error::Usage(e.to_string()))?;
    let mode_prices = options
        .mode_prices()
        .map_err(|e| Error::Usage(format!("--price: {e}")))?;
    let price = options
        .prices
        .pick(options.price.as_deref())
        .map_err(|e| Error::Usage(format!("--price: {e}")))?
        .clone();
    let product = targets.iter().find_map(|t| t.product());
    let mut reference = reference_scenario()?;
    let profile = options
        .profile
        .clone()
        .unwrap_or_else(|| product_profile(product.as_ref()));
    reference.set_profile(crate::profile::resolve(&profile)?);
    let extra = match &options.catalog {
        Some(catalog) => Some(listed_catalogue(&reference, catalog).await?),
        None => None,
    };
    let mut cells = Vec::new();
    let mut refused = Vec::new();
    for target in targets {
        let run = run_target(
            *target,
            (&reference, extra.as_ref()),
            &options,
            &mode_prices,
            &mut refused,
        )
        .await;
        target.finish().await;
        cells.extend(run?);
    }
    with_prediction_errors(&mut cells);
    let kinds: Vec<TargetKind> = targets.iter().map(|t| t.kind()).collect();
    let search_quality = quality::search_quality(&options.modes, &kinds, product.as_ref())?;
    Ok(CompareReport {
        targets: kinds,
        profile: reference.profile.name.clone(),
        product,
        tokenizer: "o200k_base",
        price,
        prices: distinct_rows(&mode_prices),
        sizes: options.sizes,
        modes: options.modes,
        cells,
        refused,
        search_quality,
    })
}

/// The reference scenario with `catalog`'s servers added and listed (each server started once
/// by the harness, before any cell: a broken one ends the run naming it, exit 3).
async fn listed_catalogue(
    reference: &Scenario,
    catalog: &ExtraCatalogue,
) -> Result<(Scenario, AddedCatalogue), Error> {
    let mut with = reference.clone();
    with.catalog.mcp = catalog.mcp.clone();
    with.catalog.mcp_servers = catalog.mcp_servers.clone();
    let mut listed = [with];
    crate::mcp_servers::list_catalogues(&mut listed).await?;
    let [with] = listed;
    let added = AddedCatalogue {
        name: catalog.name.clone(),
        tools: with.catalog.mcp_tool_names().len(),
    };
    Ok((with, added))
}

/// The rows of `mode_prices`, each once, in mode order.
fn distinct_rows(mode_prices: &[(CompareMode, PriceRow)]) -> Vec<PriceRow> {
    let mut rows: Vec<PriceRow> = Vec::new();
    for (_, row) in mode_prices {
        if !rows.iter().any(|r| r.name == row.name) {
            rows.push(row.clone());
        }
    }
    rows
}

/// The profile that predicts `product` (its release's, when built in), else [`default_profile`].
fn product_profile(product: Option<&Product>) -> String {
    let names = crate::profile::built_in_names();
    product
        .map(|p| format!("openclaw-{}", p.version))
        .filter(|name| names.contains(name))
        .unwrap_or_else(default_profile)
}

/// Every size on one target.
/// A product cell whose turn the gateway answered with an error status is `refused`, not an
/// error of the run: where the product stops accepting a catalogue is one of its figures.
async fn run_target(
    target: &dyn Target,
    (reference, extra): (&Scenario, Option<&(Scenario, AddedCatalogue)>),
    options: &CompareOptions,
    mode_prices: &[(CompareMode, PriceRow)],
    refused: &mut Vec<Refusal>,
) -> Result<Vec<CompareCell>, Error> {
    let mut cells = Vec::new();
    // A native lane is the embedded gateway's: a product runs only the gateway modes.
    let modes: Vec<CompareMode> = match target.kind() {
        TargetKind::Openclaw => options
            .modes
            .iter()
            .copied()
            .filter(|m| m.native().is_none())
            .collect(),
        TargetKind::Embedded => options.modes.clone(),
    };
    if modes.is_empty() {
        return Err(Error::Usage(format!(
            "--modes: {} runs none of them: native lanes run on the embedded gateway only",
            target.name()
        )));
    }
    // Each size over the fake plugin alone, then (with `--catalog`) over it and the catalogue.
    let catalogues =
        std::iter::once((reference, None)).chain(extra.map(|(with, added)| (with, Some(added))));
    let catalogues: Vec<(&Scenario, Option<&AddedCatalogue>)> = catalogues.collect();
    for &size in &options.sizes {
        for &(reference, added) in &catalogues {
            let row = run_row(target, reference, added, size, &modes, mode_prices, refused).await?;
            cells.extend(row);
        }
    }
    Ok(cells)
}

/// Every mode at one size over one catalogue (a cell's ratios are to its row's direct cell).
async fn run_row(
    target: &dyn Target,
    reference: &Scenario,
    added: Option<&AddedCatalogue>,
    size: usize,
    modes: &[CompareMode],
    mode_prices: &[(CompareMode, PriceRow)],
    refused: &mut Vec<Refusal>,
) -> Result<Vec<CompareCell>, Error> {
    let mut scenario = sized_scenario(reference, size, modes);
    if let Some(added) = added {
        // A session key of its own: one product gateway serves every row of a run.
        scenario.id = format!("{}-{}", scenario.id, added.name);
    }
    let plan = target.plan(&scenario)?;
    if let Some(missing) = plan.not_applicable.first() {
        return Err(Error::Usage(format!(
            "--modes: {} cannot run mode {}: {}",
            target.name(),
            missing.lane,
            missing.reason
        )));
    }
    let mut row = Vec::new();
    for lane in &plan.scenario.lanes {
        let mode = CompareMode::of_lane(lane);
        let price = mode_prices
            .iter()
            .find(|(m, _)| *m == mode)
            .map(|(_, row)| row)
            .ok_or_else(|| Error::Machine(format!("no price row for mode {mode}")))?;
        match run_cell(target, &plan.scenario, size, lane, price).await {
            Ok(cell) => row.push(CompareCell {
                catalogue: added.cloned(),
                ..cell
            }),
            // A product's gateway refusing a catalogue, or a provider refusing a native
            // request (Anthropic: more than 10,000 tools), is a figure of the run.
            Err(Error::TurnFailed {
                status, message, ..
            }) if target.kind() == TargetKind::Openclaw || mode.native().is_some() => {
                refused.push(Refusal {
                    target: target.kind(),
                    size,
                    mode,
                    status,
                    message,
                })
            }
            Err(e) => return Err(e),
        }
    }
    with_ratios(&mut row);
    Ok(row)
}

/// One mode at one size, alone: its own mock provider and, when the command made ids
/// reproducible, the ids it would get as the only cell of the run.
async fn run_cell(
    target: &dyn Target,
    scenario: &Scenario,
    size: usize,
    lane: &Lane,
    price: &PriceRow,
) -> Result<CompareCell, Error> {
    let mode = CompareMode::of_lane(lane);
    crate::protocol::response_object::restart_reproducible_ids();
    let provider = MockProvider::start().await?;
    let plan = crate::drive::LanePlan::new(target, scenario, lane);
    let observation = run_lane(target, &plan, &provider.base_url(), &provider.journal()).await?;
    cell(target.kind(), scenario, size, mode, &observation, price)
}

/// Each product cell gets the error of the embedded cell of the same size and mode.
fn with_prediction_errors(cells: &mut [CompareCell]) {
    let predicted: Vec<CompareCell> = cells
        .iter()
        .filter(|c| c.target == TargetKind::Embedded)
        .cloned()
        .collect();
    for cell in cells
        .iter_mut()
        .filter(|c| c.target == TargetKind::Openclaw)
    {
        cell.prediction_error = predicted
            .iter()
            .find(|p| p.size == cell.size && p.mode == cell.mode && p.catalogue == cell.catalogue)
            .map(|p| PredictionError::of(p, cell));
    }
}

/// One turn's requests measured: the first, their sum, and each one's prompt prefix.
struct Measured {
    first: PayloadSize,
    turn: PayloadSize,
    prefixes: Vec<PrefixTokens>,
}

/// Both turns of a session, each request read against the one before it (the second turn's
/// first against the first turn's last). A native cell's requests are read as their provider
/// bills them ([`billed_view`]): the deferred schemas not yet loaded are no part of its prompt.
fn measure(observation: &LaneObservation, native: bool) -> Result<[Measured; 2], Error> {
    let machine = |e: crate::protocol::usage::TokenizerError| Error::Machine(e.to_string());
    let second: &[std::sync::Arc<crate::provider::JournalRecord>] = match &observation.follow_up {
        Some(follow_up) => &follow_up.requests,
        None => return Err(Error::Machine("the second turn did not run".into())),
    };
    let turns_requests = [&observation.requests[..], second];
    let views: Vec<Vec<Cow<'_, str>>> = turns_requests
        .iter()
        .map(|requests| {
            requests
                .iter()
                .map(|record| match native {
                    true => billed_view(record.protocol, &record.raw)
                        .map(Cow::Owned)
                        .map_err(|e| Error::Machine(format!("billed view: {e}"))),
                    false => Ok(Cow::Borrowed(&*record.raw)),
                })
                .collect::<Result<Vec<_>, Error>>()
        })
        .collect::<Result<_, _>>()?;
    let mut prefixes = TurnPrefixes::default();
    let mut turns = Vec::new();
    for (requests, views) in turns_requests.iter().zip(&views) {
        let mut first = None;
        let mut turn = PayloadSize::default();
        let from = prefixes.requests.len();
        for (record, view) in requests.iter().zip(views) {
            let size = measure_request(record).map_err(machine)?;
            prefixes.push(view, size.tokens as u64).map_err(machine)?;
            first.get_or_insert(size);
            turn = turn + size;
        }
        turns.push(Measured {
            first: first.unwrap_or_default(),
            turn,
            prefixes: prefixes.requests[from..].to_vec(),
        });
    }
    let [one, two]: [Measured; 2] = turns
        .try_into()
        .map_err(|_| Error::Machine("two turns".into()))?;
    Ok([one, two])
}

/// A turn's figures: `measured`, its answer (`None`: it did not run), its input as `price`'s
/// cache bills it after the request `before`.
fn turn_figures(
    measured: &Measured,
    answer: Option<&crate::protocol::ResponseBody>,
    marker: &str,
    before: Option<&PrefixTokens>,
    price: &PriceRow,
) -> TurnFigures {
    let output_tokens = answer.and_then(|a| a.usage.and_then(|u| u.output_tokens));
    let cache = cache::split(&measured.prefixes, before, price.caching);
    let cost = output_tokens.map(|output| cache::turn_cost(&cache, output, price));
    // Whole nano-dollars per turn, micro-dollars per 1,000 turns: no float noise in the output.
    let rounded = |usd: f64, per: f64| (usd * per).round() / per;
    TurnFigures {
        reached_target: answer.is_some_and(|a| a.text().contains(marker)),
        requests: measured.prefixes.len(),
        turn: measured.turn,
        prefixes: measured.prefixes.clone(),
        cache,
        output_tokens,
        cost_per_turn: cost.map(|c| rounded(c, 1e9)),
        cost_per_1000_turns: cost.map(|c| rounded(c * 1_000.0, 1e6)),
    }
}

fn cell(
    target: TargetKind,
    scenario: &Scenario,
    size: usize,
    mode: CompareMode,
    observation: &LaneObservation,
    price: &PriceRow,
) -> Result<CompareCell, Error> {
    let [one, two] = measure(observation, mode.native().is_some())?;
    let surface = observation.session.records.iter().find_map(|r| match r {
        SessionRecord::Surface(s) => Some(s),
        _ => None,
    });
    // The product's transcript does not name its mode: there the mode is the one configured.
    // A native lane plans its catalogue as directory mode does; what it ran is the native mode.
    // A surface that says Code Mode engaged ran Code Mode, whatever Tool Search was set to.
    let code_mode = surface.is_some_and(|s| s.code_mode);
    let effective_mode = match (mode, surface.and_then(|s| s.mode)) {
        _ if code_mode => CompareMode::CodeMode.as_str().to_string(),
        (CompareMode::Native(_), _) | (_, None) => mode.as_str().to_string(),
        (CompareMode::Gateway(_) | CompareMode::CodeMode, Some(logged)) => {
            logged.as_str().to_string()
        }
    };
    let notes = surface.and_then(|s| s.notes.clone()).unwrap_or_default();
    let marker = format!("{} {}", crate::catalog::fake::FAKE_OK, scenario.target_tool);
    let second_answer = observation.follow_up.as_ref().map(|f| &f.response);
    Ok(CompareCell {
        target,
        size,
        mode,
        price: price.name.clone(),
        effective_mode,
        notes,
        first: one.first,
        first_ratio: None,
        turn_ratio: None,
        first_turn: turn_figures(&one, Some(&observation.response), &marker, None, price),
        second_turn: turn_figures(&two, second_answer, &marker, one.prefixes.last(), price),
        prediction_error: None,
        catalogue: None,
    })
}

fn ratio(value: usize, base: usize) -> Option<f64> {
    (base > 0).then(|| value as f64 / base as f64)
}

/// Fills the ratios to the direct cell of the same size (cells of one size).
fn with_ratios(cells: &mut [CompareCell]) {
    let Some(direct) = cells
        .iter()
        .find(|c| c.mode.is_direct())
        .map(|c| (c.first.raw_bytes, c.first_turn.turn.raw_bytes))
    else {
        return;
    };
    for cell in cells {
        cell.first_ratio = ratio(cell.first.raw_bytes, direct.0);
        cell.turn_ratio = ratio(cell.first_turn.turn.raw_bytes, direct.1);
    }
}

/// The `compare` command's flags, as given.
#[derive(Debug, Clone, Default)]
pub struct CompareCommand {
    pub sizes: String,
    pub modes: String,
    pub profile: Option<String>,
    /// A row of the price table by name (default: its first row).
    pub price: Option<String>,
    /// A price table of the user's own instead of `data/prices.toml`.
    pub price_file: Option<std::path::PathBuf>,
    pub format: CompareFormat,
    /// Where the SVG charts go.
    pub chart_dir: Option<std::path::PathBuf>,
    /// The embedded gateway's prediction, the real product, or both side by side (the product:
    /// its release, `None` the newest with data, and Node major).
    pub target: TargetPick,
    /// A scenario (built-in id or file) whose MCP servers are measured beside the fake plugin.
    pub catalog: Option<String>,
}

/// The `compare` command: parse the flags, run, write the charts, print the report.
pub async fn command(args: CompareCommand, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    // Token counts include the provider's ids (one per reply, in every later request of the
    // turn): the same ids in every run, and in every cell, make the same figures.
    crate::protocol::response_object::reproducible_ids();
    let sizes = parse_sizes(&args.sizes).map_err(|e| Error::Usage(format!("--sizes: {e}")))?;
    let modes = parse_modes(&args.modes).map_err(|e| Error::Usage(format!("--modes: {e}")))?;
    let table = match &args.price_file {
        Some(path) => PriceTable::read(path)?,
        None => PriceTable::built_in(),
    };
    // Checked before any run: an unknown row, or a native mode no row can price.
    table
        .pick(args.price.as_deref())
        .map_err(|e| Error::Usage(format!("--price: {e}")))?;
    let product = || {
        args.target
            .openclaw_target()
            .map(|t| t.serving_sizes(&sizes))
    };
    let targets: Vec<Box<dyn Target>> = match args.target.kind {
        TargetChoice::Embedded => vec![Box::new(EmbeddedTarget)],
        TargetChoice::Openclaw => vec![Box::new(product()?)],
        TargetChoice::Both => vec![Box::new(EmbeddedTarget), Box::new(product()?)],
    };
    let targets: Vec<&dyn Target> = targets.iter().map(|t| t.as_ref()).collect();
    let catalog = args
        .catalog
        .as_deref()
        .map(ExtraCatalogue::of_argument)
        .transpose()?;
    let options = CompareOptions {
        sizes,
        modes,
        profile: args.profile,
        prices: table,
        price: args.price,
        catalog,
    };
    let report = run_compare_on(options, &targets).await?;
    let charts = match &args.chart_dir {
        Some(dir) => chart::write_all(&report, dir)?,
        None => Vec::new(),
    };
    let text = match args.format {
        CompareFormat::Table => render::table(&report),
        CompareFormat::Markdown => render::markdown(&report, &charts),
        CompareFormat::Csv => {
            render::csv(&report).map_err(|e| Error::Machine(format!("cannot render CSV: {e}")))?
        }
        CompareFormat::Json => render::json(&report)
            .map(|text| text + "\n")
            .map_err(|e| Error::Machine(format!("cannot render JSON: {e}")))?,
    };
    crate::output::emit(out, &text)?;
    Ok(Exit::OK)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NativeProvider, ToolSearchMode};

    fn modes(list: &[ToolSearchMode]) -> Vec<CompareMode> {
        list.iter().map(|m| CompareMode::from(*m)).collect()
    }

    #[test]
    fn sizes_and_modes_parse() {
        assert_eq!(parse_sizes("36, 100,10_000").unwrap(), [36, 100, 10_000]);
        assert_eq!(
            parse_sizes("0").unwrap_err(),
            CompareError::BadSize("0".into())
        );
        assert_eq!(
            parse_modes("tools,direct,native-anthropic").unwrap(),
            [
                CompareMode::Gateway(ToolSearchMode::Tools),
                CompareMode::Gateway(ToolSearchMode::Direct),
                CompareMode::Native(NativeProvider::Anthropic)
            ]
        );
        assert_eq!(
            parse_modes("magic").unwrap_err().to_string(),
            "unknown mode \"magic\"; known: direct, code, tools, directory, code-mode, native-openai, native-anthropic"
        );
    }

    #[test]
    fn sizes_are_sorted_modes_keep_their_order_and_both_are_deduplicated() {
        let options = CompareOptions {
            sizes: vec![100, 36, 100],
            modes: modes(&[
                ToolSearchMode::Tools,
                ToolSearchMode::Direct,
                ToolSearchMode::Tools,
            ]),
            profile: None,
            ..CompareOptions::default()
        }
        .normalized()
        .unwrap();
        assert_eq!(options.sizes, [36, 100]);
        // Modes keep the order given (issue #41: `--modes` was ignored), each once.
        assert_eq!(
            options.modes,
            modes(&[ToolSearchMode::Tools, ToolSearchMode::Direct])
        );
        let empty = CompareOptions {
            sizes: vec![],
            modes: modes(&[ToolSearchMode::Direct]),
            ..CompareOptions::default()
        };
        assert_eq!(empty.normalized().unwrap_err(), CompareError::Empty);
    }

    #[test]
    fn the_default_profile_is_the_newest_product_profile() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let newest = newest_product(&names(&[
            "openclaw-2026.9.6",
            "spec",
            "openclaw-2026.10.1",
            "openclaw-2026.9.12",
        ]));
        assert_eq!(newest.as_deref(), Some("openclaw-2026.10.1"));
        assert_eq!(newest_product(&names(&["spec", "openclaw-next"])), None);
        assert!(
            default_profile().starts_with("openclaw-"),
            "{}",
            default_profile()
        );
    }

    #[test]
    fn sized_scenario_targets_the_padded_name() {
        let reference = reference_scenario().unwrap();
        let s = sized_scenario(
            &reference,
            1_000,
            &modes(&[ToolSearchMode::Direct, ToolSearchMode::Code]),
        );
        assert_eq!(s.catalog.size, 1_000);
        assert_eq!(s.target_tool, "fake_plugin_tool_0017");
        assert_eq!(
            s.prompt,
            "tool search qa check target=fake_plugin_tool_0017"
        );
        assert_eq!(s.lanes[1].tool_search, serde_json::json!({"mode": "code"}));
        let small = sized_scenario(&reference, 5, &modes(&[ToolSearchMode::Direct]));
        assert_eq!(small.target_tool, "fake_plugin_tool_05");
    }
}
