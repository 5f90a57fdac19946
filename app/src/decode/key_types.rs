//! Key columns as their Iceberg type, whatever width or unit a file stored them in. Keys are
//! compared as bytes (`parquet_columns::encode_key`), so a column must reach that encoding in
//! one form per Iceberg type: a `long` key from a file written while it was still an `int`
//! (spec, "Schema Evolution": int → long, float → double, decimal(P,S) → decimal(P',S), and in v3
//! date → timestamp / timestamp_ns) must encode as the 8 bytes the newer files hold, or the same
//! key written before and after the promotion counts twice and an equality delete written after
//! it matches nothing written before. Likewise Spark's INT96 timestamps, which the `parquet` crate
//! reads as nanoseconds where no arrow schema says otherwise, and a dictionary-encoded string that
//! pyarrow's schema hint asks to be read as a dictionary. A column whose stored type cannot hold
//! its Iceberg type (strings where the schema says long) is refused, never counted.
//!
//! One call per batch and column: already in its form, a column is handed back as it is (an `Arc`
//! clone); otherwise it is converted once for the batch, never value by value.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type, Time32MillisecondType,
    Time32SecondType, Time64MicrosecondType, Time64NanosecondType, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef, ArrowPrimitiveType, PrimitiveArray};
use arrow_schema::{DataType, TimeUnit};

use super::schema::Type;
use super::DecodeError;

const MICROS_PER_DAY: i64 = 86_400_000_000;
const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// The key column `array` of `file` in the one form its Iceberg type `iceberg` encodes from.
/// `column` names it in errors (the file's column, with its field id where known).
pub fn canonical_key(file: &str, column: &str, iceberg: &Type, array: &ArrayRef) -> Result<ArrayRef, DecodeError> {
    // Named only in errors: the common case (a column already in its form) allocates nothing.
    let refuse = |stored: &DataType| {
        let want = iceberg.describe();
        DecodeError::new(
            file,
            column,
            format!("the file stores this key column as {stored} where the table's schema says {want}: not a key icescope can compare with the other files' (not counted)"),
        )
    };
    let overflow = |what: &str| DecodeError::new(file, column, format!("a {what} value out of range for {}", iceberg.describe()));
    // pyarrow writes a dictionary-typed column's arrow type into the file, and the crate then
    // reads it back as a dictionary: its values are the column.
    let array = if let DataType::Dictionary(_, _) = array.data_type() {
        let dict = array.as_any_dictionary();
        // A dictionary of one long value referenced by every row is small in the file and in the
        // array, and as large as rows × that value once unpacked: sized before `take` allocates.
        let unpacked = unpacked_bytes(dict.values(), &dict.normalized_keys());
        if unpacked > MAX_UNPACKED_BYTES {
            return Err(DecodeError::new(
                file,
                column,
                format!("a dictionary-encoded batch of {} keys unpacks to {unpacked} bytes (icescope unpacks at most {MAX_UNPACKED_BYTES})", dict.keys().len()),
            ));
        }
        arrow_select::take::take(dict.values().as_ref(), dict.keys(), Some(arrow_select::take::TakeOptions { check_bounds: true }))
            .map_err(|e| DecodeError::new(file, column, format!("dictionary keys past its values: {e}")))?
    } else {
        Arc::clone(array)
    };
    let t = array.data_type().clone();
    let Type::Primitive(p) = iceberg else { return Err(DecodeError::new(file, column, format!("a {} column cannot be a key", iceberg.describe()))) };
    let p = p.as_str();
    let same = || Ok(Arc::clone(&array));
    use DataType as D;
    match (p, &t) {
        ("boolean", D::Boolean) => same(),
        ("int", D::Int32) | ("long", D::Int64) | ("float", D::Float32) | ("double", D::Float64) | ("date", D::Date32) => same(),
        ("int", D::Int8) => widen::<Int8Type, Int32Type>(&array, |v| Some(v.into())),
        ("int", D::Int16) => widen::<Int16Type, Int32Type>(&array, |v| Some(v.into())),
        ("int", D::UInt8) => widen::<UInt8Type, Int32Type>(&array, |v| Some(v.into())),
        ("int", D::UInt16) => widen::<UInt16Type, Int32Type>(&array, |v| Some(v.into())),
        // int → long: the promotion Iceberg allows in every format version.
        ("long", D::Int32) => widen::<Int32Type, Int64Type>(&array, |v| Some(v.into())),
        ("long", D::Int16) => widen::<Int16Type, Int64Type>(&array, |v| Some(v.into())),
        ("long", D::Int8) => widen::<Int8Type, Int64Type>(&array, |v| Some(v.into())),
        ("long", D::UInt8) => widen::<UInt8Type, Int64Type>(&array, |v| Some(v.into())),
        ("long", D::UInt16) => widen::<UInt16Type, Int64Type>(&array, |v| Some(v.into())),
        ("long", D::UInt32) => widen::<UInt32Type, Int64Type>(&array, |v| Some(v.into())),
        // float → double: every float is exactly a double.
        ("double", D::Float32) => widen::<Float32Type, Float64Type>(&array, |v| Some(f64::from(v))),
        ("time", D::Time64(TimeUnit::Microsecond)) => same(),
        ("time", D::Time64(TimeUnit::Nanosecond)) => widen::<Time64NanosecondType, Time64MicrosecondType>(&array, |v| Some(v.div_euclid(1000))),
        ("time", D::Time32(TimeUnit::Millisecond)) => widen::<Time32MillisecondType, Time64MicrosecondType>(&array, |v| i64::from(v).checked_mul(1000)),
        ("time", D::Time32(TimeUnit::Second)) => widen::<Time32SecondType, Time64MicrosecondType>(&array, |v| i64::from(v).checked_mul(1_000_000)),
        ("timestamp" | "timestamptz", D::Timestamp(unit, _)) => match unit {
            TimeUnit::Microsecond => same(),
            // INT96 without an arrow schema (Spark, Impala) reads as nanoseconds; Iceberg reads it
            // as a timestamp at its own precision, microseconds.
            TimeUnit::Nanosecond => widen::<TimestampNanosecondType, TimestampMicrosecondType>(&array, |v| Some(v.div_euclid(1000))),
            TimeUnit::Millisecond => widen::<TimestampMillisecondType, TimestampMicrosecondType>(&array, |v| v.checked_mul(1000)),
            TimeUnit::Second => widen::<TimestampSecondType, TimestampMicrosecondType>(&array, |v| v.checked_mul(1_000_000)),
        },
        // A timestamp column without a logical type: Iceberg's own unit.
        ("timestamp" | "timestamptz" | "timestamp_ns" | "timestamptz_ns", D::Int64) => same(),
        // date → timestamp (v3): midnight of that day.
        ("timestamp", D::Date32) => widen::<Date32Type, TimestampMicrosecondType>(&array, |d| i64::from(d).checked_mul(MICROS_PER_DAY)),
        ("timestamp_ns", D::Date32) => widen::<Date32Type, TimestampNanosecondType>(&array, |d| i64::from(d).checked_mul(NANOS_PER_DAY)),
        ("timestamp_ns" | "timestamptz_ns", D::Timestamp(TimeUnit::Nanosecond, _)) => same(),
        ("string" | "binary", D::Utf8 | D::LargeUtf8 | D::Utf8View | D::Binary | D::LargeBinary | D::BinaryView) => same(),
        ("uuid", D::FixedSizeBinary(16)) => same(),
        (fixed, D::FixedSizeBinary(n))
            if fixed.strip_prefix("fixed[").and_then(|r| r.strip_suffix(']')).and_then(|l| l.trim().parse::<i32>().ok()) == Some(*n) =>
        {
            same()
        }
        (decimal, D::Decimal32(_, s) | D::Decimal64(_, s) | D::Decimal128(_, s))
            if decimal_scale(decimal).is_some_and(|(precision, scale)| scale == i32::from(*s) && stored_precision(&t) <= precision) =>
        {
            // decimal(P,S) → decimal(P',S): the same unscaled integer, 16 bytes whatever P.
            match &t {
                D::Decimal32(..) => widen::<Decimal32Type, Decimal128Type>(&array, |v| Some(v.into())),
                D::Decimal64(..) => widen::<Decimal64Type, Decimal128Type>(&array, |v| Some(v.into())),
                _ => same(),
            }
        }
        _ => Err(refuse(&t)),
    }
    // `widen` reports a value it cannot convert without words: named here, with the stored type.
    .map_err(|e: DecodeError| if e.message.is_empty() { overflow(&t.to_string()) } else { e })
}

/// Bytes of keys one dictionary-encoded batch (8,192 rows) may unpack to: 32 KiB a key, the
/// decoder's page budget.
const MAX_UNPACKED_BYTES: u64 = 256 << 20;

/// The bytes `keys` unpack to from `values`: their lengths for variable-length values, the
/// values' width otherwise. A key past the values counts nothing here (`take` refuses it).
fn unpacked_bytes(values: &ArrayRef, keys: &[usize]) -> u64 {
    let len = |f: &dyn Fn(usize) -> usize| keys.iter().map(|&k| if k < values.len() { f(k) as u64 } else { 0 }).fold(0u64, u64::saturating_add);
    match values.data_type() {
        DataType::Utf8 => len(&|k| values.as_string::<i32>().value_length(k) as usize),
        DataType::LargeUtf8 => len(&|k| values.as_string::<i64>().value_length(k) as usize),
        DataType::Binary => len(&|k| values.as_binary::<i32>().value_length(k) as usize),
        DataType::LargeBinary => len(&|k| values.as_binary::<i64>().value_length(k) as usize),
        DataType::Utf8View => len(&|k| values.as_string_view().value(k).len()),
        DataType::BinaryView => len(&|k| values.as_binary_view().value(k).len()),
        t => (keys.len() as u64).saturating_mul(t.primitive_width().unwrap_or(16) as u64),
    }
}

/// (precision, scale) of `decimal(P, S)`.
fn decimal_scale(p: &str) -> Option<(i32, i32)> {
    let (a, b) = p.strip_prefix("decimal(")?.strip_suffix(')')?.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

fn stored_precision(t: &DataType) -> i32 {
    match t {
        DataType::Decimal32(p, _) | DataType::Decimal64(p, _) | DataType::Decimal128(p, _) => i32::from(*p),
        _ => i32::MAX,
    }
}

/// Each value converted by `f`, nulls kept; a value `f` cannot convert (overflow) is an error
/// with an empty message, which the caller names.
fn widen<I: ArrowPrimitiveType, O: ArrowPrimitiveType>(array: &ArrayRef, f: impl Fn(I::Native) -> Option<O::Native>) -> Result<ArrayRef, DecodeError> {
    let a = array.as_primitive::<I>();
    let out: PrimitiveArray<O> =
        a.try_unary(|v| f(v).ok_or_else(|| arrow_schema::ArrowError::ComputeError(String::new()))).map_err(|_| DecodeError::new("", "", ""))?;
    Ok(Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::{DictionaryArray, Int32Array, Int64Array, StringArray, TimestampNanosecondArray};

    fn key(t: &str, a: ArrayRef) -> Result<ArrayRef, String> {
        canonical_key("f.parquet", "id", &Type::Primitive(t.into()), &a).map_err(|e| e.to_string())
    }

    #[test]
    fn promoted_and_differently_stored_keys_reach_one_form() {
        let long = key("long", Arc::new(Int32Array::from(vec![Some(7), None, Some(-1)]))).unwrap();
        assert_eq!(long.as_primitive::<Int64Type>(), &Int64Array::from(vec![Some(7), None, Some(-1)]));
        let ts = key("timestamptz", Arc::new(TimestampNanosecondArray::from(vec![1_500i64, -1]))).unwrap();
        assert_eq!(ts.as_primitive::<TimestampMicrosecondType>().values(), &[1, -1]);
        let dict: DictionaryArray<Int32Type> = vec!["a", "b", "a"].into_iter().collect();
        let s = key("string", Arc::new(dict)).unwrap();
        assert_eq!(s.as_string::<i32>(), &StringArray::from(vec!["a", "b", "a"]));
        let d = key("timestamp", Arc::new(arrow_array::Date32Array::from(vec![1]))).unwrap();
        assert_eq!(d.as_primitive::<TimestampMicrosecondType>().values(), &[MICROS_PER_DAY]);
    }

    #[test]
    fn a_dictionary_unpacking_past_its_budget_is_refused_before_it_is_unpacked() {
        // One value of 1 MiB, named by 300 rows: 300 MiB once unpacked.
        let long = "x".repeat(1 << 20);
        let dict: DictionaryArray<Int32Type> = std::iter::repeat_n(long.as_str(), 300).collect();
        let e = key("string", Arc::new(dict)).unwrap_err();
        assert_eq!(e, "f.parquet: field `id`: a dictionary-encoded batch of 300 keys unpacks to 314572800 bytes (icescope unpacks at most 268435456)");
    }

    #[test]
    fn a_key_stored_as_another_kind_of_value_is_refused_with_the_file_and_column() {
        let e = key("long", Arc::new(StringArray::from(vec!["1"]))).unwrap_err();
        assert_eq!(e, "f.parquet: field `id`: the file stores this key column as Utf8 where the table's schema says long: not a key icescope can compare with the other files' (not counted)");
        assert!(key("int", Arc::new(Int64Array::from(vec![1]))).is_err(), "long → int is not a promotion");
        let e = key("timestamp", Arc::new(arrow_array::TimestampSecondArray::from(vec![i64::MAX]))).unwrap_err();
        assert!(e.contains("out of range for timestamp"), "{e}");
    }
}
