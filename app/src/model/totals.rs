//! What a snapshot holds, from the best source read so far: its manifests (exact, per kind), its
//! manifest list's counts (exact, delete kinds not split), or the totals its writer put in the
//! snapshot summary (stated, not checked). Numbers from files are checked: an overflow is unknown.

use serde::Serialize;

/// Where a snapshot's numbers come from, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CountSource {
    /// The writer's `total-*` summary keys in metadata.json.
    Summary,
    /// The added/existing counts of the manifest list's rows.
    ManifestList,
    /// The live entries of every manifest, counted.
    Manifests,
}

impl CountSource {
    pub fn label(self) -> &'static str {
        match self {
            CountSource::Summary => "snapshot summary",
            CountSource::ManifestList => "manifest list",
            CountSource::Manifests => "manifests",
        }
    }
}

/// A snapshot's live contents. Every field is None where its source does not state it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub manifests: Option<u64>,
    pub manifest_bytes: Option<u64>,
    pub data_files: Option<u64>,
    /// Delete files of every kind, deletion vectors included (as Iceberg's `total-delete-files`).
    pub delete_files: Option<u64>,
    pub position_delete_files: Option<u64>,
    pub equality_delete_files: Option<u64>,
    pub deletion_vectors: Option<u64>,
    /// Distinct Puffin files the live deletion vectors sit in (counted from manifests only).
    pub deletion_vector_files: Option<u64>,
    pub records: Option<u64>,
    /// Rows the live position deletes and deletion vectors remove.
    pub position_deletes: Option<u64>,
    pub equality_deletes: Option<u64>,
    pub files_size: Option<u64>,
    pub source: Option<CountSource>,
}

/// `Totals` in 96 bytes instead of 184: a day of commits keeps one per snapshot, from its summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PackedTotals {
    values: [u64; 12],
    /// Bit i set where `values[i]` is stated.
    present: u16,
    source: Option<CountSource>,
}

impl PackedTotals {
    pub fn pack(t: &Totals) -> PackedTotals {
        let fields = [
            t.manifests,
            t.manifest_bytes,
            t.data_files,
            t.delete_files,
            t.position_delete_files,
            t.equality_delete_files,
            t.deletion_vectors,
            t.records,
            t.position_deletes,
            t.equality_deletes,
            t.files_size,
            t.deletion_vector_files,
        ];
        let mut p = PackedTotals { source: t.source, ..PackedTotals::default() };
        for (i, v) in fields.into_iter().enumerate() {
            if let Some(v) = v {
                p.values[i] = v;
                p.present |= 1 << i;
            }
        }
        p
    }

    pub fn source(&self) -> Option<CountSource> {
        self.source
    }

    pub fn unpack(&self) -> Totals {
        let at = |i: usize| (self.present & (1 << i) != 0).then_some(self.values[i]);
        Totals {
            manifests: at(0),
            manifest_bytes: at(1),
            data_files: at(2),
            delete_files: at(3),
            position_delete_files: at(4),
            equality_delete_files: at(5),
            deletion_vectors: at(6),
            records: at(7),
            position_deletes: at(8),
            equality_deletes: at(9),
            files_size: at(10),
            deletion_vector_files: at(11),
            source: self.source,
        }
    }
}

/// As the `Totals` it packs.
impl serde::Serialize for PackedTotals {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.unpack().serialize(s)
    }
}

fn key(summary: &crate::decode::Summary, k: &str) -> Option<u64> {
    summary.get(k).and_then(|v| v.trim().parse::<u64>().ok())
}

/// Per-commit changes to the delete kinds, as Iceberg's SnapshotSummary writes them (a missing
/// key means zero: the writer only sets non-zero ones).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct KindDelta {
    pub pos: (u64, u64),
    pub eq: (u64, u64),
    pub dv: (u64, u64),
}

impl KindDelta {
    pub(crate) fn of(summary: &crate::decode::Summary) -> KindDelta {
        let g = |k: &str| key(summary, k).unwrap_or(0);
        KindDelta {
            pos: (g("added-position-delete-files"), g("removed-position-delete-files")),
            eq: (g("added-equality-delete-files"), g("removed-equality-delete-files")),
            dv: (g("added-dvs"), g("removed-dvs")),
        }
    }
}

impl Totals {
    /// The totals a writer stated. Manifests = created + kept, where the writer records both.
    pub fn from_summary(summary: &crate::decode::Summary) -> Totals {
        let manifests = match (key(summary, "manifests-created"), key(summary, "manifests-kept")) {
            (Some(c), Some(k)) => c.checked_add(k),
            _ => None,
        };
        let t = Totals {
            manifests,
            manifest_bytes: None,
            data_files: key(summary, "total-data-files"),
            delete_files: key(summary, "total-delete-files"),
            position_delete_files: None,
            equality_delete_files: None,
            deletion_vectors: None,
            deletion_vector_files: None,
            records: key(summary, "total-records"),
            position_deletes: key(summary, "total-position-deletes"),
            equality_deletes: key(summary, "total-equality-deletes"),
            files_size: key(summary, "total-files-size"),
            source: None,
        };
        let stated = t.data_files.is_some() || t.records.is_some() || t.delete_files.is_some();
        Totals { source: stated.then_some(CountSource::Summary), ..t }
    }

    /// True when the summary states what the growth chart draws: data files, deletes and records.
    pub fn has_core(&self) -> bool {
        self.data_files.is_some() && self.delete_files.is_some() && self.records.is_some()
    }

    /// Files a full scan opens: data files, position and equality delete files, and the Puffin
    /// files the deletion vectors sit in (several vectors to a file). Where those Puffin files were
    /// not counted, each vector stands for one: the number is then at most the one shown.
    pub fn scan_files(&self) -> Option<ScanFiles> {
        let data = self.data_files?;
        let vectors = self.deletion_vectors;
        match (self.position_delete_files, self.equality_delete_files, vectors, self.deletion_vector_files) {
            (Some(p), Some(e), Some(_), Some(files)) => Some(ScanFiles { files: data.checked_add(p)?.checked_add(e)?.checked_add(files)?, exact: true }),
            (Some(p), Some(e), Some(0), None) => Some(ScanFiles { files: data.checked_add(p)?.checked_add(e)?, exact: true }),
            _ => {
                let deletes = self.deletes()?;
                Some(ScanFiles { files: data.checked_add(deletes)?, exact: deletes == 0 || vectors == Some(0) })
            }
        }
    }

    /// Delete files of every kind, each deletion vector counted once (as `total-delete-files`).
    pub fn deletes(&self) -> Option<u64> {
        self.delete_files.or_else(|| self.position_delete_files?.checked_add(self.equality_delete_files?)?.checked_add(self.deletion_vectors?))
    }

    /// Fields of `self` left unknown are taken from `weaker`, which never overrides.
    pub fn or(mut self, weaker: &Totals) -> Totals {
        macro_rules! fill {
            ($($f:ident),*) => { $( if self.$f.is_none() { self.$f = weaker.$f; } )* };
        }
        fill!(
            manifests,
            manifest_bytes,
            data_files,
            delete_files,
            position_delete_files,
            equality_delete_files,
            deletion_vectors,
            deletion_vector_files,
            records,
            position_deletes,
            equality_deletes,
            files_size
        );
        if self.source.is_none() {
            self.source = weaker.source;
        }
        self
    }
}

/// Files a full scan opens, and whether the count is exact or at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ScanFiles {
    pub files: u64,
    pub exact: bool,
}

/// A stated total that the files read contradict: a writer bug or a damaged file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub snapshot_index: usize,
    pub field: &'static str,
    pub summary: u64,
    pub counted: u64,
    pub counted_from: CountSource,
}

/// Compares what the summary states with what was counted, field by field.
pub fn disagreements(index: usize, summary: &Totals, counted: &Totals) -> Vec<Disagreement> {
    let Some(from) = counted.source else { return Vec::new() };
    let pairs: [(&'static str, Option<u64>, Option<u64>); 5] = [
        ("manifests", summary.manifests, counted.manifests),
        ("data_files", summary.data_files, counted.data_files),
        ("delete_files", summary.delete_files, counted.delete_files),
        ("records", summary.records, counted.records),
        ("position_deletes", summary.position_deletes, counted.position_deletes),
    ];
    pairs
        .into_iter()
        .filter_map(|(field, s, c)| match (s, c) {
            (Some(s), Some(c)) if s != c => Some(Disagreement { snapshot_index: index, field, summary: s, counted: c, counted_from: from }),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod packed_tests {
    use super::{CountSource, PackedTotals, Totals};

    #[test]
    fn packing_keeps_every_field_and_which_are_stated() {
        let mut t = Totals { manifests: Some(3), records: Some(u64::MAX), files_size: Some(0), source: Some(CountSource::Summary), ..Totals::default() };
        assert_eq!(PackedTotals::pack(&t).unpack(), t);
        t = Totals { delete_files: Some(7), equality_deletes: Some(1), ..Totals::default() };
        assert_eq!(PackedTotals::pack(&t).unpack(), t);
        assert_eq!(PackedTotals::pack(&Totals::default()).unpack(), Totals::default());
        assert!(std::mem::size_of::<PackedTotals>() < std::mem::size_of::<Totals>() / 2 + 8);
    }
}
