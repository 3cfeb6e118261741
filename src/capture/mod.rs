//! `toolsearch-qa profile capture`: the surface of a gateway, read off what the mock provider
//! received, written as a profile.
//!
//! It runs the reference scenario's turn once per mode on the target, then one more code-mode
//! lane with a larger catalogue (the bound lane) whose scripted `tool_search_code` asks which
//! of the always-declared tools search finds: that lane shows how the directory is cut and
//! bounded, and which declared tools are catalogued too. [`read`] turns the requests into a
//! surface, [`write`] into a file. Only sizes go into the file a project commits; the
//! gateway's own texts may go into the user's cache (`--with-text`) for local use.
//!
//! It reaches the target through the [`Target`] API like the suite does, so it captures any
//! target: the real product, or the embedded gateway showing a profile (a round trip).

pub mod read;
pub mod write;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value};

use crate::catalog::fake::{fake_tool_description, fake_tool_name};
use crate::config::{ToolSearchMode, TOOL_SEARCH_CODE};
use crate::drive::lane::run_lane;
use crate::error::{Error, Exit};
use crate::profile::model::Source;
use crate::provider::{MockProvider, ProviderOptions, ScriptedTurn};
use crate::scenario::{Lane, Scenario};
use crate::targets::{EmbeddedTarget, Target, TargetChoice, TargetPick};
use read::{probe_code, read_surface, BoundLane, CaptureError, Observations, Plugin};

/// Fake tools in the bound lane unless told otherwise: enough that OpenClaw 2026.9.6 cuts its
/// directory to names and still leaves tools out.
pub const DEFAULT_BOUND_SIZE: usize = 1_000;

/// What `profile capture` is told.
#[derive(Debug, Clone)]
pub struct CaptureOptions {
    /// `embedded` or `openclaw` (not both), and a real OpenClaw's release and Node major.
    pub target: TargetPick,
    /// Where the profile goes (stdout when unset).
    pub out: Option<PathBuf>,
    /// Also write the profile with the gateway's own texts to the user's cache.
    pub with_text: bool,
    /// Fake tools in the bound lane.
    pub bound_size: usize,
    /// The profile the embedded target shows while captured (a round trip); default `spec`.
    pub profile: Option<String>,
}

/// A captured profile, as data: its name, the profile file (sizes and structure, synthetic
/// filler), and with `with_text` the same profile with the gateway's own texts.
#[derive(Debug, Clone)]
pub struct CapturedProfile {
    pub name: String,
    pub sized: String,
    pub with_text: Option<String>,
}

/// Captures the surface of the target `options` names; nothing is written.
pub async fn run(options: &CaptureOptions) -> Result<CapturedProfile, Error> {
    let target: Box<dyn Target> = match options.target.kind {
        TargetChoice::Embedded => Box::new(EmbeddedTarget),
        TargetChoice::Openclaw => Box::new(options.target.openclaw_target()?),
        TargetChoice::Both => {
            return Err(Error::Usage(
                "--target: capture one target at a time (embedded or openclaw)".into(),
            ))
        }
    };
    let mut reference = crate::compare::reference_scenario()?;
    reference.profile =
        crate::profile::resolve(options.profile.as_deref().unwrap_or(crate::profile::SPEC))?;
    let observations = observe(target.as_ref(), &reference, options.bound_size).await?;
    let captured = read_surface(&observations).map_err(capture_error)?;
    let name = target
        .label()
        .unwrap_or_else(|| format!("embedded-{}", reference.profile.name));
    let about = format!(
        "{} as captured by `toolsearch-qa profile capture` ({}, {} fake tools)",
        observations.source.product,
        observations.source.captured_on,
        observations.source.catalog_size
    );
    let comment = header_comment(&observations.source);
    let rules = target.surface(&reference).rules;
    let header = write::Header {
        name: &name,
        about: &about,
        comment: &comment,
        tool_search: &rules,
    };
    Ok(CapturedProfile {
        sized: write::profile_toml(&header, &captured, false),
        with_text: options
            .with_text
            .then(|| write::profile_toml(&header, &captured, true)),
        name,
    })
}

/// The `profile capture` command: [`run`], then the profile written where `options` say, and
/// where it went said on stderr.
pub async fn command(options: &CaptureOptions, out: &mut dyn std::io::Write) -> Result<u8, Error> {
    let CapturedProfile {
        name,
        sized,
        with_text,
    } = run(options).await?;
    match &options.out {
        Some(path) => {
            std::fs::write(path, &sized).map_err(Error::io("cannot write", path))?;
            eprintln!("profile {name} written to {}", path.display());
        }
        None => crate::output::emit(out, &sized)?,
    }
    if let Some(text) = with_text {
        let path = with_text_path(&name)?;
        std::fs::write(&path, text).map_err(Error::io("cannot write", &path))?;
        eprintln!(
            "profile {name} with the gateway's own texts written to {} (for local use; never commit it)",
            path.display()
        );
    }
    Ok(Exit::OK)
}

fn capture_error(e: CaptureError) -> Error {
    Error::Machine(e.to_string())
}

fn header_comment(source: &Source) -> Vec<String> {
    vec![
        format!(
            "Captured by `toolsearch-qa profile capture` from {}{} on {}, reference scenario",
            source.product,
            source
                .node
                .as_ref()
                .map(|n| format!(" (node {n})"))
                .unwrap_or_default(),
            source.captured_on
        ),
        format!(
            "{} ({} fake tools): counts, sizes, structure, tool names and the directory's format.",
            source.scenario, source.catalog_size
        ),
        "No prose of the product: every text is its size ({ chars, bytes, lines }; schema".into(),
        "descriptions \"[N chars]\"), and the embedded gateway sends synthetic filler of that size."
            .into(),
        "docs/profiles.md explains every field.".into(),
    ]
}

/// `<cache>/profiles/<name>.with-text.toml`, its folder created.
fn with_text_path(name: &str) -> Result<PathBuf, Error> {
    let root = crate::targets::openclaw::install::default_cache_root()
        .map_err(Error::openclaw("cache"))?;
    let dir = root.join("profiles");
    std::fs::create_dir_all(&dir).map_err(Error::io("cannot create", &dir))?;
    Ok(dir.join(format!("{name}.with-text.toml")))
}

/// The lane of `mode`: `tools.toolSearch` is `false` for direct, `{mode = "…"}` otherwise.
fn mode_lane(mode: ToolSearchMode) -> Lane {
    let tool_search = match mode {
        ToolSearchMode::Direct => Value::Bool(false),
        mode => json!({ "mode": mode.as_str() }),
    };
    Lane::new(mode.as_str(), tool_search).expect("every mode resolves")
}

fn plugin(scenario: &Scenario) -> Plugin {
    let size = scenario.catalog.size;
    Plugin {
        id: scenario.catalog.plugin_id.clone(),
        size,
        descriptions: (1..=size)
            .map(|i| (fake_tool_name(i, size), fake_tool_description(i)))
            .collect(),
    }
}

/// Runs the lanes on `target` and keeps what the capture reads.
pub async fn observe(
    target: &dyn Target,
    reference: &Scenario,
    bound_size: usize,
) -> Result<Observations, Error> {
    let mut first = BTreeMap::new();
    for mode in ToolSearchMode::ALL {
        let requests = lane_requests(target, reference, &mode_lane(mode), None).await?;
        let body = requests.into_iter().next().ok_or_else(|| {
            Error::Machine(format!(
                "the {} lane sent no provider request",
                mode.as_str()
            ))
        })?;
        first.insert(mode, body);
    }
    let fake = plugin(reference).names();
    let declared: Vec<String> = first[&ToolSearchMode::Tools]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str())
        .filter(|n| !crate::config::CONTROL_TOOLS.contains(n) && !fake.contains(*n))
        .map(str::to_string)
        .collect();
    let mut bound = reference.clone();
    bound.catalog.size = bound_size;
    bound.target_tool = fake_tool_name(17.min(bound_size), bound_size);
    bound.prompt = format!("tool search qa check target={}", bound.target_tool);
    let script = vec![
        ScriptedTurn::ToolCall {
            name: TOOL_SEARCH_CODE.into(),
            arguments: json!({ "code": probe_code(&declared) }),
        },
        ScriptedTurn::Text("probe done".into()),
    ];
    let lane = mode_lane(ToolSearchMode::Code);
    let bound_requests = lane_requests(target, &bound, &lane, Some(script)).await?;
    let (version, node) = match target.product() {
        Some(p) => (format!("{} {}", target.name(), p.version), Some(p.node)),
        None => (
            format!(
                "toolsearch-qa embedded (profile {})",
                reference.profile.name
            ),
            None,
        ),
    };
    Ok(Observations {
        source: Source {
            product: version,
            node,
            scenario: reference.id.clone(),
            catalog_size: reference.catalog.size,
            captured_on: today(),
            fixture_description: reference.catalog.description_template.clone(),
        },
        plugin: plugin(reference),
        prompt: reference.prompt.clone(),
        first,
        bound: BoundLane {
            plugin: plugin(&bound),
            requests: bound_requests,
        },
    })
}

/// One lane against a fresh mock (scripted when `script` is given); its request bodies.
async fn lane_requests(
    target: &dyn Target,
    scenario: &Scenario,
    lane: &Lane,
    script: Option<Vec<ScriptedTurn>>,
) -> Result<Vec<Value>, Error> {
    let provider = MockProvider::start_with(ProviderOptions {
        script,
        ..ProviderOptions::default()
    })
    .await?;
    let started = std::time::Instant::now();
    let plan = crate::drive::LanePlan::new(target, scenario, lane);
    let observation = run_lane(target, &plan, &provider.base_url(), &provider.journal()).await?;
    eprintln!(
        "captured {} lane {} ({} fake tools): {} requests in {:.1} s",
        target.name(),
        lane.name,
        scenario.catalog.size,
        observation.requests.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(observation
        .requests
        .iter()
        .map(|r| r.body.clone())
        .collect())
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

/// The proleptic Gregorian date of a day count since 1970-01-01.
fn civil_date(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}")
}

#[cfg(test)]
mod tests {
    use super::civil_date;

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(20_422), "2025-11-30");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }
}
