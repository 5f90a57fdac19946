//! Open a table from an Iceberg REST catalog: connect (token, config), browse namespaces and
//! tables, load one with vended credentials. Secrets stay in this tab's memory unless the user
//! never leave it: not into the URL, the logs or the browser's storage ("remember" keeps the
//! rest of the form).

use std::collections::BTreeMap;

use super::tasks::spawn;
use leptos::prelude::*;

use crate::source::http::HttpError;
use crate::source::object_read::is_loopback;
use crate::source::rest_catalog::{CatalogAuth, CatalogListing, CatalogOptions, CatalogSession};
use crate::source::s3::Props;

use super::fetch::Browser;
use super::files::TableFiles;
use super::loader::open_table;
use super::AppState;
use crate::source::remote::{self, RemoteFiles};

const REMEMBER_KEY: &str = "icescope.catalog";

#[derive(Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
struct Form {
    uri: String,
    warehouse: String,
    auth: String,
    token: String,
    client_id: String,
    client_secret: String,
    oauth2_server_uri: String,
    scope: String,
    signing_region: String,
    signing_name: String,
    s3_endpoint: String,
    s3_access_key_id: String,
    s3_secret_access_key: String,
    s3_session_token: String,
    s3_region: String,
    s3_path_style: bool,
    remember: bool,
}

impl Form {
    /// What "remember" may store: everything but the token, the client secret and the S3 secret
    /// and session token (an access key id is an identifier, not a secret, as AWS treats it).
    fn without_secrets(&self) -> Form {
        Form { token: String::new(), client_secret: String::new(), s3_secret_access_key: String::new(), s3_session_token: String::new(), ..self.clone() }
    }

    fn options(&self) -> Result<CatalogOptions, String> {
        let t = |s: &str| s.trim().to_string();
        let opt = |s: &str| Some(t(s)).filter(|v| !v.is_empty());
        let uri = t(&self.uri);
        if uri.is_empty() {
            return Err("the catalog URI is empty".into());
        }
        let auth = match self.auth.as_str() {
            "token" => CatalogAuth::Bearer(t(&self.token)),
            "oauth2" => CatalogAuth::OAuth2 {
                client_id: t(&self.client_id),
                client_secret: self.client_secret.clone(),
                server_uri: opt(&self.oauth2_server_uri),
                scope: opt(&self.scope),
            },
            "sigv4" => CatalogAuth::SigV4 {
                region: t(&self.signing_region),
                signing_name: opt(&self.signing_name).unwrap_or_else(|| "execute-api".into()),
                access_key_id: t(&self.s3_access_key_id),
                secret_access_key: self.s3_secret_access_key.clone(),
                session_token: opt(&self.s3_session_token),
            },
            _ => CatalogAuth::None,
        };
        crate::source::rest_catalog::no_credentials_in(&uri)?;
        Ok(CatalogOptions { uri, warehouse: opt(&self.warehouse), auth })
    }

    fn s3_props(&self) -> Props {
        let mut p = BTreeMap::new();
        for (k, v) in [
            ("s3.endpoint", &self.s3_endpoint),
            ("s3.access-key-id", &self.s3_access_key_id),
            ("s3.secret-access-key", &self.s3_secret_access_key),
            ("s3.session-token", &self.s3_session_token),
            ("s3.region", &self.s3_region),
        ] {
            if !v.trim().is_empty() {
                p.insert(k.to_string(), v.trim().to_string());
            }
        }
        if self.s3_path_style {
            p.insert("s3.path-style-access".into(), "true".into());
        }
        p
    }
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

/// A link's catalog settings over the remembered form; secrets are never in a link, so whatever
/// the catalog needs of them is asked for.
fn from_link(mut f: Form) -> Form {
    use super::permalink::get;
    let location = get("url").is_some();
    let Some(uri) = get("catalog").or_else(|| location.then(|| f.uri.clone())) else { return f };
    if uri != f.uri && !location {
        f = Form { s3_region: "us-east-1".into(), ..Form::default() };
    }
    f.uri = uri;
    let put = |key: &str, field: &mut String| {
        if let Some(v) = get(key) {
            *field = v;
        }
    };
    put("warehouse", &mut f.warehouse);
    put("auth", &mut f.auth);
    put("client_id", &mut f.client_id);
    put("scope", &mut f.scope);
    put("token_uri", &mut f.oauth2_server_uri);
    put("s3_endpoint", &mut f.s3_endpoint);
    put("s3_region", &mut f.s3_region);
    if let Some(v) = get("s3_path_style") {
        f.s3_path_style = v == "true";
    }
    if !matches!(f.auth.as_str(), "none" | "token" | "oauth2" | "sigv4") {
        f.auth = "oauth2".into();
    }
    f
}

fn remembered() -> Form {
    let saved = storage().and_then(|s| s.get_item(REMEMBER_KEY).ok().flatten()).and_then(|j| serde_json::from_str::<Form>(&j).ok());
    saved.unwrap_or(Form { auth: "oauth2".into(), scope: "catalog".into(), s3_region: "us-east-1".into(), ..Form::default() })
}

#[derive(Clone)]
struct Connected {
    session: CatalogSession,
    listing: CatalogListing,
    user_s3: Props,
    /// The form's non-secret settings, for the permalink.
    link: LinkSettings,
}

#[derive(Clone)]
struct LinkSettings {
    warehouse: Option<String>,
    auth: String,
    client_id: Option<String>,
    scope: Option<String>,
    token_uri: Option<String>,
}

impl Form {
    fn link(&self) -> LinkSettings {
        let opt = |s: &str| Some(s.trim().to_string()).filter(|v| !v.is_empty());
        let oauth = self.auth == "oauth2";
        LinkSettings {
            warehouse: opt(&self.warehouse),
            auth: self.auth.clone(),
            client_id: opt(&self.client_id).filter(|_| oauth),
            scope: opt(&self.scope).filter(|_| oauth),
            token_uri: opt(&self.oauth2_server_uri).filter(|_| oauth),
        }
    }
}

async fn connect(opts: &CatalogOptions) -> Result<CatalogSession, HttpError> {
    remote::connect(&Browser, opts).await
}

async fn list(session: &CatalogSession) -> Result<CatalogListing, HttpError> {
    remote::list(&Browser, session).await
}

#[component]
pub fn CatalogPanel() -> impl IntoView {
    let state = expect_context::<AppState>();
    let linked = super::permalink::get("catalog").or_else(|| super::permalink::get("url"));
    let form = RwSignal::new(from_link(remembered()));
    let connected = RwSignal::new(None::<Connected>);
    let busy = RwSignal::new(false);
    let on_connect = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let f = form.get_untracked();
        if let Some(s) = storage() {
            let _ = if f.remember {
                s.set_item(REMEMBER_KEY, &serde_json::to_string(&f.without_secrets()).unwrap_or_default())
            } else {
                s.remove_item(REMEMBER_KEY)
            };
        }
        let opts = match f.options() {
            Ok(o) => o,
            Err(e) => return state.error(e),
        };
        // After a table was opened, the page talks to that catalog's hosts only (view/app/csp.rs).
        if let Err(e) = super::csp::allows(crate::source::http::origin(&opts.uri)) {
            return state.error(e);
        }
        state.errors.set(Vec::new());
        busy.set(true);
        let opts_uri = opts.uri.clone();
        spawn(async move {
            let result = async {
                let session = connect(&opts).await?;
                let listing = list(&session).await?;
                Ok::<_, HttpError>(Connected { session, listing, user_s3: f.s3_props(), link: f.link() })
            }
            .await;
            busy.set(false);
            match result {
                Ok(c) => {
                    let wanted =
                        super::permalink::get("table").filter(|_| super::permalink::get("catalog").is_some_and(|u| u == c.session.uri || u == opts_uri));
                    let found = wanted.and_then(|t| {
                        c.listing
                            .namespaces
                            .iter()
                            .find_map(|(ns, tables)| tables.iter().find(|x| format!("{}.{x}", ns.join(".")) == t).map(|x| (ns.clone(), x.clone())))
                    });
                    connected.set(Some(c.clone()));
                    if let Some((ns, t)) = found {
                        open_from_catalog(state, c, ns, t);
                    }
                }
                Err(e) => state.error(e.to_string()),
            }
        });
    };
    let text = move |get: fn(&Form) -> String, set: fn(&mut Form, String), testid: &'static str, kind: &'static str, placeholder: &'static str| {
        view! {
            <input type=kind data-testid=testid placeholder=placeholder autocomplete="off"
                prop:value=move || form.with(get) on:input=move |ev| form.update(|f| set(f, event_target_value(&ev)))/>
        }
    };
    view! {
        <details class="catalog-panel" data-testid="catalog-panel" open=linked.is_some()>
            <summary>"Open from an Iceberg REST catalog or a location (s3://, https://)"</summary>
            {super::permalink::get("url").map(|u| view! {
                <p class="hint" data-testid="link-hint">{format!(
                    "This link opens {u}. A link never carries a secret: enter the object store's keys if it needs them, then Open."
                )}</p>
            })}
            {super::permalink::get("table").filter(|_| linked.is_some()).map(|t| view! {
                <p class="hint" data-testid="link-hint">{format!(
                    "This link opens {t} from the catalog below. A link never carries a secret: check the catalog URI, enter what it needs, then Connect."
                )}</p>
            })}
            <form on:submit=on_connect class="catalog-form">
                <label>"Catalog URI"{text(|f| f.uri.clone(), |f, v| f.uri = v, "catalog-uri", "text", "https://catalog.example.com/api/catalog")}</label>
                <label>"Warehouse"{text(|f| f.warehouse.clone(), |f, v| f.warehouse = v, "catalog-warehouse", "text", "optional")}</label>
                <label>"Authentication"
                    <select data-testid="catalog-auth" prop:value=move || form.with(|f| f.auth.clone()) on:change=move |ev| form.update(|f| f.auth = event_target_value(&ev))>
                        <option value="none">"none"</option>
                        <option value="token">"bearer token"</option>
                        <option value="oauth2">"OAuth2 client credentials"</option>
                        <option value="sigv4">"AWS SigV4 (Glue, S3 Tables)"</option>
                    </select>
                </label>
                <Show when=move || form.with(|f| f.auth == "token")>
                    <label>"Token"{text(|f| f.token.clone(), |f, v| f.token = v, "catalog-token", "password", "")}</label>
                </Show>
                <Show when=move || form.with(|f| f.auth == "oauth2")>
                    <label>"Client id"{text(|f| f.client_id.clone(), |f, v| f.client_id = v, "catalog-client-id", "text", "")}</label>
                    <label>"Client secret"{text(|f| f.client_secret.clone(), |f, v| f.client_secret = v, "catalog-client-secret", "password", "")}</label>
                    <label>"Token endpoint"{text(|f| f.oauth2_server_uri.clone(), |f, v| f.oauth2_server_uri = v, "catalog-token-uri", "text", "default: <catalog>/v1/oauth/tokens")}</label>
                    <label>"Scope"{text(|f| f.scope.clone(), |f, v| f.scope = v, "catalog-scope", "text", "e.g. PRINCIPAL_ROLE:ALL")}</label>
                </Show>
                <Show when=move || form.with(|f| f.auth == "sigv4")>
                    <label>"Signing region"{text(|f| f.signing_region.clone(), |f, v| f.signing_region = v, "catalog-signing-region", "text", "us-east-1")}</label>
                    <label>"Signing name"{text(|f| f.signing_name.clone(), |f, v| f.signing_name = v, "catalog-signing-name", "text", "glue or s3tables")}</label>
                </Show>
                <fieldset>
                    <legend>"Object store (used where the catalog vends nothing)"</legend>
                    <label>"S3 endpoint"{text(|f| f.s3_endpoint.clone(), |f, v| f.s3_endpoint = v, "s3-endpoint", "text", "https://s3.us-east-1.amazonaws.com")}</label>
                    <label>"Region"{text(|f| f.s3_region.clone(), |f, v| f.s3_region = v, "s3-region", "text", "us-east-1")}</label>
                    <label>"Access key id"{text(|f| f.s3_access_key_id.clone(), |f, v| f.s3_access_key_id = v, "s3-access-key-id", "text", "")}</label>
                    <label>"Secret access key"{text(|f| f.s3_secret_access_key.clone(), |f, v| f.s3_secret_access_key = v, "s3-secret-access-key", "password", "")}</label>
                    <label>"Session token"{text(|f| f.s3_session_token.clone(), |f, v| f.s3_session_token = v, "s3-session-token", "password", "optional")}</label>
                    <label class="check"><input type="checkbox" data-testid="s3-path-style" prop:checked=move || form.with(|f| f.s3_path_style)
                        on:change=move |ev| form.update(|f| f.s3_path_style = event_target_checked(&ev))/>"path-style access"</label>
                </fieldset>
                <label class="check"><input type="checkbox" data-testid="remember" prop:checked=move || form.with(|f| f.remember)
                    on:change=move |ev| form.update(|f| f.remember = event_target_checked(&ev))/>"remember these settings on this device (never the token or secrets)"</label>
                <button type="submit" data-testid="catalog-connect" prop:disabled=move || busy.get()>{move || if busy.get() { "Connecting…" } else { "Connect" }}</button>
            </form>
            <super::open_location::OpenLocation via=super::open_location::Via::Direct(Signal::derive(move || form.with(Form::s3_props)))/>
            {move || connected.get().map(|c| view! { <Tables connected=c/> })}
        </details>
    }
}

#[component]
fn Tables(connected: Connected) -> impl IntoView {
    let state = expect_context::<AppState>();
    let listing = &connected.listing;
    let count: usize = listing.namespaces.iter().map(|(_, t)| t.len()).sum();
    let partial = if listing.incomplete.is_empty() { "" } else { " (incomplete)" };
    view! {
        <div class="catalog-tables" data-testid="catalog-tables">
            <p class="hint">{format!("{} namespaces, {} tables{partial}", listing.namespaces.len(), count)}</p>
            {(!listing.incomplete.is_empty()).then(|| view! {
                <ul class="gaps" data-testid="catalog-incomplete">
                    {listing.incomplete.iter().map(|why| view! { <li>{why.clone()}</li> }).collect_view()}
                </ul>
            })}
            {listing.namespaces.iter().map(|(ns, tables)| {
                let ns_name = ns.join(".");
                view! {
                    <div class="namespace" data-testid="namespace" data-namespace=ns_name.clone()>
                        <strong>{ns_name.clone()}</strong>
                        {tables.iter().map(|t| {
                            let (c, ns, t2) = (connected.clone(), ns.clone(), t.clone());
                            view! {
                                <button class="link table-link" data-testid="catalog-table" data-table=format!("{ns_name}.{t}")
                                    on:click=move |_| open_from_catalog(state, c.clone(), ns.clone(), t2.clone())>{t.clone()}</button>
                            }
                        }).collect_view()}
                    </div>
                }
            }).collect_view()}
        </div>
    }
}

fn open_from_catalog(state: AppState, c: Connected, ns: Vec<String>, table: String) {
    state.errors.set(Vec::new());
    spawn(async move {
        let name = format!("{}.{}", ns.join("."), table);
        let loaded = match remote::load_table(&Browser, &c.session, &ns, &table).await {
            Ok(l) => l,
            Err(e) => return state.error(e.to_string()),
        };
        let location = match loaded.location(&name) {
            Ok(l) => l,
            Err(why) => return state.error(why),
        };
        let files = RemoteFiles::from_catalog(Browser, c.user_s3.clone(), c.session.clone(), ns, table, &loaded);
        if let Err(e) = super::csp::narrow(&files.access().origins(Some(&c.session))) {
            return state.error(format!("{name}: {e}"));
        }
        state.vended.set(Some(loaded.vended()));
        // The seed's localhost trap: an endpoint that means another machine to the browser.
        let endpoint = files.access().endpoint_for(&location);
        if let Some(endpoint) = endpoint {
            let page = web_sys::window().and_then(|w| w.location().origin().ok()).unwrap_or_default();
            if is_loopback(&endpoint) && !is_loopback(&page) {
                state.error(format!(
                    "{name}: the storage endpoint {endpoint} is a loopback address, but this page was loaded from {page}: \
                     it names a different machine for the browser than for the catalog and the writers. The catalog must \
                     vend an endpoint that resolves from both sides."
                ));
            }
        }
        super::marks::restart();
        let keep: Vec<(&str, Option<String>)> = ["tab", "from", "to"].into_iter().map(|k| (k, super::permalink::get(k))).collect();
        super::permalink::clear();
        let style = c.user_s3.get("s3.path-style-access").cloned();
        let mut link: Vec<(&str, Option<&str>)> = vec![
            ("catalog", Some(c.session.uri.as_str())),
            ("table", Some(name.as_str())),
            ("warehouse", c.link.warehouse.as_deref()),
            ("auth", Some(c.link.auth.as_str())),
            ("client_id", c.link.client_id.as_deref()),
            ("scope", c.link.scope.as_deref()),
            ("token_uri", c.link.token_uri.as_deref()),
            ("s3_endpoint", c.user_s3.get("s3.endpoint").map(String::as_str)),
            ("s3_region", c.user_s3.get("s3.region").map(String::as_str)),
            ("s3_path_style", style.as_deref()),
        ];
        link.extend(keep.iter().map(|(k, v)| (*k, v.as_deref())));
        super::permalink::set(&link);
        open_table(state, name, TableFiles::Remote(files), Some(location)).await;
    });
}
