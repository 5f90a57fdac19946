//! A history whose manifests Spark read: its metadata tables (`icescope spark-export`) stand in for
//! the manifest lists and manifests. Every snapshot's manifest counts come from `all_manifests`
//! summed per snapshot (as its list's rows state them); the current snapshot's files from
//! `entries`. Nothing else is read: selecting another snapshot shows its counts, not its files.

use std::collections::HashMap;
use std::sync::Arc;

use crate::decode::spark_tables::{EntryRow, ListCounts};
use crate::decode::{ManifestContent, ManifestEntry, ManifestFile};

use super::digest::DigestBuilder;
use super::history::{inline_list_path, Gap, GapKind, ListSlot, TableHistory};
use super::{CountSource, LiveCounts, LiveFile, ReadMode, ReadReason, Totals};

/// The current snapshot's files as Spark's `entries` gave them.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The snapshot whose files `entries` holds (the current one), when Spark's entries were read.
    pub index: Option<usize>,
    /// (entry, partition spec id), live and deleted: the deleted ones are not counted.
    pub entries: Vec<(ManifestEntry, i32)>,
    /// Snapshots `all_manifests` gave counts for.
    pub counted_snapshots: usize,
    /// What could not be taken from the export (a table missing or undecodable, a count for a
    /// snapshot the metadata lacks).
    pub gaps: Vec<Gap>,
}

impl TableHistory {
    /// Whether the manifests were read by Spark (an export folder) rather than here.
    pub fn exported(&self) -> Option<&Exported> {
        self.exported.as_ref()
    }

    /// Takes Spark's tables: `counts` from `all_manifests_by_snapshot`, the current snapshot's
    /// manifest list rows from `manifests` and its entries from `entries`. Returns what does not
    /// fit (a count for a snapshot the metadata does not have, a failed sum) as gaps.
    pub fn accept_spark(&mut self, counts: &[ListCounts], current: Option<(Vec<ManifestFile>, Vec<EntryRow>)>, source: &str, mut gaps: Vec<Gap>) {
        self.reading.mode = Some(ReadMode::MetadataFirst);
        // Per snapshot: (manifests, bytes, data files, delete files), checked sums.
        let mut per: HashMap<i64, Option<(u64, u64, u64, u64)>> = HashMap::new();
        for c in counts {
            let slot = per.entry(c.snapshot_id).or_insert(Some((0, 0, 0, 0)));
            let add = |acc: u64, v: i64| u64::try_from(v).ok().and_then(|v| acc.checked_add(v));
            *slot = slot.and_then(|(m, b, d, x)| {
                let files = add(0, c.added_data_files).and_then(|f| add(f, c.existing_data_files));
                let deletes = add(0, c.added_delete_files).and_then(|f| add(f, c.existing_delete_files));
                match c.content {
                    ManifestContent::Data => Some((add(m, c.manifests)?, add(b, c.manifest_bytes)?, d.checked_add(files?)?, x)),
                    ManifestContent::Deletes => Some((add(m, c.manifests)?, add(b, c.manifest_bytes)?, d, x.checked_add(deletes?)?)),
                    ManifestContent::Unknown(_) => None,
                }
            });
        }
        let mut counted = 0;
        for (id, sums) in per {
            let Some(i) = self.index_of_avro_id(id) else {
                gaps.push(Gap {
                    file: source.to_string(),
                    kind: GapKind::Inconsistent,
                    message: format!("all_manifests counts snapshot {id}, which the metadata does not have: Spark read another version of the table"),
                    snapshot_ids: Vec::new(),
                });
                continue;
            };
            let Some((manifests, bytes, data, deletes)) = sums else {
                gaps.push(Gap {
                    file: source.to_string(),
                    kind: GapKind::Inconsistent,
                    message: format!("all_manifests of snapshot {id}: a negative count, an unknown content or a sum past 2^64"),
                    snapshot_ids: vec![self.snapshots[i].snapshot.snapshot_id],
                });
                continue;
            };
            counted += 1;
            self.snapshots[i].listed = Some(Box::new(Totals {
                manifests: Some(manifests),
                manifest_bytes: Some(bytes),
                data_files: Some(data),
                delete_files: Some(deletes),
                source: Some(CountSource::ManifestList),
                ..Totals::default()
            }));
            self.snapshots[i].want = super::Want::List;
            self.reading.reasons.insert(i, ReadReason::AllSnapshots);
        }
        // Snapshots with no manifest at all have no row in all_manifests: zero of everything.
        if counted > 0 {
            for i in 0..self.snapshots.len() {
                if self.snapshots[i].listed.is_none() && self.snapshots[i].summary.unpack().data_files == Some(0) {
                    self.snapshots[i].listed = Some(Box::new(Totals {
                        manifests: Some(0),
                        manifest_bytes: Some(0),
                        data_files: Some(0),
                        delete_files: Some(0),
                        source: Some(CountSource::ManifestList),
                        ..Totals::default()
                    }));
                }
            }
        }
        let mut index = None;
        let mut kept = Vec::new();
        if let (Some(cur), Some((current_list, entries))) = (self.current_index(), current) {
            let entries: Vec<(ManifestEntry, i32)> = entries.into_iter().map(|r| (self.trim_partition(r.entry, r.spec_id), r.spec_id)).collect();
            let mut digest = DigestBuilder::new(None);
            for (e, _) in &entries {
                digest.add(e);
            }
            match digest.finish() {
                Ok((d, written)) => {
                    let mut c = LiveCounts { manifests: current_list.len() as u64, ..LiveCounts::default() };
                    let bytes = current_list.iter().try_fold(0u64, |acc, m| acc.checked_add(u64::try_from(m.manifest_length).ok()?));
                    c.manifest_bytes = bytes.unwrap_or(0);
                    c.deletion_vector_files = d.vector_files.len() as u64;
                    if d.counts.add_to(&mut c).is_some() && bytes.is_some() {
                        self.snapshots[cur].counted = Some(Box::new(c));
                    } else {
                        gaps.push(Gap {
                            file: source.to_string(),
                            kind: GapKind::Inconsistent,
                            message: "entries of the current snapshot: its counts sum past 2^64 or a manifest length is negative".into(),
                            snapshot_ids: vec![self.snapshots[cur].snapshot.snapshot_id],
                        });
                    }
                    self.written.merge(written);
                }
                Err(m) => {
                    gaps.push(Gap { file: source.to_string(), kind: GapKind::Decode, message: m, snapshot_ids: vec![self.snapshots[cur].snapshot.snapshot_id] })
                }
            }
            for (e, _) in entries.iter().filter(|(e, _)| e.status.is_live()) {
                self.referenced.insert(e.data_file.file_path.clone());
            }
            let path = self.snapshots[cur].snapshot.manifest_list.clone().unwrap_or_else(|| inline_list_path(cur));
            self.lists.insert(path, ListSlot::Loaded(Arc::new(current_list)));
            self.snapshots[cur].detail = true;
            self.snapshots[cur].want = super::Want::Manifests;
            self.reading.reasons.insert(cur, ReadReason::Current);
            index = Some(cur);
            kept = entries;
        }
        self.exported = Some(Exported { index, entries: kept, counted_snapshots: counted, gaps });
        self.refresh_kinds();
    }

    /// Spark's `partition` column is the union of every spec's fields; an entry's manifest holds
    /// only its own spec's, in that spec's order.
    fn trim_partition(&self, mut e: ManifestEntry, spec_id: i32) -> ManifestEntry {
        let Some(spec) = self.metadata.partition_specs.iter().find(|s| s.spec_id == spec_id) else { return e };
        let tuple: Vec<_> = spec.fields.iter().filter_map(|f| e.data_file.partition.iter().find(|(n, _)| **n == *f.name.as_str()).cloned()).collect();
        e.data_file.partition = tuple.into();
        e
    }

    /// The current snapshot's live files from Spark's entries.
    pub(crate) fn exported_live_files(&self, index: usize) -> Option<Vec<LiveFile<'_>>> {
        let x = self.exported.as_ref().filter(|x| x.index == Some(index))?;
        Some(
            x.entries
                .iter()
                .filter(|(e, _)| e.status.is_live())
                .map(|(e, spec)| LiveFile {
                    file: &e.data_file,
                    added_snapshot_id: e.snapshot_id,
                    data_sequence_number: e.sequence_number,
                    partition_spec_id: *spec,
                })
                .collect(),
        )
    }
}
