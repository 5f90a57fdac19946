//! Performance marks a benchmark (or a person in DevTools) reads: when the files were chosen, the
//! metadata read, the first chart drawn, and the charts of the complete report drawn.

pub const FILES_CHOSEN: &str = "icescope:files-chosen";
pub const METADATA_READ: &str = "icescope:metadata-read";
pub const FIRST_CHART: &str = "icescope:first-chart";
pub const ALL_CHARTS: &str = "icescope:all-charts";
/// Every chart final but for what the current snapshot's files decide (the partitions): where
/// those are thousands of manifests over a network, this comes long before `ALL_CHARTS`.
pub const CHARTS_BEFORE_FILES: &str = "icescope:charts-before-files";

thread_local! {
    // Asked thousands of times per load (a clock per file read): looked up once.
    static PERFORMANCE: Option<web_sys::Performance> = web_sys::window().and_then(|w| w.performance());
}

fn performance() -> Option<web_sys::Performance> {
    PERFORMANCE.with(|p| p.clone())
}

pub fn mark(name: &str) {
    #[cfg(feature = "heap-stats")]
    super::heap_stats::log(name);
    if let Some(p) = performance() {
        let _ = p.mark(name);
    }
}

/// A new table: the marks of the previous one no longer apply.
pub fn restart() {
    #[cfg(feature = "heap-stats")]
    super::heap_stats::log(FILES_CHOSEN);
    if let Some(p) = performance() {
        for name in [FILES_CHOSEN, METADATA_READ, FIRST_CHART, CHARTS_BEFORE_FILES, ALL_CHARTS] {
            p.clear_marks_with_mark_name(name);
        }
        let _ = p.mark(FILES_CHOSEN);
    }
}

pub fn has(name: &str) -> bool {
    performance().is_some_and(|p| p.get_entries_by_name(name).length() > 0)
}

pub fn now_ms() -> f64 {
    PERFORMANCE.with(|p| p.as_ref().map(|p| p.now())).unwrap_or_else(js_sys::Date::now)
}
