//! A Spark statement a finding recommends, kept typed until it is shown: the catalog is the
//! reader's to name, and naming it later re-renders the statement instead of patching its text.

use serde::Serialize;

use super::sql;

/// Where the reader has not named a catalog: a placeholder they fill in.
pub const PLACEHOLDER: &str = "<catalog>";

#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The catalog the analysis was given, as typed (`<catalog>` when none was).
    catalog: String,
    body: Body,
}

#[derive(Debug, Clone, PartialEq)]
enum Body {
    /// `CALL catalog.system.procedure(args);`, args built from `sql` literals.
    Call { procedure: &'static str, args: String },
    /// `ALTER TABLE catalog.table clause;`, the table a quoted multipart name and the clause
    /// built from `sql` literals.
    Alter { table: String, clause: String },
}

/// A catalog name as statements print it: quoted like every other name; empty, the placeholder,
/// or a name that cannot be quoted safely keeps the placeholder.
pub fn catalog_part(typed: &str) -> String {
    match typed.trim() {
        "" | PLACEHOLDER => PLACEHOLDER.to_string(),
        name => sql::ident(name).unwrap_or_else(|| PLACEHOLDER.into()),
    }
}

impl Statement {
    pub(crate) fn call(catalog: &str, procedure: &'static str, args: String) -> Statement {
        Statement { catalog: catalog.to_string(), body: Body::Call { procedure, args } }
    }

    pub(crate) fn alter(catalog: &str, table: String, clause: String) -> Statement {
        Statement { catalog: catalog.to_string(), body: Body::Alter { table, clause } }
    }

    /// The statement for the catalog it was made for.
    pub fn sql(&self) -> String {
        self.sql_in(&self.catalog)
    }

    /// The statement for another catalog name (typed in the app after the analysis ran).
    pub fn sql_in(&self, catalog: &str) -> String {
        let c = catalog_part(catalog);
        match &self.body {
            Body::Call { procedure, args } => format!("CALL {c}.system.{procedure}({args});"),
            Body::Alter { table, clause } => format!("ALTER TABLE {c}.{table} {clause};"),
        }
    }

    /// For the catalog named, or the one it was made for.
    pub fn sql_for(&self, catalog: Option<&str>) -> String {
        catalog.map(|c| self.sql_in(c)).unwrap_or_else(|| self.sql())
    }

    /// The procedure a CALL runs (`rewrite_data_files`), or None for an ALTER.
    pub fn procedure(&self) -> Option<&'static str> {
        match &self.body {
            Body::Call { procedure, .. } => Some(procedure),
            Body::Alter { .. } => None,
        }
    }
}

impl std::fmt::Display for Statement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.sql())
    }
}

/// In JSON, the statement as it prints: the contract other tools read.
impl Serialize for Statement {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.sql())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_catalog_named_later_renders_every_kind() {
        let call = Statement::call(PLACEHOLDER, "expire_snapshots", "table => 'db.t'".into());
        let alter = Statement::alter(PLACEHOLDER, "db.t".into(), "SET TBLPROPERTIES ('k' = 'v')".into());
        assert_eq!(call.sql(), "CALL <catalog>.system.expire_snapshots(table => 'db.t');");
        assert_eq!(call.sql_in("prod"), "CALL prod.system.expire_snapshots(table => 'db.t');");
        assert_eq!(alter.sql_in("my cat"), "ALTER TABLE `my cat`.db.t SET TBLPROPERTIES ('k' = 'v');");
        assert_eq!(alter.sql_in("  "), "ALTER TABLE <catalog>.db.t SET TBLPROPERTIES ('k' = 'v');");
        assert_eq!(call.sql_in("x\ny"), "CALL <catalog>.system.expire_snapshots(table => 'db.t');");
    }
}
