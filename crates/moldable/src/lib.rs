//! Robust allocation of moldable parallel applications to heterogeneous processor types with
//! uncertain execution times and uncertain availability (Hansen, Ciorba, Maciejewski, Siegel,
//! Srivastava, Banicescu).
//!
//! A batch of `N_a` moldable applications is allocated processors: each application gets a
//! processor type `j` and a number `k` of its processors. The final execution time combines
//! a serial time distribution, Downey's speedup and the type's slowdown (eq. (1)); the
//! robustness of an allocation is the smallest probability that an application finishes by
//! the makespan goal `Delta` (eq. (2)). Five heuristics maximise it.
//!
//! # Map of the equations
//! | paper | here |
//! |---|---|
//! | §II-B2 Downey's speedup `S(k)` | [`speedup::Downey`] |
//! | eq. (1) `X_ijk = S_j T_ij / S(k)` | [`Instance::final_execution_time`], [`pmf::transform`] |
//! | `P(i, (j, k))` | [`Instance::prob`] |
//! | eq. (2) `Psi(I)` | [`Instance::robustness`] |
//! | eq. (4) makespan goal `Delta` | [`Instance::makespan_goal`] |
//! | eq. (5) upper bound `B` | [`bound::upper_bound`] |
//! | §III-A PB-R, PB-S | [`heuristics::pb`] |
//! | §III-B fig. 3 robustness floor, min-min, min-max, duplex | [`heuristics::rf`] |
//! | §IV-B gammas by the COV method | [`distributions`] |
//! | §IV-C Beta availability, slowdown | [`slowdown`] |
//! | §V figs. 4 and 5 | [`experiments`] |
//!
//! # Example
//! ```
//! use moldable::experiments::{figure4_params, generate, stream, Purpose};
//! use moldable::{Heuristic, upper_bound};
//! let mut params = figure4_params();
//! params.n_apps = 8;
//! params.total_procs = 64;
//! let inst = generate(&params, &mut stream(1, 0, 0, Purpose::Scenario)).unwrap();
//! let alloc = Heuristic::RfDuplex.allocate(&inst, &mut stream(1, 0, 0, Purpose::PbRandom)).unwrap();
//! let psi = inst.robustness(&alloc).unwrap();
//! assert!(psi <= upper_bound(&inst) + 1e-12);
//! ```

pub mod bound;
pub mod distributions;
mod error;
pub mod experiments;
pub mod heuristics;
pub mod robustness;
pub mod slowdown;
pub mod speedup;

pub use bound::{normalised_gap, upper_bound};
pub use error::MoldableError;
pub use heuristics::Heuristic;
pub use robustness::{Allocation, Application, Assignment, Instance, ProcessorType};
pub use speedup::Downey;
