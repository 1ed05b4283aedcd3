//! The scheduler's core: its state and rules ([`System`]), its decisions as data
//! ([`Action`]), and its configuration ([`SchedulerConfig`], read from any serde format as a
//! [`SchedulerSpec`], with the papers' named variants such as `PAMF` or `MM-P` in
//! [`variants`]).
//!
//! Two drivers run on it, and neither holds a rule of its own:
//!
//! | driver | what it adds |
//! |---|---|
//! | the simulator's engine (`runner::engine`) | the event heap, actual execution times from the trial's draws, traces |
//! | the live scheduler (`live::Scheduler`) | a dispatcher's notifications, its wall clock in seconds, its task ids |
//!
//! Each tells the [`System`] what happened (an arrival, the end of an execution), asks it
//! whether a mapping event fires ([`System::mapping_due`]) and runs it
//! ([`System::mapping_event`]); which executing tasks are dropped at their deadline, and at
//! which tick, is the system's too ([`System::deadline_drop`]), and so is learning the PET
//! online: one path, its cadence a parameter ([`System::set_estimator`]), its estimator made
//! from a prior PET in one place ([`estimator_from_prior`]). What differs
//! between the drivers goes through [`Hooks`]. A simulated trial replayed through the live scheduler takes exactly the
//! simulator's decisions (the replay test, `runner/tests/it/replay.rs`).
//!
//! ```
//! use system::{SchedulerConfig, SchedulerSpec, variants};
//!
//! // A variant resolves to a base heuristic and its pruner, as an experiment's tables do.
//! let spec = SchedulerSpec {
//!     heuristic: system::HeuristicSpec::Name("PAMF".into()),
//!     ..SchedulerSpec::default()
//! };
//! let config: SchedulerConfig = spec.resolve().unwrap();
//! assert_eq!(config.heuristic.name, "PAM");
//! assert!(variants::VARIANTS.iter().any(|(name, _)| *name == "PAMF"));
//! ```

mod action;
mod config;
mod learning;
mod system;
pub mod variants;

pub use action::Action;
pub use config::{HeuristicSpec, SchedulerConfig, SchedulerSpec};
pub use learning::estimator_from_prior;
pub use system::{Cause, Env, Hooks, Records, System, TaskRecord};

/// Whether a task whose execution ends at `end` meets its deadline `deadline`: it completes
/// strictly before it (thesis 3.2, a task succeeds when it completes before its deadline;
/// paper eq. (1)'s success probability is the mass of its completion-time PMF below the
/// deadline). One rule for both drivers: the simulator's ticks and a dispatcher's seconds.
pub fn meets_deadline<T: PartialOrd + Copy>(end: T, deadline: T) -> bool {
    end < deadline
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_task_ending_at_its_deadline_misses_it() {
        assert!(super::meets_deadline(9, 10));
        assert!(!super::meets_deadline(10, 10));
        assert!(super::meets_deadline(9.999, 10.0));
        assert!(!super::meets_deadline(10.0, 10.0));
    }
}
