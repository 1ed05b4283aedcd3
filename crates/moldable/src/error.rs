//! Typed errors of the moldable crate. No function of this crate panics on user input.

use thiserror::Error;

/// Why a model could not be built or an allocation could not be made or evaluated.
#[derive(Debug, Clone, PartialEq, Error)]
#[non_exhaustive]
pub enum MoldableError {
    /// A PMF operation failed (a parameter produced an unrepresentable distribution).
    #[error("PMF operation failed: {0}")]
    Pmf(#[from] pmf::PmfError),
    /// A model parameter was outside its domain.
    #[error("invalid parameter {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter's name.
        name: &'static str,
        /// Its value.
        value: f64,
        /// What the domain is.
        reason: &'static str,
    },
    /// The instance has no application or no processor type, or their sizes disagree.
    #[error("inconsistent instance: {0}")]
    Inconsistent(String),
    /// The processor-balance heuristics need `M = tau / N_a` to be an integer and every
    /// `n_j` to be a multiple of it (Hansen et al. §III-A1).
    #[error("processor balance needs M = {total}/{apps} integer and each n_j a multiple of M")]
    NotBalanced {
        /// Total number of processors, tau.
        total: u64,
        /// Number of applications, N_a.
        apps: usize,
    },
    /// No complete allocation exists: fewer processors than applications.
    #[error("{apps} applications cannot all be given a processor out of {total}")]
    Infeasible {
        /// Number of applications.
        apps: usize,
        /// Total number of processors.
        total: u64,
    },
    /// An allocation refers to a type that does not exist, gives zero processors, or uses
    /// more processors of a type than there are.
    #[error("invalid allocation: {0}")]
    InvalidAllocation(String),
    /// Writing results failed.
    #[error("CSV output failed: {0}")]
    Csv(String),
}

impl From<csv::Error> for MoldableError {
    fn from(e: csv::Error) -> Self {
        MoldableError::Csv(e.to_string())
    }
}

/// Checks a parameter with a predicate, returning [`MoldableError::InvalidParameter`].
pub(crate) fn check(
    name: &'static str,
    value: f64,
    ok: bool,
    reason: &'static str,
) -> Result<(), MoldableError> {
    if ok && value.is_finite() {
        Ok(())
    } else {
        Err(MoldableError::InvalidParameter {
            name,
            value,
            reason,
        })
    }
}
