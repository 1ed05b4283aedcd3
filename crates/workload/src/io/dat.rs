//! The paper's `.dat` arrival-trial format.
//!
//! ```text
//! taskCount=800;
//! 1.41 10 176.84;
//! 3.76 0 179.19;
//! ```
//! A header with the number of tasks, then one task per line: `arrival task_type deadline;`
//! (times are decimals, sometimes written `.87`; the `;` is optional). The number of task
//! lines must equal `taskCount`. Tasks are sorted by arrival (stable) after reading.
//!
//! # Consistency of deadlines, and the truncated first line of the paper's files
//! The deadlines of a generated trial follow eq. (3.7): `deadline - arrival` is the same for
//! every task of a type. The reader estimates each type's slack as the median of
//! `deadline - arrival` over the file's tasks of that type (when it has at least
//! [`MIN_TASKS_FOR_SLACK`]) and flags every task whose slack differs from it by more than
//! [`DatOptions::slack_tolerance`] (default 0.02: the files round times to 0.01). Flagged tasks
//! are listed in [`DatReport::anomalies`] and logged (a repaired one at debug level, one that
//! no repair restores as a warning); none is dropped.
//!
//! In every one of the paper's 60 trials the first task line lost its first two characters
//! (`arr34k_1.dat` line 2 reads `45 0 176.88;` where the deadline implies arrival 1.45, i.e.
//! `1.45` lost `1.`), so the task appears to arrive late and sorts out of place. With
//! [`ArrivalRepair::TruncatedPrefix`] (the default) a flagged arrival is replaced by the arrival
//! its deadline implies, `deadline - slack`, **only** when the text read is a proper suffix of
//! that implied arrival written with two decimals (tried at the implied value and 0.01 either
//! side, for rounding): the evidence that leading characters were lost. Every repair is
//! recorded with the original text. Any other inconsistency is reported and left as read, and
//! [`ArrivalRepair::None`] turns repairs off. A task arriving after its deadline is an error:
//! no reading of eq. (3.7) allows it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use super::{display_name, numbered_lines, parse_finite, parse_index, read_text, write_text};
use crate::arrivals::{Task, Trial};
use crate::error::WorkloadError;

/// A type's slack is estimated only from at least this many tasks of the type.
pub const MIN_TASKS_FOR_SLACK: usize = 3;

/// What to do with a task whose arrival is inconsistent with its deadline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ArrivalRepair {
    /// Report it and keep it as read.
    None,
    /// Restore the arrival implied by the deadline when the text read is a truncated form of
    /// it (see the module docs); report every task either way.
    #[default]
    TruncatedPrefix,
}

/// Options of [`read_dat_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DatOptions {
    /// The repair policy.
    pub repair: ArrivalRepair,
    /// A task is inconsistent when its `deadline - arrival` differs from its type's median by
    /// more than this (time units).
    pub slack_tolerance: f64,
    /// The number of task types of the PET the trial is for, when known: a task type at or
    /// above it is an error naming its line (`None`, the default: any index is read).
    pub task_types: Option<usize>,
}

impl Default for DatOptions {
    fn default() -> Self {
        DatOptions {
            repair: ArrivalRepair::TruncatedPrefix,
            slack_tolerance: 0.02,
            task_types: None,
        }
    }
}

/// A task whose `deadline - arrival` differs from its type's slack.
#[derive(Clone, Debug, PartialEq)]
pub struct SlackAnomaly {
    /// The 1-based line.
    pub line: usize,
    /// The task type.
    pub task_type: usize,
    /// The arrival field as written.
    pub arrival_text: String,
    /// The arrival as read.
    pub arrival: f64,
    /// The deadline.
    pub deadline: f64,
    /// The type's slack (median of the file).
    pub type_slack: f64,
    /// The arrival put in the trial instead, when the line was repaired.
    pub repaired_arrival: Option<f64>,
}

/// What [`read_dat`] found.
#[derive(Clone, Debug, PartialEq)]
pub struct DatReport {
    /// The file's name.
    pub file: String,
    /// The `taskCount` of the header.
    pub task_count: usize,
    /// Task lines whose arrival (as read) was earlier than an arrival above them.
    pub out_of_order_as_read: usize,
    /// The same count after repairs: the lines the final sort moved.
    pub out_of_order: usize,
    /// Each task type's slack `deadline - arrival` (median over its tasks), for the types
    /// with at least [`MIN_TASKS_FOR_SLACK`] tasks.
    pub type_slack: BTreeMap<usize, f64>,
    /// The largest `|deadline - arrival - type_slack|` among the tasks not flagged.
    pub max_slack_deviation: f64,
    /// The tasks flagged as inconsistent, repaired or not.
    pub anomalies: Vec<SlackAnomaly>,
}

impl DatReport {
    /// The flagged tasks whose arrival was repaired.
    pub fn repaired(&self) -> impl Iterator<Item = &SlackAnomaly> {
        self.anomalies
            .iter()
            .filter(|a| a.repaired_arrival.is_some())
    }
}

/// Tasks whose arrival is earlier than an arrival before them.
fn count_out_of_order(arrivals: impl Iterator<Item = f64>) -> usize {
    let mut max = f64::NEG_INFINITY;
    let mut n = 0;
    for a in arrivals {
        if a < max {
            n += 1;
        }
        max = max.max(a);
    }
    n
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The arrival implied by a deadline when `text` is a truncated form of it, if any.
fn truncated_repair(text: &str, implied: f64) -> Option<f64> {
    [0.0, -0.01, 0.01].iter().find_map(|d| {
        let v = implied + d;
        if v < 0.0 {
            return None;
        }
        let full = format!("{v:.2}");
        (full.len() > text.len() && full.ends_with(text))
            .then(|| full.parse().ok())
            .flatten()
    })
}

/// A task line as read.
struct Raw<'a> {
    line: usize,
    text: &'a str,
    task: Task,
}

/// Parses the text of a `.dat` file with the default options; `name` is used in messages.
pub fn parse_dat(text: &str, name: &str) -> Result<(Trial, DatReport), WorkloadError> {
    parse_dat_with(text, name, &DatOptions::default())
}

/// Parses the text of a `.dat` file.
///
/// One function because it is one pass over the file's lines, then the repair pass over
/// the tasks read; every message names its line, which both passes hold.
pub fn parse_dat_with(
    text: &str,
    name: &str,
    options: &DatOptions,
) -> Result<(Trial, DatReport), WorkloadError> {
    let mut header: Option<(usize, usize)> = None;
    let mut raws: Vec<Raw<'_>> = Vec::new();
    for (line, raw) in numbered_lines(text) {
        let s = raw.trim();
        if s.is_empty() {
            continue;
        }
        if header.is_none() {
            let body = s.strip_suffix(';').unwrap_or(s).trim();
            let Some(value) = body.strip_prefix("taskCount=") else {
                return Err(WorkloadError::syntax(
                    name,
                    line,
                    "expected the header `taskCount=N;`",
                ));
            };
            let count = parse_index(name, line, "taskCount", value.trim())?;
            header = Some((line, count));
            continue;
        }
        let body = s.strip_suffix(';').unwrap_or(s);
        let mut fields = body.split_whitespace();
        let (Some(a), Some(t), Some(d), None) =
            (fields.next(), fields.next(), fields.next(), fields.next())
        else {
            return Err(WorkloadError::syntax(
                name,
                line,
                format!(
                    "expected `arrival task_type deadline;`, found {} fields",
                    body.split_whitespace().count()
                ),
            ));
        };
        let arrival = parse_finite(name, line, "arrival", a)?;
        if arrival < 0.0 {
            return Err(WorkloadError::field(
                name,
                line,
                "arrival",
                "a non-negative number",
                a,
            ));
        }
        let task_type = parse_index(name, line, "task_type", t)?;
        if let Some(n) = options.task_types.filter(|&n| task_type >= n) {
            return Err(WorkloadError::field(
                name,
                line,
                "task_type",
                format!("a task type index below {n} (the PET's task types)"),
                t,
            ));
        }
        let deadline = parse_finite(name, line, "deadline", d)?;
        if arrival > deadline {
            return Err(WorkloadError::ArrivalAfterDeadline {
                file: name.to_owned(),
                line,
                arrival,
                deadline,
            });
        }
        raws.push(Raw {
            line,
            text: a,
            task: Task {
                task_type,
                arrival,
                deadline,
            },
        });
    }
    let Some((header_line, task_count)) = header else {
        return Err(WorkloadError::syntax(
            name,
            1,
            "empty file: expected the header `taskCount=N;`",
        ));
    };
    if raws.len() != task_count {
        return Err(WorkloadError::syntax(
            name,
            header_line,
            format!(
                "the header says taskCount={task_count} but the file has {} task lines",
                raws.len()
            ),
        ));
    }
    let out_of_order_as_read = count_out_of_order(raws.iter().map(|r| r.task.arrival));

    // Each type's slack: the median of deadline - arrival.
    let mut slacks: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for r in &raws {
        slacks
            .entry(r.task.task_type)
            .or_default()
            .push(r.task.deadline - r.task.arrival);
    }
    let type_slack: BTreeMap<usize, f64> = slacks
        .into_iter()
        .filter(|(_, v)| v.len() >= MIN_TASKS_FOR_SLACK)
        .map(|(t, mut v)| (t, median(&mut v)))
        .collect();

    let mut anomalies = Vec::new();
    let mut max_slack_deviation: f64 = 0.0;
    for r in &mut raws {
        let Some(&slack) = type_slack.get(&r.task.task_type) else {
            continue;
        };
        let deviation = (r.task.deadline - r.task.arrival - slack).abs();
        if deviation <= options.slack_tolerance {
            max_slack_deviation = max_slack_deviation.max(deviation);
            continue;
        }
        let repaired_arrival = match options.repair {
            ArrivalRepair::None => None,
            // The rounding allowance of `truncated_repair` must not move a task past its
            // deadline.
            ArrivalRepair::TruncatedPrefix => {
                truncated_repair(r.text, r.task.deadline - slack).filter(|&a| a <= r.task.deadline)
            }
        };
        // A repaired arrival is counted in the report (the command line says how many in
        // one line) and listed at debug level; one that could not be repaired is a warning.
        if repaired_arrival.is_some() {
            tracing::debug!(
                file = name,
                line = r.line,
                arrival = r.text,
                deadline = r.task.deadline,
                type_slack = slack,
                repaired = ?repaired_arrival,
                "task's deadline - arrival differs from its type's slack: arrival repaired"
            );
        } else {
            tracing::warn!(
                file = name,
                line = r.line,
                arrival = r.text,
                deadline = r.task.deadline,
                type_slack = slack,
                "task's deadline - arrival differs from its type's slack, and no arrival \
                 restores it: the task is kept as read"
            );
        }
        anomalies.push(SlackAnomaly {
            line: r.line,
            task_type: r.task.task_type,
            arrival_text: r.text.to_owned(),
            arrival: r.task.arrival,
            deadline: r.task.deadline,
            type_slack: slack,
            repaired_arrival,
        });
        if let Some(a) = repaired_arrival {
            r.task.arrival = a;
        }
    }
    let out_of_order = count_out_of_order(raws.iter().map(|r| r.task.arrival));
    let trial = Trial::new(raws.into_iter().map(|r| r.task).collect());
    let report = DatReport {
        file: name.to_owned(),
        task_count,
        out_of_order_as_read,
        out_of_order,
        type_slack,
        max_slack_deviation,
        anomalies,
    };
    Ok((trial, report))
}

/// Reads a `.dat` trial with the default options (see the module docs).
pub fn read_dat(path: impl AsRef<Path>) -> Result<(Trial, DatReport), WorkloadError> {
    read_dat_with(path, &DatOptions::default())
}

/// Reads a `.dat` trial.
pub fn read_dat_with(
    path: impl AsRef<Path>,
    options: &DatOptions,
) -> Result<(Trial, DatReport), WorkloadError> {
    let path = path.as_ref();
    parse_dat_with(&read_text(path)?, &display_name(path), options)
}

/// The `.dat` text of a trial, tasks in the trial's order.
pub fn format_dat(trial: &Trial) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = writeln!(out, "taskCount={};", trial.tasks.len());
    for t in &trial.tasks {
        let _ = writeln!(out, "{} {} {};", t.arrival, t.task_type, t.deadline);
    }
    out
}

/// Writes a trial as a `.dat` file.
pub fn write_dat(path: impl AsRef<Path>, trial: &Trial) -> Result<(), WorkloadError> {
    write_text(path.as_ref(), &format_dat(trial))
}

#[cfg(test)]
mod tests {
    use super::truncated_repair;

    #[test]
    fn only_a_truncated_form_of_the_implied_arrival_is_repaired() {
        // arr34k_1.dat: "45" with deadline 176.88 and slack 175.43.
        assert_eq!(truncated_repair("45", 176.88 - 175.43), Some(1.45));
        assert_eq!(truncated_repair(".83", 11.83), Some(11.83));
        assert_eq!(truncated_repair("00", 1.0), Some(1.0));
        // Rounding of the implied value by one hundredth either way is tolerated.
        assert_eq!(truncated_repair("46", 1.4549), Some(1.46));
        // Not a suffix, or not shorter: no repair.
        assert_eq!(truncated_repair("50", 1.45), None);
        assert_eq!(truncated_repair("1.45", 1.45), None);
        assert_eq!(truncated_repair("5", -3.0), None);
    }
}
