//! The catalog through `icescope serve`: when the page was opened at the address serve printed,
//! the catalog is the one named on its command line, its credential stays in that process, and
//! the page lists and opens tables through the relay on its own origin. Otherwise, the form.

use super::tasks::spawn;
use leptos::prelude::*;

use crate::source::browser::relay::{self, RelayFiles};
use crate::source::relay::{Hello, Listing};

use super::files::TableFiles;
use super::loader::open_table;
use super::AppState;

/// The relay's catalog panel if this page has one, else the catalog form.
#[component]
pub fn CatalogOrRelay() -> impl IntoView {
    if relay::take_token().is_none() {
        return view! { <super::catalog::CatalogPanel/> }.into_any();
    }
    // The panel shows as soon as the relay answers; the catalog's listing follows inside it.
    let found = LocalResource::new(relay::detect);
    view! {
        <Suspense fallback=|| ()>
            {move || found.get().map(|r| match r {
                None => view! { <super::catalog::CatalogPanel/> }.into_any(),
                Some((token, Hello { catalog: None, .. })) => view! {
                    <details class="catalog-panel" data-testid="relay-panel" open=true>
                        <summary>"Open a location through icescope serve"</summary>
                        <p class="hint" data-testid="relay-no-catalog">"icescope serve was started without --catalog: open a metadata file by its location, drop a table folder, or open an example."</p>
                        <super::open_location::OpenLocation via=super::open_location::Via::Relay(token)/>
                    </details>
                }.into_any(),
                Some((token, hello)) => view! { <RelayCatalog token=token hello=hello/> }.into_any(),
            })}
        </Suspense>
    }
    .into_any()
}

/// The relay's catalog: the panel at once, its tables once the listing is in.
#[component]
fn RelayCatalog(token: String, hello: Hello) -> impl IntoView {
    let catalog = hello.catalog.clone().unwrap_or_default();
    let heading = format!("Open from {catalog} (through icescope serve: its credential stays there)");
    let for_listing = token.clone();
    let listing = LocalResource::new(move || {
        let token = for_listing.clone();
        async move { relay::listing(&token).await.map_err(|e| e.to_string()) }
    });
    let for_tables = token.clone();
    view! {
        <details class="catalog-panel" data-testid="relay-panel" open=true>
            <summary>{heading}</summary>
            <Suspense fallback=|| view! { <p class="hint" data-testid="relay-listing">"Listing the catalog's tables…"</p> }>
                {move || listing.get().map(|l| view! { <RelayTables token=for_tables.clone() catalog=catalog.clone() listing=l/> })}
            </Suspense>
            <super::open_location::OpenLocation via=super::open_location::Via::Relay(token)/>
        </details>
    }
}

#[component]
fn RelayTables(token: String, catalog: String, listing: Result<Listing, String>) -> impl IntoView {
    let state = expect_context::<AppState>();
    match listing {
        Err(e) => view! { <p class="error" data-testid="relay-error">{e}</p> }.into_any(),
        Ok(listing) => {
            // A link to a table of this catalog opens it once the listing is in.
            let linked = super::permalink::get("table").filter(|_| super::permalink::get("catalog").is_some_and(|c| c == catalog));
            if let Some(t) = linked.filter(|t| listing.namespaces.iter().any(|(ns, names)| names.iter().any(|n| &format!("{}.{n}", ns.join(".")) == t))) {
                open(state, token.clone(), catalog.clone(), t);
            }
            let count: usize = listing.namespaces.iter().map(|(_, t)| t.len()).sum();
            let partial = if listing.incomplete.is_empty() { "" } else { " (incomplete)" };
            view! {
                <div class="catalog-tables" data-testid="catalog-tables">
                    <p class="hint">{format!("{} namespaces, {count} tables{partial}", listing.namespaces.len())}</p>
                    {listing.namespaces.into_iter().map(|(ns, tables)| {
                        let ns_name = ns.join(".");
                        view! {
                            <div class="namespace" data-testid="namespace" data-namespace=ns_name.clone()>
                                <strong>{ns_name.clone()}</strong>
                                {tables.into_iter().map(|t| {
                                    let name = format!("{ns_name}.{t}");
                                    let (token, catalog, name2) = (token.clone(), catalog.clone(), name.clone());
                                    view! {
                                        <button class="link table-link" data-testid="catalog-table" data-table=name
                                            on:click=move |_| open(state, token.clone(), catalog.clone(), name2.clone())>{t}</button>
                                    }
                                }).collect_view()}
                            </div>
                        }
                    }).collect_view()}
                </div>
            }
            .into_any()
        }
    }
}

fn open(state: AppState, token: String, catalog: String, table: String) {
    state.errors.set(Vec::new());
    spawn(async move {
        let (opened, files): (_, RelayFiles) = match relay::open(&token, &table).await {
            Ok(o) => o,
            Err(e) => return state.error(e.to_string()),
        };
        // Every read goes to this page's own origin: the page may talk to nothing else.
        if let Err(e) = super::csp::narrow(&[]) {
            return state.error(format!("{table}: {e}"));
        }
        state.vended.set(Some(opened.vended));
        super::marks::restart();
        let keep: Vec<(&str, Option<String>)> = ["tab", "from", "to"].into_iter().map(|k| (k, super::permalink::get(k))).collect();
        super::permalink::clear();
        let mut link: Vec<(&str, Option<&str>)> = vec![("catalog", Some(catalog.as_str())), ("table", Some(table.as_str()))];
        link.extend(keep.iter().map(|(k, v)| (*k, v.as_deref())));
        super::permalink::set(&link);
        open_table(state, table, TableFiles::Relay(files), Some(opened.metadata_location)).await;
    });
}
