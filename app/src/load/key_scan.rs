//! Key scans: the key columns of a snapshot's live data files, read with ranged reads (footer, then
//! only their chunks), with its position deletes, deletion vectors and equality deletes applied.
//! The columns are decoded by the injected `Decoder` into encoded keys (`decode::job`); this file
//! fetches, applies deletes and hands the live rows to the sink.

use roaring::RoaringTreemap;

use crate::decode::job::{ColumnsJob, Decoded, Job, Shape};
use crate::decode::{DataContent, Type};
use crate::model::live_rows::{DeleteIndex, RowSink};
use crate::model::{LiveFile, TableHistory};
use crate::source::range::ByteRange;
use crate::source::Fetch;

use super::data_scan::{read_footer_with, Fetched};
use super::decoder::{unexpected, Decoder};

/// Iceberg's reserved field ids of a position delete file's columns.
const FILE_PATH_ID: i32 = 2147483546;
const POS_ID: i32 = 2147483545;

/// Where a key scan is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanProgress {
    pub files_done: usize,
    pub files_total: usize,
    pub bytes_fetched: u64,
}

pub use crate::model::live_rows::ScanResult;

/// An Iceberg type as a columns job carries it.
fn type_json(t: Option<Type>) -> Option<String> {
    t.and_then(|t| serde_json::to_string(&t).ok())
}

/// Reads the given columns (field id, name, Iceberg type) of one Parquet file, footer then only
/// their chunks, decoded into `shape`; None where the file carries none of them. Also which leaf
/// each column is (None: the file lacks it).
async fn columns_of<F: Fetch, D: Decoder>(
    files: &F,
    dec: &D,
    f: &LiveFile<'_>,
    wanted: &[(i32, String, Option<Type>)],
    shape: Shape,
    fetched: &mut Fetched,
) -> Result<(Option<Decoded>, Vec<Option<usize>>), String> {
    let path = &*f.file.file_path;
    let manifest_size = u64::try_from(f.file.file_size_in_bytes).ok();
    let wanted_ref: Vec<(i32, &str)> = wanted.iter().map(|(i, n, _)| (*i, n.as_str())).collect();
    let read = read_footer_with(files, dec, path, manifest_size, &wanted_ref, fetched).await?;
    fetched.files += 1;
    fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(read.size);
    // What the columns may inflate to is bounded by the rows the file holds (parquet_pages), and
    // those by the manifest: a footer claiming more rows than its entry's record_count is refused
    // before a page is decoded, not after gigabytes of values were.
    if read.footer.rows != f.file.record_count {
        return Err(format!(
            "{path}: field `num_rows`: the footer says {} rows, its manifest entry's record_count says {}: not read",
            read.footer.rows, f.file.record_count
        ));
    }
    let leaves: Vec<usize> = read.found.iter().flatten().copied().collect();
    if leaves.is_empty() {
        return Ok((None, read.found));
    }
    let mut ranges = Vec::new();
    for (offset, len) in read.chunks? {
        let r = files.fetch_range(path, ByteRange::At { offset, len }).await.map_err(|e| e.to_string())?;
        fetched.add(&r);
        ranges.push((offset, r.bytes));
    }
    let columns = wanted.iter().zip(&read.found).filter(|(_, l)| l.is_some()).map(|((_, n, t), _)| (n.clone(), type_json(t.clone()))).collect();
    let job = ColumnsJob { path: path.to_string(), footer: read.bytes, object_size: read.size, ranges, leaves, columns, shape };
    Ok((Some(dec.decode(Job::Columns(job)).await.map_err(|e| e.to_string())?), read.found))
}

/// Scans the key columns of snapshot `index`'s live data files into `sink`, applying its position
/// deletes, deletion vectors and equality deletes; `dec` decodes the pages. `keys` are (field id,
/// column name).
#[allow(clippy::too_many_arguments)]
pub async fn scan_keys<F: Fetch, D: Decoder, S: RowSink>(
    files: &F,
    dec: &D,
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
            let Decoded::Vector(bytes) = dec.decode(Job::DeletionVector { path: path.to_string(), bytes: r.bytes }).await.map_err(|e| e.to_string())? else {
                return Err(unexpected(path, "a deletion vector"));
            };
            let vector = RoaringTreemap::deserialize_from(&bytes[..]).map_err(|e| format!("{path}: the decoded vector does not read back: {e}"))?;
            if vector.len() != d.file.record_count.max(0) as u64 {
                return Err(format!(
                    "{path}: the vector at offset {offset} holds {} positions, its manifest entry's record_count says {}",
                    vector.len(),
                    d.file.record_count
                ));
            }
            deleted.add_vector(d, target, vector);
        } else if d.file.content == DataContent::PositionDeletes {
            let spec = [
                (FILE_PATH_ID, "file_path".to_string(), Some(Type::Primitive("string".into()))),
                (POS_ID, "pos".to_string(), Some(Type::Primitive("long".into()))),
            ];
            let (rows, found) = columns_of(files, dec, d, &spec, Shape::Positions, &mut result.fetched).await?;
            if found.iter().any(Option::is_none) {
                return Err(format!("{path}: a position delete file without its `file_path` and `pos` columns"));
            }
            match rows {
                Some(Decoded::Positions(rows)) => deleted.add_positions(d, rows),
                _ => return Err(unexpected(path, "positions")),
            }
        } else if d.file.content == DataContent::EqualityDeletes {
            let wanted: Vec<(i32, String, Option<Type>)> = d.file.equality_ids.iter().map(|&id| (id, name_of(id), type_of(id))).collect();
            let (keys, found) = columns_of(files, dec, d, &wanted, Shape::Keys, &mut result.fetched).await?;
            if found.iter().any(Option::is_none) {
                return Err(format!("{path}: an equality delete file without the columns of its equality_ids {:?}", d.file.equality_ids));
            }
            match keys {
                Some(Decoded::Keys(keys)) => deleted.add_equality(d, keys.iter().map(<[u8]>::to_vec)),
                None => deleted.add_equality(d, std::iter::empty()),
                _ => return Err(unexpected(path, "keys")),
            }
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
        let sets: Vec<Vec<usize>> = eq_sets.iter().map(|set| set.iter().filter_map(|id| wanted.iter().position(|(w, _)| w == id)).collect()).collect();
        let typed: Vec<(i32, String, Option<Type>)> = wanted.iter().map(|(id, n)| (*id, n.clone(), type_of(*id))).collect();
        let (rows, found) = columns_of(files, dec, f, &typed, Shape::Rows { keys: keys.len(), sets }, &mut result.fetched).await?;
        if let Some(missing) = found.iter().zip(&wanted).find(|(f, _)| f.is_none()) {
            return Err(format!(
                "{path}: the file carries no column for field id {} (`{}`): it was written before the column existed",
                missing.1 .0, missing.1 .1
            ));
        }
        let rows = match rows {
            Some(Decoded::Rows(r)) => r,
            _ => return Err(unexpected(path, "rows")),
        };
        let positions = deleted.deleted_positions(path).cloned();
        let n = rows.keys.len();
        let mut live = vec![true; n];
        for (row, alive) in live.iter_mut().enumerate() {
            if positions.as_ref().is_some_and(|p| p.contains(row as u64)) {
                *alive = false;
                continue;
            }
            for (set, keys) in eq_sets.iter().zip(&rows.sets) {
                if deleted.equality_deleted(f, set, keys.get(row)) {
                    *alive = false;
                    break;
                }
            }
        }
        result.rows_in_files += rows.rows;
        result.rows_deleted += live.iter().filter(|l| !**l).count() as u64;
        sink.batch(f, &rows.keys, &live).map_err(|e| format!("{path}: {e}"))?;
        if rows.rows != f.file.record_count.max(0) as u64 {
            return Err(format!("{path}: the file holds {} rows, its manifest entry's record_count says {}", rows.rows, f.file.record_count));
        }
        done += 1;
        progress(ScanProgress { files_done: done, files_total: total, bytes_fetched: result.fetched.bytes_fetched });
    }
    result.hits = deleted.all_hits();
    Ok(result)
}
