//! A scenario author's path through the binary: `new-scenario` writes a file that passes as
//! written, `check` validates files without running them, every malformed file is exit 2 with
//! one line naming file, line, column and field, a default claim without its lane is "not
//! applicable" (never a failure), and the control tools count as docs/scenarios.md says.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn bin() -> Command {
    Command::cargo_bin("toolsearch-qa").unwrap()
}

/// Runs the binary; (exit code, stdout, stderr).
fn run(args: &[&str], dir: &Path) -> (i32, String, String) {
    let out = bin().args(args).current_dir(dir).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `suite` on scenario `name` from the working directory's files, without snapshots, plus `extra`.
fn suite_here<'a>(name: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "suite",
        "--scenario-dir",
        ".",
        "--scenario",
        name,
        "--no-snapshots",
    ];
    args.extend_from_slice(extra);
    args
}

/// The commands `new-scenario` printed (its `  toolsearch-qa …` lines), each split as a shell
/// would, without the program name.
fn printed_commands(stdout: &str) -> Vec<Vec<String>> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("  toolsearch-qa "))
        .map(|l| shlex::split(l).expect("a command a shell can split"))
        .collect()
}

/// `args` as `run` takes them.
fn strs(args: &[String]) -> Vec<&str> {
    args.iter().map(String::as_str).collect()
}

/// The claims of a scenario report as `CLAIM lane` (the failing ones only with `failing`).
fn claim_names(scenario: &Value, failing: bool) -> Vec<String> {
    scenario["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !failing || c["ok"] != true)
        .map(|c| {
            format!(
                "{} {}",
                c["claim"].as_str().unwrap(),
                c["lane"].as_str().unwrap()
            )
        })
        .collect()
}

/// The author's loop end to end, in a fresh directory, with only the commands the tool prints:
/// `new-scenario` → `check` → run → `--update-snapshots` (exit 1, pending) → `snapshots review`
/// and `accept` → the run passes against the accepted snapshots; no `cargo insta`, and nothing
/// written outside the scenario's own folder.
#[test]
fn a_new_scenario_goes_from_new_scenario_to_accepted_snapshots_with_the_printed_commands() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(
        &[
            "new-scenario",
            "my-check",
            "--dir",
            "my scenarios",
            "--size",
            "1000",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "wrote my scenarios/my-check.toml (scenario my-check: lanes direct, code, tools, \
             directory); next:",
            "  # check it (runs nothing)",
            "  toolsearch-qa check 'my scenarios/my-check.toml'",
            "  # run it",
            "  toolsearch-qa suite --scenario-dir 'my scenarios' --scenario my-check --no-snapshots",
            "  # write its snapshots for review (into my scenarios/snapshots/; exit 1 until accepted)",
            "  toolsearch-qa suite --scenario-dir 'my scenarios' --scenario my-check \
             --update-snapshots",
            "  # see them as diffs",
            "  toolsearch-qa snapshots review --snapshot-dir 'my scenarios/snapshots' --scenario \
             my-check",
            "  # accept them (then commit them with the file)",
            "  toolsearch-qa snapshots accept --snapshot-dir 'my scenarios/snapshots' --scenario \
             my-check",
            "  # from then on, any drift fails it (exit 1)",
            "  toolsearch-qa suite --scenario-dir 'my scenarios' --scenario my-check",
        ]
    );
    let commands = printed_commands(&stdout);
    let [check, no_snapshots, update, review, accept, gate] = commands.as_slice() else {
        panic!("six commands: {commands:?}");
    };
    let (code, stdout, _) = run(&strs(check), dir.path());
    assert_eq!(
        (code, stdout.as_str()),
        (
            0,
            "ok my scenarios/my-check.toml (scenario my-check: lanes direct, code, tools, \
             directory)\n"
        )
    );
    // Run as printed, plus JSON to read the verdicts: every default claim on the lanes it
    // applies to and T1 on each lane, all holding, none not applicable.
    let mut args = strs(no_snapshots);
    args.extend(["--format", "json"]);
    let (code, stdout, stderr) = run(&args, dir.path());
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let scenario = &report["scenarios"][0];
    assert_eq!(report["scenarios"].as_array().unwrap().len(), 1, "{stdout}");
    assert_eq!(scenario["targetTool"], "fake_plugin_tool_0500");
    // Every default claim on the lanes it applies to (C1, C3 on direct; C2, C4, C5 on three Tool
    // Search lanes; C6, D1, N1, L1, P1 on all four), and T1 on each lane: none not applicable.
    assert_eq!(claim_names(scenario, false).len(), 2 + 3 * 3 + 5 * 4 + 4);
    assert!(scenario["claims"]
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["ok"] == true && c.get("notApplicable").is_none()));
    // The gate before any snapshot exists: exit 1, one hint for the scenario whose commands are
    // the ones new-scenario printed.
    let (code, stdout, _) = run(&strs(gate), dir.path());
    assert_eq!(code, 1, "{stdout}");
    let hint: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("8 snapshots of my-check missing"))
        .take(5)
        .collect();
    assert_eq!(
        hint,
        [
            "8 snapshots of my-check missing in my scenarios/snapshots:",
            "  write them for review: toolsearch-qa suite --scenario-dir 'my scenarios' \
             --scenario my-check --update-snapshots",
            "  review them: toolsearch-qa snapshots review --snapshot-dir 'my scenarios/snapshots' \
             --scenario my-check",
            "  accept them: toolsearch-qa snapshots accept --snapshot-dir 'my scenarios/snapshots' \
             --scenario my-check   (or `snapshots reject`)",
            "  or run without comparing them: --no-snapshots",
        ],
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("write them for review").count(),
        1,
        "{stdout}"
    );
    // Write them: exit 1, pending, beside the scenario (nothing in the working directory's).
    let (code, stdout, _) = run(&strs(update), dir.path());
    assert_eq!(code, 1, "{stdout}");
    assert!(
        stdout.contains("8 snapshots of my-check pending review in my scenarios/snapshots"),
        "{stdout}"
    );
    let snapshots = dir.path().join("my scenarios/snapshots");
    let pending = std::fs::read_dir(&snapshots).unwrap().count();
    assert_eq!(pending, 8, "two per lane");
    assert!(!dir.path().join("snapshots").exists());
    let (code, stdout, _) = run(&strs(review), dir.path());
    assert_eq!(code, 0);
    assert_eq!(stdout.matches("--- new snapshot\n").count(), 8, "{stdout}");
    let (code, stdout, stderr) = run(&strs(accept), dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.ends_with("accepted 8 snapshots of my-check\n"),
        "{stdout}"
    );
    let (code, stdout, stderr) = run(&strs(gate), dir.path());
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(stdout.ends_with("35 passed, 0 failed\n"), "{stdout}");
    // It will not overwrite the file, nor take a built-in id.
    let (code, _, stderr) = run(
        &["new-scenario", "my-check", "--dir", "my scenarios"],
        dir.path(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: new-scenario: my scenarios/my-check.toml exists; not overwriting it\n"
    );
    let (code, _, _) = run(&["new-scenario", "tool-search-gateway-e2e"], dir.path());
    assert_eq!(code, 2);
}

/// C5 compares a Tool Search lane's first request with direct's: below 7 tools the controls'
/// own schemas outweigh the catalogue, so the template leaves C5 out there (and says why), and
/// from 7 on keeps the default claims. Either way it passes as generated.
#[test]
fn a_new_scenario_of_any_size_passes_as_generated() {
    let dir = tempfile::tempdir().unwrap();
    for (size, c5) in [(1, false), (3, false), (6, false), (7, true)] {
        let id = format!("s{size}");
        let (code, _, stderr) = run(
            &["new-scenario", &id, "--size", &size.to_string()],
            dir.path(),
        );
        assert_eq!(code, 0, "{stderr}");
        let (code, stdout, stderr) = run(&suite_here(&id, &["--format", "json"]), dir.path());
        assert_eq!(code, 0, "size {size}: {stderr}\n{stdout}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let scenario = &report["scenarios"][0];
        assert_eq!(
            claim_names(scenario, true),
            Vec::<String>::new(),
            "size {size}"
        );
        let c5_lanes = claim_names(scenario, false)
            .iter()
            .filter(|c| c.starts_with("C5 "))
            .count();
        assert_eq!(c5_lanes, if c5 { 3 } else { 0 }, "size {size}");
        let text = std::fs::read_to_string(dir.path().join(format!("{id}.toml"))).unwrap();
        assert_eq!(text.contains("C5 would fail"), !c5, "size {size}");
    }
}

/// `--scenario-dir` runs that directory's scenarios only (so `--no-snapshots` or a filter is
/// about them alone); `--with-builtins` mixes the built-in ones in; naming a built-in one
/// without it says how. `list` chooses the same way.
#[test]
fn a_scenario_dir_runs_its_own_scenarios_and_with_builtins_mixes_them_in() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&["new-scenario", "mine", "--dir", "own"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    let ids = |args: &[&str]| -> Vec<String> {
        let (code, stdout, stderr) = run(args, dir.path());
        assert_eq!(code, 0, "{args:?}: {stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["scenario"].as_str().unwrap().to_string())
            .collect()
    };
    let own = [
        "suite",
        "--scenario-dir",
        "own",
        "--no-snapshots",
        "--format",
        "json",
    ];
    assert_eq!(ids(&own), ["mine"]);
    let mut both = own.to_vec();
    both.extend(["--with-builtins", "--filter", "tool-search-gateway-e2e"]);
    assert_eq!(ids(&both), ["tool-search-gateway-e2e"]);
    let mut named = own.to_vec();
    named.extend(["--scenario", "tool-search-gateway-e2e"]);
    let (code, _, stderr) = run(&named, dir.path());
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: scenario \"tool-search-gateway-e2e\" is built in, and with --scenario-dir only \
         that directory's scenarios run: add --with-builtins to mix them in\n"
    );
    let (code, stdout, _) = run(&["list", "--scenario-dir", "own"], dir.path());
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.starts_with("mine\t"), "{stdout}");
    let (_, builtins, _) = run(&["list"], dir.path());
    let (code, stdout, _) = run(
        &["list", "--scenario-dir", "own", "--with-builtins"],
        dir.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(
        stdout.lines().count(),
        builtins.lines().count() + 1,
        "{stdout}"
    );
    let (code, _, stderr) = run(&["list", "--with-builtins"], dir.path());
    assert_eq!(code, 2, "{stderr}");
}

/// The start of a valid file; each malformed case below breaks one thing.
const HEAD: &str =
    "id = \"big\"\ntitle = \"t\"\nprompt = \"tool search qa check target=fake_plugin_tool_0900\"\n";

/// (file text, the one error line expected after `error: <file>`).
fn malformed() -> Vec<(String, &'static str)> {
    let catalog = "\n[catalog]\nplugin_id = \"p\"\nsize = 1000\n";
    // C6 has the counts it needs on both lanes (`check` says so otherwise).
    let lanes = "\n[[lanes]]\nname = \"direct\"\ntool_search = false\n\
                 expect = { searches = 0, describes = 0, calls = 0 }\n\n[[lanes]]\nname = \"tools\"\n\
                 tool_search = { mode = \"tools\" }\nexpect = { searches = 1, describes = 0, calls = 1 }\n";
    let target = "target_tool = \"fake_plugin_tool_0900\"\n";
    let ok = |extra: &str| format!("{HEAD}{target}{catalog}{lanes}{extra}");
    vec![
        (
            format!("{HEAD}target_tool = \"fake_plugin_tool_900\"\n{catalog}{lanes}"),
            ":4:15: target_tool: \"fake_plugin_tool_900\" is not an openclaw tool of this catalogue \
             (fake tools fake_plugin_tool_0001 … fake_plugin_tool_1000 and the core tools); did \
             you mean fake_plugin_tool_0900?",
        ),
        (
            format!("{HEAD}{target}{catalog}\n[[lanes]]\nname = \"tools\"\ntool_search = {{ mode = \"tools\" }}\n\n[[claims]]\nid = \"C5\"\n"),
            ":15:6: claims[0].id: claim C5 cannot be checked here: no direct lane \
             (tool_search = false) to compare with",
        ),
        (
            ok("config = { tools = { toolSerch = true } }\n"),
            ":19:22: lane \"tools\": config.tools.toolSerch: unknown field `toolSerch`, expected one of \
             `toolSearch`, `nativeSearch`, `codeMode`, `allow`, `deny`, `alsoAllow`, `approvals`; did you mean `toolSearch`?",
        ),
        (
            format!("{HEAD}target_tol = \"fake_plugin_tool_0900\"\n{catalog}{lanes}"),
            ":4:1: target_tol: unknown field `target_tol`, expected one of `id`, `title`, \
             `objective`, `agent`, `prompt`, `target_tool`, `target_source`, `max_output_tokens`, \
             `follow_up`, `follow_up_entry`, `catalog`, `policy`, `script`, `claims`, `pending`, `profile`, `openclaw`, `lanes`; \
             did you mean `target_tool`?",
        ),
        (
            format!("{HEAD}{target}\n[catalog]\nplugin_id = \"p\"\nsize = -5\n{lanes}"),
            ":8:8: catalog.size: invalid value: integer `-5`, expected a whole number from 1 to \
             100,000",
        ),
        (
            format!("{HEAD}{target}\n[catalog]\nplugin_id = \"p\"\nsize = 0\n{lanes}"),
            ":8:8: catalog.size: expected a whole number from 1 to 100,000, got 0",
        ),
        (
            ok("script = [{ tool = \"tool_serch\", arguments = { query = \"x\" } }]\n"),
            ":19:20: lane \"tools\": script[0].tool: \"tool_serch\" is neither a tool of this \
             catalogue nor a bridge tool (tool_search, tool_describe, tool_call, \
             tool_search_code), so no lane declares it; did you mean tool_search?",
        ),
        (
            ok("\n[policy]\ndeny = [\"fake_plugin_tool_900\"]\n"),
            ":21:9: policy.deny[0]: \"fake_plugin_tool_900\" matches no tool of this catalogue (by \
             name or id), so it denies nothing; did you mean fake_plugin_tool_0900?",
        ),
        (
            ok("config = { tools = { deny = [\"mcp_*\"] } }\n"),
            ":19:30: lane \"tools\": config.tools.deny[0]: \"mcp_*\" matches no tool of this \
             catalogue (by name or id), so it denies nothing",
        ),
        (
            format!("{HEAD}{target}\n[catalog]\nsize = 1000\n{lanes}"),
            ":6:1: catalog: missing field `plugin_id`",
        ),
        (
            format!("{HEAD}{target}{catalog}size2 = [\n{lanes}"),
            ":9:10: unclosed array, expected `]`",
        ),
        (
            ok("\n[[script]]\ntool = \"tool_search\"\ntext = \"both\"\n"),
            ":20:1: script[0]: expected either `tool` (with optional `arguments`) or `text`",
        ),
    ]
}

#[test]
fn every_malformed_file_is_exit_2_with_one_line_naming_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    for (i, (text, want)) in malformed().into_iter().enumerate() {
        let name = format!("case{i}.toml");
        std::fs::write(dir.path().join(&name), &text).unwrap();
        for command in [
            vec!["check", name.as_str()],
            vec!["list", "--scenario-dir", "."],
        ] {
            let (code, _, stderr) = run(&command, dir.path());
            assert_eq!(code, 2, "{command:?}: {text}");
            let wanted = match command[0] {
                "check" => format!("error: {name}{want}\n"),
                _ => format!("error: ./{name}{want}\n"),
            };
            assert_eq!(stderr, wanted, "{command:?}:\n{text}");
        }
        std::fs::remove_file(dir.path().join(&name)).unwrap();
    }
}

#[test]
fn check_reports_every_file_and_exits_2_when_one_does_not_load() {
    let dir = tempfile::tempdir().unwrap();
    let (good, bad) = (
        dir.path().join("a-good.toml"),
        dir.path().join("b-bad.toml"),
    );
    let cases = malformed();
    let (good_text, _) = &cases[0];
    let good_text = good_text.replace("fake_plugin_tool_900\"", "fake_plugin_tool_0900\"");
    std::fs::write(&good, &good_text).unwrap();
    std::fs::write(&bad, &cases[2].0).unwrap();
    let (code, stdout, stderr) = run(&["check", "."], dir.path());
    assert_eq!(code, 2);
    assert_eq!(
        stdout,
        "ok ./a-good.toml (scenario big: lanes direct, tools)\n"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("error: ./b-bad.toml:19:22: lane \"tools\""),
        "{stderr}"
    );
    // The same id twice, or a built-in id, is a clash.
    std::fs::write(&bad, &good_text).unwrap();
    let (code, _, stderr) = run(&["check", "."], dir.path());
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: scenario id \"big\" is defined twice: ./a-good.toml and ./b-bad.toml\n"
    );
    let reference = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios");
    let (code, stdout, stderr) = run(&["check", reference.to_str().unwrap()], dir.path());
    assert_eq!(code, 0, "{stderr}");
    let files = std::fs::read_dir(&reference)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "toml")
        })
        .count();
    assert_eq!(files, 30);
    assert_eq!(stdout.lines().count(), files);
}

#[test]
fn default_claims_without_their_lane_are_not_applicable_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{HEAD}target_tool = \"fake_plugin_tool_0900\"\n\n[catalog]\nplugin_id = \"p\"\nsize = 1000\n\
         core_tools = false\n\n[[lanes]]\nname = \"tools\"\ntool_search = {{ mode = \"tools\" }}\n\
         expect = {{ searches = 1, describes = 0, calls = 1 }}\n"
    );
    std::fs::write(dir.path().join("big.toml"), text).unwrap();
    let suite = suite_here("big", &["--junit", "junit.xml"]);
    let (code, stdout, stderr) = run(&suite, dir.path());
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    assert!(
        stdout.ends_with("8 passed, 0 failed, 3 not applicable\n"),
        "{stdout}"
    );
    let na: Vec<&str> = stdout.lines().filter(|l| l.contains("N/A")).collect();
    assert_eq!(na.len(), 3, "{stdout}");
    assert!(
        na[0].contains("C1") && na[0].contains("not applicable: no lane with Tool Search"),
        "{stdout}"
    );
    let junit = std::fs::read_to_string(dir.path().join("junit.xml")).unwrap();
    assert_eq!(
        junit.matches("type=\"not-applicable\"").count(),
        3,
        "{junit}"
    );
    let mut json_args = suite[..6].to_vec();
    json_args.extend(["--format", "json"]);
    let (_, stdout, _) = run(&json_args, dir.path());
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let na: Vec<(&str, &str, &str)> = report["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| {
            Some((
                c["claim"].as_str()?,
                c["lane"].as_str()?,
                c.get("notApplicable")?.as_str()?,
            ))
        })
        .collect();
    assert_eq!(
        na,
        [
            (
                "C1",
                "-",
                "no lane with Tool Search off (tool_search = false)"
            ),
            (
                "C3",
                "-",
                "no lane with Tool Search off (tool_search = false)"
            ),
            (
                "C5",
                "-",
                "no direct lane (tool_search = false) to compare with"
            ),
        ]
    );
    assert_eq!(report["ok"], true);
}

/// The scripted lanes of docs/scenarios.md ("Scripting the control tools"), with the counts the
/// page gives for each.
const SCRIPTED: &str = r#"id = "scripted"
title = "control tools as the docs script them"
prompt = "scripted"
target_tool = "fake_plugin_tool_17"

[catalog]
plugin_id = "p"
size = 36
core_tools = false

# Only the exact figures matter here (T1); P1 holds on any lane.
[[claims]]
id = "P1"

[[lanes]]
name = "code"
tool_search = true
expect = { searches = 1, describes = 0, calls = 1, provider_requests = 2, tool_errors = 0 }
[[lanes.script]]
tool = "tool_search_code"
arguments = { code = "const [hit] = await openclaw.tools.search('fake_plugin_tool_17', { limit: 1 }); return await openclaw.tools.call(hit.id, { marker: 'mine' });" }
[[lanes.script]]
text = "done"

[[lanes]]
name = "tools"
tool_search = { mode = "tools" }
expect = { searches = 2, describes = 1, calls = 1, provider_requests = 4, tool_errors = 0 }
[[lanes.script]]
tool = "tool_search"
arguments = { queries = [{ query = "fake plugin tool 17", limit = 2 }, { query = "fake_plugin_tool_03" }] }
[[lanes.script]]
tool = "tool_describe"
arguments = { id = "fake_plugin_tool_17" }
[[lanes.script]]
tool = "tool_call"
arguments = { id = "fake_plugin_tool_17", args = { marker = "mine" } }
[[lanes.script]]
text = "done"

[[lanes]]
name = "directory"
tool_search = { mode = "directory" }
expect = { searches = 0, describes = 0, calls = 0, provider_requests = 2, tool_errors = 0 }
[[lanes.script]]
tool = "fake_plugin_tool_17"
arguments = { marker = "mine" }
[[lanes.script]]
text = "done"

[[lanes]]
name = "tools-misses"
tool_search = { mode = "tools" }
expect = { searches = 0, describes = 1, calls = 0, provider_requests = 4, tool_errors = 2 }
[[lanes.script]]
tool = "tool_search"
arguments = { query = "  " }
[[lanes.script]]
tool = "tool_describe"
arguments = { id = "no_such_tool" }
[[lanes.script]]
tool = "tool_call"
arguments = { id = "no_such_tool" }
[[lanes.script]]
text = "done"

[[lanes]]
name = "direct"
tool_search = false
expect = { searches = 0, describes = 0, calls = 0, provider_requests = 2, tool_errors = 0 }
[[lanes.script]]
tool = "fake_plugin_tool_17"
arguments = { marker = "mine" }
[[lanes.script]]
text = "done"
"#;

#[test]
fn the_control_tools_count_as_the_docs_say() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("scripted.toml"), SCRIPTED).unwrap();
    let args = suite_here("scripted", &["--format", "json"]);
    let (code, stdout, stderr) = run(&args, dir.path());
    assert_eq!(code, 0, "{stderr}\n{stdout}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let t1: Vec<(&str, bool)> = report["scenarios"][0]["claims"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["claim"] == "T1")
        .map(|c| (c["lane"].as_str().unwrap(), c["ok"] == true))
        .collect();
    assert_eq!(
        t1,
        [
            ("code", true),
            ("tools", true),
            ("directory", true),
            ("tools-misses", true),
            ("direct", true)
        ]
    );
    // The docs' examples are these lanes, word for word.
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/scenarios.md"))
            .unwrap();
    for block in SCRIPTED.split("[[lanes]]").skip(1) {
        let script = &block[block.find("[[lanes.script]]").unwrap()..];
        if block.contains("tools-misses") {
            continue;
        }
        assert!(
            docs.contains(script.trim_end()),
            "docs/scenarios.md lacks:\n{script}"
        );
    }
}

#[test]
fn check_reports_every_problem_of_a_file_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{HEAD}target_tool = \"fake_plugin_tool_900\"\n\n[catalog]\nplugin_id = \"p\"\nsize = 1000\n\n\
         [policy]\ndeny = [\"fake_plugin_tool_2000\"]\n\n[[lanes]]\nname = \"tools\"\n\
         tool_search = {{ mode = \"tools\" }}\nscript = [{{ tool = \"tool_serch\" }}]\n\
         expect = {{ searches = 1, describes = 0, calls = 1 }}\n"
    );
    std::fs::write(dir.path().join("three.toml"), text).unwrap();
    let (code, stdout, stderr) = run(&["check", "three.toml"], dir.path());
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines,
        [
            "error: three.toml:4:15: target_tool: \"fake_plugin_tool_900\" is not an openclaw tool \
             of this catalogue (fake tools fake_plugin_tool_0001 … fake_plugin_tool_1000 and the \
             core tools); did you mean fake_plugin_tool_0900?",
            "error: three.toml:11:9: policy.deny[0]: \"fake_plugin_tool_2000\" matches no tool of \
             this catalogue (by name or id), so it denies nothing; did you mean \
             fake_plugin_tool_1000?",
            "error: three.toml:16:20: lane \"tools\": script[0].tool: \"tool_serch\" is neither a \
             tool of this catalogue nor a bridge tool (tool_search, tool_describe, tool_call, \
             tool_search_code), so no lane declares it; did you mean tool_search?",
        ]
    );
    // `suite` and `list` stop on the same three lines.
    let (code, _, stderr) = run(&["list", "--scenario-dir", "."], dir.path());
    assert_eq!(code, 2);
    assert_eq!(stderr.lines().count(), 3, "{stderr}");
}

/// TOML syntax errors too: one per mistake, in file order, each with its line and column; an
/// unclosed array is said once, at the end of its line, not again in every table after it.
#[test]
fn check_reports_every_syntax_error_of_a_file_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{HEAD}target_tool = \"fake_plugin_tool_0900\n\n[catalog]\nplugin_id = \"p\"\n\
         size = = 1000\ndirect_only = [\"fake_plugin_tool_0001\"\n\n[[lanes]]\nname = \"tools\"\n\
         tool_search = {{ mode = \"tools\" }}\nstream = tru\n\n[[lanes]]\nname = 'direct\n\
         tool_search = false\n"
    );
    std::fs::write(dir.path().join("typos.toml"), text).unwrap();
    let (code, stdout, stderr) = run(&["check", "typos.toml"], dir.path());
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: typos.toml:4:37: invalid basic string, expected `\"`",
            "error: typos.toml:8:8: extra `=`, expected nothing",
            "error: typos.toml:9:39: unclosed array, expected `]`",
            "error: typos.toml:14:10: invalid boolean, expected `true`",
            "error: typos.toml:17:15: invalid literal string, expected `'`",
        ]
    );
}

/// Type errors too (values of the wrong type, unknown fields), in every table, in one run; a
/// misspelled required field is one mistake, said once (not again as a missing field).
#[test]
fn check_reports_every_type_error_of_a_file_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "{HEAD}target_tol = \"fake_plugin_tool_0900\"\n\n[catalog]\nplugin_id = \"p\"\n\
         size = \"1000\"\n\n[[lanes]]\nname = \"tools\"\ntool_search = {{ mode = \"tools\" }}\n\
         stream = \"yes\"\nexpect = {{ searches = 1, calls = \"one\" }}\n"
    );
    std::fs::write(dir.path().join("types.toml"), text).unwrap();
    let (code, stdout, stderr) = run(&["check", "types.toml"], dir.path());
    assert_eq!((code, stdout.as_str()), (2, ""));
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 4, "{stderr}");
    assert!(lines[0].starts_with("error: types.toml:4:1: target_tol: unknown field `target_tol`"));
    assert!(
        lines[0].ends_with("did you mean `target_tool`?"),
        "{stderr}"
    );
    assert_eq!(
        &lines[1..],
        [
            "error: types.toml:8:8: catalog.size: invalid type: string \"1000\", expected a whole \
             number from 1 to 100,000",
            "error: types.toml:13:10: lane \"tools\": stream: invalid type: string \"yes\", \
             expected a boolean",
            "error: types.toml:14:34: lane \"tools\": expect.calls: invalid type: string \"one\", \
             expected a whole number, 0 or more",
        ]
    );
}

/// Issue #41's two files: six mistakes and eight, of every kind (a misspelled required field,
/// values of the wrong type, a deny pattern and a script tool that name nothing, a mode that does
/// not exist, a duplicate lane, an unknown claim, a claim without its lane, a limit the gateway
/// would ignore), each said once, in file order, in the first run — a type error no longer hides
/// the checks that need nothing it left unknown.
#[test]
fn check_reports_every_mistake_of_the_issue_s_two_files_in_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let six = "id = \"six\"\ntitle = \"Six mistakes\"\nprompt = \"call fake_plugin_tool_07\"\n\
               target_tol = \"fake_plugin_tool_07\"\n\n[catalog]\nplugin_id = \"p\"\n\
               size = \"twelve\"\n\n[policy]\ndeny = [\"fake_plugin_tol_07\"]\n\n[[lanes]]\n\
               name = \"direct\"\ntool_search = false\nexpect = { declared_tools = \"12\" }\n\n\
               [[lanes]]\nname = \"tools\"\ntool_search = { mode = \"tool\" }\n\
               script = [{ tool = \"tool_serch\" }]\n";
    let eight = "id = \"eight\"\ntitle = \"Eight mistakes\"\nprompt = \"call fake_plugin_tool_07\"\n\
                 target_tool = \"fake_plugin_tool_07\"\nclaims = [{ id = \"Z9\" }, { id = \"C5\" }]\n\n\
                 [catalog]\nplugin_id = \"p\"\nsize = 12\nsise = 13\n\n[[lanes]]\nname = \"tools\"\n\
                 tool_search = { mode = \"tools\", codeTimeoutMs = -5 }\nstream = \"yes\"\n\n\
                 [[lanes]]\nname = \"tools\"\ntool_search = { mode = \"code\" }\n\
                 expect = { searches = \"one\" }\n\n[[lanes]]\nname = \"dir\"\n\
                 tool_search = { mode = \"directory\" }\nscript = [{ tool = \"fake_plugin_tool_77\" }]\n";
    std::fs::write(dir.path().join("six.toml"), six).unwrap();
    std::fs::write(dir.path().join("eight.toml"), eight).unwrap();
    let (code, stdout, stderr) = run(&["check", "six.toml"], dir.path());
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: six.toml:4:1: target_tol: unknown field `target_tol`, expected one of `id`, \
             `title`, `objective`, `agent`, `prompt`, `target_tool`, `target_source`, \
             `max_output_tokens`, `follow_up`, `follow_up_entry`, `catalog`, `policy`, `script`, `claims`, `pending`, \
             `profile`, `openclaw`, `lanes`; did you mean `target_tool`?",
            "error: six.toml:8:8: catalog.size: invalid type: string \"twelve\", expected a whole \
             number from 1 to 100,000",
            "error: six.toml:11:9: policy.deny[0]: \"fake_plugin_tol_07\" matches no tool of this \
             catalogue (by name or id), so it denies nothing",
            "error: six.toml:16:29: lane \"direct\": expect.declared_tools: invalid type: string \
             \"12\", expected a whole number, 0 or more",
            "error: six.toml:20:24: lane \"tools\": tool_search.mode: expected \"code\", \"tools\" \
             or \"directory\", got \"tool\"",
            "error: six.toml:21:20: lane \"tools\": script[0].tool: \"tool_serch\" is neither a tool \
             of this catalogue nor a bridge tool (tool_search, tool_describe, tool_call, \
             tool_search_code), so no lane declares it; did you mean tool_search?",
        ]
    );
    let (code, stdout, stderr) = run(&["check", "eight.toml"], dir.path());
    assert_eq!((code, stdout.as_str()), (2, ""));
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "error: eight.toml:5:18: claims[0].id: unknown claim \"Z9\"; expected one of C1, C2, C3, \
             C4, C5, C6, D1, N1, B1, I1, E1, F1, F2, F3, F4, F5, F6, H1, L1, P1, R1, V1, V2, V3, A1, \
             G1, K1, K2, S1, M1, X1, X2, X3, X4",
            "error: eight.toml:5:33: claims[1].id: claim C5 cannot be checked here: no direct lane \
             (tool_search = false) to compare with",
            "error: eight.toml:10:1: catalog.sise: unknown field `sise`, expected one of \
             `plugin_id`, `size`, `core_tools`, `description_template`, `direct_only`, `broken`, \
             `mcp`, `mcp_servers`, `client`; did you mean `size`?",
            "error: eight.toml:14:49: lane \"tools\": tool_search.codeTimeoutMs: expected a \
             positive whole number, got -5: the gateway would ignore it and use its default",
            "error: eight.toml:15:10: lane \"tools\": stream: invalid type: string \"yes\", \
             expected a boolean",
            "error: eight.toml:18:8: lane \"tools\": name: \"tools\" is used by an earlier lane",
            "error: eight.toml:20:23: lane \"tools\": expect.searches: invalid type: string \
             \"one\", expected a whole number, 0 or more",
            "error: eight.toml:25:20: lane \"dir\": script[0].tool: \"fake_plugin_tool_77\" is \
             neither a tool of this catalogue nor a bridge tool (tool_search, tool_describe, \
             tool_call, tool_search_code), so no lane declares it; did you mean \
             fake_plugin_tool_07?",
        ]
    );
    // With the size read, a deny pattern a fake tool of some size could match is judged too.
    let fixed = six
        .replace("size = \"twelve\"", "size = 12")
        .replace("fake_plugin_tol_07", "fake_plugin_tool_99");
    std::fs::write(dir.path().join("six.toml"), fixed).unwrap();
    let (_, _, stderr) = run(&["check", "six.toml"], dir.path());
    assert!(
        stderr.contains(
            "six.toml:11:9: policy.deny[0]: \"fake_plugin_tool_99\" matches no tool of this \
             catalogue (by name or id), so it denies nothing; did you mean fake_plugin_tool_09?"
        ),
        "{stderr}"
    );
}

#[test]
fn new_scenario_takes_the_loader_s_ids_and_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = run(&["new-scenario", "My.Check_1", "--size", "1"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(&["check", "My.Check_1.toml"], dir.path());
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "ok My.Check_1.toml (scenario My.Check_1: lanes direct, code, tools, directory)\n"
    );
    for (args, want) in [
        (
            ["new-scenario", "a__b", "--size", "3"],
            "error: new-scenario: scenario id \"a__b\" cannot name files: start with a letter or \
             digit, use only A-Z, a-z, 0-9, '.', '-' and '_' (never \"__\"), at most 100 \
             characters\n",
        ),
        (
            ["new-scenario", "ok", "--size", "0"],
            "error: new-scenario: --size: expected a whole number from 1 to 100,000, got 0\n",
        ),
        (
            ["new-scenario", "ok", "--size", "100001"],
            "error: new-scenario: --size: expected a whole number from 1 to 100,000, got 100001 \
             (every tool is held in memory several times)\n",
        ),
    ] {
        let (code, _, stderr) = run(&args, dir.path());
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stderr, want);
    }
}

/// An insta snapshot file with `body`.
fn snap_file(body: &str) -> String {
    format!("---\nsource: tests/it/snapshots.rs\nexpression: content\n---\n{body}\n")
}

#[test]
fn snapshots_review_accept_and_reject_without_insta() {
    let dir = tempfile::tempdir().unwrap();
    let snaps = dir.path().join("snaps");
    std::fs::create_dir_all(snaps.join("openclaw-2026.9.6")).unwrap();
    let write = |name: &str, body: &str| std::fs::write(snaps.join(name), snap_file(body)).unwrap();
    write("s__direct__provider.snap", "a\nb");
    write("s__direct__provider.snap.new", "a\nc");
    write("openclaw-2026.9.6/s__tools__session.snap.new", "new");
    write("t__direct__provider.snap.new", "t");
    let (code, stdout, stderr) = run(
        &[
            "snapshots",
            "review",
            "--snapshot-dir",
            "snaps",
            "--scenario",
            "s",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stdout,
        "--- new snapshot\n+++ snaps/openclaw-2026.9.6/s__tools__session.snap.new (pending)\n\
         @@ -0,0 +1 @@\n+new\n\
         --- snaps/s__direct__provider.snap (committed)\n+++ snaps/s__direct__provider.snap.new \
         (pending)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n\
         2 pending snapshots of s in snaps: toolsearch-qa snapshots accept --snapshot-dir snaps \
         --scenario s (or reject)\n"
    );
    let (code, stdout, _) = run(
        &[
            "snapshots",
            "accept",
            "--snapshot-dir",
            "snaps",
            "--scenario",
            "s",
        ],
        dir.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "accepted snaps/openclaw-2026.9.6/s__tools__session.snap\n\
         accepted snaps/s__direct__provider.snap\naccepted 2 snapshots of s\n"
    );
    let read = |name: &str| std::fs::read_to_string(snaps.join(name)).unwrap();
    assert_eq!(read("s__direct__provider.snap"), snap_file("a\nc"));
    assert_eq!(
        read("openclaw-2026.9.6/s__tools__session.snap"),
        snap_file("new")
    );
    assert!(!snaps.join("s__direct__provider.snap.new").exists());
    // The other scenario's pending file was left alone; reject deletes it.
    let (code, stdout, _) = run(
        &["snapshots", "reject", "--snapshot-dir", "snaps"],
        dir.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "rejected snaps/t__direct__provider.snap.new\nrejected 1 snapshot\n"
    );
    assert!(!snaps.join("t__direct__provider.snap.new").exists());
    let (code, stdout, _) = run(
        &["snapshots", "review", "--snapshot-dir", "snaps"],
        dir.path(),
    );
    assert_eq!(
        (code, stdout.as_str()),
        (0, "no pending snapshots in snaps\n")
    );
    // A wrong place or scenario is said, never settled silently.
    let (code, _, stderr) = run(
        &[
            "snapshots",
            "accept",
            "--snapshot-dir",
            "snaps",
            "--scenario",
            "u",
        ],
        dir.path(),
    );
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "error: no snapshot of scenario u in snaps (neither pending nor committed)\n"
    );
    let (code, _, _) = run(
        &["snapshots", "review", "--snapshot-dir", "nowhere"],
        dir.path(),
    );
    assert_eq!(code, 2);
}
