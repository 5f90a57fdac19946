//! Snapshots in Spark's `snapshots` table vocabulary, plus the live counts icescope adds and where
//! each row's numbers come from. Newest first, a page at a time: a day of checkpoints is 17,280 rows.

use leptos::prelude::*;

use super::loader::{request, Ask};
use super::AppState;

pub const PAGE: usize = 200;

/// Reads the open report through the signal and keeps no copy of it: the report being replaced is
/// freed before the next is built (a day of checkpoints holds two otherwise).
#[component]
pub fn SnapshotTable(shown: RwSignal<usize>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let n = |v: Option<u64>| v.map(|x| x.to_string()).unwrap_or_default();
    let total = move || state.opened.with(|o| o.as_ref().map_or(0, |o| o.report.snapshots.len()));
    let limit = move || shown.get().min(total());
    let rows = move || {
        let limit = limit();
        state.opened.with(|o| {
            o.as_ref().map(|opened| {
                opened
        .report
        .snapshots
        .iter()
        .zip(opened.summaries.iter())
        .enumerate()
        .rev()
        .take(limit)
        .enumerate()
        .map(|(shown_at, (index, (s, summary)))| {
            let first = shown_at == 0;
            let parent = s.parent_id.map(|p| p.to_string()).unwrap_or_default();
            let checkpoint = s.flink_checkpoint_id.map(|c| if c == i64::MAX { "end of input".to_string() } else { c.to_string() }).unwrap_or_default();
            let job = s.flink_job_id.clone().unwrap_or_default();
            // A pair a line; a line break inside a value is shown, not followed, so it cannot fake a pair.
            let visible = crate::report::text::visible;
            let summary_text = summary.iter().map(|(k, v)| format!("{}={}", visible(k), visible(v))).collect::<Vec<_>>().join("\n");
            let t = s.totals();
            let from = t.source.map(|c| c.label()).unwrap_or("unknown");
            let exact = t.source == Some(crate::model::CountSource::Manifests);
            view! {
                <tr data-testid="snapshot-row" tabindex=if first { "0" } else { "-1" } data-snapshot-id=s.snapshot_id.to_string() data-counts-from=from
                    data-records=n(t.records) data-data-files=n(t.data_files) data-manifests=n(t.manifests)>
                    <td class="mono">{s.committed_at.to_string()}</td>
                    <td class="mono">{s.snapshot_id.to_string()}</td>
                    <td class="mono">{parent}</td>
                    <td>{s.operation.to_string()}</td>
                    <td title=s.writer_evidence data-testid="writer">{s.writer.label()}</td>
                    <td class="mono" title=job.clone()>{job.chars().take(8).collect::<String>()}</td>
                    <td class="num">{checkpoint}</td>
                    <td class="num">{n(t.manifests)}</td>
                    <td class="num">{n(t.data_files)}</td>
                    <td class="num">{n(t.position_delete_files)}</td>
                    <td class="num">{n(t.equality_delete_files)}</td>
                    <td class="num">{n(t.deletion_vectors)}</td>
                    <td class="num">{n(t.records)}</td>
                    <td class="from">{if exact {
                        view! { <span>{from}</span> }.into_any()
                    } else {
                        view! { <span>{from}" "<button class="link" data-testid="count-snapshot" title="read this snapshot's manifests"
                            on:click=move |_| request(state, Ask::Select(index))>"count"</button></span> }.into_any()
                    }}</td>
                    <td class="summary"><details><summary>"summary"</summary><code>{summary_text}</code></details></td>
                </tr>
            }
        })
        .collect_view()
            })
        })
    };
    let more = move || {
        let (limit, total) = (limit(), total());
        (limit < total).then(|| {
            view! {
                <p class="hint" data-testid="more-snapshots">{format!("Newest {limit} of {total} snapshots. ")}
                    <button class="link" on:click=move |_| shown.update(|s| *s += PAGE * 5)>"show older"</button>
                </p>
            }
        })
    };
    view! {
        <table class="snapshots" aria-label="snapshots, newest first" on:keydown=|ev| super::keys::roving(&ev, "tr[data-testid=snapshot-row]")>
            <thead><tr>
                <th>"committed_at"</th><th>"snapshot_id"</th><th>"parent_id"</th><th>"operation"</th><th>"writer"</th>
                <th>"flink.job-id"</th><th>"checkpoint"</th><th>"manifests"</th><th>"data files"</th>
                <th>"pos. deletes"</th><th>"eq. deletes"</th><th>"DVs"</th><th>"records"</th><th>"numbers from"</th><th>"summary"</th>
            </tr></thead>
            <tbody>{rows}</tbody>
        </table>
        {more}
    }
}
