//! The options several commands share, so that a table, a catalog and a store are named the
//! same way everywhere. Auth flags follow PyIceberg's property names; every secret can also come
//! from the environment, so that it stays out of shell history.

use std::collections::BTreeMap;

use icescope::analysis::findings::TableRef;
use icescope::model::TableHistory;
use icescope::source::rest_catalog::CatalogAuth;

/// How a table is found and how much of it is read.
#[derive(Debug, Clone, clap::Args)]
pub struct TableArgs {
    /// A table folder, a metadata.json, an https:// or s3:// metadata URL, or an export folder or prefix
    #[arg(value_name = "TABLE")]
    pub target: Option<String>,
    /// Open this metadata file of the folder (e.g. v7.metadata.json) instead of the newest by
    /// content (last-sequence-number, last-updated-ms): time travel through versions
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    pub metadata: Option<String>,
    /// Read every snapshot's manifests (with a folder, orphan files become a finding too)
    #[arg(long, help_heading = "Reading")]
    pub all_snapshots: bool,
    /// Read the sample even on a small table
    #[arg(long, help_heading = "Reading")]
    pub metadata_first: bool,
    /// Keys per ListObjectsV2 page when a store is listed (an s3:// export prefix, orphans)
    #[arg(long, value_name = "N", default_value_t = icescope::source::s3_list::PAGE_SIZE, help_heading = "Reading")]
    pub s3_list_page_size: usize,
    #[command(flatten)]
    pub catalog: CatalogArgs,
    /// The table in the catalog
    #[arg(long, value_name = "NS.NAME", help_heading = "Catalog")]
    pub table: Option<String>,
    #[command(flatten)]
    pub storage: StorageArgs,
}

/// A table, and how the printed Spark statements name it.
#[derive(Debug, clap::Args)]
pub struct NamedTable {
    #[command(flatten)]
    pub table: TableArgs,
    #[command(flatten)]
    pub naming: Naming,
}

/// How the printed Spark statements name the table.
#[derive(Debug, clap::Args)]
pub struct Naming {
    /// The catalog name statements use (CALL <name>.system…)
    #[arg(long, value_name = "NAME", help_heading = "Statements")]
    pub spark_catalog: Option<String>,
    /// The table name statements use
    #[arg(long, value_name = "NS.NAME", help_heading = "Statements")]
    pub table_name: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct CatalogArgs {
    /// An Iceberg REST catalog's URI
    #[arg(long, value_name = "URI", help_heading = "Catalog")]
    pub catalog: Option<String>,
    /// The warehouse the catalog serves (its `warehouse` parameter)
    #[arg(long, value_name = "W", help_heading = "Catalog")]
    pub warehouse: Option<String>,
    /// A bearer token
    #[arg(long, value_name = "T", env = "ICESCOPE_TOKEN", hide_env_values = true, help_heading = "Catalog")]
    pub token: Option<String>,
    /// OAuth2 client credentials
    #[arg(long, value_name = "ID:SECRET", env = "ICESCOPE_CREDENTIAL", hide_env_values = true, help_heading = "Catalog")]
    pub credential: Option<String>,
    /// Where to ask for the OAuth2 token (default: the catalog's v1/oauth/tokens)
    #[arg(long, value_name = "URI", help_heading = "Catalog")]
    pub oauth2_server_uri: Option<String>,
    /// The OAuth2 scope to ask for
    #[arg(long, value_name = "S", help_heading = "Catalog")]
    pub scope: Option<String>,
    /// Sign catalog requests with AWS SigV4 (Glue, S3 Tables), with the AWS keys below
    #[arg(long, help_heading = "Catalog")]
    pub sigv4: bool,
    /// --sigv4: the region to sign for (default: the S3 region)
    #[arg(long, value_name = "R", help_heading = "Catalog")]
    pub signing_region: Option<String>,
    /// --sigv4: the service to sign for (default: execute-api; glue, s3tables)
    #[arg(long, value_name = "N", help_heading = "Catalog")]
    pub signing_name: Option<String>,
}

#[derive(Debug, Clone, clap::Args)]
pub struct StorageArgs {
    /// The object store (for AWS https://s3.<region>.amazonaws.com): requests go nowhere else
    #[arg(long, value_name = "URL", help_heading = "Storage")]
    pub s3_endpoint: Option<String>,
    /// The AWS access key id (where the catalog vends none)
    #[arg(long, value_name = "K", env = "AWS_ACCESS_KEY_ID", hide_env_values = true, help_heading = "Storage")]
    pub s3_access_key_id: Option<String>,
    /// The AWS secret access key
    #[arg(long, value_name = "S", env = "AWS_SECRET_ACCESS_KEY", hide_env_values = true, help_heading = "Storage")]
    pub s3_secret_access_key: Option<String>,
    /// The AWS session token of temporary keys
    #[arg(long, value_name = "T", env = "AWS_SESSION_TOKEN", hide_env_values = true, help_heading = "Storage")]
    pub s3_session_token: Option<String>,
    /// The store's region
    #[arg(long, value_name = "R", env = "AWS_REGION", hide_env_values = true, help_heading = "Storage")]
    pub s3_region: Option<String>,
    /// Address buckets as https://endpoint/bucket (MinIO, SeaweedFS), not as a host name
    #[arg(long, help_heading = "Storage")]
    pub s3_path_style_access: bool,
}

/// An empty variable in the environment is no value.
fn given(v: Option<&String>) -> Option<String> {
    v.filter(|v| !v.is_empty()).cloned()
}

impl TableArgs {
    /// `s3.*` properties the user typed, by PyIceberg's names.
    pub fn s3(&self) -> BTreeMap<String, String> {
        self.storage.s3()
    }
}

impl NamedTable {
    /// How statements name the table: `--table-name`, else the catalog's `--table`, else a guess
    /// from the table's location.
    pub fn table_ref(&self, history: &TableHistory) -> TableRef {
        let mut table = TableRef::guess(history, self.naming.spark_catalog.as_deref());
        if let Some(t) = self.naming.table_name.as_ref().or(self.table.table.as_ref()) {
            table.table = t.clone();
        }
        table
    }
}

impl StorageArgs {
    /// `s3.*` properties the user typed, by PyIceberg's names.
    pub fn s3(&self) -> BTreeMap<String, String> {
        let path_style = self.s3_path_style_access.then(|| "true".to_string());
        [
            ("s3.endpoint", self.s3_endpoint.as_ref()),
            ("s3.access-key-id", self.s3_access_key_id.as_ref()),
            ("s3.secret-access-key", self.s3_secret_access_key.as_ref()),
            ("s3.session-token", self.s3_session_token.as_ref()),
            ("s3.region", self.s3_region.as_ref()),
            ("s3.path-style-access", path_style.as_ref()),
        ]
        .into_iter()
        .filter_map(|(prop, value)| Some((prop.to_string(), given(value)?)))
        .collect()
    }
}

impl CatalogArgs {
    /// SigV4 signs with the store's keys and region (`s3`) unless told otherwise.
    pub fn auth(&self, s3: &BTreeMap<String, String>) -> Result<CatalogAuth, String> {
        if self.sigv4 {
            let get = |k: &str| s3.get(k).cloned();
            return Ok(CatalogAuth::SigV4 {
                region: self.signing_region.clone().or_else(|| get("s3.region")).ok_or("--sigv4 needs --signing-region (or AWS_REGION)")?,
                signing_name: self.signing_name.clone().unwrap_or_else(|| "execute-api".into()),
                access_key_id: get("s3.access-key-id").ok_or("--sigv4 needs AWS keys (--s3-access-key-id or AWS_ACCESS_KEY_ID)")?,
                secret_access_key: get("s3.secret-access-key").ok_or("--sigv4 needs AWS keys (--s3-secret-access-key or AWS_SECRET_ACCESS_KEY)")?,
                session_token: get("s3.session-token"),
            });
        }
        if let Some(t) = given(self.token.as_ref()) {
            return Ok(CatalogAuth::Bearer(t));
        }
        if let Some(c) = given(self.credential.as_ref()) {
            let (id, secret) = c.split_once(':').ok_or("--credential takes CLIENT_ID:CLIENT_SECRET")?;
            return Ok(CatalogAuth::OAuth2 {
                client_id: id.to_string(),
                client_secret: secret.to_string(),
                server_uri: self.oauth2_server_uri.clone(),
                scope: self.scope.clone(),
            });
        }
        Ok(CatalogAuth::None)
    }
}
