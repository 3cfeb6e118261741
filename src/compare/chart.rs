//! A hand-written SVG chart of first-request bytes against catalogue size, one line per mode,
//! both axes on a log scale (direct grows by orders of magnitude while the bridges stay flat).

use std::fmt::Write as _;

use super::{CompareCell, CompareReport, ToolSearchMode};

const WIDTH: f64 = 860.0;
const HEIGHT: f64 = 500.0;
const LEFT: f64 = 90.0;
const RIGHT: f64 = 230.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 60.0;

/// Colour, dash pattern and marker radius per mode: overlapping lines stay distinguishable.
fn style(mode: ToolSearchMode) -> (&'static str, &'static str, f64) {
    match mode {
        ToolSearchMode::Direct => ("#d62728", "", 4.0),
        ToolSearchMode::Code => ("#1f77b4", "", 7.0),
        ToolSearchMode::Tools => ("#2ca02c", "8 4", 5.0),
        ToolSearchMode::Directory => ("#9467bd", "2 3", 3.0),
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

/// `1`, `10`, `100`, `1k`, `10k`, `100k`, `1M`, …
fn decade_label(value: f64) -> String {
    match value {
        v if v >= 1e9 => format!("{}G", v / 1e9),
        v if v >= 1e6 => format!("{}M", v / 1e6),
        v if v >= 1e3 => format!("{}k", v / 1e3),
        v => format!("{v}"),
    }
}

fn x_of(axis: &LogAxis, size: usize) -> f64 {
    LEFT + axis.fraction(size as f64) * (WIDTH - LEFT - RIGHT)
}

fn y_of(axis: &LogAxis, bytes: usize) -> f64 {
    HEIGHT - BOTTOM - axis.fraction(bytes as f64) * (HEIGHT - TOP - BOTTOM)
}

fn series_label(cells: &[&CompareCell], mode: ToolSearchMode) -> String {
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

fn axes_and_titles(svg: &mut String) {
    let _ = write!(
        svg,
        r##"<rect x="{LEFT}" y="{TOP}" width="{:.1}" height="{:.1}" fill="none" stroke="#333"/>"##,
        WIDTH - LEFT - RIGHT,
        HEIGHT - TOP - BOTTOM
    );
    let _ = write!(
        svg,
        r##"<text x="{:.1}" y="28" text-anchor="middle" font-size="16" font-weight="bold">First provider request size by catalogue size</text>"##,
        (WIDTH - RIGHT + LEFT) / 2.0
    );
    let _ = write!(
        svg,
        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle">catalogue size (fake plugin tools, log scale)</text>"##,
        (WIDTH - RIGHT + LEFT) / 2.0,
        HEIGHT - 18.0
    );
    let _ = write!(
        svg,
        r##"<text transform="translate(22 {:.1}) rotate(-90)" text-anchor="middle">first request bytes (log scale)</text>"##,
        (HEIGHT - BOTTOM + TOP) / 2.0
    );
}

fn series(svg: &mut String, report: &CompareReport, x: &LogAxis, y: &LogAxis) {
    for (i, &mode) in report.modes.iter().enumerate() {
        let cells: Vec<&CompareCell> = report.cells.iter().filter(|c| c.mode == mode).collect();
        let (colour, dash, radius) = style(mode);
        let points: Vec<String> = cells
            .iter()
            .map(|c| format!("{:.1},{:.1}", x_of(x, c.size), y_of(y, c.first.raw_bytes)))
            .collect();
        let _ = write!(
            svg,
            r##"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>"##,
            points.join(" ")
        );
        for c in &cells {
            let _ = write!(
                svg,
                r##"<circle cx="{:.1}" cy="{:.1}" r="{radius}" fill="none" stroke="{colour}" stroke-width="2"><title>{} at {}: {} bytes</title></circle>"##,
                x_of(x, c.size),
                y_of(y, c.first.raw_bytes),
                mode.as_str(),
                c.size,
                c.first.raw_bytes
            );
        }
        let ly = TOP + 10.0 + 24.0 * i as f64;
        let lx = WIDTH - RIGHT + 16.0;
        let _ = write!(
            svg,
            r##"<line x1="{lx:.1}" y1="{ly:.1}" x2="{:.1}" y2="{ly:.1}" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/><circle cx="{:.1}" cy="{ly:.1}" r="{radius}" fill="none" stroke="{colour}" stroke-width="2"/><text x="{:.1}" y="{:.1}">{}</text>"##,
            lx + 30.0,
            lx + 15.0,
            lx + 38.0,
            ly + 4.0,
            series_label(&cells, mode)
        );
    }
}

/// The chart as a standalone SVG document.
pub fn svg(report: &CompareReport) -> String {
    let x = LogAxis::around(report.sizes.iter().map(|s| *s as f64));
    let y = LogAxis::around(report.cells.iter().map(|c| c.first.raw_bytes as f64));
    let mut svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/>"##
    );
    grid(&mut svg, &x, &y);
    axes_and_titles(&mut svg);
    series(&mut svg, report, &x, &y);
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
    }
}
