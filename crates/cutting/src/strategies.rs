//! The strategies of sections 6 and 7.1, as policies that read an [`Observations`] snapshot
//! and return their decision as data ([`Decision`]); the simulation applies it.
//!
//! | strategy | when the threshold is (re)computed | estimate |
//! |---|---|---|
//! | NEVERINTERRUPT | never (`+inf`) | |
//! | ORACLE | at start, from the true distribution | eq. (2), [`crate::threshold::optimal_continuous`] |
//! | EMPIRICAL(p) / SURVIVAL(p) | once, after spending `p b`; if nothing has completed yet, after `2 p b`, and so on (6.1) | empirical (5.1) / Kaplan-Meier (5.2) |
//! | PEREMPIRICAL(p) / PERSURVIVAL(p) | after `p b`, then after every further `p b` (6.1) | empirical / Kaplan-Meier |
//! | AUTOPERSURVIVAL(p_max, eps) | at the first completion where the mean and standard deviation both moved by less than `eps` (relative), or after `p_max b`; then every `max(0.01, q) b`, `q b` being the budget spent at the first decision (6.2) | Kaplan-Meier |
//!
//! With `ceil(b/d)` VMs working back to back, a fraction `p` of the budget is spent at time
//! `p h` on every VM, `h = b / ceil(b/d)` (section 6.1, step 2).
//!
//! Choices where the paper is silent, kept explicit here:
//! * The convergence test of AUTOPERSURVIVAL watches the mean and standard deviation of the
//!   *empirical* distribution of completed tasks (section 6.2 speaks of "convergence of the
//!   empirical distribution function"), recomputed at each completion from the second one on.
//!   [`Moments::KaplanMeier`] watches the Kaplan-Meier moments of section 5.2 instead; it
//!   converges spuriously early on small budgets (the remainder sits at the elapsed time of the
//!   running tasks, which barely moves between two close completions) and matches table 5
//!   less well (see docs/reproduction-gao.md).
//! * A new threshold applies at once to running tasks: a task that has already run at least the
//!   new threshold is interrupted at the decision time.
//! * The threshold is always an observed completion time (Theorem 1 on the estimate); the
//!   estimate never answers "never interrupt".
//! * If AUTOPERSURVIVAL reaches `p_max b` with no completion, it waits until `2 p_max b`, and
//!   so on, like the others.

use serde::{Deserialize, Serialize};

use crate::error::CuttingError;
use crate::threshold::{KmPoints, Optimum, best_on_sorted, empirical_sorted};

/// A scheduling strategy of section 6 (budget fractions `p`, `p_max` in `(0, 1]`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "strategy", rename_all = "snake_case")]
pub enum Strategy {
    /// Let every task run to completion.
    NeverInterrupt,
    /// Knows the distribution: the optimal threshold of eq. (2) from the start.
    Oracle,
    /// Observe `p b`, then fix the threshold from the empirical distribution (5.1).
    Empirical {
        /// Fraction of the budget spent observing.
        p: f64,
    },
    /// Observe `p b`, then fix the threshold from the Kaplan-Meier estimate (5.2).
    Survival {
        /// Fraction of the budget spent observing.
        p: f64,
    },
    /// As [`Strategy::Empirical`], recomputed after every further `p b`.
    PerEmpirical {
        /// Fraction of the budget between decisions.
        p: f64,
    },
    /// As [`Strategy::Survival`], recomputed after every further `p b`.
    PerSurvival {
        /// Fraction of the budget between decisions.
        p: f64,
    },
    /// Section 6.2: observe until convergence (precision `epsilon`) or `p_max b`, then
    /// recompute periodically.
    AutoPerSurvival {
        /// Largest fraction of the budget spent observing.
        p_max: f64,
        /// Relative precision of the convergence test.
        epsilon: f64,
    },
}

fn fraction_ok(name: &str, p: f64) -> Result<(), CuttingError> {
    if p.is_finite() && p > 0.0 && p <= 1.0 {
        Ok(())
    } else {
        Err(CuttingError::InvalidStrategy(format!(
            "{name} must be in (0, 1], got {p}"
        )))
    }
}

impl Strategy {
    /// Checks the parameters: fractions in `(0, 1]`, `epsilon` finite and positive.
    pub fn validate(&self) -> Result<(), CuttingError> {
        match *self {
            Strategy::NeverInterrupt | Strategy::Oracle => Ok(()),
            Strategy::Empirical { p }
            | Strategy::Survival { p }
            | Strategy::PerEmpirical { p }
            | Strategy::PerSurvival { p } => fraction_ok("p", p),
            Strategy::AutoPerSurvival { p_max, epsilon } => {
                fraction_ok("p_max", p_max)?;
                if epsilon.is_finite() && epsilon > 0.0 {
                    Ok(())
                } else {
                    Err(CuttingError::InvalidStrategy(format!(
                        "epsilon must be finite and positive, got {epsilon}"
                    )))
                }
            }
        }
    }

    /// The label used in tables 4 and 5, e.g. `"PerSurvival (10%)"`,
    /// `"AutoPerSurvival (40%,0.01)"`.
    pub fn label(&self) -> String {
        let pct = |p: f64| {
            let v = p * 100.0;
            if (v - v.round()).abs() < 1e-9 {
                format!("{}%", v.round())
            } else {
                format!("{v}%")
            }
        };
        match *self {
            Strategy::NeverInterrupt => "NeverInterrupt".into(),
            Strategy::Oracle => "Oracle".into(),
            Strategy::Empirical { p } => format!("Empirical ({})", pct(p)),
            Strategy::Survival { p } => format!("Survival ({})", pct(p)),
            Strategy::PerEmpirical { p } => format!("PerEmpirical ({})", pct(p)),
            Strategy::PerSurvival { p } => format!("PerSurvival ({})", pct(p)),
            Strategy::AutoPerSurvival { p_max, epsilon } => {
                format!("AutoPerSurvival ({},{epsilon})", pct(p_max))
            }
        }
    }
}

/// The six strategies compared in tables 4 and 5, in the tables' column order.
pub fn paper_strategies() -> Vec<Strategy> {
    vec![
        Strategy::NeverInterrupt,
        Strategy::AutoPerSurvival {
            p_max: 0.4,
            epsilon: 0.01,
        },
        Strategy::PerSurvival { p: 0.1 },
        Strategy::Survival { p: 0.1 },
        Strategy::PerEmpirical { p: 0.1 },
        Strategy::Empirical { p: 0.1 },
    ]
}

/// What a policy sees at a decision: the data gathered so far, read-only.
#[derive(Debug, Clone, Copy)]
pub struct Observations<'a> {
    /// The current time.
    pub now: f64,
    /// The time each VM works, `h = b / ceil(b/d)`: the fraction of the budget spent is
    /// `now / horizon`.
    pub horizon: f64,
    /// Execution times of the completed tasks, sorted ascending.
    pub completed: &'a [f64],
    /// Censored times `(time, count)` sorted ascending: interrupted tasks (at the threshold
    /// they reached) and running tasks (at their elapsed time).
    pub censored: &'a [(f64, usize)],
}

impl Observations<'_> {
    /// The fraction of the budget spent so far.
    pub fn budget_spent(&self) -> f64 {
        self.now / self.horizon
    }
}

/// A policy's answer at a decision point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    /// The new threshold, or `None` to keep the current one (no estimate possible yet).
    pub threshold: Option<f64>,
    /// When to decide again (absolute time), or `None` for never.
    pub next: Option<f64>,
}

/// Which estimate a strategy uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Estimator {
    Empirical,
    Survival,
}

/// The state of a running strategy.
#[derive(Debug, Clone)]
pub(crate) struct Policy {
    strategy: Strategy,
    /// Moments at the previous completion (AUTOPERSURVIVAL's convergence test).
    previous: Option<(f64, f64)>,
    /// Whether a threshold has been computed (ends AUTOPERSURVIVAL's observation).
    decided: bool,
    /// AUTOPERSURVIVAL's period between recomputations, as a fraction of the budget.
    period: f64,
    /// Which moments AUTOPERSURVIVAL's convergence test watches.
    convergence: Moments,
}

/// The mean and standard deviation watched by AUTOPERSURVIVAL's convergence test.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Moments {
    /// Of the empirical distribution of the completed tasks (section 6.2: "observing
    /// convergence of the empirical distribution function"). The default.
    #[default]
    Empirical,
    /// Of the Kaplan-Meier estimate (section 5.2), running tasks censored.
    KaplanMeier,
}

/// Population mean and standard deviation of sorted completion times.
fn empirical_mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / n;
    (m, v.max(0.0).sqrt())
}

impl Policy {
    pub(crate) fn new(strategy: Strategy, convergence: Moments) -> Self {
        Policy {
            strategy,
            convergence,
            previous: None,
            decided: false,
            period: 0.0,
        }
    }

    /// The threshold in force at time 0.
    pub(crate) fn initial_threshold(&self, oracle: Optimum) -> f64 {
        match self.strategy {
            Strategy::Oracle => oracle.threshold,
            _ => f64::INFINITY,
        }
    }

    /// The first scheduled decision time.
    pub(crate) fn first_decision(&self, horizon: f64) -> Option<f64> {
        match self.strategy {
            Strategy::NeverInterrupt | Strategy::Oracle => None,
            Strategy::Empirical { p }
            | Strategy::Survival { p }
            | Strategy::PerEmpirical { p }
            | Strategy::PerSurvival { p } => Some(p * horizon),
            Strategy::AutoPerSurvival { p_max, .. } => Some(p_max * horizon),
        }
    }

    /// Whether the policy wants the Kaplan-Meier moments at each completion.
    pub(crate) fn watches_completions(&self) -> bool {
        matches!(self.strategy, Strategy::AutoPerSurvival { .. }) && !self.decided
    }

    /// AUTOPERSURVIVAL's convergence test at a completion: `true` when the mean and the
    /// standard deviation both moved by less than `epsilon` (relative) since the previous
    /// completion.
    pub(crate) fn converged(&mut self, obs: &Observations<'_>) -> bool {
        let Strategy::AutoPerSurvival { epsilon, .. } = self.strategy else {
            return false;
        };
        let (m, s) = match self.convergence {
            Moments::Empirical => empirical_mean_sd(obs.completed),
            Moments::KaplanMeier => KmPoints::from_sorted(obs.completed, obs.censored).mean_sd(),
        };
        let close = |new: f64, old: f64| (new - old).abs() <= epsilon * old.abs();
        let conv = self
            .previous
            .is_some_and(|(pm, ps)| close(m, pm) && close(s, ps));
        self.previous = Some((m, s));
        conv
    }

    fn estimate(estimator: Estimator, obs: &Observations<'_>) -> Option<Optimum> {
        if obs.completed.is_empty() {
            return None;
        }
        match estimator {
            Estimator::Empirical => best_on_sorted(&empirical_sorted(obs.completed)),
            Estimator::Survival => {
                best_on_sorted(&KmPoints::from_sorted(obs.completed, obs.censored).points)
            }
        }
    }

    /// The decision at a scheduled time or at convergence.
    pub(crate) fn decide(&mut self, obs: &Observations<'_>) -> Decision {
        let h = obs.horizon;
        match self.strategy {
            Strategy::NeverInterrupt | Strategy::Oracle => Decision {
                threshold: None,
                next: None,
            },
            Strategy::Empirical { p } | Strategy::Survival { p } => {
                let est = if matches!(self.strategy, Strategy::Empirical { .. }) {
                    Estimator::Empirical
                } else {
                    Estimator::Survival
                };
                match Self::estimate(est, obs) {
                    Some(o) => Decision {
                        threshold: Some(o.threshold),
                        next: None,
                    },
                    None => Decision {
                        threshold: None,
                        next: Some(obs.now + p * h),
                    },
                }
            }
            Strategy::PerEmpirical { p } | Strategy::PerSurvival { p } => {
                let est = if matches!(self.strategy, Strategy::PerEmpirical { .. }) {
                    Estimator::Empirical
                } else {
                    Estimator::Survival
                };
                Decision {
                    threshold: Self::estimate(est, obs).map(|o| o.threshold),
                    next: Some(obs.now + p * h),
                }
            }
            Strategy::AutoPerSurvival { p_max, .. } => {
                let threshold = Self::estimate(Estimator::Survival, obs).map(|o| o.threshold);
                if self.decided {
                    return Decision {
                        threshold,
                        next: Some(obs.now + self.period * h),
                    };
                }
                match threshold {
                    Some(t) => {
                        self.decided = true;
                        // q b spent at the first decision; recompute every max(0.01, q) b.
                        let q = obs.budget_spent().max(0.01);
                        self.period = q;
                        Decision {
                            threshold: Some(t),
                            next: Some(obs.now + q * h),
                        }
                    }
                    None => Decision {
                        threshold: None,
                        next: Some(obs.now + p_max * h),
                    },
                }
            }
        }
    }
}
