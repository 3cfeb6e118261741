use super::*;
use crate::engine::SearchLimits;

/// Writes a fixture data directory with `rows` per subset (questions, answers) and returns it.
fn fixture(rows: &[(Subset, &str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("bfcl_eval/data/possible_answer");
    std::fs::create_dir_all(&data).unwrap();
    for subset in Subset::ALL {
        let (questions, answers): (Vec<&str>, Vec<&str>) = rows
            .iter()
            .filter(|(s, _, _)| *s == subset)
            .map(|(_, q, a)| (*q, *a))
            .unzip();
        std::fs::write(
            dir.path().join(subset.questions_file()),
            questions.join("\n"),
        )
        .unwrap();
        std::fs::write(dir.path().join(subset.answers_file()), answers.join("\n")).unwrap();
    }
    dir
}

const WEATHER_A: &str = r#"{"name": "get_weather", "description": "Current weather in a city.", "parameters": {"type": "dict", "properties": {"city": {"type": "string"}}}}"#;
/// The same definition with its keys in another order.
const WEATHER_A_REORDERED: &str = r#"{"parameters": {"properties": {"city": {"type": "string"}}, "type": "dict"}, "description": "Current weather in a city.", "name": "get_weather"}"#;
const WEATHER_B: &str = r#"{"name": "get_weather", "description": "Weather forecast for a location, in celsius.", "parameters": {"type": "dict", "properties": {"location": {"type": "string"}}}}"#;
const DRINK: &str = r#"{"name": "ChaDri.change_drink", "description": "Change a drink order.", "parameters": {"type": "dict", "properties": {}}}"#;

fn row(id: &str, text: &str, functions: &[&str]) -> String {
    format!(
        r#"{{"id": "{id}", "question": [[{{"role": "system", "content": "be brief"}}, {{"role": "user", "content": "{text}"}}]], "function": [{}]}}"#,
        functions.join(", ")
    )
}

fn answer(id: &str, name: &str) -> String {
    format!(r#"{{"id": "{id}", "ground_truth": [{{"{name}": {{"city": ["Paris"]}}}}]}}"#)
}

#[test]
fn pools_one_tool_per_definition_and_labels_each_row_with_its_own() {
    let rows = [
        row("simple_python_0", "weather in Paris", &[WEATHER_A]),
        row("live_simple_0", "forecast for Oslo", &[WEATHER_B]),
        row(
            "live_multiple_0",
            "make my latte large",
            &[DRINK, WEATHER_A_REORDERED],
        ),
    ];
    let answers = [
        answer("simple_python_0", "get_weather"),
        answer("live_simple_0", "get_weather"),
        answer("live_multiple_0", "ChaDri.change_drink"),
    ];
    let dir = fixture(&[
        (Subset::SimplePython, &rows[0], &answers[0]),
        (Subset::LiveSimple, &rows[1], &answers[1]),
        (Subset::LiveMultiple, &rows[2], &answers[2]),
    ]);
    let pool = load(dir.path()).unwrap();
    let names: Vec<&str> = pool.entries.iter().map(|e| e.name.as_str()).collect();
    // Key order does not make a new definition; a second definition of a name gets `__2`.
    assert_eq!(
        names,
        ["get_weather", "get_weather__2", "ChaDri.change_drink"]
    );
    assert_eq!(pool.distinct_names, 2);
    assert_eq!(pool.entries[0].id, "openclaw:bfcl:get_weather");
    let labels: Vec<(&str, usize, &str)> = pool
        .questions
        .iter()
        .map(|q| (q.id.as_str(), q.tool, q.text.as_str()))
        .collect();
    assert_eq!(
        labels,
        [
            ("simple_python_0", 0, "weather in Paris"),
            ("live_simple_0", 1, "forecast for Oslo"),
            ("live_multiple_0", 2, "make my latte large"),
        ]
    );
    let offered: Vec<(Subset, Vec<usize>)> = pool
        .offered
        .iter()
        .map(|(s, t)| (*s, t.iter().copied().collect()))
        .collect();
    assert_eq!(
        offered,
        [
            (Subset::SimplePython, vec![0]),
            (Subset::Multiple, vec![]),
            (Subset::LiveSimple, vec![1]),
            (Subset::LiveMultiple, vec![0, 2]),
        ]
    );

    let catalog = ToolCatalog::new(
        pool.entries.clone(),
        SearchLimits {
            default_limit: RANK_DEPTH,
            max_limit: RANK_DEPTH,
            ..SearchLimits::default()
        },
    );
    let report = measure(&catalog, &pool);
    assert_eq!(report.catalog_size, 3);
    assert_eq!(report.questions, 3);
    let pooled = report.figures.last().unwrap();
    assert_eq!(pooled.subset, "pooled");
    assert_eq!(pooled.all.queries, 3);
    assert_eq!(pooled.exact_name_tools, 3);
    assert_eq!(
        report
            .figures
            .iter()
            .map(|f| f.subset.as_str())
            .collect::<Vec<_>>(),
        [
            "simple_python",
            "multiple",
            "live_simple",
            "live_multiple",
            "pooled"
        ]
    );
    // The report gates itself as its own baseline; one hit fewer than a baseline is a regression.
    let baseline = BfclBaseline::parse(&report.to_json()).unwrap();
    assert_eq!(report.regressions(&baseline), Vec::<String>::new());
    let mut better = baseline.clone();
    better.figures[4].test.hits_at_5 = better.figures[4].test.queries + 1;
    let regressions = report.regressions(&better);
    assert_eq!(regressions.len(), 1, "{regressions:?}");
    assert!(
        regressions[0].starts_with("pooled: test half: recall@5 fell to"),
        "{regressions:?}"
    );
}

#[test]
fn the_split_is_the_id_hash_parity() {
    // FNV-1a 64 of "" is the offset basis (odd); of "a" 0xaf63dc4c8601ec8c (even).
    assert_eq!(half_of(""), Half::Test);
    assert_eq!(half_of("a"), Half::Tuning);
    let tuning = (0..400)
        .filter(|i| half_of(&format!("simple_python_{i}")) == Half::Tuning)
        .count();
    assert!(
        (150..250).contains(&tuning),
        "{tuning} of 400 in the tuning half"
    );
}

#[test]
fn base_names_drop_only_the_pooling_suffix() {
    assert_eq!(base_name("get_weather__12"), "get_weather");
    assert_eq!(base_name("get_weather"), "get_weather");
    assert_eq!(base_name("a__b"), "a__b");
}

#[test]
fn errors_name_the_file_and_line() {
    let two_calls = r#"{"id": "multiple_0", "ground_truth": [{"get_weather": {}}, {"ChaDri.change_drink": {}}]}"#;
    let rows = [row("multiple_0", "weather", &[WEATHER_A, DRINK])];
    let dir = fixture(&[(Subset::Multiple, &rows[0], two_calls)]);
    let err = load(dir.path()).unwrap_err().to_string();
    assert_eq!(
        err,
        "search-quality set: BFCL: bfcl_eval/data/BFCL_v4_multiple.json:1 (multiple_0): \
         bfcl_eval/data/possible_answer/BFCL_v4_multiple.json:1 calls 2 functions, not one"
    );
    let wrong = answer("multiple_0", "get_time");
    let dir = fixture(&[(Subset::Multiple, &rows[0], &wrong)]);
    let err = load(dir.path()).unwrap_err().to_string();
    assert!(
        err.ends_with("the row offers no single function named \"get_time\""),
        "{err}"
    );
    let dir = fixture(&[(Subset::Multiple, "{\"id\": 1}", &wrong)]);
    let err = load(dir.path()).unwrap_err().to_string();
    assert!(
        err.starts_with("search-quality set: BFCL: bfcl_eval/data/BFCL_v4_multiple.json:1: "),
        "{err}"
    );
}

#[test]
fn a_gateway_that_checks_json_schema_gets_bfcls_types_in_json_schemas_words() {
    let entry = ToolEntry::new(
        ToolSource::Openclaw,
        SOURCE_NAME,
        "ChaDri.change_drink",
        "Change a drink order.",
        serde_json::json!({"type": "dict", "properties": {
            "size": {"type": "float", "description": "a type word in prose: dict"},
            "options": {"type": "dict", "properties": {"type": {"type": "any"}}},
            "pair": {"type": "tuple", "items": {"type": "integer"}},
            "sugar": {"type": "boolean", "default": false}},
            "required": ["size"]}),
        Executor::FakePlugin {
            plugin: SOURCE_NAME.into(),
        },
    );
    let converted = json_schema_entries(std::slice::from_ref(&entry));
    assert_eq!(converted[0].name, "ChaDri.change_drink");
    assert_eq!(converted[0].description, entry.description);
    assert_eq!(
        *converted[0].parameters,
        serde_json::json!({"type": "object", "properties": {
            "size": {"type": "number", "description": "a type word in prose: dict"},
            "options": {"type": "object", "properties": {"type": {"type": "string"}}},
            "pair": {"type": "array", "items": {"type": "integer"}},
            "sugar": {"type": "boolean", "default": false}},
            "required": ["size"]})
    );
    // The embedded engine's pool keeps BFCL's own words.
    assert_eq!(entry.parameters["type"], "dict");
}
