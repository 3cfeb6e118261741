//! Hand-written SVG charts against catalogue size — first-request bytes, whole-turn tokens and
//! cost per 1,000 turns — one line per mode, both axes on a log scale (direct grows by orders
//! of magnitude while the bridges stay flat). Lines that coincide (the bridges under a product's
//! profile) stay visible: each mode has its own width, drawn widest first, and its own dash and
//! marker.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::{CompareCell, CompareMode, CompareReport};
use crate::config::{NativeProvider, ToolSearchMode};
use crate::error::Error;
use crate::targets::TargetKind;

/// What a chart plots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    FirstBytes,
    TurnTokens,
    CostPer1000Turns,
}

impl Metric {
    pub const ALL: [Metric; 3] = [
        Metric::FirstBytes,
        Metric::TurnTokens,
        Metric::CostPer1000Turns,
    ];

    /// The chart's file name.
    pub fn file_name(self) -> &'static str {
        match self {
            Metric::FirstBytes => "first-request-bytes.svg",
            Metric::TurnTokens => "turn-tokens.svg",
            Metric::CostPer1000Turns => "cost-per-1000-turns.svg",
        }
    }

    fn value(self, cell: &CompareCell) -> Option<f64> {
        match self {
            Metric::FirstBytes => Some(cell.first.raw_bytes as f64),
            Metric::TurnTokens => Some(cell.first_turn.turn.tokens as f64),
            Metric::CostPer1000Turns => cell.first_turn.cost_per_1000_turns,
        }
    }

    fn title(self, report: &CompareReport) -> String {
        let what = match self {
            Metric::FirstBytes => "First provider request, bytes".to_string(),
            Metric::TurnTokens => "Whole turn, input tokens".to_string(),
            Metric::CostPer1000Turns => {
                format!(
                    "Cost per 1,000 turns, USD ({})",
                    super::render::price_label(report)
                )
            }
        };
        let target = report
            .targets
            .first()
            .copied()
            .unwrap_or(TargetKind::Embedded);
        format!("{what} · {}", super::render::shown(report, target))
    }

    fn axis_label(self) -> &'static str {
        match self {
            Metric::FirstBytes => "first request bytes (log scale)",
            Metric::TurnTokens => "turn tokens, o200k_base (log scale)",
            Metric::CostPer1000Turns => "USD per 1,000 turns, prompt cache applied (log scale)",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Metric::FirstBytes => "bytes",
            Metric::TurnTokens => "tokens",
            Metric::CostPer1000Turns => "USD per 1,000 turns",
        }
    }
}

/// Writes every chart of every target into `dir` (created if missing): the embedded
/// prediction's as [`Metric::file_name`], the product's with an `openclaw-` prefix. Returns
/// their paths.
pub fn write_all(report: &CompareReport, dir: &Path) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(dir).map_err(Error::io("cannot create", dir))?;
    let mut paths = Vec::new();
    for &target in &report.targets {
        let part = report.only(target);
        let prefix = match target {
            TargetKind::Embedded => "",
            TargetKind::Openclaw => "openclaw-",
        };
        for metric in Metric::ALL {
            let path = dir.join(format!("{prefix}{}", metric.file_name()));
            std::fs::write(&path, svg(&part, metric)).map_err(Error::io("cannot write", &path))?;
            paths.push(path);
        }
    }
    Ok(paths)
}

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;

/// How a mode's line is drawn.
struct Style {
    colour: &'static str,
    dash: &'static str,
    marker: f64,
    /// Stroke width: lines are drawn widest first, so one that lies on another shows as a
    /// band around it.
    width: f64,
}

/// Colour, dash, marker radius and width per mode: overlapping lines stay distinguishable.
fn style(mode: CompareMode) -> Style {
    let (colour, dash, marker, width) = match mode {
        CompareMode::Gateway(ToolSearchMode::Direct) => ("#d62728", "", 4.0, 2.0),
        CompareMode::Gateway(ToolSearchMode::Code) => ("#1f77b4", "", 9.0, 9.0),
        CompareMode::Gateway(ToolSearchMode::Tools) => ("#2ca02c", "", 6.5, 5.0),
        CompareMode::Gateway(ToolSearchMode::Directory) => ("#9467bd", "6 4", 3.5, 2.0),
        CompareMode::CodeMode => ("#e377c2", "1 2", 7.5, 4.0),
        CompareMode::Native(NativeProvider::Openai) => ("#ff7f0e", "2 3", 5.0, 3.0),
        CompareMode::Native(NativeProvider::Anthropic) => ("#8c564b", "8 3 2 3", 3.0, 1.5),
    };
    Style {
        colour,
        dash,
        marker,
        width,
    }
}

/// A log10 axis spanning whole decades around `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LogAxis {
    lo: f64,
    hi: f64,
}

impl LogAxis {
    fn around(values: impl Iterator<Item = f64>) -> LogAxis {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.filter(|v| *v > 0.0) {
            lo = lo.min(v.log10().floor());
            hi = hi.max(v.log10().ceil());
        }
        if !lo.is_finite() {
            return LogAxis { lo: 0.0, hi: 1.0 };
        }
        if hi <= lo {
            hi = lo + 1.0;
        }
        LogAxis { lo, hi }
    }

    /// Position of `value` in 0..=1 along the axis.
    fn fraction(&self, value: f64) -> f64 {
        (value.max(f64::MIN_POSITIVE).log10() - self.lo) / (self.hi - self.lo)
    }

    fn decades(&self) -> impl Iterator<Item = f64> {
        let (lo, hi) = (self.lo as i32, self.hi as i32);
        (lo..=hi).map(|e| 10f64.powi(e))
    }
}

/// `0.01`, `0.1`, `1`, `10`, `100`, `1k`, `10k`, `100k`, `1M`, …
fn decade_label(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{}G", v / 1e9),
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v if v >= 1.0 => format!("{v}"),
        v => {
            let places = (-v.log10().round()).max(0.0) as usize;
            format!("{v:.places$}")
        }
    }
}

fn x_of(axis: &LogAxis, size: usize) -> f64 {
    LEFT + axis.fraction(size as f64) * (WIDTH - LEFT - RIGHT)
}

fn y_of(axis: &LogAxis, value: f64) -> f64 {
    HEIGHT - BOTTOM - axis.fraction(value) * (HEIGHT - TOP - BOTTOM)
}

fn series_label(cells: &[&CompareCell], mode: CompareMode) -> String {
    let ran_as: Vec<&str> = cells
        .iter()
        .map(|c| c.effective_mode.as_str())
        .filter(|m| *m != mode.as_str())
        .collect();
    match ran_as.first() {
        Some(other) => format!("{} (ran as {other})", mode.as_str()),
        None => mode.as_str().to_string(),
    }
}

fn grid(svg: &mut String, x: &LogAxis, y: &LogAxis) {
    for d in x.decades() {
        let px = LEFT + x.fraction(d) * (WIDTH - LEFT - RIGHT);
        let _ = write!(
            svg,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{:.1}" stroke="#ddd"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            HEIGHT - BOTTOM,
            HEIGHT - BOTTOM + 18.0,
            decade_label(d)
        );
    }
    for d in y.decades() {
        let py = HEIGHT - BOTTOM - y.fraction(d) * (HEIGHT - TOP - BOTTOM);
        let _ = write!(
            svg,
            r##"<line x1="{LEFT}" y1="{py:.1}" x2="{:.1}" y2="{py:.1}" stroke="#ddd"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            WIDTH - RIGHT,
            LEFT - 8.0,
            py + 4.0,
            decade_label(d)
        );
    }
}

fn axes_and_titles(svg: &mut String, title: &str, axis_label: &str) {
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{:.1}" height="{:.1}" fill="none" stroke="#333"/>"##,
        WIDTH - LEFT - RIGHT,
        HEIGHT - TOP - BOTTOM
    );
    let _ = write!(
        svg,
        r##"<text x="{:.1}" y="28" text-anchor="middle" font-size="16" font-weight="bold">{}</text>"##,
        WIDTH / 2.0,
        escape(title)
    );
    let _ = write!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">catalogue size (fake plugin tools, log scale)</text>"##,
        (WIDTH - RIGHT + LEFT) / 2.0,
        HEIGHT - 18.0
    );
    let _ = write!(
        svg,
        r##"<text transform="translate(22 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"##,
        (HEIGHT - BOTTOM + TOP) / 2.0,
        escape(axis_label)
    );
}

/// Text made safe inside an SVG element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// The cells of `mode` that have a value for `metric`, with it (the fake plugin's: the charts
/// plot against its size; `--catalog`'s cells are in the tables).
fn points(report: &CompareReport, mode: CompareMode, metric: Metric) -> Vec<(&CompareCell, f64)> {
    report
        .cells
        .iter()
        .filter(|c| c.mode == mode && c.catalogue.is_none())
        .filter_map(|c| metric.value(c).map(|v| (c, v)))
        .collect()
}

fn series(svg: &mut String, report: &CompareReport, metric: Metric, x: &LogAxis, y: &LogAxis) {
    let mut modes = report.modes.clone();
    // Widest first: a line drawn over another leaves the wider one visible around it.
    modes.sort_by(|a, b| style(*b).width.total_cmp(&style(*a).width));
    for mode in modes {
        let cells = points(report, mode, metric);
        let s = style(mode);
        let line: Vec<String> = cells
            .iter()
            .map(|(c, v)| format!("{:.1},{:.1}", x_of(x, c.size), y_of(y, *v)))
            .collect();
        let _ = write!(
            svg,
            r##"<polyline points="{}" fill="none" stroke="{}" stroke-opacity="0.75" stroke-width="{}" stroke-dasharray="{}"/>"##,
            line.join(" "),
            s.colour,
            s.width,
            s.dash
        );
        for (c, v) in &cells {
            let _ = write!(
                svg,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{}" fill="white" stroke="{}" stroke-width="2"><title>{} at {}: {} {}</title></circle>"##,
                x_of(x, c.size),
                y_of(y, *v),
                s.marker,
                s.colour,
                mode.as_str(),
                c.size,
                crate::output::significant4(*v),
                metric.unit()
            );
        }
    }
}

fn legend(svg: &mut String, report: &CompareReport) {
    for (i, &mode) in report.modes.iter().enumerate() {
        let cells: Vec<&CompareCell> = report
            .cells
            .iter()
            .filter(|c| c.mode == mode && c.catalogue.is_none())
            .collect();
        let s = style(mode);
        let ly = TOP + 10.0 + 24.0 * i as f64;
        let lx = WIDTH - RIGHT + 16.0;
        let _ = write!(
            svg,
            r##"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{}" stroke-opacity="0.75" stroke-width="{}" stroke-dasharray="{}"/><circle cx="{:.1}" cy="{ly:.1}" r="{}" fill="white" stroke="{}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"##,
            lx + 30.0,
            s.colour,
            s.width,
            s.dash,
            lx + 15.0,
            s.marker,
            s.colour,
            lx + 38.0,
            ly + 4.0,
            escape(&series_label(&cells, mode))
        );
    }
}

/// One chart as a standalone SVG document.
pub fn svg(report: &CompareReport, metric: Metric) -> String {
    let x = LogAxis::around(report.sizes.iter().map(|s| *s as f64));
    let y = LogAxis::around(report.cells.iter().filter_map(|c| metric.value(c)));
    let mut svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"##
    );
    grid(&mut svg, &x, &y);
    axes_and_titles(&mut svg, &metric.title(report), metric.axis_label());
    series(&mut svg, report, metric, &x, &y);
    legend(&mut svg, report);
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_spans_whole_decades() {
        let axis = LogAxis::around([36.0, 10_000.0].into_iter());
        assert_eq!(axis, LogAxis { lo: 1.0, hi: 4.0 });
        assert_eq!(axis.fraction(100.0), 1.0 / 3.0);
        assert_eq!(
            LogAxis::around([5.0].into_iter()),
            LogAxis { lo: 0.0, hi: 1.0 }
        );
        assert_eq!(
            LogAxis::around(std::iter::empty()),
            LogAxis { lo: 0.0, hi: 1.0 }
        );
    }

    #[test]
    fn decade_labels_are_short() {
        assert_eq!(decade_label(10.0), "10");
        assert_eq!(decade_label(10_000.0), "10k");
        assert_eq!(decade_label(1e6), "1M");
        assert_eq!(decade_label(0.01), "0.01");
        assert_eq!(decade_label(10f64.powi(-3)), "0.001");
    }
}
