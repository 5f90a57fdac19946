//! Decoding as a job: bytes and parameters in, a value that crosses threads out. Pure: no fetch,
//! no model. Natively `run` is called inline; in the browser the job is posted to the decoder
//! worker (`bin/icescope-decoder`), which answers with `serve`, so that a panic or a hang in a
//! third-party decoder (the `parquet` crate) ends the worker, never the page.
//!
//! The transfer format is postcard (serde): every value here derives both directions and round
//! trips (tests/decode_jobs.rs). Iceberg types travel as their JSON (`Type` is untagged, which a
//! binary format cannot read back).

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef};
use serde::{Deserialize, Serialize};

use super::key_types::canonical_key;
use super::manifest_digest::{digest_manifest, DigestedManifest};
use super::parquet_columns::{chunk_ranges, encode_key, leaf_indices, read_columns, SparseFile};
use super::parquet_footer::{decode_footer_metadata, Footer};
use super::puffin::{FooterSpan, PuffinFooter};
use super::{DecodeError, ManifestFile, ManifestList, TableMetadata, Type};

/// What to decode.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// A Parquet footer (the `footer_length` bytes before the tail) of a file of `object_size`
    /// bytes; with `wanted` columns (field id, name), where their chunks lie.
    ParquetFooter {
        path: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        object_size: u64,
        wanted: Vec<(i32, String)>,
    },
    /// A Puffin footer: the opening magic and the payload at `span`.
    PuffinFooter {
        path: String,
        span: FooterSpan,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// One deletion vector blob.
    DeletionVector {
        path: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// Chosen columns of a Parquet file from its fetched chunks.
    Columns(ColumnsJob),
    /// A table metadata file (JSON, or gzip-compressed JSON).
    TableMetadata {
        path: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// A manifest list's rows.
    ManifestList {
        path: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
    },
    /// A manifest, streamed into its digest; its entries kept if there are no more than
    /// `keep_at_most` (0: none). `inherited`: the snapshot its list says added it.
    Manifest {
        path: String,
        #[serde(with = "serde_bytes")]
        bytes: Vec<u8>,
        inherited: Option<i64>,
        keep_at_most: usize,
    },
    /// `then` with the bytes of file `name` in folder `folder`, read by the worker that holds the
    /// folder's handle (a folder picked in the browser): the page never carries those bytes.
    Read { folder: u32, name: String, then: Box<Job> },
}

impl Job {
    /// The file the job decodes, for the message when its decoder stops.
    pub fn path(&self) -> &str {
        match self {
            Job::ParquetFooter { path, .. }
            | Job::PuffinFooter { path, .. }
            | Job::DeletionVector { path, .. }
            | Job::TableMetadata { path, .. }
            | Job::ManifestList { path, .. }
            | Job::Manifest { path, .. } => path,
            Job::Columns(c) => &c.path,
            Job::Read { then, .. } => then.path(),
        }
    }

    /// The job a `Read` leads to; any other job itself.
    pub fn inner(&self) -> &Job {
        match self {
            Job::Read { then, .. } => then.inner(),
            other => other,
        }
    }

    /// The job with `bytes` as the file it decodes (the file a `Read` names, once read). Jobs of
    /// several files (`Columns`) are left as they are.
    pub fn with_bytes(self, bytes: Vec<u8>) -> Job {
        match self {
            Job::ParquetFooter { path, object_size, wanted, .. } => Job::ParquetFooter { path, bytes, object_size, wanted },
            Job::PuffinFooter { path, span, .. } => Job::PuffinFooter { path, span, bytes },
            Job::DeletionVector { path, .. } => Job::DeletionVector { path, bytes },
            Job::TableMetadata { path, .. } => Job::TableMetadata { path, bytes },
            Job::ManifestList { path, .. } => Job::ManifestList { path, bytes },
            Job::Manifest { path, inherited, keep_at_most, .. } => Job::Manifest { path, bytes, inherited, keep_at_most },
            Job::Read { folder, name, then } => Job::Read { folder, name, then: Box::new(then.with_bytes(bytes)) },
            c @ Job::Columns(_) => c,
        }
    }

    /// Bytes the job carries: what its time allowance scales with.
    pub fn byte_len(&self) -> usize {
        match self {
            Job::ParquetFooter { bytes, .. }
            | Job::PuffinFooter { bytes, .. }
            | Job::DeletionVector { bytes, .. }
            | Job::TableMetadata { bytes, .. }
            | Job::ManifestList { bytes, .. }
            | Job::Manifest { bytes, .. } => bytes.len(),
            Job::Columns(c) => c.footer.len() + c.ranges.iter().map(|(_, b)| b.len()).sum::<usize>(),
            Job::Read { then, .. } => then.byte_len(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ColumnsJob {
    pub path: String,
    /// The footer's bytes again: decoding it again (a few KB) is cheaper than sending it decoded.
    #[serde(with = "serde_bytes")]
    pub footer: Vec<u8>,
    pub object_size: u64,
    /// The fetched chunks: (offset, bytes).
    #[serde(with = "byte_ranges")]
    pub ranges: Vec<(u64, Vec<u8>)>,
    /// The leaf columns to read, in `columns` order.
    pub leaves: Vec<usize>,
    /// Each column's name (for errors) and Iceberg type as JSON (None: left as stored).
    pub columns: Vec<(String, Option<String>)>,
    pub shape: Shape,
}

/// Chunks as (offset, bytes) with the bytes as one byte string each: postcard writes a plain
/// `Vec<u8>` one element at a time, which for a day's manifests cost the page seconds.
mod byte_ranges {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(ranges: &[(u64, Vec<u8>)], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(ranges.iter().map(|(offset, bytes)| (offset, serde_bytes::Bytes::new(bytes))))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(u64, Vec<u8>)>, D::Error> {
        let ranges: Vec<(u64, serde_bytes::ByteBuf)> = Deserialize::deserialize(d)?;
        Ok(ranges.into_iter().map(|(offset, bytes)| (offset, bytes.into_vec())).collect())
    }
}

/// What the columns are turned into before they cross back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    /// A position delete file's (`file_path`, `pos`) rows.
    Positions,
    /// Each row's key over every column (an equality delete file).
    Keys,
    /// A data file: each row's key over the first `keys` columns, and over each set of columns
    /// (indices into the columns) an equality delete may match.
    Rows { keys: usize, sets: Vec<Vec<usize>> },
}

/// Encoded keys, one per row, in one buffer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct KeyRows {
    #[serde(with = "serde_bytes")]
    bytes: Vec<u8>,
    ends: Vec<u64>,
}

impl KeyRows {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Row `i`'s key bytes.
    pub fn get(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.bytes[start..self.ends[i] as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Appends each row of `cols` as one key (`encode_key`).
    fn push_rows(&mut self, cols: &[ArrayRef], rows: usize) -> Result<(), String> {
        for row in 0..rows {
            encode_key(cols, row, &mut self.bytes)?;
            self.ends.push(self.bytes.len() as u64);
        }
        Ok(())
    }
}

/// A data file's rows, keyed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rows {
    pub rows: u64,
    pub keys: KeyRows,
    /// One per equality set asked for.
    pub sets: Vec<KeyRows>,
}

/// What a job decoded to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Decoded {
    /// The footer; for the columns asked for, their leaf index (None: the file lacks it) and the
    /// byte ranges of their chunks (or why they cannot be read).
    Footer {
        footer: Footer,
        found: Vec<Option<usize>>,
        chunks: Result<Vec<(u64, u64)>, String>,
    },
    Puffin(PuffinFooter),
    /// A deletion vector in the portable Roaring format.
    Vector(#[serde(with = "serde_bytes")] Vec<u8>),
    Positions(Vec<(String, u64)>),
    Keys(KeyRows),
    Rows(Rows),
    Metadata(Box<TableMetadata>),
    List(Vec<ManifestFile>),
    Manifest(Box<DigestedManifest>),
    /// A `Read`'s file, `bytes` long, and what it decoded to.
    Read {
        bytes: u64,
        decoded: Result<Box<Decoded>, DecodeError>,
    },
    /// A `Read`'s file could not be read: missing from its folder, or not readable (`message`).
    Unread {
        missing: bool,
        message: String,
    },
}

/// Runs one job.
pub fn run(job: Job) -> Result<Decoded, DecodeError> {
    match job {
        Job::ParquetFooter { path, bytes, object_size, wanted } => {
            let (footer, metadata) = decode_footer_metadata(&path, &bytes)?;
            let wanted_ref: Vec<(i32, &str)> = wanted.iter().map(|(i, n)| (*i, n.as_str())).collect();
            let found = if wanted.is_empty() { Vec::new() } else { leaf_indices(&metadata, &wanted_ref) };
            let leaves: Vec<usize> = found.iter().flatten().copied().collect();
            let chunks = if leaves.is_empty() { Ok(Vec::new()) } else { chunk_ranges(&path, &metadata, &leaves, object_size).map_err(|e| e.to_string()) };
            Ok(Decoded::Footer { footer, found, chunks })
        }
        Job::PuffinFooter { path, span, bytes } => super::puffin::decode_footer(&path, span, &bytes).map(Decoded::Puffin),
        Job::DeletionVector { path, bytes } => {
            let v = super::deletion_vector::deletion_vector(&path, &bytes)?;
            let mut out = Vec::with_capacity(v.serialized_size());
            v.serialize_into(&mut out).map_err(|e| DecodeError::new(&path, "", format!("the vector does not serialize: {e}")))?;
            Ok(Decoded::Vector(out))
        }
        Job::Columns(c) => columns(c),
        Job::TableMetadata { path, bytes } => TableMetadata::from_bytes(&path, &bytes).map(|m| Decoded::Metadata(Box::new(m))),
        Job::ManifestList { path, bytes } => ManifestList::from_bytes(&path, &bytes).map(|l| Decoded::List(l.manifests)),
        Job::Manifest { path, bytes, inherited, keep_at_most } => Ok(Decoded::Manifest(Box::new(digest_manifest(&path, &bytes, inherited, keep_at_most)))),
        // Only the worker holding the folder reads it (`read_then`); nothing else has its handle.
        Job::Read { then, .. } => Err(DecodeError::new(then.path(), "", "its folder is read only by the decoder worker it was handed to".to_string())),
    }
}

fn columns(c: ColumnsJob) -> Result<Decoded, DecodeError> {
    let path = c.path.as_str();
    let err = |m: String| DecodeError::new(path, "", m);
    let (_, metadata) = decode_footer_metadata(path, &c.footer)?;
    let mut batches = read_columns(path, Arc::clone(&metadata), SparseFile::new(c.object_size, c.ranges), &c.leaves)?;
    let types: Vec<Option<Type>> = c
        .columns
        .iter()
        .map(|(name, t)| t.as_deref().map(|t| serde_json::from_str(t).map_err(|e| err(format!("column `{name}`: type {t}: {e}")))).transpose())
        .collect::<Result<_, _>>()?;
    for b in batches.iter_mut() {
        for ((col, (name, _)), t) in b.iter_mut().zip(&c.columns).zip(&types) {
            if let Some(t) = t {
                *col = canonical_key(path, name, t, col)?;
            }
        }
    }
    let rows_of = |b: &Vec<ArrayRef>| b.first().map_or(0, |c| c.len());
    match c.shape {
        Shape::Positions => {
            let mut rows = Vec::new();
            for b in &batches {
                let (paths, pos) = (&b[0], &b[1]);
                let pos = pos.as_primitive_opt::<arrow_array::types::Int64Type>().ok_or_else(|| err("field `pos`: not a 64-bit integer column".into()))?;
                for i in 0..pos.len() {
                    let p = match paths.data_type() {
                        arrow_schema::DataType::Utf8 => paths.as_string::<i32>().value(i).to_string(),
                        arrow_schema::DataType::LargeUtf8 => paths.as_string::<i64>().value(i).to_string(),
                        arrow_schema::DataType::Utf8View => paths.as_string_view().value(i).to_string(),
                        t => return Err(err(format!("field `file_path`: type {t}, not a string"))),
                    };
                    let at = u64::try_from(pos.value(i)).map_err(|_| err(format!("field `pos`: {} is negative", pos.value(i))))?;
                    rows.push((p, at));
                }
            }
            Ok(Decoded::Positions(rows))
        }
        Shape::Keys => {
            let mut keys = KeyRows::default();
            for b in &batches {
                keys.push_rows(b, rows_of(b)).map_err(err)?;
            }
            Ok(Decoded::Keys(keys))
        }
        Shape::Rows { keys: n, sets } => {
            let mut out = Rows { sets: vec![KeyRows::default(); sets.len()], ..Rows::default() };
            for b in &batches {
                let rows = rows_of(b);
                out.rows += rows as u64;
                out.keys.push_rows(&b[..n.min(b.len())], rows).map_err(err)?;
                for (set, keys) in sets.iter().zip(out.sets.iter_mut()) {
                    let cols: Vec<ArrayRef> = set.iter().filter_map(|&i| b.get(i).cloned()).collect();
                    keys.push_rows(&cols, rows).map_err(err)?;
                }
            }
            Ok(Decoded::Rows(out))
        }
    }
}

/// A job as the worker receives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    /// False only under the test switch (`decode::without_checks`).
    pub checked: bool,
    pub job: Job,
}

/// The worker's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    Done {
        id: u64,
        result: Result<Decoded, DecodeError>,
    },
    /// The decoder panicked (the worker's panic hook says so before the worker ends).
    Panicked {
        message: String,
    },
}

/// The transfer format, one place.
pub fn to_wire<T: Serialize>(v: &T) -> Result<Vec<u8>, String> {
    postcard::to_allocvec(v).map_err(|e| format!("cannot encode for the decoder worker: {e}"))
}

pub fn from_wire<'a, T: Deserialize<'a>>(b: &'a [u8]) -> Result<T, String> {
    postcard::from_bytes(b).map_err(|e| format!("cannot decode the decoder worker's message: {e}"))
}

/// The worker's side: a request's bytes in, the reply's bytes out.
pub fn serve(request: &[u8]) -> Vec<u8> {
    let reply = match from_wire::<Request>(request) {
        Ok(r) => answer(r),
        Err(e) => Reply::Done { id: u64::MAX, result: Err(DecodeError::new("", "", e)) },
    };
    to_wire(&reply).unwrap_or_default()
}

/// Runs a request's job (a `Read`'s once its file is read: `read_then`).
pub fn answer(r: Request) -> Reply {
    Reply::Done { id: r.id, result: run_as(r.checked, r.job) }
}

fn run_as(checked: bool, job: Job) -> Result<Decoded, DecodeError> {
    if checked {
        run(job)
    } else {
        super::without_checks(|| run(job))
    }
}

/// A `Read` request's reply, given what reading its file gave: the bytes, or (missing, why not).
pub fn read_then(r: Request, read: Result<Vec<u8>, (bool, String)>) -> Reply {
    let Request { id, checked, job } = r;
    let Job::Read { then, .. } = job else { return answer(Request { id, checked, job }) };
    let result = match read {
        Ok(bytes) => {
            let len = bytes.len() as u64;
            Ok(Decoded::Read { bytes: len, decoded: run_as(checked, then.with_bytes(bytes)).map(Box::new) })
        }
        Err((missing, message)) => Ok(Decoded::Unread { missing, message }),
    };
    Reply::Done { id, result }
}
