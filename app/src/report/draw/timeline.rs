//! Job timeline: one bar per `flink.job-id` from first to last commit, labelled with its
//! checkpoint range, snapshots and rows; a job that replayed another's checkpoints is drawn red.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::analysis::jobs::JobSpan;
use crate::model::time::rfc3339_ms;

use super::look::{fit, text_width};
use super::{palette, Dress};

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
    dress: &Dress<'_>,
) -> super::Drawn {
    super::drawn(draw(root, jobs, maintenance, flagged, events, dress))
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    jobs: &[JobSpan],
    maintenance: &[i64],
    flagged: &[(String, &str)],
    events: &[(i64, String)],
    dress: &Dress<'_>,
) -> Result<usize, DrawingAreaErrorKind<DB::ErrorType>> {
    let look = &dress.look;
    let main = super::frame(root, dress, &crate::report::chart::jobs_caption(&dress.stamp.table), &[])?;
    if jobs.is_empty() {
        let (w, _) = main.dim_in_pixel();
        let none = fit_or_all(crate::report::chart::NO_FLINK_JOBS, look.px(15.0), f64::from(w) - look.px(40.0));
        main.draw(&Text::new(none, (look.len(20.0) as i32, look.len(30.0) as i32), look.font(15.0, look.faint())))?;
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
        .margin(look.len(12.0))
        .margin_top(look.len(22.0))
        .x_label_area_size(look.len(48.0))
        .y_label_area_size(look.len(96.0))
        .build_cartesian_2d(-span * 0.02..span * 1.02, -0.5..(n as f64 - 0.5))?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .light_line_style(look.background())
        .bold_line_style(look.bold_grid())
        .axis_style(look.faint())
        .x_labels(((f64::from(main.dim_in_pixel().0) / look.px(80.0)) as usize).clamp(2, 12))
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
        .label_style(look.font(12.0, look.ink()))
        .axis_desc_style(look.font(13.0, look.ink()))
        .draw()?;
    let plot_w = f64::from(chart.plotting_area().dim_in_pixel().0);
    let per_s = plot_w / (span * 1.04);
    let red = look.series(palette::POSITION_DELETES);
    for (k, j) in jobs.iter().enumerate() {
        let y = (n - 1 - k) as f64;
        let (a, b) = ((j.first_commit_ms - t0) as f64 / 1000.0, (j.last_commit_ms - t0) as f64 / 1000.0);
        let mark = flagged.iter().find(|(id, _)| *id == j.job_id).map(|(_, w)| *w);
        let bad = mark.is_some();
        let fill = if bad { red } else { look.job(k) };
        chart.draw_series(std::iter::once(Rectangle::new([(a, y - 0.28), (b.max(a + span * 0.004), y + 0.28)], look.job(k).mix(0.22).filled())))?;
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
            j.rows_added.map(crate::report::format::thousands).unwrap_or_else(|| "?".into()),
            match j.missing_count() {
                0 => String::new(),
                n => format!(" · {} id{} skipped", crate::report::format::thousands(n), if n == 1 { "" } else { "s" }),
            }
        );
        let font = look.font(13.0, if bad { red } else { look.ink() });
        // Left-aligned from the bar's start where the words fit, else ending at its end, else cut.
        let width = text_width(&label, look.px(13.0));
        let start = (a + span * 0.02) * per_s;
        let end = (b + span * 0.02) * per_s;
        let label = fit_or_all(&label, look.px(13.0), plot_w);
        let (at, font) = if start + width <= plot_w || end - width < 0.0 {
            (if start + width <= plot_w { a } else { -span * 0.02 }, font.pos(Pos::new(HPos::Left, VPos::Bottom)))
        } else {
            (b, font.pos(Pos::new(HPos::Right, VPos::Bottom)))
        };
        chart.draw_series(std::iter::once(Text::new(label, (at, y + 0.32), font)))?;
    }
    if lane == 1 {
        chart.draw_series(maintenance.iter().map(|&t| {
            let x = (t - t0) as f64 / 1000.0;
            PathElement::new(vec![(x, -0.28), (x, 0.28)], look.faint().stroke_width(3))
        }))?;
        let label = fit_or_all(&crate::report::chart::maintenance_lane(maintenance.len()), look.px(13.0), plot_w);
        chart.draw_series(std::iter::once(Text::new(label, (0.0, 0.32), look.font(13.0, look.ink()).pos(Pos::new(HPos::Left, VPos::Bottom)))))?;
    }
    for (t, label) in events.iter().filter(|(t, _)| (t0..=t1).contains(t)) {
        let x = (t - t0) as f64 / 1000.0;
        let violet = look.series(palette::DELETION_VECTORS);
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, -0.5), (x, n as f64 - 0.5)], violet.stroke_width(2))))?;
        let font = look.font(12.0, violet);
        chart.draw_series(std::iter::once(Text::new(
            format!(" {label} "),
            (x, n as f64 - 0.5),
            font.pos(Pos::new(if x > span * 0.5 { HPos::Right } else { HPos::Left }, VPos::Bottom)),
        )))?;
    }
    root.present()?;
    // One point per job's bar: the maintenance lane is not a job.
    Ok(jobs.len())
}

/// The text itself where it fits in `width`, else cut with an ellipsis.
fn fit_or_all(text: &str, px: f64, width: f64) -> String {
    if text_width(text, px) <= width {
        text.to_string()
    } else {
        fit(text, px, width)
    }
}
