//! Whether a rerun reproduced its run: the output files of the two runs compared byte for
//! byte, and CSVs that differ counted row by row and value by value.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use runner::manifest::{RUN_FILES, trace_file_trial};
use runner::{Prepared, RunManifest};

/// The output files of a run of `trials` trials in its folder (its [`RUN_FILES`] but the
/// report, and the trace files a run writes for trials below `trials`), each as its path
/// relative to the folder and its bytes; the files not there are left out, and so is
/// anything else in `trace/` (a trace of a trial beyond the run's is not the run's).
pub(crate) fn snapshot(dir: &Path, trials: u64) -> Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut names: Vec<PathBuf> = RUN_FILES
        .iter()
        .filter(|f| **f != report::html::REPORT_FILE)
        .map(PathBuf::from)
        .collect();
    let trace = report::trace_dir(dir);
    match std::fs::read_dir(&trace) {
        Ok(entries) => {
            let mut traced = Vec::new();
            for e in entries {
                let e = e.with_context(|| format!("listing {}", trace.display()))?;
                let name = e.file_name();
                let written = name
                    .to_str()
                    .and_then(trace_file_trial)
                    .is_some_and(|k| k < trials);
                if written && e.file_type().is_ok_and(|t| t.is_file()) {
                    traced.push(PathBuf::from("trace").join(e.file_name()));
                }
            }
            traced.sort();
            names.extend(traced);
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("listing {}", trace.display())),
    }
    let mut files = Vec::new();
    for name in names {
        let path = dir.join(&name);
        match std::fs::read(&path) {
            Ok(bytes) => files.push((name, bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        }
    }
    Ok(files)
}

/// A run folder read back for a rerun: the experiment prepared as it ran, and its output
/// files as they are now (read before the rerun may write over them).
pub(crate) struct Reread {
    /// The run's folder.
    pub(crate) run_dir: PathBuf,
    /// Its manifest.
    pub(crate) manifest: RunManifest,
    /// The run, prepared again from its manifest and inputs.
    pub(crate) prepared: Prepared,
    /// What reading its trial files repaired.
    pub(crate) repairs: super::Repairs,
    /// Its output files and their bytes ([`snapshot`]).
    pub(crate) before: Vec<(PathBuf, Vec<u8>)>,
    /// Whether it drew its timelines (`--timelines`): its folder has them.
    pub(crate) timelines: bool,
}

/// Reads the run folder `path` (the folder or its `manifest.json`) for a rerun: refused
/// when incomplete; a build other than this one is a warning naming `what`.
pub(crate) fn reread(path: &Path, what: &str) -> Result<Reread> {
    let manifest = RunManifest::load(path)?;
    let run_dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
    };
    if !manifest.complete {
        super::run_folder::check_complete(&run_dir, "rerun")?;
    }
    for d in manifest.build_differences() {
        tracing::warn!("{what} was made by another build: {d}; results may differ");
    }
    let mut repairs = super::Repairs::default();
    let tick = manifest.experiment.workload.tick;
    let prepared = manifest
        .prepare(|files, pet| super::inputs::read_trials(files, pet, tick, &mut repairs))?;
    let before = snapshot(&run_dir, prepared.trials)?;
    let timelines = before.iter().any(|(p, _)| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with("timeline-"))
    });
    Ok(Reread {
        run_dir,
        manifest,
        prepared,
        repairs,
        before,
        timelines,
    })
}

/// `experiment.toml` without its leading comment, which names the folder it was written to.
fn without_header(bytes: &[u8]) -> &[u8] {
    let mut rest = bytes;
    while rest.first() == Some(&b'#') {
        rest = match rest.iter().position(|&b| b == b'\n') {
            Some(i) => &rest[i + 1..],
            None => &[],
        };
    }
    rest
}

/// A manifest without what its folder adds to the run (whether it finished, the files it
/// wrote, which the report adds to): the run itself; the bytes when it is not JSON.
fn run_of(bytes: &[u8]) -> Result<serde_json::Value, Vec<u8>> {
    let mut v: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| bytes.to_vec())?;
    if let Some(o) = v.as_object_mut() {
        o.remove("complete");
        o.remove("files");
    }
    Ok(v)
}

/// How two CSV texts differ: rows (by position, the header included) and values that differ,
/// of the rows and values of the longer; `None` when either does not parse.
fn csv_difference(a: &[u8], b: &[u8]) -> Option<String> {
    let rows = |bytes: &[u8]| -> Option<Vec<csv::ByteRecord>> {
        csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes)
            .byte_records()
            .collect::<Result<_, _>>()
            .ok()
    };
    let (a, b) = (rows(a)?, rows(b)?);
    let (mut rows_differ, mut values_differ, mut values) = (0usize, 0usize, 0usize);
    let empty = csv::ByteRecord::new();
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).unwrap_or(&empty), b.get(i).unwrap_or(&empty));
        let width = x.len().max(y.len());
        values += width;
        let differ = (0..width).filter(|&j| x.get(j) != y.get(j)).count();
        values_differ += differ;
        rows_differ += usize::from(differ > 0);
    }
    Some(format!(
        "{rows_differ} of {} rows, {values_differ} of {values} values differ",
        a.len().max(b.len())
    ))
}

/// The verdict of a rerun of `trials` trials whose run left `before` ([`snapshot`]) and
/// whose outputs are in `after_dir`: `Ok` with "identical: ..." when every file is the same, else `Err` with the
/// files that differ.
pub(crate) fn verdict(
    before: &[(PathBuf, Vec<u8>)],
    after_dir: &Path,
    trials: u64,
) -> Result<String> {
    let after = snapshot(after_dir, trials)?;
    let mut differences = Vec::new();
    for (name, old) in before {
        let Some((_, new)) = after.iter().find(|(n, _)| n == name) else {
            differences.push(format!("{} was not written again", name.display()));
            continue;
        };
        let same = if name.as_os_str() == "experiment.toml" {
            without_header(old) == without_header(new)
        } else if name.as_os_str() == "manifest.json" {
            run_of(old) == run_of(new)
        } else {
            old == new
        };
        if same {
            continue;
        }
        let how = match name.extension().and_then(|e| e.to_str()) {
            Some("csv") => csv_difference(old, new).map(|d| format!(" ({d})")),
            _ => None,
        };
        differences.push(format!(
            "{} differs{}",
            name.display(),
            how.unwrap_or_default()
        ));
    }
    for (name, _) in &after {
        if !before.iter().any(|(n, _)| n == name) {
            differences.push(format!("{} is new", name.display()));
        }
    }
    if differences.is_empty() {
        Ok("identical: every output file reproduced bit for bit".to_owned())
    } else {
        anyhow::bail!("not reproduced: {}", differences.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_differences_are_counted_by_row_and_value() {
        let a = b"trial,x,y\n0,1,2\n1,3,4\n";
        assert_eq!(
            csv_difference(a, b"trial,x,y\n0,1,2\n1,3,5\n").unwrap(),
            "1 of 3 rows, 1 of 9 values differ"
        );
        assert_eq!(
            csv_difference(a, b"trial,x,y\n0,1,2\n").unwrap(),
            "1 of 3 rows, 3 of 9 values differ"
        );
        assert_eq!(without_header(b"# a\n# b\nname = 1\n"), b"name = 1\n");
    }
}
