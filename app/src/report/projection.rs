//! The growth projection in one sentence, for the Markdown, the terminal and the app's panel.

use super::text::thousands;
use crate::analysis::projection::Projection;

pub fn sentence(p: &Projection) -> String {
    let (c, d) = (&p.per_commit, &p.per_day);
    let whole = |v: f64| thousands(v.max(0.0).round() as u64);
    format!(
        "Over the last {} commits of job {} (one every {:.1} s), each commit added {:.1} manifests, {:.1} data files and {:.1} \
         delete files{}. A day at that rate: {} snapshots, {} manifests, {} data files, {} delete files{}.",
        p.commits,
        p.job_id,
        p.interval_ms / 1000.0,
        c.manifests,
        c.data_files,
        c.delete_files,
        c.metadata_json_bytes.map(|b| format!(", and the metadata.json grew {:.1} KB", b / 1024.0)).unwrap_or_default(),
        whole(d.snapshots),
        whole(d.manifests),
        whole(d.data_files),
        whole(d.delete_files),
        p.metadata_json_bytes_in_a_day.map(|b| format!(", a metadata.json of {:.1} MB read on every load", b / 1_048_576.0)).unwrap_or_default(),
    )
}
