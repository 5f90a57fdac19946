//! Two snapshots side by side: what changed between them, for the view and the ticket. The loader
//! reads both snapshots' files and computes the diff (`analysis::diff`), worded by `report::diff`; this only draws it.

use leptos::prelude::*;

use super::loader::{request, Ask};
use super::AppState;

#[component]
pub fn Compare(from: RwSignal<String>, to: RwSignal<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let go = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let (a, b) = (from.get_untracked(), to.get_untracked());
        super::permalink::set(&[("from", Some(&a)), ("to", Some(&b))]);
        request(state, Ask::Compare(a, b));
    };
    let diff = state.part(|o| o.diff.clone());
    let result = move || {
        diff.get().flatten().map(|r| match &*r {
        Err(e) => view! { <p class="error" data-testid="diff-error">{e.clone()}</p> }.into_any(),
        Ok((d, md)) => {
            let t = &d.totals;
            let line = format!("{}; {} commit(s) in between.", crate::report::diff::sentence(t), d.between_total);
            let schema = d.schema.as_ref().map(|s| {
                let same = |v: &str| v.to_string();
                format!("Schema {} → {}: {}", s.from_schema_id, s.to_schema_id, crate::report::diff::schema_parts(s, &same, &same, "→").join("; "))
            });
            view! {
                <div data-testid="diff" data-exact=d.exact.to_string() data-from=crate::report::diff::side_id(&d.from) data-to=crate::report::diff::side_id(&d.to) data-records-added=t.records_added.to_string()
                    data-records-removed=t.records_removed.to_string() data-data-files-added=t.data_files_added.to_string()
                    data-data-files-removed=t.data_files_removed.to_string() data-delete-files-added=t.delete_files_added.to_string()
                    data-delete-files-removed=t.delete_files_removed.to_string() data-between=d.between_total.to_string()>
                    <p data-testid="diff-sides">{crate::report::diff::sides_line(d)}</p>
                    {d.backwards.then(|| view! { <p class="warning" data-testid="diff-backwards">{crate::report::diff::BACKWARDS}</p> })}
                    {(!d.exact).then(|| view! { <p class="error">{format!("Not exact: {}", d.missing.join("; "))}</p> })}
                    <p><strong>{line}</strong></p>
                    {schema.map(|s| view! { <p data-testid="diff-schema">{s}</p> })}
                    <table class="snapshots"><thead><tr><th>"partition"</th>{crate::report::diff::COLUMNS.map(|c| view! { <th>{c}</th> })}</tr></thead>
                        <tbody>{d.partitions.iter().take(200).map(|p| view! {
                            <tr><td class="mono">{p.partition.clone()}</td>{p.changes.cells().map(|v| view! { <td class="num">{v}</td> })}</tr>
                        }).collect_view()}</tbody></table>
                    <details class="markdown"><summary>"Markdown for the ticket"</summary><textarea readonly rows="12" data-testid="diff-markdown">{md.clone()}</textarea></details>
                </div>
            }
            .into_any()
        }
    })
    };
    view! {
        <section class="compare" data-testid="compare">
            <h3>"Compare two snapshots"</h3>
            <form class="pickers" on:submit=go>
                <label>"from "<input type="text" data-testid="diff-from" prop:value=move || from.get() on:input=move |ev| from.set(event_target_value(&ev))/></label>
                <label>"to "<input type="text" data-testid="diff-to" prop:value=move || to.get() on:input=move |ev| to.set(event_target_value(&ev))/></label>
                <button type="submit" data-testid="diff-run">"Compare"</button>
                <span class="hint">"a snapshot id, current, parent, job:<id prefix> (its last commit), first:<id prefix> (just before the job), last:<id prefix>, checkpoint:<n> or checkpoint:<n>@<job id prefix>; job:<id prefix> with the other side empty: what the job added"</span>
            </form>
            {result}
        </section>
    }
}
