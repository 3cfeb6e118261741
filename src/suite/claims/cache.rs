//! P1, prompt-cache prefix stability: a provider caches the longest prefix of a request it has
//! seen, so within a turn every request after the first must start with the very same bytes —
//! `instructions` (or the system item) and `tools[]`, same order, same bytes. A gateway that
//! reorders tools, re-renders its directory or stamps the time into the prompt between rounds
//! breaks the cache on every round; users' top complaint about tool search. The same holds
//! across turns: a scenario with a `follow_up` sends a second turn in the same session, and each
//! of its requests must repeat the first turn's prefix and start its input with the first
//! request's input items (a gateway that re-picks its directory per turn fails here). A body
//! that is not JSON fails: nothing can be said about its prefix. (That two runs of a scenario
//! send the same first request is what the committed snapshots check.)

use std::sync::Arc;

use super::{check, Check, ClaimInput};
use crate::protocol::responses::{
    declared_tool_names, raw_input_items, request_prefix, RequestPrefix,
};
use crate::provider::JournalRecord;

/// A request's prefix and input items, or why they cannot be read.
struct Read {
    prefix: RequestPrefix,
    input: Vec<String>,
}

fn read(record: &JournalRecord) -> Option<Read> {
    Some(Read {
        prefix: request_prefix(&record.raw).ok()?,
        input: raw_input_items(&record.raw).ok()?,
    })
}

/// The prompt part of a prefix: instructions and system items.
fn prompt(p: &RequestPrefix) -> (Option<String>, Vec<String>) {
    (p.instructions.clone(), p.system_items.clone())
}

/// 1-based positions (from `from`) of the requests whose `part` differs from the first's.
fn differing<T: PartialEq>(
    reads: &[Read],
    first: &Read,
    from: usize,
    part: impl Fn(&Read) -> T,
) -> Vec<usize> {
    reads
        .iter()
        .enumerate()
        .filter(|(_, r)| part(r) != part(first))
        .map(|(i, _)| i + from)
        .collect()
}

pub fn p1_prefix_is_stable(input: &ClaimInput<'_>) -> Vec<Check> {
    let observation = &input.lane.observation;
    let follow_up: &[Arc<JournalRecord>] = observation
        .follow_up
        .as_ref()
        .map_or(&[], |f| f.requests.as_slice());
    let unreadable = |requests: &[Arc<JournalRecord>]| -> Vec<usize> {
        let bad = requests
            .iter()
            .enumerate()
            .filter(|(_, r)| read(r).is_none());
        bad.map(|(i, _)| i + 1).collect()
    };
    let (bad, bad_follow_up) = (unreadable(&observation.requests), unreadable(follow_up));
    let mut checks = vec![check(
        "readable",
        bad.is_empty() && bad_follow_up.is_empty(),
        "every request body is JSON with a readable prefix",
        format!("requests {bad:?} and follow-up requests {bad_follow_up:?} are not"),
    )];
    let reads: Vec<Read> = observation
        .requests
        .iter()
        .filter_map(|r| read(r))
        .collect();
    let Some((first, rest)) = reads.split_first() else {
        checks.push(check(
            "requests",
            false,
            "at least one readable provider request",
            "none",
        ));
        return checks;
    };
    let n = observation.requests.len();
    let prompt_moved = differing(rest, first, 2, |r| prompt(&r.prefix));
    let tools_moved = differing(rest, first, 2, |r| r.prefix.tools.clone());
    checks.push(check(
        "prompt prefix",
        prompt_moved.is_empty(),
        format!("requests 2..{n} repeat the first request's instructions and system items byte for byte"),
        format!("requests {prompt_moved:?} differ"),
    ));
    checks.push(check(
        "tools prefix",
        tools_moved.is_empty(),
        format!("requests 2..{n} repeat the first request's tools[] byte for byte"),
        format!("requests {tools_moved:?} differ"),
    ));
    if input.scenario.follow_up.is_some() {
        checks.extend(follow_up_checks(first, follow_up));
    }
    if let Some(twin) = &input.lane.lane.twin {
        checks.push(twin_check(input, twin, first));
    }
    checks
}

/// The lane's first `tools[]` against its twin's (`lanes[].twin`): two gateways that differ only
/// in what must not change it, such as the order a plugin registered its tools in, send the
/// provider the same bytes, or the second one's cache prefix is cold from the first request.
fn twin_check(input: &ClaimInput<'_>, twin: &str, first: &Read) -> Check {
    let theirs = input
        .lanes
        .iter()
        .find(|l| l.lane.name == twin)
        .and_then(|l| l.observation.requests.first());
    let ours = input.lane.observation.requests.first();
    let name = "tools as twin";
    let expected = format!("the first request's tools[] byte for byte lane {twin}'s");
    let (Some(theirs), Some(ours)) = (theirs.and_then(|r| read(r).map(|x| (r, x))), ours) else {
        return check(
            name,
            false,
            expected,
            format!("lane {twin} has no readable first request"),
        );
    };
    let (record, theirs) = theirs;
    let (here, there) = (
        declared_tool_names(&ours.body),
        declared_tool_names(&record.body),
    );
    let at = here
        .iter()
        .zip(there.iter())
        .position(|(a, b)| a != b)
        .map_or(String::new(), |i| {
            format!("; tool {} is {} here, {} there", i + 1, here[i], there[i])
        });
    check(
        name,
        first.prefix.tools == theirs.prefix.tools,
        expected,
        format!(
            "{} tools here, {} there, {} bytes here, {} there{at}",
            here.len(),
            there.len(),
            first.prefix.tools.as_ref().map_or(0, String::len),
            theirs.prefix.tools.as_ref().map_or(0, String::len)
        ),
    )
}

/// The second turn's requests against the first turn's first request: the same prompt and
/// `tools[]`, and input that starts with every input item the first request sent.
fn follow_up_checks(first: &Read, requests: &[Arc<JournalRecord>]) -> Vec<Check> {
    let reads: Vec<Read> = requests.iter().filter_map(|r| read(r)).collect();
    let n = requests.len();
    let prompt_moved = differing(&reads, first, 1, |r| prompt(&r.prefix));
    let tools_moved = differing(&reads, first, 1, |r| r.prefix.tools.clone());
    let history_moved: Vec<usize> = reads
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.input.starts_with(&first.input))
        .map(|(i, _)| i + 1)
        .collect();
    vec![
        check(
            "follow-up requests",
            n > 0,
            "the follow-up turn in the same session reaches the provider",
            format!("{n} follow-up requests"),
        ),
        check(
            "follow-up prompt prefix",
            prompt_moved.is_empty(),
            format!("follow-up requests 1..{n} repeat the first turn's instructions and system items byte for byte"),
            format!("follow-up requests {prompt_moved:?} differ"),
        ),
        check(
            "follow-up tools prefix",
            tools_moved.is_empty(),
            format!("follow-up requests 1..{n} repeat the first turn's tools[] byte for byte"),
            format!("follow-up requests {tools_moved:?} differ"),
        ),
        check(
            "follow-up history",
            history_moved.is_empty(),
            format!(
                "follow-up requests 1..{n} start their input with the first turn's {} input items byte for byte",
                first.input.len()
            ),
            format!("follow-up requests {history_moved:?} do not"),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{verdict, Fixture};
    use super::super::ClaimId;
    use serde_json::json;

    #[test]
    fn p1_holds_when_every_round_repeats_the_prefix_and_fails_when_tools_move() {
        let mut f = Fixture::passing_reference();
        assert!(verdict(&f, ClaimId::P1, "tools").ok);
        let tools = &mut f.lane("tools").requests[2].0["tools"];
        tools.as_array_mut().unwrap().reverse();
        let v = verdict(&f, ClaimId::P1, "tools");
        assert!(!v.ok);
        assert_eq!(v.failures.len(), 1);
        assert_eq!(v.failures[0].check, "tools prefix");
        assert_eq!(v.failures[0].actual, "requests [3] differ");
        f.lane("tools").requests[1].0["input"]
            .as_array_mut()
            .unwrap()
            .insert(0, json!({ "role": "system", "content": "now 12:01" }));
        let v = verdict(&f, ClaimId::P1, "tools");
        assert_eq!(v.failures[0].check, "prompt prefix");
        assert_eq!(v.failures[0].actual, "requests [2] differ");
    }

    #[test]
    fn p1_compares_a_lane_with_its_twin_and_fails_when_the_order_follows_registration() {
        let mut f = Fixture::passing_reference();
        let mut twin = f.lane("direct").clone();
        twin.name = "direct-reversed".into();
        twin.extra = "twin = 'direct'\n".into();
        f.lanes.push(twin);
        let v = verdict(&f, ClaimId::P1, "direct-reversed");
        assert!(v.ok, "{:?}", v.failures);
        for (body, _) in &mut f.lane("direct-reversed").requests {
            body["tools"].as_array_mut().unwrap().reverse();
        }
        let v = verdict(&f, ClaimId::P1, "direct-reversed");
        assert_eq!(v.failures.len(), 1, "{:?}", v.failures);
        assert_eq!(v.failures[0].check, "tools as twin");
        assert!(v.failures[0]
            .actual
            .starts_with("36 tools here, 36 there, "));
        assert!(v.failures[0]
            .actual
            .ends_with("; tool 1 is fake_plugin_tool_36 here, fake_plugin_tool_01 there"));
        // The twin itself has no twin: it is judged as any lane.
        assert!(verdict(&f, ClaimId::P1, "direct").ok);
    }

    #[test]
    fn p1_fails_on_a_body_that_is_not_json() {
        let mut f = Fixture::passing_reference();
        f.lane("tools")
            .raw
            .push((1, "{\"model\": \"m\", \"tools\": [".to_string()));
        let v = verdict(&f, ClaimId::P1, "tools");
        assert!(!v.ok);
        assert_eq!(v.failures[0].check, "readable");
        assert_eq!(
            v.failures[0].actual,
            "requests [2] and follow-up requests [] are not"
        );
    }

    /// The tools lane with a follow-up turn of two requests that repeat the first turn's prefix:
    /// its input is the first request's, then the answer and the new message.
    fn with_follow_up() -> Fixture {
        let mut f = Fixture::passing_reference().scenario_extra("follow_up = 'again'");
        let lane = f.lane("tools");
        let mut body = lane.requests[0].0.clone();
        let input = body["input"].as_array_mut().unwrap();
        input.push(json!({ "type": "message", "role": "assistant", "content": "FAKE_PLUGIN_OK" }));
        input.push(json!({ "type": "message", "role": "user", "content": "again" }));
        lane.follow_up = vec![(body.clone(), Some("tool_search".into())), (body, None)];
        f
    }

    /// P1's failing checks on the tools lane: `(check, actual)`.
    fn failed_p1(f: &Fixture) -> Vec<(String, String)> {
        let v = verdict(f, ClaimId::P1, "tools");
        let failed = v.failures.iter();
        failed
            .map(|c| (c.check.clone(), c.actual.clone()))
            .collect()
    }

    #[test]
    fn p1_holds_the_follow_up_turn_to_the_first_turns_prefix() {
        let f = with_follow_up();
        let v = verdict(&f, ClaimId::P1, "tools");
        assert!(v.ok, "{v:?}");
        assert_eq!(v.checks, 7);
        // A directory re-picked per turn: the second turn's prompt differs.
        let mut f = with_follow_up();
        f.lane("tools").follow_up[1].0["input"][0] =
            json!({ "role": "system", "content": "re-picked" });
        assert_eq!(
            failed_p1(&f),
            [
                (
                    "follow-up prompt prefix".into(),
                    "follow-up requests [2] differ".into()
                ),
                (
                    "follow-up history".into(),
                    "follow-up requests [2] do not".into()
                ),
            ]
        );
        // Tools reordered in the second turn, and the first turn's message rewritten.
        let mut f = with_follow_up();
        f.lane("tools").follow_up[0].0["tools"]
            .as_array_mut()
            .unwrap()
            .reverse();
        f.lane("tools").follow_up[1].0["input"][0]["content"][0]["text"] = json!("rewritten");
        assert_eq!(
            failed_p1(&f),
            [
                (
                    "follow-up tools prefix".into(),
                    "follow-up requests [1] differ".into()
                ),
                (
                    "follow-up history".into(),
                    "follow-up requests [2] do not".into()
                ),
            ]
        );
        // A follow-up the scenario asks for that never reached the provider.
        let mut f = with_follow_up();
        f.lane("tools").follow_up.clear();
        let v = verdict(&f, ClaimId::P1, "tools");
        assert_eq!(v.failures[0].check, "follow-up requests");
    }
}
