//! Findings as cards: what the table shows, what to do, the statement to run; and the Markdown
//! summary for the incident ticket.

use leptos::prelude::*;

use crate::analysis::findings::{thousands, Severity};

use super::{AppState, Opened};

#[component]
pub fn FindingsPanel(opened: Opened, catalog: RwSignal<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    // The typed name is quoted like every other name in a statement; one that cannot be keeps the placeholder.
    let quoted = move || {
        let typed = catalog.get();
        match typed.trim() {
            "" | "<catalog>" => "<catalog>".to_string(),
            name => crate::analysis::sql::ident(name).unwrap_or_else(|| "<catalog>".into()),
        }
    };
    let with_catalog = move |s: &str| s.replace("CALL <catalog>.", &format!("CALL {}.", quoted()));
    let findings = opened.report.findings.clone();
    let count = findings.len();
    let markdown = opened.markdown.clone();
    let md = move || markdown.replace("<catalog>", &quoted());
    let md_for_copy = md.clone();
    let copy = move |_| {
        let text = md_for_copy();
        let Some(w) = web_sys::window() else { return };
        let promise = w.navigator().clipboard().write_text(&text);
        leptos::task::spawn_local(async move {
            if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
                state.error(format!("copying to the clipboard failed ({}): select the text below instead", super::fetch::js_message(&e)));
            }
        });
    };
    let projection = opened.report.projection.clone().map(|p| {
        let d = &p.per_day;
        format!(
            "At one commit every {:.1} s (job {}…, last {} commits), a day adds {} snapshots, {} manifests, {} data files and {} delete files{}.",
            p.interval_ms / 1000.0,
            p.job_id.chars().take(8).collect::<String>(),
            p.commits,
            thousands(d.snapshots.round() as u64),
            thousands(d.manifests.max(0.0).round() as u64),
            thousands(d.data_files.max(0.0).round() as u64),
            thousands(d.delete_files.max(0.0).round() as u64),
            p.metadata_json_bytes_in_a_day.map(|b| format!("; the metadata.json, read on every load, reaches {:.1} MB", b / 1_048_576.0)).unwrap_or_default()
        )
    });
    view! {
        <section class="findings" id="findings" data-testid="findings" data-count=count.to_string()
            role="feed" aria-label="findings" on:keydown=|ev| super::keys::roving(&ev, "article.finding")>
            <div class="findings-head">
                <h3>{format!("Findings ({count})")}</h3>
                <label class="catalog">"Spark catalog "
                    <input type="text" data-testid="catalog-name" prop:value=move || catalog.get()
                        on:input=move |ev| catalog.set(event_target_value(&ev))/>
                </label>
                <button data-testid="copy-markdown" on:click=copy>"Copy Markdown summary"</button>
            </div>
            <super::export_buttons::ExportButtons catalog=catalog/>
            {projection.map(|p| view! { <p class="projection" data-testid="projection">{p}</p> })}
            {(count == 0).then(|| view! { <p class="hint">"Nothing to report: no replay, late data, delete debt or schema hazard in this table's metadata."</p> })}
            {findings.into_iter().enumerate().map(|(i, f)| {
                let sev = match f.severity { Severity::Critical => "critical", Severity::Warning => "warning", Severity::Info => "info" };
                let statement = f.statement.clone();
                let ids = f.snapshot_ids.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
                view! {
                    <article class=format!("finding {sev}") data-testid="finding" data-kind=f.kind data-severity=sev
                        tabindex=if i == 0 { "0" } else { "-1" } aria-label=format!("{sev}: {}", f.title)>
                        <h4><span class="badge">{sev}</span>{f.title.clone()}</h4>
                        <p><strong>"What the table shows: "</strong>{f.evidence.clone()}</p>
                        <p><strong>"What to do: "</strong>{f.action.clone()}</p>
                        {statement.map(|s| view! { <pre class="statement" data-testid="statement">{move || with_catalog(&s)}</pre> })}
                        {(!ids.is_empty()).then(|| view! { <p class="ids mono">"snapshots: "{ids}</p> })}
                    </article>
                }
            }).collect_view()}
            <details class="markdown">
                <summary>"Markdown summary"</summary>
                <textarea readonly data-testid="markdown" rows="14">{move || md()}</textarea>
            </details>
        </section>
    }
}
