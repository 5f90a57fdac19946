//! Walks a Thrift compact-protocol struct (a Parquet footer) before the `parquet` crate decodes it:
//! every declared list, map and binary length is checked against the bytes left, and nesting is
//! limited. Each container element takes at least one byte, so a footer that passes is walked in
//! time proportional to its size. A 133-byte footer found by fuzzing kept the crate's own skipping
//! busy for over ten seconds (a list of billions of elements in a few bytes). Footers and page
//! headers are walked as the crate reads them (`Kind`): known fields by the type it expects.

const MAX_DEPTH: usize = 64;

struct Walk<'a> {
    b: &'a [u8],
    pos: usize,
    /// Elements of the list being walked: a schema element's `num_children` counts among them.
    siblings: u64,
    /// Container elements visited so far, against `budget`.
    visited: u64,
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
        let n = usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.left())
            .ok_or_else(|| format!("{what} of {n} bytes at byte {} with {} left", self.pos, self.left()))?;
        self.pos += n;
        Ok(())
    }

    /// A count of elements. Each takes a byte, but for booleans, which the crate skips without
    /// consuming any: nested lists of them would let a few hundred bytes cost it billions of steps
    /// (fuzzed, 60 s and more), so all the elements of a footer together are held to its size.
    fn count(&mut self, n: u64, what: &str) -> Result<u64, String> {
        if n > self.left() as u64 {
            return Err(format!("a {what} declares {n} elements at byte {} with {} bytes left", self.pos, self.left()));
        }
        self.visited = self.visited.saturating_add(n);
        let budget = (self.b.len() as u64).saturating_mul(2).saturating_add(1024);
        if self.visited > budget {
            return Err(format!("its lists declare more than {budget} elements in all, at byte {} of {}", self.pos, self.b.len()));
        }
        Ok(n)
    }

    fn value(&mut self, ty: u8, depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep at byte {}", self.pos));
        }
        match ty {
            // A boolean field carries its value in its type. In a list the compact protocol gives
            // it a byte, but parquet 60.1 skips a list of booleans without consuming any: walked
            // as the crate skips it, or the two part ways (a fuzzed footer then reached the crate
            // with a schema element of a billion children: 8.6 GB reserved). The count stays held
            // to the bytes left, which bounds the crate's loop.
            1 | 2 => Ok(()),
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
                    self.value(h & 0x0f, depth + 1)?;
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
                    self.value(kv >> 4, depth + 1)?;
                    self.value(kv & 0x0f, depth + 1)?;
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
            self.value(h & 0x0f, depth)?;
        }
    }
}

/// Ok when `bytes` start with a well-formed compact-protocol struct whose declared sizes fit.
#[cfg(test)]
pub fn check_struct(bytes: &[u8]) -> Result<(), String> {
    Walk { b: bytes, pos: 0, siblings: 0, visited: 0 }.fields(0)
}

/// How the `parquet` crate reads a known field: by its id, whatever type the wire gives. A walk by
/// the wire type alone parts ways with it at the first field whose type lies: a fuzzed 72-byte
/// footer (field 3, `num_rows`, marked boolean) sent the crate on to read the rest as other fields,
/// into a list of two billion booleans it skips without consuming a byte (3 s natively; more in
/// wasm). Known fields must carry the type the crate reads them as; unknown ones are walked by
/// their wire type, as the crate skips them.
#[derive(Clone, Copy)]
enum Kind {
    Bool,
    Byte,
    /// A zigzag varint of at most this many bytes (i16 3, i32 and enums 5, i64 10).
    Int(usize),
    Double,
    Binary,
    /// Element wire type, and the fields of struct elements.
    List(u8, &'static [(i16, Kind)]),
    Struct(&'static [(i16, Kind)]),
    /// `SchemaElement.num_children`: the crate reserves that many children before it looks
    /// (8.6 GB from a 549-byte fuzzed footer; an abort in wasm). At most the elements there are.
    Children,
}

use Kind::{Binary, Bool, Byte, Children, Double, Int, List, Struct};

const I16: Kind = Int(3);
const I32: Kind = Int(5);
const I64: Kind = Int(10);
const EMPTY: Kind = Struct(&[]);

// Field ids and types as parquet 60.1 reads them (parquet.thrift; `file/metadata/thrift/mod.rs`).
// Fields it skips (column chunk path and key-value metadata, a row group's total compressed size,
// everything about encryption: that feature is off) are left out: it skips them by wire type too.
const KEY_VALUE: &[(i16, Kind)] = &[(1, Binary), (2, Binary)];
const STATISTICS: &[(i16, Kind)] = &[(1, Binary), (2, Binary), (3, I64), (4, I64), (5, Binary), (6, Binary), (7, Bool), (8, Bool), (9, I64)];
const TIME_UNIT: &[(i16, Kind)] = &[(1, EMPTY), (2, EMPTY), (3, EMPTY)];
const TIME: &[(i16, Kind)] = &[(1, Bool), (2, Struct(TIME_UNIT))];
const LOGICAL_TYPE: &[(i16, Kind)] = &[
    (1, EMPTY),
    (2, EMPTY),
    (3, EMPTY),
    (4, EMPTY),
    (5, Struct(&[(1, I32), (2, I32)])),
    (6, EMPTY),
    (7, Struct(TIME)),
    (8, Struct(TIME)),
    (10, Struct(&[(1, Byte), (2, Bool)])),
    (11, EMPTY),
    (12, EMPTY),
    (13, EMPTY),
    (14, EMPTY),
    (15, EMPTY),
    (16, Struct(&[(1, Byte)])),
    (17, Struct(&[(1, Binary)])),
    (18, Struct(&[(1, Binary), (2, I32)])),
    (19, EMPTY),
];
const SCHEMA_ELEMENT: &[(i16, Kind)] =
    &[(1, I32), (2, I32), (3, I32), (4, Binary), (5, Children), (6, I32), (7, I32), (8, I32), (9, I32), (10, Struct(LOGICAL_TYPE))];
const COLUMN_META: &[(i16, Kind)] = &[
    (1, I32),
    (2, List(5, &[])),
    (4, I32),
    (5, I64),
    (6, I64),
    (7, I64),
    (9, I64),
    (10, I64),
    (11, I64),
    (12, Struct(STATISTICS)),
    (13, List(12, &[(1, I32), (2, I32), (3, I32)])),
    (14, I64),
    (15, I32),
    (16, Struct(&[(1, I64), (2, List(6, &[])), (3, List(6, &[]))])),
    (17, Struct(&[(1, Struct(&[(1, Double), (2, Double), (3, Double), (4, Double), (5, Double), (6, Double), (7, Double), (8, Double)])), (2, List(5, &[]))])),
];
const COLUMN_CHUNK: &[(i16, Kind)] = &[(1, Binary), (2, I64), (3, Struct(COLUMN_META)), (4, I64), (5, I32), (6, I64), (7, I32)];
const ROW_GROUP: &[(i16, Kind)] = &[(1, List(12, COLUMN_CHUNK)), (2, I64), (3, I64), (4, List(12, &[(1, I32), (2, Bool), (3, Bool)])), (5, I64), (7, I16)];
const FILE_METADATA: &[(i16, Kind)] = &[
    (1, I32),
    (2, List(12, SCHEMA_ELEMENT)),
    (3, I64),
    (4, List(12, ROW_GROUP)),
    (5, List(12, KEY_VALUE)),
    (6, Binary),
    (7, List(12, &[(1, EMPTY), (2, EMPTY), (3, EMPTY)])),
];
const DATA_PAGE: &[(i16, Kind)] = &[(1, I32), (2, I32), (3, I32), (4, I32), (5, Struct(STATISTICS))];
const PAGE_HEADER: &[(i16, Kind)] = &[
    (1, I32),
    (2, I32),
    (3, I32),
    (4, I32),
    (5, Struct(DATA_PAGE)),
    (6, EMPTY),
    (7, Struct(&[(1, I32), (2, I32), (3, Bool)])),
    (8, Struct(&[(1, I32), (2, I32), (3, I32), (4, I32), (5, I32), (6, I32), (7, Bool), (8, Struct(STATISTICS))])),
];

impl Walk<'_> {
    /// The fields of a struct the crate reads as `schema` says (an empty schema: every field
    /// unknown, walked by its wire type).
    fn typed(&mut self, schema: &'static [(i16, Kind)], depth: usize) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep at byte {}", self.pos));
        }
        let mut id = 0i64;
        loop {
            let at = self.pos;
            let h = self.byte()?;
            if h == 0 {
                return Ok(());
            }
            id = self.field_id(h, id)?;
            let wire = h & 0x0f;
            match schema.iter().find(|(k, _)| i64::from(*k) == id) {
                None => self.value(wire, depth + 1)?,
                Some((_, kind)) => self.known(*kind, wire, depth + 1).map_err(|m| format!("field {id} at byte {at}: {m}"))?,
            }
        }
    }

    fn known(&mut self, kind: Kind, wire: u8, depth: usize) -> Result<(), String> {
        let fits = match kind {
            Bool => matches!(wire, 1 | 2),
            Byte => wire == 3,
            Int(_) | Children => matches!(wire, 4..=6),
            Double => wire == 7,
            Binary => wire == 8,
            List(..) => matches!(wire, 9 | 10),
            Struct(_) => wire == 12,
        };
        if !fits {
            return Err(format!("wire type {wire} where the decoder reads {}", kind.name()));
        }
        match kind {
            Bool => Ok(()),
            Int(width) => self.varint_of(width).map(|_| ()),
            Children => {
                let n = zigzag(self.varint_of(5)?);
                if n < 0 || n as u64 >= self.siblings.max(1) {
                    return Err(format!("num_children {n} among {} schema elements", self.siblings));
                }
                Ok(())
            }
            Struct(fields) => self.typed(fields, depth),
            List(element, fields) => {
                let h = self.byte()?;
                // An empty list may be written with element type 0; the crate accepts it.
                if h == 0 {
                    return Ok(());
                }
                if h & 0x0f != element {
                    return Err(format!("a list of wire type {} where the decoder reads {element}", h & 0x0f));
                }
                let n = if h >> 4 == 15 { self.varint_of(5)? } else { u64::from(h >> 4) };
                let n = self.count(n, "list")?;
                let outer = std::mem::replace(&mut self.siblings, n);
                for _ in 0..n {
                    if element == 12 {
                        self.typed(fields, depth + 1)?;
                    } else {
                        self.value(element, depth + 1)?;
                    }
                }
                self.siblings = outer;
                Ok(())
            }
            Byte | Double | Binary => self.value(wire, depth),
        }
    }
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Bool => "a boolean",
            Byte => "a byte",
            Int(_) => "an integer",
            Double => "a double",
            Binary => "a binary",
            List(..) => "a list",
            Struct(_) => "a struct",
            Children => "an integer",
        }
    }
}

/// Ok when `bytes` start with a Parquet `FileMetaData` whose declared sizes fit and whose known
/// fields have the types the `parquet` crate reads them as (`Kind`).
pub fn check_footer(bytes: &[u8]) -> Result<(), String> {
    Walk { b: bytes, pos: 0, siblings: 0, visited: 0 }.typed(FILE_METADATA, 0)
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
    // First as the crate will read it (known fields of their types), then for what it says.
    Walk { b: bytes, pos: 0, siblings: 0, visited: 0 }.typed(PAGE_HEADER, 0)?;
    let mut w = Walk { b: bytes, pos: 0, siblings: 0, visited: 0 };
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
                out.v1 = Some(DataPageV1 {
                    num_values: at(1).unwrap_or(-1),
                    encoding: at(2).unwrap_or(-1),
                    def_encoding: at(3).unwrap_or(-1),
                    rep_encoding: at(4).unwrap_or(-1),
                });
            }
            (8, 12) => {
                let f = w.i32_fields()?;
                let at = |i: i64| f.iter().find(|(k, _)| *k == i).map(|(_, v)| *v);
                out.v2 = Some(DataPageV2 {
                    num_values: at(1).unwrap_or(-1),
                    encoding: at(4).unwrap_or(-1),
                    def_len: at(5).unwrap_or(-1),
                    rep_len: at(6).unwrap_or(-1),
                });
            }
            (_, ty) => w.value(ty, 1)?,
        }
    }
    match (uncompressed, compressed) {
        (Some(u), Some(c)) => Ok(PageHeader { len: w.pos, uncompressed: u, compressed: c, ..out }),
        _ => Err("a page header without its sizes (fields 2 and 3)".into()),
    }
}

impl Walk<'_> {
    /// A field header's id: a delta from the previous id, or given in full (zigzag i16) after it.
    /// As parquet 60.1 reads it: an i16, a full id cut to 16 bits (`as i16`), a delta checked. Read
    /// wider, a 3-byte id past i16 named an unknown field here and a known one there (fuzzed).
    fn field_id(&mut self, header: u8, previous: i64) -> Result<i64, String> {
        if header >> 4 == 0 {
            return Ok(i64::from(zigzag(self.varint_of(3)?) as i16));
        }
        let previous = i16::try_from(previous).map_err(|_| format!("field id {previous} past an i16"))?;
        previous.checked_add(i16::from(header >> 4)).map(i64::from).ok_or_else(|| format!("field id {previous} + {} past an i16", header >> 4))
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
                ty => self.value(ty, 2)?,
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

#[cfg(test)]
mod typed_tests {
    use super::{check_footer, page_header};

    #[test]
    fn a_known_field_of_another_type_is_refused_where_the_crate_would_read_on() {
        // FileMetaData field 3 (num_rows, i64) written as a boolean: the crate reads a varint there.
        assert_eq!(check_footer(&[0x31, 0x00, 0x00]).unwrap_err(), "field 3 at byte 0: wire type 1 where the decoder reads an integer");
        // Field 1 (version) as i32, then field 3 as i64, stop: fine (required fields are the crate's to ask for).
        assert!(check_footer(&[0x15, 0x02, 0x26, 0x0a, 0x00]).is_ok());
        // Field 2 (schema) as a list of i32 where the crate reads structs.
        assert!(check_footer(&[0x29, 0x15, 0x02, 0x00]).unwrap_err().contains("a list of wire type 5 where the decoder reads 12"));
        // Unknown field 20 of any type is walked by its wire type, as the crate skips it.
        assert!(check_footer(&[0x08, 0x28, 0x01, 0x41, 0x00]).is_ok());
        // A schema of one element claiming 1,000 children: the crate would reserve for them first.
        let children = [0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, b'a', 0x15, 0xd0, 0x0f, 0x00, 0x00];
        assert!(check_footer(&children).unwrap_err().contains("num_children 1000 among 1 schema elements"));
        assert!(check_footer(&[0x15, 0x02, 0x19, 0x1c, 0x48, 0x01, b'a', 0x15, 0x00, 0x00, 0x00]).is_ok());
        // Unknown field 9, a list of one boolean: the crate skips it without consuming a byte (a byte
        // per element would swallow the stop that follows).
        assert!(check_footer(&[0x99, 0x11, 0x00]).is_ok());
        // A full field id past i16 (zigzag 131,078 in 3 bytes) is field 6 (`created_by`) to the crate.
        assert!(check_footer(&[0x06, 0x8c, 0x80, 0x08, 0x05, 0x00]).unwrap_err().contains("field 6 at byte 0: wire type 6"));
        // Nested lists of booleans cost the crate a step per element and no bytes: held to the size.
        let mut nested = vec![0x99, 0xf9, 0x3f];
        nested.extend(std::iter::repeat_n([0xf1, 0x3f], 63).flatten());
        nested.resize(200, 0);
        assert!(check_footer(&nested).unwrap_err().contains("elements in all"));
        // A page header whose field 5 (data page header) is a binary: refused before it is parsed.
        assert!(page_header(&[0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x28, 0x01, 0x41, 0x00]).unwrap_err().contains("field 5"));
    }
}
