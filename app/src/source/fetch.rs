//! The one way the loader reads bytes, whatever holds them: a local folder, files dropped in the
//! browser, the app's own server, an object store or a catalog's storage. Async so that the browser
//! never blocks; the CLI drives it with a blocking executor.

use super::files::{FileSet, SourceError};
use super::range::{from_whole, ByteRange, RangeRead};
use super::resolve::PathIndex;

#[allow(async_fn_in_trait)] // used with concrete types only; no Send bound wanted in the browser
pub trait Fetch {
    /// The bytes of the file a metadata reference (`s3://…`, `file:///…`, relative) names.
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError>;
    /// At most the first `n` bytes (a metadata file's header fields); the whole file where the
    /// source cannot read part of one.
    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let mut b = self.fetch(reference).await?;
        b.truncate(n);
        Ok(b)
    }
    /// Part of a file (a Parquet footer, a column chunk, a deletion vector), with the object's size
    /// where the source says it. This default reads the whole file and cuts it: every source the
    /// app and the CLI use reads real ranges instead.
    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        Ok(from_whole(range, self.fetch(reference).await?))
    }
    /// The file a part at a time with its size, where the source can hand it over so (a file
    /// picked in the browser): a 16 MB metadata.json is then decoded without a copy of it in the
    /// wasm heap. None: read it with `fetch`.
    async fn fetch_reader(&self, _reference: &str) -> Result<Option<(u64, Box<dyn std::io::Read>)>, SourceError> {
        Ok(None)
    }
    /// (folder, name) where a decoder that reads folders (`Decoder::reads_folders`) can read the
    /// file itself: a picked folder's handle, handed to the browser's decoder workers. None: the
    /// bytes are read here and handed over.
    fn in_folder(&self, _reference: &str) -> Option<(u32, String)> {
        None
    }
    /// Its size before reading it, where the source knows it.
    fn size_hint(&self, reference: &str) -> Option<u64>;
    /// The files this source can list (a folder, dropped files, an example's index).
    fn listing(&self) -> Option<&PathIndex> {
        None
    }
    /// For the orphan census: every file the source holds, and a file's size and modification
    /// time where known (asked for the orphans only: a picked file's size is a round trip to the
    /// disk). None where the source is not listed, or only in part.
    fn census(&self) -> Option<Census<'_>> {
        None
    }
    /// Sizes of these files will be asked for (`size_hint`) next: a source that must look each
    /// up (a folder handle: a round trip to the disk) does so now, several at once.
    async fn prepare_sizes(&self, _references: &[String]) {}
    /// Lists what the orphan census needs, once every snapshot's files are known (a folder handle
    /// lists its whole folder only then). Its error says why the census cannot be made.
    async fn list_for_census(&self) -> Result<(), SourceError> {
        Ok(())
    }
    /// How many reads the loader keeps out at once, and how many it asks for at a time: the
    /// source's to say, since its cost per read is its own.
    fn in_flight(&self) -> InFlight {
        InFlight::BROWSER
    }
}

/// Reads kept in flight, and how many are asked for at once (a batch carried by one request).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InFlight {
    pub reads: usize,
    pub refill: usize,
}

impl InFlight {
    /// A browser opens six connections per host: more requests only queue in it.
    pub const BROWSER: InFlight = InFlight { reads: 6, refill: 1 };
    /// The CLI's transport sends on its threads (`transport::IN_FLIGHT`); a local folder's reads
    /// block, so there the count only sets how often a batch settles, and settling re-derives
    /// delete kinds over every snapshot: per 4 files that was quadratic.
    pub const NATIVE: InFlight = InFlight { reads: 64, refill: 1 };
}

/// Every file a source holds, and how to ask one's (size, modified ms).
pub type Census<'a> = (Vec<String>, Box<dyn Fn(&str) -> (Option<u64>, Option<i64>) + 'a>);

impl<T: FileSet> Fetch for T {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        self.read_reference(reference).map(|(_, b)| b)
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        let path = FileSet::resolve(self, reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?.to_string();
        self.read_head(&path, n)
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        let path = FileSet::resolve(self, reference).ok_or_else(|| SourceError::NotFound { reference: reference.to_string() })?.to_string();
        self.read_range(&path, range)
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.size_of(FileSet::resolve(self, reference)?)
    }

    /// What the loader looks for metadata among (the browser's picked files list the same way).
    fn listing(&self) -> Option<&PathIndex> {
        Some(self.metadata_index())
    }

    fn census(&self) -> Option<Census<'_>> {
        let paths = self.census_index()?.paths().map(str::to_string).collect();
        Some((paths, Box::new(move |p: &str| (self.size_of(p), self.modified_ms(p)))))
    }

    fn in_flight(&self) -> InFlight {
        if cfg!(target_arch = "wasm32") {
            InFlight::BROWSER
        } else {
            InFlight::NATIVE
        }
    }
}

/// A source that cannot list itself (an object store reached by URL), with the keys a listing of
/// its prefix returned: an export folder on S3 is found by its listing, as a dropped one is.
pub struct Listed<F> {
    pub inner: F,
    pub index: PathIndex,
    sizes: std::collections::HashMap<String, u64>,
}

impl<F: Fetch> Listed<F> {
    pub fn new(inner: F, objects: impl IntoIterator<Item = (String, Option<u64>)>) -> Self {
        let objects: Vec<(String, Option<u64>)> = objects.into_iter().collect();
        let sizes = objects.iter().filter_map(|(k, s)| Some((k.clone(), (*s)?))).collect();
        Listed { inner, index: PathIndex::new(objects.into_iter().map(|(k, _)| k)), sizes }
    }

    pub fn into_inner(self) -> F {
        self.inner
    }
}

impl<F: Fetch> Fetch for Listed<F> {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        self.inner.fetch(reference).await
    }

    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        self.inner.fetch_head(reference, n).await
    }

    async fn fetch_range(&self, reference: &str, range: ByteRange) -> Result<RangeRead, SourceError> {
        self.inner.fetch_range(reference, range).await
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.sizes.get(reference).copied().or_else(|| self.inner.size_hint(reference))
    }

    fn listing(&self) -> Option<&PathIndex> {
        Some(&self.index)
    }

    fn in_flight(&self) -> InFlight {
        self.inner.in_flight()
    }
}
