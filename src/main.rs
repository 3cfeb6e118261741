//! `toolsearch-qa`: the command line. Parsing and exit codes live here; the work is in the library.
//!
//! Exit codes: 0 every claim holds · 1 a claim failed · 2 usage, scenario or config error ·
//! 3 infrastructure error (a provider or gateway that would not start or answer).

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolsearch_qa::suite::junit::junit_xml;
use toolsearch_qa::suite::report::{side_by_side, side_by_side_json, SuiteReport};
use toolsearch_qa::suite::scenario::{load_all, select, Lane, Scenario};
use toolsearch_qa::suite::{run_suite_on, HarnessError, ProviderSource};
use toolsearch_qa::targets::openclaw::OpenClawTarget;
use toolsearch_qa::targets::{EmbeddedTarget, Target};

#[derive(Parser)]
#[command(
    name = "toolsearch-qa",
    version,
    about = "QA and benchmark harness for LLM-agent Tool Search gateways"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios: start the mock provider, a gateway per lane, send the turn, check the claims.
    Suite(SuiteArgs),
    /// Run the hostile-code probes through a gateway's `tool_search_code` (one gateway start per
    /// target); one row per probe: contained, ESCAPED or inconclusive, with the evidence.
    Probes(ProbesArgs),
    /// List the scenarios (built in and from --scenario-dir).
    List {
        /// Also load every *.toml scenario in this directory (repeatable).
        #[arg(long = "scenario-dir", value_name = "DIR")]
        scenario_dirs: Vec<PathBuf>,
    },
    /// Run N concurrent sessions through one embedded gateway; print p50/p99 turn latency.
    Load {
        /// How many concurrent one-turn sessions.
        #[arg(long, default_value_t = 200)]
        sessions: usize,
    },
    /// Compare provider payload size per mode across catalogue sizes (real turns on loopback).
    Compare(CompareArgs),
    /// Run the mock OpenAI provider on loopback until interrupted.
    Provider {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Run the embedded gateway with a JSON5 config on loopback until interrupted.
    Gateway {
        /// OpenClaw-style JSON5 config (models.providers, agents, tools.toolSearch, catalog).
        #[arg(long, value_name = "FILE")]
        config: PathBuf,
        /// Where session logs go (default: a new temporary directory).
        #[arg(long, value_name = "DIR")]
        state_dir: Option<PathBuf>,
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Measure search quality on the realistic catalogue (plus the catalogued core tools) with
    /// the labelled queries of data/search-quality.toml: recall@1, recall@5, MRR@20 and
    /// exact-name recall (every tool searched by its own name must come first).
    ///
    /// Exit 0 when nothing regressed; 1 when exact-name recall is below 100% or recall@5 is
    /// below the baseline's (each regression is one `regression:` line on stderr); 2 when the
    /// baseline file cannot be read.
    Quality {
        /// Output on stdout: `table` (the figures next to the baseline's, then every query whose
        /// tool was not ranked first) or `json` (the full report; the committed baseline is this
        /// output).
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Compare with this report (written by `--format json`) instead of the committed
        /// data/search-quality-baseline.json.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
struct CompareArgs {
    /// Catalogue sizes, comma-separated.
    #[arg(long, default_value = "36,100,1000,10000")]
    sizes: String,
    /// Modes, comma-separated (direct, code, tools, directory).
    #[arg(long, default_value = "direct,code,tools,directory")]
    modes: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    format: CompareFormat,
    /// Also write an SVG chart of first-request bytes against catalogue size.
    #[arg(long, value_name = "FILE.svg")]
    chart: Option<PathBuf>,
}

#[derive(clap::Args)]
struct ProbesArgs {
    /// What to probe.
    #[arg(long, value_enum, default_value_t = TargetKind::Embedded)]
    target: TargetKind,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Run only this probe (repeatable; default: every probe).
    #[arg(long = "probe", value_name = "NAME")]
    probes: Vec<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum CompareFormat {
    Table,
    Json,
    Markdown,
}

#[derive(clap::Args)]
struct SuiteArgs {
    /// Scenario id to run (repeatable; default: every scenario).
    #[arg(long = "scenario", value_name = "ID")]
    scenarios: Vec<String>,
    /// Also load every *.toml scenario in this directory (repeatable).
    #[arg(long = "scenario-dir", value_name = "DIR")]
    scenario_dirs: Vec<PathBuf>,
    /// The model provider the gateways talk to.
    #[arg(long, value_enum, default_value_t = ProviderMode::MockOpenai)]
    provider_mode: ProviderMode,
    /// What to drive.
    #[arg(long, value_enum, default_value_t = TargetKind::Embedded)]
    target: TargetKind,
    /// Output on stdout: `table` (figures and claims per scenario, then the count line) or
    /// `json` (the JSON summary).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
    /// Keep only scenarios whose id contains this text.
    #[arg(long, value_name = "TEXT")]
    filter: Option<String>,
    /// Run only shard K of N (1-based; scenarios sorted by id, every N-th one), for CI matrices.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    shard: Option<(usize, usize)>,
    /// Also write JUnit XML here (one test case per scenario × lane × claim).
    #[arg(long, value_name = "FILE")]
    junit: Option<PathBuf>,
    /// Also write summary.json and report.md into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// Committed snapshots to compare payloads and session logs with; a changed one fails the run.
    #[arg(long, value_name = "DIR", default_value = "snapshots")]
    snapshot_dir: PathBuf,
    /// Write `.snap.new` files for changed or missing snapshots (review with `cargo insta review`).
    #[arg(long)]
    update_snapshots: bool,
    /// Do not compare snapshots.
    #[arg(long, conflicts_with = "update_snapshots")]
    no_snapshots: bool,
    /// Development aid: point every gateway at this provider base URL (`http://host:port/v1`)
    /// instead of starting the mock, to see how a broken provider is reported (exit code 3).
    #[arg(long, value_name = "URL", hide = true)]
    provider_url: Option<String>,
}

fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 1/4")?;
    let k: usize = k
        .trim()
        .parse()
        .map_err(|_| format!("K in {text:?} is not a whole number"))?;
    let n: usize = n
        .trim()
        .parse()
        .map_err(|_| format!("N in {text:?} is not a whole number"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {text:?} must have 1 <= K <= N"));
    }
    Ok((k, n))
}

#[derive(Clone, Copy, ValueEnum)]
enum ProviderMode {
    /// The scripted mock OpenAI provider (Responses API) on loopback.
    MockOpenai,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetKind {
    /// The project's own gateway, in-process (nothing to install).
    Embedded,
    /// A real OpenClaw gateway per lane (install it first: scripts/install-openclaw.sh).
    Openclaw,
    /// Both, reported side by side.
    Both,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Readable tables.
    Table,
    /// JSON.
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The embedded gateway runs in this process, so the probes' planted environment secret goes
    // into this process's environment, here, before any thread exists.
    let probe_secret = toolsearch_qa::probes::new_env_secret();
    if matches!(cli.command, Command::Probes(_)) {
        std::env::set_var(toolsearch_qa::probes::SECRET_ENV, &probe_secret);
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if matches!(cli.command, Command::Compare(_)) {
        // One worker: compare measures one turn at a time, and every extra thread is another
        // malloc arena holding on to freed multi-megabyte request bodies (peak RSS at 10k tools).
        builder.worker_threads(1);
    }
    let runtime = match builder.enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(3, &format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(async {
        match cli.command {
            Command::Suite(args) => suite(args).await,
            Command::Probes(args) => probes(args, probe_secret).await,
            Command::List { scenario_dirs } => list(&scenario_dirs),
            Command::Load { sessions } => load(sessions).await,
            Command::Compare(args) => compare(args).await,
            Command::Provider { port } => provider(port).await,
            Command::Gateway {
                config,
                state_dir,
                port,
            } => gateway(config, state_dir, port).await,
            Command::Quality { format, baseline } => quality(format, baseline),
        }
    })
}

fn fail(code: u8, message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(code)
}

fn harness_fail(error: HarnessError) -> ExitCode {
    match &error {
        HarnessError::Config(m) => fail(2, m),
        HarnessError::Infra(m) => fail(3, m),
    }
}

async fn compare(args: CompareArgs) -> ExitCode {
    use toolsearch_qa::compare::{
        chart, parse_modes, parse_sizes, render, run_compare, CompareOptions,
    };
    let options = match (parse_sizes(&args.sizes), parse_modes(&args.modes)) {
        (Ok(sizes), Ok(modes)) => CompareOptions { sizes, modes },
        (Err(e), _) => return fail(2, &format!("--sizes: {e}")),
        (_, Err(e)) => return fail(2, &format!("--modes: {e}")),
    };
    let report = match run_compare(options).await {
        Ok(report) => report,
        Err(e) => return harness_fail(e),
    };
    if let Some(path) = &args.chart {
        if let Err(e) = std::fs::write(path, chart::svg(&report)) {
            return fail(3, &format!("cannot write {}: {e}", path.display()));
        }
    }
    match args.format {
        CompareFormat::Table => print!("{}", render::table(&report)),
        CompareFormat::Markdown => print!("{}", render::markdown(&report)),
        CompareFormat::Json => match render::json(&report) {
            Ok(text) => println!("{text}"),
            Err(e) => return fail(3, &format!("cannot render JSON: {e}")),
        },
    }
    ExitCode::SUCCESS
}

async fn suite(args: SuiteArgs) -> ExitCode {
    let ProviderMode::MockOpenai = args.provider_mode;
    let scenarios = match load_all(&args.scenario_dirs).and_then(|all| select(all, &args.scenarios))
    {
        Ok(s) => s,
        Err(e) => return fail(2, &e.to_string()),
    };
    let scenarios = narrow(scenarios, args.filter.as_deref(), args.shard);
    let targets = match targets(args.target) {
        Ok(t) => t,
        Err(e) => return harness_fail(e),
    };
    let source = args
        .provider_url
        .clone()
        .map_or(ProviderSource::Mock, ProviderSource::Url);
    let mut reports = Vec::new();
    for target in &targets {
        let lanes = scenarios.iter().map(|s| s.lanes.len() as u64).sum();
        let progress = Progress::new(lanes);
        let result = run_suite_on(target.as_ref(), &scenarios, &source, &|s, l| {
            progress.lane(s, l)
        })
        .await;
        progress.finish();
        let mut report = match result {
            Ok(r) => r,
            Err(e) => return harness_fail(e),
        };
        // Snapshots are taken on the embedded target, the reference for payload bytes.
        if target.name() == "embedded" && !args.no_snapshots {
            if let Err(e) = report.check_snapshots(&args.snapshot_dir, args.update_snapshots) {
                return fail(
                    3,
                    &format!("snapshots in {}: {e}", args.snapshot_dir.display()),
                );
            }
        }
        reports.push(report);
    }
    let report = match reports.len() {
        1 => reports.remove(0),
        _ => {
            match args.format {
                Format::Table => print!("{}", side_by_side(&reports)),
                Format::Json => println!("{}", side_by_side_json(&reports)),
            }
            let ok = reports.iter().all(|r| r.ok);
            return if ok {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            };
        }
    };
    match args.format {
        Format::Table => print!("{}", report.to_table()),
        Format::Json => println!("{}", report.to_json()),
    }
    if let Err(message) = write_reports(&report, args.junit.as_deref(), args.report_dir.as_deref())
    {
        return fail(3, &message);
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The targets `kind` names; the openclaw one must be installed.
fn targets(kind: TargetKind) -> Result<Vec<Box<dyn Target>>, HarnessError> {
    Ok(match kind {
        TargetKind::Embedded => vec![Box::new(EmbeddedTarget)],
        TargetKind::Openclaw => vec![Box::new(OpenClawTarget::locate()?)],
        TargetKind::Both => vec![
            Box::new(EmbeddedTarget),
            Box::new(OpenClawTarget::locate()?),
        ],
    })
}

/// Exit 0 when every probe is contained, 1 when any escaped, 3 when any is inconclusive (the
/// run could not judge it: an incomplete run is not a verdict).
async fn probes(args: ProbesArgs, env_secret: String) -> ExitCode {
    use toolsearch_qa::probes::{reports_json, run_probes, Plant};
    use toolsearch_qa::sandbox::probes::{probe, PROBES};
    let mut selected = Vec::new();
    for name in &args.probes {
        match probe(name) {
            Some(p) => selected.push(*p),
            None => {
                let known: Vec<&str> = PROBES.iter().map(|p| p.name).collect();
                return fail(
                    2,
                    &format!("unknown probe {name:?}; known: {}", known.join(", ")),
                );
            }
        }
    }
    if selected.is_empty() {
        selected = PROBES.to_vec();
    }
    let targets = match targets(args.target) {
        Ok(t) => t,
        Err(e) => return harness_fail(e),
    };
    let plant = match Plant::new(&env_secret) {
        Ok(p) => p,
        Err(e) => return harness_fail(e),
    };
    let mut reports = Vec::new();
    for target in &targets {
        match run_probes(target.as_ref(), &selected, &plant).await {
            Ok(report) => reports.push(report),
            Err(e) => return harness_fail(e),
        }
    }
    match args.format {
        Format::Table => {
            for report in &reports {
                print!("{}", report.to_table());
            }
        }
        Format::Json => println!("{:#}", reports_json(&reports)),
    }
    let inconclusive: usize = reports.iter().map(|r| r.inconclusive).sum();
    if inconclusive > 0 {
        return fail(
            3,
            &format!("{inconclusive} probe(s) inconclusive: the run could not judge them (see the evidence column)"),
        );
    }
    if reports.iter().all(|r| r.ok) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Applies `--filter` and `--shard` (scenarios sorted by id first, so shards are stable).
fn narrow(
    mut scenarios: Vec<Scenario>,
    filter: Option<&str>,
    shard: Option<(usize, usize)>,
) -> Vec<Scenario> {
    if let Some(text) = filter {
        scenarios.retain(|s| s.id.contains(text));
    }
    if let Some((k, n)) = shard {
        scenarios.sort_by(|a, b| a.id.cmp(&b.id));
        scenarios = scenarios
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k - 1)
            .map(|(_, s)| s)
            .collect();
    }
    scenarios
}

fn write_reports(
    report: &SuiteReport,
    junit: Option<&Path>,
    report_dir: Option<&Path>,
) -> Result<(), String> {
    let write = |path: &Path, text: String| {
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    if let Some(path) = junit {
        write(path, junit_xml(report)?)?;
    }
    if let Some(dir) = report_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        write(&dir.join("summary.json"), report.to_json() + "\n")?;
        write(&dir.join("report.md"), report.to_markdown())?;
    }
    Ok(())
}

/// A progress bar on stderr, only when stderr is a terminal (never in CI logs).
struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    fn new(lanes: u64) -> Self {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(lanes);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} lanes  {msg}")
        {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    fn lane(&self, scenario: &Scenario, lane: &Lane) {
        if let Some(bar) = &self.0 {
            bar.set_message(format!("{} / {}", scenario.id, lane.name));
            bar.inc(1);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

fn list(dirs: &[PathBuf]) -> ExitCode {
    match load_all(dirs) {
        Ok(all) => {
            for s in all {
                let lanes: Vec<&str> = s.lanes.iter().map(|l| l.name.as_str()).collect();
                println!(
                    "{}\t{}\tlanes: {}\t({})",
                    s.id,
                    s.title,
                    lanes.join(", "),
                    s.origin
                );
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(2, &e.to_string()),
    }
}

/// Exit 0 when every session is complete and separate, 1 when not (each problem on stderr).
async fn load(sessions: usize) -> ExitCode {
    match toolsearch_qa::load::run_load(sessions).await {
        Ok(report) => {
            println!("{}", report.summary());
            for problem in &report.problems {
                eprintln!("problem: {problem}");
            }
            ExitCode::from(u8::from(!report.problems.is_empty()))
        }
        Err(e) => harness_fail(e),
    }
}

async fn provider(port: u16) -> ExitCode {
    match toolsearch_qa::provider::MockProvider::start_on(port).await {
        Ok(p) => {
            println!("mock provider listening: {}", p.base_url());
            let _ = tokio::signal::ctrl_c().await;
            ExitCode::SUCCESS
        }
        Err(e) => fail(3, &format!("mock provider did not start: {e}")),
    }
}

async fn gateway(config: PathBuf, state_dir: Option<PathBuf>, port: u16) -> ExitCode {
    let loaded = match toolsearch_qa::config::load_file(&config) {
        Ok(c) => c,
        Err(e) => return fail(2, &e.to_string()),
    };
    let (state_dir, _keep) = match state_dir {
        Some(dir) => (dir, None),
        None => match tempfile::tempdir() {
            Ok(t) => (t.path().to_path_buf(), Some(t)),
            Err(e) => return fail(3, &format!("cannot create a state dir: {e}")),
        },
    };
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    match toolsearch_qa::gateway::serve(loaded, state_dir.clone(), addr).await {
        Ok(g) => {
            println!(
                "gateway listening: {} (state dir {})",
                g.base_url(),
                state_dir.display()
            );
            let _ = tokio::signal::ctrl_c().await;
            g.stop().await;
            ExitCode::SUCCESS
        }
        Err(e) => fail(3, &e.to_string()),
    }
}

fn quality(format: Format, baseline: Option<PathBuf>) -> ExitCode {
    use toolsearch_qa::quality::{measure_builtin, Baseline};
    let baseline = match &baseline {
        None => Baseline::builtin().map_err(|e| e.to_string()),
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| Baseline::parse(&text).map_err(|e| e.to_string()))
            .map_err(|e| format!("--baseline {}: {e}", path.display())),
    };
    let baseline = match baseline {
        Ok(b) => b,
        Err(e) => return fail(2, &e),
    };
    let report = match measure_builtin() {
        Ok(r) => r,
        Err(e) => return fail(2, &e.to_string()),
    };
    match format {
        Format::Table => print!("{}", report.to_table(Some(&baseline))),
        Format::Json => println!("{}", report.to_json()),
    }
    let regressions = report.regressions(&baseline);
    for r in &regressions {
        eprintln!("regression: {r}");
    }
    if regressions.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
