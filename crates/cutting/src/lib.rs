//! Cutting thresholds for stochastic tasks whose execution-time distribution is unknown
//! (Gao, Robert, Vivien, *Resource-Constrained Scheduling of Stochastic Tasks With Unknown
//! Probability Distribution*, Inria RR-9373, 2020).
//!
//! Independent tasks run on `M = ceil(b/d)` identical VMs under a budget `b` and a deadline
//! `d`; a running task may be interrupted (its work is lost) once it has run for the cutting
//! threshold `tau`. The goal is to complete as many tasks as possible.
//!
//! | paper | here |
//! |---|---|
//! | eq. (1), discrete yield; Theorem 1 | [`yield_::discrete`], [`threshold::optimal_discrete`] |
//! | eq. (2), continuous yield | [`yield_::continuous`], [`threshold::optimal_continuous`] (ORACLE) |
//! | eq. (3), Theorem 2 (bimodal exponential + `delta`) | [`yield_::BimodalExp`] |
//! | eq. (4), Kaplan-Meier; section 5.2 moments | [`pmf::kaplan_meier`], [`threshold::survival_estimate`] |
//! | section 5.1, empirical distribution | [`threshold::empirical_estimate`] |
//! | section 6, strategies | [`strategies::Strategy`] |
//! | section 7.1, table 2, simulation | [`distributions::table2`], [`simulation::Experiment`] |
//! | tables 4 and 5 | [`tables::TableRun`], [`tables::reproduce`], [`tables::paper_values`], [`tables::write_csv`] |
//!
//! The crate is pure, deterministic and single-threaded: randomness comes from `ChaCha12Rng`
//! streams keyed by `(seed, distribution, instance, VM)`, so an instance is a function of its
//! index and its seed, and a caller may run instances in parallel and collect them by index
//! (the sweep engine of `runner` does).
//!
//! # Example
//! ```
//! use cutting::yield_::BimodalExp;
//! // Section 4.2: p = 0.5, delta = 0.001, lambda = 1, mu = 50.
//! let d = BimodalExp { p: 0.5, lambda: 1.0, mu: 50.0, delta: 0.001 };
//! assert!((d.yield_at(f64::INFINITY).unwrap() - 1.96).abs() < 0.01);
//! let best = d.theorem2().unwrap();
//! assert!(best.threshold.is_finite() && best.yield_ > 20.0);
//! ```

pub mod distributions;
mod error;
pub mod simulation;
pub mod special;
pub mod strategies;
pub mod tables;
pub mod threshold;
pub mod yield_;

pub use error::CuttingError;
pub use simulation::{Experiment, Outcome, Setting};
pub use strategies::Strategy;
pub use tables::{GaoTable, Row, TableRun, paper_values, reproduce, write_csv};
