//! Avro records decoded against their writer's schema, with every declared length and count held
//! against the bytes that remain (an array of 400 M items needs 400 M bytes) and recursion bounded.
//! Fields no view reads (column bounds, split offsets, key metadata) are skipped, not built:
//! they are most of a manifest's bytes and most of its decoding time.

use std::collections::HashMap;

use apache_avro::schema::{Name, Schema};
use apache_avro::types::Value;

/// Nesting deeper than this is not an Iceberg file.
const MAX_DEPTH: usize = 48;

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

pub(crate) struct Reader<'a> {
    pub buf: &'a [u8],
    names: &'a Names,
}

type R<T> = Result<T, String>;

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], names: &'a Names) -> Self {
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

    fn take(&mut self, n: usize) -> R<&'a [u8]> {
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

    pub(crate) fn value(&mut self, s: &Schema, depth: usize) -> R<Value> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        Ok(match s {
            Schema::Null => Value::Null,
            Schema::Boolean => Value::Boolean(self.take(1)?[0] != 0),
            Schema::Int | Schema::Date | Schema::TimeMillis => {
                let v = self.long()?;
                Value::Int(i32::try_from(v).map_err(|_| format!("int {v} out of range"))?)
            }
            Schema::Long
            | Schema::TimeMicros
            | Schema::TimestampMillis
            | Schema::TimestampMicros
            | Schema::TimestampNanos
            | Schema::LocalTimestampMillis
            | Schema::LocalTimestampMicros
            | Schema::LocalTimestampNanos => Value::Long(self.long()?),
            Schema::Float => Value::Float(f32::from_le_bytes(self.take(4)?.try_into().map_err(|_| "float")?)),
            Schema::Double => Value::Double(f64::from_le_bytes(self.take(8)?.try_into().map_err(|_| "double")?)),
            Schema::Bytes | Schema::BigDecimal => {
                let n = self.len()?;
                Value::Bytes(self.take(n)?.to_vec())
            }
            Schema::String | Schema::Uuid => {
                let n = self.len()?;
                let b = self.take(n)?;
                Value::String(String::from_utf8_lossy(b).into_owned())
            }
            Schema::Fixed(f) => Value::Fixed(f.size, self.take(f.size)?.to_vec()),
            Schema::Duration => Value::Fixed(12, self.take(12)?.to_vec()),
            Schema::Decimal(d) => self.value(&d.inner, depth + 1)?,
            Schema::Enum(e) => {
                let i = self.long()?;
                let sym = usize::try_from(i).ok().and_then(|i| e.symbols.get(i)).ok_or_else(|| format!("enum index {i} out of range"))?;
                Value::Enum(i as u32, sym.clone())
            }
            Schema::Union(u) => {
                let i = self.long()?;
                let v = usize::try_from(i).ok().and_then(|i| u.variants().get(i)).ok_or_else(|| format!("union branch {i} out of range"))?;
                Value::Union(i as u32, Box::new(self.value(v, depth + 1)?))
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
                Value::Array(items)
            }
            Schema::Map(m) => {
                let mut items = HashMap::new();
                loop {
                    let n = self.block_count()?;
                    if n == 0 {
                        break;
                    }
                    for _ in 0..n {
                        let k = self.len()?;
                        let key = String::from_utf8_lossy(self.take(k)?).into_owned();
                        items.insert(key, self.value(&m.types, depth + 1)?);
                    }
                }
                Value::Map(items)
            }
            Schema::Record(r) => {
                let mut fields = Vec::with_capacity(r.fields.len());
                for f in &r.fields {
                    if skipped(&f.name) {
                        self.skip(&f.schema, depth + 1)?;
                        continue;
                    }
                    let v = self.value(&f.schema, depth + 1).map_err(|e| format!("{}: {e}", f.name))?;
                    fields.push((f.name.clone(), v));
                }
                Value::Record(fields)
            }
            Schema::Ref { name } => {
                let names = self.names;
                let target = names.0.get(name).ok_or_else(|| format!("unknown type {}", name.name))?;
                self.value(target, depth + 1)?
            }
        })
    }

    fn skip(&mut self, s: &Schema, depth: usize) -> R<()> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        match s {
            Schema::Bytes | Schema::BigDecimal | Schema::String | Schema::Uuid => {
                let n = self.len()?;
                self.take(n)?;
            }
            Schema::Union(u) => {
                let i = self.long()?;
                let v = usize::try_from(i).ok().and_then(|i| u.variants().get(i)).ok_or_else(|| format!("union branch {i} out of range"))?;
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
            Schema::Ref { name } => {
                let names = self.names;
                let target = names.0.get(name).ok_or_else(|| format!("unknown type {}", name.name))?;
                self.skip(target, depth + 1)?;
            }
            other => {
                self.value(other, depth)?;
            }
        }
        Ok(())
    }
}
