//! Search speed and index build time on the realistic catalogue at 1k, 10k and 100k tools
//! (issue 4, item 6; issue 19). Targets: lexical search p50 ≤ 50 µs at 10k and ≤ 500 µs at 100k;
//! building the 10k catalogue ≤ 50 ms. The hybrid ranker (issue 20): query p50 ≤ 15 ms at 1,000
//! tools with the tool embeddings cached, model load ≤ 1 s (both need the model: `bash
//! scripts/install-model.sh`; without it those benches say SKIPPED and do not run).
//!
//! Criterion reports mean times. It does not report percentiles, so before each search bench
//! this file times every labelled query one by one, several rounds, sorts the durations and
//! prints p50 and p99 itself. Run: `cargo bench --bench search`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use toolsearch_qa::catalog::realistic::realistic_tools;
use toolsearch_qa::engine::embed::{model_installed, Embedder};
use toolsearch_qa::engine::{SearchLimits, ToolCatalog};
use toolsearch_qa::quality::QualitySet;

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
/// Searches timed one by one per size, for the percentiles.
const TIMED_SEARCHES: usize = 3_000;

/// The labelled queries plus a few exact tool names (the cheap path).
fn queries() -> Vec<String> {
    let mut out: Vec<String> = QualitySet::builtin()
        .map(|set| set.queries.into_iter().map(|q| q.text).collect())
        .unwrap_or_default();
    out.extend(
        [
            "github_create_issue",
            "slackPostMessage",
            "weather_get_forecast",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    out
}

fn catalog(size: usize) -> ToolCatalog {
    ToolCatalog::new(realistic_tools(size), SearchLimits::default())
}

/// p50 and p99 of `count` single searches, cycling through `queries`.
fn percentiles_of(
    catalog: &ToolCatalog,
    queries: &[String],
    limit: usize,
    count: usize,
) -> (Duration, Duration) {
    let mut times: Vec<Duration> = queries
        .iter()
        .cycle()
        .take(count)
        .map(|q| {
            let start = Instant::now();
            black_box(catalog.search(black_box(q), limit));
            start.elapsed()
        })
        .collect();
    times.sort_unstable();
    let at = |p: usize| times[(times.len() * p / 100).min(times.len() - 1)];
    (at(50), at(99))
}

fn search(c: &mut Criterion) {
    let queries = queries();
    if queries.is_empty() {
        eprintln!("no labelled queries: the search-quality set did not load");
        return;
    }
    let limit = SearchLimits::default().default_limit;
    let mut group = c.benchmark_group("search");
    for size in SIZES {
        let catalog = catalog(size);
        let (p50, p99) = percentiles_of(&catalog, &queries, limit, TIMED_SEARCHES);
        println!(
            "search/{size}: p50 {p50:?}  p99 {p99:?}  ({TIMED_SEARCHES} single searches, limit {limit})"
        );
        group.bench_with_input(BenchmarkId::from_parameter(size), &catalog, |b, catalog| {
            let mut next = queries.iter().cycle();
            b.iter(|| {
                let q = next.next().map(String::as_str).unwrap_or_default();
                black_box(catalog.search(black_box(q), limit))
            })
        });
    }
    group.finish();
}

fn build(c: &mut Criterion) {
    let mut group = c.benchmark_group("index_build");
    group.sample_size(10);
    for size in SIZES {
        let entries = realistic_tools(size);
        group.bench_with_input(BenchmarkId::from_parameter(size), &entries, |b, entries| {
            b.iter_batched(
                || entries.clone(),
                |entries| ToolCatalog::new(entries, SearchLimits::default()),
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// Hybrid searches timed one by one at 1,000 tools.
const TIMED_HYBRID_SEARCHES: usize = 300;
const HYBRID_SIZE: usize = 1_000;

fn load_model() -> Option<Arc<Embedder>> {
    if !model_installed() {
        eprintln!(
            "SKIPPED hybrid benches: the all-MiniLM-L6-v2 model is not installed (bash scripts/install-model.sh)"
        );
        return None;
    }
    match Embedder::load_installed() {
        Ok(e) => Some(Arc::new(e)),
        Err(e) => {
            eprintln!("SKIPPED hybrid benches: {e}");
            None
        }
    }
}

fn hybrid(c: &mut Criterion) {
    let Some(embedder) = load_model() else {
        return;
    };
    let queries = queries();
    let limit = SearchLimits::default().default_limit;
    // Embeds the 1,000 tools once (the catalogue's cached embeddings); searches embed the query.
    let catalog = match ToolCatalog::hybrid(
        realistic_tools(HYBRID_SIZE),
        SearchLimits::default(),
        embedder,
    ) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("SKIPPED hybrid benches: {e}");
            return;
        }
    };
    let (p50, p99) = percentiles_of(&catalog, &queries, limit, TIMED_HYBRID_SEARCHES);
    println!(
        "hybrid_search/{HYBRID_SIZE}: p50 {p50:?}  p99 {p99:?}  ({TIMED_HYBRID_SEARCHES} single searches, limit {limit})"
    );
    let mut group = c.benchmark_group("hybrid_search");
    group.sample_size(20);
    group.bench_function(BenchmarkId::from_parameter(HYBRID_SIZE), |b| {
        let mut next = queries.iter().cycle();
        b.iter(|| {
            let q = next.next().map(String::as_str).unwrap_or_default();
            black_box(catalog.search(black_box(q), limit))
        })
    });
    group.finish();
}

fn model_load(c: &mut Criterion) {
    if load_model().is_none() {
        return;
    }
    let mut group = c.benchmark_group("model_load");
    group.sample_size(10);
    group.bench_function("all-minilm-l6-v2", |b| {
        b.iter(|| black_box(Embedder::load_installed().map(|e| e.dir().to_path_buf())))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = search, build, hybrid, model_load
}
criterion_main!(benches);
