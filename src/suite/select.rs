//! Which scenarios a run covers: by where they come from (the built-in ones, or with
//! `--scenario-dir` that directory's, both with `--with-builtins`), by id (`--scenario`), by
//! text (`--filter`) and by shard (`--shard K/N`: scenarios sorted by id, then every N-th from
//! the K-th, so the N shards of a CI matrix together run every scenario exactly once, the same
//! split on every machine).

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::scenario::{select, Scenario, ScenarioError};

/// Where the scenarios of a run come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origins {
    /// The built-in ones (no `--scenario-dir`).
    BuiltIn,
    /// Only the `--scenario-dir` directories' (their own snapshots, `--no-snapshots` and
    /// `--filter` then concern them alone).
    Dirs,
    /// Both (`--scenario-dir` with `--with-builtins`).
    Both,
}

impl Origins {
    /// From the flags: directories given, built-ins asked for.
    pub fn from_flags(dirs_given: bool, with_builtins: bool) -> Origins {
        match (dirs_given, with_builtins) {
            (false, _) => Origins::BuiltIn,
            (true, false) => Origins::Dirs,
            (true, true) => Origins::Both,
        }
    }

    fn keeps(self, scenario: &Scenario) -> bool {
        match self {
            Origins::BuiltIn => scenario.is_built_in(),
            Origins::Dirs => !scenario.is_built_in(),
            Origins::Both => true,
        }
    }
}

/// The scenarios of `known` that `origins` keeps, then those `ids` name (all when empty), in
/// the order given. An id of a built-in scenario left out by `--scenario-dir` says how to mix
/// them in.
pub fn choose(
    known: &[Scenario],
    origins: Origins,
    ids: &[String],
) -> Result<Vec<Scenario>, Error> {
    let kept: Vec<Scenario> = known.iter().filter(|s| origins.keeps(s)).cloned().collect();
    select(kept, ids).map_err(|error| match &error {
        ScenarioError::Unknown { id, .. }
            if origins == Origins::Dirs && known.iter().any(|s| &s.id == id) =>
        {
            Error::Usage(format!(
                "scenario {id:?} is built in, and with --scenario-dir only that directory's \
                 scenarios run: add --with-builtins to mix them in"
            ))
        }
        _ => Error::from(error),
    })
}

/// Shard `index` of `count` (1-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl FromStr for Shard {
    type Err = String;

    /// Parses `K/N` with 1 <= K <= N.
    fn from_str(text: &str) -> Result<Shard, String> {
        let (k, n) = text.split_once('/').ok_or("expected K/N, e.g. 1/4")?;
        let number = |part: &str, name: &str| {
            part.trim()
                .parse::<usize>()
                .map_err(|_| format!("{name} in {text:?} is not a whole number"))
        };
        let (index, count) = (number(k, "K")?, number(n, "N")?);
        if count == 0 || index == 0 || index > count {
            return Err(format!("shard {text:?} must have 1 <= K <= N"));
        }
        Ok(Shard { index, count })
    }
}

/// As written on the command line (`"2/4"`), in `summary.json`.
impl serde::Serialize for Shard {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Shard {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Keeps the scenarios whose id contains `filter`, then those of `shard`.
pub fn narrow(
    mut scenarios: Vec<Scenario>,
    filter: Option<&str>,
    shard: Option<Shard>,
) -> Vec<Scenario> {
    if let Some(text) = filter {
        scenarios.retain(|s| s.id.contains(text));
    }
    if let Some(Shard { index, count }) = shard {
        scenarios.sort_by(|a, b| a.id.cmp(&b.id));
        scenarios = scenarios
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % count == index - 1)
            .map(|(_, s)| s)
            .collect();
    }
    scenarios
}

/// Why a selection came out empty (the run would judge nothing: a usage error). `chosen` is how
/// many scenarios `--scenario` left, `filtered` how many of them `filter` kept.
pub fn empty_selection(
    chosen: usize,
    filtered: usize,
    filter: Option<&str>,
    shard: Option<Shard>,
) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match (filter, shard) {
        (Some(text), _) if filtered == 0 => format!(
            "no scenario id contains {text:?} (--filter; {chosen} scenario{} to choose from): \
             nothing would be checked",
            plural(chosen)
        ),
        (_, Some(s)) if s.count > filtered => format!(
            "shard {s} is empty: {filtered} scenario{} cannot fill {} shards (use N <= {filtered}): \
             nothing would be checked",
            plural(filtered),
            s.count
        ),
        _ => "no scenario selected: nothing would be checked".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_all;

    fn ids(scenarios: &[Scenario]) -> Vec<&str> {
        scenarios.iter().map(|s| s.id.as_str()).collect()
    }

    #[test]
    fn shards_are_disjoint_and_cover_every_scenario_once() {
        let all = load_all(&[]).unwrap();
        let mut covered: Vec<String> = Vec::new();
        for index in 1..=3 {
            let shard = narrow(all.clone(), None, Some(Shard { index, count: 3 }));
            assert!(!shard.is_empty());
            covered.extend(ids(&shard).into_iter().map(String::from));
        }
        let mut want: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
        want.sort();
        covered.sort();
        assert_eq!(covered, want);
    }

    #[test]
    fn filter_keeps_matching_ids_in_order() {
        let narrowed = narrow(load_all(&[]).unwrap(), Some("fail-closed-f1"), None);
        assert_eq!(ids(&narrowed), ["fail-closed-f1-policy-denied"]);
    }

    #[test]
    fn an_empty_selection_says_why() {
        assert_eq!(
            empty_selection(11, 0, Some("nomatch"), None),
            "no scenario id contains \"nomatch\" (--filter; 11 scenarios to choose from): \
             nothing would be checked"
        );
        let twelve = Some(Shard {
            index: 12,
            count: 12,
        });
        assert_eq!(
            empty_selection(11, 11, None, twelve),
            "shard 12/12 is empty: 11 scenarios cannot fill 12 shards (use N <= 11): \
             nothing would be checked"
        );
    }

    #[test]
    fn shard_parsing_names_the_problem() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(
            "3/2".parse::<Shard>().unwrap_err(),
            "shard \"3/2\" must have 1 <= K <= N"
        );
        assert_eq!(
            "x/2".parse::<Shard>().unwrap_err(),
            "K in \"x/2\" is not a whole number"
        );
        assert_eq!("4".parse::<Shard>().unwrap_err(), "expected K/N, e.g. 1/4");
    }
}
