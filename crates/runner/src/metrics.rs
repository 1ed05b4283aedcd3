//! Metrics of one trial (thesis 3.4.2, 6.5, 6.6; paper VI-B, VII-D, VII-F) and their summary
//! over trials (mean and 95% confidence interval with Student's t).

use model::Outcome;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

use crate::engine::TrialRecord;

/// Which tasks count toward the measures: the first and last ones by arrival are left out,
/// when the system is not yet (or no longer) oversubscribed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counting {
    /// Tasks left out at the start (by arrival).
    pub skip_first: usize,
    /// Tasks left out at the end (by arrival).
    pub skip_last: usize,
}

impl Default for Counting {
    fn default() -> Self {
        Counting {
            skip_first: 100,
            skip_last: 100,
        }
    }
}

impl Counting {
    /// The counted range of task ids for a trial of `n` tasks. When `n` is too small to leave
    /// anything, every task counts.
    pub fn range(self, n: usize) -> std::ops::Range<usize> {
        if self.skip_first + self.skip_last >= n {
            0..n
        } else {
            self.skip_first..n - self.skip_last
        }
    }
}

/// The measures of one trial.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialMetrics {
    /// On-time tasks / counted tasks, in %.
    pub robustness: f64,
    /// On-time counted tasks.
    pub on_time: usize,
    /// Counted tasks.
    pub counted: usize,
    /// On-time % per task type among counted tasks (NaN for a type with no counted task).
    pub type_on_time: Vec<f64>,
    /// Fairness (thesis 6.5, paper VII-D): the variance across task types of the on-time
    /// fraction, times 100 (types with no counted task left out).
    pub type_variance: f64,
    /// The lowest on-time % of a task type among counted tasks (types with no counted task
    /// left out; 0 when no task counts).
    #[serde(default)]
    pub worst_type_on_time: f64,
    /// Busy time per machine (all tasks, counted or not).
    pub busy: Vec<f64>,
    /// Time spent executing tasks that did not complete on time (all tasks).
    pub wasted: f64,
    /// Cost of the time the machines spent executing the counted tasks (the tasks robustness
    /// counts), at each machine's price per hour (thesis 6.6).
    pub cost: f64,
    /// Cost divided by robustness % (thesis 6.6); NaN when nothing succeeded.
    pub cost_per_robustness: f64,
    /// Mapping events.
    pub mapping_events: u64,
    /// Mapping events with dropping engaged.
    pub engaged_events: u64,
    /// Deferrals over all tasks.
    pub deferrals: u64,
    /// Simulated span (first arrival to last event).
    pub span: f64,
    /// Counted tasks per outcome, in [`Outcome::ALL`] order.
    pub outcomes: Vec<usize>,
    /// The bracket's upper side (`optimum_upper`): a clairvoyant upper bound on the on-time
    /// counted tasks of this trial (the `bound` crate's capacity LP tightened by a Lagrangian
    /// bound), when computed. Point files written with its former name `bound_on_time` read.
    #[serde(alias = "bound_on_time")]
    pub upper_on_time: Option<usize>,
    /// The on-time counted tasks of the best feasible clairvoyant schedule found for this
    /// trial (the bracket's lower side: achievable, so a lower bound on the optimum), when
    /// computed.
    #[serde(default)]
    pub lower_on_time: Option<usize>,
    /// The capacity on mean times in % of the counted tasks (the measure `capacity_on_means`) (`bound::capacity_on_means_trial`: the
    /// most the machines complete at all on the mean times, from the first counted arrival
    /// to the last counted deadline, deadlines ignored), computed with the bracket when the
    /// truth does not drift.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ceiling: Option<f64>,
    /// Robustness in % over each of `[system] windows` consecutive equal parts of the
    /// trial's tasks (all of them, by arrival; empty unless asked for): robustness as the
    /// trial goes on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<f64>,
}

/// The names of the window measures ([`TrialMetrics::windows`]), at most this many windows.
pub const WINDOW_METRICS: [&str; 10] = [
    "window_01",
    "window_02",
    "window_03",
    "window_04",
    "window_05",
    "window_06",
    "window_07",
    "window_08",
    "window_09",
    "window_10",
];

/// Robustness in % over each of `windows` consecutive parts of the tasks `range` (part `i`
/// holds tasks `range.start + floor(i n / windows) ..` up to the next part's start, `n`
/// the tasks in the range).
pub fn window_robustness(
    record: &TrialRecord,
    range: std::ops::Range<usize>,
    windows: usize,
) -> Vec<f64> {
    let n = range.len();
    (0..windows)
        .map(|i| {
            let a = range.start + i * n / windows;
            let b = range.start + (i + 1) * n / windows;
            if b <= a {
                return f64::NAN;
            }
            let ok = record.tasks[a..b]
                .iter()
                .filter(|t| t.outcome.is_success())
                .count();
            100.0 * ok as f64 / (b - a) as f64
        })
        .collect()
}

/// Prices and the length of an hour, for cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing<'a> {
    /// Price per machine-hour, one per machine.
    pub per_hour: &'a [f64],
    /// Time units per hour (3600 when a time unit is a second).
    pub hour: f64,
}

impl TrialMetrics {
    /// Computes the measures of a trial. `types[i]` is task `i`'s type, `n_types` the number of
    /// types.
    pub fn new(
        record: &TrialRecord,
        types: &[usize],
        n_types: usize,
        counting: Counting,
        pricing: &Pricing<'_>,
    ) -> Self {
        let range = counting.range(record.tasks.len());
        let counted = range.len();
        let mut outcomes = vec![0usize; Outcome::ALL.len()];
        let mut per_type = vec![(0usize, 0usize); n_types];
        for i in range {
            let o = record.tasks[i].outcome;
            let k = Outcome::ALL.iter().position(|&x| x == o).unwrap_or(0);
            outcomes[k] += 1;
            let e = &mut per_type[types[i]];
            e.1 += 1;
            if o.is_success() {
                e.0 += 1;
            }
        }
        let on_time = outcomes[0];
        let robustness = if counted == 0 {
            0.0
        } else {
            100.0 * on_time as f64 / counted as f64
        };
        let type_on_time: Vec<f64> = per_type
            .iter()
            .map(|&(s, n)| {
                if n == 0 {
                    f64::NAN
                } else {
                    100.0 * s as f64 / n as f64
                }
            })
            .collect();
        let fractions: Vec<f64> = per_type
            .iter()
            .filter(|e| e.1 > 0)
            .map(|&(s, n)| s as f64 / n as f64)
            .collect();
        let type_variance = 100.0 * population_variance(&fractions);
        let worst_type_on_time = if fractions.is_empty() {
            0.0
        } else {
            100.0 * fractions.iter().copied().fold(f64::INFINITY, f64::min)
        };
        let busy: Vec<f64> = record.busy.iter().map(|&b| b as f64).collect();
        // The busy time of the counted tasks per machine, so that cost per robustness divides
        // the cost of the same tasks that robustness counts.
        let mut counted_busy = vec![0i64; busy.len()];
        for r in &record.tasks[counting.range(record.tasks.len())] {
            if let (Some(m), Some(start)) = (r.machine, r.start) {
                if let Some(b) = counted_busy.get_mut(m) {
                    *b += r.end - start;
                }
            }
        }
        let cost: f64 = counted_busy
            .iter()
            .enumerate()
            .map(|(m, &b)| {
                b as f64 / pricing.hour * pricing.per_hour.get(m).copied().unwrap_or(0.0)
            })
            .sum();
        let cost_per_robustness = if robustness > 0.0 {
            cost / robustness
        } else {
            f64::NAN
        };
        TrialMetrics {
            robustness,
            on_time,
            counted,
            type_on_time,
            type_variance,
            worst_type_on_time,
            busy,
            wasted: record.wasted.iter().sum::<i64>() as f64,
            cost,
            cost_per_robustness,
            mapping_events: record.mapping_events,
            engaged_events: record.engaged_events,
            deferrals: record.tasks.iter().map(|t| u64::from(t.deferrals)).sum(),
            span: record.span as f64,
            outcomes,
            upper_on_time: None,
            lower_on_time: None,
            ceiling: None,
            windows: Vec::new(),
        }
    }

    /// One scalar measure by name (see [`TrialMetrics::scalars`]).
    pub fn scalar(&self, name: &str) -> Option<f64> {
        self.scalars()
            .into_iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }

    /// The scalar measures by name, in a fixed order (for summaries and CSV).
    pub fn scalars(&self) -> Vec<(&'static str, f64)> {
        let mut v = vec![
            ("robustness", self.robustness),
            ("on_time", self.on_time as f64),
            ("counted", self.counted as f64),
            ("type_variance", self.type_variance),
            ("worst_type_on_time", self.worst_type_on_time),
            ("cost", self.cost),
            ("cost_per_robustness", self.cost_per_robustness),
            ("busy", self.busy.iter().sum()),
            ("wasted", self.wasted),
            ("mapping_events", self.mapping_events as f64),
            ("engaged_events", self.engaged_events as f64),
            ("deferrals", self.deferrals as f64),
            ("span", self.span),
        ];
        for (k, o) in Outcome::ALL.iter().enumerate() {
            v.push((outcome_metric(*o), self.outcomes[k] as f64));
        }
        let pct = |x: usize| {
            if self.counted == 0 {
                0.0
            } else {
                100.0 * x as f64 / self.counted as f64
            }
        };
        if let Some(b) = self.upper_on_time {
            v.push(("optimum_upper", pct(b)));
            v.push(("optimum_upper_on_time", b as f64));
            v.push(("gap_to_upper", pct(b) - self.robustness));
        }
        for (name, &w) in WINDOW_METRICS.iter().zip(&self.windows) {
            v.push((name, w));
        }
        if let Some(l) = self.lower_on_time {
            v.push(("optimum_lower", pct(l)));
            v.push(("optimum_lower_on_time", l as f64));
            v.push(("gap_to_lower", pct(l) - self.robustness));
        }
        if let Some(c) = self.ceiling {
            v.push(("capacity_on_means", c));
        }
        v
    }
}

/// The name of the bracket's measure that a name outside the vocabulary means (`bound` is
/// `optimum_upper`, `gap_to_bound` is `gap_to_upper`, `bound_on_time` is
/// `optimum_upper_on_time`, `capacity_ceiling` is `capacity_on_means`), for an error that
/// names the measure to ask for.
pub fn bracket_name(name: &str) -> Option<&'static str> {
    match name {
        "bound" | "upper" | "optimum_upper_bound" => Some("optimum_upper"),
        "gap_to_bound" => Some("gap_to_upper"),
        "capacity_ceiling" => Some("capacity_on_means"),
        "bound_on_time" => Some("optimum_upper_on_time"),
        "lower" | "optimum_lower_bound" => Some("optimum_lower"),
        _ => None,
    }
}

fn outcome_metric(o: Outcome) -> &'static str {
    match o {
        Outcome::OnTime => "n_on_time",
        Outcome::Late => "n_late",
        Outcome::ExpiredPending => "n_expired_pending",
        Outcome::ExpiredExecuting => "n_expired_executing",
        Outcome::PrunedPending => "n_pruned_pending",
        Outcome::PrunedExecuting => "n_pruned_executing",
        Outcome::Unmapped => "n_unmapped",
        Outcome::Discarded => "n_discarded",
    }
}

fn population_variance(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

/// How a measure reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Percent of the counted tasks.
    Percent,
    /// Percentage points: the difference of two percentages.
    Points,
    /// A number of tasks.
    Tasks,
    /// A number of events.
    Events,
    /// Time units (ticks) of the experiment.
    TimeUnits,
    /// Currency (the price table's, per machine-hour).
    Money,
    /// Money per percentage point of robustness.
    MoneyPerPoint,
    /// A variance of shares (fractions in [0, 1]), times 100.
    Variance,
}

impl Unit {
    /// The unit as printed after a value.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Percent => "%",
            Unit::Points => "points",
            Unit::Tasks => "tasks",
            Unit::Events => "events",
            Unit::TimeUnits => "time units",
            Unit::Money => "$",
            Unit::MoneyPerPoint => "$/point",
            Unit::Variance => "share² x100",
        }
    }

    /// True for counts, printed without decimals when whole.
    pub fn is_count(self) -> bool {
        matches!(self, Unit::Tasks | Unit::Events)
    }
}

/// The group a measure is printed in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// Robustness, the headline.
    Robustness,
    /// The clairvoyant bracket (`optimum_lower`, `optimum_upper`) and the gaps to it.
    Bound,
    /// What happened to the counted tasks.
    Outcomes,
    /// What the pruner and the mapper did.
    Pruning,
    /// Fairness across task types.
    Fairness,
    /// Cost and machine time.
    Cost,
    /// Simulated time.
    Timing,
}

impl Group {
    /// The group's heading.
    pub fn title(self) -> &'static str {
        match self {
            Group::Robustness => "robustness",
            Group::Bound => "the clairvoyant optimum, bracketed",
            Group::Outcomes => "outcomes of the counted tasks",
            Group::Pruning => "pruning and mapping activity",
            Group::Fairness => "fairness",
            Group::Cost => "cost and machine time",
            Group::Timing => "timing",
        }
    }
}

/// One measure: its name, unit, range and one-line definition (the glossary the CLI prints,
/// the summary JSON's `metrics_doc` and the docs share).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MetricDoc {
    /// The name in [`TrialMetrics::scalars`], CSVs and JSON.
    pub name: &'static str,
    /// The group it is printed in.
    pub group: Group,
    /// Its unit.
    pub unit: Unit,
    /// The smallest value it can take.
    pub min: f64,
    /// The largest value it can take (`f64::INFINITY` when unbounded).
    pub max: f64,
    /// What it is, in one line.
    pub definition: &'static str,
}

const fn doc(
    name: &'static str,
    group: Group,
    unit: Unit,
    max: f64,
    definition: &'static str,
) -> MetricDoc {
    MetricDoc {
        name,
        group,
        unit,
        min: 0.0,
        max,
        definition,
    }
}

const INF: f64 = f64::INFINITY;

/// Every measure of [`TrialMetrics::scalars`], in print order.
pub const METRICS: &[MetricDoc] = &[
    doc(
        "robustness",
        Group::Robustness,
        Unit::Percent,
        100.0,
        "share of the counted tasks that completed before their deadline (thesis 3.4.2, paper VI-B)",
    ),
    doc(
        "window_01",
        Group::Robustness,
        Unit::Percent,
        100.0,
        "robustness over the first of `[system] windows` equal consecutive parts of all the trial's tasks, by arrival (window_02 ... window_10 the next ones): robustness as a trial goes on",
    ),
    doc(
        "optimum_lower",
        Group::Bound,
        Unit::Percent,
        100.0,
        "robustness of the best feasible schedule found knowing every execution time: the optimum is at least this (user guide: Concepts, the clairvoyant bracket)",
    ),
    doc(
        "optimum_upper",
        Group::Bound,
        Unit::Percent,
        100.0,
        "an upper bound on robustness: no scheduler, even one knowing every execution time, does better; the optimum is at most this (user guide: Concepts, the clairvoyant bracket)",
    ),
    doc(
        "capacity_on_means",
        Group::Bound,
        Unit::Percent,
        100.0,
        "share of the counted tasks the machines could complete at all if every task took its type's mean time on its machine, working without a pause from the first counted arrival to the last counted deadline, deadlines ignored (an LP, fractions of tasks allowed; user guide: Reproduce the papers). A measure of load, not a bound: real times vary, and a scheduler that finds the short ones completes more, so optimum_lower may exceed it; not computed when the truth drifts",
    ),
    doc(
        "gap_to_lower",
        Group::Bound,
        Unit::Points,
        100.0,
        "optimum_lower minus robustness, in percentage points: what a clairvoyant scheduler gains at least",
    ),
    doc(
        "gap_to_upper",
        Group::Bound,
        Unit::Points,
        100.0,
        "optimum_upper minus robustness, in percentage points: the most any scheduler could gain",
    ),
    doc(
        "optimum_lower_on_time",
        Group::Bound,
        Unit::Tasks,
        INF,
        "optimum_lower as a number of counted tasks",
    ),
    doc(
        "optimum_upper_on_time",
        Group::Bound,
        Unit::Tasks,
        INF,
        "optimum_upper as a number of counted tasks",
    ),
    doc(
        "on_time",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks completed before their deadline",
    ),
    doc(
        "counted",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "tasks that count toward the measures: all but the first skip_first and last skip_last by arrival",
    ),
    doc(
        "n_on_time",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks completed before their deadline (= on_time)",
    ),
    doc(
        "n_late",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks completed at or after their deadline (only when the executing task is not dropped)",
    ),
    doc(
        "n_expired_pending",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks dropped from a machine queue when their deadline passed",
    ),
    doc(
        "n_expired_executing",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks dropped while executing when their deadline passed (drop_model = all)",
    ),
    doc(
        "n_pruned_pending",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks the pruner dropped from a machine queue (thesis Algorithm 1)",
    ),
    doc(
        "n_pruned_executing",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks the pruner dropped while executing (drop_model = all)",
    ),
    doc(
        "n_unmapped",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks whose deadline passed in the batch queue, never mapped",
    ),
    doc(
        "n_discarded",
        Group::Outcomes,
        Unit::Tasks,
        INF,
        "counted tasks a heuristic discarded from the batch queue (MOC, JPDC-2016 6.2.5)",
    ),
    doc(
        "mapping_events",
        Group::Pruning,
        Unit::Events,
        INF,
        "mapping events of the trial (every arrival, completion or drop tick)",
    ),
    doc(
        "engaged_events",
        Group::Pruning,
        Unit::Events,
        INF,
        "mapping events at which dropping was engaged (toggle, EWMA, Schmitt trigger: paper eq. 8)",
    ),
    doc(
        "deferrals",
        Group::Pruning,
        Unit::Events,
        INF,
        "times a task was deferred (left in the batch queue because its best chance was at or below the defer threshold), over all tasks",
    ),
    doc(
        "type_variance",
        Group::Fairness,
        Unit::Variance,
        25.0,
        "variance across task types of the on-time share (a fraction in [0, 1]) of counted tasks, times 100, as the thesis plots it (thesis 6.5, paper VII-D): 1 is a standard deviation of 10 points across types, 4 of 20 points",
    ),
    doc(
        "worst_type_on_time",
        Group::Fairness,
        Unit::Percent,
        100.0,
        "the lowest share of a task type's counted tasks that completed before their deadline, over the types with counted tasks",
    ),
    doc(
        "cost",
        Group::Cost,
        Unit::Money,
        INF,
        "price of the machine time spent executing the counted tasks, at each machine's price per hour (thesis 6.6)",
    ),
    doc(
        "cost_per_robustness",
        Group::Cost,
        Unit::MoneyPerPoint,
        INF,
        "cost divided by robustness (thesis 6.6); undefined when no task is on time",
    ),
    doc(
        "busy",
        Group::Cost,
        Unit::TimeUnits,
        INF,
        "machine time spent executing, over all machines and all tasks (counted or not)",
    ),
    doc(
        "wasted",
        Group::Cost,
        Unit::TimeUnits,
        INF,
        "machine time spent executing tasks that did not complete on time (all tasks)",
    ),
    doc(
        "span",
        Group::Timing,
        Unit::TimeUnits,
        INF,
        "simulated time from the first arrival to the last event",
    ),
];

/// The glossary of the measures as Markdown: `docs/metrics.md` is exactly this text (a test
/// checks it; `prunesim metrics --markdown` prints it).
pub fn glossary_markdown() -> String {
    let mut out = String::from(
        "# Measures\n\n\
         Every measure `prunesim run` prints, writes to `trials.csv` and `summary.json` (whose\n\
         `metrics_doc` carries the same definitions), by group. A trial's measures count the\n\
         tasks between the first `system.skip_first` and the last `system.skip_last` by arrival\n\
         unless the definition says otherwise; a summary gives each measure's mean over trials\n\
         and its 95% confidence interval (Student's t, clamped to the measure's range, absent\n\
         with one trial). This page is generated from `runner::metrics::METRICS`.\n",
    );
    let mut group = None;
    for d in METRICS {
        if group != Some(d.group) {
            out.push_str(&format!(
                "\n## {}\n\n| measure | unit | range | definition |\n|---|---|---|---|\n",
                d.group.title()
            ));
            group = Some(d.group);
        }
        let max = if d.max.is_finite() {
            format!("{}", d.max)
        } else {
            "∞".to_owned()
        };
        out.push_str(&format!(
            "| `{}` | {} | [{}, {max}] | {} |\n",
            d.name,
            d.unit.symbol(),
            d.min,
            d.definition
        ));
    }
    out
}

/// The documentation of a measure by name.
pub fn metric_doc(name: &str) -> Option<&'static MetricDoc> {
    METRICS.iter().find(|d| d.name == name).or_else(|| {
        // window_02 ... window_10 share window_01's entry.
        WINDOW_METRICS[1..]
            .contains(&name)
            .then(|| METRICS.iter().find(|d| d.name == WINDOW_METRICS[0]))
            .flatten()
    })
}

/// Mean and 95% confidence interval of one measure over trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    /// Sample mean.
    pub mean: f64,
    /// Lower end of the 95% CI (Student's t with n - 1 degrees of freedom), clamped to the
    /// measure's range; `None` (JSON `null`) with fewer than two values.
    pub ci95_low: Option<f64>,
    /// Upper end, clamped likewise; `None` with fewer than two values.
    pub ci95_high: Option<f64>,
    /// Sample standard deviation (`None` with fewer than two values).
    pub std_dev: Option<f64>,
    /// Number of values (NaN values are left out).
    pub n: usize,
}

impl Estimate {
    /// The estimate of the finite values of `values`, with an unbounded range.
    pub fn new(values: &[f64]) -> Self {
        Self::within(values, f64::NEG_INFINITY, f64::INFINITY)
    }

    /// The estimate of a named measure: its interval clamped to the measure's range
    /// ([`metric_doc`]); unbounded for an unknown name.
    pub fn of_metric(name: &str, values: &[f64]) -> Self {
        match metric_doc(name) {
            Some(d) => Self::within(values, d.min, d.max),
            None => Self::new(values),
        }
    }

    /// The estimate of the finite values of `values`, the interval clamped to `[lo, hi]` (a
    /// mean of values in the range is in it, so the interval still contains the mean).
    pub fn within(values: &[f64], lo: f64, hi: f64) -> Self {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return Estimate {
                mean: f64::NAN,
                ci95_low: None,
                ci95_high: None,
                std_dev: None,
                n,
            };
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Estimate {
                mean,
                ci95_low: None,
                ci95_high: None,
                std_dev: None,
                n,
            };
        }
        let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        let half = t_975(n - 1) * sd / (n as f64).sqrt();
        Estimate {
            mean,
            ci95_low: Some((mean - half).max(lo)),
            ci95_high: Some((mean + half).min(hi)),
            std_dev: Some(sd),
            n,
        }
    }

    /// Half the interval's width (`None` without an interval).
    pub fn half_width(&self) -> Option<f64> {
        Some((self.ci95_high? - self.ci95_low?) / 2.0)
    }
}

/// The 97.5% quantile of Student's t with `df` degrees of freedom.
pub fn t_975(df: usize) -> f64 {
    StudentsT::new(0.0, 1.0, df as f64)
        .map(|t| t.inverse_cdf(0.975))
        .unwrap_or(1.959_963_984_540_054)
}
