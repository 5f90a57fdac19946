//! decode: spec types from bytes (table metadata JSON, Avro manifest lists and manifests, Parquet
//! footers and key columns, Puffin footers, deletion vectors).
//! Owns the wire formats and their version differences; imports nothing from model, analysis or view.

mod avro;
mod avro_container;
mod avro_datum;
mod avro_header;
pub mod deletion_vector;
mod error;
pub mod job;
pub mod key_types;
pub mod manifest;
pub mod manifest_digest;
pub mod manifest_list;
pub mod parquet_columns;
pub mod parquet_footer;
mod parquet_levels;
pub mod parquet_pages;
pub mod puffin;
mod recent;
pub mod schema;
pub mod snapshot;
pub mod spark_tables;
pub mod summary;
pub mod table_metadata;
mod thrift_check;

pub use error::DecodeError;

thread_local! {
    /// The file a third-party decoder (the `parquet` crate) is working on: if it panics in the
    /// browser, where a panic ends the app, the message can still name the file.
    static DECODING: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs the `parquet` crate's decoding of `file` in `f`: natively a panic inside it is caught (None),
/// so that one hostile file is a message naming it, never the end of the run. In wasm a panic aborts
/// (no unwinding): the file is recorded for the app's panic hook to name. Under the fuzzer the guard
/// is off so that panics are found.
pub(crate) fn decoding<T>(file: &str, f: impl FnOnce() -> T) -> Option<T> {
    DECODING.with(|d| *d.borrow_mut() = Some(file.to_string()));
    #[cfg(not(any(target_arch = "wasm32", fuzzing)))]
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    #[cfg(any(target_arch = "wasm32", fuzzing))]
    let out = Some(f());
    DECODING.with(|d| *d.borrow_mut() = None);
    out
}

thread_local! {
    /// Whether the pre-validation (`thrift_check`, `parquet_pages`, `parquet_levels`) walks the
    /// bytes before the `parquet` crate reads them. Always, but inside `without_checks`.
    static CHECKS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

pub(crate) fn checks_on() -> bool {
    CHECKS.with(|c| c.get())
}

/// Runs `f` with the pre-validation off: the bytes go to the `parquet` crate as they are. Only the
/// browser's decoder worker offers this (a test switch, `?decoders=unchecked`): there a panic ends
/// the worker, not the page, which is what the switch lets a test show with the known panics.
pub fn without_checks<T>(f: impl FnOnce() -> T) -> T {
    let before = CHECKS.with(|c| c.replace(false));
    let out = f();
    CHECKS.with(|c| c.set(before));
    out
}

/// The file being decoded when a panic struck, if a decoder had named one.
pub fn decoding_file() -> Option<String> {
    DECODING.with(|d| d.try_borrow().ok().and_then(|d| d.clone()))
}
pub use manifest::{DataContent, DataFile, FileFormat, Manifest, ManifestEntry, ManifestStatus, PartitionValue};
pub use manifest_list::{ManifestContent, ManifestFile, ManifestList};
pub use schema::{NestedField, PartitionField, PartitionSpec, Schema, SortOrder, Transform, Type};
pub use snapshot::{Operation, Snapshot, SnapshotId, SnapshotRef};
pub use summary::Summary;
pub use table_metadata::{MetadataLogEntry, SnapshotLogEntry, StatisticsFile, TableMetadata};
