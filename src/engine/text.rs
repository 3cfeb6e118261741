//! Text analysis for search (spec §4): how tool text and queries become index terms.
//!
//! Documents and queries go through the same [`terms`] pipeline (split, case parts, stop
//! words, Snowball stemming) so that a query term and a document term meet on one spelling.
//! Queries additionally get synonym terms at a lower weight ([`query_terms`]); a synonym group
//! fires on a word the user typed, never on its stem (so "opening" does not fire "open").

/// Weight of a term the user typed.
pub const LITERAL_WEIGHT: f64 = 1.0;
/// Weight of a term added by a synonym group.
pub const SYNONYM_WEIGHT: f64 = 0.35;

/// English filler words that carry no capability meaning. Verbs (`get`, `set`, `run`, …) stay.
/// The one- and two-letter tails of contractions (`what's`, `I'm`, `don't`, `we'll`, …) are
/// here too: the apostrophe splits them off and alone they mean nothing.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "been", "but", "by", "can",
    "could", "d", "do", "does", "for", "from", "has", "have", "how", "i", "if", "in", "into", "is",
    "it", "its", "ll", "m", "me", "my", "of", "on", "or", "our", "please", "re", "s", "should",
    "so", "some", "t", "that", "the", "their", "them", "then", "there", "these", "this", "those",
    "to", "ve", "was", "we", "were", "what", "when", "which", "who", "will", "with", "would",
    "you", "your",
];

/// Synonym groups: when a query holds any trigger word (as typed, lower-cased, or its plural),
/// the extra terms join the query at [`SYNONYM_WEIGHT`].
const SYNONYMS: &[(&[&str], &[&str])] = &[
    (
        &["look", "lookup", "google", "browse"],
        &["search", "web", "find"],
    ),
    (
        &["url", "link", "website", "webpage", "http", "https", "www"],
        &["fetch", "web"],
    ),
    (
        &["run", "execute", "shell", "command"],
        &["exec", "process"],
    ),
    (
        &["remind", "reminder", "alarm", "later"],
        &["schedule", "cron"],
    ),
    (&["say", "tell", "notify", "dm"], &["message", "send"]),
    (&["open", "view", "show", "cat"], &["read", "file"]),
    (&["save", "store", "persist"], &["write", "file"]),
    (
        &["remove", "erase", "drop", "cancel", "discard", "trash"],
        &["delete"],
    ),
    (&["add", "new", "make"], &["create"]),
    (&["change", "edit", "modify", "rename"], &["update"]),
    (&["repo"], &["repository"]),
    (&["pr"], &["pull", "request"]),
    (&["vm"], &["instance", "virtual", "machine"]),
    (&["db"], &["database"]),
    (&["download", "scrape"], &["fetch", "web"]),
];

/// One weighted query term. `literal` is true for terms the user typed (not synonyms).
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
    pub literal: bool,
}

/// The index terms of `text`, in order of appearance (duplicates kept: they are term frequency).
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        word_terms(word, &mut out);
    }
    out
}

/// The index terms of one word of [`words`]: the lower-cased word, then its parts when there
/// are two or more, each without filler words and stemmed. A pure function of the word, so a
/// caller indexing many documents can analyse each distinct word once.
pub fn word_terms(word: &str, out: &mut Vec<String>) {
    word_pieces(word, |piece| out.extend(piece_term(piece)));
}

/// What [`word_terms`] makes terms of, in order: the lower-cased word, then its parts when there
/// are two or more.
pub fn word_pieces(word: &str, mut piece: impl FnMut(&str)) {
    piece(&word.to_lowercase());
    // Only `_`, capitals and digits make parts; most words have none of them.
    if !word
        .chars()
        .any(|c| c == '_' || c.is_uppercase() || c.is_numeric())
    {
        return;
    }
    let parts = word_parts(word);
    if parts.len() >= 2 {
        parts.iter().for_each(|part| piece(part));
    }
}

/// The query terms of `query`: each distinct literal term at weight 1, then synonym terms at
/// [`SYNONYM_WEIGHT`] unless already present. Sorted by term for determinism.
pub fn query_terms(query: &str) -> Vec<QueryTerm> {
    let mut literal: Vec<String> = terms(query);
    literal.sort();
    literal.dedup();
    let mut out: Vec<QueryTerm> = literal
        .iter()
        .map(|t| QueryTerm {
            term: t.clone(),
            weight: LITERAL_WEIGHT,
            literal: true,
        })
        .collect();
    let typed = lower_words(query);
    for (triggers, extra) in SYNONYMS {
        let fired = triggers.iter().any(|t| {
            typed
                .iter()
                .any(|w| w == t || w.strip_suffix('s') == Some(*t))
        });
        if !fired {
            continue;
        }
        for word in extra.iter() {
            let term = stem(word);
            if !out.iter().any(|q| q.term == term) {
                out.push(QueryTerm {
                    term,
                    weight: SYNONYM_WEIGHT,
                    literal: false,
                });
            }
        }
    }
    out.sort_by(|a, b| a.term.cmp(&b.term));
    out
}

/// The words of `text`, lower-cased, with their case and digit parts (not stemmed, fillers kept).
pub fn lower_words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in words(text) {
        out.push(word.to_lowercase());
        let parts = word_parts(word);
        if parts.len() >= 2 {
            out.extend(parts);
        }
    }
    out
}

/// Whether `word` (lower case) is a filler word that is never indexed.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// The index term of one lower-cased piece of a word: its stem, or none for a filler word.
pub fn piece_term(lower: &str) -> Option<String> {
    if lower.is_empty() || lower.chars().all(|c| c == '_') || is_stop_word(lower) {
        return None;
    }
    Some(stem(lower))
}

/// Maximal runs of letters, digits and `_`.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[derive(Clone, Copy, PartialEq)]
enum Class {
    Lower,
    Upper,
    Digit,
}

fn class(c: char) -> Class {
    if c.is_numeric() {
        Class::Digit
    } else if c.is_uppercase() {
        Class::Upper
    } else {
        Class::Lower
    }
}

/// The parts of one word, lower-cased: split at `_`, at lower→Upper (`camelCase`), at the end of
/// an acronym (`HTTPServer` → `http`, `server`) and between letters and digits.
pub fn word_parts(word: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for_each_part(word, |part| parts.push(part.to_lowercase()));
    parts
}

/// The parts of [`word_parts`] as slices of `word`, as written (not lower-cased).
pub fn for_each_part<'w>(word: &'w str, mut part: impl FnMut(&'w str)) {
    for piece in word.split('_').filter(|p| !p.is_empty()) {
        let mut start = 0;
        let mut prev: Option<char> = None;
        let mut chars = piece.char_indices().peekable();
        while let Some((at, cur)) = chars.next() {
            if let Some(prev) = prev {
                let next_is_lower = chars.peek().is_some_and(|&(_, c)| class(c) == Class::Lower);
                let boundary = match (class(prev), class(cur)) {
                    (Class::Lower, Class::Upper) => true,
                    (Class::Upper, Class::Upper) => next_is_lower,
                    (Class::Digit, Class::Digit) => false,
                    (Class::Digit, _) | (_, Class::Digit) => true,
                    _ => false,
                };
                if boundary {
                    part(&piece[start..at]);
                    start = at;
                }
            }
            prev = Some(cur);
        }
        part(&piece[start..]);
    }
}

/// Snowball (Porter 2) English stem of a lower-case word; words with digits or non-ASCII
/// letters are left alone (ids, versions, other scripts).
pub fn stem(word: &str) -> String {
    static STEMMER: std::sync::LazyLock<rust_stemmers::Stemmer> = std::sync::LazyLock::new(|| {
        rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English)
    });
    if word.chars().any(|c| c.is_numeric()) || !word.is_ascii() {
        return word.to_string();
    }
    STEMMER.stem(word).into_owned()
}

/// Levenshtein distance on characters (for "did you mean" suggestions).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let sub = diag + usize::from(ca != *cb);
            diag = row[j + 1];
            row[j + 1] = sub.min(row[j] + 1).min(row[j + 1] + 1);
        }
    }
    row[b.len()]
}

/// Up to `max` candidates closest to `key` (case-insensitive edit distance, ties by candidate),
/// keeping only plausible ones: distance at most half the longer length, or a containment.
pub fn closest<'a>(
    key: &str,
    candidates: impl Iterator<Item = &'a str>,
    max: usize,
) -> Vec<String> {
    let key = key.to_lowercase();
    let mut scored: Vec<(usize, &str)> = candidates
        .filter_map(|c| {
            let lower = c.to_lowercase();
            let d = edit_distance(&key, &lower);
            let contains = !key.is_empty() && (lower.contains(&key) || key.contains(&lower));
            let plausible = d * 2 <= key.chars().count().max(lower.chars().count()) || contains;
            plausible.then_some((if contains { d.min(1) } else { d }, c))
        })
        .collect();
    scored.sort();
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(max)
        .map(|(_, c)| c.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
        assert!(is_stop_word("the"));
        assert!(!is_stop_word("get"));
    }

    #[test]
    fn camel_case_acronym_digit_and_underscore_parts() {
        assert_eq!(word_parts("timeoutSeconds"), vec!["timeout", "seconds"]);
        assert_eq!(word_parts("HTTPServer"), vec!["http", "server"]);
        assert_eq!(word_parts("getURL"), vec!["get", "url"]);
        assert_eq!(word_parts("v2api"), vec!["v", "2", "api"]);
        assert_eq!(
            word_parts("fake_plugin_tool_17"),
            vec!["fake", "plugin", "tool", "17"]
        );
        assert_eq!(word_parts("plain"), vec!["plain"]);
    }

    #[test]
    fn terms_keep_whole_word_and_parts_and_drop_fillers() {
        assert_eq!(
            terms("Get the timeoutSeconds"),
            vec!["get", "timeoutsecond", "timeout", "second"]
        );
        assert_eq!(terms("web_search"), vec!["web_search", "web", "search"]);
        assert_eq!(terms("a an and the to of"), Vec::<String>::new());
        assert_eq!(
            terms("tool-search e2e"),
            vec!["tool", "search", "e2e", "e", "2", "e"]
        );
    }

    #[test]
    fn snowball_stems() {
        assert_eq!(stem("queries"), "queri");
        assert_eq!(stem("running"), "run");
        assert_eq!(stem("stopped"), "stop");
        assert_eq!(stem("quickly"), "quick");
        assert_eq!(stem("searches"), "search");
        assert_eq!(stem("tools"), "tool");
        assert_eq!(stem("messages"), stem("message"));
        assert_eq!(stem("schedule"), stem("scheduled"));
        // Issue 20: these pairs met (or parted) wrongly under the old suffix stripper.
        assert_eq!(stem("invite"), stem("invitation"));
        assert_ne!(stem("driver"), stem("drive"));
        assert_eq!(stem("opening"), "open");
    }

    #[test]
    fn stemmer_leaves_short_words_digits_and_other_scripts() {
        assert_eq!(stem("pass"), "pass");
        assert_eq!(stem("news"), "news");
        assert_eq!(stem("status"), "status");
        assert_eq!(stem("tool17s"), "tool17s");
        assert_eq!(stem("straße"), "straße");
    }

    #[test]
    fn a_stemmed_word_does_not_fire_a_synonym_group() {
        // "open" fires the open → read/file group; "opening" (a job opening) does not.
        let fired = |q: &str| {
            query_terms(q)
                .iter()
                .any(|t| t.term == "read" && !t.literal)
        };
        assert!(fired("open the file"));
        assert!(!fired("list the job openings"));
        assert!(!fired("the opening hours"));
        // A plural of a trigger still fires it.
        assert!(query_terms("set two reminders")
            .iter()
            .any(|t| t.term == "cron"));
    }

    #[test]
    fn query_terms_add_synonyms_at_lower_weight() {
        let q = query_terms("look up the weather");
        let find = |t: &str| q.iter().find(|x| x.term == t).cloned();
        assert_eq!(find("look").map(|x| x.weight), Some(LITERAL_WEIGHT));
        assert_eq!(
            find("search").map(|x| (x.weight, x.literal)),
            Some((SYNONYM_WEIGHT, false))
        );
        assert_eq!(find("web").map(|x| x.weight), Some(SYNONYM_WEIGHT));
        assert_eq!(find("find").map(|x| x.weight), Some(SYNONYM_WEIGHT));
        let r = query_terms("run search");
        assert_eq!(
            r.iter().find(|x| x.term == "search").map(|x| x.weight),
            Some(LITERAL_WEIGHT)
        );
        assert!(r.iter().any(|x| x.term == "exec" && !x.literal));
        assert!(query_terms("remind me").iter().any(|x| x.term == "cron"));
        assert!(query_terms("tell bob").iter().any(|x| x.term == "send"));
        assert!(query_terms("open this link")
            .iter()
            .any(|x| x.term == "fetch"));
    }

    #[test]
    fn contraction_tails_are_not_terms() {
        assert_eq!(terms("what's new"), vec!["new"]);
        assert_eq!(
            terms("I'm sure we'll go, don't wait"),
            vec!["sure", "go", "don", "wait"]
        );
        assert_eq!(terms("Today's agenda"), vec!["today", "agenda"]);
    }

    #[test]
    fn a_typed_url_fires_the_url_group() {
        let q = query_terms("what does https://example.com/post say");
        let synonyms: Vec<&str> = q
            .iter()
            .filter(|x| !x.literal)
            .map(|x| x.term.as_str())
            .collect();
        // `https` → fetch, web; `say` → message, send.
        assert_eq!(synonyms, vec!["fetch", "messag", "send", "web"]);
    }

    #[test]
    fn crud_verbs_and_abbreviations_reach_the_words_tool_names_use() {
        let synonyms = |query: &str| -> Vec<String> {
            query_terms(query)
                .into_iter()
                .filter(|x| !x.literal)
                .map(|x| x.term)
                .collect()
        };
        assert_eq!(synonyms("cancel the lunch"), vec!["delet"]);
        assert_eq!(synonyms("add a task"), vec!["creat"]);
        assert_eq!(synonyms("rename the channel"), vec!["updat"]);
        assert_eq!(
            synonyms("restart the VM"),
            vec!["instanc", "machin", "virtual"]
        );
        assert_eq!(synonyms("merge my PR"), vec!["pull", "request"]);
        assert_eq!(synonyms("fork the repo"), vec!["repositori"]);
        assert_eq!(synonyms("back up the db"), vec!["databas"]);
        // A word the query already holds is not added again at the lower weight.
        assert_eq!(synonyms("add create"), Vec::<String>::new());
    }

    #[test]
    fn closest_suggestions() {
        let names = ["marker", "market", "zebra"];
        assert_eq!(
            closest("markr", names.iter().copied(), 3),
            vec!["marker", "market"]
        );
        assert_eq!(
            closest("qqqqqq", names.iter().copied(), 3),
            Vec::<String>::new()
        );
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
