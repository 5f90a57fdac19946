//! Flink checkpoint and savepoint `_metadata` files, and the Iceberg committer's state inside
//! them: what a job resumed from that savepoint would restore.

pub mod committer;
pub mod handles;
mod input;
pub mod list_state;
pub mod metadata;
pub mod properties;
pub mod state_file;

pub use handles::{DistributionMode, NamedState, OperatorStateHandle, StreamHandle};
pub use metadata::{decode_checkpoint_metadata, CheckpointMetadata, MasterState, OperatorState, SubtaskState, MAX_METADATA_BYTES};
