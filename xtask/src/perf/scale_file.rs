//! `experiments/scale.toml`, the performance study `perf` measures: the trial targets, the
//! scale points with their targets, and the figures' target.

use std::path::Path;

use anyhow::{Context, Result, bail};
use runner::{ExperimentConfig, QueueSize};
use serde::Deserialize;

/// `experiments/scale.toml`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScaleFile {
    /// The 800-task trials.
    pub trial: TrialSection,
    /// The scale grid and its target.
    pub scale: ScaleSection,
    /// The `reproduce-figure all` target.
    pub figures: FiguresSection,
}

/// `[trial]`: short trials at the paper's headline setting on the default PET.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TrialSection {
    /// Rate label (34k).
    pub rate: f64,
    /// Tasks per trial (800).
    pub tasks: usize,
    /// Master seed.
    pub seed: u64,
    /// Untimed runs first.
    pub warmup: usize,
    /// Timed runs; the median is reported.
    pub repetitions: usize,
    /// One target per heuristic.
    pub target: Vec<TrialTarget>,
}

/// `[[trial.target]]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct TrialTarget {
    /// A heuristic or variant name; PAM and its variants get the paper's default pruner.
    pub heuristic: String,
    /// The goal: median milliseconds per trial.
    pub max_ms: f64,
}

/// `[scale]`: the grid.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScaleSection {
    /// The heuristic (PAM, with the paper's default pruner).
    pub heuristic: String,
    /// Machine queue size, counting the executing task.
    pub queue_size: usize,
    /// Machine counts of the grid.
    pub machines: Vec<usize>,
    /// Task counts of the grid.
    pub tasks: Vec<usize>,
    /// The machine count of the reference load.
    pub reference_machines: usize,
    /// The reference rate label (34k on 8 machines).
    pub reference_rate: f64,
    /// The horizon of the reference rate (the paper's 88,200).
    pub reference_horizon: f64,
    /// The horizon holds this many times the point's tasks, in expectation.
    pub arrival_margin: f64,
    /// Master seed (trials and the machine draw).
    pub seed: u64,
    /// The target point and its limits.
    pub target: ScaleTarget,
}

/// `[scale.target]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScaleTarget {
    /// The point's machines.
    pub machines: usize,
    /// The point's tasks.
    pub tasks: usize,
    /// Wall-clock limit of the point's process.
    pub max_seconds: f64,
    /// Peak resident memory limit of the point's process.
    pub max_memory_gib: f64,
}

/// `[figures]`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct FiguresSection {
    /// Trials per point.
    pub trials: u64,
    /// Worker threads.
    pub jobs: usize,
    /// Wall-clock limit.
    pub max_seconds: f64,
}

impl ScaleFile {
    /// Parses and checks a scale study; `name` appears in errors.
    pub(crate) fn from_toml_str(text: &str, name: &str) -> Result<Self> {
        let f: ScaleFile = toml::from_str(text).with_context(|| format!("parsing {name}"))?;
        f.validate().with_context(|| format!("checking {name}"))?;
        Ok(f)
    }

    /// Reads a scale study.
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    fn validate(&self) -> Result<()> {
        let s = &self.scale;
        if s.machines.is_empty() || s.machines.contains(&0) {
            bail!("scale.machines: expected a non-empty list of counts >= 1");
        }
        if s.tasks.is_empty() || s.tasks.contains(&0) {
            bail!("scale.tasks: expected a non-empty list of counts >= 1");
        }
        if s.reference_machines == 0 || s.queue_size == 0 {
            bail!("scale.reference_machines and scale.queue_size must be at least 1");
        }
        for (field, v) in [
            ("scale.reference_rate", s.reference_rate),
            ("scale.reference_horizon", s.reference_horizon),
            ("scale.target.max_seconds", s.target.max_seconds),
            ("scale.target.max_memory_gib", s.target.max_memory_gib),
            ("figures.max_seconds", self.figures.max_seconds),
        ] {
            if !(v.is_finite() && v > 0.0) {
                bail!("{field}: expected a positive number, got {v}");
            }
        }
        if !(s.arrival_margin.is_finite() && s.arrival_margin >= 1.0) {
            bail!(
                "scale.arrival_margin: expected a number >= 1, got {}",
                s.arrival_margin
            );
        }
        if self.trial.repetitions == 0 || self.trial.target.is_empty() {
            bail!("trial: expected repetitions >= 1 and at least one [[trial.target]]");
        }
        Ok(())
    }

    /// The grid's points, machines then tasks ascending, each with whether it runs under the
    /// limits (`None`) or why not.
    pub(crate) fn points(&self, limits: &Limits) -> Vec<(usize, usize, Option<String>)> {
        let mut machines = self.scale.machines.clone();
        let mut tasks = self.scale.tasks.clone();
        machines.sort_unstable();
        machines.dedup();
        tasks.sort_unstable();
        tasks.dedup();
        let (top_m, top_n) = (machines.last().copied(), tasks.last().copied());
        let mut out = Vec::new();
        for &m in &machines {
            for &n in &tasks {
                let skip = if limits.quick && (Some(m) == top_m || Some(n) == top_n) {
                    Some("--quick".to_string())
                } else if limits.max_machines.is_some_and(|x| m > x) {
                    Some(format!(
                        "--max-machines {}",
                        limits.max_machines.unwrap_or(0)
                    ))
                } else if limits.max_tasks.is_some_and(|x| n > x) {
                    Some(format!("--max-tasks {}", limits.max_tasks.unwrap_or(0)))
                } else {
                    None
                };
                out.push((m, n, skip));
            }
        }
        out
    }

    /// The 800-task experiment of a heuristic: the paper's default with this file's rate,
    /// tasks and seed; PAM and its variants get the paper's default pruner.
    pub(crate) fn trial_config(&self, heuristic: &str) -> Result<ExperimentConfig> {
        let mut cfg = ExperimentConfig::paper_default();
        cfg.name = format!("perf: {heuristic}, {} tasks", self.trial.tasks);
        cfg.mapper = runner::HeuristicConfig::named(heuristic);
        cfg.pruner = None;
        cfg.workload.rate = Some(self.trial.rate);
        cfg.workload.tasks = self.trial.tasks;
        cfg.workload.seed = self.trial.seed;
        cfg.workload.trials = 1;
        cfg.validate().map_err(anyhow::Error::msg)?;
        Ok(cfg)
    }

    /// Rate label and horizon of a point: arrivals per time unit in proportion to the
    /// machines (the reference load per machine), the horizon long enough for
    /// `arrival_margin * tasks` expected arrivals, and never shorter than the reference.
    pub(crate) fn rate_and_horizon(&self, machines: usize, tasks: usize) -> (f64, f64) {
        let s = &self.scale;
        let per_unit =
            s.reference_rate / s.reference_horizon * machines as f64 / s.reference_machines as f64;
        let horizon = (s.arrival_margin * tasks as f64 / per_unit).max(s.reference_horizon);
        (per_unit * horizon, horizon)
    }

    /// The experiment of a scale point: the default PET as is when it has `machines`
    /// machines, else `machines` machines drawn from it; one trial.
    pub(crate) fn point_config(&self, machines: usize, tasks: usize) -> Result<ExperimentConfig> {
        let s = &self.scale;
        let (rate, horizon) = self.rate_and_horizon(machines, tasks);
        let mut cfg = ExperimentConfig::paper_default();
        cfg.name = format!("perf: {machines} machines x {tasks} tasks");
        cfg.mapper = runner::HeuristicConfig::named(&s.heuristic);
        cfg.pruner = None;
        cfg.system.queue_size = Some(QueueSize::Limit(s.queue_size));
        let w = &mut cfg.workload;
        w.rate = Some(rate);
        w.horizon = horizon;
        w.tasks = tasks;
        w.trials = 1;
        w.seed = s.seed;
        w.machines = None;
        if w.pet()?.n_machines() != machines {
            w.machines = Some(machines);
        }
        cfg.validate().map_err(anyhow::Error::msg)?;
        Ok(cfg)
    }
}

/// Which scale points run.
#[derive(Debug, Clone, Default)]
pub(crate) struct Limits {
    /// Skip the largest machine count and the largest task count.
    pub quick: bool,
    /// Skip points with more machines.
    pub max_machines: Option<usize>,
    /// Skip points with more tasks.
    pub max_tasks: Option<usize>,
}
