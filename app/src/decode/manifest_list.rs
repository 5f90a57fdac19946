//! Manifest lists (`snap-*.avro`): one row per manifest that a snapshot's table state is made of.

use serde::{Deserialize, Serialize};

use super::avro::{read_container, Rec};
use super::DecodeError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ManifestContent {
    Data,
    Deletes,
    /// A content code this reader does not know: the list's own totals are then not computed.
    Unknown(i64),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestFile {
    pub manifest_path: String,
    pub manifest_length: i64,
    pub partition_spec_id: i32,
    pub content: ManifestContent,
    pub sequence_number: i64,
    pub min_sequence_number: i64,
    pub added_snapshot_id: Option<i64>,
    pub added_files_count: Option<i64>,
    pub existing_files_count: Option<i64>,
    pub deleted_files_count: Option<i64>,
    pub added_rows_count: Option<i64>,
    pub existing_rows_count: Option<i64>,
    pub deleted_rows_count: Option<i64>,
    pub first_row_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ManifestList {
    pub manifests: Vec<ManifestFile>,
}

impl ManifestList {
    pub fn from_bytes(file: &str, bytes: &[u8]) -> Result<ManifestList, DecodeError> {
        let avro = read_container(file, bytes, usize::MAX, |i, r| manifest_file(&Rec::new(file, "manifest", i, r)?).map(Some))?;
        Ok(ManifestList { manifests: avro.records })
    }
}

fn manifest_file(r: &Rec<'_, '_, '_>) -> Result<ManifestFile, DecodeError> {
    let content = match r.long("content")? {
        None | Some(0) => ManifestContent::Data,
        Some(1) => ManifestContent::Deletes,
        Some(other) => ManifestContent::Unknown(other),
    };
    let sequence_number = r.long("sequence_number")?.unwrap_or(0);
    Ok(ManifestFile {
        manifest_path: r.req_string("manifest_path")?,
        manifest_length: r.long("manifest_length")?.unwrap_or(0),
        partition_spec_id: r
            .long("partition_spec_id")?
            .map(|x| i32::try_from(x).map_err(|_| r.err("partition_spec_id", format!("{x} is out of range"))))
            .transpose()?
            .unwrap_or(0),
        content,
        sequence_number,
        min_sequence_number: r.long("min_sequence_number")?.unwrap_or(sequence_number),
        added_snapshot_id: r.long("added_snapshot_id")?,
        // v1 writers used the *_data_files_count names.
        added_files_count: r.long_any(&["added_files_count", "added_data_files_count"])?,
        existing_files_count: r.long_any(&["existing_files_count", "existing_data_files_count"])?,
        deleted_files_count: r.long_any(&["deleted_files_count", "deleted_data_files_count"])?,
        added_rows_count: r.long("added_rows_count")?,
        existing_rows_count: r.long("existing_rows_count")?,
        deleted_rows_count: r.long("deleted_rows_count")?,
        first_row_id: r.long("first_row_id")?,
    })
}
