//! Serde's messages about a scenario file in its author's words: an unknown field names the
//! closest known one, and a number says what number it wants (`catalog.size`: "a whole number
//! from 1 to 100,000") instead of Rust's type (`expected usize`).

use std::sync::OnceLock;

use regex::Regex;

use super::names::closest;
use super::place::Field;
use crate::catalog::fake::SIZE_RULE;

/// `message` (one line, from serde) about `field`, reworded where an author would otherwise
/// have to know Rust or guess.
pub fn plain(message: &str, field: &Field) -> String {
    let message = number(message, field);
    unknown_field(&message).unwrap_or(message)
}

fn number(message: &str, field: &Field) -> String {
    static RUST_INT: OnceLock<Regex> = OnceLock::new();
    let re = RUST_INT.get_or_init(|| {
        Regex::new(r"expected (?:usize|u64|u32|u16|u8|i64|i32)$").expect("a valid pattern")
    });
    let wanted = match field.to_string().as_str() {
        "catalog.size" => SIZE_RULE.to_string(),
        _ => "a whole number, 0 or more".to_string(),
    };
    re.replace(message, format!("expected {wanted}").as_str())
        .into_owned()
}

/// `unknown field `x`, expected one of `a`, `b`` with `; did you mean `a`?` when one is close.
fn unknown_field(message: &str) -> Option<String> {
    static UNKNOWN: OnceLock<Regex> = OnceLock::new();
    let re = UNKNOWN.get_or_init(|| {
        Regex::new(r"^unknown field `([^`]*)`, expected (.*)$").expect("a valid pattern")
    });
    let captures = re.captures(message)?;
    let known: Vec<&str> = captures[2].split('`').skip(1).step_by(2).collect();
    let near = closest(&captures[1], known.iter().copied());
    let near: Vec<String> = near.iter().map(|n| format!("`{n}`")).collect();
    match near.is_empty() {
        true => None,
        false => Some(format!("{message}; did you mean {}?", near.join(", "))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_field_names_the_closest_one() {
        assert_eq!(
            plain(
                "unknown field `target_tol`, expected one of `id`, `title`, `target_tool`",
                &Field::of("target_tol")
            ),
            "unknown field `target_tol`, expected one of `id`, `title`, `target_tool`; did you \
             mean `target_tool`?"
        );
        assert_eq!(
            plain(
                "unknown field `bogus`, expected `allow` or `deny`",
                &Field::of("x")
            ),
            "unknown field `bogus`, expected `allow` or `deny`"
        );
    }

    #[test]
    fn numbers_are_said_in_words() {
        assert_eq!(
            plain(
                "invalid value: integer `-1`, expected usize",
                &Field::of("catalog.size")
            ),
            "invalid value: integer `-1`, expected a whole number from 1 to 100,000"
        );
        assert_eq!(
            plain(
                "invalid type: string \"2\", expected u64",
                &Field::of("max_output_tokens")
            ),
            "invalid type: string \"2\", expected a whole number, 0 or more"
        );
    }
}
