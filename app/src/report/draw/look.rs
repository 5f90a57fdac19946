//! How a chart is dressed for where it is shown: light or dark ground, and how large its text is
//! (the page's own size, a projector's, a ticket's), with one measure of text for every backend.

use plotters::style::{FontDesc, IntoFont, RGBColor, TextStyle};

use super::palette;

/// Light for tickets and paper, dark for a dark page; `text` scales every font (projector mode).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    pub dark: bool,
    pub text: f64,
}

/// The picture a ticket gets: light, and its smallest text 12 px when shown 800 px wide.
pub const TICKET: Look = Look { dark: false, text: 1.0 };

/// Width of the ticket picture, in CSS pixels; the PNG holds twice as many.
pub const TICKET_WIDTH: u32 = 800;

/// The smallest text any chart draws, in CSS pixels at `text` = 1.
pub const MIN_TEXT_PX: f64 = 12.0;

/// plotters' SVG backend writes `font-size` as the style's size / 1.24 (the canvas backend does
/// not divide): sizes here are in CSS pixels and both backends draw them at that size
/// (`backend::Measured` divides for the canvas too).
const SVG_DIVISOR: f64 = 1.24;

impl Look {
    pub fn page(dark: bool, projector: bool) -> Look {
        Look { dark, text: if projector { 1.35 } else { 1.0 } }
    }

    /// A font of `px` CSS pixels, times this look's scale.
    pub fn font(&self, px: f64, colour: RGBColor) -> TextStyle<'static> {
        let size = self.px(px.max(MIN_TEXT_PX)) * SVG_DIVISOR * (1.0 + 1e-7);
        FontDesc::from(("sans-serif", size)).into_font().color(&colour)
    }

    /// The same, bold: a picture's title.
    pub fn bold(&self, px: f64, colour: RGBColor) -> TextStyle<'static> {
        let size = self.px(px.max(MIN_TEXT_PX)) * SVG_DIVISOR * (1.0 + 1e-7);
        FontDesc::from(("sans-serif", size, plotters::style::FontStyle::Bold)).into_font().color(&colour)
    }

    /// A length that grows with the text (label areas, lane heights).
    pub fn px(&self, px: f64) -> f64 {
        px * self.text
    }

    pub fn len(&self, px: f64) -> u32 {
        self.px(px).round().max(0.0) as u32
    }

    pub fn background(&self) -> RGBColor {
        if self.dark {
            RGBColor(30, 34, 39)
        } else {
            RGBColor(255, 255, 255)
        }
    }

    pub fn ink(&self) -> RGBColor {
        if self.dark {
            RGBColor(230, 232, 235)
        } else {
            palette::INK
        }
    }

    pub fn faint(&self) -> RGBColor {
        if self.dark {
            RGBColor(160, 168, 178)
        } else {
            palette::FAINT
        }
    }

    pub fn grid(&self) -> RGBColor {
        if self.dark {
            RGBColor(48, 53, 60)
        } else {
            RGBColor(238, 240, 243)
        }
    }

    pub fn bold_grid(&self) -> RGBColor {
        if self.dark {
            RGBColor(66, 72, 80)
        } else {
            RGBColor(220, 223, 228)
        }
    }

    /// A series colour that keeps its contrast on this ground: lifted towards white when dark.
    pub fn series(&self, c: RGBColor) -> RGBColor {
        if self.dark {
            let lift = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * 0.3).round() as u8;
            RGBColor(lift(c.0), lift(c.1), lift(c.2))
        } else {
            c
        }
    }

    /// A job's lane colour: the palette's tint on white, its strong form on a dark ground.
    pub fn job(&self, i: usize) -> RGBColor {
        let strong = palette::job_strong(i);
        if self.dark {
            self.series(strong)
        } else {
            strong
        }
    }
}

/// Width of `text` at `px` CSS pixels, the same on every backend and platform: layout decided
/// from it (wrapping, thinning labels) is the same in the browser and the CLI. DejaVu Sans's
/// advances, the widest of the usual sans-serif faces, so that what is judged to fit does.
pub fn text_width(text: &str, px: f64) -> f64 {
    text.chars().map(advance).sum::<f64>() * px
}

/// Bold text is about an eighth wider.
pub const BOLD: f64 = 1.13;

fn advance(c: char) -> f64 {
    match c {
        'i' | 'j' | 'l' => 0.28,
        ' ' | '.' | ',' | ':' | ';' | '·' | '\'' | '!' | '|' => 0.32,
        'f' | 't' | '/' | '-' | '(' | ')' | '[' | ']' | 'I' => 0.40,
        'r' => 0.42,
        'c' | 's' | 'z' => 0.55,
        'k' | 'v' | 'x' | 'y' | '_' | '–' => 0.60,
        'm' => 0.98,
        'w' => 0.82,
        'M' | 'W' | '—' | '…' | '@' | '%' => 1.0,
        '#' | '=' | '+' | '×' | '<' | '>' => 0.84,
        c if c.is_ascii_uppercase() => 0.74,
        c if c.is_ascii_digit() => 0.64,
        c if c.is_ascii() => 0.64,
        // CJK and the like take a full em.
        c if (c as u32) >= 0x2E80 => 1.0,
        _ => 0.66,
    }
}

/// `text` broken at spaces into lines no wider than `width` at `px` (a word longer than a line is
/// cut with an ellipsis); at most `max_lines`, the last one ending in an ellipsis when cut short.
pub fn wrap(text: &str, px: f64, width: f64, max_lines: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        let candidate = if line.is_empty() { word.to_string() } else { format!("{line} {word}") };
        if text_width(&candidate, px) <= width || line.is_empty() {
            line = candidate;
        } else {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        }
    }
    if !line.is_empty() {
        lines.push(line);
    }
    let cut = lines.len() > max_lines;
    lines.truncate(max_lines.max(1));
    for (i, l) in lines.iter_mut().enumerate() {
        let last = i + 1 == max_lines.max(1);
        if text_width(l, px) > width || (last && cut) {
            *l = fit(l, px, width);
        }
    }
    lines
}

/// `text` cut to `width` with an ellipsis.
pub fn fit(text: &str, px: f64, width: f64) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if text_width(&format!("{out}{c}…"), px) > width {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}
