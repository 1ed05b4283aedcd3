//! Discrete probability mass functions on an integer time grid, and what the probabilistic
//! task-pruning papers compute with them.
//!
//! # The time grid
//! A [`Tick`] is an `i64`. One tick is one time unit of the model unless the caller chooses a
//! finer resolution when converting its times (the simulator's `time_resolution`). A [`Pmf`]
//! stores dense masses on `[offset, offset + len)`; a PMF given on a coarser grid (the paper's
//! PET uses 2-unit bins) keeps its true times, with zero bins between.
//!
//! # The tick range
//! Every [`Pmf`]'s support lies in `[MIN_TICK, MAX_TICK] = [-2^52, 2^52]`: every tick of the
//! range, and the sum or difference of two, is exactly an `f64`, and sums of a few ticks stay
//! far from `i64`'s limits. On it the public functions of this crate are total: no overflow,
//! no index out of bounds, no loop or allocation over a gap between two supports.
//! * **Constructors from data** ([`Pmf::new`], [`Pmf::new_checked`], [`Pmf::from_weights`],
//!   [`Pmf::from_pairs`], [`Pmf::from_weighted_pairs`], [`from_samples`],
//!   [`kaplan_meier::KaplanMeier::to_pmf`], deserialisation) build the distribution of a time
//!   measured from 0, an execution time or a completion time on a clock that starts at 0:
//!   a tick with mass outside `[0, MAX_TICK]` is an error ([`PmfError::TickOutOfRange`],
//!   [`PmfError::TimeOutOfRange`] or [`PmfError::InvalidSampleTime`] for a negative sample).
//! * **Tick arguments** (deadlines, `now`, start ticks, shifts, query ticks) may be any `i64`.
//!   A query reads the distribution there exactly (`P(X < i64::MIN)` is 0).
//! * **Results** that would reach beyond the range are **saturated**: the mass beyond an end
//!   is gathered at that end, as if the end of the range were the end of time. A point mass
//!   at `i64::MAX` ([`Pmf::point`]), `X + dt` for a huge `dt` ([`Pmf::shift`]), or a task
//!   conditioned on not having ended at `i64::MAX` ([`Pmf::condition_after`]) sits at
//!   [`MAX_TICK`]. Within the range nothing is saturated and every result is computed as
//!   before, bit for bit.
//! * Negative ticks are reached only by computing (a shift by a negative `dt`, a point mass at
//!   a negative `now`): a completion time may sit anywhere in the range, an execution time
//!   built from data is never negative.
//! * A result whose dense bins would be mostly a gap of more than
//!   [`prec::MAX_SPAN`] zeros between two parts is refused ([`next_pct`]'s
//!   [`PmfError::TooWide`]) rather than allocated.
//!
//! # Conventions
//! * `cdf(t) = P(X <= t)`: the CDF includes its argument, at ticks and at real times (a real
//!   `t` reads `cdf(floor(t))`).
//! * Deadlines are ticks `d` and a task **succeeds when it completes strictly before `d`**:
//!   `P(C < d)`, see [`Pmf::prob_before`]. This is the reading under which paper eq. (5) is
//!   consistent (the impulse gathered *at* the deadline is the drop, not a success), and it is
//!   the one of JPDC-2016 4.2 ("impulses that are less than delta"). A simulator converting a
//!   real deadline `delta` uses `d = ceil(delta)`: for integer completion times, `C < ceil(delta)`
//!   is exactly `C <= delta`.
//! * A pending task is dropped when the task ahead of it completes at or after its deadline.
//!
//! # Map of the equations
//! | paper (HCW 2019) | thesis | here |
//! |---|---|---|
//! | eq. (1) success probability | eq. (3.5) | [`success_probability`], [`Pmf::prob_before`] |
//! | eq. (2) no dropping | eq. (3.1) | [`next_pct`] with [`DropModel::None`], [`Pmf::convolve`] |
//! | eqs. (3)-(4) pending dropped | eqs. (3.2)-(3.3) | [`next_pct`] with [`DropModel::Pending`] |
//! | eq. (5) any task dropped | eq. (3.4) | [`next_pct`] with [`DropModel::All`] |
//! | executing task (JPDC-2016 fig. 2) | | [`executing_pct`], [`Pmf::condition_after`] |
//! | eq. (6) skewness, bounded `s` | 6.3 | [`Pmf::sample_skewness`], [`Pmf::bounded_skewness`] |
//! | fast append query | 7.2.7 | [`TailCdf::append_success`] |
//! | (opt-in) PCT tails trimmed within total variation `eps` | | [`Pmf::trim_tv`], [`evaluate_queue_trimmed`] |
//!
//! # Example
//! ```
//! use pmf::{DropModel, ExecPmf, Pmf, TailCdf, next_pct};
//! // JPDC-2016 fig. 3: the task ahead completes at 5..=9, this one runs 1..=3 ticks.
//! let prev = Pmf::new(5, vec![0.1, 0.2, 0.3, 0.2, 0.2]).unwrap();
//! // An execution time: a PMF with the tables the PCT functions read.
//! let pet = ExecPmf::from(Pmf::new(1, vec![0.5, 0.3, 0.2]).unwrap());
//! let pct = next_pct(&prev, &pet, 7, DropModel::All).unwrap();
//! // The fast query gives the same success probability without building the PCT.
//! let fast = TailCdf::new(&prev).append_success(&pet, 7);
//! assert!((pct.prob_before(7) - fast).abs() < 1e-12);
//! ```

mod cdf;
pub mod columns;
mod error;
mod exec;
pub mod histogram;
pub mod kaplan_meier;
mod kernel;
mod pct;
mod pmf;
pub mod prec;
mod robustness;
pub mod transform;

pub use cdf::TailCdf;
pub use error::PmfError;
pub use exec::{ExecPmf, SEGMENTS};
pub use histogram::{AUTO_BINS, BinValue, auto_bin_width, from_samples};
pub use pct::{DropModel, executing_pct, executing_pct_in, next_pct, next_pct_in};
pub use pmf::{MAX_TICK, MIN_TICK, Normalised, Pmf, Tick};
pub use robustness::{
    Executing, Pending, Position, drop_probability, evaluate_queue, evaluate_queue_trimmed,
    success_probability,
};
