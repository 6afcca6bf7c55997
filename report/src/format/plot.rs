//! The plots' common ground: every figure (drift, latency, postal
//! accounting) is a [`Figure`], drawn once on any plotters backend for both
//! its SVG and its PNG, in the compiled-in font, with axes drawn alike.
//!
//! **Determinism:** no system fonts (the font is compiled in, see
//! `fonts/`), no timestamps: the same figure gives the same bytes.

use std::path::Path;
use std::sync::OnceLock;

use anyhow::anyhow;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

/// The drift plots' size: the simulator's; the HIL one is as wide.
pub const WIDTH: u32 = 1000;
pub const HEIGHT: u32 = 700;

/// DejaVu Sans 2.37 (Debian `fonts-dejavu-core`); licence beside it.
const FONT_TTF: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");
pub const FONT: &str = "sans-serif";

/// A figure of a report, drawn the same on any plotters backend so that
/// one drawing gives both its SVG and its PNG, in the built-in font.
pub trait Figure {
    /// Width and height in pixels.
    const SIZE_PX: (u32, u32);
    /// What the figure is, for errors: `the drift plot`.
    const NAME: &'static str;

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>;
}

/// The figure as an SVG document.
pub fn svg<F: Figure>(figure: &F) -> anyhow::Result<String> {
    register()?;
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, F::SIZE_PX).into_drawing_area();
        figure.draw(&root)?;
        root.present().map_err(|error| anyhow!("drawing {}: {error}", F::NAME))?;
    }
    Ok(text)
}

/// Writes the figure as a PNG file at `path` (the encoder picks the format
/// from the extension).
pub fn png<F: Figure>(figure: &F, path: &Path) -> anyhow::Result<()> {
    register()?;
    let root = BitMapBackend::new(path, F::SIZE_PX).into_drawing_area();
    figure.draw(&root)?;
    root.present().map_err(|error| anyhow!("writing {}: {error}", F::NAME))?;
    Ok(())
}

/// Registers the compiled-in font once per process; without it plotters
/// has no font at all (`FontUnavailable`).
fn register() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    if *REGISTERED.get_or_init(|| register_font(FONT, FontStyle::Normal, FONT_TTF).is_ok()) {
        Ok(())
    } else {
        Err(anyhow!("the report's built-in font could not be loaded"))
    }
}

/// Draws a chart's grid and axes, labelled with (x, y) `descriptions`, the
/// tick labels with (x, y) `decimals`: every plot's axes look alike.
pub fn mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    descriptions: (&str, &str),
    decimals: (usize, usize),
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (x_decimals, y_decimals) = decimals;
    chart
        .configure_mesh()
        .x_desc(descriptions.0)
        .y_desc(descriptions.1)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .x_label_formatter(&|value| tick(*value, x_decimals))
        .y_label_formatter(&|value| tick(*value, y_decimals))
        .light_line_style(BLACK.mix(0.05))
        .bold_line_style(BLACK.mix(0.15))
        .draw()
}

/// Decimals for tick labels over a span (ticks are about a tenth of it).
pub fn decimals(span: f64) -> usize {
    match span {
        span if span >= 20.0 => 0,
        span if span >= 2.0 => 1,
        span if span >= 0.2 => 2,
        _ => 3,
    }
}

/// A tick label; never `-0`.
pub fn tick(value: f64, decimals: usize) -> String {
    let text = format!("{value:.decimals$}");
    match text.strip_prefix('-') {
        Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
        _ => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_never_show_minus_zero() {
        assert_eq!(tick(-0.000_01, 2), "0.00");
        assert_eq!(tick(-1.5, 1), "-1.5");
        assert_eq!(tick(12.0, 0), "12");
    }
}
