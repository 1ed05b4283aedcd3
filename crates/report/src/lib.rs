//! What happened inside a run, drawn from its traces ([`runner::trace`], docs/trace.md):
//!
//! * [`timeline`]: the timeline figure of a traced trial, machines against time, one bar per
//!   executed task coloured by its outcome, drops and expiries marked (SVG and PNG), drawn on
//!   request ([`timelines`] lists what a run folder's traces give);
//! * [`html`]: the interactive report of a run folder, one self-contained HTML file (the
//!   summary with each measure's definition, the timeline with zoom, pan and a tooltip per
//!   task, robustness and the oversubscription level over time, outcomes per task type);
//! * [`sweep`]: the report of a sweep's output folder, one HTML page whose figure's points
//!   link to each point's trials and traced timelines;
//! * [`render`]: SVG to PNG with an embedded DejaVu Sans (no system font needed).
//!
//! The timeline and the PNG rendering are figures like the sweeps' and can move with them.

pub mod html;
pub mod render;
pub mod sweep;
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

/// A CSV file of the run's (checked as an input: a regular file within the size limit) and
/// its header.
pub(crate) fn csv_with_header(
    path: &Path,
) -> Result<(csv::Reader<std::fs::File>, Vec<String>), Error> {
    runner::files::check_input(path)?;
    let mut r = csv::Reader::from_path(path).map_err(|e| Error::data(path, e))?;
    let header = r
        .headers()
        .map_err(|e| Error::data(path, e))?
        .iter()
        .map(str::to_owned)
        .collect();
    Ok((r, header))
}

/// A run folder's `summary.json`, with the machines and the trials it counts (a trace may
/// not name others).
pub(crate) fn run_summary(run_dir: &Path) -> Result<(serde_json::Value, u64, u64), Error> {
    let summary_path = run_dir.join("summary.json");
    let summary = html::read_json(&summary_path)?.ok_or_else(|| {
        Error::data(
            &summary_path,
            "missing: not a folder that prunesim run --out wrote",
        )
    })?;
    let count = |field: &str| {
        summary
            .pointer(field)
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| {
                Error::data(
                    &summary_path,
                    format!("no whole number at {field}: not a summary prunesim run wrote"),
                )
            })
    };
    let (n_machines, n_trials) = (count("/pet/machines")?, count("/trials")?);
    Ok((summary, n_machines, n_trials))
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

/// The timeline figures a run folder's traces give: one per traced trial of the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timelines {
    /// The run's trace folder (`DIR/trace`).
    pub trace_dir: PathBuf,
    /// The run's machines, by name (`manifest.json`; `m<i>` for those it does not name).
    pub machines: Vec<String>,
    /// Each traced trial and its figure's title: the experiment, the trial, its robustness.
    pub titles: Vec<(u64, String)>,
    /// Trace files left out: of trials beyond the summary's trial count (another run's).
    pub stale: Vec<u64>,
}

/// What [`write_timeline`] draws for the run in `run_dir`: its traced trials with their
/// titles, read from `summary.json`, `manifest.json` and `trials.csv`.
pub fn timelines(run_dir: &Path) -> Result<Timelines, Error> {
    let (summary, n_machines, n_trials) = run_summary(run_dir)?;
    let n_machines = usize::try_from(n_machines).unwrap_or(usize::MAX);
    let experiment = summary
        .get("experiment")
        .and_then(|v| v.as_str())
        .unwrap_or("prunesim run");
    let mut machines: Vec<String> = html::read_json(&run_dir.join("manifest.json"))?
        .as_ref()
        .and_then(|m| m.get("machines"))
        .and_then(|m| serde_json::from_value(m.clone()).ok())
        .unwrap_or_default();
    machines.truncate(n_machines);
    while machines.len() < n_machines {
        machines.push(format!("m{}", machines.len()));
    }
    let trace_dir = trace_dir(run_dir);
    let (ks, stale): (Vec<u64>, Vec<u64>) = traced_trials(&trace_dir)?
        .into_iter()
        .partition(|&k| k < n_trials);
    // Each trial's robustness and counted tasks, from trials.csv.
    let trials_path = run_dir.join("trials.csv");
    let (mut r, header) = csv_with_header(&trials_path)?;
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| Error::data(&trials_path, format!("no column {name}")))
    };
    let (c_trial, c_robustness, c_counted) = (col("trial")?, col("robustness")?, col("counted")?);
    let mut measures = std::collections::BTreeMap::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| Error::data(&trials_path, e))?;
        let field = |c: usize| rec.get(c).unwrap_or_default();
        let bad =
            |what: &str| Error::data(&trials_path, format!("{what} of a trial is not a number"));
        let k: u64 = field(c_trial).parse().map_err(|_| bad("the number"))?;
        let robustness: f64 = field(c_robustness)
            .parse()
            .map_err(|_| bad("the robustness"))?;
        let counted: u64 = field(c_counted)
            .parse()
            .map_err(|_| bad("the counted tasks"))?;
        measures.insert(k, (robustness, counted));
    }
    let mut titles = Vec::new();
    for k in ks {
        let (robustness, counted) = measures.get(&k).copied().ok_or_else(|| {
            Error::data(
                &trials_path,
                format!("no row of trial {k}, which is traced"),
            )
        })?;
        titles.push((
            k,
            format!("{experiment}, trial {k}: {robustness:.1}% of {counted} counted tasks on time"),
        ));
    }
    Ok(Timelines {
        trace_dir,
        machines,
        titles,
        stale,
    })
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
