//! What can go wrong when learning: [`LearnError`].

use pmf::PmfError;
use thiserror::Error;

/// What can go wrong.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum LearnError {
    /// The prior does not have one PMF per cell.
    #[error("the prior has {found} PMFs for {types} task types x {machines} machines")]
    PriorShape {
        /// Task types.
        types: usize,
        /// Machines.
        machines: usize,
        /// PMFs given.
        found: usize,
    },
    /// A task type or machine outside the estimator's shape.
    #[error("cell (task type {task_type}, machine {machine}) outside {types} x {machines}")]
    OutOfRange {
        /// The task type given.
        task_type: usize,
        /// The machine given.
        machine: usize,
        /// Task types.
        types: usize,
        /// Machines.
        machines: usize,
    },
    /// A time that is negative, NaN or infinite.
    #[error("observed time {0} is not a finite number >= 0")]
    InvalidTime(f64),
    /// An option out of its range.
    #[error("learning option {field}: {reason}")]
    InvalidOption {
        /// The option's name.
        field: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A PMF could not be built (a time beyond the tick range).
    #[error(transparent)]
    Pmf(#[from] PmfError),
}
