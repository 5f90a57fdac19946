//! Orphan files: files under the table's location that no snapshot references — a dead writer's
//! uncommitted Parquet files, metadata a failed commit left behind — with the `remove_orphan_files`
//! statement that deletes them and spares what a commit in flight may still need.
//!
//! Which files are referenced takes every snapshot's manifest list and every manifest it names
//! (the loader's full-history mode): a file only an unread manifest names would pass for an
//! orphan, so an incomplete read gives no census at all. Referenced, as Spark's
//! `remove_orphan_files` counts it: the live entries (added, existing) of every manifest of every
//! snapshot the metadata keeps, the manifests and manifest lists themselves, the current metadata
//! file and those in its metadata log, statistics files, and `version-hint.text`.

use serde::Serialize;

use crate::model::TableHistory;
use crate::source::listing::Listing;
use crate::source::PathIndex;

use super::findings::{Bounded, Facts, Finding, FindingKind, Severity, TableRef};

/// Files written after the table's last commit minus this may belong to a commit still in flight:
/// a Flink checkpoint writes its data files first and commits them when the checkpoint completes
/// (Flink's default checkpoint timeout is 10 minutes); an hour covers that with room to spare.
pub const IN_FLIGHT_MARGIN_MS: i64 = 3_600_000;

/// A file a source lists, with what it knows about it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ListedFile {
    pub path: String,
    pub size: Option<u64>,
    /// Last modification, ms since the epoch (S3 `LastModified`, the file's mtime).
    pub modified_ms: Option<i64>,
}

impl FromIterator<ListedFile> for Listing {
    fn from_iter<I: IntoIterator<Item = ListedFile>>(files: I) -> Listing {
        let mut l = Listing::default();
        for f in files {
            l.push(&f.path, f.size, f.modified_ms);
        }
        l.shrink_to_fit();
        l
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OrphanKind {
    /// A data or delete file: Parquet, ORC, Avro or Puffin outside `metadata/`.
    Data,
    /// Outside `metadata/` and no table file at all (a README, a checksum, a copied note):
    /// `remove_orphan_files` deletes it all the same.
    NotTableFile,
    /// A `*.metadata.json` in neither the current file nor the metadata log.
    MetadataJson,
    /// A `snap-*.avro` no snapshot names.
    ManifestList,
    /// Another `.avro` under `metadata/` no manifest list read names.
    Manifest,
    /// Anything else under `metadata/` (checksums, statistics no snapshot names).
    OtherMetadata,
}

/// Borrows its path from the listing: millions of orphans are not millions of `String`s.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Orphan<'a> {
    /// As the source lists it (relative to a folder, or `s3://bucket/key`).
    pub path: &'a str,
    pub kind: OrphanKind,
    pub size: Option<u64>,
    pub modified_ms: Option<i64>,
    /// Modified at or after `older_than`: the statement spares it.
    pub spared: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrphanReport<'a> {
    /// Files listed under the table's location.
    pub listed: usize,
    /// Of those, the ones some snapshot or the metadata log references.
    pub referenced: usize,
    /// Data and delete files no snapshot references, by path (and, kind `not_table_file`, the
    /// files beside them that are no table file at all).
    pub data: Vec<Orphan<'a>>,
    /// Metadata files (metadata.json, manifest lists, manifests, others) nothing references.
    pub metadata: Vec<Orphan<'a>>,
    /// The last commit (newest snapshot or metadata update), ms.
    pub last_commit_ms: i64,
    /// `older_than` for `remove_orphan_files`: the last commit minus `IN_FLIGHT_MARGIN_MS`.
    pub older_than_ms: i64,
}

/// Why no census can be taken from the metadata file opened, when it is not the newest by content
/// among the folder's (`pick`): an older version (time travel) does not reference what newer
/// snapshots added, and a newer file that does not read may reference files this one does not.
/// Either way real files would pass for orphans, and `remove_orphan_files` would delete them.
pub fn not_the_newest(opened: &str, pick: Option<&crate::source::metadata_pick::MetadataPick>) -> Option<String> {
    let pick = pick?;
    let name = |p: &str| crate::source::resolve::last_component(p).unwrap_or(p).to_string();
    if !pick.unreadable.is_empty() {
        let names: Vec<String> = pick.unreadable.iter().map(|(p, _)| name(p)).collect();
        return Some(format!(
            "{} is opened because newer metadata ({}) does not read; what the newer version references is unknown, so its files would pass for orphans",
            name(opened),
            names.join(", ")
        ));
    }
    let newest = pick.versions.iter().max_by_key(|v| (v.last_sequence_number, v.last_updated_ms, v.name_version, v.path.clone()))?;
    (newest.path != opened).then(|| {
        format!(
            "{} is an older version of the table (the newest is {}): the files newer snapshots added would pass for orphans; open the newest for the census",
            name(opened),
            name(&newest.path)
        )
    })
}

/// The census, when the metadata file opened is the newest one (`not_the_newest`).
pub fn census<'a>(
    history: &TableHistory,
    listing: &'a Listing,
    root: &str,
    pick: Option<&crate::source::metadata_pick::MetadataPick>,
) -> Result<OrphanReport<'a>, String> {
    if let Some(why) = not_the_newest(&history.metadata_file, pick) {
        return Err(format!("no orphan census: {why}"));
    }
    orphans(history, listing, root)
}

/// The census over `listing` (the paths below `root`, the folder holding `metadata/`; `""` for
/// a folder opened at the table, `s3://bucket/prefix/` for a bucket listing). Err when the history
/// does not know every referenced file.
pub fn orphans<'a>(history: &TableHistory, listing: &'a Listing, root: &str) -> Result<OrphanReport<'a>, String> {
    if let Some(why) = history.all_files_known() {
        return Err(format!("no orphan census: {why}"));
    }
    let is_under = |p: &str| p.starts_with(root) && p.len() > root.len();
    // A store's listing is all under the root: its own index serves. A folder may hold more (an
    // export beside the table): an index of what is under the root, mapped back to the listing.
    let all_under = listing.index().paths().all(is_under);
    let own: Option<(PathIndex, Vec<u32>)> = (!all_under).then(|| {
        let at: Vec<u32> = (0..listing.len()).filter(|&i| is_under(listing.path(i))).filter_map(|i| u32::try_from(i).ok()).collect();
        (PathIndex::new(at.iter().map(|&i| listing.path(i as usize).to_string())), at)
    });
    let (index, back): (&PathIndex, Option<&[u32]>) = match &own {
        Some((index, at)) => (index, Some(at)),
        None => (listing.index(), None),
    };
    let to_listing = |i: usize| back.map_or(i, |at| at[i] as usize);
    let location = format!("{}/", history.metadata.location.trim_end_matches('/'));
    // A reference names a listed file by the table location (exact), else by its path's suffix
    // (a copied or dropped folder keeps the names below the table).
    let to_listed = |reference: &str| -> Option<usize> {
        if let Some(rel) = reference.strip_prefix(location.as_str()) {
            if let Some(i) = index.position(&format!("{root}{rel}")) {
                return Some(to_listing(i));
            }
        }
        index.resolve_at(reference).map(to_listing)
    };
    // One flag per listed object, not a set of path copies.
    let mut referenced = vec![false; listing.len()];
    let m = &history.metadata;
    let metadata_refs = std::iter::once(history.metadata_file.as_str())
        .chain(m.metadata_log.iter().map(|e| e.metadata_file.as_str()))
        .chain(history.snapshots.iter().filter_map(|s| s.snapshot.manifest_list.as_deref()))
        .chain(m.statistics.iter().map(|s| s.statistics_path.as_str()))
        .chain(history.manifest_paths());
    for r in metadata_refs.chain(history.referenced_files()) {
        if let Some(i) = to_listed(r) {
            referenced[i] = true;
        }
    }
    // The metadata file opened is read from the listing by its listed path already.
    if let Some(i) = index.position(&history.metadata_file) {
        referenced[to_listing(i)] = true;
    }
    let last_commit_ms = history.snapshots.iter().map(|s| s.snapshot.timestamp_ms).chain(std::iter::once(m.last_updated_ms)).max().unwrap_or(m.last_updated_ms);
    let older_than_ms = last_commit_ms.saturating_sub(IN_FLIGHT_MARGIN_MS);
    let (mut data, mut metadata) = (Vec::new(), Vec::new());
    let mut listed = 0;
    for i in (0..index.len()).map(to_listing) {
        listed += 1;
        let path = listing.path(i);
        let rel = &path[root.len()..];
        if referenced[i] || rel == "metadata/version-hint.text" {
            continue;
        }
        let kind = kind_of(rel);
        let modified_ms = listing.modified_ms(i);
        let orphan = Orphan { path, kind, size: listing.size(i), modified_ms, spared: modified_ms.is_some_and(|t| t >= older_than_ms) };
        if matches!(kind, OrphanKind::Data | OrphanKind::NotTableFile) {
            data.push(orphan)
        } else {
            metadata.push(orphan)
        }
    }
    data.sort_by(|a, b| (a.kind, a.path).cmp(&(b.kind, b.path)));
    metadata.sort_by(|a, b| (a.kind, a.path).cmp(&(b.kind, b.path)));
    data.shrink_to_fit();
    metadata.shrink_to_fit();
    let referenced = referenced.iter().filter(|r| **r).count();
    Ok(OrphanReport { listed, referenced, data, metadata, last_commit_ms, older_than_ms })
}

/// The orphans by what they are: the finding's title and the CLI's summary count them alike, so a
/// README beside the table is never counted as a data file on one and not on the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OrphanCounts {
    /// Data and delete files (`OrphanKind::Data`).
    pub data: usize,
    /// Files beside them that are no table file (`OrphanKind::NotTableFile`).
    pub other: usize,
    /// Metadata files nothing references.
    pub metadata: usize,
}

impl OrphanCounts {
    pub fn total(&self) -> usize {
        self.data.saturating_add(self.other).saturating_add(self.metadata)
    }
}

impl<'a> OrphanReport<'a> {
    pub fn counts(&self) -> OrphanCounts {
        let data = self.data.iter().filter(|o| o.kind == OrphanKind::Data).count();
        OrphanCounts { data, other: self.data.len().saturating_sub(data), metadata: self.metadata.len() }
    }

    /// Sizes and modification times asked for the orphans only, where the listing had none: a
    /// picked file's size is a round trip to the disk, too slow for every file of a big folder.
    pub fn with_file_facts(mut self, facts: impl Fn(&str) -> (Option<u64>, Option<i64>)) -> OrphanReport<'a> {
        let cutoff = self.older_than_ms;
        for o in self.data.iter_mut().chain(self.metadata.iter_mut()) {
            let (size, modified) = facts(o.path);
            o.size = o.size.or(size);
            o.modified_ms = o.modified_ms.or(modified);
            o.spared = o.modified_ms.is_some_and(|t| t >= cutoff);
        }
        self
    }
}

/// The endings of the files Iceberg writes data and deletes in (spec: file formats, Puffin).
const DATA_FORMATS: &[&str] = &[".parquet", ".orc", ".avro", ".puffin"];

fn kind_of(rel: &str) -> OrphanKind {
    let Some(name) = rel.strip_prefix("metadata/") else {
        let lower = rel.to_ascii_lowercase();
        return if DATA_FORMATS.iter().any(|e| lower.ends_with(e)) { OrphanKind::Data } else { OrphanKind::NotTableFile };
    };
    let file = name.rsplit('/').next().unwrap_or(name);
    if file.ends_with(".metadata.json") || file.ends_with(".metadata.json.gz") || file.ends_with(".gz.metadata.json") {
        OrphanKind::MetadataJson
    } else if file.starts_with("snap-") && file.ends_with(".avro") {
        OrphanKind::ManifestList
    } else if file.ends_with(".avro") {
        OrphanKind::Manifest
    } else {
        OrphanKind::OtherMetadata
    }
}

/// What is orphaned, by kind: the first files of each and how many there are.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrphanFiles {
    /// Files listed under the table's location.
    pub listed: usize,
    /// Of those, the ones some snapshot or the metadata log references.
    pub referenced: usize,
    /// Data and delete files (`OrphanKind::Data`).
    pub data_files: Bounded<OrphanFile>,
    /// Their total size, where the source gave every one's.
    pub data_bytes: Option<u64>,
    /// Files beside them that are no table file (`OrphanKind::NotTableFile`).
    pub not_table_files: Bounded<OrphanFile>,
    pub metadata_files: Bounded<OrphanFile>,
    pub metadata_json: usize,
    pub manifest_lists: usize,
    pub manifests: usize,
    pub other_metadata: usize,
    /// Orphans modified at or after `older_than_ms`, which the statement spares.
    pub spared: usize,
    pub last_commit_ms: i64,
    pub older_than_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OrphanFile {
    pub path: String,
    pub size: Option<u64>,
}

/// The finding: what is orphaned, and the statement with its `older_than`. None when nothing is.
pub fn finding(report: &OrphanReport, table: &TableRef) -> Option<Finding> {
    if report.data.is_empty() && report.metadata.is_empty() {
        return None;
    }
    // Only the first are copied: millions of orphans are not millions of `String`s again.
    let first = |v: &[Orphan]| Bounded {
        first: v.iter().take(super::findings::CAP).map(|o| OrphanFile { path: o.path.to_string(), size: o.size }).collect(),
        total: v.len(),
    };
    let split = report.data.partition_point(|o| o.kind == OrphanKind::Data);
    let (files, others) = report.data.split_at(split);
    let data_bytes = files.iter().all(|o| o.size.is_some()).then(|| files.iter().filter_map(|o| o.size).fold(0u64, u64::saturating_add));
    let count = |k: OrphanKind| report.metadata.iter().filter(|o| o.kind == k).count();
    let facts = OrphanFiles {
        listed: report.listed,
        referenced: report.referenced,
        data_files: first(files),
        data_bytes,
        not_table_files: first(others),
        metadata_files: first(&report.metadata),
        metadata_json: count(OrphanKind::MetadataJson),
        manifest_lists: count(OrphanKind::ManifestList),
        manifests: count(OrphanKind::Manifest),
        other_metadata: count(OrphanKind::OtherMetadata),
        spared: report.data.iter().chain(&report.metadata).filter(|o| o.spared).count(),
        last_commit_ms: report.last_commit_ms,
        older_than_ms: report.older_than_ms,
    };
    let older_than = crate::analysis::sql::timestamp(report.older_than_ms);
    Some(Finding::new(
        FindingKind::OrphanFiles,
        if files.is_empty() { Severity::Info } else { Severity::Warning },
        Facts::OrphanFiles(facts),
        Vec::new(),
        Vec::new(),
        table.statement("remove_orphan_files", older_than.map(|t| format!("older_than => {t}"))),
    ))
}

/// A folder's files as listed files, with sizes and modification times where the source has them.
pub fn listed_files(index: &PathIndex, size: impl Fn(&str) -> Option<u64>, modified: impl Fn(&str) -> Option<i64>) -> Vec<ListedFile> {
    index.paths().map(|p| ListedFile { path: p.to_string(), size: size(p), modified_ms: modified(p) }).collect()
}

/// The folder holding `metadata/` for the metadata file a listed source opened (`""` at the top,
/// `a/b/` below it): the table's files are the ones under it.
pub fn table_root(metadata_path: &str) -> Option<String> {
    let dir = metadata_path.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    if dir == "metadata" {
        return Some(String::new());
    }
    dir.strip_suffix("/metadata").map(|r| format!("{r}/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_told_apart_by_where_they_sit() {
        assert_eq!(kind_of("data/ts_day=2026-11-28/00000-0-x.parquet"), OrphanKind::Data);
        assert_eq!(kind_of("data/x-deletes.puffin"), OrphanKind::Data);
        assert_eq!(kind_of("metadata/v3.metadata.json"), OrphanKind::MetadataJson);
        assert_eq!(kind_of("metadata/00002-uuid.metadata.json.gz"), OrphanKind::MetadataJson);
        assert_eq!(kind_of("metadata/snap-1-1-uuid.avro"), OrphanKind::ManifestList);
        assert_eq!(kind_of("metadata/uuid-m0.avro"), OrphanKind::Manifest);
        assert_eq!(kind_of("metadata/.v3.metadata.json.crc"), OrphanKind::OtherMetadata);
    }

    #[test]
    fn the_table_root_is_the_folder_holding_metadata() {
        assert_eq!(table_root("metadata/v3.metadata.json").as_deref(), Some(""));
        assert_eq!(table_root("wh/db/t/metadata/v3.metadata.json").as_deref(), Some("wh/db/t/"));
        assert_eq!(table_root("v3.metadata.json"), None, "a lone metadata file has no table folder around it");
    }
}
