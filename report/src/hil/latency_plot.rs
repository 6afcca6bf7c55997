//! `latency.svg` and `latency.png`: a HIL report's press-latency histogram,
//! one bar per fixed bin of `bench_hil::judge::latency::LATENCY_BIN_EDGES_US`, drawn
//! with the report's built-in font (like the drift plots) so the same bins
//! give the same bytes.

use anyhow::anyhow;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{Folder, LatencyBin};
use crate::files::{Content, Written};
use crate::format::plot::{self, Figure, FONT};

pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 420;

const BAR_COLOR: RGBColor = RGBColor(31, 119, 180);
const MARGIN_PX: u32 = 12;
const Y_LABEL_AREA_PX: u32 = 70;
const X_LABEL_FONT_PX: u32 = 12;

/// What the plot shows.
pub struct LatencyPlot<'a> {
    pub title: String,
    pub bins: &'a [LatencyBin],
}

impl Figure for LatencyPlot<'_> {
    const SIZE_PX: (u32, u32) = (WIDTH, HEIGHT);
    const NAME: &'static str = "the latency histogram";

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()> {
        draw(root, self)
    }
}

fn histogram<'s>(folder: &'s Folder) -> LatencyPlot<'s> {
    let report = &folder.report;
    LatencyPlot {
        title: format!("{} on {}: press latency", report.scenario.name, report.board.kind),
        bins: &report.latency_histogram,
    }
}

/// `latency.svg`.
pub fn svg<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    Ok(Content::Bytes(plot::svg(&histogram(folder))?.into_bytes()))
}

/// `latency.png`.
pub fn png<'s>(folder: &'s Folder, _: &Written) -> anyhow::Result<Content<'s>> {
    let figure = histogram(folder);
    Ok(Content::WrittenBy(Box::new(move |path| plot::png(&figure, path))))
}

/// A bin's span in a few characters: `10–20`, `1k–2k`, `≥200k` (µs).
pub fn bin_label(bin: &LatencyBin) -> String {
    match bin.to_us {
        Some(to_us) => format!("{}–{}", short_us(bin.from_us), short_us(to_us)),
        None => format!("≥{}", short_us(bin.from_us)),
    }
}

/// `20`, `500`, `1k`, `200k`: µs in at most four characters for the bins' edges.
fn short_us(us: u64) -> String {
    if us >= 1_000 && us % 1_000 == 0 {
        format!("{}k", us / 1_000)
    } else {
        us.to_string()
    }
}

/// The x axis's label at edge `index` (0 to the number of bins): each bin's
/// lower edge under its left side, so that labels never run into each
/// other (spans such as `50k–100k` under each bar did); none under the
/// open end of the last bin.
fn edge_label(bins: &[LatencyBin], index: usize) -> String {
    bins.get(index).map(|bin| short_us(bin.from_us)).unwrap_or_default()
}

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, plot: &LatencyPlot) -> anyhow::Result<()> {
    let fail = |error: DrawingAreaErrorKind<DB::ErrorType>| anyhow!("drawing the latency histogram: {error}");
    root.fill(&WHITE).map_err(fail)?;
    let presses: u64 = plot.bins.iter().map(|bin| bin.presses).sum();
    if presses == 0 {
        root.draw(&Text::new("no press registered", (40, 60), (FONT, 18).into_font().color(&BLACK.mix(0.6))))
            .map_err(fail)?;
        return Ok(());
    }
    let bins = u32::try_from(plot.bins.len()).unwrap_or(u32::MAX);
    let highest = plot.bins.iter().map(|bin| bin.presses).max().unwrap_or(0);
    // Room above the tallest bar for its count.
    let y_end = highest.saturating_add(highest / 8).saturating_add(1);
    let mut chart = ChartBuilder::on(root)
        .caption(format!("{} — {presses} presses", plot.title), (FONT, 17))
        .margin(MARGIN_PX)
        .x_label_area_size(44)
        .y_label_area_size(Y_LABEL_AREA_PX)
        .build_cartesian_2d(0..bins, 0..y_end)
        .map_err(fail)?;
    let label = |edge: &u32| edge_label(plot.bins, *edge as usize);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(plot.bins.len() + 1)
        .x_label_formatter(&label)
        .x_desc("press latency, edge to registered (µs; each bar from its lower edge up to, not including, the next)")
        .y_desc("presses")
        .label_style((FONT, X_LABEL_FONT_PX))
        .axis_desc_style((FONT, 14))
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .draw()
        .map_err(fail)?;
    let bars = (0..bins).zip(plot.bins).filter(|(_, bin)| bin.presses > 0);
    chart
        .draw_series(bars.clone().map(|(index, bin)| {
            let mut bar =
                Rectangle::new([(index, 0), (index.saturating_add(1), bin.presses)], BAR_COLOR.mix(0.7).filled());
            bar.set_margin(0, 0, 4, 4);
            bar
        }))
        .map_err(fail)?;
    // Each count over its bar's middle (the axis counts whole bins).
    let centre = chart.backend_coord(&(1, 0)).0.saturating_sub(chart.backend_coord(&(0, 0)).0) / 2;
    let counts = bars.map(|(index, bin)| {
        let (x, y) = chart.backend_coord(&(index, bin.presses));
        let style = TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        Text::new(bin.presses.to_string(), (x + centre, y), style)
    });
    for count in counts {
        root.draw(&count).map_err(fail)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::plot;

    #[test]
    fn bins_are_labelled_by_their_span() {
        let bin = |from_us, to_us, presses| LatencyBin { from_us, to_us, presses };
        assert_eq!(bin_label(&bin(10, Some(20), 1)), "10–20");
        assert_eq!(bin_label(&bin(500, Some(1_000), 0)), "500–1k");
        assert_eq!(bin_label(&bin(200_000, None, 3)), "≥200k");
    }

    /// The axis's labels of the bins `bench hil` uses each fit in the room
    /// a bin has (the spans under each bar ran into each other:
    /// `50k–100k100k–200k`).
    #[test]
    fn the_x_labels_of_every_bin_fit_beside_each_other() {
        let edges = bench_hil::judge::latency::LATENCY_BIN_EDGES_US;
        let bins: Vec<LatencyBin> = edges
            .iter()
            .enumerate()
            .map(|(index, &from_us)| LatencyBin { from_us, to_us: edges.get(index + 1).copied(), presses: 1 })
            .collect();
        let text = plot::svg(&LatencyPlot { title: "t".into(), bins: &bins }).expect("drawn (registers the font)");
        let room_px = (WIDTH - 2 * MARGIN_PX - Y_LABEL_AREA_PX) / bins.len() as u32;
        let font = (FONT, X_LABEL_FONT_PX).into_font();
        for index in 0..=bins.len() {
            let label = edge_label(&bins, index);
            let (width_px, _) = font.box_size(&label).expect("measured");
            assert!(width_px + 4 < room_px, "`{label}` is {width_px} px wide; a bin has {room_px} px");
            assert!(label.is_empty() || text.contains(&format!(">\n{label}\n</text>")), "`{label}` is on the axis");
        }
    }

    #[test]
    fn a_bar_is_drawn_for_each_bin_with_presses_and_none_for_empty_ones() {
        let bins = vec![
            LatencyBin { from_us: 0, to_us: Some(10), presses: 7 },
            LatencyBin { from_us: 10, to_us: Some(20), presses: 0 },
            LatencyBin { from_us: 20, to_us: None, presses: 2 },
        ];
        let text = plot::svg(&LatencyPlot { title: "t".into(), bins: &bins }).expect("drawn");
        let bars = text.matches(&format!("fill=\"#{:02X}{:02X}{:02X}\"", 31, 119, 180)).count();
        assert_eq!(bars, 2, "{text}");
        assert!(text.contains("9 presses") && text.contains(">\n20\n</text>"), "{text}");
        let empty = plot::svg(&LatencyPlot { title: "t".into(), bins: &bins[1..2] }).expect("drawn");
        assert!(empty.contains("no press registered"), "{empty}");
    }
}
