//! Figures as SVG (plotters) and PNG (the SVG rendered by resvg with an embedded DejaVu Sans,
//! so no system font or fontconfig is needed).

use std::path::Path;

use anyhow::{Context, Result};
use plotters::prelude::*;
use runner::{Chart, Estimate};

/// One plotted value.
#[derive(Debug, Clone)]
pub struct Bar {
    /// Position on the x axis.
    pub x_index: usize,
    /// Which series.
    pub series_index: usize,
    /// Mean and 95% CI.
    pub estimate: Estimate,
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

/// A figure to draw.
#[derive(Debug, Clone)]
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
    /// Bars or lines.
    pub chart: Chart,
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

const FONT: &str = "DejaVu Sans";

/// Draws the figure as SVG, then renders it to PNG.
pub fn write(fig: &Figure, svg_path: &Path, png_path: &Path) -> Result<()> {
    let mut svg = String::new();
    draw(fig, &mut svg)?;
    runner::files::write_atomic(svg_path, svg.as_bytes())?;
    render_png(&svg, png_path)
}

fn y_range(fig: &Figure) -> (f64, f64) {
    let hi = fig
        .bars
        .iter()
        .map(|b| {
            b.estimate
                .ci95_high
                .unwrap_or(b.estimate.mean)
                .max(b.estimate.mean)
        })
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let lo = fig
        .bars
        .iter()
        .map(|b| {
            b.estimate
                .ci95_low
                .unwrap_or(b.estimate.mean)
                .min(b.estimate.mean)
        })
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::min);
    let hi = fig
        .bands
        .iter()
        .map(|b| b.upper)
        .filter(|v| v.is_finite())
        .fold(hi, f64::max);
    let hi = if hi <= 0.0 { 1.0 } else { hi * 1.15 };
    (lo, hi)
}

fn draw(fig: &Figure, svg: &mut String) -> Result<()> {
    let root = SVGBackend::with_string(svg, (960, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
    let n_x = fig.x_labels.len().max(1);
    let (y_lo, y_hi) = y_range(fig);
    let mut chart = ChartBuilder::on(&root)
        .caption(&fig.title, (FONT, 20))
        .margin(15)
        .x_label_area_size(50)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(n_x as f64 - 0.5), y_lo..y_hi)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
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
        .label_style((FONT, 14))
        .axis_desc_style((FONT, 16))
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
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
                    .filter(|b| b.series_index == si && b.estimate.mean.is_finite())
                    .map(|b| {
                        let x0 = b.x_index as f64 - group / 2.0 + si as f64 * w;
                        Rectangle::new(
                            [(x0 + 0.05 * w, 0.0), (x0 + 0.95 * w, b.estimate.mean)],
                            c.filled(),
                        )
                    })
                    .collect();
                chart
                    .draw_series(rects)
                    .map_err(|e| anyhow::anyhow!("{e}"))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                    });
                for b in fig.bars.iter().filter(|b| b.series_index == si) {
                    let xc = b.x_index as f64 - group / 2.0 + (si as f64 + 0.5) * w;
                    draw_error_bar(&mut chart, xc, &b.estimate, w * 0.3)?;
                    if let Some(l) = b.label.filter(|l| l.is_finite()) {
                        chart
                            .draw_series(std::iter::once(Text::new(
                                format!("{l:.1}"),
                                (
                                    xc - w * 0.3,
                                    b.estimate
                                        .ci95_high
                                        .unwrap_or(b.estimate.mean)
                                        .max(b.estimate.mean)
                                        + (y_hi - y_lo) * 0.02,
                                ),
                                (FONT, 11),
                            )))
                            .map_err(|e| anyhow::anyhow!("{e}"))?;
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
                    .filter(|b| b.series_index == si && b.estimate.mean.is_finite())
                    .map(|b| (b.x_index as f64, b.estimate.mean))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart
                    .draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))
                    .map_err(|e| anyhow::anyhow!("{e}"))?
                    .label(name.clone())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 16, y)], c.stroke_width(2))
                    });
                chart
                    .draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, c.filled())))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                for b in fig.bars.iter().filter(|b| b.series_index == si) {
                    draw_error_bar(&mut chart, b.x_index as f64, &b.estimate, 0.08)?;
                }
            }
        }
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .label_font((FONT, 13))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(())
}

fn draw_error_bar<DB: DrawingBackend>(
    chart: &mut ChartContext<
        '_,
        DB,
        Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
    >,
    x: f64,
    e: &Estimate,
    half: f64,
) -> Result<()> {
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
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
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
) -> Result<()> {
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
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .label("clairvoyant optimum (between the dashed lines)")
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], fill));
            for &(x0, x1, b) in &spans {
                for y in [b.lower, b.upper] {
                    chart
                        .draw_series(DashedLineSeries::new(vec![(x0, y), (x1, y)], 6, 4, edge))
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                }
            }
        }
        Chart::Lines => {
            let mut poly: Vec<(f64, f64)> =
                bands.iter().map(|b| (b.x_index as f64, b.upper)).collect();
            poly.extend(bands.iter().rev().map(|b| (b.x_index as f64, b.lower)));
            chart
                .draw_series(std::iter::once(Polygon::new(poly, fill)))
                .map_err(|e| anyhow::anyhow!("{e}"))?
                .label("clairvoyant optimum (between the dashed lines)")
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
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
            }
        }
    }
    Ok(())
}

/// Renders an SVG to a PNG: at once, or on the background renderer while one runs
/// ([`Background`]), so that a figure's rendering overlaps the next figure's simulations.
pub fn render_png(svg: &str, png_path: &Path) -> Result<()> {
    let queued = BACKGROUND
        .lock()
        .map_err(|_| anyhow::anyhow!("the background renderer panicked"))?
        .as_ref()
        .map(|b| b.queue.send((svg.to_owned(), png_path.to_owned())));
    match queued {
        Some(sent) => sent.map_err(|_| anyhow::anyhow!("the background renderer stopped")),
        None => render_now(svg, png_path),
    }
}

/// Rasterises `svg` and writes it as a PNG.
fn render_now(svg: &str, png_path: &Path) -> Result<()> {
    let mut opt = resvg::usvg::Options {
        font_family: FONT.to_string(),
        ..Default::default()
    };
    opt.fontdb_mut()
        .load_font_data(dejavu::sans::regular().to_vec());
    let tree = resvg::usvg::Tree::from_str(svg, &opt).context("parsing the SVG")?;
    let size = tree.size().to_int_size();
    let mut pixmap =
        resvg::tiny_skia::Pixmap::new(size.width(), size.height()).context("allocating the PNG")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::default(),
        &mut pixmap.as_mut(),
    );
    write_png(&pixmap, png_path).with_context(|| format!("writing {}", png_path.display()))
}

/// Writes `pixmap` as an 8-bit RGBA PNG, compressed with the `png` crate's fast level (a
/// DEFLATE specialised for PNG: several times faster than tiny-skia's default level for
/// files a little larger).
fn write_png(pixmap: &resvg::tiny_skia::Pixmap, path: &Path) -> Result<()> {
    // tiny-skia keeps premultiplied colours; PNG stores straight ones.
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for p in pixmap.pixels() {
        let c = p.demultiply();
        rgba.extend_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
    }
    let mut bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut bytes, pixmap.width(), pixmap.height());
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&rgba)?;
        writer.finish()?;
    }
    runner::files::write_atomic(path, &bytes)?;
    Ok(())
}

/// A PNG to render: the SVG and where to write it.
type RenderJob = (String, std::path::PathBuf);

/// The background renderer while one runs: a thread rendering the queued PNGs in order.
struct Running {
    queue: std::sync::mpsc::Sender<RenderJob>,
    thread: std::thread::JoinHandle<Result<()>>,
}

static BACKGROUND: std::sync::Mutex<Option<Running>> = std::sync::Mutex::new(None);

/// While alive, [`render_png`] queues PNGs to a background thread instead of rendering them
/// in place. [`Background::finish`] waits for every queued PNG and reports the first error;
/// dropping it without finishing waits too, but loses the error.
pub struct Background(());

impl Background {
    /// Starts the background renderer (one at a time per process).
    pub fn start() -> Result<Self> {
        let mut slot = BACKGROUND
            .lock()
            .map_err(|_| anyhow::anyhow!("the background renderer panicked"))?;
        anyhow::ensure!(slot.is_none(), "a background renderer is already running");
        let (queue, jobs) = std::sync::mpsc::channel::<RenderJob>();
        let thread = std::thread::Builder::new()
            .name("png".into())
            .spawn(move || -> Result<()> {
                for (svg, path) in jobs {
                    render_now(&svg, &path)?;
                }
                Ok(())
            })
            .context("starting the PNG renderer")?;
        *slot = Some(Running { queue, thread });
        Ok(Background(()))
    }

    /// Waits for every queued PNG; the first rendering error, if any.
    pub fn finish(self) -> Result<()> {
        stop()
    }
}

impl Drop for Background {
    fn drop(&mut self) {
        let _ = stop();
    }
}

/// Closes the queue and waits for the renderer (nothing to do once stopped).
fn stop() -> Result<()> {
    let running = BACKGROUND
        .lock()
        .map_err(|_| anyhow::anyhow!("the background renderer panicked"))?
        .take();
    match running {
        Some(Running { queue, thread }) => {
            drop(queue);
            thread
                .join()
                .map_err(|_| anyhow::anyhow!("the PNG renderer panicked"))?
        }
        None => Ok(()),
    }
}

/// The seed-004 tables as grouped bars: ratio to ORACLE per distribution and strategy.
pub fn write_gao(
    rows: &[cutting::tables::Row],
    id: &str,
    svg_path: &Path,
    png_path: &Path,
) -> Result<()> {
    let mut dists: Vec<String> = Vec::new();
    let mut strategies: Vec<String> = Vec::new();
    for r in rows {
        if !dists.contains(&r.distribution) {
            dists.push(r.distribution.clone());
        }
        if !strategies.contains(&r.strategy) {
            strategies.push(r.strategy.clone());
        }
    }
    let bars = rows
        .iter()
        .map(|r| Bar {
            x_index: dists.iter().position(|d| *d == r.distribution).unwrap_or(0),
            series_index: strategies
                .iter()
                .position(|s| *s == r.strategy)
                .unwrap_or(0),
            estimate: Estimate {
                mean: r.ratio,
                ci95_low: Some(r.ci95_low),
                ci95_high: Some(r.ci95_high),
                std_dev: None,
                n: r.n,
            },
            label: None,
        })
        .collect();
    let fig = Figure {
        title: format!("{id}: tasks completed, ratio to ORACLE (Gao, Robert, Vivien)"),
        x_label: "Execution-time distribution".into(),
        y_label: "Ratio to ORACLE".into(),
        x_labels: dists,
        series: strategies,
        bars,
        bands: Vec::new(),
        chart: Chart::Bars,
    };
    write(&fig, svg_path, png_path)
}

/// min, q1, median, q3, max of sorted values (linear interpolation).
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

/// Box plots, one per named series: [min, q1, median, q3, max].
pub fn write_boxes(
    title: &str,
    y_label: &str,
    boxes: &[(String, [f64; 5])],
    svg_path: &Path,
    png_path: &Path,
) -> Result<()> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (960, 600)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
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
            .map_err(|e| anyhow::anyhow!("{e}"))?;
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
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for (i, (_, q)) in boxes.iter().enumerate() {
            let x = i as f64;
            let c = color(i);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x - 0.25, q[1]), (x + 0.25, q[3])],
                    c.mix(0.5).filled(),
                )))
                .map_err(|e| anyhow::anyhow!("{e}"))?;
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
            chart
                .draw_series(lines)
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    runner::files::write_atomic(svg_path, svg.as_bytes())?;
    render_png(&svg, png_path)
}
