//! `toolsearch-qa`: the command line. Parsing and exit codes live here; the work is in the library.
//!
//! Exit codes: 0 every claim holds · 1 a claim failed · 2 usage, scenario or config error ·
//! 3 infrastructure error (a provider or gateway that would not start or answer).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use toolsearch_qa::harness::scenario::{load_all, select};
use toolsearch_qa::harness::target::EmbeddedTarget;
use toolsearch_qa::harness::{run_suite, HarnessError};

#[derive(Parser)]
#[command(name = "toolsearch-qa", version, about = "QA and benchmark harness for LLM-agent Tool Search gateways")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios: start the mock provider, a gateway per lane, send the turn, check the claims.
    Suite(SuiteArgs),
    /// List the scenarios (built in and from --scenario-dir).
    List {
        /// Also load every *.toml scenario in this directory (repeatable).
        #[arg(long = "scenario-dir", value_name = "DIR")]
        scenario_dirs: Vec<PathBuf>,
    },
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
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    format: Format,
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
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Readable tables of figures and claims.
    Table,
    /// The JSON summary.
    Json,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => return fail(3, &format!("cannot start the async runtime: {e}")),
    };
    runtime.block_on(async {
        match cli.command {
            Command::Suite(args) => suite(args).await,
            Command::List { scenario_dirs } => list(&scenario_dirs),
            Command::Provider { port } => provider(port).await,
            Command::Gateway { config, state_dir, port } => gateway(config, state_dir, port).await,
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

async fn suite(args: SuiteArgs) -> ExitCode {
    let ProviderMode::MockOpenai = args.provider_mode;
    let TargetKind::Embedded = args.target;
    let scenarios = match load_all(&args.scenario_dirs).and_then(|all| select(all, &args.scenarios)) {
        Ok(s) => s,
        Err(e) => return fail(2, &e.to_string()),
    };
    let report = match run_suite(&EmbeddedTarget, &scenarios).await {
        Ok(r) => r,
        Err(e) => return harness_fail(e),
    };
    match args.format {
        Format::Table => print!("{}", report.to_table()),
        Format::Json => println!("{}", report.to_json()),
    }
    if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn list(dirs: &[PathBuf]) -> ExitCode {
    match load_all(dirs) {
        Ok(all) => {
            for s in all {
                let lanes: Vec<&str> = s.lanes.iter().map(|l| l.name.as_str()).collect();
                println!("{}\t{}\tlanes: {}\t({})", s.id, s.title, lanes.join(", "), s.origin);
            }
            ExitCode::SUCCESS
        }
        Err(e) => fail(2, &e.to_string()),
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
            println!("gateway listening: {} (state dir {})", g.base_url(), state_dir.display());
            let _ = tokio::signal::ctrl_c().await;
            g.stop().await;
            ExitCode::SUCCESS
        }
        Err(e) => fail(3, &e.to_string()),
    }
}
