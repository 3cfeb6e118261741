//! A profile's Code Mode surface as captured from a real gateway
//! (`data/profiles/code-mode/<profile>.toml`, written from the product's first request): the
//! `exec` and `wait` declarations by size and structure, and the size of the prose before the
//! quick index. The embedded gateway declares them with filler of those sizes and its own quick
//! index, so a Code Mode lane costs what the product's does. Only the keys read here are typed;
//! the capture's other tables (the cells' results, the tools beside the controls) are evidence
//! for the openclaw target and its docs.

use std::sync::{Arc, Mutex, OnceLock};

use serde::Deserialize;
use serde_json::Value;

use super::render::filled_schema;
use super::text::{filler, Size};
use crate::catalog::FunctionDeclaration;
use crate::data_root::DataKind;

/// One captured declaration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
struct CapturedTool {
    name: String,
    description: Size,
    /// The input schema as JSON, each description its size (`"[N chars]"`).
    parameters: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct ExecIndex {
    /// The prose before the quick index.
    prose: Size,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
struct CaptureFile {
    tools: Vec<CapturedTool>,
    exec_index: ExecIndex,
}

/// The captured `exec` and `wait` of one profile, ready to declare.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeModeCapture {
    /// Filler of the prose's size: what comes before the quick index in `exec`'s description.
    pub exec_prose: String,
    pub exec_parameters: Arc<Value>,
    pub wait: FunctionDeclaration,
}

/// A profile's capture as read: `None` when it has none.
type Read = Option<Arc<CodeModeCapture>>;

/// The capture of profile `name`, when the data root has one; read once per process. A capture
/// that does not read is an error naming the file.
pub fn capture(name: &str) -> Result<Read, String> {
    static CACHE: OnceLock<Mutex<Vec<(String, Read)>>> = OnceLock::new();
    let mut cache = CACHE
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some((_, found)) = cache.iter().find(|(n, _)| n == name) {
        return Ok(found.clone());
    }
    let file = crate::data_root::current()
        .file(DataKind::CodeModeProfiles, &format!("{name}.toml"))
        .map_err(|e| e.to_string())?;
    let read = match file {
        None => None,
        Some(file) => Some(Arc::new(
            parse(&file.text).map_err(|m| format!("{}: {m}", file.origin))?,
        )),
    };
    cache.push((name.to_string(), read.clone()));
    Ok(read)
}

fn parse(text: &str) -> Result<CodeModeCapture, String> {
    let file: CaptureFile = toml::from_str(text).map_err(|e| e.to_string())?;
    let tool = |name: &str| {
        file.tools
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| format!("tools: no {name} declaration"))
    };
    let schema = |t: &CapturedTool| {
        serde_json::from_str::<Value>(&t.parameters)
            .map(|v| filled_schema(&v))
            .map_err(|e| format!("tools.{}.parameters: {e}", t.name))
    };
    let (exec, wait) = (tool("exec")?, tool("wait")?);
    Ok(CodeModeCapture {
        exec_prose: filler(file.exec_index.prose),
        exec_parameters: Arc::new(schema(exec)?),
        wait: FunctionDeclaration::new("wait", filler(wait.description), schema(wait)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_captured_9_6_surface_declares_exec_and_wait_at_their_sizes() {
        let captured = capture("openclaw-2026.9.6").unwrap().expect("captured");
        // Characters and line breaks as captured (the capture counts UTF-8 bytes, where a
        // profile's wire bytes count a line break twice).
        let prose = Size::of(&captured.exec_prose);
        assert_eq!((prose.chars, prose.lines), (2485, 4));
        assert_eq!(Size::of(&captured.wait.description).chars, 275);
        let params = &captured.exec_parameters;
        let keys: Vec<&String> = params.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "required", "properties"]);
        assert_eq!(params["required"], serde_json::json!(["code"]));
        let title = params["properties"]["title"]["description"]
            .as_str()
            .unwrap();
        assert_eq!(title.chars().count(), 59);
        assert_eq!(
            captured.wait.parameters["required"],
            serde_json::json!(["runId"])
        );
        assert_eq!(capture("spec").unwrap(), None);
    }
}
