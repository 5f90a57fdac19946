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

/// A catalog name as statements print it: quoted like every other name, or as typed where it is
/// already one name in backquotes; empty, the placeholder, or a name that cannot be quoted safely
/// keeps the placeholder.
pub fn catalog_part(typed: &str) -> String {
    match typed.trim() {
        "" | PLACEHOLDER => PLACEHOLDER.to_string(),
        name if backquoted(name) => name.to_string(),
        name => sql::ident(name).unwrap_or_else(|| PLACEHOLDER.into()),
    }
}

/// `` `my-cat` ``: one name in backquotes, none inside it (nothing can close it early) and no
/// character a reader would not see.
fn backquoted(name: &str) -> bool {
    let inner = name.strip_prefix('`').and_then(|n| n.strip_suffix('`'));
    inner.is_some_and(|i| !i.is_empty() && !i.contains('`') && sql::refusal(i).is_none())
}

/// The longest catalog name a link may set, in characters: a name, not a paragraph.
const LINK_LONGEST: usize = 128;

/// A catalog name from text another person wrote (a link), or None: only a plain Spark
/// identifier (ASCII letters, digits, underscores) or one name in backquotes with none inside.
/// Stricter than what a reader may type: the name is printed inside statements someone will run,
/// and nothing in a link may end a statement or add to it.
pub fn catalog_from_link(value: &str) -> Option<&str> {
    let plain = !value.is_empty() && value.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    (value.chars().count() <= LINK_LONGEST && (plain || backquoted(value))).then_some(value)
}

/// What a link carries for the catalog name typed: the name as statements print it, where a link
/// may carry that (`catalog_from_link`); None for the placeholder or a name it may not.
pub fn catalog_for_link(typed: &str) -> Option<String> {
    let part = catalog_part(typed);
    (part != PLACEHOLDER && catalog_from_link(&part).is_some()).then_some(part)
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
        // Typed already in backquotes: kept, not quoted again.
        assert_eq!(call.sql_in("`my-cat`"), "CALL `my-cat`.system.expire_snapshots(table => 'db.t');");
        assert_eq!(call.sql_in("`a`b`"), "CALL ```a``b```.system.expire_snapshots(table => 'db.t');");
    }

    #[test]
    fn a_link_names_only_a_catalog_that_cannot_end_a_statement() {
        for ok in ["prod", "lab_2", "_x", "123", "`my-cat`", "`a b; c`", "`x'y`"] {
            assert_eq!(catalog_from_link(ok), Some(ok), "{ok}");
        }
        let hostile = [
            "",
            "``",
            "prod.system",
            "a b",
            "x; DROP TABLE t; --",
            "x.system.expire_snapshots(table => 't'); --",
            "`a`b`",
            "`a``b`",
            "`open",
            "close`",
            "`line\nbreak`",
            "`rtl\u{202E}txt`",
            "caf\u{e9}",
            "<catalog>",
        ];
        for bad in hostile {
            assert_eq!(catalog_from_link(bad), None, "{bad:?}");
        }
        assert_eq!(catalog_from_link(&"a".repeat(129)), None);
        // Whatever a link passes, the statement is one CALL on the catalog named, ending where it ends.
        let call = Statement::call(PLACEHOLDER, "expire_snapshots", "table => 'db.t'".into());
        for ok in ["prod", "`a b; c`", "`x'y`"] {
            let sql = call.sql_in(catalog_from_link(ok).unwrap());
            assert_eq!(sql, format!("CALL {ok}.system.expire_snapshots(table => 'db.t');"));
        }
        // What a typed name puts in a link, and reads back the same.
        assert_eq!(catalog_for_link("prod").as_deref(), Some("prod"));
        assert_eq!(catalog_for_link("my cat").as_deref(), Some("`my cat`"));
        assert_eq!(catalog_for_link("`my cat`").as_deref(), Some("`my cat`"));
        assert_eq!(catalog_for_link("a`b"), None);
        assert_eq!(catalog_for_link(" <catalog> "), None);
        assert_eq!(catalog_for_link(""), None);
    }
}
