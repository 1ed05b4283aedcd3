//! Probabilistic task pruning (thesis chapters 4 and 6, paper section V).
//!
//! At the start of every mapping event the pruner updates the oversubscription level from the
//! deadline misses since the previous event (paper eq. (8)); while dropping is engaged (toggle,
//! optionally with a Schmitt trigger) it walks each machine queue and drops the tasks whose
//! success probability is at or below their drop threshold (thesis Algorithm 1), optionally
//! per task (paper eq. (7)) and relaxed per task type by PAMF's sufferage (paper V-D2). It also
//! hands the mapper a defer threshold per task type.
//!
//! The [`ProbabilisticPruner`] implements the simulator's [`model::Pruner`] plug point.
//! A scheduler of one's own uses [`standalone::Pruner`]: one queue type, a verdict per task
//! (map, defer or drop) and the engagement kept inside. The parts are usable alone too:
//!
//! ```
//! use pmf::{DropModel, ExecPmf, Pmf};
//! use pruner::{ProbabilisticPruner, PrunerConfig, QueuedTask};
//!
//! // Two task types; a machine executing a task since t=0 with two more queued.
//! let pet = ExecPmf::from(Pmf::new(40, vec![0.25, 0.25, 0.25, 0.25]).unwrap()); // 40..=43 ticks
//! let queue = [
//!     QueuedTask { task_type: 0, pet: &pet, deadline: 50, start: Some(0) },
//!     QueuedTask { task_type: 1, pet: &pet, deadline: 60, start: None },   // hopeless
//!     QueuedTask { task_type: 0, pet: &pet, deadline: 130, start: None },
//! ];
//! let mut pruner = ProbabilisticPruner::new(PrunerConfig::default(), 2).unwrap();
//! // Paper eq. (8) with lambda 0.9: one miss gives d = 0.9, below the toggle of 1; two misses
//! // since the last mapping event give 1.8 and engage dropping.
//! assert!(!pruner.observe_misses(1));
//! assert!(pruner.observe_misses(2));
//! let drops = pruner.drops_for_queue(10, &queue, DropModel::All).unwrap();
//! assert_eq!(drops, vec![false, true, false]);
//! // Deferring: map a task only when its best chance is above 90%.
//! assert_eq!(pruner.defer_threshold(0), Some(0.9));
//! ```

mod config;
mod drop;
mod engage;
mod fairness;
pub mod registry;
pub mod standalone;
mod thresholds;

pub use config::{ConfigError, MAX_TASK_TYPES, Never, Preset, PrunerConfig, PrunerTable, Toggle};
pub use drop::{DropRule, QueuedTask, walk_queue, walk_queue_cached};
pub use engage::Engagement;
pub use fairness::{Fairness, FairnessMode, FairnessRule, RATE_WEIGHT, ReliefScope};
pub use thresholds::{Sufferage, drop_threshold, dynamic_offset};

use model::{TaskId, View};
use pmf::{DropModel, PmfError, Tick};

/// The pruner of the papers, configured by [`PrunerConfig`] (without a
/// [`PrunerConfig::rule`]: [`registry::build`] builds either).
#[derive(Debug, Clone)]
pub struct ProbabilisticPruner {
    config: PrunerConfig,
    engagement: Engagement,
    fairness: Fairness,
    defer: Vec<f64>,
}

impl ProbabilisticPruner {
    /// A pruner for a system with `task_types` types. Fails on an out-of-range setting, or
    /// more than [`MAX_TASK_TYPES`] task types.
    pub fn new(config: PrunerConfig, task_types: usize) -> Result<Self, ConfigError> {
        if config.rule.is_some() {
            return Err(ConfigError::NoEffect {
                field: "rule",
                why: "a rule of one's own runs instead of the papers' pruner (build it with pruner::registry::build)",
            });
        }
        config.validate()?;
        let engagement = Engagement::new(
            config.toggle,
            config.lambda,
            config.schmitt.then_some(config.schmitt_off),
        )?;
        let defer_base = config.defer_threshold.unwrap_or(1.0);
        let fairness = Fairness::new(
            task_types,
            FairnessRule {
                mode: config.fairness_mode,
                factor: config.fairness,
                cap: config.fairness_cap,
                scope: config.fairness_relief,
                // The lowest base threshold that relief moves (dropping that never engages
                // has none).
                floor_base: match (config.fairness_relief, config.toggle.level()) {
                    (ReliefScope::Both, Some(_)) => config.drop_threshold.min(defer_base),
                    _ => defer_base,
                },
            },
        )?;
        let mut p = ProbabilisticPruner {
            config,
            engagement,
            fairness,
            defer: Vec::new(),
        };
        p.update_defer();
        Ok(p)
    }

    /// The configuration.
    pub fn config(&self) -> &PrunerConfig {
        &self.config
    }

    /// The oversubscription detector's state.
    pub fn engagement(&self) -> &Engagement {
        &self.engagement
    }

    /// The literal sufferage values per task type (PAMF, paper V-D2; all 0 in the other
    /// fairness modes).
    pub fn sufferage(&self) -> &Sufferage {
        self.fairness.sufferage()
    }

    /// The fairness state: per task type, the relief off its drop and defer thresholds.
    pub fn fairness(&self) -> &Fairness {
        &self.fairness
    }

    /// Feeds the deadline misses since the last mapping event; returns whether dropping is
    /// engaged now.
    pub fn observe_misses(&mut self, misses: usize) -> bool {
        self.engagement.observe(misses)
    }

    /// The defer threshold of a task type (base minus sufferage, clamped to [0, 1]); `None`
    /// when deferring is off.
    pub fn defer_threshold(&self, task_type: usize) -> Option<f64> {
        self.config
            .defer_threshold
            .map(|_| self.defer.get(task_type).copied().unwrap_or(0.0))
    }

    /// The drop threshold of a task type before the per-task offset.
    pub fn drop_threshold(&self, task_type: usize) -> f64 {
        drop_threshold(
            self.config.drop_threshold,
            self.fairness
                .drop_relief()
                .get(task_type)
                .copied()
                .unwrap_or(0.0),
            0.0,
        )
    }

    /// Which tasks of one machine queue (executing first) to drop at `now`, whether or not
    /// dropping is engaged (the caller decides when to ask).
    ///
    /// # Errors
    /// As [`walk_queue`]: a PCT along the queue too wide to hold.
    pub fn drops_for_queue(
        &self,
        now: Tick,
        queue: &[QueuedTask<'_>],
        model: DropModel,
    ) -> Result<Vec<bool>, PmfError> {
        walk_queue(now, queue, model, self.drop_rule())
    }

    /// The tasks [`model::Pruner::select_drops`] drops, found plainly: every machine's queue
    /// walked from scratch (thesis Algorithm 1), with no bound to skip a machine and no PMF
    /// read from the machines' caches. `select_drops` must return exactly these (a property
    /// test compares them).
    pub fn select_drops_reference(&self, view: &View<'_>) -> Vec<TaskId> {
        let mut out = Vec::new();
        let mut queue = Vec::new();
        for m in 0..view.machines().len() {
            let ids = queue_of(view, m, &mut queue);
            let drops = walk_queue_cached(
                view.now(),
                &queue,
                view.model(),
                self.drop_rule(),
                None,
                view.pct_epsilon(),
            );
            // As `select_drops`: a queue too wide to hold is kept as it is.
            let Ok(drops) = drops else {
                continue;
            };
            out.extend(ids.iter().zip(drops).filter(|(_, d)| *d).map(|(&t, _)| t));
        }
        out
    }

    /// Records the end of a task for fairness.
    pub fn record_end(&mut self, task_type: usize, success: bool) {
        if self.config.fairness > 0.0 {
            self.fairness.record(task_type, success);
            self.update_defer();
        }
    }

    /// True when no task of machine `m`'s queue can be at or below its drop threshold, as
    /// the oracle can tell without computing the queue's PMFs ([`View::chances_proven_above`]):
    /// the walk would then drop nothing, so it is skipped. Only with uniform thresholds (no
    /// per-task offset, which needs the PMF).
    fn clear_by_bounds(&self, view: &View<'_>, m: usize) -> bool {
        if self.config.dynamic_weight > 0.0 {
            return false;
        }
        let relief = self.fairness.drop_relief();
        view.chances_proven_above(m, 0, false, |t| {
            let suff = relief.get(view.task(t).task_type).copied().unwrap_or(0.0);
            drop_threshold(self.config.drop_threshold, suff, 0.0)
        })
    }

    /// The drop rule of Algorithm 1 as configured, with the fairness relief of the moment.
    fn drop_rule(&self) -> DropRule<'_> {
        DropRule {
            threshold: self.config.drop_threshold,
            dynamic_weight: self.config.dynamic_weight,
            sufferage: self.fairness.drop_relief(),
        }
    }

    fn update_defer(&mut self) {
        let base = self.config.defer_threshold.unwrap_or(0.0);
        self.defer = self
            .fairness
            .defer_relief()
            .iter()
            .map(|r| (base - r).clamp(0.0, 1.0))
            .collect();
    }
}

/// Machine `m`'s queue as the drop walk reads it (executing task first, with its start) into
/// `queue`, which is cleared first; the tasks' ids in the same order.
fn queue_of<'v>(view: &View<'v>, m: usize, queue: &mut Vec<QueuedTask<'v>>) -> Vec<TaskId> {
    queue.clear();
    let machine = &view.machines()[m];
    let ids: Vec<TaskId> = machine.tasks().collect();
    for (i, &t) in ids.iter().enumerate() {
        let spec = view.task(t);
        let start = if i == 0 {
            machine.running().map(|r| r.start)
        } else {
            None
        };
        queue.push(QueuedTask {
            task_type: spec.task_type,
            pet: view.pet().exec_pmf(spec.task_type, m),
            deadline: spec.deadline,
            start,
        });
    }
    ids
}

impl model::Pruner for ProbabilisticPruner {
    fn name(&self) -> String {
        format!("{:?}", self.config)
    }

    fn observe(&mut self, misses: usize) -> bool {
        self.observe_misses(misses)
    }

    fn level(&self) -> Option<f64> {
        Some(self.engagement.level())
    }

    fn select_drops(&mut self, view: &View<'_>) -> Vec<TaskId> {
        let mut out = Vec::new();
        let mut queue = Vec::new();
        for m in 0..view.machines().len() {
            if self.clear_by_bounds(view, m) {
                continue;
            }
            let ids = queue_of(view, m, &mut queue);
            // Until the first drop, the walk's PCTs and chances are the machine's cached ones.
            let slots = view.queue(m);
            let cached = (slots.len() == queue.len()).then_some(slots);
            let drops = walk_queue_cached(
                view.now(),
                &queue,
                view.model(),
                self.drop_rule(),
                cached,
                view.pct_epsilon(),
            );
            // A queue whose PCTs are too wide to hold (`walk_queue`'s only error) is kept
            // as it is.
            let Ok(drops) = drops else {
                continue;
            };
            out.extend(ids.iter().zip(drops).filter(|(_, d)| *d).map(|(&t, _)| t));
        }
        out
    }

    fn defer_thresholds(&self) -> Option<&[f64]> {
        self.config.defer_threshold.map(|_| self.defer.as_slice())
    }

    fn on_task_end(&mut self, task_type: usize, success: bool) {
        self.record_end(task_type, success);
    }

    fn fork(&self) -> Option<Box<dyn model::Pruner>> {
        Some(Box::new(self.clone()))
    }
}
