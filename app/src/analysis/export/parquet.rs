//! Parquet through arrow: one record batch per table, written by the `parquet` crate's
//! ArrowWriter with Snappy pages (pure Rust, so the same code runs in the browser's wasm).
//! Types: integers Int64 (Utf8 text where a value passes i64, see `Values::Int`), timestamps
//! Timestamp(ms, "UTC"), text Utf8, flags Boolean, id lists List<Int64> / List<Utf8>.

use std::sync::Arc;

use arrow_array::builder::{Int64Builder, ListBuilder, StringBuilder};
use arrow_array::{ArrayRef, BooleanArray, Float64Array, Int64Array, RecordBatch, StringArray, TimestampMillisecondArray};
use arrow_schema::{Field, Schema};
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use super::table::{Table, Values};

/// The Parquet file of a table.
pub fn parquet(table: &Table) -> Result<Vec<u8>, String> {
    let arrays: Vec<ArrayRef> = table.columns.iter().map(|c| array(&c.values)).collect();
    let fields: Vec<Field> = table.columns.iter().zip(&arrays).map(|(c, a)| Field::new(c.name, a.data_type().clone(), true)).collect();
    let schema = Arc::new(Schema::new(fields));
    let batch = RecordBatch::try_new(schema.clone(), arrays).map_err(|e| format!("{}: {e}", table.name))?;
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut out = Vec::new();
    let mut writer = ArrowWriter::try_new(&mut out, schema, Some(props)).map_err(|e| format!("{}.parquet: {e}", table.name))?;
    writer.write(&batch).map_err(|e| format!("{}.parquet: {e}", table.name))?;
    writer.close().map_err(|e| format!("{}.parquet: {e}", table.name))?;
    Ok(out)
}

fn array(values: &Values) -> ArrayRef {
    let wide = !values.fits_i64();
    match values {
        Values::Int(v) if wide => Arc::new(StringArray::from(v.iter().map(|x| x.map(|x| x.to_string())).collect::<Vec<_>>())),
        Values::Int(v) => Arc::new(Int64Array::from(v.iter().map(|x| x.and_then(|x| i64::try_from(x).ok())).collect::<Vec<_>>())),
        Values::Float(v) => Arc::new(Float64Array::from(v.clone())),
        Values::Bool(v) => Arc::new(BooleanArray::from(v.clone())),
        Values::TimestampMs(v) => Arc::new(TimestampMillisecondArray::from(v.clone()).with_timezone("UTC")),
        Values::Text(v) => Arc::new(StringArray::from(v.clone())),
        Values::IntList(v) if wide => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for ids in v {
                for id in ids {
                    b.values().append_value(id.to_string());
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
        Values::IntList(v) => {
            let mut b = ListBuilder::new(Int64Builder::new());
            for ids in v {
                for id in ids {
                    b.values().append_option(i64::try_from(*id).ok());
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
        Values::TextList(v) => {
            let mut b = ListBuilder::new(StringBuilder::new());
            for items in v {
                for s in items {
                    b.values().append_value(s);
                }
                b.append(true);
            }
            Arc::new(b.finish())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::Array;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    fn read_back(t: &Table) -> RecordBatch {
        let path = std::env::temp_dir().join(format!("icescope-export-{}-{}.parquet", t.name, std::process::id()));
        std::fs::write(&path, parquet(t).unwrap()).unwrap();
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&path).unwrap()).unwrap().build().unwrap();
        let batch = reader.next().unwrap().unwrap();
        let _ = std::fs::remove_file(&path);
        batch
    }

    #[test]
    fn integers_are_int64_until_one_does_not_fit_then_exact_text() {
        let t = Table::new("ints", 2)
            .col("fits", Values::Int(vec![Some(i128::from(i64::MIN)), None]))
            .col("wide", Values::Int(vec![Some(i128::from(u64::MAX)), Some(1)]));
        let b = read_back(&t);
        let fits = b.column(0).as_any().downcast_ref::<Int64Array>().unwrap();
        assert_eq!((fits.value(0), fits.is_null(1)), (i64::MIN, true));
        let wide = b.column(1).as_any().downcast_ref::<StringArray>().unwrap();
        assert_eq!((wide.value(0), wide.value(1)), ("18446744073709551615", "1"), "never clipped or wrapped");
    }

    #[test]
    fn timestamps_are_milliseconds_in_utc() {
        let b = read_back(&Table::new("ts", 1).col("at", Values::TimestampMs(vec![Some(1_796_003_971_282)])));
        assert_eq!(b.schema().field(0).data_type(), &arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into())));
        assert_eq!(b.column(0).as_any().downcast_ref::<TimestampMillisecondArray>().unwrap().value(0), 1_796_003_971_282);
    }
}
