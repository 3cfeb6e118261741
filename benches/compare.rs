//! What the harness costs: catalogue build, search and surface serialisation at several sizes,
//! one full lane end to end, and the whole default suite (embedded gateway, mock provider, loopback).
//! Targets (issue 6): default suite ≤ 2 s, reference scenario ≤ 300 ms.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use toolsearch_qa::catalog::fake::{core_tools, fake_plugin_tools, FIXTURE_PLUGIN_ID};
use toolsearch_qa::catalog::{ToolEntry, ToolPolicy};
use toolsearch_qa::config::ToolSearchMode;
use toolsearch_qa::drive::lane::run_lane;
use toolsearch_qa::drive::LanePlan;
use toolsearch_qa::engine::{SearchLimits, Surface, SurfacePlan, ToolCatalog};
use toolsearch_qa::provider::MockProvider;
use toolsearch_qa::scenario::{load_all, select};
use toolsearch_qa::suite::{run_scenario, run_suite, ProviderSource, Quiet};
use toolsearch_qa::targets::EmbeddedTarget;

const SIZES: [usize; 4] = [36, 100, 1_000, 10_000];

fn all_tools(size: usize) -> Vec<ToolEntry> {
    let mut tools = core_tools();
    tools.extend(fake_plugin_tools(FIXTURE_PLUGIN_ID, size));
    tools
}

fn catalogue(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalogue_build");
    group.sample_size(10);
    for size in SIZES {
        group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, &size| {
            b.iter(|| ToolCatalog::new(all_tools(size), SearchLimits::default()))
        });
    }
    group.finish();
}

fn search(c: &mut Criterion) {
    let mut group = c.benchmark_group("search");
    for size in SIZES {
        let catalog = ToolCatalog::new(all_tools(size), SearchLimits::default());
        group.bench_with_input(BenchmarkId::from_parameter(size), &catalog, |b, catalog| {
            b.iter(|| catalog.search("fake plugin tool 17 marker", 8))
        });
    }
    group.finish();
}

fn surface(c: &mut Criterion) {
    let policy = ToolPolicy::default();
    let mut group = c.benchmark_group("surface_serialise");
    group.sample_size(10);
    for (mode, name) in [
        (ToolSearchMode::Direct, "direct"),
        (ToolSearchMode::Tools, "tools"),
    ] {
        for size in SIZES {
            let tools = all_tools(size);
            group.bench_function(BenchmarkId::new(name, size), |b| {
                b.iter(|| {
                    let surface = Surface::plan(SurfacePlan {
                        requested: mode,
                        tools: tools.clone(),
                        policy: &policy,
                        limits: SearchLimits::default(),
                        code_runtime: Ok(()),
                        embedder: None,
                        bridge: std::sync::Arc::new(toolsearch_qa::config::Bridge::spec()),
                    });
                    serde_json::to_vec(&surface.declarations()).map(|v| v.len())
                })
            });
        }
    }
    group.finish();
}

fn end_to_end(c: &mut Criterion) {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("no tokio runtime: {e}");
            return;
        }
    };
    let scenarios = match load_all(&[]) {
        Ok(all) => all,
        Err(e) => {
            eprintln!("no scenarios: {e}");
            return;
        }
    };
    let Some(reference) = select(scenarios.clone(), &["tool-search-gateway-e2e".into()])
        .ok()
        .and_then(|mut s| s.pop())
    else {
        eprintln!("no reference scenario");
        return;
    };
    let Ok(provider) = runtime.block_on(MockProvider::start()) else {
        eprintln!("mock provider did not start");
        return;
    };
    let journal = provider.journal();
    let mut group = c.benchmark_group("end_to_end");
    group.sample_size(10);
    for lane in &reference.lanes {
        group.bench_function(BenchmarkId::new("lane", &lane.name), |b| {
            b.iter(|| {
                let plan = LanePlan::new(&EmbeddedTarget, &reference, lane);
                runtime.block_on(run_lane(
                    &EmbeddedTarget,
                    &plan,
                    &provider.base_url(),
                    &journal,
                ))
            })
        });
    }
    let plan = toolsearch_qa::targets::TargetPlan::as_written(&reference);
    group.bench_function("reference_scenario", |b| {
        b.iter(|| {
            runtime.block_on(run_scenario(
                &EmbeddedTarget,
                &plan,
                &ProviderSource::Mock,
                &Quiet,
            ))
        })
    });
    group.bench_function("default_suite", |b| {
        b.iter(|| runtime.block_on(run_suite(&EmbeddedTarget, &scenarios)))
    });
    group.finish();
}

criterion_group!(benches, catalogue, search, surface, end_to_end);
criterion_main!(benches);
