//! The view as a link: which keys a permalink's fragment may carry, and the fragment read and
//! written as `URLSearchParams` does (application/x-www-form-urlencoded), here so that it runs
//! and is tested natively; `view/app/permalink.rs` only reads and replaces the address bar's.
//! Never a credential: only the keys in `KEYS` are written.

use crate::analysis::statement::catalog_from_link;

/// Every key a link may carry. Secrets (token, client secret, S3 keys) are not among them.
pub const KEYS: [&str; 16] = [
    "example",
    "url",
    "catalog",
    "warehouse",
    "table",
    "auth",
    "client_id",
    "scope",
    "token_uri",
    "s3_endpoint",
    "s3_region",
    "s3_path_style",
    "tab",
    "from",
    "to",
    "spark_catalog",
];

/// The reader's own settings, not the table's: kept when the link forgets the source and view
/// (back to the gallery, another table opened). `catalog` is the REST catalog's address; the
/// Spark catalog name the statements print is `spark_catalog`.
pub const KEPT: [&str; 1] = ["spark_catalog"];

/// The fragment's pairs (without its `#`), in order.
pub fn parse(fragment: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(fragment.trim_start_matches('#').as_bytes()).into_owned().collect()
}

/// A value of the fragment, where it is there and not empty.
pub fn get(fragment: &str, key: &str) -> Option<String> {
    parse(fragment).into_iter().find(|(k, _)| k == key).map(|(_, v)| v).filter(|v| !v.is_empty())
}

/// The fragment with `changes` made (None or an empty value removes a key): only `KEYS`, in
/// their order, one value each; keys no build of icescope writes are dropped rather than carried.
pub fn with(fragment: &str, changes: &[(&str, Option<&str>)]) -> String {
    let mut pairs = parse(fragment);
    for (k, v) in changes {
        pairs.retain(|(x, _)| x != k);
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            pairs.push((k.to_string(), v.to_string()));
        }
    }
    let mut out = url::form_urlencoded::Serializer::new(String::new());
    for key in KEYS {
        if let Some((_, v)) = pairs.iter().find(|(k, _)| k == key) {
            out.append_pair(key, v);
        }
    }
    out.finish()
}

/// The fragment with the source and the view forgotten: only the reader's settings (`KEPT`) stay.
pub fn cleared(fragment: &str) -> String {
    let forget: Vec<(&str, Option<&str>)> = KEYS.iter().filter(|k| !KEPT.contains(k)).map(|k| (*k, None)).collect();
    with(fragment, &forget)
}

/// The Spark catalog name a link sets for the statements.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkCatalog {
    /// The link names none.
    Unset,
    /// A name that may go into a statement.
    Named(String),
    /// A value that may not (`analysis::statement::catalog_from_link`): not used, and said.
    Ignored,
}

/// The `spark_catalog` a fragment carries, checked.
pub fn spark_catalog(fragment: &str) -> LinkCatalog {
    match get(fragment, "spark_catalog") {
        None => LinkCatalog::Unset,
        Some(v) => catalog_from_link(&v).map_or(LinkCatalog::Ignored, |n| LinkCatalog::Named(n.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::statement::catalog_for_link;

    #[test]
    fn a_typed_catalog_name_travels_in_the_link_and_comes_back_the_same() {
        let start = "example=savepoint-twice&tab=jobs";
        for typed in ["lab", "my cat", "`prod-eu`"] {
            let carried = catalog_for_link(typed);
            let link = with(start, &[("spark_catalog", carried.as_deref())]);
            let expected = carried.clone().unwrap();
            assert_eq!(spark_catalog(&format!("#{link}")), LinkCatalog::Named(expected.clone()), "{link}");
            // The statement printed after the round trip is the one printed before it.
            let st = crate::analysis::statement::Statement::call("<catalog>", "expire_snapshots", "table => 'db.t'".into());
            assert_eq!(st.sql_in(typed), st.sql_in(&expected));
            assert_eq!(get(&link, "example").as_deref(), Some("savepoint-twice"));
        }
        assert_eq!(with(start, &[("spark_catalog", Some("lab"))]), "example=savepoint-twice&tab=jobs&spark_catalog=lab");
        assert_eq!(with(start, &[("spark_catalog", Some("`my cat`"))]), "example=savepoint-twice&tab=jobs&spark_catalog=%60my+cat%60");
        // A name a link may not carry is not written; the placeholder neither.
        assert_eq!(catalog_for_link("a`b"), None);
        assert_eq!(with("spark_catalog=lab", &[("spark_catalog", catalog_for_link("<catalog>").as_deref())]), "");
    }

    #[test]
    fn a_link_catalog_that_could_end_a_statement_is_ignored() {
        assert_eq!(spark_catalog(""), LinkCatalog::Unset);
        assert_eq!(spark_catalog("spark_catalog="), LinkCatalog::Unset);
        assert_eq!(spark_catalog("spark_catalog=prod"), LinkCatalog::Named("prod".into()));
        assert_eq!(spark_catalog("spark_catalog=%60a+b%60"), LinkCatalog::Named("`a b`".into()));
        for hostile in [
            "spark_catalog=x%3B+DROP+TABLE+t%3B+--",
            "spark_catalog=%60a%60%3B+DROP+TABLE+t%3B+--%60",
            "spark_catalog=x.system.expire_snapshots(table+%3D%3E+%27t%27)%3B",
            "spark_catalog=%60a%0Ab%60",
            "spark_catalog=a%E2%80%AEb",
            "spark_catalog=%3Ccatalog%3E",
        ] {
            assert_eq!(spark_catalog(hostile), LinkCatalog::Ignored, "{hostile}");
        }
    }

    #[test]
    fn forgetting_the_table_keeps_the_reader_settings_and_unknown_keys_go() {
        let link = "example=t&token=secret&tab=jobs&from=parent&to=current&spark_catalog=lab";
        assert_eq!(cleared(link), "spark_catalog=lab");
        assert_eq!(with(link, &[]), "example=t&tab=jobs&from=parent&to=current&spark_catalog=lab");
        assert_eq!(with(link, &[("to", None), ("from", Some("job:eb1278fa"))]), "example=t&tab=jobs&from=job%3Aeb1278fa&spark_catalog=lab");
    }
}
