//! Checkpoint ids as committed: the end-of-input commit, and holes in a job's sequence.

use super::Words;
use crate::analysis::findings::{CheckpointGaps, EndOfInputCommit, IdRange};
use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::report::format::{capped_list, plural, short_job, thousands};

pub(super) fn end_of_input(f: &EndOfInputCommit) -> Words {
    let each = f.jobs.first.iter().map(|j| {
        format!(
            "snapshot {} of job {} (after checkpoint {})",
            j.snapshot_id.map(|s| s.to_string()).unwrap_or_default(),
            short_job(&j.job_id),
            j.last_checkpoint.map(|c| c.to_string()).unwrap_or_else(|| "none".into())
        )
    });
    let many = f.jobs.total > 1;
    Words {
        title: format!("End-of-input commit{}: checkpoint id {END_OF_INPUT_CHECKPOINT}", if many { "s" } else { "" }),
        evidence: format!(
            "{} carr{} flink.max-committed-checkpoint-id {END_OF_INPUT_CHECKPOINT} (Long.MAX_VALUE): the final flush of a \
             bounded job, committed after its last checkpoint, not a checkpoint id.",
            capped_list(each, f.jobs.total, "jobs' final commits"),
            if many { "y" } else { "ies" }
        ),
        action: "Nothing: the job finished. Exclude this value from monitoring that expects small checkpoint ids.".into(),
    }
}

fn label(r: &IdRange) -> String {
    if r.from == r.to {
        r.from.to_string()
    } else {
        format!("{}–{}", r.from, r.to)
    }
}

pub(super) fn gaps(f: &CheckpointGaps) -> Words {
    let ranges = capped_list(f.holes.first.iter().map(label), f.holes.total, "holes");
    let secs = |ms: i64| format!("{:.1} s", ms as f64 / 1000.0);
    let paused = &f.paused;
    let schedule = if paused.total == 0 {
        format!(
            "The commits either side of {} came on the job's usual schedule (no pause for a restart): what a savepoint \
             taken without stopping the job leaves (Flink 2.x commits nothing for it; its files go in with the next \
             checkpoint), a checkpoint that was declined or had nothing to commit, or, with IcebergSink, checkpoints whose \
             commit was still pending folded into the next snapshot. No files are lost or orphaned by that.",
            if f.holes.total == 1 { "the hole" } else { "every hole" }
        )
    } else {
        format!(
            "Around {} the commits paused ({}) longer than the job's spacing predicts: what a failed checkpoint \
             followed by a restore looks like (IcebergSink folding checkpoints behind a slow commit pauses them too, and \
             orphans nothing). Files written for a failed checkpoint are never committed (orphans).{}",
            capped_list(paused.first.iter().map(|p| label(&p.ids)), paused.total, "holes"),
            capped_list(
                paused.first.iter().map(|p| format!("{} instead of about {}", secs(p.gap_ms), p.expected_ms.map(secs).unwrap_or_else(|| "?".into()))),
                paused.total,
                "pauses"
            ),
            if paused.total < f.holes.total { " The other holes came on schedule (a savepoint without stop, or a declined checkpoint)." } else { "" }
        )
    };
    let job = short_job(&f.job_id);
    Words {
        title: format!("Checkpoint{} {ranges} of job {job} committed nothing", plural(f.missing_ids)),
        evidence: format!(
            "job {job} committed checkpoints {}–{} but not {ranges} ({} id{}). {schedule} The Flink job's checkpoint history \
             (/jobs/:id/checkpoints) says which it was.",
            f.first_checkpoint.unwrap_or(0),
            f.last_checkpoint.unwrap_or(0),
            thousands(f.missing_ids),
            plural(f.missing_ids),
        ),
        action: if paused.total == 0 {
            "Nothing, unless the checkpoint history shows failures: a savepoint or a declined checkpoint loses no rows and leaves no files behind.".into()
        } else {
            "Nothing is lost (the rows re-commit after the restore), but the files written before the failure are \
             orphans: schedule remove_orphan_files past the longest recovery."
                .into()
        },
    }
}
