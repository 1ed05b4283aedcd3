//! The decisions of the rules as data ([`Action`]): what a dispatcher is told to do, and
//! what the simulator logs for the replay test.

use model::{Outcome, TaskId};

use crate::{Cause, TaskRecord};

/// What the dispatcher should do, in the order given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// The task joins `machine`'s local queue (FCFS); it starts there with a later
    /// [`Action::Start`].
    Assign {
        /// The task.
        task: TaskId,
        /// The machine.
        machine: usize,
    },
    /// Start the task on `machine` now (the machine is idle and the task heads its queue).
    Start {
        /// The task.
        task: TaskId,
        /// The machine.
        machine: usize,
    },
    /// The task is given up: when `executing`, stop (kill) it on `machine`; else forget it.
    Drop {
        /// The task.
        task: TaskId,
        /// The machine whose queue it was in, `None` when it was never mapped.
        machine: Option<usize>,
        /// True when it was executing.
        executing: bool,
        /// Why: expired (pending, executing, unmapped), pruned (pending, executing), or
        /// discarded by the heuristic.
        reason: Outcome,
    },
    /// The task stays in the batch queue for now (its best chance is at or below its defer
    /// threshold); it is considered again at the next decision.
    Defer {
        /// The task.
        task: TaskId,
    },
}

impl Action {
    /// The action a task's outcome calls for: a [`Action::Drop`] when the scheduler decided
    /// it, nothing when the task ended by itself.
    pub fn of_settled(task: TaskId, record: &TaskRecord, cause: Cause) -> Option<Action> {
        (cause == Cause::Decision).then_some(Action::Drop {
            task,
            machine: record.machine,
            executing: record.start.is_some(),
            reason: record.outcome,
        })
    }
}
