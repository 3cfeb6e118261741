//! Per-session state of the embedded gateway, bounded: the conversation so far (the next turn
//! sends it again) and the lock that runs one turn at a time per session. A gateway serving
//! many sessions must not keep every one forever, so
//!
//! - a session's lock is dropped once no turn holds or waits for it;
//! - a session's history is dropped when the session has been idle for longer than the idle
//!   time, and the least recently used ones go first when more sessions than the capacity
//!   hold one. A session that comes back after that starts afresh, like a new one.
//!
//! Clean-ups run as the maps grow (each after the map has doubled since the last one), so
//! their cost is spread over the calls that made them necessary.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long an idle session keeps its history.
pub const SESSION_IDLE: Duration = Duration::from_secs(30 * 60);
/// Most sessions holding a history at once.
pub const SESSION_CAPACITY: usize = 10_000;
/// No clean-up runs below this many entries.
const SWEEP_FLOOR: usize = 64;

/// One session's conversation.
struct History {
    items: Vec<Value>,
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

    /// The session's earlier items (user and assistant messages), for the next turn.
    pub fn history(&self, key: &str) -> Vec<Value> {
        self.history_at(key, Instant::now())
    }

    /// Appends a finished turn's items to the session's history.
    pub fn remember(&self, key: &str, items: Vec<Value>) {
        self.remember_at(key, items, Instant::now());
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

    /// Sessions holding a history, and locks kept (for reports and tests).
    pub fn counts(&self) -> (usize, usize) {
        let state = self.lock_state();
        (state.histories.len(), state.locks.len())
    }

    fn history_at(&self, key: &str, now: Instant) -> Vec<Value> {
        let mut state = self.lock_state();
        let idle = self.idle;
        match state.histories.get_mut(key) {
            Some(history) if now.saturating_duration_since(history.last_used) <= idle => {
                history.last_used = now;
                history.items.clone()
            }
            Some(_) => {
                state.histories.remove(key);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    fn remember_at(&self, key: &str, items: Vec<Value>, now: Instant) {
        let mut state = self.lock_state();
        let history = state
            .histories
            .entry(key.to_string())
            .or_insert_with(|| History {
                items: Vec::new(),
                last_used: now,
            });
        history.items.extend(items);
        history.last_used = now;
        if state.histories.len() > self.capacity
            || state.histories.len() >= state.next_history_sweep
        {
            self.sweep(&mut state, now);
        }
    }

    /// Drops idle histories, then the least recently used beyond the capacity.
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
    use serde_json::json;

    fn item(text: &str) -> Value {
        json!({ "role": "user", "content": text })
    }

    #[test]
    fn history_accumulates_per_session() {
        let sessions = Sessions::default();
        sessions.remember("a", vec![item("1")]);
        sessions.remember("a", vec![item("2")]);
        sessions.remember("b", vec![item("x")]);
        assert_eq!(sessions.history("a"), vec![item("1"), item("2")]);
        assert_eq!(sessions.history("b"), vec![item("x")]);
        assert_eq!(sessions.history("c"), Vec::<Value>::new());
    }

    #[test]
    fn an_idle_session_starts_afresh() {
        let sessions = Sessions::new(Duration::from_secs(60), 100);
        let start = Instant::now();
        sessions.remember_at("a", vec![item("1")], start);
        let later = start + Duration::from_secs(61);
        assert_eq!(sessions.history_at("a", later), Vec::<Value>::new());
        assert_eq!(sessions.counts().0, 0);
    }

    #[test]
    fn idle_sessions_are_swept_as_the_map_grows() {
        let sessions = Sessions::new(Duration::from_secs(60), 10_000);
        let start = Instant::now();
        for i in 0..SWEEP_FLOOR - 1 {
            sessions.remember_at(&format!("old-{i}"), vec![item("x")], start);
        }
        assert_eq!(sessions.counts().0, SWEEP_FLOOR - 1);
        // The next session fills the map to the sweep size, an hour later: the old ones go.
        sessions.remember_at("new", vec![item("y")], start + Duration::from_secs(3600));
        assert_eq!(sessions.counts().0, 1);
    }

    #[test]
    fn the_least_recently_used_go_beyond_the_capacity() {
        let sessions = Sessions::new(Duration::from_secs(3600), 3);
        let start = Instant::now();
        for (i, key) in ["a", "b", "c"].iter().enumerate() {
            sessions.remember_at(key, vec![item(key)], start + Duration::from_secs(i as u64));
        }
        // Reading "a" makes it the most recently used.
        sessions.history_at("a", start + Duration::from_secs(10));
        sessions.remember_at("d", vec![item("d")], start + Duration::from_secs(11));
        assert_eq!(sessions.counts().0, 3);
        let now = start + Duration::from_secs(12);
        assert_eq!(sessions.history_at("b", now), Vec::<Value>::new());
        assert_eq!(sessions.history_at("a", now), vec![item("a")]);
        assert_eq!(sessions.history_at("d", now), vec![item("d")]);
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
