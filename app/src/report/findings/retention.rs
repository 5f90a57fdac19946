//! Snapshot count and metadata.json size against the table's own retention properties, and the
//! newest job's restore point against them.

use super::Words;
use crate::analysis::findings::{RestorePointExpiry, Retention};
use crate::model::flink::END_OF_INPUT_CHECKPOINT;
use crate::model::time::rfc3339_ms;
use crate::report::format::{plural, short_job, thousands};

pub(super) fn retention(f: &Retention) -> Words {
    Words {
        title: format!("{} snapshots, {} past the table's retention", thousands(f.snapshots), thousands(f.expirable)),
        evidence: format!(
            "{} snapshots are kept; {} are older than history.expire.max-snapshot-age-ms ({} h) at the newest commit. The \
             metadata.json is {} KB and is read on every load and rewritten on every commit.",
            thousands(f.snapshots),
            thousands(f.expirable),
            f.max_snapshot_age_ms / 3_600_000,
            f.metadata_bytes / 1024
        ),
        action: "Expire snapshots on a schedule with the table's own properties (no arguments), and remove the files they free.".into(),
    }
}

pub(super) fn restore_point_expiry(f: &RestorePointExpiry) -> Words {
    let job = short_job(&f.job_id);
    let cp = match f.checkpoint_id {
        Some(END_OF_INPUT_CHECKPOINT) => "its end-of-input commit".to_string(),
        Some(c) => format!("checkpoint {c}"),
        None => "its last commit".to_string(),
    };
    Words {
        title: if f.expirable {
            format!("Job {job}'s last committed checkpoint is past the retention")
        } else {
            format!("Job {job}'s last committed checkpoint passes the retention at {}", rfc3339_ms(f.expires_at_ms))
        },
        evidence: format!(
            "snapshot {} carries {cp} of job {job}; {} commit{} by others followed it. With history.expire.max-snapshot-age-ms {} h \
             and min-snapshots-to-keep {}, expire_snapshots {}. A restore of this job from a savepoint or checkpoint \
             walks back from the current snapshot for its flink.max-committed-checkpoint-id: without this snapshot it finds \
             none and commits the restored checkpoints again (apache/iceberg#5846), duplicating their rows.",
            f.snapshot_id,
            thousands(f.commits_after),
            plural(f.commits_after),
            f.max_snapshot_age_ms / 3_600_000,
            f.min_snapshots_to_keep,
            if f.expirable { "now removes it".to_string() } else { format!("removes it from {}", rfc3339_ms(f.expires_at_ms)) },
        ),
        action: "Resume or finish the job before its restore point expires (its next commit carries the id forward), or keep \
                 more snapshots: retain_last past the commits made since."
            .into(),
    }
}
