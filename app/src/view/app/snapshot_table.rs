//! Snapshots in Spark's `snapshots` table vocabulary, plus the live counts icescope adds.

use leptos::prelude::*;

use super::Opened;

#[component]
pub fn SnapshotTable(opened: Opened) -> impl IntoView {
    let n = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let rows = opened
        .report
        .snapshots
        .iter()
        .zip(opened.summaries.iter())
        .rev()
        .map(|(s, summary)| {
            let parent = s.parent_id.map(|p| p.to_string()).unwrap_or_default();
            let checkpoint = s.flink_checkpoint_id.map(|c| if c == i64::MAX { "end of input".to_string() } else { c.to_string() }).unwrap_or_default();
            let job = s.flink_job_id.clone().unwrap_or_default();
            let summary_text = summary.iter().filter(|(k, _)| k != "operation").map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("  ");
            view! {
                <tr data-testid="snapshot-row" data-snapshot-id=s.snapshot_id.to_string()
                    data-records=n(s.records) data-data-files=n(s.data_files) data-manifests=n(s.manifests)>
                    <td class="mono">{s.committed_at.clone()}</td>
                    <td class="mono">{s.snapshot_id.to_string()}</td>
                    <td class="mono">{parent}</td>
                    <td>{s.operation.clone()}</td>
                    <td class="mono" title=job.clone()>{job.chars().take(8).collect::<String>()}</td>
                    <td class="num">{checkpoint}</td>
                    <td class="num">{n(s.manifests)}</td>
                    <td class="num">{n(s.data_files)}</td>
                    <td class="num">{n(s.position_delete_files)}</td>
                    <td class="num">{n(s.equality_delete_files)}</td>
                    <td class="num">{n(s.deletion_vectors)}</td>
                    <td class="num">{n(s.records)}</td>
                    <td class="summary"><details><summary>"summary"</summary><code>{summary_text}</code></details></td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="snapshots">
            <thead><tr>
                <th>"committed_at"</th><th>"snapshot_id"</th><th>"parent_id"</th><th>"operation"</th>
                <th>"flink.job-id"</th><th>"checkpoint"</th><th>"manifests"</th><th>"data files"</th>
                <th>"pos. deletes"</th><th>"eq. deletes"</th><th>"DVs"</th><th>"records"</th><th>"summary"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
