//! The Iceberg REST catalog protocol as request builders and response readers: config, OAuth2
//! tokens, namespaces, tables, LoadTable with vended credentials, and credential refresh.
//! Transports (CLI, browser) send the requests in the order `connect` and `load_table` describe.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::http::{encode, HttpError, HttpErrorKind, Request, Response};
use super::s3::{sign_request, Props};

/// How the catalog is authenticated. Secrets live here, in memory, and nowhere else.
#[derive(Clone, PartialEq)]
pub enum CatalogAuth {
    None,
    Bearer(String),
    /// OAuth2 client credentials (`id:secret`), at the catalog's `/v1/oauth/tokens` unless a token
    /// endpoint is given.
    OAuth2 {
        client_id: String,
        client_secret: String,
        server_uri: Option<String>,
        scope: Option<String>,
    },
    /// AWS SigV4 on every catalog request (Glue, S3 Tables).
    SigV4 {
        region: String,
        signing_name: String,
        access_key_id: String,
        secret_access_key: String,
        session_token: Option<String>,
    },
}

impl std::fmt::Debug for CatalogAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print a secret, even in a debug log.
        match self {
            CatalogAuth::None => write!(f, "none"),
            CatalogAuth::Bearer(_) => write!(f, "bearer(***)"),
            CatalogAuth::OAuth2 { client_id, .. } => write!(f, "oauth2(client {client_id})"),
            CatalogAuth::SigV4 { region, signing_name, .. } => write!(f, "sigv4({signing_name}, {region})"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct CatalogOptions {
    pub uri: String,
    pub warehouse: Option<String>,
    pub auth: CatalogAuth,
}

/// A connected catalog: its merged config, URL prefix and the token to send.
#[derive(Debug, Clone)]
pub struct CatalogSession {
    pub uri: String,
    pub prefix: String,
    pub separator: String,
    pub config: Props,
    token: Option<String>,
    auth: CatalogAuth,
}

#[derive(Deserialize)]
struct ConfigResponse {
    #[serde(default)]
    defaults: BTreeMap<String, String>,
    #[serde(default)]
    overrides: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
}

/// What LoadTable returns that icescope uses.
#[derive(Debug, Clone, Deserialize)]
pub struct LoadTableResult {
    #[serde(rename = "metadata-location")]
    pub metadata_location: Option<String>,
    #[serde(default)]
    pub config: Props,
    #[serde(rename = "storage-credentials", default)]
    pub storage_credentials: Vec<StorageCredential>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StorageCredential {
    pub prefix: String,
    #[serde(default)]
    pub config: Props,
}

/// The ETag a LoadTable answer carried, as `If-None-Match` sends it back. Jetty's compression
/// handler appends `--gzip` to the tag of a gzipped answer, and Apache Iceberg's REST reference
/// server (1.11, on Jetty 12.1) then compares the header with its own tag, without the suffix:
/// sent back as received, every conditional LoadTable was answered in full.
pub fn as_sent_back(etag: &str) -> String {
    let t = etag.trim();
    let (quoted, inner) = match t.strip_prefix('"').and_then(|x| x.strip_suffix('"')) {
        Some(inner) => (true, inner),
        None => (false, t),
    };
    let inner = inner.strip_suffix("--gzip").unwrap_or(inner);
    if quoted {
        format!("\"{inner}\"")
    } else {
        inner.to_string()
    }
}

impl CatalogOptions {
    pub fn base(&self) -> String {
        self.uri.trim_end_matches('/').to_string()
    }

    /// The token request, for OAuth2 client credentials.
    pub fn token_request(&self) -> Option<Request> {
        let CatalogAuth::OAuth2 { client_id, client_secret, server_uri, scope } = &self.auth else { return None };
        crate::source::secrets::hold(client_secret);
        let url = server_uri.clone().unwrap_or_else(|| format!("{}/v1/oauth/tokens", self.base()));
        let mut form = vec![("grant_type", "client_credentials"), ("client_id", client_id.as_str()), ("client_secret", client_secret.as_str())];
        if let Some(s) = scope {
            form.push(("scope", s.as_str()));
        }
        Some(Request::post_form(url, &form))
    }

    pub fn read_token(&self, req: &Request, resp: &Response) -> Result<String, HttpError> {
        if resp.status != 200 {
            let mut e = HttpError::status(&req.url, resp.status, &resp.body);
            if let CatalogAuth::OAuth2 { client_id, .. } = &self.auth {
                e.message = format!(
                    "{}{}the token endpoint refused the OAuth2 client credential for client id `{client_id}`",
                    e.message,
                    if e.message.is_empty() { "" } else { "; " }
                );
            }
            return Err(e);
        }
        let token = parse::<TokenResponse>(&req.url, &resp.body).map(|t| t.access_token)?;
        crate::source::secrets::hold(&token);
        Ok(token)
    }

    pub fn config_request(&self, token: Option<&str>, now_ms: u64) -> Result<Request, HttpError> {
        let mut url = format!("{}/v1/config", self.base());
        if let Some(w) = &self.warehouse {
            url += &format!("?warehouse={}", encode(w));
        }
        authorize(Request::get(url), token, &self.auth, now_ms)
    }

    /// The session after `GET /v1/config`: server defaults < what the client asked < server overrides.
    pub fn session(&self, token: Option<String>, req: &Request, resp: &Response) -> Result<CatalogSession, HttpError> {
        let c: ConfigResponse = ok_json(req, resp)?;
        let mut config = c.defaults;
        if let Some(w) = &self.warehouse {
            config.insert("warehouse".into(), w.clone());
        }
        config.extend(c.overrides);
        let prefix = config.get("prefix").cloned().unwrap_or_default();
        let separator = config.get("namespace-separator").cloned().unwrap_or_else(|| "%1F".into());
        let token = config.get("token").cloned().or(token);
        hold_vended(&config);
        token.as_deref().into_iter().for_each(crate::source::secrets::hold);
        Ok(CatalogSession { uri: self.base(), prefix, separator, config, token, auth: self.auth.clone() })
    }
}

impl CatalogSession {
    fn url(&self, path: &str) -> String {
        if self.prefix.is_empty() {
            format!("{}/v1/{path}", self.uri)
        } else {
            format!("{}/v1/{}/{path}", self.uri, self.prefix.trim_matches('/'))
        }
    }

    fn ns(&self, namespace: &[String]) -> String {
        namespace.iter().map(|p| encode(p)).collect::<Vec<_>>().join(&self.separator)
    }

    fn get(&self, url: String, now_ms: u64) -> Result<Request, HttpError> {
        authorize(Request::get(url), self.token.as_deref(), &self.auth, now_ms)
    }

    pub fn namespaces_request(&self, parent: Option<&[String]>, page_token: Option<&str>, now_ms: u64) -> Result<Request, HttpError> {
        let mut q = Vec::new();
        if let Some(p) = parent {
            q.push(format!("parent={}", self.ns(p)));
        }
        if let Some(t) = page_token {
            q.push(format!("pageToken={}", encode(t)));
        }
        let url = if q.is_empty() { self.url("namespaces") } else { format!("{}?{}", self.url("namespaces"), q.join("&")) };
        self.get(url, now_ms)
    }

    /// (namespaces, next page token)
    pub fn read_namespaces(&self, req: &Request, resp: &Response) -> Result<(Vec<Vec<String>>, Option<String>), HttpError> {
        #[derive(Deserialize)]
        struct R {
            #[serde(default)]
            namespaces: Vec<Vec<String>>,
            #[serde(rename = "next-page-token")]
            next: Option<String>,
        }
        let r: R = ok_json(req, resp)?;
        Ok((r.namespaces, r.next.filter(|t| !t.is_empty())))
    }

    pub fn tables_request(&self, namespace: &[String], page_token: Option<&str>, now_ms: u64) -> Result<Request, HttpError> {
        let mut url = self.url(&format!("namespaces/{}/tables", self.ns(namespace)));
        if let Some(t) = page_token {
            url += &format!("?pageToken={}", encode(t));
        }
        self.get(url, now_ms)
    }

    /// (table names, next page token)
    pub fn read_tables(&self, req: &Request, resp: &Response) -> Result<(Vec<String>, Option<String>), HttpError> {
        #[derive(Deserialize)]
        struct Ident {
            name: String,
        }
        #[derive(Deserialize)]
        struct R {
            #[serde(default)]
            identifiers: Vec<Ident>,
            #[serde(rename = "next-page-token")]
            next: Option<String>,
        }
        let r: R = ok_json(req, resp)?;
        Ok((r.identifiers.into_iter().map(|i| i.name).collect(), r.next.filter(|t| !t.is_empty())))
    }

    pub fn load_table_request(&self, namespace: &[String], table: &str, now_ms: u64) -> Result<Request, HttpError> {
        let url = self.url(&format!("namespaces/{}/tables/{}", self.ns(namespace), encode(table)));
        Ok(self.get(url, now_ms)?.header("X-Iceberg-Access-Delegation", "vended-credentials,remote-signing"))
    }

    pub fn read_load_table(&self, req: &Request, resp: &Response) -> Result<LoadTableResult, HttpError> {
        let loaded: LoadTableResult = ok_json(req, resp)?;
        hold_vended(&loaded.config);
        loaded.storage_credentials.iter().for_each(|c| hold_vended(&c.config));
        Ok(loaded)
    }

    /// Fresh vended credentials, when a read got 403 with expired ones.
    pub fn credentials_request(&self, namespace: &[String], table: &str, now_ms: u64) -> Result<Request, HttpError> {
        let url = self.url(&format!("namespaces/{}/tables/{}/credentials", self.ns(namespace), encode(table)));
        self.get(url, now_ms)
    }

    pub fn read_credentials(&self, req: &Request, resp: &Response) -> Result<Vec<StorageCredential>, HttpError> {
        #[derive(Deserialize)]
        struct R {
            #[serde(rename = "storage-credentials", default)]
            storage_credentials: Vec<StorageCredential>,
        }
        let fresh = ok_json::<R>(req, resp)?.storage_credentials;
        fresh.iter().for_each(|c| hold_vended(&c.config));
        Ok(fresh)
    }

    /// The remote signer's URL, from the table config (`s3.signer.uri` + `s3.signer.endpoint`).
    pub fn signer_url(&self, table_config: &Props) -> String {
        let base = table_config.get("s3.signer.uri").cloned().unwrap_or_else(|| self.uri.clone());
        let endpoint = table_config.get("s3.signer.endpoint").cloned().unwrap_or_else(|| "v1/aws/s3/sign".into());
        format!("{}/{}", base.trim_end_matches('/'), endpoint.trim_start_matches('/'))
    }

    /// The catalog's origin and its token endpoint's, where that is elsewhere.
    pub fn origins(&self) -> Vec<String> {
        let mut out = vec![super::http::origin(&self.uri).to_ascii_lowercase()];
        if let CatalogAuth::OAuth2 { server_uri: Some(t), .. } = &self.auth {
            out.push(super::http::origin(t).to_ascii_lowercase());
        }
        out
    }

    /// A request to the signer carries the catalog's own authorization.
    pub fn authorize(&self, req: Request, now_ms: u64) -> Result<Request, HttpError> {
        authorize(req, self.token.as_deref(), &self.auth, now_ms)
    }
}

/// `ns.inner.table` → (["ns", "inner"], "table").
mod lister;
pub use lister::{CatalogListing, Lister, MAX_LISTED, MAX_LIST_REQUESTS, MAX_NAMESPACE_DEPTH};

pub fn split_identifier(ident: &str) -> Option<(Vec<String>, String)> {
    let mut parts: Vec<String> = ident.split('.').map(str::to_string).collect();
    let table = parts.pop()?;
    (!parts.is_empty() && !table.is_empty()).then_some((parts, table))
}

fn authorize(req: Request, token: Option<&str>, auth: &CatalogAuth, now_ms: u64) -> Result<Request, HttpError> {
    hold_auth(auth, token);
    match (auth, token) {
        (CatalogAuth::SigV4 { region, signing_name, access_key_id, secret_access_key, session_token }, _) => {
            sign_request(req.clone(), access_key_id, secret_access_key, session_token.as_deref(), region, signing_name, now_ms).map_err(|m| HttpError {
                url: req.url.clone(),
                kind: HttpErrorKind::Other,
                message: m,
            })
        }
        (CatalogAuth::Bearer(t), _) => Ok(req.header("Authorization", format!("Bearer {t}"))),
        (_, Some(t)) => Ok(req.header("Authorization", format!("Bearer {t}"))),
        _ => Ok(req),
    }
}

fn ok_json<T: serde::de::DeserializeOwned>(req: &Request, resp: &Response) -> Result<T, HttpError> {
    if !(200..300).contains(&resp.status) {
        return Err(HttpError::status(&req.url, resp.status, &resp.body));
    }
    parse(&req.url, &resp.body)
}

fn parse<T: serde::de::DeserializeOwned>(url: &str, body: &[u8]) -> Result<T, HttpError> {
    serde_json::from_slice(body).map_err(|e| HttpError { url: url.to_string(), kind: HttpErrorKind::Malformed, message: e.to_string() })
}

/// The S3 properties for one object: the longest vended storage-credential prefix that covers it,
/// over the table's config, over what the user typed.
pub fn props_for(reference: &str, user: &Props, table_config: &Props, storage: &[StorageCredential]) -> Props {
    let mut p = user.clone();
    p.extend(table_config.iter().map(|(k, v)| (k.clone(), v.clone())));
    if let Some(best) = storage.iter().filter(|c| covers(&c.prefix, reference)).max_by_key(|c| c.prefix.len()) {
        p.extend(best.config.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    p
}

/// Whether a credential vended for `prefix` is for `reference`: the same bucket, then a key prefix
/// that ends at a `/`. Iceberg Java compares plain strings (`S3FileIO.clientForStoragePath`), so
/// there a credential for `s3://ware` is also used for bucket `warehouse`; keys scoped to one
/// bucket are not sent to another here. `s3` alone (Java's root prefix) and `s3://` cover every
/// bucket; `s3a://` and `s3n://` are read as `s3://`.
pub fn covers(prefix: &str, reference: &str) -> bool {
    let split = |s: &str| -> Option<(String, String)> {
        let rest = ["s3://", "s3a://", "s3n://"].iter().find_map(|p| s.get(..p.len()).filter(|h| h.eq_ignore_ascii_case(p)).map(|_| &s[p.len()..]))?;
        let (bucket, key) = rest.split_once('/').unwrap_or((rest, ""));
        Some((bucket.to_string(), key.to_string()))
    };
    let Some((bucket, key)) = split(reference) else { return false };
    if prefix.eq_ignore_ascii_case("s3") {
        return true;
    }
    let Some((p_bucket, p_key)) = split(prefix) else { return false };
    if p_bucket.is_empty() {
        return p_key.is_empty();
    }
    let p_key = p_key.trim_end_matches('/');
    p_bucket == bucket && (p_key.is_empty() || key == p_key || key.strip_prefix(p_key).is_some_and(|rest| rest.starts_with('/')))
}

/// A property value fit to show: secrets (keys, tokens, passwords) are replaced by their length.
/// The credentials a request is made with, held for `secrets::scrub`.
fn hold_auth(auth: &CatalogAuth, token: Option<&str>) {
    use crate::source::secrets::hold;
    match auth {
        CatalogAuth::Bearer(t) => hold(t),
        CatalogAuth::OAuth2 { client_secret, .. } => hold(client_secret),
        CatalogAuth::SigV4 { secret_access_key, session_token, .. } => {
            hold(secret_access_key);
            session_token.as_deref().into_iter().for_each(hold);
        }
        CatalogAuth::None => {}
    }
    token.into_iter().for_each(hold);
}

/// Every vended setting not known to be plain (`HARMLESS`) is held as a secret.
fn hold_vended(config: &Props) {
    config.iter().filter(|(k, _)| !HARMLESS.contains(&k.as_str())).for_each(|(_, v)| crate::source::secrets::hold(v));
}

/// A URL the user typed that carries a user name or password is refused: it would travel into the
/// relay's answers, printed addresses and logs. The message shows the URL without them.
pub fn no_credentials_in(url: &str) -> Result<(), String> {
    let Ok(mut u) = url::Url::parse(url) else { return Ok(()) };
    if u.username().is_empty() && u.password().is_none() {
        return Ok(());
    }
    let _ = u.set_username("");
    let _ = u.set_password(None);
    Err(format!(
        "{u}: the URL holds a user name or password; give credentials with --credential, --token or their environment variables (ICESCOPE_CREDENTIAL, ICESCOPE_TOKEN), never in a URL"
    ))
}

pub fn masked(key: &str, value: &str) -> String {
    if HARMLESS.contains(&key) {
        value.to_string()
    } else {
        format!("•••••• ({} characters)", value.chars().count())
    }
}

/// Vended properties shown as they are: settings Iceberg's `S3FileIOProperties`,
/// `AwsClientProperties` and `CatalogProperties` define that carry no credential. Every other key
/// — `s3.sse.key`, `adls.auth.shared-key.account.key`, `adls.connection-string.*`, whatever a
/// catalog vends next — is masked: an allow-list, since a list of secrets is never complete.
/// `s3.access-key-id` is masked too: it names the credential, and the page needs only its length.
const HARMLESS: &[&str] = &[
    "s3.endpoint",
    "s3.path-style-access",
    "s3.region",
    "client.region",
    "s3.remote-signing-enabled",
    "s3.signer.uri",
    "s3.signer.endpoint",
    "s3.cross-region-access-enabled",
    "s3.use-arn-region-enabled",
    "s3.acceleration-enabled",
    "s3.dualstack-enabled",
    "s3.checksum-enabled",
    "s3.chunked-encoding-enabled",
    "s3.delete-enabled",
    "s3.sse.type",
    "s3.acl",
    "s3.write.storage-class",
    "s3.session-token-expires-at-ms",
    "client.refresh-credentials-enabled",
    "client.refresh-credentials-endpoint",
    "io-impl",
    "warehouse",
    "prefix",
    "uri",
    "rest-metrics-reporting-enabled",
    "write.object-storage.enabled",
    "write.data.path",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_a_password_is_refused_without_repeating_it() {
        let e = no_credentials_in("https://alice:hunter2@catalog.example/api").unwrap_err();
        assert!(!e.contains("hunter2") && !e.contains("alice"), "{e}");
        assert!(e.starts_with("https://catalog.example/api:"), "{e}");
        assert!(no_credentials_in("https://catalog.example/api").is_ok());
        assert!(no_credentials_in("s3://bucket/wh/t/metadata/v1.metadata.json").is_ok());
    }

    #[test]
    fn only_known_harmless_vended_keys_are_shown() {
        for key in [
            "s3.secret-access-key",
            "s3.session-token",
            "s3.sse.key",
            "adls.auth.shared-key.account.key",
            "adls.connection-string.acct",
            "gcs.oauth2.token",
            "s3.access-key-id",
            "a.new.key",
        ] {
            let shown = masked(key, "hunter2hunter2");
            assert!(!shown.contains("hunter2"), "{key}: {shown}");
            assert_eq!(shown, "•••••• (14 characters)");
        }
        assert_eq!(masked("s3.endpoint", "http://127.0.0.1:8333"), "http://127.0.0.1:8333");
        assert_eq!(masked("S3.ENDPOINT", "x"), "•••••• (1 characters)", "the allow-list is exact: a lookalike key is masked");
    }

    #[test]
    fn an_etag_is_sent_back_without_the_suffix_jetty_added_for_gzip() {
        assert_eq!(super::as_sent_back("efa3a054--gzip"), "efa3a054");
        assert_eq!(super::as_sent_back("\"efa3a054--gzip\""), "\"efa3a054\"");
        assert_eq!(super::as_sent_back("W/\"x\""), "W/\"x\"");
        assert_eq!(super::as_sent_back("plain"), "plain");
    }

    #[test]
    fn longest_vended_prefix_wins_over_config_over_user() {
        let user = Props::from([("s3.access-key-id".into(), "user".into()), ("s3.endpoint".into(), "http://typed".into())]);
        let config = Props::from([("s3.endpoint".into(), "http://vended".into())]);
        let storage = vec![
            StorageCredential { prefix: "s3://wh/".into(), config: Props::from([("s3.access-key-id".into(), "wide".into())]) },
            StorageCredential { prefix: "s3://wh/ns/t".into(), config: Props::from([("s3.access-key-id".into(), "narrow".into())]) },
        ];
        let p = props_for("s3a://wh/ns/t/metadata/m.avro", &user, &config, &storage);
        assert_eq!(p["s3.access-key-id"], "narrow");
        assert_eq!(p["s3.endpoint"], "http://vended");
        assert_eq!(props_for("s3://other/x", &user, &Props::new(), &storage)["s3.access-key-id"], "user");
    }

    #[test]
    fn a_prefix_covers_a_bucket_then_whole_path_segments() {
        let r = "s3://warehouse/icescope/append_stream/metadata/v13.metadata.json";
        let yes = ["s3", "S3", "s3://", "s3://warehouse", "s3://warehouse/", "s3a://warehouse/icescope", "s3://warehouse/icescope/append_stream/", r];
        let no = [
            "s3://ware",
            "s3://warehouse2",
            "s3://warehouse/ice",
            "s3://warehouse/icescope/append",
            "s3://warehouse/icescope/append_stream/metadata/v1",
            "gs://warehouse",
            "s3:",
        ];
        assert_eq!(yes.iter().filter(|p| covers(p, r)).count(), yes.len(), "{:?}", yes.map(|p| covers(p, r)));
        assert_eq!(no.iter().filter(|p| covers(p, r)).count(), 0, "{:?}", no.map(|p| covers(p, r)));
        assert!(!covers("s3://warehouse", "https://warehouse/x"), "only s3 locations take S3 credentials");
        assert!(covers("s3://wh", "s3://wh"), "a bare bucket");
    }

    #[test]
    fn identifiers_and_namespaces_encode_like_the_spec() {
        assert_eq!(split_identifier("a.b.t"), Some((vec!["a".into(), "b".into()], "t".into())));
        assert_eq!(split_identifier("t"), None);
        let s =
            CatalogSession { uri: "http://c".into(), prefix: "wh".into(), separator: "%1F".into(), config: Props::new(), token: None, auth: CatalogAuth::None };
        assert_eq!(s.load_table_request(&["a".into(), "b c".into()], "t", 0).unwrap().url, "http://c/v1/wh/namespaces/a%1Fb%20c/tables/t");
    }
}
