//! "Choose folder…" where the browser offers `showDirectoryPicker`: the table folder comes as a
//! handle, only `metadata/` is listed, and the first chart does not wait for the browser to
//! enumerate `data/` (15,101 files of a 3,000-commit table took 6.5 s through the input).

use super::tasks::spawn;
use leptos::prelude::{GetUntracked, GetValue, Set, WithUntracked};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::files::{PickedFiles, TableFiles};
use super::handle::{self, HandleFiles};
use super::loader::open_table;
use super::{marks, AppState};

/// A folder that is not a table's is listed whole, up to this many files (a warehouse is not
/// a table folder: pick the table's).
const WHOLE_FOLDER_FILES: usize = 200_000;
/// Beside metadata/ and data/, savepoint folders kept with the table are looked for in at most
/// this many files.
const BESIDE_FILES: usize = 20_000;

/// Opens the picked table: by `version-hint.text` where it has one (`hinted`), `metadata/`
/// then listed once the table is read; else `metadata/` is listed and picked first.
async fn open_table_folder(state: AppState, files: HandleFiles, hinted: Option<String>) {
    if hinted.is_none() {
        if let Err(e) = files.list().await {
            return state.error(e.to_string());
        }
        if files.is_empty() {
            return state.error("the folder's metadata/ holds no files".into());
        }
    }
    // Savepoints kept in the table's folder (beside metadata/ and data/) go to Before you resume.
    let mut beside = PickedFiles::default();
    for (path, file) in files.files_beside(BESIDE_FILES).await.unwrap_or_default() {
        beside.insert_other(path, file);
    }
    state.errors.set(Vec::new());
    state.vended.set(None);
    let name = match &hinted {
        Some(m) => super::drop::table_name_of(m),
        None => crate::source::Fetch::listing(&files)
            .and_then(crate::source::metadata_pick::candidates)
            .and_then(|(_, found)| found.first().map(|m| super::drop::table_name_of(m)))
            .unwrap_or_else(|| "picked folder".into()),
    };
    // Spawned now, these run once the table's opening below has taken its generation.
    super::resume_panel::with_the_table(state, &beside);
    if let Some(h) = &hinted {
        spawn(list_when_read(state, files.root(), h.clone()));
    }
    open_table(state, name, TableFiles::Handle(files), hinted).await;
}

/// Lists `metadata/` of a table opened by its hint once it is read (Chromium answers no read of
/// the folder while it lists it: a day's 34,662 names on disk took 3.4 s, and its reads waited),
/// for the picker's versions; where the newest by content is another file than the hint led to,
/// that one is opened, as for any folder. Where the hinted file did not open, the folder is
/// opened as one without a hint: listed, the newest file by content that reads.
async fn list_when_read(state: AppState, root: web_sys::FileSystemDirectoryHandle, hinted: String) {
    let generation = state.generation.get_untracked();
    // Until charted (or the open failed), then until the load ends.
    let loading = || state.progress.with_untracked(|p| p.loading);
    for until_read in [false, true] {
        while loading() && (until_read || !state.charted.get_untracked()) {
            super::live::sleep_ms(100).await;
            if state.generation.get_untracked() != generation {
                return;
            }
        }
    }
    let Some(current) = state.session.get_value().filter(|c| c.generation == generation) else {
        if let Ok(Some(files)) = HandleFiles::open(root).await {
            Box::pin(open_table_folder(state, files, None)).await;
        }
        return;
    };
    let TableFiles::Handle(h) = &*current.files else { return };
    if let Err(e) = h.list().await {
        return state.error(format!("the folder's metadata/ could not be listed: {e}"));
    }
    let Some(pick) = crate::source::metadata_pick::pick(h).await else { return };
    if state.generation.get_untracked() != generation {
        return;
    }
    if pick.path == hinted {
        super::loader::set_pick(state, pick).await;
    } else {
        super::loader::reopen_picked(state, pick);
    }
}

/// `window.showDirectoryPicker`, where the browser has it (Chromium-based ones; not Firefox or
/// Safari, which keep the folder input). Not in web-sys's stable bindings.
fn picker() -> Option<(web_sys::Window, js_sys::Function)> {
    let w = web_sys::window()?;
    let f = js_sys::Reflect::get(&w, &JsValue::from_str("showDirectoryPicker")).ok()?;
    f.dyn_into::<js_sys::Function>().ok().map(|f| (w, f))
}

/// Takes over the folder button's click where a handle can be had; the input stays the fallback.
pub fn on_click(state: AppState, ev: &web_sys::MouseEvent) {
    let Some((window, show)) = picker() else { return };
    ev.prevent_default();
    marks::restart();
    spawn(async move {
        let options = js_sys::Object::new();
        // The browser remembers where this id's last pick was; read access is all icescope asks.
        let _ = js_sys::Reflect::set(&options, &"id".into(), &"icescope-table".into());
        let _ = js_sys::Reflect::set(&options, &"mode".into(), &"read".into());
        let picked = match show.call1(&window, &options) {
            Ok(p) => JsFuture::from(js_sys::Promise::from(p)).await,
            Err(e) => Err(e),
        };
        let root = match picked {
            Ok(h) => h.unchecked_into::<web_sys::FileSystemDirectoryHandle>(),
            // Closing the dialog is a choice, not an error.
            Err(e) if js_sys::Reflect::get(&e, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError") => return,
            Err(e) => return state.error(format!("the folder could not be opened: {}", super::fetch::js_message(&e))),
        };
        open_root(state, root).await;
    });
}

/// The handle a dropped item can be had as (`DataTransferItem.getAsFileSystemHandle`, Chromium's):
/// asked for while the drop event is dispatched, as the browser requires. Not in web-sys's
/// stable bindings.
pub fn dropped_handle(item: &web_sys::DataTransferItem) -> Option<js_sys::Promise> {
    let f = js_sys::Reflect::get(item, &JsValue::from_str("getAsFileSystemHandle")).ok()?.dyn_into::<js_sys::Function>().ok()?;
    f.call0(item).ok()?.dyn_into::<js_sys::Promise>().ok()
}

/// The folder a dropped item's handle (`dropped_handle`) names; None for a file, where it fails,
/// or where it is not had within `DROPPED_HANDLE_MS`: for a folder Chromium deems sensitive (one
/// under `~/.cache`, say) the handle waits on a dialog, which a headless Chromium never answers;
/// the drop is then read as its entries, as before handles.
pub async fn dropped_folder(handle: js_sys::Promise) -> Option<web_sys::FileSystemDirectoryHandle> {
    let got = match futures::future::select(JsFuture::from(handle), Box::pin(super::live::sleep_ms(DROPPED_HANDLE_MS))).await {
        futures::future::Either::Left((got, _)) => got.ok()?,
        futures::future::Either::Right(_) => return None,
    };
    let h = got.dyn_into::<web_sys::FileSystemHandle>().ok()?;
    (h.kind() == web_sys::FileSystemHandleKind::Directory).then(|| h.unchecked_into())
}

/// A dropped folder's handle comes within milliseconds, or not at all (`dropped_folder`).
const DROPPED_HANDLE_MS: u64 = 2_000;

/// Opens a folder had as a handle (picked, or dropped where the browser hands one over): a table's
/// folder by its `metadata/` only; any other folder listed whole, as the folder input does.
pub async fn open_root(state: AppState, root: web_sys::FileSystemDirectoryHandle) {
    marks::mark("icescope:phase:picked");
    let opened = HandleFiles::open_unlisted(root.clone()).await;
    match opened {
        Ok(Some(files)) => {
            let hinted = files.hinted_current().await;
            marks::mark("icescope:phase:found");
            open_table_folder(state, files, hinted).await;
        }
        // Not a table's folder (one above it, holding the table and its savepoints, say): every
        // file is listed, as the folder input does, and the table found among them.
        Ok(None) => match handle::files_under(&root, &root.name(), &[], WHOLE_FOLDER_FILES).await {
            Ok(files) => {
                let mut set = PickedFiles::default();
                for (path, file) in files {
                    crate::source::browser::dropped::add_file(&mut set, path, file);
                }
                super::drop::open_set(state, set).await;
            }
            Err(e) => state.error(e.to_string()),
        },
        Err(e) => state.error(e),
    }
}
