//! A trial with its realised execution times: what a clairvoyant scheduler knows.

use std::ops::Range;

use model::TaskSpec;
use ndarray::Array2;
use pmf::Tick;
use workload::Pet;

use crate::error::BoundError;

/// One trial as a clairvoyant scheduler sees it.
///
/// Task `k` arrives at tick `arrival[k]`, is due at tick `deadline[k]` and runs exactly
/// `exec[[k, j]]` ticks on machine `j` (its realised time under the common random numbers).
/// It may start at any tick `>= arrival[k]`, runs without preemption, one task at a time per
/// machine, and is on time when it completes strictly before its deadline:
/// `start + exec[[k, j]] < deadline[k]`, i.e. it ends by the *latest completion*
/// `deadline[k] - 1`. Only tasks in `counted` count toward the objective.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// Arrival tick of each task.
    pub arrival: Vec<Tick>,
    /// Deadline tick of each task (on time iff completion `< deadline`).
    pub deadline: Vec<Tick>,
    /// Realised execution times, tasks x machines, in ticks (`>= 0`).
    pub exec: Array2<Tick>,
    /// The task indices that count toward robustness.
    pub counted: Range<usize>,
}

impl Instance {
    /// Builds and checks an instance.
    ///
    /// Errors: lengths that disagree, a counted range outside the tasks, a negative time.
    pub fn new(
        arrival: Vec<Tick>,
        deadline: Vec<Tick>,
        exec: Array2<Tick>,
        counted: Range<usize>,
    ) -> Result<Self, BoundError> {
        let inst = Instance {
            arrival,
            deadline,
            exec,
            counted,
        };
        inst.validate()?;
        Ok(inst)
    }

    /// Checks the invariants [`Instance::new`] establishes (the fields are public).
    pub fn validate(&self) -> Result<(), BoundError> {
        let n = self.arrival.len();
        if self.deadline.len() != n || self.exec.nrows() != n {
            return Err(BoundError::Shape(format!(
                "{n} arrivals, {} deadlines and {} rows of execution times",
                self.deadline.len(),
                self.exec.nrows()
            )));
        }
        if self.counted.start > self.counted.end || self.counted.end > n {
            return Err(BoundError::Counted {
                start: self.counted.start,
                end: self.counted.end,
                n_tasks: n,
            });
        }
        if let Some(((task, machine), &time)) = self.exec.indexed_iter().find(|(_, t)| **t < 0) {
            return Err(BoundError::NegativeExec {
                task,
                machine,
                time,
            });
        }
        Ok(())
    }

    /// Number of tasks.
    pub fn n_tasks(&self) -> usize {
        self.arrival.len()
    }

    /// Number of machines.
    pub fn n_machines(&self) -> usize {
        self.exec.ncols()
    }

    /// Number of counted tasks.
    pub fn n_counted(&self) -> usize {
        self.counted.len()
    }

    /// The latest tick by which task `k` must complete to be on time: `deadline[k] - 1`.
    pub fn latest_completion(&self, k: usize) -> Tick {
        self.deadline[k].saturating_sub(1)
    }

    /// True when task `k` can be on time on machine `j` at all:
    /// `arrival[k] + exec[[k, j]] < deadline[k]`.
    pub fn can_be_on_time(&self, k: usize, j: usize) -> bool {
        self.arrival[k].saturating_add(self.exec[[k, j]]) < self.deadline[k]
    }
}

/// The instance of a simulated trial: realised times exactly as the engine draws them,
/// `pmf.quantile(luck[k].clamp(0, 1)).unwrap_or(pmf.max()).max(0)` of the task's PET entry
/// on each machine (`runner::engine`, common random numbers).
///
/// Errors: `tasks` and `luck` of different lengths, a task type outside the PET, a counted
/// range outside the tasks.
pub fn instance_from(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    counted: Range<usize>,
) -> Result<Instance, BoundError> {
    if tasks.len() != luck.len() {
        return Err(BoundError::Shape(format!(
            "{} tasks but {} uniform draws",
            tasks.len(),
            luck.len()
        )));
    }
    let n_types = pet.n_types();
    if let Some((task, t)) = tasks
        .iter()
        .enumerate()
        .find(|(_, t)| t.task_type >= n_types)
    {
        return Err(BoundError::TaskType {
            task,
            task_type: t.task_type,
            n_types,
        });
    }
    let m = pet.n_machines();
    let exec = Array2::from_shape_fn((tasks.len(), m), |(k, j)| {
        let pmf = pet.exec_pmf(tasks[k].task_type, j);
        pmf.quantile(luck[k].clamp(0.0, 1.0))
            .unwrap_or(pmf.max())
            .max(0)
    });
    Instance::new(
        tasks.iter().map(|t| t.arrival).collect(),
        tasks.iter().map(|t| t.deadline).collect(),
        exec,
        counted,
    )
}

/// [`instance_from`] then [`crate::upper_bound`]: the bound of one simulated trial, for a
/// runner that has the trial's tasks, luck and counted range at hand.
pub fn bound_trial(
    pet: &Pet,
    tasks: &[TaskSpec],
    luck: &[f64],
    counted: Range<usize>,
    opts: &crate::BoundOptions,
) -> Result<crate::Bound, BoundError> {
    crate::upper_bound(&instance_from(pet, tasks, luck, counted)?, opts)
}
