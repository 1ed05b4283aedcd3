//! The concept figures of the user guide (`docs/guide/src/figures/*.svg`), drawn from the
//! library's own functions: a PET entry of the built-in PET, a task's completion-time PMF
//! under the three dropping scenarios (`pmf::next_pct`) and the oversubscription level of the
//! pruner's engagement rule (`pruner::Engagement`). `cargo xtask guide-figures` writes them;
//! a test checks that the committed files are what this code draws.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use plotters::prelude::*;
use pmf::{DropModel, Pmf, Tick};

const FONT: &str = "sans-serif";

/// Options of `cargo xtask guide-figures`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// Where to write the SVG files.
    #[arg(long, default_value = "docs/guide/src/figures")]
    pub out: PathBuf,
}

/// Writes every figure into `args.out`.
pub(crate) fn run(args: &Args) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for (name, svg) in figures()? {
        let path: PathBuf = Path::new(&args.out).join(name);
        std::fs::write(&path, svg).with_context(|| format!("writing {}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Every figure: its file name and its SVG text.
pub(crate) fn figures() -> Result<Vec<(&'static str, String)>> {
    Ok(vec![
        ("pet.svg", pet()?),
        ("pct.svg", pct()?),
        ("oversubscription.svg", oversubscription()?),
    ])
}

fn err(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow::anyhow!("drawing: {e}")
}

/// The built-in PET (seed 2019, the default experiment's): one task type on three machines.
fn pet() -> Result<String> {
    let pet = workload::Pet::default_pet(2019);
    let task_type = 0;
    let machines = [0usize, 3, 6];
    let pmfs: Vec<&Pmf> = machines.iter().map(|&m| pet.pmf(task_type, m)).collect();
    let x_max = pmfs
        .iter()
        .map(|p| p.offset() + p.len() as Tick)
        .max()
        .unwrap_or(1) as f64;
    let y_max = pmfs
        .iter()
        .flat_map(|p| p.masses().iter().copied())
        .fold(0.0, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "PET: execution-time PMFs of task type {} on three machines",
                    pet.type_names()[task_type]
                ),
                (FONT, 17),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d(0.0..x_max * 1.02, 0.0..y_max * 1.1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("execution time (time units)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc("probability")
            .disable_x_mesh()
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        for (i, (&m, p)) in machines.iter().zip(&pmfs).enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let stems: Vec<(f64, f64)> = p
                .iter()
                .filter(|&(_, w)| w > 0.0)
                .map(|(t, w)| (t as f64, w))
                .collect();
            chart
                .draw_series(
                    stems.iter().map(|&(t, w)| {
                        PathElement::new(vec![(t, 0.0), (t, w)], color.stroke_width(2))
                    }),
                )
                .map_err(err)?
                .label(format!(
                    "machine {} (mean {:.0})",
                    pet.machine_names()[m],
                    p.mean()
                ))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .label_font((FONT, 12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Two tasks queued on one idle machine at tick 0: the PCT of the second under each dropping
/// scenario, with its deadline and its chance of success.
fn pct() -> Result<String> {
    let first = pmf::ExecPmf::from(
        Pmf::from_pairs([(4, 0.2), (6, 0.4), (8, 0.2), (15, 0.2)])
            .map_err(err)?
            .pmf,
    );
    let second = pmf::ExecPmf::from(
        Pmf::from_pairs([(3, 0.3), (5, 0.5), (7, 0.2)])
            .map_err(err)?
            .pmf,
    );
    let (deadline_first, deadline_second): (Tick, Tick) = (9, 13);
    let start = Pmf::point(0);
    let scenarios = [
        (DropModel::None, "(A) nothing dropped: eq. (2)"),
        (
            DropModel::Pending,
            "(B) pending tasks dropped: eqs. (3)-(4)",
        ),
        (
            DropModel::All,
            "(C) every task dropped at its deadline: eq. (5)",
        ),
    ];
    let mut panels = Vec::new();
    for (model, title) in scenarios {
        let pct_first = pmf::next_pct(&start, &first, deadline_first, model).map_err(err)?;
        let pct_second = pmf::next_pct(&pct_first, &second, deadline_second, model).map_err(err)?;
        let p = pmf::success_probability(&pct_second, deadline_second);
        panels.push((title, pct_second, p));
    }
    let x_max = 24.0;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, rest) = root.split_vertically(40);
        top.draw(&Text::new(
            format!(
                "PCT of the second task in a queue (deadlines {deadline_first} and {deadline_second}): success = mass before {deadline_second}"
            ),
            (12, 12),
            (FONT, 16),
        ))
        .map_err(err)?;
        let areas = rest.split_evenly((3, 1));
        for (area, (title, pct, p)) in areas.iter().zip(&panels) {
            let mut chart = ChartBuilder::on(area)
                .caption(
                    format!("{title}; robustness eq. (1): p = {p:.3}"),
                    (FONT, 14),
                )
                .margin(6)
                .x_label_area_size(28)
                .y_label_area_size(48)
                .build_cartesian_2d(0.0..x_max, 0.0..0.75)
                .map_err(err)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(12)
                .y_labels(4)
                .x_label_formatter(&|x| format!("{x:.0}"))
                .label_style((FONT, 11))
                .draw()
                .map_err(err)?;
            chart
                .draw_series(pct.iter().filter(|&(_, w)| w > 0.0).map(|(t, w)| {
                    let color = if t < deadline_second { BLUE } else { RED };
                    PathElement::new(vec![(t as f64, 0.0), (t as f64, w)], color.stroke_width(4))
                }))
                .map_err(err)?;
            let d = deadline_second as f64;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(d - 0.5, 0.0), (d - 0.5, 0.75)],
                    BLACK.mix(0.6).stroke_width(1),
                )))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The oversubscription level `d_t` of eq. (8) over mapping events for a sequence of deadline
/// misses, with the paper's toggle 1, lambda 0.9 and Schmitt trigger (off at 0.8).
fn oversubscription() -> Result<String> {
    let misses: [usize; 24] = [
        0, 0, 1, 0, 0, 2, 3, 1, 1, 0, 0, 1, 0, 0, 0, 2, 1, 0, 1, 0, 0, 0, 0, 0,
    ];
    let toggle = pruner::Toggle::Level(1.0);
    let mut paper = pruner::Engagement::new(toggle, 0.9, Some(0.8)).map_err(err)?;
    let mut plain = pruner::Engagement::new(toggle, 1.0, None).map_err(err)?;
    let mut level = Vec::new();
    for (t, &m) in misses.iter().enumerate() {
        let on = paper.observe(m);
        plain.observe(m);
        level.push((t as f64, paper.level(), plain.level(), on));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, 360)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let n = misses.len() as f64;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Oversubscription level d_t, eq. (8): lambda 0.9, toggle 1, Schmitt off at 0.8",
                (FONT, 16),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(48)
            .build_cartesian_2d(-0.5..n - 0.5, 0.0..3.5)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc("mapping event")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_desc("deadline misses")
            .disable_x_mesh()
            .label_style((FONT, 12))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(level.iter().filter(|r| r.3).map(|&(t, ..)| {
                Rectangle::new([(t - 0.5, 0.0), (t + 0.5, 3.5)], GREEN.mix(0.15).filled())
            }))
            .map_err(err)?
            .label("dropping engaged")
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 16, y + 5)], GREEN.mix(0.3).filled())
            });
        chart
            .draw_series(misses.iter().enumerate().map(|(t, &m)| {
                Rectangle::new(
                    [(t as f64 - 0.2, 0.0), (t as f64 + 0.2, m as f64)],
                    BLACK.mix(0.35).filled(),
                )
            }))
            .map_err(err)?
            .label("misses since the last event, mu_t")
            .legend(|(x, y)| {
                Rectangle::new([(x, y - 5), (x + 16, y + 5)], BLACK.mix(0.35).filled())
            });
        chart
            .draw_series(LineSeries::new(
                level.iter().map(|&(t, _, d, _)| (t, d)),
                RED.mix(0.6).stroke_width(1),
            ))
            .map_err(err)?
            .label("d_t with lambda = 1 (the thesis' toggle)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], RED.mix(0.6)));
        chart
            .draw_series(LineSeries::new(
                level.iter().map(|&(t, d, ..)| (t, d)),
                BLUE.stroke_width(2),
            ))
            .map_err(err)?
            .label("d_t with lambda = 0.9 (the paper)")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], BLUE.stroke_width(2)));
        for (y, label) in [(1.0, "toggle"), (0.8, "off level")] {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(-0.5, y), (n - 0.5, y)],
                    BLACK.mix(0.5).stroke_width(1),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    label,
                    (n - 3.5, y + 0.05),
                    (FONT, 11),
                )))
                .map_err(err)?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .label_font((FONT, 12))
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}
