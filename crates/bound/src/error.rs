//! Why a bound could not be computed.

use thiserror::Error;

/// Why an instance could not be built or bounded.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum BoundError {
    /// The vectors and the matrix of an instance do not agree in length.
    #[error("instance shape: {0}")]
    Shape(String),
    /// The counted range reaches past the tasks.
    #[error("the counted range {start}..{end} is not inside the {n_tasks} tasks")]
    Counted {
        /// First counted task.
        start: usize,
        /// One past the last counted task.
        end: usize,
        /// Number of tasks.
        n_tasks: usize,
    },
    /// A realised execution time is negative.
    #[error("task {task} has a negative execution time {time} on machine {machine}")]
    NegativeExec {
        /// The task.
        task: usize,
        /// The machine.
        machine: usize,
        /// Its time.
        time: i64,
    },
    /// A task's type is not a row of the PET.
    #[error("task {task} has type {task_type}, but the PET has {n_types} task types")]
    TaskType {
        /// The task.
        task: usize,
        /// Its type.
        task_type: usize,
        /// Rows of the PET.
        n_types: usize,
    },
    /// A bound option is out of its range.
    #[error("bound options: {0}")]
    Options(String),
    /// The exact search was asked for more tasks than it enumerates.
    #[error("the exact search handles at most {max} counted tasks that can be on time, got {got}")]
    TooLarge {
        /// The limit.
        max: usize,
        /// The instance's count.
        got: usize,
    },
    /// The lower side of a bracket came out above its upper side (a bug: please report).
    #[error("the bracket crossed: a schedule with {lower} tasks on time, above the bound {upper}")]
    Crossed {
        /// The schedule's count.
        lower: usize,
        /// The bound.
        upper: usize,
    },
    /// The capacity on mean times's inputs are out of range (a type outside the means, a mean or a
    /// window negative or not finite).
    #[error("capacity on mean times: {0}")]
    Ceiling(String),
    /// The LP solver did not return an optimal solution.
    #[error("the LP solver failed: {0}")]
    Solver(String),
}
