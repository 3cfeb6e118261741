//! Loading scenario files: TOML (or JSON for scenarios built in code) into the typed
//! [`Scenario`]. Everything that can be known before a gateway starts is checked here — the
//! fields and their types, the lanes' Tool Search values and gateway-config overrides, the tool
//! names against the catalogue, the claims against the lanes — and every error is one line:
//! `file:line:col: field: message` (the line's text with a caret follows on a terminal).
//!
//! By job: [`read`] the file as written, [`diagnose`] what does not read (with the file, line
//! and field), [`resolve`] the raw file into the typed scenario, [`check`] the values and the
//! names against each other.

mod check;
mod diagnose;
mod read;
mod resolve;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::place::{Field, Place, Places};
use super::wording::plain;
use super::{Scenario, REFERENCE_SCENARIO};
pub use check::{id_problem, MAX_ID_BYTES, MAX_LANE_NAME_BYTES};
use diagnose::{one_line, syntax_errors, type_errors, TypeErrors};
pub use diagnose::{Invalid, ScenarioError};
pub use read::toml_files;
use read::{load_file_dir, BUILT_IN};
pub(super) use read::{ClaimFile, LaneFile, ScenarioFile};
use resolve::resolve;

/// One problem a check found: the field, and what is wrong with it.
struct Problem {
    field: Field,
    message: String,
}

fn problem(field: Field, message: impl Into<String>) -> Problem {
    Problem {
        field,
        message: message.into(),
    }
}

type Checked<T> = Result<T, Problem>;

/// The ok value of a check, or `None` with its problem kept.
fn keep<T>(problems: &mut Vec<Problem>, checked: Checked<T>) -> Option<T> {
    checked.map_err(|p| problems.push(p)).ok()
}

/// Parses one scenario text; `origin` names it in errors.
pub fn parse_scenario(text: &str, origin: &str) -> Result<Scenario, ScenarioError> {
    parse(text, origin, Strictness::Load)
}

/// How much a parse asks of a file: what every run needs, or also what `check` says before a
/// run would fail on it whatever the gateway does ([`check::unjudgeable`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strictness {
    Load,
    Check,
}

/// Parses one scenario text, reporting every problem it can find in one round: the syntax
/// errors (then nothing else: the rest is unreadable), else the type errors together with every
/// check that needs no field a type error left unknown.
fn parse(text: &str, origin: &str, strictness: Strictness) -> Result<Scenario, ScenarioError> {
    let places = Places::new(text);
    let invalid = |place: Option<Place>, field: String, message: String| Invalid {
        origin: origin.to_string(),
        place,
        field,
        message,
        excerpt: place.and_then(|p| places.excerpt(p)),
    };
    let toml_problem = |offset: Option<usize>, message: &str| {
        let field = offset.map(|o| places.field_at(o)).unwrap_or_default();
        invalid(
            offset.map(|o| places.place(o)),
            places.describe(&field),
            plain(&one_line(message), &field),
        )
    };
    let ours = |p: Problem| {
        // An unknown key is wrong itself: the caret goes under it, else under the value.
        let place = match p.message.contains("unknown field `") {
            true => places.key_of(&p.field),
            false => places.of(&p.field),
        };
        let message = plain(&p.message, &p.field);
        invalid(place, places.describe(&p.field), message)
    };
    let syntax = syntax_errors(text);
    if !syntax.is_empty() {
        let found = syntax.iter().map(|(o, m)| toml_problem(*o, m)).collect();
        return Err(ScenarioError::Invalid(found));
    }
    let (file, types, tainted) = match toml::from_str::<ScenarioFile>(text) {
        Ok(file) => (file, Vec::new(), Vec::new()),
        Err(e) => {
            let TypeErrors { mut found, mended } = type_errors(text, &e);
            found.sort_by_key(|(offset, _)| *offset);
            let types: Vec<Invalid> = found.iter().map(|(o, m)| toml_problem(*o, m)).collect();
            let read = mended.and_then(|(text, tainted)| {
                let file = toml::from_str::<ScenarioFile>(&text).ok()?;
                Some((file, tainted))
            });
            match read {
                Some((file, tainted)) => (file, types, tainted),
                None => return Err(ScenarioError::Invalid(types)),
            }
        }
    };
    let resolved = resolve(file, origin, &tainted, strictness);
    let mut found = types;
    let scenario = match resolved {
        Ok(scenario) if found.is_empty() => return Ok(scenario),
        Ok(_) => None,
        Err(problems) => Some(problems),
    };
    found.extend(scenario.into_iter().flatten().map(ours));
    // File order; a problem without a place (nothing written to point at) first.
    found.sort_by_key(|i| i.place.map(|p| (p.line, p.column)));
    Err(ScenarioError::Invalid(found))
}

/// A scenario given as JSON (same fields as the TOML file), for scenarios built in code.
pub fn scenario_from_json(value: Value, origin: &str) -> Result<Scenario, ScenarioError> {
    let invalid = |field: String, message: String| Invalid {
        origin: origin.to_string(),
        place: None,
        field,
        message,
        excerpt: None,
    };
    let file: ScenarioFile = serde_json::from_value(value)
        .map_err(|e| ScenarioError::Invalid(vec![invalid(String::new(), e.to_string())]))?;
    resolve(file, origin, &[], Strictness::Load).map_err(|problems| {
        let found = problems.into_iter();
        ScenarioError::Invalid(
            found
                .map(|p| invalid(p.field.to_string(), p.message))
                .collect(),
        )
    })
}

/// Loads one scenario file (what `check` validates).
pub fn load_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut scenario = parse_scenario(&text, &path.display().to_string())?;
    scenario.dir = load_file_dir(path);
    Ok(scenario)
}

/// Loads one scenario file as `check` does: [`load_file`], and also what the file makes fail
/// at run time whatever the gateway does ([`check::unjudgeable`]), as errors of the file, in the same
/// round as every other problem.
pub fn check_file(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = std::fs::read_to_string(path).map_err(|source| ScenarioError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut scenario = parse(&text, &path.display().to_string(), Strictness::Check)?;
    scenario.dir = load_file_dir(path);
    Ok(scenario)
}

/// Loads the built-in scenarios (the reference first, then by file name) plus every `*.toml`
/// in `extra_dirs` (sorted by file name).
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Scenario>, ScenarioError> {
    let mut scenarios = Vec::new();
    for (origin, text) in BUILT_IN {
        scenarios.push(parse_scenario(text, origin)?);
    }
    // A stable sort: the reference moves to the front, the others keep file-name order.
    scenarios.sort_by_key(|s| s.id != REFERENCE_SCENARIO);
    for dir in extra_dirs {
        for path in toml_files(dir)? {
            scenarios.push(load_file(&path)?);
        }
    }
    for (i, s) in scenarios.iter().enumerate() {
        if let Some(first) = scenarios[..i].iter().find(|o| o.id == s.id) {
            return Err(ScenarioError::Duplicate {
                id: s.id.clone(),
                first: first.origin.clone(),
                second: s.origin.clone(),
            });
        }
    }
    Ok(scenarios)
}

/// Picks scenarios by id (all when `ids` is empty), in the order given.
pub fn select(all: Vec<Scenario>, ids: &[String]) -> Result<Vec<Scenario>, ScenarioError> {
    if ids.is_empty() {
        return Ok(all);
    }
    ids.iter()
        .map(|id| {
            all.iter()
                .find(|s| &s.id == id)
                .cloned()
                .ok_or_else(|| ScenarioError::Unknown {
                    id: id.clone(),
                    known: all.iter().map(|s| s.id.clone()).collect(),
                })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ToolSearchMode;

    #[test]
    fn built_in_scenarios_load() {
        let all = load_all(&[]).unwrap();
        let reference = all
            .iter()
            .find(|s| s.id == "tool-search-gateway-e2e")
            .unwrap();
        assert_eq!(reference.catalog.size, 36);
        assert_eq!(
            reference
                .lanes
                .iter()
                .map(|l| l.name.as_str())
                .collect::<Vec<_>>(),
            [
                "direct",
                "tools",
                "code",
                "directory",
                "batch",
                "native-openai",
                "native-openai-client",
                "native-anthropic",
                "native-anthropic-regex"
            ]
        );
        assert!(reference.lanes[0].is_direct());
        assert!(!reference.lanes[1].is_direct());
        assert_eq!(reference.lanes[2].mode(), ToolSearchMode::Code);
    }

    /// A valid file to break one thing of: `{lanes}` is replaced by the lanes.
    const FILE: &str = "id = 'x'\ntitle = 't'\nprompt = 'p'\ntarget_tool = 'fake_plugin_tool_02'\n\
                        \n[catalog]\nplugin_id = 'p'\nsize = 3\n{extra}\n\
                        [[lanes]]\nname = 'direct'\ntool_search = false\n\n\
                        [[lanes]]\nname = 'tools'\ntool_search = { mode = 'tools' }\n{lane}";

    fn error(extra: &str, lane: &str) -> String {
        let text = FILE.replace("{extra}", extra).replace("{lane}", lane);
        parse_scenario(&text, "s.toml").unwrap_err().to_string()
    }

    #[test]
    fn i1_args_need_a_named_tool_and_follow_up_entry_needs_a_follow_up() {
        let args = "\n[[claims]]\nid = 'I1'\nargs = { path = 'AGENTS.md' }\n";
        assert_eq!(
            error(args, ""),
            "s.toml:12:8: claims[0].args: I1 runs args only on a named tool: give the claim a tool"
        );
        let k1 = "\n[[claims]]\nid = 'K1'\ntool = 'fake_plugin_tool_02'\nargs = { a = 1 }\n";
        assert_eq!(
            error(k1, ""),
            "s.toml:13:8: claims[0].args: claim K1 does not read args (only I1 does, with a tool)"
        );
        let text = FILE
            .replace(
                "prompt = 'p'",
                "prompt = 'p'\nfollow_up_entry = 'chat-completions'",
            )
            .replace("{extra}", "")
            .replace("{lane}", "");
        let err = parse_scenario(&text, "s.toml").unwrap_err().to_string();
        assert_eq!(
            err,
            "s.toml:4:19: follow_up_entry: the entry point of the follow-up turn needs a follow_up"
        );
        let text = text.replace("prompt = 'p'", "prompt = 'p'\nfollow_up = 'again'");
        let loaded = parse_scenario(&text, "s.toml").unwrap();
        assert_eq!(
            loaded.follow_up_entry,
            crate::scenario::Entry::ChatCompletions
        );
        let named =
            "\n[[claims]]\nid = 'I1'\ntool = 'fake_plugin_tool_02'\nargs = { marker = 'm' }\n";
        let text = FILE.replace("{extra}", named).replace("{lane}", "");
        let loaded = parse_scenario(&text, "s.toml").unwrap();
        assert_eq!(
            loaded.claims[0].args,
            Some(serde_json::json!({ "marker": "m" }))
        );
    }

    #[test]
    fn the_test_file_loads() {
        let text = FILE.replace("{extra}", "").replace("{lane}", "");
        assert_eq!(parse_scenario(&text, "s.toml").unwrap().lanes.len(), 2);
    }

    #[test]
    fn toml_errors_are_one_line_with_file_line_column_and_field() {
        assert_eq!(
            error("bogus = 1", ""),
            "s.toml:9:1: catalog.bogus: unknown field `bogus`, expected one of `plugin_id`, \
             `size`, `core_tools`, `description_template`, `direct_only`, `broken`, `mcp`, \
             `mcp_servers`, `client`"
        );
        // An unclosed array is said where it opens, once (not again in every table after it).
        assert_eq!(
            error("size2 = [", ""),
            "s.toml:9:10: unclosed array, expected `]`"
        );
        let err = parse_scenario("id = 'x'\ntitle = 't'\nprompt = 3\n", "s.toml")
            .unwrap_err()
            .to_string();
        // The wrong type, and (read past it) what else the file lacks.
        assert_eq!(
            err,
            "s.toml:1:1: id: missing field `target_tool`\nerror: s.toml:3:10: prompt: invalid \
             type: integer `3`, expected a string"
        );
    }

    #[test]
    fn every_syntax_error_of_a_file_is_reported_in_one_run() {
        let text = FILE
            .replace("title = 't'", "title = 't")
            .replace("size = 3", "size = = 3")
            .replace("{extra}", "direct_only = [1,, 2]")
            .replace("{lane}", "stream = tru\n");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.report(false),
            "error: s.toml:2:11: invalid literal string, expected `'`\n\
             error: s.toml:8:8: extra `=`, expected nothing\n\
             error: s.toml:9:18: extra comma in array, expected value\n\
             error: s.toml:17:10: invalid boolean, expected `true`\n"
        );
    }

    #[test]
    fn every_type_error_of_a_file_is_reported_in_one_run() {
        let text = FILE
            .replace("title = 't'", "title = 3")
            .replace("size = 3", "size = '3'\nsizes = 4")
            .replace("{extra}", "")
            .replace("{lane}", "stream = 'yes'\nexpect = { searches = -1 }\n");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.report(false),
            "error: s.toml:2:9: title: invalid type: integer `3`, expected a string\n\
             error: s.toml:8:8: catalog.size: invalid type: string \"3\", expected a whole \
             number from 1 to 100,000\n\
             error: s.toml:9:1: catalog.sizes: unknown field `sizes`, expected one of \
             `plugin_id`, `size`, `core_tools`, `description_template`, `direct_only`, `broken`, \
             `mcp`, `mcp_servers`, `client`; did you mean `size`?\n\
             error: s.toml:18:10: lane \"tools\": stream: invalid type: string \"yes\", \
             expected a boolean\n\
             error: s.toml:19:23: lane \"tools\": expect.searches: invalid value: integer `-1`, \
             expected a whole number, 0 or more\n"
        );
        // Offsets stay right past a multi-byte character in a mended pair.
        let text = FILE
            .replace("title = 't'", "title = ['é']\nagent = 4")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:2:9: title: invalid type: sequence, expected a string\nerror: s.toml:3:9: \
             agent: invalid type: integer `4`, expected a string"
        );
        // A required field written wrong, then nothing else: that one line, no made-up
        // `missing field` after it.
        let text = FILE
            .replace("prompt = 'p'", "prompt = ['p']")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:3:10: prompt: invalid type: sequence, expected a string"
        );
    }

    #[test]
    fn a_missing_required_field_names_it_at_its_table() {
        let text = FILE
            .replace("plugin_id = 'p'\n", "")
            .replace("{extra}", "")
            .replace("{lane}", "");
        let err = parse_scenario(&text, "s.toml").unwrap_err().to_string();
        assert!(err.starts_with("s.toml:6:"), "{err}");
        assert!(err.ends_with("missing field `plugin_id`"), "{err}");
    }

    #[test]
    fn a_target_outside_the_catalogue_is_a_load_error_with_suggestions() {
        let text = FILE
            .replace("'fake_plugin_tool_02'", "'fake_plugin_tool_2'")
            .replace("{extra}", "")
            .replace("{lane}", "");
        let err = parse_scenario(&text, "s.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.toml:4:15: target_tool: \"fake_plugin_tool_2\" is not an openclaw tool of this \
             catalogue (fake tools fake_plugin_tool_01 … fake_plugin_tool_03 and the core tools); \
             did you mean fake_plugin_tool_02?"
        );
        assert_eq!(
            err.excerpt(),
            Some("  |\n4 | target_tool = 'fake_plugin_tool_2'\n  |               ^")
        );
    }

    #[test]
    fn a_native_lane_is_checked_and_not_applicable_on_the_product() {
        let native = |table: &str| {
            FILE.replace("{extra}", "").replace(
                "{lane}",
                &format!("\n[[lanes]]\nname = 'native'\n{table}\n"),
            )
        };
        let scenario =
            parse_scenario(&native("native = { provider = 'anthropic' }"), "s.toml").unwrap();
        let lane = &scenario.lanes[2];
        assert_eq!(
            lane.native,
            Some(crate::config::NativeSettings::flat(
                crate::config::NativeProvider::Anthropic,
                crate::config::NativeSearch::Bm25
            ))
        );
        assert_eq!(lane.mode(), ToolSearchMode::Directory);
        assert!(lane.openclaw.not_applicable.is_some());
        let error = |table: &str| {
            parse_scenario(&native(table), "s.toml")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error("native = { provider = 'openai', search = 'regex' }"),
            "s.toml:20:42: lane \"native\": native.search: \"regex\" is not a search openai \
             offers; expected \"server\" or \"client\""
        );
        assert_eq!(
            error("native = { provider = 'anthropic', namespaces = true }"),
            "s.toml:20:49: lane \"native\": native.namespaces: namespaces are OpenAI's (a \
             `namespace` tool); anthropic has none"
        );
        assert_eq!(
            error("native = { provider = 'openai' }\ntool_search = false"),
            "s.toml:21:15: lane \"native\": tool_search: a native lane has no tool_search: the \
             provider searches (remove one of the two)"
        );
        assert_eq!(
            error("stream = true"),
            "s.toml:18:1: lane \"native\": tool_search: missing field `tool_search`: false, true \
             or { mode = \"…\" } (or `native` for a native lane, or `code_mode` for a Code \
             Mode lane)"
        );
        assert_eq!(
            error("native = { provider = 'openai' }\nopenclaw = { not_applicable = 'x' }"),
            "s.toml:21:12: lane \"native\": openclaw: a native lane never runs on the product; it \
             has no openclaw table"
        );
    }

    #[test]
    fn bad_lane_values_name_the_lane_and_its_key() {
        assert_eq!(
            error("", "config = { tools = { toolSerch = true } }\n"),
            "s.toml:17:22: lane \"tools\": config.tools.toolSerch: unknown field `toolSerch`, \
             expected one of `toolSearch`, `nativeSearch`, `codeMode`, `allow`, `deny`, `alsoAllow`, `approvals`; did you mean \
             `toolSearch`?"
        );
        assert_eq!(
            error(
                "",
                "config = { tools = { approvals = [{ tool = 'x', action = 'maybe' }] } }\n"
            ),
            "s.toml:17:58: lane \"tools\": config.tools.approvals[0].action: unknown variant \
             `maybe`, expected `allow` or `deny`"
        );
        let err = error("", "tool_search = { mode = 'magic' }\n");
        assert!(err.contains("duplicate key"), "{err}");
        let text = FILE
            .replace("{ mode = 'tools' }", "{ mode = 'magic' }")
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert_eq!(
            parse_scenario(&text, "s.toml").unwrap_err().to_string(),
            "s.toml:16:24: lane \"tools\": tool_search.mode: expected \"code\", \"tools\" or \
             \"directory\", got \"magic\""
        );
    }

    /// A limit the gateway would ignore (spec §2: not a positive whole number) is a load error,
    /// not a silent default (issue #41: `codeTimeoutMs = -5` passed `check` and ran).
    #[test]
    fn a_limit_the_gateway_would_ignore_is_an_error() {
        for (written, got) in [("-5", "-5"), ("0", "0"), ("1.5", "1.5"), ("'9'", "\"9\"")] {
            let text = FILE
                .replace(
                    "{ mode = 'tools' }",
                    &format!("{{ mode = 'code', codeTimeoutMs = {written} }}"),
                )
                .replace("{extra}", "")
                .replace("{lane}", "");
            let err = parse_scenario(&text, "s.toml").unwrap_err().to_string();
            assert!(
                err.ends_with(&format!(
                    "lane \"tools\": tool_search.codeTimeoutMs: expected a positive whole number, \
                     got {got}: the gateway would ignore it and use its default"
                )),
                "{err}"
            );
        }
        let text = FILE
            .replace(
                "{ mode = 'tools' }",
                "{ mode = 'code', codeTimeoutMs = 5000 }",
            )
            .replace("{extra}", "")
            .replace("{lane}", "");
        assert!(parse_scenario(&text, "s.toml").is_ok());
    }

    #[test]
    fn a_twin_is_an_earlier_lane() {
        let text = FILE
            .replace("{extra}", "")
            .replace("{lane}", "twin = 'direct'\n");
        let scenario = parse_scenario(&text, "s.toml").unwrap();
        assert_eq!(scenario.lanes[1].twin.as_deref(), Some("direct"));
        assert_eq!(
            error("", "twin = 'tools'\n"),
            "s.toml:17:8: lane \"tools\": twin: no earlier lane named \"tools\" in this scenario \
             (a twin comes before the lane)"
        );
    }

    #[test]
    fn claims_are_checked_against_lanes_and_catalogue() {
        let claims = |claim: &str| error(&format!("\n[[claims]]\n{claim}\n"), "");
        assert_eq!(
            claims("id = 'F9'"),
            "s.toml:11:6: claims[0].id: unknown claim \"F9\"; expected one of C1, C2, C3, C4, C5, \
             C6, D1, N1, B1, I1, E1, F1, F2, F3, F4, F5, F6, H1, L1, P1, R1, V1, V2, V3, A1, G1, K1, K2, S1, M1, X1, X2, X3, X4"
        );
        assert_eq!(
            claims("id = 'F1'\ntool = 'fake_plugin_tool_4'"),
            "s.toml:12:8: claims[0].tool: \"fake_plugin_tool_4\" is not a tool of this catalogue; \
             did you mean fake_plugin_tool_01, fake_plugin_tool_02, fake_plugin_tool_03?"
        );
        assert_eq!(
            claims("id = 'C6'\nlanes = ['tool']"),
            "s.toml:12:10: claims[0].lanes[0]: no lane named \"tool\" in this scenario; did you \
             mean tools?"
        );
        assert_eq!(
            claims("id = 'C1'\nlanes = ['tools']"),
            "s.toml:12:9: claims[0].lanes: claim C1 cannot be checked here: no lane with Tool \
             Search off (tool_search = false)"
        );
    }

    #[test]
    fn a_code_mode_lane_is_read_typed() {
        use crate::config::{CodeModeEnabled, CodeModeExecutor, CodeModeSettings};
        let text = FILE.replace("{extra}", "").replace(
            "{lane}",
            "\n[[lanes]]\nname = 'cm'\ncode_mode = { executor = 'node' }\n\n\
             [[lanes]]\nname = 'both'\ntool_search = { mode = 'tools' }\n\
             code_mode = { enabled = 'auto' }\ncatalog_preferred = true\n\n\
             [[lanes]]\nname = 'auto-off'\ntool_search = { mode = 'tools' }\n\
             code_mode = { enabled = 'auto' }\n",
        );
        let scenario = parse_scenario(&text, "s.toml").unwrap();
        let cm = &scenario.lanes[2];
        assert_eq!(
            cm.code_mode,
            Some(CodeModeSettings {
                executor: Some(CodeModeExecutor::Node),
                enabled: CodeModeEnabled::On
            })
        );
        assert_eq!(cm.tool_search, serde_json::Value::Bool(false));
        assert!(!cm.is_direct());
        assert!(cm.code_mode_engaged().is_some());
        let both = &scenario.lanes[3];
        assert!(both.catalog_preferred);
        assert_eq!(both.mode(), ToolSearchMode::Tools);
        assert!(both.code_mode_engaged().is_some());
        // "auto" with a model that is not catalog-preferred: Tool Search's surface.
        let off = &scenario.lanes[4];
        assert!(off.code_mode_engaged().is_none());
        assert!(!scenario.lanes[0].catalog_preferred);
        assert_eq!(scenario.lanes[0].code_mode, None);
    }

    #[test]
    fn a_bad_code_mode_value_names_the_file_line_and_field() {
        assert_eq!(
            error("", "code_mode = { executor = 'v8' }\n"),
            "s.toml:17:26: lane \"tools\": code_mode.executor: unknown variant `v8`, expected \
             `quickjs` or `node`"
        );
        assert_eq!(
            error("", "code_mode = { enabled = 'yes' }\n"),
            "s.toml:17:25: lane \"tools\": code_mode.enabled: invalid value: string \"yes\", \
             expected true or \"auto\""
        );
        assert_eq!(
            error("", "code_mode = { runtime = 'quickjs' }\n"),
            "s.toml:17:15: lane \"tools\": code_mode.runtime: unknown field `runtime`, expected \
             `executor` or `enabled`"
        );
        assert_eq!(
            error("", "catalog_preferred = 'yes'\n"),
            "s.toml:17:21: lane \"tools\": catalog_preferred: invalid type: string \"yes\", \
             expected a boolean"
        );
        assert_eq!(
            error(
                "",
                "\n[[lanes]]\nname = 'n'\nnative = { provider = 'openai' }\ncode_mode = {}\n"
            ),
            "s.toml:21:13: lane \"n\": code_mode: a native lane has no code_mode: the provider \
             searches (remove one of the two)"
        );
    }

    #[test]
    fn unknown_scenario_lists_known_ones() {
        let err = select(load_all(&[]).unwrap(), &["nope".into()])
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("unknown scenario \"nope\"; known: tool-search-gateway-e2e"),
            "{err}"
        );
    }
}
