//! Real MCP servers nobody here wrote as a scenario's catalogue (`[[catalog.mcp_servers]]`):
//! the built-in `real-mcp-servers` scenario (four official servers from npm, 49 tools, installed
//! by `scripts/install-mcp-servers.sh`) through every mode on the embedded gateway, C3 biting on a
//! real schema, each way a server can be broken as one `error:` line with its exit code and no
//! process left behind, and the committed lockfiles (`data/mcp-servers/`) they are installed from.
//!
//! Cost (debug build, quiet machine): the scenario's listing and four lanes, each starting the
//! four Node servers at once, about 9 s; the bite, a listing and one lane, about 4 s; the CLI
//! cases under a second each.

use std::path::Path;

use toolsearch_qa::mcp_servers::list_catalogues;
use toolsearch_qa::scenario::{load_all, select, ClaimId, Scenario};
use toolsearch_qa::suite::{plan_all, run_plans, ProviderSource, Quiet};
use toolsearch_qa::targets::EmbeddedTarget;

const SCENARIO: &str = "real-mcp-servers";

fn real_scenario() -> Scenario {
    let all = load_all(&[]).expect("built-in scenarios");
    select(all, &[SCENARIO.into()])
        .expect("the scenario")
        .remove(0)
}

/// Fails `test` (an `#[ignore]`d one, asked for) when the servers are not installed, naming
/// what is missing and the install command.
pub fn servers_installed(test: &str) {
    let scratch = tempfile::tempdir().expect("temp dir");
    let machine = toolsearch_qa::mcp_servers::Machine::here(scratch.path()).expect("a cache");
    let scenario = real_scenario();
    let missing = scenario
        .catalog
        .mcp_servers
        .iter()
        .find_map(|spec| toolsearch_qa::mcp_servers::launch::missing_install(spec, &machine));
    if let Some(missing) = missing {
        panic!("{test}: {missing}");
    }
}

#[tokio::test]
#[ignore = "needs the official MCP servers (bash scripts/install-mcp-servers.sh)"]
async fn real_servers_run_through_every_mode_on_the_embedded_gateway() {
    servers_installed("real_servers_run_through_every_mode_on_the_embedded_gateway");
    let scenario = real_scenario();
    let mut listed = vec![scenario.clone()];
    list_catalogues(&mut listed)
        .await
        .expect("the servers are installed (scripts/install-mcp-servers.sh) and list their tools");
    let counts: Vec<(String, usize)> = listed[0]
        .catalog
        .listed
        .iter()
        .map(|(server, tools)| (server.clone(), tools.len()))
        .collect();
    let want = [
        ("everything", 13),
        ("github", 26),
        ("memory", 9),
        ("thinking", 1),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(s, n)| (s.to_string(), *n)).collect();
    assert_eq!(counts, want);

    // Listed once: the run below is the suite's own, after its listing (as `run_suite` does).
    let plans = plan_all(&EmbeddedTarget, &listed).expect("planned");
    let report = run_plans(&EmbeddedTarget, &plans, &ProviderSource::Mock, &Quiet).await;
    let scenario = &report.scenarios[0];
    assert!(scenario.errors.is_empty(), "{:?}", scenario.errors);
    let failed: Vec<String> = scenario
        .claims
        .iter()
        .filter(|v| !v.ok)
        .map(|v| {
            format!(
                "{} {}: {} / {}",
                v.claim.as_str(),
                v.lane,
                v.expected,
                v.actual
            )
        })
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    let c3 = scenario
        .claims
        .iter()
        .find(|v| v.claim == ClaimId::C3)
        .expect("C3 judged");
    assert!(
        c3.expected.contains(
            "all 49 tools the policy allows of MCP servers everything, github, memory, thinking declared"
        ),
        "{}",
        c3.expected
    );
    let ran: Vec<&str> = scenario.lanes.keys().map(String::as_str).collect();
    assert_eq!(ran, ["direct", "tools", "code", "directory"]);
}

/// C3 bites on a real schema: the listing says `echo` takes one more property than the server
/// declares, so the gateway's (true) declaration differs from it and C3 fails naming the tool.
#[tokio::test]
#[ignore = "needs the official MCP servers (bash scripts/install-mcp-servers.sh)"]
async fn c3_fails_when_a_real_schema_differs_from_the_listing() {
    servers_installed("c3_fails_when_a_real_schema_differs_from_the_listing");
    let mut scenario = real_scenario();
    scenario.lanes.retain(|l| l.name == "direct");
    let mut scenarios = vec![scenario];
    list_catalogues(&mut scenarios).await.expect("listed");
    let mut listed = (*scenarios[0].catalog.listed).clone();
    let echo = listed
        .get_mut("everything")
        .and_then(|tools| tools.iter_mut().find(|t| t.name == "echo"))
        .expect("everything lists echo");
    let mut schema = (*echo.parameters).clone();
    schema["properties"]["extra"] = serde_json::json!({ "type": "string" });
    echo.parameters = std::sync::Arc::new(schema);
    scenarios[0].catalog.listed = std::sync::Arc::new(listed);
    let plans = plan_all(&EmbeddedTarget, &scenarios).expect("planned");
    let report = run_plans(&EmbeddedTarget, &plans, &ProviderSource::Mock, &Quiet).await;
    let c3 = report.scenarios[0]
        .claims
        .iter()
        .find(|v| v.claim == ClaimId::C3)
        .expect("C3 judged");
    assert!(!c3.ok);
    assert_eq!(
        c3.expected,
        "MCP schemas and descriptions byte-identical to the servers' tools/list"
    );
    assert_eq!(c3.actual, "differing 1 name: echo (parameters)");
}

/// A scenario of one real server `server` (TOML lines of its table) and the fake plugin.
fn write_scenario(dir: &Path, server: &str) {
    let text = format!(
        r#"id = "broken-real-mcp"
title = "a broken real MCP server"
prompt = "tool search qa check target=fake_plugin_tool_01"
target_tool = "fake_plugin_tool_01"

[catalog]
plugin_id = "tool-search-e2e-fixture"
size = 3

[[catalog.mcp_servers]]
{server}

[[lanes]]
name = "tools"
tool_search = {{ mode = "tools" }}
"#
    );
    std::fs::write(dir.join("broken-real-mcp.toml"), text).expect("scenario file");
}

/// Runs the suite on the scenario `server` describes; exit code and stderr, after checking that
/// no process started with the server's mark is left.
fn run_broken(server: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mark = format!("QA_REAL_MCP_MARK={}", dir.path().display());
    let server = format!(
        "{server}\nenv = {{ QA_REAL_MCP_MARK = {:?} }}",
        dir.path().display().to_string()
    );
    write_scenario(dir.path(), &server);
    let out = assert_cmd::Command::cargo_bin("toolsearch-qa")
        .expect("binary")
        .args([
            "suite",
            "--scenario",
            "broken-real-mcp",
            "--no-snapshots",
            "--scenario-dir",
        ])
        .arg(dir.path())
        .output()
        .expect("runs");
    assert_eq!(
        crate::common::marked_processes(&mark),
        Vec::<u32>::new(),
        "no server outlives the run"
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_broken_real_server_is_one_error_naming_it_and_leaves_no_process() {
    let (code, stderr) = run_broken("name = \"ghost\"\ncommand = \"/nonexistent/mcp-server\"");
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(
        stderr,
        "error: MCP server ghost: cannot start /nonexistent/mcp-server: No such file or directory (os error 2)\n"
    );

    let exits = "name = \"quits\"\ncommand = \"{toolsearch-qa}\"\nargs = [\"mcp-fixture\", \"--server\", \"fault-exit\"]";
    let (code, stderr) = run_broken(exits);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.starts_with("error: MCP server quits: initialize failed: ")
            && stderr.lines().count() == 1,
        "{stderr}"
    );

    let garbage = "name = \"noise\"\ncommand = \"{toolsearch-qa}\"\nargs = [\"mcp-fixture\", \"--server\", \"fault-garbage\"]";
    let (code, stderr) = run_broken(garbage);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(
        stderr,
        "error: MCP server noise: initialize failed: it answered something that is not JSON-RPC: \"this is not JSON-RPC\"\n"
    );

    let invalid = "name = \"broken\"\ncommand = \"{toolsearch-qa}\"\nargs = [\"mcp-fixture\", \"--server\", \"fault-invalid-schema\"]";
    let (code, stderr) = run_broken(invalid);
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(
        stderr,
        "error: MCP server broken: tools/list answered an invalid input schema for tool \"broken_schema\": \
         \"strin\" is not valid under any of the schemas listed in the 'anyOf' keyword at /properties/marker/type\n"
    );
}

/// Without the install (an empty cache): the scenario's lanes are not applicable, each saying
/// what is missing and which script installs it; required (CI), the run ends with exit 3.
#[test]
fn without_the_install_the_lanes_say_why_and_ci_fails() {
    let cache = tempfile::tempdir().expect("temp dir");
    let run = |require: &str| {
        assert_cmd::Command::cargo_bin("toolsearch-qa")
            .expect("binary")
            .args([
                "suite",
                "--scenario",
                SCENARIO,
                "--no-snapshots",
                "--format",
                "json",
            ])
            .env("TOOLSEARCH_QA_CACHE", cache.path())
            .env(toolsearch_qa::mcp_servers::REQUIRE_ENV, require)
            .output()
            .expect("runs")
    };
    let out = run("0");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let not_applicable = &report["scenarios"][0]["notApplicable"];
    let lanes: Vec<&str> = not_applicable
        .as_array()
        .expect("lanes not applicable")
        .iter()
        .map(|n| n["lane"].as_str().unwrap())
        .collect();
    assert_eq!(lanes, ["direct", "tools", "code", "directory"]);
    let reason = not_applicable[0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("not installed here: MCP server everything: no Node 24 at "),
        "{reason}"
    );
    assert!(
        reason.ends_with("; run scripts/install-mcp-servers.sh"),
        "{reason}"
    );
    // Nothing judged: a selection whose every claim is not applicable is exit 2.
    assert_eq!(out.status.code(), Some(2));
    let required = run("1");
    let stderr = String::from_utf8_lossy(&required.stderr);
    assert_eq!(required.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.starts_with("error: MCP server everything: no Node 24 at ")
            && stderr.ends_with(
                "; run scripts/install-mcp-servers.sh (TOOLSEARCH_QA_REQUIRE_MCP_SERVERS=1)\n"
            ),
        "{stderr}"
    );
}

#[test]
fn a_real_server_config_mistake_is_a_load_error_naming_the_field() {
    let (code, stderr) = run_broken("name = \"typo\"\ncommand = \"{nod}\"");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(
            "broken-real-mcp.toml:12:11: catalog.mcp_servers[0].command: unknown placeholder {nod}; known: "
        ),
        "{stderr}"
    );
    let (code, stderr) =
        run_broken("name = \"loose\"\ncommand = \"{node}\"\nargs = [\"{npm:@modelcontextprotocol/server-memory@latest}\"]");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("catalog.mcp_servers[0].args[0]: {npm:@modelcontextprotocol/server-memory@latest} is not NAME@VERSION with an exact version"),
        "{stderr}"
    );
    let (code, stderr) = run_broken("name = \"Mixed Case\"\ncommand = \"x\"");
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains("catalog.mcp_servers[0].name: \"Mixed Case\" is not a server name"),
        "{stderr}"
    );
}

/// The lockfiles `scripts/install-mcp-servers.sh` installs from (`data/mcp-servers/`): one per
/// package the built-in scenarios name, each pinning exactly that package as its project's one
/// dependency, every package with its `integrity` and none with a `resolved` URL (npm fetches
/// from its configured registry and checks the hash).
#[test]
fn every_named_server_has_a_committed_lockfile_that_pins_its_whole_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/mcp-servers");
    let mut named: Vec<String> = load_all(&[])
        .expect("built-in scenarios")
        .iter()
        .flat_map(|s| s.catalog.mcp_servers.iter())
        .flat_map(|spec| spec.args.iter())
        .filter_map(|arg| {
            arg.strip_prefix("{npm:")?
                .strip_suffix('}')
                .map(String::from)
        })
        .collect();
    named.sort();
    named.dedup();
    assert!(
        !named.is_empty(),
        "the built-in scenarios name npm packages"
    );
    for spec in &named {
        let dir = root.join(spec.replace('/', "+"));
        let read = |file: &str| -> serde_json::Value {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{spec} has no committed {}: {e}", path.display()));
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        };
        let (name, version) = spec.rsplit_once('@').expect("NAME@VERSION");
        let want = serde_json::json!({ name: version });
        assert_eq!(
            read("package.json")["dependencies"],
            want,
            "{spec}: package.json"
        );
        let lock = read("package-lock.json");
        let packages = lock["packages"].as_object().expect("a v3 lockfile");
        assert_eq!(
            packages[""]["dependencies"], want,
            "{spec}: the lockfile's project"
        );
        assert_eq!(
            packages[&format!("node_modules/{name}")]["version"],
            version,
            "{spec}: the locked version"
        );
        for (key, entry) in packages.iter().filter(|(key, _)| !key.is_empty()) {
            assert!(
                entry.get("resolved").is_none(),
                "{spec}: {key} has a resolved URL; the lockfile names no registry"
            );
            assert!(
                entry["integrity"]
                    .as_str()
                    .is_some_and(|i| i.starts_with("sha512-")),
                "{spec}: {key} has no sha512 integrity"
            );
        }
    }
}
