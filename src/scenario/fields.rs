//! Every field a scenario file accepts, read from the loader's own serde types — so the field
//! table of `docs/scenarios.md` can be checked against what the loader really takes (a test
//! does), and a field added to the loader without a line in the docs fails it.
//!
//! A derived `Deserialize` hands its field names to `deserialize_struct`; [`struct_fields`]
//! catches them there with a deserializer that reads nothing else.

use serde::de::{self, Deserialize, Visitor};

use super::load::{ClaimFile, LaneFile, ScenarioFile};
use super::{CatalogSpec, LaneExpect, LaneOnOpenclaw, OnOpenclaw, ScriptStep};
use crate::catalog::ToolPolicy;
use crate::config::CodeModeSettings;

/// Every field path a scenario file accepts, in the loader's order: `id`, `catalog.size`,
/// `lanes[].expect.calls`, … (a table's path comes before its fields).
pub fn accepted() -> Vec<String> {
    let mut paths = Vec::new();
    for field in struct_fields::<ScenarioFile>() {
        paths.push(field.to_string());
        let nested = match *field {
            "catalog" => struct_fields::<CatalogSpec>(),
            "policy" => struct_fields::<ToolPolicy>(),
            "script" => struct_fields::<ScriptStep>(),
            "claims" => struct_fields::<ClaimFile>(),
            "lanes" => struct_fields::<LaneFile>(),
            "openclaw" => struct_fields::<OnOpenclaw>(),
            _ => &[],
        };
        let prefix = match *field {
            "script" | "claims" | "lanes" => format!("{field}[]"),
            _ => field.to_string(),
        };
        for inner in nested {
            let path = format!("{prefix}.{inner}");
            paths.push(path.clone());
            let deeper = match *inner {
                "expect" | "openclaw_expect" if *field == "lanes" => struct_fields::<LaneExpect>(),
                "script" if *field == "lanes" => struct_fields::<ScriptStep>(),
                "openclaw" if *field == "lanes" => struct_fields::<LaneOnOpenclaw>(),
                "code_mode" if *field == "lanes" => struct_fields::<CodeModeSettings>(),
                _ => &[],
            };
            let path = match *inner {
                "script" => format!("{path}[]"),
                _ => path,
            };
            paths.extend(deeper.iter().map(|d| format!("{path}.{d}")));
        }
    }
    paths
}

/// The field names of a struct with a derived `Deserialize`.
pub fn struct_fields<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields = None;
    let _ = T::deserialize(FieldCatcher {
        fields: &mut fields,
    });
    fields.unwrap_or(&[])
}

/// Catches the field list a derived `Deserialize` passes to `deserialize_struct`.
struct FieldCatcher<'a> {
    fields: &'a mut Option<&'static [&'static str]>,
}

impl<'de> de::Deserializer<'de> for FieldCatcher<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.fields = Some(fields);
        Err(de::Error::custom("fields caught"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_from_the_loader_types() {
        let all = accepted();
        for path in [
            "id",
            "catalog",
            "catalog.plugin_id",
            "policy.alsoAllow",
            "script[].arguments",
            "claims[].lanes",
            "lanes[].tool_search",
            "lanes[].code_mode.executor",
            "lanes[].catalog_preferred",
            "lanes[].script[].text",
            "lanes[].expect.declared_tools",
            "lanes[].openclaw_expect.directory",
        ] {
            assert!(all.iter().any(|p| p == path), "{path} in {all:?}");
        }
    }
}
