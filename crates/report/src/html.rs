//! The interactive report of a run folder: one self-contained HTML file that opens offline in
//! any browser. It reads what `prunesim run --out DIR` wrote (`summary.json`, `trials.csv`,
//! `manifest.json` for the machine names, and `trace/tasks-<k>.csv`, `trace/events-<k>.csv`
//! when the run was traced) and inlines it as JSON beside the hand-written script and style
//! sheet kept in this crate's `assets/` folder (`report.html`, `report.css`, `report.js`). No
//! file or address outside the HTML is read when it is viewed.
//!
//! What it shows: the summary with each measure's unit and definition
//! ([`runner::metrics::METRICS`]); the trials' measures, each trial linking to its trace; for
//! the chosen trial, the timeline (machines against time, a bar per executed task coloured by
//! outcome, drops and expiries marked, deferral periods on request; zoom with the wheel, pan
//! by dragging, a tooltip per task with every trace column), robustness and the
//! oversubscription level `d_t` over the same time axis, and the outcomes per task type.
//! When more than a few thousand tasks are in view the timeline draws each machine's row as
//! slices of a few pixels (coloured by the outcome that used most of the slice's machine
//! time) until zoomed in, so a trace of 10^5 tasks stays fluid.

use std::fmt::Write as _;
use std::path::Path;

use model::Outcome;
use runner::trace::{
    EndedBy, EventRow, TaskRow, events_path, for_each_row, tasks_path, try_for_each_row,
};

use crate::timeline::outcome_rgb;
use crate::{Error, trace_dir, traced_trials};

const TEMPLATE: &str = include_str!("../assets/report.html");
const STYLE: &str = include_str!("../assets/report.css");
const SCRIPT: &str = include_str!("../assets/report.js");

/// The name of the report in a run folder.
pub const REPORT_FILE: &str = "report.html";

/// What a written report holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportStats {
    /// Traced trials included.
    pub trials: usize,
    /// Trace files left out: of trials beyond the summary's trial count (another run's).
    pub stale: Vec<u64>,
    /// Task rows included, over all trials.
    pub tasks: usize,
    /// The file's size in bytes.
    pub bytes: usize,
}

/// What each outcome means (the `outcome` column of docs/trace.md).
pub const OUTCOME_DOCS: [(Outcome, &str); 8] = [
    (Outcome::OnTime, "completed before its deadline"),
    (
        Outcome::Late,
        "completed at or after its deadline (the executing task is not dropped)",
    ),
    (
        Outcome::ExpiredPending,
        "its deadline passed while it waited in a machine queue",
    ),
    (
        Outcome::ExpiredExecuting,
        "dropped while executing when its deadline passed",
    ),
    (
        Outcome::PrunedPending,
        "dropped from a machine queue by the pruner (or the heuristic)",
    ),
    (
        Outcome::PrunedExecuting,
        "dropped while executing by the pruner",
    ),
    (
        Outcome::Unmapped,
        "never mapped: its deadline passed in the batch queue",
    ),
    (
        Outcome::Discarded,
        "never mapped: the heuristic discarded it from the batch queue",
    ),
];

const ENDED_BY: [EndedBy; 4] = [
    EndedBy::Completion,
    EndedBy::Deadline,
    EndedBy::Pruner,
    EndedBy::Heuristic,
];

/// Columns of numbers as JSON arrays, built row by row.
struct Columns {
    names: &'static [&'static str],
    data: Vec<String>,
    rows: usize,
}

impl Columns {
    fn new(names: &'static [&'static str]) -> Self {
        Columns {
            names,
            data: vec![String::new(); names.len()],
            rows: 0,
        }
    }

    fn row(&mut self, values: &[Option<f64>]) {
        debug_assert_eq!(values.len(), self.names.len());
        for (col, v) in self.data.iter_mut().zip(values) {
            if self.rows > 0 {
                col.push(',');
            }
            push_number(col, *v);
        }
        self.rows += 1;
    }

    fn json(&self) -> String {
        let mut s = String::from("{");
        for (i, (name, col)) in self.names.iter().zip(&self.data).enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "\"{name}\":[{col}]");
        }
        s.push('}');
        s
    }
}

/// A number as JSON (`null` when absent or not finite): integers without a fraction, others
/// with at most 6 significant decimals.
fn push_number(s: &mut String, v: Option<f64>) {
    match v {
        Some(x) if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 => {
            let _ = write!(s, "{}", x as i64);
        }
        Some(x) if x.is_finite() => {
            let r = (x * 1e6).round() / 1e6;
            let _ = write!(s, "{r}");
        }
        _ => s.push_str("null"),
    }
}

const TASK_COLUMNS: &[&str] = &[
    "task",
    "task_type",
    "arrival",
    "deadline",
    "counted",
    "considered",
    "deferrals",
    "first_deferred",
    "mapped",
    "machine",
    "chance",
    "start",
    "end",
    "outcome",
    "ended_by",
];

const EVENT_COLUMNS: &[&str] = &[
    "tick",
    "misses",
    "level",
    "engaged",
    "batch",
    "free_slots",
    "heuristic_ran",
    "dropped",
    "heuristic_dropped",
    "deferred",
    "assigned",
];

fn tick(t: Option<i64>) -> Option<f64> {
    t.map(|t| t as f64)
}

fn task_values(r: &TaskRow) -> [Option<f64>; 15] {
    let outcome = Outcome::ALL.iter().position(|&o| o == r.outcome);
    let ended = ENDED_BY.iter().position(|&b| b == r.ended_by);
    [
        Some(r.task as f64),
        Some(r.task_type as f64),
        Some(r.arrival as f64),
        Some(r.deadline as f64),
        Some(f64::from(u8::from(r.counted))),
        tick(r.considered),
        Some(f64::from(r.deferrals)),
        tick(r.first_deferred),
        tick(r.mapped),
        r.machine.map(|m| m as f64),
        r.chance,
        tick(r.start),
        Some(r.end as f64),
        outcome.map(|o| o as f64),
        ended.map(|b| b as f64),
    ]
}

fn event_values(e: &EventRow) -> [Option<f64>; 11] {
    [
        Some(e.tick as f64),
        Some(e.misses as f64),
        e.level,
        Some(f64::from(u8::from(e.engaged))),
        Some(e.batch as f64),
        e.free_slots.map(|f| f as f64),
        Some(f64::from(u8::from(e.heuristic_ran))),
        Some(e.dropped as f64),
        Some(e.heuristic_dropped as f64),
        Some(e.deferred as f64),
        Some(e.assigned as f64),
    ]
}

/// JSON safe inside a `<script>` element: no `<` (it can only be inside strings, where
/// `\u003c` means the same).
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// `s` with `&`, `<`, `>` and `"` escaped for HTML text and attribute values.
pub fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `template` with each placeholder replaced by its value, in one pass: a value's text is
/// never searched for placeholders.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    loop {
        let next = values
            .iter()
            .filter_map(|(k, v)| rest.find(k).map(|at| (at, *k, *v)))
            .min_by_key(|&(at, _, _)| at);
        match next {
            Some((at, k, v)) => {
                out.push_str(&rest[..at]);
                out.push_str(v);
                rest = &rest[at + k.len()..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// A JSON file of the run folder (`None` when there is none), read as every input is: a
/// regular file of at most the input cap.
pub(crate) fn read_json(path: &Path) -> Result<Option<serde_json::Value>, Error> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let text = runner::files::read_input(path)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::data(path, e))
}

/// `trials.csv` as `{"columns": [...], "rows": [[...], ...]}` of numbers.
fn trials_json(path: &Path) -> Result<String, Error> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok("null".into());
    }
    let (mut r, header) = crate::csv_with_header(path)?;
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| Error::data(path, e))?;
        let mut s = String::from("[");
        for (i, v) in rec.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            push_number(&mut s, v.parse::<f64>().ok());
        }
        s.push(']');
        rows.push(s);
    }
    Ok(format!(
        "{{\"columns\":{},\"rows\":[{}]}}",
        serde_json::to_string(&header).map_err(|e| Error::data(path, e))?,
        rows.join(",")
    ))
}

/// The report of the run in `run_dir` as HTML, and what it holds.
pub fn report_html(run_dir: &Path) -> Result<(String, ReportStats), Error> {
    // The run's machines and trials, from its summary: a trace may not name others.
    let (summary, n_machines, n_trials) = crate::run_summary(run_dir)?;
    let manifest = read_json(&run_dir.join("manifest.json"))?;
    let mut machines: Vec<String> = manifest
        .as_ref()
        .and_then(|m| m.get("machines"))
        .and_then(|m| serde_json::from_value(m.clone()).ok())
        .unwrap_or_default();
    machines.truncate(usize::try_from(n_machines).unwrap_or(usize::MAX));
    let tdir = trace_dir(run_dir);
    let mut traces = Vec::new();
    let mut n_tasks = 0;
    let mut max_machine = 0usize;
    let (ks, stale): (Vec<u64>, Vec<u64>) = traced_trials(&tdir)?
        .into_iter()
        .partition(|&k| k < n_trials);
    for &k in &ks {
        let mut tasks = Columns::new(TASK_COLUMNS);
        let tp = tasks_path(&tdir, k);
        runner::files::check_input(&tp)?;
        try_for_each_row(&tp, |_, r: TaskRow| {
            if let Some(m) = r.machine {
                if m as u64 >= n_machines {
                    return Err(format!(
                        "machine {m}, but the run has {n_machines} machines (summary.json)"
                    ));
                }
                max_machine = max_machine.max(m + 1);
            }
            tasks.row(&task_values(&r));
            Ok(())
        })?;
        let mut events = Columns::new(EVENT_COLUMNS);
        let ep = events_path(&tdir, k);
        if std::fs::symlink_metadata(&ep).is_ok() {
            runner::files::check_input(&ep)?;
            for_each_row(&ep, |e: EventRow| events.row(&event_values(&e)))?;
        }
        n_tasks += tasks.rows;
        traces.push(format!(
            "{{\"trial\":{k},\"tasks\":{},\"events\":{}}}",
            tasks.json(),
            events.json()
        ));
    }
    while machines.len() < max_machine {
        machines.push(format!("m{}", machines.len()));
    }
    let metrics: Vec<serde_json::Value> = runner::metrics::METRICS
        .iter()
        .map(|d| {
            serde_json::json!({
                "name": d.name,
                "group": d.group.title(),
                "unit": d.unit.symbol(),
                "count": d.unit.is_count(),
                "definition": d.definition,
            })
        })
        .collect();
    let outcomes: Vec<serde_json::Value> = OUTCOME_DOCS
        .iter()
        .map(|(o, doc)| {
            let (r, g, b) = outcome_rgb(*o);
            serde_json::json!({
                "name": o.name(),
                "definition": doc,
                "color": format!("#{r:02x}{g:02x}{b:02x}"),
            })
        })
        .collect();
    let ended_by: Vec<&str> = ENDED_BY.iter().map(|b| b.name()).collect();
    let title = summary
        .get("experiment")
        .and_then(|v| v.as_str())
        .unwrap_or("prunesim run")
        .to_owned();
    let data = format!(
        "{{\"title\":{},\"summary\":{},\"manifest\":{},\"metrics\":{},\"outcomes\":{},\"ended_by\":{},\"machines\":{},\"trials\":{},\"traces\":[{}]}}",
        serde_json::to_string(&title).unwrap_or_default(),
        summary,
        manifest.unwrap_or(serde_json::Value::Null),
        serde_json::Value::Array(metrics),
        serde_json::Value::Array(outcomes),
        serde_json::to_string(&ended_by).unwrap_or_default(),
        serde_json::to_string(&machines).unwrap_or_default(),
        trials_json(&run_dir.join("trials.csv"))?,
        traces.join(",")
    );
    let html = fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &html_escape(&title)),
            ("/*{{STYLE}}*/", STYLE),
            ("/*{{SCRIPT}}*/", SCRIPT),
            ("{{DATA}}", &script_safe(&data)),
        ],
    );
    let stats = ReportStats {
        trials: ks.len(),
        stale,
        tasks: n_tasks,
        bytes: html.len(),
    };
    Ok((html, stats))
}

/// Writes the report of the run in `run_dir` to `out` (atomically).
pub fn write_report(run_dir: &Path, out: &Path) -> Result<ReportStats, Error> {
    let (html, stats) = report_html(run_dir)?;
    runner::files::write_atomic(out, html.as_bytes())?;
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_compact_json() {
        let mut s = String::new();
        for v in [
            Some(3.0),
            Some(0.123_456_789),
            None,
            Some(f64::NAN),
            Some(-2.5),
        ] {
            push_number(&mut s, v);
            s.push(' ');
        }
        assert_eq!(s, "3 0.123457 null null -2.5 ");
    }

    #[test]
    fn the_data_cannot_close_its_script_element() {
        assert_eq!(
            script_safe(r#"{"a":"</script><b>"}"#),
            r#"{"a":"\u003c/script>\u003cb>"}"#
        );
        let v: serde_json::Value = serde_json::from_str(&script_safe(r#"{"a":"</x>"}"#)).unwrap();
        assert_eq!(v["a"], "</x>");
    }

    #[test]
    fn the_assets_have_their_placeholders() {
        assert_eq!(TEMPLATE.matches("{{TITLE}}").count(), 2);
        for p in ["/*{{STYLE}}*/", "/*{{SCRIPT}}*/", "{{DATA}}"] {
            assert_eq!(TEMPLATE.matches(p).count(), 1, "{p}");
        }
        assert_eq!(
            fill(
                "a {{X}} b {{Y}}",
                &[("{{X}}", "{{Y}}"), ("{{Y}}", "<{{X}}>")]
            ),
            "a {{Y}} b <{{X}}>"
        );
        // Nothing is loaded from elsewhere when the report is viewed.
        for a in [TEMPLATE, STYLE, SCRIPT] {
            // The SVG namespace is a name, not an address that is fetched; `url(#id)` refers
            // to an element of the page.
            let a = a
                .replace("http://www.w3.org/2000/svg", "")
                .replace("url(#", "");
            for bad in ["http://", "https://", "src=\"", "@import", "url("] {
                assert!(!a.contains(bad), "an asset refers to {bad}");
            }
        }
    }
}
