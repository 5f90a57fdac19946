//! Arrow-key movement through a list of items (findings, snapshot rows): one item is in the Tab
//! order, the arrows, Home and End move focus between them, as the WAI-ARIA grid and feed patterns do.

use wasm_bindgen::JsCast;

/// Handles a keydown on the container of the items `selector` names.
pub fn roving(ev: &web_sys::KeyboardEvent, selector: &str) {
    let Some(container) = ev.current_target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) else { return };
    let Ok(list) = container.query_selector_all(selector) else { return };
    let items: Vec<web_sys::HtmlElement> = (0..list.length()).filter_map(|i| list.get(i)).filter_map(|n| n.dyn_into().ok()).collect();
    if items.is_empty() {
        return;
    }
    let active = web_sys::window().and_then(|w| w.document()).and_then(|d| d.active_element());
    let Some(at) = items.iter().position(|e| active.as_ref().is_some_and(|a| a == e.as_ref() as &web_sys::Element)) else { return };
    let next = match ev.key().as_str() {
        "ArrowDown" => (at + 1).min(items.len() - 1),
        "ArrowUp" => at.saturating_sub(1),
        "Home" => 0,
        "End" => items.len() - 1,
        _ => return,
    };
    ev.prevent_default();
    items[at].set_tab_index(-1);
    items[next].set_tab_index(0);
    let _ = items[next].focus();
}
