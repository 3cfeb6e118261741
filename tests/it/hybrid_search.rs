//! The hybrid ranker through the engine and the gateway: it finds a tool that shares no word
//! with the query, keeps exact names first, never returns a tool the policy denies, and a
//! gateway configured for it without the model refuses to start, naming the install command.
//!
//! Tests that need the model are `#[ignore]`d, naming its install command: a plain `cargo test`
//! lists them as not run; with `--ignored` (CI: `--run-ignored all`) a missing model fails them.

use std::sync::Arc;

use assert_cmd::Command;
use toolsearch_qa::catalog::ToolPolicy;
use toolsearch_qa::engine::embed::Embedder;
use toolsearch_qa::engine::{Ranker, SearchLimits, Surface, SurfacePlan, ToolCatalog};
use toolsearch_qa::quality::quality_entries;

use crate::quality::hybrid_model;

/// One model for the module's tests: its cache of tool embeddings is shared, so the catalogue
/// is embedded once.
fn embedder() -> Arc<Embedder> {
    static EMBEDDER: std::sync::OnceLock<Arc<Embedder>> = std::sync::OnceLock::new();
    EMBEDDER
        .get_or_init(|| Arc::new(Embedder::load_installed().unwrap()))
        .clone()
}

fn names(catalog: &ToolCatalog, query: &str, limit: usize) -> Vec<String> {
    catalog
        .search(query, limit)
        .into_iter()
        .map(|i| i.name)
        .collect()
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model (bash scripts/install-model.sh)"]
fn hybrid_finds_a_tool_with_no_shared_word_and_keeps_exact_names_first() {
    hybrid_model("hybrid_finds_a_tool_with_no_shared_word_and_keeps_exact_names_first");
    let embedder = embedder();
    let lexical = ToolCatalog::new(quality_entries(), SearchLimits::default());
    let hybrid = ToolCatalog::hybrid(quality_entries(), SearchLimits::default(), embedder).unwrap();
    assert_eq!(hybrid.ranker(), Ranker::Hybrid);
    // No word of the query is in the tool's text: lexical search has nothing to go on.
    let query = "what is NVDA trading at";
    assert!(!names(&lexical, query, 20).contains(&"finance_get_quote".to_string()));
    assert!(
        names(&hybrid, query, 5).contains(&"finance_get_quote".to_string()),
        "{:?}",
        names(&hybrid, query, 5)
    );
    // An exact name is first, whatever the embedding thinks.
    for name in ["exec", "slackPostMessage", "github_create_issue", "cron"] {
        assert_eq!(names(&hybrid, name, 3)[0], name);
    }
    assert_eq!(names(&hybrid, "  ", 5), Vec::<String>::new());
    assert_eq!(names(&hybrid, "weather forecast", 3).len(), 3);
}

#[test]
#[ignore = "needs the all-MiniLM-L6-v2 model (bash scripts/install-model.sh)"]
fn hybrid_search_never_returns_a_denied_tool() {
    hybrid_model("hybrid_search_never_returns_a_denied_tool");
    let embedder = embedder();
    let policy = ToolPolicy {
        deny: vec!["finance_*".into(), "weather_get_forecast".into()],
        ..ToolPolicy::default()
    };
    let surface = Surface::plan(SurfacePlan {
        requested: toolsearch_qa::config::ToolSearchMode::Tools,
        tools: quality_entries(),
        policy: &policy,
        limits: SearchLimits::default(),
        code_runtime: Ok(()),
        embedder: Some(embedder),
        bridge: std::sync::Arc::new(toolsearch_qa::config::Bridge::spec()),
    });
    let run = surface.run.as_ref().unwrap();
    assert_eq!(run.catalog().ranker(), Ranker::Hybrid);
    for query in [
        "what is NVDA trading at",
        "stock price of Apple",
        "finance_get_quote",
        "will it rain tomorrow",
        "weather_get_forecast",
    ] {
        for item in run.catalog().search(query, 20) {
            assert!(
                !item.name.starts_with("finance_") && item.name != "weather_get_forecast",
                "{query}: denied {} returned",
                item.name
            );
        }
    }
}

#[test]
fn a_hybrid_gateway_without_the_model_does_not_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gateway.json5");
    std::fs::write(
        &config,
        r#"{ models: { providers: { mock: { baseUrl: "http://127.0.0.1:9" } } },
             agents: { defaults: { model: { primary: "mock/qa" } } },
             tools: { toolSearch: { mode: "tools", ranker: "hybrid" } } }"#,
    )
    .unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["gateway", "--config"])
        .arg(&config)
        .env("TOOLSEARCH_QA_MODEL_DIR", empty.path())
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.starts_with(
            "error: embedded gateway did not start: tools.toolSearch.ranker \"hybrid\": the \
             hybrid ranker needs the all-MiniLM-L6-v2 model, not found in "
        ),
        "{stderr}"
    );
    assert!(stderr.contains("bash scripts/install-model.sh"), "{stderr}");

    // An unknown ranker is a config error naming the key (exit 2).
    std::fs::write(
        &config,
        r#"{ models: { providers: { mock: { baseUrl: "http://127.0.0.1:9" } } },
             agents: { defaults: { model: { primary: "mock/qa" } } },
             tools: { toolSearch: { mode: "tools", ranker: "semantic" } } }"#,
    )
    .unwrap();
    let out = Command::cargo_bin("toolsearch-qa")
        .unwrap()
        .args(["gateway", "--config"])
        .arg(&config)
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("tools.toolSearch.ranker"), "{stderr}");
    assert!(
        stderr.contains("expected \"lexical\" or \"hybrid\""),
        "{stderr}"
    );
}
