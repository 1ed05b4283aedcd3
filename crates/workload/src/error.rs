//! Typed errors of the workload crate. No function of this crate panics on user input: a
//! malformed file or configuration comes back as a [`WorkloadError`] naming the file, the line,
//! the field and what was expected.

use std::path::PathBuf;

use pmf::PmfError;
use thiserror::Error;

/// The longest excerpt of offending input quoted in an error message.
#[cfg(feature = "files")]
const MAX_QUOTE: usize = 40;

/// Quotes at most [`MAX_QUOTE`] characters of `s` (a hostile input must not make a huge
/// message).
#[cfg(feature = "files")]
pub(crate) fn quote(s: &str) -> String {
    if s.chars().count() <= MAX_QUOTE {
        s.to_owned()
    } else {
        let mut q: String = s.chars().take(MAX_QUOTE).collect();
        q.push('…');
        q
    }
}

/// `"name: "`, or nothing for an empty name.
fn file_prefix(file: &str) -> String {
    if file.is_empty() {
        String::new()
    } else {
        format!("{file}: ")
    }
}

/// Why a PET, a workload or a configuration could not be built, read or written.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum WorkloadError {
    /// A file could not be opened, read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's reason (part of the message, so not also a `source()`:
        /// an error chain printed with `{:#}` would say it twice).
        error: std::io::Error,
    },
    /// An input that is not a regular file (a folder, a FIFO, a device such as `/dev/zero`):
    /// readers read regular files only, so that reading always ends.
    #[error("{}: not a regular file ({kind}); give a file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
        /// What it is instead.
        kind: &'static str,
    },
    /// A file larger than the readers accept.
    #[error("{}: {size} bytes, more than the {max} bytes an input file may hold", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in bytes (at least).
        size: u64,
        /// The limit in bytes.
        max: u64,
    },
    /// A field of a line did not hold what the format requires, e.g.
    /// `classes_2.etc:17: field 'probability': expected a number, found "abc"`.
    #[error("{file}:{line}: field '{field}': expected {expected}, found \"{found}\"")]
    Field {
        /// The file's name (or the name given to a `parse_*` function).
        file: String,
        /// The 1-based line number.
        line: usize,
        /// The field's name in the format.
        field: &'static str,
        /// What the format requires there.
        expected: String,
        /// What was found (at most 40 characters of it).
        found: String,
    },
    /// A line does not have the shape the format requires (a data line before any block
    /// header, a wrong number of fields, a missing header).
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file's name.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A PET file or sample set lacks the execution times of one (task type, machine) pair.
    #[error("{file}: no execution-time PMF for task type {task_type} on machine {machine}")]
    MissingBlock {
        /// The file's name.
        file: String,
        /// The task type (its name, or its index for the `.etc` format).
        task_type: String,
        /// The machine (its name, or its index for the `.etc` format).
        machine: String,
    },
    /// A PET file gives the same (task type, machine) block twice.
    #[error(
        "{file}:{line}: the block of task type {task_type} on machine {machine} was already given at line {first_line}"
    )]
    DuplicateBlock {
        /// The file's name.
        file: String,
        /// The line of the second header.
        line: usize,
        /// The line of the first header.
        first_line: usize,
        /// The task type.
        task_type: usize,
        /// The machine.
        machine: usize,
    },
    /// The masses of one block do not form a PMF (they sum too far from 1, or are all zero).
    #[error(
        "{file}:{line}: block of task type {task_type} on machine {machine}: expected an execution-time PMF (non-negative probabilities summing to 1 within 1%): {reason}"
    )]
    InvalidPmf {
        /// The file's name.
        file: String,
        /// The line of the block's header (or first sample).
        line: usize,
        /// The task type.
        task_type: String,
        /// The machine.
        machine: String,
        /// Why the masses were rejected (part of the message, so not also a `source()`).
        reason: PmfError,
    },
    /// A task arrives after its deadline: the line cannot be a task of eq. (3.7).
    #[error(
        "{file}:{line}: field 'deadline': expected a deadline at or after the arrival {arrival}, found {deadline}"
    )]
    ArrivalAfterDeadline {
        /// The file's name.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// The arrival time read.
        arrival: f64,
        /// The deadline read.
        deadline: f64,
    },
    /// The shapes given to [`crate::Pet::new`] do not agree, or a PMF cannot be an execution
    /// time.
    #[error("invalid PET: {0}")]
    InvalidPet(String),
    /// A task names a task type the PET does not have.
    #[error("task {task} has task type {task_type}, but the PET has only {n_types} task types")]
    UnknownTaskType {
        /// The task's index in its trial.
        task: usize,
        /// The task type.
        task_type: usize,
        /// The number of task types of the PET.
        n_types: usize,
    },
    /// A configuration could not be parsed as TOML of the expected shape.
    #[error("{file}:{line}: {message}")]
    Toml {
        /// The configuration file's name.
        file: String,
        /// The 1-based line of the error (0 when TOML gave no position).
        line: usize,
        /// The parser's message.
        message: String,
    },
    /// A configuration value is out of its valid range.
    #[error("{}field '{field}': expected {expected}, found {found}", file_prefix(.file))]
    InvalidConfig {
        /// The configuration file's name (empty when unknown: the message then starts with
        /// the field, for a caller to prefix with the file).
        file: String,
        /// The field, as written in the TOML (`workload.rate`).
        field: String,
        /// What is required.
        expected: String,
        /// What was found.
        found: String,
    },
    /// A parameter is out of its valid range: a field of [`crate::ArrivalSpec`] (see
    /// [`crate::ArrivalSpec::validate`]) or a histogram bin width.
    #[error("invalid {field}: expected {expected}, found {found}")]
    InvalidSpec {
        /// The parameter (a field of [`crate::ArrivalSpec`], `burst.*`, or `bin_width`).
        field: &'static str,
        /// What is required.
        expected: &'static str,
        /// What was found.
        found: String,
    },
}

impl WorkloadError {
    /// Shorthand for a [`WorkloadError::Field`] error.
    #[cfg(feature = "files")]
    pub(crate) fn field(
        file: &str,
        line: usize,
        field: &'static str,
        expected: impl Into<String>,
        found: &str,
    ) -> Self {
        WorkloadError::Field {
            file: file.to_owned(),
            line,
            field,
            expected: expected.into(),
            found: quote(found),
        }
    }

    /// Shorthand for a [`WorkloadError::Syntax`] error.
    #[cfg(feature = "files")]
    pub(crate) fn syntax(file: &str, line: usize, message: impl Into<String>) -> Self {
        WorkloadError::Syntax {
            file: file.to_owned(),
            line,
            message: message.into(),
        }
    }

    /// The 1-based line an error points at, when it points at one.
    pub fn line(&self) -> Option<usize> {
        match self {
            WorkloadError::Field { line, .. }
            | WorkloadError::Syntax { line, .. }
            | WorkloadError::DuplicateBlock { line, .. }
            | WorkloadError::InvalidPmf { line, .. }
            | WorkloadError::ArrivalAfterDeadline { line, .. }
            | WorkloadError::Toml { line, .. } => Some(*line),
            _ => None,
        }
    }

    /// The name of the field an error points at, when it points at one.
    pub fn field_name(&self) -> Option<&str> {
        match self {
            WorkloadError::Field { field, .. } => Some(field),
            WorkloadError::InvalidConfig { field, .. } => Some(field),
            WorkloadError::InvalidSpec { field, .. } => Some(field),
            _ => None,
        }
    }
}
