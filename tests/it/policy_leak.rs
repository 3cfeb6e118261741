//! Fail closed, by property (spec §10): for random catalogues, policies and modes, a tool the policy
//! denies never shows up in what the model or the logs can see — the provider request body (tools and
//! system prompt, which carries any directory), search results (single and batch), describe
//! suggestions, lookups, and telemetry.
//!
//! Every case is in-process and cheap: the surface, prompt and request body are built with the
//! engine and gateway functions directly, without HTTP. 1,000 cases run in CI.

use proptest::prelude::*;
use serde_json::{json, Value};
use toolsearch_qa::catalog::{Executor, ToolEntry, ToolPolicy, ToolSource};
use toolsearch_qa::config::ToolSearchMode;
use toolsearch_qa::engine::surface::CONTROL_TOOLS;
use toolsearch_qa::engine::{SearchLimits, Surface, SurfacePlan};
use toolsearch_qa::gateway::agent::provider_body;
use toolsearch_qa::gateway::prompt::system_prompt;

/// Words for names and descriptions; none contains a digit, so no description can spell a tool name.
const WORDS: [&str; 8] = [
    "send", "fetch", "calendar", "event", "file", "search", "weather", "message",
];

/// How a tool is denied, or whether it is allowed.
#[derive(Debug, Clone, Copy)]
enum Rule {
    Allowed,
    DenyByName,
    DenyById,
    DenyByGlob,
    /// Not denied, but left out of a restrictive `allow` list.
    NotAllowListed,
}

#[derive(Debug, Clone)]
struct ToolSpec {
    source: u8,
    word: usize,
    description: Vec<usize>,
    direct_only: bool,
    rule: Rule,
}

#[derive(Debug, Clone)]
struct Case {
    tools: Vec<ToolSpec>,
    restrictive_allow: bool,
    allow_controls: bool,
    mode: ToolSearchMode,
    code_runtime: bool,
    stream: bool,
}

fn rule() -> impl Strategy<Value = Rule> {
    prop_oneof![
        3 => Just(Rule::Allowed),
        1 => Just(Rule::DenyByName),
        1 => Just(Rule::DenyById),
        1 => Just(Rule::DenyByGlob),
        1 => Just(Rule::NotAllowListed),
    ]
}

fn tool_spec() -> impl Strategy<Value = ToolSpec> {
    (
        0u8..4,
        0..WORDS.len(),
        prop::collection::vec(0..WORDS.len(), 0..6),
        prop::bool::weighted(0.15),
        rule(),
    )
        .prop_map(|(source, word, description, direct_only, rule)| ToolSpec {
            source,
            word,
            description,
            direct_only,
            rule,
        })
}

fn mode() -> impl Strategy<Value = ToolSearchMode> {
    prop_oneof![
        Just(ToolSearchMode::Direct),
        Just(ToolSearchMode::Code),
        Just(ToolSearchMode::Tools),
        Just(ToolSearchMode::Directory),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(tool_spec(), 1..24),
        any::<bool>(),
        prop::bool::weighted(0.8),
        mode(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(tools, restrictive_allow, allow_controls, mode, code_runtime, stream)| Case {
                tools,
                restrictive_allow,
                allow_controls,
                mode,
                code_runtime,
                stream,
            },
        )
}

/// Tool `i`: a unique `t<iii>_<word>` name, so one name is never part of another.
fn entry(i: usize, spec: &ToolSpec) -> ToolEntry {
    let name = format!("t{i:03}_{}", WORDS[spec.word]);
    let description: Vec<&str> = spec.description.iter().map(|w| WORDS[*w]).collect();
    let parameters = json!({ "type": "object", "properties": { "note": { "type": "string" } } });
    let (source, source_name, executor) = match spec.source {
        0 => (ToolSource::Openclaw, "core".to_string(), Executor::CoreEcho),
        1 => (
            ToolSource::Openclaw,
            "plug".to_string(),
            Executor::FakePlugin {
                plugin: "plug".into(),
            },
        ),
        2 => (
            ToolSource::Mcp,
            "srv".to_string(),
            Executor::Mcp {
                server: "srv".into(),
            },
        ),
        _ => (ToolSource::Client, "client".to_string(), Executor::Client),
    };
    let entry = ToolEntry::new(
        source,
        source_name,
        name,
        description.join(" "),
        parameters,
        executor,
    );
    if spec.direct_only {
        entry.direct_only()
    } else {
        entry
    }
}

fn policy(case: &Case, entries: &[ToolEntry]) -> ToolPolicy {
    let mut policy = ToolPolicy::default();
    let mut allow = Vec::new();
    for (spec, entry) in case.tools.iter().zip(entries) {
        match spec.rule {
            Rule::Allowed => allow.push(entry.name.clone()),
            Rule::DenyByName => policy.deny.push(entry.name.clone()),
            Rule::DenyById => policy.deny.push(entry.id.clone()),
            Rule::DenyByGlob => policy.deny.push(format!("{}*", &entry.name[..5])),
            Rule::NotAllowListed => {}
        }
    }
    if case.restrictive_allow {
        policy.allow = Some(allow);
    }
    if case.allow_controls {
        policy
            .also_allow
            .extend(CONTROL_TOOLS.iter().map(|c| c.to_string()));
    }
    policy
}

/// Every text the model or the logs could see for this case.
fn visible_texts(surface: &Surface, stream: bool, probes: &[String]) -> Vec<(String, String)> {
    let input = vec![
        json!({ "type": "message", "role": "system", "content": [{ "type": "input_text", "text": system_prompt(surface) }] }),
        json!({ "type": "message", "role": "user", "content": [{ "type": "input_text", "text": "find a tool" }] }),
    ];
    let declarations = surface.declarations();
    let body = provider_body("qa", &input, &declarations, Some(256), stream);
    let mut texts = vec![
        ("provider payload".to_string(), body.to_string()),
        (
            "surface record".to_string(),
            json!({ "declared": surface.declared_names(), "notes": surface.notes }).to_string(),
        ),
    ];
    let Some(run) = &surface.run else {
        return texts;
    };
    let mut queries: Vec<String> = WORDS.iter().map(|w| w.to_string()).collect();
    queries.extend(probes.iter().cloned());
    for query in &queries {
        let found = run
            .search(query, Some(&json!(50)))
            .map(|items| serde_json::to_string(&items).unwrap_or_default())
            .unwrap_or_else(|e| e.to_string());
        texts.push((format!("search {query:?}"), found));
    }
    // The batch result repeats each query, so only the plain words go in (no probe names).
    let batch: Vec<Value> = WORDS
        .iter()
        .map(|q| json!({ "query": q, "limit": 3 }))
        .collect();
    let batch = run
        .search_batch(&Value::Array(batch))
        .map(|v| v.to_string())
        .unwrap_or_else(|e| e.to_string());
    texts.push(("batch search".into(), batch));
    for probe in probes {
        // The miss message repeats the asked-for id; only its suggestions could leak.
        let described = match run.describe(probe, "search first") {
            Ok(item) => serde_json::to_string(&item).unwrap_or_default(),
            Err(e) => e.to_string().replace(probe.as_str(), "<asked>"),
        };
        texts.push((format!("describe {probe:?}"), described));
        if run.catalog().lookup(probe).is_ok() {
            texts.push((format!("lookup {probe:?}"), probe.clone()));
        }
    }
    texts.push((
        "telemetry".into(),
        serde_json::to_string(&run.telemetry()).unwrap_or_default(),
    ));
    texts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn a_denied_tool_never_reaches_the_model_or_the_logs(case in case()) {
        let entries: Vec<ToolEntry> = case.tools.iter().enumerate().map(|(i, s)| entry(i, s)).collect();
        let policy = policy(&case, &entries);
        let denied: Vec<String> = entries
            .iter()
            .filter(|e| !policy.allows(&e.name, &e.id))
            .map(|e| e.name.clone())
            .collect();
        let surface = Surface::plan(SurfacePlan {
            requested: case.mode,
            tools: entries.clone(),
            policy: &policy,
            limits: SearchLimits::default(),
            code_runtime: if case.code_runtime { Ok(()) } else { Err("no sandbox in this test".into()) },
            embedder: None,
            bridge: std::sync::Arc::new(toolsearch_qa::config::Bridge::spec()),
        });
        for (place, text) in visible_texts(&surface, case.stream, &denied) {
            for name in &denied {
                prop_assert!(!text.contains(name.as_str()), "denied {} appears in {}: {}", name, place, text);
            }
        }
        // Nothing allowed was lost on the way: every allowed tool is still eligible.
        prop_assert_eq!(surface.eligible.len(), entries.len() - denied.len());
    }
}

#[test]
fn the_checker_sees_a_leak_when_there_is_one() {
    let spec = ToolSpec {
        source: 1,
        word: 0,
        description: vec![],
        direct_only: false,
        rule: Rule::Allowed,
    };
    let tool = entry(7, &spec);
    let surface = Surface::plan(SurfacePlan {
        requested: ToolSearchMode::Direct,
        tools: vec![tool.clone()],
        policy: &ToolPolicy::default(),
        limits: SearchLimits::default(),
        code_runtime: Ok(()),
        embedder: None,
        bridge: std::sync::Arc::new(toolsearch_qa::config::Bridge::spec()),
    });
    let texts = visible_texts(&surface, false, &[]);
    assert_eq!(texts[0].0, "provider payload");
    assert!(texts[0].1.contains("t007_send"));
}
