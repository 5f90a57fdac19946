//! Elements of an operator list state. The state's stream (inline in `_metadata` or a file of
//! the savepoint) holds Flink's header with the serializers' snapshots, then each state's elements
//! back to back; the handle's offsets say where each element starts, and the element's own
//! serializer says where it ends. Only the serializers the Iceberg committer uses are read here.

use super::handles::NamedState;
use super::input::{flink_string, Input};
use crate::decode::DecodeError;

/// Where each list element of one handle's stream starts and ends. Flink writes a handle's
/// states one after another into its stream, each state's elements back to back, recording where
/// each element starts (`PartitionableListState.write`); so the starts of all the handle's states
/// are distinct, and an element ends where the next start, of any state, begins. Read within those
/// bounds, the elements together never yield more than the stream holds, whatever the offsets say:
/// offsets that name one large element many times are refused, not read again and again.
pub struct Layout<'s> {
    file: &'s str,
    stream: &'s [u8],
    /// Every element's start in the stream, ascending.
    starts: Vec<usize>,
}

impl<'s> Layout<'s> {
    /// The layout of `states` (all the states of one handle) in `stream`, the handle's bytes.
    pub fn new(file: &'s str, stream: &'s [u8], states: &[NamedState]) -> Result<Self, DecodeError> {
        let mut starts = Vec::with_capacity(states.iter().map(|s| s.offsets.len()).sum::<usize>().min(stream.len()));
        for state in states {
            for (i, &off) in state.offsets.iter().enumerate() {
                let start = usize::try_from(off).ok().filter(|&o| o < stream.len()).ok_or_else(|| {
                    DecodeError::new(file, &format!("{}[{i}]", state.name), format!("starts at offset {off}, outside the state's {} bytes", stream.len()))
                })?;
                starts.push(start);
            }
        }
        starts.sort_unstable();
        if let Some(w) = starts.windows(2).find(|w| w[0] == w[1]) {
            // Named at its second appearance, in the order the handle lists them.
            let again = states.iter().flat_map(|s| s.offsets.iter().enumerate().map(move |(i, &o)| (s, i, o))).filter(|&(_, _, o)| o == w[0] as i64).nth(1);
            let field = again.map_or_else(|| "offsets".to_string(), |(s, i, _)| format!("{}[{i}]", s.name));
            return Err(DecodeError::new(file, &field, format!("starts at offset {}, where another element starts: Flink writes each element once", w[0])));
        }
        Ok(Layout { file, stream, starts })
    }

    /// The elements of `state` (one of the handle's), each parsed by `read` within its own bytes.
    pub fn elements<T>(&self, state: &NamedState, mut read: impl FnMut(&mut ElementInput<'_>) -> Result<T, DecodeError>) -> Result<Vec<T>, DecodeError> {
        let mut out = Vec::with_capacity(state.offsets.len());
        for (i, &off) in state.offsets.iter().enumerate() {
            let field = format!("{}[{i}]", state.name);
            let start = usize::try_from(off)
                .ok()
                .filter(|s| self.starts.binary_search(s).is_ok())
                .ok_or_else(|| DecodeError::new(self.file, &field, format!("starts at offset {off}, not one of this handle's")))?;
            let end = self.starts.partition_point(|&s| s <= start);
            let end = self.starts.get(end).copied().unwrap_or(self.stream.len());
            let mut r = ElementInput { inner: Input::new(self.file, &self.stream[start..end]).at(field) };
            out.push(read(&mut r)?);
        }
        Ok(out)
    }
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
