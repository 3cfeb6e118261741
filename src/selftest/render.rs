//! The matrix as a table (at most 100 columns) and as JSON; both deterministic (the wall time
//! goes to stderr, not here).

use super::{Cell, Matrix, Outcome};
use crate::output::{bounded_table, cut};

/// What a cell's outcome says in one line: the first failing check of the claim and how many
/// more, the claims that failed instead, or why nothing ran.
fn detail(cell: &Cell) -> String {
    match &cell.outcome {
        Outcome::Caught { checks, .. } => match checks.len() {
            0 | 1 => checks.join(""),
            n => format!("{} (+{} more)", checks[0], n - 1),
        },
        Outcome::Missed {
            not_judged: Some(why),
            ..
        } => cut(&format!("{} not judged: {why}", cell.claim), 90),
        Outcome::Missed { failed, .. } if failed.contains(&cell.claim) => {
            let others: Vec<&str> = failed
                .iter()
                .filter(|c| **c != cell.claim)
                .map(|c| c.as_str())
                .collect();
            format!(
                "red for {} but also {}: a packed seed is caught by its own claims only",
                cell.claim,
                others.join(", ")
            )
        }
        Outcome::Missed { failed, .. } if failed.is_empty() => "every claim held".into(),
        Outcome::Missed { failed, .. } => format!(
            "only {} failed",
            failed
                .iter()
                .map(|c| c.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Outcome::Unviable { reason } | Outcome::NotSeedable { reason } => cut(reason, 90),
    }
}

impl Matrix {
    /// claim × target × seed → outcome, with the check that caught it (the scenario each seed
    /// runs is in the JSON and in docs/selftest.md).
    pub fn to_table(&self) -> String {
        let mut table = bounded_table(vec!["claim", "target", "seed", "outcome", "how"]);
        for cell in &self.cells {
            table.add_row(vec![
                cell.claim.to_string(),
                cell.target.to_string(),
                cell.seed.clone(),
                cell.outcome.word().to_string(),
                detail(cell),
            ]);
        }
        crate::output::keep_words(&mut table);
        let mut text = table.to_string();
        text.push('\n');
        for cell in &self.cells {
            if let Some(build) = &cell.build {
                text.push_str(&format!("{}: {build}\n", cell.seed));
            }
        }
        for failure in &self.baseline_failures {
            text.push_str(&format!("baseline failed: {failure}\n"));
        }
        let count = |word| {
            self.cells
                .iter()
                .filter(|c| c.outcome.word() == word)
                .count()
        };
        text.push_str(&format!(
            "{} cells: {} caught, {} missed, {} unviable, {} not seedable\n",
            self.cells.len(),
            count("caught"),
            count("missed"),
            count("unviable"),
            count("not seedable")
        ));
        text
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}
