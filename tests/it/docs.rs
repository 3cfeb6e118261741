//! The docs tell the truth where it can be checked: the README's exit-code table is the one the
//! binary uses, and the field table of docs/scenarios.md is the loader's (every field it takes,
//! and which are required).

use toolsearch_qa::error::Exit;

/// `| code | meaning | …` rows of the README's exit-code table.
fn readme_exit_codes() -> Vec<(u8, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    readme
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let code = cells.get(1)?.parse::<u8>().ok()?;
            Some((code, cells.get(2)?.to_string()))
        })
        .collect()
}

#[test]
fn the_readme_exit_code_table_is_the_binary_s() {
    let want: Vec<(u8, String)> = Exit::TABLE
        .iter()
        .map(|(code, meaning)| (*code, meaning.to_string()))
        .collect();
    assert_eq!(readme_exit_codes(), want);
}

/// `(field, required?)` rows of the field table in docs/scenarios.md (the rows whose first cell
/// is a backticked field path).
fn documented_fields() -> Vec<(String, bool)> {
    let page = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/scenarios.md"))
        .expect("docs/scenarios.md");
    let table = page
        .split("## The fields")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("a section \"The fields\"");
    table
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split(" | ").map(str::trim).collect();
            let field = cells.first()?.strip_prefix("| `")?.strip_suffix('`')?;
            Some((field.to_string(), cells.get(1)? == &"required"))
        })
        .collect()
}

/// The smallest valid scenario: every required field and nothing else (one claim, so the
/// claims' own required fields are in it too).
const MINIMAL: &str =
    "id = \"m\"\ntitle = \"t\"\nprompt = \"p\"\ntarget_tool = \"fake_plugin_tool_01\"\n\
                       [catalog]\nplugin_id = \"p\"\nsize = 3\n[[claims]]\nid = \"P1\"\n\
                       [[lanes]]\nname = \"a\"\ntool_search = false\n";

/// `MINIMAL` without the field at `path` (`catalog.size`, `lanes[].name`).
fn without(path: &str) -> String {
    let mut doc: toml::Table = toml::from_str(MINIMAL).unwrap();
    let keys: Vec<&str> = path.split('.').collect();
    let mut table = &mut doc;
    for key in &keys[..keys.len() - 1] {
        let value = table.get_mut(key.trim_end_matches("[]")).unwrap();
        table = match value {
            toml::Value::Array(items) => items[0].as_table_mut().unwrap(),
            other => other.as_table_mut().unwrap(),
        };
    }
    table
        .remove(keys[keys.len() - 1])
        .expect("the minimal scenario has it");
    toml::to_string(&doc).unwrap()
}

#[test]
fn the_scenario_field_table_is_the_loader_s() {
    let documented = documented_fields();
    let accepted = toolsearch_qa::scenario::fields::accepted();
    // `x.*` rows document every field under `x` by reference.
    let covered = |path: &String| {
        documented.iter().any(|(d, _)| {
            d == path
                || d.strip_suffix(".*")
                    .is_some_and(|prefix| path.starts_with(&format!("{prefix}.")))
        })
    };
    let undocumented: Vec<&String> = accepted.iter().filter(|p| !covered(p)).collect();
    assert!(
        undocumented.is_empty(),
        "fields the loader takes but docs/scenarios.md lacks: {undocumented:?}"
    );
    let unknown: Vec<&String> = documented
        .iter()
        .map(|(d, _)| d)
        .filter(|d| !d.ends_with(".*") && !accepted.contains(d))
        .collect();
    assert!(
        unknown.is_empty(),
        "documented fields the loader does not take: {unknown:?}"
    );
    // Required means: the minimal scenario has it and does not load without it. Optional means:
    // the minimal scenario loads with it left out.
    let load = |text: &str| toolsearch_qa::scenario::parse_scenario(text, "minimal.toml");
    load(MINIMAL).expect("the minimal scenario loads");
    for (field, required) in documented.iter().filter(|(d, _)| !d.ends_with(".*")) {
        let present = has(field);
        assert!(
            present || !required,
            "{field} is documented as required but MINIMAL lacks it"
        );
        if !present {
            continue;
        }
        let loaded = load(&without(field));
        match (required, loaded) {
            (true, Err(err)) => {
                let key = field.rsplit('.').next().unwrap().trim_end_matches("[]");
                let err = err.to_string();
                assert!(
                    err.contains(&format!("missing field `{key}`")),
                    "{field}: {err}"
                );
            }
            (true, Ok(_)) => panic!("{field} is documented as required, but loads without it"),
            (false, Err(err)) => panic!("{field} is documented as optional, but: {err}"),
            (false, Ok(_)) => {}
        }
    }
}

/// Does `MINIMAL` have the field at `path`?
fn has(path: &str) -> bool {
    let mut value = toml::Value::Table(toml::from_str(MINIMAL).unwrap());
    for key in path.split('.') {
        let next = match &value {
            toml::Value::Table(t) => t.get(key.trim_end_matches("[]")).cloned(),
            _ => None,
        };
        let next = match next {
            Some(toml::Value::Array(items)) if key.ends_with("[]") => items.first().cloned(),
            other => other,
        };
        match next {
            Some(n) => value = n,
            None => return false,
        }
    }
    true
}

/// The test names of `.config/nextest.toml`'s `openclaw-gateway` group (`test(=module::name)`).
fn nextest_gateway_group() -> Vec<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.config/nextest.toml"))
            .expect(".config/nextest.toml");
    let config: toml::Value = toml::from_str(&text).expect(".config/nextest.toml is TOML");
    let overrides = config["profile"]["default"]["overrides"]
        .as_array()
        .expect("[[profile.default.overrides]]");
    let group = overrides
        .iter()
        .find(|o| o.get("test-group").and_then(|g| g.as_str()) == Some("openclaw-gateway"))
        .expect("an override with test-group = \"openclaw-gateway\"");
    let filter = group["filter"].as_str().expect("its filter");
    let mut names: Vec<String> = filter
        .split("test(=")
        .skip(1)
        .map(|rest| rest.split(')').next().unwrap_or_default().to_string())
        .collect();
    names.sort();
    names
}

/// `module::function` of every integration test that takes the real-gateway lock.
fn tests_taking_the_gateway_lock() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).expect("tests/it") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let module = path.file_stem().unwrap().to_string_lossy().to_string();
        if module == "docs" {
            continue; // this file names the lock in its own strings
        }
        let source = std::fs::read_to_string(&path).expect("a test file");
        let mut function = None;
        for line in source.lines() {
            let item = line
                .trim_start()
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ")
                .trim_start_matches("async ");
            if let Some(rest) = item.strip_prefix("fn ") {
                function = rest.split(['(', '<']).next().map(str::to_string);
            }
            if line.contains("ONE_GATEWAY.lock") || line.contains("ONE_GATEWAY.blocking_lock") {
                let name = function
                    .clone()
                    .expect("ONE_GATEWAY taken outside a function");
                names.push(format!("{module}::{name}"));
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Nextest runs each test in its own process, where the in-process lock excludes nothing: the
/// test group must name exactly the tests that take it, or two real gateways start together.
#[test]
fn the_nextest_gateway_group_is_every_test_that_takes_the_gateway_lock() {
    let locked = tests_taking_the_gateway_lock();
    // Nine today (each pays a gateway start, about 25 s of the product's CPU: docs/ci.md): a new
    // real-gateway test changes this count and the group together.
    assert_eq!(locked.len(), 9, "real-gateway tests found: {locked:?}");
    assert_eq!(nextest_gateway_group(), locked);
}

/// `module::function` and reason of every ignored integration test (`#[ignore = "..."]`, or
/// `None` for a bare `#[ignore]`).
fn ignored_tests() -> Vec<(String, Option<String>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/it");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("tests/it") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let module = path.file_stem().unwrap().to_string_lossy().to_string();
        let source = std::fs::read_to_string(&path).expect("a test file");
        let mut reason: Option<Option<String>> = None;
        for line in source.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("#[ignore") {
                let text = rest.trim_start_matches(" = \"").trim_end_matches("\"]");
                reason = Some((rest != "]").then(|| text.to_string()));
            } else if let Some(why) = reason.take() {
                let item = line.trim_start_matches("async ");
                let Some(rest) = item.strip_prefix("fn ") else {
                    reason = Some(why); // another attribute between
                    continue;
                };
                let name = rest.split(['(', '<']).next().unwrap();
                found.push((format!("{module}::{name}"), why));
            }
        }
    }
    found.sort();
    found
}

/// A test that cannot run here says so (issue #51): every ignored test names what it needs and
/// the command that installs it, and every real-gateway test is one of them (CI runs them with
/// `--run-ignored all`; a plain `cargo test` lists them as not run).
#[test]
fn every_ignored_test_names_its_install_and_every_real_gateway_test_is_ignored() {
    let ignored = ignored_tests();
    for (test, reason) in &ignored {
        let reason = reason.as_deref().unwrap_or_default();
        assert!(
            reason.starts_with("needs ") && reason.ends_with(')') && reason.contains(" ("),
            "{test}: #[ignore = \"needs <what> (<install command>)\"], not {reason:?}"
        );
    }
    let names: Vec<&str> = ignored.iter().map(|(t, _)| t.as_str()).collect();
    for test in tests_taking_the_gateway_lock() {
        assert!(names.contains(&test.as_str()), "{test} is not ignored");
    }
}

/// The commands of the README's "Run it" block, comments cut.
fn readme_run_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let block = readme
        .split("## Run it")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("a ```sh block under ## Run it");
    block
        .lines()
        .map(|line| {
            line.split('#')
                .next()
                .unwrap_or_default()
                .trim()
                .to_string()
        })
        .filter(|line| !line.is_empty())
        .collect()
}

/// The README's two commands need nothing but Rust on a fresh machine: each is a cargo command
/// that ships with cargo (no `cargo nextest`, which needs an install first: issue #41), and the
/// README names nextest as the faster option CI runs.
#[test]
fn the_readme_commands_need_only_rust() {
    let commands = readme_run_commands();
    assert_eq!(commands, ["cargo run --release -- suite", "cargo test"]);
    let built_in = ["run", "test", "build", "bench"];
    for command in &commands {
        let sub = command.split_whitespace().nth(1).unwrap();
        assert!(built_in.contains(&sub), "{command} needs an install");
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    assert!(readme.contains("`cargo nextest run` runs the same tests a few minutes"));
    let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
    assert!(ci
        .lines()
        .any(|l| l.trim() == "cargo nextest run --locked --run-ignored all"));
    assert!(ci.contains("cargo install cargo-nextest --locked"));
}
