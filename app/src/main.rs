//! The browser entry point (built by Trunk for wasm32); natively there is nothing to run here.

#[cfg(target_arch = "wasm32")]
fn main() {
    icescope::view::app::mount();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("icescope-web is the browser app: serve it with Trunk (see README). For the CLI run `icescope`.");
}
