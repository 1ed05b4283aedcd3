//! Figures of sweeps: SVG drawn with plotters, PNG rendered from the SVG by resvg with an
//! embedded DejaVu Sans, so no system font or fontconfig is needed.
//!
//! The PNG rendering (resvg and the font: about a third of a build's time) is the `png`
//! feature, on by default; without it [`png()`] returns [`FigureError::NotBuilt`] and
//! [`PNG`] is false, and the SVGs are drawn as ever.
//!
//! The crate computes and returns bytes; it opens no file and starts no thread (the sweep
//! engine in `runner` writes them). Two kinds of plot:
//!
//! * [`Figure`]: grouped bars or lines over categorical x values, each value with its 95%
//!   confidence interval, optionally a second measure printed above each bar, the
//!   clairvoyant optimum's bracket as a grey band between dashed lines ([`Band`]), and the
//!   values a paper reports as hollow markers ([`Published`]). Each series has a colour, a
//!   marker shape and (lines) a dash pattern of its own, so a figure reads in greyscale too;
//!   a count axis ([`Figure::integer_y`]) has whole-number ticks.
//! * [`BoxPlot`]: one box (minimum, quartiles, maximum) per named series.
//!
//! ```
//! use figures::{Bar, Chart, Figure, Interval, Plot};
//! let fig = Figure {
//!     title: "PAM".into(),
//!     x_label: "Arrival rate".into(),
//!     y_label: "Tasks on time (%)".into(),
//!     x_labels: vec!["19k".into(), "34k".into()],
//!     series: vec!["PAM".into()],
//!     bars: vec![Bar {
//!         x_index: 0,
//!         series_index: 0,
//!         value: Interval { mean: 51.7, ci95_low: Some(50.9), ci95_high: Some(52.5) },
//!         label: None,
//!     }],
//!     chart: Chart::Bars,
//!     ..Figure::default()
//! };
//! let svg = figures::svg(&Plot::Figure(fig)).unwrap();
//! assert!(svg.starts_with("<svg"));
//! if figures::PNG {
//!     let png = figures::png(&svg).unwrap();
//!     assert_eq!(&png[1..4], b"PNG");
//! }
//! ```

mod legend;

use plotters::prelude::*;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Why a figure could not be drawn or rendered.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum FigureError {
    /// plotters failed to draw the SVG.
    #[error("drawing the SVG: {0}")]
    Draw(String),
    /// The SVG could not be parsed for rendering.
    #[error("parsing the SVG: {0}")]
    Svg(String),
    /// The PNG could not be rasterised or encoded.
    #[error("rendering the PNG: {0}")]
    Png(String),
    /// This program was built without PNG rendering ([`PNG`] is false).
    #[error(
        "this program was built without PNG rendering (the `png` feature of `figures`, `runner`, `report` or `prunesim`, on by default); the SVG is drawn"
    )]
    NotBuilt,
}

/// Whether this build renders PNGs ([`png()`]; the `png` feature).
pub const PNG: bool = cfg!(feature = "png");

fn draw_error(e: impl std::fmt::Display) -> FigureError {
    FigureError::Draw(e.to_string())
}

/// How a figure is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Chart {
    /// Grouped bars with error bars (x values are categories).
    #[default]
    Bars,
    /// Lines with error bars over the x values in order.
    Lines,
}

/// A mean and its 95% confidence interval (absent with fewer than two values).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The mean.
    pub mean: f64,
    /// Lower end of the interval.
    pub ci95_low: Option<f64>,
    /// Upper end of the interval.
    pub ci95_high: Option<f64>,
}

/// One plotted value.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Position on the x axis.
    pub x_index: usize,
    /// Which series.
    pub series_index: usize,
    /// Mean and 95% CI.
    pub value: Interval,
    /// A second measure printed above the bar.
    pub label: Option<f64>,
}

/// The clairvoyant optimum's bracket at one x: drawn as a grey band behind the series.
#[derive(Debug, Clone, Copy)]
pub struct Band {
    /// Position on the x axis.
    pub x_index: usize,
    /// The lower side (a feasible clairvoyant schedule's value).
    pub lower: f64,
    /// The upper side (the clairvoyant upper bound).
    pub upper: f64,
}

/// A value a paper reports for one series at one x: drawn as a hollow marker of the
/// series' shape, so the difference from the paper shows without the PDF.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Published {
    /// Position on the x axis.
    pub x_index: usize,
    /// Which series.
    pub series_index: usize,
    /// The value the paper reports, in the figure's measure.
    pub value: f64,
}

/// A figure of bars or lines.
#[derive(Debug, Clone, Default)]
pub struct Figure {
    /// Title.
    pub title: String,
    /// X axis label.
    pub x_label: String,
    /// Y axis label.
    pub y_label: String,
    /// Category labels.
    pub x_labels: Vec<String>,
    /// Series names (legend).
    pub series: Vec<String>,
    /// The values.
    pub bars: Vec<Bar>,
    /// The clairvoyant optimum's bracket per x (empty: none drawn).
    pub bands: Vec<Band>,
    /// The values the paper reports (empty: none drawn).
    pub published: Vec<Published>,
    /// Bars or lines.
    pub chart: Chart,
    /// The y measure is a count: ticks at whole numbers only.
    pub integer_y: bool,
}

/// Box plots, one per named series.
#[derive(Debug, Clone)]
pub struct BoxPlot {
    /// Title.
    pub title: String,
    /// Y axis label.
    pub y_label: String,
    /// Each series' name and its [minimum, first quartile, median, third quartile, maximum]
    /// ([`quartiles`]).
    pub boxes: Vec<(String, [f64; 5])>,
}

/// A plot to draw.
#[derive(Debug, Clone)]
pub enum Plot {
    /// Bars or lines.
    Figure(Figure),
    /// Box plots.
    Boxes(BoxPlot),
}

/// The plot as an SVG document (960 x 600).
pub fn svg(plot: &Plot) -> Result<String, FigureError> {
    let mut svg = String::new();
    match plot {
        Plot::Figure(f) => draw(f, &mut svg)?,
        Plot::Boxes(b) => draw_boxes(b, &mut svg)?,
    }
    Ok(svg)
}

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The marker shapes, one per series (after the colour, what tells series apart in greyscale).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
    Cross,
    Plus,
}

const SHAPES: [Shape; 7] = [
    Shape::Circle,
    Shape::Square,
    Shape::TriangleUp,
    Shape::Diamond,
    Shape::TriangleDown,
    Shape::Cross,
    Shape::Plus,
];

fn shape(i: usize) -> Shape {
    SHAPES[i % SHAPES.len()]
}

/// A line's dash pattern per series: `None` is solid, else (dash, gap) in pixels.
fn dashes(i: usize) -> Option<(u32, u32)> {
    [
        None,
        Some((10, 5)),
        Some((3, 4)),
        Some((14, 4)),
        Some((6, 3)),
    ][i % 5]
}

/// A position in pixels.
type Pixel = (i32, i32);

/// The outline of a marker, in pixels about its centre, `r` pixels from the centre.
fn outline_of(shape: Shape, r: i32) -> Vec<(i32, i32)> {
    let polar = |k: i32, n: i32, radius: f64, phase: f64| {
        let a = phase + std::f64::consts::TAU * f64::from(k) / f64::from(n);
        (
            (radius * a.cos()).round() as i32,
            (radius * a.sin()).round() as i32,
        )
    };
    let rf = f64::from(r);
    match shape {
        Shape::Circle => (0..16).map(|k| polar(k, 16, rf, 0.0)).collect(),
        Shape::Square => vec![(-r, -r), (r, -r), (r, r), (-r, r)],
        Shape::TriangleUp => vec![(0, -r - 1), (r + 1, r), (-r - 1, r)],
        Shape::Diamond => vec![(0, -r - 1), (r + 1, 0), (0, r + 1), (-r - 1, 0)],
        Shape::TriangleDown => vec![(0, r + 1), (r + 1, -r), (-r - 1, -r)],
        // A plus of arms a third of the marker wide, and the same turned by 45 degrees.
        Shape::Plus | Shape::Cross => {
            let t = (rf / 3.0).max(1.0);
            let arm = rf + 1.0;
            let plus = [
                (-t, -arm),
                (t, -arm),
                (t, -t),
                (arm, -t),
                (arm, t),
                (t, t),
                (t, arm),
                (-t, arm),
                (-t, t),
                (-arm, t),
                (-arm, -t),
                (-t, -t),
            ];
            let turn = if shape == Shape::Cross {
                std::f64::consts::FRAC_PI_4
            } else {
                0.0
            };
            let (sin, cos) = turn.sin_cos();
            plus.iter()
                .map(|&(x, y)| {
                    (
                        (x * cos - y * sin).round() as i32,
                        (x * sin + y * cos).round() as i32,
                    )
                })
                .collect()
        }
    }
}

/// A marker inside a composed legend glyph, offset by `at` pixels: its points, and the same
/// closed for the outline.
fn glyph(shape: Shape, at: Pixel) -> (Vec<Pixel>, Vec<Pixel>) {
    let pts: Vec<Pixel> = outline_of(shape, 4)
        .into_iter()
        .map(|(x, y)| (x + at.0, y + at.1))
        .collect();
    let mut closed = pts.clone();
    closed.push(pts[0]);
    (pts, closed)
}

/// What [`marker`] draws: the filled outline, then its edge.
type Marker<C, DB> =
    plotters::element::ComposedElement<C, DB, Polygon<(i32, i32)>, PathElement<(i32, i32)>>;

/// A series' marker centred at `at`: filled with the series' colour and outlined in black,
/// or hollow (white inside, a thick outline in the series' colour) for a published value.
fn marker<C, DB: DrawingBackend>(
    at: C,
    shape: Shape,
    r: i32,
    c: RGBColor,
    filled: bool,
) -> Marker<C, DB> {
    let fill = if filled { c.filled() } else { WHITE.filled() };
    let outline = if filled {
        BLACK.stroke_width(1)
    } else {
        c.stroke_width(2)
    };
    let pts = outline_of(shape, r);
    let mut closed = pts.clone();
    closed.push(pts[0]);
    EmptyElement::at(at) + Polygon::new(pts, fill) + PathElement::new(closed, outline)
}

/// The font family the figures name: DejaVu Sans, embedded, the one font [`png()`] knows.
pub const FONT: &str = "DejaVu Sans";

fn y_range(fig: &Figure) -> (f64, f64) {
    let hi = fig
        .bars
        .iter()
        .map(|b| b.value.ci95_high.unwrap_or(b.value.mean).max(b.value.mean))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let lo = fig
        .bars
        .iter()
        .map(|b| b.value.ci95_low.unwrap_or(b.value.mean).min(b.value.mean))
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::min);
    let hi = fig
        .bands
        .iter()
        .map(|b| b.upper)
        .chain(fig.published.iter().map(|p| p.value))
        .filter(|v| v.is_finite())
        .fold(hi, f64::max);
    let hi = if hi <= 0.0 { 1.0 } else { hi * 1.15 };
    // A marker on the lower edge would be cut in half (and its outline clipped into a path
    // the renderer rejects): leave it a margin.
    let markers = fig.published.iter().map(|p| p.value).chain(
        fig.bars
            .iter()
            .filter(|_| fig.chart == Chart::Lines)
            .map(|b| b.value.mean),
    );
    let on_edge = markers
        .filter(|v| v.is_finite())
        .any(|v| v - lo < (hi - lo) * 0.01);
    let lo = if on_edge { lo - (hi - lo) * 0.03 } else { lo };
    (lo, hi)
}

/// The legend entry of the clairvoyant optimum's bracket.
const BAND_LABEL: &str = "clairvoyant optimum (between the dashed lines)";

/// How many y ticks to ask plotters for: its usual 10, and on a count axis no more than the
/// whole numbers in the range, so its "nice" step (1, 2 or 5 times a power of ten) is at
/// least 1 and every tick is a whole number.
fn y_ticks(fig: &Figure, lo: f64, hi: f64) -> usize {
    if fig.integer_y {
        ((hi - lo).floor() as usize).clamp(1, 10)
    } else {
        10
    }
}

/// Draws `fig` as SVG into `svg`.
///
/// One function because plotters' chart context is built once and every layer (the band,
/// the bars or lines, the error bars, the published markers, the legend) draws into it in
/// the order it is stacked.
fn draw(fig: &Figure, svg: &mut String) -> Result<(), FigureError> {
    let root = SVGBackend::with_string(svg, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_error)?;
    let n_x = fig.x_labels.len().max(1);
    let (y_lo, y_hi) = y_range(fig);
    let has_band = fig
        .bands
        .iter()
        .any(|b| b.lower.is_finite() && b.upper.is_finite());
    let legend = legend::place(fig, has_band.then_some(BAND_LABEL), y_lo, y_hi);
    let y_hi = legend.y_hi;
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, (FONT, 20))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(n_x as f64 - 0.5), y_lo..y_hi)
        .map_err(draw_error)?;
    let labels = fig.x_labels.clone();
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(n_x)
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
                labels[i as usize].clone()
            } else {
                String::new()
            }
        })
        .x_desc(&fig.x_label)
        .y_desc(&fig.y_label)
        .y_labels(y_ticks(fig, y_lo, y_hi))
        .y_label_formatter(&|v| {
            if fig.integer_y {
                format!("{v:.0}")
            } else {
                format!("{v}")
            }
        })
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(draw_error)?;
    let n_s = fig.series.len().max(1);
    draw_bands(&mut chart, fig)?;
    match fig.chart {
        Chart::Bars => {
            let group = 0.8;
            let w = group / n_s as f64;
            for (si, name) in fig.series.iter().enumerate() {
                let c = color(si);
                let rects: Vec<_> = fig
                    .bars
                    .iter()
                    // A bar less than a pixel high is no rectangle (an SVG renderer rejects one
                    // of no height); its value is in the CSVs and on the label.
                    .filter(|b| {
                        let (base, top) = (
                            chart.backend_coord(&(0.0, 0.0)).1,
                            chart.backend_coord(&(0.0, b.value.mean)).1,
                        );
                        b.series_index == si && b.value.mean.is_finite() && base != top
                    })
                    .map(|b| {
                        let x0 = b.x_index as f64 - group / 2.0 + si as f64 * w;
                        Rectangle::new(
                            [(x0 + 0.05 * w, 0.0), (x0 + 0.95 * w, b.value.mean)],
                            c.filled(),
                        )
                    })
                    .collect();
                let sh = shape(si);
                chart
                    .draw_series(rects)
                    .map_err(draw_error)?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        let (pts, closed) = glyph(sh, (8, 0));
                        EmptyElement::at((x, y))
                            + Rectangle::new([(0, -6), (16, 6)], c.filled())
                            + Polygon::new(pts, c.filled())
                            + PathElement::new(closed, BLACK.stroke_width(1))
                    });
                for b in fig.bars.iter().filter(|b| b.series_index == si) {
                    let xc = b.x_index as f64 - group / 2.0 + (si as f64 + 0.5) * w;
                    draw_error_bar(&mut chart, xc, &b.value, w * 0.3)?;
                    if b.value.mean.is_finite() {
                        chart
                            .draw_series(std::iter::once(marker(
                                (xc, b.value.mean),
                                sh,
                                4,
                                c,
                                true,
                            )))
                            .map_err(draw_error)?;
                    }
                    if let Some(l) = b.label.filter(|l| l.is_finite()) {
                        chart
                            .draw_series(std::iter::once(Text::new(
                                format!("{l:.1}"),
                                (
                                    xc - w * 0.3,
                                    b.value.ci95_high.unwrap_or(b.value.mean).max(b.value.mean)
                                        + (y_hi - y_lo) * 0.02,
                                ),
                                (FONT, 11),
                            )))
                            .map_err(draw_error)?;
                    }
                }
            }
        }
        Chart::Lines => {
            for (si, name) in fig.series.iter().enumerate() {
                let c = color(si);
                let mut pts: Vec<(f64, f64)> = fig
                    .bars
                    .iter()
                    .filter(|b| b.series_index == si && b.value.mean.is_finite())
                    .map(|b| (b.x_index as f64, b.value.mean))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                let sh = shape(si);
                let style = c.stroke_width(2);
                let drawn = match dashes(si) {
                    None => chart.draw_series(LineSeries::new(pts.clone(), style)),
                    Some((dash, gap)) => {
                        chart.draw_series(DashedLineSeries::new(pts.clone(), dash, gap, style))
                    }
                };
                drawn
                    .map_err(draw_error)?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        let (dash, gap) = dashes(si).unwrap_or((22, 1));
                        let (pts, closed) = glyph(sh, (11, 0));
                        EmptyElement::at((x, y))
                            + Polygon::new(pts, c.filled())
                            + PathElement::new(closed, BLACK.stroke_width(1))
                            + plotters::element::DashedPathElement::new(
                                vec![(0, 0), (22, 0)],
                                dash,
                                gap,
                                style,
                            )
                    });
                for b in fig.bars.iter().filter(|b| b.series_index == si) {
                    draw_error_bar(&mut chart, b.x_index as f64, &b.value, 0.08)?;
                }
                chart
                    .draw_series(pts.iter().map(|&(x, y)| marker((x, y), sh, 4, c, true)))
                    .map_err(draw_error)?;
            }
        }
    }
    draw_published(&mut chart, fig)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .position(if legend.left {
            SeriesLabelPosition::UpperLeft
        } else {
            SeriesLabelPosition::UpperRight
        })
        .draw()
        .map_err(draw_error)?;
    root.present().map_err(draw_error)?;
    Ok(())
}

fn draw_error_bar<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    x: f64,
    e: &Interval,
    half: f64,
) -> Result<(), FigureError> {
    let (Some(lo), Some(hi)) = (e.ci95_low, e.ci95_high) else {
        return Ok(());
    };
    if !(lo.is_finite() && hi.is_finite()) {
        return Ok(());
    }
    let style = BLACK.stroke_width(1);
    let lines = vec![
        PathElement::new(vec![(x, lo), (x, hi)], style),
        PathElement::new(vec![(x - half, lo), (x + half, lo)], style),
        PathElement::new(vec![(x - half, hi), (x + half, hi)], style),
    ];
    chart
        .draw_series(lines)
        .map_err(|e| FigureError::Draw(format!("{e:?}")))?;
    Ok(())
}

/// The values the paper reports: a hollow marker of the series' shape and colour at each,
/// where the series' own value is drawn (the bar's centre, the line's point).
fn draw_published<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<
        'a,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    fig: &Figure,
) -> Result<(), FigureError> {
    let n_s = fig.series.len().max(1);
    let points: Vec<_> = fig
        .published
        .iter()
        .filter(|p| p.value.is_finite() && p.series_index < n_s)
        .map(|p| {
            let x = match fig.chart {
                Chart::Bars => {
                    let w = 0.8 / n_s as f64;
                    p.x_index as f64 - 0.4 + (p.series_index as f64 + 0.5) * w
                }
                Chart::Lines => p.x_index as f64,
            };
            marker(
                (x, p.value),
                shape(p.series_index),
                6,
                color(p.series_index),
                false,
            )
        })
        .collect();
    if points.is_empty() {
        return Ok(());
    }
    chart
        .draw_series(points)
        .map_err(draw_error)?
        .label("published (hollow markers)")
        .legend(|(x, y)| marker((x + 8, y), Shape::Circle, 5, BLACK, false));
    Ok(())
}

const BAND: RGBColor = RGBColor(150, 150, 150);

/// The clairvoyant optimum's bracket: a grey band between its sides with dashed edges, over
/// each bar group (bars) or across the x axis (lines), behind the series.
fn draw_bands<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    fig: &Figure,
) -> Result<(), FigureError> {
    let mut bands: Vec<Band> = fig
        .bands
        .iter()
        .copied()
        .filter(|b| b.lower.is_finite() && b.upper.is_finite())
        .collect();
    if bands.is_empty() {
        return Ok(());
    }
    bands.sort_by_key(|b| b.x_index);
    let fill = BAND.mix(0.25).filled();
    let edge = BAND.stroke_width(2);
    let spans: Vec<(f64, f64, Band)> = match fig.chart {
        Chart::Bars => bands
            .iter()
            .map(|b| (b.x_index as f64 - 0.45, b.x_index as f64 + 0.45, *b))
            .collect(),
        Chart::Lines => bands
            .windows(2)
            .map(|w| (w[0].x_index as f64, w[1].x_index as f64, w[0]))
            .collect(),
    };
    match fig.chart {
        Chart::Bars => {
            chart
                .draw_series(
                    spans
                        .iter()
                        .map(|&(x0, x1, b)| Rectangle::new([(x0, b.lower), (x1, b.upper)], fill)),
                )
                .map_err(draw_error)?
                .label(BAND_LABEL)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill));
            for &(x0, x1, b) in &spans {
                for y in [b.lower, b.upper] {
                    chart
                        .draw_series(DashedLineSeries::new(vec![(x0, y), (x1, y)], 6, 4, edge))
                        .map_err(draw_error)?;
                }
            }
        }
        Chart::Lines => {
            let mut poly: Vec<(f64, f64)> =
                bands.iter().map(|b| (b.x_index as f64, b.upper)).collect();
            poly.extend(bands.iter().rev().map(|b| (b.x_index as f64, b.lower)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, fill)))
                .map_err(draw_error)?
                .label(BAND_LABEL)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill));
            for side in [
                bands
                    .iter()
                    .map(|b| (b.x_index as f64, b.upper))
                    .collect::<Vec<_>>(),
                bands.iter().map(|b| (b.x_index as f64, b.lower)).collect(),
            ] {
                chart
                    .draw_series(DashedLineSeries::new(side, 6, 4, edge))
                    .map_err(draw_error)?;
            }
        }
    }
    Ok(())
}

/// Rasterises an SVG ([`svg`]) and encodes it as an 8-bit RGBA PNG, compressed with the `png`
/// crate's fast level (a DEFLATE specialised for PNG: several times faster than tiny-skia's
/// default level, for files a little larger). Any SVG that names [`FONT`] renders the same
/// on every host: the sweeps' figures and the report's timelines.
///
/// [`FigureError::NotBuilt`] when the program was built without the `png` feature.
pub fn png(svg: &str) -> Result<Vec<u8>, FigureError> {
    #[cfg(feature = "png")]
    {
        render_png(svg)
    }
    #[cfg(not(feature = "png"))]
    {
        let _ = svg;
        Err(FigureError::NotBuilt)
    }
}

#[cfg(feature = "png")]
fn render_png(svg: &str) -> Result<Vec<u8>, FigureError> {
    let opt = resvg::usvg::Options {
        font_family: FONT.to_string(),
        fontdb: fonts(),
        ..Default::default()
    };
    let tree =
        resvg::usvg::Tree::from_str(svg, &opt).map_err(|e| FigureError::Svg(e.to_string()))?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| FigureError::Png(format!("cannot allocate {size:?} pixels")))?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    // tiny-skia keeps premultiplied colours; PNG stores straight ones.
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for p in pixmap.pixels() {
        let c = p.demultiply();
        rgba.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    let png_error = |e: png::EncodingError| FigureError::Png(e.to_string());
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header().map_err(png_error)?;
        writer.write_image_data(&rgba).map_err(png_error)?;
        writer.finish().map_err(png_error)?;
    }
    Ok(bytes)
}

/// The embedded DejaVu Sans, parsed once per process.
#[cfg(feature = "png")]
fn fonts() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static FONTS: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> =
        std::sync::OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = resvg::usvg::fontdb::Database::new();
            db.load_font_data(dejavu::sans::regular().to_vec());
            std::sync::Arc::new(db)
        })
        .clone()
}

/// Minimum, first quartile, median, third quartile and maximum of sorted values (linear
/// interpolation between order statistics); NaN for no value.
pub fn quartiles(sorted: &[f64]) -> [f64; 5] {
    if sorted.is_empty() {
        return [f64::NAN; 5];
    }
    let q = |p: f64| {
        let pos = p * (sorted.len() - 1) as f64;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
    };
    [
        sorted[0],
        q(0.25),
        q(0.5),
        q(0.75),
        sorted[sorted.len() - 1],
    ]
}

/// Draws box plots, one per named series.
fn draw_boxes(plot: &BoxPlot, svg: &mut String) -> Result<(), FigureError> {
    let (title, y_label, boxes) = (&plot.title, &plot.y_label, &plot.boxes);
    {
        let root = SVGBackend::with_string(svg, (960, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_error)?;
        let n = boxes.len().max(1);
        let hi = boxes
            .iter()
            .map(|b| b.1[4])
            .filter(|v| v.is_finite())
            .fold(0.0f64, f64::max)
            .max(1e-9)
            * 1.1;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 20))
            .margin(15)
            .x_label_area_size(50)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), 0.0..hi)
            .map_err(draw_error)?;
        let names: Vec<String> = boxes.iter().map(|b| b.0.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .x_label_formatter(&|v| {
                let i = v.round();
                if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < names.len() {
                    names[i as usize].clone()
                } else {
                    String::new()
                }
            })
            .y_desc(y_label)
            .label_style((FONT, 14))
            .axis_desc_style((FONT, 16))
            .draw()
            .map_err(draw_error)?;
        for (i, (_, q)) in boxes.iter().enumerate() {
            let x = i as f64;
            let c = color(i);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.25, q[1]), (x + 0.25, q[3])],
                    c.mix(0.5).filled(),
                )))
                .map_err(draw_error)?;
            let style = BLACK.stroke_width(1);
            let lines = vec![
                PathElement::new(
                    vec![(x - 0.25, q[2]), (x + 0.25, q[2])],
                    BLACK.stroke_width(2),
                ),
                PathElement::new(vec![(x, q[0]), (x, q[1])], style),
                PathElement::new(vec![(x, q[3]), (x, q[4])], style),
                PathElement::new(vec![(x - 0.1, q[0]), (x + 0.1, q[0])], style),
                PathElement::new(vec![(x - 0.1, q[4]), (x + 0.1, q[4])], style),
            ];
            chart.draw_series(lines).map_err(draw_error)?;
        }
        root.present().map_err(draw_error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figure(chart: Chart, bands: Vec<Band>) -> Figure {
        let bars = (0..2)
            .flat_map(|x| {
                (0..2).map(move |s| Bar {
                    x_index: x,
                    series_index: s,
                    value: Interval {
                        mean: 10.0 * (x + s + 1) as f64,
                        ci95_low: Some(9.0),
                        ci95_high: Some(11.0 + x as f64),
                    },
                    label: Some(1.5),
                })
            })
            .collect();
        Figure {
            title: "a figure".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            x_labels: vec!["first".into(), "second".into()],
            series: vec!["PAM".into(), "MM".into()],
            bars,
            bands,
            chart,
            ..Figure::default()
        }
    }

    #[cfg(feature = "png")]
    #[test]
    fn bars_lines_and_boxes_draw_their_labels_and_render_to_png() {
        let band = |x| Band {
            x_index: x,
            lower: 40.0,
            upper: 45.0,
        };
        for plot in [
            Plot::Figure(figure(Chart::Bars, vec![band(0), band(1)])),
            Plot::Figure(figure(Chart::Lines, vec![band(0), band(1)])),
            Plot::Figure(figure(Chart::Bars, Vec::new())),
            Plot::Boxes(BoxPlot {
                title: "boxes".into(),
                y_label: "Psi".into(),
                boxes: vec![
                    ("PB-R".into(), quartiles(&[0.1, 0.2, 0.3])),
                    ("RF".into(), quartiles(&[0.5, 0.6, 0.9])),
                ],
            }),
        ] {
            let svg = svg(&plot).unwrap();
            assert!(svg.starts_with("<svg"), "{svg}");
            let names: &[&str] = match &plot {
                Plot::Figure(f) if !f.bands.is_empty() => {
                    &["PAM", "MM", "first", "clairvoyant optimum"]
                }
                Plot::Figure(_) => &["PAM", "MM", "second"],
                Plot::Boxes(_) => &["PB-R", "RF", "Psi"],
            };
            for n in names {
                assert!(svg.contains(n), "no {n} in the SVG");
            }
            let png = png(&svg).unwrap();
            assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        }
    }

    /// The numbers of the y axis's tick labels in an SVG (the labels right of nothing but
    /// digits, signs and a point, at the axis's anchor).
    fn y_tick_labels(svg: &str) -> Vec<String> {
        svg.split("<text")
            .filter(|t| t.contains("text-anchor=\"end\""))
            .filter_map(|t| {
                t.split('>')
                    .nth(1)?
                    .split('<')
                    .next()
                    .map(|l| l.trim().to_owned())
            })
            .filter(|l| {
                !l.is_empty()
                    && l.chars()
                        .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
            })
            .collect()
    }

    #[test]
    fn a_count_axis_has_whole_number_ticks_only() {
        let mut f = figure(Chart::Bars, Vec::new());
        for b in &mut f.bars {
            b.value = Interval {
                mean: b.value.mean / 10.0,
                ci95_low: None,
                ci95_high: None,
            };
        }
        let plain = svg(&Plot::Figure(f.clone())).unwrap();
        assert!(
            y_tick_labels(&plain).iter().any(|l| l.contains('.')),
            "the test needs a range where plotters picks fractional ticks: {:?}",
            y_tick_labels(&plain)
        );
        f.integer_y = true;
        let counts = svg(&Plot::Figure(f)).unwrap();
        let labels = y_tick_labels(&counts);
        assert!(labels.len() >= 2, "{labels:?}");
        let mut seen = std::collections::BTreeSet::new();
        for l in &labels {
            assert!(
                !l.contains('.'),
                "a fractional tick on a count axis: {labels:?}"
            );
            assert!(seen.insert(l.clone()), "a tick label twice: {labels:?}");
        }
    }

    #[cfg(feature = "png")]
    #[test]
    fn series_differ_by_marker_and_dash_and_published_values_are_hollow() {
        for chart in [Chart::Bars, Chart::Lines] {
            let mut f = figure(chart, Vec::new());
            let plain = svg(&Plot::Figure(f.clone())).unwrap();
            f.published = vec![
                Published {
                    x_index: 1,
                    series_index: 0,
                    value: 25.0,
                },
                Published {
                    x_index: 1,
                    series_index: 1,
                    value: 5.0,
                },
            ];
            let with = svg(&Plot::Figure(f)).unwrap();
            assert!(with.contains("published (hollow markers)"));
            assert!(!plain.contains("published"));
            // The hollow markers: white inside, outlined in the series' colours.
            for c in [PALETTE[0], PALETTE[1]] {
                let stroke = format!("stroke=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
                assert!(
                    with.matches(&stroke).count() > plain.matches(&stroke).count(),
                    "{chart:?}: no outline {stroke} added for a published value ({} vs {})",
                    with.matches(&stroke).count(),
                    plain.matches(&stroke).count()
                );
            }
            // Two series, two marker shapes: polygons of different sizes (16 and 4 corners).
            let corners: std::collections::BTreeSet<usize> = plain
                .split("<polygon")
                .skip(1)
                .map(|p| {
                    p.split("points=\"").nth(1).map_or(0, |q| {
                        q.split('"').next().unwrap_or("").split_whitespace().count()
                    })
                })
                .collect();
            assert!(
                corners.contains(&16) && corners.contains(&4),
                "{chart:?}: {corners:?}"
            );
            if chart == Chart::Lines {
                assert!(
                    plain.contains("<polyline"),
                    "the solid line of the first series"
                );
            }
            assert!(png(&with).is_ok());
        }
        assert_ne!(dashes(0), dashes(1));
        assert_ne!(shape(0), shape(1));
    }

    #[cfg(feature = "png")]
    #[test]
    fn a_bar_of_height_zero_draws_no_rectangle() {
        // 0, and values above 0 that are less than a pixel high (a 0.01% bar on a 100% axis).
        for mean in [0.0, 1e-9, 1e-2] {
            let mut f = figure(Chart::Bars, Vec::new());
            f.bars[0].value.mean = mean;
            let svg = svg(&Plot::Figure(f)).unwrap();
            assert!(
                !svg.contains("height=\"0\""),
                "a rectangle of no height at {mean}: {svg}"
            );
            assert!(png(&svg).is_ok());
        }
    }

    #[cfg(feature = "png")]
    #[test]
    fn the_same_plot_gives_the_same_bytes() {
        let a = svg(&Plot::Figure(figure(Chart::Bars, Vec::new()))).unwrap();
        let b = svg(&Plot::Figure(figure(Chart::Bars, Vec::new()))).unwrap();
        assert_eq!(a, b);
        assert_eq!(png(&a).unwrap(), png(&b).unwrap());
    }

    #[test]
    fn quartiles_interpolate_between_order_statistics() {
        assert_eq!(
            quartiles(&[1.0, 2.0, 3.0, 4.0]),
            [1.0, 1.75, 2.5, 3.25, 4.0]
        );
        assert_eq!(quartiles(&[7.0]), [7.0; 5]);
        assert!(quartiles(&[]).iter().all(|q| q.is_nan()));
    }

    #[cfg(feature = "png")]
    #[test]
    fn an_unparsable_svg_is_an_error() {
        assert!(matches!(png("not an svg"), Err(FigureError::Svg(_))));
    }

    #[cfg(not(feature = "png"))]
    #[test]
    fn without_the_png_feature_a_png_is_refused_by_name() {
        const { assert!(!PNG) };
        let e = png("<svg/>").unwrap_err();
        assert!(matches!(e, FigureError::NotBuilt));
        assert!(e.to_string().contains("`png` feature"), "{e}");
    }
}
