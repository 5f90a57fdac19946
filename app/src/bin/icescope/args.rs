//! Command-line options (clap). Each command takes the options it uses; those that name a table
//! are shared, so a table is named the same way everywhere. Auth flags follow PyIceberg's property
//! names; every secret can also come from the environment, so that it stays out of shell history.

use std::collections::BTreeMap;

use icescope::source::rest_catalog::CatalogAuth;

#[derive(Debug, clap::Parser)]
#[command(name = "icescope", version, about = "See how a streaming writer grows an Apache Iceberg table, checkpoint by checkpoint", after_help = AFTER_HELP)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, clap::Subcommand)]
enum Command {
    /// The table's history, findings and statements
    Inspect(Inspect),
    /// List a REST catalog's namespaces and tables
    Catalog(CatalogList),
    /// What changed between two snapshots: files and records by partition, the schema, the commits between
    Diff(Diff),
    /// One snapshot's metadata, manifest list and manifest entries, as the spec names fields (JSON)
    Walk(Walk),
    /// Files, snapshots, growth, deletes, jobs, partitions and findings as CSV or Parquet
    Export(Export),
    /// The Spark SQL that writes a table's metadata tables as Parquet, for tables whose manifests are
    /// too many to read here; then `icescope inspect FOLDER`
    SparkExport(SparkExport),
    /// The files under the table that no snapshot references, and remove_orphan_files with
    /// older_than = last commit - 1 h
    Orphans(Orphans),
    /// Every live Parquet file's footer against its manifest entry (rows, size); ranged reads only
    Footers(Footers),
    /// Live rows, distinct and duplicated keys, by the Flink job that added each copy; what each
    /// delete file and vector hit
    Duplicates(Duplicates),
}

// One paragraph: clap wraps it to the terminal.
const AFTER_HELP: &str = "TABLE is a table folder, a metadata.json, an https:// or s3:// metadata URL, an export folder or s3:// prefix, or \
--catalog URI --table NS.NAME. metadata.json is read first: every snapshot's summary totals, then the manifests of the current and last \
snapshots and the manifest lists of a sample (tables over 200 snapshots). Secrets may come from ICESCOPE_TOKEN, ICESCOPE_CREDENTIAL and \
AWS_* instead of flags, out of shell history. `icescope <command> --help` lists a command's options.";

/// How a table is found and how much of it is read.
#[derive(Debug, clap::Args)]
struct TableArgs {
    /// A table folder, a metadata.json, an https:// or s3:// metadata URL, or an export folder or prefix
    #[arg(value_name = "TABLE")]
    target: Option<String>,
    /// Open this metadata file of the folder (e.g. v7.metadata.json) instead of the newest by
    /// content (last-sequence-number, last-updated-ms): time travel through versions
    #[arg(long, value_name = "NAME", help_heading = "Reading")]
    metadata: Option<String>,
    /// Read every snapshot's manifests (with a folder, orphan files become a finding too)
    #[arg(long, help_heading = "Reading")]
    all_snapshots: bool,
    /// Read the sample even on a small table
    #[arg(long, help_heading = "Reading")]
    metadata_first: bool,
    /// Keys per ListObjectsV2 page when a store is listed (an s3:// export prefix, orphans)
    #[arg(long, value_name = "N", default_value_t = icescope::source::s3_list::PAGE_SIZE, help_heading = "Reading")]
    s3_list_page_size: usize,
    #[command(flatten)]
    catalog: CatalogArgs,
    /// The table in the catalog
    #[arg(long, value_name = "NS.NAME", help_heading = "Catalog")]
    table: Option<String>,
    #[command(flatten)]
    storage: StorageArgs,
}

/// A table, and how the printed Spark statements name it.
#[derive(Debug, clap::Args)]
struct NamedTable {
    #[command(flatten)]
    table: TableArgs,
    #[command(flatten)]
    naming: Naming,
}

/// How the printed Spark statements name the table.
#[derive(Debug, clap::Args)]
struct Naming {
    /// The catalog name statements use (CALL <name>.system…)
    #[arg(long, value_name = "NAME", help_heading = "Statements")]
    spark_catalog: Option<String>,
    /// The table name statements use
    #[arg(long, value_name = "NS.NAME", help_heading = "Statements")]
    table_name: Option<String>,
}

#[derive(Debug, clap::Args)]
struct CatalogArgs {
    /// An Iceberg REST catalog's URI
    #[arg(long, value_name = "URI", help_heading = "Catalog")]
    catalog: Option<String>,
    /// The warehouse the catalog serves (its `warehouse` parameter)
    #[arg(long, value_name = "W", help_heading = "Catalog")]
    warehouse: Option<String>,
    /// A bearer token
    #[arg(long, value_name = "T", env = "ICESCOPE_TOKEN", hide_env_values = true, help_heading = "Catalog")]
    token: Option<String>,
    /// OAuth2 client credentials
    #[arg(long, value_name = "ID:SECRET", env = "ICESCOPE_CREDENTIAL", hide_env_values = true, help_heading = "Catalog")]
    credential: Option<String>,
    /// Where to ask for the OAuth2 token (default: the catalog's v1/oauth/tokens)
    #[arg(long, value_name = "URI", help_heading = "Catalog")]
    oauth2_server_uri: Option<String>,
    /// The OAuth2 scope to ask for
    #[arg(long, value_name = "S", help_heading = "Catalog")]
    scope: Option<String>,
    /// Sign catalog requests with AWS SigV4 (Glue, S3 Tables), with the AWS keys below
    #[arg(long, help_heading = "Catalog")]
    sigv4: bool,
    /// --sigv4: the region to sign for (default: the S3 region)
    #[arg(long, value_name = "R", help_heading = "Catalog")]
    signing_region: Option<String>,
    /// --sigv4: the service to sign for (default: execute-api; glue, s3tables)
    #[arg(long, value_name = "N", help_heading = "Catalog")]
    signing_name: Option<String>,
}

#[derive(Debug, clap::Args)]
struct StorageArgs {
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
}

#[derive(Debug, clap::Args)]
struct Inspect {
    #[command(flatten)]
    table: NamedTable,
    /// json, text or markdown
    #[arg(long, default_value = "json", value_parser = ["json", "text", "markdown"], help_heading = "Output")]
    format: String,
    /// Print the paths read, one per line, instead of the report
    #[arg(long, help_heading = "Output")]
    reads: bool,
}

#[derive(Debug, clap::Args)]
struct CatalogList {
    #[command(flatten)]
    catalog: CatalogArgs,
    #[command(flatten)]
    storage: StorageArgs,
    /// json or text
    #[arg(long, default_value = "json", value_parser = ["json", "text"], help_heading = "Output")]
    format: String,
}

#[derive(Debug, clap::Args)]
struct Diff {
    #[command(flatten)]
    table: NamedTable,
    /// The older snapshot: a snapshot id, current, parent, job:<flink.job-id or prefix> (its last
    /// commit) or checkpoint:<n> (its last commit)
    #[arg(long, value_name = "A", default_value = "parent", help_heading = "Snapshots")]
    from: String,
    /// The newer snapshot, written as --from
    #[arg(long, value_name = "B", default_value = "current", help_heading = "Snapshots")]
    to: String,
    /// json, text or markdown
    #[arg(long, default_value = "json", value_parser = ["json", "text", "markdown"], help_heading = "Output")]
    format: String,
}

#[derive(Debug, clap::Args)]
struct Walk {
    #[command(flatten)]
    table: TableArgs,
    /// The snapshot, written as diff's --to
    #[arg(long, value_name = "B", default_value = "current", help_heading = "Snapshots")]
    to: String,
    /// The manifest to open (default: the snapshot's first)
    #[arg(long, value_name = "PATH", help_heading = "Snapshots")]
    manifest: Option<String>,
}

#[derive(Debug, clap::Args)]
struct Export {
    #[command(flatten)]
    table: NamedTable,
    /// snapshots, series, findings or all
    #[arg(long, default_value = "all", help_heading = "Output")]
    what: String,
    /// csv or parquet (CSV text starting with = + - @ gets a leading ', as OWASP advises)
    #[arg(long, default_value = "csv", value_parser = ["csv", "parquet"], help_heading = "Output")]
    format: String,
    /// The folder the files go to
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    out: String,
}

#[derive(Debug, clap::Args)]
struct SparkExport {
    /// The table as Spark names it
    #[arg(long, value_name = "CATALOG.NS.NAME")]
    table: String,
    /// The folder (or s3:// prefix) Spark writes the Parquet files into
    #[arg(long, value_name = "FOLDER", alias = "out")]
    to: String,
}

#[derive(Debug, clap::Args)]
struct Orphans {
    #[command(flatten)]
    table: NamedTable,
    /// json, text or markdown
    #[arg(long, default_value = "json", value_parser = ["json", "text", "markdown"], help_heading = "Output")]
    format: String,
}

#[derive(Debug, clap::Args)]
struct Footers {
    #[command(flatten)]
    table: NamedTable,
    /// The snapshot whose live files are read (default: the current one)
    #[arg(long, value_name = "ID", help_heading = "Snapshots")]
    snapshot: Option<String>,
    /// json, text or markdown
    #[arg(long, default_value = "json", value_parser = ["json", "text", "markdown"], help_heading = "Output")]
    format: String,
}

#[derive(Debug, clap::Args)]
struct Duplicates {
    #[command(flatten)]
    table: NamedTable,
    /// The snapshot whose live rows are counted (default: the current one)
    #[arg(long, value_name = "ID", help_heading = "Snapshots")]
    snapshot: Option<String>,
    /// The key columns, comma-separated (default: the schema's identifier fields)
    #[arg(long, value_name = "COL[,COL]", help_heading = "Keys")]
    key: Option<String>,
    /// Keys counted exactly before the sketch takes over
    #[arg(long, value_name = "N", help_heading = "Keys")]
    key_budget: Option<usize>,
    /// json, text or markdown
    #[arg(long, default_value = "json", value_parser = ["json", "text", "markdown"], help_heading = "Output")]
    format: String,
}

/// Every option of every command, as the commands read them.
#[derive(Debug, Default)]
pub struct Args {
    pub command: String,
    pub target: Option<String>,
    pub format: String,
    /// `export --what`.
    pub what: String,
    /// `export --out DIR`.
    pub out: Option<String>,
    /// Keys per ListObjectsV2 page when a store is listed.
    pub s3_list_page_size: usize,
    pub all_snapshots: bool,
    pub metadata_first: bool,
    pub reads: bool,
    /// `--snapshot ID` for footers and duplicates (default: the current snapshot).
    pub snapshot: Option<String>,
    /// `--key a,b`: the key columns (default: the schema's identifier fields).
    pub key: Option<Vec<String>>,
    /// `--key-budget N`: keys counted exactly before the sketch takes over.
    pub key_budget: Option<usize>,
    /// A metadata file of the folder to open instead of the newest.
    pub metadata: Option<String>,
    /// `diff`: the two snapshots; `walk`: the one; `spark-export`: the folder.
    pub from: Option<String>,
    pub to: Option<String>,
    /// `walk`: the manifest to open.
    pub manifest: Option<String>,
    pub spark_catalog: Option<String>,
    pub table_name: Option<String>,
    pub catalog: Option<String>,
    pub warehouse: Option<String>,
    pub table: Option<String>,
    pub token: Option<String>,
    pub credential: Option<String>,
    pub oauth2_server_uri: Option<String>,
    pub scope: Option<String>,
    pub sigv4: bool,
    pub signing_region: Option<String>,
    pub signing_name: Option<String>,
    /// `s3.*` properties the user typed, by PyIceberg's names.
    pub s3: BTreeMap<String, String>,
}

/// What the command line asks for: help text to print, or a command to run.
pub enum Invocation {
    Help(String),
    Run(Box<Args>),
}

/// An empty variable in the environment is no value.
fn given(v: Option<String>) -> Option<String> {
    v.filter(|v| !v.is_empty())
}

impl TableArgs {
    fn apply(self, a: &mut Args) {
        a.target = self.target;
        a.metadata = self.metadata;
        a.all_snapshots = self.all_snapshots;
        a.metadata_first = self.metadata_first;
        a.s3_list_page_size = self.s3_list_page_size;
        a.table = self.table;
        self.catalog.apply(a);
        self.storage.apply(a);
    }
}

impl CatalogArgs {
    fn apply(self, a: &mut Args) {
        a.catalog = self.catalog;
        a.warehouse = self.warehouse;
        a.token = given(self.token);
        a.credential = given(self.credential);
        a.oauth2_server_uri = self.oauth2_server_uri;
        a.scope = self.scope;
        a.sigv4 = self.sigv4;
        a.signing_region = self.signing_region;
        a.signing_name = self.signing_name;
    }
}

impl StorageArgs {
    fn apply(self, a: &mut Args) {
        for (prop, value) in [
            ("s3.endpoint", self.s3_endpoint),
            ("s3.access-key-id", self.s3_access_key_id),
            ("s3.secret-access-key", self.s3_secret_access_key),
            ("s3.session-token", self.s3_session_token),
            ("s3.region", self.s3_region),
            ("s3.path-style-access", self.s3_path_style_access.then(|| "true".to_string())),
        ] {
            if let Some(v) = given(value) {
                a.s3.insert(prop.into(), v);
            }
        }
    }
}

impl NamedTable {
    fn apply(self, a: &mut Args) {
        self.table.apply(a);
        self.naming.apply(a);
    }
}

impl Naming {
    fn apply(self, a: &mut Args) {
        a.spark_catalog = self.spark_catalog;
        a.table_name = self.table_name;
    }
}

impl Args {
    pub fn parse(argv: &[String]) -> Result<Invocation, String> {
        use clap::error::ErrorKind;
        use clap::Parser;
        let cli = match Cli::try_parse_from(std::iter::once("icescope".to_string()).chain(argv.iter().cloned())) {
            Ok(cli) => cli,
            Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
                return Ok(Invocation::Help(format!("{}\n", e.render().to_string().trim_end())))
            }
            Err(e) => return Err(e.render().to_string().trim_start_matches("error: ").trim_end().to_string()),
        };
        let mut a = Args { s3_list_page_size: icescope::source::s3_list::PAGE_SIZE, ..Args::default() };
        a.command = match cli.command {
            Command::Inspect(c) => {
                c.table.apply(&mut a);
                (a.format, a.reads) = (c.format, c.reads);
                "inspect"
            }
            Command::Catalog(c) => {
                c.catalog.apply(&mut a);
                c.storage.apply(&mut a);
                a.format = c.format;
                "catalog"
            }
            Command::Diff(c) => {
                c.table.apply(&mut a);
                (a.from, a.to, a.format) = (Some(c.from), Some(c.to), c.format);
                "diff"
            }
            Command::Walk(c) => {
                c.table.apply(&mut a);
                (a.to, a.manifest) = (Some(c.to), c.manifest);
                "walk"
            }
            Command::Export(c) => {
                c.table.apply(&mut a);
                (a.what, a.format, a.out) = (c.what, c.format, Some(c.out));
                "export"
            }
            Command::SparkExport(c) => {
                (a.table, a.to) = (Some(c.table), Some(c.to));
                "spark-export"
            }
            Command::Orphans(c) => {
                c.table.apply(&mut a);
                a.format = c.format;
                "orphans"
            }
            Command::Footers(c) => {
                c.table.apply(&mut a);
                (a.snapshot, a.format) = (c.snapshot, c.format);
                "footers"
            }
            Command::Duplicates(c) => {
                c.table.apply(&mut a);
                a.key = c.key.map(|k| k.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect());
                (a.snapshot, a.key_budget, a.format) = (c.snapshot, c.key_budget, c.format);
                "duplicates"
            }
        }
        .to_string();
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
