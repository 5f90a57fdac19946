//! model: the table's history — snapshots in commit order with their Flink keys and the live
//! manifests and files of each. Built once per table; every chart and finding reads it.
//! May import source and decode; never analysis or view.

pub mod flink;
pub mod history;
pub mod load;
pub mod time;

pub use flink::FlinkCommit;
pub use history::{Gap, LiveCounts, LiveFile, ListState, ManifestState, MetadataSize, SnapshotState, TableHistory};
pub use load::{load_table, LoadError, Need};
