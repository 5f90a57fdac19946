//! What changed between two snapshots: data and delete files added and removed, by partition,
//! records, the schema between them, and who committed what in between. Files are compared by
//! path over each snapshot's live files (both must have been read in detail).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::partitions::label;
use crate::decode::{DataContent, NestedField, SnapshotId};
use crate::model::time::rfc3339_ms;
use crate::model::TableHistory;

/// The commits listed between the two snapshots; the rest are counted.
pub const MAX_COMMITS: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotDiff {
    pub from: SnapshotSide,
    pub to: SnapshotSide,
    /// `to` was committed before `from`: the changes read backwards in time.
    pub backwards: bool,
    /// Both snapshots' files were read completely; otherwise what is missing is in `missing`.
    pub exact: bool,
    pub missing: Vec<String>,
    pub totals: Changes,
    pub partitions: Vec<PartitionChanges>,
    pub schema: Option<SchemaChange>,
    /// Snapshots after `from` up to and including `to`, in commit order (at most `MAX_COMMITS`).
    pub between: Vec<Commit>,
    pub between_total: usize,
}

/// One side of a comparison: the table after a snapshot (its index in commit order), or before
/// its first commit — where a job that created the table is compared from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Point {
    Empty,
    At(usize),
}

impl Point {
    /// Where it stands in commit order: the empty table before every commit.
    fn position(self) -> usize {
        match self {
            Point::Empty => 0,
            Point::At(i) => i + 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SnapshotSide {
    /// None: the table before its first commit (no files, no rows).
    pub snapshot_id: Option<SnapshotId>,
    pub committed_at: Option<String>,
    pub schema_id: Option<i32>,
    pub flink_job_id: Option<String>,
    pub checkpoint_id: Option<i64>,
    pub data_files: u64,
    pub delete_files: u64,
    pub records: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Changes {
    pub data_files_added: u64,
    pub data_files_removed: u64,
    pub records_added: u64,
    pub records_removed: u64,
    pub delete_files_added: u64,
    pub delete_files_removed: u64,
    /// Rows the added and removed delete files delete (position or equality).
    pub deletes_added: u64,
    pub deletes_removed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartitionChanges {
    pub partition: String,
    #[serde(flatten)]
    pub changes: Changes,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SchemaChange {
    pub from_schema_id: i32,
    pub to_schema_id: i32,
    /// (field id, name, type)
    pub added: Vec<(i32, String, String)>,
    pub dropped: Vec<(i32, String, String)>,
    /// (field id, old name, new name)
    pub renamed: Vec<(i32, String, String)>,
    /// (field id, name, old type, new type)
    pub retyped: Vec<(i32, String, String, String)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Commit {
    pub snapshot_id: SnapshotId,
    pub committed_at: String,
    pub operation: String,
    pub flink_job_id: Option<String>,
    pub checkpoint_id: Option<i64>,
    pub added_data_files: Option<u64>,
    pub deleted_data_files: Option<u64>,
    pub added_records: Option<u64>,
    pub added_delete_files: Option<u64>,
}

fn side(h: &TableHistory, p: Point) -> SnapshotSide {
    let Point::At(i) = p else {
        return SnapshotSide {
            snapshot_id: None,
            committed_at: None,
            schema_id: None,
            flink_job_id: None,
            checkpoint_id: None,
            data_files: 0,
            delete_files: 0,
            records: 0,
        };
    };
    let s = &h.snapshots[i];
    let c = h.counts(i);
    SnapshotSide {
        snapshot_id: Some(s.snapshot.snapshot_id),
        committed_at: Some(rfc3339_ms(s.snapshot.timestamp_ms)),
        schema_id: s.snapshot.schema_id,
        flink_job_id: s.flink.as_ref().map(|f| f.job_id.to_string()),
        checkpoint_id: s.flink.as_ref().and_then(|f| f.checkpoint_id),
        // Counted from the files where they were read; else the best the history knows (a list's
        // counts, Spark's sums, the summary) — the diff is then marked not exact.
        data_files: c.as_ref().map(|c| c.data_files).or_else(|| h.totals(i).data_files).unwrap_or(0),
        delete_files: c.as_ref().map(|c| c.delete_files()).or_else(|| h.totals(i).delete_files).unwrap_or(0),
        records: c.as_ref().map(|c| c.records).or_else(|| h.totals(i).records).unwrap_or(0),
    }
}

fn add(changes: &mut Changes, content: &DataContent, records: i64, added: bool) {
    if matches!(content, DataContent::Unknown(_)) {
        return; // its manifest is a gap: the diff is marked not exact
    }
    let r = u64::try_from(records).unwrap_or(0);
    let (files, rows) = match (content, added) {
        (DataContent::Data, true) => (&mut changes.data_files_added, &mut changes.records_added),
        (DataContent::Data, false) => (&mut changes.data_files_removed, &mut changes.records_removed),
        (_, true) => (&mut changes.delete_files_added, &mut changes.deletes_added),
        (_, false) => (&mut changes.delete_files_removed, &mut changes.deletes_removed),
    };
    *files = files.saturating_add(1);
    *rows = rows.saturating_add(r);
}

fn fields(h: &TableHistory, schema_id: Option<i32>) -> Option<(i32, HashMap<i32, &NestedField>)> {
    let id = schema_id?;
    let schema = h.metadata.schema(id)?;
    Some((id, schema.fields.iter().map(|f| (f.id, f)).collect()))
}

/// What changed from one schema to another, by field id; None when they are the same or unknown.
pub fn schema_change(h: &TableHistory, from: Option<i32>, to: Option<i32>) -> Option<SchemaChange> {
    let ((a_id, a), (b_id, b)) = (fields(h, from)?, fields(h, to)?);
    if a_id == b_id {
        return None;
    }
    let mut c = SchemaChange { from_schema_id: a_id, to_schema_id: b_id, added: vec![], dropped: vec![], renamed: vec![], retyped: vec![] };
    let mut ids: Vec<i32> = a.keys().chain(b.keys()).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    for id in ids {
        match (a.get(&id), b.get(&id)) {
            (None, Some(f)) => c.added.push((id, f.name.clone(), f.field_type.describe())),
            (Some(f), None) => c.dropped.push((id, f.name.clone(), f.field_type.describe())),
            (Some(x), Some(y)) => {
                if x.name != y.name {
                    c.renamed.push((id, x.name.clone(), y.name.clone()));
                }
                let (tx, ty) = (x.field_type.describe(), y.field_type.describe());
                if tx != ty {
                    c.retyped.push((id, y.name.clone(), tx, ty));
                }
            }
            (None, None) => {}
        }
    }
    Some(c)
}

/// The difference from snapshot `a` to snapshot `b` (indexes in commit order).
pub fn diff(h: &TableHistory, a: usize, b: usize) -> SnapshotDiff {
    diff_points(h, Point::At(a), Point::At(b))
}

/// The difference from `a` to `b`, either of which may be the table before its first commit.
pub fn diff_points(h: &TableHistory, a: Point, b: Point) -> SnapshotDiff {
    let mut missing = Vec::new();
    for (p, which) in [(a, "first"), (b, "second")] {
        if let Point::At(i) = p {
            if !h.has_files(i) || h.counts(i).is_none() {
                missing.push(format!("the {which} snapshot's files ({}) were not all read", h.snapshots[i].snapshot.snapshot_id));
            }
        }
    }
    // A file is its path, except a deletion vector: one Puffin file holds many, each its own entry
    // at its own offset (the spec tracks DVs by file_path and content_offset).
    let key = |f: &crate::model::LiveFile<'_>| -> (Box<str>, Option<i64>) {
        let offset = f.file.is_deletion_vector().then(|| f.file.v3.as_ref().and_then(|v| v.content_offset)).flatten();
        (f.file.file_path.clone(), offset)
    };
    let live = |p: Point| -> HashMap<(Box<str>, Option<i64>), _> {
        match p {
            Point::Empty => HashMap::new(),
            Point::At(i) => h.live_files(i).into_iter().map(|f| (key(&f), f)).collect(),
        }
    };
    let (before, after) = (live(a), live(b));
    let mut totals = Changes::default();
    let mut by: BTreeMap<String, Changes> = BTreeMap::new();
    for (set, other, added) in [(&after, &before, true), (&before, &after, false)] {
        for (path, f) in set {
            if other.contains_key(path) {
                continue;
            }
            add(&mut totals, &f.file.content, f.file.record_count, added);
            add(by.entry(label(h, f.partition_spec_id, &f.file.partition)).or_default(), &f.file.content, f.file.record_count, added);
        }
    }
    let (lo, hi) = (a.position().min(b.position()), a.position().max(b.position()));
    // Positions lo+1..=hi are the snapshots at indexes lo..hi.
    let between: Vec<Commit> = (lo..hi)
        .take(MAX_COMMITS)
        .map(|i| {
            let s = &h.snapshots[i];
            let n = |k: &str| s.snapshot.summary.get(k).and_then(|v| v.trim().parse::<u64>().ok());
            Commit {
                snapshot_id: s.snapshot.snapshot_id,
                committed_at: rfc3339_ms(s.snapshot.timestamp_ms),
                operation: s.snapshot.operation.to_string(),
                flink_job_id: s.flink.as_ref().map(|f| f.job_id.to_string()),
                checkpoint_id: s.flink.as_ref().and_then(|f| f.checkpoint_id),
                added_data_files: n("added-data-files"),
                deleted_data_files: n("deleted-data-files"),
                added_records: n("added-records"),
                added_delete_files: n("added-delete-files"),
            }
        })
        .collect();
    let schema_of = |p: Point| match p {
        Point::Empty => None,
        Point::At(i) => h.snapshots[i].snapshot.schema_id,
    };
    SnapshotDiff {
        from: side(h, a),
        to: side(h, b),
        backwards: b.position() < a.position(),
        exact: missing.is_empty(),
        missing,
        totals,
        partitions: by.into_iter().map(|(partition, changes)| PartitionChanges { partition, changes }).collect(),
        schema: schema_change(h, schema_of(a), schema_of(b)),
        between_total: hi - lo,
        between,
    }
}

impl Changes {
    pub fn cells(&self) -> [u64; 6] {
        [self.data_files_added, self.data_files_removed, self.records_added, self.records_removed, self.delete_files_added, self.delete_files_removed]
    }
}

/// Candidates an ambiguous `checkpoint:<n>` lists, at most.
const MAX_CANDIDATES: usize = 10;

/// `checkpoint:<n>[@<job>]`: after a restore checkpoint ids repeat across jobs, so an id two jobs
/// committed names no one snapshot until a job is given.
fn checkpoint_of(h: &TableHistory, spec: &str, rest: &str) -> Result<usize, String> {
    let (n, job) = match rest.split_once('@') {
        Some((n, j)) => (n, Some(j.strip_prefix("job:").unwrap_or(j))),
        None => (rest, None),
    };
    let n: i64 = n.trim().parse().map_err(|_| format!("`{spec}`: a checkpoint id is a number"))?;
    let hits: Vec<(usize, &str)> = h
        .snapshots
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.flink.as_ref().filter(|f| f.checkpoint_id == Some(n)).map(|f| (i, &*f.job_id)))
        .filter(|(_, j)| job.is_none_or(|p| !p.is_empty() && j.starts_with(p)))
        .collect();
    let mut jobs: Vec<&str> = hits.iter().map(|&(_, j)| j).collect();
    jobs.sort_unstable();
    jobs.dedup();
    if jobs.len() > 1 {
        // Each job's last commit of that id, in commit order.
        let mut last: Vec<(usize, &str)> = jobs.iter().filter_map(|j| hits.iter().rev().find(|(_, x)| x == j).copied()).collect();
        last.sort_unstable();
        let listed = last
            .iter()
            .take(MAX_CANDIDATES)
            .map(|&(i, j)| {
                let s = &h.snapshots[i].snapshot;
                format!("checkpoint:{n}@{} (snapshot {}, committed {})", j, s.snapshot_id, rfc3339_ms(s.timestamp_ms))
            })
            .collect::<Vec<_>>()
            .join(", ");
        let more = if last.len() > MAX_CANDIDATES { format!(" and {} more", last.len() - MAX_CANDIDATES) } else { String::new() };
        return Err(format!("`{spec}`: {} jobs committed checkpoint {n} (ids repeat after a restore); name one: {listed}{more}", jobs.len()));
    }
    hits.last().map(|&(i, _)| i).ok_or_else(|| format!("no snapshot matches `{spec}`"))
}

/// A job's commits: the first and the last, in commit order, of the one job whose `flink.job-id`
/// starts with `prefix`.
fn job_commits(h: &TableHistory, spec: &str, prefix: &str) -> Result<(usize, usize), String> {
    if prefix.is_empty() {
        return Err(format!("`{spec}` names no job: give its flink.job-id or the start of it"));
    }
    let jobs: std::collections::BTreeSet<&str> =
        h.snapshots.iter().filter_map(|s| s.flink.as_ref()).map(|f| &*f.job_id).filter(|j| j.starts_with(prefix)).collect();
    if jobs.len() > 1 {
        return Err(format!("`{spec}` matches {} job ids: give more of it", jobs.len()));
    }
    let of_job = |s: &crate::model::SnapshotState| s.flink.as_ref().is_some_and(|f| f.job_id.starts_with(prefix));
    match (h.snapshots.iter().position(of_job), h.snapshots.iter().rposition(of_job)) {
        (Some(first), Some(last)) => Ok((first, last)),
        _ => Err(format!("no snapshot matches `{spec}`")),
    }
}

/// The table just before a job's first commit: that commit's parent, or the empty table when the
/// job created it. A parent expired since cannot be compared from.
fn before_job(h: &TableHistory, spec: &str, prefix: &str) -> Result<Point, String> {
    let (first, _) = job_commits(h, spec, prefix)?;
    let s = &h.snapshots[first].snapshot;
    let Some(parent) = s.parent_snapshot_id else { return Ok(Point::Empty) };
    h.snapshots.iter().position(|x| x.snapshot.snapshot_id == parent).map(Point::At).ok_or_else(|| {
        format!("`{spec}`: the parent of the job's first commit ({}) is snapshot {parent}, which is no longer in the table's history (expired)", s.snapshot_id)
    })
}

/// The reference forms that name a job's last commit, and the job's prefix in it.
fn last_of_job(spec: &str) -> Option<&str> {
    spec.strip_prefix("job:").or_else(|| spec.strip_prefix("last:"))
}

/// A snapshot named the way a person names it: a snapshot id, `current`, `parent` (of current),
/// `job:<id or prefix>` or `last:<id or prefix>` (that job's last commit), `first:<id or prefix>`
/// (the table just before the job's first commit: its parent, or the empty table where the job
/// created it) or `checkpoint:<n>` (the last commit of it; `checkpoint:<n>@<job id or prefix>`
/// where more than one job committed that id).
pub fn point(h: &TableHistory, spec: &str) -> Result<Point, String> {
    let spec = spec.trim();
    let found = if spec == "current" {
        h.current_index()
    } else if spec == "parent" {
        let cur = h.current_index().ok_or("the table has no current snapshot")?;
        let parent = h.snapshots[cur].snapshot.parent_snapshot_id.ok_or("the current snapshot has no parent")?;
        h.snapshots.iter().position(|s| s.snapshot.snapshot_id == parent)
    } else if let Some(job) = last_of_job(spec) {
        return job_commits(h, spec, job).map(|(_, last)| Point::At(last));
    } else if let Some(job) = spec.strip_prefix("first:") {
        return before_job(h, spec, job);
    } else if let Some(rest) = spec.strip_prefix("checkpoint:") {
        return checkpoint_of(h, spec, rest).map(Point::At);
    } else {
        let id: i128 = spec.parse().map_err(|_| format!("`{spec}`: not a snapshot id, current, parent, job:<id>, first:<id>, last:<id> or checkpoint:<n>"))?;
        h.snapshots.iter().position(|s| s.snapshot.snapshot_id.0 == id)
    };
    found.map(Point::At).ok_or_else(|| format!("no snapshot matches `{spec}`"))
}

/// A snapshot as `point` names it, where the empty table will not do (a walk starts at a snapshot).
pub fn resolve(h: &TableHistory, spec: &str) -> Result<usize, String> {
    match point(h, spec)? {
        Point::At(i) => Ok(i),
        Point::Empty => Err(format!("`{}` is the table before its first commit: it has no snapshot", spec.trim())),
    }
}

/// Why two references make no comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A reference names no snapshot, or more than one: the sentence says which.
    Reference(String),
    /// Both name the same snapshot (None: both the table before its first commit). `job`: the
    /// prefix of a `job:`/`last:` reference among them, whose whole range was likely meant.
    Same { snapshot_id: Option<SnapshotId>, job: Option<String> },
}

/// The two sides two references name. An empty reference takes the default (`parent` first,
/// `current` second), except beside a `job:<id>` given alone: that names the job's whole range,
/// from the table just before its first commit (`first:<id>`) to its last (`last:<id>`).
pub fn sides(h: &TableHistory, from: &str, to: &str) -> Result<(Point, Point), Refusal> {
    let (from, to) = (from.trim(), to.trim());
    let reference = |spec: &str| point(h, spec).map_err(Refusal::Reference);
    let pair = match (from, to) {
        (one, "") | ("", one) if one.starts_with("job:") => {
            let job = &one["job:".len()..];
            (before_job(h, one, job).map_err(Refusal::Reference)?, reference(one)?)
        }
        _ => {
            let or = |spec: &'static str, given: &str| if given.is_empty() { spec } else { given }.to_string();
            (reference(&or("parent", from))?, reference(&or("current", to))?)
        }
    };
    if pair.0 == pair.1 {
        let snapshot_id = match pair.0 {
            Point::At(i) => Some(h.snapshots[i].snapshot.snapshot_id),
            Point::Empty => None,
        };
        let job = [from, to].into_iter().find_map(last_of_job).map(str::to_string);
        return Err(Refusal::Same { snapshot_id, job });
    }
    Ok(pair)
}

/// Two references compared: `sides`, then `diff_points`.
pub fn compare(h: &TableHistory, from: &str, to: &str) -> Result<SnapshotDiff, Refusal> {
    sides(h, from, to).map(|(a, b)| diff_points(h, a, b))
}
