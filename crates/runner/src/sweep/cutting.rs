//! Tables of Gao, Robert, Vivien's cutting thresholds as sweeps: a point per distribution of
//! their table 2, a trial per instance (the tasks each strategy completes, ORACLE first); the
//! table's rows ([`cutting::Row`]) are assembled from every point's trials.

use std::fmt::Write as _;

use super::engine::{Kind, Options, Rendered};
use super::file::CuttingSpec;
use crate::error::RunError;

/// A table's points, resolved against the run's options.
pub(crate) struct CuttingSweep<'a> {
    spec: &'a CuttingSpec,
    run: cutting::TableRun,
    instances: u64,
    keys: Vec<String>,
}

fn cutting_error(id: &str, e: &cutting::CuttingError) -> RunError {
    RunError::Input(format!("{id}: {e}"))
}

impl<'a> CuttingSweep<'a> {
    /// The table's distributions, `--trials` instances each (default: the file's).
    pub(crate) fn new(spec: &'a CuttingSpec, options: &Options) -> Result<Self, RunError> {
        let run = cutting::TableRun::as_run(spec.table).map_err(|e| cutting_error(&spec.id, &e))?;
        let instances = options.trials.unwrap_or(spec.trials);
        let keys = run
            .distributions()
            .iter()
            .enumerate()
            .map(|(d, pd)| {
                format!(
                    "cutting|table={:?}|distribution={d}:{}:{:?}|instances={instances}|seed={}|version={}|revision={}",
                    spec.table,
                    pd.label,
                    pd.dist,
                    spec.seed,
                    crate::provenance::VERSION,
                    crate::provenance::GIT_REVISION
                )
            })
            .collect();
        Ok(CuttingSweep {
            spec,
            run,
            instances,
            keys,
        })
    }
}

impl Kind for CuttingSweep<'_> {
    /// Tasks completed per strategy, ORACLE first.
    type Trial = Vec<u64>;

    fn id(&self) -> &str {
        &self.spec.id
    }

    fn points(&self) -> usize {
        self.run.distributions().len()
    }

    fn trials(&self, _: usize) -> u64 {
        self.instances
    }

    fn key(&self, p: usize) -> &str {
        &self.keys[p]
    }

    fn run_trial(&self, p: usize, k: u64) -> Result<Vec<u64>, RunError> {
        self.run
            .completed(p, self.spec.seed, k)
            .map_err(|e| cutting_error(&self.spec.id, &e))
    }

    fn render(&self, results: &[Vec<Vec<u64>>]) -> Result<Rendered, RunError> {
        let spec = self.spec;
        let rows = self.run.rows(results);
        let mut csv = Vec::new();
        cutting::write_csv(&rows, &mut csv).map_err(|e| cutting_error(&spec.id, &e))?;
        let mut text = String::new();
        let _ = writeln!(text, "{} — {}", spec.id, spec.title);
        let _ = writeln!(text, "{}", cutting::tables::render(&rows));
        let manifest = serde_json::json!({
            "figure": spec.id,
            "title": spec.title,
            "source": spec.source,
            "git_revision": crate::provenance::GIT_REVISION,
            "version": crate::provenance::VERSION,
            "kind": spec.kind,
            "table": spec.table,
            "setting": spec.table.setting(),
            "instances": self.instances,
            "seed": spec.seed,
            "distributions": self.run.distributions().iter().map(|d| d.label).collect::<Vec<_>>(),
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
            plot: Some(figures::Plot::Figure(plot(&rows, &spec.id))),
        })
    }
}

/// The table as grouped bars: the ratio to ORACLE per distribution and strategy.
fn plot(rows: &[cutting::Row], id: &str) -> figures::Figure {
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
        .map(|r| figures::Bar {
            x_index: dists.iter().position(|d| *d == r.distribution).unwrap_or(0),
            series_index: strategies
                .iter()
                .position(|s| *s == r.strategy)
                .unwrap_or(0),
            value: figures::Interval {
                mean: r.ratio,
                ci95_low: Some(r.ci95_low),
                ci95_high: Some(r.ci95_high),
            },
            label: None,
        })
        .collect();
    figures::Figure {
        title: format!("{id}: tasks completed, ratio to ORACLE (Gao, Robert, Vivien)"),
        x_label: "Execution-time distribution".into(),
        y_label: "Ratio to ORACLE".into(),
        x_labels: dists,
        series: strategies,
        bars,
        chart: figures::Chart::Bars,
        ..figures::Figure::default()
    }
}
