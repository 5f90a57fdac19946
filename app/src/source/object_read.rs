//! How to read one file a table's metadata names, decided without I/O: a plain GET, a SigV4-signed
//! GET, or a GET the catalog must sign first. The CLI and the browser both send what this plans.

use super::http::Request;
use super::rest_catalog::{props_for, CatalogSession, StorageCredential};
use super::s3::{apply_remote_signature, parse_s3, remote_sign_request, Props, S3Config};

/// Where a table's files are and what may be used to read them.
#[derive(Debug, Clone, Default)]
pub struct ObjectAccess {
    /// `s3.*` properties the user typed.
    pub user: Props,
    /// LoadTable's `config`.
    pub table_config: Props,
    /// LoadTable's `storage-credentials` (refreshed when they expire).
    pub storage: Vec<StorageCredential>,
    /// Origins the user named (the URL they typed, their catalog, the metadata location it gave):
    /// an `http(s)://` reference inside a table's files is read only from one of these or from an
    /// S3 endpoint typed or vended. A table cannot send the browser to a host of its choosing.
    pub named: Vec<String>,
}

pub enum Plan {
    Get(Request),
    /// Send `sign` to the catalog, apply its answer to `unsigned` (`s3::apply_remote_signature`).
    RemoteSign {
        unsigned: Request,
        sign: Request,
    },
}

impl ObjectAccess {
    pub fn plan(&self, reference: &str, session: Option<&CatalogSession>, now_ms: u64) -> Result<Plan, String> {
        self.plan_with(reference, &[], session, now_ms)
    }

    /// A read with extra request headers (`Range`): part of what is signed, locally or by the catalog.
    pub fn plan_with(&self, reference: &str, headers: &[(String, String)], session: Option<&CatalogSession>, now_ms: u64) -> Result<Plan, String> {
        let with = |mut r: Request| {
            r.headers.extend(headers.iter().cloned());
            r
        };
        let scheme = reference.get(..8).unwrap_or(reference).to_ascii_lowercase();
        if scheme.starts_with("http://") || scheme.starts_with("https://") {
            self.check_named(reference)?;
            return Ok(Plan::Get(with(Request::get(reference))));
        }
        let Some((bucket, key)) = parse_s3(reference) else {
            return Err(format!("{reference}: only s3://, s3a://, http:// and https:// locations can be read remotely"));
        };
        let props = props_for(reference, &self.user, &self.table_config, &self.storage);
        let cfg = S3Config::from_props(&props);
        if cfg.remote_signing && cfg.access_key_id.is_none() {
            let session = session.ok_or_else(|| format!("{reference}: the table asks for remote signing but no catalog is connected"))?;
            let unsigned = with(Request::get(cfg.object_url(bucket, key)?));
            let sign = remote_sign_request(&session.signer_url(&props), cfg.region.as_deref().unwrap_or("us-east-1"), &unsigned);
            let sign = session.authorize(sign, now_ms).map_err(|e| e.to_string())?;
            return Ok(Plan::RemoteSign { unsigned, sign });
        }
        cfg.get_with(reference, headers, now_ms).map(Plan::Get)
    }

    /// `unsigned` with the signer's answer applied. The answer's `uri` replaces the request's (as
    /// Iceberg Java's `S3V4RestSignerClient` does), so it is held to the hosts every other read is:
    /// the unsigned request's own (an S3 endpoint typed or vended), a named one, or an S3 endpoint.
    pub fn signed(&self, unsigned: Request, answer: &[u8]) -> Result<Request, String> {
        let own = super::http::origin(&unsigned.url).to_ascii_lowercase();
        let signed = apply_remote_signature(unsigned, answer)?;
        if super::http::origin(&signed.url).eq_ignore_ascii_case(&own) {
            return Ok(signed);
        }
        self.check_named(&signed.url).map_err(|e| format!("the remote signer answered with another address: {e}"))?;
        Ok(signed)
    }

    /// Names `url`'s origin as one the user chose.
    pub fn name(&mut self, url: &str) {
        let lower = url.get(..8).unwrap_or(url).to_ascii_lowercase();
        if lower.starts_with("http://") || lower.starts_with("https://") {
            let o = super::http::origin(url).to_ascii_lowercase();
            if !self.named.contains(&o) {
                self.named.push(o);
            }
        }
    }

    fn check_named(&self, reference: &str) -> Result<(), String> {
        let target = super::http::origin(reference).to_ascii_lowercase();
        let endpoints = [&self.user, &self.table_config].into_iter().chain(self.storage.iter().map(|c| &c.config)).filter_map(|p| p.get("s3.endpoint"));
        let endpoint_origins: Vec<String> = endpoints.map(|e| super::http::origin(e).to_ascii_lowercase()).collect();
        if self.named.contains(&target) || endpoint_origins.contains(&target) {
            return Ok(());
        }
        let mut allowed: Vec<&str> = self.named.iter().chain(&endpoint_origins).map(String::as_str).collect();
        allowed.dedup();
        Err(format!(
            "{reference}: not read — {target} is not a host you named (named: {}); a table's files cannot send icescope elsewhere",
            if allowed.is_empty() { "none".to_string() } else { allowed.join(", ") }
        ))
    }

    /// Every origin a read of this table may go to: the named ones, each S3 endpoint typed or
    /// vended, the signer's, and `https://*.amazonaws.com` where a configuration names no endpoint
    /// (AWS's own, one host per bucket). The browser narrows its `connect-src` to these.
    pub fn origins(&self, session: Option<&CatalogSession>) -> Vec<String> {
        // As reads merge them: typed, then the table's config, then each vended credential.
        let base = props_for("", &self.user, &self.table_config, &[]);
        let vended = self.storage.iter().map(|c| base.clone().into_iter().chain(c.config.clone()).collect());
        let configs: Vec<Props> = std::iter::once(base.clone()).chain(vended).collect();
        let mut out: Vec<String> = self.named.clone();
        let mut aws = false;
        for props in &configs {
            let cfg = S3Config::from_props(props);
            match &cfg.endpoint {
                Some(e) => out.push(super::http::origin(e).to_ascii_lowercase()),
                None => aws = true,
            }
            if cfg.remote_signing {
                if let Some(session) = session {
                    out.push(super::http::origin(&session.signer_url(props)).to_ascii_lowercase());
                }
            }
        }
        if aws {
            out.push("https://*.amazonaws.com".to_string());
        }
        if let Some(session) = session {
            out.extend(session.origins());
        }
        out.sort();
        out.dedup();
        out
    }

    /// The S3 settings reads of `reference` use (typed, vended for its prefix, or the table's config).
    pub fn s3_config_for(&self, reference: &str) -> S3Config {
        S3Config::from_props(&props_for(reference, &self.user, &self.table_config, &self.storage))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_references_go_only_to_named_origins_and_s3_endpoints() {
        let mut a = ObjectAccess::default();
        a.name("HTTP://Files.Example:8080/t/metadata/v3.metadata.json");
        a.table_config.insert("s3.endpoint".into(), "http://127.0.0.1:8333/".into());
        assert!(a.plan("http://files.example:8080/t/metadata/snap-1.avro", None, 0).is_ok());
        assert!(a.plan("http://127.0.0.1:8333/wh/t/x.avro", None, 0).is_ok(), "a vended endpoint");
        let Err(e) = a.plan("http://evil.example/t/snap-1.avro", None, 0) else { panic!("read from a host nobody named") };
        assert!(e.contains("http://evil.example is not a host you named (named: http://files.example:8080, http://127.0.0.1:8333)"), "{e}");
        assert!(a.plan("http://files.example:8081/x", None, 0).is_err(), "another port is another origin");
    }

    #[test]
    fn origins_are_what_reads_may_reach() {
        let mut a = ObjectAccess::default();
        a.name("https://files.example/t/metadata/v3.metadata.json");
        a.user.insert("s3.endpoint".into(), "http://127.0.0.1:8333/".into());
        assert_eq!(a.origins(None), ["http://127.0.0.1:8333", "https://files.example"]);
        // A credential for one prefix with its own endpoint adds that endpoint, and nothing else.
        let mut vended = Props::new();
        vended.insert("s3.endpoint".into(), "https://S3.Vended.Example:9000".into());
        a.storage.push(StorageCredential { prefix: "s3://wh/t/".into(), config: vended });
        assert_eq!(a.origins(None), ["http://127.0.0.1:8333", "https://files.example", "https://s3.vended.example:9000"]);
        // No endpoint anywhere: AWS's own hosts, one per bucket.
        assert_eq!(ObjectAccess::default().origins(None), ["https://*.amazonaws.com"]);
        // Iceberg Java's root prefix `s3` (every bucket): its endpoint is one reads may reach.
        let mut root = Props::new();
        root.insert("s3.endpoint".into(), "http://127.0.0.1:9000".into());
        a.storage = vec![StorageCredential { prefix: "s3".into(), config: root }];
        assert_eq!(a.origins(None), ["http://127.0.0.1:8333", "http://127.0.0.1:9000", "https://files.example"]);
        assert_eq!(a.endpoint_for("s3://any-bucket/t/x.avro").as_deref(), Some("http://127.0.0.1:9000"));
    }
}
