//! What happened inside a run, drawn from its traces ([`runner::trace`], docs/trace.md):
//!
//! * [`timeline`]: the timeline figure of a traced trial, machines against time, one bar per
//!   executed task coloured by its outcome, drops and expiries marked (SVG and PNG);
//! * [`html`]: the interactive report of a run folder, one self-contained HTML file (the
//!   summary with each measure's definition, the timeline with zoom, pan and a tooltip per
//!   task, robustness and the oversubscription level over time, outcomes per task type);
//! * [`render`]: SVG to PNG with an embedded DejaVu Sans (no system font needed).
//!
//! The timeline and the PNG rendering are figures like the sweeps' and can move with them.

pub mod html;
pub mod render;
pub mod timeline;

use std::path::{Path, PathBuf};

/// What can go wrong drawing a figure or writing a report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file (the runner's error: it names the file).
    #[error(transparent)]
    Run(#[from] runner::RunError),
    /// A file that cannot be read as what it should be.
    #[error("{}: {message}", path.display())]
    Data {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Drawing failed.
    #[error("drawing {what}: {message}")]
    Draw {
        /// The figure.
        what: String,
        /// The backend's message.
        message: String,
    },
}

impl Error {
    pub(crate) fn data(path: &Path, message: impl std::fmt::Display) -> Self {
        Error::Data {
            path: path.to_path_buf(),
            message: message.to_string(),
        }
    }
}

/// The folder of a run's traces: `DIR/trace`.
pub fn trace_dir(run_dir: &Path) -> PathBuf {
    run_dir.join("trace")
}

/// The trials that have a per-task trace in `trace_dir` (`tasks-<k>.csv`), in order; none
/// when there is no `trace_dir`. A `trace_dir` that cannot be listed (not a folder, a loop of
/// symlinks, no permission) is an error naming it.
pub fn traced_trials(trace_dir: &Path) -> Result<Vec<u64>, Error> {
    let entries = match std::fs::read_dir(trace_dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(Error::data(
                trace_dir,
                format!("cannot list the traces: {e}"),
            ));
        }
    };
    let mut v = Vec::new();
    for e in entries {
        let e = e.map_err(|e| Error::data(trace_dir, format!("cannot list the traces: {e}")))?;
        let name = e.file_name();
        let k = name.to_str().and_then(|n| {
            n.strip_prefix("tasks-")?
                .strip_suffix(".csv")?
                .parse::<u64>()
                .ok()
        });
        v.extend(k);
    }
    v.sort_unstable();
    Ok(v)
}

/// The timeline figure of trial `k` in `trace_dir`: `timeline-<k>.svg` and `.png`.
pub fn timeline_paths(trace_dir: &Path, k: u64) -> (PathBuf, PathBuf) {
    (
        trace_dir.join(format!("timeline-{k}.svg")),
        trace_dir.join(format!("timeline-{k}.png")),
    )
}

/// Draws the timeline of traced trial `k` from `trace_dir/tasks-<k>.csv` and writes
/// `timeline-<k>.svg` and `timeline-<k>.png` beside it ([`timeline_paths`]).
pub fn write_timeline(
    trace_dir: &Path,
    machines: &[String],
    k: u64,
    title: &str,
) -> Result<(), Error> {
    let t = timeline::Timeline::from_csv(
        title.to_owned(),
        machines.to_vec(),
        &runner::trace::tasks_path(trace_dir, k),
    )?;
    let (svg, png) = timeline_paths(trace_dir, k);
    t.write(&svg, &png)
}
