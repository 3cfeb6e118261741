//! The seeded-regression matrix (docs/selftest.md) as a test: every seed of the embedded gateway
//! must be caught by its own claim, after every scenario the seeds run passed unseeded. The
//! printed matrix is the one docs/selftest.md shows.

use toolsearch_qa::selftest::{pick, run, Outcome};
use toolsearch_qa::targets::TargetChoice;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_embedded_seed_is_caught_by_its_claim() {
    let seeds = pick(&[], TargetChoice::Embedded).unwrap();
    let matrix = run(&seeds, Default::default()).await.unwrap();
    println!("{}", matrix.to_table());
    eprintln!("selftest: {:.1} s", matrix.elapsed.as_secs_f64());
    assert_eq!(matrix.baseline_failures, Vec::<String>::new());
    let not_caught: Vec<String> = matrix
        .cells
        .iter()
        .filter(|c| !matches!(c.outcome, Outcome::Caught { .. }))
        .map(|c| format!("{} {} {:?}", c.claim, c.seed, c.outcome))
        .collect();
    assert_eq!(not_caught, Vec::<String>::new());
    assert!(matrix.ok);
    assert_eq!(matrix.exit_code(), 0);
}
