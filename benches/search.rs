//! Search speed and index build time on the realistic catalogue at 1k, 10k and 100k tools
//! (issue 4, item 6). Targets: search p50 ≤ 50 µs at 10k and ≤ 1 ms at 100k; building the
//! 10k catalogue ≤ 50 ms.
//!
//! Criterion reports mean times. It does not report percentiles, so before each search bench
//! this file times every labelled query one by one, several rounds, sorts the durations and
//! prints p50 and p99 itself. Run: `cargo bench --bench search`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use toolsearch_qa::catalog::realistic::realistic_tools;
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

/// p50 and p99 of single searches, cycling through `queries`.
fn percentiles(catalog: &ToolCatalog, queries: &[String], limit: usize) -> (Duration, Duration) {
    let mut times: Vec<Duration> = queries
        .iter()
        .cycle()
        .take(TIMED_SEARCHES)
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
        let (p50, p99) = percentiles(&catalog, &queries, limit);
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

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = search, build
}
criterion_main!(benches);
