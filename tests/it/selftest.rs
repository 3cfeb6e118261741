//! The seeded-regression matrix (docs/selftest.md) as a test: every seed of the embedded gateway
//! must be caught by its own claim, after every scenario the seeds run passed unseeded. The
//! printed matrix is the one docs/selftest.md shows.

use toolsearch_qa::selftest::{pick, run, Outcome};
use toolsearch_qa::targets::TargetChoice;

/// The fenced blocks of docs/selftest.md that hold a matrix (a table drawn with `┌`).
fn doc_matrices() -> Vec<String> {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/selftest.md")).unwrap();
    doc.split("```")
        .skip(1)
        .step_by(2)
        .map(|block| block.trim_matches('\n').to_string())
        .filter(|block| block.starts_with('┌'))
        .collect()
}

/// The `(claim, seed, outcome)` cells of a printed matrix: the first, third and fourth columns
/// of each row that starts one (a wrapped row's continuation lines have no claim).
fn cells_of(matrix: &str) -> Vec<(String, String, String)> {
    matrix
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.trim_matches('│').split('┆').map(str::trim).collect();
            let claim = *cells.first()?;
            let known = claim.len() == 2 && claim.chars().next()?.is_ascii_uppercase();
            (known && cells.len() == 5).then(|| {
                (
                    claim.to_string(),
                    cells[2].to_string(),
                    cells[3].to_string(),
                )
            })
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_embedded_seed_is_caught_by_its_claim() {
    let seeds = pick(&[], TargetChoice::Embedded).unwrap();
    let matrix = run(&seeds, Default::default()).await.unwrap();
    let table = matrix.to_table();
    println!("{table}");
    // docs/selftest.md shows this very matrix (issue #41: it had gone stale).
    assert_eq!(
        doc_matrices()[0],
        table.trim_matches('\n'),
        "docs/selftest.md"
    );
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

/// docs/selftest.md's product matrix has one row per seed the binary has for a real OpenClaw,
/// in its order, and every seed that cannot be seeded says so (what needs no gateway to know).
#[test]
fn the_documented_product_matrix_has_every_product_seed() {
    let seeds = pick(&[], TargetChoice::Openclaw).unwrap();
    let documented = cells_of(&doc_matrices()[1]);
    let want: Vec<(String, String)> = seeds
        .iter()
        .map(|s| (s.claim.to_string(), s.name()))
        .collect();
    let got: Vec<(String, String)> = documented
        .iter()
        .map(|(claim, seed, _)| (claim.clone(), seed.clone()))
        .collect();
    assert_eq!(got, want);
    for (claim, seed, outcome) in &documented {
        assert_eq!(
            seed == "-",
            outcome == "not seedable",
            "{claim} {seed} {outcome}"
        );
    }
}
