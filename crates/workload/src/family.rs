//! Generated PET families: a PET drawn from a few documented parameters, for systems unlike
//! the papers' (bimodal or heavy-tailed execution times, several copies of one machine type).
//!
//! # The cell means: the CVB method
//! The mean execution time of each (task type, machine type) is drawn by the
//! coefficient-of-variation-based (CVB) method of Ali, Siegel, Maheswaran, Hensgen and Ali,
//! "Representing task and machine heterogeneities for heterogeneous computing systems"
//! (Tamkang J. Sci. Eng. 3(3), 2000), with Gamma(shape, scale) the gamma distribution of
//! mean shape x scale:
//! * the task means `q_i ~ Gamma(1 / task_cv^2, mean * task_cv^2)` (mean `mean`, coefficient
//!   of variation `task_cv`), one per task type;
//! * the cell means `e_ij ~ Gamma(1 / machine_cv^2, q_i * machine_cv^2)` (mean `q_i`,
//!   coefficient of variation `machine_cv`), one per machine type.
//!
//! A coefficient of variation of 0 gives the mean itself: `task_cv = 0` makes every task
//! mean `mean`; `machine_cv = 0` makes every cell of a row `q_i`, and then every machine is a
//! copy of the first machine type (the same PMFs, bit for bit): a homogeneous system. Cell
//! means below `mean x 10^-12` are raised to it (an underflow guard for large cvs).
//!
//! `consistency` orders each row, as Ali et al. define it: `"inconsistent"` leaves the draws
//! as they are; `"consistent"` sorts each row so that machine type `j` is at least as fast as
//! `j + 1` for every task type; `"partially"` sorts the even columns (machine types 0, 2,
//! 4, ...) of each row among themselves and leaves the odd ones. The order holds for the
//! generated PMFs' means too: in a sorted row (or its even columns) the PMFs are placed in
//! the order of their means, so that sampling noise never breaks it.
//!
//! # The cell distributions: `family`
//! Around its cell mean `e`, each (task type, machine type) has an execution-time
//! distribution of one family:
//! * `"gamma"`: the thesis' procedure (3.4.1), a shape `k` uniform in
//!   [[`defaults::SHAPE_MIN`], [`defaults::SHAPE_MAX`]] (1 to 20) drawn per cell and scale
//!   `e / k` (coefficient of variation 0.22 to 1);
//! * `"lognormal"`: log-mean `ln e - sigma^2 / 2` and log-sd `sigma` (mean `e`);
//! * `"pareto"`: tail index `alpha > 1` and scale `e (alpha - 1) / alpha` (mean `e`;
//!   infinite variance for `alpha <= 2`);
//! * `"bimodal"`: a mixture, with probability `fast_share` a fast mode of mean
//!   `f = e / (fast_share + (1 - fast_share) slow_ratio)`, else a slow mode of mean
//!   `slow_ratio x f` (the mixture's mean is `e`); each mode gamma (a shape drawn per mode as
//!   for `"gamma"`) or lognormal (log-sd `sigma`), as `modes` says.
//!
//! # Samples, histogram, bounded support
//! Each cell's PMF is the histogram ([`pmf::from_samples`], bins of `bin_width` ticks, a bin
//! read at its upper edge) of [`SAMPLES`] samples (500, as [`crate::Pet::from_means`]), each
//! clipped at `cap x e` (default 20 times the cell mean) and at
//! [`MAX_CELL_BINS`] `x bin_width`: heavy tails keep a bounded support, far inside
//! [`pmf::prec::MAX_SPAN`]. Clipping lowers the mean only where the tail beyond `cap x e`
//! carries mass: at the defaults by less than 0.1% (gamma, lognormal, bimodal) and about 0.2%
//! (pareto, `alpha = 2.5`); with `alpha` near 1 by much more (a tail index near 1 has no
//! sample mean to speak of).
//!
//! # Copies and names
//! Machine type `j` appears `copies` times, as that many identical columns next to each other
//! (the same PMFs, bit for bit, so [`crate::Pet::canonical`] sees them as copies), named
//! `A.1`, `A.2`, ..., `B.1`, ... (types after `Z` are `AA`, `AB`, ...); task types are named
//! `t0`, `t1`, .... So 3 machine types with 3 copies and 9 machine types with 1 copy differ in
//! one key.
//!
//! # Determinism
//! The means come from [`stream`]`(seed, 0, Purpose::Pet)` (task mean `q_0`, the cells of row
//! 0, `q_1`, ...); cell `(i, j)` draws from [`substream`]`(seed, 0, Purpose::Pet, i *
//! machine_types + j)`: first its family's shapes (gamma: one, bimodal with gamma modes: the
//! fast mode's then the slow mode's), then for each sample a uniform that chooses its mode
//! (bimodal only) and the sample. The same seed gives the same PET on every platform, as
//! [`crate::Pet::from_means`] does (ChaCha12 streams, `rand_distr`'s samplers).
//!
//! # Sizes
//! At most [`MAX_DISTINCT_CELLS`] (16,384) distinct cells (`types x machine_types`) and
//! [`MAX_CELLS`] (65,536) cells with the copies, and `mean / bin_width` at most
//! [`MAX_MEAN_BINS`] (10,000): larger systems are drawn from a generated PET with
//! `[workload] machines = N`.

use ndarray::Array2;
use pmf::{BinValue, Pmf, Tick};
use rand::Rng;
use rand_chacha::ChaCha12Rng;
use rand_distr::{Distribution, Gamma, LogNormal, Pareto};

use crate::error::WorkloadError;
use crate::pet::{Pet, defaults};
use crate::rng::{Purpose, stream, substream};

/// The words of `family`, in the order of [`CellFamily`].
pub const FAMILY_NAMES: [&str; 4] = ["gamma", "lognormal", "pareto", "bimodal"];

/// The words of `consistency`, in the order of [`Consistency`].
pub const CONSISTENCY_NAMES: [&str; 3] = ["inconsistent", "consistent", "partially"];

/// The words of `modes`, in the order of [`Modes`].
pub const MODE_NAMES: [&str; 2] = ["gamma", "lognormal"];

/// Samples per distinct cell (as [`crate::Pet::from_means`]).
pub const SAMPLES: usize = defaults::SAMPLES;

/// The most distinct cells (`types x machine_types`) a family generates.
pub const MAX_DISTINCT_CELLS: usize = 16_384;

/// The most cells (`types x machine_types x copies`) a family generates.
pub const MAX_CELLS: usize = 65_536;

/// The largest `mean / bin_width`: the mean execution time in bins.
pub const MAX_MEAN_BINS: f64 = 10_000.0;

/// The widest support of a generated cell, in bins: samples beyond `MAX_CELL_BINS x
/// bin_width` ticks are clipped there.
pub const MAX_CELL_BINS: f64 = 65_536.0;

/// The largest coefficient of variation of `task_cv` and `machine_cv`.
pub const MAX_CV: f64 = 10.0;

/// The largest log-sd `sigma`.
pub const MAX_SIGMA: f64 = 3.0;

/// The largest `slow_ratio`.
pub const MAX_SLOW_RATIO: f64 = 1_000.0;

/// The largest `cap`.
pub const MAX_CAP: f64 = 1_000.0;

/// The largest tail index `alpha`.
pub const MAX_ALPHA: f64 = 1_000.0;

/// Cell means are at least this fraction of `mean` (an underflow guard).
pub const MIN_MEAN_FRACTION: f64 = 1e-12;

/// The defaults of a generated family's keys.
pub mod family_defaults {
    use pmf::Tick;

    /// Task types (the paper's 12).
    pub const TYPES: usize = 12;
    /// Distinct machine types (the paper's 8).
    pub const MACHINE_TYPES: usize = 8;
    /// Copies of each machine type.
    pub const COPIES: usize = 1;
    /// The mean of the task means, in ticks (about the default PET's `avg_all`, 94.7).
    pub const MEAN: f64 = 100.0;
    /// The coefficient of variation of the task means.
    pub const TASK_CV: f64 = 0.5;
    /// The coefficient of variation of a task's cell means across machine types.
    pub const MACHINE_CV: f64 = 0.5;
    /// The lognormal log-sd (coefficient of variation `sqrt(exp(sigma^2) - 1)` = 0.53).
    pub const SIGMA: f64 = 0.5;
    /// The pareto tail index (finite variance; coefficient of variation 0.89).
    pub const ALPHA: f64 = 2.5;
    /// The bimodal fast mode's probability.
    pub const FAST_SHARE: f64 = 0.8;
    /// The bimodal slow mode's mean over the fast mode's.
    pub const SLOW_RATIO: f64 = 5.0;
    /// Samples are clipped at this many times their cell mean.
    pub const CAP: f64 = 20.0;
    /// Histogram bin width, ticks (the paper's grid).
    pub const BIN_WIDTH: Tick = 2;
}

/// The distribution of the modes of a bimodal cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Modes {
    /// Gamma, a shape drawn per mode as for [`CellFamily::Gamma`].
    Gamma,
    /// Lognormal with this log-sd.
    Lognormal {
        /// The log-sd of each mode.
        sigma: f64,
    },
}

/// The distribution of each cell around its mean.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CellFamily {
    /// Gamma with a shape uniform in [1, 20] per cell (the thesis' procedure).
    Gamma,
    /// Lognormal with log-sd `sigma`.
    Lognormal {
        /// The log-sd.
        sigma: f64,
    },
    /// Pareto with tail index `alpha` (> 1).
    Pareto {
        /// The tail index.
        alpha: f64,
    },
    /// A mixture of a fast and a slow mode.
    Bimodal {
        /// The fast mode's probability, in (0, 1).
        fast_share: f64,
        /// The slow mode's mean over the fast mode's (>= 1).
        slow_ratio: f64,
        /// Each mode's distribution.
        modes: Modes,
    },
}

impl CellFamily {
    /// The family's name in the TOML.
    pub fn name(&self) -> &'static str {
        match self {
            CellFamily::Gamma => "gamma",
            CellFamily::Lognormal { .. } => "lognormal",
            CellFamily::Pareto { .. } => "pareto",
            CellFamily::Bimodal { .. } => "bimodal",
        }
    }
}

/// How the cell means of a row are ordered (Ali et al. 2000).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Consistency {
    /// As drawn.
    #[default]
    Inconsistent,
    /// Each row sorted: machine type `j` at least as fast as `j + 1`.
    Consistent,
    /// The even columns of each row sorted among themselves.
    Partially,
}

impl Consistency {
    /// The word in the TOML.
    pub fn name(&self) -> &'static str {
        match self {
            Consistency::Inconsistent => "inconsistent",
            Consistency::Consistent => "consistent",
            Consistency::Partially => "partially",
        }
    }

    /// The columns of a row this ordering sorts among themselves.
    fn sorted_columns(&self, n: usize) -> Vec<usize> {
        match self {
            Consistency::Inconsistent => Vec::new(),
            Consistency::Consistent => (0..n).collect(),
            Consistency::Partially => (0..n).step_by(2).collect(),
        }
    }
}

/// The parameters of a generated PET (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PetFamily {
    /// Each cell's distribution around its mean.
    pub family: CellFamily,
    /// Task types (rows).
    pub types: usize,
    /// Distinct machine types.
    pub machine_types: usize,
    /// Identical columns per machine type.
    pub copies: usize,
    /// The mean of the task means, ticks.
    pub mean: f64,
    /// The coefficient of variation of the task means.
    pub task_cv: f64,
    /// The coefficient of variation of a row's cell means.
    pub machine_cv: f64,
    /// How the rows are ordered.
    pub consistency: Consistency,
    /// Histogram bin width, ticks.
    pub bin_width: Tick,
    /// Samples are clipped at `cap` times their cell mean.
    pub cap: f64,
}

impl PetFamily {
    /// A family with every key at its default ([`family_defaults`]).
    pub fn new(family: CellFamily) -> PetFamily {
        use family_defaults as d;
        PetFamily {
            family,
            types: d::TYPES,
            machine_types: d::MACHINE_TYPES,
            copies: d::COPIES,
            mean: d::MEAN,
            task_cv: d::TASK_CV,
            machine_cv: d::MACHINE_CV,
            consistency: Consistency::Inconsistent,
            bin_width: d::BIN_WIDTH,
            cap: d::CAP,
        }
    }

    /// Checks every parameter; the error names the key (`workload.pet.alpha`).
    ///
    /// One function because it is a flat list of independent checks, one per key, each naming
    /// its key; read top to bottom.
    pub fn validate(&self) -> Result<(), WorkloadError> {
        let bad = |key: &str, expected: String, found: String| {
            Err(WorkloadError::InvalidConfig {
                file: String::new(),
                field: format!("workload.pet.{key}"),
                expected,
                found,
            })
        };
        for (key, n) in [
            ("types", self.types),
            ("machine_types", self.machine_types),
            ("copies", self.copies),
        ] {
            if n == 0 {
                return bad(key, "at least 1".into(), "0".into());
            }
        }
        let distinct = self.types.checked_mul(self.machine_types);
        if distinct.is_none_or(|c| c > MAX_DISTINCT_CELLS) {
            return bad(
                "types",
                format!(
                    "types x machine_types at most {MAX_DISTINCT_CELLS} (draw larger systems with `[workload] machines = N`)"
                ),
                format!("{} x {}", self.types, self.machine_types),
            );
        }
        if distinct
            .and_then(|c| c.checked_mul(self.copies))
            .is_none_or(|c| c > MAX_CELLS)
        {
            return bad(
                "copies",
                format!(
                    "types x machine_types x copies at most {MAX_CELLS} (draw larger systems with `[workload] machines = N`)"
                ),
                format!("{} x {} x {}", self.types, self.machine_types, self.copies),
            );
        }
        if self.bin_width <= 0 {
            return bad(
                "bin_width",
                "a positive integer number of ticks".into(),
                self.bin_width.to_string(),
            );
        }
        if !(self.mean.is_finite() && self.mean > 0.0) {
            return bad(
                "mean",
                "a positive number of ticks".into(),
                self.mean.to_string(),
            );
        }
        if self.mean / self.bin_width as f64 > MAX_MEAN_BINS {
            return bad(
                "mean",
                format!(
                    "at most {MAX_MEAN_BINS} bins of bin_width = {} ticks (a wider bin_width)",
                    self.bin_width
                ),
                self.mean.to_string(),
            );
        }
        for (key, cv) in [("task_cv", self.task_cv), ("machine_cv", self.machine_cv)] {
            if !(cv.is_finite() && (0.0..=MAX_CV).contains(&cv)) {
                return bad(key, format!("a number in [0, {MAX_CV}]"), cv.to_string());
            }
        }
        if !(self.cap.is_finite() && self.cap > 1.0 && self.cap <= MAX_CAP) {
            return bad(
                "cap",
                format!("a number above 1, at most {MAX_CAP}"),
                self.cap.to_string(),
            );
        }
        let check_sigma = |sigma: f64| {
            if sigma.is_finite() && sigma > 0.0 && sigma <= MAX_SIGMA {
                Ok(())
            } else {
                bad(
                    "sigma",
                    format!("a number above 0, at most {MAX_SIGMA}"),
                    sigma.to_string(),
                )
            }
        };
        match self.family {
            CellFamily::Gamma => Ok(()),
            CellFamily::Lognormal { sigma } => check_sigma(sigma),
            CellFamily::Pareto { alpha } => {
                if alpha.is_finite() && alpha > 1.0 && alpha <= MAX_ALPHA {
                    Ok(())
                } else {
                    bad(
                        "alpha",
                        format!("a tail index above 1 (a finite mean), at most {MAX_ALPHA}"),
                        alpha.to_string(),
                    )
                }
            }
            CellFamily::Bimodal {
                fast_share,
                slow_ratio,
                modes,
            } => {
                if !(fast_share.is_finite() && fast_share > 0.0 && fast_share < 1.0) {
                    return bad(
                        "fast_share",
                        "a probability strictly between 0 and 1".into(),
                        fast_share.to_string(),
                    );
                }
                if !(slow_ratio.is_finite() && (1.0..=MAX_SLOW_RATIO).contains(&slow_ratio)) {
                    return bad(
                        "slow_ratio",
                        format!("a number in [1, {MAX_SLOW_RATIO}]"),
                        slow_ratio.to_string(),
                    );
                }
                match modes {
                    Modes::Gamma => Ok(()),
                    Modes::Lognormal { sigma } => check_sigma(sigma),
                }
            }
        }
    }

    /// The machines' names: `A.1`, `A.2`, ..., one per column.
    pub fn machine_names(&self) -> Vec<String> {
        (0..self.machine_types)
            .flat_map(|j| (1..=self.copies).map(move |c| format!("{}.{c}", type_letters(j))))
            .collect()
    }

    /// The CVB matrix of cell means, task types x machine types, ordered by `consistency`
    /// (before the PMFs: their means differ by sampling noise and the histogram).
    ///
    /// Errors: as [`PetFamily::validate`].
    pub fn cell_means(&self, seed: u64) -> Result<Array2<f64>, WorkloadError> {
        self.validate()?;
        let mut rng = stream(seed, 0, Purpose::Pet);
        let floor = self.mean * MIN_MEAN_FRACTION;
        let mut means = Array2::zeros((self.types, self.machine_types));
        let sorted = self.consistency.sorted_columns(self.machine_types);
        for i in 0..self.types {
            let q = cvb_draw(&mut rng, self.mean, self.task_cv)?.max(floor);
            for j in 0..self.machine_types {
                means[[i, j]] = cvb_draw(&mut rng, q, self.machine_cv)?.max(floor);
            }
            let mut row: Vec<f64> = sorted.iter().map(|&j| means[[i, j]]).collect();
            row.sort_by(f64::total_cmp);
            for (&j, v) in sorted.iter().zip(row) {
                means[[i, j]] = v;
            }
        }
        Ok(means)
    }

    /// The PET (see the module docs): task types x (machine types x copies) machines.
    ///
    /// Errors: as [`PetFamily::validate`]; never a panic.
    pub fn generate(&self, seed: u64) -> Result<Pet, WorkloadError> {
        let means = self.cell_means(seed)?;
        // With machine_cv = 0 every machine type is the first one.
        let distinct = if self.machine_cv == 0.0 {
            1
        } else {
            self.machine_types
        };
        let sorted = if distinct == 1 {
            Vec::new()
        } else {
            self.consistency.sorted_columns(self.machine_types)
        };
        let limit_bins = MAX_CELL_BINS * self.bin_width as f64;
        let mut cells: Vec<Pmf> = Vec::with_capacity(self.types * distinct);
        for i in 0..self.types {
            let mut row = Vec::with_capacity(distinct);
            for j in 0..distinct {
                let index = (i * self.machine_types + j) as u64;
                let mut rng = substream(seed, 0, Purpose::Pet, index);
                let e = means[[i, j]];
                let sampler = Sampler::new(&self.family, e, &mut rng)?;
                let limit = (self.cap * e).min(limit_bins);
                let samples: Vec<f64> = (0..SAMPLES)
                    .map(|_| sampler.sample(&mut rng).clamp(0.0, limit))
                    .collect();
                let pmf = pmf::from_samples(&samples, self.bin_width, BinValue::Upper).map_err(
                    |reason| WorkloadError::InvalidPmf {
                        file: "<generated>".into(),
                        line: 0,
                        task_type: i.to_string(),
                        machine: j.to_string(),
                        reason,
                    },
                )?;
                row.push(pmf);
            }
            // The PMFs of the sorted columns in the order of their means (stable).
            let mut moved: Vec<Pmf> = sorted.iter().map(|&j| row[j].clone()).collect();
            moved.sort_by(|a, b| a.mean().total_cmp(&b.mean()));
            for (&j, p) in sorted.iter().zip(moved) {
                row[j] = p;
            }
            cells.extend(row);
        }
        let columns = self.machine_types * self.copies;
        let pmfs = Array2::from_shape_fn((self.types, columns), |(i, col)| {
            let j = if distinct == 1 { 0 } else { col / self.copies };
            cells[i * distinct + j].clone()
        });
        Pet::new(
            pmfs,
            (0..self.types).map(|t| format!("t{t}")).collect(),
            self.machine_names(),
        )
    }
}

/// A CVB draw: `mean` itself when `cv` is 0, else Gamma with mean `mean` and coefficient of
/// variation `cv`.
fn cvb_draw(rng: &mut ChaCha12Rng, mean: f64, cv: f64) -> Result<f64, WorkloadError> {
    if cv == 0.0 {
        return Ok(mean);
    }
    let shape = 1.0 / (cv * cv);
    let g = Gamma::new(shape, mean / shape)
        .map_err(|e| WorkloadError::InvalidPet(format!("gamma({shape}, {}): {e}", mean / shape)))?;
    Ok(g.sample(rng))
}

/// Spreadsheet letters of machine type `j`: A..Z, AA, AB, ....
fn type_letters(j: usize) -> String {
    let mut n = j + 1;
    let mut s = Vec::new();
    while n > 0 {
        n -= 1;
        s.push(b'A' + (n % 26) as u8);
        n /= 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// One cell's distribution, its shapes drawn.
enum Sampler {
    Gamma(Gamma<f64>),
    Lognormal(LogNormal<f64>),
    Pareto(Pareto<f64>),
    Mixture {
        fast_share: f64,
        fast: Box<Sampler>,
        slow: Box<Sampler>,
    },
}

fn invalid(what: &str, e: impl std::fmt::Display) -> WorkloadError {
    WorkloadError::InvalidPet(format!("{what}: {e}"))
}

impl Sampler {
    /// The distribution of a cell of mean `mean` (a gamma shape drawn from `rng`).
    fn new(
        family: &CellFamily,
        mean: f64,
        rng: &mut ChaCha12Rng,
    ) -> Result<Sampler, WorkloadError> {
        let gamma = |rng: &mut ChaCha12Rng, mean: f64| {
            let shape: f64 = rng.random_range(defaults::SHAPE_MIN..=defaults::SHAPE_MAX);
            Gamma::new(shape, mean / shape)
                .map(Sampler::Gamma)
                .map_err(|e| invalid(&format!("gamma({shape}, {})", mean / shape), e))
        };
        let lognormal = |mean: f64, sigma: f64| {
            let mu = mean.ln() - sigma * sigma / 2.0;
            LogNormal::new(mu, sigma)
                .map(Sampler::Lognormal)
                .map_err(|e| invalid(&format!("lognormal({mu}, {sigma})"), e))
        };
        match *family {
            CellFamily::Gamma => gamma(rng, mean),
            CellFamily::Lognormal { sigma } => lognormal(mean, sigma),
            CellFamily::Pareto { alpha } => {
                let scale = mean * (alpha - 1.0) / alpha;
                Pareto::new(scale, alpha)
                    .map(Sampler::Pareto)
                    .map_err(|e| invalid(&format!("pareto({scale}, {alpha})"), e))
            }
            CellFamily::Bimodal {
                fast_share,
                slow_ratio,
                modes,
            } => {
                let fast_mean = mean / (fast_share + (1.0 - fast_share) * slow_ratio);
                let slow_mean = slow_ratio * fast_mean;
                let (fast, slow) = match modes {
                    Modes::Gamma => (gamma(rng, fast_mean)?, gamma(rng, slow_mean)?),
                    Modes::Lognormal { sigma } => {
                        (lognormal(fast_mean, sigma)?, lognormal(slow_mean, sigma)?)
                    }
                };
                Ok(Sampler::Mixture {
                    fast_share,
                    fast: Box::new(fast),
                    slow: Box::new(slow),
                })
            }
        }
    }

    fn sample(&self, rng: &mut ChaCha12Rng) -> f64 {
        match self {
            Sampler::Gamma(d) => d.sample(rng),
            Sampler::Lognormal(d) => d.sample(rng),
            Sampler::Pareto(d) => d.sample(rng),
            Sampler::Mixture {
                fast_share,
                fast,
                slow,
            } => {
                let u: f64 = rng.random();
                if u < *fast_share {
                    fast.sample(rng)
                } else {
                    slow.sample(rng)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_go_on_after_z() {
        let l: Vec<String> = [0, 1, 25, 26, 27, 51, 52, 701, 702]
            .into_iter()
            .map(type_letters)
            .collect();
        assert_eq!(l, ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]);
    }
}
