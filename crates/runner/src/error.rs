//! Errors of the runner library.

use std::path::PathBuf;

use thiserror::Error;

/// Why an experiment could not run.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum RunError {
    /// An experiment file does not parse or validate.
    #[error("{file}{}: {message}", line.map(|l| format!(":{l}")).unwrap_or_default())]
    Config {
        /// The file.
        file: String,
        /// The 1-based line, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A workload file or configuration problem.
    #[error(transparent)]
    Workload(#[from] workload::WorkloadError),
    /// Reading or writing a file failed.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// Inputs that do not fit together.
    #[error("{0}")]
    Input(String),
    /// The run was stopped between trials ([`crate::Prepared::run_until`]).
    #[error("interrupted")]
    Interrupted,
}
