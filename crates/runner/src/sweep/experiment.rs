//! Sweeps of simulator experiments ([`FigureSpec`]): each point an experiment over the same
//! trials, each trial's measures ([`TrialMetrics`]) saved; the figure's CSV holds a measure's
//! mean and 95% interval per point, with the clairvoyant optimum's bracket as two more rows
//! per x value when the file asks for it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;
use workload::{Pet, PetSource};

use super::engine::{Kind, Options, Rendered, csv_error};
use super::{FigureSpec, Point};
use crate::error::RunError;
use crate::experiment::{Prepared, TrialSource};
use crate::metrics::{Estimate, TrialMetrics};
use crate::resources::{Footprint, RunShape};
use crate::run::{RunOptions, Tracing};

/// A figure's points, resolved against the run's options.
pub(crate) struct ExperimentSweep<'a> {
    spec: &'a FigureSpec,
    options: &'a Options,
    /// Every point of the file.
    points: Vec<Point>,
    /// The points that run (a point without trial files for its rate is skipped), each with
    /// its index in `points`.
    prepared: Vec<(usize, Prepared)>,
    /// Why points were skipped.
    skipped: Vec<String>,
    /// Per entry of `prepared`, the key of its trials' clairvoyant bracket.
    bracket_keys: Vec<String>,
    /// Per entry of `prepared`: its point key and its twin key.
    keys: Vec<String>,
    twins: Vec<String>,
}

/// Everything that decides a point's results: its resolved configuration, trials, seed,
/// bound flag, the data it runs on (the PET's content hash, the given trials' content hash,
/// the paths they came from), and the program (version, git revision).
pub(crate) fn point_key(prep: &Prepared, sources: &str) -> Result<String, RunError> {
    Ok(format!(
        "config={}|trials={}|seed={}|bound={}|pet_sha256={}|given_sha256={}|{sources}|version={}|revision={}",
        json(&prep.config)?,
        prep.trials,
        prep.seed,
        prep.with_bound,
        crate::provenance::pet_sha256(&prep.pet),
        given_sha256(&prep.source),
        crate::provenance::VERSION,
        crate::provenance::GIT_REVISION
    ))
}

fn json<T: Serialize>(value: &T) -> Result<String, RunError> {
    serde_json::to_string(value).map_err(|e| RunError::Input(e.to_string()))
}

/// A content hash of given trials (`-` when generated).
fn given_sha256(source: &TrialSource) -> String {
    match source {
        TrialSource::Generated => "-".into(),
        TrialSource::Given(v) => crate::provenance::sha256_hex(format!("{v:?}").as_bytes()),
    }
}

/// What decides a point's clairvoyant bracket: its trials (the PET, the workload, the seed and
/// the trial count, the data sources) and the counted range, nothing of the heuristic or the
/// pruner.
fn bracket_key(prep: &Prepared) -> Result<String, RunError> {
    Ok(format!(
        "{}|{}|{}|{}|{}|{}|{}{}",
        json(&prep.config.workload)?,
        prep.config.system.skip_first,
        prep.config.system.skip_last,
        prep.trials,
        prep.seed,
        crate::provenance::pet_sha256(&prep.pet),
        // Given trials are the files of `--workloads` for the workload's rate.
        match &prep.source {
            TrialSource::Generated => "generated",
            TrialSource::Given(_) => "given",
        },
        // The truth's drift changes the realised times (nothing without one).
        if prep.config.drift.is_empty() {
            String::new()
        } else {
            format!("|drift={}", json(&prep.config.drift)?)
        }
    ))
}

/// What decides a point's trials once variant names are resolved: the configuration with its
/// heuristic and pruner replaced by the ones [`crate::ExperimentConfig::resolved`] gives and
/// its name cleared (a trial reads nothing else of them: [`Prepared::run_trial`]), the trials,
/// seed and bound flag, and the PET and workload sources. Two points with the same key run
/// the same trials: e.g. the base point that JPDC-2016 figs. 7, 8 and 11 share, or a
/// defer-only variant (`MM-D`) across a sweep of the dropping toggle, which it sets to
/// `never` whatever the sweep says.
pub(crate) fn twin_key(prep: &Prepared, sources: &str) -> Result<String, RunError> {
    let config = crate::ExperimentConfig {
        name: String::new(),
        mapper: prep.heuristic.clone(),
        pruner: Some(pruner::PrunerTable::explicit(&prep.pruner)),
        ..prep.config.clone()
    };
    Ok(format!(
        "{}|{}|{}|{}|{}",
        json(&config)?,
        prep.trials,
        prep.seed,
        prep.with_bound,
        sources,
    ))
}

/// Trials of the paper's files for a rate label, e.g. `arr34k_*.dat`, in trial order.
fn trials_for_rate(dir: &Path, rate: f64) -> Result<Vec<workload::Trial>, RunError> {
    let label = format!("arr{}k_", (rate / 1000.0).round() as i64);
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map_err(|e| RunError::Io {
            path: dir.to_path_buf(),
            message: e.to_string(),
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            let rest = name.strip_prefix(&label)?.strip_suffix(".dat")?;
            Some((rest.parse().ok()?, p))
        })
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|(_, p)| Ok(workload::io::read_dat(&p).map(|(t, _)| t)?))
        .collect()
}

#[derive(Debug, Clone, Serialize)]
struct PointManifest {
    x: String,
    series: String,
    config: crate::ExperimentConfig,
    heuristic: String,
    pruner: pruner::PrunerConfig,
    trials: u64,
    seed: u64,
    /// The folder of the point's traces (`trace = true`), relative to the output folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    trace: Option<String>,
}

/// The folder of a traced point's per-task and per-event traces, relative to the output
/// folder: `<id>.trace/<point>-<x>-<series>/` (`tasks-<k>.csv`, `events-<k>.csv` per trial;
/// docs/trace.md), the point's number first so that two labels alike never share it.
pub(crate) fn point_trace_dir(id: &str, point: usize, x: &str, series: &str) -> String {
    let slug: String = format!("{x}-{series}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{id}.trace/{point:03}-{slug}")
}

/// The memory each point of `spec` is estimated to need when its trials run on `threads`
/// threads ([`crate::resources::estimate`]), each with its label (`x=... series=...`), from
/// its configuration and source PET alone: nothing is drawn, read or prepared.
pub(crate) fn footprints(
    spec: &FigureSpec,
    options: &Options,
    pet: Option<&Pet>,
    threads: usize,
) -> Result<Vec<(String, Footprint)>, RunError> {
    let points = spec
        .points(options.trials)
        .map_err(|message| RunError::Config {
            file: spec.id.clone(),
            line: None,
            message,
        })?;
    points
        .iter()
        .map(|p| {
            let mut config = p.config.clone();
            if let Some(t) = options.tick {
                config.workload.tick = t;
            }
            let source = match pet {
                Some(base) => match config.workload.pet {
                    PetSource::Homogeneous { machine } => {
                        base.homogeneous(machine.min(base.n_machines() - 1))
                    }
                    _ => base.clone(),
                },
                None => config.workload.source_pet()?,
            };
            let footprint = crate::resources::estimate(&RunShape {
                config: &config,
                source_pet: &source,
                tasks: None,
                trials: options.trials.unwrap_or(spec.trials),
                threads,
                with_bound: spec.bound,
                report: false,
            });
            Ok((format!("x={} series={}", p.x_label, p.series), footprint))
        })
        .collect()
}

impl<'a> ExperimentSweep<'a> {
    /// Resolves every point of `spec`: its PET (`pet`, the run's `--pet`, else the
    /// experiment's own), its trials (the run's `--workloads` files for its rate, else
    /// generated) and their number, and which points compute the clairvoyant bracket (the
    /// first of each distinct set of trials).
    pub(crate) fn new(
        spec: &'a FigureSpec,
        options: &'a Options,
        pet: Option<&Pet>,
    ) -> Result<Self, RunError> {
        let points = spec
            .points(options.trials)
            .map_err(|message| RunError::Config {
                file: spec.id.clone(),
                line: None,
                message,
            })?;
        let mut prepared: Vec<(usize, Prepared)> = Vec::new();
        let mut skipped: Vec<String> = Vec::new();
        let mut bracket_keys: Vec<String> = Vec::new();
        for (i, p) in points.iter().enumerate() {
            let pet = pet.map(|base| match p.config.workload.pet {
                PetSource::Homogeneous { machine } => {
                    base.homogeneous(machine.min(base.n_machines() - 1))
                }
                _ => base.clone(),
            });
            let source = match &options.workloads {
                Some(dir) => {
                    let Some(rate) = p.config.workload.rate else {
                        return Err(RunError::Input(format!(
                            "x={} series={}: --workloads reads the paper's files by rate label \
                             (arr34k_*.dat for rate = 34000); this point gives the rate as \
                             `load` or `arrival_rate`",
                            p.x_label, p.series
                        )));
                    };
                    let trials = trials_for_rate(dir, rate)?;
                    if trials.is_empty() {
                        skipped.push(format!(
                            "x={} series={}: no arr{}k_*.dat",
                            p.x_label,
                            p.series,
                            (rate / 1000.0).round()
                        ));
                        continue;
                    }
                    TrialSource::Given(trials)
                }
                None => TrialSource::Generated,
            };
            let n = match (&source, options.trials) {
                (_, Some(t)) => t,
                (TrialSource::Given(v), None) => v.len() as u64,
                (TrialSource::Generated, None) => spec.trials,
            };
            let n = match &source {
                TrialSource::Given(v) => n.min(v.len() as u64),
                TrialSource::Generated => n,
            };
            let mut config = p.config.clone();
            if let Some(t) = options.tick {
                config.workload.tick = t;
            }
            let mut prep = Prepared::new(config, pet, source, Some(n), None)?;
            // The bracket depends on the trials, not on the series or on what the x axis
            // varies besides the trials (a pruner setting): computed once per distinct set of
            // trials.
            let key = bracket_key(&prep)?;
            prep.with_bound = spec.bound && !bracket_keys.contains(&key);
            bracket_keys.push(key);
            prepared.push((i, prep));
        }
        for s in &skipped {
            tracing::warn!("{}: cannot run {s}", spec.id);
        }
        let sources = options.sources();
        let keys = prepared
            .iter()
            .map(|(_, prep)| point_key(prep, &sources))
            .collect::<Result<_, _>>()?;
        // A traced point writes its own traces, so it shares its trials with no twin.
        let twins = prepared
            .iter()
            .zip(&keys)
            .map(|((_, prep), key): (&(usize, Prepared), &String)| {
                if prep.config.trace {
                    Ok(format!("traced|{key}"))
                } else {
                    twin_key(prep, &sources)
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(ExperimentSweep {
            spec,
            options,
            points,
            prepared,
            skipped,
            bracket_keys,
            keys,
            twins,
        })
    }
}

impl Kind for ExperimentSweep<'_> {
    type Trial = TrialMetrics;

    fn id(&self) -> &str {
        &self.spec.id
    }

    fn points(&self) -> usize {
        self.prepared.len()
    }

    fn trials(&self, p: usize) -> u64 {
        self.prepared[p].1.trials
    }

    fn key(&self, p: usize) -> &str {
        &self.keys[p]
    }

    fn twin(&self, p: usize) -> Option<&str> {
        Some(&self.twins[p])
    }

    fn run_trial(&self, p: usize, k: u64) -> Result<TrialMetrics, RunError> {
        let (orig, prep) = &self.prepared[p];
        if !prep.config.trace {
            return prep.trial(k, &RunOptions::default()).map(|r| r.metrics);
        }
        let point = &self.points[*orig];
        let dir = self.options.out.join(point_trace_dir(
            &self.spec.id,
            *orig,
            &point.x_label,
            &point.series,
        ));
        std::fs::create_dir_all(&dir).map_err(|e| RunError::Io {
            path: dir.clone(),
            message: e.to_string(),
        })?;
        prep.trial(k, &RunOptions::default().tracing(Tracing::Files(&dir)))
            .map(|r| r.metrics)
    }

    /// The figure's table, CSVs, plot and manifest from every point's trials.
    ///
    /// One function because it writes the figure's outputs in one pass over the points (the
    /// printed table, the CSVs, the bars and the manifest's points share the loop), then the
    /// bracket's rows after them.
    fn render(&self, results: &[Vec<TrialMetrics>]) -> Result<Rendered, RunError> {
        let spec = self.spec;
        let prepared = &self.prepared;
        let points = &self.points;
        let mut text = String::new();
        let metric = |m: &TrialMetrics, name: &str| -> Result<f64, RunError> {
            m.scalar(name).ok_or_else(|| RunError::Config {
                file: spec.id.clone(),
                line: None,
                message: format!("unknown metric '{name}'"),
            })
        };
        let mut csv_w = csv::Writer::from_writer(Vec::new());
        let mut header: Vec<String> = ["x", "series", "mean", "ci95_low", "ci95_high", "n"]
            .map(String::from)
            .to_vec();
        for m in &spec.extra_metrics {
            header.extend([m.clone(), format!("{m}_ci95_low"), format!("{m}_ci95_high")]);
        }
        csv_w.write_record(&header).map_err(|e| csv_error(&e))?;
        let mut trials_w = csv::Writer::from_writer(Vec::new());
        trials_w
            .write_record(["x", "series", "trial", "metric", "value"])
            .map_err(|e| csv_error(&e))?;
        let mut bars: Vec<figures::Bar> = Vec::new();
        let mut manifest_points = Vec::new();
        let unit = crate::metrics::metric_doc(&spec.metric).map_or("", |d| d.unit.symbol());
        let _ = writeln!(text, "{} — {}", spec.id, spec.title);
        let _ = writeln!(
            text,
            "x: {}; mean: {}{} over the trials, with its 95% interval",
            spec.x.label,
            spec.metric,
            if unit.is_empty() {
                String::new()
            } else {
                format!(" ({unit})")
            }
        );
        let _ = write!(
            text,
            "{:<12} {:<18} {:>10} {:>22} {:>4}",
            "x", "series", "mean", "95% CI", "n"
        );
        for m in &spec.extra_metrics {
            let _ = write!(text, " {m:>10}");
        }
        let _ = writeln!(text);
        for (pi, (orig, prep)) in prepared.iter().enumerate() {
            let point: &Point = &points[*orig];
            let mut values = Vec::new();
            let mut labels = Vec::new();
            let mut extra = vec![Vec::new(); spec.extra_metrics.len()];
            for (k, m) in results[pi].iter().enumerate() {
                let v = metric(m, &spec.metric)?;
                values.push(v);
                trials_w
                    .write_record([
                        point.x_label.clone(),
                        point.series.clone(),
                        k.to_string(),
                        spec.metric.clone(),
                        v.to_string(),
                    ])
                    .map_err(|e| csv_error(&e))?;
                if let Some(lm) = &spec.label_metric {
                    let l = metric(m, lm)?;
                    labels.push(l);
                    trials_w
                        .write_record([
                            point.x_label.clone(),
                            point.series.clone(),
                            k.to_string(),
                            lm.clone(),
                            l.to_string(),
                        ])
                        .map_err(|e| csv_error(&e))?;
                }
                for (j, name) in spec.extra_metrics.iter().enumerate() {
                    let v = metric(m, name)?;
                    extra[j].push(v);
                    if *name != spec.metric && spec.label_metric.as_ref() != Some(name) {
                        trials_w
                            .write_record([
                                point.x_label.clone(),
                                point.series.clone(),
                                k.to_string(),
                                name.clone(),
                                v.to_string(),
                            ])
                            .map_err(|e| csv_error(&e))?;
                    }
                }
            }
            let e = Estimate::of_metric(&spec.metric, &values);
            let extra: Vec<Estimate> = spec
                .extra_metrics
                .iter()
                .zip(&extra)
                .map(|(name, v)| Estimate::of_metric(name, v))
                .collect();
            write_row(
                &mut text,
                &mut csv_w,
                &point.x_label,
                &point.series,
                &e,
                &extra,
            )?;
            let label = spec
                .label_metric
                .as_ref()
                .map(|_| Estimate::new(&labels).mean);
            bars.push(figures::Bar {
                x_index: point.x_index,
                series_index: point.series_index,
                value: interval(&e),
                label,
            });
            manifest_points.push(PointManifest {
                x: point.x_label.clone(),
                series: point.series.clone(),
                config: prep.config.clone(),
                heuristic: prep.heuristic.name.clone(),
                pruner: prep.pruner.clone(),
                trials: prep.trials,
                seed: prep.seed,
                trace: prep
                    .config
                    .trace
                    .then(|| point_trace_dir(&spec.id, *orig, &point.x_label, &point.series)),
            });
        }
        // The clairvoyant optimum's bracket: its sides `optimum_upper` and `optimum_lower` as
        // rows of the CSVs (the series named as the measures), drawn as a band behind the series.
        let bracket_metrics = match spec.metric.as_str() {
            "robustness" => Some(("optimum_lower", "optimum_upper")),
            "on_time" => Some(("optimum_lower_on_time", "optimum_upper_on_time")),
            _ => None,
        };
        let mut bands: Vec<figures::Band> = Vec::new();
        if let (true, Some((lower_metric, upper_metric))) = (spec.bound, bracket_metrics) {
            let mut x_done = Vec::new();
            for (pi, (orig, _)) in prepared.iter().enumerate() {
                let point: &Point = &points[*orig];
                if x_done.contains(&point.x_index) {
                    continue;
                }
                x_done.push(point.x_index);
                // The point that computed this x's bracket (the first with the same trials).
                let Some(pi) = (0..prepared.len()).find(|&j| {
                    prepared[j].1.with_bound && self.bracket_keys[j] == self.bracket_keys[pi]
                }) else {
                    continue;
                };
                let mut sides = Vec::new();
                for (label, name) in [
                    ("optimum_upper", upper_metric),
                    ("optimum_lower", lower_metric),
                ] {
                    let mut values = Vec::new();
                    for (k, m) in results[pi].iter().enumerate() {
                        let v = metric(m, name)?;
                        values.push(v);
                        trials_w
                            .write_record([
                                point.x_label.clone(),
                                label.into(),
                                k.to_string(),
                                spec.metric.clone(),
                                v.to_string(),
                            ])
                            .map_err(|e| csv_error(&e))?;
                    }
                    let e = Estimate::of_metric(name, &values);
                    let blank = vec![Estimate::new(&[]); spec.extra_metrics.len()];
                    write_row(&mut text, &mut csv_w, &point.x_label, label, &e, &blank)?;
                    sides.push(e.mean);
                }
                bands.push(figures::Band {
                    x_index: point.x_index,
                    lower: sides[1],
                    upper: sides[0],
                });
            }
        }
        let manifest = serde_json::json!({
            "figure": spec.id,
            "title": spec.title,
            "source": spec.source,
            "git_revision": crate::provenance::GIT_REVISION,
            "version": crate::provenance::VERSION,
            "pet": self.options.pet.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "generated default".into()),
            "workloads": self.options.workloads.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "generated".into()),
            "skipped": self.skipped,
            "notes": spec.notes,
            "x_label": spec.x.label,
            "y_label": spec.y_label.clone().unwrap_or_else(|| spec.metric.clone()),
            "metric": spec.metric,
            "unit": unit,
            "points": manifest_points,
        });
        let manifest =
            serde_json::to_string_pretty(&manifest).map_err(|e| RunError::Input(e.to_string()))?;
        let fig = figures::Figure {
            title: figure_title(&spec.title, &spec.source),
            x_label: spec.x.label.clone(),
            y_label: spec.y_label.clone().unwrap_or_else(|| spec.metric.clone()),
            x_labels: (0..spec.x.values.len())
                .map(|i| spec.x_label_of(i))
                .collect(),
            series: spec.series.iter().map(|s| s.label.clone()).collect(),
            bars,
            bands,
            published: spec
                .published
                .iter()
                .filter_map(|p| {
                    let (x_index, series_index) = spec.published_position(p)?;
                    Some(figures::Published {
                        x_index,
                        series_index,
                        value: p.value,
                    })
                })
                .collect(),
            chart: spec.chart,
            integer_y: crate::metrics::metric_doc(&spec.metric).is_some_and(|d| d.unit.is_count()),
        };
        Ok(Rendered {
            text,
            files: vec![
                (
                    format!("{}.csv", spec.id),
                    csv_w
                        .into_inner()
                        .map_err(|e| RunError::Input(e.to_string()))?,
                ),
                (
                    format!("{}.trials.csv", spec.id),
                    trials_w
                        .into_inner()
                        .map_err(|e| RunError::Input(e.to_string()))?,
                ),
                (format!("{}.manifest.json", spec.id), manifest.into_bytes()),
            ],
            plot: Some(figures::Plot::Figure(fig)),
        })
    }
}

/// The plotted interval of an estimate.
pub(crate) fn interval(e: &Estimate) -> figures::Interval {
    figures::Interval {
        mean: e.mean,
        ci95_low: e.ci95_low,
        ci95_high: e.ci95_high,
    }
}

/// A row of `<id>.csv` and of the printed table: the figure's measure, then the means and
/// intervals of its `extra_metrics` (empty cells where they have no value, e.g. on the rows of
/// the clairvoyant optimum).
fn write_row(
    text: &mut String,
    csv_w: &mut csv::Writer<Vec<u8>>,
    x: &str,
    series: &str,
    e: &Estimate,
    extra: &[Estimate],
) -> Result<(), RunError> {
    let cell = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v:.6}"));
    let mut record = vec![
        x.to_string(),
        series.to_string(),
        format!("{:.6}", e.mean),
        cell(e.ci95_low),
        cell(e.ci95_high),
        e.n.to_string(),
    ];
    for x in extra {
        record.extend([
            cell((x.n > 0).then_some(x.mean)),
            cell(x.ci95_low),
            cell(x.ci95_high),
        ]);
    }
    csv_w.write_record(&record).map_err(|e| csv_error(&e))?;
    let _ = write!(
        text,
        "{:<12} {:<18} {:>10.3} [{:>9.3}, {:>9.3}] {:>4}",
        x,
        series,
        e.mean,
        e.ci95_low.unwrap_or(f64::NAN),
        e.ci95_high.unwrap_or(f64::NAN),
        e.n
    );
    for x in extra.iter().filter(|x| x.n > 0) {
        let _ = write!(text, " {:>10.3}", x.mean);
    }
    let _ = writeln!(text);
    Ok(())
}

/// A figure's title: the sweep's title, and its source in parentheses when it names one.
fn figure_title(title: &str, source: &str) -> String {
    if source.trim().is_empty() {
        title.to_owned()
    } else {
        format!("{title} ({source})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_without_a_source_has_no_empty_parentheses() {
        assert_eq!(
            figure_title("Robustness vs arrival rate", ""),
            "Robustness vs arrival rate"
        );
        assert_eq!(figure_title("Fig. 4", "HCW 2019"), "Fig. 4 (HCW 2019)");
    }

    /// A small experiment at rate 19k: `mapper` and the dropping toggle as given.
    fn prepared(name: &str, mapper: &str, toggle: &str, bound: bool) -> Prepared {
        let text = format!(
            "name = \"{name}\"\n\
             [workload]\nrate = 19000\ntasks = 120\nseed = 7\n\
             [system]\nskip_first = 10\nskip_last = 10\n\
             [mapper]\nname = \"{mapper}\"\n\
             [pruner]\ndrop_threshold = 0.75\ndefer_threshold = 0.75\ntoggle = {toggle}\n"
        );
        let config = crate::ExperimentConfig::from_toml_str(&text, "test", None).unwrap();
        let mut prep = Prepared::new(config, None, TrialSource::Generated, Some(2), None).unwrap();
        prep.with_bound = bound;
        prep
    }

    #[test]
    fn points_that_resolve_alike_share_their_twin_key_and_their_trials() {
        // A defer-only variant sets the toggle to `never` whatever the sweep gives it.
        let a = prepared("x=1", "MM-D", "1", false);
        let b = prepared("x=None", "MM-D", "\"never\"", false);
        assert_eq!(twin_key(&a, "s").unwrap(), twin_key(&b, "s").unwrap());
        // The point keys (which name the files) still differ: the raw configs do.
        assert_ne!(point_key(&a, "s").unwrap(), point_key(&b, "s").unwrap());
        // And the premise: the trials read nothing but the resolved configuration.
        for k in 0..2 {
            assert_eq!(a.run_trial(k).unwrap().1, b.run_trial(k).unwrap().1);
        }
    }

    #[test]
    fn points_that_run_differently_have_different_twin_keys() {
        let base = twin_key(&prepared("p", "MM-P", "1", false), "s").unwrap();
        // The toggle matters to a variant that drops.
        assert_ne!(
            base,
            twin_key(&prepared("p", "MM-P", "0", false), "s").unwrap()
        );
        // So do the heuristic, the bound flag and the sources.
        assert_ne!(
            base,
            twin_key(&prepared("p", "MSD-P", "1", false), "s").unwrap()
        );
        assert_ne!(
            base,
            twin_key(&prepared("p", "MM-P", "1", true), "s").unwrap()
        );
        assert_ne!(
            base,
            twin_key(&prepared("p", "MM-P", "1", false), "t").unwrap()
        );
    }
}
