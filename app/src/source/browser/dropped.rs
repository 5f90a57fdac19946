//! Files a person hands the page — dropped files and folders, the two pickers — sorted into one
//! set: metadata kept as handles to read, data files as handles for slices, the rest listed.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{File, FileSystemDirectoryEntry, FileSystemEntry, FileSystemFileEntry};

use crate::source::metadata_pick::is_table_metadata;

use super::files::PickedFiles;

pub fn file_list(list: Option<web_sys::FileList>) -> Vec<File> {
    let Some(list) = list else { return Vec::new() };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Keeps the handle of a metadata file; nothing is read until the loader asks for it. Data and
/// delete files are read by slices for a data scan; other files are only listed (the orphan census).
pub fn add_file(set: &mut PickedFiles, mut path: String, file: File) {
    if path.starts_with('/') {
        path = path.trim_start_matches('/').to_string();
    }
    // Spark's metadata tables (`icescope spark-export`) are the table's metadata in such a folder.
    let spark_table = || path.ends_with(".parquet") && path.rsplit('/').nth(1).is_some_and(|dir| crate::source::spark_folders::FOLDERS.contains(&dir));
    let ends_with = |ext: &str| path.len() >= ext.len() && path.as_bytes()[path.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes());
    if is_table_metadata(&path) || spark_table() {
        set.insert(path, file);
    } else if ends_with(".parquet") || ends_with(".puffin") {
        // Kept as handles only: read (by slices) when the user counts duplicates; listed for the
        // orphan census.
        set.insert_data(path, file);
    } else {
        set.insert_other(path, file);
    }
}

/// Walks a dropped folder. The entries API is callback-based; each call is wrapped in a promise.
pub async fn read_entry(entry: &FileSystemEntry, set: &mut PickedFiles) -> Result<(), String> {
    let mut stack = vec![entry.clone()];
    while let Some(e) = stack.pop() {
        if e.is_directory() {
            let dir: FileSystemDirectoryEntry = e.unchecked_into();
            let reader = dir.create_reader();
            // readEntries returns at most ~100 entries per call: call until it returns none.
            loop {
                let batch = JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
                    if let Err(e) = reader.read_entries_with_callback_and_callback(&resolve, &reject) {
                        let _ = reject.call1(&wasm_bindgen::JsValue::NULL, &e);
                    }
                }))
                .await
                .map_err(|err| format!("folder cannot be listed: {}", super::fetch::js_message(&err)))?;
                let batch: js_sys::Array = batch.unchecked_into();
                if batch.length() == 0 {
                    break;
                }
                stack.extend(batch.iter().map(|v| v.unchecked_into::<FileSystemEntry>()));
            }
        } else if e.is_file() {
            let fe: FileSystemFileEntry = e.clone().unchecked_into();
            let file = JsFuture::from(js_sys::Promise::new(&mut |resolve, reject| {
                fe.file_with_callback_and_callback(&resolve, &reject);
            }))
            .await
            .map_err(|err| format!("{}: cannot be opened: {}", e.full_path(), super::fetch::js_message(&err)))?;
            add_file(set, e.full_path(), file.unchecked_into());
        }
    }
    Ok(())
}
