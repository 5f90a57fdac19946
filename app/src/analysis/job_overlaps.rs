//! Where two Flink jobs' commits cover the same ground: the same checkpoint ids (a job restored
//! from state another had committed past), or the same stretch of commits (two writers at once).
//! The charts draw these; the findings judge them.

use serde::Serialize;

use super::jobs::JobSpan;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobOverlap {
    /// Indexes into the job list: the later job (by first commit) and the earlier one.
    pub job: usize,
    pub earlier: usize,
    /// The lowest and highest checkpoint id both jobs committed, and how many ids both did.
    pub checkpoints: Option<(i64, i64, usize)>,
    /// The later job began committing before the earlier one's last commit.
    pub interleaved: bool,
}

/// Every pair of jobs that share checkpoint ids or interleave, later job first, in job order.
pub fn job_overlaps(jobs: &[JobSpan]) -> Vec<JobOverlap> {
    let mut out = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        for (e, earlier) in jobs.iter().enumerate().take(k) {
            // Both lists are ascending: one merge walk finds the ids in common.
            let (mut a, mut b, mut common) = (0, 0, Vec::new());
            while let (Some(&x), Some(&y)) = (job.checkpoint_ids.get(a), earlier.checkpoint_ids.get(b)) {
                match x.cmp(&y) {
                    std::cmp::Ordering::Less => a += 1,
                    std::cmp::Ordering::Greater => b += 1,
                    std::cmp::Ordering::Equal => {
                        common.push(x);
                        a += 1;
                        b += 1;
                    }
                }
            }
            let checkpoints = common.first().zip(common.last()).map(|(&lo, &hi)| (lo, hi, common.len()));
            let interleaved = job.snapshot_indexes.first().zip(earlier.snapshot_indexes.last()).is_some_and(|(f, l)| f < l);
            if checkpoints.is_some() || interleaved {
                out.push(JobOverlap { job: k, earlier: e, checkpoints, interleaved });
            }
        }
    }
    out
}

/// True where this commit of `job` repeats a checkpoint id an earlier job committed.
pub fn replayed_checkpoint(overlaps: &[JobOverlap], jobs: &[JobSpan], job: usize, checkpoint: i64) -> bool {
    overlaps
        .iter()
        .filter(|o| o.job == job && !o.interleaved && o.checkpoints.is_some())
        .any(|o| jobs.get(o.earlier).is_some_and(|e| e.checkpoint_ids.binary_search(&checkpoint).is_ok()))
}
