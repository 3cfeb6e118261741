//! Relations between modes and catalogue sizes, measured on real turns over loopback.
//! Exact relations only: no timings.

use toolsearch_qa::compare::{run_compare, CompareOptions, CompareReport};
use toolsearch_qa::config::ToolSearchMode;

async fn compare(sizes: &[usize], modes: &[ToolSearchMode]) -> CompareReport {
    let report = run_compare(CompareOptions {
        sizes: sizes.to_vec(),
        modes: modes.iter().map(|m| (*m).into()).collect(),
        profile: Some("spec".into()),
        ..CompareOptions::default()
    })
    .await
    .expect("compare runs");
    for cell in &report.cells {
        assert!(cell.first_turn.reached_target, "{cell:?}");
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
    assert_eq!(direct.first_turn.requests, 2);
    assert_eq!(tools.first_turn.requests, 3);
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

/// Renders `svg` to PNG with `rsvg-convert` (Debian's librsvg2-bin) and checks the picture
/// came out at the chart's size. Only the `#[ignore]`d test below calls it: a missing tool
/// fails it, naming the install command.
fn renders_to_png(svg: &std::path::Path) {
    let png = svg.with_extension("png");
    let out = std::process::Command::new("rsvg-convert")
        .arg("-o")
        .arg(&png)
        .arg(svg)
        .output()
        .unwrap_or_else(|e| panic!("rsvg-convert: {e}: run sudo apt-get install librsvg2-bin"));
    assert!(
        out.status.success(),
        "rsvg-convert {}: {}",
        svg.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&png).expect("PNG written");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{}", png.display());
    // IHDR: width and height, big-endian, at bytes 16..24.
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    assert_eq!((width, height), (860, 500), "{}", png.display());
}

/// The three charts' names and titles, as `cli_charts` writes them.
const CHARTS: [(&str, &str); 3] = [
    (
        "first-request-bytes",
        "First provider request, bytes · embedded prediction, profile spec",
    ),
    (
        "turn-tokens",
        "Whole turn, input tokens · embedded prediction, profile spec",
    ),
    (
        "cost-per-1000-turns",
        "Cost per 1,000 turns, USD (openai-gpt-4.1) · embedded prediction, profile spec",
    ),
];

/// `compare` with `--chart` into `charts`: its markdown.
fn cli_charts(charts: &std::path::Path) -> String {
    let chart_arg = charts.to_str().expect("utf-8 temp path");
    compare_cli(&[
        "--profile",
        "spec",
        "--sizes",
        "36,100",
        "--modes",
        "tools,direct",
        "--format",
        "markdown",
        "--chart",
        chart_arg,
    ])
}

#[test]
fn cli_writes_markdown_and_charts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charts = dir.path().join("charts");
    let stdout = cli_charts(&charts);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0], "First request (embedded prediction, profile `spec`):",
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("| catalogue | mode | 1st bytes |"),
        "{stdout}"
    );
    // In the order of `--modes`.
    assert!(lines[4].starts_with("| 36 | tools | "), "{stdout}");
    assert!(lines[5].starts_with("| 36 | direct | 22,"), "{stdout}");
    assert!(lines[5].ends_with(" | 1.000 |"), "{stdout}");
    assert!(
        stdout.contains("\nCost (embedded prediction, profile `spec`, price `openai-gpt-4.1`):\n")
    );
    for (name, title) in CHARTS {
        let path = charts.join(format!("{name}.svg"));
        let svg = std::fs::read_to_string(&path).expect("chart written");
        assert!(svg.starts_with("<svg "), "{svg}");
        assert!(svg.contains(&format!(">{title}<")), "{name}: {svg}");
        assert!(svg.contains(">catalogue size (fake plugin tools, log scale)<"));
        assert_eq!(svg.matches("<polyline").count(), 2, "{name}");
        assert!(
            stdout.contains(&format!("]({})", path.display())),
            "the markdown embeds {name}: {stdout}"
        );
    }
}

/// The charts render as pictures of their size (a PNG renderer reads them).
#[test]
#[ignore = "needs rsvg-convert (sudo apt-get install librsvg2-bin)"]
fn cli_charts_render_to_png() {
    let dir = tempfile::tempdir().expect("temp dir");
    let charts = dir.path().join("charts");
    cli_charts(&charts);
    for (name, _) in CHARTS {
        renders_to_png(&charts.join(format!("{name}.svg")));
    }
}

/// A cell's figures do not depend on the other cells of the run: `code` at 36 alone prints the
/// same row as `code` at 36 among every mode and another size (but for the ratios, which need
/// the direct lane of the same size). 1,118 turn tokens: the figure of issue 28's example.
#[test]
fn cli_a_cell_is_the_same_alone_and_among_others() {
    let header: Vec<&str> = toolsearch_qa::compare::render::CSV_HEADER.to_vec();
    let row = |args: &[&str]| -> Vec<String> {
        let csv = compare_cli(&[&["--profile", "spec", "--format", "csv"], args].concat());
        let line = csv
            .lines()
            .find(|l| l.starts_with("embedded,spec,36,code,"))
            .unwrap_or_else(|| panic!("no code row at 36:\n{csv}"))
            .to_string();
        let fields: Vec<String> = line.split(',').map(str::to_string).collect();
        fields
            .into_iter()
            .zip(&header)
            .filter(|(_, h)| !h.ends_with("_ratio"))
            .map(|(f, _)| f)
            .collect()
    };
    let alone = row(&["--sizes", "36", "--modes", "code"]);
    let turn_tokens = header.iter().position(|h| *h == "turn_tokens").unwrap();
    assert_eq!(alone[turn_tokens - 1], "1118", "{alone:?}");
    assert_eq!(alone, row(&["--sizes", "36,100"]));
    assert_eq!(alone, row(&["--sizes", "100,36", "--modes", "tools,code"]));
}

#[test]
fn cli_price_file_errors_name_file_line_and_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("prices.toml");
    std::fs::write(
        &file,
        "[[price]]\nname = \"mine\"\nprovider = \"p\"\nmodel = \"m\"\ninput = 1.0\n\
         cached_input = 2.0\noutput = 3.0\nread = \"2026-12-01\"\nsource = \"me\"\n\
         caching = { rule = \"prefix\", min_tokens = 1024, increment = 128 }\n",
    )
    .unwrap();
    let out = bin()
        .args(["compare", "--sizes", "36", "--price-file"])
        .arg(&file)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: price file {}:6: price[0].cached_input: is above the uncached input price\n",
            file.display()
        )
    );
    let out = bin()
        .args(["compare", "--sizes", "36", "--price", "nope"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: --price: unknown price \"nope\""),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
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
    // The default profile is the newest captured product profile; every table names it.
    let profile = toolsearch_qa::compare::default_profile();
    assert!(profile.starts_with("openclaw-"), "{profile}");
    assert!(
        table.starts_with(&format!(
            "first request · embedded prediction, profile {profile}\n"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "\nwhole turn · embedded prediction, profile {profile}\n"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "\ncost · embedded prediction, profile {profile} · price openai-gpt-4.1\n"
        )),
        "{table}"
    );
    assert!(
        first.contains(&format!("\"profile\": \"{profile}\"")),
        "{first}"
    );
}

/// Issue #41: `--modes` is the order of the rows; a first request smaller at more tools says
/// why (the product's directory drops its descriptions past its bound: code 60,389 B at 70
/// tools, 54,999 B at 100); the search-quality table and every title name the embedded
/// prediction.
#[test]
fn cli_keeps_the_modes_order_and_explains_a_request_that_shrinks() {
    let table = compare_cli(&["--sizes", "70,100", "--modes", "tools,code,direct,tools"]);
    let widest = table.lines().map(|l| l.chars().count()).max();
    assert!(widest <= Some(100), "{widest:?} columns:\n{table}");
    let rows: Vec<&str> = table
        .lines()
        .skip_while(|l| !l.starts_with("first request"))
        .filter(|l| l.starts_with("│ 70 "))
        .take(3)
        .collect();
    let modes: Vec<&str> = rows
        .iter()
        .map(|r| r.split('┆').nth(1).unwrap().trim())
        .collect();
    assert_eq!(modes, ["tools", "code", "direct"], "{table}");
    let profile = toolsearch_qa::compare::default_profile();
    assert!(
        table.contains(&format!(
            "\nnote: embedded prediction, profile {profile} · code: the first request is smaller at 100\n  \
             tools (54,999 B) than at 70 (60,389 B): its system prompt shrank (50,755 → 45,442 \
             characters): the\n  directory lists each tool with its description cut to 64 characters \
             while all lines fit in 13,773\n  characters, and past that names only\n"
        )),
        "{table}"
    );
    assert_eq!(table.matches("is smaller at").count(), 2, "{table}");
    assert!(
        table.contains(&format!(
            "\nsearch quality · embedded prediction, profile {profile} · labelled set, "
        )),
        "{table}"
    );
    assert!(
        table.contains("embedded prediction: the gateway engine's lexical"),
        "{table}"
    );
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
        "error: --modes: unknown mode \"magic\"; known: direct, code, tools, directory, code-mode, \
         native-openai, native-anthropic\n"
    );
}

/// One small cell worked through by hand: `tools` at 36 tools under the product profile
/// (pinned, so a newer built-in profile does not move it) and the default price row, OpenAI's rule (a repeated prefix from 1,024 tokens, in
/// 128-token steps) at $2 input, $0.50 cached input, $8 output per million tokens.
#[test]
fn cli_one_cell_cache_split_and_money_by_hand() {
    let json = compare_cli(&[
        "--profile",
        "openclaw-2026.9.6",
        "--sizes",
        "36",
        "--modes",
        "tools",
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(report["price"]["name"], "openai-gpt-4.1");
    let cell = &report["cells"][0];
    let prefixes = cell["prefixes"].as_array().expect("per-request prefixes");
    let field = |i: usize, name: &str| prefixes[i][name].as_u64().expect(name);
    // Three requests (search, call, answer); each repeats the whole prompt of the one before.
    assert_eq!(prefixes.len(), 3);
    assert_eq!(field(0, "shared"), 0);
    assert_eq!(field(1, "shared"), field(0, "prompt"));
    assert_eq!(field(2, "shared"), field(1, "prompt"));
    let input: u64 = (0..3).map(|i| field(i, "input")).sum();
    assert_eq!(Some(input), cell["turn"]["tokens"].as_u64());
    // The measured figures of this cell (they repeat run to run), then the arithmetic by hand.
    let prompts: Vec<u64> = (0..3).map(|i| field(i, "prompt")).collect();
    let inputs: Vec<u64> = (0..3).map(|i| field(i, "input")).collect();
    let output = cell["outputTokens"].as_u64().expect("output tokens");
    assert_eq!(prompts, [13_488, 13_699, 13_946]);
    assert_eq!(inputs, [13_511, 13_721, 13_966]);
    assert_eq!(output, 53);
    // Request 2 shares 13,488 tokens: 105 steps of 128 = 13,440 cached; request 3 shares
    // 13,699: 107 steps = 13,696. The first request shares nothing.
    let cached = 13_440 + 13_696;
    assert_eq!(input, 41_198);
    assert_eq!(cell["cache"]["cached"].as_u64(), Some(cached));
    assert_eq!(cell["cache"]["written"].as_u64(), Some(0));
    assert_eq!(cell["cache"]["uncached"].as_u64(), Some(input - cached));
    let cost = cell["costPerTurn"].as_f64().expect("cost");
    // 14,062 uncached x $2 + 27,136 cached x $0.50 + 53 output x $8, per million tokens:
    // $0.028124 + $0.013568 + $0.000424.
    assert!((cost - 0.042_116).abs() < 1e-12, "{cost}");
    let per_1000 = cell["costPer1000Turns"].as_f64().expect("cost per 1,000");
    assert!((per_1000 - 42.116).abs() < 1e-9, "{per_1000}");

    // The second user turn of the same session: its first request repeats the whole prompt of
    // the first turn's last (13,946 tokens), each later one the whole prompt before it.
    let second = &cell["secondTurn"];
    assert_eq!(second["reachedTarget"], true);
    let prefixes = second["prefixes"]
        .as_array()
        .expect("second turn's prefixes");
    let field = |i: usize, name: &str| prefixes[i][name].as_u64().expect(name);
    assert_eq!(prefixes.len(), 3);
    assert_eq!(field(0, "shared"), 13_946);
    assert_eq!(field(1, "shared"), field(0, "prompt"));
    assert_eq!(field(2, "shared"), field(1, "prompt"));
    let prompts: Vec<u64> = (0..3).map(|i| field(i, "prompt")).collect();
    let inputs: Vec<u64> = (0..3).map(|i| field(i, "input")).collect();
    assert_eq!(prompts, [14_088, 14_307, 14_558]);
    assert_eq!(inputs, [14_106, 14_324, 14_573]);
    assert_eq!(second["outputTokens"].as_u64(), Some(53));
    // Shared 13,946 -> 108 x 128 = 13,824; 14,088 -> 110 x 128 = 14,080; 14,307 -> 111 x 128
    // = 14,208. Input 43,003, so 891 uncached.
    let cached = 13_824 + 14_080 + 14_208;
    assert_eq!(second["turn"]["tokens"].as_u64(), Some(43_003));
    assert_eq!(second["cache"]["cached"].as_u64(), Some(cached));
    assert_eq!(second["cache"]["written"].as_u64(), Some(0));
    assert_eq!(second["cache"]["uncached"].as_u64(), Some(43_003 - cached));
    // 891 x $2 + 42,112 x $0.50 + 53 x $8, per million: $0.001782 + $0.021056 + $0.000424.
    let cost = second["costPerTurn"].as_f64().expect("second turn's cost");
    assert!((cost - 0.023_262).abs() < 1e-12, "{cost}");
    let per_1000 = second["costPer1000Turns"].as_f64().expect("per 1,000");
    assert!((per_1000 - 23.262).abs() < 1e-9, "{per_1000}");
}

/// The real product (ignored unless asked for: it needs the install): one gateway serves two catalogue sizes
/// (its plugin holds both, each lane's config registers its own), direct mode declares exactly
/// the catalogue plus the release's 43 core tools at each size, both turns reach the target, and
/// each product cell carries the embedded prediction's error.
#[tokio::test]
#[ignore = "needs OpenClaw (bash scripts/install-openclaw.sh)"]
async fn product_cells_share_one_gateway_across_sizes() {
    use toolsearch_qa::compare::run_compare_on;
    use toolsearch_qa::targets::openclaw::OpenClawTarget;
    use toolsearch_qa::targets::{EmbeddedTarget, Target, TargetKind};
    let install = crate::openclaw_real::real_install("compare on the product");
    let _one = crate::openclaw_real::ONE_GATEWAY.lock().await;
    let sizes = [36, 100];
    let product = OpenClawTarget::with_install(install).serving_sizes(&sizes);
    let targets: [&dyn Target; 2] = [&EmbeddedTarget, &product];
    let report = run_compare_on(
        CompareOptions {
            sizes: sizes.to_vec(),
            modes: vec![ToolSearchMode::Direct.into()],
            ..CompareOptions::default()
        },
        &targets,
    )
    .await
    .expect("compare runs on both targets");
    assert_eq!(
        product.gateways_started().await,
        1,
        "one gateway for both sizes"
    );
    assert_eq!(report.targets, [TargetKind::Embedded, TargetKind::Openclaw]);
    assert!(report.refused.is_empty(), "{:?}", report.refused);
    assert_eq!(report.cells.len(), 4);
    for size in sizes {
        let cell = report
            .cell_on(TargetKind::Openclaw, size, ToolSearchMode::Direct)
            .expect("product cell");
        assert_eq!(cell.first.declared_tools, size + 43, "size {size}");
        assert_eq!(
            (cell.first_turn.requests, cell.second_turn.requests),
            (2, 2)
        );
        assert!(cell.first_turn.reached_target && cell.second_turn.reached_target);
        let predicted = report
            .cell_on(TargetKind::Embedded, size, ToolSearchMode::Direct)
            .expect("embedded cell");
        let error = cell.prediction_error.expect("the prediction's error");
        let expected = (predicted.first.raw_bytes as f64 - cell.first.raw_bytes as f64)
            / cell.first.raw_bytes as f64;
        assert_eq!(error.first_bytes, expected);
        assert_eq!(predicted.prediction_error, None);
    }
}

/// Each native mode is priced on a row of its own provider whose model runs the provider's
/// tool search (OpenAI gpt-5.4: $2.50 input, $0.25 cached, $15 output, prefix rule; Anthropic
/// Sonnet 4.5: $3 input, $0.30 cache read, $3.75 cache write, $15 output, breakpoints), while
/// direct keeps the default row; the money worked by hand from each cell's measured split.
#[test]
fn cli_native_modes_are_priced_on_their_own_providers_rows() {
    let json = compare_cli(&[
        "--profile",
        "openclaw-2026.9.6",
        "--sizes",
        "36",
        "--modes",
        "direct,native-openai,native-anthropic",
        "--format",
        "json",
    ]);
    let report: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(report["price"]["name"], "openai-gpt-4.1");
    let rows: Vec<&str> = report["prices"]
        .as_array()
        .expect("prices")
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        rows,
        [
            "openai-gpt-4.1",
            "openai-gpt-5.4",
            "anthropic-claude-sonnet-4.5"
        ]
    );
    let cell = |mode: &str| {
        report["cells"]
            .as_array()
            .expect("cells")
            .iter()
            .find(|c| c["mode"] == mode)
            .unwrap_or_else(|| panic!("no {mode} cell"))
            .clone()
    };
    let split = |turn: &serde_json::Value| {
        let n = |f: &str| turn["cache"][f].as_u64().expect(f);
        (
            n("cached"),
            n("written"),
            n("uncached"),
            turn["outputTokens"].as_u64(),
        )
    };
    let money = |turn: &serde_json::Value| turn["costPerTurn"].as_f64().expect("cost");
    let openai = cell("native-openai");
    assert_eq!(openai["price"], "openai-gpt-5.4");
    assert_eq!(split(&openai), (19_200, 0, 20_024, Some(28)));
    // 20,024 x $2.50 + 19,200 x $0.25 + 28 x $15, per million: $0.05006 + $0.0048 + $0.00042.
    assert!((money(&openai) - 0.055_28).abs() < 1e-12, "{openai}");
    let second = &openai["secondTurn"];
    assert_eq!(split(second), (39_808, 0, 1_100, Some(28)));
    // 1,100 x $2.50 + 39,808 x $0.25 + 28 x $15: $0.00275 + $0.009952 + $0.00042.
    assert!((money(second) - 0.013_122).abs() < 1e-12, "{second}");
    let anthropic = cell("native-anthropic");
    assert_eq!(anthropic["price"], "anthropic-claude-sonnet-4.5");
    assert_eq!(split(&anthropic), (11_056, 11_806, 38, Some(34)));
    // 38 x $3 + 11,056 x $0.30 + 11,806 x $3.75 + 34 x $15: $0.000114 + $0.0033168
    // + $0.0442725 + $0.00051.
    assert!(
        (money(&anthropic) - 0.048_213_3).abs() < 1e-12,
        "{anthropic}"
    );
    let second = &anthropic["secondTurn"];
    assert_eq!(split(second), (23_739, 887, 38, Some(34)));
    // 38 x $3 + 23,739 x $0.30 + 887 x $3.75 + 34 x $15: $0.000114 + $0.0071217 + $0.00332625
    // + $0.00051.
    assert!((money(second) - 0.011_071_95).abs() < 1e-12, "{second}");
    let direct = cell("direct");
    assert_eq!(direct["price"], "openai-gpt-4.1");
    // 32,464 x $2 + 32,128 x $0.50 + 19 x $8: $0.064928 + $0.016064 + $0.000152.
    assert_eq!(split(&direct), (32_128, 0, 32_464, Some(19)));
    assert!((money(&direct) - 0.081_144).abs() < 1e-12, "{direct}");
}

/// A `--price` row of the native mode's own provider whose model cannot run the provider's tool
/// search is refused before anything runs, naming the rows that can.
#[test]
fn cli_refuses_to_price_a_native_mode_on_a_model_without_tool_search() {
    let out = bin()
        .args([
            "compare",
            "--sizes",
            "36",
            "--modes",
            "direct,native-openai",
        ])
        .args(["--price", "openai-gpt-4.1"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: --price: openai-gpt-4.1 (openai gpt-4.1) cannot price native-openai: the model \
         does not list tool_search (its provider's rows that do: openai-gpt-5.4)\n"
    );
    assert!(out.stdout.is_empty());
}

/// `--catalog`: the real MCP servers of `real-mcp-servers` (49 tools) beside the fake plugin at
/// the same size, with the same turn. Direct mode's tools array grows by exactly the listed
/// tools' declarations; Tool Search declares the same tools either way. Cost: four cells, two
/// of them starting the four Node servers (about 5 s on the debug build).
#[tokio::test]
#[ignore = "needs the official MCP servers (bash scripts/install-mcp-servers.sh)"]
async fn compare_weighs_a_real_catalogue_beside_the_fake_plugin() {
    use toolsearch_qa::compare::{AddedCatalogue, ExtraCatalogue};
    crate::real_mcp::servers_installed("compare_weighs_a_real_catalogue_beside_the_fake_plugin");
    let catalog = ExtraCatalogue::of_scenario("real-mcp-servers").expect("a built-in scenario");
    let servers = catalog.mcp_servers.clone();
    let report = run_compare(CompareOptions {
        sizes: vec![36],
        modes: vec![ToolSearchMode::Direct.into(), ToolSearchMode::Tools.into()],
        profile: Some("spec".into()),
        catalog: Some(catalog),
        ..CompareOptions::default()
    })
    .await
    .expect("compare runs (scripts/install-mcp-servers.sh installs the servers)");
    assert_eq!(report.cells.len(), 4);
    for cell in &report.cells {
        assert!(cell.first_turn.reached_target, "{cell:?}");
        assert!(cell.second_turn.reached_target, "{cell:?}");
    }
    let fake = report
        .cell(36, ToolSearchMode::Direct)
        .expect("fake direct");
    let real = report
        .cell_with_catalogue(36, ToolSearchMode::Direct)
        .expect("real direct");
    assert_eq!(
        real.catalogue,
        Some(AddedCatalogue {
            name: "real-mcp-servers".into(),
            tools: 49
        })
    );
    assert_eq!(real.first.declared_tools, fake.first.declared_tools + 49);
    // The listing the harness makes on its own: each tool's declaration, and a comma before it.
    let mut listed = toolsearch_qa::scenario::select(
        toolsearch_qa::scenario::load_all(&[]).unwrap(),
        &["real-mcp-servers".into()],
    )
    .unwrap();
    assert_eq!(listed[0].catalog.mcp_servers, servers);
    toolsearch_qa::mcp_servers::list_catalogues(&mut listed)
        .await
        .expect("listed");
    let added: usize = listed[0]
        .catalog
        .listed
        .values()
        .flatten()
        .map(|t| {
            serde_json::to_string(&t.function_declaration())
                .unwrap()
                .len()
                + 1
        })
        .sum();
    assert_eq!(
        real.first.tool_json_bytes,
        fake.first.tool_json_bytes + added
    );
    assert!(real.first_turn.cost_per_turn > fake.first_turn.cost_per_turn);
    let fake_tools = report.cell(36, ToolSearchMode::Tools).expect("fake tools");
    let real_tools = report
        .cell_with_catalogue(36, ToolSearchMode::Tools)
        .expect("real tools");
    assert_eq!(
        real_tools.first.declared_tools,
        fake_tools.first.declared_tools
    );
    assert_eq!(
        real_tools.first.tool_json_bytes,
        fake_tools.first.tool_json_bytes
    );
    // Ratios are to the direct cell over the same catalogue.
    let ratio = real_tools.first.raw_bytes as f64 / real.first.raw_bytes as f64;
    assert_eq!(real_tools.first_ratio, Some(ratio));
}

/// A tool list of someone's own, as `--catalog FILE.json` reads it: `$schema` first, nested
/// objects, an enum, a title and annotations (ignored), in the `{"tools": [...]}` shape.
const TOOL_LIST: &str = r#"{"tools": [
  {"name": "create_invoice", "title": "Create invoice",
   "description": "Create an invoice for a customer, in the customer's currency.",
   "inputSchema": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
     "properties": {"customer": {"type": "string"},
       "lines": {"type": "array", "items": {"type": "object",
         "properties": {"sku": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
         "required": ["sku", "quantity"]}}},
     "required": ["customer", "lines"], "additionalProperties": false},
   "annotations": {"destructiveHint": false}},
  {"name": "refund_payment", "description": "Refund a payment, whole or in part.",
   "inputSchema": {"type": "object", "properties": {"payment": {"type": "string"},
     "reason": {"type": "string", "enum": ["duplicate", "fraud", "requested"]}},
     "required": ["payment"]}},
  {"name": "list_customers", "description": "List customers, newest first.",
   "parameters": {"type": "object", "properties": {"limit": {"type": "integer", "default": 20}}}}
]}"#;

/// `--catalog FILE.json`: a JSON tool list served as one MCP server (`mcp-fixture --tool-list`,
/// started and listed over stdio like a real server) beside the fake plugin. Direct mode's tools
/// array grows by exactly the three declarations, each schema as the file wrote it (key order
/// kept); Tool Search declares the same tools either way. Cost: four embedded cells (~1 s).
#[tokio::test]
async fn compare_weighs_a_json_tool_list_beside_the_fake_plugin() {
    use toolsearch_qa::catalog::FunctionDeclaration;
    use toolsearch_qa::compare::{AddedCatalogue, ExtraCatalogue};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("billing.json");
    std::fs::write(&path, TOOL_LIST).unwrap();
    let catalog = ExtraCatalogue::of_argument(path.to_str().unwrap()).expect("a valid list");
    let report = run_compare(CompareOptions {
        sizes: vec![36],
        modes: vec![ToolSearchMode::Direct.into(), ToolSearchMode::Tools.into()],
        profile: Some("spec".into()),
        catalog: Some(catalog),
        ..CompareOptions::default()
    })
    .await
    .expect("compare runs");
    assert_eq!(report.cells.len(), 4);
    for cell in &report.cells {
        assert!(cell.first_turn.reached_target, "{cell:?}");
    }
    let fake = report.cell(36, ToolSearchMode::Direct).unwrap();
    let listed = report
        .cell_with_catalogue(36, ToolSearchMode::Direct)
        .unwrap();
    assert_eq!(
        listed.catalogue,
        Some(AddedCatalogue {
            name: "billing.json".into(),
            tools: 3
        })
    );
    assert_eq!(listed.first.declared_tools, fake.first.declared_tools + 3);
    // Each declaration as the file has it (the schema's keys in the file's order), and a comma.
    let file: serde_json::Value = serde_json::from_str(TOOL_LIST).unwrap();
    let added: usize = file["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let schema = t.get("inputSchema").or(t.get("parameters")).unwrap();
            let declaration = FunctionDeclaration::new(
                t["name"].as_str().unwrap(),
                t["description"].as_str().unwrap(),
                schema.clone(),
            );
            serde_json::to_string(&declaration).unwrap().len() + 1
        })
        .sum();
    assert_eq!(
        listed.first.tool_json_bytes,
        fake.first.tool_json_bytes + added
    );
    let fake_tools = report.cell(36, ToolSearchMode::Tools).unwrap();
    let listed_tools = report
        .cell_with_catalogue(36, ToolSearchMode::Tools)
        .unwrap();
    assert_eq!(
        listed_tools.first.tool_json_bytes,
        fake_tools.first.tool_json_bytes
    );
}

/// A mistake in a tool list is one usage error naming the file, the line and column and the
/// field, before anything starts; a schema no gateway could declare names the tool.
#[test]
fn a_broken_tool_list_is_said_with_its_file_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let out = bin()
            .current_dir(dir.path())
            .args(["compare", "--sizes", "36", "--catalog", name])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(out.stdout.is_empty(), "{name}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert_eq!(
        run(
            "typo.json",
            "{\"tools\": [\n  {\"name\": \"a\", \"description\": \"A.\"},\n  {\"name\": \"b\", \"descripton\": \"B.\"}\n]}"
        ),
        "error: --catalog: catalogue file: typo.json:3:28: tools[1].descripton: unknown field \
         `descripton`, expected one of `name`, `description`, `label`, `title`, `parameters`, \
         `inputSchema`, `source`, `sourceName`, `type`, `annotations`, `outputSchema`\n"
    );
    assert_eq!(
        run("twice.json", r#"[{"name": "a"}, {"name": "a"}]"#),
        "error: --catalog: catalogue file: twice.json: [1].name: \"a\" is listed twice (also [0])\n"
    );
    assert_eq!(
        run(
            "schema.json",
            r#"[{"name": "a", "inputSchema": {"type": "object", "properties": {"x": {"type": "strin"}}}}]"#
        ),
        "error: --catalog: schema.json: tool 0 (\"a\"): its input schema: \"strin\" is not valid \
         under any of the schemas listed in the 'anyOf' keyword at /properties/x/type\n"
    );
}
