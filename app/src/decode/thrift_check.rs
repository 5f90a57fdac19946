//! Walks a Thrift compact-protocol struct (a Parquet footer) before the `parquet` crate decodes it:
//! every declared list, map and binary length is checked against the bytes left, and nesting is
//! limited. Each container element takes at least one byte, so a footer that passes is walked in
//! time proportional to its size. A 133-byte footer found by fuzzing kept the crate's own skipping
//! busy for over ten seconds (a list of billions of elements in a few bytes).

const MAX_DEPTH: usize = 64;

struct Walk<'a> {
    b: &'a [u8],
    pos: usize,
}

impl Walk<'_> {
    fn left(&self) -> usize {
        self.b.len() - self.pos
    }

    fn byte(&mut self) -> Result<u8, String> {
        let v = *self.b.get(self.pos).ok_or_else(|| format!("ends at byte {} inside a value", self.pos))?;
        self.pos += 1;
        Ok(v)
    }

    fn varint(&mut self) -> Result<u64, String> {
        self.varint_of(10)
    }

    /// A varint of at most `bytes` bytes: an i16 takes at most 3, an i32 5. The `parquet` crate
    /// reads each at its width, so a longer one would be read differently there than here (a
    /// fuzzed 149-byte footer whose 4-byte field id this walker accepted kept the crate busy 67 s).
    fn varint_of(&mut self, bytes: usize) -> Result<u64, String> {
        let at = self.pos;
        let mut v = 0u64;
        for (i, shift) in (0..70).step_by(7).enumerate() {
            if i == bytes {
                return Err(format!("a varint longer than {bytes} bytes at byte {at}"));
            }
            let b = self.byte()?;
            v |= u64::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("a varint longer than 10 bytes at byte {}", self.pos))
    }

    fn advance(&mut self, n: u64, what: &str) -> Result<(), String> {
        let n = usize::try_from(n).ok().filter(|&n| n <= self.left()).ok_or_else(|| format!("{what} of {n} bytes at byte {} with {} left", self.pos, self.left()))?;
        self.pos += n;
        Ok(())
    }

    /// A count of elements, each at least one byte.
    fn count(&mut self, n: u64, what: &str) -> Result<u64, String> {
        if n > self.left() as u64 {
            return Err(format!("a {what} declares {n} elements at byte {} with {} bytes left", self.pos, self.left()));
        }
        Ok(n)
    }

    fn value(&mut self, ty: u8, depth: usize, in_container: bool) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep at byte {}", self.pos));
        }
        match ty {
            // A boolean field carries its value in its type; in a list it takes a byte.
            1 | 2 => {
                if in_container {
                    self.byte()?;
                }
                Ok(())
            }
            3 => self.byte().map(|_| ()),
            4 => self.varint_of(3).map(|_| ()),
            5 => self.varint_of(5).map(|_| ()),
            6 => self.varint().map(|_| ()),
            7 => self.advance(8, "a double"),
            8 => {
                let n = self.varint_of(5)?;
                self.advance(n, "a binary")
            }
            9 | 10 => {
                let h = self.byte()?;
                let n = if h >> 4 == 15 { self.varint_of(5)? } else { u64::from(h >> 4) };
                for _ in 0..self.count(n, "list")? {
                    self.value(h & 0x0f, depth + 1, true)?;
                }
                Ok(())
            }
            11 => {
                let n = self.varint_of(5)?;
                if n == 0 {
                    return Ok(());
                }
                let kv = self.byte()?;
                for _ in 0..self.count(n, "map")? {
                    self.value(kv >> 4, depth + 1, true)?;
                    self.value(kv & 0x0f, depth + 1, true)?;
                }
                Ok(())
            }
            12 => self.fields(depth + 1),
            other => Err(format!("unknown Thrift type {other} at byte {}", self.pos)),
        }
    }

    fn fields(&mut self, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep at byte {}", self.pos));
        }
        loop {
            let h = self.byte()?;
            if h == 0 {
                return Ok(());
            }
            if h >> 4 == 0 {
                self.varint_of(3)?; // a field id given in full (zigzag i16)
            }
            self.value(h & 0x0f, depth, false)?;
        }
    }
}

/// Ok when `bytes` start with a well-formed compact-protocol struct whose declared sizes fit.
pub fn check_struct(bytes: &[u8]) -> Result<(), String> {
    Walk { b: bytes, pos: 0 }.fields(0)
}

/// What a Parquet `PageHeader` says that decides how its body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PageHeader {
    /// Its own length in bytes.
    pub len: usize,
    /// `type` (field 1): 0 data page, 2 dictionary page, 3 data page v2.
    pub page_type: i64,
    pub uncompressed: i64,
    pub compressed: i64,
    /// A v1 data page (field 5): num_values, definition and repetition level encodings.
    pub v1: Option<DataPageV1>,
    /// A v2 data page (field 8).
    pub v2: Option<DataPageV2>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPageV1 {
    pub num_values: i64,
    pub encoding: i64,
    pub def_encoding: i64,
    pub rep_encoding: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataPageV2 {
    pub num_values: i64,
    pub encoding: i64,
    pub def_len: i64,
    pub rep_len: i64,
}

impl PageHeader {
    /// A data page whose values are indices into the chunk's dictionary (PLAIN_DICTIONARY or
    /// RLE_DICTIONARY).
    pub fn needs_dictionary(&self) -> bool {
        let encoding = match self.page_type {
            0 => self.v1.map(|v| v.encoding),
            3 => self.v2.map(|v| v.encoding),
            _ => None,
        };
        matches!(encoding, Some(2 | 8))
    }
}

/// A Parquet `PageHeader` at the start of `bytes`, the rest of it walked as `check_struct` does.
pub fn page_header(bytes: &[u8]) -> Result<PageHeader, String> {
    let mut w = Walk { b: bytes, pos: 0 };
    let mut out = PageHeader::default();
    let (mut id, mut uncompressed, mut compressed) = (0i64, None, None);
    loop {
        let h = w.byte()?;
        if h == 0 {
            break;
        }
        id = w.field_id(h, id)?;
        match (id, h & 0x0f) {
            (1, 5) => out.page_type = zigzag(w.varint_of(5)?),
            (2, 5) => uncompressed = Some(zigzag(w.varint_of(5)?)),
            (3, 5) => compressed = Some(zigzag(w.varint_of(5)?)),
            (5, 12) => {
                let f = w.i32_fields()?;
                let at = |i: i64| f.iter().find(|(k, _)| *k == i).map(|(_, v)| *v);
                out.v1 = Some(DataPageV1 { num_values: at(1).unwrap_or(-1), encoding: at(2).unwrap_or(-1), def_encoding: at(3).unwrap_or(-1), rep_encoding: at(4).unwrap_or(-1) });
            }
            (8, 12) => {
                let f = w.i32_fields()?;
                let at = |i: i64| f.iter().find(|(k, _)| *k == i).map(|(_, v)| *v);
                out.v2 = Some(DataPageV2 { num_values: at(1).unwrap_or(-1), encoding: at(4).unwrap_or(-1), def_len: at(5).unwrap_or(-1), rep_len: at(6).unwrap_or(-1) });
            }
            (_, ty) => w.value(ty, 1, false)?,
        }
    }
    match (uncompressed, compressed) {
        (Some(u), Some(c)) => Ok(PageHeader { len: w.pos, uncompressed: u, compressed: c, ..out }),
        _ => Err("a page header without its sizes (fields 2 and 3)".into()),
    }
}

impl Walk<'_> {
    /// A field header's id: a delta from the previous id, or given in full (zigzag i16) after it.
    fn field_id(&mut self, header: u8, previous: i64) -> Result<i64, String> {
        Ok(if header >> 4 == 0 { zigzag(self.varint_of(3)?) } else { previous + i64::from(header >> 4) })
    }

    /// The i32 fields of a struct (id, value); every other field walked and left.
    fn i32_fields(&mut self) -> Result<Vec<(i64, i64)>, String> {
        let mut out = Vec::new();
        let mut id = 0i64;
        loop {
            let h = self.byte()?;
            if h == 0 {
                return Ok(out);
            }
            id = self.field_id(h, id)?;
            match h & 0x0f {
                5 => out.push((id, zigzag(self.varint_of(5)?))),
                ty => self.value(ty, 2, false)?,
            }
        }
    }
}

fn zigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

#[cfg(test)]
mod tests {
    use super::check_struct;

    #[test]
    fn a_page_header_gives_its_sizes() {
        // type 0 (i32 0), uncompressed 300 (zigzag 600), compressed 7 (zigzag 14), crc, stop.
        let h = [0x15, 0x00, 0x15, 0xd8, 0x04, 0x15, 0x0e, 0x15, 0x02, 0x00, 0xff];
        let p = super::page_header(&h).unwrap();
        assert_eq!((p.len, p.page_type, p.uncompressed, p.compressed, p.v1, p.v2), (10, 0, 300, 7, None, None));
        assert!(super::page_header(&[0x15, 0x00, 0x00]).is_err());
    }

    #[test]
    fn sizes_past_the_bytes_and_deep_nesting_are_refused() {
        // field 1, list of i32 with 15+varint size 2^31: a few bytes claiming billions of elements.
        assert!(check_struct(&[0x19, 0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00]).unwrap_err().contains("declares"));
        // field 1, binary of 100 bytes with 2 present.
        assert!(check_struct(&[0x18, 100, 1, 2]).unwrap_err().contains("binary of 100 bytes"));
        // 100 nested structs.
        let mut deep = vec![0x1c; 100];
        deep.extend(vec![0u8; 101]);
        assert!(check_struct(&deep).unwrap_err().contains("nested"));
        // field 1 i32 = 5, field 2 list of two bytes, stop.
        assert!(check_struct(&[0x15, 10, 0x19, 0x23, 1, 2, 0x00]).is_ok());
    }
}
