//! Charts drawn with plotters over any backend: a canvas in the browser, SVG in native tests.

pub mod deletes;
pub mod growth;
pub mod palette;
pub mod partitions;
pub mod projection;
pub mod timeline;

use plotters::coord::Shift;
use plotters::prelude::*;

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

/// White background and the stamp along the bottom; returns the area left for the chart.
pub(crate) fn frame<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, stamp: &Stamp) -> Result<DrawingArea<DB, Shift>, DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let (_, height) = root.dim_in_pixel();
    let (main, footer) = root.split_vertically(height.saturating_sub(26));
    footer.draw(&Text::new(stamp.line(), (12, 6), ("sans-serif", 14).into_font().color(&palette::FAINT)))?;
    Ok(main)
}

/// What every chart function returns: how many marks it drew, or why it could not.
pub type Drawn = Result<usize, String>;

pub(crate) fn drawn<E: std::fmt::Debug>(r: Result<usize, E>) -> Drawn {
    r.map_err(|e| format!("chart could not be drawn: {e:?}"))
}

/// The legend every chart uses: top left, on a translucent white box.
pub(crate) fn draw_legend<'a, 'b, DB: DrawingBackend + 'a, CT: plotters::coord::CoordTranslate>(
    mut labels: plotters::chart::SeriesLabelStyle<'a, 'b, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    labels
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(("sans-serif", 13).into_font().color(&palette::INK))
        .background_style(WHITE.mix(0.88))
        .border_style(RGBColor(200, 204, 210))
        .draw()
}
