//! Savepoint folders picked or dropped (alone, or with the table): each `_metadata` and the files
//! beside it, kept as `File` handles, read by exact path and only when the reader asks.

use std::collections::HashMap;

use crate::source::savepoint_paths::{folder_of, metadata_among};
use crate::source::{Fetch, SourceError};

#[derive(Default)]
pub struct SavepointFiles {
    files: HashMap<String, web_sys::File>,
    /// The savepoints' `_metadata` paths, sorted.
    pub metadata: Vec<String>,
}

impl SavepointFiles {
    /// The savepoints among `files` (path, handle), with the files beside each; None when there
    /// is none, or the reason when there are too many.
    pub fn among(files: &[(String, web_sys::File)]) -> Result<Option<Self>, String> {
        let metadata = metadata_among(files.iter().map(|(p, _)| p.as_str()))?;
        if metadata.is_empty() {
            return Ok(None);
        }
        let folders: std::collections::HashSet<&str> = metadata.iter().map(|m| folder_of(m)).collect();
        let files = files.iter().filter(|(p, _)| folders.contains(folder_of(p))).map(|(p, f)| (p.clone(), f.clone())).collect();
        Ok(Some(SavepointFiles { files, metadata }))
    }

    fn file(&self, path: &str) -> Result<&web_sys::File, SourceError> {
        self.files.get(path).ok_or_else(|| SourceError::NotFound { reference: path.to_string() })
    }
}

/// A picked file's path in its folder (`webkitRelativePath`: not in web-sys's bindings), or its name.
pub fn relative_path(f: &web_sys::File) -> String {
    let rel = js_sys::Reflect::get(f, &wasm_bindgen::JsValue::from_str("webkitRelativePath")).ok().and_then(|v| v.as_string()).unwrap_or_default();
    if rel.is_empty() {
        f.name()
    } else {
        rel
    }
}

impl Fetch for SavepointFiles {
    async fn fetch(&self, reference: &str) -> Result<Vec<u8>, SourceError> {
        super::picked_read::whole(reference, self.file(reference)?).await
    }

    /// `File.slice`: no more than asked for leaves the disk.
    async fn fetch_head(&self, reference: &str, n: usize) -> Result<Vec<u8>, SourceError> {
        super::picked_read::head(reference, self.file(reference)?, n).await
    }

    fn size_hint(&self, reference: &str) -> Option<u64> {
        self.files.get(reference).map(|f| f.size() as u64)
    }
}
