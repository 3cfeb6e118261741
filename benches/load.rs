//! Turn latency under load: 200 concurrent sessions through one embedded gateway against the mock
//! provider. Prints p50/p99 turn latency of a first run, then lets criterion time whole runs.

use criterion::{criterion_group, criterion_main, Criterion};
use toolsearch_qa::load::run_load;

const SESSIONS: usize = 200;

fn load(c: &mut Criterion) {
    let Ok(runtime) = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    else {
        eprintln!("cannot start a tokio runtime; load bench skipped");
        return;
    };
    match runtime.block_on(run_load(SESSIONS)) {
        Ok(report) => println!("load: {}", report.summary()),
        Err(e) => {
            eprintln!("load bench could not run: {e}");
            return;
        }
    }
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    group.bench_function("200 concurrent sessions", |b| {
        b.iter(|| {
            runtime
                .block_on(run_load(SESSIONS))
                .map(|r| r.problems.len())
        })
    });
    group.finish();
}

criterion_group!(benches, load);
criterion_main!(benches);
