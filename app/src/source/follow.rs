//! Following a table: where each kind of source says which metadata file is its newest, for
//! `icescope watch` and the app's Live switch alike. A folder is listed again; a catalog is asked
//! with the last answer's ETag (a 304 costs no metadata); an S3 table's `metadata/` prefix is
//! listed; an https:// table is asked for the `version-hint.text` beside its metadata files.

#[cfg(not(target_arch = "wasm32"))]
use super::local::LocalFolder;
use super::metadata_pick::{is_metadata_file, metadata_version, MetadataPick};
use super::remote::{RemoteFiles, Transport};
use super::rest_catalog::{CatalogOptions, CatalogSession};
use super::Fetch;

/// A metadata file newer than the one held.
pub struct Newer<F> {
    pub path: String,
    /// The source as it lists or vends now, where it had to be opened again.
    pub files: Option<F>,
    /// In a folder: its versions now (the picker's list).
    pub pick: Option<MetadataPick>,
    /// Found by `version-hint.text`: a picker's versions gain it.
    pub hinted: bool,
}

impl<F> Newer<F> {
    fn at(path: String) -> Self {
        Newer { path, files: None, pick: None, hinted: false }
    }

    /// The same newer file, from files of another type.
    pub fn map<G>(self, f: impl FnOnce(F) -> G) -> Newer<G> {
        Newer { path: self.path, files: self.files.map(f), pick: self.pick, hinted: self.hinted }
    }
}

/// What a follower keeps between looks.
pub struct Follow {
    /// The catalog's last ETag.
    pub etag: Option<String>,
    /// How to connect to the catalog again when its token expires (an OAuth2 token lasts hours;
    /// a watch outlives it); and the session that replaced the first.
    pub reconnect: Option<CatalogOptions>,
    session: Option<CatalogSession>,
    /// Objects a page of an S3 listing asks for.
    pub page_size: usize,
}

impl Default for Follow {
    /// No catalog to reconnect to; S3's own page size.
    fn default() -> Follow {
        Follow::new(super::s3_list::PAGE_SIZE, None)
    }
}

impl Follow {
    /// `page_size`: objects a page of an S3 listing asks for; `reconnect`: the catalog's options.
    pub fn new(page_size: usize, reconnect: Option<CatalogOptions>) -> Follow {
        Follow { etag: None, reconnect, session: None, page_size }
    }
}

/// A source that can say its newest metadata file.
#[allow(async_fn_in_trait)] // used with concrete types only; no Send bound wanted in the browser
pub trait Follows: Fetch + Sized {
    /// The newest metadata file, when it is not `current`; the error says why the look failed or
    /// why this source cannot be followed.
    async fn newer(&self, current: &str, follow: &mut Follow) -> Result<Option<Newer<Self>>, String>;
}

#[cfg(not(target_arch = "wasm32"))]
impl Follows for LocalFolder {
    /// Listed again: metadata files are written once, so a new name is a new version.
    async fn newer(&self, current: &str, _follow: &mut Follow) -> Result<Option<Newer<Self>>, String> {
        let fresh = LocalFolder::open(self.root()).map_err(|e| e.to_string())?;
        let pick = super::metadata_pick::pick(&fresh).await.ok_or_else(|| format!("{}: no *.metadata.json file any more", self.root().display()))?;
        Ok((pick.path != current).then(|| Newer { path: pick.path.clone(), files: Some(fresh), pick: Some(pick), hinted: false }))
    }
}

impl<T: Transport + Clone> Follows for RemoteFiles<T> {
    async fn newer(&self, current: &str, follow: &mut Follow) -> Result<Option<Newer<Self>>, String> {
        if self.has_catalog() {
            return self.newer_in_catalog(current, follow).await;
        }
        let dir = current.rsplit_once('/').map(|(d, _)| d).ok_or_else(|| format!("{current}: no folder in this URL"))?;
        if super::s3::parse_s3(current).is_some() {
            let listed = self.list_prefix(&format!("{dir}/"), follow.page_size).await.map_err(|e| e.to_string())?;
            let now = metadata_version(current);
            let newest = (0..listed.len())
                .map(|i| listed.path(i))
                .filter(|p| is_metadata_file(p) && metadata_version(p) > now)
                .max_by_key(|p| (metadata_version(p), p.to_string()));
            return Ok(newest.map(|p| Newer::at(p.to_string())));
        }
        let url = format!("{dir}/version-hint.text");
        let hint = self.fetch(&url).await.map_err(|e| format!("{e}: watching an https:// table needs version-hint.text beside its metadata files"))?;
        let hint = String::from_utf8_lossy(&hint).trim().to_string();
        if hint.is_empty() || hint.contains('/') || hint.len() > 200 {
            return Err(format!("{url}: not a version hint"));
        }
        let name = if hint.bytes().all(|b| b.is_ascii_digit()) { format!("v{hint}.metadata.json") } else { hint };
        let path = format!("{dir}/{name}");
        Ok((path != current).then(|| Newer { hinted: true, ..Newer::at(path) }))
    }
}

impl<T: Transport + Clone> RemoteFiles<T> {
    /// LoadTable with the last ETag; where the token expired, connected again once.
    async fn newer_in_catalog(&self, current: &str, follow: &mut Follow) -> Result<Option<Newer<Self>>, String> {
        use super::http::HttpErrorKind;
        let answer = match self.reload(self.transport().clone(), follow.session.as_ref(), current, follow.etag.as_deref()).await {
            Err(e) if matches!(e.kind, HttpErrorKind::Status(401 | 419)) && follow.reconnect.is_some() => {
                let opts = follow.reconnect.as_ref().ok_or("no way to connect again")?;
                follow.session = Some(super::remote::connect(self.transport(), opts).await.map_err(|e| e.to_string())?);
                self.reload(self.transport().clone(), follow.session.as_ref(), current, follow.etag.as_deref()).await
            }
            other => other,
        };
        let (new, tag) = answer.map_err(|e| e.to_string())?;
        if tag.is_some() {
            follow.etag = tag;
        }
        Ok(new.map(|(files, path)| Newer { files: Some(files), ..Newer::at(path) }))
    }
}
