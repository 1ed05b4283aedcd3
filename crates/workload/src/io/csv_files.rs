//! Generic CSV inputs: measured execution times (turned into a PET) and workloads.
//!
//! # Measured execution times (thesis 3.1)
//! ```text
//! task_type,machine,execution_time
//! encode,gpu-1,12.5
//! encode,cpu-2,40.1
//! ```
//! A header naming the three columns (in any order; no other column) is required. Task types
//! and machines are identifiers: when every identifier of a column is a non-negative integer,
//! the integer is the index (and all of `0..=max` must appear); otherwise indices follow the
//! order of first appearance and the identifiers become the names. Each (task type, machine)
//! pair needs at least one sample; its PMF is the histogram of its samples with the chosen bin
//! width, each bin valued at its upper edge ([`pmf::BinValue::Upper`]) unless chosen otherwise:
//! how an operator builds a PET from a real system's history. As for `.etc` files, the
//! histograms together may span at most [`super::MAX_PET_TICKS`] ticks.
//!
//! # Times in real units
//! Times measured in seconds or milliseconds need not be whole ticks: [`SamplesOptions::tick`]
//! (the `[workload] tick` key) is the length of one tick in the unit of the file's times, and
//! a time `x` of the file is `x / tick` ticks (1, the default: the file's times are ticks;
//! with times in seconds, `tick = 0.001` makes one tick a millisecond). The same `tick`
//! applies to the arrivals and deadlines of a workload CSV
//! ([`parse_workload_csv_with_tick`]), so measured times and the workload share one clock.
//! The paper's `.etc` and `.dat` files are on the tick grid already and are read as they are.
//! With the default tick of 1, a file whose times look like seconds is read as asked but
//! logged with `tracing::warn!` ([`looks_like_seconds`]: at least half of the execution
//! times, or of the tasks' deadlines minus arrivals, below [`SECONDS_HINT_TICKS`] ticks, and
//! some not a whole number): on a grid of whole ticks such times lose most of their
//! resolution. Times of many ticks with fractions (milliseconds, say) are read without one.
//!
//! The bin width is in ticks. [`BinWidth::Auto`] (the default when none is given) chooses it
//! per (task type, machine) pair from its samples ([`pmf::auto_bin_width`]): the smallest
//! whole number of ticks that spreads the pair's range over at most [`pmf::AUTO_BINS`] (200)
//! bins, one tick when the range is at most 200 ticks. A pair whose times span 3 to 3,000
//! ticks gets 15-tick bins: each time moves by less than 15 ticks (0.5% of the range), so the
//! PMF keeps the samples' quantiles, mean and modes, and it has at most 201 non-zero bins
//! however finely the times were measured. [`BinWidth::Ticks`] sets one width for every pair.
//!
//! # Workloads
//! ```text
//! arrival,task_type,deadline
//! 1.41,10,176.84
//! ```
//! A header naming the three columns (any order) is required. `task_type` is a row index of
//! the PET, or, with the `_with_names` readers, also a task type name. A task arriving after
//! its deadline is an error. Tasks are sorted by arrival (stable).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ndarray::Array2;
use pmf::{BinValue, Tick};

use super::{add_span, display_name, parse_finite, parse_non_negative, read_text, write_text};
use crate::arrivals::{Task, Trial};
use crate::error::{WorkloadError, quote};
use crate::pet::Pet;

/// Maps a CSV crate error to ours, keeping the line.
fn csv_error(file: &str, err: &csv::Error) -> WorkloadError {
    let line = err.position().map_or(0, |p| p.line() as usize);
    let message = match err.kind() {
        csv::ErrorKind::UnequalLengths {
            expected_len, len, ..
        } => format!("expected {expected_len} fields like the header, found {len}"),
        csv::ErrorKind::Utf8 { .. } => "the line is not valid UTF-8".to_owned(),
        _ => err.to_string(),
    };
    WorkloadError::syntax(file, line, message)
}

/// Finds the required columns of a header; unknown or repeated columns are errors.
fn columns<const N: usize>(
    file: &str,
    headers: &csv::StringRecord,
    names: [&'static str; N],
) -> Result<[usize; N], WorkloadError> {
    let mut found: [Option<usize>; N] = [None; N];
    for (i, h) in headers.iter().enumerate() {
        match names.iter().position(|&n| n == h) {
            Some(k) if found[k].is_none() => found[k] = Some(i),
            Some(_) => {
                return Err(WorkloadError::syntax(
                    file,
                    1,
                    format!("column '{h}' appears twice in the header"),
                ));
            }
            None => {
                return Err(WorkloadError::syntax(
                    file,
                    1,
                    format!(
                        "unknown column '{}' in the header: expected {}",
                        quote(h),
                        names.join(", ")
                    ),
                ));
            }
        }
    }
    let mut out = [0; N];
    for k in 0..N {
        out[k] = found[k].ok_or_else(|| {
            WorkloadError::syntax(
                file,
                1,
                format!(
                    "the header lacks column '{}': expected a header naming {}",
                    names[k],
                    names.join(", ")
                ),
            )
        })?;
    }
    Ok(out)
}

fn reader(text: &str) -> csv::Reader<&[u8]> {
    csv::ReaderBuilder::new()
        .has_headers(true)
        .trim(csv::Trim::All)
        .from_reader(text.as_bytes())
}

/// Identifiers of one column, resolved to indices (see the module docs).
struct Ids {
    /// Number of indices: `max + 1` for integer identifiers, else the distinct identifiers.
    len: usize,
    /// The names, for non-integer identifiers.
    names: Option<Vec<String>>,
    index: HashMap<String, usize>,
}

impl Ids {
    fn resolve<'a>(ids: impl Iterator<Item = &'a str> + Clone) -> Ids {
        let mut index = HashMap::new();
        if ids.clone().all(|s| s.parse::<usize>().is_ok()) {
            let mut len = 0;
            for s in ids {
                let v = s.parse::<usize>().unwrap_or(0);
                len = len.max(v.saturating_add(1));
                index.insert(s.to_owned(), v);
            }
            return Ids {
                len,
                names: None,
                index,
            };
        }
        let mut names = Vec::new();
        for s in ids {
            if !index.contains_key(s) {
                index.insert(s.to_owned(), names.len());
                names.push(s.to_owned());
            }
        }
        Ids {
            len: names.len(),
            names: Some(names),
            index,
        }
    }

    fn name(&self, i: usize) -> String {
        match &self.names {
            Some(n) => n[i].clone(),
            None => i.to_string(),
        }
    }

    /// All names; call only once every index is known to be used (so `len` is bounded by the
    /// input's size).
    fn into_names(self) -> Vec<String> {
        match self.names {
            Some(n) => n,
            None => (0..self.len).map(|i| i.to_string()).collect(),
        }
    }
}

/// The bin width of the histograms of a samples CSV, in ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BinWidth {
    /// Per (task type, machine) pair, [`pmf::auto_bin_width`] of its samples: at most
    /// [`pmf::AUTO_BINS`] bins over their range (see the module docs).
    #[default]
    Auto,
    /// This many ticks (at least 1) for every pair.
    Ticks(Tick),
}

/// How a CSV of measured execution times becomes a PET (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SamplesOptions {
    /// The histograms' bin width.
    pub bin_width: BinWidth,
    /// The tick that stands for a bin `[k w, (k+1) w)`.
    pub bin_value: BinValue,
    /// The length of one tick in the unit of the file's times (positive, finite): a time `x`
    /// is `x / tick` ticks.
    pub tick: f64,
}

impl Default for SamplesOptions {
    /// The automatic bin width, upper edges, the file's times as ticks.
    fn default() -> Self {
        SamplesOptions {
            bin_width: BinWidth::Auto,
            bin_value: BinValue::Upper,
            tick: 1.0,
        }
    }
}

/// With a tick of 1, times of which at least half are below this many ticks, some of them
/// fractions, look like seconds read as ticks ([`looks_like_seconds`]): on a grid of whole
/// ticks, half of them become 0, 1 or 2 ticks.
pub const SECONDS_HINT_TICKS: f64 = 2.0;

/// True when `tick` is 1, at least half of `times` (execution times, or deadlines minus
/// arrivals) are below [`SECONDS_HINT_TICKS`] and at least one is not a whole number: times
/// in seconds read as ticks, most likely, which a grid of whole ticks rounds to 0, 1 or 2
/// (`tick = 0.001` reads them in milliseconds). False without times. Times of many ticks,
/// such as milliseconds with fractions, lose little on the grid and are not flagged.
pub fn looks_like_seconds(tick: f64, times: impl IntoIterator<Item = f64>) -> bool {
    if tick != 1.0 {
        return false;
    }
    let (mut count, mut short, mut fraction) = (0usize, 0usize, false);
    for x in times {
        if x.is_nan() {
            return false;
        }
        count += 1;
        short += usize::from(x < SECONDS_HINT_TICKS);
        fraction |= x.fract() != 0.0;
    }
    count > 0 && fraction && 2 * short >= count
}

fn warn_seconds(name: &str, what: &str) {
    tracing::warn!(
        file = name,
        "half of the {what} are below {SECONDS_HINT_TICKS} ticks and some are fractions: \
         on a grid of whole ticks they become 0, 1 or 2 ticks. Times in seconds? Set \
         workload.tick or --tick to the length of one tick in the file's unit: 0.001 reads \
         seconds on a millisecond grid (bin_width counts ticks; the horizon and the rates \
         are in the file's unit, so the load stays)"
    );
}

/// The largest relative error of a cell's PMF mean against its samples' mean that passes
/// without a warning ([`Collapse`]).
pub const COLLAPSE_TOLERANCE: f64 = 0.1;

/// A (task type, machine) cell whose histogram moved its mean by more than
/// [`COLLAPSE_TOLERANCE`]: its samples span too few ticks (or bins) for the grid.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collapse {
    /// The samples' mean, in ticks.
    pub measured: f64,
    /// The PMF's mean, in ticks.
    pub pmf: f64,
    /// The bin width, in ticks.
    pub bin_width: Tick,
}

impl Collapse {
    /// The collapse of a cell whose samples `xs` (ticks) became a PMF of mean `pmf_mean`
    /// with bins of `bin_width` ticks, if its mean moved by more than the tolerance.
    pub fn of(xs: &[f64], pmf_mean: f64, bin_width: Tick) -> Option<Collapse> {
        if xs.is_empty() {
            return None;
        }
        let measured = xs.iter().sum::<f64>() / xs.len() as f64;
        let moved = (pmf_mean - measured).abs();
        (moved > COLLAPSE_TOLERANCE * measured.max(f64::MIN_POSITIVE)).then_some(Collapse {
            measured,
            pmf: pmf_mean,
            bin_width,
        })
    }
}

/// The largest "round" length (1, 2 or 5 times a power of ten) at most `x`.
fn round_down(x: f64) -> f64 {
    let p = 10f64.powf(x.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|f| f * p)
        .find(|&v| v <= x * (1.0 + 1e-9))
        .unwrap_or(p)
}

/// `x` to three significant digits (a time in a message).
fn three_digits(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return x.to_string();
    }
    let decimals = (2 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// One warning for the cells whose PMF moved its mean (at most three named), and the fix:
/// a finer tick when the bins are one tick wide, a narrower bin width otherwise.
fn warn_collapsed(name: &str, tick: f64, cells: &[(String, String, Collapse)]) {
    let shown: Vec<String> = cells
        .iter()
        .take(3)
        .map(|(t, m, c)| {
            format!(
                "({t}, {m}): measured mean {} becomes {} ({:+.0}%)",
                three_digits(c.measured * tick),
                three_digits(c.pmf * tick),
                100.0 * (c.pmf - c.measured) / c.measured
            )
        })
        .collect();
    let more = if cells.len() > 3 {
        format!(" and {} more", cells.len() - 3)
    } else {
        String::new()
    };
    let shortest = cells
        .iter()
        .map(|(_, _, c)| c.measured * tick)
        .fold(f64::INFINITY, f64::min);
    let fix = if cells.iter().all(|(_, _, c)| c.bin_width == 1) {
        format!(
            "the tick ({tick}) is too coarse for {}: set workload.tick or --tick to {} \
             (a hundredth of the shortest mean, which --tick auto chooses; the tick changes \
             the grid, not the load)",
            if cells.len() == 1 { "it" } else { "them" },
            round_down(shortest / 100.0)
        )
    } else {
        "their bins are too wide: give a smaller bin_width, or none (\"auto\": each cell \
         its own)"
            .to_owned()
    };
    tracing::warn!(
        file = name,
        "{} (task type, machine) cell{} of the samples became a PMF whose mean is off by more \
         than {:.0}%: {}{more}; {fix}",
        cells.len(),
        if cells.len() == 1 { "" } else { "s" },
        100.0 * COLLAPSE_TOLERANCE,
        shown.join("; "),
    );
}

/// Checks a tick length: positive and finite.
pub(crate) fn check_tick(tick: f64) -> Result<(), WorkloadError> {
    if tick.is_finite() && tick > 0.0 {
        Ok(())
    } else {
        Err(WorkloadError::InvalidSpec {
            field: "tick",
            expected: "a positive, finite length of one tick in the unit of the file's times",
            found: tick.to_string(),
        })
    }
}

/// Parses a CSV of measured execution times into a PET (see the module docs); `name` is used
/// in error messages.
pub fn parse_samples_csv(text: &str, name: &str, bin_width: Tick) -> Result<Pet, WorkloadError> {
    parse_samples_csv_with(text, name, bin_width, BinValue::Upper)
}

/// As [`parse_samples_csv`], with the tick that stands for each histogram bin `[k w, (k+1) w)`
/// chosen by `bin_value` ([`BinValue::Upper`], the bin's upper edge, is the thesis' reading).
pub fn parse_samples_csv_with(
    text: &str,
    name: &str,
    bin_width: Tick,
    bin_value: BinValue,
) -> Result<Pet, WorkloadError> {
    let options = SamplesOptions {
        bin_width: BinWidth::Ticks(bin_width),
        bin_value,
        tick: 1.0,
    };
    parse_samples_csv_options(text, name, &options)
}

/// Parses a CSV of measured execution times into a PET with the bin width, bin value and
/// tick length of `options` (see the module docs); `name` is used in error messages.
///
/// One function because it is one pass over the CSV's records, whose every check names its
/// line, then the PET built from the samples gathered.
pub fn parse_samples_csv_options(
    text: &str,
    name: &str,
    options: &SamplesOptions,
) -> Result<Pet, WorkloadError> {
    let SamplesOptions {
        bin_width,
        bin_value,
        tick,
    } = *options;
    if let BinWidth::Ticks(w) = bin_width {
        if w <= 0 {
            return Err(WorkloadError::InvalidSpec {
                field: "bin_width",
                expected: "a positive number of time units",
                found: w.to_string(),
            });
        }
    }
    check_tick(tick)?;
    let rows = sample_rows(text, name, tick)?;
    let seconds = looks_like_seconds(tick, rows.iter().map(|r| r.2));
    if seconds {
        warn_seconds(name, "execution times");
    }
    let types = Ids::resolve(rows.iter().map(|r| r.0.as_str()));
    let machines = Ids::resolve(rows.iter().map(|r| r.1.as_str()));
    let mut samples: HashMap<(usize, usize), (Vec<f64>, usize)> = HashMap::new();
    for (t, m, x, line) in &rows {
        let key = (types.index[t], machines.index[m]);
        samples
            .entry(key)
            .or_insert_with(|| (Vec::new(), *line))
            .0
            .push(*x);
    }
    let width = |xs: &[f64]| match bin_width {
        BinWidth::Auto => pmf::auto_bin_width(xs),
        BinWidth::Ticks(w) => w,
    };
    let (n_types, n_machines) = (types.len, machines.len);
    // Every block must have samples; the first gap is found within `rows.len() + 1` steps
    // even when a hostile identifier claims a huge index.
    // Together the blocks must fit the dense storage (see [`super::MAX_PET_TICKS`]).
    let mut total_span = 0;
    for t in 0..n_types {
        for m in 0..n_machines {
            let Some((xs, line)) = samples.get(&(t, m)) else {
                return Err(WorkloadError::MissingBlock {
                    file: name.to_owned(),
                    task_type: types.name(t),
                    machine: machines.name(m),
                });
            };
            add_span(
                &mut total_span,
                histogram_span(xs, width(xs), bin_value),
                name,
                *line,
                &types.name(t),
                &machines.name(m),
            )?;
        }
    }
    let mut pmfs = Vec::with_capacity(n_types * n_machines);
    let mut collapsed = Vec::new();
    for t in 0..n_types {
        for m in 0..n_machines {
            let Some((xs, line)) = samples.remove(&(t, m)) else {
                continue;
            };
            let w = width(&xs);
            let pmf = pmf::from_samples(&xs, w, bin_value).map_err(|reason| {
                WorkloadError::InvalidPmf {
                    file: name.to_owned(),
                    line,
                    task_type: types.name(t),
                    machine: machines.name(m),
                    reason,
                }
            })?;
            if let Some(c) = Collapse::of(&xs, pmf.mean(), w) {
                collapsed.push((types.name(t), machines.name(m), c));
            }
            pmfs.push(pmf);
        }
    }
    if !seconds && !collapsed.is_empty() {
        warn_collapsed(name, tick, &collapsed);
    }
    let pmfs = Array2::from_shape_vec((n_types, n_machines), pmfs)
        .map_err(|e| WorkloadError::InvalidPet(e.to_string()))?;
    Pet::new(pmfs, types.into_names(), machines.into_names())
}

/// The rows of a samples CSV (see the module docs): each task type, machine, execution time
/// in ticks (`x / tick`) and line; errors name the line and field.
fn sample_rows(
    text: &str,
    name: &str,
    tick: f64,
) -> Result<Vec<(String, String, f64, usize)>, WorkloadError> {
    // An execution time beyond MAX_EXECUTION_TICKS would make queues' completion times too
    // wide to hold.
    let max_time = super::MAX_EXECUTION_TICKS as f64;
    let mut rdr = reader(text);
    let headers = rdr.headers().map_err(|e| csv_error(name, &e))?.clone();
    let [ct, cm, cx] = columns(name, &headers, ["task_type", "machine", "execution_time"])?;
    let mut rows: Vec<(String, String, f64, usize)> = Vec::new();
    for record in rdr.records() {
        let record = record.map_err(|e| csv_error(name, &e))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let get = |i: usize| record.get(i).unwrap_or("");
        // In ticks; dividing by a tick of 1 is exact.
        let x = get(cx)
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|v| v / tick)
            .filter(|x| x.is_finite() && *x <= max_time)
            .ok_or_else(|| {
                WorkloadError::field(
                    name,
                    line,
                    "execution_time",
                    format!(
                        "a non-negative number of at most {} (2^26 ticks)",
                        max_time * tick
                    ),
                    get(cx),
                )
            })?;
        for (field, col) in [("task_type", ct), ("machine", cm)] {
            if get(col).is_empty() {
                return Err(WorkloadError::field(name, line, field, "an identifier", ""));
            }
        }
        rows.push((get(ct).to_owned(), get(cm).to_owned(), x, line));
    }
    if rows.is_empty() {
        return Err(WorkloadError::syntax(
            name,
            1,
            "no execution times after the header",
        ));
    }
    Ok(rows)
}

/// The tick [`auto_tick`] chooses: a hundredth of the shortest cell mean, rounded down to 1,
/// 2 or 5 times a power of ten.
#[derive(Clone, Debug, PartialEq)]
pub struct AutoTick {
    /// The tick, in the unit of the file's times.
    pub tick: f64,
    /// The shortest mean of a (task type, machine) cell's samples, in that unit.
    pub shortest_mean: f64,
    /// That cell's task type and machine.
    pub cell: (String, String),
}

/// The tick for a samples CSV's times (`text`, named `name` in errors): a hundredth of its
/// shortest (task type, machine) cell mean, rounded down to 1, 2 or 5 times a power of ten,
/// so that rounding a time to the grid moves it by less than 1% of the shortest cell's
/// mean, and a cell's histogram (at most [`pmf::AUTO_BINS`] bins with the automatic width)
/// keeps its shape. Errors: those of the reader, and a file whose cells all have a mean of 0.
pub fn auto_tick(text: &str, name: &str) -> Result<AutoTick, WorkloadError> {
    let rows = sample_rows(text, name, 1.0)?;
    let mut sums: HashMap<(&str, &str), (f64, usize)> = HashMap::new();
    for (t, m, x, _) in &rows {
        let e = sums.entry((t.as_str(), m.as_str())).or_insert((0.0, 0));
        e.0 += x;
        e.1 += 1;
    }
    let shortest = sums
        .iter()
        .map(|(cell, (sum, n))| (*cell, sum / *n as f64))
        .filter(|(_, mean)| *mean > 0.0)
        .min_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
    let Some(((t, m), mean)) = shortest else {
        return Err(WorkloadError::syntax(
            name,
            1,
            "every cell's times are 0: no tick can be chosen from them; give one",
        ));
    };
    Ok(AutoTick {
        tick: round_down(mean / 100.0),
        shortest_mean: mean,
        cell: (t.to_owned(), m.to_owned()),
    })
}

/// [`auto_tick`] of a file.
pub fn read_auto_tick(path: impl AsRef<Path>) -> Result<AutoTick, WorkloadError> {
    let path = path.as_ref();
    auto_tick(&read_text(path)?, &display_name(path))
}

/// The ticks spanned by the histogram of `xs` (as [`pmf::from_samples`] builds it with
/// `bin_value`); `xs` are finite, non-negative and at most `MAX_SPAN * bin_width`.
fn histogram_span(xs: &[f64], bin_width: Tick, bin_value: BinValue) -> u64 {
    let w = bin_width as f64;
    let tick = |x: f64| match bin_value {
        BinValue::Upper => (x / w).ceil().max(1.0) * w,
        BinValue::Lower | BinValue::Centre => (x / w).floor() * w,
    };
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    if lo > hi {
        return 0;
    }
    (tick(hi) - tick(lo) + 1.0) as u64
}

/// Reads a CSV of measured execution times into a PET with bins of `bin_width` time units,
/// each bin's mass at its upper edge.
pub fn read_samples_csv(path: impl AsRef<Path>, bin_width: Tick) -> Result<Pet, WorkloadError> {
    read_samples_csv_with(path, bin_width, BinValue::Upper)
}

/// As [`read_samples_csv`], each bin's mass at the tick `bin_value` chooses.
pub fn read_samples_csv_with(
    path: impl AsRef<Path>,
    bin_width: Tick,
    bin_value: BinValue,
) -> Result<Pet, WorkloadError> {
    let path = path.as_ref();
    parse_samples_csv_with(&read_text(path)?, &display_name(path), bin_width, bin_value)
}

/// Reads a CSV of measured execution times into a PET with the bin width, bin value and tick
/// length of `options` (see the module docs).
pub fn read_samples_csv_options(
    path: impl AsRef<Path>,
    options: &SamplesOptions,
) -> Result<Pet, WorkloadError> {
    let path = path.as_ref();
    parse_samples_csv_options(&read_text(path)?, &display_name(path), options)
}

/// Parses a CSV workload whose task types are row indices; `name` is used in messages.
pub fn parse_workload_csv(text: &str, name: &str) -> Result<Trial, WorkloadError> {
    parse_workload(text, name, None, 1.0)
}

/// Parses a CSV workload whose task types are row indices or names of `type_names`.
pub fn parse_workload_csv_with_names(
    text: &str,
    name: &str,
    type_names: &[String],
) -> Result<Trial, WorkloadError> {
    parse_workload(text, name, Some(type_names), 1.0)
}

/// Parses a CSV workload whose times are in a unit of which one tick is `tick` (see the
/// module docs): arrivals and deadlines become `x / tick` ticks. Task types are row indices,
/// or also names of `type_names` when given.
pub fn parse_workload_csv_with_tick(
    text: &str,
    name: &str,
    type_names: Option<&[String]>,
    tick: f64,
) -> Result<Trial, WorkloadError> {
    parse_workload(text, name, type_names, tick)
}

fn parse_workload(
    text: &str,
    name: &str,
    type_names: Option<&[String]>,
    tick: f64,
) -> Result<Trial, WorkloadError> {
    check_tick(tick)?;
    // A time in ticks, within the tick range; dividing by a tick of 1 is exact.
    let ticks = |line: usize, field: &'static str, raw: &str, x: f64| {
        let t = x / tick;
        if t.abs() <= super::MAX_TIME {
            Ok(t)
        } else {
            Err(WorkloadError::field(
                name,
                line,
                field,
                format!("a time of at most {} in magnitude", super::MAX_TIME * tick),
                raw,
            ))
        }
    };
    let mut rdr = reader(text);
    let headers = rdr.headers().map_err(|e| csv_error(name, &e))?.clone();
    let [ca, ct, cd] = columns(name, &headers, ["arrival", "task_type", "deadline"])?;
    let mut tasks = Vec::new();
    for record in rdr.records() {
        let record = record.map_err(|e| csv_error(name, &e))?;
        let line = record.position().map_or(0, |p| p.line() as usize);
        let get = |i: usize| record.get(i).unwrap_or("");
        let arrival = parse_non_negative(name, line, "arrival", get(ca))?;
        let arrival = ticks(line, "arrival", get(ca), arrival)?;
        let t = get(ct);
        let index = t.parse::<usize>().ok();
        let task_type = match type_names {
            None => index.ok_or_else(|| {
                WorkloadError::field(
                    name,
                    line,
                    "task_type",
                    "a task type index (a non-negative integer)",
                    t,
                )
            })?,
            Some(names) => index
                .filter(|&i| i < names.len())
                .or_else(|| names.iter().position(|n| n == t))
                .ok_or_else(|| {
                    WorkloadError::field(
                        name,
                        line,
                        "task_type",
                        format!(
                            "a task type index below {} or a task type name",
                            names.len()
                        ),
                        t,
                    )
                })?,
        };
        let deadline = parse_finite(name, line, "deadline", get(cd))?;
        let deadline = ticks(line, "deadline", get(cd), deadline)?;
        if arrival > deadline {
            return Err(WorkloadError::ArrivalAfterDeadline {
                file: name.to_owned(),
                line,
                arrival,
                deadline,
            });
        }
        tasks.push(Task {
            task_type,
            arrival,
            deadline,
        });
    }
    if looks_like_seconds(tick, tasks.iter().map(|t| t.deadline - t.arrival)) {
        warn_seconds(name, "deadlines minus arrivals");
    }
    Ok(Trial::new(tasks))
}

/// Reads a CSV workload whose task types are row indices (see the module docs).
pub fn read_workload_csv(path: impl AsRef<Path>) -> Result<Trial, WorkloadError> {
    let path = path.as_ref();
    parse_workload_csv(&read_text(path)?, &display_name(path))
}

/// Reads a CSV workload whose task types are row indices or names of `type_names`.
pub fn read_workload_csv_with_names(
    path: impl AsRef<Path>,
    type_names: &[String],
) -> Result<Trial, WorkloadError> {
    let path = path.as_ref();
    parse_workload_csv_with_names(&read_text(path)?, &display_name(path), type_names)
}

/// Reads a CSV workload whose times are in a unit of which one tick is `tick` (see
/// [`parse_workload_csv_with_tick`]).
pub fn read_workload_csv_with_tick(
    path: impl AsRef<Path>,
    type_names: Option<&[String]>,
    tick: f64,
) -> Result<Trial, WorkloadError> {
    let path = path.as_ref();
    parse_workload_csv_with_tick(&read_text(path)?, &display_name(path), type_names, tick)
}

/// The CSV text of a workload: `arrival,task_type,deadline` with task type indices.
pub fn format_workload_csv(trial: &Trial) -> String {
    let mut out = String::from("arrival,task_type,deadline\n");
    for t in &trial.tasks {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{},{},{}", t.arrival, t.task_type, t.deadline);
    }
    out
}

/// Writes a workload as CSV.
pub fn write_workload_csv(path: impl AsRef<Path>, trial: &Trial) -> Result<(), WorkloadError> {
    write_text(path.as_ref(), &format_workload_csv(trial))
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_automatic_tick_is_a_round_hundredth_of_the_shortest_cell_mean() {
        let text = "task_type,machine,execution_time\na,x,0.8\na,x,0.9\na,y,120\nb,x,31\nb,y,0.0\n";
        let t = auto_tick(text, "t.csv").unwrap();
        // Cell (a, x) has the shortest mean above 0, 0.85: a hundredth is 0.0085, down to 0.005.
        assert_eq!(t.cell, ("a".to_owned(), "x".to_owned()));
        assert!((t.shortest_mean - 0.85).abs() < 1e-12);
        assert_eq!(t.tick, 0.005);
        assert_eq!(round_down(0.0085), 0.005);
        assert_eq!(round_down(0.02), 0.02);
        assert_eq!(round_down(0.0199), 0.01);
        assert_eq!(round_down(7.0), 5.0);
        assert!(auto_tick("task_type,machine,execution_time\na,x,0\n", "z.csv").is_err());
    }
    use super::*;

    #[test]
    fn times_in_seconds_read_as_ticks_are_recognised() {
        assert!(looks_like_seconds(1.0, [0.25, 1.0, 3.5]));
        assert!(looks_like_seconds(1.0, [0.25, 1.5, 350.5]), "one long time");
        assert!(
            !looks_like_seconds(1.0, [0.25, 3.0, 350.5]),
            "most times of many ticks"
        );
        assert!(
            !looks_like_seconds(1.0, [4.9, 11.2, 91.7]),
            "milliseconds with fractions"
        );
        assert!(!looks_like_seconds(1.0, [2.0, 5.0, 7.0]), "whole ticks");
        assert!(!looks_like_seconds(0.001, [0.25, 1.0, 3.5]), "a tick given");
        assert!(!looks_like_seconds(1.0, []));
        assert!(!looks_like_seconds(1.0, [0.5, f64::NAN]));
    }
}
