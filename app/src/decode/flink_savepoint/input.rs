//! Java's `DataInputStream` over a byte slice, bounded: every read checks the bytes present, every
//! count is checked against the bytes it would need before anything is allocated, and every error
//! names the file and the field being read (a path such as `operators[2].subtasks[0].offsets`).

use crate::decode::DecodeError;

pub(crate) struct Input<'a> {
    file: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// The field path the next error names: pushed by `within`, popped on the way out.
    path: Vec<String>,
}

impl<'a> Input<'a> {
    pub(crate) fn new(file: &'a str, bytes: &'a [u8]) -> Self {
        Input { file, bytes, pos: 0, path: Vec::new() }
    }

    /// The same reader with its errors naming `path` first.
    pub(crate) fn at(mut self, path: String) -> Self {
        self.path.push(path);
        self
    }

    pub(crate) fn pos(&self) -> usize {
        self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    pub(crate) fn file(&self) -> &str {
        self.file
    }

    /// The bytes from `start` to the end (a part read by a reader of its own).
    pub(crate) fn tail_from(&self, start: usize) -> &'a [u8] {
        &self.bytes[start.min(self.bytes.len())..]
    }

    /// Runs `f` with `name` appended to the field path errors name.
    pub(crate) fn within<T>(&mut self, name: impl Into<String>, f: impl FnOnce(&mut Self) -> Result<T, DecodeError>) -> Result<T, DecodeError> {
        self.path.push(name.into());
        let out = f(self);
        if out.is_ok() {
            self.path.pop();
        }
        out
    }

    pub(crate) fn err(&self, field: &str, message: impl Into<String>) -> DecodeError {
        let mut p = self.path.join(".");
        if !field.is_empty() {
            if !p.is_empty() {
                p.push('.');
            }
            p.push_str(field);
        }
        DecodeError::new(self.file, &p, format!("{} (at byte {} of {})", message.into(), self.pos, self.bytes.len()))
    }

    pub(crate) fn take(&mut self, field: &str, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.err(field, format!("needs {n} bytes, {} are left: the file is cut short or a length is wrong", self.remaining())));
        }
        let s = &self.bytes[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub(crate) fn u8(&mut self, field: &str) -> Result<u8, DecodeError> {
        Ok(self.take(field, 1)?[0])
    }

    pub(crate) fn i32(&mut self, field: &str) -> Result<i32, DecodeError> {
        let b = self.take(field, 4)?;
        Ok(i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn i64(&mut self, field: &str) -> Result<i64, DecodeError> {
        let b = self.take(field, 8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_be_bytes(a))
    }

    /// A count of items that each take at least `min_bytes`: negative counts and counts the
    /// remaining bytes cannot hold are refused here, so no caller allocates for a lie.
    pub(crate) fn count(&mut self, field: &str, min_bytes: usize) -> Result<usize, DecodeError> {
        let n = self.i32(field)?;
        self.check_count(field, n, min_bytes)
    }

    pub(crate) fn check_count(&self, field: &str, n: i32, min_bytes: usize) -> Result<usize, DecodeError> {
        let n = usize::try_from(n).map_err(|_| self.err(field, format!("is {n}: a count cannot be negative")))?;
        let need = n.checked_mul(min_bytes.max(1)).ok_or_else(|| self.err(field, format!("{n} items overflow")))?;
        if need > self.remaining() {
            return Err(self.err(field, format!("declares {n} items, which need at least {need} bytes; {} are left", self.remaining())));
        }
        Ok(n)
    }

    /// A length-prefixed byte array (`writeInt(len)` then the bytes).
    pub(crate) fn bytes_i32(&mut self, field: &str) -> Result<&'a [u8], DecodeError> {
        let n = self.i32(field)?;
        let n = usize::try_from(n).map_err(|_| self.err(field, format!("is {n}: a length cannot be negative")))?;
        if n > self.remaining() {
            return Err(self.err(field, format!("declares {n} bytes; {} are left in the file", self.remaining())));
        }
        self.take(field, n)
    }

    /// `DataOutput.writeUTF`: a 2-byte length, then Java's modified UTF-8 (NUL as C0 80, characters
    /// beyond the BMP as two 3-byte surrogates). Decoded to UTF-16 units, then to text; a unit that
    /// is not valid becomes U+FFFD (a name read from a stranger's file is shown, never trusted).
    pub(crate) fn utf(&mut self, field: &str) -> Result<String, DecodeError> {
        let b = self.take(field, 2)?;
        let n = usize::from(u16::from_be_bytes([b[0], b[1]]));
        let raw = self.take(field, n)?;
        if let Ok(s) = std::str::from_utf8(raw) {
            if !raw.contains(&0xC0) && !raw.contains(&0xED) {
                return Ok(s.to_string());
            }
        }
        let mut units = Vec::with_capacity(n);
        let mut i = 0;
        while i < raw.len() {
            let c = raw[i];
            let (unit, used) = if c < 0x80 {
                (u16::from(c), 1)
            } else if c & 0xE0 == 0xC0 && i + 1 < raw.len() {
                ((u16::from(c & 0x1F) << 6) | u16::from(raw[i + 1] & 0x3F), 2)
            } else if c & 0xF0 == 0xE0 && i + 2 < raw.len() {
                ((u16::from(c & 0x0F) << 12) | (u16::from(raw[i + 1] & 0x3F) << 6) | u16::from(raw[i + 2] & 0x3F), 3)
            } else {
                (0xFFFD, 1)
            };
            units.push(unit);
            i += used;
        }
        Ok(String::from_utf16_lossy(&units))
    }
}

/// Flink's `StringValue` encoding (the `StringSerializer` of list state): the length plus one as
/// a 7-bit varint (0 = null), then each UTF-16 unit as a 7-bit varint.
pub(crate) fn flink_string(r: &mut Input<'_>, field: &str) -> Result<Option<String>, DecodeError> {
    let len = varint(r, field)?;
    if len == 0 {
        return Ok(None);
    }
    let n = (len - 1) as usize;
    if n > r.remaining() {
        return Err(r.err(field, format!("declares {n} characters; {} bytes are left", r.remaining())));
    }
    let mut units = Vec::with_capacity(n);
    for _ in 0..n {
        let c = varint(r, field)?;
        units.push(u16::try_from(c).map_err(|_| r.err(field, format!("character {c} is beyond 16 bits")))?);
    }
    Ok(Some(String::from_utf16_lossy(&units)))
}

fn varint(r: &mut Input<'_>, field: &str) -> Result<u32, DecodeError> {
    let mut v: u32 = 0;
    for shift in [0u32, 7, 14, 21, 28] {
        let b = r.u8(field)?;
        v |= u32::from(b & 0x7F).checked_shl(shift).unwrap_or(0);
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(r.err(field, "a variable-length number runs past 5 bytes"))
}
