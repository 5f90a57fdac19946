//! Avro records decoded against their writer's schema, with every declared length and count held
//! against the bytes that remain (an array of 400 M items needs 400 M bytes) and recursion bounded.
//! Fields no view reads (column bounds, split offsets, key metadata) are skipped, not built:
//! they are most of a manifest's bytes and most of its decoding time. Values borrow their field
//! names from the schema and their strings from the block, so a record costs a few allocations,
//! not one per field.

use std::borrow::Cow;
use std::collections::HashMap;

use apache_avro::schema::{Name, Schema};

/// Nesting deeper than this is not an Iceberg file.
const MAX_DEPTH: usize = 48;

/// One decoded Avro value. Unions are resolved to their branch (null reads as `Null`); ints,
/// longs and their logical types are all `Long`; fixed is `Bytes`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Datum<'s, 'b> {
    Null,
    Bool(bool),
    Long(i64),
    Float(f64),
    Str(Cow<'b, str>),
    Bytes(&'b [u8]),
    Enum(&'s str),
    Array(Vec<Datum<'s, 'b>>),
    Map(Vec<(Cow<'b, str>, Datum<'s, 'b>)>),
    Record(Vec<(&'s str, Datum<'s, 'b>)>),
}

impl Datum<'_, '_> {
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Datum::Null => "null",
            Datum::Bool(_) => "boolean",
            Datum::Long(_) => "long",
            Datum::Float(_) => "double",
            Datum::Str(_) => "string",
            Datum::Bytes(_) => "bytes",
            Datum::Enum(_) => "enum",
            Datum::Array(_) => "array",
            Datum::Map(_) => "map",
            Datum::Record(_) => "record",
        }
    }
}

/// Named types by full name, for `Ref`s (a record that refers to itself or an earlier type).
pub(crate) struct Names(HashMap<Name, Schema>);

impl Names {
    pub(crate) fn of(schema: &Schema) -> Names {
        let mut names = HashMap::new();
        collect(schema, &mut names, 0);
        Names(names)
    }
}

fn collect(s: &Schema, out: &mut HashMap<Name, Schema>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match s {
        Schema::Record(r) => {
            out.insert(r.name.clone(), s.clone());
            for f in &r.fields {
                collect(&f.schema, out, depth + 1);
            }
        }
        Schema::Enum(e) => {
            out.insert(e.name.clone(), s.clone());
        }
        Schema::Fixed(f) => {
            out.insert(f.name.clone(), s.clone());
        }
        Schema::Array(a) => collect(&a.items, out, depth + 1),
        Schema::Map(m) => collect(&m.types, out, depth + 1),
        Schema::Union(u) => u.variants().iter().for_each(|v| collect(v, out, depth + 1)),
        _ => {}
    }
}

/// Fields read past without building them: bounds, offsets and partition summaries no view uses.
fn skipped(name: &str) -> bool {
    matches!(name, "lower_bounds" | "upper_bounds" | "split_offsets" | "key_metadata" | "nan_value_counts" | "partitions")
}

/// Column metric maps (`value_counts`, …) are read for their keys only: which field ids a writer
/// wrote. Building each {key, value} record would be most of a manifest entry's allocations.
fn keys_only(name: &str) -> bool {
    matches!(name, "value_counts" | "null_value_counts" | "column_sizes")
}

pub(crate) struct Reader<'s, 'b> {
    pub buf: &'b [u8],
    names: &'s Names,
}

type R<T> = Result<T, String>;

impl<'s, 'b> Reader<'s, 'b> {
    pub(crate) fn new(buf: &'b [u8], names: &'s Names) -> Self {
        Reader { buf, names }
    }

    fn long(&mut self) -> R<i64> {
        let mut value: u64 = 0;
        let mut shift = 0;
        loop {
            let (&b, rest) = self.buf.split_first().ok_or("a number is cut off")?;
            self.buf = rest;
            if shift > 63 {
                return Err("a number is longer than 64 bits".into());
            }
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        Ok(((value >> 1) as i64) ^ -((value & 1) as i64))
    }

    fn take(&mut self, n: usize) -> R<&'b [u8]> {
        if n > self.buf.len() {
            return Err(format!("{n} bytes declared, {} present", self.buf.len()));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn len(&mut self) -> R<usize> {
        let n = self.long()?;
        usize::try_from(n).map_err(|_| format!("negative length {n}"))
    }

    /// A block count of an array or map; a negative one is followed by the block's byte size.
    fn block_count(&mut self) -> R<usize> {
        let n = self.long()?;
        if n < 0 {
            self.long()?;
        }
        let n = n.unsigned_abs();
        // Every item takes at least one byte (null items aside, which Iceberg never writes).
        if n > self.buf.len() as u64 {
            return Err(format!("{n} items declared, {} bytes present", self.buf.len()));
        }
        Ok(n as usize)
    }

    /// The union branch the next value is written in.
    fn branch(&mut self, u: &'s apache_avro::schema::UnionSchema) -> R<&'s Schema> {
        let i = self.long()?;
        usize::try_from(i).ok().and_then(|i| u.variants().get(i)).ok_or_else(|| format!("union branch {i} out of range"))
    }

    fn resolve(&self, s: &'s Schema) -> R<&'s Schema> {
        match s {
            Schema::Ref { name } => self.names.0.get(name).ok_or_else(|| format!("unknown type {}", name.name)),
            other => Ok(other),
        }
    }

    pub(crate) fn value(&mut self, s: &'s Schema, depth: usize) -> R<Datum<'s, 'b>> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        Ok(match s {
            Schema::Null => Datum::Null,
            Schema::Boolean => Datum::Bool(self.take(1)?[0] != 0),
            Schema::Int | Schema::Date | Schema::TimeMillis => {
                let v = self.long()?;
                i32::try_from(v).map_err(|_| format!("int {v} out of range"))?;
                Datum::Long(v)
            }
            Schema::Long
            | Schema::TimeMicros
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::TimestampNanos
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros
            | Schema::LocalTimestampNanos => Datum::Long(self.long()?),
            Schema::Float => Datum::Float(f64::from(f32::from_le_bytes(self.take(4)?.try_into().map_err(|_| "float")?))),
            Schema::Double => Datum::Float(f64::from_le_bytes(self.take(8)?.try_into().map_err(|_| "double")?)),
            Schema::Bytes | Schema::BigDecimal => {
                let n = self.len()?;
                Datum::Bytes(self.take(n)?)
            }
            Schema::String | Schema::Uuid => {
                let n = self.len()?;
                Datum::Str(String::from_utf8_lossy(self.take(n)?))
            }
            Schema::Fixed(f) => Datum::Bytes(self.take(f.size)?),
            Schema::Duration => Datum::Bytes(self.take(12)?),
            Schema::Decimal(d) => self.value(&d.inner, depth + 1)?,
            Schema::Enum(e) => {
                let i = self.long()?;
                let sym = usize::try_from(i).ok().and_then(|i| e.symbols.get(i)).ok_or_else(|| format!("enum index {i} out of range"))?;
                Datum::Enum(sym)
            }
            Schema::Union(u) => {
                let v = self.branch(u)?;
                self.value(v, depth + 1)?
            }
            Schema::Array(a) => {
                let mut items = Vec::new();
                loop {
                    let n = self.block_count()?;
                    if n == 0 {
                        break;
                    }
                    items.reserve(n);
                    for _ in 0..n {
                        items.push(self.value(&a.items, depth + 1)?);
                    }
                }
                Datum::Array(items)
            }
            Schema::Map(m) => {
                let mut items = Vec::new();
                loop {
                    let n = self.block_count()?;
                    if n == 0 {
                        break;
                    }
                    items.reserve(n);
                    for _ in 0..n {
                        let k = self.len()?;
                        let key = String::from_utf8_lossy(self.take(k)?);
                        items.push((key, self.value(&m.types, depth + 1)?));
                    }
                }
                Datum::Map(items)
            }
            Schema::Record(r) => {
                let mut fields = Vec::with_capacity(r.fields.len());
                for f in &r.fields {
                    if skipped(&f.name) {
                        self.skip(&f.schema, depth + 1)?;
                        continue;
                    }
                    let v = if keys_only(&f.name) { self.keys(&f.schema, depth + 1) } else { self.value(&f.schema, depth + 1) };
                    fields.push((f.name.as_str(), v.map_err(|e| format!("{}: {e}", f.name))?));
                }
                Datum::Record(fields)
            }
            Schema::Ref { .. } => {
                let target = self.resolve(s)?;
                self.value(target, depth + 1)?
            }
        })
    }

    /// An array of {key, value} records (Iceberg's map encoding) read as the array of its keys.
    /// Any other shape is read whole.
    fn keys(&mut self, s: &'s Schema, depth: usize) -> R<Datum<'s, 'b>> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        match s {
            Schema::Union(u) => {
                let v = self.branch(u)?;
                self.keys(v, depth + 1)
            }
            Schema::Array(a) => {
                let Schema::Record(item) = self.resolve(&a.items)? else {
                    return self.value(s, depth);
                };
                let mut keys = Vec::new();
                loop {
                    let n = self.block_count()?;
                    if n == 0 {
                        break;
                    }
                    keys.reserve(n);
                    for _ in 0..n {
                        for f in &item.fields {
                            if f.name == "key" {
                                keys.push(self.value(&f.schema, depth + 2)?);
                            } else {
                                self.skip(&f.schema, depth + 2)?;
                            }
                        }
                    }
                }
                Ok(Datum::Array(keys))
            }
            other => self.value(other, depth),
        }
    }

    fn skip(&mut self, s: &'s Schema, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        match s {
            Schema::Bytes | Schema::BigDecimal | Schema::String | Schema::Uuid => {
                let n = self.len()?;
                self.take(n)?;
            }
            Schema::Union(u) => {
                let v = self.branch(u)?;
                self.skip(v, depth + 1)?;
            }
            Schema::Array(a) => loop {
                let n = self.block_count()?;
                if n == 0 {
                    break;
                }
                for _ in 0..n {
                    self.skip(&a.items, depth + 1)?;
                }
            },
            Schema::Map(m) => loop {
                let n = self.block_count()?;
                if n == 0 {
                    break;
                }
                for _ in 0..n {
                    let k = self.len()?;
                    self.take(k)?;
                    self.skip(&m.types, depth + 1)?;
                }
            },
            Schema::Record(r) => {
                for f in &r.fields {
                    self.skip(&f.schema, depth + 1)?;
                }
            }
            Schema::Ref { .. } => {
                let target = self.resolve(s)?;
                self.skip(target, depth + 1)?;
            }
            other => {
                self.value(other, depth)?;
            }
        }
        Ok(())
    }
}
