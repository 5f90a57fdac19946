//! Reading a `File` the browser holds (picked, dropped, or taken from a folder handle): whole
//! within the bound every source keeps, as a reader, or only the bytes asked for (`File.slice`).

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;
use web_sys::File;

use crate::source::range::{ByteRange, RangeRead};
use crate::source::SourceError;

use super::fetch::js_message;

pub(super) fn io(path: &str) -> impl Fn(JsValue) -> SourceError + '_ {
    move |e| SourceError::Io { path: path.to_string(), message: format!("cannot be read: {}", js_message(&e)) }
}

/// A file read whole must fit the bound a file on disk or a response has.
fn within_bound(path: &str, file: &File) -> Result<(), SourceError> {
    let size = file.size() as u64;
    if size > crate::source::files::MAX_WHOLE_FILE {
        return Err(crate::source::files::file_too_large(path, size));
    }
    Ok(())
}

async fn buffer(path: &str, file: &File) -> Result<js_sys::Uint8Array, SourceError> {
    within_bound(path, file)?;
    let buffer = JsFuture::from(file.array_buffer()).await.map_err(io(path))?;
    Ok(js_sys::Uint8Array::new(&buffer))
}

pub async fn whole(path: &str, file: &File) -> Result<Vec<u8>, SourceError> {
    Ok(buffer(path, file).await?.to_vec())
}

/// The bytes stay in the browser's buffer and are copied into the wasm heap as they are read.
pub async fn reader(path: &str, file: &File) -> Result<(u64, Box<dyn std::io::Read>), SourceError> {
    let array = buffer(path, file).await?;
    Ok((array.length() as u64, Box::new(JsBytes { array, at: 0 })))
}

pub async fn head(path: &str, file: &File, n: usize) -> Result<Vec<u8>, SourceError> {
    let part = file.slice_with_f64_and_f64(0.0, n as f64).map_err(io(path))?;
    let buffer = JsFuture::from(part.array_buffer()).await.map_err(io(path))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// Only the bytes asked for leave the disk.
pub async fn range(path: &str, file: &File, range: ByteRange) -> Result<RangeRead, SourceError> {
    let size = file.size() as u64;
    let (start, end) = match range {
        ByteRange::At { offset, len } => (offset.min(size), offset.saturating_add(len).min(size)),
        ByteRange::Tail { len } => (size.saturating_sub(len), size),
    };
    let part = file.slice_with_f64_and_f64(start as f64, end as f64).map_err(io(path))?;
    let buffer = JsFuture::from(part.array_buffer()).await.map_err(io(path))?;
    let bytes = js_sys::Uint8Array::new(&buffer).to_vec();
    Ok(RangeRead { transferred: bytes.len() as u64, bytes, object_size: Some(size) })
}

/// A file's bytes where the browser holds them, read into the wasm heap a buffer at a time.
struct JsBytes {
    array: js_sys::Uint8Array,
    at: u32,
}

impl std::io::Read for JsBytes {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.array.length().saturating_sub(self.at).min(u32::try_from(buf.len()).unwrap_or(u32::MAX));
        self.array.subarray(self.at, self.at + n).copy_to(&mut buf[..n as usize]);
        self.at += n;
        Ok(n as usize)
    }
}
