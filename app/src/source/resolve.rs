//! Resolving the paths written inside metadata (`s3://bucket/wh/db/t/metadata/x.avro`,
//! `file:///tmp/wh/...`, relative paths) against the files a user actually has.
//!
//! A table copied out of its bucket keeps its relative layout but loses the prefix, so the
//! file whose path shares the longest run of trailing components with the reference wins.

/// Path components of a reference, without scheme, authority or empty parts.
pub fn components(reference: &str) -> Vec<&str> {
    let rest = match reference.find("://") {
        // The authority (bucket or host) is dropped; file:/// has an empty one.
        Some(i) => {
            let after = &reference[i + 3..];
            match after.find('/') {
                Some(j) => &after[j..],
                None => "",
            }
        }
        None => reference.strip_prefix("file:").unwrap_or(reference),
    };
    rest.split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".").collect()
}

/// The names a person knows a table by: the last two folders of its root (`db`, `events`), from a
/// table location or a metadata file's path (`…/db/events/metadata/v3.metadata.json`).
pub fn table_names(location_or_metadata: &str) -> Vec<&str> {
    let mut parts = components(location_or_metadata);
    if parts.len() >= 2 && parts[parts.len() - 2] == "metadata" {
        parts.truncate(parts.len() - 2);
    }
    let n = parts.len();
    parts.split_off(n.saturating_sub(2))
}

/// An index of the available files by their relative paths.
#[derive(Debug, Default, Clone)]
pub struct PathIndex {
    paths: Vec<String>,
    by_name: std::collections::HashMap<String, Vec<usize>>,
}

impl PathIndex {
    pub fn new(paths: impl IntoIterator<Item = String>) -> Self {
        let mut index = PathIndex::default();
        for p in paths {
            index.insert(p);
        }
        index
    }

    pub fn insert(&mut self, path: String) {
        if let Some(name) = components(&path).last() {
            self.by_name.entry(name.to_string()).or_default().push(self.paths.len());
        }
        self.paths.push(path);
    }

    pub fn paths(&self) -> &[String] {
        &self.paths
    }

    /// The available path that best matches `reference`, or None when no file has its name: the
    /// path that is the reference exactly, else the one sharing the longest run of trailing parts.
    pub fn resolve(&self, reference: &str) -> Option<&str> {
        let wanted = components(reference);
        let name = wanted.last()?;
        let candidates = self.by_name.get(*name)?;
        candidates
            .iter()
            .map(|&i| {
                let have = components(&self.paths[i]);
                (have == wanted, shared_suffix(&wanted, &have), i)
            })
            .max_by_key(|&(exact, n, i)| (exact, n, std::cmp::Reverse(i)))
            .map(|(_, _, i)| self.paths[i].as_str())
    }

    /// Whether `path` is one of the available paths, as written.
    pub fn contains(&self, path: &str) -> bool {
        let name = components(path).last().copied().unwrap_or_default();
        self.by_name.get(name).is_some_and(|c| c.iter().any(|&i| self.paths[i] == path))
    }
}

fn shared_suffix(a: &[&str], b: &[&str]) -> usize {
    a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_suffix_wins_over_same_file_name() {
        let index = PathIndex::new([
            "a/metadata/snap-1.avro".to_string(),
            "t/metadata/snap-1.avro".to_string(),
            "t/metadata/m0.avro".to_string(),
        ]);
        assert_eq!(index.resolve("s3://bucket/wh/db/t/metadata/snap-1.avro"), Some("t/metadata/snap-1.avro"));
        assert_eq!(index.resolve("file:///tmp/x/t/metadata/m0.avro"), Some("t/metadata/m0.avro"));
        assert_eq!(index.resolve("metadata/other.avro"), None);
    }

    #[test]
    fn the_path_itself_wins_over_a_deeper_copy() {
        let index = PathIndex::new(["data/t/metadata/snap-1.avro".to_string(), "metadata/snap-1.avro".to_string()]);
        assert_eq!(index.resolve("metadata/snap-1.avro"), Some("metadata/snap-1.avro"));
        assert_eq!(index.resolve("s3://b/t/metadata/snap-1.avro"), Some("data/t/metadata/snap-1.avro"));
        assert!(index.contains("metadata/snap-1.avro") && !index.contains("snap-1.avro"));
    }

    #[test]
    fn scheme_and_bucket_are_not_path() {
        assert_eq!(components("s3a://bucket/x/y.avro"), vec!["x", "y.avro"]);
        assert_eq!(components("file:/tmp/y.avro"), vec!["tmp", "y.avro"]);
        assert_eq!(components("data/y.avro"), vec!["data", "y.avro"]);
    }
}
