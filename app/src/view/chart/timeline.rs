//! Job timeline: one bar per `flink.job-id` from first to last commit, labelled with its
//! checkpoint range, snapshots and rows; a job that replayed another's checkpoints is drawn red.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::jobs::JobSpan;
use crate::model::time::rfc3339_ms;

use super::palette::{self, job_band};
use super::Stamp;

/// `flagged`: job ids a finding marked, with the word to mark them by (REPLAY, CONCURRENT).
/// `maintenance`: commit times of Flink's in-job maintenance, drawn on a lane of their own: they
/// interleave with the job's commits but are not another writer of rows.
/// `events`: changes to the table's shape (a schema's first commit), as vertical lines on the same
/// time axis: a column dropped under a running job shows where it happened.
pub fn draw_timeline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    jobs: &[JobSpan],
    maintenance: &[i64],
    flagged: &[(String, &str)],
    events: &[(i64, String)],
    stamp: &Stamp,
) -> super::Drawn {
    super::drawn(draw(root, jobs, maintenance, flagged, events, stamp))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    jobs: &[JobSpan],
    maintenance: &[i64],
    flagged: &[(String, &str)],
    events: &[(i64, String)],
    stamp: &Stamp,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let main = super::frame(root, stamp)?;
    if jobs.is_empty() {
        main.draw(&Text::new(
            "No flink.job-id in any snapshot summary: not written by Flink's Iceberg sink.",
            (40, 60),
            ("sans-serif", 16).into_font().color(&palette::FAINT),
        ))?;
        root.present()?;
        return Ok(0);
    }
    let t0 = jobs.iter().map(|j| j.first_commit_ms).chain(maintenance.iter().copied()).min().unwrap_or(0);
    let t1 = jobs.iter().map(|j| j.last_commit_ms).chain(maintenance.iter().copied()).max().unwrap_or(t0 + 1);
    let span = (t1.saturating_sub(t0).max(1000)) as f64 / 1000.0;
    // The maintenance lane, when there is one, is the bottom row.
    let lane = usize::from(!maintenance.is_empty());
    let n = jobs.len() + lane;
    let mut chart = ChartBuilder::on(&main)
        .caption(format!("{} — Flink jobs by commit time", stamp.table), ("sans-serif", 20).into_font().color(&palette::INK))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(110)
        .build_cartesian_2d(-span * 0.02..span * 1.02, -0.5..(n as f64 - 0.5))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(RGBColor(238, 240, 243))
        .x_desc(format!("seconds after {}", rfc3339_ms(t0)))
        .y_labels(n)
        .y_label_formatter(&|y| {
            let i = y.round() as usize;
            if (y - y.round()).abs() > 1e-6 || i >= n {
                String::new()
            } else if i < lane {
                "maintenance".into()
            } else {
                format!("{}…", &jobs[n - 1 - i].job_id.chars().take(8).collect::<String>())
            }
        })
        .label_style(("sans-serif", 13).into_font().color(&palette::INK))
        .axis_desc_style(("sans-serif", 14).into_font().color(&palette::INK))
        .draw()?;
    for (k, j) in jobs.iter().enumerate() {
        let y = (n - 1 - k) as f64;
        let (a, b) = ((j.first_commit_ms - t0) as f64 / 1000.0, (j.last_commit_ms - t0) as f64 / 1000.0);
        let mark = flagged.iter().find(|(id, _)| *id == j.job_id).map(|(_, w)| *w);
        let bad = mark.is_some();
        let fill = if bad { palette::POSITION_DELETES } else { super::palette::MANIFESTS };
        chart.draw_series(std::iter::once(Rectangle::new([(a, y - 0.28), (b.max(a + span * 0.004), y + 0.28)], job_band(k).filled())))?;
        chart.draw_series(std::iter::once(Rectangle::new([(a, y - 0.28), (b.max(a + span * 0.004), y + 0.28)], fill.stroke_width(2))))?;
        // One tick per commit, so that the checkpoint cadence and its holes are visible.
        chart.draw_series(j.commit_ms.iter().map(|&t| {
            let x = (t - t0) as f64 / 1000.0;
            PathElement::new(vec![(x, y - 0.22), (x, y + 0.22)], fill.mix(0.7).stroke_width(1))
        }))?;
        let cps = match (j.first_checkpoint(), j.last_checkpoint()) {
            (Some(f), Some(l)) => format!("checkpoints {f}–{l}"),
            _ => "no checkpoint ids".into(),
        };
        let label = format!(
            "{}{}{} · {} snapshots · {} rows{}",
            mark.map(|w| format!("{w} · ")).unwrap_or_default(),
            cps,
            if j.end_of_input { " + end of input" } else { "" },
            j.snapshot_indexes.len(),
            j.rows_added.map(crate::analysis::findings::thousands).unwrap_or_else(|| "?".into()),
            match j.missing_count() {
                0 => String::new(),
                n => format!(" · {} id{} skipped", crate::analysis::findings::thousands(n), if n == 1 { "" } else { "s" }),
            }
        );
        let font = ("sans-serif", 14).into_font().color(if bad { &palette::POSITION_DELETES } else { &palette::INK });
        // Bars in the right half carry their label right-aligned, so that it stays on the canvas.
        let (at, font) = if a > span * 0.5 { (b, font.pos(Pos::new(HPos::Right, VPos::Bottom))) } else { (a, font.pos(Pos::new(HPos::Left, VPos::Bottom))) };
        chart.draw_series(std::iter::once(Text::new(label, (at, y + 0.32), font)))?;
    }
    if lane == 1 {
        chart.draw_series(maintenance.iter().map(|&t| {
            let x = (t - t0) as f64 / 1000.0;
            PathElement::new(vec![(x, -0.28), (x, 0.28)], palette::FAINT.stroke_width(3))
        }))?;
        let label = format!("Flink maintenance · {} commits (rewrite, expire; engine-name flink, no flink.* keys)", maintenance.len());
        chart.draw_series(std::iter::once(Text::new(
            label,
            (0.0, 0.32),
            ("sans-serif", 14).into_font().color(&palette::INK).pos(Pos::new(HPos::Left, VPos::Bottom)),
        )))?;
    }
    for (t, label) in events.iter().filter(|(t, _)| (t0..=t1).contains(t)) {
        let x = (t - t0) as f64 / 1000.0;
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, -0.5), (x, n as f64 - 0.5)], palette::DELETION_VECTORS.stroke_width(2))))?;
        let font = ("sans-serif", 13).into_font().color(&palette::DELETION_VECTORS);
        let font = if x > span * 0.5 { font.pos(Pos::new(HPos::Right, VPos::Top)) } else { font.pos(Pos::new(HPos::Left, VPos::Top)) };
        chart.draw_series(std::iter::once(Text::new(format!(" {label} "), (x, n as f64 - 0.5), font)))?;
    }
    root.present()?;
    // One point per job's bar: the maintenance lane is not a job.
    Ok(jobs.len())
}
