//! Open a table by its location, as the CLI does: an `https://…/vN.metadata.json`, an
//! `s3://bucket/…/metadata/vN.metadata.json`, or an `s3://bucket/prefix/` folder (a table's, whose
//! newest metadata is picked as a dropped folder's is, or a Spark export). S3 reads use the object
//! store settings of the form above; the link carries the location, never a credential.

use super::tasks::spawn;
use leptos::prelude::*;

use crate::source::remote::{self, RemoteFiles};
use crate::source::s3::Props;

use super::fetch::Browser;
use super::files::TableFiles;
use super::loader::open_table;
use super::AppState;

/// The location as a link may carry it: not with a user and password, nor with a query string
/// (a presigned URL's signature is a credential).
fn linkable(location: &str) -> Option<&str> {
    let authority = location.split_once("://").map(|(_, rest)| rest.split('/').next().unwrap_or(""))?;
    (!authority.contains('@') && !location.contains('?')).then_some(location)
}

/// A location to open, or why it cannot be.
fn checked(location: &str) -> Result<&str, String> {
    let location = location.trim();
    if !remote::is_remote(location) {
        return Err(format!("`{location}`: a location starts with s3://, s3a://, http:// or https:// (a folder on this computer: drop it or choose it above)"));
    }
    if location.split_once("://").is_some_and(|(_, rest)| rest.split('/').next().unwrap_or("").contains('@')) {
        return Err("a location with a user name or password in it is not sent: put the keys in the object store fields".into());
    }
    Ok(location)
}

/// How the page reaches the location: itself (the store must answer its origin), or through
/// `icescope serve`'s relay, which reads it with the settings serve was started with.
#[derive(Clone)]
pub enum Via {
    Direct(Signal<Props>),
    Relay(String),
}

pub fn open(state: AppState, typed: String, via: Via) {
    let location = match checked(&typed) {
        Ok(l) => l.to_string(),
        Err(e) => return state.error(e),
    };
    state.errors.set(Vec::new());
    state.vended.set(None);
    let s3 = match via {
        Via::Direct(s3) => s3.get_untracked(),
        Via::Relay(token) => return through_relay(state, token, location),
    };
    let files = RemoteFiles::direct(Browser, s3.clone(), &location);
    // The page then talks to this location's host and the S3 endpoint only (view/app/csp.rs).
    if let Err(e) = super::csp::narrow(&files.access().origins(None)) {
        return state.error(format!("{location}: {e}"));
    }
    super::marks::restart();
    let keep: Vec<(&str, Option<String>)> = ["tab", "from", "to"].into_iter().map(|k| (k, super::permalink::get(k))).collect();
    super::permalink::clear();
    let style = s3.get("s3.path-style-access").cloned();
    let mut link: Vec<(&str, Option<&str>)> = vec![
        ("url", linkable(&location)),
        ("s3_endpoint", s3.get("s3.endpoint").map(String::as_str)),
        ("s3_region", s3.get("s3.region").map(String::as_str)),
        ("s3_path_style", style.as_deref()),
    ];
    link.extend(keep.iter().map(|(k, v)| (*k, v.as_deref())));
    super::permalink::set(&link);
    let names = crate::source::resolve::table_names(&location);
    let name = if names.is_empty() { location.clone() } else { names.join("/") };
    spawn(async move {
        if remote::names_folder(&location) {
            match files.listed(&location, crate::source::s3_list::PAGE_SIZE).await {
                Ok(listed) => open_table(state, name, TableFiles::Listed(listed), None).await,
                Err(e) => state.error(e.to_string()),
            }
        } else {
            open_table(state, name, TableFiles::Remote(files), Some(location)).await;
        }
    });
}

/// Every read goes to the page's own origin; the relay decides which host it may reach.
fn through_relay(state: AppState, token: String, location: String) {
    spawn(async move {
        let (opened, files) = match crate::source::browser::relay::open_location(&token, &location).await {
            Ok(o) => o,
            Err(e) => return state.error(e.to_string()),
        };
        if let Err(e) = super::csp::narrow(&[]) {
            return state.error(format!("{location}: {e}"));
        }
        super::marks::restart();
        let keep: Vec<(&str, Option<String>)> = ["tab", "from", "to"].into_iter().map(|k| (k, super::permalink::get(k))).collect();
        super::permalink::clear();
        let mut link: Vec<(&str, Option<&str>)> = vec![("url", linkable(&location))];
        link.extend(keep.iter().map(|(k, v)| (*k, v.as_deref())));
        super::permalink::set(&link);
        let names = crate::source::resolve::table_names(&location);
        let name = if names.is_empty() { location.clone() } else { names.join("/") };
        open_table(state, name, TableFiles::Relay(files), Some(opened.metadata_location)).await;
    });
}

#[component]
pub fn OpenLocation(via: Via) -> impl IntoView {
    let state = expect_context::<AppState>();
    let linked = super::permalink::get("url");
    let location = RwSignal::new(linked.clone().unwrap_or_default());
    // Through the relay nothing is asked of the person first: a link's location opens at once.
    if let (Some(l), Via::Relay(_)) = (linked, &via) {
        open(state, l, via.clone());
    }
    let hint = match via {
        Via::Direct(_) => "s3:// reads use the object store settings above; a folder (ending in /) is listed to find the table's newest metadata or a Spark export.",
        Via::Relay(_) => "Read by icescope serve with the object store settings it was started with (--s3-endpoint, …); https:// only from the hosts named on its command line.",
    };
    let go = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        open(state, location.get_untracked(), via.clone());
    };
    view! {
        <form class="location-form" on:submit=go>
            <label>"Or open a location"
                <input type="text" data-testid="location" autocomplete="off" spellcheck="false"
                    placeholder="s3://bucket/…/metadata/v3.metadata.json, https://…/v3.metadata.json or s3://bucket/prefix/"
                    prop:value=move || location.get() on:input=move |ev| location.set(event_target_value(&ev))/>
            </label>
            <button type="submit" data-testid="location-open">"Open"</button>
            <span class="hint">{hint}</span>
        </form>
    }
}
