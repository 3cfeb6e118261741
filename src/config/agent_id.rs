//! The rule for an agent id, in one place: the gateway config's `agents.list[].id` and a
//! scenario's `agent` are checked by it.

/// Why `id` is not an agent id, if it is not. Agent ids name directories (and a real OpenClaw's
/// agent folders), so they are ASCII letters, digits, `-` and `_`, starting with a letter or a
/// digit, at most 64 bytes: `qa`, `main`, `ops-2`.
pub fn agent_id_problem(id: &str) -> Option<String> {
    let starts_well = id.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    let valid = id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (!(starts_well && valid && id.len() <= 64)).then(|| {
        format!(
            "{id:?} is not an agent id: start with a letter or digit, use only A-Z, a-z, 0-9, '-' \
             and '_', at most 64 characters"
        )
    })
}
