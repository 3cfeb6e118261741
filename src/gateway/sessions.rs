//! Per-session state of the embedded gateway, bounded: the conversation so far (the next turn
//! sends its history again, a pending turn waits for the caller's outputs) and the lock that
//! runs one turn at a time per session. A gateway serving
//! many sessions must not keep every one forever, so
//!
//! - a session's lock is dropped once no turn holds or waits for it;
//! - a session's conversation is dropped when the session has been idle for longer than the
//!   idle time, and the least recently used ones go first when more sessions than the capacity
//!   hold one. A session that comes back after that starts afresh, like a new one.
//!
//! Clean-ups run as the maps grow (each after the map has doubled since the last one), so
//! their cost is spread over the calls that made them necessary.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::conversation::Conversation;

/// How long an idle session keeps its conversation.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// Most sessions holding a conversation at once.
pub const SESSION_CAPACITY: usize = 10_000;
/// No clean-up runs below this many entries.
const SWEEP_FLOOR: usize = 64;

/// One session's conversation and when it was last used.
struct History {
    conversation: Conversation,
    last_used: Instant,
}

#[derive(Default)]
struct State {
    histories: HashMap<String, History>,
    locks: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
    /// Sizes at which the next clean-ups run.
    next_history_sweep: usize,
    next_lock_sweep: usize,
}

/// The sessions of one gateway.
pub struct Sessions {
    state: Mutex<State>,
    idle: Duration,
    capacity: usize,
}

impl Default for Sessions {
    fn default() -> Self {
        Sessions::new(SESSION_IDLE, SESSION_CAPACITY)
    }
}

impl Sessions {
    pub fn new(idle: Duration, capacity: usize) -> Self {
        Sessions {
            state: Mutex::new(State {
                next_history_sweep: SWEEP_FLOOR,
                next_lock_sweep: SWEEP_FLOOR,
                ..State::default()
            }),
            idle,
            capacity: capacity.max(1),
        }
    }

    fn lock_state(&self) -> MutexGuard<'_, State> {
        // A poisoned lock only means a thread panicked mid-update; the maps are still valid.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The session's conversation so far (empty for a new or expired session).
    pub fn conversation(&self, key: &str) -> Conversation {
        self.conversation_at(key, Instant::now())
    }

    /// Stores the session's conversation after a turn finished (or handed a call back).
    pub fn set_conversation(&self, key: &str, conversation: Conversation) {
        self.set_conversation_at(key, conversation, Instant::now());
    }

    /// The lock that keeps a session to one turn at a time.
    pub fn turn_lock(&self, key: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut state = self.lock_state();
        if state.locks.len() >= state.next_lock_sweep {
            // Only the map holds a lock nobody is using.
            state.locks.retain(|_, lock| Arc::strong_count(lock) > 1);
            state.next_lock_sweep = (state.locks.len() * 2).max(SWEEP_FLOOR);
        }
        state.locks.entry(key.to_string()).or_default().clone()
    }

    /// Is a turn of this session in progress (its turn lock held)?
    pub fn running(&self, key: &str) -> bool {
        let state = self.lock_state();
        state
            .locks
            .get(key)
            .is_some_and(|lock| lock.try_lock().is_err())
    }

    /// Sessions holding a conversation, and locks kept (for reports and tests).
    pub fn counts(&self) -> (usize, usize) {
        let state = self.lock_state();
        (state.histories.len(), state.locks.len())
    }

    fn conversation_at(&self, key: &str, now: Instant) -> Conversation {
        let mut state = self.lock_state();
        let idle = self.idle;
        match state.histories.get_mut(key) {
            Some(history) if now.saturating_duration_since(history.last_used) <= idle => {
                history.last_used = now;
                history.conversation.clone()
            }
            Some(_) => {
                state.histories.remove(key);
                Conversation::default()
            }
            None => Conversation::default(),
        }
    }

    fn set_conversation_at(&self, key: &str, conversation: Conversation, now: Instant) {
        let mut state = self.lock_state();
        state.histories.insert(
            key.to_string(),
            History {
                conversation,
                last_used: now,
            },
        );
        if state.histories.len() > self.capacity
            || state.histories.len() >= state.next_history_sweep
        {
            self.sweep(&mut state, now);
        }
    }

    /// Drops idle conversations, then the least recently used beyond the capacity.
    fn sweep(&self, state: &mut State, now: Instant) {
        let idle = self.idle;
        state
            .histories
            .retain(|_, h| now.saturating_duration_since(h.last_used) <= idle);
        if state.histories.len() > self.capacity {
            let mut by_age: Vec<(Instant, String)> = state
                .histories
                .iter()
                .map(|(key, h)| (h.last_used, key.clone()))
                .collect();
            by_age.sort();
            let excess = state.histories.len() - self.capacity;
            for (_, key) in by_age.into_iter().take(excess) {
                state.histories.remove(&key);
            }
        }
        state.next_history_sweep = (state.histories.len() * 2).max(SWEEP_FLOOR);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    /// A session runs while a turn holds its lock, and only then.
    #[test]
    fn a_session_runs_while_its_turn_holds_the_lock() {
        let sessions = Sessions::default();
        assert!(!sessions.running("a"));
        let lock = sessions.turn_lock("a");
        assert!(!sessions.running("a"));
        let held = lock.try_lock().unwrap();
        assert!(sessions.running("a"));
        assert!(!sessions.running("b"));
        drop(held);
        assert!(!sessions.running("a"));
    }

    fn item(text: &str) -> Value {
        json!({ "role": "user", "content": text })
    }

    fn said(items: Vec<Value>) -> Conversation {
        Conversation {
            history: items,
            ..Conversation::default()
        }
    }

    fn history(sessions: &Sessions, key: &str, now: Instant) -> Vec<Value> {
        sessions.conversation_at(key, now).history
    }

    #[test]
    fn conversations_are_kept_per_session() {
        let sessions = Sessions::default();
        sessions.set_conversation("a", said(vec![item("1")]));
        sessions.set_conversation("a", said(vec![item("1"), item("2")]));
        sessions.set_conversation("b", said(vec![item("x")]));
        assert_eq!(
            sessions.conversation("a").history,
            vec![item("1"), item("2")]
        );
        assert_eq!(sessions.conversation("b").history, vec![item("x")]);
        assert_eq!(sessions.conversation("c"), Conversation::default());
    }

    #[test]
    fn an_idle_session_starts_afresh() {
        let sessions = Sessions::new(Duration::from_secs(60), 100);
        let start = Instant::now();
        sessions.set_conversation_at("a", said(vec![item("1")]), start);
        let later = start + Duration::from_secs(61);
        assert_eq!(history(&sessions, "a", later), Vec::<Value>::new());
        assert_eq!(sessions.counts().0, 0);
    }

    #[test]
    fn idle_sessions_are_swept_as_the_map_grows() {
        let sessions = Sessions::new(Duration::from_secs(60), 10_000);
        let start = Instant::now();
        for i in 0..SWEEP_FLOOR - 1 {
            sessions.set_conversation_at(&format!("old-{i}"), said(vec![item("x")]), start);
        }
        assert_eq!(sessions.counts().0, SWEEP_FLOOR - 1);
        // The next session fills the map to the sweep size, an hour later: the old ones go.
        sessions.set_conversation_at(
            "new",
            said(vec![item("y")]),
            start + Duration::from_secs(3600),
        );
        assert_eq!(sessions.counts().0, 1);
    }

    #[test]
    fn the_least_recently_used_go_beyond_the_capacity() {
        let sessions = Sessions::new(Duration::from_secs(3600), 3);
        let start = Instant::now();
        for (i, key) in ["a", "b", "c"].iter().enumerate() {
            sessions.set_conversation_at(
                key,
                said(vec![item(key)]),
                start + Duration::from_secs(i as u64),
            );
        }
        // Reading "a" makes it the most recently used.
        sessions.conversation_at("a", start + Duration::from_secs(10));
        sessions.set_conversation_at("d", said(vec![item("d")]), start + Duration::from_secs(11));
        assert_eq!(sessions.counts().0, 3);
        let now = start + Duration::from_secs(12);
        assert_eq!(history(&sessions, "b", now), Vec::<Value>::new());
        assert_eq!(history(&sessions, "a", now), vec![item("a")]);
        assert_eq!(history(&sessions, "d", now), vec![item("d")]);
    }

    #[test]
    fn unused_locks_are_dropped_and_held_ones_kept() {
        let sessions = Sessions::default();
        let held = sessions.turn_lock("held");
        for i in 0..SWEEP_FLOOR * 4 {
            drop(sessions.turn_lock(&format!("s-{i}")));
        }
        // Clean-ups ran at 64 entries (after the 63rd, 126th, 189th and 252nd new lock): the
        // held lock and the four locks made since the last one are left.
        assert_eq!(sessions.counts().1, 5);
        assert!(Arc::ptr_eq(&held, &sessions.turn_lock("held")));
    }
}
