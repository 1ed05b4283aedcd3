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
    /// An output path that holds something other than a regular file (a folder, a FIFO, a
    /// device, a socket, a symlink to one of them or to nothing): outputs are written only as
    /// regular files, and nothing else is replaced.
    #[error("{}: {kind}, not a regular file: an output is written only as a regular file (give a file's path)", path.display())]
    NotAnOutput {
        /// The path given.
        path: PathBuf,
        /// What is there, e.g. "a character device", "a symlink to a FIFO".
        kind: String,
    },
    /// Inputs that do not fit together.
    #[error("{0}")]
    Input(String),
    /// The run was stopped between trials ([`crate::RunOptions::stop_on`]).
    #[error("interrupted")]
    Interrupted,
}
