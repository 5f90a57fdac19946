//! Diagnostic build only (`--features heap-stats`): counts the wasm heap's live and peak bytes so
//! the benchmark can say which phase of a load holds the memory. The linear memory never shrinks,
//! so its size alone cannot tell a peak from what stays.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            LIVE.fetch_sub(layout.size(), Relaxed);
            let live = LIVE.fetch_add(new_size, Relaxed) + new_size;
            PEAK.fetch_max(live, Relaxed);
        }
        p
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Logs the live and peak heap at a mark, and starts a new peak.
pub fn log(at: &str) {
    let mib = |b: usize| b as f64 / 1048576.0;
    let (live, peak) = (LIVE.load(Relaxed), PEAK.swap(LIVE.load(Relaxed), Relaxed));
    // The linear memory: where the heap's top has been (it never shrinks).
    let memory = core::arch::wasm32::memory_size(0) * 65536;
    web_sys::console::log_1(
        &format!("heap at {at}: live {:.1} MiB, peak since last mark {:.1} MiB, linear memory {:.1} MiB", mib(live), mib(peak), mib(memory)).into(),
    );
}
