//! How to read one file a table's metadata names, decided without I/O: a plain GET, a SigV4-signed
//! GET, or a GET the catalog must sign first. The CLI and the browser both send what this plans.

use super::http::Request;
use super::rest_catalog::{props_for, Session, StorageCredential};
use super::s3::{parse_s3, remote_sign_request, Props, S3Config};

/// Where a table's files are and what may be used to read them.
#[derive(Debug, Clone, Default)]
pub struct ObjectAccess {
    /// `s3.*` properties the user typed.
    pub user: Props,
    /// LoadTable's `config`.
    pub table_config: Props,
    /// LoadTable's `storage-credentials` (refreshed when they expire).
    pub storage: Vec<StorageCredential>,
}

pub enum Plan {
    Get(Request),
    /// Send `sign` to the catalog, apply its answer to `unsigned` (`s3::apply_remote_signature`).
    RemoteSign { unsigned: Request, sign: Request },
}

impl ObjectAccess {
    pub fn plan(&self, reference: &str, session: Option<&Session>, now_ms: u64) -> Result<Plan, String> {
        if reference.starts_with("http://") || reference.starts_with("https://") {
            return Ok(Plan::Get(Request::get(reference)));
        }
        let Some((bucket, key)) = parse_s3(reference) else {
            return Err(format!("{reference}: only s3://, s3a://, http:// and https:// locations can be read remotely"));
        };
        let props = props_for(reference, &self.user, &self.table_config, &self.storage);
        let cfg = S3Config::from_props(&props);
        if cfg.remote_signing && cfg.access_key_id.is_none() {
            let session = session.ok_or_else(|| format!("{reference}: the table asks for remote signing but no catalog is connected"))?;
            let unsigned = Request::get(cfg.object_url(bucket, key)?);
            let sign = remote_sign_request(&session.signer_url(&props), cfg.region.as_deref().unwrap_or("us-east-1"), &unsigned);
            let sign = session.authorize(sign, now_ms).map_err(|e| e.to_string())?;
            return Ok(Plan::RemoteSign { unsigned, sign });
        }
        cfg.get(reference, now_ms).map(Plan::Get)
    }

    /// The S3 endpoint reads will go to, for the "can both sides reach it" check.
    pub fn endpoint_for(&self, reference: &str) -> Option<String> {
        S3Config::from_props(&props_for(reference, &self.user, &self.table_config, &self.storage)).endpoint
    }
}

/// True for localhost, 127.0.0.0/8 and [::1]: an address that means a different machine to each side.
pub fn is_loopback(url: &str) -> bool {
    let host = super::http::origin(url).split("://").nth(1).unwrap_or("");
    let host = host.rsplit_once(':').map(|(h, p)| if p.chars().all(|c| c.is_ascii_digit()) { h } else { host }).unwrap_or(host);
    host == "localhost" || host.starts_with("127.") || host == "[::1]"
}
