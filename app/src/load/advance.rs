//! Reading a table's next metadata file into the loader that read the previous one: a watched
//! table (`icescope watch`, the app's Live switch) costs one metadata file per poll, plus the new
//! snapshots' lists and the manifests they add.

use super::{decoder::Decoder, now_ms, LoadError, Loader, ReadStats};
use crate::source::Fetch;

impl Loader {
    /// Reads `metadata_path` (the table's newer metadata file), keeps what was read of the last
    /// one, plans as before, and reads what is new, as many reads in flight as the source says. The stats are this
    /// step's alone. On an error the loader is as it was.
    pub async fn advance<F: Fetch, D: Decoder>(&mut self, files: &F, dec: &D, metadata_path: &str) -> Result<(), LoadError> {
        let started = now_ms();
        let bytes = files.fetch(metadata_path).await?;
        let size = bytes.len() as u64;
        // Through `dec`: in the browser a day's metadata file is decoded off the page's thread.
        let metadata = match dec.decode(crate::decode::job::Job::TableMetadata { path: metadata_path.to_string(), bytes }).await? {
            crate::decode::job::Decoded::Metadata(m) => *m,
            _ => {
                return Err(LoadError::Decode(crate::decode::DecodeError::new(metadata_path, "", super::decoder::unexpected(metadata_path, "table metadata"))))
            }
        };
        let mode = self.history.read_mode().unwrap_or(crate::model::ReadMode::Auto);
        let known: Vec<crate::model::MetadataSize> = self.history.metadata_sizes.clone();
        self.history.advance(metadata_path, metadata);
        self.history.record_metadata_sizes(size, |f| known.iter().find(|k| k.file == f).map(|k| k.bytes).or_else(|| files.size_hint(f)));
        self.anchor = files.listing().and_then(|_| super::anchor(metadata_path, &self.history.metadata.location));
        self.stats = ReadStats::of_metadata(metadata_path, size, started, self.stats.paths.is_some());
        self.history.plan(mode);
        self.run(files, dec).await;
        self.history.trim();
        Ok(())
    }
}
