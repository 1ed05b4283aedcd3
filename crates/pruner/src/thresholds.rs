//! Thresholds: the per-task dynamic drop threshold of paper eq. (7) and PAMF's sufferage
//! values (paper V-D2, thesis 6.5).

use crate::config::{ConfigError, in_unit, task_types};

/// Paper eq. (7): `phi_i = -s_i p / (kappa_i + 1)`, with `s_i` the bounded skewness of the
/// task's completion-time PMF, `kappa_i` its queue position (0 = executing) and `p` a weight.
/// A right-tailed PCT (positive skew: likely to finish early) lowers the threshold, so such a
/// task is kept more readily; the effect fades with the position.
pub fn dynamic_offset(bounded_skewness: f64, position: usize, weight: f64) -> f64 {
    -bounded_skewness * weight / (position as f64 + 1.0)
}

/// The drop threshold of one task: `base - sufferage + phi`, clamped to [0, 1].
pub fn drop_threshold(base: f64, sufferage: f64, phi: f64) -> f64 {
    (base - sufferage + phi).clamp(0.0, 1.0)
}

/// Sufferage values per task type (PAMF). Each starts at 0; a success lowers its type's value
/// by the fairness factor, a miss or a drop raises it; values stay in [0, 1]. The value is
/// subtracted from the type's drop and defer thresholds.
#[derive(Debug, Clone, PartialEq)]
pub struct Sufferage {
    factor: f64,
    values: Vec<f64>,
}

impl Sufferage {
    /// All types at 0.
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] for a `factor` (the `fairness` setting) outside [0, 1] or
    /// NaN, [`ConfigError::TooManyTaskTypes`] for more than [`crate::MAX_TASK_TYPES`] types.
    pub fn new(types: usize, factor: f64) -> Result<Self, ConfigError> {
        in_unit("fairness", factor)?;
        task_types(types)?;
        Ok(Sufferage {
            factor,
            values: vec![0.0; types],
        })
    }

    /// A task of `task_type` ended, on time or not. Types beyond the table are ignored.
    pub fn record(&mut self, task_type: usize, success: bool) {
        if let Some(v) = self.values.get_mut(task_type) {
            let delta = if success { -self.factor } else { self.factor };
            *v = (*v + delta).clamp(0.0, 1.0);
        }
    }

    /// The current value of a type (0 for unknown types).
    pub fn value(&self, task_type: usize) -> f64 {
        self.values.get(task_type).copied().unwrap_or(0.0)
    }

    /// All values.
    pub fn values(&self) -> &[f64] {
        &self.values
    }
}
