//! Probabilistic pruning inside a real dispatcher: the [`Scheduler`] a dispatcher owns, a
//! wall-clock driver of the scheduler's core it shares with the simulator's engine (the
//! `system` crate, [`system::System`], re-exported here with its configuration).
//!
//! A dispatcher (of video transcoding jobs, inference requests, ...) builds a [`Scheduler`]
//! from the PET (execution-time PMFs per task type and machine), the machines' queue size,
//! a mapping heuristic and a pruner configuration, tells it what happened and asks it what to
//! do:
//!
//! | the dispatcher calls | when |
//! |---|---|
//! | [`Scheduler::submit`]`(now, type, deadline)` | a task arrives; returns its id |
//! | [`Scheduler::started`]`(task, at)` | a task it was told to start has started |
//! | [`Scheduler::completed`]`(task, at)` | a task finished |
//! | [`Scheduler::failed`]`(task, at)` | a task failed |
//! | [`Scheduler::decide`]`(now)` | after any of these, and at [`Scheduler::next_wakeup`] |
//!
//! [`Scheduler::decide`] returns [`Action`]s: assign a task to a machine's queue, start it,
//! drop it (killing it when it executes), or keep it deferred. Times are seconds as `f64`,
//! mapped to the PET's ticks at [`SchedulerConfig::resolution`] seconds per tick.
//!
//! A heuristic is named as the papers and the command line name it: a base heuristic
//! ([`HeuristicConfig::named`]) or a variant such as `PAMF` or `MM-P` with its pruner
//! ([`variants::resolve`]).
//!
//! The simulator's engine (`runner::engine`) runs on the same [`system::System`]: a
//! simulated trial replayed through a [`Scheduler`] takes exactly the simulator's decisions.
//!
//! ```
//! use live::{Action, Scheduler, SchedulerConfig};
//! use workload::Pet;
//!
//! let mut s = Scheduler::new(Pet::default_pet(1), SchedulerConfig::default()).unwrap();
//! for k in 0..20 {
//!     s.submit(0.0, k % 12, 10_000.0).unwrap(); // due in 10,000 s: every chance is high
//! }
//! let actions = s.decide(0.0).unwrap();
//! let started = actions.iter().filter(|a| matches!(a, Action::Start { .. })).count();
//! assert_eq!(started, 8); // one task starts on each of the 8 idle machines
//! ```
//!
//! The PET can be learned online ([`Scheduler::learn_online`]: Kaplan-Meier per cell over
//! the completions and the executions drops cut short, [`learn::Estimator`]), or replaced
//! as an estimate of one's own improves ([`Scheduler::set_pet`]); the execution times a
//! dispatcher observed are kept for it with [`Scheduler::record_samples`] and taken with
//! [`Scheduler::drain_samples`].

mod scheduler;

pub use heuristics::HeuristicConfig;
pub use learn::Options as LearnOptions;
pub use model::Outcome;
pub use pmf::DropModel;
pub use pruner::{PrunerConfig, PrunerTable};
pub use scheduler::{Counts, Fate, LearnConfig, LiveError, Sample, Scheduler, TaskId};
pub use system::{self, Action, HeuristicSpec, SchedulerConfig, SchedulerSpec, variants};
