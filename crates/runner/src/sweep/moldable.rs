//! Figures of Hansen et al.'s moldable applications as sweeps: a point per scenario setting
//! (fig. 4: one; fig. 5: one per number of processor types), a trial per random scenario
//! (every heuristic's robustness and the upper bound, [`moldable::experiments::run_trial`]).

use std::fmt::Write as _;

use moldable::experiments::{
    FIG4_POINT, FIG5_POINT, FIGURE5_TYPES, ScenarioParams, TrialResult, figure4_params,
    figure4_rows, figure5_params, figure5_trial, summarise_figure5, write_csv,
};

use super::engine::{Kind, Options, Rendered};
use super::file::MoldableSpec;
use crate::error::RunError;

/// A figure's points, resolved against the run's options.
pub(crate) struct MoldableSweep<'a> {
    spec: &'a MoldableSpec,
    /// Per point: its scenario parameters, the number it keys the streams with, and its
    /// number of processor types.
    points: Vec<(ScenarioParams, u64, usize)>,
    trials: u64,
    keys: Vec<String>,
}

fn moldable_error(id: &str, e: &moldable::MoldableError) -> RunError {
    RunError::Input(format!("{id}: {e}"))
}

impl<'a> MoldableSweep<'a> {
    /// The figure's scenario settings, `--trials` scenarios each (default: the file's).
    pub(crate) fn new(spec: &'a MoldableSpec, options: &Options) -> Result<Self, RunError> {
        let points: Vec<(ScenarioParams, u64, usize)> = match spec.figure {
            4 => {
                let p = figure4_params();
                vec![(p, FIG4_POINT, p.n_types)]
            }
            _ => FIGURE5_TYPES
                .iter()
                .map(|&n| (figure5_params(n), FIG5_POINT + n as u64, n))
                .collect(),
        };
        let trials = options.trials.unwrap_or(spec.trials);
        let keys = points
            .iter()
            .map(|(params, point, _)| -> Result<String, RunError> {
                Ok(format!(
                    "moldable|figure={}|params={}|point={point}|trials={trials}|seed={}|version={}|revision={}",
                    spec.figure,
                    serde_json::to_string(params).map_err(|e| RunError::Input(e.to_string()))?,
                    spec.seed,
                    crate::provenance::VERSION,
                    crate::provenance::GIT_REVISION
                ))
            })
            .collect::<Result<_, _>>()?;
        Ok(MoldableSweep {
            spec,
            points,
            trials,
            keys,
        })
    }
}

impl Kind for MoldableSweep<'_> {
    type Trial = TrialResult;

    fn id(&self) -> &str {
        &self.spec.id
    }

    fn points(&self) -> usize {
        self.points.len()
    }

    fn trials(&self, _: usize) -> u64 {
        self.trials
    }

    fn key(&self, p: usize) -> &str {
        &self.keys[p]
    }

    fn run_trial(&self, p: usize, k: u64) -> Result<TrialResult, RunError> {
        let (params, point, _) = &self.points[p];
        moldable::experiments::run_trial(params, self.spec.seed, *point, k as usize)
            .map_err(|e| moldable_error(&self.spec.id, &e))
    }

    /// The figure's table, CSVs and plot from every point's trials.
    ///
    /// One function because, as the experiment sweep's `render`, it writes the table, the
    /// CSVs and the figure in one pass over the points.
    fn render(&self, results: &[Vec<TrialResult>]) -> Result<Rendered, RunError> {
        let spec = self.spec;
        let mut text = String::new();
        let mut csv = Vec::new();
        let plot = if spec.figure == 4 {
            let rows = figure4_rows(&results[0]);
            write_csv(&rows, &mut csv).map_err(|e| moldable_error(&spec.id, &e))?;
            let mut series: Vec<String> = Vec::new();
            for r in &rows {
                if !series.contains(&r.series) {
                    series.push(r.series.clone());
                }
            }
            let _ = writeln!(
                text,
                "{} — robustness per heuristic ({} trials)",
                spec.id, self.trials
            );
            let _ = writeln!(
                text,
                "{:<14} {:>8} {:>8} {:>8} {:>8} {:>8}",
                "series", "min", "q1", "median", "q3", "max"
            );
            let mut boxes = Vec::new();
            for s in &series {
                let mut v: Vec<f64> = rows
                    .iter()
                    .filter(|r| &r.series == s)
                    .map(|r| r.robustness)
                    .collect();
                v.sort_by(f64::total_cmp);
                let q = figures::quartiles(&v);
                let _ = writeln!(
                    text,
                    "{:<14} {:>8.3} {:>8.3} {:>8.3} {:>8.3} {:>8.3}",
                    s, q[0], q[1], q[2], q[3], q[4]
                );
                boxes.push((s.clone(), q));
            }
            figures::Plot::Boxes(figures::BoxPlot {
                title: format!(
                    "{}: robustness of the allocations (Hansen et al., fig. 4)",
                    spec.id
                ),
                y_label: "Robustness Psi".into(),
                boxes,
            })
        } else {
            let trials: Vec<_> = self
                .points
                .iter()
                .zip(results)
                .flat_map(|((_, _, n_types), rs)| rs.iter().map(|r| figure5_trial(*n_types, r)))
                .collect();
            let rows = summarise_figure5(&trials);
            write_csv(&rows, &mut csv).map_err(|e| moldable_error(&spec.id, &e))?;
            let _ = writeln!(
                text,
                "{} — B_norm of RF Duplex vs processor types ({} trials)",
                spec.id, self.trials
            );
            let bars = rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let _ = writeln!(
                        text,
                        "N_p = {:<3} B_norm = {:.4} ± {:.4}",
                        r.n_types, r.mean_b_norm, r.ci95
                    );
                    figures::Bar {
                        x_index: i,
                        series_index: 0,
                        value: figures::Interval {
                            mean: r.mean_b_norm,
                            ci95_low: Some(r.mean_b_norm - r.ci95),
                            ci95_high: Some(r.mean_b_norm + r.ci95),
                        },
                        label: None,
                    }
                })
                .collect();
            figures::Plot::Figure(figures::Figure {
                title: format!(
                    "{}: normalised gap to the upper bound (Hansen et al., fig. 5)",
                    spec.id
                ),
                x_label: "Processor types".into(),
                y_label: "B_norm = (B - Psi) / B".into(),
                x_labels: rows.iter().map(|r| r.n_types.to_string()).collect(),
                series: vec!["RF Duplex".into()],
                bars,
                chart: figures::Chart::Lines,
                ..figures::Figure::default()
            })
        };
        let manifest = serde_json::json!({
            "figure": spec.id,
            "title": spec.title,
            "source": spec.source,
            "git_revision": crate::provenance::GIT_REVISION,
            "version": crate::provenance::VERSION,
            "kind": spec.kind,
            "hansen_figure": spec.figure,
            "trials": self.trials,
            "seed": spec.seed,
            "points": self.points.iter().map(|(params, point, _)| serde_json::json!({
                "stream_point": point,
                "scenario": params,
            })).collect::<Vec<_>>(),
            "notes": spec.notes,
        });
        let manifest =
            serde_json::to_string_pretty(&manifest).map_err(|e| RunError::Input(e.to_string()))?;
        Ok(Rendered {
            text,
            files: vec![
                (format!("{}.csv", spec.id), csv),
                (format!("{}.manifest.json", spec.id), manifest.into_bytes()),
            ],
            plot: Some(plot),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::file::SweepKind;

    fn spec(figure: u8) -> MoldableSpec {
        MoldableSpec {
            kind: SweepKind::Moldable,
            id: format!("hansen-{figure}"),
            title: "t".into(),
            source: String::new(),
            figure,
            trials: 48,
            seed: 2,
            notes: Vec::new(),
        }
    }

    /// Two made-up trials: robustness per heuristic, the bound and the goal.
    fn trials() -> Vec<TrialResult> {
        (0..2)
            .map(|trial| TrialResult {
                trial,
                robustness: (0..moldable::Heuristic::ALL.len())
                    .map(|h| 0.1 * (h + trial + 1) as f64)
                    .collect(),
                bound: 0.9,
                goal: 20.0,
            })
            .collect()
    }

    #[test]
    fn the_figures_are_the_librarys_rows_of_the_trials() {
        let options = Options {
            trials: Some(2),
            ..Options::default()
        };
        let four = spec(4);
        let sweep = MoldableSweep::new(&four, &options).unwrap();
        assert_eq!((sweep.points(), sweep.trials(0)), (1, 2));
        let r = sweep.render(&[trials()]).unwrap();
        let mut want = Vec::new();
        write_csv(&figure4_rows(&trials()), &mut want).unwrap();
        assert_eq!(r.files[0], ("hansen-4.csv".to_owned(), want));
        assert!(matches!(r.plot, Some(figures::Plot::Boxes(_))));
        let five = spec(5);
        let sweep = MoldableSweep::new(&five, &options).unwrap();
        assert_eq!(sweep.points(), FIGURE5_TYPES.len());
        let all = vec![trials(); FIGURE5_TYPES.len()];
        let r = sweep.render(&all).unwrap();
        let per_trial: Vec<_> = FIGURE5_TYPES
            .iter()
            .flat_map(|&n| trials().into_iter().map(move |t| figure5_trial(n, &t)))
            .collect();
        let mut want = Vec::new();
        write_csv(&summarise_figure5(&per_trial), &mut want).unwrap();
        assert_eq!(r.files[0], ("hansen-5.csv".to_owned(), want));
        // Every point has its own key.
        let keys: std::collections::HashSet<&str> =
            (0..sweep.points()).map(|p| sweep.key(p)).collect();
        assert_eq!(keys.len(), FIGURE5_TYPES.len());
    }
}
