//! `prunesim report` and the reports a run writes: the HTML report of a run folder or of a
//! sweep's output folder, and the timeline figures drawn on request.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// `run --timelines` and `report --timelines`: the timeline figure of each traced trial of the
/// run in `dir`, `jobs` at a time (0: all cores; threads live in the binaries and the runner).
pub(crate) fn draw_timelines(dir: &Path, jobs: usize) -> Result<()> {
    let t =
        report::timelines(dir).with_context(|| format!("the timelines of {}", dir.display()))?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(jobs).build()?;
    pool.install(|| {
        use rayon::prelude::*;
        t.titles
            .par_iter()
            .try_for_each(|(k, title)| report::write_timeline(&t.trace_dir, &t.machines, *k, title))
    })?;
    if t.titles.is_empty() {
        tracing::warn!(
            "{}: no traces, so no timelines: run with --trace",
            t.trace_dir.display()
        );
    }
    Ok(())
}

/// Whether `path` holds nothing or a page `prunesim report` wrote (its head names prunesim
/// as its generator; pages of earlier versions by their titles).
pub(crate) fn is_report_page(path: &Path) -> bool {
    if std::fs::symlink_metadata(path).is_err() {
        return true;
    }
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    use std::io::Read;
    if file.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    [
        "<meta name=\"generator\" content=\"prunesim\">",
        " - prunesim report</title>",
        "<title>Sweeps: ",
    ]
    .iter()
    .any(|m| head.contains(m))
}

/// `prunesim report DIR`, and `run --report`: the HTML report of a run folder.
pub(crate) fn write_report(dir: &Path, output: Option<&Path>) -> Result<PathBuf> {
    // A traced point of a sweep: the report of its sweep, at the point's section.
    if dir.is_dir() && !dir.join("summary.json").exists() {
        if let Some((sweep_dir, anchor)) = report::sweep::point_folder(dir) {
            let out = write_sweep_report(&sweep_dir, output)?;
            eprintln!("the point: {}#{anchor}", out.display());
            return Ok(out);
        }
        if !report::sweep::sweep_ids(dir)
            .with_context(|| format!("the report of {}", dir.display()))?
            .is_empty()
        {
            return write_sweep_report(dir, output);
        }
    }
    let out = output.map_or_else(|| dir.join(report::html::REPORT_FILE), Path::to_path_buf);
    write_run_report(dir, &out, &out)?;
    Ok(out)
}

/// The report of the run whose files are in `dir`, written to `out`; `shown` is where it
/// ends up (a run writes its folder's files in a staging folder first).
pub(crate) fn write_run_report(dir: &Path, out: &Path, shown: &Path) -> Result<()> {
    let stats = report::html::write_report(dir, out)
        .with_context(|| format!("the report of {}", shown.display()))?;
    if !stats.stale.is_empty() {
        tracing::warn!(
            "{}: left out the traces of trials {:?}: beyond the summary's trials (another run's files)",
            report::trace_dir(dir).display(),
            stats.stale
        );
    }
    eprintln!(
        "report: {} ({} traced trials, {} task rows, {:.1} MB)",
        shown.display(),
        stats.trials,
        stats.tasks,
        stats.bytes as f64 / 1e6
    );
    Ok(())
}

/// The report of a sweep's output folder (every sweep in it), DIR/report.html by default.
fn write_sweep_report(dir: &Path, output: Option<&Path>) -> Result<PathBuf> {
    let out = output.map_or_else(|| dir.join(report::html::REPORT_FILE), Path::to_path_buf);
    let stats = report::sweep::write_sweep_report(dir, &out)
        .with_context(|| format!("the report of the sweeps in {}", dir.display()))?;
    eprintln!(
        "report: {} (sweeps {}: {} points, {} timelines, {:.1} MB)",
        out.display(),
        stats.sweeps.join(", "),
        stats.points,
        stats.timelines,
        stats.bytes as f64 / 1e6
    );
    Ok(out)
}
