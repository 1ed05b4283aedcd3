//! The paper's `.etc` PET format.
//!
//! ```text
//! machineCount=8;taskCount=12;
//! machine=0;task=0;
//! 2 0.00122249
//! 4 0.00122249
//! ...
//! machine=1;task=0;
//! ...
//! ```
//! A header with the two counts, then one block per (task type, machine), each a header line
//! and one `time probability` line per non-zero bin (times are integer time units; the
//! paper's files separate the two with a tab and add a trailing space, any white space is
//! accepted). Blocks may
//! come in any order; every block must be present exactly once. Within a block, repeated times
//! add up. A block's masses must sum to within 1% of 1 and are renormalised; the total of each
//! block is reported in [`EtcReport`] (the paper's file has totals 0.9964-0.9988). The format
//! has no names: task types are named `t0`, `t1`, ... and machines `m0`, `m1`, ...
//! PMFs are stored densely, so the blocks together may span at most
//! [`super::MAX_PET_TICKS`] ticks (each from its first to its last time with mass).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use ndarray::Array2;
use pmf::{Pmf, Tick};

use super::{
    add_span, display_name, numbered_lines, parse_index, parse_non_negative_number, read_text,
    write_text,
};
use crate::error::WorkloadError;
use crate::pet::Pet;

/// What the reader found in one block.
#[derive(Clone, Debug, PartialEq)]
pub struct BlockReport {
    /// The task type.
    pub task_type: usize,
    /// The machine.
    pub machine: usize,
    /// The line of the block's header.
    pub line: usize,
    /// Number of `time probability` lines.
    pub bins: usize,
    /// The sum of the block's probabilities before renormalisation.
    pub input_total: f64,
}

/// What [`read_etc`] found: the total of every block, in task-major order.
#[derive(Clone, Debug, PartialEq)]
pub struct EtcReport {
    /// The file's name.
    pub file: String,
    /// Every block, task type major (`blocks[t * machines + m]`).
    pub blocks: Vec<BlockReport>,
}

impl EtcReport {
    /// The blocks whose total differed from 1 by more than `eps` (and were renormalised).
    pub fn renormalised(&self, eps: f64) -> impl Iterator<Item = &BlockReport> {
        self.blocks
            .iter()
            .filter(move |b| (b.input_total - 1.0).abs() > eps)
    }

    /// The smallest and largest block totals.
    pub fn total_range(&self) -> (f64, f64) {
        self.blocks
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), b| {
                (lo.min(b.input_total), hi.max(b.input_total))
            })
    }
}

/// A line of `key=value;` pairs.
fn key_values<'a>(
    file: &str,
    line: usize,
    text: &'a str,
) -> Result<Vec<(&'a str, &'a str)>, WorkloadError> {
    text.split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| match p.split_once('=') {
            Some((k, v)) => Ok((k.trim(), v.trim())),
            None => Err(WorkloadError::syntax(
                file,
                line,
                format!(
                    "expected `key=value;` pairs, found \"{}\"",
                    crate::error::quote(p)
                ),
            )),
        })
        .collect()
}

/// Looks up the keys of a header line, rejecting unknown or repeated keys.
fn header_values<'a, const N: usize>(
    file: &str,
    line: usize,
    pairs: &[(&'a str, &'a str)],
    keys: [&'static str; N],
) -> Result<[&'a str; N], WorkloadError> {
    let mut out: [Option<&str>; N] = [None; N];
    for &(k, v) in pairs {
        match keys.iter().position(|&key| key == k) {
            Some(i) if out[i].is_none() => out[i] = Some(v),
            Some(_) => {
                return Err(WorkloadError::syntax(
                    file,
                    line,
                    format!("key '{k}' given twice"),
                ));
            }
            None => {
                return Err(WorkloadError::syntax(
                    file,
                    line,
                    format!(
                        "unknown key '{}': expected {}",
                        crate::error::quote(k),
                        keys.join(" and ")
                    ),
                ));
            }
        }
    }
    let mut res = [""; N];
    for i in 0..N {
        res[i] = out[i].ok_or_else(|| {
            WorkloadError::syntax(file, line, format!("missing key '{}'", keys[i]))
        })?;
    }
    Ok(res)
}

/// A block being read.
struct Block {
    line: usize,
    pairs: Vec<(Tick, f64)>,
}

/// Parses the text of an `.etc` file; `name` is used in error messages.
///
/// One function because it is one pass over the file's lines, whose state (the header's
/// counts, the block being read) every line's check reads; every message names its line.
pub fn parse_etc(text: &str, name: &str) -> Result<(Pet, EtcReport), WorkloadError> {
    let mut counts: Option<(usize, usize)> = None;
    let mut blocks: HashMap<(usize, usize), Block> = HashMap::new();
    let mut current: Option<(usize, usize)> = None;
    for (line, raw) in numbered_lines(text) {
        let s = raw.trim();
        if s.is_empty() {
            continue;
        }
        if s.contains('=') {
            let pairs = key_values(name, line, s)?;
            let Some((n_machines, n_types)) = counts else {
                let [m, t] = header_values(name, line, &pairs, ["machineCount", "taskCount"])?;
                let m = parse_positive_count(name, line, "machineCount", m)?;
                let t = parse_positive_count(name, line, "taskCount", t)?;
                counts = Some((m, t));
                continue;
            };
            let [m, t] = header_values(name, line, &pairs, ["machine", "task"])?;
            let machine = parse_index(name, line, "machine", m)?;
            if machine >= n_machines {
                return Err(WorkloadError::field(
                    name,
                    line,
                    "machine",
                    format!("a machine index below machineCount={n_machines}"),
                    m,
                ));
            }
            let task_type = parse_index(name, line, "task", t)?;
            if task_type >= n_types {
                return Err(WorkloadError::field(
                    name,
                    line,
                    "task",
                    format!("a task type index below taskCount={n_types}"),
                    t,
                ));
            }
            if let Some(first) = blocks.get(&(task_type, machine)) {
                return Err(WorkloadError::DuplicateBlock {
                    file: name.to_owned(),
                    line,
                    first_line: first.line,
                    task_type,
                    machine,
                });
            }
            blocks.insert(
                (task_type, machine),
                Block {
                    line,
                    pairs: Vec::new(),
                },
            );
            current = Some((task_type, machine));
            continue;
        }
        if counts.is_none() {
            return Err(WorkloadError::syntax(
                name,
                line,
                "expected the header `machineCount=M;taskCount=T;`",
            ));
        }
        let Some(block) = current.and_then(|key| blocks.get_mut(&key)) else {
            return Err(WorkloadError::syntax(
                name,
                line,
                "a `time probability` line before the first `machine=M;task=T;` header",
            ));
        };
        let mut fields = s.split_whitespace();
        let (Some(time), Some(prob), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(WorkloadError::syntax(
                name,
                line,
                format!(
                    "expected `time probability`, found {} fields",
                    s.split_whitespace().count()
                ),
            ));
        };
        let time: Tick = match time.parse::<Tick>() {
            Ok(t) if (0..=super::MAX_EXECUTION_TICKS).contains(&t) => t,
            _ => {
                return Err(WorkloadError::field(
                    name,
                    line,
                    "time",
                    "a non-negative integer number of time units of at most 2^26",
                    time,
                ));
            }
        };
        let prob = parse_non_negative_number(name, line, "probability", prob)?;
        block.pairs.push((time, prob));
    }
    let Some((n_machines, n_types)) = counts else {
        return Err(WorkloadError::syntax(
            name,
            1,
            "empty file: expected the header `machineCount=M;taskCount=T;`",
        ));
    };
    // Every block is present, and together they fit the dense storage, before any PMF is
    // built.
    let mut total_span = 0;
    for task_type in 0..n_types {
        for machine in 0..n_machines {
            let Some(block) = blocks.get(&(task_type, machine)) else {
                return Err(WorkloadError::MissingBlock {
                    file: name.to_owned(),
                    task_type: task_type.to_string(),
                    machine: machine.to_string(),
                });
            };
            add_span(
                &mut total_span,
                block_span(&block.pairs),
                name,
                block.line,
                &task_type.to_string(),
                &machine.to_string(),
            )?;
        }
    }
    let mut pmfs = Vec::with_capacity(blocks.len());
    let mut reports = Vec::with_capacity(blocks.len());
    for task_type in 0..n_types {
        for machine in 0..n_machines {
            let Some(block) = blocks.remove(&(task_type, machine)) else {
                continue;
            };
            let bins = block.pairs.len();
            let normalised =
                Pmf::from_pairs(block.pairs).map_err(|reason| WorkloadError::InvalidPmf {
                    file: name.to_owned(),
                    line: block.line,
                    task_type: task_type.to_string(),
                    machine: machine.to_string(),
                    reason,
                })?;
            reports.push(BlockReport {
                task_type,
                machine,
                line: block.line,
                bins,
                input_total: normalised.input_total,
            });
            pmfs.push(normalised.pmf);
        }
    }
    let pmfs = Array2::from_shape_vec((n_types, n_machines), pmfs)
        .map_err(|e| WorkloadError::InvalidPet(e.to_string()))?;
    let pet = Pet::new(
        pmfs,
        (0..n_types).map(|t| format!("t{t}")).collect(),
        (0..n_machines).map(|m| format!("m{m}")).collect(),
    )?;
    let report = EtcReport {
        file: name.to_owned(),
        blocks: reports,
    };
    let renormalised = report.renormalised(pmf::prec::MASS_EPS).count();
    if renormalised > 0 {
        let (lo, hi) = report.total_range();
        tracing::warn!(
            file = name,
            blocks = renormalised,
            min_total = lo,
            max_total = hi,
            "renormalised PET blocks whose probabilities did not sum to 1"
        );
    }
    Ok((pet, report))
}

/// The ticks a block's PMF spans: from its first to its last time with positive mass.
fn block_span(pairs: &[(Tick, f64)]) -> u64 {
    let (lo, hi) = pairs
        .iter()
        .filter(|p| p.1 > 0.0)
        .fold((Tick::MAX, Tick::MIN), |(lo, hi), &(t, _)| {
            (lo.min(t), hi.max(t))
        });
    if lo > hi {
        return 0;
    }
    u64::try_from(i128::from(hi) - i128::from(lo) + 1).unwrap_or(u64::MAX)
}

fn parse_positive_count(
    file: &str,
    line: usize,
    field: &'static str,
    s: &str,
) -> Result<usize, WorkloadError> {
    match s.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(WorkloadError::field(
            file,
            line,
            field,
            "a positive integer",
            s,
        )),
    }
}

/// Reads an `.etc` PET file. See the module docs for the format and what is reported.
pub fn read_etc(path: impl AsRef<Path>) -> Result<(Pet, EtcReport), WorkloadError> {
    let path = path.as_ref();
    parse_etc(&read_text(path)?, &display_name(path))
}

/// The `.etc` text of a PET (names are not part of the format and are lost).
pub fn format_etc(pet: &Pet) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(
        out,
        "machineCount={};taskCount={};",
        pet.n_machines(),
        pet.n_types()
    );
    for t in 0..pet.n_types() {
        for m in 0..pet.n_machines() {
            let _ = writeln!(out, "machine={m};task={t};");
            for (tick, p) in pet.pmf(t, m).iter() {
                let _ = writeln!(out, "{tick}\t{p}");
            }
        }
    }
    out
}

/// Writes a PET as an `.etc` file.
pub fn write_etc(path: impl AsRef<Path>, pet: &Pet) -> Result<(), WorkloadError> {
    write_text(path.as_ref(), &format_etc(pet))
}
