//! The Avro container header, checked before apache-avro sees it: that crate unwraps the schema's
//! names, and a panic kills the browser app, so a header it would choke on is refused here with an
//! error that names the file.

use super::DecodeError;

/// Reads a zig-zag varint long; None at the end of the bytes or past 64 bits.
fn read_long(bytes: &[u8], pos: &mut usize) -> Option<i64> {
    let mut value: u64 = 0;
    let mut shift = 0;
    loop {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        if shift > 63 {
            return None;
        }
        value |= u64::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
    }
    Some(((value >> 1) as i64) ^ -((value & 1) as i64))
}

fn read_bytes<'a>(bytes: &'a [u8], pos: &mut usize) -> Option<&'a [u8]> {
    let len = usize::try_from(read_long(bytes, pos)?).ok()?;
    let end = pos.checked_add(len)?;
    let out = bytes.get(*pos..end)?;
    *pos = end;
    Some(out)
}

/// The header's `avro.schema`, after checking the header's framing.
pub(crate) fn check_header(file: &str, bytes: &[u8]) -> Result<(), DecodeError> {
    let bad = |m: &str| DecodeError::new(file, "avro.schema", m.to_string());
    let mut pos = 4;
    let mut schema = None;
    loop {
        let count = read_long(bytes, &mut pos).ok_or_else(|| bad("the Avro header is truncated"))?;
        if count == 0 {
            break;
        }
        if count < 0 {
            // A negative block count is followed by the block's size in bytes.
            read_long(bytes, &mut pos).ok_or_else(|| bad("the Avro header is truncated"))?;
        }
        for _ in 0..count.unsigned_abs() {
            let key = read_bytes(bytes, &mut pos).ok_or_else(|| bad("the Avro header is truncated"))?;
            let value = read_bytes(bytes, &mut pos).ok_or_else(|| bad("the Avro header is truncated"))?;
            if key == b"avro.schema" {
                schema = Some(value);
            }
        }
    }
    let schema = schema.ok_or_else(|| bad("the Avro header has no schema"))?;
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
