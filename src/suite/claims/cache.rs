//! P1, prompt-cache prefix stability: a provider caches the longest prefix of a request it has
//! seen, so within a turn every request after the first must start with the very same bytes —
//! `instructions` (or the system item) and `tools[]`, same order, same bytes. A gateway that
//! reorders tools, re-renders its directory or stamps the time into the prompt between rounds
//! breaks the cache on every round; users' top complaint about tool search. (That two runs of a
//! scenario send the same first request is what the committed snapshots check.)

use super::{check, Check, ClaimInput};
use crate::protocol::responses::{request_prefix, RequestPrefix};

pub fn p1_prefix_is_stable(input: &ClaimInput<'_>) -> Vec<Check> {
    let requests = &input.lane.observation.requests;
    let prefixes: Vec<RequestPrefix> = requests.iter().map(|r| request_prefix(&r.raw)).collect();
    let Some((first, rest)) = prefixes.split_first() else {
        return vec![check(
            "requests",
            false,
            "at least one provider request",
            "none",
        )];
    };
    let differing = |part: fn(&RequestPrefix) -> (Option<&str>, &[String])| -> Vec<usize> {
        rest.iter()
            .enumerate()
            .filter(|(_, p)| part(p) != part(first))
            .map(|(i, _)| i + 2)
            .collect()
    };
    let prompt = differing(|p| (p.instructions.as_deref(), &p.system_items));
    let tools = differing(|p| (p.tools.as_deref(), &[]));
    let n = prefixes.len();
    vec![
        check(
            "prompt prefix",
            prompt.is_empty(),
            format!("requests 2..{n} repeat the first request's instructions and system items byte for byte"),
            format!("requests {prompt:?} differ"),
        ),
        check(
            "tools prefix",
            tools.is_empty(),
            format!("requests 2..{n} repeat the first request's tools[] byte for byte"),
            format!("requests {tools:?} differ"),
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
}
