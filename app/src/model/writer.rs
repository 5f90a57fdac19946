//! Who wrote a snapshot, as its summary shows it. Every Flink sink (FlinkSink, IcebergSink, the
//! dynamic sink) writes the same `flink.*` keys, so they are one kind here; Flink's in-job table
//! maintenance commits with `engine-name=flink` and no `flink.*` keys; Spark names itself.

use serde::Serialize;

use crate::decode::Summary;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Writer {
    /// A Flink sink's checkpoint commit.
    FlinkSink,
    /// Flink's in-job table maintenance (rewrite, expire): never a concurrent writer.
    FlinkMaintenance,
    /// Flink, but neither of the above (a Flink SQL batch, say).
    Flink,
    Spark,
    Trino,
    /// An engine that names itself otherwise (`engine-name`).
    Other,
    /// No key says (PyIceberg, the Java API and engines before Iceberg 1.10 write none).
    Unknown,
}

impl Writer {
    /// The writer, and the keys that say so.
    pub fn of(summary: &Summary, operation: &str) -> (Writer, &'static str) {
        let engine = summary.get("engine-name").map(|e| e.trim().to_ascii_lowercase());
        if summary.get(super::flink::JOB_ID).is_some() {
            return (Writer::FlinkSink, "flink.job-id in the summary");
        }
        match engine.as_deref() {
            Some("flink") if matches!(operation, "replace" | "delete" | "overwrite") => {
                (Writer::FlinkMaintenance, "engine-name flink without flink.* keys, a rewrite or expiry commit")
            }
            Some("flink") => (Writer::Flink, "engine-name flink without flink.* keys"),
            Some("spark") => (Writer::Spark, "engine-name spark"),
            Some("trino") => (Writer::Trino, "engine-name trino"),
            Some(_) => (Writer::Other, "engine-name"),
            None if summary.get("spark.app.id").is_some() => (Writer::Spark, "spark.app.id in the summary"),
            None if summary.get("trino_query_id").is_some() => (Writer::Trino, "trino_query_id in the summary"),
            None => (Writer::Unknown, "no engine key in the summary"),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Writer::FlinkSink => "Flink sink",
            Writer::FlinkMaintenance => "Flink maintenance",
            Writer::Flink => "Flink",
            Writer::Spark => "Spark",
            Writer::Trino => "Trino",
            Writer::Other => "other engine",
            Writer::Unknown => "unknown",
        }
    }
}
