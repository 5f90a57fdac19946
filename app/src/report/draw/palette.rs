//! Colours that stay distinguishable when a chart is pasted into a ticket and printed in grey.

use plotters::style::RGBColor;

pub const MANIFESTS: RGBColor = RGBColor(31, 119, 180);
pub const DATA_FILES: RGBColor = RGBColor(44, 160, 44);
pub const POSITION_DELETES: RGBColor = RGBColor(214, 39, 40);
pub const EQUALITY_DELETES: RGBColor = RGBColor(255, 127, 14);
pub const DELETION_VECTORS: RGBColor = RGBColor(148, 103, 189);
pub const RECORDS: RGBColor = RGBColor(90, 90, 90);
pub const INK: RGBColor = RGBColor(30, 34, 40);
pub const FAINT: RGBColor = RGBColor(110, 118, 129);

/// One strong colour per Flink job, in order of first commit: a lane's ticks and outline.
pub const JOB_STRONG: [RGBColor; 6] =
    [RGBColor(23, 105, 170), RGBColor(196, 96, 16), RGBColor(40, 130, 70), RGBColor(120, 70, 180), RGBColor(150, 120, 0), RGBColor(180, 50, 110)];

pub fn job_strong(i: usize) -> RGBColor {
    JOB_STRONG[i % JOB_STRONG.len()]
}
