//! Slope and projection: each series now and after one more day at the observed checkpoint
//! interval, side by side, on a log scale so snapshots and megabytes share one picture.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::findings::thousands;
use crate::analysis::projection::Projection;
use crate::model::Totals;

use super::palette;
use super::Stamp;

/// (label, now, in a day)
fn rows(p: &Projection, now: &Totals, snapshots: usize) -> Vec<(&'static str, f64, f64)> {
    let d = &p.per_day;
    let deletes = now.deletes().unwrap_or(0) as f64;
    let mut r = vec![
        ("snapshots", snapshots as f64, snapshots as f64 + d.snapshots),
        ("manifests", now.manifests.unwrap_or(0) as f64, now.manifests.unwrap_or(0) as f64 + d.manifests.max(0.0)),
        ("data files", now.data_files.unwrap_or(0) as f64, now.data_files.unwrap_or(0) as f64 + d.data_files.max(0.0)),
        ("delete files", deletes, deletes + d.delete_files.max(0.0)),
    ];
    if let (Some(n), Some(a)) = (p.metadata_json_bytes_now, p.metadata_json_bytes_in_a_day) {
        r.push(("metadata.json KB", n as f64 / 1024.0, a / 1024.0));
    }
    r
}

pub fn draw_projection<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    projection: Option<&Projection>,
    now: Option<&Totals>,
    snapshots: usize,
    stamp: &Stamp,
) -> super::Drawn {
    super::drawn(draw(root, projection, now, snapshots, stamp))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    projection: Option<&Projection>,
    now: Option<&Totals>,
    snapshots: usize,
    stamp: &Stamp,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let main = super::frame(root, stamp)?;
    let (Some(p), Some(now)) = (projection, now) else {
        main.draw(&Text::new(
            "No projection: it needs at least three consecutive commits of one Flink job with readable manifests.",
            (40, 60),
            ("sans-serif", 16).into_font().color(&palette::FAINT),
        ))?;
        root.present()?;
        return Ok(0);
    };
    let rows = rows(p, now, snapshots);
    let top = rows.iter().map(|r| r.2.max(r.1)).fold(10.0, f64::max) * 3.0;
    let n = rows.len();
    let mut chart = ChartBuilder::on(&main)
        .caption(
            format!("{} — now and after one more day at one commit every {:.1} s", stamp.table, p.interval_ms / 1000.0),
            ("sans-serif", 20).into_font().color(&palette::INK),
        )
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(130)
        .build_cartesian_2d((1.0..top).log_scale(), -0.5..(n as f64 - 0.5))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(n)
        .y_label_formatter(&|y| {
            let i = y.round() as usize;
            if (y - y.round()).abs() < 1e-6 && i < n {
                rows[n - 1 - i].0.to_string()
            } else {
                String::new()
            }
        })
        .x_desc("log scale")
        .x_label_formatter(&|x| super::growth::format_count(*x))
        .label_style(("sans-serif", 13).into_font().color(&palette::INK))
        .draw()?;
    let font = ("sans-serif", 13).into_font().color(&palette::INK).pos(Pos::new(HPos::Left, VPos::Center));
    for (k, (_, a, b)) in rows.iter().enumerate() {
        let y = (n - 1 - k) as f64;
        chart.draw_series(std::iter::once(Rectangle::new([(1.0, y + 0.04), (a.max(1.0), y + 0.34)], palette::MANIFESTS.filled())))?;
        chart.draw_series(std::iter::once(Rectangle::new([(1.0, y - 0.34), (b.max(1.0), y - 0.04)], palette::POSITION_DELETES.mix(0.8).filled())))?;
        chart.draw_series(std::iter::once(Text::new(format!("now {}", thousands(a.round() as u64)), (a.max(1.0) * 1.08, y + 0.19), font.clone())))?;
        chart.draw_series(std::iter::once(Text::new(format!("in a day {}", thousands(b.round() as u64)), (b.max(1.0) * 1.08, y - 0.19), font.clone())))?;
    }
    root.present()?;
    Ok(n)
}
