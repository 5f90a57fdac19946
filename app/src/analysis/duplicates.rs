//! Duplicate keys, counted from the rows: how many live rows, how many distinct keys, which keys
//! are present more than once, and which Flink jobs (the `flink.job-id` of the snapshot that added
//! each copy) wrote the copies. Exact while the keys fit a budget; beyond it, distinct keys are
//! estimated with a HyperLogLog sketch and the report says so, with the sketch's error.

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

use serde::Serialize;

use crate::decode::job::KeyRows;
use crate::model::live_rows::{DeleteHit, RowSink};
use crate::model::{LiveFile, TableHistory};

use crate::model::live_rows::ScanResult;

/// Keys kept exactly: ~60 bytes each, so the default is ~120 MB at most, within a browser tab.
pub const DEFAULT_KEY_BUDGET: usize = 2_000_000;
/// Label of copies added by a snapshot without a `flink.job-id` (Spark, maintenance, …).
pub const NO_JOB: &str = "(no flink.job-id)";

/// The key columns: the ones named (`--key id,region`) or the schema's `identifier-field-ids`.
pub fn resolve_keys(history: &TableHistory, named: Option<&[String]>) -> Result<Vec<(i32, String)>, String> {
    let schema = history.metadata.current_schema().ok_or("the table has no current schema")?;
    match named {
        Some(names) if !names.is_empty() => names
            .iter()
            .map(|n| {
                let all = schema.all_fields();
                all.iter().find(|(full, _)| full == n).map(|(full, f)| (f.id, full.clone())).ok_or_else(|| {
                    format!("--key {n}: no such column in the current schema (columns: {})", all.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", "))
                })
            })
            .collect(),
        _ if !schema.identifier_field_ids.is_empty() => schema
            .identifier_field_ids
            .iter()
            .map(|&id| {
                schema
                    .all_fields()
                    .into_iter()
                    .find(|(_, f)| f.id == id)
                    .map(|(n, f)| (f.id, n))
                    .ok_or_else(|| format!("identifier field id {id} is not in the current schema"))
            })
            .collect(),
        _ => Err("the table's schema names no identifier fields: choose the key columns (--key col[,col])".into()),
    }
}

/// How the copies of duplicated keys split over jobs: e.g. {job B: 1, job C: 1} for 72,726 keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobSplit {
    /// (job id or `NO_JOB`, copies of each key that job's snapshots added), in job start order.
    pub copies_by_job: Vec<(String, u32)>,
    pub keys: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DuplicateReport {
    pub snapshot_id: crate::decode::SnapshotId,
    pub key_columns: Vec<String>,
    /// Live rows after deletes.
    pub rows: u64,
    pub rows_in_files: u64,
    pub rows_deleted: u64,
    pub distinct_keys: u64,
    /// Keys present more than once; None once the count went past the budget.
    pub duplicated_keys: Option<u64>,
    pub exact: bool,
    /// Where not exact: what was estimated and how well.
    pub estimate: Option<String>,
    pub by_jobs: Vec<JobSplit>,
    pub delete_hits: Vec<DeleteHit>,
    pub files_read: u64,
    pub bytes_fetched: u64,
    pub bytes_in_files: u64,
    /// Ranged requests the server answered with the whole file: why more can be fetched than
    /// the files hold.
    pub whole_file_answers: u64,
    pub cancelled: bool,
}

#[derive(Clone, Copy)]
struct Copies {
    n: u32,
    jobs: [u16; 2],
}

/// Counts keys as batches arrive (a `RowSink` for the loader's scan).
pub struct KeyCounter<'h> {
    history: &'h TableHistory,
    budget: usize,
    jobs: Vec<String>,
    job_of: HashMap<Option<i64>, u16>,
    map: HashMap<Box<[u8]>, Copies>,
    /// Jobs of every copy of keys present more than twice.
    more: HashMap<Box<[u8]>, Vec<u16>>,
    sketch: Option<Hll>,
    rows: u64,
}

impl<'h> KeyCounter<'h> {
    pub fn new(history: &'h TableHistory, budget: usize) -> Self {
        KeyCounter { history, budget, jobs: Vec::new(), job_of: HashMap::new(), map: HashMap::new(), more: HashMap::new(), sketch: None, rows: 0 }
    }

    fn job(&mut self, adder: Option<i64>) -> u16 {
        if let Some(&j) = self.job_of.get(&adder) {
            return j;
        }
        let label = adder
            .and_then(|id| self.history.index_of_avro_id(id))
            .and_then(|i| self.history.snapshots[i].flink.as_ref())
            .map(|f| f.job_id.to_string())
            .unwrap_or_else(|| NO_JOB.to_string());
        let j = match self.jobs.iter().position(|l| *l == label) {
            Some(j) => j,
            None => {
                self.jobs.push(label);
                self.jobs.len() - 1
            }
        };
        // 65,536 distinct jobs in one table would be a report nobody reads: the rest share the last.
        let j = u16::try_from(j).unwrap_or(u16::MAX);
        self.job_of.insert(adder, j);
        j
    }

    fn add(&mut self, key: &[u8], job: u16) {
        self.rows += 1;
        if let Some(h) = &mut self.sketch {
            h.insert(key);
            return;
        }
        match self.map.get_mut(key) {
            Some(c) => {
                c.n = c.n.saturating_add(1);
                if c.n == 2 {
                    c.jobs[1] = job;
                } else {
                    let e = self.more.entry(key.into()).or_insert_with(|| c.jobs.to_vec());
                    e.push(job);
                }
            }
            None => {
                self.map.insert(key.into(), Copies { n: 1, jobs: [job, 0] });
                if self.map.len() > self.budget {
                    // Past the budget: every key so far goes into the sketch, the exact map goes.
                    let mut h = Hll::new();
                    for k in self.map.keys() {
                        h.insert(k);
                    }
                    self.sketch = Some(h);
                    self.map = HashMap::new();
                    self.more = HashMap::new();
                }
            }
        }
    }

    /// The report, once the scan is over.
    pub fn finish(self, snapshot_id: crate::decode::SnapshotId, key_columns: Vec<String>, scan: ScanResult) -> DuplicateReport {
        let (distinct, duplicated, estimate, by_jobs) = match &self.sketch {
            Some(h) => (
                h.estimate(),
                None,
                Some(format!(
                    "more than {} distinct keys: distinct keys estimated with a HyperLogLog sketch of {} registers (standard error ±{:.2} %); keys present more than once and the split by job are not counted past the budget",
                    self.budget,
                    Hll::REGISTERS,
                    Hll::relative_error() * 100.0
                )),
                Vec::new(),
            ),
            None => {
                let mut splits: BTreeMap<Vec<(u16, u32)>, u64> = BTreeMap::new();
                let mut duplicated = 0u64;
                for (k, c) in &self.map {
                    if c.n < 2 {
                        continue;
                    }
                    duplicated += 1;
                    let jobs: Vec<u16> = if c.n == 2 { c.jobs.to_vec() } else { self.more.get(k).cloned().unwrap_or_default() };
                    let mut per: BTreeMap<u16, u32> = BTreeMap::new();
                    for j in jobs {
                        *per.entry(j).or_default() += 1;
                    }
                    *splits.entry(per.into_iter().collect()).or_default() += 1;
                }
                let mut by_jobs: Vec<JobSplit> = splits
                    .into_iter()
                    .map(|(per, keys)| JobSplit { copies_by_job: per.into_iter().map(|(j, n)| (self.jobs.get(j as usize).cloned().unwrap_or_default(), n)).collect(), keys })
                    .collect();
                by_jobs.sort_by_key(|s| std::cmp::Reverse(s.keys));
                (self.map.len() as u64, Some(duplicated), None, by_jobs)
            }
        };
        DuplicateReport {
            snapshot_id,
            key_columns,
            rows: self.rows,
            rows_in_files: scan.rows_in_files,
            rows_deleted: scan.rows_deleted,
            distinct_keys: distinct,
            duplicated_keys: duplicated,
            exact: self.sketch.is_none(),
            estimate,
            by_jobs,
            delete_hits: scan.hits,
            files_read: scan.fetched.files,
            bytes_fetched: scan.fetched.bytes_fetched,
            bytes_in_files: scan.fetched.bytes_in_files,
            whole_file_answers: scan.fetched.whole_answers,
            cancelled: scan.cancelled,
        }
    }
}

impl RowSink for KeyCounter<'_> {
    fn batch(&mut self, file: &LiveFile<'_>, keys: &KeyRows, live: &[bool]) -> Result<(), String> {
        let job = self.job(file.added_snapshot_id);
        for (key, alive) in keys.iter().zip(live) {
            if *alive {
                self.add(key, job);
            }
        }
        Ok(())
    }
}

/// HyperLogLog (Flajolet et al. 2007) with 2^14 one-byte registers: 16 KB whatever the key count.
struct Hll {
    registers: Vec<u8>,
}

impl Hll {
    const P: u32 = 14;
    const REGISTERS: usize = 1 << Self::P;

    fn new() -> Self {
        Hll { registers: vec![0; Self::REGISTERS] }
    }

    fn relative_error() -> f64 {
        1.04 / (Self::REGISTERS as f64).sqrt()
    }

    fn insert(&mut self, key: &[u8]) {
        // SipHash with fixed keys: the same key always lands in the same register.
        let mut h = std::hash::DefaultHasher::new();
        key.hash(&mut h);
        let x = h.finish();
        let index = (x >> (64 - Self::P)) as usize;
        let rank = ((x << Self::P) | (1 << (Self::P - 1))).leading_zeros() as u8 + 1;
        if let Some(r) = self.registers.get_mut(index) {
            *r = (*r).max(rank);
        }
    }

    fn estimate(&self) -> u64 {
        let m = Self::REGISTERS as f64;
        let alpha = 0.7213 / (1.0 + 1.079 / m);
        let sum: f64 = self.registers.iter().map(|&r| 2f64.powi(-i32::from(r))).sum();
        let raw = alpha * m * m / sum;
        let zeros = self.registers.iter().filter(|&&r| r == 0).count();
        // Small ranges: linear counting is the better estimate.
        let e = if raw <= 2.5 * m && zeros > 0 { m * (m / zeros as f64).ln() } else { raw };
        e.round() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sketch_stays_within_its_error() {
        let mut h = Hll::new();
        for i in 0u64..200_000 {
            h.insert(&i.to_le_bytes());
        }
        let e = h.estimate() as f64;
        assert!((e - 200_000.0).abs() / 200_000.0 < 4.0 * Hll::relative_error(), "{e}");
    }
}
