//! Command-line options. Auth flags follow PyIceberg's property names; every secret can also come
//! from the environment, so that it stays out of shell history.

use std::collections::BTreeMap;

use icescope::source::rest_catalog::CatalogAuth;

pub const USAGE: &str = "\
usage:
  icescope inspect <table-folder | metadata.json | https://…/x.metadata.json | s3://…/x.metadata.json> [options]
  icescope inspect --catalog URI [--warehouse W] --table NS.NAME [options]
  icescope catalog --catalog URI [--warehouse W] [options]          list namespaces and tables
  icescope diff <table …> [--from A] [--to B] [options]              what changed between two snapshots
            A, B: a snapshot id, current, parent, job:<flink.job-id or prefix> (its last commit) or
            checkpoint:<n> (its last commit); default: from the current snapshot's parent to current
  icescope walk <table …> [--to A] [--manifest PATH]                 one snapshot's metadata, manifest
            list and manifest entries (the first manifest unless named), as the spec names fields (JSON)
  icescope export <table> --what snapshots|series|findings|all --format csv|parquet --out DIR [options]
  icescope spark-export --table CATALOG.NS.NAME --to FOLDER          the Spark SQL that writes the
            table's metadata tables as Parquet into FOLDER; then `icescope inspect FOLDER` (tables
            whose manifests are too many to read here: icescope suggests it above 20,000)
  icescope orphans <table-folder | metadata.json | s3://…/x.metadata.json> [--format json|text] [options]
  icescope orphans --catalog URI [--warehouse W] --table NS.NAME [options]
  icescope footers <table> [--snapshot ID] [options]     every live Parquet file's footer against its
                                                         manifest entry (rows, size); ranged reads only
  icescope duplicates <table> [--key COL[,COL]] [--snapshot ID] [--key-budget N] [options]
                                                         live rows, distinct and duplicated keys, by
                                                         the Flink job that added each copy; what
                                                         each delete file and vector hit

output:   --format json|text|markdown (json)   --spark-catalog NAME   --table-name NS.NAME
          --reads: print the paths read, one per line, instead of the report
export:   files snapshots, growth, deletes, jobs, partitions, findings (.csv or .parquet) in --out;
          --what all (default) | snapshots | series | findings; --format csv (default) | parquet;
          CSV text starting with = + - @ gets a leading ' (OWASP CSV injection); with
          --all-snapshots on a folder the orphan-file finding is exported too
orphans:  every snapshot's manifests read; the files under the table none references (a folder's
          files, or the store's objects by signed ListObjectsV2, --s3-list-page-size N keys a page),
          data apart from metadata, and remove_orphan_files with older_than = last commit - 1 h
reading:  metadata.json first: every snapshot's summary totals, then the manifests of the current
          and last snapshots and the manifest lists of a sample (tables over 200 snapshots)
          --all-snapshots: every snapshot's manifests   --metadata-first: the sample even on small tables
          --metadata NAME: open this metadata file of the folder (e.g. v7.metadata.json) instead of
          the newest by content (last-sequence-number, last-updated-ms): time travel through versions
catalog:  --token T | --credential ID:SECRET [--oauth2-server-uri URI] [--scope S]
          | --sigv4 --signing-region R --signing-name N (with the AWS keys below)
storage:  --s3-endpoint URL --s3-access-key-id K --s3-secret-access-key S [--s3-session-token T]
          --s3-region R --s3-path-style-access
env:      ICESCOPE_TOKEN, ICESCOPE_CREDENTIAL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
          AWS_SESSION_TOKEN, AWS_REGION (flags win)
";

#[derive(Debug, Default)]
pub struct Args {
    pub command: String,
    pub target: Option<String>,
    pub format: String,
    /// Whether `--format` was given (export defaults to CSV, the rest to JSON).
    pub format_given: bool,
    /// `export --what`.
    pub what: String,
    /// `export --out DIR`.
    pub out: Option<String>,
    /// Keys per ListObjectsV2 page when `orphans` lists a table's store.
    pub s3_list_page_size: usize,
    pub help: bool,
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
    /// `diff`: the two snapshots.
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
    /// `s3.*` properties the user typed.
    pub s3: BTreeMap<String, String>,
}

impl Args {
    pub fn parse(argv: &[String]) -> Result<Args, String> {
        let mut a = Args { format: "json".into(), what: "all".into(), s3_list_page_size: icescope::source::s3_list::PAGE_SIZE, ..Args::default() };
        let mut it = argv.iter();
        a.command = it.next().cloned().ok_or(USAGE)?;
        if a.command == "-h" || a.command == "--help" {
            a.help = true;
            return Ok(a);
        }
        while let Some(flag) = it.next() {
            let mut value = |name: &str| it.next().cloned().ok_or_else(|| format!("{name} needs a value"));
            match flag.as_str() {
                "-h" | "--help" => a.help = true,
                "--format" => {
                    a.format = value(flag)?;
                    a.format_given = true;
                }
                "--what" => a.what = value(flag)?,
                "--out" => a.out = Some(value(flag)?),
                "--s3-list-page-size" => a.s3_list_page_size = value(flag)?.parse().map_err(|_| "--s3-list-page-size takes a number of keys".to_string())?,
                "--all-snapshots" => a.all_snapshots = true,
                "--metadata-first" => a.metadata_first = true,
                "--reads" => a.reads = true,
                "--metadata" => a.metadata = Some(value(flag)?),
                "--from" => a.from = Some(value(flag)?),
                "--to" => a.to = Some(value(flag)?),
                "--manifest" => a.manifest = Some(value(flag)?),
                "--snapshot" => a.snapshot = Some(value(flag)?),
                "--key" => a.key = Some(value(flag)?.split(',').map(|k| k.trim().to_string()).filter(|k| !k.is_empty()).collect()),
                "--key-budget" => a.key_budget = Some(value(flag)?.parse().map_err(|_| "--key-budget takes a number of keys")?),
                "--spark-catalog" => a.spark_catalog = Some(value(flag)?),
                "--table-name" => a.table_name = Some(value(flag)?),
                "--catalog" => a.catalog = Some(value(flag)?),
                "--warehouse" => a.warehouse = Some(value(flag)?),
                "--table" => a.table = Some(value(flag)?),
                "--token" => a.token = Some(value(flag)?),
                "--credential" => a.credential = Some(value(flag)?),
                "--oauth2-server-uri" => a.oauth2_server_uri = Some(value(flag)?),
                "--scope" => a.scope = Some(value(flag)?),
                "--sigv4" => a.sigv4 = true,
                "--signing-region" => a.signing_region = Some(value(flag)?),
                "--signing-name" => a.signing_name = Some(value(flag)?),
                "--s3-endpoint" => _ = a.s3.insert("s3.endpoint".into(), value(flag)?),
                "--s3-access-key-id" => _ = a.s3.insert("s3.access-key-id".into(), value(flag)?),
                "--s3-secret-access-key" => _ = a.s3.insert("s3.secret-access-key".into(), value(flag)?),
                "--s3-session-token" => _ = a.s3.insert("s3.session-token".into(), value(flag)?),
                "--s3-region" => _ = a.s3.insert("s3.region".into(), value(flag)?),
                "--s3-path-style-access" => _ = a.s3.insert("s3.path-style-access".into(), "true".into()),
                other if !other.starts_with("--") && a.target.is_none() => a.target = Some(other.to_string()),
                other => return Err(format!("unexpected argument `{other}`\n{USAGE}")),
            }
        }
        a.fill_from_env();
        Ok(a)
    }

    fn fill_from_env(&mut self) {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        self.token = self.token.take().or_else(|| env("ICESCOPE_TOKEN"));
        self.credential = self.credential.take().or_else(|| env("ICESCOPE_CREDENTIAL"));
        for (prop, var) in [
            ("s3.access-key-id", "AWS_ACCESS_KEY_ID"),
            ("s3.secret-access-key", "AWS_SECRET_ACCESS_KEY"),
            ("s3.session-token", "AWS_SESSION_TOKEN"),
            ("s3.region", "AWS_REGION"),
        ] {
            if let (false, Some(v)) = (self.s3.contains_key(prop), env(var)) {
                self.s3.insert(prop.into(), v);
            }
        }
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
