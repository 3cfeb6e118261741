//! The `openclaw` target: a real OpenClaw gateway, installed by `scripts/install-openclaw.sh`.
//! The fake catalogue becomes a real plugin, each lane becomes an OpenClaw config, and the
//! gateway's SQLite transcript is translated ([`super::translate`]) into the session records the
//! claims read — adding nothing the transcript does not say.
//!
//! Lanes with the same plugin and environment share one gateway: each lane's config is written
//! over the watched file and hot-reloaded (about a second) instead of starting a gateway (7–10 s
//! idle, and the first turn on a new gateway pays another 5 s of warm-up). That is only sound
//! because a reloaded gateway sends exactly what a fresh one does, which holds with the memory
//! slot off ([`super::config_value`] says why); `tests/it/openclaw_suite.rs` compares every lane
//! of the reference run against a run in reverse lane order on a gateway of its own, and proves
//! that lanes sharing a gateway see nothing of each other. A run groups the scenarios one plugin
//! serves ([`Target::run_order`]), so it starts a gateway per plugin. [`OpenClawTarget::gateway_per_lane`] starts a fresh gateway per
//! lane instead. A start the product aborts itself (under load its start-up migrations time out)
//! is tried once more. MCP servers a lane configures are checked before the product starts them,
//! so a broken one is the lane's error naming the server rather than a run without its tools.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{Mutex, OwnedMutexGuard};

use super::build::{Build, BuildSource};
use super::catalogue::ReleaseCatalogue;
use super::install::NodeMajor;
use super::install::{default_cache_root, node_prefix};
use super::install::{Pick, Source};
use super::release::{Found, Release, Version};
use super::rpc::{self, GatewayRpc};
use super::transcript::read_session_compiled_tools;
use super::translate::translate_transcript;
use super::{
    read_session_transcript, write_json, write_plugin, Installation, LaneConfig, OpenClawGateway,
    DEFAULT_START_TIMEOUT,
};
use crate::config::Bridge;
use crate::product_seeds::{ProductSeed, SeededCopy};

/// A build the product seeds can patch: a tarball's install (copied, never the build itself).
pub fn seedable(build: &Build) -> Result<(), Error> {
    match &build.used.source {
        BuildSource::Tarball { .. } => Ok(()),
        BuildSource::Directory { path } => Err(Error::Usage(format!(
            "--openclaw-build {path}: product seeds patch a copy of an install, and a directory build is run where it is: pack it (npm pack) and pass the tarball"
        ))),
    }
}

/// How often a gateway start that the product itself aborts is tried.
use crate::catalog::fake::{broken, described_fake_tools};
use crate::error::{temp_dir, Error};
use crate::protocol::invoke::{EffectiveRequest, EffectiveTools};
use crate::protocol::session::SessionLog;
use crate::scenario::{CatalogSpec, Lane, Scenario, REFERENCE_SCENARIO};
use crate::targets::timing::{RunCosts, Step, Timed};
use crate::targets::{
    mcp_servers, BoxFuture, LaneGateway, LaneSetup, Product, Redaction, SessionState, Surface,
    Target, TargetKind, TargetPlan,
};

/// Set to `1` to keep each gateway's directory (config, plugin, state and logs) for a look
/// afterwards; its path is printed on stderr.
pub const KEEP_ENV: &str = "TOOLSEARCH_QA_KEEP_OPENCLAW_RUN";

/// How long a running gateway may take to apply a lane's config.
pub const RELOAD_TIMEOUT: Duration = Duration::from_secs(120);

/// A real OpenClaw gateway, found in the install cache.
pub struct OpenClawTarget {
    install: Installation,
    /// The installed release's surface facts (its own, or the nearest older release's).
    release: Found,
    run: Arc<Mutex<Run>>,
    /// Whether lanes with the same plugin and environment reuse the running gateway
    /// (hot-reloading their configs) instead of starting their own. On by default: see
    /// [`Self::gateway_per_lane`].
    share: bool,
    /// Catalogue sizes one gateway serves (empty: only the size it started with); see
    /// [`Self::serving_sizes`].
    sizes: Vec<usize>,
    /// The build this is, when not a release ([`Self::of_build`]).
    build: Option<Arc<Build>>,
    /// The patched copy the install is, when it is one ([`Self::seeded`]); last, so it is
    /// removed after everything that runs from it.
    seeded: Option<Arc<SeededCopy>>,
}

/// What the target keeps across the lanes of a run.
#[derive(Default)]
struct Run {
    live: Option<Live>,
    /// Gateways started so far (names their directories).
    started: usize,
    /// Why the run's gateway would not start: later lanes report it without trying again.
    failed: Option<String>,
    /// MCP server command lines already checked to answer `initialize` and `tools/list`.
    checked_mcp: BTreeSet<String>,
    /// Starts that failed early and were tried again.
    start_retries: usize,
    /// Milliseconds from spawn to readiness of each gateway that started.
    start_millis: Vec<u64>,
    /// The largest peaks of a gateway's main process and of its process group, in KiB.
    peak_kib: (u64, u64),
}

impl Run {
    /// Stops the live gateway (if any), keeping its memory peaks.
    async fn close_live(&mut self) {
        if let Some(live) = self.live.take() {
            let (main, group) = live.close().await;
            self.peak_kib = (self.peak_kib.0.max(main), self.peak_kib.1.max(group));
        }
    }
}

/// The running gateway and what it was started with.
struct Live {
    gateway: OpenClawGateway,
    /// The gateway's own directory (plugin, config, state, logs): `<tmp>/state` as on any lane.
    dir: tempfile::TempDir,
    config_path: PathBuf,
    state_dir: PathBuf,
    plugin: CatalogSpec,
    env: Vec<(String, String)>,
    config: Value,
    /// Session keys its lanes used: a key is never used twice on one gateway.
    sessions: BTreeSet<String>,
    /// What its config gives the release's restart-only keys (see [`restart_values`]).
    restart_values: Vec<Option<Value>>,
}

/// Borrowed facts (a release never adopted) fitted to the release's own config schema before
/// anything starts, each change said on stderr; a release's own facts as they are.
pub fn fitted(mut found: Found, install: &Installation) -> Result<Found, Error> {
    if found.exact {
        return Ok(found);
    }
    let schema = super::schema::SchemaFacts::read(&install.package)
        .map_err(Error::openclaw("release schema"))?;
    let (release, notes) = schema.fit(found.release);
    found.release = release;
    for note in notes {
        crate::output::warn(&format!(
            "openclaw {}: borrowed facts fitted to its own config schema (dist/zod-schema*): {note}",
            install.version
        ));
    }
    Ok(found)
}

impl OpenClawTarget {
    /// Finds the install of the release `TOOLSEARCH_QA_OPENCLAW_VERSION` names (else the newest
    /// with data) with the chosen Node major; the error says how to install it.
    pub fn locate(node: NodeMajor) -> Result<Self, Error> {
        let catalogue = release_data(ReleaseCatalogue::current())?;
        let install = Installation::locate(None, node).map_err(Error::openclaw("target"))?;
        OpenClawTarget::checked(catalogue, install)
    }

    /// Finds the install of `version` (`None`: as [`Self::locate`]) with the chosen Node major.
    pub fn locate_version(node: NodeMajor, version: Option<&Version>) -> Result<Self, Error> {
        let Some(version) = version else {
            return OpenClawTarget::locate(node);
        };
        let catalogue = release_data(ReleaseCatalogue::current())?;
        let install =
            Installation::locate_version(None, version, node).map_err(Error::openclaw("target"))?;
        OpenClawTarget::checked(catalogue, install)
    }

    /// A target for `install` with its facts from `catalogue`: a broken or missing file is one
    /// usage error naming it, never a panic.
    fn checked(catalogue: &ReleaseCatalogue, install: Installation) -> Result<Self, Error> {
        let version: Version = install
            .version
            .parse()
            .map_err(|e: super::release::BadVersion| Error::Usage(e.to_string()))?;
        let release = fitted(release_data(catalogue.find(&version))?, &install)?;
        Ok(OpenClawTarget::with_release(install, release))
    }

    /// A target for `install`; the data root's release facts must load (see [`Self::checked`]).
    pub fn with_install(install: Installation) -> Self {
        let release = ReleaseCatalogue::current()
            .ok()
            .zip(install.version.parse().ok())
            .and_then(|(catalogue, v)| catalogue.find(&v).ok())
            .expect("data/releases/ holds at least one valid release (a unit test checks it)");
        OpenClawTarget::with_release(install, release)
    }

    /// A target for `install` driven by the facts `release` (its own, or the nearest's).
    pub fn with_release(install: Installation, release: Found) -> Self {
        let share = release.release.hot_reload;
        OpenClawTarget {
            install,
            release,
            run: Arc::default(),
            share,
            sizes: Vec::new(),
            build: None,
            seeded: None,
        }
    }

    /// A build (`--openclaw-build`, resolved once by the command line), driven and judged by
    /// its baseline release's facts; its label is the baseline's, so the baseline's accepted
    /// findings and snapshots judge it.
    pub fn of_build(build: Arc<Build>) -> Result<Self, Error> {
        let catalogue = release_data(ReleaseCatalogue::current())?;
        let release = release_data(catalogue.find(&build.baseline))?;
        let mut target = OpenClawTarget::with_release(build.install.clone(), release);
        target.build = Some(build);
        Ok(target)
    }

    /// The build this target runs, when it runs one.
    pub fn build(&self) -> Option<&Build> {
        self.build.as_deref()
    }

    /// The install of `version` (`None`: as [`Self::locate`]) patched by `seed`: a copy in a
    /// temp dir that the target runs instead of the installed release, removed when the target
    /// is dropped. Reports name the seed (`Product::seeded`, the release facts line), so no run
    /// on it passes for the release as published.
    pub fn seeded(
        node: NodeMajor,
        version: Option<&Version>,
        seed: &ProductSeed,
    ) -> Result<Self, Error> {
        let pristine = OpenClawTarget::locate_version(node, version)?;
        let copy = SeededCopy::make(seed, &pristine.install.prefix)?;
        let root = default_cache_root().map_err(Error::openclaw("target"))?;
        let version: Version = pristine
            .install
            .version
            .parse()
            .map_err(|e: super::release::BadVersion| Error::Usage(e.to_string()))?;
        let install =
            Installation::verify(copy.prefix(), &node_prefix(&root, node), node, &version)
                .map_err(Error::openclaw("seeded copy"))?;
        let mut target = OpenClawTarget::with_release(install, pristine.release.clone());
        target.share = pristine.share;
        target.seeded = Some(Arc::new(copy));
        Ok(target)
    }

    /// [`Self::seeded`] of what `pick` picks: a release, or a tarball build (its cache entry
    /// copied and patched, judged as the build is: against its baseline). A directory build is
    /// never copied: exit 2.
    pub fn seeded_pick(pick: &Pick, seed: &ProductSeed) -> Result<Self, Error> {
        let build = match &pick.source {
            Source::Release(version) => {
                return OpenClawTarget::seeded(pick.node, version.as_ref(), seed)
            }
            Source::Build(build) => build.clone(),
        };
        seedable(&build)?;
        let pristine = OpenClawTarget::of_build(build.clone())?;
        let copy = SeededCopy::make(seed, &pristine.install.prefix)?;
        let root = default_cache_root().map_err(Error::openclaw("target"))?;
        let package = copy.prefix().join("node_modules").join("openclaw");
        let install = Installation::at(
            copy.prefix(),
            &package,
            &node_prefix(&root, pick.node),
            pick.node,
            &pristine.install.version,
        )
        .map_err(Error::openclaw("seeded copy"))?;
        let mut target = OpenClawTarget::with_release(install, pristine.release.clone());
        target.share = pristine.share;
        target.build = Some(build);
        target.seeded = Some(Arc::new(copy));
        Ok(target)
    }

    /// The patched copy this target runs, when it runs one.
    pub fn seeded_copy(&self) -> Option<&SeededCopy> {
        self.seeded.as_deref()
    }

    /// One gateway serves the catalogue at each of `sizes` (same plugin otherwise): its plugin
    /// holds every size's tools and each lane's config registers only its own (the plugin's
    /// `onlyTools`, applied on reload like any lane config), so a run across sizes starts one
    /// gateway instead of one per size. Lane session keys must still differ.
    pub fn serving_sizes(mut self, sizes: &[usize]) -> Self {
        self.sizes = sizes.to_vec();
        self
    }

    /// Every lane starts a gateway of its own (five starts for the reference scenario instead of
    /// one): slower; what a release without config hot reload needs (its release data's
    /// `hot_reload = false`).
    pub fn gateway_per_lane(mut self) -> Self {
        self.share = false;
        self
    }

    pub fn version(&self) -> &str {
        &self.install.version
    }

    pub fn install(&self) -> &Installation {
        &self.install
    }

    /// The release's surface facts, and whether they are its own (not a nearer release's).
    pub fn release(&self) -> &Found {
        &self.release
    }

    /// How many gateways this target has started so far (one per plugin and environment, unless
    /// a lane failed or [`Self::gateway_per_lane`] was asked for).
    pub async fn gateways_started(&self) -> usize {
        self.run.lock().await.started
    }

    /// How many gateway starts failed early and were tried again.
    pub async fn start_retries(&self) -> usize {
        self.run.lock().await.start_retries
    }
}

impl Target for OpenClawTarget {
    fn kind(&self) -> TargetKind {
        TargetKind::Openclaw
    }

    /// Scenarios whose catalogues one gateway's plugin serves run one after another (each group
    /// where its first scenario stands, the given order kept within it), so a run starts a
    /// gateway per plugin rather than one each time the plugin changes back.
    fn run_order(&self, plans: &[TargetPlan]) -> Vec<usize> {
        let catalogs: Vec<&CatalogSpec> = plans.iter().map(|p| &p.scenario.catalog).collect();
        grouped_by_plugin(&catalogs)
    }

    fn product(&self) -> Option<Product> {
        Some(Product {
            version: self.install.version.clone(),
            node: self.install.node_version.clone(),
            seeded: self.seeded.as_ref().map(|c| c.seed().to_string()),
            build: self.build.as_ref().map(|b| b.used.clone()),
        })
    }

    /// A build is judged as its baseline: `openclaw-<baseline>`.
    fn label(&self) -> Option<String> {
        let version = match &self.build {
            Some(build) => build.used.baseline.clone(),
            None => self.install.version.clone(),
        };
        Some(format!("{}-{version}", self.name()))
    }

    fn release_facts(&self) -> Option<String> {
        let facts = if self.release.exact {
            self.release.origin.clone()
        } else {
            format!(
                "{} (borrowed: openclaw {} has no release facts of its own)",
                self.release.origin, self.install.version
            )
        };
        let facts = match &self.build {
            Some(build) => format!(
                "{facts}, for {}",
                build.used.describe(&self.install.version)
            ),
            None => facts,
        };
        Some(match &self.seeded {
            Some(copy) => format!(
                "{facts}, run on a copy patched by product seed {} ({}), not the release as published",
                copy.seed(),
                copy.patched().join(", ")
            ),
            None => facts,
        })
    }

    /// What differs between machines and runs in OpenClaw's prompts and transcripts: the install
    /// and home paths, the Node and kernel versions, the host name, session ids, dates and times.
    fn redactions(&self) -> Vec<Redaction> {
        let literal = |text: &str, with: &str| (regex::escape(text), with.to_string());
        let mut redactions = vec![
            literal(
                &self.install.package.display().to_string(),
                "[openclaw]/node_modules/openclaw",
            ),
            literal(&self.install.prefix.display().to_string(), "[openclaw]"),
            literal(&format!("v{}", self.install.node_version), "v[node]"),
            literal(&self.install.node_version, "[node]"),
        ];
        if let Some(home) = std::env::var_os("HOME").filter(|h| h.len() > 1) {
            redactions.push(literal(&home.to_string_lossy(), "[home]"));
        }
        let common = |pairs: &[(&str, &str)]| {
            pairs
                .iter()
                .map(|(p, r)| (p.to_string(), r.to_string()))
                .collect::<Vec<_>>()
        };
        redactions.extend(common(&[
            (r"Linux [^ ]+ \(", "Linux [kernel] ("),
            // The mock's ids hash the request, which holds machine-specific paths.
            (r"(call|fc|msg|resp)_[0-9a-f]{16}", "${1}_[id]"),
        ]));
        // The release's own id forms (2026.5.12's call ids without separators), from its data.
        let release = &self.release.release;
        redactions.extend(
            release
                .redactions
                .iter()
                .map(|r| (r.pattern.clone(), r.with.clone())),
        );
        redactions.extend(common(&[
                (r"host=[^ |]+", "host=[host]"),
                (r"Time zone: [^\\ \n]+", "Time zone: [tz]"),
                // The time a message was sent, as OpenClaw stamps it on the user's text.
                (
                    r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?:\d{4}-\d{2}-\d{2}|\[date\]) \d{2}:\d{2}(?: [A-Za-z_/+-]+)?\]",
                    "[sent at]",
                ),
                // A fresh id per run in tool_search_code's telemetry (hex from 2026.8.2,
                // base64url in 2026.8.1), pretty-printed there, compact in a Code Mode result.
                (r#"(counterScope\\*": ?\\*")[A-Za-z0-9_-]{8,}"#, "${1}[scope]"),
                // A fresh id per result in the envelope around untrusted content (search
                // results of MCP and client tools).
                (
                    r#"(UNTRUSTED_CONTENT id=\\*")[0-9a-f]{16}"#,
                    "${1}[envelope]",
                ),
                (
                    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
                    "[uuid]",
                ),
                (r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z", "[time]"),
                (r"\b\d{4}-\d{2}-\d{2}\b", "[date]"),
                (r"\b1[6-9]\d{11}\b", "[epoch-ms]"),
            ]));
        redactions
    }

    /// A real gateway plans for seconds before its first provider request, and far longer on a
    /// loaded machine.
    fn turn_timeout(&self) -> Duration {
        Duration::from_secs(600)
    }

    fn plan(&self, scenario: &Scenario) -> Result<TargetPlan, Error> {
        super::plan::plan_release(scenario, &self.release)
    }

    /// The release's directory heading, in the modes its facts say show it (from 2026.8.1 every
    /// Tool Search mode: its docs/tools/tool-search.md; 2026.7.x directory mode only).
    fn directory(&self, _scenario: &Scenario) -> Option<crate::targets::DirectorySurface> {
        let release = &self.release.release;
        Some(crate::targets::DirectorySurface {
            heading: release.directory_heading.clone(),
            modes: release.directory_modes(),
        })
    }

    /// The reference run's key for the reference scenario; other scenarios' lanes share its
    /// lane names, so their keys name the scenario too.
    /// The release's own bridge names and core tools, whatever profile the scenario shows.
    fn surface(&self, scenario: &Scenario) -> Surface {
        let release = &self.release.release;
        Surface {
            directory: self.directory(scenario),
            prompt_chosen: release.prompt_chosen(),
            ..Surface::new(release.rules(), release.direct_only(), scenario)
        }
    }

    /// Code Mode's surface on this release: its `exec` + `wait` and its own direct-only tools
    /// (`[code_mode] direct_only`: `sessions_yield` alone before 2026.9.2), plus the scenario's.
    fn code_mode_surface(&self, scenario: &Scenario) -> Surface {
        let release = &self.release.release;
        let mut surface = self.surface(scenario).code_mode(scenario);
        let own = release
            .code_mode
            .as_ref()
            .map(|facts| facts.direct_only.clone())
            .unwrap_or_default();
        surface.direct_only = own
            .into_iter()
            .chain(scenario.catalog.direct_only.iter().cloned())
            .collect();
        surface
    }

    fn session_key(&self, scenario: &Scenario, lane: &Lane) -> String {
        if scenario.id == REFERENCE_SCENARIO {
            format!("tool-search-gateway-{}", lane.name)
        } else {
            format!("{}-{}", scenario.id, lane.name)
        }
    }

    fn start<'a>(
        &'a self,
        setup: &'a LaneSetup<'a>,
    ) -> BoxFuture<'a, Result<Box<dyn LaneGateway>, Error>> {
        Box::pin(async move {
            let infra = |e| Error::openclaw(format!("lane {}", setup.lane.name))(e);
            let mut run = self.run.clone().lock_owned().await;
            if let Some(reason) = &run.failed {
                return Err(Error::Machine(format!(
                    "openclaw lane {}: the run's gateway did not start: {reason}",
                    setup.lane.name
                )));
            }
            let mut lane = lane_config(setup, &self.release.release)?;
            let restart_values = restart_values(&lane, &self.release.release.restart_keys);
            let reusable = self.share
                && run.live.as_ref().is_some_and(|live| {
                    live.plugin_matches(&setup.scenario.catalog, &self.sizes)
                        && live.env == setup.env
                        && !live.sessions.contains(&setup.session_key)
                        && live.restart_values == restart_values
                });
            if !reusable {
                run.close_live().await;
            }
            if self.sizes.contains(&setup.scenario.catalog.size) {
                only_tools(&mut lane, &setup.scenario.catalog);
            }
            if let Some(servers) = &lane.mcp_servers {
                check_mcp_servers(servers, &mut run.checked_mcp).await?;
            }
            let took = std::time::Instant::now();
            let step = match run.live.as_mut() {
                Some(live) => match live.apply(&lane, setup).await.map_err(infra)? {
                    true => Some(Timed::new(Step::ConfigReload, took.elapsed())),
                    false => None,
                },
                None => match self.start_gateway(&mut run, &lane, setup).await {
                    Ok(live) => {
                        let ready = live.gateway.ready_after();
                        run.start_millis
                            .push(Timed::new(Step::GatewayStart, ready).millis);
                        run.live = Some(live);
                        Some(Timed::new(Step::GatewayStart, took.elapsed()))
                    }
                    Err(e) => {
                        run.failed = Some(e.to_string());
                        return Err(e);
                    }
                },
            };
            if let Some(live) = run.live.as_mut() {
                live.sessions.insert(setup.session_key.clone());
                live.restart_values = restart_values;
            }
            Ok(Box::new(OpenClawLane {
                run,
                setup: step.into_iter().collect(),
                bridge: lane_bridge(setup.lane, &self.release.release),
                bridged_call: self.release.release.transcript.bridged_call,
                rpc: self.release.release.gateway_rpc.clone(),
            }) as Box<dyn LaneGateway>)
        })
    }

    fn finish(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            let mut run = self.run.lock().await;
            run.close_live().await;
            run.failed = None;
        })
    }

    /// Every gateway start (retries too) is one Node process; `tools.effective` starts none.
    fn costs(&self) -> BoxFuture<'_, Option<RunCosts>> {
        Box::pin(async move {
            let run = self.run.lock().await;
            Some(RunCosts {
                gateway_starts: run.started + run.start_retries,
                start_retries: run.start_retries,
                cli_processes: 0,
                start_millis: run.start_millis.clone(),
                gateway_peak_kib: run.peak_kib.0,
                gateway_group_peak_kib: run.peak_kib.1,
                harness_peak_kib: 0,
            })
        })
    }
}

impl OpenClawTarget {
    /// Starts the run's gateway for its first lane (or after a lane took the last one down).
    async fn start_gateway(
        &self,
        run: &mut Run,
        lane: &LaneConfig,
        setup: &LaneSetup<'_>,
    ) -> Result<Live, Error> {
        let name = setup.lane.name.as_str();
        let infra = |e| Error::openclaw(format!("lane {name}"))(e);
        run.started += 1;
        let dir = temp_dir("tsqa-openclaw-")?;
        let root = dir.path().to_path_buf();
        let catalog = &setup.scenario.catalog;
        // The scenario's description template, as the embedded gateway writes it.
        let template = catalog.description();
        let mut sizes = vec![catalog.size];
        if self.sizes.contains(&catalog.size) {
            sizes = self.sizes.clone();
        }
        let mut names = BTreeSet::new();
        let tools: Vec<_> = sizes
            .iter()
            .flat_map(|&size| described_fake_tools(&catalog.plugin_id, size, template))
            .filter(|t| names.insert(t.name.clone()))
            .map(|t| match catalog.broken.contains(&t.name) {
                true => broken(t),
                false => t,
            })
            .collect();
        let plugin_dir =
            write_plugin(&root.join("plugins"), &catalog.plugin_id, &tools).map_err(infra)?;
        let config_path = root.join("openclaw.json");
        let config = product_config(lane, setup, &plugin_dir, &root)?;
        write_json(&config_path, &config).map_err(infra)?;
        let (gateway, state_dir) = OpenClawGateway::start_retrying(
            &self.install,
            &config_path,
            &root,
            DEFAULT_START_TIMEOUT,
            &setup.env,
            |e| {
                let first = e.to_string();
                let first = first.lines().next().unwrap_or_default().to_string();
                eprintln!(
                    "warning: openclaw lane {name}: gateway start failed, retrying once on a \
                     fresh state directory: {first}"
                );
                run.start_retries += 1;
            },
        )
        .await
        .map_err(infra)?;
        Ok(Live {
            gateway,
            dir,
            config_path,
            state_dir,
            plugin: catalog.clone(),
            env: setup.env.clone(),
            config,
            sessions: BTreeSet::new(),
            restart_values: Vec::new(),
        })
    }
}

/// The values a lane's config overrides give the release's restart-only keys (`None` where the
/// lane leaves one unset), in the order of `keys`.
fn restart_values(lane: &LaneConfig, keys: &[String]) -> Vec<Option<Value>> {
    keys.iter()
        .map(|key| {
            let mut at = lane.overrides.as_ref()?;
            for part in key.split('.') {
                at = at.get(part)?;
            }
            Some(at.clone())
        })
        .collect()
}

impl Live {
    /// Stops the gateway and removes its directory (kept with `TOOLSEARCH_QA_KEEP_OPENCLAW_RUN=1`,
    /// its path said on stderr); the peak memory of its main process and its group, in KiB.
    async fn close(self) -> (u64, u64) {
        let peaks = self.gateway.peak_kib();
        self.gateway.kill().await;
        if std::env::var_os(KEEP_ENV).is_some_and(|v| v == "1") {
            eprintln!(
                "openclaw gateway directory kept: {}",
                self.dir.keep().display()
            );
        }
        peaks
    }

    /// Whether this gateway's plugin serves `catalog`: the same plugin, at the same size or, with
    /// `sizes` (see [`OpenClawTarget::serving_sizes`]), at both sizes among them.
    fn plugin_matches(&self, catalog: &CatalogSpec, sizes: &[usize]) -> bool {
        let served = |size| sizes.contains(&size);
        same_plugin(&self.plugin, catalog)
            && (self.plugin.size == catalog.size
                || (served(self.plugin.size) && served(catalog.size)))
    }

    /// Replaces the running gateway's config with the lane's and waits until it is applied;
    /// whether it changed (an unchanged config is not rewritten).
    async fn apply(
        &mut self,
        lane: &LaneConfig,
        setup: &LaneSetup<'_>,
    ) -> Result<bool, super::OpenClawError> {
        let root = self
            .config_path
            .parent()
            .map(PathBuf::from)
            .unwrap_or_default();
        let plugin_dir = root.join("plugins").join(&setup.scenario.catalog.plugin_id);
        let config = product_config(lane, setup, &plugin_dir, &root).map_err(|e| {
            super::OpenClawError::Invalid {
                what: "lane config",
                reason: e.to_string(),
            }
        })?;
        if config == self.config {
            return Ok(false);
        }
        let mark = self.gateway.log_mark();
        // Written beside the config and renamed over it, so the watcher never reads half a file.
        let next = self.config_path.with_extension("json.next");
        write_json(&next, &config)?;
        std::fs::rename(&next, &self.config_path)
            .map_err(super::OpenClawError::io("replace", &self.config_path))?;
        self.gateway.wait_for_reload(mark, RELOAD_TIMEOUT).await?;
        self.config = config;
        Ok(true)
    }
}

/// Release facts that do not load: a usage error naming the file (exit 2).
fn release_data<T>(loaded: Result<T, super::release::ReleaseError>) -> Result<T, Error> {
    loaded.map_err(|e| Error::Usage(format!("release data: {e}")))
}

/// Indices of `catalogs` with those one plugin serves at one size next to each other: each group
/// where its first catalogue stands, the given order kept within it.
fn grouped_by_plugin(catalogs: &[&CatalogSpec]) -> Vec<usize> {
    let group = |i: usize| {
        (0..=i)
            .find(|&j| {
                same_plugin(catalogs[j], catalogs[i]) && catalogs[j].size == catalogs[i].size
            })
            .unwrap_or(i)
    };
    let mut order: Vec<usize> = (0..catalogs.len()).collect();
    order.sort_by_key(|&i| (group(i), i));
    order
}

/// Whether both catalogues are the same plugin's (sizes apart): the same id, description
/// template, direct-only and broken tools.
fn same_plugin(a: &CatalogSpec, b: &CatalogSpec) -> bool {
    a.plugin_id == b.plugin_id
        && a.description() == b.description()
        && a.direct_only == b.direct_only
        && a.broken == b.broken
}

/// Starts each MCP server the lane configures once, as the product will, and checks that it
/// answers `initialize` and `tools/list` in time: the product would only log a broken server and
/// run without its tools, so a broken one is this lane's error, naming the server (exit 3).
async fn check_mcp_servers(servers: &Value, checked: &mut BTreeSet<String>) -> Result<(), Error> {
    let configs: std::collections::BTreeMap<String, crate::config::McpServerConfig> =
        serde_json::from_value(servers.clone())
            .map_err(|e| Error::Machine(format!("mcp.servers: {e}")))?;
    for (name, config) in configs {
        let key = format!("{name} {} {:?}", config.command.display(), config.args);
        if checked.contains(&key) {
            continue;
        }
        let one = std::collections::BTreeMap::from([(name, config)]);
        let hub = crate::gateway::mcp::McpHub::connect(&one)
            .await
            .map_err(Error::openclaw(
                "lane's MCP servers (checked before the product starts them)",
            ))?;
        hub.shutdown();
        checked.insert(key);
    }
    Ok(())
}

/// Registers only the tools of `catalog` (the plugin holds several catalogues).
fn only_tools(lane: &mut LaneConfig, catalog: &CatalogSpec) {
    let names: Vec<Value> =
        crate::catalog::fake::fake_plugin_tools(&catalog.plugin_id, catalog.size)
            .into_iter()
            .map(|t| Value::String(t.name))
            .collect();
    let config = lane
        .plugin_config
        .get_or_insert_with(|| Value::Object(Default::default()));
    config["onlyTools"] = Value::Array(names);
}

/// The bridge-role table the lane's transcript is read by: the release's, with the code role
/// the Code Mode cell (`exec`) on a lane where Code Mode engages on this release (its own
/// setting, or the release's auto tier for a catalog-preferred model); elsewhere `exec` is
/// the shell tool and no bridge.
fn lane_bridge(lane: &Lane, release: &Release) -> Bridge {
    match &release.code_mode {
        Some(facts) if facts.engages(lane.code_mode.as_ref(), lane.catalog_preferred) => {
            facts.bridge(&release.bridge)
        }
        _ => release.bridge.clone(),
    }
}

/// The lane's part of the config: Tool Search, the policy, the agent, MCP servers, overrides.
fn lane_config(setup: &LaneSetup<'_>, release: &Release) -> Result<LaneConfig, Error> {
    let scenario = setup.scenario;
    let mut also_allow = setup.lane.controls(&release.bridge);
    also_allow.extend(scenario.policy.also_allow.iter().cloned());
    let mcp = match scenario.catalog.mcp_server_names().is_empty() {
        true => None,
        false => Some(mcp_servers(setup)?),
    };
    let (overrides, plugin_config) = split_rules(setup.lane.config.clone());
    // Only a Code Mode lane writes tools.codeMode (the plan left none on a release without it).
    let code_mode = match (&setup.lane.code_mode, &release.code_mode) {
        (Some(settings), Some(facts)) => Some(facts.config_value(settings).map_err(|why| {
            Error::Usage(format!(
                "scenario {} lane {}: OpenClaw {} {why}",
                scenario.id, setup.lane.name, release.version
            ))
        })?),
        _ => None,
    };
    Ok(LaneConfig {
        tool_search: setup.lane.tool_search.clone(),
        also_allow,
        deny: scenario.policy.deny.clone(),
        agent: scenario.agent.clone(),
        mcp_servers: mcp,
        shape: release.config.clone(),
        overrides,
        plugin_config,
        code_mode,
        catalog_preferred: setup.lane.catalog_preferred,
    })
}

/// The lane's overrides without the approval and hook rules, the hook's `toolsAllow` and the
/// registration order, and those as the fake plugin's config (its hooks apply them).
fn split_rules(config: Option<Value>) -> (Option<Value>, Option<Value>) {
    let Some(mut config) = config else {
        return (None, None);
    };
    let mut rules = serde_json::Map::new();
    let mut take = |table: &str, key: &str, as_key: &str| {
        let taken = config
            .get_mut(table)
            .and_then(Value::as_object_mut)
            .and_then(|t| t.remove(key));
        if let Some(value) = taken {
            rules.insert(as_key.to_string(), value);
        }
        if config[table].as_object().is_some_and(|t| t.is_empty()) {
            config.as_object_mut().map(|c| c.remove(table));
        }
    };
    take("tools", "approvals", "approvals");
    take("hooks", "beforeToolCall", "beforeToolCall");
    take("hooks", "toolsAllow", "toolsAllow");
    take("catalog", "registration", "registration");
    let overrides = config
        .as_object()
        .is_some_and(|c| !c.is_empty())
        .then_some(config);
    let plugin_config = (!rules.is_empty()).then_some(Value::Object(rules));
    (overrides, plugin_config)
}

/// The whole product config of a lane.
fn product_config(
    lane: &LaneConfig,
    setup: &LaneSetup<'_>,
    plugin_dir: &std::path::Path,
    root: &std::path::Path,
) -> Result<Value, Error> {
    super::config_value(
        &setup.provider_base_url,
        plugin_dir,
        &setup.scenario.catalog.plugin_id,
        lane,
        &root.join("openclaw.log"),
    )
    .map_err(Error::openclaw(format!("lane {}", setup.lane.name)))
}

/// One lane's hold on the run's gateway: no other lane reconfigures it until this one is done.
struct OpenClawLane {
    run: OwnedMutexGuard<Run>,
    /// What giving this lane its gateway took.
    setup: Vec<Timed>,
    /// The release's bridge tools, by which its transcript is read.
    bridge: Bridge,
    /// Where its transcript records a bridged call.
    bridged_call: super::release::BridgedCallShape,
    /// How the release's gateway is spoken to (`tools.effective`).
    rpc: GatewayRpc,
}

impl OpenClawLane {
    fn live(&self) -> Result<&Live, Error> {
        self.run
            .live
            .as_ref()
            .ok_or_else(|| Error::Machine("the run's OpenClaw gateway is gone".into()))
    }
}

impl LaneGateway for OpenClawLane {
    fn base_url(&self) -> String {
        self.live()
            .map(|l| l.gateway.base_url())
            .unwrap_or_default()
    }

    /// The product's own transcript of this lane's session as written (what snapshots and leak
    /// checks read), and its translation into session records; where the product lists the tools
    /// it sent is read too.
    fn session_log(&self, agent: &str, session_key: &str) -> Result<SessionLog, Error> {
        let live = self.live()?;
        let events = read_session_transcript(&live.state_dir, agent, session_key)
            .map_err(Error::openclaw("transcript"))?;
        let compiled = read_session_compiled_tools(&live.state_dir, agent, session_key)
            .map_err(Error::openclaw("trajectory"))?;
        let records =
            translate_transcript(&events, compiled.as_ref(), &self.bridge, self.bridged_call);
        Ok(SessionLog {
            raw: events,
            records,
        })
    }

    /// The product's `tools.effective` method with `{sessionKey, agentId}`, over the gateway's
    /// WebSocket.
    fn effective_tools<'a>(
        &'a self,
        agent: &'a str,
        session_key: &'a str,
    ) -> BoxFuture<'a, Result<EffectiveTools, String>> {
        Box::pin(async move {
            let live = self.live().map_err(|e| e.to_string())?;
            let params = EffectiveRequest {
                session_key: session_key.to_string(),
                agent_id: Some(agent.to_string()),
            };
            rpc::call(live.gateway.port(), &self.rpc, "tools.effective", &params)
                .await
                .map_err(|e| e.to_string())
        })
    }

    /// The product's `sessions.list`: the session's row says `hasActiveRun`.
    fn session_state<'a>(
        &'a self,
        agent: &'a str,
        session_key: &'a str,
    ) -> BoxFuture<'a, SessionState> {
        Box::pin(async move {
            let live = match self.live() {
                Ok(live) => live,
                Err(e) => return SessionState::Unjudged(e.to_string()),
            };
            let params = serde_json::json!({});
            let listed: Result<serde_json::Value, _> =
                rpc::call(live.gateway.port(), &self.rpc, "sessions.list", &params).await;
            match listed {
                Ok(list) => session_state_of(&list, agent, session_key),
                Err(e) => SessionState::Unjudged(format!("sessions.list: {e}")),
            }
        })
    }

    /// The gateway stays up for the next lane.
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move { drop(self) })
    }

    /// A lane whose turn failed may have left work in the gateway: it goes, and the next lane
    /// starts a fresh one.
    fn discard(mut self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move { self.run.close_live().await })
    }

    fn setup_steps(&self) -> Vec<Timed> {
        self.setup.clone()
    }

    fn diagnostics(&self) -> String {
        self.live()
            .map(|l| l.gateway.log_tail())
            .unwrap_or_default()
    }
}

/// The state `sessions.list` gives the session: its row's `hasActiveRun`. The row is
/// `agent:<agent>:<session_key>`, or the one row of `session_key` under another agent (a release
/// without `agents.list`, 2026.5.12, runs every session as its default agent `main`).
fn session_state_of(list: &serde_json::Value, agent: &str, session_key: &str) -> SessionState {
    let key = format!("agent:{agent}:{session_key}");
    let rows = list
        .get("sessions")
        .and_then(serde_json::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    fn key_of(r: &serde_json::Value) -> Option<&str> {
        r.get("key").and_then(serde_json::Value::as_str)
    }
    let elsewhere: Vec<&serde_json::Value> = rows
        .iter()
        .filter(|r| {
            key_of(r)
                .is_some_and(|k| k.starts_with("agent:") && k.ends_with(&format!(":{session_key}")))
        })
        .collect();
    let row =
        rows.iter()
            .find(|r| key_of(r) == Some(key.as_str()))
            .or(match elsewhere.as_slice() {
                [one] => Some(*one),
                _ => None,
            });
    let Some(row) = row else {
        let keys: Vec<&str> = rows
            .iter()
            .filter_map(|r| r.get("key").and_then(serde_json::Value::as_str))
            .take(4)
            .collect();
        return SessionState::Unjudged(format!(
            "sessions.list has no row {key} among {} rows (keys: {})",
            rows.len(),
            keys.join(", ")
        ));
    };
    match row.get("hasActiveRun").and_then(serde_json::Value::as_bool) {
        Some(true) => SessionState::Running,
        Some(false) => SessionState::Idle,
        None => SessionState::Unjudged(format!(
            "the row of {key} in sessions.list has no hasActiveRun"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn catalog(plugin: &str, size: usize, template: Option<&str>) -> CatalogSpec {
        toml::from_str(&format!("plugin_id = \"{plugin}\"\nsize = {size}"))
            .map(|c: CatalogSpec| CatalogSpec {
                description_template: template.map(str::to_string),
                ..c
            })
            .expect("a catalogue")
    }

    /// The built-in run's shape: the fixture, a templated plugin, the fixture again, a plugin of
    /// its own, the fixture again — three groups, each where its first scenario stands.
    #[test]
    fn scenarios_one_plugin_serves_run_together_in_first_appearance_order() {
        let fixture = catalog("fixture", 36, None);
        let ranking = catalog("fixture", 36, Some("Opens drawer {n}."));
        let exits = catalog("exit-fixture", 36, None);
        let bigger = catalog("fixture", 100, None);
        let run = [
            &fixture, &fixture, &ranking, &fixture, &exits, &fixture, &bigger,
        ];
        assert_eq!(grouped_by_plugin(&run), [0, 1, 3, 5, 2, 4, 6]);
        assert_eq!(grouped_by_plugin(&[]), Vec::<usize>::new());
    }

    /// `sessions.list` as the product answers it: the lane's row says whether a run is active;
    /// a missing row or field is unjudged, never idle.
    #[test]
    fn the_session_state_is_the_rows_has_active_run() {
        use super::{session_state_of, SessionState};
        let list = |row: serde_json::Value| {
            serde_json::json!({ "sessions": [
            { "key": "agent:qa:other", "hasActiveRun": true }, row
        ] })
        };
        let key = "agent:qa:lane";
        let state = |row| session_state_of(&list(row), "qa", "lane");
        assert_eq!(
            state(serde_json::json!({ "key": key, "hasActiveRun": false })),
            SessionState::Idle
        );
        assert_eq!(
            state(serde_json::json!({ "key": key, "hasActiveRun": true })),
            SessionState::Running
        );
        assert_eq!(
            state(serde_json::json!({ "key": key })),
            SessionState::Unjudged(format!(
                "the row of {key} in sessions.list has no hasActiveRun"
            ))
        );
        // A release without agents.list runs the session as `main`.
        assert_eq!(
            state(serde_json::json!({ "key": "agent:main:lane", "hasActiveRun": true })),
            SessionState::Running
        );
        assert_eq!(
            state(serde_json::json!({ "key": "agent:qa:else", "hasActiveRun": false })),
            SessionState::Unjudged(format!(
                "sessions.list has no row {key} among 2 rows (keys: agent:qa:other, agent:qa:else)"
            ))
        );
    }
}
