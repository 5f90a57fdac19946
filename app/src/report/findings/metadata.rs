//! metadata.json contradicting itself: snapshot ids listed twice, a current snapshot it does not
//! hold, manifests not the length their lists state.

use super::Words;
use crate::analysis::findings::{CurrentSnapshotUnknown, DuplicateSnapshotIds, ManifestLengthMismatch};
use crate::report::format::{capped_list, thousands};

pub(super) fn duplicate_snapshot_ids(f: &DuplicateSnapshotIds) -> Words {
    let each = f.ids.first.iter().map(|t| format!("{} (snapshots #{} and #{} in commit order)", t.snapshot_id, t.first_position, t.again_position));
    Words {
        title: format!("metadata.json lists {} snapshot id{} more than once", f.ids.total, if f.ids.total > 1 { "s" } else { "" }),
        evidence: format!(
            "{}. Iceberg never gives two snapshots one id: the file was damaged or edited by hand. Each entry is shown \
             and counted on its own; parents, rollbacks and findings that name the id cannot tell which one they mean.",
            capped_list(each, f.ids.total, "ids")
        ),
        action: "Restore metadata.json from the previous version in its metadata log (or the catalog's history) before any \
                 maintenance or rollback runs against this table."
            .into(),
    }
}

pub(super) fn current_snapshot_unknown(f: &CurrentSnapshotUnknown) -> Words {
    let id = f.current_snapshot_id;
    Words {
        title: format!("The current snapshot {id} is not in metadata.json"),
        evidence: format!(
            "current-snapshot-id is {id}, but none of the {} snapshots listed has that id{}. Readers of this metadata \
             fail or read nothing.",
            f.snapshots,
            f.shown_instead.map(|s| format!("; the last committed one ({s}) is shown as current here")).unwrap_or_default()
        ),
        action: "Restore metadata.json from the previous version in its metadata log (or the catalog's history).".into(),
    }
}

pub(super) fn manifest_length_mismatch(f: &ManifestLengthMismatch) -> Words {
    let n = f.manifests.total;
    let each = f
        .manifests
        .first
        .iter()
        .map(|m| format!("{} ({} bytes, the list says {}; {} entries)", m.file, thousands(m.bytes), thousands(m.stated), thousands(m.entries)));
    Words {
        title: format!("{n} manifest{} not the length {} manifest list states", if n == 1 { " is" } else { "s are" }, if n == 1 { "its" } else { "their" }),
        evidence: format!(
            "{}. Each holds every entry its list counts, so it was read and counted; but it is not the file the writer \
             listed byte for byte: a copy that re-encoded it (another codec), or a writer or tool that rewrote it in place. \
             Readers that check the length (or read by it) may refuse it.",
            capped_list(each, n, "manifests")
        ),
        action: "Compare these files with the table's original storage; restore the originals if this is a copy, and find what rewrote them if not.".into(),
    }
}
