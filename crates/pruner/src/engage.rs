//! Engaging dropping: the oversubscription level of paper eq. (8), the toggle, and the
//! Schmitt trigger (paper V-C, thesis 6.4).

use crate::config::{ConfigError, Toggle, in_unit, toggle_level};

/// The oversubscription detector.
#[derive(Debug, Clone, PartialEq)]
pub struct Engagement {
    toggle: Toggle,
    lambda: f64,
    schmitt: Option<f64>,
    level: f64,
    engaged: bool,
}

impl Engagement {
    /// A detector with the given toggle, EWMA weight `lambda`, and Schmitt off level as a
    /// fraction of the toggle (`None`: plain toggle).
    ///
    /// # Errors
    /// [`ConfigError::OutOfRange`] naming the field: a toggle level that is not finite and
    /// `>= 0`, or a `lambda` or `schmitt_off` outside [0, 1] (NaN included), the ranges of
    /// [`crate::PrunerConfig::validate`].
    pub fn new(toggle: Toggle, lambda: f64, schmitt_off: Option<f64>) -> Result<Self, ConfigError> {
        toggle_level(toggle)?;
        in_unit("lambda", lambda)?;
        if let Some(off) = schmitt_off {
            in_unit("schmitt_off", off)?;
        }
        Ok(Engagement {
            toggle,
            lambda,
            schmitt: schmitt_off,
            level: 0.0,
            engaged: false,
        })
    }

    /// The current oversubscription level `d_t`.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Whether dropping is engaged.
    pub fn engaged(&self) -> bool {
        self.engaged
    }

    /// Paper eq. (8): `d_t = lambda mu_t + (1 - lambda) d_{t-1}` with `mu_t` the deadline
    /// misses since the last mapping event; then the trigger. Returns whether dropping is
    /// engaged for this event.
    pub fn observe(&mut self, misses: usize) -> bool {
        self.level = self.lambda * misses as f64 + (1.0 - self.lambda) * self.level;
        let Some(on) = self.toggle.level() else {
            self.engaged = false;
            return false;
        };
        if self.engaged {
            let off = match self.schmitt {
                Some(frac) => self.level <= frac * on,
                None => self.level < on,
            };
            if off {
                self.engaged = false;
            }
        }
        if !self.engaged && self.level >= on {
            self.engaged = true;
        }
        self.engaged
    }
}
