//! Listing a REST catalog's namespaces and tables, page by page, every bound checked: a catalog
//! that pages forever, nests namespaces without end or answers with millions of names ends in
//! a listing that says where it stopped.

use std::collections::BTreeMap;

use super::CatalogSession;
use crate::source::http::{HttpError, Request, Response};

/// How far a listing goes. A catalog that pages forever, nests namespaces without end or answers
/// with millions of names is listed this far, and the listing says where and why it stopped.
pub const MAX_LIST_REQUESTS: usize = 5_000;
/// Namespaces and tables kept in one listing.
pub const MAX_LISTED: usize = 200_000;
/// Levels of nested namespaces followed.
pub const MAX_NAMESPACE_DEPTH: usize = 32;

fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Every namespace with its tables (sorted), and why the listing is incomplete where it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatalogListing {
    pub namespaces: Vec<(Vec<String>, Vec<String>)>,
    pub incomplete: Vec<String>,
}

/// Walks every namespace (following `parent` for nested ones) and every page of tables, one request
/// at a time: the CLI and the browser each send what `next` asks and hand the answer to `feed`.
pub struct Lister {
    queue: Vec<Option<Vec<String>>>,
    /// What is being listed now: namespaces under a parent, or the tables of one namespace.
    current: Option<Step>,
    pending_tables: Vec<Vec<String>>,
    /// Index into `listing` by namespace: a catalog may name one namespace many times.
    seen: BTreeMap<Vec<String>, usize>,
    requests: usize,
    listed: usize,
    /// Names left out by `MAX_LISTED`, namespaces by `MAX_NAMESPACE_DEPTH`, page chains cut short.
    left_out: usize,
    too_deep: usize,
    repeated_pages: usize,
    stopped_at_requests: bool,
    pub listing: Vec<(Vec<String>, Vec<String>)>,
}

enum Step {
    Namespaces { parent: Option<Vec<String>>, page: Option<String> },
    Tables { namespace: Vec<String>, page: Option<String> },
}

impl Default for Lister {
    fn default() -> Self {
        Lister {
            queue: vec![None],
            current: None,
            pending_tables: Vec::new(),
            seen: BTreeMap::new(),
            requests: 0,
            listed: 0,
            left_out: 0,
            too_deep: 0,
            repeated_pages: 0,
            stopped_at_requests: false,
            listing: Vec::new(),
        }
    }
}

impl Lister {
    /// The next request, or None when everything is listed or a bound is reached (then `listing`
    /// is sorted and `finish` says what is missing).
    pub fn next(&mut self, session: &CatalogSession, now_ms: u64) -> Result<Option<Request>, HttpError> {
        if self.current.is_none() {
            self.current = if let Some(namespace) = self.pending_tables.pop() {
                Some(Step::Tables { namespace, page: None })
            } else if let Some(parent) = self.queue.pop() {
                Some(Step::Namespaces { parent, page: None })
            } else {
                self.listing.sort();
                return Ok(None);
            };
        }
        if self.requests >= MAX_LIST_REQUESTS {
            self.stopped_at_requests = true;
            self.current = None;
            self.listing.sort();
            return Ok(None);
        }
        self.requests += 1;
        match &self.current {
            Some(Step::Namespaces { parent, page }) => session.namespaces_request(parent.as_deref(), page.as_deref(), now_ms).map(Some),
            Some(Step::Tables { namespace, page }) => session.tables_request(namespace, page.as_deref(), now_ms).map(Some),
            None => Ok(None),
        }
    }

    pub fn feed(&mut self, session: &CatalogSession, req: &Request, resp: &Response) -> Result<(), HttpError> {
        match self.current.take() {
            Some(Step::Namespaces { parent, page }) => {
                let (namespaces, next) = session.read_namespaces(req, resp)?;
                for ns in namespaces {
                    // Some catalogs answer a parent query with the parent itself, or list nested
                    // namespaces at the top level too: each is listed once.
                    if parent.as_ref() == Some(&ns) || self.seen.contains_key(&ns) {
                        continue;
                    }
                    if ns.len() > MAX_NAMESPACE_DEPTH {
                        self.too_deep += 1;
                        continue;
                    }
                    if self.listed >= MAX_LISTED {
                        self.left_out += 1;
                        continue;
                    }
                    self.listed += 1;
                    self.seen.insert(ns.clone(), self.listing.len());
                    self.listing.push((ns.clone(), Vec::new()));
                    self.pending_tables.push(ns.clone());
                    self.queue.push(Some(ns));
                }
                self.current = self.next_page(page, next).map(|page| Step::Namespaces { parent, page: Some(page) });
            }
            Some(Step::Tables { namespace, page }) => {
                let (names, next) = session.read_tables(req, resp)?;
                let room = MAX_LISTED.saturating_sub(self.listed);
                self.left_out += names.len().saturating_sub(room);
                if let Some(&at) = self.seen.get(&namespace) {
                    let kept = names.len().min(room);
                    self.listed += kept;
                    self.listing[at].1.extend(names.into_iter().take(kept));
                }
                self.current = self.next_page(page, next).map(|page| Step::Tables { namespace, page: Some(page) });
            }
            None => {}
        }
        Ok(())
    }

    /// The page to ask for next; a catalog that answers a page token with the same token would be
    /// asked for that page forever.
    fn next_page(&mut self, sent: Option<String>, next: Option<String>) -> Option<String> {
        match next {
            Some(t) if Some(&t) == sent.as_ref() => {
                self.repeated_pages += 1;
                None
            }
            other => other,
        }
    }

    /// The listing, with a sentence for each way in which it is incomplete.
    pub fn finish(mut self) -> CatalogListing {
        // A page asked for twice, or a catalog that pages badly, names a table again: shown once.
        let mut repeated_names = 0;
        for (_, tables) in &mut self.listing {
            let mut seen = std::collections::HashSet::new();
            let before = tables.len();
            tables.retain(|t| seen.insert(t.clone()));
            repeated_names += before - tables.len();
        }
        let mut incomplete = Vec::new();
        if self.stopped_at_requests {
            incomplete.push(format!("stopped after {MAX_LIST_REQUESTS} requests to the catalog: the namespaces and tables not reached by then are not listed"));
        }
        if self.left_out > 0 {
            incomplete
                .push(format!("{} not listed (at most {MAX_LISTED} namespaces and tables are kept)", counted(self.left_out, "more name is", "more names are")));
        }
        if self.too_deep > 0 {
            incomplete.push(format!("{} nested deeper than {MAX_NAMESPACE_DEPTH} levels not listed", counted(self.too_deep, "namespace", "namespaces")));
        }
        if self.repeated_pages > 0 {
            incomplete.push(format!(
                "the catalog answered a page token with the same next-page-token ({}); those lists end at that page",
                counted(self.repeated_pages, "time", "times")
            ));
        }
        if repeated_names > 0 {
            incomplete.push(format!("{} listed more than once in a namespace, shown once", counted(repeated_names, "table name", "table names")));
        }
        CatalogListing { namespaces: self.listing, incomplete }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::rest_catalog::CatalogAuth;
    use crate::source::s3::Props;

    /// Answers every request as `answer` says, until the lister stops asking.
    fn run_lister(answer: impl Fn(&str) -> String) -> (CatalogListing, usize) {
        let s = CatalogSession {
            uri: "http://c".into(),
            prefix: String::new(),
            separator: "%1F".into(),
            config: Props::new(),
            token: None,
            auth: CatalogAuth::None,
        };
        let mut lister = Lister::default();
        let mut sent = 0;
        while let Some(req) = lister.next(&s, 0).unwrap() {
            sent += 1;
            assert!(sent <= MAX_LIST_REQUESTS, "the lister asked past its bound");
            let resp = Response { status: 200, body: answer(&req.url).into_bytes(), content_range: None, etag: None };
            lister.feed(&s, &req, &resp).unwrap();
        }
        (lister.finish(), sent)
    }

    #[test]
    fn a_catalog_that_pages_forever_is_listed_once_per_page_and_says_so() {
        let (listing, sent) = run_lister(|url| {
            if url.contains("/tables") {
                r#"{"identifiers":[{"namespace":["a"],"name":"t"}],"next-page-token":"again"}"#.into()
            } else if url.contains("parent=") {
                r#"{"namespaces":[]}"#.into()
            } else {
                r#"{"namespaces":[["a"]],"next-page-token":"again"}"#.into()
            }
        });
        // First namespaces page, its repeat, tables and their repeat, children of `a`.
        assert_eq!(sent, 5);
        assert_eq!(listing.namespaces, vec![(vec!["a".to_string()], vec!["t".to_string()])]);
        assert_eq!(
            listing.incomplete,
            vec![
                "the catalog answered a page token with the same next-page-token (2 times); those lists end at that page".to_string(),
                "1 table name listed more than once in a namespace, shown once".to_string()
            ]
        );
    }

    #[test]
    fn namespaces_nested_without_end_stop_at_the_depth_bound() {
        // Every parent has one child one level deeper.
        let (listing, sent) = run_lister(|url| {
            if url.contains("/tables") {
                return r#"{"identifiers":[]}"#.into();
            }
            let depth = url.split("parent=").nth(1).map_or(0, |p| p.split("%1F").count());
            let ns: Vec<String> = (0..=depth).map(|i| format!("\"n{i}\"")).collect();
            format!(r#"{{"namespaces":[[{}]]}}"#, ns.join(","))
        });
        assert_eq!(listing.namespaces.len(), MAX_NAMESPACE_DEPTH);
        assert_eq!(sent, 1 + 2 * MAX_NAMESPACE_DEPTH);
        assert_eq!(listing.incomplete, vec![format!("1 namespace nested deeper than {MAX_NAMESPACE_DEPTH} levels not listed")]);
    }

    #[test]
    fn a_catalog_that_never_runs_out_of_pages_stops_at_the_request_bound() {
        let (listing, sent) = run_lister(|url| {
            let page: usize = url.split("pageToken=").nth(1).and_then(|t| t.parse().ok()).unwrap_or(0);
            if url.contains("/tables") || url.contains("parent=") {
                return r#"{"namespaces":[],"identifiers":[]}"#.into();
            }
            format!(r#"{{"namespaces":[],"next-page-token":"{}"}}"#, page + 1)
        });
        assert_eq!(sent, MAX_LIST_REQUESTS);
        assert!(listing.namespaces.is_empty());
        assert!(listing.incomplete[0].starts_with(&format!("stopped after {MAX_LIST_REQUESTS} requests")));
    }

    #[test]
    fn a_huge_answer_is_kept_up_to_the_bound_in_linear_time() {
        let names: Vec<String> = (0..MAX_LISTED + 10).map(|i| format!("[\"n{i}\"]")).collect();
        let page = format!(r#"{{"namespaces":[{},["n0"]]}}"#, names.join(","));
        let mut lister = Lister::default();
        let s = CatalogSession {
            uri: "http://c".into(),
            prefix: String::new(),
            separator: "%1F".into(),
            config: Props::new(),
            token: None,
            auth: CatalogAuth::None,
        };
        let req = lister.next(&s, 0).unwrap().unwrap();
        lister.feed(&s, &req, &Response { status: 200, body: page.into_bytes(), content_range: None, etag: None }).unwrap();
        let listing = lister.finish();
        assert_eq!(listing.namespaces.len(), MAX_LISTED);
        assert_eq!(listing.incomplete, vec![format!("10 more names are not listed (at most {MAX_LISTED} namespaces and tables are kept)")]);
    }
}
