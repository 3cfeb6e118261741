//! The clap structs: every command's flags and their help text, as `--help` prints them.

use std::path::PathBuf;
use std::sync::Arc;

use clap::{Parser, Subcommand, ValueEnum};

use crate::compare::CompareFormat;
use crate::error::Error;
use crate::outcome::Shard;
use crate::output::Format;
use crate::suite::command::{SnapshotDir, Snapshots, SuiteOptions};
use crate::suite::{ProviderSource, RunRequest};
use crate::targets::openclaw::{build, NodeMajor, Pick, Source, Version};
use crate::targets::{TargetChoice, TargetPick};

#[derive(Parser)]
#[command(
    name = "toolsearch-qa",
    version,
    about = "QA and benchmark harness for LLM-agent Tool Search gateways",
    after_help = "Exit codes: 0 every claim holds · 1 a claim failed (or a snapshot changed or is \
                  missing, a probe escaped, quality regressed) · 2 usage, scenario or config error \
                  · 3 infrastructure error (the provider, a gateway or the machine would not do \
                  its part) · 130/143/129 ended by SIGINT/SIGTERM/SIGHUP before the verdict, with \
                  every gateway it started stopped and its temp dirs removed"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Read release data (data/releases/, data/profiles/, expectations/, snapshots/, search
    /// baselines) from this tree at run time. Default: the working directory when it is a
    /// checkout (it has data/releases/ and data/profiles/), else the copy built into the binary.
    #[arg(long, global = true, value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run scenarios: start the mock provider and the gateways, send each lane's turn, check the claims.
    Suite(SuiteArgs),
    /// Prove the claims bite: run built-in scenarios on a gateway seeded with one known
    /// regression each and report per seed whether its claim caught it (docs/selftest.md). Exit
    /// 0 when every seed is caught, 1 when one is missed (or a scenario fails unseeded), 3 when a
    /// lane cannot run.
    Selftest {
        /// Only these seeds (by name, or every seed of a claim id such as `C4`); repeatable.
        #[arg(long = "seed", value_name = "NAME")]
        seeds: Vec<String>,
        /// The embedded gateway's seeds, a real OpenClaw's (what a user controls), or both.
        #[arg(long, value_enum, default_value_t = TargetChoice::Embedded)]
        target: TargetChoice,
        /// The Node major a real OpenClaw runs on.
        #[arg(long, value_enum, default_value_t = NodeMajor::default())]
        openclaw_node: NodeMajor,
        /// Run the real OpenClaw's seeds on this build instead of the newest release: a tarball
        /// `npm pack` or `pnpm pack` made (the product seeds patch a copy of its install; each
        /// patch must fit the build's files), or, without product seeds, an unpacked package.
        /// Needs --target openclaw.
        #[arg(long, value_name = "PATH")]
        openclaw_build: Option<PathBuf>,
        #[command(flatten)]
        baseline: BaselineArg,
        /// On a real OpenClaw: the product seeds (data/product-seeds/, bugs as filed patched into
        /// a copy of the release) beside the other seeds, alone, or not at all.
        #[arg(long, value_enum, default_value_t = crate::selftest::ProductSeeds::With)]
        product_seeds: crate::selftest::ProductSeeds,
        /// Product seeds: first run their lanes unseeded on the release as published (a lane
        /// failing there makes its seed unviable), or skip that run, as .ci/run does right after
        /// its tests ran every built-in scenario there. Skipped, a seed is still caught only by a
        /// failure the release's accepted findings do not cover.
        #[arg(long, value_enum, default_value_t = crate::selftest::Unseeded::Run)]
        unseeded: crate::selftest::Unseeded,
        /// Product seeds as builds (issue #54): each seed's patched copy of the release (the
        /// newest with data, or TOOLSEARCH_QA_OPENCLAW_VERSION's) packed by npm pack into
        /// <cache>/packed/ (named with the seed file's sha256, so packed once), installed as --openclaw-build does (the release's
        /// dependencies linked, no npm install) and run on the seed's lanes as a build judged
        /// against that release. Caught only when that run exits 1 with the seed's claims, and
        /// no other, among its build-against-baseline new failures. Unless --unseeded skip, the
        /// release packed unpatched runs every seed's lanes first and must exit 0. Needs
        /// --target openclaw; not with --openclaw-build.
        #[arg(long, conflicts_with = "openclaw_build")]
        packed: bool,
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
    },
    /// Run the hostile-code probes through a gateway's `tool_search_code` (one gateway start per
    /// target); one row per probe: contained, ESCAPED or inconclusive, with the evidence.
    Probes(ProbesArgs),
    /// Check scenario files without running them: every field, tool name, lane and claim, as
    /// `suite` would load them. Exit 0 when every file loads, 2 when one does not (one error line
    /// per problem on stderr, every problem of a file): a pre-commit check.
    Check {
        /// Scenario files, or directories whose *.toml files to check.
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
    /// Write a new scenario file that passes as written: a fake plugin, every lane mode (direct,
    /// code, tools, directory) with exact expectations, the claims that apply in comments. Prints
    /// the six commands that follow (check it, run it, write, review and accept its snapshots, the
    /// gated run).
    NewScenario {
        /// The scenario id (also the file name: ID.toml).
        id: String,
        /// Where to write the file.
        #[arg(long, value_name = "DIR", default_value = ".")]
        dir: PathBuf,
        /// How many fake tools the plugin has (names are zero-padded to its width).
        #[arg(long, default_value_t = 36)]
        size: usize,
    },
    /// Settle the pending snapshots (`.snap.new`) that `suite --update-snapshots` wrote: `review`
    /// prints each as a unified diff against its committed `.snap` (a new one as all additions),
    /// `accept` renames each over its `.snap`, `reject` deletes it. Insta's files, so `cargo
    /// insta review` settles them too; this needs nothing installed. Exit 0; 2 when the directory
    /// does not exist or the scenario has no snapshot there.
    Snapshots {
        /// review, accept or reject.
        #[arg(value_enum)]
        action: SnapshotAction,
        /// Only this scenario's snapshots (`<ID>__<lane>__provider|session`).
        #[arg(long, value_name = "ID")]
        scenario: Option<String>,
        /// Where the snapshots are, subfolders included (default: snapshots/ of the current
        /// directory, the built-in scenarios'; a --scenario-dir scenario's are in DIR/snapshots/).
        #[arg(long, value_name = "DIR")]
        snapshot_dir: Option<PathBuf>,
    },
    /// Work with the report directories that `suite --report-dir` wrote (docs/ci.md, "Fan-out").
    Report {
        #[command(subcommand)]
        action: ReportAction,
    },
    /// List the scenarios (the built-in ones, or those of --scenario-dir).
    List {
        /// List the *.toml scenarios of this directory instead of the built-in ones
        /// (repeatable).
        #[arg(long = "scenario-dir", value_name = "DIR")]
        scenario_dirs: Vec<PathBuf>,
        /// With --scenario-dir: the built-in scenarios too.
        #[arg(long, requires = "scenario_dirs")]
        with_builtins: bool,
    },
    /// Run N concurrent sessions through one embedded gateway; print p50/p99 turn latency.
    Load {
        /// How many concurrent one-turn sessions.
        #[arg(long, default_value_t = 200)]
        sessions: usize,
    },
    /// Compare what each mode costs across catalogue sizes: payload, tokens with the prompt cache,
    /// money (real turns on loopback).
    Compare(CompareArgs),
    /// Run the mock OpenAI provider on loopback until interrupted.
    Provider {
        /// Port to listen on (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
        /// Follow this model script instead of the prompt's directive: a TOML file of
        /// `[[script]]` tables (`tool` + `arguments`, or `text`), as in a scenario file.
        #[arg(long, value_name = "FILE")]
        script: Option<PathBuf>,
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
    /// Gateway profiles: what a gateway shows the model besides the catalogue.
    #[command(subcommand)]
    Profile(ProfileCommand),
    /// Serve one of the project's MCP fixture servers on stdin/stdout (what the gateways start).
    #[command(name = "mcp-fixture", hide = true)]
    McpFixture {
        /// calendar or qa (or a fault fixture: fault-exit, fault-garbage, fault-hang-on-list).
        #[arg(long, value_name = "NAME", required_unless_present = "tool_list")]
        server: Option<String>,
        /// Serve the tools of this JSON tool list instead (what `compare --catalog FILE.json`
        /// starts).
        #[arg(long, value_name = "FILE", conflicts_with = "server")]
        tool_list: Option<PathBuf>,
    },
    /// Measure search quality: recall@1, recall@5, MRR@20 and exact-name recall (every tool
    /// searched by its own name must come first) of a labelled query set — by default the
    /// built-in data/search-quality.toml on the realistic catalogue plus the catalogued core
    /// tools — on its tuning half (queries 1, 3, 5, …) and test half (queries 2, 4, 6, …).
    ///
    /// Exit 0 when nothing regressed; 1 when exact-name recall is below 100% or recall@1 or
    /// recall@5 of either half is below the baseline's (each regression is one `regression:`
    /// line on stderr); 2 on a usage, set, catalogue or baseline error or a missing model.
    Quality(QualityArgs),
    /// Adopt an OpenClaw release: run every built-in scenario and the probes on it, capture its
    /// profile, write its snapshots, surface facts and run record, and draft
    /// expectations/openclaw-X.toml with every failing check under reason TODO (the suite refuses
    /// a TODO reason, exit 2, until a person writes it). Install the release first:
    /// scripts/install-openclaw.sh --version X.
    Adopt(AdoptArgs),
    /// What changed in Tool Search from release A to release B: per scenario and lane the first
    /// request's and the whole turn's bytes, declared tools, directory lines and the tool path,
    /// then every claim verdict and accepted finding that changed. From the committed data of
    /// both (data/releases/openclaw-<v>.run.json, expectations/) or, with --live, from a run of
    /// each.
    DiffReleases(DiffArgs),
    /// Run built-in scenarios on a set of adopted releases (default: every one), each on the
    /// newest Node major it accepts, against its own accepted findings and snapshots. With
    /// --shard K/N every release runs the same shard of the scenarios, so N machines together run
    /// everything once; `report merge` of their --report-dir gives the one verdict. Same exit
    /// codes as suite.
    Matrix(MatrixArgs),
    /// BENCHMARKS.md's payload per Tool Search mode across the adopted releases: the reference
    /// scenario's first request (bytes, tokens), last request and declared tools per mode, and
    /// the directory's lines, one markdown row per release, from the committed run records
    /// (data/releases/openclaw-<v>.run.json; `adopt --record-only` rewrites one).
    PayloadTable {
        /// The checkout to read (default: the data root, the working directory when it is a
        /// checkout; see --data-dir).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    /// Check that every dist file and code identifier each accepted finding's reason names
    /// (expectations/openclaw-<v>.toml) exists in that release's own install
    /// (<cache>/openclaw-<v>/node_modules/openclaw/dist/). One line per name a release lacks,
    /// then a count. Exit 0 when every citation holds, 1 when one does not, 2 on a usage error,
    /// 3 when a release to check is not installed (unless --skip-missing).
    CheckReasons {
        /// The release to check; repeatable (default: every release with an expectations file).
        #[arg(long = "openclaw-version", value_name = "V")]
        versions: Vec<Version>,
        /// Pass over a release that is not installed (still named) instead of exiting 3.
        #[arg(long)]
        skip_missing: bool,
    },
    /// Would the gate have caught the bugs OpenClaw shipped? Print docs/regressions.md: each
    /// upstream issue (data/upstream-regressions.toml) on each adopted release, red (an accepted
    /// finding citing the issue), green (its scenario ran and held), `-` (not run there) or n/a,
    /// and every red → green pair. Read from the committed data only.
    Regressions {
        /// The checkout to read (default: the data root, the working directory when it is a
        /// checkout; see --data-dir).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
        /// Print instead the releases at either end of a colour change (consecutive releases an
        /// issue's scenario ran on, red on one and green on the other), one per line: the
        /// releases to replay the upstream-* scenarios on first after a change to them.
        #[arg(long)]
        changes: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
pub enum SnapshotAction {
    /// Print each pending snapshot as a unified diff against its committed one.
    Review,
    /// Rename each pending `.snap.new` over its `.snap`.
    Accept,
    /// Delete each pending `.snap.new`.
    Reject,
}

impl From<SnapshotAction> for crate::snapshot_review::Action {
    fn from(action: SnapshotAction) -> Self {
        use crate::snapshot_review::Action;
        match action {
            SnapshotAction::Review => Action::Review,
            SnapshotAction::Accept => Action::Accept,
            SnapshotAction::Reject => Action::Reject,
        }
    }
}

#[derive(clap::Args)]
pub struct AdoptArgs {
    /// The release to adopt (installed by scripts/install-openclaw.sh --version X).
    #[arg(long, value_name = "X", env = "TOOLSEARCH_QA_OPENCLAW_VERSION")]
    pub openclaw_version: Version,
    #[command(flatten)]
    pub node_major: NodeMajorArg,
    /// Draft again a release that has an expectations file already.
    #[arg(long)]
    pub force: bool,
    /// Only write the run record (data/releases/openclaw-X.run.json, what diff-releases reads)
    /// of a release adopted already; nothing else is written.
    #[arg(long, conflicts_with = "force")]
    pub record_only: bool,
    /// With --record-only: run only these scenarios (repeatable) and replace their entries in
    /// the committed record, keeping every other scenario's (a scenario that needs a gateway of
    /// its own, or one added later).
    #[arg(long = "scenario", value_name = "ID", requires = "record_only")]
    pub scenarios: Vec<String>,
    /// Run nothing: fill the TODO reasons of X's drafted expectations with reasons carried
    /// again from every adopted release (the same failure, its citations held in X's dist/),
    /// as after a neighbour's reasons were written.
    #[arg(long, conflicts_with_all = ["force", "record_only"])]
    pub carry_only: bool,
    /// The tree to write into and read the adopted releases from (the same as --data-dir;
    /// default: the data root, the working directory when it is a checkout).
    #[arg(long, value_name = "DIR", conflicts_with = "data_dir")]
    pub root: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct MatrixArgs {
    /// A release to run (repeatable; default: every adopted release).
    #[arg(long = "openclaw-version", value_name = "X")]
    pub versions: Vec<Version>,
    /// A built-in scenario to run (repeatable; default: every one).
    #[arg(long = "scenario", value_name = "ID")]
    pub scenarios: Vec<String>,
    /// Run only shard K of N of the scenarios, on every release (balanced by expected cost).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Every release on this Node major (default: the newest each release accepts).
    #[arg(long, value_enum, value_name = "24|26")]
    pub openclaw_node: Option<NodeMajor>,
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Show long values whole in tables.
    #[arg(long)]
    pub verbose: bool,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write summary.json, junit.xml and report.md into this directory (what `report merge`
    /// reads).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Write what ran into each release's run record (data/releases/openclaw-X.run.json of the
    /// data root): the scenarios run replace theirs.
    #[arg(long)]
    pub record: bool,
}

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The earlier release.
    #[arg(value_name = "A")]
    pub before: Version,
    /// The later release (or give --openclaw-build instead).
    #[arg(value_name = "B", required_unless_present = "openclaw_build")]
    pub after: Option<Version>,
    /// Run every built-in scenario on both (installed, on the Node major of --openclaw-node)
    /// instead of reading their committed runs; without --live, --openclaw-node is not used
    /// (except by a build's run).
    #[arg(long)]
    pub live: bool,
    /// Compare A with this build instead of a later release: every built-in scenario run live
    /// on the build (a tarball npm pack or pnpm pack made, or an unpacked package), its
    /// accepted findings those of its baseline release (--baseline).
    #[arg(long, value_name = "PATH", conflicts_with = "after")]
    pub openclaw_build: Option<PathBuf>,
    #[command(flatten)]
    pub baseline: BaselineArg,
    #[command(flatten)]
    pub node_major: NodeMajorArg,
    #[arg(long, value_enum, default_value_t = crate::releases::diff::DiffFormat::Table)]
    pub format: crate::releases::diff::DiffFormat,
}

#[derive(clap::Args)]
pub struct QualityArgs {
    /// Output on stdout: `table` (the figures per half next to the baseline's, then every
    /// query whose tool was not ranked first) or `json` (the full report; the committed
    /// baselines are this output).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Which ranker orders the results: `lexical` (BM25 with stemming, field weights and
    /// operation awareness) or `hybrid` (lexical fused with all-MiniLM-L6-v2 embeddings; needs
    /// the model: bash scripts/install-model.sh).
    #[arg(long, value_enum, default_value_t = RankerArg::Lexical)]
    pub ranker: RankerArg,
    /// A labelled set of your own (TOML `[[query]]` tables with `text` and `tool`) instead of
    /// the built-in one. No baseline applies unless --baseline is given.
    #[arg(long, value_name = "FILE")]
    pub set: Option<PathBuf>,
    /// A catalogue of your own (JSON: an array of tools, or {"tools": [...]}, each with name,
    /// description and parameters or inputSchema) instead of the realistic catalogue.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// Compare with this report (written by `--format json`) instead of the committed
    /// data/search-quality-baseline.json (lexical), -baseline-hybrid.json (hybrid) or
    /// -baseline-openclaw-2026.9.6.json (the product).
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Whose search to measure: `embedded` (this project's engine), `openclaw` (a real OpenClaw
    /// gateway's own Tool Search, the catalogue loaded as its plugin; install it first:
    /// scripts/install-openclaw.sh) or `both`, one report after the other.
    #[arg(long, value_enum, default_value_t = TargetChoice::Embedded)]
    pub target: TargetChoice,
    #[command(flatten)]
    pub node: NodeArg,
    /// With --openclaw-build: the adopted release whose data judges the build (as `suite
    /// --baseline`; here its committed search baseline
    /// data/search-quality-baseline-openclaw-<VERSION>.json unless --baseline FILE is given).
    #[arg(long, value_name = "VERSION", requires = "openclaw_build")]
    pub baseline_release: Option<Version>,
    /// Hybrid only: measure every fusion weight of the grid on the tuning half (never the test
    /// half) and print them best first, then the grid's ceiling (each query at its best weight:
    /// what no single weight can beat), instead of the report.
    #[arg(long)]
    pub tune: bool,
    /// Measure on BFCL (the Berkeley Function-Calling Leaderboard's simple_python, multiple,
    /// live_simple and live_multiple, pooled into one catalogue; install the data first: bash
    /// scripts/install-bfcl.sh) instead of the built-in set, gated by
    /// data/search-quality-baseline-bfcl[-hybrid].json; with --target openclaw the product's own
    /// search over the pooled catalogue as its plugin, gated by its release's
    /// data/search-quality-baseline-openclaw-<v>-bfcl.json.
    #[arg(long)]
    pub bfcl: bool,
    /// With --bfcl --target openclaw: search only this half's questions and no tool by its own
    /// name (about a third of the searches; what CI runs), compared with that half of the
    /// baseline.
    #[arg(long, value_enum, value_name = "HALF")]
    pub half: Option<crate::quality::Half>,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum RankerArg {
    Lexical,
    Hybrid,
}

#[derive(Subcommand)]
pub enum ProfileCommand {
    /// Run the target once per mode against the mock (and once more with a larger catalogue)
    /// and write the profile of what the provider received: counts, sizes, structure, tool
    /// names, the directory's format; never the product's prose.
    Capture(CaptureArgs),
}

#[derive(clap::Args)]
pub struct CaptureArgs {
    /// What to capture: openclaw (install it first: scripts/install-openclaw.sh) or embedded.
    #[arg(long, value_enum)]
    pub target: TargetChoice,
    /// Write the profile here (default: stdout).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Also write the profile with the gateway's own texts into the user's cache
    /// ($TOOLSEARCH_QA_CACHE or ~/.cache/toolsearch-qa, profiles/), for local use only.
    #[arg(long)]
    pub with_text: bool,
    /// Fake tools in the bound lane, which shows how the directory is cut and bounded.
    #[arg(long, default_value_t = crate::capture::DEFAULT_BOUND_SIZE)]
    pub bound_size: usize,
    /// The profile the embedded target shows while captured (default: spec).
    #[arg(long, value_name = "NAME|FILE")]
    pub profile: Option<String>,
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub baseline: BaselineArg,
}

#[derive(clap::Args)]
pub struct CompareArgs {
    /// Catalogue sizes, comma-separated.
    #[arg(long, default_value = "36,100,1000,10000")]
    pub sizes: String,
    /// Modes, comma-separated: the gateway's (direct, code, tools, directory), Code Mode
    /// (code-mode: exec + wait, one JavaScript cell over the catalogue) and the
    /// providers' own tool search over the catalogue sent deferred (native-openai,
    /// native-anthropic; embedded target only, the mock provider's search standing in).
    #[arg(long, default_value = "direct,code,tools,directory")]
    pub modes: String,
    /// The surface the embedded gateway shows: a built-in profile (default: the newest captured
    /// product profile, `openclaw-<version>`; `spec` for the project's own surface) or a
    /// profile file.
    #[arg(long, value_name = "NAME|FILE")]
    pub profile: Option<String>,
    /// The price row money is figured with, by name (default: the table's first row).
    #[arg(long, value_name = "NAME")]
    pub price: Option<String>,
    /// A price table of your own (the shape of data/prices.toml) instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub price_file: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// Also write SVG charts (first-request bytes, whole-turn tokens, cost per 1,000 turns
    /// against catalogue size) into this directory; the markdown report embeds them.
    #[arg(long, value_name = "DIR")]
    pub chart: Option<PathBuf>,
    /// Where the turns run: the embedded gateway (a prediction), the real product (one gateway
    /// for the run, every size's and mode's lane hot-reloaded on it), or both with the
    /// prediction's error per cell.
    #[arg(long, value_enum, default_value_t = TargetChoice::Embedded)]
    pub target: TargetChoice,
    /// A catalogue nobody here wrote, measured beside the fake plugin: a scenario (built-in id
    /// or .toml file) whose MCP servers join the fake plugin's tools at every size, each mode
    /// measured over both (e.g. real-mcp-servers: four official MCP servers from npm), or a JSON
    /// tool list (.json: an array of tools or {"tools": [...]}, each with name, description and
    /// inputSchema or parameters; docs/compare.md), served as one MCP server.
    #[arg(long, value_name = "SCENARIO|FILE.json")]
    pub catalog: Option<String>,
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub baseline: BaselineArg,
}

#[derive(clap::Args)]
pub struct ProbesArgs {
    /// What to probe.
    #[arg(long, value_enum, default_value_t = TargetChoice::Embedded)]
    pub target: TargetChoice,
    /// Output format on stdout.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Run only this probe (repeatable; default: every probe).
    #[arg(long = "probe", value_name = "NAME")]
    pub probes: Vec<String>,
    /// Accepted escapes for the real target (default: the committed
    /// expectations/<target>-<version>.toml).
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub baseline: BaselineArg,
}

/// `--openclaw-version` or `--openclaw-build`, and `--openclaw-node`, shared by the commands
/// that can start a real OpenClaw gateway.
#[derive(clap::Args)]
pub struct NodeArg {
    /// The OpenClaw release to run (installed side by side by scripts/install-openclaw.sh
    /// --version X; default: the newest release the repository has data for).
    #[arg(
        long,
        value_name = "X",
        env = "TOOLSEARCH_QA_OPENCLAW_VERSION",
        conflicts_with = "openclaw_build"
    )]
    pub openclaw_version: Option<Version>,
    /// A build of OpenClaw not released yet, instead of a release: a tarball `npm pack` or
    /// `pnpm pack` made (installed once into the install cache, keyed by its sha256, its
    /// dependencies from the registry by npm) or an unpacked package with package.json and
    /// dist/ (run where it is). Judged against a baseline release's data (--baseline). Needs
    /// --target openclaw or both.
    #[arg(long, value_name = "PATH")]
    pub openclaw_build: Option<PathBuf>,
    #[command(flatten)]
    pub node_major: NodeMajorArg,
}

/// `--baseline VERSION`: the adopted release whose data judges a build.
#[derive(clap::Args)]
pub struct BaselineArg {
    /// With --openclaw-build: the adopted release whose release facts, accepted findings and
    /// snapshots judge the build (default: the release the build's package.json names when
    /// adopted, else the nearest adopted release older than it; the report says which and why).
    #[arg(long = "baseline", value_name = "VERSION", requires = "openclaw_build")]
    pub version: Option<Version>,
}

/// `--openclaw-node`: the Node major a real OpenClaw gateway runs on, on every command that starts one.
#[derive(clap::Args)]
pub struct NodeMajorArg {
    /// The Node major a real OpenClaw gateway runs on (installed by
    /// scripts/install-openclaw.sh; default 24; adopt's default: the one CI gates the release on).
    #[arg(
        long,
        value_enum,
        value_name = "24|26",
        env = "TOOLSEARCH_QA_OPENCLAW_NODE"
    )]
    pub openclaw_node: Option<NodeMajor>,
}

impl NodeArg {
    /// The one value every command hands down: `--target`'s `kind` with the release or build
    /// and Node major these flags pick. A build is resolved here, once: installed when a
    /// tarball, checked, its baseline found (`baseline`: `--baseline`).
    pub async fn target(
        self,
        kind: TargetChoice,
        baseline: Option<Version>,
    ) -> Result<TargetPick, Error> {
        let node = self.node_major.node();
        let source = match self.openclaw_build {
            None => Source::Release(self.openclaw_version),
            Some(path) => {
                if kind == TargetChoice::Embedded {
                    return Err(Error::Usage(format!(
                        "--openclaw-build {}: a build runs on a real OpenClaw: pass --target openclaw (or both)",
                        path.display()
                    )));
                }
                let build = build::resolve_here(&path, baseline.as_ref(), node).await?;
                Source::Build(Arc::new(build))
            }
        };
        Ok(TargetPick {
            kind,
            openclaw: Pick { source, node },
        })
    }
}

impl NodeMajorArg {
    /// The Node major picked (24 when neither the flag nor the environment says).
    pub fn node(&self) -> NodeMajor {
        self.openclaw_node.unwrap_or_default()
    }
}

impl AdoptArgs {
    /// The release to adopt on the Node major picked by the flag or the environment, else on the
    /// one CI gates it on (`matrix`'s choice: the newest its release facts accept; a release
    /// never adopted takes the nearest adopted release's), so the record it writes is the one
    /// the gate compares with.
    pub fn pick(&self) -> Result<Pick, Error> {
        let node = match self.node_major.openclaw_node {
            Some(node) => node,
            None => {
                let catalogue = crate::targets::openclaw::ReleaseCatalogue::current()
                    .map_err(|e| Error::Usage(e.to_string()))?;
                let found = catalogue
                    .find(&self.openclaw_version)
                    .map_err(|e| Error::Usage(e.to_string()))?;
                crate::releases::matrix::gated_node(&found.release.node).unwrap_or_default()
            }
        };
        Ok(Pick::release(Some(self.openclaw_version.clone()), node))
    }
}

#[derive(Subcommand)]
pub enum ReportAction {
    /// Fits the expected-time model `--shard` balances by from measured runs: reads each DIR's
    /// summary.json (its lanes' steps and its gateway starts) and prints the model with every
    /// target they ran on fitted anew, for `data/expected-times.toml`.
    Times {
        /// Report directories of `suite --report-dir` runs.
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
    },
    /// One verdict from a CI matrix's jobs: reads each DIR's summary.json (release × Node major
    /// × --shard K/N), puts every run's shards back together in their unsharded order and prints
    /// what one `suite` run would have: the table or JSON, the count line, and with --junit and
    /// --report-dir one JUnit file and one summary.json + report.md. Exit code as that run's
    /// (0, 1, 3); 2 when a shard is missing, repeated or from another selection.
    Merge {
        /// The jobs' report directories (each with the summary.json `suite --report-dir` wrote).
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
        /// Output on stdout, as `suite --format`.
        #[arg(long, value_enum, default_value_t = Format::Table)]
        format: Format,
        /// Tables show long values whole, as `suite --verbose`.
        #[arg(long)]
        verbose: bool,
        /// Also write the merged JUnit XML here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Also write the merged summary.json and report.md into this directory.
        #[arg(long, value_name = "DIR")]
        report_dir: Option<PathBuf>,
        /// How many runs (target × release × Node major) the matrix has; fewer or more is exit 2
        /// (a run whose every shard's job died leaves no directory to notice it by).
        #[arg(long, value_name = "N")]
        runs: Option<usize>,
    },
    /// Write each real OpenClaw run of each DIR's summary.json (a `matrix` or `suite` run, or a
    /// merged one) into that release's run record (data/releases/openclaw-X.run.json of the data
    /// root, what regressions and payload-table read): the scenarios it ran replace theirs.
    /// Prints one line per record written.
    Records {
        /// Report directories (each with a summary.json).
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
pub struct SuiteArgs {
    /// Scenario id to run (repeatable; default: every scenario).
    #[arg(long = "scenario", value_name = "ID")]
    pub scenarios: Vec<String>,
    /// Run the *.toml scenarios of this directory instead of the built-in ones (repeatable);
    /// their snapshots are in DIR/snapshots/ unless --snapshot-dir says otherwise.
    #[arg(long = "scenario-dir", value_name = "DIR")]
    pub scenario_dirs: Vec<PathBuf>,
    /// With --scenario-dir: run the built-in scenarios too.
    #[arg(long, requires = "scenario_dirs")]
    pub with_builtins: bool,
    /// The model provider the gateways talk to.
    #[arg(long, value_enum, default_value_t = ProviderMode::MockOpenai)]
    pub provider_mode: ProviderMode,
    /// What to drive.
    #[arg(long, value_enum, default_value_t = TargetChoice::Embedded)]
    pub target: TargetChoice,
    /// Output on stdout: `table` (figures and claims per scenario, then the count line) or
    /// `json` (the JSON summary).
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Tables show long values (a check's expected and got, answers) whole instead of cut to 150
    /// characters; JSON always has them whole.
    #[arg(long)]
    pub verbose: bool,
    /// Keep only scenarios whose id contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Print where the time went on stderr: per lane its gateway start or config reload, turns
    /// and other calls; per target the gateway starts, processes and peak memory (also in the
    /// JSON summary as `laneSteps` and `costs`).
    #[arg(long)]
    pub timings: bool,
    /// Run only shard K of N (1-based; balanced by each scenario's expected time on the
    /// target), for CI matrices.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// Also write JUnit XML here (one test case per scenario × lane × claim).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Also write summary.json and report.md into this directory (created if missing).
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Committed snapshots to compare payloads and session logs with, every scenario's; a
    /// changed or missing one fails the run (default: a --scenario-dir scenario's in
    /// DIR/snapshots/ beside it, a built-in one's in snapshots/ of the current directory).
    #[arg(long, value_name = "DIR")]
    pub snapshot_dir: Option<PathBuf>,
    /// Write `.snap.new` files for changed or missing snapshots (settle them with `toolsearch-qa
    /// snapshots review|accept|reject`, or `cargo insta review`).
    #[arg(long)]
    pub update_snapshots: bool,
    /// Do not compare snapshots (the only way a scenario without snapshots passes).
    #[arg(long, conflicts_with = "update_snapshots")]
    pub no_snapshots: bool,
    /// Accepted findings for the real target (default: the committed
    /// expectations/<target>-<version>.toml).
    #[arg(long, value_name = "FILE")]
    pub expectations: Option<PathBuf>,
    /// The surface the embedded gateway shows in every scenario (default: each scenario's
    /// `profile`): a built-in profile (spec, openclaw-2026.9.6) or a profile file.
    #[arg(long, value_name = "NAME|FILE")]
    pub profile: Option<String>,
    #[command(flatten)]
    pub node: NodeArg,
    #[command(flatten)]
    pub baseline: BaselineArg,
    /// Development aid: point every gateway at this provider base URL (`http://host:port/v1`)
    /// instead of starting the mock, to see how a broken provider is reported (exit code 3).
    #[arg(long, value_name = "URL", hide = true)]
    pub provider_url: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ProviderMode {
    /// The scripted mock OpenAI provider (Responses API) on loopback.
    MockOpenai,
}

impl SuiteArgs {
    pub async fn options(self) -> Result<SuiteOptions, Error> {
        let ProviderMode::MockOpenai = self.provider_mode;
        let run = RunRequest {
            scenarios: self.scenarios,
            lanes: Vec::new(),
            scenario_dirs: self.scenario_dirs,
            with_builtins: self.with_builtins,
            target: self.node.target(self.target, self.baseline.version).await?,
            filter: self.filter,
            shard: self.shard,
            snapshots: {
                let dir = self
                    .snapshot_dir
                    .map_or(SnapshotDir::Default, SnapshotDir::Given);
                match (self.no_snapshots, self.update_snapshots) {
                    (true, _) => Snapshots::Off,
                    (false, true) => Snapshots::Update(dir),
                    (false, false) => Snapshots::Compare(dir),
                }
            },
            provider: self
                .provider_url
                .map_or(ProviderSource::Mock, ProviderSource::Url),
            expectations: self.expectations,
            profile: self.profile,
        };
        Ok(SuiteOptions {
            run,
            format: self.format,
            junit: self.junit,
            report_dir: self.report_dir,
            verbose: self.verbose,
            timings: self.timings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adopt(version: &str, node: Option<NodeMajor>) -> AdoptArgs {
        AdoptArgs {
            openclaw_version: version.parse().unwrap(),
            node_major: NodeMajorArg {
                openclaw_node: node,
            },
            force: false,
            record_only: false,
            carry_only: false,
            scenarios: Vec::new(),
            root: None,
        }
    }

    /// Adopt runs where CI gates the release (2026.9.5's facts accept 24 and 26: 26), a release
    /// never adopted where the nearest adopted one is gated, and a Node given is the one used.
    #[test]
    fn adopt_runs_on_the_node_major_ci_gates_the_release_on_unless_told() {
        let node = |args: AdoptArgs| args.pick().unwrap().node;
        assert_eq!(
            node(adopt("2026.9.5", None)),
            NodeMajor::parse("26").unwrap()
        );
        assert_eq!(
            node(adopt("2026.7.35", None)),
            NodeMajor::parse("26").unwrap()
        );
        let given = NodeMajor::parse("24").unwrap();
        assert_eq!(node(adopt("2026.9.5", Some(given))), given);
    }
}
