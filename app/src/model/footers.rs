//! Parquet and Puffin footers read for a snapshot's live files, as the loader hands them over: what
//! each file physically holds, beside what its manifest entries claim.

use serde::Serialize;

use crate::decode::parquet_footer::Footer;
use crate::decode::puffin::PuffinFooter;
use crate::decode::DataContent;

#[derive(Debug, Clone, Serialize)]
pub struct FileFooter {
    /// The path as the manifest names it.
    pub file_path: String,
    pub content: DataContent,
    /// The adding snapshot (as Avro stores the id).
    pub added_snapshot_id: Option<i64>,
    pub manifest_record_count: i64,
    pub manifest_file_size: i64,
    /// The object's size as the store reports it (None where it does not say).
    pub object_size: Option<u64>,
    /// Bytes fetched to read the footer (tail and footer; the whole file when a server ignored `Range`).
    pub fetched: u64,
    pub footer: Result<Footer, String>,
}

/// The footer of one Puffin file that live deletion vectors point into.
#[derive(Debug, Clone, Serialize)]
pub struct PuffinFileFooter {
    /// The path as the manifests name it.
    pub file_path: String,
    /// The object's size as the store reports it (None where it does not say).
    pub object_size: Option<u64>,
    pub fetched: u64,
    pub footer: Result<PuffinFooter, String>,
}

impl super::TableHistory {
    /// Records the columns each footer shows its file carries, for the written-columns findings.
    pub fn record_footers(&mut self, footers: &[FileFooter]) {
        for f in footers {
            if let (DataContent::Data, Some(adder), Ok(footer)) = (f.content, f.added_snapshot_id, &f.footer) {
                self.record_footer_columns(adder, footer.field_ids());
            }
        }
    }
}
