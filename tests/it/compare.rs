//! Relations between modes and catalogue sizes, measured on real turns over loopback.
//! Exact relations only: no timings.

use toolsearch_qa::compare::{run_compare, CompareOptions, CompareReport};
use toolsearch_qa::config::ToolSearchMode;

async fn compare(sizes: &[usize], modes: &[ToolSearchMode]) -> CompareReport {
    let report = run_compare(CompareOptions {
        sizes: sizes.to_vec(),
        modes: modes.to_vec(),
        profile: None,
    })
    .await
    .expect("compare runs");
    for cell in &report.cells {
        assert!(cell.reached_target, "{cell:?}");
    }
    report
}

fn first_bytes(report: &CompareReport, mode: ToolSearchMode) -> Vec<usize> {
    report
        .cells
        .iter()
        .filter(|c| c.mode == mode)
        .map(|c| c.first.raw_bytes)
        .collect()
}

#[tokio::test]
async fn code_and_tools_first_requests_do_not_grow_with_the_catalogue() {
    // Names are padded to the width of the size, and the prompt names the target: 17..99 share
    // the prompt `fake_plugin_tool_17`, 100..999 share `fake_plugin_tool_017` (one byte more).
    let sizes = [17, 36, 99, 100, 500];
    let report = compare(&sizes, &[ToolSearchMode::Code, ToolSearchMode::Tools]).await;
    for mode in [ToolSearchMode::Code, ToolSearchMode::Tools] {
        let bytes = first_bytes(&report, mode);
        assert_eq!(bytes.len(), 5);
        assert_eq!(bytes[0], bytes[1], "{mode:?}");
        assert_eq!(bytes[0], bytes[2], "{mode:?}");
        assert_eq!(bytes[3], bytes[4], "{mode:?}");
        assert_eq!(bytes[3], bytes[2] + 1, "{mode:?}");
        let cells: Vec<_> = report.cells.iter().filter(|c| c.mode == mode).collect();
        for cell in &cells {
            assert_eq!(cell.first.tool_json_bytes, cells[0].first.tool_json_bytes);
            assert_eq!(
                cell.first.system_prompt_chars,
                cells[0].first.system_prompt_chars
            );
            assert_eq!(cell.first.declared_tools, cells[0].first.declared_tools);
        }
    }
    // Code mode is measured as what the gateway ran: code, or tools with the fallback note.
    for cell in report
        .cells
        .iter()
        .filter(|c| c.mode == ToolSearchMode::Code)
    {
        match cell.effective_mode.as_str() {
            "code" => assert_eq!(cell.first.declared_tools, 2),
            "tools" => {
                assert_eq!(cell.first.declared_tools, 4);
                assert_eq!(cell.notes.len(), 1, "{:?}", cell.notes);
            }
            other => panic!("code lane ran as {other}"),
        }
    }
}

#[tokio::test]
async fn direct_grows_exactly_linearly() {
    // 17..99: every added tool has a two-digit index, so each adds the same bytes.
    let sizes = [17, 20, 50, 99];
    let report = compare(&sizes, &[ToolSearchMode::Direct]).await;
    let cells: Vec<_> = report.cells.iter().collect();
    let linear = |value: &dyn Fn(usize) -> usize| {
        let step = value(1) - value(0);
        assert_eq!(step % 3, 0, "17 -> 20 adds three equal tools");
        let per_tool = step / 3;
        let base = value(0) - 17 * per_tool;
        for (i, n) in sizes.iter().enumerate() {
            assert_eq!(value(i), base + n * per_tool, "size {n}");
        }
        per_tool
    };
    let per_tool_bytes = linear(&|i| cells[i].first.raw_bytes);
    let per_tool_json = linear(&|i| cells[i].first.tool_json_bytes);
    let per_tool_prompt = linear(&|i| cells[i].first.system_prompt_chars);
    // Each fake tool costs exactly its declaration (plus a comma) and its prompt line, whose
    // newline is written as the two bytes `\n` inside the JSON string.
    assert_eq!(per_tool_bytes, per_tool_json + per_tool_prompt + 1);
    assert_eq!(per_tool_bytes, 536);
    for (cell, n) in cells.iter().zip(sizes) {
        assert_eq!(
            cell.first.declared_tools,
            n + 7,
            "fake tools plus 7 core tools"
        );
        assert_eq!(cell.first_ratio, Some(1.0));
    }
}

#[tokio::test]
async fn directory_grows_then_stops_at_its_bound() {
    use toolsearch_qa::engine::directory::MAX_DIRECTORY_CHARS;
    // 17..50: every added tool adds one directory line of the same length (two-digit names).
    // 200..999: the directory is full; names have three digits and so does the omitted count, so
    // the block, and with it the whole first request, is the same size at every size.
    let sizes = [17, 20, 50, 200, 500, 999];
    let report = compare(&sizes, &[ToolSearchMode::Directory, ToolSearchMode::Tools]).await;
    let of = |mode| -> Vec<_> { report.cells.iter().filter(|c| c.mode == mode).collect() };
    let (directory, tools) = (of(ToolSearchMode::Directory), of(ToolSearchMode::Tools));
    // The directory prompt is the tools prompt, a blank line and the block.
    let block: Vec<usize> = directory
        .iter()
        .zip(&tools)
        .map(|(d, t)| d.first.system_prompt_chars - t.first.system_prompt_chars - 1)
        .collect();
    let line = (block[1] - block[0]) / 3;
    assert_eq!(
        block[1] - block[0],
        3 * line,
        "17 -> 20 adds three equal lines"
    );
    assert_eq!(block[2] - block[0], 33 * line, "17 -> 50 adds 33 lines");
    assert_eq!((block[3], block[4]), (block[5], block[5]), "bounded");
    assert!(block[5] <= MAX_DIRECTORY_CHARS, "{}", block[5]);
    assert!(
        block[5] + line > MAX_DIRECTORY_CHARS,
        "full: one more line would not fit"
    );
    assert!(block[2] < block[5], "50 tools still fit below the bound");
    let bytes = first_bytes(&report, ToolSearchMode::Directory);
    assert_eq!((bytes[3], bytes[4]), (bytes[5], bytes[5]), "bounded");
    for cell in &directory {
        assert_eq!(cell.first.declared_tools, 4, "controls plus session_status");
        assert_eq!(
            cell.first.tool_json_bytes,
            directory[0].first.tool_json_bytes
        );
    }
}

#[tokio::test]
async fn bridges_are_smaller_than_direct_at_the_reference_size() {
    let report = compare(&[36], &[ToolSearchMode::Direct, ToolSearchMode::Tools]).await;
    let direct = report
        .cell(36, ToolSearchMode::Direct)
        .expect("direct cell");
    let tools = report.cell(36, ToolSearchMode::Tools).expect("tools cell");
    assert_eq!(direct.first.declared_tools, 43);
    assert_eq!(tools.first.declared_tools, 4);
    assert_eq!(direct.requests, 2);
    assert_eq!(tools.requests, 3);
    let ratio = tools.first_ratio.expect("ratio to direct");
    assert_eq!(
        ratio,
        tools.first.raw_bytes as f64 / direct.first.raw_bytes as f64
    );
    assert!(ratio < 1.0, "{ratio}");
}

fn bin() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("toolsearch-qa").expect("binary built")
}

/// `toolsearch-qa compare ARGS`: must exit 0; its stdout.
fn compare_cli(args: &[&str]) -> String {
    let out = bin().arg("compare").args(args).output().expect("runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn cli_writes_markdown_and_a_chart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let chart = dir.path().join("sizes.svg");
    let chart_arg = chart.to_str().expect("utf-8 temp path");
    let stdout = compare_cli(&[
        "--sizes",
        "36",
        "--modes",
        "tools,direct",
        "--format",
        "markdown",
        "--chart",
        chart_arg,
    ]);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[0].starts_with("| tools | mode | 1st bytes |"),
        "{stdout}"
    );
    assert!(lines[2].starts_with("| 36 | direct | "), "{stdout}");
    assert!(lines[2].ends_with(" | 1.000 |"), "{stdout}");
    assert!(lines[3].starts_with("| 36 | tools | "), "{stdout}");
    let svg = std::fs::read_to_string(&chart).expect("chart written");
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.contains(">catalogue size (fake plugin tools, log scale)<"));
    assert_eq!(svg.matches("<polyline").count(), 2);
}

/// Two runs print the same report, byte for byte (token counts included: the provider's ids
/// are in every later request of a turn, and the command makes them the same each run), and
/// the terminal's tables fit 100 columns even at 10,000 tools.
#[test]
fn cli_prints_the_same_figures_every_run_in_tables_that_fit_the_terminal() {
    let run = |format: &str| compare_cli(&["--sizes", "36,10000", "--format", format]);
    let first = run("json");
    assert_eq!(first, run("json"));
    let table = run("table");
    let widest = table.lines().map(|l| l.chars().count()).max();
    assert!(widest <= Some(100), "{widest:?} columns:\n{table}");
    assert!(table.starts_with("first request\n"), "{table}");
    assert!(table.contains("\nwhole turn\n"), "{table}");
}

#[test]
fn cli_rejects_an_unknown_mode_with_exit_two() {
    let out = bin()
        .args(["compare", "--modes", "direct,magic"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --modes: unknown mode \"magic\"; known: direct, code, tools, directory\n"
    );
}
