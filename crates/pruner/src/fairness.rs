//! Fairness across task types (PAMF, paper V-D2, and its variants): per task type, a relief
//! subtracted from the type's drop and defer thresholds, updated whenever a task of the type
//! leaves the system.

use serde::{Deserialize, Serialize};

use crate::thresholds::Sufferage;

/// Weight of a task's outcome in its type's moving on-time rate (relative and lagging modes).
pub const RATE_WEIGHT: f64 = 0.1;

/// How a type's relief is computed from the outcomes of its tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FairnessMode {
    /// PAMF as the paper states it (V-D2): a miss raises the type's sufferage by the fairness
    /// factor, a success lowers it, clamped to [0, 1].
    #[default]
    Literal,
    /// Relief steered by the type's on-time rate against the mean across types, both ways.
    Relative,
    /// As [`FairnessMode::Relative`], but only types below the mean get relief (never
    /// negative).
    Lagging,
}

impl FairnessMode {
    /// Every mode with its TOML name.
    pub const ALL: [(FairnessMode, &'static str); 3] = [
        (FairnessMode::Literal, "literal"),
        (FairnessMode::Relative, "relative"),
        (FairnessMode::Lagging, "lagging"),
    ];

    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            FairnessMode::Literal => "literal",
            FairnessMode::Relative => "relative",
            FairnessMode::Lagging => "lagging",
        }
    }

    /// What the mode does, in one line.
    pub fn description(self) -> &'static str {
        match self {
            FairnessMode::Literal => {
                "the paper's sufferage (V-D2): +factor per miss, -factor per success, in [0, 1]; saturates under overload"
            }
            FairnessMode::Relative => {
                "relief += factor x (mean on-time rate across types - the type's): types below the mean relieved, types above it tightened"
            }
            FairnessMode::Lagging => {
                "as relative, but relief never below 0: only types below the mean are relieved"
            }
        }
    }
}

/// Which thresholds a type's relief moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReliefScope {
    /// The drop and the defer threshold (the paper).
    #[default]
    Both,
    /// The defer threshold only: dropping keeps its base threshold for every type.
    Defer,
}

impl ReliefScope {
    /// The TOML name.
    pub fn name(self) -> &'static str {
        match self {
            ReliefScope::Both => "both",
            ReliefScope::Defer => "defer",
        }
    }
}

/// The settings of [`Fairness`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FairnessRule {
    /// How relief follows from outcomes.
    pub mode: FairnessMode,
    /// The step `theta` per task (the fairness factor).
    pub factor: f64,
    /// The largest relief, and in relative mode the largest tightening, in [0, 1].
    pub cap: f64,
    /// Which thresholds relief moves.
    pub scope: ReliefScope,
    /// The lowest base threshold that relief moves (the drop threshold's when it moves both,
    /// the defer threshold's otherwise): below `-(1 - floor_base)` a relief changes nothing.
    pub floor_base: f64,
}

/// The fairness state of one trial: per task type, the relief subtracted from its drop and
/// defer thresholds (a negative relief raises them).
///
/// * [`FairnessMode::Literal`], the paper as stated: a miss raises the type's sufferage by the
///   fairness factor `theta`, a success lowers it, clamped to [0, 1]. In expectation a type's
///   sufferage moves by `theta (1 - 2 q)` per task, `q` its on-time rate: it steers every type
///   toward 50% on time. Under overload no type can get there, so every sufferage climbs to 1
///   and both thresholds fall to 0 for every type: pruning is switched off.
/// * [`FairnessMode::Relative`]: an integral step of the same size whose target is the mean
///   on-time rate across types, `qbar`, instead of 50%: a task of type `f` moves the type's
///   relief by `theta (qbar - q_f)`, `q_f` the type's moving on-time rate after the task's
///   outcome. Types below the mean gain relief, types above it lose some (negative relief:
///   stricter thresholds), and the reference falls with the load, so nothing saturates: a
///   load that lowers every type's rate alike moves no relief (which a step on the raw
///   outcome, `theta (qbar - s)`, would do while the rates catch up). Relief lies in
///   `[-cap, cap]`, and never below the value at which every threshold it moves is already 1
///   (no wind-up: a relief that can change no threshold any more stops accumulating).
/// * [`FairnessMode::Lagging`]: as relative, with relief never below 0: only types below the
///   mean get anything.
///
/// `qbar` is the unweighted mean over types of each type's on-time rate, a moving average of
/// its outcomes with weight [`RATE_WEIGHT`] (about its last ten tasks), every type starting
/// at 1 (an idle system meets every deadline), matching the fairness measure, which weighs
/// types alike. `cap` bounds how far any mode moves a threshold ([`PrunerConfig::fairness_cap`]),
/// and [`ReliefScope`] chooses whether relief lowers the drop threshold as well as the defer
/// threshold.
///
/// [`PrunerConfig::fairness_cap`]: crate::PrunerConfig::fairness_cap
#[derive(Debug, Clone, PartialEq)]
pub struct Fairness {
    rule: FairnessRule,
    sufferage: Sufferage,
    /// Relative and lagging: per type, the moving on-time rate.
    rate: Vec<f64>,
    drop: Vec<f64>,
    defer: Vec<f64>,
}

impl Fairness {
    /// No relief yet, for `types` task types. Fails on more than [`crate::MAX_TASK_TYPES`]
    /// types or a factor outside [0, 1] (NaN included).
    pub fn new(types: usize, rule: FairnessRule) -> Result<Self, crate::ConfigError> {
        Ok(Fairness {
            rule,
            sufferage: Sufferage::new(types, rule.factor)?,
            rate: vec![1.0; types],
            drop: vec![0.0; types],
            defer: vec![0.0; types],
        })
    }

    /// A task of `task_type` ended, on time or not. Types beyond the table are ignored.
    pub fn record(&mut self, task_type: usize, success: bool) {
        if task_type >= self.defer.len() {
            return;
        }
        let r = match self.rule.mode {
            FairnessMode::Literal => {
                self.sufferage.record(task_type, success);
                let v = self.sufferage.value(task_type);
                // A cap of 1 leaves the paper's values untouched (they are in [0, 1]).
                if self.rule.cap < 1.0 {
                    v.min(self.rule.cap)
                } else {
                    v
                }
            }
            FairnessMode::Relative | FairnessMode::Lagging => {
                let s = if success { 1.0 } else { 0.0 };
                let q = &mut self.rate[task_type];
                *q += RATE_WEIGHT * (s - *q);
                let q = *q;
                let mean = self.rate.iter().sum::<f64>() / self.rate.len() as f64;
                let lo = match self.rule.mode {
                    FairnessMode::Relative => -self.rule.cap.min(1.0 - self.rule.floor_base),
                    _ => 0.0,
                };
                (self.defer[task_type] + self.rule.factor * (mean - q)).clamp(lo, self.rule.cap)
            }
        };
        self.defer[task_type] = r;
        self.drop[task_type] = match self.rule.scope {
            ReliefScope::Both => r,
            ReliefScope::Defer => 0.0,
        };
    }

    /// The relief off each type's drop threshold.
    pub fn drop_relief(&self) -> &[f64] {
        &self.drop
    }

    /// The relief off each type's defer threshold (every mode moves it).
    pub fn defer_relief(&self) -> &[f64] {
        &self.defer
    }

    /// Each type's moving on-time rate (relative and lagging modes; all 1 in literal mode).
    pub fn rates(&self) -> &[f64] {
        &self.rate
    }

    /// The literal sufferage values (all 0 in the other modes).
    pub fn sufferage(&self) -> &Sufferage {
        &self.sufferage
    }
}
