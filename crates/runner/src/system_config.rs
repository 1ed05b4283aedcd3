//! The `[system]` table of an experiment: queue size, drop model, counting, prices, early
//! mapping (JPDC-2016 section 5) and PCT trimming.

use pmf::DropModel;
use serde::{Deserialize, Serialize};

use crate::engine::QueueSize;
use crate::metrics::Counting;

/// On-demand prices (USD per hour) used for the 8 machines of the thesis' system when an
/// experiment gives none (thesis 6.6 maps AWS prices without listing them; these are
/// representative 2018 on-demand prices of general, compute, memory and GPU instances, see
/// docs/reproduction.md). Machines beyond the list repeat it cyclically.
pub const DEFAULT_PRICES: [f64; 8] = [0.0464, 0.0832, 0.085, 0.1, 0.126, 0.19, 0.526, 0.526];

/// The largest `[system] pct_epsilon` accepted (exclusive): beyond it trimmed results
/// would mean little.
pub const MAX_PCT_EPSILON: f64 = 0.1;

/// The `[system]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SystemConfig {
    /// Machine queue-size limit counting the executing task (default 6 for batch-mode
    /// heuristics). Immediate-mode heuristics map into unbounded queues: a limit with one of
    /// them is an error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_size: Option<QueueSize>,
    /// Who is dropped at its deadline (default `all`: executing tasks too, as the thesis).
    pub drop_model: DropModel,
    /// Tasks left out of the measures at the start, by arrival.
    pub skip_first: usize,
    /// Tasks left out at the end.
    pub skip_last: usize,
    /// Price per machine-hour for each machine (default [`DEFAULT_PRICES`], cycled).
    pub prices: Option<Vec<f64>>,
    /// Time units per hour, for cost.
    pub hour: f64,
    /// Mapping events before machines go idle (JPDC-2016 section 5, eqs. 3-5).
    #[serde(skip_serializing_if = "is_false")]
    pub early_mapping: bool,
    /// `t_h` of JPDC-2016 eq. (5): the heuristic's execution time in time units (only with
    /// `early_mapping`). A configured value: a measured one would make results depend on
    /// the host.
    #[serde(skip_serializing_if = "is_zero")]
    pub heuristic_time: f64,
    /// Trim every PCT within this total-variation distance (0 = exact, the default; below
    /// 0.1): approximate results, labelled in the summary.
    #[serde(skip_serializing_if = "is_zero")]
    pub pct_epsilon: f64,
    /// Also measure robustness over this many equal consecutive parts of the trial's tasks,
    /// all of them, by arrival (`window_01` ...; at most 10; 0 = not measured, the default).
    #[serde(skip_serializing_if = "is_zero_usize")]
    pub windows: usize,
}

fn is_zero_usize(x: &usize) -> bool {
    *x == 0
}

pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

pub(crate) fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Default for SystemConfig {
    fn default() -> Self {
        SystemConfig {
            queue_size: None,
            drop_model: DropModel::All,
            skip_first: 100,
            skip_last: 100,
            prices: None,
            hour: 3600.0,
            early_mapping: false,
            heuristic_time: 0.0,
            pct_epsilon: 0.0,
            windows: 0,
        }
    }
}

/// The queue-size limit of batch-mode heuristics when `[system]` sets none.
pub const DEFAULT_QUEUE_SIZE: usize = 6;

impl SystemConfig {
    /// The queue-size limit that runs: the configured one, else [`DEFAULT_QUEUE_SIZE`] in
    /// batch mode and unbounded queues in immediate mode.
    pub fn queue_size_for(&self, immediate: bool) -> QueueSize {
        match self.queue_size {
            Some(q) => q,
            None if immediate => QueueSize::Unbounded(crate::engine::Unbounded::Unbounded),
            None => QueueSize::Limit(DEFAULT_QUEUE_SIZE),
        }
    }

    /// The measures' counting rule.
    pub fn counting(&self) -> Counting {
        Counting {
            skip_first: self.skip_first,
            skip_last: self.skip_last,
        }
    }

    /// One price per machine.
    pub fn prices_for(&self, machines: usize) -> Vec<f64> {
        let list = self.prices.as_deref().unwrap_or(&DEFAULT_PRICES);
        if list.is_empty() {
            return vec![0.0; machines];
        }
        (0..machines).map(|m| list[m % list.len()]).collect()
    }

    pub(crate) fn validate(&self) -> Result<(), String> {
        if let Some(QueueSize::Limit(0)) = self.queue_size {
            return Err("system.queue_size must be at least 1 (or \"unbounded\")".into());
        }
        if !(self.hour.is_finite() && self.hour > 0.0) {
            return Err(format!("system.hour must be positive, got {}", self.hour));
        }
        if !(self.heuristic_time.is_finite() && self.heuristic_time >= 0.0) {
            return Err(format!(
                "system.heuristic_time: expected a number of time units >= 0, found {}",
                self.heuristic_time
            ));
        }
        if !(self.pct_epsilon.is_finite() && (0.0..MAX_PCT_EPSILON).contains(&self.pct_epsilon)) {
            return Err(format!(
                "system.pct_epsilon: expected a number >= 0 and < {MAX_PCT_EPSILON} (0 = exact), found {}",
                self.pct_epsilon
            ));
        }
        if self.windows > crate::metrics::WINDOW_METRICS.len() {
            return Err(format!(
                "system.windows: expected at most {} windows, found {}",
                crate::metrics::WINDOW_METRICS.len(),
                self.windows
            ));
        }
        if let Some(p) = &self.prices {
            if let Some(bad) = p.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                return Err(format!("system.prices must be finite and >= 0, got {bad}"));
            }
        }
        Ok(())
    }
}
