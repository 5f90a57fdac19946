//! Reading inside data files, through any `Fetch`, with ranged reads only: Parquet footers (tail,
//! then footer), the key columns' chunks, position delete files, deletion vectors (one blob out
//! of a Puffin file) and equality delete files. What is counted is the sink's business
//! (`model::live_rows::RowSink`, implemented in analysis): this file only reads and applies deletes.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use futures::stream::{self, StreamExt};

use crate::decode::key_types::canonical_key;
use crate::decode::parquet_columns::{chunk_ranges, encode_key, leaf_indices, read_columns, SparseFile};
use crate::decode::parquet_footer::{decode_footer, footer_span, Footer, TAIL_BYTES};
use crate::decode::puffin::{self, PuffinFooter};
use crate::decode::{DataContent, FileFormat, Type};
use crate::model::footers::{FileFooter, PuffinFileFooter};
use crate::model::live_rows::{DeleteIndex, RowSink};
use crate::model::{LiveFile, TableHistory};
use crate::source::range::ByteRange;
use crate::source::Fetch;

/// Iceberg's reserved field ids of a position delete file's columns.
const FILE_PATH_ID: i32 = 2147483546;
const POS_ID: i32 = 2147483545;

pub use crate::model::live_rows::ScanResult;
pub use crate::source::range::Fetched;

/// Reads one Parquet footer: the 8-byte tail (which also gives the object's size where the source
/// says it; else the manifest's size is trusted), then exactly the footer. Errors name the file.
pub async fn read_footer<F: Fetch>(files: &F, path: &str, manifest_size: Option<u64>, fetched: &mut Fetched) -> Result<(Footer, Option<u64>), String> {
    let tail = files.fetch_range(path, ByteRange::Tail { len: TAIL_BYTES }).await.map_err(|e| e.to_string())?;
    fetched.add(&tail);
    let object_size = tail.object_size;
    let size = object_size.or(manifest_size).ok_or_else(|| format!("{path}: the store did not say the object's size and the manifest gives none"))?;
    let (offset, len) = footer_span(path, &tail.bytes, size).map_err(|e| e.to_string())?;
    let body = files.fetch_range(path, ByteRange::At { offset, len }).await.map_err(|e| e.to_string())?;
    fetched.add(&body);
    if body.bytes.len() as u64 != len {
        return Err(format!("{path}: field `footer_length`: {len} bytes declared, {} read (the file ends first)", body.bytes.len()));
    }
    decode_footer(path, &body.bytes).map(|f| (f, object_size)).map_err(|e| e.to_string())
}

/// Reads one Puffin footer: the 12-byte tail, then the opening magic and the payload.
pub async fn read_puffin_footer<F: Fetch>(
    files: &F,
    path: &str,
    manifest_size: Option<u64>,
    fetched: &mut Fetched,
) -> Result<(PuffinFooter, Option<u64>), String> {
    let tail = files.fetch_range(path, ByteRange::Tail { len: puffin::TAIL_BYTES }).await.map_err(|e| e.to_string())?;
    fetched.add(&tail);
    let object_size = tail.object_size;
    let size = object_size.or(manifest_size).ok_or_else(|| format!("{path}: the store did not say the object's size and the manifest gives none"))?;
    let span = puffin::footer_span(path, &tail.bytes, size).map_err(|e| e.to_string())?;
    let body = files.fetch_range(path, ByteRange::At { offset: span.offset, len: span.len }).await.map_err(|e| e.to_string())?;
    fetched.add(&body);
    puffin::decode_footer(path, span, &body.bytes).map(|f| (f, object_size)).map_err(|e| e.to_string())
}

/// The footers of the Puffin files a snapshot's live deletion vectors point into, each file once
/// however many vectors it holds, six reads in flight.
pub async fn read_puffin_footers<F: Fetch>(
    files: &F,
    history: &TableHistory,
    index: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancel: &dyn Fn() -> bool,
) -> (Vec<PuffinFileFooter>, Fetched) {
    let mut seen = std::collections::HashSet::new();
    let puffins: Vec<(&str, Option<u64>)> = history
        .live_files(index)
        .into_iter()
        .filter(|f| f.file.is_deletion_vector() && seen.insert(&*f.file.file_path))
        .map(|f| (&*f.file.file_path, u64::try_from(f.file.file_size_in_bytes).ok()))
        .collect();
    let total = puffins.len();
    let mut fetched = Fetched::default();
    let reads = stream::iter(puffins)
        .map(|(path, manifest_size)| async move {
            let mut one = Fetched::default();
            let footer = read_puffin_footer(files, path, manifest_size, &mut one).await;
            let object_size = footer.as_ref().ok().and_then(|(_, s)| *s);
            let bytes_in_file = object_size.or(manifest_size).unwrap_or(0);
            (PuffinFileFooter { file_path: path.to_string(), object_size, fetched: one.bytes_fetched, footer: footer.map(|(f, _)| f) }, one, bytes_in_file)
        })
        .buffered(super::PARALLEL);
    futures::pin_mut!(reads);
    let mut out = Vec::with_capacity(total);
    while let Some((f, one, bytes_in_file)) = reads.next().await {
        fetched.files += 1;
        fetched.merge(&one);
        fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(bytes_in_file);
        out.push(f);
        progress(out.len(), total);
        if cancel() {
            break;
        }
    }
    (out, fetched)
}

/// The footers of a snapshot's live Parquet files (data, position and equality deletes), six
/// reads in flight. Deletion vectors live in Puffin files: `read_puffin_footers`.
pub async fn read_footers<F: Fetch>(
    files: &F,
    history: &TableHistory,
    index: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancel: &dyn Fn() -> bool,
) -> (Vec<FileFooter>, Fetched) {
    let live: Vec<LiveFile<'_>> = history.live_files(index).into_iter().filter(|f| f.file.file_format == FileFormat::Parquet).collect();
    let total = live.len();
    let mut fetched = Fetched::default();
    let reads = stream::iter(live)
        .map(|f| async move {
            let mut one = Fetched::default();
            let manifest_size = u64::try_from(f.file.file_size_in_bytes).ok();
            let footer = read_footer(files, &f.file.file_path, manifest_size, &mut one).await;
            let object_size = footer.as_ref().ok().and_then(|(_, s)| *s);
            let out = FileFooter {
                file_path: f.file.file_path.to_string(),
                content: f.file.content,
                added_snapshot_id: f.added_snapshot_id,
                manifest_record_count: f.file.record_count,
                manifest_file_size: f.file.file_size_in_bytes,
                object_size,
                fetched: one.bytes_fetched,
                footer: footer.map(|(f, _)| f),
            };
            (out, one)
        })
        .buffered(super::PARALLEL);
    futures::pin_mut!(reads);
    let mut out = Vec::with_capacity(total);
    while let Some((f, one)) = reads.next().await {
        fetched.files += 1;
        fetched.merge(&one);
        fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(f.object_size.unwrap_or(f.manifest_file_size.max(0) as u64));
        out.push(f);
        progress(out.len(), total);
        if cancel() {
            break;
        }
    }
    (out, fetched)
}

/// Where a key scan is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanProgress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_fetched: u64,
}

/// Reads the given columns of one Parquet file (footer, then only their chunks).
async fn columns_of<F: Fetch>(
    files: &F,
    f: &LiveFile<'_>,
    wanted: &[(i32, &str)],
    fetched: &mut Fetched,
) -> Result<(Vec<Vec<ArrayRef>>, Vec<Option<usize>>), String> {
    let path = &*f.file.file_path;
    let (footer, object_size) = read_footer(files, path, u64::try_from(f.file.file_size_in_bytes).ok(), fetched).await?;
    let size = object_size.or(u64::try_from(f.file.file_size_in_bytes).ok()).unwrap_or(0);
    fetched.files += 1;
    fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(size);
    // What the columns may inflate to is bounded by the rows the file holds (parquet_pages), and
    // those by the manifest: a footer claiming more rows than its entry's record_count is refused
    // before a page is decoded, not after gigabytes of values were.
    if footer.rows != f.file.record_count {
        return Err(format!(
            "{path}: field `num_rows`: the footer says {} rows, its manifest entry's record_count says {}: not read",
            footer.rows, f.file.record_count
        ));
    }
    let found = leaf_indices(&footer.metadata, wanted);
    let leaves: Vec<usize> = found.iter().flatten().copied().collect();
    if leaves.is_empty() {
        return Ok((Vec::new(), found));
    }
    let mut ranges = Vec::new();
    for (offset, len) in chunk_ranges(path, &footer.metadata, &leaves, size).map_err(|e| e.to_string())? {
        let r = files.fetch_range(path, ByteRange::At { offset, len }).await.map_err(|e| e.to_string())?;
        fetched.add(&r);
        ranges.push((offset, r.bytes));
    }
    let batches = read_columns(path, Arc::clone(&footer.metadata), SparseFile::new(size, ranges), &leaves).map_err(|e| e.to_string())?;
    Ok((batches, found))
}

/// Each batch's columns (`wanted` order) in the one form their Iceberg type compares in
/// (`decode::key_types`): a key written as an `int` before its promotion to `long` equals the same
/// key written after it. A column of a field the schema no longer has is left as stored.
fn canonical(path: &str, batches: &mut [Vec<ArrayRef>], wanted: &[(i32, String)], types: &[Option<Type>]) -> Result<(), String> {
    for b in batches.iter_mut() {
        for ((c, (_, name)), t) in b.iter_mut().zip(wanted).zip(types) {
            if let Some(t) = t {
                *c = canonical_key(path, name, t, c).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// Scans the key columns of snapshot `index`'s live data files into `sink`, applying its position
/// deletes, deletion vectors and equality deletes. `keys` are (field id, column name).
pub async fn scan_keys<F: Fetch, S: RowSink>(
    files: &F,
    history: &TableHistory,
    index: usize,
    keys: &[(i32, String)],
    sink: &mut S,
    progress: &mut dyn FnMut(ScanProgress),
    cancel: &dyn Fn() -> bool,
) -> Result<ScanResult, String> {
    let live = history.live_files(index);
    if live.is_empty() && history.snapshots.get(index).is_some_and(|s| s.summary.unpack().data_files.unwrap_or(0) > 0) {
        return Err("the snapshot's manifests are not read: open it in detail first".into());
    }
    let data: Vec<LiveFile<'_>> = live.iter().filter(|f| f.file.content == DataContent::Data).copied().collect();
    let deletes: Vec<LiveFile<'_>> = live.iter().filter(|f| f.file.content != DataContent::Data).copied().collect();
    let mut result = ScanResult::default();
    let mut deleted = DeleteIndex::new(&data);
    let total = live.len();
    let mut done = 0usize;
    let schema = history.metadata.current_schema();
    let name_of = |id: i32| schema.and_then(|s| s.field_by_id(id)).map(|f| f.name.clone()).unwrap_or_default();
    let type_of = |id: i32| schema.and_then(|s| s.field_by_id(id)).map(|f| f.field_type.clone());

    for d in &deletes {
        if cancel() {
            result.cancelled = true;
            return Ok(result);
        }
        let path = &*d.file.file_path;
        if d.file.is_deletion_vector() {
            let v3 = d.file.v3.as_deref();
            let (Some(offset), Some(len), Some(target)) =
                (v3.and_then(|v| v.content_offset), v3.and_then(|v| v.content_size_in_bytes), v3.and_then(|v| v.referenced_data_file.as_deref()))
            else {
                return Err(format!("{path}: a deletion vector entry without content_offset, content_size_in_bytes or referenced_data_file"));
            };
            let (offset, len) = (
                u64::try_from(offset).map_err(|_| format!("{path}: field `content_offset`: {offset} is negative"))?,
                u64::try_from(len).map_err(|_| format!("{path}: field `content_size_in_bytes`: {len} is negative"))?,
            );
            let r = files.fetch_range(path, ByteRange::At { offset, len }).await.map_err(|e| e.to_string())?;
            result.fetched.add(&r);
            result.fetched.files += 1;
            if r.bytes.len() as u64 != len {
                return Err(format!("{path}: field `content_size_in_bytes`: {len} bytes at offset {offset}, but the file ends after {}", r.bytes.len()));
            }
            let vector = crate::decode::deletion_vector::deletion_vector(path, &r.bytes).map_err(|e| e.to_string())?;
            if vector.len() != d.file.record_count.max(0) as u64 {
                return Err(format!(
                    "{path}: the vector at offset {offset} holds {} positions, its manifest entry's record_count says {}",
                    vector.len(),
                    d.file.record_count
                ));
            }
            deleted.add_vector(d, target, vector);
        } else if d.file.content == DataContent::PositionDeletes {
            let (mut batches, found) = columns_of(files, d, &[(FILE_PATH_ID, "file_path"), (POS_ID, "pos")], &mut result.fetched).await?;
            if found.iter().any(Option::is_none) {
                return Err(format!("{path}: a position delete file without its `file_path` and `pos` columns"));
            }
            let spec = [(FILE_PATH_ID, "file_path".to_string()), (POS_ID, "pos".to_string())];
            canonical(path, &mut batches, &spec, &[Some(Type::Primitive("string".into())), Some(Type::Primitive("long".into()))])?;
            let mut rows = Vec::new();
            for b in &batches {
                let (paths, pos) = (&b[0], &b[1]);
                let pos = pos.as_primitive_opt::<arrow_array::types::Int64Type>().ok_or_else(|| format!("{path}: field `pos`: not a 64-bit integer column"))?;
                for i in 0..pos.len() {
                    let p = match paths.data_type() {
                        arrow_schema::DataType::Utf8 => paths.as_string::<i32>().value(i).to_string(),
                        arrow_schema::DataType::LargeUtf8 => paths.as_string::<i64>().value(i).to_string(),
                        arrow_schema::DataType::Utf8View => paths.as_string_view().value(i).to_string(),
                        t => return Err(format!("{path}: field `file_path`: type {t}, not a string")),
                    };
                    let at = u64::try_from(pos.value(i)).map_err(|_| format!("{path}: field `pos`: {} is negative", pos.value(i)))?;
                    rows.push((p, at));
                }
            }
            deleted.add_positions(d, rows);
        } else if d.file.content == DataContent::EqualityDeletes {
            let wanted: Vec<(i32, String)> = d.file.equality_ids.iter().map(|&id| (id, name_of(id))).collect();
            let wanted_ref: Vec<(i32, &str)> = wanted.iter().map(|(i, n)| (*i, n.as_str())).collect();
            let (mut batches, found) = columns_of(files, d, &wanted_ref, &mut result.fetched).await?;
            if found.iter().any(Option::is_none) {
                return Err(format!("{path}: an equality delete file without the columns of its equality_ids {:?}", d.file.equality_ids));
            }
            let types: Vec<Option<Type>> = d.file.equality_ids.iter().map(|&id| type_of(id)).collect();
            canonical(path, &mut batches, &wanted, &types)?;
            let mut keys = Vec::new();
            for b in &batches {
                for row in 0..b.first().map_or(0, |c| c.len()) {
                    let mut k = Vec::new();
                    encode_key(b, row, &mut k).map_err(|e| format!("{path}: {e}"))?;
                    keys.push(k);
                }
            }
            deleted.add_equality(d, keys);
        }
        done += 1;
        progress(ScanProgress { files_done: done, files_total: total, bytes_fetched: result.fetched.bytes_fetched });
    }

    for f in &data {
        if cancel() {
            result.cancelled = true;
            break;
        }
        let path = &*f.file.file_path;
        // The key columns, then those of every equality delete that can apply here.
        let eq_sets = deleted.equality_fields_for(f);
        let mut wanted: Vec<(i32, String)> = keys.to_vec();
        for set in &eq_sets {
            for &id in set {
                if !wanted.iter().any(|(w, _)| *w == id) {
                    wanted.push((id, name_of(id)));
                }
            }
        }
        let wanted_ref: Vec<(i32, &str)> = wanted.iter().map(|(i, n)| (*i, n.as_str())).collect();
        let wanted_types: Vec<Option<Type>> = wanted.iter().map(|(id, _)| type_of(*id)).collect();
        let (mut batches, found) = columns_of(files, f, &wanted_ref, &mut result.fetched).await?;
        if let Some(missing) = found.iter().zip(&wanted).find(|(f, _)| f.is_none()) {
            return Err(format!(
                "{path}: the file carries no column for field id {} (`{}`): it was written before the column existed",
                missing.1 .0, missing.1 .1
            ));
        }
        canonical(path, &mut batches, &wanted, &wanted_types)?;
        let positions = deleted.deleted_positions(path).cloned();
        let mut row_in_file: u64 = 0;
        let mut eq_key = Vec::new();
        for b in &batches {
            let n = b.first().map_or(0, |c| c.len());
            let mut live = vec![true; n];
            let set_cols: Vec<Vec<ArrayRef>> =
                eq_sets.iter().map(|set| set.iter().filter_map(|id| wanted.iter().position(|(w, _)| w == id)).map(|i| b[i].clone()).collect()).collect();
            for (row, alive) in live.iter_mut().enumerate() {
                let pos = row_in_file + row as u64;
                if positions.as_ref().is_some_and(|p| p.contains(pos)) {
                    *alive = false;
                    continue;
                }
                for (set, cols) in eq_sets.iter().zip(&set_cols) {
                    eq_key.clear();
                    encode_key(cols, row, &mut eq_key).map_err(|e| format!("{path}: {e}"))?;
                    if deleted.equality_deleted(f, set, &eq_key) {
                        *alive = false;
                        break;
                    }
                }
            }
            result.rows_in_files += n as u64;
            result.rows_deleted += live.iter().filter(|l| !**l).count() as u64;
            row_in_file += n as u64;
            sink.batch(f, &b[..keys.len()], &live).map_err(|e| format!("{path}: {e}"))?;
        }
        if row_in_file != f.file.record_count.max(0) as u64 {
            return Err(format!("{path}: the file holds {row_in_file} rows, its manifest entry's record_count says {}", f.file.record_count));
        }
        done += 1;
        progress(ScanProgress { files_done: done, files_total: total, bytes_fetched: result.fetched.bytes_fetched });
    }
    result.hits = deleted.all_hits();
    Ok(result)
}
