//! The HIL drift plot: firmware minus reference time, the fit and its
//! confidence band.

use anyhow::anyhow;
use bench_hil::judge::drift::{self, Fit};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::Folder;
use crate::files::{Content, Written};
use crate::format::markdown::signed;
use crate::format::plot::{self, FONT};

/// What the drift plot shows.
pub struct DriftPlot<'a> {
    pub title: String,
    pub samples: &'a [drift::Sample],
    pub fit: Option<&'a Fit>,
}

impl plot::Figure for DriftPlot<'_> {
    const SIZE_PX: (u32, u32) = (plot::WIDTH, plot::HEIGHT / 2 + 100);
    const NAME: &'static str = "the drift plot";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        draw(root, self)
    }
}

fn drift_plot<'s>(folder: &'s Folder) -> DriftPlot<'s> {
    let report = &folder.report;
    DriftPlot {
        title: format!("{} on {}: firmware clock minus the board's counter", report.scenario.name, report.board.kind),
        samples: folder.drift_samples,
        fit: folder.drift_fit,
    }
}

/// `drift.svg`.
pub fn svg<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(plot::svg(&drift_plot(folder))?.into_bytes()))
}

/// `drift.png`.
pub fn png<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    let figure = drift_plot(folder);
    Ok(Content::WrittenBy(Box::new(move |path| plot::png(&figure, path))))
}

const SAMPLE_COLOR: RGBColor = RGBColor(44, 160, 44);
const FIT_COLOR: RGBColor = RGBColor(214, 39, 40);

/// The fit's confidence band in plot coordinates (x in s and y in µs from
/// the first sample): the lines of the interval's two slopes through the
/// fit's centre (the mean sample), as two triangles meeting there. None
/// when the interval is not a finite number.
fn confidence_band(fit: &Fit, x0: f64, offset0: f64, x_end: f64) -> Option<[[(f64, f64); 3]; 2]> {
    if !(fit.ci_half_ppm.is_finite() && fit.ci_half_ppm > 0.0) {
        return None;
    }
    let at = |x: f64, ppm: f64| {
        let reference = x0 + x * 1e6;
        let clock = fit.intercept_us + (1.0 + ppm * 1e-6) * (reference - fit.origin_us);
        (x, clock - reference - offset0)
    };
    let centre = ((fit.origin_us - x0) / 1e6).clamp(0.0, x_end);
    let (low, high) = (fit.ci_low_ppm(), fit.ci_high_ppm());
    Some([
        [at(0.0, low), at(0.0, high), at(centre, fit.drift_ppm)],
        [at(centre, fit.drift_ppm), at(x_end, low), at(x_end, high)],
    ])
}

/// The plot's shapes in its axes' units: reference time in s and firmware
/// minus reference time in µs, both from the first sample.
struct Shapes {
    points: Vec<(f64, f64)>,
    /// The fitted line, empty without a fit.
    line: Vec<(f64, f64)>,
    band: [[(f64, f64); 3]; 2],
    x_end: f64,
    /// The y range every shape lies in.
    low: f64,
    high: f64,
}

fn shapes(plot: &DriftPlot, first: &drift::Sample) -> Shapes {
    let (x0, offset0) = (first.reference_us, first.clock_us - first.reference_us);
    let point =
        |sample: &drift::Sample| ((sample.reference_us - x0) / 1e6, sample.clock_us - sample.reference_us - offset0);
    let points: Vec<(f64, f64)> = plot.samples.iter().map(point).collect();
    let x_end = points.iter().map(|&(x, _)| x).fold(0.0_f64, f64::max).max(1.0);
    let line: Vec<(f64, f64)> = plot
        .fit
        .map(|fit| {
            [0.0, x_end]
                .iter()
                .map(|&x| {
                    let reference = x0 + x * 1e6;
                    (x, fit.clock_at(reference) - reference - offset0)
                })
                .collect()
        })
        .unwrap_or_default();
    let band = plot.fit.and_then(|fit| confidence_band(fit, x0, offset0, x_end)).unwrap_or_default();
    let (low, high) = points
        .iter()
        .chain(&line)
        .chain(band.iter().flatten())
        .fold((0.0_f64, 0.0_f64), |(low, high), &(_, y)| (low.min(y), high.max(y)));
    Shapes { points, line, band, x_end, low, high }
}

/// Firmware minus reference time (µs, from the first sample) against
/// reference time (s, from the first sample), with the fitted line and its
/// confidence band.
fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &DriftPlot) -> anyhow::Result<()> {
    let fail = |error: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the drift plot: {error}");
    root.fill(&WHITE).map_err(fail)?;
    let Some(first) = plot.samples.first() else {
        root.draw(&Text::new("no time-base samples", (40, 60), (FONT, 18).into_font().color(&BLACK.mix(0.6))))
            .map_err(fail)?;
        return Ok(());
    };
    let Shapes { points, line, band, x_end, low, high } = shapes(plot, first);
    let pad = ((high - low) * 0.08).max(1.0);
    let caption = match plot.fit {
        Some(fit) => format!("{} — fit {} ppm ± {:.2}", plot.title, signed(fit.drift_ppm, 2), fit.ci_half_ppm),
        None => format!("{} — not enough samples for a fit", plot.title),
    };
    let mut chart = ChartBuilder::on(root)
        .caption(caption, (FONT, 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..x_end, (low - pad)..(high + pad))
        .map_err(fail)?;
    let descriptions = ("reference time (s, the board's hardware counter)", "firmware − reference (µs)");
    plot::mesh(&mut chart, descriptions, (plot::decimals(x_end), plot::decimals(high - low + 2.0 * pad)))
        .map_err(fail)?;
    if !band.is_empty() {
        let label = match plot.fit {
            Some(fit) => format!("{:.0} % confidence band of the slope", fit.confidence * 100.0),
            None => "confidence band".to_string(),
        };
        chart
            .draw_series(band.iter().map(|triangle| Polygon::new(triangle.to_vec(), FIT_COLOR.mix(0.18).filled())))
            .map_err(fail)?
            .label(label)
            .legend(|(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], FIT_COLOR.mix(0.3).filled()));
    }
    chart
        .draw_series(points.iter().map(|&(x, y)| Circle::new((x, y), 3, SAMPLE_COLOR.filled())))
        .map_err(fail)?
        .label("time-base samples")
        .legend(|(x, y)| Circle::new((x + 10, y), 4, SAMPLE_COLOR.filled()));
    if !line.is_empty() {
        chart
            .draw_series(LineSeries::new(line, FIT_COLOR.stroke_width(2)))
            .map_err(fail)?
            .label("least-squares fit")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], FIT_COLOR.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font((FONT, 13))
        .draw()
        .map_err(fail)?;
    Ok(())
}
