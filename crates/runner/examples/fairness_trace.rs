//! The fairness state over a trial: per tenth of the trial's task ends, the mean over task
//! types of the relief (PAMF's sufferage in literal mode), of the defer threshold and of the
//! drop threshold, and the lowest and highest relief, averaged over the trials, with each run's robustness, variance across types
//! and worst type (docs/reproduction.md, "Fairness").
//!
//! ```text
//! cargo run --release -p runner --example fairness_trace -- [OPTIONS] [NAME ...]
//!   --rate R          arrival rate (default 34000); --pattern constant | bursty
//!   --trials N        trials (default 30); --seed S (default 1101, fairness-rates' seed)
//!   --pet FILE        a PET (.etc) instead of the default one
//!   --workloads DIR   the trials arr<R>k_<T>.dat of DIR instead of generated ones
//!   NAME              PAMF, PAMF-R, or NAME:key=value,key=value with [pruner] keys
//!                     (default: PAMF PAMF-R)
//! ```
//! Every run has the paper's pruner (drop 50%, defer 90%, lambda 0.9, Schmitt trigger) and PAM;
//! the probe wraps the pruner and reads it after every task end, changing nothing.

use std::path::PathBuf;

use model::{Pruner, TaskId, View};
use pruner::ProbabilisticPruner;
use runner::metrics::Pricing;
use runner::{
    EngineConfig, ExperimentConfig, JpdcOptions, Prepared, TrialMetrics, TrialSource, simulate_jpdc,
};

const TENTHS: usize = 10;

/// The pruner, read after every task end: per tenth of the trial, the sums of the means over
/// types of (relief, defer threshold, drop threshold), of the lowest and of the highest
/// relief, and the number of ends.
struct Probe {
    inner: ProbabilisticPruner,
    tasks: usize,
    ends: usize,
    sums: [[f64; 5]; TENTHS],
    counts: [usize; TENTHS],
}

impl Pruner for Probe {
    fn name(&self) -> String {
        self.inner.name()
    }
    fn observe(&mut self, misses: usize) -> bool {
        self.inner.observe(misses)
    }
    fn select_drops(&mut self, view: &View<'_>) -> Vec<TaskId> {
        self.inner.select_drops(view)
    }
    fn defer_thresholds(&self) -> Option<&[f64]> {
        self.inner.defer_thresholds()
    }
    fn on_task_end(&mut self, task_type: usize, success: bool) {
        self.inner.on_task_end(task_type, success);
        let tenth = (self.ends * TENTHS / self.tasks.max(1)).min(TENTHS - 1);
        self.ends += 1;
        let relief = self.inner.fairness().defer_relief();
        let n = relief.len() as f64;
        let mean = |f: &dyn Fn(usize) -> f64| (0..relief.len()).map(f).sum::<f64>() / n;
        let s = &mut self.sums[tenth];
        s[0] += mean(&|t| relief[t]);
        s[1] += mean(&|t| self.inner.defer_threshold(t).unwrap_or(f64::NAN));
        s[2] += mean(&|t| self.inner.drop_threshold(t));
        s[3] += relief.iter().copied().fold(f64::INFINITY, f64::min);
        s[4] += relief.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        self.counts[tenth] += 1;
    }
}

fn experiment(rate: f64, pattern: &str, name: &str) -> Result<ExperimentConfig, String> {
    let (mapper, keys) = name.split_once(':').unwrap_or((name, ""));
    let mut pruner: toml::Table = toml::from_str(
        "drop_threshold = 0.5\ndefer_threshold = 0.9\ntoggle = 1\nlambda = 0.9\n\
         schmitt = true\nschmitt_off = 0.8\n",
    )
    .map_err(|e| e.to_string())?;
    for kv in keys.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv
            .split_once('=')
            .ok_or(format!("'{kv}': expected key=value"))?;
        let v = match v.parse::<f64>() {
            Ok(x) => toml::Value::Float(x),
            Err(_) => toml::Value::String(v.to_owned()),
        };
        pruner.insert(k.to_owned(), v);
    }
    let text = format!(
        "[workload]\nrate = {rate}\nseed = 0\npattern = \"{pattern}\"\n\
         [mapper]\nname = \"{mapper}\"\n[pruner]\n{pruner}"
    );
    ExperimentConfig::from_toml_str(&text, name, None).map_err(|e| e.to_string())
}

/// Prints the fairness state of the module docs. One function because it is the example's
/// steps in order: the arguments, the runs, a row per tenth of the trials' task ends.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rate: f64 = 34000.0;
    let mut pattern = "constant".to_owned();
    let mut trials = 30u64;
    let mut seed = 1101u64;
    let mut pet_path: Option<PathBuf> = None;
    let mut workloads: Option<PathBuf> = None;
    let mut names = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--rate" => rate = value()?.parse()?,
            "--pattern" => pattern = value()?,
            "--trials" => trials = value()?.parse()?,
            "--seed" => seed = value()?.parse()?,
            "--pet" => pet_path = Some(value()?.into()),
            "--workloads" => workloads = Some(value()?.into()),
            _ => names.push(a),
        }
    }
    if names.is_empty() {
        names = vec!["PAMF".into(), "PAMF-R".into()];
    }
    let pet = match &pet_path {
        Some(p) => Some(workload::io::read_etc(p)?.0),
        None => None,
    };
    let source = match &workloads {
        Some(dir) => {
            let label = format!("arr{}k_", (rate / 1000.0).round() as i64);
            let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter_map(|p| {
                    let name = p.file_name()?.to_string_lossy().into_owned();
                    let k = name
                        .strip_prefix(&label)?
                        .strip_suffix(".dat")?
                        .parse()
                        .ok()?;
                    Some((k, p))
                })
                .collect();
            files.sort();
            let v = files
                .iter()
                .map(|(_, p)| workload::io::read_dat(p).map(|(t, _)| t))
                .collect::<Result<Vec<_>, _>>()?;
            trials = trials.min(v.len() as u64);
            TrialSource::Given(v)
        }
        None => TrialSource::Generated,
    };
    println!(
        "rate {rate}, {pattern} arrivals{}, {trials} trials, seed {seed}, {}",
        if workloads.is_some() { " (files)" } else { "" },
        pet_path
            .as_ref()
            .map_or("default PET".to_owned(), |p| p.display().to_string())
    );
    for name in &names {
        let config = experiment(rate, &pattern, name)?;
        let prep = Prepared::new(
            config,
            pet.clone(),
            source.clone(),
            Some(trials),
            Some(seed),
        )?;
        let mut sums = [[0.0; 5]; TENTHS];
        let mut counts = [0usize; TENTHS];
        let mut measures = [0.0; 3];
        for k in 0..trials {
            let tasks = prep.trial_tasks(k);
            let luck = prep.trial_luck(k, tasks.len());
            let mut mapper = heuristics::build(&prep.heuristic, prep.config.system.drop_model)?;
            let mut probe = Probe {
                inner: ProbabilisticPruner::new(prep.pruner.clone(), prep.pet.n_types())?,
                tasks: tasks.len(),
                ends: 0,
                sums: [[0.0; 5]; TENTHS],
                counts: [0; TENTHS],
            };
            let record = simulate_jpdc(
                &prep.pet,
                &tasks,
                &luck,
                EngineConfig {
                    queue_size: prep.config.system.queue_size_for(false),
                    drop_model: prep.config.system.drop_model,
                    pct_epsilon: prep.config.system.pct_epsilon,
                },
                JpdcOptions::default(),
                &mut mapper,
                &mut probe,
            );
            let types: Vec<usize> = tasks.iter().map(|t| t.task_type).collect();
            let prices = prep.config.system.prices_for(prep.pet.n_machines());
            let m = TrialMetrics::new(
                &record,
                &types,
                prep.pet.n_types(),
                prep.config.system.counting(),
                &Pricing {
                    per_hour: &prices,
                    hour: prep.config.system.hour,
                },
            );
            measures[0] += m.robustness;
            measures[1] += m.type_variance;
            measures[2] += m.worst_type_on_time;
            for t in 0..TENTHS {
                // Each trial's tenth weighs alike: the mean of its ends, then over trials.
                if probe.counts[t] > 0 {
                    for (s, x) in sums[t].iter_mut().zip(probe.sums[t]) {
                        *s += x / probe.counts[t] as f64;
                    }
                    counts[t] += 1;
                }
            }
        }
        let n = trials as f64;
        println!(
            "\n{name}: robustness {:.2}%, variance across types {:.2}, worst type {:.1}%",
            measures[0] / n,
            measures[1] / n,
            measures[2] / n
        );
        println!(
            "  tasks ended   relief  defer thr  drop thr   (means over types)   relief: lowest  highest"
        );
        for t in 0..TENTHS {
            let c = counts[t].max(1) as f64;
            println!(
                "  {:>3}-{:>3}%   {:>7.3}  {:>9.3}  {:>8.3}   {:>36.3}  {:>7.3}",
                t * 100 / TENTHS,
                (t + 1) * 100 / TENTHS,
                sums[t][0] / c,
                sums[t][1] / c,
                sums[t][2] / c,
                sums[t][3] / c,
                sums[t][4] / c
            );
        }
    }
    Ok(())
}
