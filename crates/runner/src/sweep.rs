//! Sweeps: a sweep file expands into points, each run for a number of trials; the engine
//! ([`engine::run`]) computes them in parallel, resumes from point files, shards them for a
//! Slurm job array ([`slurm`]) and writes the CSVs, the manifest and the plots. A sweep file
//! is of one of three kinds ([`mod@file`]): simulator experiments (this module's [`FigureSpec`]),
//! Gao, Robert, Vivien's cutting tables, or Hansen et al.'s moldable-application figures.
//!
//! A figure's TOML (`experiments/<id>.toml`) expands into points (x value × series), each an
//! experiment run over the same trials:
//!
//! ```toml
//! id = "thesis-4.3"
//! title = "PAM: the dropping toggle"
//! source = "thesis fig. 4.3"
//! chart = "bars"              # "bars" or "lines"
//! metric = "robustness"       # the y measure (any name of TrialMetrics::scalars)
//! label_metric = "robustness" # optional: a second measure printed above each bar
//! extra_metrics = []          # optional: further measures, as columns of the figure's CSV
//! y_label = "Tasks on time (%)"
//! trials = 30
//! seed = 43
//! bound = false               # also show the clairvoyant upper bound as a series
//!
//! [base]                      # an experiment file's tables: workload, system, mapper, pruner
//! workload = { rate = 19000 }
//! mapper = { name = "PAM" }
//! pruner = { drop_threshold = 0.75, defer_threshold = 0.75, lambda = 1.0, schmitt = false }
//!
//! [x]
//! label = "Dropping toggle"
//! values = [0, 1, 2, 3, 4, 5, "never"]
//! set = ["pruner.toggle"]     # dotted paths into the experiment that take the x value
//! scale = 1.0                 # numeric x values are multiplied by this before being set
//!
//! [[series]]
//! label = "PAM"
//! set = { }                   # dotted path = value overrides for this series
//! ```
//! A series may list its own `x_values` (a subset or another range). Overrides apply in the
//! order base, x value, series: where a series sets a path that the x axis also sets, the
//! series' value wins at every x. Every point of a sweep
//! uses the same seed, so trial `k` has the same arrivals and luck in every point (common
//! random numbers across series and x values).

mod cutting;
pub mod engine;
mod experiment;
pub mod file;
mod moldable;
pub mod slurm;

pub use engine::{
    Mode, Monitor, Options, Report, Silent, SweepReport, check_inputs, check_outputs, output_files,
    run,
};
pub use figures::Chart;
pub use file::{CuttingSpec, MoldableSpec, SweepFile, SweepKind};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::RunError;
use crate::experiment::ExperimentConfig;

/// The x axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XAxis {
    /// Axis label.
    pub label: String,
    /// The x values (numbers or words such as `"never"`).
    pub values: Vec<toml::Value>,
    /// Display labels, one per value (default: the values themselves).
    #[serde(default)]
    pub labels: Option<Vec<String>>,
    /// Dotted paths into the experiment that receive the value.
    #[serde(default)]
    pub set: Vec<String>,
    /// Numeric values are multiplied by this before being set.
    #[serde(default = "one")]
    pub scale: f64,
}

fn one() -> f64 {
    1.0
}

/// One series (a heuristic plus pruner configuration).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Dotted path = value overrides of the base experiment.
    #[serde(default)]
    pub set: BTreeMap<String, toml::Value>,
    /// The x values this series runs at (default: all).
    #[serde(default)]
    pub x_values: Option<Vec<toml::Value>>,
}

/// A value the paper reports for one series at one x (a figure's `[[published]]` table): drawn
/// as a hollow marker beside the series' own value, never written to the CSVs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PublishedValue {
    /// The series' label (`[[series]] label`).
    pub series: String,
    /// The x value's label (as printed on the axis: `x.labels`, else the value).
    pub x: String,
    /// The value, in the figure's measure.
    pub value: f64,
    /// Where it comes from and how it was read (e.g. "the text: near 70%").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A figure's TOML.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// `"experiment"`, the default ([`SweepKind`]).
    #[serde(default, skip_serializing)]
    pub kind: SweepKind,
    /// Identifier, the outputs' stem: a plain file name ([`crate::files::check_name`]).
    #[serde(deserialize_with = "crate::files::deserialize_name")]
    pub id: String,
    /// Title.
    pub title: String,
    /// Where the figure comes from.
    #[serde(default)]
    pub source: String,
    /// Bars or lines.
    #[serde(default)]
    pub chart: Chart,
    /// The y measure.
    #[serde(default = "robustness")]
    pub metric: String,
    /// A second measure printed above bars.
    #[serde(default)]
    pub label_metric: Option<String>,
    /// Further measures summarised per point: each adds the columns `<name>`,
    /// `<name>_ci95_low` and `<name>_ci95_high` to the figure's CSV, and its values to the
    /// per-trial CSV.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub extra_metrics: Vec<String>,
    /// Y axis label.
    #[serde(default)]
    pub y_label: Option<String>,
    /// Trials per point.
    #[serde(default = "thirty")]
    pub trials: u64,
    /// Master seed of every point.
    pub seed: u64,
    /// Show the clairvoyant upper bound as a series.
    #[serde(default)]
    pub bound: bool,
    /// Notes (settings chosen where the text is silent), copied into the manifest.
    #[serde(default)]
    pub notes: Vec<String>,
    /// The base experiment's tables.
    pub base: toml::Table,
    /// The x axis.
    pub x: XAxis,
    /// The series.
    pub series: Vec<Series>,
    /// The values the paper reports, where its text or figure gives them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub published: Vec<PublishedValue>,
}

fn robustness() -> String {
    "robustness".into()
}

fn thirty() -> u64 {
    30
}

/// One point of a sweep.
#[derive(Debug, Clone)]
pub struct Point {
    /// Index of the x value.
    pub x_index: usize,
    /// The x label.
    pub x_label: String,
    /// Index of the series.
    pub series_index: usize,
    /// The series label.
    pub series: String,
    /// The resolved experiment.
    pub config: ExperimentConfig,
}

/// Display label of an x value.
pub fn value_label(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => s.clone(),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => {
            if f.fract() == 0.0 {
                format!("{f:.0}")
            } else {
                format!("{f}")
            }
        }
        other => other.to_string(),
    }
}

fn scaled(v: &toml::Value, scale: f64) -> toml::Value {
    if scale == 1.0 {
        return v.clone();
    }
    match v {
        toml::Value::Integer(i) => toml::Value::Float(*i as f64 * scale),
        toml::Value::Float(f) => toml::Value::Float(f * scale),
        other => other.clone(),
    }
}

/// The keys of `[workload]` that give the rate, one at a time.
const RATE_KEYS: [&str; 3] = ["rate", "load", "arrival_rate"];

/// Sets `path` (dotted) in `table` to `value`, creating tables on the way. Setting one of
/// `workload.rate`, `workload.load` and `workload.arrival_rate` removes the other two: an x
/// axis of loads over a base that gives a rate replaces the base's rate.
pub fn set_path(table: &mut toml::Table, path: &str, value: toml::Value) -> Result<(), String> {
    let mut parts = path.split('.').peekable();
    let mut cur = table;
    while let Some(p) = parts.next() {
        if parts.peek().is_none() {
            if let Some(rate) = path.strip_prefix("workload.") {
                if RATE_KEYS.contains(&rate) {
                    for other in RATE_KEYS.iter().filter(|k| **k != rate) {
                        cur.remove(*other);
                    }
                }
            }
            cur.insert(p.to_string(), value);
            return Ok(());
        }
        let entry = cur
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cur = entry
            .as_table_mut()
            .ok_or_else(|| format!("'{path}': '{p}' is not a table"))?;
    }
    Err(format!("empty path '{path}'"))
}

impl FigureSpec {
    /// Parses a figure TOML; `name` appears in errors.
    pub fn from_toml_str(text: &str, name: &str) -> Result<Self, RunError> {
        let spec: FigureSpec = toml::from_str(text).map_err(|e| RunError::Config {
            file: name.to_string(),
            line: workload::toml_line::error_line(text, &e),
            message: e.message().to_string(),
        })?;
        // The base's own keys, checked where they are written: a key no experiment has, or a
        // value of the wrong type, is named at its line of this file, not of a point's
        // expanded text.
        #[derive(Deserialize)]
        struct Base {
            #[allow(dead_code)]
            base: ExperimentConfig,
        }
        // A field the base leaves out may come from the x axis or a series: the points
        // check that.
        if let Err(e) = toml::from_str::<Base>(text).map(drop).or_else(|e| {
            match e.message().starts_with("missing field") {
                true => Ok(()),
                false => Err(e),
            }
        }) {
            return Err(RunError::Config {
                file: name.to_string(),
                line: workload::toml_line::error_line(text, &e),
                message: format!("[base]: {}", e.message()),
            });
        }
        if let Some(l) = &spec.x.labels {
            if l.len() != spec.x.values.len() {
                return Err(RunError::Config {
                    file: name.to_string(),
                    line: None,
                    message: format!(
                        "x.labels has {} entries for {} values",
                        l.len(),
                        spec.x.values.len()
                    ),
                });
            }
        }
        // Every measure named is known before any point runs.
        let named = std::iter::once(("metric", &spec.metric))
            .chain(spec.label_metric.iter().map(|m| ("label_metric", m)))
            .chain(spec.extra_metrics.iter().map(|m| ("extra_metrics", m)));
        for (key, m) in named {
            if crate::metrics::metric_doc(m).is_none() {
                let hint = match crate::metrics::bracket_name(m) {
                    Some(known) => format!("; the bracket's measure is '{known}'"),
                    None => String::new(),
                };
                return Err(RunError::Config {
                    file: name.to_string(),
                    line: None,
                    message: format!("{key}: unknown measure '{m}' (see `prunesim metrics`){hint}"),
                });
            }
        }
        if spec.series.is_empty() {
            return Err(RunError::Config {
                file: name.to_string(),
                line: None,
                message: "a figure needs at least one [[series]]".into(),
            });
        }
        for (i, p) in spec.published.iter().enumerate() {
            let problem = if spec.published_position(p).is_some() {
                None
            } else if !spec.series.iter().any(|s| s.label == p.series) {
                Some(format!(
                    "series '{}' is not a [[series]] label (one of: {})",
                    p.series,
                    spec.series
                        .iter()
                        .map(|s| s.label.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            } else {
                Some(format!(
                    "x '{}' is not an x label (one of: {})",
                    p.x,
                    (0..spec.x.values.len())
                        .map(|j| spec.x_label_of(j))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            };
            let problem = problem.or_else(|| {
                (!p.value.is_finite()).then(|| format!("value {} is not a number", p.value))
            });
            if let Some(problem) = problem {
                return Err(RunError::Config {
                    file: name.to_string(),
                    line: None,
                    message: format!("published[{i}]: {problem}"),
                });
            }
        }
        // Expanding validates every point.
        spec.points(None).map_err(|message| RunError::Config {
            file: name.to_string(),
            line: None,
            message,
        })?;
        Ok(spec)
    }

    /// Reads a figure file.
    pub fn load(path: &std::path::Path) -> Result<Self, RunError> {
        let text = workload::io::read_text(path)?;
        Self::from_toml_str(&text, &path.display().to_string())
    }

    /// Where a published value is drawn: (x index, series index), when its labels exist.
    pub fn published_position(&self, p: &PublishedValue) -> Option<(usize, usize)> {
        let x = (0..self.x.values.len()).find(|&j| self.x_label_of(j) == p.x)?;
        let s = self.series.iter().position(|s| s.label == p.series)?;
        Some((x, s))
    }

    /// The label of x value `i`.
    pub fn x_label_of(&self, i: usize) -> String {
        match &self.x.labels {
            Some(l) => l[i].clone(),
            None => value_label(&self.x.values[i]),
        }
    }

    /// Expands into points, series-major within each x value (x-major order). `trials`
    /// overrides the figure's trial count.
    pub fn points(&self, trials: Option<u64>) -> Result<Vec<Point>, String> {
        let mut out = Vec::new();
        for (xi, xv) in self.x.values.iter().enumerate() {
            for (si, s) in self.series.iter().enumerate() {
                if let Some(only) = &s.x_values {
                    if !only.contains(xv) {
                        continue;
                    }
                }
                let mut t = self.base.clone();
                for path in &self.x.set {
                    set_path(&mut t, path, scaled(xv, self.x.scale))?;
                }
                // A series' own value of a path wins over the x value's: a series can pin
                // what the x axis varies (a plain baseline in a toggle sweep, unbounded
                // queues for immediate heuristics in a queue-size sweep).
                for (path, v) in &s.set {
                    set_path(&mut t, path, v.clone())?;
                }
                set_path(
                    &mut t,
                    "workload.seed",
                    toml::Value::Integer(self.seed as i64),
                )?;
                let n = trials.unwrap_or(self.trials);
                set_path(&mut t, "workload.trials", toml::Value::Integer(n as i64))?;
                if !t.contains_key("name") {
                    t.insert(
                        "name".into(),
                        toml::Value::String(format!(
                            "{} {} x={}",
                            self.id,
                            s.label,
                            self.x_label_of(xi)
                        )),
                    );
                }
                let text = toml::to_string(&t).map_err(|e| e.to_string())?;
                // The text is the point's, expanded: its lines are not the file's.
                let config = ExperimentConfig::from_toml_str(&text, "", None).map_err(|e| {
                    let e = match e {
                        RunError::Config { message, .. } => message,
                        e => e.to_string(),
                    };
                    format!(
                        "series '{}' at x = {} ([base] with the x and series values set): {e}",
                        s.label,
                        self.x_label_of(xi)
                    )
                })?;
                out.push(Point {
                    x_index: xi,
                    x_label: self.x_label_of(xi),
                    series_index: si,
                    series: s.label.clone(),
                    config,
                });
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_one_rate_key_removes_the_others() {
        let mut t: toml::Table = toml::from_str("[workload]\nrate = 19000\nseed = 1\n").unwrap();
        set_path(&mut t, "workload.load", toml::Value::Float(1.5)).unwrap();
        let w = t["workload"].as_table().unwrap();
        assert_eq!(w.get("load"), Some(&toml::Value::Float(1.5)));
        assert!(!w.contains_key("rate") && w.contains_key("seed"));
        set_path(&mut t, "workload.arrival_rate", toml::Value::Float(0.2)).unwrap();
        let w = t["workload"].as_table().unwrap();
        assert!(!w.contains_key("load") && w.contains_key("arrival_rate"));
        // Other paths named `rate` elsewhere are left alone.
        set_path(&mut t, "staging.rate", toml::Value::Float(1.0)).unwrap();
        assert!(
            t["workload"]
                .as_table()
                .unwrap()
                .contains_key("arrival_rate")
        );
    }

    const FIGURE: &str = "id = \"f\"\ntitle = \"t\"\nseed = 1\nEXTRA\n[base]\n\
        workload = { rate = 19000, seed = 0 }\nmapper = { name = \"MM\" }\n\
        [x]\nlabel = \"r\"\nvalues = [19000]\nset = [\"workload.rate\"]\n\
        [[series]]\nlabel = \"MM\"\n";

    /// An unknown key in `[base]` is named at its line of the sweep file, with the file's
    /// name (it was named at a line of a point's expanded text, under the sweep's id).
    #[test]
    fn an_unknown_key_in_base_is_named_at_its_line_of_the_file() {
        let text = "id = \"rates\"\ntitle = \"t\"\nseed = 1\n[base]\n\
                    workload = { rate = 19000, bogus = 3 }\nmapper = { name = \"PAM\" }\n\
                    [x]\nlabel = \"rate\"\nset = [\"workload.rate\"]\nvalues = [19000]\n\
                    [[series]]\nlabel = \"PAM\"\n";
        let e = FigureSpec::from_toml_str(text, "sweeps/rates.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("sweeps/rates.toml:5: [base]: unknown field `bogus`"),
            "{e}"
        );
        assert!(!e.contains("rates:"), "{e}");
        // A value the x axis sets is checked on the point, named without a line.
        let bad_x = text
            .replace(", bogus = 3", "")
            .replace("values = [19000]", "values = [\"fast\"]");
        let e = FigureSpec::from_toml_str(&bad_x, "sweeps/rates.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("sweeps/rates.toml: series 'PAM' at x = fast"),
            "{e}"
        );
        assert!(!e.contains("rates:"), "{e}");
    }

    #[test]
    fn extra_metrics_must_be_measures() {
        let ok = FIGURE.replace(
            "EXTRA",
            "extra_metrics = [\"type_variance\", \"worst_type_on_time\"]",
        );
        let spec = FigureSpec::from_toml_str(&ok, "f.toml").unwrap();
        assert_eq!(spec.extra_metrics, ["type_variance", "worst_type_on_time"]);
        let none = FigureSpec::from_toml_str(&FIGURE.replace("EXTRA", ""), "f.toml").unwrap();
        assert!(none.extra_metrics.is_empty());
        let bad = FIGURE.replace("EXTRA", "extra_metrics = [\"fairness\"]");
        let e = FigureSpec::from_toml_str(&bad, "f.toml").unwrap_err();
        assert!(e.to_string().contains("unknown measure 'fairness'"), "{e}");
        // The measure and the label are checked before any point runs too, and a name for the
        // bracket's side outside the vocabulary is answered with the measure's name.
        let bad = FIGURE.replace("EXTRA", "label_metric = \"bound\"");
        let e = FigureSpec::from_toml_str(&bad, "f.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("label_metric: unknown measure 'bound'")
                && e.contains("the bracket's measure is 'optimum_upper'"),
            "{e}"
        );
        let bad = FIGURE.replace("EXTRA", "metric = \"gap_to_bound\"");
        let e = FigureSpec::from_toml_str(&bad, "f.toml")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("metric: unknown measure 'gap_to_bound'") && e.contains("'gap_to_upper'"),
            "{e}"
        );
        // The measure of load on mean times had another name, which reads as a bound.
        let bad = FIGURE.replace("EXTRA", "metric = \"capacity_ceiling\"");
        let e = FigureSpec::from_toml_str(&bad, "f.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("'capacity_on_means'"), "{e}");
    }

    #[test]
    fn published_values_name_a_series_and_an_x_label() {
        let with = |entry: &str| FIGURE.replace("EXTRA", entry);
        let ok = with("published = [{ series = \"MM\", x = \"19000\", value = 25.0 }]");
        let spec = FigureSpec::from_toml_str(&ok, "f.toml").unwrap();
        assert_eq!(spec.published_position(&spec.published[0]), Some((0, 0)));
        for (entry, expected) in [
            (
                "published = [{ series = \"PAM\", x = \"19000\", value = 1.0 }]",
                "published[0]: series 'PAM' is not a [[series]] label (one of: MM)",
            ),
            (
                "published = [{ series = \"MM\", x = \"19k\", value = 1.0 }]",
                "published[0]: x '19k' is not an x label (one of: 19000)",
            ),
            (
                "published = [{ series = \"MM\", x = \"19000\", value = nan }]",
                "published[0]: value NaN is not a number",
            ),
            (
                "published = [{ series = \"MM\", x = \"19000\", valu = 1.0 }]",
                "unknown field `valu`",
            ),
        ] {
            let e = FigureSpec::from_toml_str(&with(entry), "f.toml").unwrap_err();
            assert!(e.to_string().contains(expected), "{e}");
        }
    }
}
