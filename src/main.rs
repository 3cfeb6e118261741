//! `toolsearch-qa`: the command line. It parses flags ([`cli`]) and calls the library; the
//! library's [`Error`] knows its exit code ([`Exit`] names them all).
//!
//! [`Exit`]: toolsearch_qa::error::Exit

use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use toolsearch_qa::cli::{self, args::AdoptArgs, Cli, Command};
use toolsearch_qa::error::Error;
use toolsearch_qa::output::warn;
use toolsearch_qa::signals::Signals;

/// glibc's malloc raises its mmap threshold to the size of each large block freed, so after the
/// first 5 MB request body every later one comes from the heap and stays there once freed
/// (compare at 10,000 tools: 205 MB peak; with a fixed 1 MiB threshold 194 MB, the bound is 200).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn return_large_blocks_to_the_system() {
    // SAFETY: mallopt only sets an allocator parameter; it is called before any other thread
    // exists (the runtime is not built yet).
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn return_large_blocks_to_the_system() {}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // This executable serves the MCP fixtures its gateways start, under whatever name it has.
    toolsearch_qa::mcp_fixture::serve_from_this_executable();
    // The embedded gateway runs in this process, so the probes' planted environment secret goes
    // into this process's environment, here, before any thread exists.
    let probe_secret = toolsearch_qa::probes::new_env_secret();
    if matches!(cli.command, Command::Probes(_) | Command::Adopt(_)) {
        std::env::set_var(toolsearch_qa::probes::SECRET_ENV, &probe_secret);
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if matches!(cli.command, Command::Compare(_)) {
        // One worker: compare measures one turn at a time, and every extra thread is another
        // malloc arena holding on to freed multi-megabyte request bodies (peak RSS at 10k tools).
        builder.worker_threads(1);
        return_large_blocks_to_the_system();
    }
    let data_dir = match &cli.command {
        Command::Adopt(AdoptArgs {
            root: Some(root), ..
        }) => Some(root.clone()),
        _ => cli.data_dir.clone(),
    };
    let result = toolsearch_qa::data_root::init(data_dir.as_deref())
        .map_err(|e| Error::Usage(e.to_string()))
        .and_then(|_| {
            builder
                .enable_all()
                .build()
                .map_err(|e| Error::Machine(format!("cannot start the async runtime: {e}")))
        })
        .and_then(|runtime| {
            let result = runtime.block_on(run(cli.command, probe_secret));
            // Tasks still running (a turn in flight when a signal came) end here, before exit.
            runtime.shutdown_timeout(Duration::from_secs(2));
            result
        });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(error) => {
            warn(error.report(std::io::stderr().is_terminal()).trim_end());
            ExitCode::from(error.exit_code())
        }
    }
}

/// Installs the signal handlers, then runs the command under them ([`cli::dispatch::run`]).
async fn run(command: Command, probe_secret: String) -> Result<u8, Error> {
    let mut signals = Signals::install()
        .map_err(|e| Error::Machine(format!("cannot install signal handlers: {e}")))?;
    cli::dispatch::run(command, probe_secret, &mut signals).await
}
