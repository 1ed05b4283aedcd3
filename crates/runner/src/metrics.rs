//! Metrics of one trial (thesis 3.4.2, 6.5, 6.6; paper VI-B, VII-D, VII-F) and their summary
//! over trials (mean and 95% confidence interval with Student's t).

use model::Outcome;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::engine::TrialRecord;

/// Which tasks count toward the measures: the first and last ones by arrival are left out,
/// when the system is not yet (or no longer) oversubscribed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counting {
    /// Tasks left out at the start (by arrival).
    pub skip_first: usize,
    /// Tasks left out at the end (by arrival).
    pub skip_last: usize,
}

impl Default for Counting {
    fn default() -> Self {
        Counting {
            skip_first: 100,
            skip_last: 100,
        }
    }
}

impl Counting {
    /// The counted range of task ids for a trial of `n` tasks. When `n` is too small to leave
    /// anything, every task counts.
    pub fn range(self, n: usize) -> std::ops::Range<usize> {
        if self.skip_first + self.skip_last >= n {
            0..n
        } else {
            self.skip_first..n - self.skip_last
        }
    }
}

/// The measures of one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialMetrics {
    /// On-time tasks / counted tasks, in %.
    pub robustness: f64,
    /// On-time counted tasks.
    pub on_time: usize,
    /// Counted tasks.
    pub counted: usize,
    /// On-time % per task type among counted tasks (NaN for a type with no counted task).
    pub type_on_time: Vec<f64>,
    /// Fairness (thesis 6.5, paper VII-D): the variance across task types of the on-time
    /// fraction, times 100 (types with no counted task left out).
    pub type_variance: f64,
    /// Busy time per machine (all tasks).
    pub busy: Vec<f64>,
    /// Time spent executing tasks that did not complete on time.
    pub wasted: f64,
    /// Cost of the machines' busy time at their price per hour.
    pub cost: f64,
    /// Cost divided by robustness % (thesis 6.6); NaN when nothing succeeded.
    pub cost_per_robustness: f64,
    /// Mapping events.
    pub mapping_events: u64,
    /// Mapping events with dropping engaged.
    pub engaged_events: u64,
    /// Deferrals over all tasks.
    pub deferrals: u64,
    /// Simulated span (first arrival to last event).
    pub span: f64,
    /// Counted tasks per outcome, in [`Outcome::ALL`] order.
    pub outcomes: Vec<usize>,
    /// The clairvoyant upper bound on the on-time counted tasks of this trial (the `bound`
    /// crate's capacity LP), when computed.
    pub bound_on_time: Option<usize>,
}

/// Prices and the length of an hour, for cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing<'a> {
    /// Price per machine-hour, one per machine.
    pub per_hour: &'a [f64],
    /// Time units per hour (3600 when a time unit is a second).
    pub hour: f64,
}

impl TrialMetrics {
    /// Computes the measures of a trial. `types[i]` is task `i`'s type, `n_types` the number of
    /// types.
    pub fn new(
        record: &TrialRecord,
        types: &[usize],
        n_types: usize,
        counting: Counting,
        pricing: &Pricing<'_>,
    ) -> Self {
        let range = counting.range(record.tasks.len());
        let counted = range.len();
        let mut outcomes = vec![0usize; Outcome::ALL.len()];
        let mut per_type = vec![(0usize, 0usize); n_types];
        for i in range {
            let o = record.tasks[i].outcome;
            let k = Outcome::ALL.iter().position(|&x| x == o).unwrap_or(0);
            outcomes[k] += 1;
            let e = &mut per_type[types[i]];
            e.1 += 1;
            if o.is_success() {
                e.0 += 1;
            }
        }
        let on_time = outcomes[0];
        let robustness = if counted == 0 {
            0.0
        } else {
            100.0 * on_time as f64 / counted as f64
        };
        let type_on_time: Vec<f64> = per_type
            .iter()
            .map(|&(s, n)| {
                if n == 0 {
                    f64::NAN
                } else {
                    100.0 * s as f64 / n as f64
                }
            })
            .collect();
        let fractions: Vec<f64> = per_type
            .iter()
            .filter(|e| e.1 > 0)
            .map(|&(s, n)| s as f64 / n as f64)
            .collect();
        let type_variance = 100.0 * population_variance(&fractions);
        let busy: Vec<f64> = record.busy.iter().map(|&b| b as f64).collect();
        let cost: f64 = busy
            .iter()
            .enumerate()
            .map(|(m, b)| b / pricing.hour * pricing.per_hour.get(m).copied().unwrap_or(0.0))
            .sum();
        let cost_per_robustness = if robustness > 0.0 {
            cost / robustness
        } else {
            f64::NAN
        };
        TrialMetrics {
            robustness,
            on_time,
            counted,
            type_on_time,
            type_variance,
            busy,
            wasted: record.wasted.iter().sum::<i64>() as f64,
            cost,
            cost_per_robustness,
            mapping_events: record.mapping_events,
            engaged_events: record.engaged_events,
            deferrals: record.tasks.iter().map(|t| u64::from(t.deferrals)).sum(),
            span: record.span as f64,
            outcomes,
            bound_on_time: None,
        }
    }

    /// One scalar measure by name (see [`TrialMetrics::scalars`]).
    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.scalars()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }

    /// The scalar measures by name, in a fixed order (for summaries and CSV).
    pub fn scalars(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![
            ("robustness", self.robustness),
            ("on_time", self.on_time as f64),
            ("counted", self.counted as f64),
            ("type_variance", self.type_variance),
            ("cost", self.cost),
            ("cost_per_robustness", self.cost_per_robustness),
            ("busy", self.busy.iter().sum()),
            ("wasted", self.wasted),
            ("mapping_events", self.mapping_events as f64),
            ("engaged_events", self.engaged_events as f64),
            ("deferrals", self.deferrals as f64),
            ("span", self.span),
        ];
        for (k, o) in Outcome::ALL.iter().enumerate() {
            v.push((outcome_metric(*o), self.outcomes[k] as f64));
        }
        if let Some(b) = self.bound_on_time {
            let pct = if self.counted == 0 {
                0.0
            } else {
                100.0 * b as f64 / self.counted as f64
            };
            v.push(("bound", pct));
            v.push(("bound_on_time", b as f64));
            v.push(("gap_to_bound", pct - self.robustness));
        }
        v
    }
}

fn outcome_metric(o: Outcome) -> &'static str {
    match o {
        Outcome::OnTime => "n_on_time",
        Outcome::Late => "n_late",
        Outcome::ExpiredPending => "n_expired_pending",
        Outcome::ExpiredExecuting => "n_expired_executing",
        Outcome::PrunedPending => "n_pruned_pending",
        Outcome::PrunedExecuting => "n_pruned_executing",
        Outcome::Unmapped => "n_unmapped",
        Outcome::Discarded => "n_discarded",
    }
}

fn population_variance(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

/// Mean and 95% confidence interval of one measure over trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Sample mean.
    pub mean: f64,
    /// Lower end of the 95% CI (Student's t with n - 1 degrees of freedom).
    pub ci95_low: f64,
    /// Upper end.
    pub ci95_high: f64,
    /// Sample standard deviation.
    pub std_dev: f64,
    /// Number of values (NaN values are left out).
    pub n: usize,
}

impl Estimate {
    /// The estimate of the finite values of `values`.
    pub fn new(values: &[f64]) -> Self {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return Estimate {
                mean: f64::NAN,
                ci95_low: f64::NAN,
                ci95_high: f64::NAN,
                std_dev: f64::NAN,
                n,
            };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate {
                mean,
                ci95_low: mean,
                ci95_high: mean,
                std_dev: 0.0,
                n,
            };
        }
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let half = t_975(n - 1) * sd / (n as f64).sqrt();
        Estimate {
            mean,
            ci95_low: mean - half,
            ci95_high: mean + half,
            std_dev: sd,
            n,
        }
    }

    /// Half-width of the interval.
    pub fn half_width(&self) -> f64 {
        (self.ci95_high - self.ci95_low) / 2.0
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom.
pub fn t_975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(1.959_963_984_540_054)
}
