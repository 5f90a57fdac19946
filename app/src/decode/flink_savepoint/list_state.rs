//! Elements of an operator list state. The state's stream (inline in `_metadata` or a file of
//! the savepoint) holds Flink's header with the serializers' snapshots, then each state's elements
//! back to back; the handle's offsets say where each element starts, and the element's own
//! serializer says where it ends. Only the serializers the Iceberg committer uses are read here.

use super::handles::NamedState;
use super::input::{flink_string, Input};
use crate::decode::DecodeError;

/// The list elements of `state` inside `stream` (the bytes of its handle's delegate), each parsed by `read`.
pub fn elements<T>(
    file: &str,
    stream: &[u8],
    state: &NamedState,
    mut read: impl FnMut(&mut ElementInput<'_>) -> Result<T, DecodeError>,
) -> Result<Vec<T>, DecodeError> {
    let mut out = Vec::with_capacity(state.offsets.len().min(stream.len()));
    for (i, &off) in state.offsets.iter().enumerate() {
        let field = format!("{}[{i}]", state.name);
        let start = usize::try_from(off)
            .ok()
            .filter(|&o| o < stream.len())
            .ok_or_else(|| DecodeError::new(file, &field, format!("starts at offset {off}, outside the state's {} bytes", stream.len())))?;
        let mut r = ElementInput { inner: Input::new(file, &stream[start..]).at(field) };
        out.push(read(&mut r)?);
    }
    Ok(out)
}

/// One element's bytes, read with the serializers a list state uses.
pub struct ElementInput<'a> {
    inner: Input<'a>,
}

impl ElementInput<'_> {
    /// `StringSerializer` (Flink's `StringValue` encoding).
    pub fn string(&mut self, field: &str) -> Result<Option<String>, DecodeError> {
        flink_string(&mut self.inner, field)
    }
    /// `LongSerializer`.
    pub fn long(&mut self, field: &str) -> Result<i64, DecodeError> {
        self.inner.i64(field)
    }
    /// `IntSerializer`, and map sizes.
    pub fn int(&mut self, field: &str) -> Result<i32, DecodeError> {
        self.inner.i32(field)
    }
    /// A count whose items each need at least `min_bytes`.
    pub fn count(&mut self, field: &str, min_bytes: usize) -> Result<usize, DecodeError> {
        self.inner.count(field, min_bytes)
    }
    /// `BooleanSerializer` (one byte).
    pub fn boolean(&mut self, field: &str) -> Result<bool, DecodeError> {
        Ok(self.inner.u8(field)? != 0)
    }
    /// `BytePrimitiveArraySerializer`: a 4-byte length, then the bytes.
    pub fn byte_array(&mut self, field: &str) -> Result<Vec<u8>, DecodeError> {
        Ok(self.inner.bytes_i32(field)?.to_vec())
    }
}
