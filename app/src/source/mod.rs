//! source: where bytes come from — a local folder, dropped files, bundled examples (later HTTP,
//! REST catalogs, S3). Owns file lookup and path resolution; imports no other layer.

pub mod files;
pub mod metadata_pick;
pub mod resolve;
#[cfg(not(target_arch = "wasm32"))]
pub mod local;

pub use files::{FileSet, MemoryFiles, SourceError};
pub use metadata_pick::newest_metadata;
pub use resolve::PathIndex;
