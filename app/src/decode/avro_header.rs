//! Avro schema names, checked before apache-avro sees them: that crate unwraps the schema's names,
//! and a panic kills the browser app, so a schema it would choke on is refused here with an error
//! that names the file.

use super::DecodeError;

/// Checks the names in an Avro schema's JSON before apache-avro parses it.
pub(crate) fn check_schema_names(file: &str, schema: &[u8]) -> Result<(), DecodeError> {
    let bad = |m: &str| DecodeError::new(file, "avro.schema", m.to_string());
    // serde_json refuses nesting deeper than 128: no schema recurses the stack.
    let json: serde_json::Value = serde_json::from_slice(schema).map_err(|e| bad(&format!("the Avro schema is not JSON: {e}")))?;
    check_names(&json).map_err(|n| bad(&format!("the Avro schema has an invalid name `{n}`")))
}

fn valid_name(n: &str) -> bool {
    let mut chars = n.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn valid_full_name(n: &str) -> bool {
    n.split('.').all(valid_name)
}

fn check_names(v: &serde_json::Value) -> Result<(), String> {
    match v {
        serde_json::Value::Array(items) => items.iter().try_for_each(check_names),
        serde_json::Value::Object(map) => {
            for key in ["name", "namespace"] {
                if let Some(n) = map.get(key) {
                    let s = n.as_str().ok_or_else(|| n.to_string())?;
                    if !(s.is_empty() && key == "namespace") && !valid_full_name(s) {
                        return Err(s.to_string());
                    }
                }
            }
            if let Some(aliases) = map.get("aliases") {
                for a in aliases.as_array().into_iter().flatten() {
                    let s = a.as_str().ok_or_else(|| a.to_string())?;
                    if !valid_full_name(s) {
                        return Err(s.to_string());
                    }
                }
            }
            map.values().try_for_each(check_names)
        }
        _ => Ok(()),
    }
}
