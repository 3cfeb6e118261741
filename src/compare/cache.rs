//! Which input tokens of a turn a provider's prompt cache serves. A Tool Search turn is several
//! requests (search, call, answer); request k+1 repeats request k's prompt up to the first byte
//! that differs, and that shared prefix is what a cache can serve, under the provider's rule
//! (see [`CacheRule`]). The prompt is read in the order a provider builds it — instructions,
//! tools, then the input items — each part cut from the body text as sent and tokenised on its
//! own (o200k_base), so a part that repeats is tokenised once.
//!
//! A second user turn of the same session is read on from the first: its first request against
//! the first turn's last (what that turn left in the cache, assumed still there: the turns follow
//! each other within the cache's lifetime).

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::price::{CacheRule, PriceRow};
use crate::protocol::usage::{count_tokens, TokenizerError};

/// What a part of the prompt is; parts of different kinds never match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Instructions,
    Tools,
    /// A system or developer item of `input`.
    SystemItem,
    Item,
}

/// One part of a request's prompt: its kind, its text as sent and its tokens.
#[derive(Debug, Clone)]
struct Part<'a> {
    kind: Kind,
    text: &'a str,
    tokens: u64,
}

#[derive(Deserialize)]
struct Body<'a> {
    #[serde(borrow, default)]
    instructions: Option<&'a RawValue>,
    #[serde(borrow, default)]
    tools: Option<&'a RawValue>,
    #[serde(borrow, default)]
    input: Option<&'a RawValue>,
    /// An Anthropic Messages body (a native lane's): `system` and `messages`.
    #[serde(borrow, default)]
    system: Option<&'a RawValue>,
    #[serde(borrow, default)]
    messages: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Role {
    #[serde(default)]
    role: Option<String>,
}

/// The parts of a body, in prompt order, not yet tokenised (a body that is not JSON is one part).
fn parts(raw: &str) -> Vec<(Kind, &str)> {
    let Ok(body) = serde_json::from_str::<Body<'_>>(raw) else {
        return vec![(Kind::Item, raw)];
    };
    if let Some(messages) = body.messages {
        return messages_parts(&body, messages);
    }
    let mut parts = Vec::new();
    if let Some(i) = body.instructions {
        parts.push((Kind::Instructions, i.get()));
    }
    if let Some(t) = body.tools {
        parts.push((Kind::Tools, t.get()));
    }
    if let Some(input) = body.input {
        match serde_json::from_str::<Vec<&RawValue>>(input.get()) {
            Ok(items) => parts.extend(items.into_iter().map(|item| {
                let role = serde_json::from_str::<Role>(item.get())
                    .ok()
                    .and_then(|r| r.role);
                match role.as_deref() {
                    Some("system" | "developer") => (Kind::SystemItem, item.get()),
                    _ => (Kind::Item, item.get()),
                }
            })),
            Err(_) => parts.push((Kind::Item, input.get())),
        }
    }
    parts
}

/// A Messages body in the order Anthropic's cache reads it: tools, system, then the messages.
fn messages_parts<'a>(body: &Body<'a>, messages: &'a RawValue) -> Vec<(Kind, &'a str)> {
    let mut parts = Vec::new();
    if let Some(t) = body.tools {
        parts.push((Kind::Tools, t.get()));
    }
    if let Some(s) = body.system {
        parts.push((Kind::Instructions, s.get()));
    }
    match serde_json::from_str::<Vec<&RawValue>>(messages.get()) {
        Ok(items) => parts.extend(items.into_iter().map(|m| (Kind::Item, m.get()))),
        Err(_) => parts.push((Kind::Item, messages.get())),
    }
    parts
}

/// The prompt-prefix figures of one request, before any provider's rule.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrefixTokens {
    /// Tokens of the whole body (what the provider bills as input).
    pub input: u64,
    /// Tokens of the prompt parts together.
    pub prompt: u64,
    /// Tokens of the instructions, the tools and the system items before the first other item:
    /// the stable head a breakpoint would follow.
    pub head: u64,
    /// Tokens of the prompt this request shares, from its start, with the request before it.
    pub shared: u64,
}

/// Reads a turn's requests one after another, each against the one before.
#[derive(Default)]
pub struct TurnPrefixes<'a> {
    previous: Vec<Part<'a>>,
    pub requests: Vec<PrefixTokens>,
}

impl<'a> TurnPrefixes<'a> {
    /// Adds the next request of the turn, `raw` as sent and `input` its body's tokens.
    pub fn push(&mut self, raw: &'a str, input: u64) -> Result<(), TokenizerError> {
        let mut current = Vec::new();
        let mut shared = 0u64;
        let mut sharing = true;
        for (i, (kind, text)) in parts(raw).into_iter().enumerate() {
            let before = self.previous.get(i).filter(|p| p.kind == kind);
            // A part equal to the one before it has its tokens already.
            let tokens = match before {
                Some(p) if p.text == text => p.tokens,
                _ => count_tokens(text)? as u64,
            };
            if sharing {
                match before {
                    Some(p) if p.text == text => shared += tokens,
                    Some(p) => {
                        shared += count_tokens(common_prefix(p.text, text))? as u64;
                        sharing = false;
                    }
                    None => sharing = false,
                }
            }
            current.push(Part { kind, text, tokens });
        }
        let prompt = current.iter().map(|p| p.tokens).sum();
        let head = current
            .iter()
            .take_while(|p| p.kind != Kind::Item)
            .map(|p| p.tokens)
            .sum();
        self.requests.push(PrefixTokens {
            input,
            prompt,
            head,
            shared,
        });
        self.previous = current;
        Ok(())
    }
}

/// The longest common prefix of `a` and `b`, ending on a character boundary.
fn common_prefix<'s>(a: &str, b: &'s str) -> &'s str {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !b.is_char_boundary(n) {
        n -= 1;
    }
    &b[..n]
}

/// Input tokens of a turn as one price row's provider bills them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CacheSplit {
    /// Every input token of the turn (the sum of its requests' body tokens).
    pub input: u64,
    /// Read from the cache (billed at the cached-input price).
    pub cached: u64,
    /// Written to the cache (breakpoint rules: billed at the cache-write price).
    pub written: u64,
    /// Billed at the input price.
    pub uncached: u64,
}

impl std::ops::Add for CacheSplit {
    type Output = CacheSplit;

    fn add(self, o: CacheSplit) -> CacheSplit {
        CacheSplit {
            input: self.input + o.input,
            cached: self.cached + o.cached,
            written: self.written + o.written,
            uncached: self.uncached + o.uncached,
        }
    }
}

/// How `rule` bills each request of a turn, summed; `before` is the request before the turn's
/// first (the previous turn's last), if any.
pub fn split(
    requests: &[PrefixTokens],
    before: Option<&PrefixTokens>,
    rule: CacheRule,
) -> CacheSplit {
    let mut total = CacheSplit::default();
    let mut previous: Option<&PrefixTokens> = before;
    for request in requests {
        let (cached, written) = match rule {
            CacheRule::Prefix {
                min_tokens,
                increment,
            } => {
                let shared = request.shared;
                let cached = if shared >= min_tokens {
                    shared / increment * increment
                } else {
                    0
                };
                (cached, 0)
            }
            CacheRule::Breakpoints { min_tokens } => breakpoints(request, previous, min_tokens),
        };
        // The parts are tokenised one by one; never bill more than the body holds.
        let cached = cached.min(request.input);
        let written = written.min(request.input - cached);
        total = total
            + CacheSplit {
                input: request.input,
                cached,
                written,
                uncached: request.input - cached - written,
            };
        previous = Some(request);
    }
    total
}

/// Breakpoints after the head and at the end of every request: a request reads the furthest
/// breakpoint of the previous request that lies in their shared prefix (if that one was big
/// enough to be written) and writes from there to its own last breakpoint that is big enough.
fn breakpoints(request: &PrefixTokens, previous: Option<&PrefixTokens>, min: u64) -> (u64, u64) {
    let cached = previous.map_or(0, |p| {
        [p.prompt, p.head]
            .into_iter()
            .find(|b| *b >= min && *b <= request.shared)
            .unwrap_or(0)
    });
    let written = [request.prompt, request.head]
        .into_iter()
        .find(|b| *b >= min && *b > cached)
        .map_or(0, |b| b - cached);
    (cached, written)
}

/// Money of one turn under `price`, in USD, from its input split and output tokens.
pub fn turn_cost(split: &CacheSplit, output: u64, price: &PriceRow) -> f64 {
    let write = price.cache_write.unwrap_or(price.input);
    (split.uncached as f64 * price.input
        + split.cached as f64 * price.cached_input
        + split.written as f64 * write
        + output as f64 * price.output)
        / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> u64 {
        count_tokens(text).unwrap() as u64
    }

    #[test]
    fn parts_follow_prompt_order_and_roles() {
        let raw = r#"{"model":"m","input":[{"role":"system","content":"s"},{"role":"user","content":"u"}],"tools":[{"name":"a"}],"instructions":"i"}"#;
        let kinds: Vec<Kind> = parts(raw).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            kinds,
            [
                Kind::Instructions,
                Kind::Tools,
                Kind::SystemItem,
                Kind::Item
            ]
        );
        assert_eq!(parts(raw)[1].1, r#"[{"name":"a"}]"#);
        assert_eq!(parts("not json"), [(Kind::Item, "not json")]);
        let messages = r#"{"model":"m","system":"s","messages":[{"role":"user","content":"u"}],"tools":[{"name":"a"}]}"#;
        assert_eq!(
            parts(messages),
            [
                (Kind::Tools, r#"[{"name":"a"}]"#),
                (Kind::Instructions, r#""s""#),
                (Kind::Item, r#"{"role":"user","content":"u"}"#)
            ]
        );
    }

    #[test]
    fn a_request_shares_whole_parts_then_the_common_start_of_the_first_that_differs() {
        let first = r#"{"tools":[{"name":"a"}],"input":[{"role":"user","content":"hello world"}]}"#;
        let second =
            r#"{"tools":[{"name":"a"}],"input":[{"role":"user","content":"hello there"}]}"#;
        let mut turn = TurnPrefixes::default();
        turn.push(first, 30).unwrap();
        turn.push(second, 31).unwrap();
        let tools = tokens(r#"[{"name":"a"}]"#);
        let item = tokens(r#"{"role":"user","content":"hello world"}"#);
        // The first shares nothing; the second its tools and `{"role":"user","content":"hello `.
        assert_eq!(
            turn.requests[0],
            PrefixTokens {
                input: 30,
                prompt: tools + item,
                head: tools,
                shared: 0
            }
        );
        let common = tokens(r#"{"role":"user","content":"hello "#);
        assert_eq!(turn.requests[1].shared, tools + common);
        // Tools that change first share nothing at all, even when the items match.
        let third = second.replace(r#""a""#, r#""b""#);
        turn.push(&third, 31).unwrap();
        assert_eq!(
            turn.requests[2].shared,
            tokens(r#"[{"name":""#),
            "the tools' common start only"
        );
    }

    /// A three-request turn worked by hand: the prompt grows 3,000 -> 3,100 -> 3,180 tokens,
    /// each request repeating all of the one before; the head (tools and system) is 2,500.
    fn turn() -> Vec<PrefixTokens> {
        let request = |input, prompt, shared| PrefixTokens {
            input,
            prompt,
            head: 2_500,
            shared,
        };
        vec![
            request(3_040, 3_000, 0),
            request(3_140, 3_100, 3_000),
            request(3_220, 3_180, 3_100),
        ]
    }

    #[test]
    fn openai_reads_the_shared_prefix_in_128_token_steps_from_1024() {
        let rule = CacheRule::Prefix {
            min_tokens: 1_024,
            increment: 128,
        };
        // 3,000 -> 23 x 128 = 2,944; 3,100 -> 24 x 128 = 3,072.
        assert_eq!(
            split(&turn(), None, rule),
            CacheSplit {
                input: 9_400,
                cached: 2_944 + 3_072,
                written: 0,
                uncached: 9_400 - 6_016
            }
        );
        // Below the minimum nothing is cached.
        let small = [PrefixTokens {
            input: 1_100,
            prompt: 1_050,
            head: 900,
            shared: 1_000,
        }];
        assert_eq!(split(&small, None, rule).cached, 0);
    }

    #[test]
    fn anthropic_writes_to_the_last_breakpoint_and_reads_the_previous_one() {
        let rule = CacheRule::Breakpoints { min_tokens: 1_024 };
        // Request 1 writes 3,000; request 2 reads 3,000 and writes 100; request 3 reads 3,100
        // and writes 80. Uncached: the body tokens around the prompt parts (40 each).
        assert_eq!(
            split(&turn(), None, rule),
            CacheSplit {
                input: 9_400,
                cached: 6_100,
                written: 3_180,
                uncached: 120
            }
        );
        // A changed last item: request 2 shares only the head, so it reads the head's breakpoint.
        let mut changed = turn();
        changed[1].shared = 2_700;
        let s = split(&changed[..2], None, rule);
        assert_eq!((s.cached, s.written), (2_500, 3_000 + 600));
        // Haiku's 2,048 minimum: a 2,000-token prompt is never cached.
        let small = [PrefixTokens {
            input: 2_010,
            prompt: 2_000,
            head: 1_500,
            shared: 0,
        }; 2];
        let s = split(&small, None, CacheRule::Breakpoints { min_tokens: 2_048 });
        assert_eq!((s.cached, s.written, s.uncached), (0, 0, 4_020));
    }

    #[test]
    fn a_second_turn_reads_on_from_the_first_turns_last_request() {
        // Turn 2's first request repeats all 3,180 prompt tokens of turn 1's last and adds 60.
        let second = [PrefixTokens {
            input: 3_280,
            prompt: 3_240,
            head: 2_500,
            shared: 3_180,
        }];
        let last = turn()[2];
        let prefix = CacheRule::Prefix {
            min_tokens: 1_024,
            increment: 128,
        };
        // 3,180 shared -> 24 x 128 = 3,072 cached.
        let s = split(&second, Some(&last), prefix);
        assert_eq!((s.cached, s.uncached), (3_072, 208));
        // Breakpoints: reads turn 1's last breakpoint (3,180), writes the 60 after it.
        let s = split(
            &second,
            Some(&last),
            CacheRule::Breakpoints { min_tokens: 1_024 },
        );
        assert_eq!((s.cached, s.written, s.uncached), (3_180, 60, 40));
        // Without the first turn nothing is read: the whole prompt is written.
        let s = split(&second, None, CacheRule::Breakpoints { min_tokens: 1_024 });
        assert_eq!((s.cached, s.written, s.uncached), (0, 3_240, 40));
    }

    #[test]
    fn money_per_turn_by_hand() {
        let price = PriceRow {
            name: "x".into(),
            provider: "p".into(),
            model: "m".into(),
            input: 2.0,
            cached_input: 0.5,
            cache_write: None,
            output: 8.0,
            read: "2026-12-01".into(),
            source: "s".into(),
            caching: CacheRule::Prefix {
                min_tokens: 1_024,
                increment: 128,
            },
            supports: vec![],
        };
        let s = CacheSplit {
            input: 3_048,
            cached: 2_048,
            written: 0,
            uncached: 1_000,
        };
        // 1,000 x $2 + 2,048 x $0.50 + 100 x $8, per million: $0.002 + $0.001024 + $0.0008.
        assert!((turn_cost(&s, 100, &price) - 0.003_824).abs() < 1e-12);
        let write = PriceRow {
            cache_write: Some(2.5),
            ..price
        };
        let s = CacheSplit {
            written: 1_000,
            uncached: 0,
            ..s
        };
        // $0.0025 + $0.001024 + $0.0008.
        assert!((turn_cost(&s, 100, &write) - 0.004_324).abs() < 1e-12);
    }
}
