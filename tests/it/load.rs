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

/// `load` run by `sh` with `ulimit -n files` (soft and hard); (exit code, stdout, stderr).
fn load_with_open_files(files: u32, sessions: u32) -> (Option<i32>, String, String) {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -n {files} && exec \"$0\" load --sessions {sessions}"
        ))
        .arg(assert_cmd::cargo::cargo_bin("toolsearch-qa"))
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn load_under_a_low_open_file_limit_bounds_its_turns_instead_of_failing_them() {
    let (code, out, err) = load_with_open_files(256, 300);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.starts_with("300 sessions, 900 provider requests,") && out.contains(" 0 problems"),
        "{out}"
    );
}

#[test]
fn load_with_too_few_open_files_is_an_infrastructure_error_naming_the_cause() {
    let (code, out, err) = load_with_open_files(40, 10);
    assert_eq!(code, Some(3), "{out}{err}");
    assert_eq!(
        err,
        "error: load needs at least 69 open files, the limit is 40 (raise it with ulimit -n)\n"
    );
}
