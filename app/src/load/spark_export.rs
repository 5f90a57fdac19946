//! Opening a folder `icescope spark-export` had Spark write: the metadata tables as Parquet, one
//! folder per table, and (when the user copied it in) the table's current metadata.json. Spark has
//! read the manifests; icescope reads its tables instead, and the same charts and findings follow.

use std::collections::BTreeMap;

use crate::decode::spark_tables::{self, ListCounts, LogRow, SnapshotRow, FOLDERS};
use crate::decode::{DecodeError, Operation, Snapshot, TableMetadata};
use crate::model::{Gap, GapKind, TableHistory};
use crate::source::{Fetch, PathIndex};

use super::{LoadError, Loader, ReadStats};

/// Where an export's files are: its root (`""` or `dir/`), the Parquet parts of each table it
/// holds, and a metadata.json beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportLayout {
    pub root: String,
    pub tables: BTreeMap<&'static str, Vec<String>>,
    pub metadata: Vec<String>,
}

/// The export in a listed source: the shallowest folder holding `snapshots/*.parquet`.
pub fn detect(index: &PathIndex) -> Option<ExportLayout> {
    let split = |p: &str| -> Option<(String, &'static str)> {
        if !p.ends_with(".parquet") {
            return None;
        }
        let (dir, _) = p.rsplit_once('/')?;
        let (root, name) = match dir.rsplit_once('/') {
            Some((r, n)) => (format!("{r}/"), n),
            None => (String::new(), dir),
        };
        FOLDERS.iter().find(|f| **f == name).map(|f| (root, *f))
    };
    // A table folder that also holds an export opens as the table; an export holding its
    // metadata.json copied in opens as the export.
    if let Some((dir, _)) = crate::source::metadata_pick::candidates(index) {
        let beside = index.paths().filter_map(split).any(|(r, _)| r.trim_end_matches('/') == dir);
        if !beside {
            return None;
        }
    }
    let root = index.paths().filter_map(split).filter(|(_, t)| *t == "snapshots").map(|(r, _)| r).min_by_key(|r| (r.matches('/').count(), r.clone()))?;
    let mut tables: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for p in index.paths() {
        if let Some((r, t)) = split(p) {
            if r == root {
                tables.entry(t).or_default().push(p.to_string());
            }
        }
    }
    for parts in tables.values_mut() {
        parts.sort();
    }
    let metadata = index
        .paths()
        .filter(|p| p.strip_prefix(root.as_str()).is_some_and(|rest| !rest.contains('/') && crate::source::metadata_pick::is_metadata_file(rest)))
        .map(str::to_string)
        .collect();
    Some(ExportLayout { root, tables, metadata })
}

/// Every part of one exported table, decoded and concatenated; None when the export lacks it. A
/// part with the same bytes as one already read (a copy: `part-… (1).parquet`, a second download)
/// is read once, and `gaps` says so: each row twice would double every count.
async fn read_table<F: Fetch, T>(
    files: &F,
    layout: &ExportLayout,
    name: &str,
    stats: &mut ReadStats,
    gaps: &mut Vec<Gap>,
    decode: fn(&str, &[u8]) -> Result<Vec<T>, DecodeError>,
) -> Option<Result<Vec<T>, LoadError>> {
    let parts = layout.tables.get(name)?;
    let mut out = Vec::new();
    let mut seen: Vec<(u64, usize, &String)> = Vec::new();
    for p in parts {
        let bytes = match files.fetch(p).await {
            Ok(b) => b,
            Err(e) => return Some(Err(e.into())),
        };
        let hash = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            h.finish()
        };
        if let Some((_, _, first)) = seen.iter().find(|(h, len, _)| *h == hash && *len == bytes.len()) {
            gaps.push(Gap {
                file: p.clone(),
                kind: GapKind::Inconsistent,
                message: format!("the same bytes as {first}: a copy of one part of `{name}`, read once"),
                snapshot_ids: Vec::new(),
            });
            continue;
        }
        seen.push((hash, bytes.len(), p));
        stats.files += 1;
        stats.bytes = stats.bytes.saturating_add(bytes.len() as u64);
        if let Some(paths) = &mut stats.paths {
            paths.push(p.clone());
        }
        match decode(p, &bytes) {
            Ok(rows) => out.extend(rows),
            Err(e) => return Some(Err(e.into())),
        }
    }
    Some(Ok(out))
}

/// The metadata of a table known only from Spark's tables: snapshots with their summaries, the
/// location the metadata log's paths sit under, the refs. Schemas and partition specs are not in
/// Spark's tables: findings that need them say so. The rows become the snapshots as they are (no
/// JSON between): a million snapshots written out and parsed again took gigabytes.
fn synthesized(
    snapshots: Vec<SnapshotRow>,
    log: &[LogRow],
    refs: &[spark_tables::RefRow],
    current: Option<i64>,
    source: &str,
) -> Result<TableMetadata, LoadError> {
    let latest = log.iter().max_by_key(|l| l.timestamp_ms);
    let location = latest.and_then(|l| l.file.rsplit_once("/metadata/").map(|(loc, _)| loc.to_string())).unwrap_or_default();
    // Sequence numbers are not in Spark's tables: commit order, ending at the log's latest.
    let mut order: Vec<usize> = (0..snapshots.len()).collect();
    order.sort_by_key(|&i| (snapshots[i].committed_at_ms, i));
    let n = snapshots.len() as i64;
    let last_seq = latest.and_then(|l| l.latest_sequence_number).unwrap_or(n).max(n);
    let mut seq = vec![0i64; snapshots.len()];
    for (k, &i) in order.iter().enumerate() {
        seq[i] = last_seq - (n - 1 - k as i64);
    }
    drop(order);
    let refs: serde_json::Map<String, serde_json::Value> =
        refs.iter().map(|r| (r.name.clone(), serde_json::json!({"snapshot-id": r.snapshot_id, "type": r.kind.to_lowercase()}))).collect();
    let current = current.or_else(|| refs.get("main").and_then(|m| m["snapshot-id"].as_i64()));
    let json = serde_json::json!({
        "format-version": 2,
        "table-uuid": "00000000-0000-0000-0000-000000000000",
        "location": location,
        "last-sequence-number": latest.and_then(|l| l.latest_sequence_number).unwrap_or(0),
        "last-updated-ms": latest.map(|l| l.timestamp_ms).unwrap_or(0),
        "last-column-id": 0,
        "current-schema-id": 0,
        "schemas": [{"type": "struct", "schema-id": 0, "fields": []}],
        "default-spec-id": 0,
        "partition-specs": [{"spec-id": 0, "fields": []}],
        "last-partition-id": 999,
        "current-snapshot-id": current,
        "refs": refs,
        "snapshots": [],
        "metadata-log": log.iter().map(|l| serde_json::json!({"timestamp-ms": l.timestamp_ms, "metadata-file": l.file})).collect::<Vec<_>>(),
    });
    let bytes = serde_json::to_vec(&json).map_err(|e| LoadError::NoMetadata(format!("{source}: {e}")))?;
    let mut m = TableMetadata::from_bytes(source, &bytes)?;
    m.snapshots.reserve_exact(snapshots.len());
    for (i, (s, seq)) in snapshots.into_iter().zip(seq).enumerate() {
        let manifest_list =
            s.manifest_list.ok_or_else(|| DecodeError::new(source, &format!("snapshots[{i}].manifest_list"), "null: a snapshot of format v2 has one"))?;
        m.snapshots.push(Snapshot {
            snapshot_id: s.snapshot_id.into(),
            parent_snapshot_id: s.parent_id.filter(|p| *p != -1).map(Into::into),
            sequence_number: seq,
            timestamp_ms: s.committed_at_ms,
            manifest_list: Some(manifest_list),
            manifests: Vec::new(),
            operation: Operation::parse(s.operation.as_deref().unwrap_or("append")),
            summary: s.summary,
            schema_id: None,
            first_row_id: None,
            added_rows: None,
        });
    }
    Ok(m)
}

impl Loader {
    /// Opens an export folder: the metadata (the copied metadata.json, else Spark's snapshots), then
    /// the counts Spark summed and the current snapshot's entries. A table that cannot be read
    /// becomes a gap; the history from metadata stands.
    pub async fn open_spark_export<F: Fetch>(files: &F, layout: &ExportLayout, record_paths: bool) -> Result<Loader, LoadError> {
        let mut stats = ReadStats { paths: record_paths.then(Vec::new), ..ReadStats::default() };
        let mut extra: Vec<Gap> = Vec::new();
        let log = read_table(files, layout, "metadata_log_entries", &mut stats, &mut extra, spark_tables::metadata_log).await.transpose()?.unwrap_or_default();
        let newest = log.iter().max_by_key(|l| l.timestamp_ms).map(|l| l.file.rsplit('/').next().unwrap_or_default().to_string());
        // The copied metadata.json: the one Spark's log names newest, else the only one.
        let copied = layout.metadata.iter().find(|p| newest.as_deref().is_some_and(|n| p.rsplit('/').next() == Some(n))).or(if layout.metadata.len() == 1 {
            layout.metadata.first()
        } else {
            None
        });
        let mut snapshots = read_table(files, layout, "snapshots", &mut stats, &mut extra, spark_tables::snapshots).await.transpose()?.unwrap_or_default();
        // Sorted ids, for the check below: the rows themselves become the history's snapshots.
        let mut ids: Vec<i64> = snapshots.iter().map(|s| s.snapshot_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut history = match copied {
            Some(path) => {
                let bytes = files.fetch(path).await?;
                stats.files += 1;
                stats.bytes = stats.bytes.saturating_add(bytes.len() as u64);
                if let Some(p) = &mut stats.paths {
                    p.push(path.clone());
                }
                let mut h = TableHistory::new(path, TableMetadata::from_bytes(path, &bytes)?);
                h.record_metadata_sizes(bytes.len() as u64, |_| None);
                h
            }
            None => {
                let refs = read_table(files, layout, "refs", &mut stats, &mut extra, spark_tables::refs).await.transpose()?.unwrap_or_default();
                let current = log.iter().max_by_key(|l| l.timestamp_ms).and_then(|l| l.latest_snapshot_id);
                let source = format!("{}snapshots", layout.root);
                let mut h = TableHistory::new(&source, synthesized(std::mem::take(&mut snapshots), &log, &refs, current, &source)?);
                extra.push(Gap {
                    file: format!("{}<metadata.json>", layout.root),
                    kind: GapKind::Missing,
                    message: "no metadata.json beside Spark's tables: schemas, partition specs, properties and snapshot sequence numbers are unknown (commit order stands in for them); copy the file the export's last statement printed into the folder".into(),
                    snapshot_ids: Vec::new(),
                });
                h.record_metadata_sizes(0, |_| None);
                h
            }
        };
        // Spark read a version of the table; the copied metadata.json must be that version.
        let mut known: Vec<i64> =
            if copied.is_some() { history.snapshots.iter().map(|s| s.snapshot.snapshot_id.0 as u64 as i64).collect() } else { Vec::new() };
        known.sort_unstable();
        known.dedup();
        if copied.is_some() && !ids.is_empty() && ids != known {
            extra.push(Gap {
                file: copied.cloned().unwrap_or_default(),
                kind: GapKind::Inconsistent,
                message: format!(
                    "Spark's snapshots table has {} snapshots, this metadata.json {} ({} in only one of them): not the version Spark read",
                    ids.len(),
                    known.len(),
                    ids.iter().collect::<std::collections::BTreeSet<_>>().symmetric_difference(&known.iter().collect()).count()
                ),
                snapshot_ids: Vec::new(),
            });
        }
        let counts = read_table(files, layout, "all_manifests_by_snapshot", &mut stats, &mut extra, spark_tables::manifest_counts).await;
        let list = read_table(files, layout, "manifests", &mut stats, &mut extra, spark_tables::manifests).await;
        let entries = read_table(files, layout, "entries", &mut stats, &mut extra, spark_tables::entries).await;
        let counts = once_per_snapshot(settle(counts, "all_manifests_by_snapshot", layout, &mut extra).unwrap_or_default(), layout, &mut extra);
        // Without both, the current snapshot keeps its summary's numbers.
        let current = match (settle(list, "manifests", layout, &mut extra), settle(entries, "entries", layout, &mut extra)) {
            (Some(l), Some(e)) => Some((l, e)),
            _ => None,
        };
        history.accept_spark(&counts, current, &format!("{}all_manifests_by_snapshot", layout.root), extra);
        Ok(Loader { history, stats, anchor: None })
    }
}

/// Spark's `GROUP BY reference_snapshot_id, content` gives each pair one row. Two rows for a pair
/// are two exports' parts in one folder (different bytes, so not caught as a copy): summed, they
/// would double that snapshot's counts. Such snapshots keep their summaries' numbers instead.
fn once_per_snapshot(mut counts: Vec<ListCounts>, layout: &ExportLayout, gaps: &mut Vec<Gap>) -> Vec<ListCounts> {
    let key = |c: &ListCounts| (c.snapshot_id, format!("{:?}", c.content));
    let mut keys: Vec<_> = counts.iter().map(key).collect();
    keys.sort_unstable();
    let mut twice: Vec<i64> = keys.windows(2).filter(|w| w[0] == w[1]).map(|w| w[0].0).collect();
    twice.dedup();
    if twice.is_empty() {
        return counts;
    }
    gaps.push(Gap {
        file: format!("{}all_manifests_by_snapshot/", layout.root),
        kind: GapKind::Inconsistent,
        message: format!(
            "{} of {} snapshots have more than one row for a manifest content (first: {}): two exports' parts in one folder? Their counts are not taken from it (the summaries stand); export into an empty folder",
            twice.len(),
            {
                let mut ids: Vec<i64> = keys.iter().map(|k| k.0).collect();
                ids.dedup();
                ids.len()
            },
            twice[0]
        ),
        snapshot_ids: Vec::new(),
    });
    counts.retain(|c| twice.binary_search(&c.snapshot_id).is_err());
    counts
}

/// A table's rows, or the gap that says why there are none.
fn settle<T>(r: Option<Result<Vec<T>, LoadError>>, name: &str, layout: &ExportLayout, gaps: &mut Vec<Gap>) -> Option<Vec<T>> {
    match r {
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            gaps.push(Gap { file: format!("{}{name}/", layout.root), kind: GapKind::Decode, message: e.to_string(), snapshot_ids: Vec::new() });
            None
        }
        None => {
            gaps.push(Gap {
                file: format!("{}{name}/", layout.root),
                kind: GapKind::Missing,
                message: format!("the export has no `{name}` table"),
                snapshot_ids: Vec::new(),
            });
            None
        }
    }
}
