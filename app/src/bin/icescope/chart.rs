//! `icescope chart`: one chart of a table as the picture a ticket gets, SVG or PNG, drawn by the
//! same code as the app's Save SVG (`report::draw::picture`); the PNG is that SVG at twice its pixels.

use icescope::report::draw::look::{Look, TICKET, TICKET_WIDTH};
use icescope::report::draw::picture::{self, Analysed};
use icescope::report::draw::Stamp;

use super::args::ChartArgs;
use super::failure::{print, Failure};
use super::open;

pub fn chart(c: &ChartArgs) -> Result<(), Failure> {
    let t = &c.table.table;
    let kind = c.chart;
    let png = match std::path::Path::new(&c.out).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase).as_deref() {
        Some("png") => true,
        Some("svg") => false,
        _ => return Err(Failure::usage(format!("--out {}: the file must end in .png or .svg", c.out))),
    };
    let s = open::open_reading(t, t.all_snapshots, false)?;
    let history = &s.loader.history;
    let table = c.table.table_ref(history);
    let report = icescope::report::findings::inspect(history, &table);
    let analysed = Analysed::of(history, report);
    let stamp = Stamp {
        table: c.name.clone().unwrap_or_else(|| table.table.clone()),
        snapshot: history.metadata.current_snapshot_id.map(|s| s.to_string()).unwrap_or_else(|| "none".into()),
        metadata_file: history.metadata_file.clone(),
        generated_at: icescope::model::time::rfc3339_ms(now_ms()),
    };
    let look = Look { dark: c.dark, ..TICKET };
    let width = c.width.unwrap_or(TICKET_WIDTH);
    let svg = picture::svg(kind, &analysed.inputs(), &stamp, look, width).map_err(Failure::Output)?;
    let bytes = if png { rasterise(&svg)? } else { svg.into_bytes() };
    std::fs::write(&c.out, &bytes).map_err(|e| Failure::Output(format!("{}: {e}", c.out)))?;
    print(&format!("{}\t{} bytes\n", c.out, bytes.len()))
}

/// `SOURCE_DATE_EPOCH` (seconds, the reproducible-builds convention) stands for now when set, so
/// that the docs' pictures, drawn by `tests/docs_pictures.rs`, are the same bytes on every run.
fn now_ms() -> i64 {
    if let Some(s) = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|v| v.trim().parse::<i64>().ok()) {
        return s.saturating_mul(1000);
    }
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as i64).unwrap_or(0)
}

/// The SVG at twice its pixels, with the system's fonts (as the browser's Save PNG does).
pub fn rasterise(svg: &str) -> Result<Vec<u8>, Failure> {
    let mut options = resvg::usvg::Options::default();
    let db = options.fontdb_mut();
    db.load_system_fonts();
    // fontdb's "sans-serif" is Arial, which few Linux machines have: the first of these present.
    let present = |name: &str| db.faces().any(|f| f.families.iter().any(|(n, _)| n == name));
    if let Some(name) = ["Arial", "DejaVu Sans", "Liberation Sans", "Noto Sans", "Helvetica"].into_iter().find(|n| present(n)) {
        db.set_sans_serif_family(name);
    }
    let tree = resvg::usvg::Tree::from_str(svg, &options).map_err(|e| Failure::Output(format!("the chart's SVG could not be read back: {e}")))?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width() * 2, size.height() * 2).ok_or_else(|| Failure::Output("the chart is too large for a PNG".into()))?;
    resvg::render(&tree, resvg::tiny_skia::Transform::from_scale(2.0, 2.0), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| Failure::Output(format!("PNG: {e}")))
}
