//! Where a run's wall time goes, as data: each lane's steps (a gateway start or a config reload,
//! each turn, each call that is not a turn) with their milliseconds, and per target what the
//! run cost as a whole (gateway starts, processes started beside them, peak memory per process).
//! The runner and the targets record these; reporters (`--timings`, the JSON summary) only
//! render them. Not deterministic: never in snapshots, never judged by a claim.

use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A step of a lane that takes wall time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Step {
    /// A gateway process started for this lane, up to its readiness.
    GatewayStart,
    /// The running gateway took this lane's config (written, then applied by the product).
    ConfigReload,
    /// The scenario's turn.
    Turn,
    /// The scenario's second turn in the same session.
    FollowUp,
    /// The lane's invoke batch (`POST /tools/invoke`).
    Invoke,
    /// The product's `tools.effective` method.
    EffectiveTools,
    /// Reading the session's transcript.
    SessionRead,
}

impl Step {
    /// The name tables show.
    pub fn as_str(self) -> &'static str {
        match self {
            Step::GatewayStart => "gateway start",
            Step::ConfigReload => "config reload",
            Step::Turn => "turn",
            Step::FollowUp => "follow-up turn",
            Step::Invoke => "invoke",
            Step::EffectiveTools => "tools.effective",
            Step::SessionRead => "session read",
        }
    }
}

/// One step and how long it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timed {
    pub step: Step,
    pub millis: u64,
}

impl Timed {
    pub fn new(step: Step, took: Duration) -> Timed {
        Timed {
            step,
            millis: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
        }
    }
}

/// What a run cost one target as a whole (a target that starts no processes reports none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCosts {
    /// Gateway processes started (retries included).
    pub gateway_starts: usize,
    /// Of those, starts tried again after the product aborted its start-up.
    pub start_retries: usize,
    /// Other processes of the product started for the run (its CLI, one Node per call).
    pub cli_processes: usize,
    /// Milliseconds from spawn to readiness, per gateway start.
    pub start_millis: Vec<u64>,
    /// The largest peak resident memory of one gateway's main process, in KiB (`VmHWM`, read
    /// just before it is stopped).
    pub gateway_peak_kib: u64,
    /// The largest sum of peaks over one gateway's process group (its helpers included), KiB.
    pub gateway_group_peak_kib: u64,
    /// The harness's own peak resident memory at the end of the run, KiB.
    pub harness_peak_kib: u64,
}

/// A process's peak resident memory in KiB (`VmHWM` of `/proc/<pid>/status`; `None` where the
/// system has no such file).
pub fn peak_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The harness's own peak resident memory in KiB.
pub fn own_peak_kib() -> Option<u64> {
    peak_kib(std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_has_a_peak() {
        let own = own_peak_kib().expect("Linux has /proc/self/status");
        assert!(own > 0);
        assert_eq!(peak_kib(u32::MAX), None);
        let timed = Timed::new(Step::ConfigReload, Duration::from_micros(1_999));
        assert_eq!(timed.millis, 1);
        assert_eq!(
            serde_json::to_string(&timed).unwrap(),
            r#"{"step":"configReload","millis":1}"#
        );
    }
}
