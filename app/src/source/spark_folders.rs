//! Where a folder Spark exported keeps each metadata table: a layout fact, known where files are
//! listed and sorted (a dropped folder's Parquet files are the table's metadata there).

/// The folders `icescope spark-export` has Spark write, one per metadata table, in its order.
pub const FOLDERS: [&str; 8] = ["snapshots", "history", "refs", "metadata_log_entries", "manifests", "all_manifests_by_snapshot", "entries", "partitions"];
