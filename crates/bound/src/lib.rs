//! Brackets the clairvoyant optimum of a trial: `L <= optimum <= U`.
//!
//! [`bracket`] (or [`bracket_trial`] for a simulated trial) returns both sides. The lower
//! side `L` is the on-time count of a feasible schedule that knows every realised execution
//! time ([`lower_bound`]: shortest-first insertion, a local search of insertions, ejections
//! and load-shrinking moves, then ruin and recreate over windows of time, all under a
//! deterministic step budget); [`check_schedule`] checks such a schedule against the rules.
//! The upper side `U` is the smaller of the LP below and a Lagrangian bound of the
//! time-indexed formulation started from the LP's duals ([`lagrangian_bound`]).
//!
//! For one trial and its realised execution times (the common random numbers the engine
//! draws), no scheduler, not even one that knows the future, finishes more counted tasks on
//! time than the LP relaxation of [`upper_bound`]:
//!
//! ```text
//! maximise   sum_kj x_kj                          x_kj in [0, 1], x_kj = 0 unless a_k + p_kj < D_k
//! subject to sum_j x_kj <= 1                      each counted task k
//!            sum_{k in W} p_kj x_kj <= e - s      each machine j and window W = [s, e]
//! ```
//!
//! where `W` holds the tasks that arrive at or after `s` and must complete by `e`
//! (`D_k - 1 <= e`). The windows form a family ([`WindowFamily`]): none, one per machine
//! (capacity), or every interval between an arrival and a latest completion, added as
//! cutting planes; energetic windows (partial overlaps) are optional. Cheaper combinatorial
//! bounds ([`trivial_bound`], [`capacity_bound`]) come with every [`Bound`], and
//! [`exact_small`] is the exact optimum of tiny instances, for tests.
//!
//! # Example
//! ```
//! use bound::{BoundOptions, Instance, exact_small, upper_bound};
//! use ndarray::array;
//! // Three tasks, one machine: each runs 4 ticks, all arrive at 0 and are due at tick 9,
//! // so at most two can complete by tick 8.
//! let inst = Instance::new(vec![0, 0, 0], vec![9, 9, 9], array![[4], [4], [4]], 0..3).unwrap();
//! let b = upper_bound(&inst, &BoundOptions::default()).unwrap();
//! assert_eq!(b.on_time, 2);
//! assert_eq!(exact_small(&inst).unwrap(), 2);
//! assert_eq!(b.trivial, 3);
//! ```

mod bracket;
mod capacity;
mod ceiling;
mod cheap;
mod error;
mod exact;
mod instance;
mod lagrange;
mod lower;
mod lp;
mod schedule;

pub use bracket::{
    Bracket, BracketOptions, LagrangianBound, LagrangianOptions, bracket, bracket_between,
    bracket_trial, bracket_trial_drifting, lagrangian_bound,
};
pub use ceiling::{Ceiling, capacity_on_means, capacity_on_means_trial};
pub use cheap::{capacity_bound, eligible_tasks, trivial_bound};
pub use error::BoundError;
pub use exact::{MAX_EXACT_TASKS, exact_small};
pub use instance::{Instance, bound_trial, instance_from};
pub use lower::{LowerBound, LowerOptions, lower_bound};
pub use lp::{Bound, BoundOptions, WindowFamily, upper_bound};
pub use schedule::{Placement, ScheduleError, check_schedule};
