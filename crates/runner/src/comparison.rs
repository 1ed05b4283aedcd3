//! Heuristics side by side on the same trials: each one's robustness with its 95% interval,
//! its paired difference to the best one with the interval of that difference, and the
//! worst-served task type. What `prunesim run --heuristic A,B,C` prints and Python's
//! `prunesim.compare` returns.
//!
//! The runs compared must share their trials (the same experiment and seed: the same
//! arrivals and execution-time draws, common random numbers): then the difference of trial
//! `k` is the heuristics' alone, and the interval of the mean difference is much narrower
//! than the two robustness intervals side by side suggest.

use serde::Serialize;

use crate::metrics::{Estimate, TrialMetrics};

/// One heuristic's row.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Compared {
    /// The heuristic's name, as given.
    pub heuristic: String,
    /// Robustness, mean and 95% interval over the trials, in %.
    pub robustness: Estimate,
    /// Its robustness minus the best heuristic's, trial by trial, in points: mean and 95%
    /// interval (`None` for the best itself).
    pub difference_to_best: Option<Estimate>,
    /// The lowest on-time share of a task type, in %: mean and interval over the trials.
    pub worst_type_on_time: Estimate,
}

/// Heuristics compared (see the module docs).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Comparison {
    /// One row per heuristic, in the order given.
    pub rows: Vec<Compared>,
    /// The row with the highest mean robustness (the first of those tied).
    pub best: usize,
}

impl Comparison {
    /// Compares the runs, each a heuristic's name and its trials' measures, the trials in
    /// the same order for every run. Without runs, no row and `best` 0.
    pub fn new(runs: &[(String, Vec<TrialMetrics>)]) -> Comparison {
        let values = |f: fn(&TrialMetrics) -> f64| -> Vec<Vec<f64>> {
            runs.iter()
                .map(|(_, t)| t.iter().map(f).collect())
                .collect()
        };
        let names: Vec<String> = runs.iter().map(|(n, _)| n.clone()).collect();
        Self::of_values(
            &names,
            &values(|m| m.robustness),
            &values(|m| m.worst_type_on_time),
        )
    }

    /// [`Comparison::new`] of each run's robustness and worst type's share, trial by trial.
    fn of_values(names: &[String], robustness: &[Vec<f64>], worst: &[Vec<f64>]) -> Comparison {
        let estimates: Vec<Estimate> = robustness
            .iter()
            .map(|r| Estimate::of_metric("robustness", r))
            .collect();
        let best = best_index(&estimates.iter().map(|e| e.mean).collect::<Vec<_>>());
        let rows = names
            .iter()
            .zip(estimates)
            .zip(worst)
            .enumerate()
            .map(|(i, ((name, robustness_estimate), worst))| {
                let difference_to_best = (i != best).then(|| {
                    let d: Vec<f64> = robustness[i]
                        .iter()
                        .zip(&robustness[best])
                        .map(|(a, b)| a - b)
                        .collect();
                    Estimate::new(&d)
                });
                Compared {
                    heuristic: name.clone(),
                    robustness: robustness_estimate,
                    difference_to_best,
                    worst_type_on_time: Estimate::of_metric("worst_type_on_time", worst),
                }
            })
            .collect();
        Comparison { rows, best }
    }

    /// The best row's heuristic ("" without rows).
    pub fn best_name(&self) -> &str {
        self.rows
            .get(self.best)
            .map_or("", |r| r.heuristic.as_str())
    }
}

/// The index of the largest mean (the first of those tied; NaN never wins).
fn best_index(means: &[f64]) -> usize {
    let mut best = 0;
    for (i, &m) in means.iter().enumerate() {
        if m > means[best] || means[best].is_nan() {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_best_is_the_first_of_the_largest_means() {
        assert_eq!(best_index(&[1.0, 3.0, 3.0, 2.0]), 1);
        assert_eq!(best_index(&[f64::NAN, 1.0]), 1);
        assert_eq!(best_index(&[2.0]), 0);
    }

    #[test]
    fn differences_are_paired_trial_by_trial() {
        // B is A minus 1 to 3 points on every trial, though its own spread is wide: the
        // paired mean difference is -2 with an interval from the differences' spread (sd 1,
        // 3 trials: t(0.975, 2) = 4.303, half-width 4.303 / sqrt(3) = 2.484).
        let c = Comparison::of_values(
            &["A".into(), "B".into()],
            &[vec![50.0, 70.0, 90.0], vec![49.0, 68.0, 87.0]],
            &[vec![25.0, 35.0, 45.0], vec![24.0, 34.0, 44.0]],
        );
        assert_eq!((c.best, c.best_name()), (0, "A"));
        assert!(c.rows[0].difference_to_best.is_none());
        let d = c.rows[1].difference_to_best.as_ref().unwrap();
        assert!((d.mean + 2.0).abs() < 1e-12);
        let half = 4.302_652_729_911_275 / 3f64.sqrt();
        assert!((d.ci95_low.unwrap() - (-2.0 - half)).abs() < 1e-6, "{d:?}");
        assert!((d.ci95_high.unwrap() - (-2.0 + half)).abs() < 1e-6, "{d:?}");
        assert!((c.rows[1].worst_type_on_time.mean - 34.0).abs() < 1e-12);
    }
}
