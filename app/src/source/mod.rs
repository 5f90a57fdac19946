//! source: where bytes come from — local folders, dropped files, bundled examples, HTTP(S) URLs,
//! S3-compatible stores and Iceberg REST catalogs. Owns path resolution, request building, signing
//! and authentication; imports no other layer.

#[cfg(target_arch = "wasm32")]
pub mod browser;
pub mod fetch;
pub mod files;
pub mod follow;
pub mod http;
pub mod listing;
#[cfg(not(target_arch = "wasm32"))]
pub mod local;
pub mod metadata_pick;
pub mod object_read;
#[cfg(unix)]
pub mod opened_folder;
pub mod range;
pub mod relay;
pub mod remote;
pub mod resolve;
pub mod rest_catalog;
pub mod s3;
pub mod s3_list;
pub mod savepoint_paths;
pub mod secrets;
pub mod spark_folders;
#[cfg(not(target_arch = "wasm32"))]
pub mod transport;

pub use fetch::{Census, Fetch, InFlight};
pub use files::{FileSet, MemoryFiles, SourceError};
pub use metadata_pick::newest_metadata;
pub use resolve::PathIndex;
