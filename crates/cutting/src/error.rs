//! Typed errors of the cutting crate. No function of this crate panics on user input.

use thiserror::Error;

/// Why a distribution, a setting, a strategy or an output could not be used.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CuttingError {
    /// A distribution parameter is out of its domain.
    #[error("invalid parameter of {distribution}: {reason}")]
    InvalidDistribution {
        /// The distribution's family.
        distribution: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A budget, deadline or constant is not usable.
    #[error("invalid setting: {0}")]
    InvalidSetting(String),
    /// A strategy parameter (a budget fraction or a precision) is out of its domain.
    #[error("invalid strategy parameter: {0}")]
    InvalidStrategy(String),
    /// An argument of a yield or threshold function is out of its domain.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The Kaplan-Meier estimator rejected the observations.
    #[error(transparent)]
    Pmf(#[from] pmf::PmfError),
    /// Writing the CSV output failed.
    #[error("writing CSV: {0}")]
    Csv(#[from] csv::Error),
}
