//! Small files beyond one per partition (the fleet score).

use super::{partial_note, Words};
use crate::analysis::findings::SmallFiles;
use crate::report::format::thousands;

pub(super) fn small_files(f: &SmallFiles) -> Words {
    let partial = partial_note(f.unread_files, f.snapshot_id);
    Words {
        title: format!("{}{} data files beyond one per partition", if partial.is_empty() { "" } else { "At least " }, thousands(f.score)),
        evidence: format!(
            "{} live data files in {} partitions (fleet score {}), {} bytes each on average: {}{partial}",
            thousands(f.live_data_files),
            f.partitions,
            thousands(f.score),
            thousands(f.average_bytes),
            if f.streaming {
                "a streaming writer leaves a file per partition touched per checkpoint."
            } else {
                "each write leaves at least a file per partition it touches, and small writes leave small files."
            }
        ),
        action: if f.streaming {
            "Compact hourly with partial progress, scoped to the partitions the writer fills (and a wider pass for late data).".into()
        } else {
            "Compact with partial progress after the writes, scoped to the partitions they touched.".into()
        },
    }
}
