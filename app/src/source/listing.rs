//! Objects a store or a folder lists, kept as the orphan census needs them: the path, the size
//! and the modification time, nothing else. A store holds millions of objects: the paths share
//! one text buffer (`PathIndex`), sizes and times are plain numbers — no `String` or struct per
//! object (a `Vec` of those cost ~570 bytes an object, and 3 million keys aborted on memory).

use super::PathIndex;

/// Sentinels for "not known": no object is 2^64-1 bytes, nor modified at i64::MIN ms.
const NO_SIZE: u64 = u64::MAX;
const NO_TIME: i64 = i64::MIN;

#[derive(Debug, Default, Clone)]
pub struct Listing {
    paths: PathIndex,
    sizes: Vec<u64>,
    times: Vec<i64>,
}

impl Listing {
    pub fn push(&mut self, path: &str, size: Option<u64>, modified_ms: Option<i64>) {
        self.paths.insert_str(path);
        self.sizes.push(size.unwrap_or(NO_SIZE));
        self.times.push(modified_ms.unwrap_or(NO_TIME));
    }

    /// Gives back what growing left spare: up to half of each buffer.
    pub fn shrink_to_fit(&mut self) {
        self.paths.shrink_to_fit();
        self.sizes.shrink_to_fit();
        self.times.shrink_to_fit();
    }

    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// The paths, findable by name and suffix (`PathIndex::resolve_at`); positions are the listing's.
    pub fn index(&self) -> &PathIndex {
        &self.paths
    }

    pub fn path(&self, i: usize) -> &str {
        self.paths.path(i)
    }

    pub fn size(&self, i: usize) -> Option<u64> {
        Some(self.sizes[i]).filter(|s| *s != NO_SIZE)
    }

    pub fn modified_ms(&self, i: usize) -> Option<i64> {
        Some(self.times[i]).filter(|t| *t != NO_TIME)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_pushed_is_read_back_with_unknowns_kept_unknown() {
        let mut l = Listing::default();
        l.push("s3://b/t/data/a.parquet", Some(7), Some(1_796_003_543_000));
        l.push("s3://b/t/metadata/v1.metadata.json", None, None);
        assert_eq!(
            (l.len(), l.path(1), l.size(0), l.size(1), l.modified_ms(0), l.modified_ms(1)),
            (2, "s3://b/t/metadata/v1.metadata.json", Some(7), None, Some(1_796_003_543_000), None)
        );
        assert_eq!(l.index().resolve("s3://other/t/data/a.parquet"), Some("s3://b/t/data/a.parquet"));
    }
}
