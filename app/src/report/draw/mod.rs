//! Charts drawn with plotters over any backend: a canvas in the browser, SVG for downloads and the
//! CLI (`picture` picks one and sizes it), each through `backend::Measured`.

pub mod backend;
pub mod coincide;
pub mod deletes;
pub mod growth;
pub mod lanes;
pub mod legend;
pub mod look;
pub mod palette;
pub mod partitions;
pub mod picture;
pub mod projection;
pub mod thin;
pub mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;

use legend::Item;
pub use look::Look;
use look::{wrap, BOLD};

/// What identifies a chart once it is pasted into a ticket: which table, which snapshot of which
/// metadata file, when, and by which icescope.
#[derive(Debug, Clone, PartialEq)]
pub struct Stamp {
    pub table: String,
    pub snapshot: String,
    /// The metadata file's name (its folder left out: the line must fit under the chart).
    pub metadata_file: String,
    pub generated_at: String,
}

impl Stamp {
    /// The stamp in two parts, which table and when, for a picture too narrow for one line.
    pub fn parts(&self) -> (String, String) {
        let line = self.line();
        match line.split_once(" · drawn ") {
            Some((what, when)) => (what.to_string(), format!("drawn {when}")),
            None => (line, String::new()),
        }
    }

    pub fn line(&self) -> String {
        let file = self.metadata_file.rsplit('/').next().unwrap_or_default();
        let file: String = if file.chars().count() > 72 { file.chars().take(71).chain(std::iter::once('…')).collect() } else { file.to_string() };
        format!(
            "{} · snapshot {} · {} · drawn {} · icescope {}",
            self.table,
            self.snapshot,
            if file.is_empty() { "metadata file unknown" } else { &file },
            self.generated_at,
            env!("CARGO_PKG_VERSION")
        )
    }
}

/// How one drawing is dressed: its stamp, its look, and the finding it shows as its title.
#[derive(Debug, Clone)]
pub struct Dress<'a> {
    pub stamp: &'a Stamp,
    pub look: Look,
    /// The finding's title, when the chart shows one: a ticket's picture says what it shows.
    pub title: Option<String>,
}

const TITLE_PX: f64 = 17.0;
const CAPTION_PX: f64 = 13.0;
const STAMP_PX: f64 = 12.0;

/// (title lines, caption lines, stamp lines) for a picture this wide.
fn chrome_lines(width: u32, dress: &Dress<'_>, caption: &str) -> (Vec<String>, Vec<String>, Vec<String>) {
    let look = &dress.look;
    let w = f64::from(width) - look.px(24.0);
    let (title, caption) = match &dress.title {
        Some(t) => (wrap(t, look.px(TITLE_PX) * BOLD, w, 3), wrap(caption, look.px(CAPTION_PX), w, 2)),
        None => (wrap(caption, look.px(TITLE_PX) * BOLD, w, 2), Vec::new()),
    };
    let line = dress.stamp.line();
    let stamp = if look::text_width(&line, look.px(STAMP_PX)) <= w {
        vec![line]
    } else {
        let (what, when) = dress.stamp.parts();
        wrap(&what, look.px(STAMP_PX), w, 2).into_iter().chain(wrap(&when, look.px(STAMP_PX), w, 1)).collect()
    };
    (title, caption, stamp)
}

/// The height the title, caption, legend and stamp take at this width: a chart's height is this
/// plus its plot's.
pub fn chrome_height(width: u32, dress: &Dress<'_>, caption: &str, legend_items: &[Item]) -> u32 {
    let look = &dress.look;
    let (t, c, s) = chrome_lines(width, dress, caption);
    let text = t.len() as f64 * look.px(TITLE_PX * 1.3) + c.len() as f64 * look.px(CAPTION_PX * 1.35) + s.len() as f64 * look.px(STAMP_PX * 1.35);
    (text + look.px(22.0)).ceil() as u32 + legend::height(legend_items, width, look)
}

/// The ground, the title (the finding's, else the caption), the caption, the legend and the stamp
/// along the bottom; returns the area left for the plot.
pub(crate) fn frame<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    dress: &Dress<'_>,
    caption: &str,
    legend_items: &[Item],
) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    root.fill(&look.background())?;
    let (width, height) = root.dim_in_pixel();
    let (t, c, s) = chrome_lines(width, dress, caption);
    let left = look.px(12.0).round() as i32;
    let mut y = look.px(8.0);
    let title = look.bold(TITLE_PX, look.ink());
    for line in t {
        root.draw(&Text::new(line, (left, y.round() as i32), title.clone()))?;
        y += look.px(TITLE_PX * 1.3);
    }
    for line in c {
        root.draw(&Text::new(line, (left, y.round() as i32), look.font(CAPTION_PX, look.faint())))?;
        y += look.px(CAPTION_PX * 1.35);
    }
    y += look.px(4.0);
    let stamp_h = (s.len() as f64 * look.px(STAMP_PX * 1.35) + look.px(10.0)).ceil() as u32;
    let (above, footer) = root.split_vertically(height.saturating_sub(stamp_h));
    for (i, line) in s.into_iter().enumerate() {
        let at = (left, (look.px(4.0) + i as f64 * look.px(STAMP_PX * 1.35)).round() as i32);
        footer.draw(&Text::new(line, at, look.font(STAMP_PX, look.faint())))?;
    }
    let (_, rest) = above.split_vertically(y.ceil() as u32);
    let legend_h = legend::height(legend_items, width, look);
    let (strip, main) = rest.split_vertically(legend_h);
    legend::draw(&strip, legend_items, look)?;
    Ok(main)
}

/// Axis labels for a value: whole numbers only (plotters asks for fractions between them).
pub(crate) fn whole(x: f64) -> Option<i64> {
    ((x - x.round()).abs() < 1e-9).then_some(x.round() as i64)
}

/// What every chart function returns: how many marks it drew, or why it could not.
pub type Drawn = Result<usize, String>;

pub(crate) fn drawn<E: std::fmt::Debug>(r: Result<usize, E>) -> Drawn {
    r.map_err(|e| format!("chart could not be drawn: {e:?}"))
}
