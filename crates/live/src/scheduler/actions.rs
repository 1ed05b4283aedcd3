//! What became of a task ([`Fate`]), the outcomes so far ([`Counts`]), and the live
//! scheduler's errors ([`LiveError`]).

use model::Outcome;

#[cfg(doc)]
use super::Scheduler;
use super::TaskId;

/// How a task ended, as the live scheduler reports it ([`Scheduler::fate`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Still waiting, queued or executing.
    Open,
    /// Its end was reported and takes effect at the next [`Scheduler::decide`].
    Reported,
    /// Ended with this outcome.
    Ended(Outcome),
    /// The dispatcher reported it failed ([`Scheduler::failed`]).
    Failed,
    /// Ended, and no longer held: the scheduler forgets the tasks that ended (unless
    /// [`Scheduler::keep_records`]), their outcomes kept as counts ([`Scheduler::counts`]).
    Forgotten,
}

/// How many tasks were submitted and how they ended ([`Scheduler::counts`]): counters, kept
/// whether the tasks' records are or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    /// Tasks submitted.
    pub submitted: usize,
    /// Tasks that ended with each outcome, by [`Outcome::ALL`]'s order (failures apart).
    pub outcomes: [usize; 8],
    /// Tasks the dispatcher reported failed ([`Scheduler::failed`]).
    pub failed: usize,
}

impl Counts {
    /// Tasks that ended with `outcome` (failures apart).
    pub fn of(&self, outcome: Outcome) -> usize {
        Outcome::ALL
            .iter()
            .position(|&o| o == outcome)
            .map_or(0, |i| self.outcomes[i])
    }

    /// Tasks that ended, failures included.
    pub fn ended(&self) -> usize {
        self.outcomes.iter().sum::<usize>() + self.failed
    }
}

/// `x` seconds as an error message writes them: in full, or in scientific notation when that
/// would run past 16 digits (1e308, not 309 of them).
fn seconds(x: f64) -> String {
    if x != 0.0 && !(1e-6..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// Misuse of the live API. Nothing in [`Scheduler`] panics on its inputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LiveError {
    /// A task id [`Scheduler::submit`] never returned.
    #[error("unknown task {0}")]
    UnknownTask(TaskId),
    /// A task type outside the PET.
    #[error("task type {task_type} is outside the PET's {types} task types")]
    UnknownTaskType {
        /// The type given.
        task_type: usize,
        /// How many the PET has.
        types: usize,
    },
    /// A start, completion or failure of a task that was not started on a machine.
    #[error("task {task} was not started (it is not executing on any machine)")]
    NotStarted {
        /// The task.
        task: TaskId,
    },
    /// A notification about a task whose end is already known.
    #[error("task {task} has already ended")]
    AlreadyEnded {
        /// The task.
        task: TaskId,
    },
    /// A time before one already seen.
    #[error("time went backwards: {at} s is before {latest} s, already seen")]
    TimeWentBackwards {
        /// The time given.
        at: f64,
        /// The latest time seen.
        latest: f64,
    },
    /// A time that is not a finite number of seconds.
    #[error("{what} must be a finite number of seconds, found {value}")]
    NotFinite {
        /// Which argument.
        what: &'static str,
        /// Its value.
        value: f64,
    },
    /// A time beyond the scheduler's range: [`pmf::MAX_TICK`] (2^52) ticks of its resolution
    /// either side of 0.
    #[error(
        "{what} {} s is outside the scheduler's time range, -{max} s to {max} s (2^52 ticks of its resolution)",
        seconds(*value)
    )]
    OutOfRange {
        /// Which argument.
        what: &'static str,
        /// Its value.
        value: f64,
        /// The range's end, in seconds.
        max: f64,
    },
    /// A deadline at or before its task's arrival.
    #[error(
        "deadline {} s is not after the task's arrival at {} s (now): a task is due after it arrives",
        seconds(*deadline),
        seconds(*arrival)
    )]
    DeadlineNotAfterArrival {
        /// The deadline given.
        deadline: f64,
        /// The arrival (`now`).
        arrival: f64,
    },
    /// A configuration that cannot run.
    #[error("invalid configuration: {0}")]
    Config(String),
}
