//! The hostile-code probes: one list of `tool_search_code` bodies that try to leave the sandbox
//! (files, network, processes, environment, the host realm, the clock), shared by
//! `tests/it/sandbox_hostile.rs` (our own backends, exact results) and the `probes` command (a whole
//! gateway, ours or a real OpenClaw, judged by what escaped).
//!
//! A probe's code is a template: `{{SECRET_FILE}}`, `{{MARKER_FILE}}` (JSON string literals),
//! `{{SECRET_ENV}}` (an identifier) and `{{CANARY_PORT}}` (a number) are filled from a
//! [`ProbeSite`], so every probe aims at a planted secret, its own marker path and its own loopback
//! canary. Probes that first reach for the host realm return `"no process"` when that fails, and
//! `"denied"` when the host realm was reached but the operation was refused, so a report can say
//! which layer held.

use std::fmt;
use std::path::Path;

use serde::Serialize;

/// What a probe attacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Area {
    Files,
    Network,
    Process,
    Env,
    Realm,
    Timeout,
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let word = match self {
            Area::Files => "files",
            Area::Network => "network",
            Area::Process => "process",
            Area::Env => "env",
            Area::Realm => "realm",
            Area::Timeout => "timeout",
        };
        f.write_str(word)
    }
}

/// What our own code sandboxes give for a probe, exactly (checked on every backend).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxExpect {
    /// A thrown error whose text contains this.
    Thrown(&'static str),
    /// A thrown error of any wording (V8 and QuickJS word some differently).
    AnyThrown,
    /// Exactly this value, as JSON text.
    Value(&'static str),
    /// Stopped at the code timeout.
    Timeout,
    /// Stopped at the code timeout, or recognised as never able to finish.
    TimeoutOrStalled,
}

/// One hostile probe.
#[derive(Debug, Clone, Copy)]
pub struct Probe {
    /// Stable name (report rows, test messages).
    pub name: &'static str,
    pub area: Area,
    /// What it tries, in a few words.
    pub attempt: &'static str,
    /// The code template (see the module docs).
    pub code: &'static str,
    /// Our sandboxes' exact result.
    pub expect: SandboxExpect,
    /// Returned values (JSON text) that prove an escape on any target.
    pub escape_values: &'static [&'static str],
    /// Other returned values (JSON text) that are still contained on another target, e.g.
    /// `"denied"` from a probe that reached a host realm whose process was refused the operation.
    pub also_harmless: &'static [&'static str],
}

/// Where a probe aims: the planted secrets, its own marker path and canary port.
#[derive(Debug, Clone, Copy)]
pub struct ProbeSite<'a> {
    pub secret_file: &'a Path,
    pub secret_env: &'a str,
    pub marker_file: &'a Path,
    pub canary_port: u16,
}

impl Probe {
    /// The code with the site filled in.
    pub fn render(&self, site: &ProbeSite<'_>) -> String {
        let literal = |path: &Path| {
            serde_json::to_string(&path.to_string_lossy()).unwrap_or_else(|_| "\"\"".into())
        };
        self.code
            .replace("{{SECRET_FILE}}", &literal(site.secret_file))
            .replace("{{MARKER_FILE}}", &literal(site.marker_file))
            .replace("{{SECRET_ENV}}", site.secret_env)
            .replace("{{CANARY_PORT}}", &site.canary_port.to_string())
    }

    /// The values (JSON text) a gateway may return and still be contained: our sandboxes'
    /// exact value, then [`Probe::also_harmless`].
    pub fn harmless_values(&self) -> Vec<&'static str> {
        let mut values = Vec::new();
        if let SandboxExpect::Value(v) = self.expect {
            values.push(v);
        }
        values.extend_from_slice(self.also_harmless);
        values
    }
}

/// What a "host realm first" probe may also return when the host refused the operation.
const DENIED: &[&str] = &["\"denied\""];

/// Looks a probe up by name.
pub fn probe(name: &str) -> Option<&'static Probe> {
    PROBES.iter().find(|p| p.name == name)
}

/// Gets the host realm's `process` through the error a refused dynamic import throws, then runs
/// the rest. `p` is the host `process` or undefined.
macro_rules! via_host_realm {
    ($rest:literal) => {
        concat!(
            "let p;\n",
            "try { await import(\"node:net\"); } catch (e) { try { p = e.constructor.constructor(\"return this.process\")(); } catch (x) {} }\n",
            "if (!p) return \"no process\";\n",
            $rest
        )
    };
}

/// Every probe, in report order.
pub const PROBES: &[Probe] = &[
    // ---- files
    Probe {
        name: "read_secret_file_with_require",
        area: Area::Files,
        attempt: "require(\"fs\").readFileSync(secret file)",
        code: "return require(\"fs\").readFileSync({{SECRET_FILE}}, \"utf8\");",
        expect: SandboxExpect::Thrown("require"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "read_secret_file_with_import",
        area: Area::Files,
        attempt: "await import(\"fs\"), then read the secret file",
        code: "const fs = await import(\"fs\");\nreturn fs.readFileSync({{SECRET_FILE}}, \"utf8\");",
        expect: SandboxExpect::AnyThrown,
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "write_marker_file",
        area: Area::Files,
        attempt: "require(\"fs\").writeFileSync(marker file)",
        code: "require(\"fs\").writeFileSync({{MARKER_FILE}}, \"escaped\");\nreturn \"written\";",
        expect: SandboxExpect::Thrown("require"),
        escape_values: &["\"written\""],
        also_harmless: &[],
    },
    Probe {
        name: "escape_then_read_secret_file",
        area: Area::Files,
        attempt: "host realm, then fs.readFileSync(secret file)",
        code: via_host_realm!(
            "try { return p.getBuiltinModule(\"fs\").readFileSync({{SECRET_FILE}}, \"utf8\"); } catch (e) { return \"denied\"; }"
        ),
        expect: SandboxExpect::Value("\"no process\""),
        escape_values: &[],
        also_harmless: DENIED,
    },
    Probe {
        name: "escape_then_write_marker_file",
        area: Area::Files,
        attempt: "host realm, then fs.writeFileSync(marker file)",
        code: via_host_realm!(
            "try { p.getBuiltinModule(\"fs\").writeFileSync({{MARKER_FILE}}, \"escaped\"); return \"written\"; } catch (e) { return \"denied\"; }"
        ),
        expect: SandboxExpect::Value("\"no process\""),
        escape_values: &["\"written\""],
        also_harmless: DENIED,
    },
    // ---- network
    Probe {
        name: "fetch_canary",
        area: Area::Network,
        attempt: "fetch(loopback canary)",
        code: "return await fetch(\"http://127.0.0.1:{{CANARY_PORT}}/\");",
        expect: SandboxExpect::Thrown("fetch"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "raw_socket_canary",
        area: Area::Network,
        attempt: "net.connect(loopback canary) via process or require",
        code: "const net = (globalThis.process && process.mainModule) ? process.mainModule.require(\"net\") : require(\"net\");\nnet.connect({ host: \"127.0.0.1\", port: {{CANARY_PORT}} });\nreturn \"connected\";",
        expect: SandboxExpect::Thrown("is not defined"),
        escape_values: &["\"connected\""],
        also_harmless: &[],
    },
    Probe {
        name: "escape_then_connect_canary",
        area: Area::Network,
        attempt: "host realm, then net.connect(loopback canary)",
        code: via_host_realm!(
            "try {\n  const net = p.getBuiltinModule(\"net\");\n  return await new Promise((ok) => { const s = net.connect({ host: \"127.0.0.1\", port: {{CANARY_PORT}} }); s.on(\"connect\", () => { s.destroy(); ok(\"connected\"); }); s.on(\"error\", () => ok(\"denied\")); });\n} catch (e) { return \"denied\"; }"
        ),
        expect: SandboxExpect::Value("\"no process\""),
        escape_values: &["\"connected\""],
        also_harmless: DENIED,
    },
    // ---- processes
    Probe {
        name: "spawn_process",
        area: Area::Process,
        attempt: "require(\"child_process\").execSync",
        code: "return require(\"child_process\").execSync(\"touch \" + {{MARKER_FILE}} + \"; id\").toString();",
        expect: SandboxExpect::Thrown("require"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "require_through_module",
        area: Area::Process,
        attempt: "module.require(\"child_process\")",
        code: "return module.require(\"child_process\");",
        expect: SandboxExpect::Thrown("module"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "worker",
        area: Area::Process,
        attempt: "new Worker(...)",
        code: "return new Worker(\"data:text/javascript,1\");",
        expect: SandboxExpect::Thrown("Worker"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "escape_then_spawn_process",
        area: Area::Process,
        attempt: "host realm, then child_process.execSync",
        code: via_host_realm!(
            "try { return String(p.getBuiltinModule(\"child_process\").execSync(\"touch \" + {{MARKER_FILE}} + \"; id\")); } catch (e) { return \"denied\"; }"
        ),
        expect: SandboxExpect::Value("\"no process\""),
        escape_values: &[],
        also_harmless: DENIED,
    },
    // ---- environment
    Probe {
        name: "read_env",
        area: Area::Env,
        attempt: "process.env",
        code: "return process.env;",
        expect: SandboxExpect::Thrown("process"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "ambient_globals",
        area: Area::Env,
        attempt: "list Node/Deno/Bun globals that exist",
        code: "const names = [\"process\", \"require\", \"module\", \"exports\", \"Buffer\", \"fetch\", \"setTimeout\",\n  \"setInterval\", \"setImmediate\", \"WebSocket\", \"XMLHttpRequest\", \"Worker\",\n  \"Deno\", \"Bun\", \"std\", \"os\", \"__dirname\", \"global\"];\nreturn names.filter((n) => typeof globalThis[n] !== \"undefined\");",
        expect: SandboxExpect::Value("[]"),
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "escape_then_read_env",
        area: Area::Env,
        attempt: "host realm, then process.env",
        code: via_host_realm!(
            "const env = p.env || {};\nreturn Object.keys(env).length === 0 ? \"empty\" : { secret: env.{{SECRET_ENV}} || null, names: Object.keys(env).sort() };"
        ),
        expect: SandboxExpect::Value("\"no process\""),
        escape_values: &[],
        also_harmless: &["\"empty\""],
    },
    // ---- realm escapes
    Probe {
        name: "import_error_constructor",
        area: Area::Realm,
        attempt: "constructor of a refused import's error",
        code: "try { await import(\"fs\"); return \"imported\"; } catch (e) { return e.constructor.constructor(\"return typeof process\")(); }",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"object\"", "\"imported\""],
        also_harmless: &[],
    },
    Probe {
        name: "this_constructor",
        area: Area::Realm,
        attempt: "this.constructor.constructor",
        code: "return this.constructor.constructor(\"return typeof process\")();",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"object\""],
        also_harmless: &[],
    },
    Probe {
        name: "bridge_function_constructor",
        area: Area::Realm,
        attempt: "openclaw.tools.call.constructor",
        code: "return openclaw.tools.call.constructor(\"return typeof process\")();",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"object\""],
        also_harmless: &[],
    },
    Probe {
        name: "console_constructor",
        area: Area::Realm,
        attempt: "console.log.constructor",
        code: "return console.log.constructor(\"return typeof require\")();",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"function\""],
        also_harmless: &[],
    },
    Probe {
        name: "async_function_constructor",
        area: Area::Realm,
        attempt: "(async () => {}).constructor",
        code: "return (async () => {}).constructor(\"return typeof process\")().then((t) => t);",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"object\""],
        also_harmless: &[],
    },
    Probe {
        name: "bridge_promise_constructor",
        area: Area::Realm,
        attempt: "then.constructor of a bridge promise",
        code: "const p = openclaw.tools.search(\"x\");\nreturn p.then.constructor(\"return typeof process\")();",
        expect: SandboxExpect::Value("\"undefined\""),
        escape_values: &["\"object\""],
        also_harmless: &[],
    },
    Probe {
        name: "error_stack_frames",
        area: Area::Realm,
        attempt: "Error.prepareStackTrace frames' getThis",
        code: "Error.prepareStackTrace = (e, frames) => frames.map((f) => typeof f.getThis === \"function\" ? typeof f.getThis() : \"none\");\nconst frames = new Error(\"x\").stack;\nreturn typeof frames === \"string\" || Array.isArray(frames) ? \"harmless\" : \"odd\";",
        expect: SandboxExpect::Value("\"harmless\""),
        escape_values: &[],
        also_harmless: &[],
    },
    // ---- timeouts
    Probe {
        name: "infinite_loop",
        area: Area::Timeout,
        attempt: "while (true) {}",
        code: "while (true) {}",
        expect: SandboxExpect::Timeout,
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "infinite_loop_after_await",
        area: Area::Timeout,
        attempt: "a busy loop after an awaited bridge call",
        code: "await openclaw.tools.search(\"x\");\nawait null;\nfor (;;) {}",
        expect: SandboxExpect::Timeout,
        escape_values: &[],
        also_harmless: &[],
    },
    Probe {
        name: "never_resolving_promise",
        area: Area::Timeout,
        attempt: "await a promise that never settles",
        code: "await new Promise(() => {});",
        expect: SandboxExpect::TimeoutOrStalled,
        escape_values: &[],
        also_harmless: &[],
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_templates_fill() {
        let mut names: Vec<&str> = PROBES.iter().map(|p| p.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PROBES.len());
        let site = ProbeSite {
            secret_file: Path::new("/tmp/s \"q\"/secret.txt"),
            secret_env: "SECRET_NAME",
            marker_file: Path::new("/tmp/m/marker"),
            canary_port: 4242,
        };
        for probe in PROBES {
            let code = probe.render(&site);
            assert!(!code.contains("{{"), "{}: {code}", probe.name);
        }
        assert_eq!(
            probe("read_secret_file_with_require").map(|p| p.render(&site)),
            Some(
                r#"return require("fs").readFileSync("/tmp/s \"q\"/secret.txt", "utf8");"#
                    .to_string()
            )
        );
        assert_eq!(
            probe("escape_then_connect_canary").map(Probe::harmless_values),
            Some(vec!["\"no process\"", "\"denied\""])
        );
        assert_eq!(
            probe("this_constructor").map(Probe::harmless_values),
            Some(vec!["\"undefined\""])
        );
    }
}
