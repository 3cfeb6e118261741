//! The catalogue's search, describe and batch tests.

use super::*;
use crate::catalog::fake::{core_tools, fake_plugin_tools, FIXTURE_PLUGIN_ID};
use crate::catalog::Executor;

fn fake_catalog(size: usize) -> ToolCatalog {
    let mut entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, size);
    entries.extend(core_tools());
    ToolCatalog::new(entries, SearchLimits::default())
}

fn ids(items: &[SearchItem]) -> Vec<&str> {
    items.iter().map(|i| i.id.as_str()).collect()
}

fn mcp(server: &str, name: &str, description: &str) -> ToolEntry {
    let schema = json!({"type": "object", "properties": {"q": {"type": "string"}}});
    ToolEntry::new(
        ToolSource::Mcp,
        server,
        name,
        description,
        schema,
        Executor::Mcp {
            server: server.into(),
        },
    )
}

#[test]
fn every_tool_is_first_for_its_own_name() {
    let catalog = fake_catalog(1000);
    assert_eq!(catalog.len(), 1007);
    let mut misses = Vec::new();
    for e in catalog.entries() {
        let top = catalog.search(&e.name, 1);
        if top.first().map(|t| t.id.as_str()) != Some(e.id.as_str()) {
            misses.push(e.id.clone());
        }
    }
    assert_eq!(misses, Vec::<String>::new());
    let top = catalog.search("  openclaw:core:exec ", 3);
    assert_eq!(top[0].id, "openclaw:core:exec");
}

#[test]
fn entries_are_sorted_by_id() {
    let catalog = fake_catalog(20);
    assert!(catalog.entries().windows(2).all(|w| w[0].id < w[1].id));
    assert_eq!(catalog.entries()[0].id, "openclaw:core:cron");
}

#[test]
fn equal_scores_fall_back_to_id_order() {
    let catalog = fake_catalog(1000);
    let top = catalog.search("fake plugin tool", 3);
    assert_eq!(
        ids(&top),
        vec![
            "openclaw:tool-search-e2e-fixture:fake_plugin_tool_0001",
            "openclaw:tool-search-e2e-fixture:fake_plugin_tool_0002",
            "openclaw:tool-search-e2e-fixture:fake_plugin_tool_0003"
        ]
    );
}

#[test]
fn ranking_by_terms_and_synonyms() {
    let catalog = fake_catalog(50);
    assert_eq!(
        catalog.search("fetch a page", 1)[0].id,
        "openclaw:core:web_fetch"
    );
    assert_eq!(
        catalog.search("shell command", 1)[0].id,
        "openclaw:core:exec"
    );
    assert_eq!(catalog.search("remind", 1)[0].id, "openclaw:core:cron");
    assert_eq!(catalog.search("tell", 1)[0].id, "openclaw:core:message");
    assert_eq!(
        catalog.search("look up", 1)[0].id,
        "openclaw:core:web_search"
    );
    assert_eq!(
        catalog.search("timeoutSeconds", 1)[0].id,
        "openclaw:core:exec"
    );
    assert_eq!(catalog.search("zzzz", 5), Vec::<SearchItem>::new());
}

#[test]
fn literal_match_outranks_synonym_only_match() {
    let entries = vec![
        mcp("a", "cron_job", "cron cron schedule schedule"),
        mcp("b", "reminder_note", "A note about a reminder."),
    ];
    let catalog = ToolCatalog::new(entries, SearchLimits::default());
    assert_eq!(
        ids(&catalog.search("reminder", 2)),
        vec!["mcp:b:reminder_note", "mcp:a:cron_job"]
    );
}

#[test]
fn exact_match_wins_and_is_returned_even_when_ranking_misses() {
    let mut entries = vec![
        mcp("s", "the", "Nothing indexable."),
        mcp("s", "other", "the the the"),
    ];
    entries.push(mcp("s", "exec_helper", "exec exec exec"));
    entries.extend(core_tools());
    let catalog = ToolCatalog::new(entries, SearchLimits::default());
    assert_eq!(ids(&catalog.search("the", 8)), vec!["mcp:s:the"]);
    assert_eq!(catalog.search("exec", 2)[0].id, "openclaw:core:exec");
    assert_eq!(catalog.search("exec", 2)[1].id, "mcp:s:exec_helper");
}

#[test]
fn blank_query_and_limit() {
    let catalog = fake_catalog(30);
    assert!(catalog.search("", 5).is_empty());
    assert!(catalog.search("   \n", 5).is_empty());
    assert_eq!(catalog.search("fake", 5).len(), 5);
    assert!(catalog.search("fake", 0).is_empty());
}

#[test]
fn resolve_limit_defaults_clamps_and_errors() {
    let catalog = fake_catalog(2);
    assert_eq!(catalog.resolve_limit(None), Ok(8));
    assert_eq!(catalog.resolve_limit(Some(&Value::Null)), Ok(8));
    assert_eq!(catalog.resolve_limit(Some(&json!(3))), Ok(3));
    assert_eq!(catalog.resolve_limit(Some(&json!(3.0))), Ok(3));
    assert_eq!(catalog.resolve_limit(Some(&json!(1000))), Ok(20));
    for bad in [json!(0), json!(-1), json!(1.5), json!("5"), json!(true)] {
        let err = catalog.resolve_limit(Some(&bad));
        assert!(matches!(err, Err(EngineError::InvalidInput(_))), "{bad}");
    }
    let text = catalog
        .resolve_limit(Some(&json!(0)))
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        text.as_deref(),
        Some("limit must be an integer >= 1 (got 0); omit it for the default of 8.")
    );
}

#[test]
fn search_items_carry_signatures() {
    let out = json!({"type": "object", "additionalProperties": false, "required": ["status"],
            "properties": {"status": {"enum": ["ok", "error"]}}});
    let mut entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 3);
    entries[0] = entries[0].clone().with_output_schema(out.clone());
    entries.push(mcp("m", "tool_m", "An MCP tool.").with_output_schema(out));
    let catalog = ToolCatalog::new(entries, SearchLimits::default());
    let fake = catalog.search("fake_plugin_tool_01", 1).remove(0);
    assert_eq!(fake.input, "{ marker: string }");
    assert_eq!(
        fake.output.as_deref(),
        Some(r#"{ status: "ok" | "error" }"#)
    );
    let m = catalog.search("tool_m", 1).remove(0);
    assert_eq!((m.input.as_str(), m.output), ("unknown", None));
    let json = serde_json::to_value(&fake).unwrap_or_default();
    assert_eq!(json["sourceName"], "tool-search-e2e-fixture");
    assert_eq!(json["source"], "openclaw");
}

#[test]
fn describe_returns_schemas_and_suggests_on_miss() {
    let catalog = fake_catalog(1000);
    let d = catalog.describe(" fake_plugin_tool_0017 ", "hint");
    let d = d.map(|d| (d.item.id, d.parameters));
    assert_eq!(
        d,
        Ok((
            "openclaw:tool-search-e2e-fixture:fake_plugin_tool_0017".to_string(),
            crate::catalog::fake::fake_tool_parameters()
        ))
    );
    let miss = catalog.describe("fake_plugin_tool_0017x", "Search first with tool_search.");
    let Err(EngineError::UnknownTool {
        id,
        suggestions,
        hint,
    }) = miss.clone()
    else {
        panic!("expected UnknownTool, got {miss:?}");
    };
    assert_eq!(id, "fake_plugin_tool_0017x");
    assert_eq!(suggestions.len(), 3);
    assert_eq!(suggestions[0], "fake_plugin_tool_0017");
    assert_eq!(hint, "Search first with tool_search.");
    let text = miss.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(text.starts_with(
        "Unknown tool id: fake_plugin_tool_0017x. Did you mean: fake_plugin_tool_0017, "
    ));
    assert!(text.ends_with("? Search first with tool_search."), "{text}");
    let nothing = catalog.describe("qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq", "");
    assert!(
        matches!(nothing, Err(EngineError::UnknownTool { ref suggestions, .. }) if suggestions.is_empty())
    );
}

#[test]
fn ambiguous_name_needs_the_id() {
    let entries = vec![mcp("b", "dup", "Second."), mcp("a", "dup", "First.")];
    let catalog = ToolCatalog::new(entries, SearchLimits::default());
    assert_eq!(
        catalog.lookup("dup").err(),
        Some(EngineError::AmbiguousName {
            name: "dup".into(),
            ids: vec!["mcp:a:dup".into(), "mcp:b:dup".into()]
        })
    );
    assert_eq!(
        catalog.lookup("mcp:b:dup").map(|e| e.description.as_str()),
        Ok("Second.")
    );
    assert_eq!(
        ids(&catalog.search("dup", 5)),
        vec!["mcp:a:dup", "mcp:b:dup"]
    );
}

#[test]
fn validate_input_through_catalog() {
    let catalog = fake_catalog(5);
    let Ok(entry) = catalog.lookup("fake_plugin_tool_03").cloned() else {
        panic!("missing fake tool")
    };
    assert_eq!(
        catalog.validate_input(&entry, &json!({"marker": "m"})),
        Ok(())
    );
    let err = catalog.validate_input(&entry, &json!({"markr": "m"}));
    assert!(
        matches!(err, Err(EngineError::InvalidArguments { ref suggestion, .. })
            if suggestion.as_deref() == Some("marker")),
        "{err:?}"
    );
    // A second call reuses the compiled validator and gives the same answer.
    assert_eq!(catalog.validate_input(&entry, &json!({"markr": "m"})), err);
    let untrusted = mcp("m", "x", "");
    assert_eq!(
        catalog.validate_input(&untrusted, &json!("anything")),
        Ok(())
    );
}

/// Each entry compiles its own schema: validating one tool first must not make a second
/// tool's arguments be checked against the first tool's schema.
#[test]
fn each_entry_has_its_own_validator() {
    let catalog = ToolCatalog::new(
        crate::catalog::realistic::realistic_catalog(),
        SearchLimits::default(),
    );
    let (Ok(issue), Ok(channel)) = (
        catalog.lookup("github_create_issue").cloned(),
        catalog.lookup("slackGetChannel").cloned(),
    ) else {
        panic!("realistic tools missing")
    };
    let issue_args = json!({"repo": "acme/api", "title": "Crash"});
    let channel_args = json!({"channelId": "C1"});
    assert_eq!(catalog.validate_input(&issue, &issue_args), Ok(()));
    assert_eq!(catalog.validate_input(&channel, &channel_args), Ok(()));
    let err = catalog.validate_input(&channel, &issue_args);
    assert!(
        matches!(err, Err(EngineError::InvalidArguments { ref name, .. }) if name == "slackGetChannel"),
        "{err:?}"
    );
    assert!(catalog.validate_input(&issue, &channel_args).is_err());
}

#[test]
fn batch_validation_happens_first() {
    let catalog = fake_catalog(10);
    let too_many: Vec<Value> = (0..17)
        .map(|_| json!({"query": "fake", "limit": 1}))
        .collect();
    let bad = |v: Value| matches!(catalog.search_batch(&v), Err(EngineError::InvalidInput(_)));
    assert!(bad(json!({ "queries": too_many })));
    assert!(bad(json!({ "queries": [] })));
    assert!(bad(json!({ "query": "fake" })));
    assert!(bad(json!({ "queries": [{"limit": 2}] })));
    assert!(bad(json!({ "queries": [{"query": "x".repeat(511)}] })));
    assert!(!bad(json!({ "queries": [{"query": "x".repeat(510)}] })));
    assert!(bad(
        json!({ "queries": [{"query": "a", "limit": 20}, {"query": "b", "limit": 20}, {"query": "c", "limit": 11}] })
    ));
    assert!(!bad(
        json!({ "queries": [{"query": "a", "limit": 20}, {"query": "b", "limit": 20}, {"query": "c", "limit": 10}] })
    ));
    assert!(bad(json!({ "queries": [{"query": "a", "limit": 0}] })));
}

/// A surface's [`BatchRules`] bound the batch, not the spec's: upstream OpenClaw counts a
/// query's characters and bounds the query texts together (its profile's `[tool_search]`).
#[test]
fn a_surface_s_batch_rules_bound_the_batch() {
    let upstream = BatchRules {
        max_queries: 3,
        max_query: crate::config::QueryBound::Chars(512),
        queries_json_bytes: Some(512),
        max_candidates: 4,
        answer_chars: 600,
    };
    let mut entries = fake_plugin_tools(FIXTURE_PLUGIN_ID, 10);
    entries.extend(core_tools());
    let limits = SearchLimits {
        batch: upstream,
        ..SearchLimits::default()
    };
    let catalog = ToolCatalog::new(entries, limits);
    let error = |v: Value| match catalog.search_batch(&v) {
        Err(EngineError::InvalidInput(message)) => message,
        other => panic!("{v}: {other:?}"),
    };
    let four: Vec<Value> = (0..4)
        .map(|_| json!({"query": "fake", "limit": 1}))
        .collect();
    assert_eq!(
        error(json!({ "queries": four })),
        "queries must hold 1 to 3 queries (got 4)."
    );
    // 512 quote characters are 1,026 bytes as JSON (over the spec's bound) but 512
    // characters: one query passes the per-query bound, then the list's 512 bytes stop it.
    let quotes = "\"".repeat(512);
    assert_eq!(
        error(json!({ "queries": [{"query": quotes, "limit": 1}] })),
        "the query texts together are 1028 bytes as a JSON list; at most 512 are allowed."
    );
    assert_eq!(
        error(json!({ "queries": [{"query": "é".repeat(513)}] })),
        "queries[0].query is 513 characters; at most 512 are allowed."
    );
    // Two queries of 300 characters: each within its bound, together 607 bytes.
    let pair = json!({ "queries": [{"query": "a".repeat(300), "limit": 1},
                                       {"query": "b".repeat(300), "limit": 1}] });
    assert_eq!(
        error(pair.clone()),
        "the query texts together are 607 bytes as a JSON list; at most 512 are allowed."
    );
    assert!(
        fake_catalog(10).search_batch(&pair).is_ok(),
        "the spec has no such bound"
    );
    assert_eq!(
        error(json!({ "queries": [{"query": "a", "limit": 3}, {"query": "b", "limit": 2}] })),
        "the limits of all queries add up to 5; at most 4 are allowed."
    );
    // The answer is cut at the surface's 600 characters, not the spec's 4,000.
    let cut = catalog
        .search_batch(&json!({ "queries": [{"query": "fake", "limit": 4}] }))
        .unwrap();
    assert!(cut.to_string().chars().count() <= 600, "{cut}");
    assert_eq!(cut["results"][0]["truncated"], true);
    let spec = fake_catalog(10)
        .search_batch(&json!({ "queries": [{"query": "fake", "limit": 4}] }))
        .unwrap();
    assert_eq!(
        spec["results"][0]["candidates"].as_array().unwrap().len(),
        4
    );
}

#[test]
fn batch_collapses_descriptions_and_truncates() {
    let catalog = fake_catalog(100);
    let small = catalog.search_batch(&json!({"queries": [{"query": "exec", "limit": 1}]}));
    let small = small.unwrap_or_default();
    assert_eq!(small["results"][0]["query"], "exec");
    assert_eq!(
        small["results"][0]["candidates"][0]["id"],
        "openclaw:core:exec"
    );
    assert_eq!(small["results"][0].get("truncated"), None);
    let raw =
        json!({"queries": [{"query": "fake", "limit": 10}, {"query": "plugin tool", "limit": 10}]});
    let big = catalog.search_batch(&raw).unwrap_or_default();
    assert!(
        big.to_string().chars().count() <= 4000,
        "{}",
        big.to_string().len()
    );
    let groups = big["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["truncated"], true);
    assert_eq!(groups[1]["truncated"], true);
    let (a, b) = (
        groups[0]["candidates"].as_array().map(Vec::len),
        groups[1]["candidates"].as_array().map(Vec::len),
    );
    assert!(
        a.zip(b).is_some_and(|(a, b)| a.abs_diff(b) <= 1 && a > 0),
        "{a:?} {b:?}"
    );
    let desc = groups[0]["candidates"][0]["description"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(desc.chars().count(), 180);
    assert!(desc.ends_with('…'));
}

#[test]
fn collapse_whitespace_and_cut() {
    assert_eq!(collapse(" a \n b\t c ", 180), "a b c");
    assert_eq!(collapse("abcdef", 4), "abc…");
}
