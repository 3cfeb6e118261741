//! The config keys a release refused, named with the release-file field that writes each.
//!
//! A gateway that refuses its config exits before any claim is judged, and its one-line reason
//! (`Invalid config at …/openclaw.json: agents: Invalid input models.catalogRefresh: …`) names
//! the product's keys, not what in this project's data wrote them. Each refused key is named
//! once, with the field of `data/releases/openclaw-<v>.toml` that sets it, so a never-adopted
//! release's gap is a data edit, not a hunt through the harness.

use std::sync::LazyLock;

use regex::Regex;

static PARENS: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\([^)]*\)").unwrap());
static KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\s)([A-Za-z_][\w-]*(?:\.[\w-]+)*):\s").unwrap());

/// The keys after `Invalid config at <file>:` in `reason`, each once, in order.
pub fn refused_keys(reason: &str) -> Vec<String> {
    let Some(at) = reason.find("Invalid config at ") else {
        return Vec::new();
    };
    let rest = &reason[at..];
    // Past the file name: the first `: ` after it.
    let Some(colon) = rest.find(": ") else {
        return Vec::new();
    };
    let body = PARENS.replace_all(&rest[colon + 1..], " ");
    let mut keys: Vec<String> = Vec::new();
    for cap in KEY.captures_iter(&body) {
        let key = cap[1].to_string();
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// The release-file field (or other source) that writes `key`.
pub fn field_of(key: &str) -> &'static str {
    let starts = |p: &str| key == p || key.starts_with(&format!("{p}."));
    if starts("agents") {
        "[config] agents"
    } else if starts("models.catalogRefresh") {
        "[config] catalog_refresh"
    } else if starts("models.providers") && key.contains(".compat") {
        "[code_mode] auto_tier (a catalog-preferred lane's model)"
    } else if starts("mcp") && key.ends_with("transport") {
        "[config] mcp_stdio_transport"
    } else if starts("tools.toolSearch") {
        "tool_search_keys and [modes.*] tool_search"
    } else if starts("tools.codeMode") {
        "[code_mode] keys, executor_key and auto_tier"
    } else {
        "[config] settings, or the scenario's own config"
    }
}

/// `; refused: <key> (release file: <field>), …` for a reason that refuses keys; empty else.
pub fn refused_note(reason: &str) -> String {
    let keys = refused_keys(reason);
    if keys.is_empty() {
        return String::new();
    }
    let named: Vec<String> = keys
        .iter()
        .map(|k| format!("{k} (release file: {})", field_of(k)))
        .collect();
    format!("; refused keys: {}", named.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_refused_key_is_named_once_with_its_field() {
        let reason = "Gateway failed to start: Invalid config at /tmp/x/openclaw.json: \
                      models.providers.mock.models.0.compat: Invalid input tools.codeMode: \
                      Invalid input (allowed: true, false) agents: Invalid input \
                      models.catalogRefresh: Unrecognized key agents: Invalid input";
        assert_eq!(
            refused_keys(reason),
            [
                "models.providers.mock.models.0.compat",
                "tools.codeMode",
                "agents",
                "models.catalogRefresh"
            ]
        );
        assert_eq!(
            refused_note(reason),
            "; refused keys: models.providers.mock.models.0.compat (release file: [code_mode] \
             auto_tier (a catalog-preferred lane's model)), tools.codeMode (release file: \
             [code_mode] keys, executor_key and auto_tier), agents (release file: [config] \
             agents), models.catalogRefresh (release file: [config] catalog_refresh)"
        );
        assert_eq!(
            field_of("skills.workshop.autonomous"),
            "[config] settings, or the scenario's own config"
        );
        assert_eq!(refused_note("Gateway failed to start: port in use"), "");
    }
}
