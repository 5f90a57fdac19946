//! Command-line options. Auth flags follow PyIceberg's property names; every secret can also come
//! from the environment, so that it stays out of shell history.

use std::collections::BTreeMap;

use icescope::source::rest_catalog::CatalogAuth;

/// The commands. Every one takes the same options (a table is named the same way everywhere);
/// each says which it reads.
#[derive(Debug, clap::Parser)]
#[command(name = "icescope", version, about = "See how a streaming writer grows an Apache Iceberg table, checkpoint by checkpoint", after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// The table's history, findings and statements: TABLE is a table folder, a metadata.json, an
    /// https:// or s3:// metadata URL, or --catalog with --table
    Inspect(Args),
    /// List a REST catalog's namespaces and tables
    Catalog(Args),
    /// What changed between two snapshots (--from A --to B; default the current snapshot's parent
    /// and the current one). A, B: a snapshot id, current, parent, job:<flink.job-id or prefix> (its
    /// last commit) or checkpoint:<n> (its last commit)
    Diff(Args),
    /// One snapshot's metadata, manifest list and manifest entries (the first manifest unless
    /// --manifest names one), as the spec names fields (JSON)
    Walk(Args),
    /// Files, snapshots, growth, deletes, jobs, partitions and findings as CSV or Parquet in --out
    Export(Args),
    /// The Spark SQL that writes the table's metadata tables as Parquet into --to FOLDER; then
    /// `icescope inspect FOLDER` (for tables whose manifests are too many to read here)
    SparkExport(Args),
    /// The files under the table that no snapshot references, and remove_orphan_files with
    /// older_than = last commit - 1 h
    Orphans(Args),
    /// Every live Parquet file's footer against its manifest entry (rows, size); ranged reads only
    Footers(Args),
    /// Live rows, distinct and duplicated keys, by the Flink job that added each copy; what each
    /// delete file and vector hit
    Duplicates(Args),
}

const AFTER_HELP: &str = "\
Each command takes the options of `icescope inspect --help`.
reading:  metadata.json first: every snapshot's summary totals, then the manifests of the current
          and last snapshots and the manifest lists of a sample (tables over 200 snapshots).
export:   CSV text starting with = + - @ gets a leading ' (OWASP CSV injection).
secrets:  ICESCOPE_TOKEN, ICESCOPE_CREDENTIAL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
          AWS_SESSION_TOKEN, AWS_REGION stand in for their flags (flags win), so that secrets stay
          out of shell history.";

#[derive(Debug, Default, clap::Args)]
pub struct Args {
    #[arg(skip)]
    pub command: String,
    /// A table folder, a metadata.json, or an https:// or s3:// metadata URL (or an export folder)
    #[arg(value_name = "TABLE")]
    pub target: Option<String>,
    /// json, text or markdown (json); export: csv or parquet (csv)
    #[arg(long = "format", value_name = "FORMAT", help_heading = "Output")]
    format_flag: Option<String>,
    #[arg(skip)]
    pub format: String,
    /// Whether `--format` was given (export defaults to CSV, the rest to JSON).
    #[arg(skip)]
    pub format_given: bool,
    /// export: snapshots, series, findings or all
    #[arg(long, default_value = "all", help_heading = "Output")]
    pub what: String,
    /// export: the folder the files go to
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub out: Option<String>,
    /// Print the paths read, one per line, instead of the report
    #[arg(long, help_heading = "Output")]
    pub reads: bool,
    /// The catalog name statements use (CALL <name>.system…)
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub spark_catalog: Option<String>,
    /// The table name statements use (NS.NAME)
    #[arg(long, value_name = "NS.NAME", help_heading = "Output")]
    pub table_name: Option<String>,
    /// Read every snapshot's manifests (with a folder, orphan files become a finding too)
    #[arg(long, help_heading = "Reading")]
    pub all_snapshots: bool,
    /// Read the sample even on a small table
    #[arg(long, help_heading = "Reading")]
    pub metadata_first: bool,
    /// Open this metadata file of the folder (e.g. v7.metadata.json) instead of the newest by
    /// content (last-sequence-number, last-updated-ms): time travel through versions
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    pub metadata: Option<String>,
    /// diff: the older snapshot
    #[arg(long, value_name = "A", help_heading = "Snapshots")]
    pub from: Option<String>,
    /// diff, walk: the newer snapshot; spark-export: the folder Spark writes to
    #[arg(long, value_name = "B", help_heading = "Snapshots")]
    pub to: Option<String>,
    /// walk: the manifest to open
    #[arg(long, value_name = "PATH", help_heading = "Snapshots")]
    pub manifest: Option<String>,
    /// footers, duplicates: the snapshot (default: the current one)
    #[arg(long, value_name = "ID", help_heading = "Snapshots")]
    pub snapshot: Option<String>,
    /// duplicates: the key columns, comma-separated (default: the schema's identifier fields)
    #[arg(long = "key", value_name = "COL[,COL]", help_heading = "Data files")]
    key_flag: Option<String>,
    #[arg(skip)]
    pub key: Option<Vec<String>>,
    /// duplicates: keys counted exactly before the sketch takes over
    #[arg(long, value_name = "N", help_heading = "Data files")]
    pub key_budget: Option<usize>,
    /// orphans: keys per ListObjectsV2 page when the table's store is listed
    #[arg(long, value_name = "N", default_value_t = icescope::source::s3_list::PAGE_SIZE, help_heading = "Data files")]
    pub s3_list_page_size: usize,
    /// An Iceberg REST catalog's URI
    #[arg(long, value_name = "URI", help_heading = "Catalog")]
    pub catalog: Option<String>,
    /// The warehouse the catalog serves (its `warehouse` parameter)
    #[arg(long, value_name = "W", help_heading = "Catalog")]
    pub warehouse: Option<String>,
    /// The table in the catalog
    #[arg(long, value_name = "NS.NAME", help_heading = "Catalog")]
    pub table: Option<String>,
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
    /// The object store (for AWS https://s3.<region>.amazonaws.com): requests go nowhere else
    #[arg(long, value_name = "URL", help_heading = "Storage")]
    s3_endpoint: Option<String>,
    /// The AWS access key id (where the catalog vends none)
    #[arg(long, value_name = "K", env = "AWS_ACCESS_KEY_ID", hide_env_values = true, help_heading = "Storage")]
    s3_access_key_id: Option<String>,
    /// The AWS secret access key
    #[arg(long, value_name = "S", env = "AWS_SECRET_ACCESS_KEY", hide_env_values = true, help_heading = "Storage")]
    s3_secret_access_key: Option<String>,
    /// The AWS session token of temporary keys
    #[arg(long, value_name = "T", env = "AWS_SESSION_TOKEN", hide_env_values = true, help_heading = "Storage")]
    s3_session_token: Option<String>,
    /// The store's region
    #[arg(long, value_name = "R", env = "AWS_REGION", hide_env_values = true, help_heading = "Storage")]
    s3_region: Option<String>,
    /// Address buckets as https://endpoint/bucket (MinIO, SeaweedFS), not as a host name
    #[arg(long, help_heading = "Storage")]
    s3_path_style_access: bool,
    /// `s3.*` properties the user typed, by PyIceberg's names.
    #[arg(skip)]
    pub s3: BTreeMap<String, String>,
}

/// What the command line asks for: help text to print, or a command to run.
pub enum Invocation {
    Help(String),
    Run(Box<Args>),
}

impl Args {
    pub fn parse(argv: &[String]) -> Result<Invocation, String> {
        use clap::Parser;
        let cli = match Cli::try_parse_from(std::iter::once("icescope".to_string()).chain(argv.iter().cloned())) {
            Ok(cli) => cli,
            Err(e) if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) => {
                return Ok(Invocation::Help(format!("{}\n", e.render().to_string().trim_end())))
            }
            Err(e) => return Err(e.render().to_string().trim_start_matches("error: ").trim_end().to_string()),
        };
        let (name, mut a) = match cli.command {
            Command::Inspect(a) => ("inspect", a),
            Command::Catalog(a) => ("catalog", a),
            Command::Diff(a) => ("diff", a),
            Command::Walk(a) => ("walk", a),
            Command::Export(a) => ("export", a),
            Command::SparkExport(a) => ("spark-export", a),
            Command::Orphans(a) => ("orphans", a),
            Command::Footers(a) => ("footers", a),
            Command::Duplicates(a) => ("duplicates", a),
        };
        a.command = name.to_string();
        a.format_given = a.format_flag.is_some();
        a.format = a.format_flag.take().unwrap_or_else(|| "json".into());
        a.key = a.key_flag.take().map(|k| k.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect());
        for (prop, value) in [
            ("s3.endpoint", a.s3_endpoint.take()),
            ("s3.access-key-id", a.s3_access_key_id.take()),
            ("s3.secret-access-key", a.s3_secret_access_key.take()),
            ("s3.session-token", a.s3_session_token.take()),
            ("s3.region", a.s3_region.take()),
            ("s3.path-style-access", a.s3_path_style_access.then(|| "true".to_string())),
        ] {
            // An empty variable in the environment is no value.
            if let Some(v) = value.filter(|v| !v.is_empty()) {
                a.s3.insert(prop.into(), v);
            }
        }
        a.token = a.token.take().filter(|v| !v.is_empty());
        a.credential = a.credential.take().filter(|v| !v.is_empty());
        Ok(Invocation::Run(Box::new(a)))
    }

    pub fn auth(&self) -> Result<CatalogAuth, String> {
        if self.sigv4 {
            let get = |k: &str| self.s3.get(k).cloned();
            return Ok(CatalogAuth::SigV4 {
                region: self.signing_region.clone().or_else(|| get("s3.region")).ok_or("--sigv4 needs --signing-region (or AWS_REGION)")?,
                signing_name: self.signing_name.clone().unwrap_or_else(|| "execute-api".into()),
                access_key_id: get("s3.access-key-id").ok_or("--sigv4 needs AWS keys (--s3-access-key-id or AWS_ACCESS_KEY_ID)")?,
                secret_access_key: get("s3.secret-access-key").ok_or("--sigv4 needs AWS keys (--s3-secret-access-key or AWS_SECRET_ACCESS_KEY)")?,
                session_token: get("s3.session-token"),
            });
        }
        if let Some(t) = &self.token {
            return Ok(CatalogAuth::Bearer(t.clone()));
        }
        if let Some(c) = &self.credential {
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
