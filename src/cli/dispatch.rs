//! Each command handed to its room, with SIGINT, SIGTERM and SIGHUP caught around it.

use std::future::Future;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::pin::Pin;

use super::args::{Command, ProfileCommand, RankerArg, ReportAction};
use super::progress::Progress;
use crate::error::Error;
use crate::output::warn;
use crate::signals::Signals;
use crate::suite::command::default_snapshot_dir;

/// Runs the command with SIGINT, SIGTERM and SIGHUP caught (`signals`, installed by the caller):
/// `provider` and `gateway` stop on one (exit 0); any other command is dropped where it stands —
/// which stops the gateways it started and removes its temp dirs — and exits with 128 + the
/// signal's number.
pub async fn run(
    command: Command,
    probe_secret: String,
    signals: &mut Signals,
) -> Result<u8, Error> {
    let stdout = &mut std::io::stdout();
    let verdict: Pin<Box<dyn Future<Output = Result<u8, Error>> + '_>> = match command {
        Command::Provider { port, script } => {
            return crate::commands::provider(port, script.as_deref(), signals, stdout).await;
        }
        Command::Gateway {
            config,
            state_dir,
            port,
        } => {
            return crate::commands::gateway(&config, state_dir, port, signals, stdout).await;
        }
        Command::Suite(args) => Box::pin(async move {
            let progress = Progress::new();
            let options = args.options().await?;
            let code = crate::suite::command::command(&options, &progress, stdout).await;
            progress.finish();
            code
        }),
        Command::Selftest {
            seeds,
            target,
            openclaw_node,
            openclaw_build,
            baseline,
            product_seeds,
            unseeded,
            packed,
            format,
        } => Box::pin(async move {
            let node = crate::cli::args::NodeArg {
                openclaw_version: None,
                openclaw_build,
                node_major: crate::cli::args::NodeMajorArg {
                    openclaw_node: Some(openclaw_node),
                },
            };
            let pick = node.target(target, baseline.version).await?.openclaw;
            crate::selftest::command(
                &seeds,
                target,
                crate::selftest::ProductSeedRun {
                    which: product_seeds,
                    unseeded,
                    seed_as: match packed {
                        true => crate::selftest::SeedAs::Tarball,
                        false => crate::selftest::SeedAs::Copy,
                    },
                },
                &pick,
                format,
                stdout,
            )
            .await
        }),
        Command::Probes(args) => Box::pin(async move {
            let request = crate::probes::ProbesRequest {
                target: args.node.target(args.target, args.baseline.version).await?,
                names: args.probes,
                expectations: args.expectations,
                env_secret: probe_secret,
            };
            crate::probes::command(&request, args.format, stdout).await
        }),
        Command::List {
            scenario_dirs,
            with_builtins,
        } => Box::pin(async move { crate::commands::list(&scenario_dirs, with_builtins, stdout) }),
        Command::Check { files } => Box::pin(async move {
            let stderr = &mut std::io::stderr();
            let excerpts = std::io::stderr().is_terminal();
            crate::commands::check(&files, excerpts, stdout, stderr)
        }),
        Command::Snapshots {
            action,
            scenario,
            snapshot_dir,
        } => Box::pin(async move {
            crate::snapshot_review::command(
                action.into(),
                &snapshot_dir.unwrap_or_else(default_snapshot_dir),
                scenario.as_deref(),
                stdout,
            )
        }),
        Command::Report {
            action: ReportAction::Times { dirs },
        } => Box::pin(async move {
            use crate::suite::expected;
            let mut reports = Vec::new();
            for dir in &dirs {
                let parts = crate::suite::merge::read_dir(dir)?;
                reports.extend(parts.into_iter().map(|p| p.report));
            }
            let scenarios = crate::scenario::load_all(&[])?;
            let model = expected::fit(&reports, &scenarios, expected::Model::committed());
            std::io::Write::write_all(stdout, expected::render(&model).as_bytes())
                .map_err(|e| Error::Machine(format!("cannot write to stdout: {e}")))?;
            Ok(0)
        }),
        Command::Report {
            action:
                ReportAction::Merge {
                    dirs,
                    format,
                    verbose,
                    junit,
                    report_dir,
                    runs,
                },
        } => Box::pin(async move {
            let options = crate::suite::merge::MergeOptions {
                dirs,
                format,
                verbose,
                junit,
                report_dir,
                runs,
            };
            crate::suite::merge::run(&options, stdout)
        }),
        Command::Report {
            action: ReportAction::Records { dirs },
        } => Box::pin(async move {
            let root = data_root_dir()?;
            crate::releases::matrix::records_command(&dirs, &root, stdout)
        }),
        Command::NewScenario { id, dir, size } => {
            Box::pin(async move { crate::commands::new_scenario(&id, &dir, size, stdout) })
        }
        Command::Load { sessions } => Box::pin(crate::load::command(sessions, stdout)),
        Command::Compare(args) => Box::pin(async move {
            let command = crate::compare::CompareCommand {
                sizes: args.sizes,
                modes: args.modes,
                profile: args.profile,
                price: args.price,
                price_file: args.price_file,
                format: args.format,
                chart_dir: args.chart,
                target: args.node.target(args.target, args.baseline.version).await?,
                catalog: args.catalog,
            };
            crate::compare::command(command, stdout).await
        }),
        Command::Profile(ProfileCommand::Capture(args)) => Box::pin(async move {
            let options = crate::capture::CaptureOptions {
                target: args.node.target(args.target, args.baseline.version).await?,
                out: args.out,
                with_text: args.with_text,
                bound_size: args.bound_size,
                profile: args.profile,
            };
            crate::capture::command(&options, stdout).await
        }),
        Command::Adopt(args) => Box::pin(async move {
            let options = crate::releases::adopt::AdoptOptions {
                openclaw: args.pick()?,
                root: data_root_dir()?,
                force: args.force,
                record_only: args.record_only,
                carry_only: args.carry_only,
                scenarios: args.scenarios,
            };
            crate::releases::adopt::command(&options, probe_secret, stdout).await
        }),
        Command::Regressions { root, changes } => Box::pin(async move {
            let root = match root {
                Some(root) => root,
                None => data_root_dir()?,
            };
            crate::regressions::command(&root, changes, stdout)
        }),
        Command::CheckReasons {
            versions,
            skip_missing,
        } => Box::pin(async move {
            let options = crate::releases::reasons::ReasonsOptions {
                versions,
                skip_missing,
            };
            crate::releases::reasons::command(&options, stdout)
        }),
        Command::Matrix(args) => Box::pin(async move {
            let options = crate::releases::matrix::MatrixOptions {
                versions: args.versions,
                scenarios: args.scenarios,
                shard: args.shard,
                node: args.openclaw_node,
                format: args.format,
                verbose: args.verbose,
                junit: args.junit,
                report_dir: args.report_dir,
                record: if args.record {
                    Some(data_root_dir()?)
                } else {
                    None
                },
            };
            let progress = Progress::new();
            let code = crate::releases::matrix::command(&options, &progress, stdout).await;
            progress.finish();
            code
        }),
        Command::PayloadTable { root } => Box::pin(async move {
            let root = match root {
                Some(root) => root,
                None => data_root_dir()?,
            };
            crate::releases::payload::command(&root, stdout)
        }),
        Command::DiffReleases(args) => Box::pin(async move {
            let root = crate::data_root::current().path("");
            let live = args.live.then(|| args.node_major.node());
            match (args.openclaw_build, args.after) {
                (Some(build), _) => {
                    let node = crate::cli::args::NodeArg {
                        openclaw_version: None,
                        openclaw_build: Some(build),
                        node_major: args.node_major,
                    };
                    let pick = node
                        .target(
                            crate::targets::TargetChoice::Openclaw,
                            args.baseline.version,
                        )
                        .await?
                        .openclaw;
                    let after = crate::releases::After::Build(&pick);
                    crate::releases::diff_with(
                        &args.before,
                        after,
                        live,
                        &root,
                        args.format,
                        stdout,
                    )
                    .await
                }
                (None, Some(after)) => {
                    crate::releases::diff_command(
                        &args.before,
                        &after,
                        live,
                        &root,
                        args.format,
                        stdout,
                    )
                    .await
                }
                (None, None) => Err(Error::Usage(
                    "diff-releases: give the later release B or --openclaw-build PATH".into(),
                )),
            }
        }),
        Command::McpFixture { server, tool_list } => Box::pin(async move {
            use crate::mcp_fixture::{serve_stdio, tool_list as list, FixtureError};
            let served = match (server, tool_list) {
                (_, Some(path)) => list::serve_stdio(&path).await,
                (Some(server), None) => serve_stdio(&server).await,
                (None, None) => {
                    return Err(Error::Usage(
                        "mcp-fixture: give --server or --tool-list".into(),
                    ))
                }
            };
            served.map_err(|e| match e {
                FixtureError::Unknown { .. } => Error::Usage(e.to_string()),
                other => Error::Machine(other.to_string()),
            })?;
            Ok(crate::error::Exit::OK)
        }),
        Command::Quality(args) => Box::pin(async move {
            let options = crate::quality::QualityOptions {
                format: args.format,
                target: args.node.target(args.target, args.baseline_release).await?,
                ranker: match args.ranker {
                    RankerArg::Lexical => crate::engine::Ranker::Lexical,
                    RankerArg::Hybrid => crate::engine::Ranker::Hybrid,
                },
                set: args.set,
                catalog: args.catalog,
                baseline: args.baseline,
                tune: args.tune,
                bfcl: args.bfcl,
                half: args.half,
            };
            crate::quality::command(&options, stdout).await
        }),
    };
    tokio::select! {
        result = verdict => result,
        signal = signals.next() => {
            warn(&format!(
                "{}: stopped before the verdict; its gateways and temp dirs are cleaned up",
                signal.name()
            ));
            Ok(signal.exit_code())
        }
    }
}

/// The data root's folder, for a command that writes release data into it.
fn data_root_dir() -> Result<PathBuf, Error> {
    let root = crate::data_root::current();
    root.dir().map(|d| d.to_path_buf()).ok_or_else(|| {
        Error::Usage(
            "no tree to write release data into: run in a checkout of toolsearch-qa (or a tree \
             with data/releases/ and data/profiles/), or pass --data-dir DIR"
                .into(),
        )
    })
}
