//! Jobs restored from the same state, and jobs writing at the same time.

use super::Words;
use crate::analysis::findings::RestoredWorkCommittedLate;
use crate::report::format::{plural, short_job};

pub(super) fn restored_work_committed_late(f: &RestoredWorkCommittedLate) -> Words {
    let (old, new) = (short_job(&f.old_job_id), short_job(&f.new_job_id));
    let s = plural(f.late_commits);
    Words {
        title: format!("Job {old} committed older checkpoints after job {new} began"),
        evidence: format!(
            "{} commit{s} of job {old} (checkpoint{s} {}) came after job {new}'s first commit (checkpoint {}), with lower \
             checkpoint ids: work restored from the old job, committed under its job id by the new one after a restart, as \
             the dynamic sink does. Not two writers: the ids do not overlap.",
            f.late_commits,
            f.late_checkpoints.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", "),
            f.new_first_checkpoint,
        ),
        action: "Nothing: no rows were written twice.".into(),
    }
}
