//! Files under the table's location that no snapshot references, and what removing them takes.

use super::Words;
use crate::analysis::findings::Bounded;
use crate::analysis::orphans::{OrphanCounts, OrphanFile, OrphanFiles};
use crate::model::time::rfc3339_ms;
use crate::report::format::{capped_list, plural, thousands};
use crate::report::orphans::kinds;

/// `path (1,234 bytes), …`: sizes where the source gave them.
fn shown(files: &Bounded<OrphanFile>) -> String {
    capped_list(
        files.first.iter().map(|o| match o.size {
            Some(s) => format!("{} ({} bytes)", o.path, thousands(s)),
            None => o.path.clone(),
        }),
        files.total,
        "files",
    )
}

pub(super) fn orphan_files(f: &OrphanFiles) -> Words {
    let cutoff = rfc3339_ms(f.older_than_ms);
    let mut evidence = format!(
        "{} files are listed under the table's location; every snapshot's manifests were read and {} of them are referenced.",
        thousands(f.listed as u64),
        thousands(f.referenced as u64)
    );
    let files = f.data_files.total;
    if files > 0 {
        evidence += &format!(
            " {} data or delete file{} no snapshot references{}: {}.",
            files,
            plural(files as u64),
            f.data_bytes.map(|b| format!(" ({} bytes)", thousands(b))).unwrap_or_default(),
            shown(&f.data_files)
        );
    }
    let others = f.not_table_files.total;
    if others > 0 {
        evidence += &format!(
            " {} file{} beside them {} no table file at all (not Parquet, ORC, Avro or Puffin): {}. remove_orphan_files deletes \
             everything under the location that no snapshot references, these too: move them out first if they matter.",
            others,
            plural(others as u64),
            if others == 1 { "is" } else { "are" },
            shown(&f.not_table_files)
        );
    }
    if f.metadata_files.total > 0 {
        evidence += &format!(
            " Metadata files nothing references any more — {} metadata.json outside the metadata log, {} manifest lists, {} manifests, {} other: {}.",
            f.metadata_json,
            f.manifest_lists,
            f.manifests,
            f.other_metadata,
            shown(&f.metadata_files)
        );
    }
    if f.spared > 0 {
        evidence += &format!(" {} of them were modified at or after {cutoff} and are spared by the statement below.", f.spared);
    }
    let counts = OrphanCounts { data: files, other: others, metadata: f.metadata_files.total };
    Words {
        title: format!("{} under the table location ({})", crate::report::orphans::orphan_files(counts.total()), kinds(&counts)),
        evidence,
        action: format!(
            "Files a failed or cancelled writer left behind cost storage and are never read. Remove them with \
             `remove_orphan_files`, first with `dry_run => true` to see its list. `older_than` is the table's last \
             commit ({}) minus an hour, {cutoff} (UTC; Spark reads the literal in its session time zone): a file \
             written after it may belong to a commit still in flight, so it is spared. Orphans newer than that are \
             removed by a later run, once the table has committed past them.",
            rfc3339_ms(f.last_commit_ms)
        ),
    }
}
