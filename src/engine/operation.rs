//! Operation-aware ranking: which of the usual record operations a tool performs (from the verbs
//! in its name) and which one a query asks for (from the verbs the user typed).
//!
//! Services name tools after the operation (`create_issue`, `deleteCard`, `search_flights`) and
//! users say the operation in everyday words ("cancel the lunch", "find flights", "post a
//! tweet"). Mapping both to one [`Operation`] lets a tool that does what was asked outrank its
//! siblings on the same object, which plain term overlap cannot tell apart.

use super::text::for_each_part;

/// One of the usual operations on a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    Create,
    Get,
    List,
    Search,
    Update,
    Delete,
}

/// Everyday verbs for each operation (lower case, as typed). General English, not words taken
/// from any labelled query.
const LEXICON: &[(Operation, &[&str])] = &[
    (
        Operation::Create,
        &[
            "add", "book", "compose", "create", "draft", "enroll", "insert", "launch", "log",
            "make", "new", "post", "prepare", "record", "register", "start", "submit", "write",
        ],
    ),
    (
        Operation::Get,
        &["detail", "details", "fetch", "get", "retrieve", "view"],
    ),
    (Operation::List, &["all", "enumerate", "every", "list"]),
    (
        Operation::Search,
        &[
            "find", "locate", "look", "lookup", "query", "search", "seek",
        ],
    ),
    (
        Operation::Update,
        &[
            "adjust",
            "amend",
            "change",
            "correct",
            "edit",
            "fix",
            "modify",
            "reassign",
            "rename",
            "reschedule",
            "set",
            "update",
        ],
    ),
    (
        Operation::Delete,
        &[
            "cancel",
            "delete",
            "destroy",
            "discard",
            "drop",
            "erase",
            "kill",
            "remove",
            "revoke",
            "terminate",
            "trash",
            "void",
            "withdraw",
        ],
    ),
];

/// The operation a word names, if any.
pub fn operation_of(word: &str) -> Option<Operation> {
    LEXICON
        .iter()
        .find(|(_, words)| words.contains(&word))
        .map(|(op, _)| *op)
}

/// The operation a tool performs: the first part of its name that names one
/// (`github_create_issue` → create, `slackPostMessage` → create, `weather_alerts` → none).
pub fn tool_operation(name: &str) -> Option<Operation> {
    let mut found = None;
    for_each_part(name, |part| {
        if found.is_none() {
            found = LEXICON
                .iter()
                .find(|(_, words)| words.iter().any(|w| w.eq_ignore_ascii_case(part)))
                .map(|(op, _)| *op);
        }
    });
    found
}

/// The operations a query asks for, from its words as typed (lower-cased), in order, without
/// repeats.
pub fn query_operations(lower_words: &[String]) -> Vec<Operation> {
    let mut out = Vec::new();
    for op in lower_words.iter().filter_map(|w| operation_of(w)) {
        if !out.contains(&op) {
            out.push(op);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::text::lower_words;

    #[test]
    fn tools_take_the_operation_of_their_name() {
        assert_eq!(
            tool_operation("github_create_issue"),
            Some(Operation::Create)
        );
        assert_eq!(tool_operation("slackPostMessage"), Some(Operation::Create));
        assert_eq!(tool_operation("trelloDeleteCard"), Some(Operation::Delete));
        assert_eq!(
            tool_operation("stripe_cancel_subscription"),
            Some(Operation::Delete)
        );
        assert_eq!(
            tool_operation("calendar_find_free_time"),
            Some(Operation::Search)
        );
        assert_eq!(tool_operation("weather_get_alerts"), Some(Operation::Get));
        assert_eq!(tool_operation("homeLockDoor"), None);
    }

    #[test]
    fn queries_ask_for_operations_in_everyday_words() {
        let ops = |q: &str| query_operations(&lower_words(q));
        assert_eq!(ops("cancel the team lunch"), vec![Operation::Delete]);
        assert_eq!(ops("find flights to Rome"), vec![Operation::Search]);
        assert_eq!(ops("post a tweet"), vec![Operation::Create]);
        assert_eq!(
            ops("Remove the old one and add a new one"),
            vec![Operation::Delete, Operation::Create]
        );
        assert_eq!(ops("is it raining"), Vec::<Operation>::new());
    }
}
