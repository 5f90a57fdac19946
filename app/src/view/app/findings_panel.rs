//! Findings as cards: what the table shows, what to do, the statement to run; and the Markdown
//! summary for the incident ticket.

use leptos::prelude::*;

use super::AppState;

#[component]
pub fn FindingsPanel(catalog: RwSignal<String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    let typed = move || catalog.get();
    let findings = state.part(|o| o.report.findings.clone());
    let count = move || findings.with(|f| f.as_ref().map_or(0, Vec::len));
    let projection = state.part(|o| o.report.projection.as_ref().map(crate::report::projection::sentence));
    // The Markdown names the catalog typed, as the statements on screen do: rendered again, not patched.
    let md = Memo::new(move |_| {
        let typed = typed();
        state.opened.with(|o| o.as_ref().map(|o| crate::report::inspect::markdown::markdown_in(&o.report, &typed)).unwrap_or_default())
    });
    let copy = move |_| {
        let text = md.get_untracked();
        let Some(w) = web_sys::window() else { return };
        let promise = w.navigator().clipboard().write_text(&text);
        super::tasks::spawn(async move {
            if let Err(e) = wasm_bindgen_futures::JsFuture::from(promise).await {
                state.error(format!("copying to the clipboard failed ({}): select the text below instead", super::fetch::js_message(&e)));
            }
        });
    };
    let cards = move || {
        findings
            .get()
            .unwrap_or_default()
            .into_iter()
            .enumerate()
            .map(|(i, f)| {
                let sev = crate::report::finding::severity_class(f.severity);
                let statement = f.statement.clone();
                let ids = f.snapshot_ids.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
                view! {
                    <article class=format!("finding {sev}") data-testid="finding" data-kind=f.kind.as_str() data-severity=sev
                        tabindex=if i == 0 { "0" } else { "-1" } aria-label=format!("{sev}: {}", f.title)>
                        <h4><span class="badge">{sev}</span>{f.title.clone()}</h4>
                        <p><strong>"What the table shows: "</strong>{f.evidence.clone()}</p>
                        <p><strong>"What to do: "</strong>{f.action.clone()}</p>
                        {statement.map(|s| view! { <pre class="statement" data-testid="statement">{move || s.sql_in(&typed())}</pre> })}
                        {(!ids.is_empty()).then(|| view! { <p class="ids mono">"snapshots: "{ids}</p> })}
                    </article>
                }
            })
            .collect_view()
    };
    view! {
        <section class="findings" id="findings" data-testid="findings" data-count=move || count().to_string()
            role="feed" aria-label="findings" on:keydown=|ev| super::keys::roving(&ev, "article.finding")>
            <div class="findings-head">
                <h3>{move || format!("Findings ({})", count())}</h3>
                <label class="catalog">"Spark catalog "
                    <input type="text" data-testid="catalog-name" prop:value=move || catalog.get()
                        on:input=move |ev| {
                            let typed = event_target_value(&ev);
                            let carried = crate::analysis::statement::catalog_for_link(&typed);
                            super::permalink::set(&[("spark_catalog", carried.as_deref())]);
                            state.spark_catalog_ignored.set(false);
                            catalog.set(typed);
                        }/>
                </label>
                <button data-testid="copy-markdown" on:click=copy>"Copy Markdown summary"</button>
            </div>
            {move || state.spark_catalog_ignored.get().then(|| view! { <p class="warning" data-testid="catalog-ignored">{crate::report::finding::LINK_CATALOG_IGNORED}</p> })}
            <super::export_buttons::ExportButtons catalog=catalog/>
            {move || projection.get().flatten().map(|p| view! { <p class="projection" data-testid="projection">{p}</p> })}
            {move || (count() == 0).then(|| view! { <p class="hint">"Nothing to report: no replay, late data, delete debt or schema hazard in this table's metadata."</p> })}
            {cards}
            <details class="markdown">
                <summary>"Markdown summary"</summary>
                <textarea readonly data-testid="markdown" rows="14">{move || md.get()}</textarea>
            </details>
        </section>
    }
}
