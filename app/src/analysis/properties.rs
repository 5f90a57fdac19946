//! Table properties as Iceberg reads them: the keys `TableProperties` defines (apache/iceberg,
//! core), what the maintenance-related ones do, and which keys a table sets that no Iceberg
//! version reads — a misspelt key is silently ignored, and the table runs on the default.

use super::merge::{MERGE_ENABLED, MIN_COUNT_TO_MERGE, TARGET_SIZE_BYTES};

/// Namespaces that are Iceberg's alone: any key there that Iceberg does not define is read by no one.
const OWN_NAMESPACES: &[&str] = &["commit.", "history.", "gc.", "write.metadata.", "write.manifest.", "read.split."];

/// Keys that take a column name after them.
const COLUMN_PREFIXES: &[&str] = &[
    "write.metadata.metrics.column.",
    "write.parquet.bloom-filter-enabled.column.",
    "write.parquet.bloom-filter-fpp.column.",
    "write.parquet.bloom-filter-ndv.column.",
    "write.parquet.dict-encoding-enabled.column.",
    "write.parquet.stats-enabled.column.",
];

/// Every key `TableProperties` defines (Iceberg 1.11), the reserved ones included.
const KNOWN: &[&str] = &[
    "commit.manifest-merge.enabled",
    "commit.manifest.min-count-to-merge",
    "commit.manifest.target-size-bytes",
    "commit.retry.max-wait-ms",
    "commit.retry.min-wait-ms",
    "commit.retry.num-retries",
    "commit.retry.total-timeout-ms",
    "commit.status-check.max-wait-ms",
    "commit.status-check.min-wait-ms",
    "commit.status-check.num-retries",
    "commit.status-check.total-timeout-ms",
    "compatibility.snapshot-id-inheritance.enabled",
    "current-schema",
    "current-snapshot-id",
    "current-snapshot-summary",
    "current-snapshot-timestamp-ms",
    "default-partition-spec",
    "default-sort-order",
    "encryption.data-key-length",
    "encryption.key-id",
    "engine.hive.enabled",
    "engine.hive.lock-enabled",
    "format-version",
    "gc.enabled",
    "history.expire.max-ref-age-ms",
    "history.expire.max-snapshot-age-ms",
    "history.expire.min-snapshots-to-keep",
    "identifier-fields.rely",
    "read.data-planning-mode",
    "read.delete-planning-mode",
    "read.orc.vectorization.batch-size",
    "read.orc.vectorization.enabled",
    "read.parquet.vectorization.batch-size",
    "read.parquet.vectorization.enabled",
    "read.split.adaptive-size.enabled",
    "read.split.metadata-target-size",
    "read.split.open-file-cost",
    "read.split.planning-lookback",
    "read.split.target-size",
    "schema.name-mapping.default",
    "snapshot-count",
    "uuid",
    "write.avro.compression-codec",
    "write.avro.compression-level",
    "write.data.path",
    "write.delete.avro.compression-codec",
    "write.delete.avro.compression-level",
    "write.delete.distribution-mode",
    "write.delete.format.default",
    "write.delete.granularity",
    "write.delete.isolation-level",
    "write.delete.mode",
    "write.delete.orc.block-size-bytes",
    "write.delete.orc.compression-codec",
    "write.delete.orc.compression-strategy",
    "write.delete.orc.stripe-size-bytes",
    "write.delete.orc.vectorized.batch-size",
    "write.delete.parquet.compression-codec",
    "write.delete.parquet.compression-level",
    "write.delete.parquet.dict-size-bytes",
    "write.delete.parquet.page-row-limit",
    "write.delete.parquet.page-size-bytes",
    "write.delete.parquet.page-version",
    "write.delete.parquet.row-group-check-max-record-count",
    "write.delete.parquet.row-group-check-min-record-count",
    "write.delete.parquet.row-group-size-bytes",
    "write.delete.target-file-size-bytes",
    "write.distribution-mode",
    "write.folder-storage.path",
    "write.format.default",
    "write.location-provider.impl",
    "write.manifest.compression-codec",
    "write.manifest.compression-level",
    "write.merge.distribution-mode",
    "write.merge.isolation-level",
    "write.merge.mode",
    "write.metadata.compression-codec",
    "write.metadata.delete-after-commit.enabled",
    "write.metadata.metrics.default",
    "write.metadata.metrics.max-inferred-column-defaults",
    "write.metadata.path",
    "write.metadata.previous-versions-max",
    "write.object-storage.enabled",
    "write.object-storage.partitioned-paths",
    "write.object-storage.path",
    "write.orc.block-size-bytes",
    "write.orc.bloom.filter.columns",
    "write.orc.bloom.filter.fpp",
    "write.orc.compression-codec",
    "write.orc.compression-strategy",
    "write.orc.stripe-size-bytes",
    "write.orc.vectorized.batch-size",
    "write.parquet.bloom-filter-adaptive-enabled",
    "write.parquet.bloom-filter-max-bytes",
    "write.parquet.compression-codec",
    "write.parquet.compression-level",
    "write.parquet.dict-size-bytes",
    "write.parquet.page-row-limit",
    "write.parquet.page-size-bytes",
    "write.parquet.page-version",
    "write.parquet.row-group-check-max-record-count",
    "write.parquet.row-group-check-min-record-count",
    "write.parquet.row-group-size-bytes",
    "write.parquet.row-group-size-track-uncompressed",
    "write.parquet.shred-variants",
    "write.parquet.variant-inference-buffer-size",
    "write.spark.accept-any-schema",
    "write.spark.advisory-partition-size-bytes",
    "write.spark.auto-schema-evolution.enabled",
    "write.spark.fanout.enabled",
    "write.summary.partition-limit",
    "write.target-file-size-bytes",
    "write.update.distribution-mode",
    "write.update.isolation-level",
    "write.update.mode",
    "write.upsert.enabled",
    "write.wap.enabled",
];

/// A key longer than this is compared with no known key (edit distance is quadratic in length).
const MAX_COMPARED: usize = 120;

/// What the maintenance-related properties do (Iceberg's documented behaviour and defaults).
pub fn meaning(key: &str) -> Option<&'static str> {
    Some(match key {
        MERGE_ENABLED => "merging commits (merge append, row delta, rewrites) combine small manifests (default true); off, every commit adds a manifest",
        MIN_COUNT_TO_MERGE => "manifests the newest bin holds before a merging commit merges it (default 100)",
        TARGET_SIZE_BYTES => "manifests are packed into bins of this size; a full bin merges at the next commit (default 8 MB)",
        "commit.retry.num-retries" => "retries of a commit that lost a race with another writer (default 4)",
        "history.expire.max-snapshot-age-ms" => "expire_snapshots removes snapshots older than this by default (default 5 days)",
        "history.expire.min-snapshots-to-keep" => "expire_snapshots always keeps this many snapshots (default 1)",
        "history.expire.max-ref-age-ms" => "branches and tags older than this are removed by expire_snapshots (default forever)",
        "write.metadata.delete-after-commit.enabled" => "old metadata.json files are deleted after each commit (default false: they pile up)",
        "write.metadata.previous-versions-max" => "metadata.json files kept in the metadata log when deleting after commit (default 100)",
        "write.target-file-size-bytes" => "target data file size (default 512 MB); streaming commits write far smaller files",
        "write.distribution-mode" => "how rows are shuffled to writers before writing: none, hash (by partition) or range",
        "write.upsert.enabled" => "Flink upserts: each row deletes its key (equality delete) and inserts it again",
        "write.delete.mode" | "write.update.mode" | "write.merge.mode" => "copy-on-write rewrites data files; merge-on-read writes delete files",
        "write.parquet.compression-codec" => "Parquet codec of new data files (default zstd)",
        "format-version" => "the Iceberg table format version (1, 2 or 3)",
        "write.format.default" => "file format of new data files (default parquet)",
        "read.split.target-size" => "target size of a read split (default 128 MB)",
        _ => return None,
    })
}

/// A key the table sets that no Iceberg version reads, with the key it most likely meant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unread {
    pub key: String,
    pub meant: Option<&'static str>,
}

/// Whether Iceberg reads `key`; None when it does or when the key is outside Iceberg's namespaces
/// and resembles none of its keys (engines and people keep their own properties on tables).
pub fn unread(key: &str) -> Option<Unread> {
    if KNOWN.contains(&key) || COLUMN_PREFIXES.iter().any(|p| key.len() > p.len() && key.starts_with(p)) {
        return None;
    }
    let closest = closest_known(key);
    let own = OWN_NAMESPACES.iter().any(|ns| key.starts_with(ns));
    match closest {
        Some((k, d)) if d <= 8 && (own || d <= 3) => Some(Unread { key: key.to_string(), meant: Some(k) }),
        _ if own => Some(Unread { key: key.to_string(), meant: None }),
        _ => None,
    }
}

fn closest_known(key: &str) -> Option<(&'static str, usize)> {
    if key.len() > MAX_COMPARED {
        return None;
    }
    KNOWN.iter().map(|&k| (k, distance(key.as_bytes(), k.as_bytes()))).min_by_key(|&(_, d)| d)
}

/// Levenshtein distance over bytes (keys are ASCII; anything else is far from every key anyway).
fn distance(a: &[u8], b: &[u8]) -> usize {
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for (i, &ca) in a.iter().enumerate() {
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            row[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(row[j] + 1);
        }
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_misnamed_merge_key_is_unread_and_points_at_iceberg_s() {
        let u = unread("commit.manifest-merge.min-count-to-merge").unwrap();
        assert_eq!(u.meant, Some(MIN_COUNT_TO_MERGE));
        assert_eq!(unread(MIN_COUNT_TO_MERGE), None);
        assert_eq!(unread("write.metadata.metrics.column.id"), None);
        assert_eq!(unread("history.expire.max-snapshot-age").unwrap().meant, Some("history.expire.max-snapshot-age-ms"));
        assert_eq!(unread("commit.whatever.else-entirely-different-long-name").unwrap().meant, None);
        // Engines' and people's own keys are theirs.
        assert_eq!(unread("flink.max-committed-checkpoint-id"), None);
        assert_eq!(unread("owner"), None);
        assert_eq!(unread("write.watermark-field"), None);
        assert_eq!(unread("write.upsert.enable").unwrap().meant, Some("write.upsert.enabled"));
        assert_eq!(unread(&"commit.".repeat(1000)).unwrap().meant, None);
    }
}
