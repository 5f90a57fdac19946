//! Command-line options (clap). Each command takes the options it uses, as its own struct; the
//! groups that name a table, a catalog or a store are shared (`options`).

use icescope::analysis::export;
use icescope::analysis::findings::Severity;
use icescope::report::chart::ChartKind;

pub use super::options::{CatalogArgs, NamedTable, StorageArgs, TableArgs};

#[derive(Debug, clap::Parser)]
#[command(name = "icescope", version, about = "See how a streaming writer grows an Apache Iceberg table, checkpoint by checkpoint", after_help = AFTER_HELP)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, clap::Subcommand)]
pub enum Command {
    /// The table's history, findings and statements
    Inspect(InspectArgs),
    /// List a REST catalog's namespaces and tables
    Catalog(CatalogList),
    /// What changed between two snapshots: files and records by partition, the schema, the commits between
    Diff(DiffArgs),
    /// One snapshot's metadata, manifest list and manifest entries, as the spec names fields (JSON)
    Walk(WalkArgs),
    /// Files, snapshots, growth, deletes, jobs, partitions and findings as CSV or Parquet
    Export(ExportArgs),
    /// The Spark SQL that writes a table's metadata tables as Parquet, for tables whose manifests are
    /// too many to read here; then `icescope inspect FOLDER`
    SparkExport(SparkExportArgs),
    /// The files under the table that no snapshot references, and remove_orphan_files with
    /// older_than = last commit - 1 h
    Orphans(OrphansArgs),
    /// Every live Parquet file's footer against its manifest entry (rows, size); ranged reads only
    Footers(FootersArgs),
    /// Live rows, distinct and duplicated keys, by the Flink job that added each copy; what each
    /// delete file and vector hit
    Duplicates(DuplicatesArgs),
    /// One chart as a picture for a ticket (SVG or PNG, 800 px wide, text 12 px or more), drawn as the app draws it
    Chart(ChartArgs),
    /// Before you resume: what resuming from a Flink savepoint or retained checkpoint will do to the
    /// table (safe, replays, restore_point_expired, committer_mismatch), with the committer's state
    Savepoint(SavepointArgs),
    /// Follow a running writer: poll the table, read only what is new, and say each commit, new
    /// job, stall, resume and finding as it happens
    Watch(WatchArgs),
    /// The app on 127.0.0.1, with a relay to the catalog and stores named here: no CORS needed,
    /// no secret in the page; open the address it prints
    Serve(ServeArgs),
}

// One paragraph: clap wraps it to the terminal.
const AFTER_HELP: &str = "TABLE is a table folder, a metadata.json, an https:// or s3:// metadata URL, an export folder or s3:// prefix, or \
--catalog URI --table NS.NAME. metadata.json is read first: every snapshot's summary totals, then the manifests of the current and last \
snapshots and the manifest lists of a sample (tables over 200 snapshots). Secrets may come from ICESCOPE_TOKEN, ICESCOPE_CREDENTIAL and \
AWS_* instead of flags, out of shell history. `icescope <command> --help` lists a command's options. Exit codes: 0 done, 1 a finding \
at `inspect --fail-on`'s severity or above or an alarm in `watch`, 2 usage, 3 the table or an input could not be read, 4 the output could not be written.";

#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
    /// Print the paths read, one per line, instead of the report
    #[arg(long, help_heading = "Output")]
    pub reads: bool,
    /// Exit 1 when a finding is this severe or more, after the report (default: findings never fail)
    #[arg(long, value_enum, value_name = "SEVERITY", conflicts_with = "reads", help_heading = "Output")]
    pub fail_on: Option<FailOn>,
}

#[derive(Debug, clap::Args)]
pub struct CatalogList {
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub storage: StorageArgs,
    /// json or text
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ListFormat,
}

#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// The older snapshot: a snapshot id, current, parent, job:<flink.job-id or prefix> or
    /// last:<prefix> (the job's last commit), first:<prefix> (the table just before the job's
    /// first commit; empty where the job created it) or checkpoint:<n>[@<job prefix>] (its last commit)
    #[arg(long, value_name = "A", default_value = "parent", help_heading = "Snapshots")]
    pub from: String,
    /// The newer snapshot, written as --from
    #[arg(long, value_name = "B", default_value = "current", help_heading = "Snapshots")]
    pub to: String,
    /// What one Flink job added: from the table just before its first commit to its last commit
    /// (the same as --from first:<ID> --to last:<ID>)
    #[arg(long, value_name = "ID", conflicts_with_all = ["from", "to"], help_heading = "Snapshots")]
    pub job: Option<String>,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
}

#[derive(Debug, clap::Args)]
pub struct WalkArgs {
    #[command(flatten)]
    pub table: TableArgs,
    /// The snapshot, written as diff's --to
    #[arg(long, value_name = "B", default_value = "current", help_heading = "Snapshots")]
    pub to: String,
    /// The manifest to open (default: the snapshot's first)
    #[arg(long, value_name = "PATH", help_heading = "Snapshots")]
    pub manifest: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// snapshots, series, findings or all
    #[arg(long, value_enum, default_value = "all", hide_possible_values = true, help_heading = "Output")]
    pub what: Tables,
    /// csv or parquet (CSV text starting with = + - @ gets a leading ', as OWASP advises)
    #[arg(long, value_enum, default_value = "csv", help_heading = "Output")]
    pub format: FileFormat,
    /// The folder the files go to
    #[arg(long, value_name = "DIR", help_heading = "Output")]
    pub out: String,
}

#[derive(Debug, clap::Args)]
pub struct SparkExportArgs {
    /// The table as Spark names it
    #[arg(long, value_name = "CATALOG.NS.NAME")]
    pub table: String,
    /// The folder (or s3:// prefix) Spark writes the Parquet files into
    #[arg(long, value_name = "FOLDER", alias = "out")]
    pub to: String,
}

#[derive(Debug, clap::Args)]
pub struct OrphansArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
}

#[derive(Debug, clap::Args)]
pub struct FootersArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// The snapshot whose live files are read (default: the current one)
    #[arg(long, value_name = "ID", help_heading = "Snapshots")]
    pub snapshot: Option<String>,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
}

#[derive(Debug, clap::Args)]
pub struct DuplicatesArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// The snapshot whose live rows are counted (default: the current one)
    #[arg(long, value_name = "ID", help_heading = "Snapshots")]
    pub snapshot: Option<String>,
    /// The key columns, comma-separated (default: the schema's identifier fields)
    #[arg(long, value_name = "COL[,COL]", help_heading = "Keys")]
    pub key: Option<String>,
    /// Keys counted exactly before the sketch takes over
    #[arg(long, value_name = "N", help_heading = "Keys")]
    pub key_budget: Option<usize>,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
}

#[derive(Debug, clap::Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// How often to look: 5s, 500ms, 1m (each look reads the newest metadata file and what it adds)
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = duration_ms, help_heading = "Watching")]
    pub every: u64,
    /// A writer is stalled after this many times its usual interval (the median of its last 20)
    #[arg(long, value_name = "K", default_value_t = 6.0, help_heading = "Watching")]
    pub stall_after: f64,
    /// Stop after this long (default: until interrupted). A deadline: no request to a catalog or
    /// store outlives it, whatever the server does
    #[arg(long = "for", value_name = "DURATION", value_parser = duration_ms, help_heading = "Watching")]
    pub for_ms: Option<u64>,
    /// Look once, against the last look's --state, and exit: for cron and schedulers. The look
    /// ends within 2 minutes (or --for), whatever the catalog does
    #[arg(long, requires = "state", help_heading = "Watching")]
    pub once: bool,
    /// The file the last look's state is read from and this one's written to
    #[arg(long, value_name = "FILE", help_heading = "Watching")]
    pub state: Option<String>,
    /// Stop at the first alarm (a stall, or a critical finding newly holding)
    #[arg(long, help_heading = "Watching")]
    pub stop_on_alarm: bool,
    /// text (a ticker) or jsonl (one JSON object per event)
    #[arg(long, value_enum, default_value = "text", help_heading = "Output")]
    pub format: WatchFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WatchFormat {
    Text,
    Jsonl,
}

/// `5s`, `500ms`, `10m`, `1h`, or a number of seconds, as milliseconds: at least 100 ms.
fn duration_ms(s: &str) -> Result<u64, String> {
    let s = s.trim();
    let split = s.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(s.len());
    let (n, unit) = s.split_at(split);
    let n: f64 = n.parse().map_err(|_| format!("`{s}`: a duration is a number and a unit (500ms, 5s, 10m, 1h)"))?;
    let per = match unit.trim() {
        "ms" => 1.0,
        "" | "s" => 1000.0,
        "m" | "min" => 60_000.0,
        "h" => 3_600_000.0,
        u => return Err(format!("`{u}`: the units are ms, s, m and h")),
    };
    let ms = n * per;
    if !(100.0..=1e12).contains(&ms) {
        return Err(format!("`{s}`: from 100ms to about 30 years"));
    }
    Ok(ms as u64)
}

#[derive(Debug, clap::Args)]
pub struct SavepointArgs {
    /// A savepoint folder, its _metadata, or a folder of savepoints and checkpoints (chk-*)
    #[arg(value_name = "SAVEPOINT")]
    pub savepoints: String,
    /// The table: TABLE as other commands take it, or --table FOLDER (without --catalog); with
    /// --metadata NAME, the table as it stood at that metadata file
    #[command(flatten)]
    pub table: NamedTable,
    /// json, text or markdown
    #[arg(long, value_enum, default_value = "json", help_heading = "Output")]
    pub format: ReportFormat,
}

#[derive(Debug, clap::Args)]
pub struct ChartArgs {
    #[command(flatten)]
    pub table: NamedTable,
    /// growth, jobs, partitions, deletes or projection
    #[arg(long, default_value = "growth", value_parser = chart_kind(), help_heading = "Output")]
    pub chart: ChartKind,
    /// The file to write: .svg, or .png (the SVG at twice its pixels)
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub out: String,
    /// Width in CSS pixels (default 800: a ticket's width; every text is 12 px or more at it)
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(480..=4000), help_heading = "Output")]
    pub width: Option<u32>,
    /// Dark ground, as the app's dark theme draws it (tickets keep the light one by default)
    #[arg(long, help_heading = "Output")]
    pub dark: bool,
    /// The table's name in the stamp (default: the identifier its location suggests)
    #[arg(long, value_name = "NAME", help_heading = "Output")]
    pub name: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub catalog: CatalogArgs,
    #[command(flatten)]
    pub storage: StorageArgs,
    /// The port on 127.0.0.1 (default: one the system picks, printed)
    #[arg(long, value_name = "N", default_value_t = 0, help_heading = "Server")]
    pub port: u16,
    /// The built app: Trunk's dist folder (default: the checkout's dist/)
    #[arg(long, value_name = "DIR", help_heading = "Server")]
    pub dist: Option<std::path::PathBuf>,
}

// The choices below have no doc comments: with them clap would list each value on a line of its
// own in `--help`, instead of `[possible values: …]`.

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    Json,
    Text,
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ListFormat {
    Json,
    Text,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FileFormat {
    Csv,
    Parquet,
}

/// `export --what`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tables {
    Snapshots,
    Series,
    Findings,
    All,
}

/// `inspect --fail-on`: the least severe finding that fails the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FailOn {
    Critical,
    Warning,
    Info,
}

impl FailOn {
    pub fn severity(self) -> Severity {
        match self {
            FailOn::Critical => Severity::Critical,
            FailOn::Warning => Severity::Warning,
            FailOn::Info => Severity::Info,
        }
    }
}

impl FileFormat {
    pub fn format(self) -> export::Format {
        match self {
            FileFormat::Csv => export::Format::Csv,
            FileFormat::Parquet => export::Format::Parquet,
        }
    }
}

impl Tables {
    pub fn what(self) -> export::What {
        match self {
            Tables::Snapshots => export::What::Snapshots,
            Tables::Series => export::What::Series,
            Tables::Findings => export::What::Findings,
            Tables::All => export::What::All,
        }
    }
}

/// `chart --chart`: the names the app's tabs and permalinks use (`ChartKind::name`).
fn chart_kind() -> impl clap::builder::TypedValueParser<Value = ChartKind> {
    use clap::builder::{PossibleValuesParser, TypedValueParser};
    let names: Vec<&'static str> = ChartKind::ALL.iter().map(|k| k.name()).collect();
    PossibleValuesParser::new(names).map(|name| ChartKind::named(&name).unwrap_or(ChartKind::Growth))
}
