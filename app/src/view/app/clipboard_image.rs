//! A PNG onto the clipboard, for pasting a chart straight into a ticket. web-sys gates
//! `ClipboardItem` behind its unstable APIs, so the two calls go through `Reflect`.

use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::fetch::js_message;

/// Copies the PNG behind a data URL.
pub async fn copy_png(data_url: &str) -> Result<(), String> {
    let window = web_sys::window().ok_or("no window")?;
    // Decoded here, not fetched: the page's CSP allows no data: fetches.
    let b64 = data_url.split_once("base64,").map(|(_, b)| b).ok_or("not a PNG data URL")?;
    let binary = window.atob(b64).map_err(|e| js_message(&e))?;
    let bytes: Vec<u8> = binary.chars().map(|c| c as u32 as u8).collect();
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("image/png");
    let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice())), &options)
        .map_err(|e| js_message(&e))?;
    let global = js_sys::global();
    let item_class: js_sys::Function = js_sys::Reflect::get(&global, &"ClipboardItem".into())
        .ok()
        .and_then(|c| c.dyn_into().ok())
        .ok_or("this browser cannot put pictures on the clipboard")?;
    let parts = js_sys::Object::new();
    js_sys::Reflect::set(&parts, &"image/png".into(), &blob).map_err(|e| js_message(&e))?;
    let item = js_sys::Reflect::construct(&item_class, &js_sys::Array::of1(&parts)).map_err(|e| js_message(&e))?;
    let clipboard: JsValue = window.navigator().clipboard().into();
    let write: js_sys::Function = js_sys::Reflect::get(&clipboard, &"write".into()).ok().and_then(|f| f.dyn_into().ok()).ok_or("no clipboard")?;
    let promise: js_sys::Promise = write.call1(&clipboard, &js_sys::Array::of1(&item)).map_err(|e| js_message(&e))?.dyn_into().map_err(|e| js_message(&e))?;
    JsFuture::from(promise).await.map(|_| ()).map_err(|e| js_message(&e))
}
