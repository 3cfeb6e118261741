//! Load: 200 concurrent sessions through one embedded gateway against the mock provider. Every
//! session log must be complete, well-formed JSONL holding only its own session, and no provider
//! request may be dropped. Latency is printed (p50/p99), never asserted.

use toolsearch_qa::load::{run_load, REQUESTS_PER_TURN};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_concurrent_sessions_keep_complete_separate_logs() {
    let report = run_load(200).await.unwrap();
    println!("{}", report.summary());
    assert_eq!(report.problems, Vec::<String>::new());
    assert_eq!(report.latencies.len(), 200);
    assert_eq!(report.provider_requests, 200 * REQUESTS_PER_TURN);
    assert_eq!(report.logged_provider_requests, 200 * REQUESTS_PER_TURN);
}
