//! The comparison as a person reads it (terminal tables, markdown with the charts) or a program
//! does (JSON, CSV). Tables put thousands separators in counts and give ratios and money to four
//! significant figures; CSV and JSON carry the full values.

use std::path::PathBuf;

use super::price::PriceRow;
use super::{CompareCell, CompareReport};
use crate::output::{bounded_table, keep_words, significant4, thousands};
use crate::targets::TargetKind;

/// A table's columns: header and how a cell fills it.
type Column = (&'static str, fn(&CompareCell) -> String);

/// Every table starts with the cell: its catalogue size and its mode.
const CATALOGUE: Column = ("catalogue", catalogue_label);

/// The fake plugin's size, and what `--catalog` added to it (`36 + 49 real-mcp-servers`).
fn catalogue_label(cell: &CompareCell) -> String {
    match &cell.catalogue {
        Some(added) => format!(
            "{} + {} {}",
            thousands(cell.size),
            thousands(added.tools),
            added.name
        ),
        None => thousands(cell.size),
    }
}
const MODE: Column = ("mode", mode_label);

const FIRST: [Column; 8] = [
    CATALOGUE,
    MODE,
    ("1st bytes", |c| thousands(c.first.raw_bytes)),
    ("1st tool-JSON", |c| thousands(c.first.tool_json_bytes)),
    ("prompt chars", |c| thousands(c.first.system_prompt_chars)),
    ("declared", |c| thousands(c.first.declared_tools)),
    ("1st tokens", |c| thousands(c.first.tokens)),
    ("1st ratio", |c| ratio_label(c.first_ratio)),
];

const TURN: [Column; 6] = [
    CATALOGUE,
    MODE,
    ("requests", requests_label),
    ("turn bytes", |c| thousands(c.first_turn.turn.raw_bytes)),
    ("turn tokens", |c| thousands(c.first_turn.turn.tokens)),
    ("turn ratio", |c| ratio_label(c.turn_ratio)),
];

const COST: [Column; 8] = [
    CATALOGUE,
    MODE,
    ("cached", |c| thousands(c.first_turn.cache.cached as usize)),
    ("cache write", |c| {
        thousands(c.first_turn.cache.written as usize)
    }),
    ("uncached", |c| {
        thousands(c.first_turn.cache.uncached as usize)
    }),
    ("output", |c| {
        c.first_turn
            .output_tokens
            .map_or("-".into(), |o| thousands(o as usize))
    }),
    ("$ / turn", |c| money(c.first_turn.cost_per_turn)),
    ("$ / 1k turns", |c| money(c.first_turn.cost_per_1000_turns)),
];

/// The second user turn of the same session, its first request cached from the first turn (its
/// input tokens are the three billed parts together).
const SECOND: [Column; 9] = [
    CATALOGUE,
    MODE,
    ("requests", |c| {
        turn_requests(c.second_turn.requests, c.second_turn.reached_target)
    }),
    ("cached", |c| thousands(c.second_turn.cache.cached as usize)),
    ("cache write", |c| {
        thousands(c.second_turn.cache.written as usize)
    }),
    ("uncached", |c| {
        thousands(c.second_turn.cache.uncached as usize)
    }),
    ("output", |c| {
        c.second_turn
            .output_tokens
            .map_or("-".into(), |o| thousands(o as usize))
    }),
    ("$ / turn", |c| money(c.second_turn.cost_per_turn)),
    ("$ / 1k turns", |c| money(c.second_turn.cost_per_1000_turns)),
];

/// The mode column: the requested mode, and the effective one when it differs.
fn mode_label(cell: &CompareCell) -> String {
    if cell.effective_mode == cell.mode.as_str() {
        cell.mode.as_str().to_string()
    } else {
        format!("{} (ran as {})", cell.mode.as_str(), cell.effective_mode)
    }
}

fn ratio_label(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "-".to_string(), significant4)
}

fn money(usd: Option<f64>) -> String {
    usd.map_or_else(|| "-".to_string(), |u| format!("${}", significant4(u)))
}

fn requests_label(cell: &CompareCell) -> String {
    turn_requests(cell.first_turn.requests, cell.first_turn.reached_target)
}

fn turn_requests(requests: usize, reached_target: bool) -> String {
    if reached_target {
        requests.to_string()
    } else {
        format!("{requests} (target not reached)")
    }
}

/// The gateways' fallback notes, then every cell the product refused.
fn fallback_notes(report: &CompareReport) -> Vec<String> {
    // A native cell's surface note says what the native row is, which the native lines do.
    let mut notes: Vec<String> = report
        .cells
        .iter()
        .filter(|c| c.mode.native().is_none())
        .flat_map(|c| {
            c.notes
                .iter()
                .map(move |n| format!("{}: {n}", c.mode.as_str()))
        })
        .collect();
    notes.sort();
    notes.dedup();
    notes.extend(smaller_at_more_tools(report));
    notes.extend(report.refused.iter().map(|r| match r.mode.native() {
        // The provider's own status and error, without the loopback URL (it differs per run).
        Some(_) => format!(
            "{}'s provider refused it at {} tools (no figures): HTTP {}",
            r.mode.as_str(),
            thousands(r.size),
            r.message
                .split_once("answered HTTP ")
                .map_or(r.message.as_str(), |(_, provider)| provider)
        ),
        None => format!(
            "{} refused {} at {} tools (no figures): HTTP {}: {}",
            report.shown(r.target),
            r.mode.as_str(),
            thousands(r.size),
            r.status,
            r.message
        ),
    }));
    notes
}

/// Every first request that is smaller at more tools than at fewer (issue #41: code mode's
/// 60,389 B at 70 tools, 54,999 B at 100), with why. Where the system prompt shrank too and the
/// surface has a directory whose descriptions are dropped to fit, that is the cause: the
/// directory keeps each tool's description (cut) only while every line fits its bound, then
/// lists names only (as the product renders it; the profile holds its format).
fn smaller_at_more_tools(report: &CompareReport) -> Vec<String> {
    let directory = crate::profile::resolve(&report.profile)
        .ok()
        .and_then(|p| p.captured().map(|c| c.directory.clone()));
    let mut notes = Vec::new();
    for &target in &report.targets {
        for &mode in &report.modes {
            let mut cells: Vec<&CompareCell> = report
                .cells
                .iter()
                .filter(|c| c.target == target && c.mode == mode)
                .collect();
            cells.sort_by_key(|c| c.size);
            for pair in cells.windows(2) {
                let (fewer, more) = (pair[0], pair[1]);
                if more.first.raw_bytes >= fewer.first.raw_bytes {
                    continue;
                }
                let prompt_shrank =
                    more.first.system_prompt_chars < fewer.first.system_prompt_chars;
                let why = match &directory {
                    Some(d) if prompt_shrank && d.description_cuts.len() > 1 => format!(
                        "its system prompt shrank ({} → {} characters): the directory lists each \
                         tool with its description cut to {} characters while all lines fit in {} \
                         characters, and past that names only",
                        thousands(fewer.first.system_prompt_chars),
                        thousands(more.first.system_prompt_chars),
                        d.description_cuts[0],
                        thousands(d.max_chars)
                    ),
                    _ => "no cause identified".to_string(),
                };
                notes.push(format!(
                    "{} · {}: the first request is smaller at {} tools ({} B) than at {} ({} B): {why}",
                    shown(report, target),
                    mode.as_str(),
                    thousands(more.size),
                    thousands(more.first.raw_bytes),
                    thousands(fewer.size),
                    thousands(fewer.first.raw_bytes),
                ));
            }
        }
    }
    notes
}

/// The price row in three short lines: which, its prices, its caching rule.
pub fn price_lines(price: &PriceRow) -> [String; 3] {
    let write = price
        .cache_write
        .map_or(String::new(), |w| format!(", cache write {w}"));
    [
        format!(
            "price: {} ({} {}), read {}",
            price.name, price.provider, price.model, price.read
        ),
        format!(
            "USD per million tokens: input {}, cached input {}{write}, output {}",
            price.input, price.cached_input, price.output
        ),
        format!("caching: {}", price.caching.describe()),
    ]
}

/// Which price row each cell's money uses: the one row's name, or, when native modes are
/// priced on their own providers' rows, `ROW; native-openai: ROW2, …` (gateway modes first).
pub fn price_label(report: &CompareReport) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut modes = report.modes.clone();
    modes.sort();
    for mode in modes {
        let Some(cell) = report.cells.iter().find(|c| c.mode == mode) else {
            continue;
        };
        let part = match mode.native() {
            None => cell.price.clone(),
            Some(_) => format!("{mode}: {}", cell.price),
        };
        if !parts.contains(&part) {
            parts.push(part);
        }
    }
    match parts.as_slice() {
        [] => report.price.name.clone(),
        [one] if !one.contains(": ") => one.clone(),
        _ => parts.join("; "),
    }
}

/// `heading · price LABEL`, or, when that would not fit a terminal line, the heading with a
/// pointer to the price lines below (which name each row's modes).
fn priced_heading(heading: &str, report: &CompareReport) -> String {
    let full = format!("{heading} · price {}", price_label(report));
    match full.chars().count() <= crate::output::TABLE_WIDTH as usize {
        true => full,
        false => format!("{heading} · prices per mode below"),
    }
}

/// Every row the cells are priced on, three lines each; with more than one row, a fourth
/// names the modes each prices.
fn all_price_lines(report: &CompareReport) -> Vec<String> {
    let rows = match report.prices.as_slice() {
        [] => std::slice::from_ref(&report.price),
        rows => rows,
    };
    let mut lines = Vec::new();
    for row in rows {
        lines.extend(price_lines(row));
        if rows.len() > 1 {
            let mut modes: Vec<&str> = report
                .modes
                .iter()
                .filter(|m| {
                    report
                        .cells
                        .iter()
                        .any(|c| c.mode == **m && c.price == row.name)
                })
                .map(|m| m.as_str())
                .collect();
            modes.dedup();
            lines.push(format!("priced with it: {}", modes.join(", ")));
        }
    }
    lines
}

/// What the cache figures cover (said under every human-readable report).
const CACHE_SCOPE: &str = "cache: each request against the one before it; the second turn's \
                           first\nagainst the first turn's last (same session, cache still warm)";

/// What a target's cells show, for headings and titles: `embedded prediction, profile X` for the
/// embedded gateway, `product openclaw-V` for the real product (every title says which).
pub fn shown(report: &CompareReport, target: TargetKind) -> String {
    match target {
        TargetKind::Embedded => format!("embedded prediction, profile {}", report.profile),
        TargetKind::Openclaw => format!("product {}", report.shown(target)),
    }
}

/// The prediction's error, signed, in percent to 4 significant figures.
fn error_label(error: Option<f64>) -> String {
    error.map_or_else(
        || "-".to_string(),
        |e| match e {
            e if e > 0.0 => format!("+{}%", significant4(e * 100.0)),
            e => format!("{}%", significant4(e * 100.0)),
        },
    )
}

/// How far the embedded prediction was off per product cell (product and predicted figures).
const ERRORS: [Column; 6] = [
    CATALOGUE,
    MODE,
    ("1st bytes", |c| thousands(c.first.raw_bytes)),
    ("1st error", |c| {
        error_label(c.prediction_error.map(|e| e.first_bytes))
    }),
    ("turn tokens", |c| thousands(c.first_turn.turn.tokens)),
    ("turn error", |c| {
        error_label(c.prediction_error.map(|e| e.turn_tokens))
    }),
];

/// The product cells that carry a prediction error (a run with both targets).
fn with_errors(report: &CompareReport) -> Vec<&CompareCell> {
    report
        .cells
        .iter()
        .filter(|c| c.prediction_error.is_some())
        .collect()
}

fn terminal_table(cells: &[&CompareCell], columns: &[Column]) -> comfy_table::Table {
    let mut table = bounded_table(columns.iter().map(|(h, _)| *h).collect::<Vec<_>>());
    for cell in cells {
        table.add_row(columns.iter().map(|(_, f)| f(cell)).collect::<Vec<_>>());
    }
    keep_words(&mut table);
    table
}

/// Per target: four terminal tables (first request, whole turn, cost, second turn); the
/// prediction's error with both targets; then what they were made with.
pub fn table(report: &CompareReport) -> String {
    let mut out = String::new();
    for &target in &report.targets {
        let part = report.only(target);
        let cells: Vec<&CompareCell> = part.cells.iter().collect();
        let part = |columns: &[Column]| terminal_table(&cells, columns);
        let p = shown(report, target);
        out.push_str(&format!(
            "first request · {p}\n{}\nwhole turn · {p}\n{}\n{}\n{}\n{}\n{}\n",
            part(&FIRST),
            part(&TURN),
            priced_heading(&format!("cost · {p}"), report),
            part(&COST),
            priced_heading(&format!("second turn, same session · {p}"), report),
            part(&SECOND),
        ));
    }
    let errors = with_errors(report);
    if !errors.is_empty() {
        out.push_str(&format!(
            "prediction error · (embedded − product) / product · {}\n{}\n",
            shown(report, TargetKind::Embedded),
            terminal_table(&errors, &ERRORS)
        ));
    }
    if !report.search_quality.is_empty() {
        out.push_str(&format!(
            "search quality · {} · labelled set, {} queries\n{}\n",
            quality_targets(report),
            thousands(quality_queries(report)),
            quality_table(report)
        ));
    }
    out.push_str(&format!(
        "{}\n{}\n{CACHE_SCOPE}\n",
        made_with(report),
        all_price_lines(report).join("\n")
    ));
    for line in native_lines(report) {
        out.push_str(&format!("{line}\n"));
    }
    for note in fallback_notes(report) {
        out.push_str(&wrapped(&format!("note: {note}")));
    }
    out
}

/// `text` wrapped between words at 100 columns, each line after the first indented two spaces.
fn wrapped(text: &str) -> String {
    let width = usize::from(crate::output::TABLE_WIDTH);
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let len = line.chars().count();
        if len > 2 && len + 1 + word.chars().count() > width {
            out.push_str(line.trim_end());
            out.push('\n');
            line = "  ".to_string();
        } else if !line.is_empty() && line != "  " {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out.push('\n');
    out
}

/// The search-quality rows: mode, whose search, recall@1, recall@5, MRR (`-` without a search).
fn quality_rows(report: &CompareReport) -> Vec<[String; 5]> {
    report
        .search_quality
        .iter()
        .map(|q| {
            let figure = |f: fn(&crate::quality::Figures) -> f64| {
                q.figures
                    .as_ref()
                    .map_or("-".to_string(), |x| significant4(f(x)))
            };
            [
                q.mode.as_str().to_string(),
                q.searched_by.to_string(),
                figure(|f| f.recall_at_1),
                figure(|f| f.recall_at_5),
                figure(|f| f.mrr),
            ]
        })
        .collect()
}

const QUALITY_HEADERS: [&str; 5] = ["mode", "searched by", "recall@1", "recall@5", "MRR"];

/// The targets the search-quality rows are of, as every title names them.
fn quality_targets(report: &CompareReport) -> String {
    let targets: Vec<String> = report.targets.iter().map(|&t| shown(report, t)).collect();
    targets.join(" and ")
}

fn quality_queries(report: &CompareReport) -> usize {
    report
        .search_quality
        .iter()
        .find_map(|q| q.figures.map(|f| f.queries))
        .unwrap_or(0)
}

fn quality_table(report: &CompareReport) -> comfy_table::Table {
    let mut table = bounded_table(QUALITY_HEADERS.to_vec());
    for row in quality_rows(report) {
        table.add_row(row.to_vec());
    }
    keep_words(&mut table);
    table
}

/// What a native row's figures are, said under every human-readable report that has one.
fn native_lines(report: &CompareReport) -> Vec<String> {
    if !report.modes.iter().any(|m| m.native().is_some()) {
        return Vec::new();
    }
    vec![
        "native-*: bytes are the wire (every schema sent, deferred); tokens are what the provider"
            .into(),
        "bills by its published rules, as the mock models them: a deferred tool's schema is not"
            .into(),
        "read until a search loads it (OpenAI: its name and description are; Anthropic: nothing),"
            .into(),
        "a search result adds the loaded definitions; no per-search fee (docs/compare.md)".into(),
    ]
}

/// `target: … · profile: … · product: … · tokens: …`.
fn made_with(report: &CompareReport) -> String {
    let targets: Vec<&str> = report.targets.iter().map(|t| t.as_str()).collect();
    let product = report.product.as_ref().map_or(String::new(), |p| {
        format!("\nproduct: openclaw {} on Node {}", p.version, p.node)
    });
    format!(
        "target: {} · profile: {} · tokens: {}{product}",
        targets.join(", "),
        report.profile,
        report.tokenizer
    )
}

fn markdown_table(cells: &[&CompareCell], columns: &[Column]) -> String {
    let headers: Vec<&str> = columns.iter().map(|(h, _)| *h).collect();
    let mut out = format!("| {} |\n", headers.join(" | "));
    out.push_str(&format!("|{}\n", "---:|".repeat(columns.len())));
    for cell in cells {
        let row: Vec<String> = columns.iter().map(|(_, f)| f(cell)).collect();
        out.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    out
}

/// Per target, four GitHub-flavoured markdown tables; the prediction's error with both targets;
/// what they were made with, the charts written (embedded by path), then the fallback notes.
pub fn markdown(report: &CompareReport, charts: &[PathBuf]) -> String {
    let mut out = String::new();
    for &target in &report.targets {
        let part = report.only(target);
        let cells: Vec<&CompareCell> = part.cells.iter().collect();
        let p = match target {
            TargetKind::Embedded => format!("embedded prediction, profile `{}`", report.profile),
            TargetKind::Openclaw => format!("product `{}`", report.shown(target)),
        };
        out.push_str(&format!(
            "First request ({p}):\n\n{}\nWhole turn ({p}):\n\n{}\n\
             Cost ({p}, price `{}`):\n\n{}\n\
             Second turn, same session ({p}, price `{}`):\n\n{}\n",
            markdown_table(&cells, &FIRST),
            markdown_table(&cells, &TURN),
            price_label(report),
            markdown_table(&cells, &COST),
            price_label(report),
            markdown_table(&cells, &SECOND),
        ));
    }
    let errors = with_errors(report);
    if !errors.is_empty() {
        out.push_str(&format!(
            "Prediction error, (embedded − product) / product (embedded prediction, profile \
             `{}`):\n\n{}\n",
            report.profile,
            markdown_table(&errors, &ERRORS)
        ));
    }
    if !report.search_quality.is_empty() {
        out.push_str(&format!(
            "Search quality on the labelled set ({} queries; {}):\n\n| {} |\n|{}\n",
            quality_queries(report),
            quality_targets(report),
            QUALITY_HEADERS.join(" | "),
            "---|".repeat(QUALITY_HEADERS.len())
        ));
        for row in quality_rows(report) {
            out.push_str(&format!("| {} |\n", row.join(" | ")));
        }
        out.push('\n');
    }
    out.push_str(&format!(
        "{}.\n\n{}.\n\n{}.\n",
        capitalised(&made_with(report).replace('\n', "; ")),
        capitalised(&all_price_lines(report).join("; ")),
        capitalised(&CACHE_SCOPE.replace('\n', " "))
    ));
    let native = native_lines(report);
    if !native.is_empty() {
        out.push_str(&format!("\n{}\n", native.join(" ")));
    }
    for chart in charts {
        let name = chart
            .file_stem()
            .map_or(String::new(), |s| s.to_string_lossy().replace('-', " "));
        out.push_str(&format!("\n![{name}]({})\n", chart.display()));
    }
    for note in fallback_notes(report) {
        out.push_str(&format!("\n- {note}"));
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out
}

fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or(String::new(), |c| {
        c.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// Pretty JSON of the whole report.
pub fn json(report: &CompareReport) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(report)
}

/// The CSV header: one row per target × profile × mode × size.
pub const CSV_HEADER: [&str; 38] = [
    "target",
    "profile",
    "catalogue",
    "mode",
    "effective_mode",
    "reached_target",
    "requests",
    "first_bytes",
    "first_tool_json_bytes",
    "first_prompt_chars",
    "first_declared_tools",
    "first_tokens",
    "first_ratio",
    "turn_bytes",
    "turn_tokens",
    "turn_ratio",
    "input_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "uncached_tokens",
    "output_tokens",
    "price",
    "caching_rule",
    "cost_per_turn_usd",
    "cost_per_1000_turns_usd",
    "first_bytes_prediction_error",
    "turn_tokens_prediction_error",
    "second_reached_target",
    "second_requests",
    "second_turn_tokens",
    "second_cached_tokens",
    "second_cache_write_tokens",
    "second_uncached_tokens",
    "second_output_tokens",
    "second_cost_per_turn_usd",
    "second_cost_per_1000_turns_usd",
    "added_catalogue",
    "added_tools",
];

/// A CSV field, quoted when it holds a comma, a quote or a line break (RFC 4180).
fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn optional<T: ToString>(value: Option<T>) -> String {
    value.map_or(String::new(), |v| v.to_string())
}

fn csv_row(report: &CompareReport, c: &CompareCell) -> Vec<String> {
    vec![
        c.target.as_str().to_string(),
        report.shown(c.target),
        c.size.to_string(),
        c.mode.as_str().to_string(),
        c.effective_mode.clone(),
        c.first_turn.reached_target.to_string(),
        c.first_turn.requests.to_string(),
        c.first.raw_bytes.to_string(),
        c.first.tool_json_bytes.to_string(),
        c.first.system_prompt_chars.to_string(),
        c.first.declared_tools.to_string(),
        c.first.tokens.to_string(),
        optional(c.first_ratio),
        c.first_turn.turn.raw_bytes.to_string(),
        c.first_turn.turn.tokens.to_string(),
        optional(c.turn_ratio),
        c.first_turn.cache.input.to_string(),
        c.first_turn.cache.cached.to_string(),
        c.first_turn.cache.written.to_string(),
        c.first_turn.cache.uncached.to_string(),
        optional(c.first_turn.output_tokens),
        c.price.clone(),
        report
            .prices
            .iter()
            .find(|r| r.name == c.price)
            .unwrap_or(&report.price)
            .caching
            .describe(),
        optional(c.first_turn.cost_per_turn),
        optional(c.first_turn.cost_per_1000_turns),
        optional(c.prediction_error.map(|e| e.first_bytes)),
        optional(c.prediction_error.map(|e| e.turn_tokens)),
        c.second_turn.reached_target.to_string(),
        c.second_turn.requests.to_string(),
        c.second_turn.turn.tokens.to_string(),
        c.second_turn.cache.cached.to_string(),
        c.second_turn.cache.written.to_string(),
        c.second_turn.cache.uncached.to_string(),
        optional(c.second_turn.output_tokens),
        optional(c.second_turn.cost_per_turn),
        optional(c.second_turn.cost_per_1000_turns),
        optional(c.catalogue.as_ref().map(|a| a.name.clone())),
        optional(c.catalogue.as_ref().map(|a| a.tools)),
    ]
}

/// CSV with a header row; ratios and money at full precision, empty when unknown.
pub fn csv(report: &CompareReport) -> Result<String, std::fmt::Error> {
    use std::fmt::Write as _;
    let mut out = String::new();
    writeln!(out, "{}", CSV_HEADER.join(","))?;
    for cell in &report.cells {
        let row: Vec<String> = csv_row(report, cell).iter().map(|f| csv_field(f)).collect();
        writeln!(out, "{}", row.join(","))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compare::cache::CacheSplit;
    use crate::compare::measure::PayloadSize;
    use crate::compare::price::PriceTable;
    use crate::compare::CompareMode;
    use crate::config::ToolSearchMode;

    fn report() -> CompareReport {
        let size = PayloadSize {
            raw_bytes: 100,
            tool_json_bytes: 40,
            system_prompt_chars: 30,
            declared_tools: 4,
            tokens: 25,
        };
        CompareReport {
            targets: vec![TargetKind::Embedded],
            profile: "spec".into(),
            product: None,
            tokenizer: "o200k_base",
            price: PriceTable::built_in().rows[0].clone(),
            prices: vec![PriceTable::built_in().rows[0].clone()],
            sizes: vec![36],
            modes: vec![ToolSearchMode::Code.into()],
            cells: vec![CompareCell {
                target: TargetKind::Embedded,
                size: 36,
                mode: ToolSearchMode::Code.into(),
                price: "openai-gpt-4.1".into(),
                effective_mode: "tools".into(),
                notes: vec!["fell back".into()],
                first: size,
                first_ratio: Some(0.5),
                turn_ratio: None,
                first_turn: crate::compare::TurnFigures {
                    reached_target: true,
                    requests: 3,
                    turn: size + size,
                    prefixes: vec![],
                    cache: CacheSplit {
                        input: 50,
                        cached: 0,
                        written: 0,
                        uncached: 50,
                    },
                    output_tokens: Some(12),
                    cost_per_turn: Some(0.000_196),
                    cost_per_1000_turns: Some(0.196),
                },
                second_turn: crate::compare::TurnFigures {
                    reached_target: false,
                    requests: 2,
                    turn: size,
                    prefixes: vec![],
                    cache: CacheSplit {
                        input: 25,
                        cached: 0,
                        written: 0,
                        uncached: 25,
                    },
                    output_tokens: Some(6),
                    cost_per_turn: Some(0.000_098),
                    cost_per_1000_turns: Some(0.098),
                },
                prediction_error: None,
                catalogue: None,
            }],
            refused: vec![],
            search_quality: vec![],
        }
    }

    #[test]
    fn native_rows_name_their_own_price_row_and_headings_fit_the_terminal() {
        use crate::config::NativeProvider;
        let prices = PriceTable::built_in();
        let row = |name: &str| prices.pick(Some(name)).unwrap().clone();
        let mut report = report();
        assert_eq!(price_label(&report), "openai-gpt-4.1");
        assert_eq!(
            priced_heading("cost · profile spec", &report),
            "cost · profile spec · price openai-gpt-4.1"
        );
        assert_eq!(all_price_lines(&report).len(), 3);
        let mut native = report.cells[0].clone();
        native.mode = CompareMode::Native(NativeProvider::Openai);
        native.price = "openai-gpt-5.4".into();
        report.cells.push(native.clone());
        report.modes.push(native.mode);
        report.prices.push(row("openai-gpt-5.4"));
        assert_eq!(
            priced_heading("cost · profile spec", &report),
            "cost · profile spec · price openai-gpt-4.1; native-openai: openai-gpt-5.4"
        );
        native.mode = CompareMode::Native(NativeProvider::Anthropic);
        native.price = "anthropic-claude-sonnet-4.5".into();
        report.cells.push(native.clone());
        report.modes.push(native.mode);
        report.prices.push(row("anthropic-claude-sonnet-4.5"));
        assert_eq!(
            price_label(&report),
            "openai-gpt-4.1; native-openai: openai-gpt-5.4; \
             native-anthropic: anthropic-claude-sonnet-4.5"
        );
        // Too long for a heading line: the heading points to the lines below, which name each
        // row's modes.
        let heading = priced_heading("second turn, same session · profile spec", &report);
        assert_eq!(
            heading,
            "second turn, same session · profile spec · prices per mode below"
        );
        let lines = all_price_lines(&report);
        assert_eq!(lines.len(), 12);
        assert_eq!(lines[3], "priced with it: code");
        assert_eq!(
            lines[10],
            "caching: breakpoints (after tools and system, end of each request), min 1,024 tokens"
        );
        assert_eq!(lines[11], "priced with it: native-anthropic");
        let text = table(&report);
        assert!(text.lines().all(|l| l.chars().count() <= 100), "{text}");
        let csv = csv(&report).unwrap();
        let last = csv.lines().last().unwrap();
        assert!(
            last.contains(",anthropic-claude-sonnet-4.5,\"breakpoints (after tools"),
            "{last}"
        );
    }

    #[test]
    fn a_native_cell_its_provider_refused_is_a_note_without_the_loopback_url() {
        use crate::config::NativeProvider;
        let mut report = report();
        report.refused.push(crate::compare::Refusal {
            target: TargetKind::Embedded,
            size: 10_000,
            mode: CompareMode::Native(NativeProvider::Anthropic),
            status: 502,
            message: "provider at http://127.0.0.1:34077/v1/messages answered HTTP 400: {\"x\":1}"
                .into(),
        });
        let notes = fallback_notes(&report);
        assert_eq!(
            notes.last().map(String::as_str),
            Some(
                "native-anthropic's provider refused it at 10,000 tools (no figures): \
                 HTTP 400: {\"x\":1}"
            )
        );
    }

    #[test]
    fn markdown_names_the_profile_the_effective_mode_and_the_note() {
        let md = markdown(&report(), &[PathBuf::from("charts/turn-tokens.svg")]);
        assert!(
            md.starts_with("First request (embedded prediction, profile `spec`):\n"),
            "{md}"
        );
        assert!(
            md.contains("| 36 | code (ran as tools) | 100 | 40 | 30 | 4 | 25 | 0.5000 |\n"),
            "{md}"
        );
        assert!(
            md.contains("| 36 | code (ran as tools) | 3 | 200 | 50 | - |\n"),
            "{md}"
        );
        assert!(
            md.contains("| 36 | code (ran as tools) | 0 | 0 | 50 | 12 | $0.0001960 | $0.1960 |\n"),
            "{md}"
        );
        assert!(
            md.contains("| 36 | code (ran as tools) | 2 (target not reached) | 0 | 0 | 25 | 6 | $0.00009800 | $0.09800 |\n"),
            "{md}"
        );
        assert!(
            md.contains("\n![turn tokens](charts/turn-tokens.svg)\n"),
            "{md}"
        );
        assert!(md.ends_with("- code: fell back\n"), "{md}");
    }

    #[test]
    fn csv_has_one_row_per_cell_with_every_figure() {
        let text = csv(&report()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].split(',').count(), CSV_HEADER.len());
        assert!(
            lines[1].starts_with(
                "embedded,spec,36,code,tools,true,3,100,40,30,4,25,0.5,200,50,,50,0,0,50,12,"
            ),
            "{}",
            lines[1]
        );
        assert!(
            lines[1].ends_with(",0.000196,0.196,,,false,2,25,0,0,25,6,0.000098,0.098,,"),
            "{}",
            lines[1]
        );
        assert_eq!(csv_field("a,b \"c\""), "\"a,b \"\"c\"\"\"");
    }

    #[test]
    fn json_uses_camel_case() {
        let text = json(&report()).unwrap();
        assert!(text.contains("\"effectiveMode\": \"tools\""), "{text}");
        assert!(text.contains("\"toolJsonBytes\": 40"), "{text}");
        assert!(text.contains("\"costPer1000Turns\": 0.196"), "{text}");
        assert!(text.contains("\"profile\": \"spec\""), "{text}");
    }
}
