//! Slope and projection: what each checkpoint adds, and what a day of checkpoints comes to at the
//! observed interval ("17,280 snapshots, 17,280 manifests, a metadata file past twelve megabytes").

use serde::Serialize;

use crate::model::TableHistory;

/// Growth of each series, per commit or per day.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rates {
    pub snapshots: f64,
    pub manifests: f64,
    pub manifest_bytes: f64,
    pub data_files: f64,
    pub delete_files: f64,
    pub records: f64,
    pub metadata_json_bytes: Option<f64>,
}

impl Rates {
    fn scaled(&self, k: f64) -> Rates {
        Rates {
            snapshots: self.snapshots * k,
            manifests: self.manifests * k,
            manifest_bytes: self.manifest_bytes * k,
            data_files: self.data_files * k,
            delete_files: self.delete_files * k,
            records: self.records * k,
            metadata_json_bytes: self.metadata_json_bytes.map(|b| b * k),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Projection {
    /// The streaming job whose last commits were measured.
    pub job_id: String,
    /// Commits in the window (at most `WINDOW`).
    pub commits: usize,
    pub interval_ms: f64,
    pub per_commit: Rates,
    pub per_day: Rates,
    /// The current metadata.json size and what a day of commits brings it to.
    pub metadata_json_bytes_now: Option<u64>,
    pub metadata_json_bytes_in_a_day: Option<f64>,
}

pub const WINDOW: usize = 20;
const DAY_MS: f64 = 86_400_000.0;

/// None unless the last Flink job committed at least three consecutive snapshots with known counts.
pub fn projection(history: &TableHistory) -> Option<Projection> {
    let last = history.snapshots.iter().rposition(|s| s.flink.is_some())?;
    let job = history.snapshots[last].flink.as_ref()?.job_id.to_string();
    let mut window: Vec<usize> = Vec::new();
    for i in (0..=last).rev() {
        let s = &history.snapshots[i];
        let same_job = s.flink.as_ref().is_some_and(|f| *f.job_id == *job && !f.is_end_of_input());
        if !same_job || !history.totals(i).has_core() || window.len() == WINDOW {
            if s.flink.as_ref().is_some_and(|f| f.is_end_of_input()) && window.is_empty() {
                continue; // the final flush is not a checkpoint interval
            }
            break;
        }
        window.push(i);
    }
    window.reverse();
    if window.len() < 3 {
        return None;
    }
    let (a, b) = (window[0], *window.last()?);
    let steps = (window.len() - 1) as f64;
    let (ca, cb) = (history.totals(a), history.totals(b));
    let (ta, tb) = (history.snapshots[a].snapshot.timestamp_ms, history.snapshots[b].snapshot.timestamp_ms);
    let interval_ms = (tb as f64 - ta as f64) / steps;
    if interval_ms <= 0.0 {
        return None;
    }
    let d = |x: Option<u64>, y: Option<u64>| match (x, y) {
        (Some(x), Some(y)) => (y as f64 - x as f64) / steps,
        _ => 0.0,
    };
    // metadata.json sizes written during the window: each commit writes one.
    let sizes: Vec<&crate::model::MetadataSize> = history.metadata_sizes.iter().filter(|m| m.timestamp_ms >= ta && m.timestamp_ms <= tb).collect();
    let metadata_json_bytes = (sizes.len() >= 2).then(|| (sizes[sizes.len() - 1].bytes as f64 - sizes[0].bytes as f64) / (sizes.len() - 1) as f64);
    let per_commit = Rates {
        snapshots: 1.0,
        manifests: d(ca.manifests, cb.manifests),
        manifest_bytes: d(ca.manifest_bytes, cb.manifest_bytes),
        data_files: d(ca.data_files, cb.data_files),
        delete_files: d(ca.deletes(), cb.deletes()),
        records: d(ca.records, cb.records),
        metadata_json_bytes,
    };
    let per_day = per_commit.scaled(DAY_MS / interval_ms);
    let now = history.metadata_sizes.last().map(|m| m.bytes);
    Some(Projection {
        job_id: job,
        commits: window.len(),
        interval_ms,
        metadata_json_bytes_in_a_day: now.zip(per_day.metadata_json_bytes).map(|(n, g)| n as f64 + g),
        metadata_json_bytes_now: now,
        per_commit,
        per_day,
    })
}
