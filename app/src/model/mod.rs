//! model: the table's history — snapshots in commit order with their Flink keys, the totals their
//! summaries state, and the live manifests and files of those read. Built from decoded values;
//! every chart and finding reads it. Imports decode, and of source one type (`range::Fetched`, what
//! a ranged read brought); never analysis, report or view.

mod delivery;
pub mod digest;
pub mod flink;
pub mod footers;
pub mod history;
mod list_counts;
pub(crate) mod list_index;
pub mod live_rows;
pub mod reading;
pub mod spark;
pub mod time;
pub mod totals;
pub mod writer;

pub use delivery::ManifestAsk;
pub use digest::{LiveCounts, ManifestCounts};
pub use flink::FlinkCommit;
pub use history::{Fault, Gap, GapKind, LengthMismatch, LiveFile, MetadataSize, SnapshotState, TableHistory, Want};
pub use reading::{FilesWait, Need, ReadMode, ReadReason};
pub use totals::{CountSource, Disagreement, PackedTotals, ScanFiles, Totals};
pub use writer::Writer;
