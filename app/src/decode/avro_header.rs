//! Avro schemas, checked before apache-avro sees them: that crate unwraps the schema's names and
//! panics on some invalid schemas, and a panic kills the browser app, so a schema it would choke on
//! is refused here with an error that names the file.

use super::DecodeError;

/// Checks an Avro schema's JSON before apache-avro parses it: its names, and what its canonical form walks.
pub(crate) fn check_schema(file: &str, schema: &[u8]) -> Result<(), DecodeError> {
    let bad = |m: &str| DecodeError::new(file, "avro.schema", m.to_string());
    // serde_json refuses nesting deeper than 128: no schema recurses the stack.
    let json: serde_json::Value = serde_json::from_slice(schema).map_err(|e| bad(&format!("the Avro schema is not JSON: {e}")))?;
    check_names(&json).map_err(|n| bad(&format!("the Avro schema has an invalid name `{n}`")))?;
    check_canonical(&json).map_err(|m| bad(&format!("the Avro schema is invalid: {m}")))
}

/// What apache-avro 0.21 walks to build a schema's Parsing Canonical Form, which it does to word
/// the error for a default that does not match its field's type: it panics on anything but a
/// string, object or array there, and on a size, precision or scale that is not an integer.
fn check_canonical(v: &serde_json::Value) -> Result<(), String> {
    use serde_json::Value;
    let schema = |v: &Value| matches!(v, Value::String(_) | Value::Array(_) | Value::Object(_));
    match v {
        Value::Array(items) => {
            items.iter().try_for_each(|i| if schema(i) { check_canonical(i) } else { Err(format!("a list holds {i} where a schema is expected")) })
        }
        Value::Object(map) => map.iter().try_for_each(|(k, v)| match k.as_str() {
            "name" | "type" | "fields" | "symbols" | "items" | "values" | "order" => {
                if schema(v) {
                    check_canonical(v)
                } else {
                    Err(format!("`{k}` is {v} where a schema is expected"))
                }
            }
            "size" | "precision" | "scale" if v.as_i64().is_none() && v.as_str().is_none_or(|s| s.parse::<i64>().is_err()) => {
                Err(format!("`{k}` is not an integer"))
            }
            _ => Ok(()),
        }),
        _ => Ok(()),
    }
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
                    if (!s.is_empty() || key != "namespace") && !valid_full_name(s) {
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
