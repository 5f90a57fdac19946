//! A snapshot's counts from its manifest list: summed from the digests of the manifests it names,
//! or from the list's own rows; and where the two contradict each other.

use std::collections::HashMap;

use crate::decode::ManifestFile;

use super::digest::LiveCounts;
use super::history::ManifestSlot;
use super::totals::{CountSource, Totals};

/// Why a list's manifests give no count.
pub(crate) enum NoCount {
    /// A manifest is unread or unavailable (its own gap says why).
    Missing,
    /// The counts are there but cannot be summed: the list itself is the problem.
    Invalid(String),
}

/// Sums digests into a snapshot's counts.
pub(crate) fn count_list(list: &[ManifestFile], manifests: &HashMap<String, ManifestSlot>) -> Result<LiveCounts, NoCount> {
    let mut c = LiveCounts { manifests: list.len() as u64, ..LiveCounts::default() };
    // Bounded by the entries of the manifests read; empty unless the table has deletion vectors.
    let mut vector_files: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for m in list {
        let len = u64::try_from(m.manifest_length)
            .map_err(|_| NoCount::Invalid(format!("manifest {}: manifest_length {} is negative", m.manifest_path, m.manifest_length)))?;
        c.manifest_bytes = c.manifest_bytes.checked_add(len).ok_or_else(|| NoCount::Invalid("the manifests' lengths sum past 2^64".into()))?;
        let Some(ManifestSlot::Loaded { digest, .. }) = manifests.get(&m.manifest_path) else { return Err(NoCount::Missing) };
        digest.counts.add_to(&mut c).ok_or_else(|| NoCount::Invalid(format!("its manifests' counts sum past 2^64 (at manifest {})", m.manifest_path)))?;
        vector_files.extend(digest.vector_files.iter().map(|p| &**p));
    }
    c.deletion_vector_files = vector_files.len() as u64;
    Ok(c)
}

/// Where a list row's own counts contradict the entries of the manifest it names.
pub(crate) fn row_disagreements(list: &[ManifestFile], manifests: &HashMap<String, ManifestSlot>) -> Vec<String> {
    let mut out = Vec::new();
    for m in list {
        let Some(ManifestSlot::Loaded { digest, .. }) = manifests.get(&m.manifest_path) else { continue };
        let c = &digest.counts;
        if let (Some(a), Some(e)) = (m.added_files_count, m.existing_files_count) {
            let stated = i128::from(a) + i128::from(e);
            if stated != i128::from(c.files()) {
                out.push(format!(
                    "manifest {}: the list says added_files_count {a} + existing_files_count {e} = {stated} live files, its entries hold {}",
                    m.manifest_path,
                    c.files()
                ));
            }
        }
        if m.content == crate::decode::ManifestContent::Data {
            if let (Some(a), Some(e)) = (m.added_rows_count, m.existing_rows_count) {
                let stated = i128::from(a) + i128::from(e);
                if stated != i128::from(c.records) {
                    out.push(format!(
                        "manifest {}: the list says added_rows_count {a} + existing_rows_count {e} = {stated} rows, its entries hold {}",
                        m.manifest_path, c.records
                    ));
                }
            }
        }
    }
    out
}

/// Totals from a manifest list's own rows: exact where the writer filled the counts (required
/// from v2 on), None where any row lacks them.
pub(crate) fn list_totals(list: &[ManifestFile]) -> Option<Totals> {
    use crate::decode::ManifestContent;
    let (mut data, mut deletes, mut records, mut bytes) = (0u64, 0u64, 0u64, 0u64);
    for m in list {
        let files = u64::try_from(m.added_files_count?).ok()?.checked_add(u64::try_from(m.existing_files_count?).ok()?)?;
        bytes = bytes.checked_add(u64::try_from(m.manifest_length).ok()?)?;
        match m.content {
            ManifestContent::Data => {
                data = data.checked_add(files)?;
                let rows = u64::try_from(m.added_rows_count?).ok()?.checked_add(u64::try_from(m.existing_rows_count?).ok()?)?;
                records = records.checked_add(rows)?;
            }
            ManifestContent::Deletes => deletes = deletes.checked_add(files)?,
            ManifestContent::Unknown(_) => return None,
        }
    }
    Some(Totals {
        manifests: Some(list.len() as u64),
        manifest_bytes: Some(bytes),
        data_files: Some(data),
        delete_files: Some(deletes),
        records: Some(records),
        source: Some(CountSource::ManifestList),
        ..Totals::default()
    })
}
