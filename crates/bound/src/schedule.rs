//! Feasible clairvoyant schedules: what a lower bound on the optimum returns, and their check.

use pmf::Tick;
use thiserror::Error;

use crate::instance::Instance;

/// One task of a schedule: it runs on `machine` from tick `start` for its realised time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Placement {
    /// The machine.
    pub machine: usize,
    /// The start tick.
    pub start: Tick,
    /// The task (an index into the instance's tasks).
    pub task: usize,
}

/// Why a schedule breaks the rules of the model ([`Instance`]).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ScheduleError {
    /// A placement names a task that is not in the instance.
    #[error("task {task} is not one of the {n_tasks} tasks")]
    NoSuchTask {
        /// The task.
        task: usize,
        /// Number of tasks.
        n_tasks: usize,
    },
    /// A placement names a machine that is not in the instance.
    #[error("task {task} is placed on machine {machine}, but there are {n_machines} machines")]
    NoSuchMachine {
        /// The task.
        task: usize,
        /// The machine.
        machine: usize,
        /// Number of machines.
        n_machines: usize,
    },
    /// A task is placed more than once.
    #[error("task {task} is placed more than once")]
    Repeated {
        /// The task.
        task: usize,
    },
    /// A task starts before its arrival.
    #[error("task {task} starts at {start}, before its arrival {arrival}")]
    BeforeArrival {
        /// The task.
        task: usize,
        /// Its start.
        start: Tick,
        /// Its arrival.
        arrival: Tick,
    },
    /// A task does not complete strictly before its deadline.
    #[error("task {task} completes at {completion}, not before its deadline {deadline}")]
    Late {
        /// The task.
        task: usize,
        /// Its completion.
        completion: Tick,
        /// Its deadline.
        deadline: Tick,
    },
    /// Two tasks overlap on a machine.
    #[error("tasks {first} and {second} overlap on machine {machine}")]
    Overlap {
        /// The machine.
        machine: usize,
        /// The task that starts first.
        first: usize,
        /// The task that starts before the first completes.
        second: usize,
    },
}

/// Checks that `placements` is a feasible schedule of `inst` in which every placed task is on
/// time, and returns how many of them are counted.
///
/// The rules: each task at most once, on an existing machine, started at or after its
/// arrival, completing (`start + exec`) strictly before its deadline, and no two tasks on one
/// machine overlapping: on each machine, in order of start, every task starts at or after the
/// completion of the one before (a task that starts when another completes does not overlap
/// it; a task of zero length may not start strictly inside another's run).
pub fn check_schedule(inst: &Instance, placements: &[Placement]) -> Result<usize, ScheduleError> {
    let n = inst.n_tasks();
    let m = inst.n_machines();
    let mut seen = vec![false; n];
    for p in placements {
        if p.task >= n {
            return Err(ScheduleError::NoSuchTask {
                task: p.task,
                n_tasks: n,
            });
        }
        if p.machine >= m {
            return Err(ScheduleError::NoSuchMachine {
                task: p.task,
                machine: p.machine,
                n_machines: m,
            });
        }
        if std::mem::replace(&mut seen[p.task], true) {
            return Err(ScheduleError::Repeated { task: p.task });
        }
        let arrival = inst.arrival[p.task];
        if p.start < arrival {
            return Err(ScheduleError::BeforeArrival {
                task: p.task,
                start: p.start,
                arrival,
            });
        }
        let completion = p.start.saturating_add(inst.exec[[p.task, p.machine]]);
        if completion >= inst.deadline[p.task] {
            return Err(ScheduleError::Late {
                task: p.task,
                completion,
                deadline: inst.deadline[p.task],
            });
        }
    }
    let mut sorted: Vec<(usize, Tick, Tick, usize)> = placements
        .iter()
        .map(|p| {
            let end = p.start + inst.exec[[p.task, p.machine]];
            (p.machine, p.start, end, p.task)
        })
        .collect();
    sorted.sort_unstable();
    // On each machine, by start (then end): each task starts when every earlier one has
    // completed (a task of zero length included: it may not start inside another's run).
    let mut busy: Option<(usize, Tick, usize)> = None;
    for &(machine, start, end, task) in &sorted {
        match busy {
            Some((m0, e0, t0)) if m0 == machine => {
                if start < e0 {
                    return Err(ScheduleError::Overlap {
                        machine,
                        first: t0,
                        second: task,
                    });
                }
                busy = Some((machine, end, task));
            }
            _ => busy = Some((machine, end, task)),
        }
    }
    Ok(placements
        .iter()
        .filter(|p| inst.counted.contains(&p.task))
        .count())
}
