use super::*;
use crate::catalog::{Executor, ToolSource};

fn tool(name: &str, description: &str) -> ToolEntry {
    ToolEntry::new(
        ToolSource::Openclaw,
        "p",
        name,
        description,
        serde_json::json!({}),
        Executor::CoreEcho,
    )
}

fn set(pairs: &[(&str, &str)]) -> QualitySet {
    QualitySet {
        queries: pairs
            .iter()
            .map(|(text, tool)| LabelledQuery {
                text: text.to_string(),
                tool: tool.to_string(),
            })
            .collect(),
    }
}

fn lexical(entries: Vec<ToolEntry>) -> ToolCatalog {
    ToolCatalog::new(entries, quality_limits())
}

fn figures(queries: usize, hits_at_1: usize, hits_at_5: usize) -> Figures {
    Figures {
        queries,
        hits_at_1,
        hits_at_5,
        recall_at_1: 0.0,
        recall_at_5: 0.0,
        mrr: 0.0,
    }
}

#[test]
fn the_split_rule_alternates_in_file_order() {
    assert_eq!(
        (0..5).map(Half::of).collect::<Vec<_>>(),
        vec![
            Half::Tuning,
            Half::Test,
            Half::Tuning,
            Half::Test,
            Half::Tuning
        ]
    );
    let s = set(&[("a", "x"), ("b", "x"), ("c", "x")]);
    let tuning: Vec<&str> = s.half(Half::Tuning).map(|q| q.text.as_str()).collect();
    let test: Vec<&str> = s.half(Half::Test).map(|q| q.text.as_str()).collect();
    assert_eq!((tuning, test), (vec!["a", "c"], vec!["b"]));
}

#[test]
fn metrics_on_a_small_catalogue_per_half() {
    let catalog = lexical(vec![
        tool("paint_wall", "Paint a wall a colour."),
        tool("paint_fence", "Paint the fence with a brush."),
        tool("water_plants", "Water the garden plants."),
    ]);
    // Tuning: queries 1 and 3; test: queries 2 and 4.
    let queries = set(&[
        ("water the plants", "water_plants"),
        ("paint with a brush", "paint_fence"),
        ("paint a colour", "paint_fence"),
        ("bake bread", "water_plants"),
    ]);
    let report = measure(&catalog, &queries);
    let Ok(report) = report else {
        panic!("{report:?}");
    };
    assert_eq!(report.ranker, super::RankedBy::Lexical);
    assert_eq!((report.all.hits_at_1, report.all.hits_at_5), (2, 3));
    assert_eq!(report.all.recall_at_1, 0.5);
    assert_eq!(report.all.recall_at_5, 0.75);
    // ranks 1, 1, 2, none → (1 + 1 + 0.5 + 0) / 4.
    assert_eq!(report.all.mrr, 0.625);
    // Tuning: ranks 1 and 2; test: ranks 1 and none.
    assert_eq!(
        (
            report.tuning.hits_at_1,
            report.tuning.hits_at_5,
            report.tuning.mrr
        ),
        (1, 2, 0.75)
    );
    assert_eq!(
        (
            report.test.hits_at_1,
            report.test.hits_at_5,
            report.test.mrr
        ),
        (1, 1, 0.5)
    );
    assert_eq!(report.exact_name_recall, 1.0);
    assert_eq!(
        report.misses,
        vec![
            Miss {
                query: "paint a colour".into(),
                tool: "paint_fence".into(),
                half: Half::Tuning,
                rank: Some(2),
                first: Some("paint_wall".into()),
            },
            Miss {
                query: "bake bread".into(),
                tool: "water_plants".into(),
                half: Half::Test,
                rank: None,
                first: None,
            }
        ]
    );
}

#[test]
fn unknown_label_is_an_error_naming_the_query() {
    let err = measure(
        &lexical(vec![tool("a_tool", "")]),
        &set(&[("x", "missing_tool")]),
    );
    let Err(QualityError::Set(message)) = err else {
        panic!("{err:?}");
    };
    assert!(
        message.starts_with("query 1 (\"x\") names tool \"missing_tool\""),
        "{message}"
    );
}

#[test]
fn set_and_baseline_parse_errors() {
    assert!(matches!(QualitySet::parse(""), Err(QualityError::Set(_))));
    assert!(matches!(
        QualitySet::parse("[[query]]\ntext = \"a\"\ntool = \"b\"\nextra = 1\n"),
        Err(QualityError::Set(_))
    ));
    assert!(matches!(
        Baseline::parse("{}"),
        Err(QualityError::Baseline(_))
    ));
    let text = r#"{"tuning": {"queries": 4, "hitsAt1": 2, "hitsAt5": 3, "mrr": 0.6},
        "test": {"queries": 3, "hitsAt1": 1, "hitsAt5": 2, "mrr": 0.5}, "other": []}"#;
    let parsed = Baseline::parse(text).map(|b| {
        (
            (b.tuning.queries, b.tuning.hits_at_1, b.tuning.hits_at_5),
            (b.test.queries, b.test.hits_at_1, b.test.hits_at_5),
        )
    });
    assert_eq!(parsed, Ok(((4, 2, 3), (3, 1, 2))));
}

#[test]
fn regressions_compare_rates_per_half_in_integers() {
    let catalog = lexical(vec![tool("alpha_tool", "alpha"), tool("beta_tool", "beta")]);
    let report = measure(
        &catalog,
        &set(&[("alpha", "alpha_tool"), ("gamma", "beta_tool")]),
    );
    let Ok(report) = report else {
        panic!("{report:?}");
    };
    // Tuning 1/1 at 1 and 5; test 0/1.
    let base = |tuning: Figures, test: Figures| Baseline {
        tuning,
        test,
        all: None,
    };
    assert_eq!(
        report.regressions(&base(figures(1, 1, 1), figures(1, 0, 0))),
        Vec::<String>::new()
    );
    assert_eq!(
        report.regressions(&base(figures(2, 2, 2), figures(3, 0, 0))),
        Vec::<String>::new()
    );
    assert_eq!(
        report.regressions(&base(figures(1, 1, 1), figures(3, 1, 2))),
        vec![
            "test half: recall@1 fell to 0/1 from the baseline's 1/3".to_string(),
            "test half: recall@5 fell to 0/1 from the baseline's 2/3".to_string()
        ]
    );
}

#[test]
fn a_tool_not_first_for_its_own_name_is_a_regression() {
    // Two plugins ship a tool of the same name: searching the name puts the smaller id
    // first, so the other one misses.
    let twin = |plugin: &str| {
        ToolEntry::new(
            ToolSource::Openclaw,
            plugin,
            "export_all",
            "Export everything.",
            serde_json::json!({}),
            Executor::CoreEcho,
        )
    };
    let catalog = lexical(vec![twin("p"), twin("q"), tool("other_tool", "export")]);
    let report = measure(
        &catalog,
        &set(&[("export", "other_tool"), ("x", "other_tool")]),
    );
    let Ok(report) = report else {
        panic!("{report:?}");
    };
    assert_eq!(report.exact_name_misses, vec!["openclaw:q:export_all"]);
    assert_eq!((report.exact_name_hits, report.catalog_size), (2, 3));
    assert_eq!(report.exact_name_recall, 0.6667);
    let baseline = Baseline {
        tuning: figures(1, 0, 0),
        test: figures(1, 0, 0),
        all: None,
    };
    assert_eq!(
        report.regressions(&baseline),
        vec![
            "exact-name recall is 2/3; every tool must come first for its own name \
             (misses: openclaw:q:export_all)"
                .to_string()
        ]
    );
}

fn builtin_lexical() -> (QualityReport, Baseline) {
    let report = measure_builtin(Ranker::Lexical);
    let Ok(report) = report else {
        panic!("{report:?}");
    };
    let baseline = Baseline::builtin(super::RankedBy::Lexical);
    let Ok(baseline) = baseline else {
        panic!("{baseline:?}");
    };
    (report, baseline)
}

/// The committed baseline is a real run of this build, not a placeholder: regenerate it
/// with `toolsearch-qa quality --format json > data/search-quality-baseline.json` when
/// ranking, catalogue or queries change on purpose.
#[test]
fn committed_lexical_baseline_is_the_current_measurement() {
    let (report, baseline) = builtin_lexical();
    assert_eq!(
        (report.tuning, report.test),
        (baseline.tuning, baseline.test)
    );
}

#[test]
fn builtin_set_is_large_varied_and_every_label_is_a_catalogued_tool() {
    let set = QualitySet::builtin();
    let Ok(set) = set else {
        panic!("{set:?}");
    };
    assert!(set.queries.len() >= 300, "{}", set.queries.len());
    let catalog = ToolCatalog::new(quality_entries(), SearchLimits::default());
    assert!(catalog.len() >= 1000, "{}", catalog.len());
    assert_eq!(set.check_labels(&catalog), Ok(()));
    // Many services: the labels' sources cover most of the catalogue's.
    let mut sources: Vec<&str> = set
        .queries
        .iter()
        .filter_map(|q| catalog.lookup(&q.tool).ok())
        .map(|e| e.source_name.as_str())
        .collect();
    sources.sort_unstable();
    sources.dedup();
    assert!(sources.len() >= 60, "{}", sources.len());
    let mut texts: Vec<&str> = set.queries.iter().map(|q| q.text.as_str()).collect();
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), set.queries.len(), "a query is repeated");
}

/// The gate: every tool first for its own name, recall@1 and recall@5 of both halves not
/// below the committed baseline.
#[test]
fn builtin_lexical_quality_does_not_regress() {
    let (report, baseline) = builtin_lexical();
    assert_eq!(report.exact_name_misses, Vec::<String>::new());
    assert_eq!(report.exact_name_recall, 1.0);
    assert_eq!(report.regressions(&baseline), Vec::<String>::new());
}

#[test]
fn a_rank_beats_no_rank_and_the_lower_rank_wins() {
    assert_eq!(super::better_rank(Some(3), Some(1)), Some(1));
    assert_eq!(super::better_rank(None, Some(7)), Some(7));
    assert_eq!(super::better_rank(Some(2), None), Some(2));
    assert_eq!(super::better_rank(None, None), None);
}
