//! A progress bar on stderr for `suite`, only when stderr is a terminal (never in CI logs).

use std::io::IsTerminal;

use crate::suite::{Reporter, SuiteEvent};

/// A progress bar on stderr, only when stderr is a terminal (never in CI logs).
pub(crate) struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub(crate) fn new() -> Self {
        if !std::io::stderr().is_terminal() {
            return Progress(None);
        }
        let bar = indicatif::ProgressBar::new(0);
        if let Ok(style) =
            indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} lanes  {msg}")
        {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    pub(crate) fn finish(&self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

impl Reporter for Progress {
    fn event(&self, event: SuiteEvent<'_>) {
        let Some(bar) = &self.0 else { return };
        match event {
            SuiteEvent::RunStarted { scenarios, .. } => {
                bar.inc_length(scenarios.iter().map(|s| s.lanes.len() as u64).sum());
            }
            SuiteEvent::LaneStarted {
                target,
                scenario,
                lane,
            } => {
                bar.set_message(format!(
                    "{} / {} / {}",
                    target.name(),
                    scenario.id,
                    lane.name
                ));
                bar.inc(1);
            }
            SuiteEvent::ScenarioFinished { .. } => {}
        }
    }
}
