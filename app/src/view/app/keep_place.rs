//! A person's place on the page through an update that changes what is above it: a live look can
//! add findings, events and rows over the panel being read, and Chromium's own scroll anchoring
//! picks the first visible node, which a re-rendered list above replaces.

use web_sys::Element;

/// Where the place was: the element and its top on the screen.
pub struct Place {
    anchor: Element,
    top: f64,
}

/// The element a person is at: the one they last focused, if it is on the screen; else the first
/// section or panel at the top of the screen. None at the top of the page (nothing to keep).
pub fn mark() -> Option<Place> {
    let window = web_sys::window()?;
    if window.scroll_y().ok()? <= 0.0 {
        return None;
    }
    let document = window.document()?;
    let height = window.inner_height().ok()?.as_f64()?;
    let on_screen = |e: &Element| {
        let r = e.get_bounding_client_rect();
        r.bottom() > 0.0 && r.top() < height
    };
    let focused = document.active_element().filter(|e| e.tag_name() != "BODY" && on_screen(e));
    let width = window.inner_width().ok()?.as_f64()?;
    let at_top = || document.element_from_point((width / 2.0) as f32, 1.0);
    let anchor = focused.or_else(at_top)?;
    // The panel it is in: rows and their cells are replaced by the update, panels stay.
    let anchor = anchor.closest("details, section").ok().flatten().unwrap_or(anchor);
    Some(Place { top: anchor.get_bounding_client_rect().top(), anchor })
}

/// After the update has been drawn: the page scrolled so that the element is where it was.
pub async fn restore(place: Option<Place>) {
    let Some(place) = place else { return };
    // Leptos draws on the next turn of the event loop.
    super::live::sleep_ms(0).await;
    let Some(window) = web_sys::window() else { return };
    if !place.anchor.is_connected() {
        return;
    }
    let moved = place.anchor.get_bounding_client_rect().top() - place.top;
    if moved != 0.0 {
        window.scroll_by_with_x_and_y(0.0, moved);
    }
}
