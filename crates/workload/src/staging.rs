//! Input-data staging (JPDC-2016 sections 2, 5 and 7.1-7.2): every task needs input data
//! from shared storage; every machine has its own staging rate.
//!
//! ```toml
//! [staging]               # absent = no staging (the thesis' experiments)
//! mean_size_mb = 64.0     # mean input size; sizes are Gaussian (JPDC-2016 7.2)
//! size_variance = 0.1     # variance of the sizes as a fraction of their mean (MB^2 per MB)
//! rate_gbps = 0.68        # mean staging rate; rates are Gamma across machines (7.1)
//! rate_cv = 0.1           # coefficient of variation of the rates
//! seconds_per_unit = 1.0  # seconds in one time unit of the PET
//! ```
//! Units: 1 MB = 8 * 10^6 bits, 1 Gbps = 10^9 bits per second, so 64 MB at 0.68 Gbps take
//! 0.753 s; a staging time in time units is that over `seconds_per_unit`, rounded up to a
//! whole tick. JPDC-2016 does not say how its time units relate to seconds; one second per
//! unit is our reading (docs/reproduction.md).
//!
//! The draws come from the trial's `Staging` stream: substream 0 gives one Gamma(1/cv^2)
//! draw per machine, substream 1 one standard normal draw per task, so a sweep over the
//! mean size or the mean rate sees the same luck at every point.

use pmf::Tick;
use rand_distr::{Distribution, Gamma, StandardNormal};
use serde::{Deserialize, Serialize};

use crate::error::WorkloadError;
use crate::rng::{Purpose, substream};

/// The `[staging]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StagingConfig {
    /// Mean input-data size of a task, MB (JPDC-2016 default 64).
    pub mean_size_mb: f64,
    /// Variance of the sizes as a fraction of the mean ("the variance is 10% of the mean").
    pub size_variance: f64,
    /// Mean staging rate from shared storage to a machine, Gbps (0.68).
    pub rate_gbps: f64,
    /// Coefficient of variation of the machines' rates (0.1).
    pub rate_cv: f64,
    /// Seconds in one time unit of the PET (1).
    pub seconds_per_unit: f64,
}

impl Default for StagingConfig {
    fn default() -> Self {
        StagingConfig {
            mean_size_mb: 64.0,
            size_variance: 0.1,
            rate_gbps: 0.68,
            rate_cv: 0.1,
            seconds_per_unit: 1.0,
        }
    }
}

fn invalid(field: &str, expected: &str, found: f64) -> WorkloadError {
    WorkloadError::InvalidConfig {
        file: String::new(),
        field: format!("staging.{field}"),
        expected: expected.into(),
        found: found.to_string(),
    }
}

impl StagingConfig {
    /// Checks every field's range; the error names the field.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let finite = |x: f64| x.is_finite();
        if !(finite(self.mean_size_mb) && self.mean_size_mb >= 0.0) {
            return Err(invalid(
                "mean_size_mb",
                "a size in MB >= 0",
                self.mean_size_mb,
            ));
        }
        if !(finite(self.size_variance) && self.size_variance >= 0.0) {
            return Err(invalid(
                "size_variance",
                "a fraction of the mean >= 0",
                self.size_variance,
            ));
        }
        if !(finite(self.rate_gbps) && self.rate_gbps > 0.0) {
            return Err(invalid("rate_gbps", "a rate in Gbps > 0", self.rate_gbps));
        }
        if !(finite(self.rate_cv) && (0.0..=10.0).contains(&self.rate_cv)) {
            return Err(invalid(
                "rate_cv",
                "a coefficient of variation in [0, 10]",
                self.rate_cv,
            ));
        }
        if !(finite(self.seconds_per_unit) && self.seconds_per_unit > 0.0) {
            return Err(invalid(
                "seconds_per_unit",
                "a number of seconds > 0",
                self.seconds_per_unit,
            ));
        }
        Ok(())
    }

    /// The sizes and rates of trial `trial` (`n_tasks` tasks in arrival order, `n_machines`
    /// machines) from the streams `(seed, trial, Staging)`.
    pub fn draw(
        &self,
        seed: u64,
        trial: u64,
        n_tasks: usize,
        n_machines: usize,
    ) -> Result<Staging, WorkloadError> {
        self.validate()?;
        let mut rates_rng = substream(seed, trial, Purpose::Staging, 0);
        let rates_gbps = if self.rate_cv > 0.0 {
            let shape = 1.0 / (self.rate_cv * self.rate_cv);
            let gamma = Gamma::new(shape, 1.0 / shape)
                .map_err(|e| invalid("rate_cv", &format!("a valid Gamma shape ({e})"), shape))?;
            (0..n_machines)
                .map(|_| self.rate_gbps * gamma.sample(&mut rates_rng))
                .collect()
        } else {
            vec![self.rate_gbps; n_machines]
        };
        let mut sizes_rng = substream(seed, trial, Purpose::Staging, 1);
        let sd = (self.size_variance * self.mean_size_mb).sqrt();
        let sizes_mb = (0..n_tasks)
            .map(|_| {
                let z: f64 = StandardNormal.sample(&mut sizes_rng);
                (self.mean_size_mb + sd * z).max(0.0)
            })
            .collect();
        Staging::new(sizes_mb, rates_gbps, self.seconds_per_unit)
    }
}

/// The staging draws of one trial: each task's input size and each machine's rate.
#[derive(Debug, Clone, PartialEq)]
pub struct Staging {
    sizes_mb: Vec<f64>,
    rates_gbps: Vec<f64>,
    seconds_per_unit: f64,
}

impl Staging {
    /// Checked construction: sizes >= 0, rates > 0, `seconds_per_unit` > 0, all finite.
    pub fn new(
        sizes_mb: Vec<f64>,
        rates_gbps: Vec<f64>,
        seconds_per_unit: f64,
    ) -> Result<Self, WorkloadError> {
        if let Some(&s) = sizes_mb.iter().find(|s| !(s.is_finite() && **s >= 0.0)) {
            return Err(invalid("mean_size_mb", "input sizes >= 0", s));
        }
        if let Some(&r) = rates_gbps.iter().find(|r| !(r.is_finite() && **r > 0.0)) {
            return Err(invalid("rate_gbps", "staging rates > 0", r));
        }
        if !(seconds_per_unit.is_finite() && seconds_per_unit > 0.0) {
            return Err(invalid(
                "seconds_per_unit",
                "a number of seconds > 0",
                seconds_per_unit,
            ));
        }
        Ok(Staging {
            sizes_mb,
            rates_gbps,
            seconds_per_unit,
        })
    }

    /// Input size of each task, MB, by task id.
    pub fn sizes_mb(&self) -> &[f64] {
        &self.sizes_mb
    }

    /// Staging rate of each machine, Gbps.
    pub fn rates_gbps(&self) -> &[f64] {
        &self.rates_gbps
    }

    /// Time units to stage `size_mb` MB to machine `machine` (real-valued).
    pub fn units_for(&self, size_mb: f64, machine: usize) -> f64 {
        size_mb * 8e-3 / self.rates_gbps[machine] / self.seconds_per_unit
    }

    /// Whole ticks to stage task `task`'s data to machine `machine` (rounded up).
    pub fn ticks(&self, task: usize, machine: usize) -> Tick {
        self.units_for(self.sizes_mb[task], machine).ceil() as Tick
    }

    /// The fewest ticks task `task`'s data need to reach any machine.
    pub fn min_ticks(&self, task: usize) -> Tick {
        (0..self.rates_gbps.len())
            .map(|m| self.ticks(task, m))
            .min()
            .unwrap_or(0)
    }
}
