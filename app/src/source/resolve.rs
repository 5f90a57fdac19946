//! Resolving the paths written inside metadata (`s3://bucket/wh/db/t/metadata/x.avro`,
//! `file:///tmp/wh/...`, relative paths) against the files a user actually has.
//!
//! A table copied out of its bucket keeps its relative layout but loses the prefix, so the
//! file whose path shares the longest run of trailing components with the reference wins.

/// Path components of a reference, without scheme, authority or empty parts.
pub fn components(reference: &str) -> Vec<&str> {
    path_part(reference).split(['/', '\\']).filter(|c| !c.is_empty() && *c != ".").collect()
}

/// The last of `components`, found without listing them all: asked of every file of a picked
/// folder (100,000 of them), several times each.
pub fn last_component(reference: &str) -> Option<&str> {
    path_part(reference).rsplit(['/', '\\']).find(|c| !c.is_empty() && *c != ".")
}

/// A reference without its scheme and authority.
fn path_part(reference: &str) -> &str {
    match reference.find("://") {
        // The authority (bucket or host) is dropped; file:/// has an empty one.
        Some(i) => {
            let after = &reference[i + 3..];
            match after.find('/') {
                Some(j) => &after[j..],
                None => "",
            }
        }
        None => reference.strip_prefix("file:").unwrap_or(reference),
    }
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

/// An index of the available files by their relative paths. A picked table folder can hold
/// 100,000 files (its data beside its metadata): the paths live in one text buffer and are found
/// by a hash of their file name, not as a map of owned strings (a quarter of the CLI's memory on
/// a day of checkpoints).
#[derive(Debug, Default, Clone)]
pub struct PathIndex {
    text: String,
    /// Where each path ends in `text`.
    ends: Vec<usize>,
    /// File-name hash → the last path with that hash; `prev` chains to the earlier ones.
    by_name: std::collections::HashMap<u64, u32>,
    prev: Vec<u32>,
}

const NONE: u32 = u32::MAX;

fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

impl PathIndex {
    pub fn new(paths: impl IntoIterator<Item = String>) -> Self {
        let mut index = PathIndex::default();
        for p in paths {
            index.insert(p);
        }
        index.shrink_to_fit();
        index
    }

    pub fn insert(&mut self, path: String) {
        self.insert_str(&path);
    }

    pub fn insert_str(&mut self, path: &str) {
        // Past 4 G paths an index is not a table folder: the path is still listed, not findable.
        let i = u32::try_from(self.ends.len()).unwrap_or(NONE);
        let mut link = NONE;
        if let (Some(name), true) = (last_component(path), i != NONE) {
            let slot = self.by_name.entry(name_hash(name)).or_insert(NONE);
            link = *slot;
            *slot = i;
        }
        self.prev.push(link);
        self.text.push_str(path);
        self.ends.push(self.text.len());
    }

    /// Gives back what growing left spare: the index lives as long as the table is open.
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
        self.prev.shrink_to_fit();
        self.by_name.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn path(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }

    pub fn paths(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        (0..self.ends.len()).map(|i| self.path(i))
    }

    /// The available path that best matches `reference`, or None when no file has its name.
    pub fn resolve(&self, reference: &str) -> Option<&str> {
        self.resolve_at(reference).map(|i| self.path(i))
    }

    /// Where in the listing `resolve` finds `reference`: a source keeps what it knows of each
    /// path (a picked `File`) in a vector beside the index, not in a map keyed by a second copy.
    pub fn resolve_at(&self, reference: &str) -> Option<usize> {
        let wanted = components(reference);
        let name = *wanted.last()?;
        let mut at = *self.by_name.get(&name_hash(name))?;
        let mut best: Option<(bool, usize, u32)> = None;
        while at != NONE {
            let theirs = components(self.path(at as usize));
            if theirs.last() == Some(&name) {
                // The path that is the reference exactly, else the longest shared run of trailing
                // parts; among equals, the first listed.
                let key = (theirs == wanted, shared_suffix(&wanted, &theirs));
                if best.is_none_or(|(be, bn, bi)| key > (be, bn) || (key == (be, bn) && at < bi)) {
                    best = Some((key.0, key.1, at));
                }
            }
            at = self.prev[at as usize];
        }
        best.map(|(_, _, i)| i as usize)
    }

    /// Whether `path` is one of the available paths, as written.
    pub fn contains(&self, path: &str) -> bool {
        self.position(path).is_some()
    }

    /// Where `path`, as written, is in the listing (the last of repeats).
    pub fn position(&self, path: &str) -> Option<usize> {
        let name = last_component(path)?;
        let mut at = self.by_name.get(&name_hash(name)).copied().unwrap_or(NONE);
        while at != NONE {
            if self.path(at as usize) == path {
                return Some(at as usize);
            }
            at = self.prev[at as usize];
        }
        None
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
        let index = PathIndex::new(["a/metadata/snap-1.avro".to_string(), "t/metadata/snap-1.avro".to_string(), "t/metadata/m0.avro".to_string()]);
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
