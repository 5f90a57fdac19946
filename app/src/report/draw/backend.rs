//! Every chart draws through `Measured`: one measure of text on every backend (so the browser's
//! canvas, its SVG download and the CLI lay a chart out alike), text drawn at the CSS size the
//! chart asked for, and a logical size apart from the device's pixels (a canvas drawn at the
//! device pixel ratio under a scaling transform).

use plotters::prelude::DrawingBackend;
use plotters_backend::{BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind, FontFamily, FontStyle, FontTransform};

use super::look::text_width;

pub struct Measured<DB> {
    inner: DB,
    size: (u32, u32),
    /// What a style's size is multiplied by before the inner backend sees it: 1 for SVG (which
    /// divides by 1.24 itself), 1/1.24 for the canvas (which does not).
    text_factor: f64,
}

impl<DB: DrawingBackend> Measured<DB> {
    /// An SVG backend, drawn at its own size.
    pub fn svg(inner: DB) -> Self {
        let size = inner.get_size();
        Measured { inner, size, text_factor: 1.0 }
    }

    /// A canvas whose context is already scaled by the device pixel ratio: `size` is in CSS pixels.
    pub fn canvas(inner: DB, size: (u32, u32)) -> Self {
        Measured { inner, size, text_factor: 1.0 / 1.24 }
    }
}

struct Scaled<'a, S> {
    inner: &'a S,
    factor: f64,
}

impl<S: BackendTextStyle> BackendTextStyle for Scaled<'_, S> {
    type FontError = S::FontError;

    fn color(&self) -> BackendColor {
        self.inner.color()
    }

    fn size(&self) -> f64 {
        self.inner.size() * self.factor
    }

    fn transform(&self) -> FontTransform {
        self.inner.transform()
    }

    fn style(&self) -> FontStyle {
        self.inner.style()
    }

    fn anchor(&self) -> plotters_backend::text_anchor::Pos {
        self.inner.anchor()
    }

    fn family(&self) -> FontFamily<'_> {
        self.inner.family()
    }

    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), Self::FontError> {
        self.inner.layout_box(text)
    }

    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(&self, text: &str, pos: BackendCoord, draw: F) -> Result<Result<(), E>, Self::FontError> {
        self.inner.draw(text, pos, draw)
    }
}

impl<DB: DrawingBackend> DrawingBackend for Measured<DB> {
    type ErrorType = DB::ErrorType;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.ensure_prepared()
    }

    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.present()
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_pixel(point, color)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_line(from, to, style)
    }

    fn draw_rect<S: BackendStyle>(&mut self, a: BackendCoord, b: BackendCoord, style: &S, fill: bool) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_rect(a, b, style, fill)
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, path: I, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_path(path, style)
    }

    fn draw_circle<S: BackendStyle>(&mut self, c: BackendCoord, r: u32, style: &S, fill: bool) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_circle(c, r, style, fill)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(&mut self, vert: I, style: &S) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.fill_polygon(vert, style)
    }

    fn draw_text<S: BackendTextStyle>(&mut self, text: &str, style: &S, pos: BackendCoord) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.draw_text(text, &Scaled { inner: style, factor: self.text_factor }, pos)
    }

    /// The chart's own measure, in CSS pixels (the style's size is the SVG convention's, 1.24×).
    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
        let px = style.size() / 1.24;
        Ok((text_width(text, px).ceil() as u32, (px * 1.2).ceil() as u32))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.inner.blit_bitmap(pos, size, src)
    }
}
