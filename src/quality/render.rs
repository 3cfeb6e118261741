//! The quality report as a table: the figures per half next to the baseline's, then the misses.

use crate::output::bounded_table;

use super::{Baseline, Figures, QualityReport, RANK_DEPTH};

/// `0.8000 (40/50)`.
fn rate_cell(rate: f64, hits: usize, queries: usize) -> String {
    format!("{rate:.4} ({hits}/{queries})")
}

fn base_cell(baseline: Option<&Figures>, f: impl Fn(&Figures) -> String) -> String {
    baseline.map(f).unwrap_or_else(|| "-".into())
}

pub(super) fn table(report: &QualityReport, baseline: Option<&Baseline>) -> String {
    let mut figures = bounded_table(vec![
        "metric",
        "tuning half",
        "baseline",
        "test half",
        "baseline",
        "all",
    ]);
    let (bt, bs) = (baseline.map(|b| &b.tuning), baseline.map(|b| &b.test));
    let (t, s, a) = (&report.tuning, &report.test, &report.all);
    figures.add_row(vec![
        "queries".to_string(),
        t.queries.to_string(),
        base_cell(bt, |b| b.queries.to_string()),
        s.queries.to_string(),
        base_cell(bs, |b| b.queries.to_string()),
        a.queries.to_string(),
    ]);
    type Pick = fn(&Figures) -> (f64, usize);
    let rates: [(&str, Pick); 2] = [
        ("recall@1", |f| (f.recall_at_1, f.hits_at_1)),
        ("recall@5", |f| (f.recall_at_5, f.hits_at_5)),
    ];
    for (metric, pick) in rates {
        let now = |f: &Figures| {
            let (rate, hits) = pick(f);
            rate_cell(rate, hits, f.queries)
        };
        let base = |b: &Figures| format!("{}/{}", pick(b).1, b.queries);
        figures.add_row(vec![
            metric.to_string(),
            now(t),
            base_cell(bt, base),
            now(s),
            base_cell(bs, base),
            now(a),
        ]);
    }
    figures.add_row(vec![
        format!("MRR@{RANK_DEPTH}"),
        format!("{:.4}", t.mrr),
        base_cell(bt, |b| format!("{:.4}", b.mrr)),
        format!("{:.4}", s.mrr),
        base_cell(bs, |b| format!("{:.4}", b.mrr)),
        format!("{:.4}", a.mrr),
    ]);
    let mut misses = bounded_table(vec!["half", "query", "right tool", "rank", "first instead"]);
    for m in &report.misses {
        misses.add_row(vec![
            match m.half {
                super::Half::Tuning => "tuning".to_string(),
                super::Half::Test => "test".to_string(),
            },
            m.query.clone(),
            m.tool.clone(),
            m.rank
                .map_or_else(|| format!(">{RANK_DEPTH}"), |r| r.to_string()),
            m.first.clone().unwrap_or_else(|| "(nothing)".into()),
        ]);
    }
    crate::output::keep_words(&mut misses);
    let ranker = match &report.product {
        Some(p) => format!("OpenClaw {} (Node {}) tool_search", p.version, p.node),
        None => format!("ranker {}", report.ranker.as_str()),
    };
    let unmeasured = match report.unmeasured.len() {
        0 => String::new(),
        n => format!(
            "{n} queries not measured: their right tool is not in this catalogue ({})\n",
            report
                .unmeasured
                .iter()
                .map(|q| q.tool.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    format!(
        "search quality: {ranker}, {} tools, {} queries\n{unmeasured}{figures}\n\
         exact-name recall: {:.4} ({}/{}; every tool searched by its own name must come first)\n\
         {} queries not ranked first\n{misses}\n",
        report.catalog_size,
        report.queries,
        report.exact_name_recall,
        report.exact_name_hits,
        report.catalog_size,
        report.misses.len()
    )
}
