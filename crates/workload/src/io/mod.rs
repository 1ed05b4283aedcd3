//! Readers and writers of PETs and workloads: the paper's `.etc` (PET) and `.dat` (arrival
//! trial) files, a CSV of measured execution times (thesis 3.1) and a CSV workload.
//!
//! Every `read_*` function has a `parse_*` twin taking the text and a name to use in error
//! messages, so tests and fuzzers need no files. Readers accept `\n`, `\r\n` and lone `\r`
//! line ends and surrounding white space, and never panic: malformed input gives a
//! [`WorkloadError`] naming the file, the 1-based line, the field and what was expected.
//! The formats and what the readers tolerate are described in [`etc`], [`dat`] and
//! [`csv_files`]. Writers write `\n` line ends and shortest round-trip decimal numbers, so reading what was
//! written gives back the same values bit for bit.

pub mod csv_files;
pub mod dat;
pub mod etc;

use std::path::Path;

pub use csv_files::{
    AutoTick, BinWidth, COLLAPSE_TOLERANCE, Collapse, SECONDS_HINT_TICKS, SamplesOptions,
    auto_tick, format_workload_csv, looks_like_seconds, parse_samples_csv,
    parse_samples_csv_options, parse_samples_csv_with, parse_workload_csv,
    parse_workload_csv_with_names, parse_workload_csv_with_tick, read_auto_tick, read_samples_csv,
    read_samples_csv_options, read_samples_csv_with, read_workload_csv,
    read_workload_csv_with_names, read_workload_csv_with_tick, write_workload_csv,
};
pub use dat::{
    ArrivalRepair, DatOptions, DatReport, MIN_TASKS_FOR_SLACK, SlackAnomaly, format_dat, parse_dat,
    parse_dat_with, read_dat, read_dat_with, write_dat,
};
pub use etc::{BlockReport, EtcReport, format_etc, parse_etc, read_etc, write_etc};

use pmf::Tick;

use crate::error::WorkloadError;

/// The most ticks a reader lets the PMFs of one PET span together (PMFs are stored densely,
/// one `f64` per tick: 512 MiB). Each PMF is already limited to [`pmf::prec::MAX_SPAN`]
/// ticks; without a limit on the sum, a file of a few hundred bytes asking for many such
/// blocks made the reader allocate and scan gigabytes (found by `fuzz/`, target `etc`).
pub const MAX_PET_TICKS: u64 = pmf::prec::MAX_SPAN;

/// Adds a block's span to the running total of a PET, or says why the PET is too wide.
pub(crate) fn add_span(
    total: &mut u64,
    span: u64,
    file: &str,
    line: usize,
    task_type: &str,
    machine: &str,
) -> Result<(), WorkloadError> {
    if span > pmf::prec::MAX_SPAN {
        // Too wide on its own: the PMF constructor rejects it, before allocating, with its
        // own message.
        return Ok(());
    }
    *total = total.saturating_add(span);
    if *total > MAX_PET_TICKS {
        return Err(WorkloadError::syntax(
            file,
            line,
            format!(
                "block of task type {task_type} on machine {machine}: its times span {span} ticks, \
                 bringing the PET to {} ticks; expected at most {MAX_PET_TICKS} ticks over all \
                 blocks (execution-time PMFs are stored densely)",
                *total
            ),
        ));
    }
    Ok(())
}

/// The largest input file the readers read by default: 1 GiB. The PET, trial and samples
/// files of real systems are far smaller (the paper's PET is 60 kB, a 10^6-task trial about
/// 30 MB); a caller with a tighter policy checks first with [`check_input_file`].
/// [`MAX_INPUT_ENV`] overrides it ([`max_input_bytes`]).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The environment variable that sets the largest input file the readers read, in bytes
/// (a whole number, e.g. `4294967296` for 4 GiB), in place of [`MAX_INPUT_BYTES`].
pub const MAX_INPUT_ENV: &str = "PRUNESIM_MAX_INPUT_BYTES";

/// The largest input file the readers read: [`MAX_INPUT_ENV`] when it is set, else
/// [`MAX_INPUT_BYTES`]; an error naming the variable when it is set to anything but a whole
/// number of bytes.
pub fn max_input_bytes_checked() -> Result<u64, WorkloadError> {
    match std::env::var_os(MAX_INPUT_ENV) {
        None => Ok(MAX_INPUT_BYTES),
        Some(v) => v
            .to_str()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .ok_or_else(|| WorkloadError::InvalidConfig {
                file: String::new(),
                field: format!("the environment variable {MAX_INPUT_ENV}"),
                expected: "a whole number of bytes".into(),
                found: format!("{v:?}"),
            }),
    }
}

/// The largest input file the readers read: [`max_input_bytes_checked`], or
/// [`MAX_INPUT_BYTES`] when the variable is not a number (the command line refuses that
/// before it reads anything).
pub fn max_input_bytes() -> u64 {
    max_input_bytes_checked().unwrap_or(MAX_INPUT_BYTES)
}

/// Checks that `path` is a regular file (not a folder, a FIFO or a device, whose reading may
/// never end) of at most `max_bytes`; returns its size. Nothing is opened: a FIFO is not
/// waited on.
pub fn check_input_file(path: &Path, max_bytes: u64) -> Result<u64, WorkloadError> {
    let meta = std::fs::metadata(path).map_err(|error| WorkloadError::Io {
        path: path.to_owned(),
        error,
    })?;
    if !meta.is_file() {
        return Err(WorkloadError::NotAFile {
            path: path.to_owned(),
            kind: file_kind(&meta),
        });
    }
    if meta.len() > max_bytes {
        return Err(WorkloadError::TooLarge {
            path: path.to_owned(),
            size: meta.len(),
            max: max_bytes,
        });
    }
    Ok(meta.len())
}

/// What a path's metadata describes, for messages: "a folder", "a FIFO", "a character
/// device", "a block device", "a socket", "a regular file" or "not a file".
pub fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    if t.is_file() {
        return "a regular file";
    }
    if t.is_dir() {
        return "a folder";
    }
    if t.is_symlink() {
        return "a symlink";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

/// Reads a whole regular file of at most [`max_input_bytes`] as UTF-8 text; the error names
/// the file. Every reader of this crate reads through it; configuration files should too.
pub fn read_text(path: &Path) -> Result<String, WorkloadError> {
    use std::io::Read;
    let max = max_input_bytes();
    check_input_file(path, max)?;
    let io = |error| WorkloadError::Io {
        path: path.to_owned(),
        error,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    // The file may have grown since it was checked: read at most one byte past the limit.
    let mut text = String::new();
    file.take(max.saturating_add(1))
        .read_to_string(&mut text)
        .map_err(io)?;
    if text.len() as u64 > max {
        return Err(WorkloadError::TooLarge {
            path: path.to_owned(),
            size: text.len() as u64,
            max,
        });
    }
    Ok(text)
}

/// Writes a whole file; the error names the file. Only a regular file is written (a symlink
/// to one is followed): a folder, a FIFO, a device or a socket at `path` is refused.
pub(crate) fn write_text(path: &Path, text: &str) -> Result<(), WorkloadError> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            return Err(WorkloadError::NotAFile {
                path: path.to_owned(),
                kind: file_kind(&meta),
            });
        }
    }
    std::fs::write(path, text).map_err(|error| WorkloadError::Io {
        path: path.to_owned(),
        error,
    })
}

/// The name used for a file in error messages: its file name, or the whole path when it has
/// none.
pub(crate) fn display_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Splits text into `(1-based line number, line)`, treating `\r\n`, `\n` and a lone `\r` each
/// as one line end.
pub(crate) fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text;
    let mut number = 0;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        number += 1;
        match rest.find(['\r', '\n']) {
            None => {
                let line = rest;
                rest = "";
                Some((number, line))
            }
            Some(i) => {
                let line = &rest[..i];
                let skip = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + skip..];
                Some((number, line))
            }
        }
    })
}

/// The largest time a file may give, in time units: `2^52`, the tick range of the `pmf`
/// crate ([`pmf::MAX_TICK`]), within which every tick and every sum of two is exact.
pub const MAX_TIME: f64 = pmf::MAX_TICK as f64;

/// The longest execution time a PET may give, in ticks: `2^26` ([`pmf::prec::MAX_SPAN`], the
/// widest PMF a queue's completion times can hold). Real PETs are far below it (the paper's
/// longest time is under 1,000 units; measured milliseconds up to 18 hours fit).
pub const MAX_EXECUTION_TICKS: Tick = pmf::prec::MAX_SPAN as Tick;

/// Parses a finite real number of at most [`MAX_TIME`] in magnitude.
pub(crate) fn parse_finite(
    file: &str,
    line: usize,
    field: &'static str,
    s: &str,
) -> Result<f64, WorkloadError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_TIME => Ok(v),
        _ => Err(WorkloadError::field(
            file,
            line,
            field,
            "a number within [-2^52, 2^52] (the tick range)",
            s,
        )),
    }
}

/// Parses a finite real number `>= 0` that is not a time (a probability, a weight).
pub(crate) fn parse_non_negative_number(
    file: &str,
    line: usize,
    field: &'static str,
    s: &str,
) -> Result<f64, WorkloadError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(WorkloadError::field(
            file,
            line,
            field,
            "a non-negative number",
            s,
        )),
    }
}

/// Parses a finite real number in `[0, MAX_TIME]`.
pub(crate) fn parse_non_negative(
    file: &str,
    line: usize,
    field: &'static str,
    s: &str,
) -> Result<f64, WorkloadError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=MAX_TIME).contains(&v) => Ok(v),
        _ => Err(WorkloadError::field(
            file,
            line,
            field,
            "a non-negative number of at most 2^52 (the tick range)",
            s,
        )),
    }
}

/// Parses an index (a non-negative integer).
pub(crate) fn parse_index(
    file: &str,
    line: usize,
    field: &'static str,
    s: &str,
) -> Result<usize, WorkloadError> {
    s.parse::<usize>()
        .map_err(|_| WorkloadError::field(file, line, field, "a non-negative integer", s))
}

#[cfg(test)]
mod tests {
    use super::numbered_lines;

    #[test]
    fn every_line_end_counts_once() {
        let lines: Vec<(usize, &str)> = numbered_lines("a\r\nb\rc\n\nd").collect();
        assert_eq!(lines, [(1, "a"), (2, "b"), (3, "c"), (4, ""), (5, "d")]);
        assert_eq!(numbered_lines("").count(), 0);
        assert_eq!(numbered_lines("x\n").collect::<Vec<_>>(), [(1, "x")]);
    }
}
