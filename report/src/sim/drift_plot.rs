//! `drift.svg` and `drift.png`: the drift envelope across games.
//!
//! Top panel: device display minus ideal display, per side. Bottom panel:
//! the device's time base minus true time. Each bucket of game time is a
//! band from the smallest to the largest value any game had in it.
//!
//! **Determinism:** no system fonts (the font is compiled in, see
//! `format/fonts/`), no timestamps, integer data converted the same way every
//! time: the same envelope gives the same bytes.

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::report::{DriftEnvelope, Report};
use super::Folder;
use crate::files::{Content, Written};
use crate::format::markdown::seconds;
use crate::format::plot::{self, decimals, mesh, Figure, FONT, HEIGHT, WIDTH};
use crate::format::visible::visible;

const WHITE_SIDE: RGBColor = RGBColor(31, 119, 180);
const BLACK_SIDE: RGBColor = RGBColor(214, 39, 40);
const TIME_BASE: RGBColor = RGBColor(44, 160, 44);

/// What the plot shows.
pub struct DriftPlot<'a> {
    pub title: String,
    pub envelope: &'a DriftEnvelope,
}

impl Figure for DriftPlot<'_> {
    const SIZE_PX: (u32, u32) = (WIDTH, HEIGHT);
    const NAME: &'static str = "the drift plot";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        draw(root, self)
    }
}

/// The drift plot's title. The bucket is written as `summary.md` writes it
/// (`1.25 s`, every digit it has): a rounded `1.2 s` read as another bucket.
pub fn title(report: &Report) -> String {
    format!(
        "{}, seed {}, {} games: min–max across games per {} of game time",
        visible(&report.scenario.name),
        report.seed,
        report.games.played,
        seconds(report.drift_envelope.bucket_us)
    )
}

fn drift_plot(folder: &Folder) -> DriftPlot<'_> {
    DriftPlot { title: title(&folder.report), envelope: &folder.report.drift_envelope }
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

/// Games this short or shorter are plotted in seconds: on a minutes axis an
/// 80 s game would read 0 to 1.3.
const SECONDS_AXIS_MAX_US: u64 = 180_000_000;

/// The game-time axis for an envelope ending at `end_us`: microseconds per
/// unit, and the unit's name.
fn time_axis(end_us: u64) -> (f64, &'static str) {
    if end_us <= SECONDS_AXIS_MAX_US {
        (1e6, "seconds")
    } else {
        (60e6, "minutes")
    }
}

/// One band: per bucket, (start, end) in the time axis's unit and (min, max) in ms.
struct Band {
    label: &'static str,
    color: RGBColor,
    spans: Vec<(f64, f64, f64, f64)>,
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &DriftPlot) -> anyhow::Result<()> {
    let fail = |error: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the drift plot: {error}");
    root.fill(&WHITE).map_err(fail)?;
    let root = root.titled(&plot.title, (FONT, 20)).map_err(fail)?;
    let (upper, lower) = root.split_vertically(HEIGHT.saturating_sub(40) / 2);

    let envelope = plot.envelope;
    let bucket_us = envelope.bucket_us;
    let bucket_end = |start_us: u64, end_us: Option<u64>| end_us.unwrap_or_else(|| start_us.saturating_add(bucket_us));
    let last_us = envelope.buckets.iter().map(|bucket| bucket_end(bucket.start_us, bucket.end_us)).max();
    let (unit_us, unit) = time_axis(last_us.unwrap_or(0));
    let in_unit = |us: u64| us as f64 / unit_us;
    let ms = |us: i64| us as f64 / 1_000.0;
    let span = |start_us: u64, end_us: Option<u64>| (in_unit(start_us), in_unit(bucket_end(start_us, end_us)));
    let mut white = Band { label: "White's display", color: WHITE_SIDE, spans: Vec::new() };
    let mut black = Band { label: "Black's display", color: BLACK_SIDE, spans: Vec::new() };
    let mut offset = Band { label: "device time base", color: TIME_BASE, spans: Vec::new() };
    for bucket in &envelope.buckets {
        let (x0, x1) = span(bucket.start_us, bucket.end_us);
        white.spans.push((x0, x1, ms(bucket.error_min_us.white), ms(bucket.error_max_us.white)));
        black.spans.push((x0, x1, ms(bucket.error_min_us.black), ms(bucket.error_max_us.black)));
        offset.spans.push((x0, x1, ms(bucket.offset_min_us), ms(bucket.offset_max_us)));
    }
    let x_end = envelope.buckets.iter().map(|bucket| span(bucket.start_us, bucket.end_us).1).fold(0.0, f64::max);
    let x_end = if x_end > 0.0 { x_end } else { 1.0 };
    let open_ended = envelope.buckets.iter().any(|bucket| bucket.end_us.is_none());
    let x_desc = if open_ended {
        format!("game time ({unit}; the last band holds every later sample)")
    } else {
        format!("game time ({unit})")
    };
    panel(&upper, "Displayed time: device minus ideal clock", &x_desc, x_end, &[white, black])?;
    panel(&lower, "Time base: device minus true time", &x_desc, x_end, &[offset])?;
    Ok(())
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    x_desc: &str,
    x_end: f64,
    bands: &[Band],
) -> anyhow::Result<()> {
    let fail = |error: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the drift plot: {error}");
    let (y_low, y_high) = y_range(bands);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, (FONT, 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_end, y_low..y_high)
        .map_err(fail)?;
    mesh(&mut chart, (x_desc, "ms"), (decimals(x_end), decimals(y_high - y_low))).map_err(fail)?;
    chart.draw_series(LineSeries::new([(0.0, 0.0), (x_end, 0.0)], BLACK.mix(0.6))).map_err(fail)?;
    let drawn: Vec<&Band> = bands.iter().filter(|band| !band.spans.is_empty()).collect();
    let any = !drawn.is_empty();
    // Every fill first, then the edges: a later band's fill would veil an
    // earlier one's edges. Where two sides' edges coincide (a defect that
    // hits both alike), the earlier band's are wider, so that each colour
    // shows: White's as a rim around Black's.
    for band in &drawn {
        let color = band.color;
        chart
            .draw_series(
                band.spans
                    .iter()
                    .map(|&(x0, x1, low, high)| Rectangle::new([(x0, low), (x1, high)], color.mix(0.25).filled())),
            )
            .map_err(fail)?
            .label(band.label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 20, y + 6)], color.mix(0.5).filled()));
    }
    for (index, band) in drawn.iter().enumerate() {
        let width = edge_width_px(index, drawn.len());
        let style = band.color.stroke_width(width);
        chart
            .draw_series(band.spans.iter().flat_map(|&(x0, x1, low, high)| {
                [
                    PathElement::new(vec![(x0, low), (x1, low)], style),
                    PathElement::new(vec![(x0, high), (x1, high)], style),
                ]
            }))
            .map_err(fail)?;
    }
    if any {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font((FONT, 13))
            .draw()
            .map_err(fail)?;
    } else {
        chart
            .draw_series(std::iter::once(Text::new(
                "no drift samples",
                (x_end / 2.0, (y_low + y_high) / 2.0),
                (FONT, 16).into_font().color(&BLACK.mix(0.6)),
            )))
            .map_err(fail)?;
    }
    Ok(())
}

/// The edge width of the `index`-th of `bands` bands: 2 px for the last,
/// 3 px more for each before it, so coinciding edges all show.
fn edge_width_px(index: usize, bands: usize) -> u32 {
    let below_the_last = u32::try_from(bands.saturating_sub(index + 1)).unwrap_or(0);
    2 + 3 * below_the_last
}

/// The y range: every band and zero, with a margin; never empty.
fn y_range(bands: &[Band]) -> (f64, f64) {
    let (low, high) = bands
        .iter()
        .flat_map(|band| &band.spans)
        .fold((0.0_f64, 0.0_f64), |(low, high), &(_, _, min, max)| (low.min(min), high.max(max)));
    let pad = ((high - low) * 0.08).max(0.001);
    if high - low < 1e-9 {
        (low - 1.0, high + 1.0)
    } else {
        (low - pad, high + pad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::plot::{png, svg};

    /// A full envelope (every bucket filled), rendered both ways. Prints
    /// the time it took: `cargo test --release -p bench-report sim::drift_plot -- --nocapture`.
    #[test]
    fn a_full_envelope_renders_to_svg_and_png() {
        use crate::sim::report::{Bucket, PerSide};
        let bucket_us = 2_812_500;
        let buckets = (0..64_i64)
            .map(|index| Bucket {
                index: index as u64,
                start_us: index as u64 * bucket_us,
                end_us: (index < 63).then_some((index as u64 + 1) * bucket_us),
                samples: 100,
                offset_min_us: index * 900,
                offset_max_us: index * 1_100,
                error_min_us: PerSide { white: -index * 700, black: -index * 500 },
                error_max_us: PerSide { white: index * 600, black: index * 800 },
            })
            .collect();
        let envelope = DriftEnvelope { bucket_us, buckets_total: 64, buckets };
        let plot = DriftPlot { title: "full envelope".into(), envelope: &envelope };
        let dir = crate::testing::TempDir::new("plot-full");
        let started = std::time::Instant::now();
        let svg = svg(&plot).expect("svg");
        let svg_done = started.elapsed();
        png(&plot, &dir.path().join("drift.png")).expect("png");
        let png_done = started.elapsed() - svg_done;
        eprintln!("drift plot: svg {} us, png {} us", svg_done.as_micros(), png_done.as_micros());
        assert!(svg.starts_with("<svg") && svg.contains("full envelope"));
        let png = std::fs::read(dir.path().join("drift.png")).expect("read the png");
        assert!(png.starts_with(b"\x89PNG"));
    }

    /// An envelope of `buckets` buckets of `bucket_us`, White's and Black's
    /// bands the same (a defect that hits both sides alike).
    fn envelope_of(buckets: u64, bucket_us: u64) -> DriftEnvelope {
        use crate::sim::report::{Bucket, PerSide};
        let buckets = (0..buckets)
            .map(|index| Bucket {
                index,
                start_us: index * bucket_us,
                end_us: Some((index + 1) * bucket_us),
                samples: 10,
                offset_min_us: 0,
                offset_max_us: 100,
                error_min_us: PerSide { white: -300, black: -300 },
                error_max_us: PerSide { white: 300, black: 300 },
            })
            .collect();
        DriftEnvelope { bucket_us, buckets_total: 64, buckets }
    }

    #[test]
    fn a_short_game_is_plotted_in_seconds_a_long_one_in_minutes() {
        let short = svg(&DriftPlot { title: "t".into(), envelope: &envelope_of(64, 1_250_000) }).expect("svg");
        assert!(short.contains("game time (seconds)") && !short.contains("minutes"), "an 80 s game");
        let long = svg(&DriftPlot { title: "t".into(), envelope: &envelope_of(64, 10_000_000) }).expect("svg");
        assert!(long.contains("game time (minutes)"), "a game of 10 min 40 s");
    }

    /// Where the two sides' bands coincide, White's edges (drawn first)
    /// are wider than Black's on top of them, so both colours show.
    #[test]
    fn whites_band_shows_where_blacks_covers_it() {
        let text = svg(&DriftPlot { title: "t".into(), envelope: &envelope_of(4, 1_000_000) }).expect("svg");
        let edge = |color: RGBColor| {
            let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\" stroke-width=\"", color.0, color.1, color.2);
            let at = text.find(&stroke).unwrap_or_else(|| panic!("no edge of {stroke}"));
            let width: String = text[at + stroke.len()..].chars().take_while(char::is_ascii_digit).collect();
            (at, width.parse::<u32>().expect("a width"))
        };
        let ((white_at, white_px), (black_at, black_px)) = (edge(WHITE_SIDE), edge(BLACK_SIDE));
        assert!(white_at < black_at && white_px > black_px, "White {white_px} px, then Black {black_px} px");
    }

    #[test]
    fn an_empty_envelope_still_renders() {
        let envelope = DriftEnvelope { bucket_us: 1_000_000, buckets_total: 64, buckets: Vec::new() };
        let plot = DriftPlot { title: "nothing".into(), envelope: &envelope };
        assert!(svg(&plot).expect("svg").contains("no drift samples"));
    }

    #[test]
    fn the_y_range_holds_zero_and_every_band() {
        let band = Band { label: "x", color: WHITE_SIDE, spans: vec![(0.0, 1.0, 2.0, 5.0)] };
        let (low, high) = y_range(&[band]);
        assert!(low < 0.0 && high > 5.0);
        assert_eq!(y_range(&[]), (-1.0, 1.0));
    }
}
