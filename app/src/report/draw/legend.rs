//! The legend, in a strip of its own between the title and the plot: nothing drawn in the plot can
//! run under it, and it wraps into rows rather than leaving the picture.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::look::{text_width, Look};

#[derive(Debug, Clone, PartialEq)]
pub enum Swatch {
    Line(RGBColor),
    /// A thin line: a series on the right axis.
    Thin(RGBColor),
    /// Two colours, half and half: series drawn as one line because they coincide.
    Pair(RGBColor, RGBColor),
    Block(RGBColor),
    /// A faint vertical mark: a commit that is not an append.
    Mark(RGBColor),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub label: String,
    pub swatch: Swatch,
}

impl Item {
    pub fn new(label: impl Into<String>, swatch: Swatch) -> Item {
        Item { label: label.into(), swatch }
    }
}

const TEXT_PX: f64 = 13.0;
const SWATCH: f64 = 22.0;

/// Each item's row and x, for a strip `width` wide.
fn layout(items: &[Item], width: f64, look: &Look) -> Vec<(usize, f64)> {
    let (mut row, mut x) = (0usize, 0.0f64);
    let left = look.px(12.0);
    items
        .iter()
        .map(|it| {
            let w = look.px(SWATCH + 6.0) + text_width(&it.label, look.px(TEXT_PX)) + look.px(18.0);
            if x > 0.0 && left + x + w > width {
                row += 1;
                x = 0.0;
            }
            let at = (row, left + x);
            x += w;
            at
        })
        .collect()
}

fn row_height(look: &Look) -> f64 {
    look.px(TEXT_PX * 1.6)
}

/// The strip's height for these items at this width (nothing when there are none).
pub fn height(items: &[Item], width: u32, look: &Look) -> u32 {
    let rows = layout(items, f64::from(width), look).last().map_or(0, |(r, _)| r + 1);
    if rows == 0 {
        0
    } else {
        (rows as f64 * row_height(look) + look.px(6.0)).ceil() as u32
    }
}

pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, items: &[Item], look: &Look) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, _) = area.dim_in_pixel();
    let font = look.font(TEXT_PX, look.ink()).pos(Pos::new(HPos::Left, VPos::Center));
    let sw = look.px(SWATCH);
    for (it, (row, x)) in items.iter().zip(layout(items, f64::from(w), look)) {
        let y = (row as f64 * row_height(look) + row_height(look) / 2.0).round() as i32;
        let (x0, x1) = (x.round() as i32, (x + sw).round() as i32);
        let half = look.len(5.0) as i32;
        match it.swatch {
            Swatch::Line(c) => area.draw(&PathElement::new(vec![(x0, y), (x1, y)], c.stroke_width(3)))?,
            Swatch::Thin(c) => area.draw(&PathElement::new(vec![(x0, y), (x1, y)], c.stroke_width(1)))?,
            Swatch::Pair(a, b) => {
                area.draw(&PathElement::new(vec![(x0, y), ((x0 + x1) / 2, y)], a.stroke_width(3)))?;
                area.draw(&PathElement::new(vec![((x0 + x1) / 2, y), (x1, y)], b.stroke_width(3)))?;
            }
            Swatch::Block(c) => area.draw(&Rectangle::new([(x0, y - half), (x1, y + half)], c.filled()))?,
            Swatch::Mark(c) => area.draw(&PathElement::new(vec![((x0 + x1) / 2, y - half - 2), ((x0 + x1) / 2, y + half + 2)], c.stroke_width(1)))?,
        }
        area.draw(&Text::new(it.label.clone(), ((x + sw + look.px(6.0)).round() as i32, y), font.clone()))?;
    }
    Ok(())
}
