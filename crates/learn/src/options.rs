//! How an [`crate::Estimator`] learns: its [`Options`] (censoring, the censored tail, the
//! prior's weight, windows and cadence, the machine factor, exploration, optimism, copies).

use serde::{Deserialize, Serialize};

use crate::LearnError;
#[cfg(doc)]
use crate::{Estimator, optimism, optimistic, prior_band};

/// What censored observations count for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Censoring {
    /// Kaplan-Meier: a censored time is a lower bound on the execution time.
    #[default]
    KaplanMeier,
    /// The naive estimator: censored observations are discarded, the estimate is the
    /// empirical distribution of the completions.
    Ignore,
}

/// Where the mass beyond the largest observation goes when that observation is censored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tail {
    /// On the prior conditioned on exceeding the last observation, else on a geometric
    /// tail (see the crate docs).
    #[default]
    Prior,
    /// On the last observation itself (Gao, Robert, Vivien, section 5.2): a lower bound.
    AtLast,
}

/// How an [`Estimator`] learns.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// Kaplan-Meier or ignoring censoring.
    pub censoring: Censoring,
    /// The model of the censored tail.
    pub tail: Tail,
    /// `n0`: the prior weighs as this many observations (>= 0; 0 = the prior only until the
    /// first observation).
    pub prior_weight: f64,
    /// Only the last this many observations of each cell count (>= 1); `None`: all of them
    /// (kept as counts per distinct time: memory bounded by the times, not the
    /// observations; a window also keeps its observations, 16 bytes each).
    pub window: Option<usize>,
    /// A cell's PMF is rebuilt after every `cadence`-th observation of the cell (>= 1).
    pub cadence: usize,
    /// And only once the observations since its last rebuild reach this share of the
    /// observations it holds (0 to 1; 0 = off): `max(cadence, ceil(share * n))`. Early
    /// observations, which move the estimate most, each rebuild it; later ones, which move
    /// it by about `1 / n` each, rebuild it in proportion, so `n` observations cost about
    /// `ln(n) / share` rebuilds instead of `n / cadence`.
    pub cadence_share: f64,
    /// One time-scale factor per machine shared by all its cells, fitted to the ratios of
    /// the machine's observations to their cells' prior medians (the crate docs, step 4).
    pub machine_scale: bool,
    /// The machine factor from the evidence: without [`Options::machine_scale`], a
    /// machine's factor (estimated as with it) is applied only while its observations say
    /// it is slower than its prior: the factor above 1 and every cell of the machine holding
    /// [`crate::MIN_SCALE_EVIDENCE`] observations (at least
    /// [`crate::evidence::JOIN_TYPES`] of them, and 2) nearer its prior stretched by the
    /// factor than its prior itself (Kolmogorov-Smirnov); else the factor is 1. The factor
    /// stretches the prior each cell blends with, not the cell's observations (the crate
    /// docs, step 4). Not when the prior is equal on every machine (it has no machine to be
    /// slower than). On by default.
    pub scale_by_evidence: bool,
    /// The machine factor's window: only the last this many observations of the machine
    /// count (>= 1; its forgetting).
    pub machine_window: usize,
    /// Exploration: a cell holding fewer than this many observations is **explored**
    /// ([`Estimator::explores`]; the crate docs, step 5): a scheduler's idle machine tries
    /// a waiting task of such a cell (`system::System`, both drivers), and with
    /// [`Options::optimism`] the cell is also read optimistically. 0 = never; 10 by default.
    pub explore: usize,
    /// Optimism in the face of uncertainty: an explored cell is read optimistically
    /// ([`optimism`], [`optimistic`]; the crate docs, step 5). Off by default.
    pub optimism: bool,
    /// Copies learn as one: machines whose priors are identical in every task type are
    /// learned as one machine ([`Estimator::copies`]; the crate docs, "Copies"). On by
    /// default.
    pub pool_copies: bool,
    /// Copies found from the evidence: when the prior is equal on every machine (a flat
    /// prior, or a homogeneous PET: it tells no machines apart), machines whose
    /// observations are one distribution in every task type compared (a two-sample
    /// Kolmogorov-Smirnov test per type, [`crate::evidence`]) learn as one, and so do the
    /// cells of a type that are alike on other machines; apart again once a type tells
    /// them apart ([`Estimator::cell_copies`]; the crate docs, step 6). Only with
    /// [`Options::pool_copies`] and without [`Options::machine_scale`]. On by default.
    pub pool_by_evidence: bool,
    /// The prior check: a cell whose observations reject its prior (their Kaplan-Meier CDF
    /// departs from the prior's by more than the Dvoretzky-Kiefer-Wolfowitz band,
    /// [`prior_band`]) learns from its observations alone: the prior weighs nothing there
    /// and the censored tail does not read it (the crate docs, step 3). Off by default.
    pub prior_check: bool,
    /// The prior guard: a machine whose cells' observations contradict their prior (the
    /// prior check's test, [`crate::contradicts`], whether or not the check is on) in most
    /// of its cells that hold [`crate::GUARD_OBSERVATIONS`] observations, at least
    /// [`crate::GUARD_CELLS`] of them (all its cells when it has fewer), drops its prior:
    /// from then on every cell of the machine is learned as from no prior at all (`none`:
    /// a cell not yet observed read as one tick, the observations alone once there are
    /// some, no machine factor; the crate docs, step 7). On by default.
    pub prior_guard: bool,
}

/// The observations since a cell's last rebuild after which it is rebuilt, for a cell
/// holding `n` ([`Options::cadence`], [`Options::cadence_share`]).
pub(crate) fn rebuild_after(options: &Options, n: usize) -> usize {
    let share = (options.cadence_share * n as f64).ceil() as usize;
    options.cadence.max(share)
}

impl Default for Options {
    fn default() -> Self {
        Options {
            censoring: Censoring::KaplanMeier,
            tail: Tail::Prior,
            prior_weight: 10.0,
            window: None,
            cadence: 1,
            cadence_share: 0.0,
            machine_scale: false,
            scale_by_evidence: true,
            machine_window: 50,
            explore: DEFAULT_EXPLORE,
            optimism: false,
            pool_copies: true,
            pool_by_evidence: true,
            prior_check: false,
            prior_guard: true,
        }
    }
}

/// [`Options::explore`]'s default: a cell is explored until it holds this many observations.
pub const DEFAULT_EXPLORE: usize = 10;

impl Options {
    /// The observations below which a cell is read optimistically: [`Options::explore`]
    /// with [`Options::optimism`], else 0 (never).
    pub fn optimistic_below(&self) -> usize {
        if self.optimism { self.explore } else { 0 }
    }

    /// Checks the values, naming the field that is wrong.
    pub fn validate(&self) -> Result<(), LearnError> {
        if !(self.prior_weight.is_finite() && self.prior_weight >= 0.0) {
            return Err(LearnError::InvalidOption {
                field: "prior_weight",
                reason: format!("expected a number >= 0, found {}", self.prior_weight),
            });
        }
        if self.window == Some(0) {
            return Err(LearnError::InvalidOption {
                field: "window",
                reason: "expected at least 1 observation".into(),
            });
        }
        if self.machine_window == 0 {
            return Err(LearnError::InvalidOption {
                field: "machine_window",
                reason: "expected at least 1 observation".into(),
            });
        }
        if !(0.0..=1.0).contains(&self.cadence_share) {
            return Err(LearnError::InvalidOption {
                field: "cadence_share",
                reason: format!(
                    "expected a number from 0 to 1, found {}",
                    self.cadence_share
                ),
            });
        }
        if self.cadence == 0 {
            return Err(LearnError::InvalidOption {
                field: "cadence",
                reason: "expected at least 1 (every observation)".into(),
            });
        }
        Ok(())
    }
}
