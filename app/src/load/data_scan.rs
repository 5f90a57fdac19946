//! Reading inside data files, through any `Fetch`, with ranged reads only: Parquet footers (tail,
//! then footer), the key columns' chunks, position delete files, deletion vectors (one blob out
//! of a Puffin file) and equality delete files. What is counted is the sink's business
//! (`model::live_rows::RowSink`, implemented in analysis): this file only reads and applies deletes.

use futures::stream::{self, StreamExt};

use crate::decode::job::{Decoded, Job};
use crate::decode::parquet_footer::{footer_span, Footer, TAIL_BYTES};
use crate::decode::puffin::{self, PuffinFooter};
use crate::decode::FileFormat;
use crate::model::footers::{FileFooter, PuffinFileFooter};
use crate::model::{LiveFile, TableHistory};
use crate::source::range::ByteRange;
use crate::source::Fetch;

use super::decoder::{unexpected, Decoder, Inline};
pub use super::key_scan::{scan_keys, ScanProgress, ScanResult};

pub use crate::source::range::Fetched;

/// Reads one Parquet footer: the 8-byte tail (which also gives the object's size where the source
/// says it; else the manifest's size is trusted), then exactly the footer. Errors name the file.
pub async fn read_footer<F: Fetch>(files: &F, path: &str, manifest_size: Option<u64>, fetched: &mut Fetched) -> Result<(Footer, Option<u64>), String> {
    read_footer_with(files, &Inline, path, manifest_size, &[], fetched).await.map(|r| (r.footer, r.object_size))
}

/// A footer read, with where the columns asked for lie.
pub(super) struct FooterRead {
    pub(super) footer: Footer,
    pub(super) bytes: Vec<u8>,
    pub(super) object_size: Option<u64>,
    pub(super) size: u64,
    pub(super) found: Vec<Option<usize>>,
    pub(super) chunks: Result<Vec<(u64, u64)>, String>,
}

pub(super) async fn read_footer_with<F: Fetch, D: Decoder>(
    files: &F,
    dec: &D,
    path: &str,
    manifest_size: Option<u64>,
    wanted: &[(i32, &str)],
    fetched: &mut Fetched,
) -> Result<FooterRead, String> {
    let tail = files.fetch_range(path, ByteRange::Tail { len: TAIL_BYTES }).await.map_err(|e| e.to_string())?;
    fetched.add(&tail);
    let object_size = tail.object_size;
    let size = object_size.or(manifest_size).ok_or_else(|| format!("{path}: the store did not say the object's size and the manifest gives none"))?;
    let (offset, len) = footer_span(path, &tail.bytes, size).map_err(|e| e.to_string())?;
    let body = files.fetch_range(path, ByteRange::At { offset, len }).await.map_err(|e| e.to_string())?;
    fetched.add(&body);
    if body.bytes.len() as u64 != len {
        return Err(format!("{path}: field `footer_length`: {len} bytes declared, {} read (the file ends first)", body.bytes.len()));
    }
    let wanted: Vec<(i32, String)> = wanted.iter().map(|(i, n)| (*i, n.to_string())).collect();
    // The footer's bytes are kept for the columns' job: copied only when columns are asked for.
    let bytes = if wanted.is_empty() { Vec::new() } else { body.bytes.clone() };
    match dec.decode(Job::ParquetFooter { path: path.to_string(), bytes: body.bytes, object_size: size, wanted }).await.map_err(|e| e.to_string())? {
        Decoded::Footer { footer, found, chunks } => Ok(FooterRead { footer, bytes, object_size, size, found, chunks }),
        _ => Err(unexpected(path, "a Parquet footer")),
    }
}

/// Reads one Puffin footer: the 12-byte tail, then the opening magic and the payload.
pub async fn read_puffin_footer<F: Fetch>(
    files: &F,
    path: &str,
    manifest_size: Option<u64>,
    fetched: &mut Fetched,
) -> Result<(PuffinFooter, Option<u64>), String> {
    read_puffin_footer_with(files, &Inline, path, manifest_size, fetched).await
}

async fn read_puffin_footer_with<F: Fetch, D: Decoder>(
    files: &F,
    dec: &D,
    path: &str,
    manifest_size: Option<u64>,
    fetched: &mut Fetched,
) -> Result<(PuffinFooter, Option<u64>), String> {
    let tail = files.fetch_range(path, ByteRange::Tail { len: puffin::TAIL_BYTES }).await.map_err(|e| e.to_string())?;
    fetched.add(&tail);
    let object_size = tail.object_size;
    let size = object_size.or(manifest_size).ok_or_else(|| format!("{path}: the store did not say the object's size and the manifest gives none"))?;
    let span = puffin::footer_span(path, &tail.bytes, size).map_err(|e| e.to_string())?;
    let body = files.fetch_range(path, ByteRange::At { offset: span.offset, len: span.len }).await.map_err(|e| e.to_string())?;
    fetched.add(&body);
    match dec.decode(Job::PuffinFooter { path: path.to_string(), span, bytes: body.bytes }).await.map_err(|e| e.to_string())? {
        Decoded::Puffin(f) => Ok((f, object_size)),
        _ => Err(unexpected(path, "a Puffin footer")),
    }
}

/// The footers of the Puffin files a snapshot's live deletion vectors point into, each file once
/// however many vectors it holds, six reads in flight; decoded by `dec`.
pub async fn read_puffin_footers<F: Fetch, D: Decoder>(
    files: &F,
    dec: &D,
    history: &TableHistory,
    index: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancel: &dyn Fn() -> bool,
) -> (Vec<PuffinFileFooter>, Fetched) {
    let mut seen = std::collections::HashSet::new();
    let puffins: Vec<(&str, Option<u64>)> = history
        .live_files(index)
        .into_iter()
        .filter(|f| f.file.is_deletion_vector() && seen.insert(&*f.file.file_path))
        .map(|f| (&*f.file.file_path, u64::try_from(f.file.file_size_in_bytes).ok()))
        .collect();
    let total = puffins.len();
    let mut fetched = Fetched::default();
    let reads = stream::iter(puffins)
        .map(|(path, manifest_size)| async move {
            let mut one = Fetched::default();
            let footer = read_puffin_footer_with(files, dec, path, manifest_size, &mut one).await;
            let object_size = footer.as_ref().ok().and_then(|(_, s)| *s);
            let bytes_in_file = object_size.or(manifest_size).unwrap_or(0);
            (PuffinFileFooter { file_path: path.to_string(), object_size, fetched: one.bytes_fetched, footer: footer.map(|(f, _)| f) }, one, bytes_in_file)
        })
        .buffered(super::PARALLEL);
    futures::pin_mut!(reads);
    let mut out = Vec::with_capacity(total);
    while let Some((f, one, bytes_in_file)) = reads.next().await {
        fetched.files += 1;
        fetched.merge(&one);
        fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(bytes_in_file);
        out.push(f);
        progress(out.len(), total);
        if cancel() {
            break;
        }
    }
    (out, fetched)
}

/// The footers of a snapshot's live Parquet files (ranged reads), six reads in flight; decoded by
/// `dec`. Deletion vectors live in Puffin files: `read_puffin_footers`.
pub async fn read_footers<F: Fetch, D: Decoder>(
    files: &F,
    dec: &D,
    history: &TableHistory,
    index: usize,
    progress: &mut dyn FnMut(usize, usize),
    cancel: &dyn Fn() -> bool,
) -> (Vec<FileFooter>, Fetched) {
    let live: Vec<LiveFile<'_>> = history.live_files(index).into_iter().filter(|f| f.file.file_format == FileFormat::Parquet).collect();
    let total = live.len();
    let mut fetched = Fetched::default();
    let reads = stream::iter(live)
        .map(|f| async move {
            let mut one = Fetched::default();
            let manifest_size = u64::try_from(f.file.file_size_in_bytes).ok();
            let footer = read_footer_with(files, dec, &f.file.file_path, manifest_size, &[], &mut one).await;
            let object_size = footer.as_ref().ok().and_then(|r| r.object_size);
            let out = FileFooter {
                file_path: f.file.file_path.to_string(),
                content: f.file.content,
                added_snapshot_id: f.added_snapshot_id,
                manifest_record_count: f.file.record_count,
                manifest_file_size: f.file.file_size_in_bytes,
                object_size,
                fetched: one.bytes_fetched,
                footer: footer.map(|r| r.footer),
            };
            (out, one)
        })
        .buffered(super::PARALLEL);
    futures::pin_mut!(reads);
    let mut out = Vec::with_capacity(total);
    while let Some((f, one)) = reads.next().await {
        fetched.files += 1;
        fetched.merge(&one);
        fetched.bytes_in_files = fetched.bytes_in_files.saturating_add(f.object_size.unwrap_or(f.manifest_file_size.max(0) as u64));
        out.push(f);
        progress(out.len(), total);
        if cancel() {
            break;
        }
    }
    (out, fetched)
}
