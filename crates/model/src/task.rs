//! Tasks as the simulator sees them: integer ticks, and the one outcome each task ends in.

use serde::{Deserialize, Serialize};

use pmf::Tick;

/// Index of a task in its trial (arrival order).
pub type TaskId = usize;

/// Index of a machine.
pub type MachineId = usize;

/// A task on the tick grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSpec {
    /// Index in arrival order.
    pub id: TaskId,
    /// Row of the PET matrix.
    pub task_type: usize,
    /// First tick at which the task is in the batch queue: `ceil(arrival)`.
    pub arrival: Tick,
    /// Deadline tick: the task succeeds when it completes strictly before it,
    /// `ceil(deadline)` of the real deadline (exact for integer completion times).
    pub deadline: Tick,
}

impl TaskSpec {
    /// Converts a workload task (real time units) to ticks.
    ///
    /// The arrival rounds up (a task cannot be mapped before it exists) and the deadline
    /// rounds up (completing at an integer tick `c` meets a real deadline `delta` exactly when
    /// `c <= delta`, i.e. `c < ceil(delta)` unless `delta` is itself an integer, where the tie
    /// `c == delta` counts as a miss, as in JPDC-2016 4.2).
    pub fn from_real(id: TaskId, task: &workload::Task) -> Self {
        let arrival = task.arrival.max(0.0).ceil() as Tick;
        let deadline = task.deadline.ceil() as Tick;
        TaskSpec {
            id,
            task_type: task.task_type,
            arrival,
            deadline: deadline.max(arrival),
        }
    }
}

/// The one state every task ends in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Completed strictly before its deadline.
    OnTime,
    /// Completed at or after its deadline (only when the executing task may not be dropped).
    Late,
    /// Waited in a machine queue until its deadline and was dropped there.
    ExpiredPending,
    /// Was executing at its deadline and was dropped (the executing task is droppable).
    ExpiredExecuting,
    /// Dropped by the pruner while pending in a machine queue.
    PrunedPending,
    /// Dropped by the pruner while executing.
    PrunedExecuting,
    /// Never mapped: its deadline passed while it waited in the batch queue.
    Unmapped,
    /// Never mapped: a heuristic discarded it from the batch queue (MOC drops unmapped tasks
    /// that cannot make their deadline on any machine, JPDC-2016 6.2.5).
    Discarded,
}

impl Outcome {
    /// All outcomes, in a fixed order (for tables).
    pub const ALL: [Outcome; 8] = [
        Outcome::OnTime,
        Outcome::Late,
        Outcome::ExpiredPending,
        Outcome::ExpiredExecuting,
        Outcome::PrunedPending,
        Outcome::PrunedExecuting,
        Outcome::Unmapped,
        Outcome::Discarded,
    ];

    /// A stable snake_case name.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::OnTime => "on_time",
            Outcome::Late => "late",
            Outcome::ExpiredPending => "expired_pending",
            Outcome::ExpiredExecuting => "expired_executing",
            Outcome::PrunedPending => "pruned_pending",
            Outcome::PrunedExecuting => "pruned_executing",
            Outcome::Unmapped => "unmapped",
            Outcome::Discarded => "discarded",
        }
    }

    /// True for the outcome that counts toward robustness.
    pub fn is_success(self) -> bool {
        self == Outcome::OnTime
    }

    /// True when the task missed its deadline by the clock (not by a pruning decision):
    /// these are the misses that drive the oversubscription level of paper eq. (8).
    pub fn is_deadline_miss(self) -> bool {
        matches!(
            self,
            Outcome::Late | Outcome::ExpiredPending | Outcome::ExpiredExecuting | Outcome::Unmapped
        )
    }
}
