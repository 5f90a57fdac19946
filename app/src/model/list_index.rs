//! Snapshots by the manifest list they name, without a copy of each path: a day of commits is
//! 17,280 paths of ~130 bytes the snapshots already hold, and a map keyed by copies of them was
//! 4 MB of a 60 MB load.

use std::borrow::Cow;

use super::history::{inline_list_path, SnapshotState};

#[derive(Debug, Clone, Default)]
pub(crate) struct ListIndex {
    /// Snapshot indexes ordered by the list path they name (then by index): the snapshots that
    /// share a list are one run.
    order: Vec<u32>,
}

fn key(snapshots: &[SnapshotState], i: usize) -> Cow<'_, str> {
    match snapshots[i].snapshot.manifest_list.as_deref() {
        Some(p) => Cow::Borrowed(p),
        None => Cow::Owned(inline_list_path(i)),
    }
}

impl ListIndex {
    pub fn new(snapshots: &[SnapshotState]) -> ListIndex {
        // A metadata.json cannot hold 2^32 snapshots within the loader's size limit; stop there anyway.
        let mut order: Vec<u32> = (0..snapshots.len()).map_while(|i| u32::try_from(i).ok()).collect();
        order.sort_by(|&a, &b| key(snapshots, a as usize).cmp(&key(snapshots, b as usize)).then(a.cmp(&b)));
        ListIndex { order }
    }

    /// The snapshots naming `path`, in commit order.
    pub fn get(&self, snapshots: &[SnapshotState], path: &str) -> Vec<usize> {
        let first = self.order.partition_point(|&i| *key(snapshots, i as usize) < *path);
        self.order[first..].iter().map(|&i| i as usize).take_while(|&i| key(snapshots, i) == path).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::TableMetadata;
    use crate::model::TableHistory;

    fn history(version: u8, snapshots: &str) -> TableHistory {
        let json = format!(
            r#"{{"format-version":{version},"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/t","last-sequence-number":4,
            "last-updated-ms":1,"last-column-id":1,"current-schema-id":0,"schema":{{"type":"struct","schema-id":0,"fields":[{{"id":1,"name":"x","required":false,"type":"long"}}]}},
            "schemas":[{{"type":"struct","schema-id":0,"fields":[{{"id":1,"name":"x","required":false,"type":"long"}}]}}],
            "default-spec-id":0,"partition-spec":[],"partition-specs":[{{"spec-id":0,"fields":[]}}],"last-partition-id":999,"default-sort-order-id":0,
            "sort-orders":[{{"order-id":0,"fields":[]}}],"snapshots":[{snapshots}]}}"#
        );
        TableHistory::new("m.json", TableMetadata::from_bytes("m.json", json.as_bytes()).unwrap())
    }

    fn snap(id: i64, seq: i64, list: &str) -> String {
        format!(r#"{{"snapshot-id":{id},"sequence-number":{seq},"timestamp-ms":{seq},"summary":{{"operation":"append"}},"manifest-list":"{list}"}}"#)
    }

    #[test]
    fn snapshots_sharing_a_list_are_found_together_in_commit_order() {
        let h = history(2, &[snap(4, 4, "s/a.avro"), snap(1, 1, "s/b.avro"), snap(2, 2, "s/a.avro"), snap(3, 3, "s/c.avro")].join(","));
        assert_eq!(h.by_list.get(&h.snapshots, "s/a.avro"), vec![1, 3]);
        assert_eq!(h.by_list.get(&h.snapshots, "s/b.avro"), vec![0]);
        assert_eq!(h.by_list.get(&h.snapshots, "s/c.avro"), vec![2]);
        assert!(h.by_list.get(&h.snapshots, "s/a.avr").is_empty());
        assert!(h.by_list.get(&h.snapshots, "s/d.avro").is_empty());
    }

    #[test]
    fn a_v1_snapshot_with_inline_manifests_is_found_by_its_own_key() {
        let inline = r#"{"snapshot-id":7,"timestamp-ms":5,"summary":{"operation":"append"},"manifests":["s/m1.avro"]}"#;
        let h = history(1, &[snap(6, 0, "s/a.avro"), inline.to_string()].join(","));
        let i = h.snapshots.iter().position(|s| s.snapshot.snapshot_id.0 == 7).unwrap();
        assert_eq!(h.by_list.get(&h.snapshots, &super::inline_list_path(i)), vec![i]);
        assert_eq!(h.by_list.get(&h.snapshots, "s/a.avro"), vec![1 - i]);
    }
}
