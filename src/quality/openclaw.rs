//! `quality --target openclaw`: the same labelled set, searched by a real OpenClaw gateway's own
//! Tool Search. The catalogue is loaded into the product as a plugin; every query (and every
//! tool's own name) goes through `openclaw.tools.search` inside `tool_search_code` calls that the
//! mock provider's script makes, one batch per turn, and each call returns, per query, the rank
//! of the right tool within [`RANK_DEPTH`] and the first result's name. The harness reads those
//! results from what the provider was sent back and measures them exactly as it measures the
//! embedded engine ([`super::assemble`]). BFCL's pooled catalogue goes the same way
//! ([`measure_bfcl`]), measured as the embedded rankers are ([`super::bfcl::report_of`]).

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::{json, Value};

use super::{assemble, QualityReport, QualitySet, Ranked, RankedBy, RANK_DEPTH};
use crate::catalog::ToolEntry;
use crate::config::TOOL_SEARCH_CODE;
use crate::drive::lane::{error_message, message_body, post_turn};
use crate::error::{temp_dir, Error};
use crate::output::first_line;
use crate::provider::model::ScriptedTurn;
use crate::provider::{MockProvider, ProviderOptions};
use crate::targets::openclaw::{
    config_value, write_json, write_plugin, LaneConfig, OpenClawGateway, OpenClawTarget, AGENT_ID,
    DEFAULT_START_TIMEOUT,
};
use crate::targets::Target;

/// The plugin the measured catalogue is loaded as.
pub const PLUGIN_ID: &str = "search-quality-catalog";
/// Searches per `tool_search_code` call (one call per turn).
const SEARCHES_PER_BATCH: usize = 120;
/// The product's longest code run (its own upper bound for `codeTimeoutMs`).
const CODE_TIMEOUT_MS: u64 = 60_000;
/// How long one batch's turn may take.
const TURN_TIMEOUT: Duration = Duration::from_secs(300);
/// The text that ends each scripted turn.
const DONE_TEXT: &str = "search quality batch done";

/// Measures `set` against `entries` loaded into a real OpenClaw gateway, searched by the
/// product. Queries whose right tool is neither in `entries` nor one of the product's own tools
/// are reported as unmeasured, not as misses.
pub async fn measure(
    product: &OpenClawTarget,
    entries: &[ToolEntry],
    set: &QualitySet,
) -> Result<QualityReport, Error> {
    let names: BTreeSet<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    let foreign: Vec<String> = set
        .queries
        .iter()
        .filter(|q| !names.contains(q.tool.as_str()))
        .map(|q| q.tool.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let queries: Vec<(&str, &str)> = set
        .queries
        .iter()
        .map(|q| (q.text.as_str(), q.tool.as_str()))
        .collect();
    let ranks = rank(product, entries, &queries, &foreign, true).await?;
    let measured: Vec<Option<Ranked>> = set
        .queries
        .iter()
        .zip(&ranks.queries)
        .map(|(q, rank)| {
            (names.contains(q.tool.as_str()) || ranks.present.contains(&q.tool))
                .then(|| rank.clone())
        })
        .collect();
    let mut exact_name_misses: Vec<String> = entries
        .iter()
        .zip(&ranks.names)
        .filter(|(_, (rank, _))| *rank != Some(1))
        .map(|(e, _)| format!("openclaw:{PLUGIN_ID}:{}", e.name))
        .collect();
    exact_name_misses.sort();
    let mut report = assemble(
        RankedBy::Openclaw,
        entries.len(),
        &set.queries,
        &measured,
        exact_name_misses,
    );
    // The release, or the build and its baseline, that ran (`Target::product`).
    report.product = product.product();
    report.product_catalog_size = ranks.catalog_size;
    Ok(report)
}

/// BFCL's questions over its pooled catalogue (loaded as the plugin, its types in JSON Schema's
/// words: [`super::bfcl::json_schema_entries`]), ranked by the product; with `half`, only that
/// half's questions and no tool by its own name (a third of the searches: CI's run).
pub async fn measure_bfcl(
    product: &OpenClawTarget,
    pool: &super::bfcl::Pool,
    half: Option<super::Half>,
) -> Result<super::bfcl::BfclReport, Error> {
    let mut pool = pool.clone();
    if let Some(half) = half {
        pool.questions
            .retain(|q| super::bfcl::half_of(&q.id) == half);
    }
    let pool = &pool;
    let queries: Vec<(&str, &str)> = pool
        .questions
        .iter()
        .map(|q| (q.text.as_str(), pool.entries[q.tool].name.as_str()))
        .collect();
    let entries = super::bfcl::json_schema_entries(&pool.entries);
    let ranks = rank(product, &entries, &queries, &[], half.is_none()).await?;
    let missed: BTreeSet<usize> = ranks
        .names
        .iter()
        .enumerate()
        .filter(|(_, (rank, _))| *rank != Some(1))
        .map(|(i, _)| i)
        .collect();
    let mut report = super::bfcl::report_of(pool, RankedBy::Openclaw, &ranks.queries, &missed);
    if let Some(half) = half {
        report = report.only_half(half);
    }
    // The release, or the build and its baseline, that ran (`Target::product`).
    report.product = product.product();
    report.product_catalog_size = ranks.catalog_size;
    Ok(report)
}

/// What the product's search returned: per query and per loaded tool's own name the right
/// tool's rank and the first result's name, which of the `foreign` tools it has, and its
/// catalogue size.
pub struct ProductRanks {
    pub queries: Vec<Ranked>,
    pub names: Vec<Ranked>,
    pub present: BTreeSet<String>,
    pub catalog_size: Option<usize>,
}

/// Loads `entries` into a real OpenClaw gateway as a plugin and runs every `(query, right
/// tool)` of `queries`, then (with `names`) every entry's own name, through the product's
/// search; `foreign` (right tools outside `entries`) are looked up among the product's own.
pub async fn rank(
    product: &OpenClawTarget,
    entries: &[ToolEntry],
    queries: &[(&str, &str)],
    foreign: &[String],
    names: bool,
) -> Result<ProductRanks, Error> {
    let own_names = entries.iter().map(|e| (e.name.as_str(), e.name.as_str()));
    let searches: Vec<(&str, &str)> = queries
        .iter()
        .copied()
        .chain(own_names.filter(|_| names))
        .collect();
    let mut codes = vec![presence_code(foreign)];
    codes.extend(
        searches
            .chunks(SEARCHES_PER_BATCH)
            .enumerate()
            .map(|(i, batch)| search_code(i + 1, batch)),
    );
    let outputs = run_batches(product, entries, &codes).await?;
    let present: BTreeSet<String> = serde_json::from_value(outputs[0].value.clone())
        .map_err(|e| bad_output(0, &e.to_string()))?;
    let mut ranked: Vec<Ranked> = Vec::with_capacity(searches.len());
    for (i, output) in outputs.iter().enumerate().skip(1) {
        let batch: Vec<Ranked> = serde_json::from_value(output.value.clone())
            .map_err(|e| bad_output(i, &e.to_string()))?;
        ranked.extend(batch);
    }
    if ranked.len() != searches.len() {
        return Err(bad_output(
            outputs.len(),
            &format!("{} results for {} searches", ranked.len(), searches.len()),
        ));
    }
    let names = ranked.split_off(queries.len());
    Ok(ProductRanks {
        queries: ranked,
        names,
        present,
        catalog_size: outputs.iter().find_map(|o| o.catalog_size),
    })
}

fn infra(e: crate::targets::openclaw::OpenClawError) -> Error {
    Error::openclaw("search quality on openclaw")(e)
}

fn bad_output(batch: usize, why: &str) -> Error {
    Error::Machine(format!(
        "search quality on openclaw: batch {batch} returned an unexpected value: {why}"
    ))
}

/// The first line of each batch's code: results are matched to batches by it.
fn tag(batch: usize) -> String {
    format!("// search quality batch {batch}\n")
}

/// Batch 0: which of `tools` (right tools outside the loaded catalogue) the product has.
fn presence_code(tools: &[String]) -> String {
    format!(
        "{}const names = {};\nconst present = [];\n\
         for (const name of names) {{\n\
         \x20 try {{ await openclaw.tools.describe(name); present.push(name); }} catch (e) {{}}\n\
         }}\nreturn present;",
        tag(0),
        json!(tools)
    )
}

/// A batch of searches: per `[query, tool]`, the 1-based rank of `tool` within the first
/// [`RANK_DEPTH`] results (null when absent) and the first result's name.
fn search_code(batch: usize, searches: &[(&str, &str)]) -> String {
    format!(
        "{}const searches = {};\nconst out = [];\n\
         for (const [query, tool] of searches) {{\n\
         \x20 const found = await openclaw.tools.search(query, {{ limit: {RANK_DEPTH} }});\n\
         \x20 const hits = Array.isArray(found) ? found : (found && found.results) || [];\n\
         \x20 const at = hits.findIndex((hit) => hit && hit.name === tool);\n\
         \x20 out.push([at < 0 ? null : at + 1, hits.length ? hits[0].name : null]);\n\
         }}\nreturn out;",
        tag(batch),
        json!(searches)
    )
}

/// One batch's result as the product returned it.
struct BatchOutput {
    value: Value,
    catalog_size: Option<usize>,
}

/// Starts the mock provider (scripted: one `tool_search_code` call per batch, then a text) and
/// a gateway with `entries` as its plugin, runs one turn per batch, and returns each batch's
/// returned value in order.
async fn run_batches(
    product: &OpenClawTarget,
    entries: &[ToolEntry],
    codes: &[String],
) -> Result<Vec<BatchOutput>, Error> {
    let scripts: Vec<(String, Vec<ScriptedTurn>)> = codes
        .iter()
        .enumerate()
        .map(|(i, code)| {
            let script = vec![
                ScriptedTurn::ToolCall {
                    name: TOOL_SEARCH_CODE.into(),
                    arguments: json!({ "code": code }),
                },
                ScriptedTurn::Text(DONE_TEXT.into()),
            ];
            (prompt_key(i), script)
        })
        .collect();
    let provider = MockProvider::start_with(ProviderOptions {
        scripts_by_prompt: scripts,
        ..ProviderOptions::default()
    })
    .await?;
    let install = product.install();
    let dir = temp_dir("tsqa-quality-openclaw-")?;
    let root = dir.path();
    let plugin_dir = write_plugin(&root.join("plugins"), PLUGIN_ID, entries).map_err(infra)?;
    let mut lane = LaneConfig::code();
    // The config keys this release accepts (its agents list, its catalogue refresh), from its
    // release facts: a key it does not know stops its gateway from starting.
    lane.shape = product.release().release.config.clone();
    lane.tool_search = json!({
        "mode": "code",
        "codeTimeoutMs": CODE_TIMEOUT_MS,
        "maxSearchLimit": RANK_DEPTH,
    });
    let config = config_value(
        &provider.base_url(),
        &plugin_dir,
        PLUGIN_ID,
        &lane,
        &root.join("openclaw.log"),
    )
    .map_err(infra)?;
    let config_path = root.join("openclaw.json");
    write_json(&config_path, &config).map_err(infra)?;
    let (gateway, _) = OpenClawGateway::start_retrying(
        install,
        &config_path,
        root,
        DEFAULT_START_TIMEOUT,
        &[],
        |e| {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().to_string();
            eprintln!(
                "warning: openclaw search quality: gateway start failed, retrying once: {first}"
            );
        },
    )
    .await
    .map_err(infra)?;
    let turns = run_turns(&gateway.base_url(), codes.len()).await;
    let diagnostics = gateway.log_tail();
    gateway.kill().await;
    let outputs = outputs_by_batch(&provider, codes.len());
    provider.stop().await;
    turns.map_err(|e| Error::WithGatewayLog {
        error: Box::new(e),
        target: "openclaw",
        log: diagnostics,
    })?;
    outputs
}

/// The prompt that picks batch `i`'s script.
fn prompt_key(i: usize) -> String {
    format!("search quality batch {i}.")
}

/// One turn per batch, one after another, each in its own session.
async fn run_turns(base_url: &str, batches: usize) -> Result<(), Error> {
    for i in 0..batches {
        let body = message_body(&format!("run {}", prompt_key(i)), false);
        let key = format!("search-quality-{i}");
        let (status, answer) = post_turn(base_url, AGENT_ID, &key, &body, TURN_TIMEOUT).await?;
        if !(200..300).contains(&status) {
            return Err(Error::Http(format!(
                "search quality batch {i}: the gateway answered HTTP {status}: {}",
                error_message(&answer)
            )));
        }
    }
    Ok(())
}

/// Each batch's returned value, read from the tool output the provider was sent after the call
/// it planned for that batch (`{ok, value, telemetry}`, OpenClaw's `tool_search_code` result).
fn outputs_by_batch(provider: &MockProvider, batches: usize) -> Result<Vec<BatchOutput>, Error> {
    let mut outputs = provider
        .journal()
        .code_outputs(|code| (0..batches).find(|&b| code.starts_with(&tag(b))));
    (0..batches)
        .map(|batch| {
            let output = outputs
                .remove(&batch)
                .ok_or_else(|| bad_output(batch, "no result"))?;
            let result: Value = serde_json::from_str(&output)
                .map_err(|_| bad_output(batch, &first_line(&output, 200)))?;
            if result["ok"] != json!(true) {
                return Err(bad_output(batch, &first_line(&output, 200)));
            }
            let catalog_size = result["telemetry"]["catalogSize"]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok());
            Ok(BatchOutput {
                value: result["value"].clone(),
                catalog_size,
            })
        })
        .collect()
}
