//! The Avro object container format, read with every length checked against the bytes present:
//! header, then blocks of (record count, byte size, data, sync marker). Blocks are inflated with a
//! bound, records decoded one by one with apache-avro's datum reader against a schema parsed once
//! per distinct schema text (a table's thousands of manifests share a handful of schemas).
//! The last schema used is compared first: consecutive manifests almost always share it, and
//! hashing kilobytes of schema text per file showed up in profiles of 17,280-manifest tables.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use std::rc::Rc;

use apache_avro::Schema;

use super::avro_datum::{Datum, Names, Reader};
use super::DecodeError;

/// A block may inflate to at most this much, a file to at most `MAX_FILE_INFLATED`: a manifest of
/// a million entries is ~200 MB inflated; a 37 KB block claiming gigabytes is an attack.
const MAX_BLOCK_INFLATED: u64 = 256 << 20;
const MAX_FILE_INFLATED: u64 = 1 << 30;
const MAX_HEADER_ENTRIES: usize = 1024;
/// One header entry, at most: the largest is the schema, a few MB for thousands of columns.
const MAX_HEADER_FIELD: usize = 64 << 20;
const SCHEMA_CACHE: usize = 64;

type LastSchema = Option<(Vec<u8>, Rc<Schema>, Rc<Names>)>;

thread_local! {
    static LAST: RefCell<LastSchema> = const { RefCell::new(None) };
    static SCHEMAS: RefCell<HashMap<Vec<u8>, (Rc<Schema>, Rc<Names>)>> = RefCell::new(HashMap::new());
}

pub(crate) struct Container<'a> {
    pub schema: Rc<Schema>,
    names: Rc<Names>,
    metadata: Vec<(&'a [u8], &'a [u8])>,
    codec: Codec,
    sync: [u8; 16],
    body: usize,
}

#[derive(Clone, Copy, PartialEq)]
enum Codec {
    Null,
    Deflate,
    Snappy,
    Zstandard,
}

/// Reads a zig-zag varint long; None at the end of the bytes or past 64 bits.
pub(crate) fn read_long(bytes: &[u8], pos: &mut usize) -> Option<i64> {
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

fn schema_for(file: &str, text: &[u8]) -> Result<(Rc<Schema>, Rc<Names>), DecodeError> {
    if let Some(s) = LAST.with(|l| l.borrow().as_ref().filter(|(t, _, _)| t.as_slice() == text).map(|(_, s, n)| (s.clone(), n.clone()))) {
        return Ok(s);
    }
    if let Some(s) = SCHEMAS.with(|c| c.borrow().get(text).cloned()) {
        LAST.with(|l| *l.borrow_mut() = Some((text.to_vec(), s.0.clone(), s.1.clone())));
        return Ok(s);
    }
    // Names are checked first: apache-avro unwraps them, and a panic kills the browser app.
    super::avro_header::check_schema(file, text)?;
    let text_str = std::str::from_utf8(text).map_err(|_| DecodeError::new(file, "avro.schema", "the Avro schema is not UTF-8"))?;
    let schema = Schema::parse_str(text_str).map_err(|e| DecodeError::new(file, "avro.schema", format!("the Avro schema is invalid: {e}")))?;
    let parsed = (Rc::new(Names::of(&schema)), Rc::new(schema));
    let parsed = (parsed.1, parsed.0);
    SCHEMAS.with(|c| {
        let mut c = c.borrow_mut();
        if c.len() >= SCHEMA_CACHE {
            c.clear();
        }
        c.insert(text.to_vec(), parsed.clone());
    });
    LAST.with(|l| *l.borrow_mut() = Some((text.to_vec(), parsed.0.clone(), parsed.1.clone())));
    Ok(parsed)
}

impl<'a> Container<'a> {
    /// A header entry, as the writer stored it.
    pub fn meta(&self, key: &str) -> Option<&'a [u8]> {
        self.metadata.iter().find(|(k, _)| *k == key.as_bytes()).map(|(_, v)| *v)
    }

    pub fn open(file: &str, bytes: &'a [u8]) -> Result<Container<'a>, DecodeError> {
        let bad = |field: &str, m: &str| DecodeError::new(file, field, m.to_string());
        if bytes.len() < 4 || &bytes[..4] != b"Obj\x01" {
            return Err(bad("", "not an Avro object container file (the first bytes are not `Obj\\x01`)"));
        }
        let mut pos = 4;
        let mut metadata = Vec::new();
        // A file that ends inside its header is cut short; one whose header holds what no writer
        // writes (a length that is not a valid long, negative, or past any plausible header) is
        // garbled. The two call for different fixes, so they are told apart.
        let truncated = |_at: usize| bad("avro header", &format!("the Avro header is truncated: the file ends at byte {} inside it", bytes.len()));
        let garbled = |at: usize, what: &str| bad("avro header", &format!("the Avro header is garbled at byte {at}: {what}"));
        let long = |pos: &mut usize| -> Result<i64, DecodeError> {
            let at = *pos;
            match read_long(bytes, pos) {
                Some(v) => Ok(v),
                None if *pos >= bytes.len() => Err(truncated(at)),
                None => Err(garbled(at, "a length runs past 10 bytes, which no Avro long does")),
            }
        };
        let field = |pos: &mut usize| -> Result<&'a [u8], DecodeError> {
            let at = *pos;
            let len = long(pos)?;
            let len = usize::try_from(len).map_err(|_| garbled(at, &format!("a negative length ({len})")))?;
            if len > MAX_HEADER_FIELD {
                return Err(garbled(at, &format!("an entry of {len} bytes, more than any writer puts in a header")));
            }
            let end = pos.checked_add(len).filter(|&e| e <= bytes.len()).ok_or_else(|| truncated(at))?;
            let out = &bytes[*pos..end];
            *pos = end;
            Ok(out)
        };
        loop {
            let at = pos;
            let count = long(&mut pos)?;
            if count == 0 {
                break;
            }
            if count < 0 {
                long(&mut pos)?;
            }
            for _ in 0..count.unsigned_abs() {
                if metadata.len() >= MAX_HEADER_ENTRIES {
                    return Err(bad("avro header", "the Avro header declares more than 1024 entries"));
                }
                let key = field(&mut pos)?;
                if std::str::from_utf8(key).is_err() {
                    return Err(garbled(at, "an entry's key is not text"));
                }
                let value = field(&mut pos)?;
                metadata.push((key, value));
            }
        }
        let sync: [u8; 16] = bytes.get(pos..pos + 16).and_then(|s| s.try_into().ok()).ok_or_else(|| truncated(pos))?;
        pos += 16;
        let find = |k: &[u8]| metadata.iter().find(|(key, _)| *key == k).map(|(_, v)| *v);
        let codec = match find(b"avro.codec") {
            None | Some(b"null") | Some(b"") => Codec::Null,
            Some(b"deflate") => Codec::Deflate,
            Some(b"snappy") => Codec::Snappy,
            Some(b"zstandard") => Codec::Zstandard,
            Some(other) => return Err(bad("avro.codec", &format!("unsupported Avro codec `{}`", String::from_utf8_lossy(other)))),
        };
        let text = find(b"avro.schema").ok_or_else(|| bad("avro.schema", "the Avro header has no schema"))?;
        let (schema, names) = schema_for(file, text)?;
        Ok(Container { schema, names, metadata, codec, sync, body: pos })
    }

    /// The records the blocks declare, summed as far as the block headers can be walked; not
    /// checked against the bytes (`for_each_record` does that).
    pub fn declared_records(&self, bytes: &[u8]) -> u64 {
        let (mut pos, mut total) = (self.body, 0u64);
        while pos < bytes.len() {
            let (Some(count), Some(size)) = (read_long(bytes, &mut pos), read_long(bytes, &mut pos)) else { break };
            let (Ok(count), Ok(size)) = (u64::try_from(count), usize::try_from(size)) else { break };
            total = total.saturating_add(count);
            match pos.checked_add(size).and_then(|p| p.checked_add(16)) {
                Some(next) if next <= bytes.len() => pos = next,
                _ => break,
            }
        }
        total
    }

    /// Hands every record to `each` as it is decoded. A failure part-way names the block and how
    /// many records came before it.
    pub fn for_each_record(&self, file: &str, bytes: &[u8], mut each: impl FnMut(usize, &Datum<'_, '_>) -> Result<(), DecodeError>) -> Result<(), DecodeError> {
        let mut pos = self.body;
        let mut read = 0usize;
        let mut inflated_total: u64 = 0;
        let mut block = 0usize;
        let fail = |block: usize, read: usize, m: String| {
            DecodeError::new(file, "", format!("Avro block {block} (after {read} records): {m} — truncated or corrupt file?"))
        };
        while pos < bytes.len() {
            let count = read_long(bytes, &mut pos).ok_or_else(|| fail(block, read, "the block header is cut off".into()))?;
            let size = read_long(bytes, &mut pos).ok_or_else(|| fail(block, read, "the block size is cut off".into()))?;
            let (Ok(count), Ok(size)) = (u64::try_from(count), usize::try_from(size)) else {
                return Err(fail(block, read, format!("negative record count {count} or size {size}")));
            };
            let end = pos
                .checked_add(size)
                .filter(|&e| e <= bytes.len())
                .ok_or_else(|| fail(block, read, format!("it declares {size} bytes but {} remain", bytes.len() - pos)))?;
            let data = self.inflate(&bytes[pos..end]).map_err(|m| fail(block, read, m))?;
            inflated_total = inflated_total.saturating_add(data.len() as u64);
            if inflated_total > MAX_FILE_INFLATED {
                return Err(fail(block, read, format!("the file inflates past {} MiB", MAX_FILE_INFLATED >> 20)));
            }
            pos = end;
            let sync = bytes.get(pos..pos + 16).ok_or_else(|| fail(block, read, "the sync marker is cut off".into()))?;
            if sync != self.sync {
                return Err(fail(block, read, "the sync marker does not match the header's".into()));
            }
            pos += 16;
            // Every Iceberg record takes at least one byte: a count above the bytes is a lie.
            if count > data.len() as u64 {
                return Err(fail(block, read, format!("it declares {count} records in {} bytes", data.len())));
            }
            let mut reader = Reader::new(&data, &self.names);
            for k in 0..count {
                let v = reader.value(&self.schema, 0).map_err(|e| fail(block, read, format!("record {k} of {count}: {e}")))?;
                each(read, &v)?;
                read += 1;
            }
            if !reader.buf.is_empty() {
                return Err(fail(block, read, format!("{} bytes follow its {count} declared records", reader.buf.len())));
            }
            block += 1;
        }
        Ok(())
    }

    fn inflate(&self, raw: &[u8]) -> Result<Vec<u8>, String> {
        let limited = |mut r: Box<dyn Read + '_>| -> Result<Vec<u8>, String> {
            let mut out = Vec::new();
            (&mut r).take(MAX_BLOCK_INFLATED + 1).read_to_end(&mut out).map_err(|e| e.to_string())?;
            if out.len() as u64 > MAX_BLOCK_INFLATED {
                return Err(format!("a block inflates past {} MiB", MAX_BLOCK_INFLATED >> 20));
            }
            Ok(out)
        };
        match self.codec {
            Codec::Null => Ok(raw.to_vec()),
            Codec::Deflate => inflate_raw(raw).map_err(|e| format!("deflate: {e}")),
            Codec::Zstandard => {
                let d = zstd::stream::read::Decoder::with_buffer(raw).map_err(|e| format!("zstandard: {e}"))?;
                limited(Box::new(d)).map_err(|e| format!("zstandard: {e}"))
            }
            Codec::Snappy => {
                // Snappy blocks end with the CRC-32 of the inflated bytes, big-endian.
                let split = raw.len().checked_sub(4).ok_or("snappy: the block is shorter than its checksum")?;
                let (data, crc) = raw.split_at(split);
                let len = snap::raw::decompress_len(data).map_err(|e| format!("snappy: {e}"))?;
                if len as u64 > MAX_BLOCK_INFLATED {
                    return Err(format!("a block inflates past {} MiB", MAX_BLOCK_INFLATED >> 20));
                }
                let out = snap::raw::Decoder::new().decompress_vec(data).map_err(|e| format!("snappy: {e}"))?;
                let expected = u32::from_be_bytes([crc[0], crc[1], crc[2], crc[3]]);
                if crc32fast::hash(&out) != expected {
                    return Err("snappy: the block's checksum does not match".into());
                }
                Ok(out)
            }
        }
    }
}

thread_local! {
    /// One inflater per thread, reset per block: setting one up cost more than inflating a
    /// small manifest's single block.
    static INFLATER: RefCell<flate2::Decompress> = RefCell::new(flate2::Decompress::new(false));
}

/// Raw deflate (Avro's `deflate` codec has no zlib header), bounded by `MAX_BLOCK_INFLATED`.
fn inflate_raw(raw: &[u8]) -> Result<Vec<u8>, String> {
    INFLATER.with(|d| {
        let mut d = d.borrow_mut();
        d.reset(false);
        let mut out: Vec<u8> = Vec::with_capacity(raw.len().saturating_mul(4).min(1 << 20));
        loop {
            let consumed = usize::try_from(d.total_in()).map_err(|e| e.to_string())?;
            let input = raw.get(consumed..).unwrap_or(&[]);
            if out.len() == out.capacity() {
                if out.len() as u64 > MAX_BLOCK_INFLATED {
                    return Err(format!("a block inflates past {} MiB", MAX_BLOCK_INFLATED >> 20));
                }
                let room = usize::try_from(MAX_BLOCK_INFLATED + 1).unwrap_or(usize::MAX).saturating_sub(out.len());
                out.reserve(out.len().max(64 << 10).min(room.max(1)));
            }
            let before = (d.total_in(), d.total_out());
            let status = d.decompress_vec(input, &mut out, flate2::FlushDecompress::None).map_err(|e| e.to_string())?;
            match status {
                flate2::Status::StreamEnd => break,
                _ if (d.total_in(), d.total_out()) == before && out.len() < out.capacity() => {
                    return Err("the block ends before its deflate stream does".into());
                }
                _ => {}
            }
        }
        if out.len() as u64 > MAX_BLOCK_INFLATED {
            return Err(format!("a block inflates past {} MiB", MAX_BLOCK_INFLATED >> 20));
        }
        Ok(out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest() -> Vec<u8> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/savepoint-twice/metadata");
        let name = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "avro")).unwrap();
        std::fs::read(name).unwrap()
    }

    fn error(bytes: &[u8]) -> String {
        Container::open("m.avro", bytes).err().expect("refused").to_string()
    }

    #[test]
    fn a_short_header_is_truncated_a_garbled_one_is_garbled() {
        let m = manifest();
        assert!(Container::open("m.avro", &m).is_ok());
        assert!(error(&m[..200]).contains("the Avro header is truncated: the file ends at byte 200 inside it"), "{}", error(&m[..200]));
        let mut g = m.clone();
        g[4..16].fill(0xff);
        assert!(error(&g).contains("garbled at byte 4: a length runs past 10 bytes"), "{}", error(&g));
        // The first key's length (byte 5 on, after a one-byte count) made huge but valid.
        let mut g = m[..5].to_vec();
        g.extend([0xfe, 0xff, 0xff, 0xff, 0x0f]);
        g.extend(&m[6..]);
        assert!(error(&g).contains("garbled at byte 5: an entry of 2147483647 bytes"), "{}", error(&g));
        let mut g = m[..5].to_vec();
        g.push(0x03); // zigzag -2
        g.extend(&m[6..]);
        assert!(error(&g).contains("garbled at byte 5: a negative length (-2)"), "{}", error(&g));
    }
}
