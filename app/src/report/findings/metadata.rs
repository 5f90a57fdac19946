//! metadata.json contradicting itself: snapshot ids listed twice, a current snapshot it does not
//! hold, manifests not the length their lists state; and the newest metadata.json that does not
//! read at all, an older one shown in its place.

use super::Words;
use crate::analysis::findings::{CurrentSnapshotUnknown, DuplicateSnapshotIds, ManifestLengthMismatch, NewestMetadataUnreadable, Standing};
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

/// `1 snapshot`, `12 snapshots`.
fn count(n: i64, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", thousands(n.unsigned_abs()))
    }
}

pub(super) fn newest_metadata_unreadable(f: &NewestMetadataUnreadable) -> Words {
    let (bad, opened) = (&f.damaged, &f.opened);
    let hint = if f.hinted { ", and the one version-hint.text names" } else { "" };
    let standing = match &f.standing {
        Standing::NewestByContent { last_sequence_number, last_updated_ms } => {
            let age = match (last_sequence_number, last_updated_ms) {
                (Some(s), _) => format!("last-sequence-number {s}"),
                (None, Some(t)) => format!("last-updated-ms {t}"),
                _ => String::new(),
            };
            format!("the newest metadata file by content ({age} in its first bytes){hint}")
        }
        Standing::HighestByName => format!("the highest version by name (its first bytes state no age to place it by){hint}"),
        Standing::Hinted => "the file version-hint.text names".to_string(),
        Standing::Newer => "newer than the file opened".to_string(),
    };
    let short = match f.missing_snapshots {
        Some(0) => "no snapshot short".to_string(),
        Some(n) => format!("{} short", count(n, "snapshot", "snapshots")),
        None => "snapshots it adds unknown".to_string(),
    };
    let lost = match (f.missing_snapshots, f.damaged_sequence_number) {
        (Some(0), Some(s)) => format!(
            "no snapshot is missing (both state last-sequence-number {s}): the newer file changed only the table's metadata (properties, schema, expired snapshots)"
        ),
        (Some(n), Some(s)) => format!(
            "{} committed after it {} missing from every chart, count and finding here (last-sequence-number {s} in {bad}'s first bytes, {} in {opened})",
            count(n, "snapshot", "snapshots"),
            if n == 1 { "is" } else { "are" },
            f.opened_sequence_number
        ),
        _ if f.format_version < 2 => "how many snapshots it adds is unknown (format v1 numbers no sequence)".to_string(),
        _ => format!("how many snapshots it adds is unknown ({bad}'s first bytes state no last-sequence-number)"),
    };
    let versions = f
        .versions_after
        .map(|v| format!(" By name it is {} after {opened}.", count(i64::try_from(v).unwrap_or(i64::MAX), "version", "versions")))
        .unwrap_or_default();
    let shown = match &f.newest_that_reads {
        None => format!("icescope opened {opened} instead, the newest that reads"),
        Some(newest) => format!("{opened} is shown, as chosen (the newest that reads is {newest})"),
    };
    let mut evidence = format!(
        "{}. It is {standing}{}. {shown}: {lost}.{versions}",
        f.error,
        if f.pointer {
            ": after the last commit a catalog's pointer names this file, so every engine that loads the table through that \
             pointer (Spark, Trino, a Flink job restarting its committer) fails on it"
        } else {
            ""
        }
    );
    if f.older_unreadable.total > 0 {
        evidence += &format!(" Older ones did not read either: {}.", capped_list(f.older_unreadable.first.iter().cloned(), f.older_unreadable.total, "files"));
    }
    let drops = match f.missing_snapshots {
        Some(n) if n > 0 => format!(", which drops the {} only {bad} holds", count(n, "snapshot", "snapshots")),
        _ => format!(", which drops whatever only {bad} holds"),
    };
    Words {
        title: format!(
            "{} metadata file {bad} does not read: the table is shown as {opened} left it, {short}",
            if f.pointer { "The newest" } else { "A newer" }
        ),
        evidence,
        action: format!(
            "If this folder is a copy, the original may be whole: copy {bad} again. Otherwise restore it (object-store \
             versioning, a backup), or point the table back at a file that reads before anything else commits: the catalog's \
             metadata location{} at {opened}{drops}. Run no maintenance (expire_snapshots, remove_orphan_files, \
             rewrite_data_files, rewrite_manifests) until the table loads again: remove_orphan_files against {opened} \
             would delete the data files the newer snapshots added.",
            if f.hinted { " (here version-hint.text)" } else { "" }
        ),
    }
}
