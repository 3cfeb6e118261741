//! Which scenarios a run covers: by where they come from (the built-in ones, or with
//! `--scenario-dir` that directory's, both with `--with-builtins`), by id (`--scenario`), by
//! text (`--filter`) and by shard (`--shard K/N`: balanced by each scenario's expected time, so
//! the N shards of a CI matrix together run every scenario exactly once, in about the same time,
//! the same split on every machine).

use super::expected;
use crate::error::Error;
pub use crate::outcome::Shard;
use crate::scenario::{select, Scenario, ScenarioError};
use crate::targets::TargetChoice;

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

/// Keeps the scenarios whose id contains `filter`.
pub fn narrow(mut scenarios: Vec<Scenario>, filter: Option<&str>) -> Vec<Scenario> {
    if let Some(text) = filter {
        scenarios.retain(|s| s.id.contains(text));
    }
    scenarios
}

/// The scenarios of `shard`, balanced by each one's expected time on the targets of `target`
/// ([`expected::millis`]) and the gateway starts a shard pays ([`expected::start_millis`], one
/// per plugin among its scenarios): the longest first (ties by id), each to the shard whose
/// expected time it raises least (ties: the one with fewer scenarios, then the lower K). So the
/// N shards together run every scenario exactly once, the same split on every machine, and no
/// two long scenarios (the reference, the F5 code timeout) share a shard while a short one is
/// alone. A shard keeps the run's order.
pub fn in_shard(scenarios: Vec<Scenario>, shard: Shard, target: TargetChoice) -> Vec<Scenario> {
    let owner = owners(&scenarios, shard.count, target);
    scenarios
        .into_iter()
        .zip(owner)
        .filter(|(_, k)| *k == shard.index)
        .map(|(s, _)| s)
        .collect()
}

/// The expected time of a shard holding `scenarios`: their lanes, and a gateway start per
/// plugin among those that run a lane.
pub fn shard_millis(scenarios: &[&Scenario], target: TargetChoice) -> u64 {
    let lanes: u64 = scenarios.iter().map(|s| expected::millis(s, target)).sum();
    let plugins: std::collections::BTreeSet<String> = scenarios
        .iter()
        .filter(|s| expected::runs_lanes(s, target))
        .map(|s| expected::plugin_key(s))
        .collect();
    let start = expected::start_millis(target, &expected::Model::committed());
    lanes + start * plugins.len() as u64
}

/// The shard (1-based) each scenario goes to, in the order given.
fn owners(scenarios: &[Scenario], count: usize, target: TargetChoice) -> Vec<usize> {
    let cost: Vec<u64> = scenarios
        .iter()
        .map(|s| expected::millis(s, target))
        .collect();
    let start = expected::start_millis(target, &expected::Model::committed());
    let mut order: Vec<usize> = (0..scenarios.len()).collect();
    order.sort_by(|&a, &b| {
        cost[b]
            .cmp(&cost[a])
            .then_with(|| scenarios[a].id.cmp(&scenarios[b].id))
    });
    let mut load = vec![(0u64, 0usize); count];
    let mut plugins = vec![std::collections::BTreeSet::new(); count];
    let mut owner = vec![0; scenarios.len()];
    for i in order {
        let key = expected::runs_lanes(&scenarios[i], target)
            .then(|| expected::plugin_key(&scenarios[i]));
        let raise = |k: usize| {
            let starts = key.as_ref().is_some_and(|key| !plugins[k].contains(key));
            cost[i] + if starts { start } else { 0 }
        };
        let k = (0..count)
            .min_by_key(|&k| (load[k].0 + raise(k), load[k].1, k))
            .unwrap_or(0);
        load[k].0 += raise(k);
        load[k].1 += 1;
        plugins[k].extend(key);
        owner[i] = k + 1;
    }
    let keys: Vec<Option<String>> = scenarios
        .iter()
        .map(|s| expected::runs_lanes(s, target).then(|| expected::plugin_key(s)))
        .collect();
    let mut by_id: Vec<usize> = (0..scenarios.len()).collect();
    by_id.sort_by(|&a, &b| scenarios[a].id.cmp(&scenarios[b].id));
    improve(&mut owner, count, &by_id, (&cost, &keys, start));
    owner
}

/// A shard's expected time under `owner`: its scenarios' lanes and a start per plugin.
fn shard_load(k: usize, owner: &[usize], cost: &[u64], keys: &[Option<String>], start: u64) -> u64 {
    let mine = || (0..owner.len()).filter(move |&i| owner[i] == k);
    let plugins: std::collections::BTreeSet<&String> =
        mine().filter_map(|i| keys[i].as_ref()).collect();
    mine().map(|i| cost[i]).sum::<u64>() + start * plugins.len() as u64
}

/// Lowers the longest shard while it can: the best single move of one of its scenarios to
/// another shard, or swap with one of another shard's (the first best in id order, so the split
/// does not depend on the order the scenarios came in), until none helps. The greedy split alone left the two product shards 21% apart (a gateway start
/// lands on whichever shard takes the odd plugin).
fn improve(
    owner: &mut [usize],
    count: usize,
    by_id: &[usize],
    (cost, keys, start): (&[u64], &[Option<String>], u64),
) {
    let longest = |owner: &[usize]| {
        (1..=count)
            .map(|k| (shard_load(k, owner, cost, keys, start), k))
            .max_by_key(|&(load, k)| (load, std::cmp::Reverse(k)))
            .unwrap_or((0, 1))
    };
    let size = |owner: &[usize], k: usize| owner.iter().filter(|&&o| o == k).count();
    for _ in 0..owner.len() * owner.len() {
        let (max, heavy) = longest(owner);
        let mut best: Option<(u64, Vec<usize>)> = None;
        for &i in by_id.iter().filter(|&&i| owner[i] == heavy) {
            for &j in by_id {
                if owner[j] == heavy {
                    continue;
                }
                let mut swapped = owner.to_vec();
                swapped.swap(i, j);
                let mut moved = owner.to_vec();
                moved[i] = owner[j];
                let mut tries = vec![swapped];
                if size(owner, heavy) > 1 {
                    tries.push(moved);
                }
                for candidate in tries {
                    let (after, _) = longest(&candidate);
                    if after < max && best.as_ref().is_none_or(|(b, _)| after < *b) {
                        best = Some((after, candidate));
                    }
                }
            }
        }
        match best {
            Some((_, better)) => owner.copy_from_slice(&better),
            None => break,
        }
    }
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

    /// Every shard of `count` on `target`, by id.
    fn split(all: &[Scenario], count: usize, target: TargetChoice) -> Vec<Vec<String>> {
        (1..=count)
            .map(|index| {
                let shard = in_shard(all.to_vec(), Shard { index, count }, target);
                let mut ids: Vec<String> = shard.iter().map(|s| s.id.clone()).collect();
                ids.sort();
                ids
            })
            .collect()
    }

    #[test]
    fn shards_are_disjoint_cover_every_scenario_once_and_are_balanced() {
        let all = load_all(&[]).unwrap();
        let mut want: Vec<String> = all.iter().map(|s| s.id.clone()).collect();
        want.sort();
        for target in [
            TargetChoice::Embedded,
            TargetChoice::Openclaw,
            TargetChoice::Both,
        ] {
            let longest = all
                .iter()
                .map(|s| expected::millis(s, target))
                .max()
                .unwrap();
            for count in 1..=all.len() {
                let shards = split(&all, count, target);
                assert!(shards.iter().all(|s| !s.is_empty()), "{count}: {shards:?}");
                let mut covered: Vec<String> = shards.concat();
                covered.sort();
                assert_eq!(covered, want, "{target:?} {count}");
                // No shard is longer than another by more than its longest scenario and a
                // gateway start.
                let loads: Vec<u64> = shards
                    .iter()
                    .map(|s| {
                        let of: Vec<&Scenario> = s
                            .iter()
                            .map(|id| all.iter().find(|x| &x.id == id).unwrap())
                            .collect();
                        shard_millis(&of, target)
                    })
                    .collect();
                let start = expected::start_millis(target, &expected::Model::committed());
                let (min, max) = (loads.iter().min().unwrap(), loads.iter().max().unwrap());
                assert!(
                    max - min <= longest + start,
                    "{target:?} {count}: {loads:?}"
                );
                // The same split whatever order the scenarios came in.
                let mut reversed = all.clone();
                reversed.reverse();
                assert_eq!(split(&reversed, count, target), shards);
            }
        }
    }

    #[test]
    fn the_reference_and_the_code_timeout_never_share_a_shard() {
        let all = load_all(&[]).unwrap();
        // On the embedded gateway, the two longest (by id, every N-th, they shared shard 2/3).
        // On a real product every lane restarts the gateway, and the timeout's one lane is short.
        for count in 2..=all.len() {
            let shards = split(&all, count, TargetChoice::Embedded);
            let together = shards.iter().any(|s| {
                s.iter().any(|id| id == "tool-search-gateway-e2e")
                    && s.iter().any(|id| id == "fail-closed-f5-code-timeout")
            });
            assert!(!together, "{count}: {shards:?}");
        }
        // On the embedded gateway the timeout (1 s) outweighs most others together: its shard of
        // two holds only short scenarios (at most two lanes) besides it.
        let two = split(&all, 2, TargetChoice::Embedded);
        let with_timeout = two
            .iter()
            .find(|s| s.iter().any(|id| id == "fail-closed-f5-code-timeout"))
            .unwrap();
        for id in with_timeout {
            let lanes = all.iter().find(|s| &s.id == id).unwrap().lanes.len();
            assert!(
                lanes <= 2,
                "{id} ({lanes} lanes) shares the timeout's shard"
            );
        }
    }

    #[test]
    fn two_product_shards_are_within_fifteen_percent() {
        let all = load_all(&[]).unwrap();
        let loads: Vec<u64> = (1..=2)
            .map(|index| {
                let shard = in_shard(
                    all.clone(),
                    Shard { index, count: 2 },
                    TargetChoice::Openclaw,
                );
                shard_millis(&shard.iter().collect::<Vec<_>>(), TargetChoice::Openclaw)
            })
            .collect();
        let (min, max) = (loads[0].min(loads[1]), loads[0].max(loads[1]));
        assert!(max * 100 <= min * 115, "{loads:?}");
    }

    #[test]
    fn filter_keeps_matching_ids_in_order() {
        let narrowed = narrow(load_all(&[]).unwrap(), Some("fail-closed-f1"));
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
