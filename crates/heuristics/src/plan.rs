//! A batch heuristic as data (thesis Algorithm 2, paper V-D1, JPDC-2016 6.2): the objective
//! of phase 1 (each candidate's machine), the criterion of phase 2 (the one pair assigned per
//! round), and which machines phase 1 may choose. [`crate::reference`] runs a plan plainly;
//! the accelerated search (module `search`, private) runs it fast and must decide the same.

use model::{MachineId, TaskId, View, VirtualQueues};
use serde::{Deserialize, Serialize};

/// Which machines phase 1 may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase1Scope {
    /// Every machine, full ones included: a task whose best machine is full waits for it
    /// (JPDC-2016 6.2.2, thesis Algorithm 2). The default.
    #[default]
    AllMachines,
    /// Only machines with a free slot (the other reading; on the paper's data it moves the
    /// baselines by 8-14 points while PAM barely moves).
    FreeMachines,
}

/// Phase-1 objective.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase1 {
    /// Minimum expected completion time (MM, MSD, MMU, EDF, SJF).
    MinCompletion,
    /// Maximum success probability (PAM, MOC); ties by minimum expected completion.
    MaxSuccess,
}

/// Phase-2 criterion.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Phase2 {
    /// Minimum expected completion time; with `tie_by_execution`, ties go to the shortest
    /// expected execution time (PAM).
    MinCompletion { tie_by_execution: bool },
    /// Soonest deadline, ties by minimum expected completion (MSD, EDF).
    SoonestDeadline,
    /// Maximum urgency `U = 1 / (delta - E[C])` (MMU, paper/thesis eq. 3.6).
    MaxUrgency,
    /// MOC (JPDC-2016 6.2.5): per machine, the tasks within `epsilon` of the highest
    /// success probability on it; of those, the minimum expected completion time.
    Shortlist { epsilon: f64 },
}

/// A batch heuristic as data: its two phases and options.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    pub phase1: Phase1,
    pub phase2: Phase2,
    pub scope: Phase1Scope,
}

/// Phase-2 key, lower is better: (criterion, tie-break).
pub fn phase2_key(
    view: &View<'_>,
    phase2: Phase2,
    vq: &VirtualQueues,
    t: TaskId,
    m: MachineId,
) -> (f64, f64) {
    let ect = vq.expected_completion(view, m, t);
    match phase2 {
        Phase2::MinCompletion { tie_by_execution } => {
            let tie = if tie_by_execution {
                view.pet.mean(view.task(t).task_type, m)
            } else {
                0.0
            };
            (ect, tie)
        }
        Phase2::SoonestDeadline => (view.task(t).deadline as f64, ect),
        Phase2::MaxUrgency => {
            let slack = view.task(t).deadline as f64 - ect;
            // U = 1 / slack; zero slack is the most urgent possible.
            let urgency = if slack == 0.0 {
                f64::INFINITY
            } else {
                1.0 / slack
            };
            (-urgency, ect)
        }
        Phase2::Shortlist { .. } => (ect, 0.0),
    }
}
