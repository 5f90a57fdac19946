//! The Spark SQL script that has Spark compute a table's metadata tables and write them as Parquet,
//! for a table whose manifests are too many to read in a browser tab. icescope opens the folder it
//! writes (`load::spark_export`). Every statement is built with `sql`'s quoting, so a table name or
//! folder cannot end a statement or add one.

use super::sql;

pub use crate::decode::spark_tables::FOLDERS;

/// Above this many manifests to read (the current snapshot's, which the partitions chart and the
/// file findings need), icescope suggests letting Spark read them.
pub const SUGGEST_ABOVE_MANIFESTS: usize = 20_000;
/// … or this many live files (a million entries is ~300 MB decoded).
pub const SUGGEST_ABOVE_FILES: u64 = 1_000_000;

/// The statements for table `parts` (catalog, namespace…, name) into `out` (a folder URI Spark
/// can write: `s3://bucket/prefix`, `file:///tmp/x`, `hdfs://…`).
pub fn script(parts: &[&str], out: &str) -> Result<String, String> {
    let table = sql::multipart(parts).ok_or_else(|| format!("the table name `{}` has an empty part or an invisible character", parts.join(".")))?;
    let out = out.trim_end_matches('/');
    if out.is_empty() {
        return Err("the output folder is empty".into());
    }
    let dir = |name: &str| sql::string(&format!("{out}/{name}")).ok_or_else(|| format!("the output folder `{out}` has an invisible character"));
    let select = |name: &str| -> String {
        match name {
            // Only what icescope draws from: a summary map per snapshot.
            "snapshots" => format!("committed_at, snapshot_id, parent_id, operation, manifest_list, summary FROM {table}.snapshots"),
            // Every snapshot's manifest list is the table's largest read (a day of fast appends:
            // 6 GB); Spark sums it to one row per snapshot and manifest content.
            "all_manifests_by_snapshot" => format!(
                "reference_snapshot_id, content, count(*) AS manifests, sum(length) AS manifest_bytes, \
                 sum(added_data_files_count) AS added_data_files, sum(existing_data_files_count) AS existing_data_files, \
                 sum(deleted_data_files_count) AS deleted_data_files, sum(added_delete_files_count) AS added_delete_files, \
                 sum(existing_delete_files_count) AS existing_delete_files, sum(deleted_delete_files_count) AS deleted_delete_files \
                 FROM {table}.all_manifests GROUP BY reference_snapshot_id, content"
            ),
            // The current snapshot's entries without `readable_metrics` (the same bounds, decoded).
            "entries" => format!("status, snapshot_id, sequence_number, file_sequence_number, data_file FROM {table}.entries"),
            other => format!("* FROM {table}.{other}"),
        }
    };
    let mut s = String::new();
    s += "-- icescope: the metadata tables of one Iceberg table as Parquet, for `icescope inspect <folder>`.\n";
    s += &format!("-- Run with spark-sql (iceberg-spark-runtime on the classpath, the catalog configured), icescope {}.\n", env!("CARGO_PKG_VERSION"));
    s += "-- The last statement prints the current metadata.json: copy it into the folder too (schemas, specs, properties).\n";
    // Spark's default, INT96, is deprecated in Parquet; microseconds are what Iceberg stores.
    s += "SET spark.sql.parquet.outputTimestampType=TIMESTAMP_MICROS;\n";
    for name in FOLDERS {
        s += &format!("INSERT OVERWRITE DIRECTORY {} USING parquet SELECT /*+ COALESCE(1) */ {};\n", dir(name)?, select(name));
    }
    s += &format!("SELECT file FROM {table}.metadata_log_entries ORDER BY timestamp DESC LIMIT 1;\n");
    Ok(s)
}

/// When reading the current snapshot's manifests here would take minutes (or a tab's memory), what
/// to run instead. The table name is the one guessed from the location, where it is plain.
pub fn suggestion(history: &crate::model::TableHistory) -> Option<String> {
    if history.exported().is_some() {
        return None;
    }
    let t = history.current_index().map(|i| history.totals(i))?;
    let manifests = t.manifests.unwrap_or(0);
    let files = t.data_files.unwrap_or(0).saturating_add(t.delete_files.unwrap_or(0));
    if manifests <= SUGGEST_ABOVE_MANIFESTS as u64 && files <= SUGGEST_ABOVE_FILES {
        return None;
    }
    let guessed = super::findings::TableRef::guess(history, None).table;
    let plain = guessed.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
    let name = if plain { format!("<catalog>.{guessed}") } else { "<catalog>.<namespace>.<table>".into() };
    Some(format!(
        "The current snapshot has {manifests} manifests and {files} files: reading them in a browser tab takes minutes and gigabytes. Let Spark read them: `icescope spark-export --table {name} --to <folder>` prints the Spark SQL; open the folder it writes (with the table's metadata.json copied in)."
    ))
}

/// A Spark identifier as typed (`lab.db.events`, or with backticks: ``lab.`my db`.t``), split into parts.
pub fn split_identifier(typed: &str) -> Result<Vec<String>, String> {
    let mut parts = vec![String::new()];
    let mut chars = typed.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('`', false) => quoted = true,
            ('`', true) if chars.peek() == Some(&'`') => {
                chars.next();
                parts.last_mut().expect("never empty").push('`');
            }
            ('`', true) => quoted = false,
            ('.', false) => parts.push(String::new()),
            (c, _) => parts.last_mut().expect("never empty").push(c),
        }
    }
    if quoted {
        return Err(format!("`{typed}`: a backtick is not closed"));
    }
    if parts.iter().any(|p| p.is_empty()) || parts.len() < 2 {
        return Err(format!("`{typed}`: give the table as catalog.namespace.name (Spark's identifier)"));
    }
    Ok(parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_cannot_add_a_statement() {
        let parts = split_identifier("lab.`db; DROP TABLE x; --`.t").unwrap();
        assert_eq!(parts, ["lab", "db; DROP TABLE x; --", "t"]);
        let s = script(&parts.iter().map(String::as_str).collect::<Vec<_>>(), "s3://b/x'; DROP TABLE y; --").unwrap();
        // Every statement ends at a line end; nothing the names carry ends one early.
        assert_eq!(s.lines().filter(|l| !l.starts_with("--")).count(), 2 + FOLDERS.len());
        assert!(s.contains("FROM lab.`db; DROP TABLE x; --`.t.snapshots"));
        assert!(s.contains("'s3://b/x\\'; DROP TABLE y; --/snapshots'"));
        assert!(script(&["lab", "d\nb", "t"], "/x").is_err());
        assert!(split_identifier("onlyname").is_err());
        assert!(split_identifier("a.`b").is_err());
        assert_eq!(split_identifier("a.`b``c`.d").unwrap(), ["a", "b`c", "d"]);
    }
}
