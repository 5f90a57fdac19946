//! The app's own asynchronous work, counted. The page's root element says how many tasks are
//! still running (`data-tasks`), so that a test, or a person's script, can wait until everything a
//! click or a drop started has ended — after which no late error can come — instead of waiting a
//! fixed time and hoping. The Live switch's follow loop runs for as long as the switch is on and
//! is not counted (`live.rs` spawns it itself).

use std::cell::Cell;
use std::future::Future;

thread_local! {
    static RUNNING: Cell<u32> = const { Cell::new(0) };
}

/// Runs `work` on the page's event loop, counted while it runs.
pub fn spawn(work: impl Future<Output = ()> + 'static) {
    count(1);
    leptos::task::spawn_local(async move {
        work.await;
        count(-1);
    });
}

fn count(by: i32) {
    let n = RUNNING.with(|r| {
        let n = r.get().saturating_add_signed(by);
        r.set(n);
        n
    });
    if let Some(root) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.document_element()) {
        let _ = root.set_attribute("data-tasks", &n.to_string());
    }
}
